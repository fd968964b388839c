/* SPDX-License-Identifier: BSD-3-Clause */
/* test_validate.c: the validate stage (lib/stages/validate.c), run after parse. */
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf_ptype.h>

#include "rps_cksum.h"
#include "rps_stage.h"
#include "test_common.h"

#define ETH_LEN 14
#define P_ICMP 1
#define P_AH 51
#define X_HOP 0
#define X_RT 43
#define X_FRAG 44
#define X_DST 60

#define IP_GOOD RTE_MBUF_F_RX_IP_CKSUM_GOOD
#define IP_BAD RTE_MBUF_F_RX_IP_CKSUM_BAD
#define IP_NONE RTE_MBUF_F_RX_IP_CKSUM_NONE
#define L4_GOOD RTE_MBUF_F_RX_L4_CKSUM_GOOD
#define L4_BAD RTE_MBUF_F_RX_L4_CKSUM_BAD
#define L4_NONE RTE_MBUF_F_RX_L4_CKSUM_NONE

/* ---- running the stages ---- */

/* What became of one packet. */
struct outcome {
	int kept;
	int reason;      /* the one drop reason counted, UT_NO_DROP, or -2 for several */
	int stage;       /* 0: dropped by parse, 1: validate ran */
	uint32_t pkt_len;
	uint16_t nb_segs;
	int consistent;  /* segment lengths add up to pkt_len, nb_segs is the chain's length */
	int same_bytes;  /* the kept bytes are the original's first pkt_len */
	uint64_t hw, sw; /* cksum_hw, cksum_sw */
};

static int
chain_consistent(const struct rte_mbuf *m)
{
	uint32_t sum = 0;
	uint16_t nb = 0;

	for (const struct rte_mbuf *s = m; s != NULL; s = s->next) {
		sum += s->data_len;
		nb++;
	}
	return sum == m->pkt_len && nb == m->nb_segs;
}

/* @p len bytes of @p b as one exact-size segment, or split at @p s1 (and @p s2 when not 0)
 * into exact-size segments. */
static struct rte_mbuf *
mk_mbuf(const uint8_t *b, uint16_t len, uint16_t s1, uint16_t s2)
{
	struct rte_mbuf *m, *tail;

	if (s1 == 0)
		return ut_mbuf_exact(b, len);
	if (s2 == 0)
		return ut_mbuf_split(b, len, s1);
	m = ut_mbuf_split(b, s2, s1);
	tail = ut_mbuf_exact(b + s2, (uint16_t)(len - s2));
	if (m == NULL || tail == NULL || rte_pktmbuf_chain(m, tail) != 0) {
		rte_pktmbuf_free(m);
		rte_pktmbuf_free(tail);
		return NULL;
	}
	return m;
}

/*
 * Parse and validate one packet (segments as for mk_mbuf(), RX offload flags @p ol), free
 * what is kept, and check that every segment went back to the pool.
 */
static struct outcome
run3(const uint8_t *b, uint16_t len, uint16_t s1, uint16_t s2, uint64_t ol)
{
	struct outcome o = { .reason = UT_NO_DROP };
	struct rps_lcore_stats st;
	unsigned int avail = ut_pool_avail();
	struct rte_mbuf *m = mk_mbuf(b, len, s1, s2);
	uint16_t n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	memset(&st, 0, sizeof(st));
	n = ut_stage_parse(&m, 1, &st);
	if (n == 1) {
		m->ol_flags |= ol;
		o.stage = 1;
		n = ut_stage_validate(&m, 1, &st);
	}
	o.kept = n == 1;
	o.reason = ut_drop_reason(&st);
	o.hw = st.cksum_hw;
	o.sw = st.cksum_sw;
	if (o.kept) {
		uint8_t copy[600];
		const void *d;

		o.pkt_len = rte_pktmbuf_pkt_len(m);
		o.nb_segs = m->nb_segs;
		o.consistent = chain_consistent(m);
		d = o.pkt_len <= sizeof(copy) ? rte_pktmbuf_read(m, 0, o.pkt_len, copy) : NULL;
		o.same_bytes = d != NULL && o.pkt_len <= len && memcmp(d, b, o.pkt_len) == 0;
		rte_pktmbuf_free(m);
	}
	CU_ASSERT_EQUAL(ut_pool_avail(), avail);
	return o;
}

static struct outcome
run(const uint8_t *b, uint16_t len, uint16_t split, uint64_t ol)
{
	return run3(b, len, split, 0, ol);
}

/* ---- building packets (checksums computed here, independently of DPDK) ---- */

/* The TCP/UDP checksum field offset within the transport header. */
static unsigned int
ck_at(uint8_t proto)
{
	return proto == IPPROTO_TCP ? 16 : 6;
}

/* Recompute the IPv4 header checksum after editing the header. */
static void
fix_ip4(struct ut_pkt *p)
{
	uint8_t *ip = p->b + p->l3_off;
	unsigned int ihl = (ip[0] & 0x0f) * 4u;
	uint16_t ck;

	ip[10] = ip[11] = 0;
	ck = (uint16_t)~ut_csum_fold(ut_csum_add(0, ip, ihl));
	ip[10] = (uint8_t)(ck >> 8);
	ip[11] = (uint8_t)ck;
}

static const uint8_t payload[32] = "the quick brown fox jumps over.";

/* Ethernet + IPv4 (+ @p opt) + TCP or UDP with @p plen payload bytes, checksums right. */
static void
pkt4(struct ut_pkt *p, uint8_t proto, uint8_t opt, uint16_t plen)
{
	ut_pkt_init(p);
	ut_put_eth(p, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(p, UT_IP4(10), UT_IP4(20), proto, opt, 0);
	ut_pkt_end(p, proto, 40000, proto == IPPROTO_TCP ? 443 : 53, payload, plen, NULL);
}

/* Ethernet + IPv6 from 2001:db8::10:0:1 to 2001:db8::20:0:2, next header @p nh. */
static void
start6(struct ut_pkt *p, uint8_t nh)
{
	uint8_t s6[16], d6[16];

	ut_ip6(s6, 0x10, 1);
	ut_ip6(d6, 0x20, 2);
	ut_pkt_init(p);
	ut_put_eth(p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(p, s6, d6, nh);
}

static void
pkt6(struct ut_pkt *p, uint8_t proto, uint16_t plen)
{
	start6(p, proto);
	ut_pkt_end(p, proto, 40000, proto == IPPROTO_TCP ? 443 : 53, payload, plen, NULL);
}

/* Make the transport checksum come out as 0 (so UDP sends 0xffff) by adjusting the first
 * payload word, then fill the checksum field. */
static void
make_cksum_zero(struct ut_pkt *p, uint8_t proto, unsigned int hdr_len)
{
	uint8_t *l4 = p->b + p->l4_off, *w = l4 + hdr_len;
	unsigned int at = ck_at(proto);
	uint16_t ck = (uint16_t)(l4[at] << 8 | l4[at + 1]), v;

	/* with field 0 the checksum is ck = ~S: adding ck to a word makes the sum 0xffff */
	v = ut_csum_fold((uint32_t)(w[0] << 8 | w[1]) + ck);
	w[0] = (uint8_t)(v >> 8);
	w[1] = (uint8_t)v;
	ut_fix_l4(p, proto, NULL);
}

/* Outcome of one packet, which must be the same for every two-segment split. */
static struct outcome
run_all_splits(const struct ut_pkt *p, uint64_t ol, unsigned int *differ)
{
	struct outcome o = run(p->b, p->len, 0, ol);

	for (uint16_t s = 1; s < p->len; s++) {
		struct outcome x = run(p->b, p->len, s, ol);

		if (x.kept != o.kept || x.reason != o.reason || x.stage != o.stage ||
		    x.pkt_len != o.pkt_len || x.hw != o.hw || x.sw != o.sw ||
		    x.same_bytes != o.same_bytes || (x.kept && !x.consistent)) {
			if ((*differ)++ < 5)
				fprintf(stderr, "\n  split %u: kept %d reason %d sw %lu, unsplit: kept %d "
					"reason %d sw %lu\n", s, x.kept, x.reason,
					(unsigned long)x.sw, o.kept, o.reason, (unsigned long)o.sw);
		}
	}
	return o;
}

/* ---- tests ---- */

struct good {
	const char *name;
	struct ut_pkt p;
	uint64_t sw; /* software checksums expected */
};

/* Correct packets with valid checksums pass both stages untouched, exact and split at every
 * offset; the software checksum count is exact. */
static void
test_good_packets(void)
{
	static struct good g[24];
	unsigned int n = 0, differ = 0;
	uint8_t s6[16], d6[16], fin[16];
	struct ut_pkt *p;

	ut_ip6(s6, 0x10, 1);
	ut_ip6(d6, 0x20, 2);
#define G(nm, s) (g[n].name = (nm), g[n].sw = (s), p = &g[n++].p)
	G("v4_tcp", 2);
	pkt4(p, IPPROTO_TCP, 0, 31);
	G("v4_udp", 2);
	pkt4(p, IPPROTO_UDP, 0, 12);
	G("v4_options_udp_odd", 2);
	pkt4(p, IPPROTO_UDP, 20, 5);
	G("v4_udp_zero_cksum", 1); /* "no checksum": only the IP header is verified */
	pkt4(p, IPPROTO_UDP, 0, 9);
	p->b[p->l4_off + 6] = p->b[p->l4_off + 7] = 0;
	G("v4_udp_cksum_ffff", 2);
	pkt4(p, IPPROTO_UDP, 0, 16);
	make_cksum_zero(p, IPPROTO_UDP, 8);
	G("v4_tcp_cksum_0", 2);
	pkt4(p, IPPROTO_TCP, 0, 16);
	make_cksum_zero(p, IPPROTO_TCP, 20);
	G("v4_icmp", 1);
	ut_pkt_v4(p, UT_IP4(1), UT_IP4(2), P_ICMP, 0x0800, 0);
	G("v4_gre_bad_payload_sum", 1);
	ut_pkt_v4(p, UT_IP4(1), UT_IP4(2), 47, 0, 0);
	G("v6_tcp", 1);
	pkt6(p, IPPROTO_TCP, 31);
	G("v6_udp", 1);
	pkt6(p, IPPROTO_UDP, 1);
	G("v6_udp_cksum_ffff", 1);
	pkt6(p, IPPROTO_UDP, 16);
	make_cksum_zero(p, IPPROTO_UDP, 8);
	G("vlan_v6_udp", 1);
	ut_pkt_init(p);
	ut_put_eth(p, RTE_ETHER_TYPE_VLAN);
	ut_put_vlan(p, 5, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(p, s6, d6, IPPROTO_UDP);
	ut_pkt_end(p, IPPROTO_UDP, 1, 2, payload, 17, NULL);
	G("qinq_v4_tcp", 2);
	ut_pkt_init(p);
	ut_put_eth(p, RTE_ETHER_TYPE_QINQ);
	ut_put_vlan(p, 5, RTE_ETHER_TYPE_VLAN);
	ut_put_vlan(p, 6, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(p, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 8, 0);
	ut_pkt_end(p, IPPROTO_TCP, 1, 2, payload, 3, NULL);
	/* the pseudo-header's length and protocol are the upper layer's, not the IPv6 header's */
	G("v6_hbh_dst_ah_udp", 1);
	start6(p, X_HOP);
	ut_put_ipv6_ext(p, X_DST, 1);
	ut_put_ipv6_ext(p, P_AH, 0);
	ut_put_ah(p, IPPROTO_UDP, 4);
	ut_pkt_end(p, IPPROTO_UDP, 1, 2, payload, 20, NULL);
	/* SRv6 in transit: the pseudo-header carries the final destination, Segment List[0] */
	G("v6_srh_segments_left_tcp", 1);
	start6(p, X_RT);
	memcpy(fin, ut_put_rh(p, IPPROTO_TCP, 4, 2, 3) + 8, 16);
	ut_pkt_end(p, IPPROTO_TCP, 1, 2, payload, 6, fin);
	/* type 0 and type 2: the last address of the list */
	G("v6_rh0_segments_left_udp", 1);
	start6(p, X_HOP);
	ut_put_ipv6_ext(p, X_RT, 0);
	memcpy(fin, ut_put_rh(p, IPPROTO_UDP, 0, 1, 2) + 8 + 16, 16);
	ut_pkt_end(p, IPPROTO_UDP, 1, 2, payload, 6, fin);
	G("v6_rh2_udp", 1);
	start6(p, X_RT);
	memcpy(fin, ut_put_rh(p, IPPROTO_UDP, 2, 1, 1) + 8, 16);
	ut_pkt_end(p, IPPROTO_UDP, 1, 2, payload, 6, fin);
	/* no segments left: the destination field is the final one */
	G("v6_srh_arrived_tcp", 1);
	start6(p, X_RT);
	ut_put_rh(p, IPPROTO_TCP, 4, 0, 2);
	ut_pkt_end(p, IPPROTO_TCP, 1, 2, NULL, 0, NULL);
	/* an atomic fragment is a whole packet: its checksum is verified */
	G("v6_atomic_fragment_udp", 1);
	start6(p, X_FRAG);
	ut_put_ipv6_frag(p, IPPROTO_UDP, 0, 0);
	ut_pkt_end(p, IPPROTO_UDP, 1, 2, payload, 3, NULL);
	G("arp", 0);
	ut_pkt_init(p);
	ut_put_eth(p, RTE_ETHER_TYPE_ARP);
	ut_put(p, payload, 28);
#undef G
	CU_ASSERT_FATAL(n <= RTE_DIM(g));

	for (unsigned int i = 0; i < n; i++) {
		unsigned int d = 0;
		struct outcome o = run_all_splits(&g[i].p, 0, &d);
		int ok = o.kept && o.reason == UT_NO_DROP && o.pkt_len == g[i].p.len &&
			 o.same_bytes && o.consistent && o.sw == g[i].sw && o.hw == 0 && d == 0;

		CU_ASSERT_TRUE(ok);
		if (!ok)
			fprintf(stderr, "\n  %s: kept %d reason %d len %u/%u sw %lu (want %lu) "
				"split differences %u\n", g[i].name, o.kept, o.reason, o.pkt_len,
				g[i].p.len, (unsigned long)o.sw, (unsigned long)g[i].sw, d);
		differ += d;
	}
	CU_ASSERT_EQUAL(differ, 0);
}

/* One packet, exact and split at every offset: validate drops it as @p reason. */
static void
expect_drop(const char *name, const struct ut_pkt *p, uint64_t ol, int reason)
{
	unsigned int d = 0;
	struct outcome o = run_all_splits(p, ol, &d);
	int ok = !o.kept && o.stage == 1 && o.reason == reason && d == 0;

	CU_ASSERT_TRUE(ok);
	if (!ok)
		fprintf(stderr, "\n  %s: kept %d stage %d reason %s (want %s), %u splits differ\n",
			name, o.kept, o.stage,
			o.reason >= 0 ? rps_drop_name((enum rps_drop_reason)o.reason) : "-",
			rps_drop_name((enum rps_drop_reason)reason), d);
}

static void
test_bad_fields(void)
{
	struct ut_pkt p;
	uint8_t *ip;

	/* IPv4 total length */
	pkt4(&p, IPPROTO_TCP, 0, 10);
	ip = p.b + p.l3_off;
	ip[2] = 0, ip[3] = (uint8_t)(p.len - ETH_LEN + 1);
	fix_ip4(&p);
	expect_drop("v4 total length one too big", &p, 0, RPS_DROP_BAD_LENGTH);
	ip[2] = 0x40, ip[3] = 0;
	fix_ip4(&p);
	expect_drop("v4 total length 16384", &p, 0, RPS_DROP_BAD_LENGTH);
	ip[2] = 0, ip[3] = 19;
	fix_ip4(&p);
	expect_drop("v4 total length 19", &p, 0, RPS_DROP_BAD_LENGTH);
	ip[2] = 0, ip[3] = 0;
	fix_ip4(&p);
	expect_drop("v4 total length 0", &p, 0, RPS_DROP_BAD_LENGTH);
	pkt4(&p, IPPROTO_UDP, 8, 10);
	ip = p.b + p.l3_off;
	ip[2] = 0, ip[3] = 24; /* below ihl * 4 = 28 */
	fix_ip4(&p);
	expect_drop("v4 total length below the options", &p, 0, RPS_DROP_BAD_LENGTH);
	/* length errors come before checksum errors */
	ip[10] ^= 0xff;
	expect_drop("v4 bad length and checksum", &p, 0, RPS_DROP_BAD_LENGTH);

	/* IPv4 header checksum, also over options */
	pkt4(&p, IPPROTO_TCP, 0, 10);
	p.b[p.l3_off + 10] ^= 0x01;
	expect_drop("v4 header checksum", &p, 0, RPS_DROP_BAD_IP_CHECKSUM);
	pkt4(&p, IPPROTO_UDP, 12, 10);
	p.b[p.l3_off + 20 + 11] = 0; /* an option byte changed after the checksum */
	expect_drop("v4 options under the checksum", &p, 0, RPS_DROP_BAD_IP_CHECKSUM);

	/* TTL and hop limit */
	pkt4(&p, IPPROTO_UDP, 0, 10);
	p.b[p.l3_off + 8] = 0;
	fix_ip4(&p);
	expect_drop("v4 ttl 0", &p, 0, RPS_DROP_TTL_ZERO);
	p.b[p.l3_off + 8] = 1;
	fix_ip4(&p);
	CU_ASSERT_TRUE(run(p.b, p.len, 0, 0).kept);
	p.b[p.l3_off + 8] = 0; /* TTL 0 and a stale checksum: the checksum is seen first */
	expect_drop("v4 ttl 0 stale checksum", &p, 0, RPS_DROP_BAD_IP_CHECKSUM);
	pkt6(&p, IPPROTO_TCP, 10);
	p.b[p.l3_off + 7] = 0;
	expect_drop("v6 hop limit 0", &p, 0, RPS_DROP_TTL_ZERO);

	/* IPv6 payload length */
	pkt6(&p, IPPROTO_UDP, 10);
	p.b[p.l3_off + 5]++;
	expect_drop("v6 payload length one too big", &p, 0, RPS_DROP_BAD_LENGTH);
	p.b[p.l3_off + 4] = 0xff;
	expect_drop("v6 payload length 65k", &p, 0, RPS_DROP_BAD_LENGTH);
	/* an extension chain longer than the payload */
	start6(&p, X_DST);
	ut_put_ipv6_ext(&p, 59, 1);
	ut_pkt_finish(&p);
	p.b[p.l3_off + 5] = 8;
	expect_drop("v6 chain past payload length", &p, 0, RPS_DROP_BAD_LENGTH);
	/* a jumbogram (RFC 2675): payload length 0 and a hop-by-hop jumbo option: refused */
	start6(&p, X_HOP);
	{
		static const uint8_t hbh[8] = { IPPROTO_UDP, 0, 0xc2, 4, 0, 0, 0, 8 + 8 + 4 };

		ut_put(&p, hbh, sizeof(hbh));
	}
	ut_put_udp(&p, 1, 2);
	ut_put(&p, payload, 4);
	ut_pkt_finish(&p);
	ut_fix_l4(&p, IPPROTO_UDP, NULL);
	p.b[p.l3_off + 4] = p.b[p.l3_off + 5] = 0;
	expect_drop("v6 jumbogram", &p, 0, RPS_DROP_BAD_LENGTH);
	/* payload length 0 with no next header is a whole (empty) packet */
	start6(&p, 59);
	ut_pkt_finish(&p);
	CU_ASSERT_TRUE(run(p.b, p.len, 0, 0).kept);

	/* TCP and UDP checksums over IPv4 and IPv6 */
	for (int v6 = 0; v6 < 2; v6++) {
		static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP };

		for (unsigned int k = 0; k < RTE_DIM(protos); k++) {
			uint8_t proto = protos[k];
			char name[64];

			if (v6)
				pkt6(&p, proto, 11);
			else
				pkt4(&p, proto, 4, 11);
			p.b[p.len - 1] ^= 0x20; /* a payload byte */
			snprintf(name, sizeof(name), "v%d proto %u payload", v6 ? 6 : 4, proto);
			expect_drop(name, &p, 0, RPS_DROP_BAD_L4_CHECKSUM);
			p.b[p.len - 1] ^= 0x20;
			p.b[p.l4_off + ck_at(proto)] ^= 0x80; /* the checksum itself */
			snprintf(name, sizeof(name), "v%d proto %u checksum", v6 ? 6 : 4, proto);
			expect_drop(name, &p, 0, RPS_DROP_BAD_L4_CHECKSUM);
			p.b[p.l4_off + ck_at(proto)] ^= 0x80;
			p.b[p.l4_off] ^= 0x01; /* a port */
			snprintf(name, sizeof(name), "v%d proto %u port", v6 ? 6 : 4, proto);
			expect_drop(name, &p, 0, RPS_DROP_BAD_L4_CHECKSUM);
			p.b[p.l4_off] ^= 0x01;
			CU_ASSERT_TRUE(run(p.b, p.len, 0, 0).kept);
		}
	}
	/* the pseudo-header covers the addresses */
	pkt4(&p, IPPROTO_TCP, 0, 8);
	p.b[p.l3_off + 15] ^= 1;
	fix_ip4(&p);
	expect_drop("v4 source address under the tcp checksum", &p, 0, RPS_DROP_BAD_L4_CHECKSUM);
	pkt6(&p, IPPROTO_UDP, 8);
	p.b[p.l3_off + 39] ^= 1;
	expect_drop("v6 destination under the udp checksum", &p, 0, RPS_DROP_BAD_L4_CHECKSUM);

	/* UDP checksum 0: "none" over IPv4, invalid over IPv6 */
	pkt4(&p, IPPROTO_UDP, 0, 8);
	p.b[p.l4_off + 6] = p.b[p.l4_off + 7] = 0;
	p.b[p.len - 1] ^= 0x55; /* nothing covers the payload then */
	CU_ASSERT_TRUE(run(p.b, p.len, 0, 0).kept);
	CU_ASSERT_EQUAL(run(p.b, p.len, 0, 0).sw, 1);
	pkt6(&p, IPPROTO_UDP, 8);
	p.b[p.l4_off + 6] = p.b[p.l4_off + 7] = 0;
	expect_drop("v6 udp checksum 0", &p, 0, RPS_DROP_BAD_L4_CHECKSUM);

	/* SRv6 in transit, checksum over the header's destination instead of the final one */
	start6(&p, X_RT);
	ut_put_rh(&p, IPPROTO_UDP, 4, 1, 2);
	ut_put_udp(&p, 1, 2);
	ut_put(&p, payload, 4);
	ut_pkt_finish(&p);
	ut_fix_l4(&p, IPPROTO_UDP, NULL);
	expect_drop("v6 srh checksum against the wrong destination", &p, 0,
		    RPS_DROP_BAD_L4_CHECKSUM);
	/* ... an unknown routing type (3, RPL) in transit cannot be checked and passes */
	p.b[p.l3_off + 40 + 2] = 3;
	{
		struct outcome o = run(p.b, p.len, 0, 0);

		CU_ASSERT_TRUE(o.kept);
		CU_ASSERT_EQUAL(o.sw, 0);
	}
}

/* Validate given a layout that parse never records (bypassing it): still no crash, the
 * header fields are checked again. */
static void
test_without_parse(void)
{
	struct rps_lcore_stats st;
	struct ut_pkt p;
	struct rte_mbuf *m[4];
	unsigned int avail = ut_pool_avail();

	pkt4(&p, IPPROTO_TCP, 0, 10);
	p.b[p.l3_off] = 0x65; /* version 6 behind an IPv4 layout */
	m[0] = ut_mbuf_exact(p.b, p.len);
	p.b[p.l3_off] = 0x46; /* ihl 6 against l3_len 20 */
	m[1] = ut_mbuf_exact(p.b, p.len);
	pkt6(&p, IPPROTO_UDP, 10);
	p.b[p.l3_off] = 0x40;
	m[2] = ut_mbuf_exact(p.b, p.len);
	m[3] = ut_mbuf_exact(p.b, 30); /* IPv6 layout, header cut */
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_PTR_NOT_NULL_FATAL(m[i]);
		m[i]->l2_len = ETH_LEN;
		m[i]->l3_len = i < 2 ? 20 : 40;
		m[i]->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L4_TCP |
				    (i < 2 ? RTE_PTYPE_L3_IPV4 : RTE_PTYPE_L3_IPV6);
	}
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(ut_stage_validate(m, 4, &st), 0);
	CU_ASSERT_EQUAL(st.dropped[RPS_DROP_BAD_VERSION], 2);
	CU_ASSERT_EQUAL(st.dropped[RPS_DROP_BAD_IHL], 1);
	CU_ASSERT_EQUAL(st.dropped[RPS_DROP_TRUNCATED], 1);
	CU_ASSERT_EQUAL(rps_stats_dropped_total(&st), 4);
	CU_ASSERT_EQUAL(ut_pool_avail(), avail);
}

/* RTE_MBUF_F_RX_*_CKSUM_* from the PMD are trusted; UNKNOWN is checked in software. */
static void
test_offload_flags(void)
{
	static const struct {
		uint64_t ol;
		int ip_ok, l4_ok; /* whether the packet's own checksums are right */
		int reason;
		uint64_t hw, sw;
	} c[] = {
		{ 0, 1, 1, UT_NO_DROP, 0, 2 },
		{ 0, 0, 1, RPS_DROP_BAD_IP_CHECKSUM, 0, 1 },
		{ 0, 1, 0, RPS_DROP_BAD_L4_CHECKSUM, 0, 2 },
		{ IP_GOOD | L4_GOOD, 0, 0, UT_NO_DROP, 2, 0 },
		{ IP_NONE | L4_NONE, 0, 0, UT_NO_DROP, 2, 0 },
		{ IP_GOOD, 1, 0, RPS_DROP_BAD_L4_CHECKSUM, 1, 1 },
		{ IP_GOOD, 0, 1, UT_NO_DROP, 1, 1 },
		{ L4_GOOD, 0, 0, RPS_DROP_BAD_IP_CHECKSUM, 0, 1 },
		{ L4_GOOD, 1, 0, UT_NO_DROP, 1, 1 },
		{ IP_BAD | L4_GOOD, 1, 1, RPS_DROP_BAD_IP_CHECKSUM, 1, 0 },
		{ IP_BAD, 1, 1, RPS_DROP_BAD_IP_CHECKSUM, 1, 0 },
		{ IP_GOOD | L4_BAD, 1, 1, RPS_DROP_BAD_L4_CHECKSUM, 2, 0 },
		{ L4_BAD, 1, 1, RPS_DROP_BAD_L4_CHECKSUM, 1, 1 },
	};

	for (unsigned int i = 0; i < RTE_DIM(c); i++) {
		for (int udp = 0; udp < 2; udp++) {
			uint8_t proto = udp ? IPPROTO_UDP : IPPROTO_TCP;
			struct ut_pkt p;
			struct outcome o;

			pkt4(&p, proto, 0, 13);
			if (!c[i].ip_ok)
				p.b[p.l3_off + 11] ^= 0x10;
			if (!c[i].l4_ok)
				p.b[p.l4_off + ck_at(proto)] ^= 0x10;
			o = run(p.b, p.len, 0, c[i].ol);
			CU_ASSERT_EQUAL(o.reason, c[i].reason);
			CU_ASSERT_EQUAL(o.hw, c[i].hw);
			CU_ASSERT_EQUAL(o.sw, c[i].sw);
			if (o.reason != c[i].reason || o.hw != c[i].hw || o.sw != c[i].sw)
				fprintf(stderr, "\n  case %u udp %d: reason %d hw %lu sw %lu\n", i, udp,
					o.reason, (unsigned long)o.hw, (unsigned long)o.sw);

			/* IPv6 has no header checksum: only the L4 flags count */
			if (c[i].ip_ok) {
				int want = (c[i].ol & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
					   L4_BAD ? RPS_DROP_BAD_L4_CHECKSUM :
					   (c[i].ol & RTE_MBUF_F_RX_L4_CKSUM_MASK) != 0 ? UT_NO_DROP :
					   c[i].l4_ok ? UT_NO_DROP : RPS_DROP_BAD_L4_CHECKSUM;

				pkt6(&p, proto, 13);
				if (!c[i].l4_ok)
					p.b[p.l4_off + ck_at(proto)] ^= 0x10;
				o = run(p.b, p.len, 0, c[i].ol);
				CU_ASSERT_EQUAL(o.reason, want);
				CU_ASSERT_EQUAL(o.hw + o.sw, 1);
			}
		}
	}
	/* a hardware-verified UDP over IPv6 with checksum 0 is trusted too */
	{
		struct ut_pkt p;

		pkt6(&p, IPPROTO_UDP, 4);
		p.b[p.l4_off + 6] = p.b[p.l4_off + 7] = 0;
		CU_ASSERT_TRUE(run(p.b, p.len, 0, L4_GOOD).kept);
	}
}

/* Ethernet padding is cut so that pkt_len is the IP end, segments past it freed, bytes
 * before it untouched, and the L4 checksum (which the padding would spoil) verifies. */
static unsigned int
check_trim(const uint8_t *frame, uint16_t flen, uint16_t iplen, uint16_t s1, uint16_t s2)
{
	struct outcome o = run3(frame, flen, s1, s2, 0);
	/* segments left: those holding bytes before the IP end */
	uint16_t segs = (uint16_t)(1 + (s1 != 0 && s1 < iplen) + (s2 != 0 && s2 < iplen));

	if (o.kept && o.pkt_len == iplen && o.same_bytes && o.consistent && o.nb_segs == segs)
		return 0;
	fprintf(stderr, "\n  frame %u split %u,%u: kept %d reason %d len %u (want %u) segs %u "
		"(want %u)\n", flen, s1, s2, o.kept, o.reason, o.pkt_len, iplen, o.nb_segs, segs);
	return 1;
}

/* Ethernet padding is cut so that pkt_len is the IP end, segments past it freed, bytes
 * before it untouched, and the L4 checksum (which the padding would spoil) verifies. */
static void
test_padding(void)
{
	struct ut_pkt p;
	uint8_t frame[96];
	unsigned int bad = 0;

	for (int v6 = 0; v6 < 2; v6++) {
		uint16_t flen;

		if (v6) {
			pkt6(&p, IPPROTO_UDP, 2); /* 64 bytes, with an 8-byte trailer */
			flen = 72;
		} else {
			pkt4(&p, IPPROTO_UDP, 0, 3); /* 45 bytes, padded to 60 */
			flen = 60;
		}
		memset(frame, 0xee, sizeof(frame));
		memcpy(frame, p.b, p.len);
		/* one segment, two split at every offset, three at every pair of offsets */
		bad += check_trim(frame, flen, p.len, 0, 0);
		for (uint16_t s1 = 1; s1 < flen && bad < 5; s1++) {
			bad += check_trim(frame, flen, p.len, s1, 0);
			for (uint16_t s2 = (uint16_t)(s1 + 1); s2 < flen; s2++)
				bad += check_trim(frame, flen, p.len, s1, s2);
		}
		/* and without padding nothing changes */
		bad += check_trim(p.b, p.len, p.len, 0, 0);
		bad += check_trim(p.b, p.len, p.len, 10, (uint16_t)(p.len - 1));
	}
	CU_ASSERT_EQUAL(bad, 0);

	/* a pool mbuf (not external) with padding */
	{
		struct rps_lcore_stats st;
		struct rte_mbuf *m;

		pkt4(&p, IPPROTO_TCP, 0, 0);
		memset(frame, 0, sizeof(frame));
		memcpy(frame, p.b, p.len);
		m = ut_mbuf(frame, 60);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		memset(&st, 0, sizeof(st));
		CU_ASSERT_EQUAL(ut_stage_parse(&m, 1, &st), 1);
		CU_ASSERT_EQUAL(ut_stage_validate(&m, 1, &st), 1);
		CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(m), 54);
		CU_ASSERT_EQUAL(rte_pktmbuf_data_len(m), 54);
		rte_pktmbuf_free(m);
	}
}

/* Fragments: IP header checked and padding trimmed, L4 checksum not looked at. */
static void
test_fragments(void)
{
	struct ut_pkt p;
	struct outcome o;
	uint8_t frame[96];

	/* a first fragment whose TCP checksum (over a part of the datagram) is wrong */
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 0, RTE_IPV4_HDR_MF_FLAG);
	ut_put_tcp(&p, 1, 2);
	ut_put(&p, payload, 8);
	ut_pkt_finish(&p);
	o = run(p.b, p.len, 0, L4_BAD);
	CU_ASSERT_TRUE(o.kept);
	CU_ASSERT_EQUAL(o.sw, 1); /* the IP header only */
	CU_ASSERT_EQUAL(o.hw, 0);
	p.b[p.l3_off + 10] ^= 1;
	expect_drop("v4 fragment header checksum", &p, 0, RPS_DROP_BAD_IP_CHECKSUM);
	p.b[p.l3_off + 10] ^= 1;
	p.b[p.l3_off + 8] = 0;
	fix_ip4(&p);
	expect_drop("v4 fragment ttl 0", &p, 0, RPS_DROP_TTL_ZERO);
	/* a later fragment, padded */
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_UDP, 0, 185);
	ut_put(&p, payload, 8);
	ut_pkt_finish(&p);
	memset(frame, 0x77, sizeof(frame));
	memcpy(frame, p.b, p.len);
	for (uint16_t s = 0; s < 60; s++) {
		o = run(frame, 60, s, 0);
		CU_ASSERT_TRUE(o.kept && o.pkt_len == p.len && o.same_bytes && o.consistent);
	}
	/* IPv6 fragments: no L4 checksum at all, even a UDP checksum 0 */
	start6(&p, X_FRAG);
	ut_put_ipv6_frag(&p, IPPROTO_UDP, 0, 1);
	ut_put_udp(&p, 1, 2);
	ut_put(&p, payload, 8);
	ut_pkt_finish(&p);
	o = run(p.b, p.len, 0, 0);
	CU_ASSERT_TRUE(o.kept);
	CU_ASSERT_EQUAL(o.sw + o.hw, 0);
	p.b[p.l3_off + 5] += 1;
	expect_drop("v6 fragment payload length", &p, 0, RPS_DROP_BAD_LENGTH);
}

/*
 * A burst mixing good and bad packets: the kept ones come back compacted in their original
 * order, each drop is counted under its reason once, the checksum counters are exact.
 */
static void
test_mixed_burst(void)
{
	enum { N = 12 };
	struct rte_mbuf *pkts[N], *orig[N];
	struct rps_lcore_stats st;
	struct ut_pkt p;
	int keep[N];
	unsigned int n = 0, nk = 0, avail = ut_pool_avail();
	uint16_t k;

#define ADD(kp) do { \
		pkts[n] = n % 2 ? ut_mbuf(p.b, p.len) : \
			  ut_mbuf_split(p.b, p.len, (uint16_t)(p.len / 2 + 1)); \
		keep[n++] = (kp); \
	} while (0)
	pkt4(&p, IPPROTO_TCP, 0, 3);            /* kept, sw 2 */
	ADD(1);
	p.b[p.len - 1] ^= 1;                    /* bad_l4_checksum, sw 2 */
	ADD(0);
	ut_pkt_init(&p);                        /* non-IP: kept, nothing counted */
	ut_put_eth(&p, RTE_ETHER_TYPE_ARP);
	ut_put(&p, payload, 28);
	ADD(1);
	pkt6(&p, IPPROTO_UDP, 5);               /* kept, sw 1 */
	ADD(1);
	p.b[p.l3_off + 7] = 0;                  /* ttl_zero before the L4 checksum: sw 0 */
	ADD(0);
	pkt4(&p, IPPROTO_UDP, 0, 5);            /* bad_length before the checksum: sw 0 */
	p.b[p.l3_off + 3] += 40;
	fix_ip4(&p);
	ADD(0);
	pkt4(&p, IPPROTO_UDP, 0, 5);            /* bad_ip_checksum, sw 1 */
	p.b[p.l3_off + 11] ^= 4;
	ADD(0);
	pkt6(&p, IPPROTO_TCP, 0);               /* kept, sw 1 */
	ADD(1);
	pkt4(&p, IPPROTO_TCP, 0, 0);            /* ttl_zero after the IP checksum: sw 1 */
	p.b[p.l3_off + 8] = 0;
	fix_ip4(&p);
	ADD(0);
	pkt4(&p, IPPROTO_UDP, 0, 0);            /* kept, sw 2 */
	ADD(1);
#undef ADD
	for (unsigned int i = 0; i < n; i++) {
		CU_ASSERT_PTR_NOT_NULL_FATAL(pkts[i]);
		orig[i] = pkts[i];
	}
	memset(&st, 0, sizeof(st));
	st.cksum_sw = 100;
	st.dropped[RPS_DROP_TTL_ZERO] = 5;
	CU_ASSERT_EQUAL(ut_stage_parse(pkts, (uint16_t)n, &st), n);
	k = ut_stage_validate(pkts, (uint16_t)n, &st);
	for (unsigned int i = 0; i < n; i++)
		if (keep[i]) {
			CU_ASSERT_PTR_EQUAL(pkts[nk], orig[i]);
			nk++;
		}
	CU_ASSERT_EQUAL(k, nk);
	CU_ASSERT_EQUAL(st.cksum_sw, 100 + 2 + 2 + 1 + 1 + 1 + 1 + 2);
	CU_ASSERT_EQUAL(st.cksum_hw, 0);
	CU_ASSERT_EQUAL(st.dropped[RPS_DROP_BAD_L4_CHECKSUM], 1);
	CU_ASSERT_EQUAL(st.dropped[RPS_DROP_TTL_ZERO], 5 + 2);
	CU_ASSERT_EQUAL(st.dropped[RPS_DROP_BAD_LENGTH], 1);
	CU_ASSERT_EQUAL(st.dropped[RPS_DROP_BAD_IP_CHECKSUM], 1);
	CU_ASSERT_EQUAL(rps_stats_dropped_total(&st), 5 + n - nk);
	CU_ASSERT_EQUAL(st.processed, 0);
	/* again over the survivors: all pass, counted again */
	CU_ASSERT_EQUAL(ut_stage_validate(pkts, k, &st), k);
	CU_ASSERT_EQUAL(st.cksum_sw, 100 + 10 + 2 + 1 + 1 + 2);
	CU_ASSERT_EQUAL(ut_stage_validate(pkts, 0, &st), 0);
	rte_pktmbuf_free_bulk(pkts, k);
	CU_ASSERT_EQUAL(ut_pool_avail(), avail);
}

/* rps_raw_cksum() is bit-identical to DPDK's rte_raw_cksum() for every length 0..1600 at
 * every alignment 0..15, on random bytes and on the all-ones pattern that carries most. */
static void
test_raw_cksum(void)
{
	static uint8_t buf[1600 + 16];
	unsigned int bad = 0;
	uint32_t x = 12345;

	for (int pattern = 0; pattern < 2; pattern++) {
		for (size_t i = 0; i < sizeof(buf); i++) {
			x = x * 1103515245u + 12345u;
			buf[i] = pattern ? 0xff : (uint8_t)(x >> 16);
		}
		for (size_t align = 0; align < 16; align++)
			for (size_t len = 0; len <= 1600; len++)
				bad += rps_raw_cksum(buf + align, len) != rte_raw_cksum(buf + align, len);
	}
	CU_ASSERT_EQUAL(bad, 0);
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "raw_cksum", test_raw_cksum },
		{ "good_packets", test_good_packets },
		{ "bad_fields", test_bad_fields },
		{ "without_parse", test_without_parse },
		{ "offload_flags", test_offload_flags },
		{ "padding", test_padding },
		{ "fragments", test_fragments },
		{ "mixed_burst", test_mixed_burst },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "validate", tests);
}
