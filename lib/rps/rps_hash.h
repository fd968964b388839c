/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_hash.h: the flow hash that picks a packet's worker.
 *
 * Field choice follows Linux's get_rps_cpu(): source and destination address plus the first
 * four bytes after the IP header for TCP, UDP, UDP-Lite, DCCP, SCTP, ESP and AH; addresses
 * alone for other protocols and for every IP fragment (so all fragments of a datagram land on
 * one worker). 802.1Q / 802.1ad tags are skipped. Unlike the seed, IPv6 hashes the whole
 * 128-bit addresses and walks the extension-header chain (hop-by-hop, routing, destination
 * options, fragment) to find the transport header.
 *
 * One key, then the hash: a packet's key is extracted once (addresses, ports, protocol; the
 * inner packet's with --inner; in canonical order when symmetric; the layer-2 key of a frame
 * without an IP flow), and one function hashes it: rps_hash_key() (jhash with the secret
 * seed) here, rps_toeplitz_flow_key() in rps_toeplitz.h. The modes differ only in that
 * function and in the two extraction flags (sort, tunnels). The RX lcore does both in one
 * place, rps_steer_key_then_hash() in rps_steer.h, with the function and the flags chosen
 * once from the settings (rps_steer_hasher()); rps_flow_key_get() is the same extraction for
 * the other callers (rps_hash_sw(), the tests).
 *
 * Fast path and slow path: rps_flow_key_get_fast() reads the common layout (untagged
 * Ethernet, IPv4 without options, IPv6 without extension headers, first segment) straight
 * from the packet into a key that, inlined, lives in registers; everything else goes out of
 * line to rps_flow_key_extract_slow() (the bounds-checked, multi-segment reference in
 * hash.c). Both give the same key, field for field, so the hashes are the same.
 *
 * Return convention: a flow whose hash computes to 0 gets 1, as in the kernel; 0 is left for
 * a frame too short to hold an Ethernet header (the map sends it to its first worker).
 * A frame that is not IP, or whose IP header is cut short, is hashed on what identifies it
 * at layer 2 (rps_hash_l2_key(): destination and source MAC, the outer VLAN ID, the EtherType),
 * with the same secret seed: one station's frames stay on one worker, and one station
 * cannot aim all non-IP traffic (ARP, LLDP, a flood of junk) at one worker's backlog.
 *
 * Symmetric hashing (--symmetric): rps_flow_key_symmetric() puts a key in a canonical order
 * (the endpoint with the lower address first, then the lower port; the lower MAC first for a
 * layer-2 key), so both directions of a connection hash alike. The Toeplitz hash
 * (RPS_HASH_TOEPLITZ) lives in rps_toeplitz.h; enum rps_sym_mode says how Toeplitz and the
 * NIC's hash are made symmetric (docs/steering-keys.md).
 *
 * Inner hashing (--inner): rps_flow_key_extract_inner() looks through one level of
 * encapsulation (VXLAN, GENEVE, GTP-U, GRE, NVGRE, IPv4/IPv6-in-IP) and returns the inner
 * packet's key, which hashes exactly as the bare inner packet would; a tunnel it cannot read
 * gives the outer key (RPS_INNER_FALLBACK). rps_flow_key_get() sends it only the packets
 * whose outer key may be a tunnel's (rps_flow_key_maybe_tunnel()).
 *
 * Nothing is read past the packet: every access goes through rte_pktmbuf_read(), which also
 * handles headers split across segments. The functions are pure and thread-safe.
 */
#ifndef RPS_HASH_H
#define RPS_HASH_H

#include <stdint.h>
#include <string.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_jhash.h>
#include <rte_mbuf.h>

/** How the RX lcore gets a packet's hash. */
enum rps_hash_mode {
	RPS_HASH_AUTO = 0, /**< NIC RSS hash when the mbuf carries one, else jhash */
	RPS_HASH_RSS,      /**< NIC RSS hash; jhash only for packets without one */
	RPS_HASH_JHASH,    /**< always compute jhash from the headers */
	RPS_HASH_TOEPLITZ, /**< always compute the Toeplitz (RSS) hash from the headers, as a NIC
			    *   would with the same key (rps_toeplitz.h) */
};

/** How --symmetric makes both directions of a connection hash alike. */
enum rps_sym_mode {
	RPS_SYM_OFF = 0,  /**< not symmetric */
	RPS_SYM_SORT = 1, /**< --symmetric: hash the sorted tuple (rps_flow_key_symmetric())
			   *   with the secret key/seed, in software; the NIC's RSS hash (not
			   *   symmetric under a random key) is never taken */
	RPS_SYM_XOR = 2,  /**< --symmetric-xor: Toeplitz (NIC and software) with a key that
			   *   repeats one 16-bit pattern (6d5a...). The hash then depends only on
			   *   the XOR of the tuple's 16-bit words: anyone can craft colliding
			   *   flows without knowing the key. Opt-in, for NICs whose RSS hash is
			   *   wanted as it is (no software hash on the RX lcore). jhash stays
			   *   sorted (RPS_SYM_SORT) */
};

#define RPS_HASH_L2_WORDS 4 /**< 32-bit words of an L2 key */

/** A packet's flow key: what its hash reads (host-independent: raw network-order words). */
struct rps_flow_key {
	uint8_t family;    /**< 4, 6, or 0 when the packet has no IP flow (non-IP, or an IP
			    *   header cut short): then l2 holds its layer-2 key, if has_l2 */
	uint8_t proto;     /**< transport protocol (after IPv6 extension headers) */
	uint8_t is_frag;   /**< 1 for any IPv4/IPv6 fragment */
	uint8_t has_ports; /**< 1 when ports holds the 4 bytes after the IP header */
	union {
		struct {
			uint32_t src[4]; /**< IPv4 uses src[0] */
			uint32_t dst[4];
			uint32_t ports;  /**< first 4 bytes after the IP header, or 0 */
		};
		/** src, dst, ports as one array (IPv6's jhash input, rps_hash_sym_v6()) */
		uint32_t w[9];
		/** family 0: rps_hash_l2_key() of the frame (rps_flow_key_extract_slow() only) */
		uint32_t l2[RPS_HASH_L2_WORDS];
	};
	uint16_t l2_len;   /**< Ethernet + VLAN tags */
	uint16_t l3_len;   /**< IP header incl. options / extension headers */
	uint8_t has_l2;    /**< family 0: l2 is set (0 for a runt shorter than Ethernet) */
	/** Where the addresses and, for TCP and UDP, the ports lie contiguous in the packet
	 * exactly as the key holds them (rps_flow_key_extract_fast()), or NULL: a hash may read
	 * them in place (GFNI's Toeplitz) instead of gathering them from the key. */
	const uint8_t *tuple;
};

#define RPS_HASH_MAX_VLAN 4   /* tags skipped before giving up on a frame */
#define RPS_HASH_MAX_V6EXT 8  /* IPv6 extension headers walked before giving up */

#ifndef IPPROTO_DCCP
#define IPPROTO_DCCP 33
#endif
#ifndef IPPROTO_UDPLITE
#define IPPROTO_UDPLITE 136
#endif

/** Whether EtherType @p type (network order, as read from the frame) is a VLAN tag's TPID:
 * 802.1Q, 802.1ad or 0x9100, the tags every header walk here skips (the flow key, the parse
 * stage, the ARP responder). */
static inline int
rps_hash_is_vlan_tpid(uint16_t type)
{
	return type == RTE_BE16(RTE_ETHER_TYPE_VLAN) || type == RTE_BE16(RTE_ETHER_TYPE_QINQ) ||
	       type == RTE_BE16(RTE_ETHER_TYPE_QINQ1);
}

/** True for the protocols whose first 4 transport bytes join the hash (kernel's list). */
static inline int
rps_hash_proto_has_ports(uint8_t proto)
{
#define RPS_HASH_PROTO_BIT(p) (UINT64_C(1) << ((p) & 63))
	/* a bit per protocol number, 64 to a word: one load and a shift, no branch */
	static const uint64_t has_ports[4] = {
		RPS_HASH_PROTO_BIT(IPPROTO_TCP) | RPS_HASH_PROTO_BIT(IPPROTO_UDP) |
		RPS_HASH_PROTO_BIT(IPPROTO_DCCP) | RPS_HASH_PROTO_BIT(IPPROTO_ESP) |
		RPS_HASH_PROTO_BIT(IPPROTO_AH),
		0,
		RPS_HASH_PROTO_BIT(IPPROTO_SCTP) | RPS_HASH_PROTO_BIT(IPPROTO_UDPLITE),
		0,
	};
#undef RPS_HASH_PROTO_BIT

	return (int)((has_ports[proto >> 6] >> (proto & 63)) & 1);
}

/* --- extraction --- */

/**
 * Extract the flow key of a packet (the reference: every layout, VLAN tags, IPv4 options,
 * IPv6 extension headers, segmented mbufs). The key is zeroed first; tuple stays NULL and
 * the layer-2 key unset.
 * @return 0 and a filled key for IP packets; -1 for non-IP or truncated IP headers
 *   (key->family is then 0).
 */
int rps_flow_key_extract(const struct rte_mbuf *m, struct rps_flow_key *key);

/* An IPv6 address into a key, word by word: every access to the key's addresses on the fast
 * path is one 32-bit word (the hashes, rps_hash_sym_v6()), so that where the key is a local
 * the compiler keeps each word in a register instead of the key in memory. */
static __rte_always_inline void
rps_flow_key_words(uint32_t w[4], const uint8_t *a)
{
	memcpy(&w[0], a, 4);
	memcpy(&w[1], a + 4, 4);
	memcpy(&w[2], a + 8, 4);
	memcpy(&w[3], a + 12, 4);
}

/* The 9 words of an IPv6 key (src, dst, ports) into @p w, word by word. */
static __rte_always_inline void
rps_flow_key_words6(uint32_t w[9], const struct rps_flow_key *k)
{
	w[0] = k->w[0];
	w[1] = k->w[1];
	w[2] = k->w[2];
	w[3] = k->w[3];
	w[4] = k->w[4];
	w[5] = k->w[5];
	w[6] = k->w[6];
	w[7] = k->w[7];
	w[8] = k->w[8];
}

/* The rest of a key rps_flow_key_extract_fast() fills, after an IP header of @p l3_len bytes
 * (family, proto and is_frag set) with @p l4 right after it, inside the first segment. */
static __rte_always_inline void
rps_flow_key_fast_l4(struct rps_flow_key *k, uint16_t l3_len, const uint8_t *l4)
{
	uint32_t ports;

	k->l2_len = RTE_ETHER_HDR_LEN;
	k->l3_len = l3_len;
	k->has_l2 = 0;
	/* TCP and UDP, the common case, before the table of the others */
	k->has_ports = !k->is_frag && (k->proto == IPPROTO_TCP || k->proto == IPPROTO_UDP ||
				       rps_hash_proto_has_ports(k->proto));
	/* 4 bytes are there (the callers' length checks): read whatever the protocol, then kept */
	memcpy(&ports, l4, 4);
	k->ports = k->has_ports ? ports : 0;
}

/**
 * The common case of rps_flow_key_extract(), read straight from the first segment: untagged
 * Ethernet, then IPv4 without options (any protocol, fragments too) or IPv6 whose next header
 * is not an extension header. Sets every field as the reference would (has_l2 0), and tuple.
 * @return the family, 4 or 6, or 0 when the packet needs rps_flow_key_extract() (the key is
 *   then unspecified). Each family's branch returns a constant, so that a caller switching
 *   on it gets the hash that follows compiled for that family alone.
 */
static __rte_always_inline int
rps_flow_key_extract_fast(const struct rte_mbuf *m, struct rps_flow_key *k)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *l3 = p + RTE_ETHER_HDR_LEN;
	const uint16_t dlen = m->data_len;
	uint16_t type;

	/* enough for a 20-byte IPv4 header and the 4 bytes after it */
	if (unlikely(dlen < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr) + 4))
		return 0;
	memcpy(&type, p + 12, 2);
	/* each family's branch fills the whole key and returns: no join after it */
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;

		if (ip->version_ihl != RTE_IPV4_VHL_DEF)
			return 0;
		k->family = 4;
		k->proto = ip->next_proto_id;
		k->is_frag = (ip->fragment_offset &
			      RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) != 0;
		memcpy(&k->src[0], &ip->src_addr, 4);
		memcpy(&k->dst[0], &ip->dst_addr, 4);
		/* the words IPv4 does not use are 0, as in the reference's key (dead stores where
		 * the key is in registers) */
		k->src[1] = k->src[2] = k->src[3] = 0;
		k->dst[1] = k->dst[2] = k->dst[3] = 0;
		k->tuple = (const uint8_t *)&ip->src_addr;
		rps_flow_key_fast_l4(k, sizeof(*ip), (const uint8_t *)(ip + 1));
		return 4;
	}
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)l3;

		if (dlen < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr) + 4 ||
		    (ip->vtc_flow & RTE_BE32(0xf0000000)) != RTE_BE32(0x60000000))
			return 0;
		/* hop-by-hop, routing, fragment, destination options: the reference walks them
		 * (TCP and UDP, the common case, tested first) */
		if (ip->proto != IPPROTO_TCP && ip->proto != IPPROTO_UDP &&
		    (ip->proto == 0 || ip->proto == 43 || ip->proto == 44 || ip->proto == 60))
			return 0;
		k->family = 6;
		k->proto = ip->proto;
		k->is_frag = 0;
		rps_flow_key_words(k->src, ip->src_addr);
		rps_flow_key_words(k->dst, ip->dst_addr);
		k->tuple = ip->src_addr;
		rps_flow_key_fast_l4(k, sizeof(*ip), (const uint8_t *)(ip + 1));
		return 6;
	}
	return 0;
}

/**
 * The layer-2 key of a frame without an IP flow: destination MAC, source MAC (in this order,
 * or with @p sym the lower of the two first, so both directions of a conversation agree),
 * the EtherType after the VLAN tags, and the outer VLAN ID (0 untagged); 16 bytes in
 * network order in @p w.
 * @return 0, or -1 when the frame is shorter than an Ethernet header (w unset).
 */
int rps_hash_l2_key(const struct rte_mbuf *m, int sym, uint32_t w[RPS_HASH_L2_WORDS]);

#define RPS_INNER_VXLAN_PORT 4789   /**< IANA VXLAN port, the default of --vxlan-port */
#define RPS_INNER_GENEVE_PORT 6081  /**< IANA GENEVE port */
#define RPS_INNER_GTPU_PORT 2152    /**< GTP-U (3GPP TS 29.281) */
#define RPS_INNER_VXLAN_PORTS_MAX 8 /**< VXLAN ports one configuration holds */

/**
 * The UDP destination ports that --inner reads as tunnels. GENEVE (6081) and GTP-U (2152)
 * are fixed; VXLAN's are configurable. A zeroed struct means VXLAN on 4789 alone.
 */
struct rps_inner_cfg {
	uint16_t vxlan_port[RPS_INNER_VXLAN_PORTS_MAX]; /**< host order */
	uint8_t nb_vxlan;  /**< ports in vxlan_port; 0: RPS_INNER_VXLAN_PORT */
};

/** What rps_flow_key_extract_inner() (and rps_flow_key_get()) found. */
enum rps_inner_result {
	RPS_INNER_NOT_IP = -1,  /**< no flow: non-IP or a truncated outer IP header (family 0) */
	RPS_INNER_PLAIN = 0,    /**< not a tunnel: the key is the packet's own */
	RPS_INNER_HASHED = 1,   /**< a tunnel: the key is the inner packet's */
	RPS_INNER_FALLBACK = 2, /**< a tunnel that could not be read (cut short, bad version,
				 *   unknown protocol, GTP-U other than G-PDU, non-IP inner
				 *   frame, a fragment of GRE or IP-in-IP): the key is the outer
				 *   one */
};

/** Whether UDP destination port @p dport (network order) is one of @p cfg's tunnels. */
static inline int
rps_inner_udp_port(const struct rps_inner_cfg *cfg, uint16_t dport)
{
	const uint16_t p = rte_be_to_cpu_16(dport);

	if (p == RPS_INNER_GENEVE_PORT || p == RPS_INNER_GTPU_PORT)
		return 1;
	if (cfg->nb_vxlan == 0)
		return p == RPS_INNER_VXLAN_PORT;
	for (unsigned int i = 0; i < cfg->nb_vxlan; i++)
		if (p == cfg->vxlan_port[i])
			return 1;
	return 0;
}

/**
 * Extract the key --inner hashes: for a tunnel of one of these kinds, the inner packet's
 * (only one level: a tunnel inside the tunnel is hashed as the inner packet it is):
 * - UDP to a VXLAN port (RFC 7348; the I flag must be set): inner Ethernet;
 * - UDP to 6081, GENEVE (RFC 8926; version 0, options skipped): inner Ethernet (0x6558),
 *   IPv4 or IPv6;
 * - UDP to 2152, GTP-U version 1 G-PDU (type 255; the sequence number / N-PDU / next
 *   extension type word when E, S or PN is set, and the extension header chain): inner IPv4
 *   or IPv6;
 * - GRE (IP protocol 47, RFC 2784/2890, version 0; checksum, key and sequence fields
 *   skipped): inner IPv4 (0x0800), IPv6 (0x86DD) or Ethernet (0x6558, which NVGRE is);
 * - IP protocol 4 (IPv4 in IPv4/IPv6) and 41 (IPv6 in IPv4/IPv6).
 * VLAN tags of an inner Ethernet frame are skipped; the inner IP header is read like an outer
 * one (options, extension headers, fragments hashed on addresses). A fragment of an outer UDP
 * datagram is not recognised (only the first one has the port): it is RPS_INNER_PLAIN, like
 * every fragment of the datagram, so they stay together.
 * @return an enum rps_inner_result; the key is filled for every result but RPS_INNER_NOT_IP.
 *   For an inner key, l2_len is the offset of the inner IP header in the packet.
 */
int rps_flow_key_extract_inner(const struct rte_mbuf *m, const struct rps_inner_cfg *cfg,
			       struct rps_flow_key *key);

/**
 * Whether an outer key (rps_flow_key_extract_fast()) may be a tunnel's that @p cfg reads:
 * UDP to one of its ports, or IP protocol 4, 41 or 47 (their fragments too: they are counted
 * as fallbacks). 0 means rps_flow_key_extract_inner() would return RPS_INNER_PLAIN.
 */
static inline int
rps_flow_key_maybe_tunnel(const struct rps_inner_cfg *cfg, const struct rps_flow_key *k)
{
	switch (k->proto) {
	case IPPROTO_UDP:
		if (!k->has_ports)
			return 0;
		/* the destination port: the second 16 bits of the raw ports */
		return rps_inner_udp_port(cfg, rte_cpu_to_be_16((uint16_t)rte_be_to_cpu_32(k->ports)));
	case 4: case 41: case 47: /* IPv4-in-IP, IPv6-in-IP, GRE */
		return 1;
	default:
		return 0;
	}
}

/**
 * Whether @p m is certainly not a tunnel in a layout the fast path reads
 * (rps_flow_key_extract_fast()): then --inner hashes it as without --inner. 0 means "let
 * rps_flow_key_extract_inner() decide".
 */
static inline int
rps_inner_is_plain(const struct rps_inner_cfg *cfg, const struct rte_mbuf *m)
{
	struct rps_flow_key k;

	return rps_flow_key_extract_fast(m, &k) && !rps_flow_key_maybe_tunnel(cfg, &k);
}

/**
 * The out-of-line part of rps_flow_key_get(), for what rps_flow_key_get_fast() does not take:
 * rps_flow_key_extract(), or with @p tunnels rps_flow_key_extract_inner(); for a frame
 * without an IP flow, its layer-2 key (has_l2, unless a runt); with @p sort in canonical
 * order (rps_flow_key_symmetric(); a layer-2 key with the lower MAC first, as
 * rps_hash_l2_key() sorts it). @return an enum rps_inner_result.
 */
int rps_flow_key_extract_slow(const struct rte_mbuf *m, int sort,
			      const struct rps_inner_cfg *tunnels, struct rps_flow_key *k);

/* --- canonical order (symmetric) --- */

/** Whether the 4 bytes after the IP header of @p proto are its source and destination ports
 * (ESP and AH carry an SPI there, which differs per direction). */
static inline int
rps_hash_proto_has_port_pair(uint8_t proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP || proto == IPPROTO_UDPLITE ||
	       proto == IPPROTO_DCCP || proto == IPPROTO_SCTP;
}

/* Swap the two 16-bit halves of raw ports (source <-> destination), whatever the byte order. */
static inline uint32_t
rps_hash_ports_swap(uint32_t ports)
{
	return (ports >> 16) | (ports << 16);
}

/* Whether the raw (network order) ports have source > destination. */
static inline int
rps_hash_ports_descending(uint32_t ports)
{
	uint32_t p = rte_be_to_cpu_32(ports);

	return (p >> 16) > (p & 0xffff);
}

/* Canonical order of an IPv4 tuple (raw words): lower address first, then lower port.
 * Without a branch (selects, stores either way): random flows would mispredict one half the
 * time. @return 1 when it swapped. */
static __rte_always_inline int
rps_hash_sym_v4(uint32_t *src, uint32_t *dst, uint32_t *ports)
{
	const uint32_t s = *src, d = *dst, p = *ports, hp = rte_be_to_cpu_32(p);
	/* (address, port) of each end, compared as one number: source above destination? */
	const int swap = ((uint64_t)rte_be_to_cpu_32(s) << 16 | hp >> 16) >
			 ((uint64_t)rte_be_to_cpu_32(d) << 16 | (hp & 0xffff));
	const uint32_t mask = 0u - (uint32_t)swap, x = (s ^ d) & mask;

	*src = s ^ x;
	*dst = d ^ x;
	*ports = p ^ ((p ^ rps_hash_ports_swap(p)) & mask);
	return swap;
}

/* Two raw (network order) 32-bit words as one 64-bit number in host order. */
static inline uint64_t
rps_hash_be64_of(uint32_t hi, uint32_t lo)
{
	return (uint64_t)rte_be_to_cpu_32(hi) << 32 | rte_be_to_cpu_32(lo);
}

/* Canonical order of an IPv6 tuple: w[0..3] source, w[4..7] destination, w[8] ports.
 * Word by word, as the key is filled (rps_flow_key_extract_fast()): no wider access, so the
 * compiler can keep each word in a register, and no call to memcmp(). @return 1 when it
 * swapped. */
static __rte_always_inline int
rps_hash_sym_v6(uint32_t *w)
{
	const uint64_t s0 = rps_hash_be64_of(w[0], w[1]), d0 = rps_hash_be64_of(w[4], w[5]);
	const uint64_t s1 = rps_hash_be64_of(w[2], w[3]), d1 = rps_hash_be64_of(w[6], w[7]);

	if (s0 > d0 || (s0 == d0 && (s1 > d1 || (s1 == d1 &&
						rps_hash_ports_descending(w[8]))))) {
		uint32_t t[4] = { w[0], w[1], w[2], w[3] };

		w[0] = w[4];
		w[1] = w[5];
		w[2] = w[6];
		w[3] = w[7];
		w[4] = t[0];
		w[5] = t[1];
		w[6] = t[2];
		w[7] = t[3];
		w[8] = rps_hash_ports_swap(w[8]);
		return 1;
	}
	return 0;
}

/**
 * Make @p k direction-free for a symmetric hash: the endpoint with the lower address (in
 * network order), or with equal addresses the lower port, comes first, so A->B and B->A give
 * the same key. The 4 bytes after the IP header are kept only when they are a port pair
 * (rps_hash_proto_has_port_pair()): ESP and AH hash on addresses alone, so both directions
 * of an IPsec tunnel meet too. A layer-2 key (family 0) is left as it is: it is sorted where
 * it is made (rps_hash_l2_key() with sym, from rps_flow_key_extract_slow()).
 * A key that changes loses its in-place tuple; so does every IPv4 key (its sorted words are
 * what a hash reads, swapped or not: hashing in place only when in order would add a branch
 * that random flows mispredict half the time, which costs more than GFNI's stall on the
 * copy). An IPv6 key in order keeps it (saving the 36-byte copy is worth the branch).
 */
static __rte_always_inline void
rps_flow_key_symmetric(struct rps_flow_key *k)
{
	if (k->has_ports && !rps_hash_proto_has_port_pair(k->proto)) {
		k->has_ports = 0;
		k->ports = 0;
		k->tuple = NULL;
	}
	if (k->family == 4) {
		rps_hash_sym_v4(&k->src[0], &k->dst[0], &k->ports);
		k->tuple = NULL;
	} else if (k->family == 6) {
		if (rps_hash_sym_v6(k->w))
			k->tuple = NULL;
	}
}

/* --- the key, once per packet --- */

/**
 * The inline half of rps_flow_key_get(): the key of a packet in the common layout
 * (rps_flow_key_extract_fast()) that is not a tunnel's with @p tunnels (--inner; NULL: off),
 * in canonical order with @p sort (rps_flow_key_symmetric()).
 * @return the key's family, 4 or 6; 0 when the packet needs rps_flow_key_extract_slow().
 */
static __rte_always_inline int
rps_flow_key_get_fast(const struct rte_mbuf *m, int sort, const struct rps_inner_cfg *tunnels,
		      struct rps_flow_key *k)
{
	const int family = rps_flow_key_extract_fast(m, k);

	if (unlikely(family == 0) ||
	    unlikely(tunnels != NULL && rps_flow_key_maybe_tunnel(tunnels, k)))
		return 0;
	if (sort)
		rps_flow_key_symmetric(k);
	return family;
}

/**
 * A packet's flow key, extracted once: from the first segment when the headers are there in
 * the common layout (rps_flow_key_get_fast()), else through rps_flow_key_extract_slow();
 * with @p tunnels (--inner; NULL: off) the inner packet's when the outer key may be a
 * tunnel's; with @p sort in canonical order (rps_flow_key_symmetric()). A frame without an
 * IP flow gets its layer-2 key (family 0; has_l2 0 for a runt).
 * @return an enum rps_inner_result (RPS_INNER_HASHED and RPS_INNER_FALLBACK only with
 *   @p tunnels).
 */
static inline int
rps_flow_key_get(const struct rte_mbuf *m, int sort, const struct rps_inner_cfg *tunnels,
		 struct rps_flow_key *k)
{
	if (likely(rps_flow_key_get_fast(m, sort, tunnels, k)))
		return RPS_INNER_PLAIN;
	return rps_flow_key_extract_slow(m, sort, tunnels, k);
}

/* --- jhash of the key --- */

/* rte_jhash_32b() of the 9 words k[0..8] after its initial value (a, b and c set to it):
 * two 12-byte blocks mixed, the third added before the final mix; the hash is then c. The
 * one copy of these steps, for rps_hash_jhash9() and for rps_hash_jhash9_lanes(), whose
 * a, b, c and k[] are vectors of lanes. */
#define RPS_HASH_JHASH9_BLOCKS(a, b, c, k) do { \
	(a) += (k)[0]; \
	(b) += (k)[1]; \
	(c) += (k)[2]; \
	__rte_jhash_mix(a, b, c); \
	(a) += (k)[3]; \
	(b) += (k)[4]; \
	(c) += (k)[5]; \
	__rte_jhash_mix(a, b, c); \
	(a) += (k)[6]; \
	(b) += (k)[7]; \
	(c) += (k)[8]; \
	__rte_jhash_final(a, b, c); \
} while (0)

/**
 * rte_jhash_32b(@p k, 9, @p seed), bit for bit, as straight-line code: DPDK's generic
 * __rte_jhash_2hashes() (a loop over 12-byte blocks and a switch on the tail) is not inlined
 * and cost an IPv6 packet a call and its loop (docs/benchmarks.md, "Cutting the RX lcore's
 * cycles"). 36 bytes: two blocks mixed, the third added before the final mix.
 */
static __rte_always_inline uint32_t
rps_hash_jhash9(const uint32_t k[9], uint32_t seed)
{
	uint32_t a, b, c;

	a = b = c = RTE_JHASH_GOLDEN_RATIO + 9 * 4 + seed;
	RPS_HASH_JHASH9_BLOCKS(a, b, c, k);
	return c;
}

/**
 * rte_jhash_32b(@p k, 4, @p seed), bit for bit, as straight-line code (as rps_hash_jhash9()):
 * the layer-2 key of a frame without an IP flow. 16 bytes: one block mixed, the fourth word
 * added before the final mix.
 */
static __rte_always_inline uint32_t
rps_hash_jhash4(const uint32_t k[4], uint32_t seed)
{
	uint32_t a, b, c;

	a = b = c = RTE_JHASH_GOLDEN_RATIO + 4 * 4 + seed;
	a += k[0];
	b += k[1];
	c += k[2];
	__rte_jhash_mix(a, b, c);
	a += k[3];
	__rte_jhash_final(a, b, c);
	return c;
}

/**
 * jhash with @p seed of a key of @p family (its own, or a constant where the caller knows it:
 * then only that family's branch is compiled): rte_jhash_3words for IPv4, rte_jhash_32b of
 * the 9 words src, dst, ports for IPv6 (rps_hash_jhash9()) and of the 4 words of a layer-2
 * key (family 0, rps_hash_jhash4()).
 * Never 0, but 0 for a key without even a layer-2 key (a runt).
 */
static __rte_always_inline uint32_t
rps_hash_key_family(const struct rps_flow_key *k, unsigned int family, uint32_t seed)
{
	uint32_t h;

	if (family == 4) {
		h = rte_jhash_3words(k->src[0], k->dst[0], k->ports, seed);
	} else if (family == 6) {
		uint32_t w[9];

		/* a copy, word by word: the key's own address is never taken on the fast path,
		 * so that it stays in registers */
		rps_flow_key_words6(w, k);
		h = rps_hash_jhash9(w, seed);
	} else {
		if (!k->has_l2)
			return 0;
		h = rps_hash_jhash4(k->l2, seed);
	}
	return h ? h : 1;
}

/** Keys per step of rps_hash_jhash3_lanes() and rps_hash_jhash9_lanes(): their arrays are
 * read and written in whole steps. */
#define RPS_HASH_LANES 8

/**
 * rte_jhash_3words(w[i], w[stride + i], w[2 * stride + i], @p seed) into h[i] for each
 * i < @p n, bit for bit: the IPv4 keys of a burst (source, destination, ports) hashed
 * RPS_HASH_LANES at a time, each word a lane of a vector (GCC's and clang's vector
 * extensions: SSE2 on the baseline, AVX2 or AVX-512 where the build targets them; the same
 * operations, so the same hash, on any of them). One key's jhash is a chain of 21 dependent
 * operations; side by side in lanes, a burst's chains run together.
 * The keys as a structure of arrays, word j of key i at w[j * stride + i]. Each row of @p w
 * and @p h must have room for @p n rounded up to RPS_HASH_LANES (the lanes past n are hashed
 * from whatever is there and their results are to be ignored); stride >= that.
 */
void rps_hash_jhash3_lanes(const uint32_t *w, uint32_t stride, uint32_t n, uint32_t seed,
			   uint32_t *h);

/** rps_hash_jhash3_lanes() for IPv6 keys: rte_jhash_32b() of the 9 words src, dst, ports
 * (rps_hash_jhash9()), word j of key i at w[j * stride + i]. */
void rps_hash_jhash9_lanes(const uint32_t *w, uint32_t stride, uint32_t n, uint32_t seed,
			   uint32_t *h);

/** rps_hash_key_family() of the key's own family. */
static inline uint32_t
rps_hash_key(const struct rps_flow_key *k, uint32_t seed)
{
	return rps_hash_key_family(k, k->family, seed);
}

/**
 * Hash of a frame that carries no IP flow (non-IP, or an IP header cut short): jhash of
 * rps_hash_l2_key() with @p seed, never 0; 0 only for a frame shorter than an Ethernet
 * header. Out of line: such frames are not the common case, but one station cannot send
 * them all to one worker.
 */
uint32_t rps_hash_l2(const struct rte_mbuf *m, uint32_t seed, int sym);

/** Reference software flow hash: rps_flow_key_extract() + rps_hash_key(); handles every
 * layout (VLAN tags, IPv4 options, IPv6 extension headers, segmented mbufs). A frame
 * without an IP flow gets rps_hash_l2(). */
static inline uint32_t
rps_hash_sw_ref(const struct rte_mbuf *m, uint32_t seed)
{
	struct rps_flow_key k;

	if (rps_flow_key_extract(m, &k) < 0)
		return rps_hash_l2(m, seed, 0);
	return rps_hash_key(&k, seed);
}

/** Symmetric reference: rps_flow_key_extract() + rps_flow_key_symmetric() + rps_hash_key();
 * rps_hash_l2() with the MAC addresses sorted for a frame without an IP flow. */
static inline uint32_t
rps_hash_sw_sym_ref(const struct rte_mbuf *m, uint32_t seed)
{
	struct rps_flow_key k;

	if (rps_flow_key_extract(m, &k) < 0)
		return rps_hash_l2(m, seed, 1);
	rps_flow_key_symmetric(&k);
	return rps_hash_key(&k, seed);
}

/** Software flow hash of a packet: rps_flow_key_get() + rps_hash_key(), a non-zero jhash
 * (of the L2 key for non-IP frames; 0 only for a runt shorter than an Ethernet header). */
static inline uint32_t
rps_hash_sw(const struct rte_mbuf *m, uint32_t seed)
{
	struct rps_flow_key k;

	rps_flow_key_get(m, 0, NULL, &k);
	return rps_hash_key(&k, seed);
}

/** Symmetric software flow hash (--symmetric with jhash): rps_hash_sw() over the
 * canonical key, so both directions of a connection get the same non-zero hash. */
static inline uint32_t
rps_hash_sw_sym(const struct rte_mbuf *m, uint32_t seed)
{
	struct rps_flow_key k;

	rps_flow_key_get(m, 1, NULL, &k);
	return rps_hash_key(&k, seed);
}

/** Whether the PMD stored an RSS hash in the mbuf. */
static inline int
rps_hash_has_rss(const struct rte_mbuf *m)
{
	return (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH) != 0;
}

/** The NIC's hash, with 0 mapped to 1 so it is never confused with "no flow". */
static inline uint32_t
rps_hash_rss(const struct rte_mbuf *m)
{
	return m->hash.rss ? m->hash.rss : 1;
}

/**
 * Parse a list of VXLAN ports ("4789" or "4789,8472") into @p cfg, after the ports it
 * already holds (a repeated --vxlan-port adds to the list; a port given twice is kept once).
 * @return 0; -EINVAL when an item is not a port 1..65535 or is GENEVE's (6081) or GTP-U's
 *   (2152); -ENOSPC beyond RPS_INNER_VXLAN_PORTS_MAX ports. @p cfg is unchanged on error.
 */
int rps_inner_vxlan_ports_parse(const char *s, struct rps_inner_cfg *cfg);

/** Parse "auto", "rss", "jhash" or "toeplitz" (case-insensitive). @return 0, or -EINVAL. */
int rps_hash_mode_parse(const char *s, enum rps_hash_mode *mode);
/** Name of a hash mode. */
const char *rps_hash_mode_name(enum rps_hash_mode mode);

/** Parse a symmetric mode: off (also no, false, 0), sort (also on, yes, true, 1) or xor
 * (case-insensitive). @return 0, or -EINVAL. */
int rps_sym_mode_parse(const char *s, enum rps_sym_mode *mode);
/** Name of a symmetric mode: "off", "sort" or "xor". */
const char *rps_sym_mode_name(enum rps_sym_mode mode);

#endif /* RPS_HASH_H */
