/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_toeplitz.h: the Toeplitz (RSS) hash in software, bit-exact with what a NIC computes.
 *
 * Input, as a NIC hashes with the hash types dpdk-rps programs into the port (rps_port.h):
 * IPv4/IPv6 source address, destination address, then source and destination port for
 * TCP and UDP; addresses alone for every other protocol and for every IP fragment; all in
 * network byte order. A frame without an IP flow is hashed on its layer-2 key
 * (rps_hash_l2_key(): MACs, EtherType, VLAN ID) with the same key. The headers are found as by
 * rps_flow_key_extract(): VLAN/QinQ tags skipped, IPv4 options and the IPv6 extension chain
 * walked. A hash that computes to 0 becomes 1 (rps_hash.h's convention, as rps_hash_rss()).
 *
 * The key (40 or 52 bytes: only the first 40 reach the hash of a 36-byte IPv6 tuple; 52
 * is what some NICs hold) is turned once into what the fast implementation needs: the
 * matrices of rte_thash_gfni() where the running CPU has GFNI and AVX-512, else the
 * CPU-order key of rte_softrss_be(). Both give the same hash; GFNI is 2x (IPv4) to 5x (IPv6)
 * faster here. The choice is made at run time (rps_toeplitz_gfni_available()): a build for
 * a CPU with GFNI (-Dcpu=native there) inlines rte_thash_gfni(); any other build calls an
 * out-of-line copy compiled alone with GFNI and AVX-512 enabled (toeplitz_gfni.c), so the
 * same binary runs on a CPU without them.
 *
 * Symmetry, two ways (enum rps_sym_mode):
 * - sorted (rps_toeplitz_sw_sym(), --symmetric): the tuple is put in canonical order (lower
 *   address, then lower port, first) before it is hashed with any key, the random one by
 *   default: as the "symmetric Toeplitz" of newer NICs. The hash space stays whole.
 * - a symmetric key (--symmetric-xor): with a key whose bits repeat every 16 (6d5a repeated,
 *   rps_toeplitz_symmetric_key) swapping source and destination moves every input bit by a
 *   multiple of 16 bits, which leaves the hash unchanged, in software and on a NIC programmed
 *   with that key. But such a hash is a function of the XOR of the tuple's 16-bit words
 *   alone: flows with equal XOR collide whatever the key, so anyone can aim flows at one
 *   worker. No other key is symmetric.
 *
 * Thread-safety: a struct rps_toeplitz is read-only after rps_toeplitz_init(); the hash
 * functions are pure.
 */
#ifndef RPS_TOEPLITZ_H
#define RPS_TOEPLITZ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_thash.h>

#include "rps_hash.h"

#define RPS_TOEPLITZ_KEY_LEN 40   /**< default key length; what a 4-tuple IPv6 hash reads */
#define RPS_TOEPLITZ_KEY_MAX 52   /**< longest key accepted (i40e, ice) */
#define RPS_TOEPLITZ_TUPLE_MAX 36 /**< IPv6 addresses + ports */

/** The 40-byte key most NICs ship (Microsoft's RSS specification). */
extern const uint8_t rps_toeplitz_default_key[RPS_TOEPLITZ_KEY_LEN];
/** The symmetric key: 6d5a repeated 20 times. */
extern const uint8_t rps_toeplitz_symmetric_key[RPS_TOEPLITZ_KEY_LEN];

/** Which implementation rps_toeplitz_init() picks. */
enum rps_toeplitz_impl {
	RPS_TOEPLITZ_AUTO = 0, /**< GFNI where available, else rte_softrss_be() */
	RPS_TOEPLITZ_SOFT,     /**< rte_softrss_be() */
	RPS_TOEPLITZ_GFNI,     /**< rte_thash_gfni(); -ENOTSUP where unavailable */
};

/** A key prepared for hashing. */
struct rps_toeplitz {
	uint64_t mtrx[RPS_TOEPLITZ_KEY_MAX];      /**< rte_thash_complete_matrix() of the key */
	uint32_t key_be[RPS_TOEPLITZ_KEY_MAX / 4]; /**< rte_convert_rss_key() of the key */
	uint8_t key[RPS_TOEPLITZ_KEY_MAX];        /**< the key as given (network order) */
	uint8_t key_len;
	uint8_t gfni;                             /**< 1: rte_thash_gfni(), 0: rte_softrss_be() */
};

/**
 * Prepare @p t for @p key of @p len bytes (RPS_TOEPLITZ_KEY_LEN or RPS_TOEPLITZ_KEY_MAX).
 * @return 0, -EINVAL (NULL or a bad length), -ENOTSUP (RPS_TOEPLITZ_GFNI where it is not
 *   available).
 */
int rps_toeplitz_init(struct rps_toeplitz *t, const uint8_t *key, size_t len,
		      enum rps_toeplitz_impl impl);

/**
 * Whether rte_thash_gfni() can run here: compiled in (inline where the build's baseline has
 * GFNI and AVX-512, else the out-of-line copy, RPS_HAVE_GFNI_OOL) and the CPU has GFNI,
 * AVX512F/BW/DQ/VL and VBMI. DPDK's own
 * rte_thash_gfni_supported() answers for how DPDK itself was built (0 for distribution
 * packages built for a baseline CPU) and also wants --force-max-simd-bitwidth=512.
 */
int rps_toeplitz_gfni_available(void);

#ifdef RPS_HAVE_GFNI_OOL
/** rte_thash_gfni() compiled alone with GFNI and AVX-512 (toeplitz_gfni.c). Call it only
 * where rps_toeplitz_gfni_available(). */
uint32_t rps_toeplitz_gfni_ool(const uint64_t *mtrx, const uint8_t *tuple, unsigned int len);
#endif

/**
 * Parse a key written in hex: "6d5a56da..." or "6d:5a:56:da:..." (ethtool's form), with an
 * optional "0x". @p key receives up to RPS_TOEPLITZ_KEY_MAX bytes.
 * @return 0 and *len; -EINVAL when it is not hex (or badly separated), -ERANGE when it is
 *   hex of a length other than 40 or 52 bytes (*len then holds that length).
 */
int rps_toeplitz_key_parse(const char *s, uint8_t *key, size_t *len);

/** Write @p key as hex (2 * len + 1 bytes fit it all). */
void rps_toeplitz_key_format(const uint8_t *key, size_t len, char *buf, size_t size);

/** Whether the key repeats one 16-bit pattern, i.e. gives a symmetric hash. */
int rps_toeplitz_key_is_symmetric(const uint8_t *key, size_t len);

/**
 * Fill @p key with @p len bytes from the kernel's random source (getrandom(2)), as Linux's
 * netdev_rss_key_fill() does for a NIC's key: a key no one else knows cannot be aimed at.
 * Not rte_rand(): its generator is not meant to keep its output secret.
 * @return 0, or a negative errno (-ENOSYS, -EIO...) when no random bytes could be had.
 */
int rps_toeplitz_key_random(uint8_t *key, size_t len);

/** Toeplitz hash of @p len (a multiple of 4, at most RPS_TOEPLITZ_TUPLE_MAX) bytes in
 * network order. May be 0. */
static inline uint32_t
rps_toeplitz_bytes(const struct rps_toeplitz *t, const uint8_t *tuple, unsigned int len)
{
	uint32_t w[RPS_TOEPLITZ_TUPLE_MAX / 4];

#if defined(RTE_THASH_GFNI_DEFINED)
	if (likely(t->gfni))
		return rte_thash_gfni(t->mtrx, tuple, (int)len);
#elif defined(RPS_HAVE_GFNI_OOL)
	if (likely(t->gfni))
		return rps_toeplitz_gfni_ool(t->mtrx, tuple, len);
#endif
	for (unsigned int i = 0; i < len / 4; i++) {
		uint32_t x;

		memcpy(&x, tuple + 4 * i, 4);
		w[i] = rte_be_to_cpu_32(x);
	}
	return rte_softrss_be(w, len / 4, (const uint8_t *)t->key_be);
}

/** Toeplitz hash of an extracted key (family 4 or 6): addresses, plus the ports for
 * non-fragmented TCP and UDP. Never 0. */
static inline uint32_t
rps_toeplitz_flow_key(const struct rps_toeplitz *t, const struct rps_flow_key *k)
{
	uint8_t tuple[RPS_TOEPLITZ_TUPLE_MAX];
	const unsigned int alen = k->family == 4 ? 4 : 16;
	unsigned int len = 2 * alen;
	uint32_t h;

	memcpy(tuple, k->src, alen);
	memcpy(tuple + alen, k->dst, alen);
	if (k->has_ports && !k->is_frag &&
	    (k->proto == IPPROTO_TCP || k->proto == IPPROTO_UDP)) {
		memcpy(tuple + len, &k->ports, 4);
		len += 4;
	}
	h = rps_toeplitz_bytes(t, tuple, len);
	return h ? h : 1;
}

/** Toeplitz hash of the layer-2 key (rps_hash_l2_key(), MACs sorted with @p sym) of a frame
 * without an IP flow. Never 0, but 0 for a frame shorter than an Ethernet header. */
uint32_t rps_toeplitz_l2(const struct rps_toeplitz *t, const struct rte_mbuf *m, int sym);

/** Reference path: every layout rps_flow_key_extract() handles; rps_toeplitz_l2() for a
 * frame without an IP flow. */
uint32_t rps_toeplitz_sw_ref(const struct rps_toeplitz *t, const struct rte_mbuf *m);

/** Sorted symmetric reference: rps_flow_key_extract() + rps_flow_key_symmetric() +
 * rps_toeplitz_flow_key(); rps_toeplitz_l2() with sorted MACs for a frame without one. */
uint32_t rps_toeplitz_sym_ref(const struct rps_toeplitz *t, const struct rte_mbuf *m);

/**
 * The common case, straight from the first segment (the tuple is contiguous in the
 * header, so GFNI hashes it in place): untagged Ethernet, then IPv4 without options (any
 * protocol, fragments included), or IPv6 without extension headers carrying TCP, UDP or
 * ICMPv6. @return 1 and the hash in *h, or 0 when the packet needs rps_toeplitz_sw_ref()
 * (which gives the same hash for the packets this one accepts).
 */
static inline int
rps_toeplitz_fast(const struct rps_toeplitz *t, const struct rte_mbuf *m, uint32_t *h)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint16_t dlen = m->data_len;
	uint16_t type;
	uint32_t x;

	if (unlikely(dlen < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr) + 4))
		return 0;
	memcpy(&type, p + 12, 2);
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(p + RTE_ETHER_HDR_LEN);
		unsigned int len = 8;

		if (ip->version_ihl != RTE_IPV4_VHL_DEF)
			return 0;
		/* src, dst and (TCP/UDP) the ports right after a 20-byte header: contiguous */
		if ((ip->next_proto_id == IPPROTO_TCP || ip->next_proto_id == IPPROTO_UDP) &&
		    (ip->fragment_offset &
		     RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) == 0)
			len = 12;
		x = rps_toeplitz_bytes(t, (const uint8_t *)&ip->src_addr, len);
	} else if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(p + RTE_ETHER_HDR_LEN);
		unsigned int len;

		if (dlen < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr) + 4 ||
		    (ip->vtc_flow & RTE_BE32(0xf0000000)) != RTE_BE32(0x60000000))
			return 0;
		if (ip->proto == IPPROTO_TCP || ip->proto == IPPROTO_UDP)
			len = 36;
		else if (ip->proto == IPPROTO_ICMPV6)
			len = 32;
		else
			return 0; /* perhaps an extension header: the reference walks it */
		x = rps_toeplitz_bytes(t, ip->src_addr, len);
	} else {
		return 0;
	}
	*h = x ? x : 1;
	return 1;
}

/** Software Toeplitz hash of a packet: non-zero (0 only for a runt, rps_toeplitz_l2()). */
static inline uint32_t
rps_toeplitz_sw(const struct rps_toeplitz *t, const struct rte_mbuf *m)
{
	uint32_t h;

	if (likely(rps_toeplitz_fast(t, m, &h)))
		return h;
	return rps_toeplitz_sw_ref(t, m);
}

/**
 * The common case of rps_toeplitz_sw_sym(): untagged Ethernet, IPv4 without options or IPv6
 * without extension headers, TCP or UDP, not a fragment. The tuple is copied and put in
 * canonical order (rps_hash_sym_v4() / rps_hash_sym_v6()), then hashed. @return 1 and the
 * hash in *h, or 0 when the packet needs rps_toeplitz_sym_ref().
 */
static inline int
rps_toeplitz_sym_fast(const struct rps_toeplitz *t, const struct rte_mbuf *m, uint32_t *h)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint16_t dlen = m->data_len;
	uint32_t w[RPS_TOEPLITZ_TUPLE_MAX / 4];
	unsigned int len;
	uint16_t type;
	uint32_t x;
	int c;

	if (unlikely(dlen < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr) + 4))
		return 0;
	memcpy(&type, p + 12, 2);
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(p + RTE_ETHER_HDR_LEN);

		if (ip->version_ihl != RTE_IPV4_VHL_DEF ||
		    (ip->next_proto_id != IPPROTO_TCP && ip->next_proto_id != IPPROTO_UDP) ||
		    (ip->fragment_offset &
		     RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) != 0)
			return 0;
		/* src, dst, ports: contiguous. Always copied: hashing in place when already in
		 * order trades GFNI's store-forwarding stall on the copy for a branch that random
		 * flows mispredict half the time, which costs as much */
		memcpy(w, &ip->src_addr, 12);
		rps_hash_sym_v4(&w[0], &w[1], &w[2]);
		len = 12;
	} else if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(p + RTE_ETHER_HDR_LEN);

		if (dlen < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr) + 4 ||
		    (ip->proto != IPPROTO_TCP && ip->proto != IPPROTO_UDP) ||
		    (ip->vtc_flow & RTE_BE32(0xf0000000)) != RTE_BE32(0x60000000))
			return 0;
		c = memcmp(ip->src_addr, ip->dst_addr, 16);
		len = 36;
		/* in order: hash in place, saving the 36-byte copy (equal addresses take the
		 * copy and the port check) */
		if (c < 0) {
			x = rps_toeplitz_bytes(t, ip->src_addr, len);
			*h = x ? x : 1;
			return 1;
		}
		memcpy(w, ip->src_addr, 36);
		rps_hash_sym_v6(w);
	} else {
		return 0;
	}
	x = rps_toeplitz_bytes(t, (const uint8_t *)w, len);
	*h = x ? x : 1;
	return 1;
}

/** Sorted symmetric software Toeplitz hash (--symmetric with --hash toeplitz): both
 * directions of a connection hash alike with any key. Non-zero but for a runt. */
static inline uint32_t
rps_toeplitz_sw_sym(const struct rps_toeplitz *t, const struct rte_mbuf *m)
{
	uint32_t h;

	if (likely(rps_toeplitz_sym_fast(t, m, &h)))
		return h;
	return rps_toeplitz_sym_ref(t, m);
}

#endif /* RPS_TOEPLITZ_H */
