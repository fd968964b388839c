/* SPDX-License-Identifier: BSD-3-Clause */
/* hash.c: flow-key extraction for the software hash, outer and (--inner) through one level
 * of encapsulation, and the layer-2 key of a frame without an IP flow (bounds-checked,
 * multi-segment safe): the slow path of rps_flow_key_get(). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_udp.h>

#include "rps_hash.h"

#define IP6_EXT_HOPOPTS 0
#define IP6_EXT_ROUTING 43
#define IP6_EXT_FRAGMENT 44
#define IP6_EXT_DSTOPTS 60

#define IPPROTO_IPIP_ 4           /* IPv4 encapsulation */
#define IPPROTO_IPV6_ 41          /* IPv6 encapsulation */
#define IPPROTO_GRE_ 47
#define ETHER_TYPE_TEB 0x6558     /* transparent Ethernet bridging: GRE, NVGRE, GENEVE */
#define VXLAN_FLAG_I 0x08         /* RFC 7348: the VNI is valid; must be set */
#define GRE_C 0x8000              /* checksum (and reserved1) present */
#define GRE_K 0x2000              /* key present (RFC 2890; NVGRE's VSID) */
#define GRE_S 0x1000              /* sequence number present (RFC 2890) */
#define GRE_MUST_BE_ZERO 0x4fff   /* RFC 1701 routing, strict route, recursion, flags, version */
#define GTPU_VERSION 1
#define GTPU_GPDU 255             /* the message type that carries a user packet */
#define GTPU_E 0x04               /* an extension header follows */
#define GTPU_S 0x02
#define GTPU_PN 0x01
#define GTPU_MAX_EXT 8            /* extension headers walked before giving up */

/* Skip Ethernet at @p base and any VLAN tags; returns the L3 offset and the inner ethertype
 * (network order), or -1 when the frame is cut short or carries too many tags. */
static int
skip_l2(const struct rte_mbuf *m, uint32_t base, uint16_t *ethertype)
{
	/* bytes, not struct rte_ether_hdr (2-byte aligned): an inner frame may start at any
	 * address of a segment */
	uint8_t eh_buf[RTE_ETHER_HDR_LEN];
	const uint8_t *eh;
	uint32_t off = base + RTE_ETHER_HDR_LEN;
	uint16_t type;

	eh = rte_pktmbuf_read(m, base, RTE_ETHER_HDR_LEN, eh_buf);
	if (eh == NULL)
		return -1;
	memcpy(&type, eh + 12, 2);
	for (int tags = 0; rps_hash_is_vlan_tpid(type); tags++) {
		struct rte_vlan_hdr vh_buf;
		const struct rte_vlan_hdr *vh;

		if (tags == RPS_HASH_MAX_VLAN)
			return -1;
		vh = rte_pktmbuf_read(m, off, sizeof(*vh), &vh_buf);
		if (vh == NULL)
			return -1;
		type = vh->eth_proto;
		off += sizeof(*vh);
	}
	*ethertype = type;
	return (int)off;
}

static int
extract_ipv4(const struct rte_mbuf *m, uint32_t off, struct rps_flow_key *k)
{
	struct rte_ipv4_hdr ip_buf;
	const struct rte_ipv4_hdr *ip;
	uint32_t ihl;

	ip = rte_pktmbuf_read(m, off, sizeof(*ip), &ip_buf);
	if (ip == NULL || (ip->version_ihl >> 4) != 4)
		return -1;
	ihl = (ip->version_ihl & 0x0f) * 4u;
	if (ihl < sizeof(*ip) || off + ihl > rte_pktmbuf_pkt_len(m))
		return -1;
	k->family = 4;
	k->proto = ip->next_proto_id;
	k->src[0] = ip->src_addr;
	k->dst[0] = ip->dst_addr;
	k->l3_len = (uint16_t)ihl;
	k->is_frag = (ip->fragment_offset &
		      RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) != 0;
	return 0;
}

static int
extract_ipv6(const struct rte_mbuf *m, uint32_t off, struct rps_flow_key *k)
{
	struct rte_ipv6_hdr ip_buf;
	const struct rte_ipv6_hdr *ip;
	uint32_t l3 = sizeof(*ip);
	uint8_t nh;

	ip = rte_pktmbuf_read(m, off, sizeof(*ip), &ip_buf);
	if (ip == NULL || (rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6)
		return -1;
	k->family = 6;
	memcpy(k->w, ip->src_addr, 32); /* src and dst: contiguous in both */
	nh = ip->proto;
	for (int i = 0; i < RPS_HASH_MAX_V6EXT; i++) {
		uint8_t ext_buf[8];
		const uint8_t *ext;

		if (nh != IP6_EXT_HOPOPTS && nh != IP6_EXT_ROUTING && nh != IP6_EXT_DSTOPTS &&
		    nh != IP6_EXT_FRAGMENT)
			break;
		ext = rte_pktmbuf_read(m, off + l3, 8, ext_buf);
		if (ext == NULL)
			break; /* chain cut short: hash on addresses alone */
		if (nh == IP6_EXT_FRAGMENT) {
			/* offset (13 bits) and M flag; an atomic fragment (both 0) is whole */
			if ((((uint16_t)ext[2] << 8 | ext[3]) & 0xfff9) != 0)
				k->is_frag = 1;
			l3 += 8;
		} else {
			l3 += ((uint32_t)ext[1] + 1) * 8;
		}
		nh = ext[0];
	}
	k->proto = nh;
	k->l3_len = (uint16_t)RTE_MIN(l3, (uint32_t)UINT16_MAX);
	return 0;
}

/* The key of the IP packet at @p off, of ethertype @p type (network order); l2_len = off. */
static int
extract_l3(const struct rte_mbuf *m, uint32_t off, uint16_t type, struct rps_flow_key *k)
{
	int rc = -1;

	memset(k, 0, sizeof(*k));
	k->l2_len = (uint16_t)RTE_MIN(off, (uint32_t)UINT16_MAX);
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV4))
		rc = extract_ipv4(m, off, k);
	else if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6))
		rc = extract_ipv6(m, off, k);
	if (rc < 0) {
		k->family = 0;
		return -1;
	}
	if (!k->is_frag && rps_hash_proto_has_ports(k->proto)) {
		uint32_t p_buf;
		const uint32_t *p = rte_pktmbuf_read(m, off + k->l3_len, 4, &p_buf);

		if (p != NULL) {
			memcpy(&k->ports, p, 4);
			k->has_ports = 1;
		}
	}
	return 0;
}

int
rps_flow_key_extract(const struct rte_mbuf *m, struct rps_flow_key *k)
{
	uint16_t type;
	int off;

	memset(k, 0, sizeof(*k));
	off = skip_l2(m, 0, &type);
	if (off < 0)
		return -1;
	return extract_l3(m, (uint32_t)off, type, k);
}

/* Whether the destination MAC of Ethernet header @p eh (12 bytes readable) is above its
 * source MAC, as memcmp() of their 6 bytes would say: both read as 48-bit big-endian numbers,
 * each by one 8-byte load from the header itself (bytes 0-7 and 4-11). */
static inline int
dst_mac_above(const uint8_t *eh)
{
	uint64_t x, y;

	memcpy(&x, eh, 8);
	memcpy(&y, eh + 4, 8);
	return (rte_be_to_cpu_64(x) >> 16) > (rte_be_to_cpu_64(y) & 0xffffffffffffull);
}

/* The 16-byte layer-2 key of Ethernet header @p eh (MAC a, then MAC b, the lower first with
 * @p sym, the EtherType @p type after the tags, the outer VLAN ID @p vid), each 4-byte word
 * written with one store, so that a hash reading a word back gets it forwarded from that
 * store (a word straddling two stores would stall). */
static inline void
l2_key_words(const uint8_t *eh, uint16_t type, uint16_t vid, int sym,
	     uint32_t w[RPS_HASH_L2_WORDS])
{
	const uint8_t *a = eh, *b = eh + 6;
	union {
		uint16_t h[2];
		uint32_t w;
	} mid, tail;

	if (sym && dst_mac_above(eh)) {
		a = eh + 6;
		b = eh;
	}
	memcpy(&mid.h[0], a + 4, 2);
	memcpy(&mid.h[1], b, 2);
	tail.h[0] = type;
	tail.h[1] = vid;
	memcpy(&w[0], a, 4);
	w[1] = mid.w;
	memcpy(&w[2], b + 2, 4);
	w[3] = tail.w;
}

int
rps_flow_key_extract_slow(const struct rte_mbuf *m, int sort,
			  const struct rps_inner_cfg *tunnels, struct rps_flow_key *k)
{
	int rc;

	/* An untagged frame that is neither IP nor VLAN (ARP, LLDP, any other EtherType, junk)
	 * in the first segment: its layer-2 key straight away, as below would find it after
	 * the IP extraction failed (nothing else reads such a frame, tunnels included). At the
	 * line rate of non-IP frames this path is the RX lcore's whole cost (benchmarks.md). */
	if (likely(rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN)) {
		const uint8_t *eh = rte_pktmbuf_mtod(m, const uint8_t *);
		uint16_t type;

		memcpy(&type, eh + 12, 2);
		if (type != RTE_BE16(RTE_ETHER_TYPE_IPV4) && type != RTE_BE16(RTE_ETHER_TYPE_IPV6) &&
		    !rps_hash_is_vlan_tpid(type)) {
			memset(k, 0, sizeof(*k));
			l2_key_words(eh, type, 0, sort, k->l2);
			k->has_l2 = 1;
			return RPS_INNER_NOT_IP;
		}
	}
	if (tunnels != NULL)
		rc = rps_flow_key_extract_inner(m, tunnels, k);
	else
		rc = rps_flow_key_extract(m, k) < 0 ? RPS_INNER_NOT_IP : RPS_INNER_PLAIN;
	if (rc == RPS_INNER_NOT_IP) {
		/* no IP flow: the frame's layer-2 key (rps_flow_key_extract() zeroed k), its
		 * MACs sorted here when symmetric */
		k->family = 0;
		k->has_l2 = rps_hash_l2_key(m, sort, k->l2) == 0;
	} else if (sort) {
		rps_flow_key_symmetric(k);
	}
	return rc;
}

int
rps_hash_l2_key(const struct rte_mbuf *m, int sym, uint32_t w[RPS_HASH_L2_WORDS])
{
	uint8_t eh_buf[RTE_ETHER_HDR_LEN];
	const uint8_t *eh = rte_pktmbuf_read(m, 0, RTE_ETHER_HDR_LEN, eh_buf);
	uint16_t type, vid = 0;
	uint32_t off = RTE_ETHER_HDR_LEN;

	if (eh == NULL)
		return -1;
	memcpy(&type, eh + 12, 2);
	/* the outer VLAN ID and the EtherType after the tags (a tag cut short ends the walk:
	 * the frame is still hashed on what was read) */
	for (int tags = 0; tags < RPS_HASH_MAX_VLAN && rps_hash_is_vlan_tpid(type); tags++) {
		struct rte_vlan_hdr vh_buf;
		const struct rte_vlan_hdr *vh = rte_pktmbuf_read(m, off, sizeof(*vh), &vh_buf);

		if (vh == NULL)
			break;
		if (tags == 0)
			vid = vh->vlan_tci & RTE_BE16(0x0fff);
		type = vh->eth_proto;
		off += sizeof(*vh);
	}
	l2_key_words(eh, type, vid, sym, w);
	return 0;
}

/* RPS_HASH_LANES words as one vector; moved in and out with memcpy() (no alignment asked of
 * the arrays, and no vector crosses a call: its ABI would differ between builds) */
typedef uint32_t hash_lanes_t __attribute__((vector_size(RPS_HASH_LANES * sizeof(uint32_t))));

#define LANES_LOAD(v, p) memcpy(&(v), (p), sizeof(hash_lanes_t))
#define LANES_STORE(p, v) memcpy((p), &(v), sizeof(hash_lanes_t))

void
rps_hash_jhash3_lanes(const uint32_t *w, uint32_t stride, uint32_t n, uint32_t seed,
		      uint32_t *h)
{
	/* rte_jhash_3words(): each word + 12, then __rte_jhash_3words() adds the rest */
	const uint32_t init = RTE_JHASH_GOLDEN_RATIO + 12 + seed;

	for (uint32_t i = 0; i < n; i += RPS_HASH_LANES) {
		hash_lanes_t a, b, c;

		LANES_LOAD(a, w + i);
		LANES_LOAD(b, w + stride + i);
		LANES_LOAD(c, w + 2 * stride + i);
		a += init;
		b += init;
		c += init;
		__rte_jhash_final(a, b, c);
		LANES_STORE(h + i, c);
	}
}

void
rps_hash_jhash9_lanes(const uint32_t *w, uint32_t stride, uint32_t n, uint32_t seed,
		      uint32_t *h)
{
	const uint32_t init = RTE_JHASH_GOLDEN_RATIO + 9 * 4 + seed;

	for (uint32_t i = 0; i < n; i += RPS_HASH_LANES) {
		hash_lanes_t a = { 0 }, b, c, k[9];

		/* each row by its constant index, no loop: k stays in registers */
		LANES_LOAD(k[0], w + i);
		LANES_LOAD(k[1], w + stride + i);
		LANES_LOAD(k[2], w + 2 * stride + i);
		LANES_LOAD(k[3], w + 3 * stride + i);
		LANES_LOAD(k[4], w + 4 * stride + i);
		LANES_LOAD(k[5], w + 5 * stride + i);
		LANES_LOAD(k[6], w + 6 * stride + i);
		LANES_LOAD(k[7], w + 7 * stride + i);
		LANES_LOAD(k[8], w + 8 * stride + i);
		a += init;
		b = c = a;
		RPS_HASH_JHASH9_BLOCKS(a, b, c, k);
		LANES_STORE(h + i, c);
	}
}

uint32_t
rps_hash_l2(const struct rte_mbuf *m, uint32_t seed, int sym)
{
	uint32_t w[RPS_HASH_L2_WORDS], h;

	if (rps_hash_l2_key(m, sym, w) < 0)
		return 0;
	h = rps_hash_jhash4(w, seed);
	return h ? h : 1;
}

/* An inner Ethernet frame at @p off. */
static int
inner_eth(const struct rte_mbuf *m, uint32_t off, struct rps_flow_key *k)
{
	uint16_t type;
	int l3 = skip_l2(m, off, &type);

	if (l3 < 0)
		return -1;
	return extract_l3(m, (uint32_t)l3, type, k);
}

/* An inner IP packet at @p off: IP version @p version, or either when 0. */
static int
inner_ip(const struct rte_mbuf *m, uint32_t off, unsigned int version, struct rps_flow_key *k)
{
	uint8_t b_buf;
	const uint8_t *b = rte_pktmbuf_read(m, off, 1, &b_buf);
	unsigned int v;

	if (b == NULL)
		return -1;
	v = *b >> 4;
	if (version != 0 && v != version)
		return -1;
	if (v == 4)
		return extract_l3(m, off, RTE_BE16(RTE_ETHER_TYPE_IPV4), k);
	if (v == 6)
		return extract_l3(m, off, RTE_BE16(RTE_ETHER_TYPE_IPV6), k);
	return -1;
}

/* The inner packet named by an ethertype-like protocol field (GRE, GENEVE). */
static int
inner_by_proto(const struct rte_mbuf *m, uint32_t off, uint16_t proto, struct rps_flow_key *k)
{
	switch (proto) {
	case RTE_ETHER_TYPE_IPV4:
		return inner_ip(m, off, 4, k);
	case RTE_ETHER_TYPE_IPV6:
		return inner_ip(m, off, 6, k);
	case ETHER_TYPE_TEB:
		return inner_eth(m, off, k);
	default:
		return -1;
	}
}

/* VXLAN header at @p off (RFC 7348): flags, reserved, VNI, reserved; then Ethernet. */
static int
inner_vxlan(const struct rte_mbuf *m, uint32_t off, struct rps_flow_key *k)
{
	uint8_t h_buf[8];
	const uint8_t *h = rte_pktmbuf_read(m, off, 8, h_buf);

	if (h == NULL || (h[0] & VXLAN_FLAG_I) == 0)
		return -1;
	return inner_eth(m, off + 8, k);
}

/* GENEVE header at @p off (RFC 8926): version, option length in 4-byte words, protocol. */
static int
inner_geneve(const struct rte_mbuf *m, uint32_t off, struct rps_flow_key *k)
{
	uint8_t h_buf[8];
	const uint8_t *h = rte_pktmbuf_read(m, off, 8, h_buf);

	if (h == NULL || (h[0] >> 6) != 0)
		return -1;
	return inner_by_proto(m, off + 8 + (h[0] & 0x3fu) * 4, (uint16_t)(h[2] << 8 | h[3]), k);
}

/* GTP-U header at @p off (3GPP TS 29.281): version 1, PT 1, a G-PDU; the optional word when
 * E, S or PN is set, the extension headers when E is; then an IP packet. */
static int
inner_gtpu(const struct rte_mbuf *m, uint32_t off, struct rps_flow_key *k)
{
	uint8_t h_buf[12];
	const uint8_t *h = rte_pktmbuf_read(m, off, 8, h_buf);
	uint32_t len = 8;
	uint8_t next;

	if (h == NULL || (h[0] >> 5) != GTPU_VERSION || (h[0] & 0x10) == 0 || h[1] != GTPU_GPDU)
		return -1;
	if ((h[0] & (GTPU_E | GTPU_S | GTPU_PN)) != 0) {
		const int ext = (h[0] & GTPU_E) != 0;

		h = rte_pktmbuf_read(m, off, 12, h_buf);
		if (h == NULL)
			return -1;
		next = ext ? h[11] : 0;
		len = 12;
		for (int i = 0; next != 0; i++) {
			uint8_t b_buf;
			const uint8_t *b;
			uint32_t elen;

			if (i == GTPU_MAX_EXT)
				return -1;
			/* length in 4-byte units, counting itself and the next-type byte */
			b = rte_pktmbuf_read(m, off + len, 1, &b_buf);
			if (b == NULL || *b == 0)
				return -1;
			elen = *b * 4u;
			b = rte_pktmbuf_read(m, off + len + elen - 1, 1, &b_buf);
			if (b == NULL)
				return -1;
			next = *b;
			len += elen;
		}
	}
	return inner_ip(m, off + len, 0, k);
}

/* GRE header at @p off (RFC 2784, 2890): version 0; checksum, key, sequence skipped. */
static int
inner_gre(const struct rte_mbuf *m, uint32_t off, struct rps_flow_key *k)
{
	uint8_t h_buf[4];
	const uint8_t *h = rte_pktmbuf_read(m, off, 4, h_buf);
	uint16_t flags;
	uint32_t len = 4;

	if (h == NULL)
		return -1;
	flags = (uint16_t)(h[0] << 8 | h[1]);
	if ((flags & GRE_MUST_BE_ZERO) != 0)
		return -1;
	len += (flags & GRE_C) ? 4 : 0;
	len += (flags & GRE_K) ? 4 : 0;
	len += (flags & GRE_S) ? 4 : 0;
	return inner_by_proto(m, off + len, (uint16_t)(h[2] << 8 | h[3]), k);
}

int
rps_flow_key_extract_inner(const struct rte_mbuf *m, const struct rps_inner_cfg *cfg,
			   struct rps_flow_key *k)
{
	struct rps_flow_key in;
	uint32_t l4;
	uint16_t dport;
	int rc;

	if (rps_flow_key_extract(m, k) < 0)
		return RPS_INNER_NOT_IP;
	l4 = (uint32_t)k->l2_len + k->l3_len;
	switch (k->proto) {
	case IPPROTO_UDP:
		/* no ports: a fragment (all of the datagram's hash alike) or cut short */
		if (!k->has_ports)
			return RPS_INNER_PLAIN;
		memcpy(&dport, (const uint8_t *)&k->ports + 2, 2);
		if (!rps_inner_udp_port(cfg, dport))
			return RPS_INNER_PLAIN;
		l4 += sizeof(struct rte_udp_hdr);
		if (dport == RTE_BE16(RPS_INNER_GENEVE_PORT))
			rc = inner_geneve(m, l4, &in);
		else if (dport == RTE_BE16(RPS_INNER_GTPU_PORT))
			rc = inner_gtpu(m, l4, &in);
		else
			rc = inner_vxlan(m, l4, &in);
		break;
	case IPPROTO_GRE_:
		rc = k->is_frag ? -1 : inner_gre(m, l4, &in);
		break;
	case IPPROTO_IPIP_:
		rc = k->is_frag ? -1 : inner_ip(m, l4, 4, &in);
		break;
	case IPPROTO_IPV6_:
		rc = k->is_frag ? -1 : inner_ip(m, l4, 6, &in);
		break;
	default:
		return RPS_INNER_PLAIN;
	}
	if (rc < 0)
		return RPS_INNER_FALLBACK;
	*k = in;
	return RPS_INNER_HASHED;
}

int
rps_inner_vxlan_ports_parse(const char *s, struct rps_inner_cfg *cfg)
{
	struct rps_inner_cfg c = *cfg;
	const char *p = s;

	for (;;) {
		unsigned long v;
		unsigned int i;
		char *end;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno != 0 || v < 1 || v > UINT16_MAX || v == RPS_INNER_GENEVE_PORT ||
		    v == RPS_INNER_GTPU_PORT || (*end != '\0' && *end != ','))
			return -EINVAL;
		for (i = 0; i < c.nb_vxlan && c.vxlan_port[i] != v; i++)
			;
		if (i == c.nb_vxlan) {
			if (c.nb_vxlan == RPS_INNER_VXLAN_PORTS_MAX)
				return -ENOSPC;
			c.vxlan_port[c.nb_vxlan++] = (uint16_t)v;
		}
		if (*end == '\0')
			break;
		p = end + 1;
	}
	*cfg = c;
	return 0;
}

int
rps_sym_mode_parse(const char *s, enum rps_sym_mode *mode)
{
	if (strcasecmp(s, "off") == 0 || strcasecmp(s, "no") == 0 ||
	    strcasecmp(s, "false") == 0 || strcmp(s, "0") == 0)
		*mode = RPS_SYM_OFF;
	else if (strcasecmp(s, "on") == 0 || strcasecmp(s, "yes") == 0 ||
		 strcasecmp(s, "true") == 0 || strcmp(s, "1") == 0 || strcasecmp(s, "sort") == 0)
		*mode = RPS_SYM_SORT;
	else if (strcasecmp(s, "xor") == 0)
		*mode = RPS_SYM_XOR;
	else
		return -EINVAL;
	return 0;
}

const char *
rps_sym_mode_name(enum rps_sym_mode mode)
{
	switch (mode) {
	case RPS_SYM_OFF: return "off";
	case RPS_SYM_SORT: return "sort";
	case RPS_SYM_XOR: return "xor";
	}
	return "?";
}

int
rps_hash_mode_parse(const char *s, enum rps_hash_mode *mode)
{
	if (strcasecmp(s, "auto") == 0)
		*mode = RPS_HASH_AUTO;
	else if (strcasecmp(s, "rss") == 0)
		*mode = RPS_HASH_RSS;
	else if (strcasecmp(s, "jhash") == 0)
		*mode = RPS_HASH_JHASH;
	else if (strcasecmp(s, "toeplitz") == 0)
		*mode = RPS_HASH_TOEPLITZ;
	else
		return -EINVAL;
	return 0;
}

const char *
rps_hash_mode_name(enum rps_hash_mode mode)
{
	switch (mode) {
	case RPS_HASH_AUTO: return "auto";
	case RPS_HASH_RSS: return "rss";
	case RPS_HASH_JHASH: return "jhash";
	case RPS_HASH_TOEPLITZ: return "toeplitz";
	}
	return "?";
}
