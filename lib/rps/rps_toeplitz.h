/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_toeplitz.h: the Toeplitz (RSS) hash in software, bit-exact with what a NIC computes.
 *
 * Input, as a NIC hashes with the hash types dpdk-rps programs into the port (rps_port.h):
 * IPv4/IPv6 source address, destination address, then source and destination port for
 * TCP and UDP; addresses alone for every other protocol and for every IP fragment; all in
 * network byte order. A frame without an IP flow is hashed on its layer-2 key
 * (rps_hash_l2_key(): MACs, EtherType, VLAN ID) with the same key. It hashes the flow key
 * rps_flow_key_get() extracts (rps_hash.h: VLAN/QinQ tags skipped, IPv4 options and the IPv6
 * extension chain walked), as jhash does: rps_toeplitz_flow_key(). A hash that computes to 0
 * becomes 1 (rps_hash.h's convention, as rps_hash_rss()).
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
static __rte_always_inline uint32_t
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

/* A computed hash of 0 becomes 1 (rps_hash.h's convention). */
static inline uint32_t
rps_toeplitz_nz(uint32_t h)
{
	return h ? h : 1;
}

/**
 * Toeplitz hash of a flow key (rps_flow_key_get()) of @p family (its own, or a constant where
 * the caller knows it): addresses, plus the ports for non-fragmented TCP and UDP, read in
 * place where the key has a tuple (GFNI then hashes the packet's header without a copy,
 * which would stall its load); the 16-byte layer-2 key of a frame without an IP flow. Never
 * 0, but 0 for a key without even a layer-2 key (a runt).
 */
static __rte_always_inline uint32_t
rps_toeplitz_flow_key_family(const struct rps_toeplitz *t, const struct rps_flow_key *k,
			     unsigned int family)
{
	uint32_t w[RPS_TOEPLITZ_TUPLE_MAX / 4];
	unsigned int len = family == 4 ? 8 : 32;

	if (unlikely(family == 0)) {
		if (!k->has_l2)
			return 0;
		return rps_toeplitz_nz(rps_toeplitz_bytes(t, (const uint8_t *)k->l2,
							  sizeof(k->l2)));
	}
	if (k->has_ports && !k->is_frag &&
	    (k->proto == IPPROTO_TCP || k->proto == IPPROTO_UDP))
		len += 4;
	if (likely(k->tuple != NULL))
		return rps_toeplitz_nz(rps_toeplitz_bytes(t, k->tuple, len));
	/* gathered into a local copy: the key's own address is never taken, so that where
	 * this is inlined the compiler can keep the key in registers; IPv6 as two 16-byte
	 * copies, whose few stores stall GFNI's load less than nine 4-byte ones */
	if (family == 6) {
		memcpy(w, k->src, 16);
		memcpy(w + 4, k->dst, 16);
		w[8] = k->ports;
	} else {
		w[0] = k->src[0];
		w[1] = k->dst[0];
		w[2] = k->ports;
	}
	return rps_toeplitz_nz(rps_toeplitz_bytes(t, (const uint8_t *)w, len));
}

/** rps_toeplitz_flow_key_family() of the key's own family. */
static inline uint32_t
rps_toeplitz_flow_key(const struct rps_toeplitz *t, const struct rps_flow_key *k)
{
	return rps_toeplitz_flow_key_family(t, k, k->family);
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

/** Software Toeplitz hash of a packet: rps_flow_key_get() + rps_toeplitz_flow_key();
 * non-zero (0 only for a runt). */
static inline uint32_t
rps_toeplitz_sw(const struct rps_toeplitz *t, const struct rte_mbuf *m)
{
	struct rps_flow_key k;

	rps_flow_key_get(m, 0, NULL, &k);
	return rps_toeplitz_flow_key(t, &k);
}

/** Sorted symmetric software Toeplitz hash (--symmetric with --hash toeplitz): both
 * directions of a connection hash alike with any key. Non-zero but for a runt. */
static inline uint32_t
rps_toeplitz_sw_sym(const struct rps_toeplitz *t, const struct rte_mbuf *m)
{
	struct rps_flow_key k;

	rps_flow_key_get(m, 1, NULL, &k);
	return rps_toeplitz_flow_key(t, &k);
}

#endif /* RPS_TOEPLITZ_H */
