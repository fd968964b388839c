/* SPDX-License-Identifier: BSD-3-Clause */
/* validate.c: the validate stage: IP lengths, checksums and TTL; trims Ethernet padding. */
#include <stddef.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf_ptype.h>

#include "rps_cksum.h"
#include "rps_l4.h"
#include "rps_stage.h"

/*
 * Runs after parse, whose layout (l2_len, l3_len, l4_len, packet_type) it trusts only as far
 * as offsets go: every byte is still read through rte_pktmbuf_read(), so a multi-segment
 * mbuf or a header split across segments is handled and nothing past pkt_len is read.
 *
 * Per IP packet, in this order (the first failure is the drop reason):
 *   IPv4: version (bad_version), IHL (bad_ihl), ihl*4 <= total_length <= bytes after L2
 *         (bad_length), header checksum (bad_ip_checksum), TTL 0 (ttl_zero).
 *   IPv6: version (bad_version), 40 + payload_len <= bytes after L2 and the extension chain
 *         inside the payload (bad_length; a jumbogram, payload_len 0 with a hop-by-hop
 *         option, is not supported and lands here too), hop limit 0 (ttl_zero).
 *   Then the frame is cut to the IP length (Ethernet padding removed, pkt_len exact, segments
 *   past the end freed), and for TCP and UDP that are not fragments the checksum is checked
 *   (bad_l4_checksum). UDP checksum 0 means "none" over IPv4 and is invalid over IPv6.
 *   Because the lengths are consistent once this stage passes a packet, parse's check that
 *   the transport header lies inside the IP datagram holds as well.
 *
 * Checksums: RTE_MBUF_F_RX_IP_CKSUM_* and RTE_MBUF_F_RX_L4_CKSUM_* from the PMD are trusted
 * when present (GOOD and NONE pass, BAD drops; each counts cksum_hw); UNKNOWN is verified in
 * software (each counts cksum_sw, whatever the outcome). The IPv6 pseudo-header uses the
 * upper-layer length and protocol after the extension chain and, while a routing header
 * has segments left, the final destination from it (types 0, 2 and 4); a packet in transit
 * with another routing type cannot be checked and passes uncounted. UDP checksum 0 over IPv6
 * is refused even for the tunnel exceptions of RFC 6935, which this stage cannot recognise.
 *
 * Fragments: the IP header is checked, the L4 checksum is not (it covers the whole
 * datagram). The reassemble stage runs after this one and calls this stage on each datagram
 * it completes (rps_reasm_set_check_l4()), which checks the whole datagram's checksum.
 *
 * Non-IP frames pass untouched.
 */

#define KEEP (-1)

struct validate_counts {
	uint32_t hw, sw;
};

/* Cut the packet to @p len bytes (0 < len), freeing the segments that lie wholly past it. */
static inline void
trim_to(struct rte_mbuf *m, uint32_t len)
{
	struct rte_mbuf *seg = m, *rest;
	uint32_t off = 0;
	uint16_t nb = 1;

	if (len >= rte_pktmbuf_pkt_len(m))
		return;
	while (off + seg->data_len < len && seg->next != NULL) {
		off += seg->data_len;
		seg = seg->next;
		nb++;
	}
	if (off + seg->data_len < len)
		return; /* pkt_len larger than its segments: not ours to repair */
	seg->data_len = (uint16_t)(len - off);
	rest = seg->next;
	seg->next = NULL;
	m->nb_segs = nb;
	m->pkt_len = len;
	while (rest != NULL) {
		struct rte_mbuf *next = rest->next;

		rte_pktmbuf_free_seg(rest);
		rest = next;
	}
}

static inline uint16_t
fold16(uint32_t s)
{
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/*
 * One's-complement sum (folded, not complemented) of bytes [off, off + len) of @p m, in the
 * same native byte order as rte_raw_cksum(); -1 when the packet is shorter.
 *
 * Not rte_raw_cksum_mbuf() (and so not rte_ipv{4,6}_udptcp_cksum_mbuf_verify()): in DPDK
 * 22.11 it byte-swaps the partial sum of a segment that starts at an odd offset after
 * truncating it to 16 bits (rte_bswap16((uint16_t)tmp)), losing its carries, so a correct
 * packet split at an odd offset fails verification. Here each part is folded first.
 */
static inline int32_t
cksum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	const struct rte_mbuf *seg = m;
	uint32_t sum = 0, done = 0;

	if (off + len <= rte_pktmbuf_data_len(m))
		return rps_raw_cksum(rte_pktmbuf_mtod_offset(m, const void *, off), len);
	if (off + len > rte_pktmbuf_pkt_len(m))
		return -1;
	while (seg != NULL && off >= seg->data_len) {
		off -= seg->data_len;
		seg = seg->next;
	}
	while (done < len) {
		uint32_t n;
		uint16_t part;

		if (seg == NULL)
			return -1; /* segments shorter than pkt_len */
		n = RTE_MIN((uint32_t)seg->data_len - off, len - done);
		part = rps_raw_cksum(rte_pktmbuf_mtod_offset(seg, const void *, off), n);
		/* a part that starts at an odd position has its bytes in the other lanes */
		sum += (done & 1) ? rte_bswap16(part) : part;
		done += n;
		seg = seg->next;
		off = 0;
	}
	return fold16(sum);
}

/*
 * The pseudo-header's share of a TCP/UDP checksum (folded, native order, as
 * rte_ipv{4,6}_phdr_cksum()): the two addresses (@p addrs, 8 or 32 bytes, source then
 * destination), the upper-layer length and protocol. The length and protocol, as 16-bit
 * words in network order, add what the 32-bit zero/protocol/length words do (RFC 1071: the
 * sum does not depend on the word size); no struct is built.
 */
/* Source then destination address of an IPv4 (8 bytes) or IPv6 (32 bytes) header. */
#define IP4_ADDRS(ip) ((const uint8_t *)(ip) + offsetof(struct rte_ipv4_hdr, src_addr))
#define IP6_ADDRS(ip) ((const uint8_t *)(ip) + offsetof(struct rte_ipv6_hdr, src_addr))

static inline uint16_t
phdr_sum(const void *addrs, size_t alen2, uint32_t l4_len, uint8_t proto)
{
	return fold16((uint32_t)rps_raw_cksum(addrs, alen2) +
		      rte_cpu_to_be_16((uint16_t)l4_len) + rte_cpu_to_be_16((uint16_t)proto));
}

/* Whether the TCP/UDP checksum over @p len bytes at @p off, plus the pseudo-header sum
 * @p phdr, is correct (the sum over everything, checksum field included, is 0xffff). */
static inline int
l4_cksum_ok(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint16_t phdr)
{
	int32_t raw = cksum_mbuf(m, off, len);

	return raw >= 0 && fold16((uint32_t)raw + phdr) == 0xffff;
}

/*
 * The PMD's verdict on the L4 checksum: KEEP (verified good), a drop reason (verified bad),
 * or 0 when it has none and software must check.
 */
static inline int
l4_hw_verdict(const struct rte_mbuf *m, struct validate_counts *vc)
{
	uint64_t f = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;

	if (f == RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN)
		return 0;
	vc->hw++;
	return f == RTE_MBUF_F_RX_L4_CKSUM_BAD ? RPS_DROP_BAD_L4_CHECKSUM : KEEP;
}

/* The UDP checksum field of a packet whose UDP header is at @p off; -1 if cut short. */
static inline int
udp_cksum_field(const struct rte_mbuf *m, uint32_t off)
{
	uint8_t b[2];
	const uint8_t *p = rte_pktmbuf_read(m, off + 6, 2, b);

	return p == NULL ? -1 : (p[0] << 8 | p[1]);
}

static inline int
validate_ipv4(struct rte_mbuf *m, struct validate_counts *vc)
{
	const uint32_t l2 = m->l2_len, l3 = m->l3_len, len = rte_pktmbuf_pkt_len(m);
	const uint32_t l4t = m->packet_type & RTE_PTYPE_L4_MASK;
	uint8_t buf[60];
	const struct rte_ipv4_hdr *ip;
	uint32_t tot;
	uint64_t f;
	int rc;

	if (l3 < 20 || l3 > 60)
		return RPS_DROP_BAD_IHL; /* parse never records that */
	ip = rte_pktmbuf_read(m, l2, l3, buf);
	if (ip == NULL)
		return RPS_DROP_TRUNCATED;
	if ((ip->version_ihl >> 4) != 4)
		return RPS_DROP_BAD_VERSION;
	if (rte_ipv4_hdr_len(ip) != l3)
		return RPS_DROP_BAD_IHL;
	tot = rte_be_to_cpu_16(ip->total_length);
	if (tot < l3 || tot > len - l2)
		return RPS_DROP_BAD_LENGTH;
	f = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
	if (f == RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN) {
		vc->sw++;
		/* the sum over a correct header, checksum included, is 0xffff */
		if (rps_raw_cksum(ip, l3) != 0xffff)
			return RPS_DROP_BAD_IP_CHECKSUM;
	} else {
		vc->hw++;
		if (f == RTE_MBUF_F_RX_IP_CKSUM_BAD)
			return RPS_DROP_BAD_IP_CHECKSUM;
	}
	if (ip->time_to_live == 0)
		return RPS_DROP_TTL_ZERO;
	/* ip points below the cut (into buf or the kept segments): still valid after it */
	trim_to(m, l2 + tot);

	if (l4t != RTE_PTYPE_L4_TCP && l4t != RTE_PTYPE_L4_UDP)
		return KEEP; /* fragments (L4_FRAG), ICMP, other protocols */
	rc = l4_hw_verdict(m, vc);
	if (rc != 0)
		return rc;
	if (l4t == RTE_PTYPE_L4_UDP) {
		int ck = udp_cksum_field(m, l2 + l3);

		if (ck < 0)
			return RPS_DROP_TRUNCATED; /* parse never passes that */
		if (ck == 0)
			return KEEP; /* RFC 768: no checksum was computed */
	}
	vc->sw++;
	if (!l4_cksum_ok(m, l2 + l3, tot - l3,
			 phdr_sum(IP4_ADDRS(ip), 8, tot - l3, ip->next_proto_id)))
		return RPS_DROP_BAD_L4_CHECKSUM;
	return KEEP;
}

/*
 * The destination address of the IPv6 pseudo-header (RFC 8200 8.1) is the final one: with a
 * routing header that still has segments left, the last address of its list (types 0 and 2)
 * or Segment List[0] (type 4, SRv6, RFC 8754). Walks the chain of @p l3 bytes at @p l2 whose
 * first next-header is @p nh and overwrites @p dst when it finds such a header.
 * @return 0, or -1 when the final destination cannot be determined (other routing types).
 */
static int
pseudo_dst(const struct rte_mbuf *m, uint32_t l2, uint32_t l3, uint8_t nh, uint8_t *dst)
{
	for (uint32_t off = 40; off < l3;) {
		uint8_t eb[4], ab[16];
		const uint8_t *e = rte_pktmbuf_read(m, l2 + off, 4, eb), *a;
		uint32_t elen, aoff;

		if (e == NULL)
			return -1;
		elen = rps_ip6_ext_len(nh, e);
		if (elen == 0)
			return -1; /* parse never passes that */
		if (nh == RPS_IP6_ROUTING && e[3] != 0) {
			if (e[1] < 2)
				return -1; /* no address in it */
			if (e[2] == 0 || e[2] == 2)
				aoff = 8 + (uint32_t)(e[1] / 2 - 1) * 16;
			else if (e[2] == 4)
				aoff = 8;
			else
				return -1;
			a = rte_pktmbuf_read(m, l2 + off + aoff, 16, ab);
			if (a == NULL)
				return -1;
			memcpy(dst, a, 16);
			return 0;
		}
		off += elen;
		nh = e[0];
	}
	return 0;
}

static inline int
validate_ipv6(struct rte_mbuf *m, struct validate_counts *vc)
{
	const uint32_t l2 = m->l2_len, l3 = m->l3_len, len = rte_pktmbuf_pkt_len(m);
	const uint32_t l4t = m->packet_type & RTE_PTYPE_L4_MASK;
	uint8_t buf[40];
	const struct rte_ipv6_hdr *ip;
	struct rte_ipv6_hdr ph;
	uint32_t plen;
	int rc;

	if (l3 < 40)
		return RPS_DROP_BAD_HEADER; /* parse never records that */
	ip = rte_pktmbuf_read(m, l2, 40, buf);
	if (ip == NULL || l3 > len - l2)
		return RPS_DROP_TRUNCATED;
	if ((rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6)
		return RPS_DROP_BAD_VERSION;
	plen = rte_be_to_cpu_16(ip->payload_len);
	if (40 + plen > len - l2 || l3 > 40 + plen)
		return RPS_DROP_BAD_LENGTH;
	if (ip->hop_limits == 0)
		return RPS_DROP_TTL_ZERO;
	memcpy(&ph, ip, sizeof(ph));
	trim_to(m, l2 + 40 + plen);

	if (l4t != RTE_PTYPE_L4_TCP && l4t != RTE_PTYPE_L4_UDP)
		return KEEP;
	rc = l4_hw_verdict(m, vc);
	if (rc != 0)
		return rc;
	if (l4t == RTE_PTYPE_L4_UDP) {
		int ck = udp_cksum_field(m, l2 + l3);

		if (ck < 0)
			return RPS_DROP_TRUNCATED;
		if (ck == 0) {
			vc->sw++;
			return RPS_DROP_BAD_L4_CHECKSUM; /* RFC 8200 8.1: mandatory over IPv6 */
		}
	}
	/* pseudo-header: final destination, upper-layer length and protocol (not the IPv6
	 * header's own payload_len and next header when there are extension headers) */
	if (l3 > 40 && pseudo_dst(m, l2, l3, ph.proto, ph.dst_addr) < 0)
		return KEEP; /* cannot be checked: an unknown routing type in transit */
	vc->sw++;
	if (!l4_cksum_ok(m, l2 + l3, 40 + plen - l3,
			 phdr_sum(IP6_ADDRS(&ph), 32, 40 + plen - l3,
				  l4t == RTE_PTYPE_L4_TCP ? IPPROTO_TCP : IPPROTO_UDP)))
		return RPS_DROP_BAD_L4_CHECKSUM;
	return KEEP;
}

uint16_t
rps_stage_validate(struct rps_stage_ctx *c, struct rte_mbuf **pkts, uint16_t n)
{
	struct rps_lcore_stats *st = c->st;
	struct validate_counts vc = { 0, 0 };
	uint16_t kept = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint32_t pt = m->packet_type;
		int rc = KEEP;

		if (RTE_ETH_IS_IPV4_HDR(pt))
			rc = validate_ipv4(m, &vc);
		else if (RTE_ETH_IS_IPV6_HDR(pt))
			rc = validate_ipv6(m, &vc);
		if (likely(rc == KEEP))
			pkts[kept++] = m;
		else
			rps_stage_drop(c, m, (enum rps_drop_reason)rc);
	}
	RPS_CTR_ADD(st->cksum_hw, vc.hw);
	RPS_CTR_ADD(st->cksum_sw, vc.sw);
	return kept;
}
