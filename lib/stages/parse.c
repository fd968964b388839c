/* SPDX-License-Identifier: BSD-3-Clause */
/* parse.c: the parse stage: header layout and packet_type into the mbuf, drops, counters. */
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf_ptype.h>
#include <rte_prefetch.h>

#include "rps_hash.h"
#include "rps_l4.h"
#include "rps_stage.h"

/*
 * What the stage guarantees for every packet it passes on (and what later stages rely on):
 *  - the Ethernet header and every VLAN tag are present: l2_len = 14 + 4 * tags (<= 4 tags);
 *  - non-IP frames: packet_type is the L2 type alone, l3_len = l4_len = 0;
 *  - IP: the whole IP header (IPv4 options / IPv6 extension chain) is present and is
 *    l3_len bytes (< 512); the transport header, unless the packet is a non-first fragment,
 *    is present and is l4_len bytes (TCP: data offset * 4, UDP: 8, ICMP/ICMPv6: 8 or the 4..7
 *    bytes present; 0 for other protocols and non-first fragments);
 *  - "present" means inside the frame, and also inside the IP datagram when the IP length
 *    fields are consistent with the frame. When they are not, the transport header is only
 *    checked against the frame, and validate drops the packet as bad_length.
 * Every read is bounds-checked through rte_pktmbuf_read(), so multi-segment mbufs and
 * headers split across segments work and nothing past pkt_len is ever touched.
 *
 * The pkts_* counters count the packets this stage passes on, so that
 * pkts_ipv4 + pkts_ipv6 + pkts_non_ip == packets passed, and for IP packets exactly one of
 * pkts_tcp, pkts_udp, pkts_icmp, pkts_other_l4, pkts_fragment.
 */

/*
 * Prefetch distance, VPP-style: while packet i is parsed, the headers of packet
 * i + PARSE_PREFETCH are on their way (the first two lines: an IPv6/TCP header ends past
 * byte 64), and the mbuf of i + 2 * PARSE_PREFETCH (its first line: buf_addr, data_off,
 * pkt_len, written by the RX lcore) is fetched so that the header's address is ready then.
 * A prefetch never faults and reads nothing into the program: a short buffer is fine.
 */
#define PARSE_PREFETCH 4

/* A parse result for one packet: keep, or a drop reason. */
#define KEEP (-1)

struct parse_counts {
	uint32_t v4, v6, tcp, udp, icmp, other, non_ip, frag;
};

/* Bytes [off, off + len) of the packet, provided they end at or before @p end (<= pkt_len). */
static inline const uint8_t *
read_at(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint32_t end, void *buf)
{
	if (off > end || len > end - off)
		return NULL;
	return rte_pktmbuf_read(m, off, len, buf);
}

/*
 * The transport header at @p off, which must end at or before @p end. For a non-first
 * fragment nothing is read. Sets *l4_len and the L4 bits of *ptype, counts the protocol.
 */
static inline int
parse_l4(const struct rte_mbuf *m, uint32_t off, uint32_t end, uint8_t proto, int v6,
	 int frag, int first, uint32_t *l4_len, uint32_t *ptype, struct parse_counts *pc)
{
	uint8_t buf[20];
	const uint8_t *h;
	uint32_t l4 = 0, type;

	if (frag && !first) {
		/* the bytes after the IP header are the middle of a datagram, not a header */
		*l4_len = 0;
		*ptype |= RTE_PTYPE_L4_FRAG;
		pc->frag++;
		return KEEP;
	}
	if (proto == IPPROTO_TCP) {
		h = read_at(m, off, 20, end, buf);
		if (h == NULL)
			return RPS_DROP_TRUNCATED;
		l4 = (uint32_t)(h[12] >> 4) * 4;
		if (l4 < 20)
			return RPS_DROP_BAD_HEADER;
		if (l4 > end - off)
			return RPS_DROP_TRUNCATED;
		type = RTE_PTYPE_L4_TCP;
		pc->tcp += !frag;
	} else if (proto == IPPROTO_UDP) {
		if (off > end || end - off < 8)
			return RPS_DROP_TRUNCATED;
		l4 = 8;
		type = RTE_PTYPE_L4_UDP;
		pc->udp += !frag;
	} else if ((!v6 && proto == IPPROTO_ICMP) || (v6 && proto == RPS_IP6_ICMP)) {
		/* type, code, checksum; echo request/reply also identifier and sequence */
		uint32_t avail = off < end ? end - off : 0;
		int echo;

		h = read_at(m, off, 4, end, buf);
		if (h == NULL)
			return RPS_DROP_TRUNCATED;
		echo = v6 ? (h[0] == 128 || h[0] == 129) : (h[0] == 8 || h[0] == 0);
		if (echo && avail < 8)
			return RPS_DROP_TRUNCATED;
		l4 = RTE_MIN(avail, 8u);
		type = RTE_PTYPE_L4_ICMP;
		pc->icmp += !frag;
	} else {
		type = RTE_PTYPE_L4_NONFRAG;
		pc->other += !frag;
	}
	if (frag) {
		/* a first fragment: the transport header was checked (RFC 1858 / RFC 7112: a
		 * first fragment must hold it whole), but the packet is typed as a fragment */
		type = RTE_PTYPE_L4_FRAG;
		pc->frag++;
	}
	*l4_len = l4;
	*ptype |= type;
	return KEEP;
}

static inline int
parse_ipv4(struct rte_mbuf *m, uint32_t off, uint32_t len, uint32_t *ptype,
	   uint32_t *l3_out, uint32_t *l4_out, struct parse_counts *pc)
{
	uint8_t buf[20];
	const uint8_t *h = read_at(m, off, 20, len, buf);
	uint32_t ihl, tot, end = len, l4_len = 0;
	uint16_t fo;
	int frag, first, rc;

	if (h == NULL)
		return RPS_DROP_TRUNCATED;
	if ((h[0] >> 4) != 4)
		return RPS_DROP_BAD_VERSION;
	ihl = (uint32_t)(h[0] & 0x0f) * 4;
	if (ihl < 20)
		return RPS_DROP_BAD_IHL;
	if (ihl > len - off)
		return RPS_DROP_TRUNCATED;
	tot = (uint32_t)h[2] << 8 | h[3];
	fo = (uint16_t)(h[6] << 8 | h[7]);
	frag = (fo & (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) != 0;
	first = (fo & RTE_IPV4_HDR_OFFSET_MASK) == 0;
	/* consistent total length: the transport header must lie inside the datagram */
	if (tot >= ihl && tot <= len - off)
		end = off + tot;
	*ptype |= ihl > 20 ? RTE_PTYPE_L3_IPV4_EXT : RTE_PTYPE_L3_IPV4;
	rc = parse_l4(m, off + ihl, end, h[9], 0, frag, first, &l4_len, ptype, pc);
	if (rc != KEEP)
		return rc;
	pc->v4++;
	*l3_out = ihl;
	*l4_out = l4_len;
	return KEEP;
}

static inline int
parse_ipv6(struct rte_mbuf *m, uint32_t off, uint32_t len, uint32_t *ptype,
	   uint32_t *l3_out, uint32_t *l4_out, struct parse_counts *pc)
{
	uint8_t buf[40];
	const uint8_t *h = read_at(m, off, 40, len, buf);
	uint32_t l3 = 40, plen, end = len, l4_len = 0, next = 0;
	int frag = 0, first = 1, rc;
	uint8_t nh;

	if (h == NULL)
		return RPS_DROP_TRUNCATED;
	if ((h[0] >> 4) != 6)
		return RPS_DROP_BAD_VERSION;
	plen = (uint32_t)h[4] << 8 | h[5];
	nh = h[6];
	for (;;) {
		uint8_t eb[RPS_IP6_EXT_MIN];
		const uint8_t *e;
		uint32_t elen;

		if (nh != RPS_IP6_HOPOPTS && nh != RPS_IP6_ROUTING && nh != RPS_IP6_DSTOPTS &&
		    nh != RPS_IP6_FRAGMENT && nh != RPS_IP6_AH)
			break; /* upper layer, ESP, no next header, or unknown: the chain ends */
		if (next == RPS_PARSE_MAX_V6EXT)
			return RPS_DROP_BAD_HEADER;
		e = read_at(m, off + l3, RPS_IP6_EXT_MIN, len, eb);
		if (e == NULL)
			return RPS_DROP_TRUNCATED;
		elen = rps_ip6_ext_len(nh, e);
		/* l3_len is a 9-bit mbuf field: a longer chain cannot be described */
		if (l3 + elen >= (1u << RTE_MBUF_L3_LEN_BITS))
			return RPS_DROP_BAD_HEADER;
		if (elen > len - off - l3)
			return RPS_DROP_TRUNCATED;
		l3 += elen;
		next++;
		if (nh == RPS_IP6_FRAGMENT) {
			uint16_t fo = (uint16_t)(e[2] << 8 | e[3]);

			/* offset 0 and M 0 is an atomic fragment (RFC 6946): a whole packet */
			if ((fo & (RTE_IPV6_EHDR_FO_MASK | RTE_IPV6_EHDR_MF_MASK)) != 0) {
				frag = 1;
				if ((fo & RTE_IPV6_EHDR_FO_MASK) != 0) {
					first = 0;
					break; /* what follows is fragment data */
				}
			}
		}
		nh = e[0];
	}
	if (l3 <= 40 + plen && 40 + plen <= len - off)
		end = off + 40 + plen;
	*ptype |= next > 0 ? RTE_PTYPE_L3_IPV6_EXT : RTE_PTYPE_L3_IPV6;
	rc = parse_l4(m, off + l3, end, nh, 1, frag, first, &l4_len, ptype, pc);
	if (rc != KEEP)
		return rc;
	pc->v6++;
	*l3_out = l3;
	*l4_out = l4_len;
	return KEEP;
}

static inline int
parse_one(struct rte_mbuf *m, struct parse_counts *pc)
{
	const uint32_t len = rte_pktmbuf_pkt_len(m);
	uint8_t buf[RTE_ETHER_HDR_LEN];
	const uint8_t *h = read_at(m, 0, RTE_ETHER_HDR_LEN, len, buf);
	uint32_t off = RTE_ETHER_HDR_LEN, ptype, tags = 0, l3 = 0, l4 = 0;
	uint16_t type;
	int rc;

	if (h == NULL)
		return RPS_DROP_TRUNCATED;
	type = (uint16_t)(h[12] << 8 | h[13]);
	while (rps_hash_is_vlan_tpid(rte_cpu_to_be_16(type))) {
		uint8_t vb[4];
		const uint8_t *v;

		if (tags == RPS_PARSE_MAX_VLAN)
			return RPS_DROP_BAD_HEADER;
		v = read_at(m, off, 4, len, vb);
		if (v == NULL)
			return RPS_DROP_TRUNCATED;
		type = (uint16_t)(v[2] << 8 | v[3]);
		off += 4;
		tags++;
	}
	ptype = tags == 0 ? RTE_PTYPE_L2_ETHER :
		tags == 1 ? RTE_PTYPE_L2_ETHER_VLAN : RTE_PTYPE_L2_ETHER_QINQ;

	if (type == RTE_ETHER_TYPE_IPV4) {
		rc = parse_ipv4(m, off, len, &ptype, &l3, &l4, pc);
	} else if (type == RTE_ETHER_TYPE_IPV6) {
		rc = parse_ipv6(m, off, len, &ptype, &l3, &l4, pc);
	} else {
		/* ARP and everything else: passed on with the L2 layout only */
		pc->non_ip++;
		rc = KEEP;
	}
	if (rc == KEEP) {
		/* the layout in one 8-byte store (the rest of tx_offload zero: nothing of a
		 * received packet's is kept there): the bit-fields one by one were loads and
		 * stores of a line the RX side's allocation wrote, and the first load waited */
		m->tx_offload = rte_mbuf_tx_offload(off, l3, l4, 0, 0, 0, 0);
		m->packet_type = ptype;
	}
	return rc;
}

static inline void
prefetch_hdr(const struct rte_mbuf *m)
{
	const char *h = rte_pktmbuf_mtod(m, const char *);

	rte_prefetch0(h);
	rte_prefetch0(h + RTE_CACHE_LINE_SIZE);
}

uint16_t
rps_stage_parse(struct rps_stage_ctx *c, struct rte_mbuf **pkts, uint16_t n)
{
	struct rps_lcore_stats *st = c->st;
	struct parse_counts pc = { 0 };
	uint16_t kept = 0;

	for (uint16_t i = 0; i < RTE_MIN(n, (uint16_t)(2 * PARSE_PREFETCH)); i++)
		rte_prefetch0(pkts[i]);
	for (uint16_t i = 0; i < RTE_MIN(n, (uint16_t)PARSE_PREFETCH); i++)
		prefetch_hdr(pkts[i]);
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		int rc;

		if (i + 2 * PARSE_PREFETCH < n)
			rte_prefetch0(pkts[i + 2 * PARSE_PREFETCH]);
		if (i + PARSE_PREFETCH < n)
			prefetch_hdr(pkts[i + PARSE_PREFETCH]);
		rc = parse_one(m, &pc);

		if (likely(rc == KEEP))
			pkts[kept++] = m;
		else
			rps_stage_drop(c, m, (enum rps_drop_reason)rc);
	}
	RPS_CTR_ADD(st->pkts_ipv4, pc.v4);
	RPS_CTR_ADD(st->pkts_ipv6, pc.v6);
	RPS_CTR_ADD(st->pkts_tcp, pc.tcp);
	RPS_CTR_ADD(st->pkts_udp, pc.udp);
	RPS_CTR_ADD(st->pkts_icmp, pc.icmp);
	RPS_CTR_ADD(st->pkts_other_l4, pc.other);
	RPS_CTR_ADD(st->pkts_non_ip, pc.non_ip);
	RPS_CTR_ADD(st->pkts_fragment, pc.frag);
	return kept;
}
