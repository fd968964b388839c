/* SPDX-License-Identifier: BSD-3-Clause */
/* test_parse.c: the parse stage (lib/stages/parse.c) alone and followed by validate. */
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf_ptype.h>

#include "rps_stage.h"
#include "test_common.h"

#define ETH_LEN 14
#define P_ICMP 1
#define P_GRE 47
#define P_ESP 50
#define P_AH 51
#define P_ICMP6 58
#define P_NONXT 59
#define X_HOP 0
#define X_RT 43
#define X_FRAG 44
#define X_DST 60

/* ---- running the stages ---- */

/* What became of one packet. */
struct outcome {
	int kept;       /* passed every stage run */
	int reason;     /* drop reason, or UT_NO_DROP */
	int stage;      /* 0: dropped (or last seen) by parse, 1: by validate */
	uint32_t ptype; /* layout after parse (when parse kept it) */
	uint16_t l2, l3, l4;
	uint32_t pkt_len; /* after the last stage, when kept */
	int same_bytes;   /* the kept packet's bytes are the original's first pkt_len */
};

/*
 * Put @p len bytes of @p b into an exact-size mbuf (split == 0) or a two-segment chain split
 * at @p split, run parse (and validate when @p validate), free what is kept. Counters go to
 * @p acc when it is not NULL.
 */
static struct outcome
run_pkt(const uint8_t *b, uint16_t len, uint16_t split, int validate,
	struct rps_lcore_stats *acc)
{
	struct outcome o = { .reason = UT_NO_DROP };
	struct rps_lcore_stats st;
	struct rte_mbuf *m = split ? ut_mbuf_split(b, len, split) : ut_mbuf_exact(b, len);
	uint16_t n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	memset(&st, 0, sizeof(st));
	m->packet_type = 0xffffffff; /* parse must overwrite every bit */
	m->l2_len = m->l3_len = m->l4_len = 0;
	n = ut_stage_parse(&m, 1, &st);
	if (n == 1) {
		o.ptype = m->packet_type;
		o.l2 = m->l2_len;
		o.l3 = m->l3_len;
		o.l4 = m->l4_len;
		if (validate) {
			o.stage = 1;
			n = ut_stage_validate(&m, 1, &st);
		}
	}
	o.kept = n == 1;
	o.reason = ut_drop_reason(&st);
	if (o.kept) {
		uint8_t copy[2200];

		o.pkt_len = rte_pktmbuf_pkt_len(m);
		o.same_bytes = o.pkt_len <= sizeof(copy) && o.pkt_len <= len &&
			       rte_pktmbuf_read(m, 0, o.pkt_len, copy) != NULL &&
			       memcmp(rte_pktmbuf_read(m, 0, o.pkt_len, copy), b, o.pkt_len) == 0;
		rte_pktmbuf_free(m);
	}
	if (acc != NULL)
		rps_stats_accumulate(acc, &st);
	return o;
}

/* ---- building packets ---- */

/* TCP header with @p opt_len bytes of options (multiple of 4, <= 40). */
static void
put_tcp_opts(struct ut_pkt *p, uint8_t opt_len)
{
	static const uint8_t opts[40] = { 2, 4, 0x05, 0xb4, 1, 1, 4, 2, 1, 3, 3, 7 };

	ut_put_tcp(p, 40000, 80);
	p->b[p->l4_off + 12] = (uint8_t)((5 + opt_len / 4) << 4);
	ut_put(p, opts, opt_len);
}

/* ICMP / ICMPv6 header (8 bytes) of @p type. */
static void
put_icmp(struct ut_pkt *p, uint8_t type)
{
	uint8_t h[8] = { type, 0, 0, 0, 0x12, 0x34, 0x00, 0x01 };

	p->l4_off = p->len;
	ut_put(p, h, sizeof(h));
}

static const uint8_t payload[16] = "0123456789abcdef";

enum cat { C_TCP, C_UDP, C_ICMP, C_OTHER, C_FRAG, C_NONIP };

/* A well-formed packet and what parse must record for it. */
struct tmpl {
	const char *name;
	struct ut_pkt p;
	uint32_t ptype;
	uint16_t l2, l3, l4;
	uint16_t need; /* bytes parse needs: any shorter prefix is truncated */
	enum cat cat;
	uint8_t family;
};

#define MAX_TMPL 32

static struct tmpl tmpls[MAX_TMPL];
static unsigned int nb_tmpl;

/* The next template, named @p name, in *@p tp; returns its (empty) packet. */
static struct ut_pkt *
tmpl_new(struct tmpl **tp, const char *name)
{
	struct tmpl *t = &tmpls[nb_tmpl++];

	CU_ASSERT_FATAL(nb_tmpl <= MAX_TMPL);
	memset(t, 0, sizeof(*t));
	t->name = name;
	ut_pkt_init(&t->p);
	*tp = t;
	return &t->p;
}

static void
tmpl_set(struct tmpl *t, uint32_t ptype, uint16_t l2, uint16_t l3, uint16_t l4, enum cat cat)
{
	t->ptype = ptype;
	t->l2 = l2;
	t->l3 = l3;
	t->l4 = l4;
	t->cat = cat;
	t->family = RTE_ETH_IS_IPV4_HDR(ptype) ? 4 : RTE_ETH_IS_IPV6_HDR(ptype) ? 6 : 0;
	t->need = (uint16_t)(l2 + l3 + l4);
}

static void
build_templates(void)
{
	const uint32_t E = RTE_PTYPE_L2_ETHER;
	uint8_t s6[16], d6[16];
	struct tmpl *t;
	struct ut_pkt *p;

	if (nb_tmpl != 0)
		return;
	ut_ip6(s6, 0x11, 1);
	ut_ip6(d6, 0x22, 2);

	p = tmpl_new(&t, "v4_tcp");
	ut_put_eth(p, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(p, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 0, 0);
	ut_pkt_end(p, IPPROTO_TCP, 1234, 80, payload, 8, NULL);
	tmpl_set(t, E | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_TCP, 14, 20, 20, C_TCP);

	p = tmpl_new(&t, "v4_options_tcp_options");
	ut_put_eth(p, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(p, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 12, 0);
	put_tcp_opts(p, 12);
	ut_put(p, payload, 5);
	ut_pkt_finish(p);
	ut_fix_l4(p, IPPROTO_TCP, NULL);
	tmpl_set(t, E | RTE_PTYPE_L3_IPV4_EXT | RTE_PTYPE_L4_TCP, 14, 32, 32, C_TCP);

	p = tmpl_new(&t, "v4_udp");
	ut_put_eth(p, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(p, UT_IP4(3), UT_IP4(4), IPPROTO_UDP, 0, 0);
	ut_pkt_end(p, IPPROTO_UDP, 5353, 53, payload, 7, NULL);
	tmpl_set(t, E | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_UDP, 14, 20, 8, C_UDP);

	p = tmpl_new(&t, "v4_icmp_echo");
	ut_put_eth(p, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(p, UT_IP4(3), UT_IP4(4), P_ICMP, 0, 0);
	put_icmp(p, 8);
	ut_put(p, payload, 16);
	ut_pkt_finish(p);
	tmpl_set(t, E | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_ICMP, 14, 20, 8, C_ICMP);

	/* not an echo: 4 bytes make the header, l4_len is what is there up to 8 */
	p = tmpl_new(&t, "v4_icmp_unreach_6_bytes");
	ut_put_eth(p, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(p, UT_IP4(3), UT_IP4(4), P_ICMP, 0, 0);
	put_icmp(p, 3);
	p->len = (uint16_t)(p->len - 2);
	ut_pkt_finish(p);
	tmpl_set(t, E | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_ICMP, 14, 20, 6, C_ICMP);
	t->need = 14 + 20 + 4;

	p = tmpl_new(&t, "v4_gre");
	ut_put_eth(p, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(p, UT_IP4(3), UT_IP4(4), P_GRE, 0, 0);
	ut_put(p, payload, 12);
	ut_pkt_finish(p);
	tmpl_set(t, E | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_NONFRAG, 14, 20, 0, C_OTHER);

	p = tmpl_new(&t, "v4_first_fragment_tcp");
	ut_put_eth(p, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(p, UT_IP4(5), UT_IP4(6), IPPROTO_TCP, 0, RTE_IPV4_HDR_MF_FLAG);
	ut_put_tcp(p, 1, 2);
	ut_put(p, payload, 16);
	ut_pkt_finish(p);
	tmpl_set(t, E | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_FRAG, 14, 20, 20, C_FRAG);

	/* a later fragment: its first bytes are data, not a TCP header (doff 0 here) */
	p = tmpl_new(&t, "v4_later_fragment");
	ut_put_eth(p, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(p, UT_IP4(5), UT_IP4(6), IPPROTO_TCP, 4, 3);
	ut_put(p, NULL, 16);
	ut_pkt_finish(p);
	tmpl_set(t, E | RTE_PTYPE_L3_IPV4_EXT | RTE_PTYPE_L4_FRAG, 14, 24, 0, C_FRAG);

	p = tmpl_new(&t, "vlan_v4_udp");
	ut_put_eth(p, RTE_ETHER_TYPE_VLAN);
	ut_put_vlan(p, 100, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(p, UT_IP4(7), UT_IP4(8), IPPROTO_UDP, 0, 0);
	ut_pkt_end(p, IPPROTO_UDP, 1000, 2000, payload, 3, NULL);
	tmpl_set(t, RTE_PTYPE_L2_ETHER_VLAN | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_UDP, 18, 20, 8,
		 C_UDP);

	p = tmpl_new(&t, "qinq_v6_tcp");
	ut_put_eth(p, RTE_ETHER_TYPE_QINQ);
	ut_put_vlan(p, 20, RTE_ETHER_TYPE_VLAN);
	ut_put_vlan(p, 10, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(p, s6, d6, IPPROTO_TCP);
	ut_pkt_end(p, IPPROTO_TCP, 1, 2, payload, 9, NULL);
	tmpl_set(t, RTE_PTYPE_L2_ETHER_QINQ | RTE_PTYPE_L3_IPV6 | RTE_PTYPE_L4_TCP, 22, 40, 20,
		 C_TCP);

	p = tmpl_new(&t, "four_tags_v4_tcp");
	ut_put_eth(p, RTE_ETHER_TYPE_QINQ1);
	ut_put_vlan(p, 1, RTE_ETHER_TYPE_QINQ);
	ut_put_vlan(p, 2, RTE_ETHER_TYPE_VLAN);
	ut_put_vlan(p, 3, RTE_ETHER_TYPE_VLAN);
	ut_put_vlan(p, 4, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(p, UT_IP4(9), UT_IP4(10), IPPROTO_TCP, 0, 0);
	ut_pkt_end(p, IPPROTO_TCP, 1, 2, NULL, 0, NULL);
	tmpl_set(t, RTE_PTYPE_L2_ETHER_QINQ | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_TCP, 30, 20, 20,
		 C_TCP);

	p = tmpl_new(&t, "v6_tcp_max_options");
	ut_put_eth(p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(p, s6, d6, IPPROTO_TCP);
	put_tcp_opts(p, 40);
	ut_put(p, payload, 1);
	ut_pkt_finish(p);
	ut_fix_l4(p, IPPROTO_TCP, NULL);
	tmpl_set(t, E | RTE_PTYPE_L3_IPV6 | RTE_PTYPE_L4_TCP, 14, 40, 60, C_TCP);

	p = tmpl_new(&t, "v6_udp");
	ut_put_eth(p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(p, s6, d6, IPPROTO_UDP);
	ut_pkt_end(p, IPPROTO_UDP, 1, 2, payload, 16, NULL);
	tmpl_set(t, E | RTE_PTYPE_L3_IPV6 | RTE_PTYPE_L4_UDP, 14, 40, 8, C_UDP);

	p = tmpl_new(&t, "v6_icmp6_echo");
	ut_put_eth(p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(p, s6, d6, P_ICMP6);
	put_icmp(p, 128);
	ut_put(p, payload, 4);
	ut_pkt_finish(p);
	tmpl_set(t, E | RTE_PTYPE_L3_IPV6 | RTE_PTYPE_L4_ICMP, 14, 40, 8, C_ICMP);

	/* hop-by-hop, routing (SRv6, one segment, none left), destination options, AH, TCP */
	p = tmpl_new(&t, "v6_chain_hbh_rt_dst_ah_tcp");
	ut_put_eth(p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(p, s6, d6, X_HOP);
	ut_put_ipv6_ext(p, X_RT, 0);
	ut_put_rh(p, X_DST, 4, 0, 1);
	ut_put_ipv6_ext(p, P_AH, 1);
	ut_put_ah(p, IPPROTO_TCP, 4);
	ut_pkt_end(p, IPPROTO_TCP, 7, 8, payload, 10, NULL);
	tmpl_set(t, E | RTE_PTYPE_L3_IPV6_EXT | RTE_PTYPE_L4_TCP, 14, 40 + 8 + 24 + 16 + 24, 20,
		 C_TCP);

	p = tmpl_new(&t, "v6_first_fragment_udp");
	ut_put_eth(p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(p, s6, d6, X_FRAG);
	ut_put_ipv6_frag(p, IPPROTO_UDP, 0, 1);
	ut_put_udp(p, 1, 2);
	ut_put(p, payload, 16);
	ut_pkt_finish(p);
	tmpl_set(t, E | RTE_PTYPE_L3_IPV6_EXT | RTE_PTYPE_L4_FRAG, 14, 48, 8, C_FRAG);

	p = tmpl_new(&t, "v6_first_fragment_icmp6_echo");
	ut_put_eth(p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(p, s6, d6, X_FRAG);
	ut_put_ipv6_frag(p, P_ICMP6, 0, 1);
	put_icmp(p, 128);
	ut_put(p, payload, 8);
	ut_pkt_finish(p);
	tmpl_set(t, E | RTE_PTYPE_L3_IPV6_EXT | RTE_PTYPE_L4_FRAG, 14, 48, 8, C_FRAG);

	/* a later fragment after a destination-options header; the data is not parsed */
	p = tmpl_new(&t, "v6_later_fragment");
	ut_put_eth(p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(p, s6, d6, X_DST);
	ut_put_ipv6_ext(p, X_FRAG, 0);
	ut_put_ipv6_frag(p, IPPROTO_TCP, 2, 0);
	ut_put(p, NULL, 16);
	ut_pkt_finish(p);
	tmpl_set(t, E | RTE_PTYPE_L3_IPV6_EXT | RTE_PTYPE_L4_FRAG, 14, 56, 0, C_FRAG);

	p = tmpl_new(&t, "v6_atomic_fragment_tcp");
	ut_put_eth(p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(p, s6, d6, X_FRAG);
	ut_put_ipv6_frag(p, IPPROTO_TCP, 0, 0);
	ut_pkt_end(p, IPPROTO_TCP, 1, 2, NULL, 0, NULL);
	tmpl_set(t, E | RTE_PTYPE_L3_IPV6_EXT | RTE_PTYPE_L4_TCP, 14, 48, 20, C_TCP);

	p = tmpl_new(&t, "v6_esp");
	ut_put_eth(p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(p, s6, d6, P_ESP);
	ut_put(p, payload, 16);
	ut_pkt_finish(p);
	tmpl_set(t, E | RTE_PTYPE_L3_IPV6 | RTE_PTYPE_L4_NONFRAG, 14, 40, 0, C_OTHER);

	p = tmpl_new(&t, "v6_hbh_no_next_header");
	ut_put_eth(p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(p, s6, d6, X_HOP);
	ut_put_ipv6_ext(p, P_NONXT, 0);
	ut_pkt_finish(p);
	tmpl_set(t, E | RTE_PTYPE_L3_IPV6_EXT | RTE_PTYPE_L4_NONFRAG, 14, 48, 0, C_OTHER);

	p = tmpl_new(&t, "arp");
	ut_put_eth(p, RTE_ETHER_TYPE_ARP);
	ut_put(p, payload, 16);
	ut_put(p, payload, 12);
	tmpl_set(t, E, 14, 0, 0, C_NONIP);

	p = tmpl_new(&t, "vlan_arp");
	ut_put_eth(p, RTE_ETHER_TYPE_VLAN);
	ut_put_vlan(p, 7, RTE_ETHER_TYPE_ARP);
	ut_put(p, payload, 16);
	ut_put(p, payload, 12);
	tmpl_set(t, RTE_PTYPE_L2_ETHER_VLAN, 18, 0, 0, C_NONIP);
}

/* Add the counters one packet of template @p t must produce to @p st. */
static void
expect_counts(const struct tmpl *t, struct rps_lcore_stats *st)
{
	if (t->family == 4)
		st->pkts_ipv4++;
	else if (t->family == 6)
		st->pkts_ipv6++;
	switch (t->cat) {
	case C_TCP: st->pkts_tcp++; break;
	case C_UDP: st->pkts_udp++; break;
	case C_ICMP: st->pkts_icmp++; break;
	case C_OTHER: st->pkts_other_l4++; break;
	case C_FRAG: st->pkts_fragment++; break;
	case C_NONIP: st->pkts_non_ip++; break;
	}
}

/* Every counter of @p a equals @p b's; names the first that differs. */
static int
stats_equal(const struct rps_lcore_stats *a, const struct rps_lcore_stats *b, const char *what)
{
#define CMP(f, d) \
	if (a->f != b->f) { \
		fprintf(stderr, "\n  %s: " #f " %lu, want %lu\n", what, \
			(unsigned long)a->f, (unsigned long)b->f); \
		return 0; \
	}
	RPS_LCORE_COUNTERS(CMP)
#undef CMP
	for (int i = 0; i < RPS_DROP_MAX; i++)
		if (a->dropped[i] != b->dropped[i]) {
			fprintf(stderr, "\n  %s: dropped %s %lu, want %lu\n", what,
				rps_drop_name((enum rps_drop_reason)i),
				(unsigned long)a->dropped[i], (unsigned long)b->dropped[i]);
			return 0;
		}
	return 1;
}

static int
layout_ok(const struct outcome *o, const struct tmpl *t, uint16_t l4)
{
	return o->ptype == t->ptype && o->l2 == t->l2 && o->l3 == t->l3 && o->l4 == l4;
}

/* ---- tests ---- */

/* Each well-formed packet: exact layout and counters from parse; validate passes it whole;
 * the same bytes split into two segments at every offset give the same. */
static void
test_templates(void)
{
	unsigned int avail = ut_pool_avail(), bad = 0;

	build_templates();
	for (unsigned int i = 0; i < nb_tmpl; i++) {
		const struct tmpl *t = &tmpls[i];
		struct rps_lcore_stats got, want;

		for (uint16_t split = 0; split < t->p.len; split++) {
			struct outcome o;

			memset(&got, 0, sizeof(got));
			memset(&want, 0, sizeof(want));
			expect_counts(t, &want);
			/* software checksums: IPv4 header, TCP/UDP when not a fragment */
			want.cksum_sw = (t->family == 4) + (t->cat == C_TCP || t->cat == C_UDP);
			o = run_pkt(t->p.b, t->p.len, split, 1, &got);
			if (!o.kept || !layout_ok(&o, t, t->l4) || o.pkt_len != t->p.len ||
			    !o.same_bytes || !stats_equal(&got, &want, t->name)) {
				if (bad++ < 10)
					fprintf(stderr, "\n  %s split %u: kept %d reason %d ptype %#x "
						"l2 %u l3 %u l4 %u len %u, want ptype %#x l2 %u l3 %u "
						"l4 %u len %u\n", t->name, split, o.kept, o.reason,
						o.ptype, o.l2, o.l3, o.l4, o.pkt_len, t->ptype, t->l2,
						t->l3, t->l4, t->p.len);
			}
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(ut_pool_avail(), avail);
}

/*
 * Every template cut at every byte offset, as an exact-size buffer and split into two
 * segments at every position: a prefix shorter than the headers is dropped by parse as
 * truncated; a longer one passes parse with the template's layout and is dropped by validate
 * as bad_length (IP length beyond the frame); non-IP frames pass both.
 */
static void
test_truncated_every_offset(void)
{
	unsigned int avail = ut_pool_avail(), bad = 0, runs = 0, truncated = 0;

	build_templates();
	for (unsigned int i = 0; i < nb_tmpl; i++) {
		const struct tmpl *t = &tmpls[i];

		for (uint16_t cut = 0; cut < t->p.len; cut++) {
			for (uint16_t split = 0; split < RTE_MAX(cut, 1); split++) {
				struct outcome o = run_pkt(t->p.b, cut, split, 1, NULL);
				int ok;

				runs++;
				if (cut < t->need) {
					truncated++;
					ok = !o.kept && o.stage == 0 && o.reason == RPS_DROP_TRUNCATED;
				} else {
					uint16_t l4 = t->l4;

					if (t->cat == C_ICMP)
						l4 = (uint16_t)RTE_MIN(l4, cut - t->l2 - t->l3);
					ok = o.stage == 1 && layout_ok(&o, t, l4);
					if (t->family != 0)
						ok &= !o.kept && o.reason == RPS_DROP_BAD_LENGTH;
					else
						ok &= o.kept && o.pkt_len == cut && o.same_bytes;
				}
				if (!ok && bad++ < 10)
					fprintf(stderr, "\n  %s cut %u split %u: kept %d stage %d "
						"reason %d ptype %#x l2 %u l3 %u l4 %u\n", t->name, cut,
						split, o.kept, o.stage, o.reason, o.ptype, o.l2, o.l3,
						o.l4);
			}
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(truncated > 10000);
	CU_ASSERT(runs > truncated);
	CU_ASSERT_EQUAL(ut_pool_avail(), avail);
}

/* One packet through parse alone: the drop reason (or UT_NO_DROP), exact and split alike. */
static int
parse_reason(const struct ut_pkt *p)
{
	struct outcome o = run_pkt(p->b, p->len, 0, 0, NULL);

	for (uint16_t split = 1; split < p->len; split++) {
		struct outcome s = run_pkt(p->b, p->len, split, 0, NULL);

		if (s.kept != o.kept || s.reason != o.reason || s.ptype != o.ptype ||
		    s.l2 != o.l2 || s.l3 != o.l3 || s.l4 != o.l4)
			return -100 - split; /* the layouts disagree */
	}
	return o.kept ? UT_NO_DROP : o.reason;
}

static void
test_bad_version_ihl(void)
{
	static const uint8_t v4_versions[] = { 0, 1, 5, 6, 15 };
	static const uint8_t v6_versions[] = { 0, 4, 5, 7, 15 };
	uint8_t s6[16], d6[16];
	struct ut_pkt p;

	ut_ip6(s6, 0, 1);
	ut_ip6(d6, 0, 2);
	for (unsigned int i = 0; i < RTE_DIM(v4_versions); i++) {
		ut_pkt_v4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 1, 2);
		p.b[ETH_LEN] = (uint8_t)(v4_versions[i] << 4 | 5);
		CU_ASSERT_EQUAL(parse_reason(&p), RPS_DROP_BAD_VERSION);
	}
	for (unsigned int i = 0; i < RTE_DIM(v6_versions); i++) {
		ut_pkt_v6(&p, 1, 2, IPPROTO_TCP, 1, 2);
		p.b[ETH_LEN] = (uint8_t)(v6_versions[i] << 4 | (p.b[ETH_LEN] & 0x0f));
		CU_ASSERT_EQUAL(parse_reason(&p), RPS_DROP_BAD_VERSION);
	}
	/* an IPv6 header behind the IPv4 ethertype and the other way round */
	ut_pkt_v6(&p, 1, 2, IPPROTO_UDP, 1, 2);
	p.b[12] = 0x08, p.b[13] = 0x00;
	CU_ASSERT_EQUAL(parse_reason(&p), RPS_DROP_BAD_VERSION);
	ut_pkt_v4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_UDP, 1, 2);
	ut_put(&p, NULL, 20); /* long enough for an IPv6 header */
	p.b[12] = 0x86, p.b[13] = 0xdd;
	CU_ASSERT_EQUAL(parse_reason(&p), RPS_DROP_BAD_VERSION);
	for (uint8_t ihl = 0; ihl < 5; ihl++) {
		ut_pkt_v4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 1, 2);
		p.b[ETH_LEN] = (uint8_t)(0x40 | ihl);
		CU_ASSERT_EQUAL(parse_reason(&p), RPS_DROP_BAD_IHL);
	}
	/* ihl 15 (60 bytes) with the options present is fine */
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_UDP, 40, 0);
	ut_put_udp(&p, 1, 2);
	ut_pkt_finish(&p);
	CU_ASSERT_EQUAL(parse_reason(&p), UT_NO_DROP);
	/* ihl 15 with 39 option bytes there */
	p.len = ETH_LEN + 59;
	CU_ASSERT_EQUAL(parse_reason(&p), RPS_DROP_TRUNCATED);
}

static void
test_tcp_data_offset(void)
{
	struct ut_pkt p;

	for (uint8_t doff = 0; doff < 16; doff++) {
		int want = doff < 5 ? RPS_DROP_BAD_HEADER : doff <= 7 ? UT_NO_DROP : RPS_DROP_TRUNCATED;

		/* 20 + 8 bytes after the IP header: data offsets up to 7 fit */
		ut_pkt_v4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 1, 2);
		p.b[ETH_LEN + 20 + 12] = (uint8_t)(doff << 4);
		CU_ASSERT_EQUAL(parse_reason(&p), want);
		ut_pkt_v6(&p, 1, 2, IPPROTO_TCP, 1, 2);
		p.b[ETH_LEN + 40 + 12] = (uint8_t)(doff << 4 | 0x0f); /* reserved bits ignored */
		CU_ASSERT_EQUAL(parse_reason(&p), want);
	}
	/* a first fragment is checked too; a later one is not */
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 0, RTE_IPV4_HDR_MF_FLAG);
	ut_put_tcp(&p, 1, 2);
	p.b[p.l4_off + 12] = 0x40;
	ut_pkt_finish(&p);
	CU_ASSERT_EQUAL(parse_reason(&p), RPS_DROP_BAD_HEADER);
	p.b[ETH_LEN + 7] = 4; /* offset 32 bytes */
	CU_ASSERT_EQUAL(parse_reason(&p), UT_NO_DROP);
}

/* Tags: up to four pass, the fifth is bad_header, whatever mix of tag ethertypes. */
static void
test_vlan_tags(void)
{
	static const uint16_t tpid[] = { RTE_ETHER_TYPE_VLAN, RTE_ETHER_TYPE_QINQ,
					 RTE_ETHER_TYPE_QINQ1 };
	static const uint32_t l2type[] = { RTE_PTYPE_L2_ETHER, RTE_PTYPE_L2_ETHER_VLAN,
					   RTE_PTYPE_L2_ETHER_QINQ, RTE_PTYPE_L2_ETHER_QINQ,
					   RTE_PTYPE_L2_ETHER_QINQ };

	for (unsigned int tags = 0; tags <= 6; tags++) {
		for (unsigned int v = 0; v < 2; v++) {
			struct ut_pkt p;
			struct outcome o;
			uint8_t s6[16], d6[16];

			ut_ip6(s6, 0, 1);
			ut_ip6(d6, 0, 2);
			ut_pkt_init(&p);
			ut_put_eth(&p, tags ? tpid[0] : (v ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4));
			for (unsigned int k = 0; k < tags; k++)
				ut_put_vlan(&p, (uint16_t)k,
					    k + 1 < tags ? tpid[(k + 1) % 3] :
					    v ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);
			if (v)
				ut_put_ipv6(&p, s6, d6, IPPROTO_UDP);
			else
				ut_put_ipv4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_UDP, 0, 0);
			ut_put_udp(&p, 1, 2);
			ut_pkt_finish(&p);
			ut_fix_l4(&p, IPPROTO_UDP, NULL);
			if (tags > 4) {
				CU_ASSERT_EQUAL(parse_reason(&p), RPS_DROP_BAD_HEADER);
				continue;
			}
			CU_ASSERT_EQUAL(parse_reason(&p), UT_NO_DROP);
			o = run_pkt(p.b, p.len, 0, 1, NULL);
			CU_ASSERT_TRUE(o.kept);
			CU_ASSERT_EQUAL(o.l2, ETH_LEN + 4 * tags);
			CU_ASSERT_EQUAL(o.ptype, l2type[tags] | RTE_PTYPE_L4_UDP |
				       (v ? RTE_PTYPE_L3_IPV6 : RTE_PTYPE_L3_IPV4));
		}
	}
}

/* Build Ethernet + IPv6 + @p n destination-options headers of @p ext_len + UDP (+ data). */
static uint16_t
v6_chain(uint8_t *buf, unsigned int n, uint8_t ext_len, uint16_t cap)
{
	uint8_t s6[16], d6[16];
	struct ut_pkt p;
	uint16_t len, each = (uint16_t)((ext_len + 1) * 8);

	ut_ip6(s6, 0, 1);
	ut_ip6(d6, 0, 2);
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(&p, s6, d6, n ? X_DST : IPPROTO_UDP);
	memset(buf, 0, cap);
	memcpy(buf, p.b, p.len);
	len = p.len;
	for (unsigned int i = 0; i < n; i++) {
		buf[len] = i + 1 < n ? X_DST : IPPROTO_UDP;
		buf[len + 1] = ext_len;
		len = (uint16_t)(len + each);
	}
	buf[len + 4] = 0;
	buf[len + 5] = 12; /* UDP length */
	len = (uint16_t)(len + 12);
	/* payload_len */
	buf[ETH_LEN + 4] = (uint8_t)((len - ETH_LEN - 40) >> 8);
	buf[ETH_LEN + 5] = (uint8_t)(len - ETH_LEN - 40);
	return len;
}

static void
test_ipv6_chain_limits(void)
{
	static uint8_t buf[2400];
	uint16_t len;
	struct outcome o;

	/* eight extension headers pass, nine are bad_header */
	len = v6_chain(buf, 8, 0, sizeof(buf));
	o = run_pkt(buf, len, 0, 0, NULL);
	CU_ASSERT_TRUE(o.kept);
	CU_ASSERT_EQUAL(o.l3, 40 + 8 * 8);
	CU_ASSERT_EQUAL(o.ptype, RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6_EXT | RTE_PTYPE_L4_UDP);
	len = v6_chain(buf, 9, 0, sizeof(buf));
	o = run_pkt(buf, len, 0, 0, NULL);
	CU_ASSERT_FALSE(o.kept);
	CU_ASSERT_EQUAL(o.reason, RPS_DROP_BAD_HEADER);
	/* ... even when the ninth is cut short */
	o = run_pkt(buf, (uint16_t)(ETH_LEN + 40 + 8 * 8 + 3), 0, 0, NULL);
	CU_ASSERT_EQUAL(o.reason, RPS_DROP_BAD_HEADER);

	/* l3_len is 9 bits: 504 bytes of header pass, 512 and more are bad_header */
	len = v6_chain(buf, 1, 57, sizeof(buf)); /* 40 + 464 */
	o = run_pkt(buf, len, 0, 0, NULL);
	CU_ASSERT_TRUE(o.kept);
	CU_ASSERT_EQUAL(o.l3, 504);
	len = v6_chain(buf, 2, 28, sizeof(buf)); /* 40 + 2 * 232 = 504 */
	o = run_pkt(buf, len, 300, 0, NULL);
	CU_ASSERT_TRUE(o.kept);
	CU_ASSERT_EQUAL(o.l3, 504);
	CU_ASSERT_EQUAL(o.l4, 8);
	len = v6_chain(buf, 1, 58, sizeof(buf)); /* 512 */
	o = run_pkt(buf, len, 0, 0, NULL);
	CU_ASSERT_EQUAL(o.reason, RPS_DROP_BAD_HEADER);
	len = v6_chain(buf, 2, 29, sizeof(buf)); /* 40 + 2 * 240 = 520 */
	o = run_pkt(buf, len, 0, 0, NULL);
	CU_ASSERT_EQUAL(o.reason, RPS_DROP_BAD_HEADER);
	len = v6_chain(buf, 1, 255, sizeof(buf)); /* 40 + 2048 */
	o = run_pkt(buf, len, 1000, 0, NULL);
	CU_ASSERT_EQUAL(o.reason, RPS_DROP_BAD_HEADER);
	/* too long and not even there */
	o = run_pkt(buf, ETH_LEN + 40 + 8, 0, 0, NULL);
	CU_ASSERT_EQUAL(o.reason, RPS_DROP_BAD_HEADER);
}

/*
 * The transport header must lie inside the IP datagram, not in the Ethernet padding after it:
 * when the IP length is consistent with the frame, a header that runs past it is truncated.
 */
static void
test_l4_inside_datagram(void)
{
	struct ut_pkt p;
	struct outcome o;
	uint8_t frame[64], s6[16], d6[16];

	/* IPv4 total length 20 + 12, frame padded to 60 with a TCP header's worth of bytes */
	ut_pkt_v4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 1, 2);
	p.b[ETH_LEN + 2] = 0, p.b[ETH_LEN + 3] = 32;
	CU_ASSERT_EQUAL(parse_reason(&p), RPS_DROP_TRUNCATED);
	/* total length 20 + 4 for UDP */
	ut_pkt_v4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_UDP, 1, 2);
	p.b[ETH_LEN + 2] = 0, p.b[ETH_LEN + 3] = 24;
	CU_ASSERT_EQUAL(parse_reason(&p), RPS_DROP_TRUNCATED);
	/* IPv6 payload length 12 for TCP */
	ut_pkt_v6(&p, 1, 2, IPPROTO_TCP, 1, 2);
	p.b[ETH_LEN + 4] = 0, p.b[ETH_LEN + 5] = 12;
	CU_ASSERT_EQUAL(parse_reason(&p), RPS_DROP_TRUNCATED);
	/* an ICMP echo of 6 bytes in a padded frame is truncated; another type is 6 bytes */
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(&p, UT_IP4(1), UT_IP4(2), P_ICMP, 0, 0);
	put_icmp(&p, 8);
	p.len = (uint16_t)(p.len - 2);
	ut_pkt_finish(&p);
	memset(frame, 0, sizeof(frame));
	memcpy(frame, p.b, p.len);
	o = run_pkt(frame, 60, 0, 0, NULL);
	CU_ASSERT_EQUAL(o.reason, RPS_DROP_TRUNCATED);
	frame[ETH_LEN + 20] = 11; /* time exceeded */
	o = run_pkt(frame, 60, 0, 1, NULL);
	CU_ASSERT_TRUE(o.kept);
	CU_ASSERT_EQUAL(o.l4, 6);
	CU_ASSERT_EQUAL(o.pkt_len, ETH_LEN + 26); /* padding trimmed */
	/* ICMPv6 echo reply of 7 bytes */
	ut_ip6(s6, 0, 1);
	ut_ip6(d6, 0, 2);
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(&p, s6, d6, P_ICMP6);
	put_icmp(&p, 129);
	p.len = (uint16_t)(p.len - 1);
	ut_pkt_finish(&p);
	CU_ASSERT_EQUAL(parse_reason(&p), RPS_DROP_TRUNCATED);
	p.b[p.l4_off] = 135; /* neighbour solicitation (cut short, but not an echo) */
	CU_ASSERT_EQUAL(parse_reason(&p), UT_NO_DROP);
	/* 3 ICMP bytes: truncated whatever the type */
	p.len = (uint16_t)(p.l4_off + 3);
	ut_pkt_finish(&p);
	CU_ASSERT_EQUAL(parse_reason(&p), RPS_DROP_TRUNCATED);
	/* inconsistent lengths: only the frame bounds parse, validate says bad_length */
	ut_pkt_v4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 1, 2);
	p.b[ETH_LEN + 2] = 0, p.b[ETH_LEN + 3] = 19;
	CU_ASSERT_EQUAL(parse_reason(&p), UT_NO_DROP);
	o = run_pkt(p.b, p.len, 0, 1, NULL);
	CU_ASSERT_EQUAL(o.reason, RPS_DROP_BAD_LENGTH);
	CU_ASSERT_EQUAL(o.stage, 1);
}

/*
 * A burst mixing every template with bad packets: the kept ones come back compacted in their
 * original order (same mbufs), every drop is counted under its reason, the pkts_* counters
 * count what parse passes on, and counters add to what was there.
 */
static void
test_mixed_burst(void)
{
	enum { N = 2 * MAX_TMPL + 8 };
	struct rte_mbuf *pkts[N], *orig[N];
	int keep[N];
	struct rps_lcore_stats st, want;
	struct ut_pkt p;
	unsigned int n = 0, nk = 0, avail = ut_pool_avail();
	uint16_t kept;

	build_templates();
	memset(&want, 0, sizeof(want));
	for (unsigned int i = 0; i < nb_tmpl; i++) {
		const struct tmpl *t = &tmpls[i];

		/* the template, then (every other time) a cut or broken copy of it */
		pkts[n] = i % 3 ? ut_mbuf_exact(t->p.b, t->p.len) :
			  ut_mbuf_split(t->p.b, t->p.len, (uint16_t)(t->p.len / 2));
		keep[n++] = 1;
		expect_counts(t, &want);
		if (i % 2 == 0) {
			pkts[n] = ut_mbuf_exact(t->p.b, (uint16_t)(t->need - 1));
			keep[n++] = 0;
			want.dropped[RPS_DROP_TRUNCATED]++;
		}
	}
	ut_pkt_v4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 1, 2);
	p.b[ETH_LEN] = 0x65;
	pkts[n] = ut_mbuf(p.b, p.len);
	keep[n++] = 0;
	want.dropped[RPS_DROP_BAD_VERSION]++;
	p.b[ETH_LEN] = 0x44;
	pkts[n] = ut_mbuf(p.b, p.len);
	keep[n++] = 0;
	want.dropped[RPS_DROP_BAD_IHL]++;
	p.b[ETH_LEN] = 0x45;
	p.b[ETH_LEN + 20 + 12] = 0x30;
	pkts[n] = ut_mbuf(p.b, p.len);
	keep[n++] = 0;
	want.dropped[RPS_DROP_BAD_HEADER]++;
	p.b[ETH_LEN + 20 + 12] = 0x50;
	pkts[n] = ut_mbuf(p.b, p.len);
	keep[n++] = 1;
	want.pkts_ipv4++;
	want.pkts_tcp++;
	pkts[n] = ut_mbuf(p.b, 0);
	keep[n++] = 0;
	want.dropped[RPS_DROP_TRUNCATED]++;
	CU_ASSERT_FATAL(n <= N);
	for (unsigned int i = 0; i < n; i++) {
		CU_ASSERT_PTR_NOT_NULL_FATAL(pkts[i]);
		orig[i] = pkts[i];
	}

	memset(&st, 0, sizeof(st));
	st.pkts_ipv4 = 1000;
	st.pkts_non_ip = 7;
	st.rx_packets = 55;
	st.dropped[RPS_DROP_TRUNCATED] = 3;
	want.pkts_ipv4 += 1000;
	want.pkts_non_ip += 7;
	want.rx_packets = 55;
	want.dropped[RPS_DROP_TRUNCATED] += 3;
	kept = ut_stage_parse(pkts, (uint16_t)n, &st);
	for (unsigned int i = 0; i < n; i++)
		if (keep[i]) {
			CU_ASSERT_PTR_EQUAL(pkts[nk], orig[i]);
			nk++;
		}
	CU_ASSERT_EQUAL(kept, nk);
	CU_ASSERT_TRUE(stats_equal(&st, &want, "mixed burst"));
	/* the dropped ones went back to the pool */
	{
		unsigned int held = 0;

		for (unsigned int i = 0; i < kept; i++)
			held += pkts[i]->nb_segs;
		CU_ASSERT_EQUAL(ut_pool_avail(), avail - held);
	}

	/* parsing the kept ones again gives the same layout and counts them again */
	{
		uint32_t pt[N];

		for (unsigned int i = 0; i < nk; i++)
			pt[i] = pkts[i]->packet_type;
		CU_ASSERT_EQUAL(ut_stage_parse(pkts, kept, &st), kept);
		for (unsigned int i = 0; i < nk; i++)
			CU_ASSERT_EQUAL(pkts[i]->packet_type, pt[i]);
		CU_ASSERT_EQUAL(st.pkts_ipv4 + st.pkts_ipv6 + st.pkts_non_ip,
				want.pkts_ipv4 + want.pkts_ipv6 + want.pkts_non_ip + nk);
	}
	/* an empty burst changes nothing */
	want = st;
	CU_ASSERT_EQUAL(ut_stage_parse(pkts, 0, &st), 0);
	CU_ASSERT_TRUE(stats_equal(&st, &want, "empty burst"));
	rte_pktmbuf_free_bulk(pkts, kept);
	CU_ASSERT_EQUAL(ut_pool_avail(), avail);
}

/* Random short packets, biased towards IP so that the parser gets deep into them. */
static uint16_t
random_pkt(uint8_t *b, uint64_t *st)
{
	uint16_t len = (uint16_t)(ut_rand(st) % 97);
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
	/* IPv4 ihl 5, TTL and a plausible total length more often than chance */
	if (len > off + 8 && b[off - 2] == 0x08 && (r & 32)) {
		b[off] = 0x45;
		b[off + 2] = 0;
		b[off + 3] = (uint8_t)(len - off - ((r >> 20) & 1) * 4);
		if (r & (1u << 21)) /* mostly not a fragment */
			b[off + 6] = b[off + 7] = 0;
		b[off + 8] = 64;
	}
	/* IPv6: a plausible payload length */
	if (len > off + 8 && b[off - 2] == 0x86 && (r & 32)) {
		b[off] = 0x60;
		b[off + 4] = 0;
		b[off + 5] = (uint8_t)(len - off - 40);
		b[off + 7] = 64;
	}
	/* a transport protocol with ports, or an IPv6 extension header */
	if (len > off + 9 && (r & 64)) {
		static const uint8_t nh[] = { 6, 17, 0, 43, 44, 60, 51, 50, 1, 58, 59 };

		if (b[off - 2] == 0x08)
			b[off + 9] = nh[(r >> 8) % RTE_DIM(nh)];
		else
			b[off + 6] = nh[(r >> 8) % RTE_DIM(nh)];
	}
	/* a correct IPv4 header checksum, so that validate gets to the transport */
	if (len >= off + 20 && b[off - 2] == 0x08 && b[off] == 0x45 && (r & (1u << 22))) {
		struct rte_ipv4_hdr ip;

		memcpy(&ip, b + off, sizeof(ip));
		ip.hdr_checksum = 0;
		ip.hdr_checksum = rte_ipv4_cksum(&ip);
		memcpy(b + off, &ip, sizeof(ip));
	}
	/* short extension headers, so that chains fit in the packet */
	if (len > off + 41 && b[off - 2] == 0x86 && (r & 128)) {
		b[off + 40] = (uint8_t)(r >> 24) % 8 == 0 ? 6 : b[off + 40];
		b[off + 41] = 0;
	}
	return len;
}

/* Thousands of random short packets through parse and validate, exact and split: nothing is
 * read past a packet (ASan), nothing leaks, kept + dropped == in, both layouts agree. */
static void
test_random_short(void)
{
	enum { ROUNDS = 1000, BURST = 32 };
	uint64_t rs = UINT64_C(0xfeedbeef12345678);
	struct rps_lcore_stats s;
	unsigned int total = 0, mismatches = 0, kept_total = 0, avail = ut_pool_avail();
	uint64_t parse_kept = 0;

	memset(&s, 0, sizeof(s));
	for (unsigned int r = 0; r < ROUNDS; r++) {
		struct rte_mbuf *a[BURST], *b[BURST];
		struct rps_lcore_stats sa, sb;
		uint16_t ka, kb, pa;

		memset(&sa, 0, sizeof(sa));
		memset(&sb, 0, sizeof(sb));
		for (unsigned int i = 0; i < BURST; i++) {
			uint8_t raw[128];
			uint16_t len = random_pkt(raw, &rs);
			uint16_t split = len > 1 ? (uint16_t)(1 + ut_rand(&rs) % (len - 1)) : 0;

			/* exact-size buffer: ASan catches any read past the end */
			a[i] = ut_mbuf_exact(raw, len);
			/* the same bytes in two segments, or a pool mbuf when too short to split */
			b[i] = split ? ut_mbuf_split(raw, len, split) : ut_mbuf(raw, len);
			CU_ASSERT_PTR_NOT_NULL_FATAL(a[i]);
			CU_ASSERT_PTR_NOT_NULL_FATAL(b[i]);
		}
		pa = ut_stage_parse(a, BURST, &sa);
		ka = ut_stage_validate(a, pa, &sa);
		kb = ut_stage_parse(b, BURST, &sb);
		kb = ut_stage_validate(b, kb, &sb);
		total += BURST;
		kept_total += ka;
		parse_kept += pa;
		/* every packet is kept or counted under exactly one reason */
		if (ka + rps_stats_dropped_total(&sa) != BURST)
			mismatches++;
		/* both layouts: same counters, same survivors, same layout */
		if (ka != kb || !stats_equal(&sa, &sb, "random exact vs split"))
			mismatches++;
		for (uint16_t i = 0; i < RTE_MIN(ka, kb); i++) {
			const struct rte_mbuf *x = a[i], *y = b[i];

			if (x->packet_type != y->packet_type || x->l2_len != y->l2_len ||
			    x->l3_len != y->l3_len || x->l4_len != y->l4_len ||
			    x->pkt_len != y->pkt_len)
				mismatches++;
			/* a validated IP packet's headers lie inside it, pkt_len is the IP end */
			if ((RTE_ETH_IS_IPV4_HDR(x->packet_type) ||
			     RTE_ETH_IS_IPV6_HDR(x->packet_type)) &&
			    (uint32_t)x->l2_len + x->l3_len + x->l4_len > x->pkt_len)
				mismatches++;
		}
		rps_stats_accumulate(&s, &sa);
		rte_pktmbuf_free_bulk(a, ka);
		rte_pktmbuf_free_bulk(b, kb);
	}
	CU_ASSERT_EQUAL(mismatches, 0);
	CU_ASSERT_EQUAL(ut_pool_avail(), avail);
	CU_ASSERT_EQUAL(kept_total + rps_stats_dropped_total(&s), total);
	/* parse's counters: one L3 class per packet passed, one L4 class per IP packet */
	CU_ASSERT_EQUAL(s.pkts_ipv4 + s.pkts_ipv6 + s.pkts_non_ip, parse_kept);
	CU_ASSERT_EQUAL(s.pkts_tcp + s.pkts_udp + s.pkts_icmp + s.pkts_other_l4 +
			s.pkts_fragment, s.pkts_ipv4 + s.pkts_ipv6);
	/* the generator did reach the interesting cases */
	CU_ASSERT(s.pkts_ipv4 > 100);
	CU_ASSERT(s.pkts_ipv6 > 100);
	CU_ASSERT(s.pkts_non_ip > 100);
	CU_ASSERT(s.pkts_tcp + s.pkts_udp > 10);
	CU_ASSERT(s.pkts_icmp > 10);
	CU_ASSERT(s.pkts_fragment > 10);
	CU_ASSERT(s.cksum_sw > 100);
	CU_ASSERT(kept_total > 1000);
	for (int i = RPS_DROP_TRUNCATED; i <= RPS_DROP_BAD_HEADER; i++)
		if (i != RPS_DROP_TTL_ZERO && s.dropped[i] == 0) {
			fprintf(stderr, "\n  random packets never reached %s\n",
				rps_drop_name((enum rps_drop_reason)i));
			CU_FAIL("a drop reason was never reached");
		}
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "templates", test_templates },
		{ "truncated_every_offset", test_truncated_every_offset },
		{ "bad_version_ihl", test_bad_version_ihl },
		{ "tcp_data_offset", test_tcp_data_offset },
		{ "vlan_tags", test_vlan_tags },
		{ "ipv6_chain_limits", test_ipv6_chain_limits },
		{ "l4_inside_datagram", test_l4_inside_datagram },
		{ "mixed_burst", test_mixed_burst },
		{ "random_short", test_random_short },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "parse", tests);
}
