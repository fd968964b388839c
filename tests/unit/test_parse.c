/* SPDX-License-Identifier: BSD-3-Clause */
/* test_parse.c: the parse stage (lib/stages/parse.c): layout, packet_type and counters. */
#include <stdio.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf_ptype.h>

#include "rps_hash.h"
#include "rps_stage.h"
#include "test_common.h"

/* Run the parse stage with a context whose counters are @p st. */
static uint16_t
parse_st(struct rte_mbuf **pkts, uint16_t n, struct rps_lcore_stats *st)
{
	struct rps_stage_ctx c = { .st = st };

	return rps_stage_parse(&c, pkts, n);
}

#define ETH_LEN 14

enum kind { K_TCP, K_UDP, K_OTHER, K_FRAG, K_NON_IP };

struct expect {
	uint8_t family; /* 4, 6 or 0 */
	enum kind kind;
	uint16_t l2_len, l3_len;
};

static void
check_ptype(const struct rte_mbuf *m, const struct expect *e, unsigned int idx)
{
	uint32_t pt = m->packet_type;
	uint32_t l4 = pt & RTE_PTYPE_L4_MASK;
	int ok = 1;

	if (e->family == 0) {
		ok = (pt & (RTE_PTYPE_L3_MASK | RTE_PTYPE_L4_MASK)) == 0;
	} else {
		uint32_t l2 = pt & RTE_PTYPE_L2_MASK;

		ok &= l2 == RTE_PTYPE_L2_ETHER || l2 == RTE_PTYPE_L2_ETHER_VLAN ||
		      l2 == RTE_PTYPE_L2_ETHER_QINQ;
		ok &= e->family == 4 ? RTE_ETH_IS_IPV4_HDR(pt) != 0 : RTE_ETH_IS_IPV6_HDR(pt) != 0;
		ok &= m->l2_len == e->l2_len;
		ok &= m->l3_len == e->l3_len;
		switch (e->kind) {
		case K_TCP:
			ok &= l4 == RTE_PTYPE_L4_TCP;
			break;
		case K_UDP:
			ok &= l4 == RTE_PTYPE_L4_UDP;
			break;
		case K_FRAG:
			ok &= l4 == RTE_PTYPE_L4_FRAG;
			break;
		default:
			ok &= l4 != RTE_PTYPE_L4_TCP && l4 != RTE_PTYPE_L4_UDP &&
			      l4 != RTE_PTYPE_L4_FRAG;
			break;
		}
	}
	CU_ASSERT_TRUE(ok);
	if (!ok)
		fprintf(stderr, "\n  packet %u: packet_type %#x l2 %u l3 %u, want family %u kind %d "
			"l2 %u l3 %u\n", idx, pt, m->l2_len, m->l3_len, e->family, e->kind,
			e->l2_len, e->l3_len);
}

static void
test_mixed_burst(void)
{
	enum { N = 16 };
	struct rte_mbuf *pkts[N];
	struct expect e[N];
	struct rps_lcore_stats st;
	uint8_t s6[16], d6[16];
	struct ut_pkt p;
	unsigned int n = 0;

	ut_ip6(s6, 0x77, 1);
	ut_ip6(d6, 0x88, 2);
#define ADD(pk, fam, k, l2, l3) do { \
		pkts[n] = ut_mbuf((pk)->b, (pk)->len); \
		CU_ASSERT_PTR_NOT_NULL_FATAL(pkts[n]); \
		e[n] = (struct expect){ fam, k, l2, l3 }; \
		n++; \
	} while (0)

	ut_pkt_v4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 1, 2);
	ADD(&p, 4, K_TCP, 14, 20);
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_UDP, 8, 0);
	ut_put_udp(&p, 53, 53);
	ut_pkt_finish(&p);
	ADD(&p, 4, K_UDP, 14, 28);
	ut_pkt_v4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_ICMP, 0x0800, 0);
	ADD(&p, 4, K_OTHER, 14, 20);
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_UDP, 0, RTE_IPV4_HDR_MF_FLAG);
	ut_put_udp(&p, 1, 2);
	ut_pkt_finish(&p);
	ADD(&p, 4, K_FRAG, 14, 20);
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 0, 100);
	ut_put(&p, NULL, 30);
	ut_pkt_finish(&p);
	ADD(&p, 4, K_FRAG, 14, 20);
	ut_pkt_v6(&p, 1, 2, IPPROTO_TCP, 1, 2);
	ADD(&p, 6, K_TCP, 14, 40);
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(&p, s6, d6, 0);
	ut_put_ipv6_ext(&p, IPPROTO_UDP, 0);
	ut_put_udp(&p, 1, 2);
	ut_pkt_finish(&p);
	ADD(&p, 6, K_UDP, 14, 48);
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(&p, s6, d6, 44);
	ut_put_ipv6_frag(&p, IPPROTO_TCP, 0, 1);
	ut_put_tcp(&p, 1, 2);
	ut_pkt_finish(&p);
	ADD(&p, 6, K_FRAG, 14, 48);
	ut_pkt_v6(&p, 1, 2, 58 /* ICMPv6 */, 0x8000, 0);
	ADD(&p, 6, K_OTHER, 14, 40);
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_ARP);
	ut_put(&p, NULL, 28);
	ADD(&p, 0, K_NON_IP, 0, 0);
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_VLAN);
	ut_put_vlan(&p, 10, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(&p, UT_IP4(3), UT_IP4(4), IPPROTO_TCP, 0, 0);
	ut_put_tcp(&p, 1, 2);
	ut_pkt_finish(&p);
	ADD(&p, 4, K_TCP, 18, 20);
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_QINQ);
	ut_put_vlan(&p, 20, RTE_ETHER_TYPE_VLAN);
	ut_put_vlan(&p, 10, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(&p, s6, d6, IPPROTO_UDP);
	ut_put_udp(&p, 1, 2);
	ut_pkt_finish(&p);
	ADD(&p, 6, K_UDP, 22, 40);
	/* truncated IPv4 header: not a flow, counted as non-IP */
	ut_pkt_v4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 1, 2);
	p.len = ETH_LEN + 10;
	ADD(&p, 0, K_NON_IP, 0, 0);
	/* an empty packet */
	p.len = 0;
	ADD(&p, 0, K_NON_IP, 0, 0);
#undef ADD
	/* a two-segment IPv6 packet, split inside the extension header */
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(&p, s6, d6, 60);
	ut_put_ipv6_ext(&p, IPPROTO_TCP, 1);
	ut_put_tcp(&p, 1, 2);
	ut_pkt_finish(&p);
	pkts[n] = ut_mbuf_split(p.b, p.len, ETH_LEN + 40 + 5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pkts[n]);
	e[n++] = (struct expect){ 6, K_TCP, 14, 56 };
	/* and a truncated IPv6 header, as an exact buffer */
	ut_pkt_v6(&p, 1, 2, IPPROTO_TCP, 1, 2);
	pkts[n] = ut_mbuf_exact(p.b, ETH_LEN + 39);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pkts[n]);
	e[n++] = (struct expect){ 0, K_NON_IP, 0, 0 };
	CU_ASSERT_EQUAL_FATAL(n, N);

	/* counters add to what is there; unrelated counters are untouched */
	memset(&st, 0, sizeof(st));
	st.pkts_ipv4 = 1000;
	st.pkts_non_ip = 7;
	st.rx_packets = 55;
	for (unsigned int i = 0; i < n; i++)
		pkts[i]->packet_type = 0xffffffff;
	parse_st(pkts, (uint16_t)n, &st);
	for (unsigned int i = 0; i < n; i++)
		check_ptype(pkts[i], &e[i], i);
	CU_ASSERT_EQUAL(st.pkts_ipv4, 1000 + 6);
	CU_ASSERT_EQUAL(st.pkts_ipv6, 6);
	CU_ASSERT_EQUAL(st.pkts_tcp, 4);
	CU_ASSERT_EQUAL(st.pkts_udp, 3);
	CU_ASSERT_EQUAL(st.pkts_fragment, 3);
	CU_ASSERT_EQUAL(st.pkts_other_l4, 2);
	CU_ASSERT_EQUAL(st.pkts_non_ip, 7 + 4);
	CU_ASSERT_EQUAL(st.rx_packets, 55);
	CU_ASSERT_EQUAL(st.processed, 0);
	CU_ASSERT_EQUAL(st.bytes, 0);
	CU_ASSERT_EQUAL(rps_stats_dropped_total(&st), 0);

	/* a second pass over the same burst counts again and gives the same layout */
	parse_st(pkts, (uint16_t)n, &st);
	for (unsigned int i = 0; i < n; i++)
		check_ptype(pkts[i], &e[i], i);
	CU_ASSERT_EQUAL(st.pkts_ipv4, 1000 + 12);
	CU_ASSERT_EQUAL(st.pkts_tcp, 8);
	CU_ASSERT_EQUAL(st.pkts_non_ip, 7 + 8);

	/* an empty burst changes nothing */
	parse_st(pkts, 0, &st);
	CU_ASSERT_EQUAL(st.pkts_ipv6, 12);

	for (unsigned int i = 0; i < n; i++)
		rte_pktmbuf_free(pkts[i]);
}

/*
 * An IPv6 header chain longer than the mbuf's 9-bit l3_len can hold (511): the mbuf must
 * never carry a silently truncated length. Either the real length, or none (0) and no
 * transport type, so that nothing downstream looks for TCP at the wrong offset.
 */
static void
test_l3_len_too_big(void)
{
	static const uint8_t ext_len[] = { 57, 58, 63, 255 }; /* 504, 512, 552, 2088 bytes */
	struct rps_lcore_stats st;
	uint8_t s6[16], d6[16];

	ut_ip6(s6, 0, 1);
	ut_ip6(d6, 0, 2);
	for (unsigned int i = 0; i < RTE_DIM(ext_len); i++) {
		uint16_t l3 = (uint16_t)(40 + (ext_len[i] + 1) * 8);
		struct ut_pkt p;
		struct rte_mbuf *m;
		uint8_t big[2200] = { 0 };
		uint16_t len;

		/* the builder holds 512 bytes: assemble header, big option, TCP by hand */
		ut_pkt_init(&p);
		ut_put_eth(&p, RTE_ETHER_TYPE_IPV6);
		ut_put_ipv6(&p, s6, d6, 60);
		memcpy(big, p.b, p.len);
		big[p.len] = IPPROTO_TCP;
		big[p.len + 1] = ext_len[i];
		len = (uint16_t)(ETH_LEN + l3);
		ut_pkt_init(&p);
		ut_put_tcp(&p, 1234, 80);
		memcpy(big + len, p.b, p.len);
		len = (uint16_t)(len + p.len);
		m = ut_mbuf_exact(big, len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		memset(&st, 0, sizeof(st));
		parse_st(&m, 1, &st);
		CU_ASSERT_EQUAL(st.pkts_ipv6, 1);
		CU_ASSERT_TRUE(RTE_ETH_IS_IPV6_HDR(m->packet_type));
		if (l3 < (1u << RTE_MBUF_L3_LEN_BITS)) {
			CU_ASSERT_EQUAL(m->l3_len, l3);
			CU_ASSERT_EQUAL(m->packet_type & RTE_PTYPE_L4_MASK, RTE_PTYPE_L4_TCP);
		} else {
			CU_ASSERT_TRUE(m->l3_len == 0 &&
				       (m->packet_type & RTE_PTYPE_L4_MASK) == 0);
			if (m->l3_len != 0)
				fprintf(stderr, "\n  IPv6 header of %u bytes recorded as l3_len %u\n",
					l3, m->l3_len);
		}
		rte_pktmbuf_free(m);
	}
}

/* Random short packets, biased towards IP so that the parser gets deep into them. */
static uint16_t
random_pkt(uint8_t *b, uint64_t *st)
{
	uint16_t len = (uint16_t)(ut_rand(st) % 61);
	uint64_t r = ut_rand(st);
	uint16_t off = ETH_LEN;

	for (uint16_t i = 0; i < len; i++)
		b[i] = (uint8_t)ut_rand(st);
	if (len < ETH_LEN)
		return len;
	switch (r & 7) {
	case 0: case 1: case 2:
		b[12] = 0x08, b[13] = 0x00;
		break;
	case 3: case 4:
		b[12] = 0x86, b[13] = 0xdd;
		break;
	case 5:
		b[12] = 0x81, b[13] = 0x00;
		if (len >= ETH_LEN + 4) {
			b[16] = (r & 8) ? 0x08 : 0x86;
			b[17] = (r & 8) ? 0x00 : 0xdd;
		}
		off = ETH_LEN + 4;
		break;
	default:
		break; /* random ethertype */
	}
	if (len > off && (r & 16)) {
		if (b[off - 2] == 0x08)
			b[off] = (uint8_t)(0x40 | (b[off] & 0x0f));
		else
			b[off] = (uint8_t)(0x60 | (b[off] & 0x0f));
	}
	/* IPv4 ihl 5 more often than chance */
	if (len > off && b[off - 2] == 0x08 && (r & 32))
		b[off] = 0x45;
	/* a transport protocol with ports, or an IPv6 extension header */
	if (len > off + 9 && (r & 64)) {
		static const uint8_t nh[] = { 6, 17, 0, 43, 44, 60, 132, 50, 1 };

		if (b[off - 2] == 0x08)
			b[off + 9] = nh[(r >> 8) % RTE_DIM(nh)];
		else if (len > off + 6)
			b[off + 6] = nh[(r >> 8) % RTE_DIM(nh)];
	}
	return len;
}

static void
test_random_short(void)
{
	enum { ROUNDS = 1000, BURST = 32 };
	uint64_t st = UINT64_C(0xfeedbeef12345678);
	struct rps_lcore_stats s;
	unsigned int total = 0, ip_seen = 0, mismatches = 0, bad_len = 0;

	memset(&s, 0, sizeof(s));
	for (unsigned int r = 0; r < ROUNDS; r++) {
		struct rte_mbuf *a[BURST], *b[BURST];
		struct rps_lcore_stats sb;

		memset(&sb, 0, sizeof(sb));
		for (unsigned int i = 0; i < BURST; i++) {
			uint8_t raw[64];
			uint16_t len = random_pkt(raw, &st);
			uint16_t split = len > 1 ? (uint16_t)(1 + ut_rand(&st) % (len - 1)) : 0;

			/* exact-size buffer: ASan catches any read past the end */
			a[i] = ut_mbuf_exact(raw, len);
			/* the same bytes in two segments, or a pool mbuf when too short to split */
			b[i] = split ? ut_mbuf_split(raw, len, split) : ut_mbuf(raw, len);
			CU_ASSERT_PTR_NOT_NULL_FATAL(a[i]);
			CU_ASSERT_PTR_NOT_NULL_FATAL(b[i]);
		}
		parse_st(a, BURST, &s);
		parse_st(b, BURST, &sb);
		total += BURST;
		for (unsigned int i = 0; i < BURST; i++) {
			struct rps_flow_key k;
			int rc = rps_flow_key_extract(a[i], &k);

			if (a[i]->packet_type != b[i]->packet_type)
				mismatches++;
			if (a[i]->packet_type != RTE_PTYPE_UNKNOWN &&
			    (a[i]->l2_len != b[i]->l2_len || a[i]->l3_len != b[i]->l3_len))
				mismatches++;
			/* the stage agrees with the key extraction */
			if ((rc == 0) != (RTE_ETH_IS_IPV4_HDR(a[i]->packet_type) ||
					  RTE_ETH_IS_IPV6_HDR(a[i]->packet_type)))
				mismatches++;
			if (rc == 0) {
				ip_seen++;
				if (a[i]->l2_len != k.l2_len ||
				    (k.l3_len < (1u << RTE_MBUF_L3_LEN_BITS) &&
				     a[i]->l3_len != k.l3_len))
					mismatches++;
				/* an IPv4 header was bounds-checked in full */
				if (k.family == 4 &&
				    (uint32_t)a[i]->l2_len + a[i]->l3_len > rte_pktmbuf_pkt_len(a[i]))
					bad_len++;
			}
		}
		rte_pktmbuf_free_bulk(a, BURST);
		rte_pktmbuf_free_bulk(b, BURST);
		/* same counters from both layouts */
		CU_ASSERT_EQUAL(sb.pkts_ipv4 + sb.pkts_ipv6 + sb.pkts_non_ip, BURST);
	}
	CU_ASSERT_EQUAL(mismatches, 0);
	CU_ASSERT_EQUAL(bad_len, 0);
	/* every packet counted exactly once at L3, every IP packet once at L4 */
	CU_ASSERT_EQUAL(s.pkts_ipv4 + s.pkts_ipv6 + s.pkts_non_ip, total);
	CU_ASSERT_EQUAL(s.pkts_tcp + s.pkts_udp + s.pkts_other_l4 + s.pkts_fragment,
			s.pkts_ipv4 + s.pkts_ipv6);
	CU_ASSERT_EQUAL(s.pkts_ipv4 + s.pkts_ipv6, ip_seen);
	/* the generator did reach the interesting cases */
	CU_ASSERT(s.pkts_ipv4 > 100);
	CU_ASSERT(s.pkts_ipv6 > 100);
	CU_ASSERT(s.pkts_non_ip > 100);
	CU_ASSERT(s.pkts_tcp + s.pkts_udp > 10);
	CU_ASSERT(s.pkts_fragment > 10);
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "mixed_burst", test_mixed_burst },
		{ "l3_len_too_big", test_l3_len_too_big },
		{ "random_short", test_random_short },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "parse", tests);
}
