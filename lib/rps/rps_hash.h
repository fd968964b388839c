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
 * Return convention: a flow whose hash computes to 0 gets 1, as in the kernel; 0 is left for
 * a frame too short to hold an Ethernet header (the map sends it to its first worker).
 * A frame that is not IP, or whose IP header is cut short, is hashed on what identifies it
 * at layer 2 (rps_hash_l2(): destination and source MAC, the outer VLAN ID, the EtherType),
 * with the same secret seed: one station's frames stay on one worker, and one station
 * cannot aim all non-IP traffic (ARP, LLDP, a flood of junk) at one worker's backlog.
 *
 * Symmetric hashing (--symmetric): rps_flow_key_symmetric() puts a key in a canonical order
 * (the endpoint with the lower address first, then the lower port), so both directions of
 * a connection hash alike; rps_hash_sw_sym() is rps_hash_sw() on such keys. The Toeplitz
 * hash (RPS_HASH_TOEPLITZ) lives in rps_toeplitz.h; enum rps_sym_mode says how Toeplitz
 * and the NIC's hash are made symmetric (docs/steering-keys.md).
 *
 * Inner hashing (--inner): rps_flow_key_extract_inner() looks through one level of
 * encapsulation (VXLAN, GENEVE, GTP-U, GRE, NVGRE, IPv4/IPv6-in-IP) and returns the inner
 * packet's key, which hashes exactly as the bare inner packet would; a tunnel it cannot read
 * gives the outer key (RPS_INNER_FALLBACK). rps_inner_is_plain() is the cheap test that
 * lets the fast paths keep the packets that are certainly not tunnels.
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

/** Flow fields extracted from a packet (host-independent: raw network-order words). */
struct rps_flow_key {
	uint8_t family;    /**< 4, 6, or 0 when the packet is not IP */
	uint8_t proto;     /**< transport protocol (after IPv6 extension headers) */
	uint8_t is_frag;   /**< 1 for any IPv4/IPv6 fragment */
	uint8_t has_ports; /**< 1 when ports holds the 4 bytes after the IP header */
	uint32_t ports;    /**< first 4 bytes after the IP header, or 0 */
	uint32_t src[4];   /**< IPv4 uses src[0] */
	uint32_t dst[4];
	uint16_t l2_len;   /**< Ethernet + VLAN tags */
	uint16_t l3_len;   /**< IP header incl. options / extension headers */
};

#define RPS_HASH_MAX_VLAN 4   /* tags skipped before giving up on a frame */
#define RPS_HASH_MAX_V6EXT 8  /* IPv6 extension headers walked before giving up */

#ifndef IPPROTO_DCCP
#define IPPROTO_DCCP 33
#endif
#ifndef IPPROTO_UDPLITE
#define IPPROTO_UDPLITE 136
#endif

/** True for the protocols whose first 4 transport bytes join the hash (kernel's list). */
static inline int
rps_hash_proto_has_ports(uint8_t proto)
{
	switch (proto) {
	case IPPROTO_TCP: case IPPROTO_UDP: case IPPROTO_DCCP: case IPPROTO_ESP:
	case IPPROTO_AH: case IPPROTO_SCTP: case IPPROTO_UDPLITE:
		return 1;
	default:
		return 0;
	}
}

/**
 * Extract the flow key of a packet.
 * @return 0 and a filled key for IP packets; -1 for non-IP or truncated IP headers
 *   (key->family is then 0).
 */
int rps_flow_key_extract(const struct rte_mbuf *m, struct rps_flow_key *key);

/** jhash of an extracted key: rte_jhash_3words for IPv4, rte_jhash_32b for IPv6. Never 0. */
static inline uint32_t
rps_hash_key(const struct rps_flow_key *k, uint32_t seed)
{
	uint32_t h;

	if (k->family == 4) {
		h = rte_jhash_3words(k->src[0], k->dst[0], k->ports, seed);
	} else {
		uint32_t w[9];

		memcpy(w, k->src, 16);
		memcpy(w + 4, k->dst, 16);
		w[8] = k->ports;
		h = rte_jhash_32b(w, 9, seed);
	}
	return h ? h : 1;
}

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

/* Canonical order of an IPv4 tuple (raw words): lower address first, then lower port. */
static inline void
rps_hash_sym_v4(uint32_t *src, uint32_t *dst, uint32_t *ports)
{
	uint32_t s = rte_be_to_cpu_32(*src), d = rte_be_to_cpu_32(*dst);

	if (s > d || (s == d && rps_hash_ports_descending(*ports))) {
		uint32_t t = *src;

		*src = *dst;
		*dst = t;
		*ports = rps_hash_ports_swap(*ports);
	}
}

/* Canonical order of an IPv6 tuple: w[0..3] source, w[4..7] destination, w[8] ports. */
static inline void
rps_hash_sym_v6(uint32_t *w)
{
	int c = memcmp(w, w + 4, 16);

	if (c > 0 || (c == 0 && rps_hash_ports_descending(w[8]))) {
		uint32_t t[4];

		memcpy(t, w, 16);
		memcpy(w, w + 4, 16);
		memcpy(w + 4, t, 16);
		w[8] = rps_hash_ports_swap(w[8]);
	}
}

/**
 * Make @p k direction-free for a symmetric hash: the endpoint with the lower address (in
 * network order), or with equal addresses the lower port, comes first, so A->B and B->A give
 * the same key. The 4 bytes after the IP header are kept only when they are a port pair
 * (rps_hash_proto_has_port_pair()): ESP and AH hash on addresses alone, so both directions
 * of an IPsec tunnel meet too.
 */
static inline void
rps_flow_key_symmetric(struct rps_flow_key *k)
{
	if (k->has_ports && !rps_hash_proto_has_port_pair(k->proto)) {
		k->has_ports = 0;
		k->ports = 0;
	}
	if (k->family == 4) {
		rps_hash_sym_v4(&k->src[0], &k->dst[0], &k->ports);
	} else if (k->family == 6) {
		uint32_t w[9];

		memcpy(w, k->src, 16);
		memcpy(w + 4, k->dst, 16);
		w[8] = k->ports;
		rps_hash_sym_v6(w);
		memcpy(k->src, w, 16);
		memcpy(k->dst, w + 4, 16);
		k->ports = w[8];
	}
}

#define RPS_HASH_L2_WORDS 4 /**< 32-bit words of an L2 key */

/**
 * The layer-2 key of a frame without an IP flow: destination MAC, source MAC (in this order,
 * or with @p sym the lower of the two first, so both directions of a conversation agree),
 * the EtherType after the VLAN tags, and the outer VLAN ID (0 untagged); 16 bytes in
 * network order in @p w.
 * @return 0, or -1 when the frame is shorter than an Ethernet header (w unset).
 */
int rps_hash_l2_key(const struct rte_mbuf *m, int sym, uint32_t w[RPS_HASH_L2_WORDS]);

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

/**
 * The common case of rps_hash_sw(), read straight from the first segment: untagged
 * Ethernet, IPv4 without options and not a fragment, or IPv6 without extension headers,
 * carrying TCP or UDP. @p sym (a constant where inlined) canonicalises the tuple as
 * rps_flow_key_symmetric() does. @return 1 and the hash in *h, or 0 when the packet needs
 * the reference path (which gives the same hash for the packets this one accepts).
 */
static inline int
rps_hash_sw_fast_x(const struct rte_mbuf *m, uint32_t seed, int sym, uint32_t *h)
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
		uint32_t src, dst, ports;

		if (ip->version_ihl != RTE_IPV4_VHL_DEF ||
		    (ip->next_proto_id != IPPROTO_TCP && ip->next_proto_id != IPPROTO_UDP) ||
		    (ip->fragment_offset &
		     RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) != 0)
			return 0;
		memcpy(&src, &ip->src_addr, 4);
		memcpy(&dst, &ip->dst_addr, 4);
		memcpy(&ports, ip + 1, 4);
		if (sym)
			rps_hash_sym_v4(&src, &dst, &ports);
		x = rte_jhash_3words(src, dst, ports, seed);
	} else if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(p + RTE_ETHER_HDR_LEN);
		uint32_t w[9];

		if (dlen < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr) + 4 ||
		    (ip->proto != IPPROTO_TCP && ip->proto != IPPROTO_UDP) ||
		    (ip->vtc_flow & RTE_BE32(0xf0000000)) != RTE_BE32(0x60000000))
			return 0;
		memcpy(w, ip->src_addr, 16);
		memcpy(w + 4, ip->dst_addr, 16);
		memcpy(w + 8, ip + 1, 4);
		if (sym)
			rps_hash_sym_v6(w);
		x = rte_jhash_32b(w, 9, seed);
	} else {
		return 0;
	}
	*h = x ? x : 1;
	return 1;
}

/** rps_hash_sw_fast_x() without symmetry: the plain jhash fast path. */
static inline int
rps_hash_sw_fast(const struct rte_mbuf *m, uint32_t seed, uint32_t *h)
{
	return rps_hash_sw_fast_x(m, seed, 0, h);
}

/** Software flow hash of a packet: a non-zero jhash (of the L2 key for non-IP frames;
 * 0 only for a runt shorter than an Ethernet header). */
static inline uint32_t
rps_hash_sw(const struct rte_mbuf *m, uint32_t seed)
{
	uint32_t h;

	if (likely(rps_hash_sw_fast_x(m, seed, 0, &h)))
		return h;
	return rps_hash_sw_ref(m, seed);
}

/** Symmetric software flow hash (--symmetric with jhash): rps_hash_sw() over the
 * canonical tuple, so both directions of a connection get the same non-zero hash. */
static inline uint32_t
rps_hash_sw_sym(const struct rte_mbuf *m, uint32_t seed)
{
	uint32_t h;

	if (likely(rps_hash_sw_fast_x(m, seed, 1, &h)))
		return h;
	return rps_hash_sw_sym_ref(m, seed);
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

/* --- inner hashing (--inner) --- */

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

/** What rps_flow_key_extract_inner() found. */
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
 * Whether @p m is certainly not a tunnel in a layout the fast paths read (untagged
 * Ethernet, IPv4 without options and not a fragment or IPv6 without extension headers,
 * carrying TCP, or UDP to a port that is not a tunnel's): then --inner hashes it as without
 * --inner. 0 means "let rps_flow_key_extract_inner() decide".
 */
static inline int
rps_inner_is_plain(const struct rps_inner_cfg *cfg, const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint16_t dlen = m->data_len;
	const uint8_t *l4;
	uint16_t type, dport;
	uint8_t proto;

	if (unlikely(dlen < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr) + 4))
		return 0;
	memcpy(&type, p + 12, 2);
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(p + RTE_ETHER_HDR_LEN);

		if (ip->version_ihl != RTE_IPV4_VHL_DEF ||
		    (ip->fragment_offset &
		     RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) != 0)
			return 0;
		proto = ip->next_proto_id;
		l4 = (const uint8_t *)(ip + 1);
	} else if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(p + RTE_ETHER_HDR_LEN);

		if (dlen < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr) + 4 ||
		    (ip->vtc_flow & RTE_BE32(0xf0000000)) != RTE_BE32(0x60000000))
			return 0;
		proto = ip->proto;
		l4 = (const uint8_t *)(ip + 1);
	} else {
		return 0;
	}
	if (proto == IPPROTO_TCP)
		return 1;
	if (proto != IPPROTO_UDP)
		return 0;
	memcpy(&dport, l4 + 2, 2);
	return !rps_inner_udp_port(cfg, dport);
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
