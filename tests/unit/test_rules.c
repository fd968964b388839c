/* SPDX-License-Identifier: BSD-3-Clause */
/* test_rules.c: lib/rps/rules.c: the rule grammar, its messages, resolution, and librte_acl
 * matching of each field (v4 and v6, ranges), first-match order and the maximum. */
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "rps_hash.h"
#include "rps_rules.h"
#include "test_common.h"

/* Build a set from rule texts (each must parse), every target resolved with 8 workers and
 * 4 consumers. */
static struct rps_rules *
build(const char *const *texts, uint16_t n)
{
	static const uint16_t four[] = {4};
	static struct rps_rule r[RPS_RULES_MAX];
	static uint16_t t[RPS_RULES_MAX];
	char err[160];

	for (uint16_t i = 0; i < n; i++) {
		int rc = rps_rule_parse(texts[i], &r[i], err, sizeof(err));

		if (rc != 0)
			printf("\n%s: %s\n", texts[i], err);
		CU_ASSERT_FATAL(rc == 0);
		CU_ASSERT_FATAL(rps_rule_resolve(&r[i], 8, four, 1, &t[i], err,
						 sizeof(err)) == 0);
	}
	return rps_rules_build(r, t, n, 1, SOCKET_ID_ANY);
}

/* The rule a v4 packet matches (RPS_RULE_NONE: none). */
static uint16_t
match4(const struct rps_rules *rs, uint32_t src, uint32_t dst, uint8_t proto, uint16_t sp,
       uint16_t dp)
{
	struct ut_pkt p;
	struct rte_mbuf *m;
	uint16_t r;

	ut_pkt_v4(&p, src, dst, proto, sp, dp);
	m = ut_mbuf(p.b, p.len);
	CU_ASSERT_FATAL(m != NULL);
	rps_rules_classify(rs, &m, 1, &r);
	rte_pktmbuf_free(m);
	return r;
}

static uint16_t
match6(const struct rps_rules *rs, uint32_t src_n, uint32_t dst_n, uint8_t proto, uint16_t sp,
       uint16_t dp)
{
	struct ut_pkt p;
	struct rte_mbuf *m;
	uint16_t r;

	ut_pkt_v6(&p, src_n, dst_n, proto, sp, dp);
	m = ut_mbuf(p.b, p.len);
	CU_ASSERT_FATAL(m != NULL);
	rps_rules_classify(rs, &m, 1, &r);
	rte_pktmbuf_free(m);
	return r;
}

static void
test_parse_fields(void)
{
	struct rps_rule r;
	char err[160], txt[RPS_RULE_TEXT_MAX];

	CU_ASSERT(rps_rule_parse("tcp dport 443 -> worker 3", &r, err, sizeof(err)) == 0);
	CU_ASSERT(r.proto == IPPROTO_TCP && r.dport_lo == 443 && r.dport_hi == 443);
	CU_ASSERT(r.sport_lo == 0 && r.sport_hi == 65535 && r.has_ports);
	CU_ASSERT(r.action == RPS_RULE_ACT_WORKER && r.target == 3 && r.family == 0);
	CU_ASSERT(rps_rule_parse("udp dport 53 -> consumer 1", &r, err, sizeof(err)) == 0);
	CU_ASSERT(r.proto == IPPROTO_UDP && r.action == RPS_RULE_ACT_CONSUMER && r.target == 1);
	CU_ASSERT(rps_rule_parse("src 198.18.0.0/16 -> drop", &r, err, sizeof(err)) == 0);
	CU_ASSERT(r.proto == 0 && r.family == 4 && r.src_len == 16 && r.src[0] == 198 &&
		  r.src[1] == 18 && r.action == RPS_RULE_ACT_DROP && !r.has_ports);
	CU_ASSERT(rps_rule_parse("  dst 2001:db8::/32\tsport 1000-2000 udp  ->  worker 0 ", &r,
				 err, sizeof(err)) == 0);
	CU_ASSERT(r.family == 6 && r.dst_len == 32 && r.sport_lo == 1000 && r.sport_hi == 2000);
	CU_ASSERT(rps_rule_parse("icmp dst 198.18.0.1 -> worker 1", &r, err, sizeof(err)) == 0);
	CU_ASSERT(r.proto == IPPROTO_ICMP && r.dst_len == 32);
	CU_ASSERT(rps_rule_parse("any -> drop", &r, err, sizeof(err)) == 0);
	CU_ASSERT(r.proto == 0 && r.family == 0);

	/* the canonical text parses back to the same rule */
	const char *const round[] = {
		"tcp dport 443 -> worker 3", "udp src 198.18.0.0/16 sport 1-2 -> consumer 2",
		"dst 2001:db8::1 dport 0-65535 -> drop", "icmp -> worker 0",
		"src 0.0.0.0/0 -> drop", "tcp src ::/0 -> worker 1",
	};
	for (unsigned int i = 0; i < RTE_DIM(round); i++) {
		struct rps_rule a, b;

		CU_ASSERT_FATAL(rps_rule_parse(round[i], &a, err, sizeof(err)) == 0);
		rps_rule_format(&a, txt, sizeof(txt));
		CU_ASSERT_STRING_EQUAL(txt, round[i]);
		CU_ASSERT_FATAL(rps_rule_parse(txt, &b, err, sizeof(err)) == 0);
		CU_ASSERT(memcmp(&a, &b, sizeof(a)) == 0);
	}
}

static void
test_parse_errors(void)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "tcp dport 443", "missing '-> ACTION' (worker N, consumer N or drop)" },
		{ "tcp dport 443 ->", "'->' without an action (worker N, consumer N or drop)" },
		{ "tcp udp -> drop", "udp: a second protocol" },
		{ "sctp -> drop", "unknown word 'sctp' (expected tcp, udp, icmp, any, src, dst, "
				  "sport, dport or '->')" },
		{ "src -> drop", "src: missing its value" },
		{ "src 1.2.3.4 src 1.2.3.5 -> drop", "src: given twice" },
		{ "dst ::1 dst ::2 -> drop", "dst: given twice" },
		{ "sport 1 sport 2 -> drop", "sport: given twice" },
		{ "dport 1 dport 2 -> drop", "dport: given twice" },
		{ "src 1.2.3 -> drop", "src: expected an IPv4 or IPv6 address[/LEN], not '1.2.3'" },
		{ "src 10.0.0.1/8 -> drop", "src 10.0.0.1/8: host bits set after /8 (10.0.0.0/8?)" },
		{ "dst 2001:db8::1/32 -> drop",
		  "dst 2001:db8::1/32: host bits set after /32 (2001:db8::/32?)" },
		{ "src 10.0.0.0/33 -> drop", "src 10.0.0.0/33: expected a prefix length 0..32 after '/'" },
		{ "src ::/129 -> drop", "src ::/129: expected a prefix length 0..128 after '/'" },
		{ "src 10.0.0.0/8 dst ::1 -> drop", "src is IPv4 but dst is IPv6" },
		{ "dport 65536 -> drop", "dport: expected a port 0..65535 or a range LO-HI, not '65536'" },
		{ "sport x -> drop", "sport: expected a port 0..65535 or a range LO-HI, not 'x'" },
		{ "sport 10-5 -> drop", "sport 10-5: the range is empty (10 > 5)" },
		{ "dport 1- -> drop", "dport: expected a port 0..65535 or a range LO-HI, not '1-'" },
		{ "icmp dport 1 -> drop", "icmp has no ports (sport, dport need tcp, udp or no "
					  "protocol)" },
		{ "-> worker", "worker: expected an index 0..65534, not ''" },
		{ "-> worker -1", "worker: expected an index 0..65534, not '-1'" },
		{ "-> consumer 65535", "consumer: expected an index 0..65534, not '65535'" },
		{ "-> forward 1", "unknown action 'forward' (expected worker N, consumer N or drop)" },
		{ "-> drop now", "unexpected 'now' after the action" },
		{ "-> worker 1 2", "unexpected '2' after the action" },
	};
	struct rps_rule r;
	char err[200], longer[300];

	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		err[0] = '\0';
		CU_ASSERT(rps_rule_parse(bad[i].text, &r, err, sizeof(err)) == -EINVAL);
		if (strcmp(err, bad[i].msg) != 0)
			printf("\n'%s': got '%s'\n", bad[i].text, err);
		CU_ASSERT_STRING_EQUAL(err, bad[i].msg);
	}
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	CU_ASSERT(rps_rule_parse(longer, &r, err, sizeof(err)) == -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "rule too long (at most 255 characters)");
}

static void
test_resolve(void)
{
	static const uint16_t one[] = {1}, two[] = {2}, two_one[] = {2, 1}, one_four[] = {1, 4};
	struct rps_rule r;
	uint16_t t = 0;
	char err[160];

	CU_ASSERT_FATAL(rps_rule_parse("-> worker 3", &r, err, sizeof(err)) == 0);
	CU_ASSERT(rps_rule_resolve(&r, 4, NULL, 0, &t, err, sizeof(err)) == 0 && t == 3);
	CU_ASSERT(rps_rule_resolve(&r, 3, NULL, 0, &t, err, sizeof(err)) == -ERANGE);
	CU_ASSERT_STRING_EQUAL(err, "worker 3: there are 3 workers (0..2)");
	CU_ASSERT(rps_rule_resolve(&r, 0, NULL, 0, &t, err, sizeof(err)) == -ENOTSUP);
	CU_ASSERT_STRING_EQUAL(err, "worker 3: there are no workers (an empty --map)");
	/* consumer c: worker c, the first of those that feed it (w mod K == c) */
	CU_ASSERT_FATAL(rps_rule_parse("-> consumer 1", &r, err, sizeof(err)) == 0);
	CU_ASSERT(rps_rule_resolve(&r, 4, two, 1, &t, err, sizeof(err)) == 0 && t == 1);
	CU_ASSERT(t % 2 == 1); /* rps_consumer_of(): w mod K */
	CU_ASSERT(rps_rule_resolve(&r, 4, NULL, 0, &t, err, sizeof(err)) == -ENOTSUP);
	CU_ASSERT_STRING_EQUAL(err, "consumer 1: needs --consumers");
	CU_ASSERT(rps_rule_resolve(&r, 4, one, 1, &t, err, sizeof(err)) == -ERANGE);
	CU_ASSERT_STRING_EQUAL(err, "consumer 1: there are 1 consumers (0..0)");
	/* groups 2,1: consumers 0 and 1 (group 0), 2 (group 1, fed by every worker) */
	CU_ASSERT(rps_rule_resolve(&r, 4, two_one, 2, &t, err, sizeof(err)) == 0 && t == 1);
	CU_ASSERT_FATAL(rps_rule_parse("-> consumer 2", &r, err, sizeof(err)) == 0);
	CU_ASSERT(rps_rule_resolve(&r, 4, two_one, 2, &t, err, sizeof(err)) == 0 && t == 0);
	CU_ASSERT_FATAL(rps_rule_parse("-> consumer 3", &r, err, sizeof(err)) == 0);
	CU_ASSERT(rps_rule_resolve(&r, 4, two_one, 2, &t, err, sizeof(err)) == -ERANGE);
	CU_ASSERT_STRING_EQUAL(err, "consumer 3: there are 3 consumers (0..2)");
	/* groups 1,4 on 3 workers (not a setup the consumers' checks let through): the 4th
	 * of group 1 has no worker */
	CU_ASSERT_FATAL(rps_rule_parse("-> consumer 4", &r, err, sizeof(err)) == 0);
	CU_ASSERT(rps_rule_resolve(&r, 3, one_four, 2, &t, err, sizeof(err)) == -ERANGE);
	CU_ASSERT_STRING_EQUAL(err, "consumer 4: consumer 3 of group 1, and 3 workers feed that "
			       "group (0..2)");
	CU_ASSERT_FATAL(rps_rule_parse("-> drop", &r, err, sizeof(err)) == 0);
	CU_ASSERT(rps_rule_resolve(&r, 0, NULL, 0, &t, err, sizeof(err)) == 0 && t == RPS_RULE_DROP);
}

static void
test_match_v4(void)
{
	const char *const txt[] = {
		"tcp dport 443 -> worker 3",          /* 0 */
		"udp dport 53 -> consumer 1",         /* 1 */
		"src 198.18.0.0/24 -> drop",          /* 2 */
		"dst 198.18.1.0/24 sport 1000-1999 -> worker 2", /* 3: tcp and udp */
		"icmp -> worker 1",                   /* 4 */
		"udp sport 7 dport 7 -> worker 5",    /* 5 */
	};
	struct rps_rules *rs = build(txt, RTE_DIM(txt));

	CU_ASSERT_FATAL(rs != NULL);
	CU_ASSERT(rs->acl4 != NULL && rs->acl6 != NULL);
	CU_ASSERT(rs->target[1] == 1 && rs->target[2] == RPS_RULE_DROP);
	/* protocol + destination port */
	CU_ASSERT(match4(rs, UT_IP4(300), UT_IP4(400), IPPROTO_TCP, 5, 443) == 0);
	CU_ASSERT(match4(rs, UT_IP4(300), UT_IP4(400), IPPROTO_UDP, 5, 443) == RPS_RULE_NONE);
	CU_ASSERT(match4(rs, UT_IP4(300), UT_IP4(400), IPPROTO_TCP, 443, 444) == RPS_RULE_NONE);
	CU_ASSERT(match4(rs, UT_IP4(300), UT_IP4(400), IPPROTO_UDP, 5, 53) == 1);
	/* source prefix, any protocol; first match: 443 from 198.18.0.x is rule 0 */
	CU_ASSERT(match4(rs, UT_IP4(255), UT_IP4(400), IPPROTO_UDP, 5, 9) == 2);
	CU_ASSERT(match4(rs, UT_IP4(256), UT_IP4(400), IPPROTO_UDP, 5, 9) == RPS_RULE_NONE);
	CU_ASSERT(match4(rs, UT_IP4(1), UT_IP4(400), IPPROTO_TCP, 5, 443) == 0);
	/* destination prefix with a source port range, TCP and UDP */
	CU_ASSERT(match4(rs, UT_IP4(300), UT_IP4(256), IPPROTO_TCP, 1000, 9) == 3);
	CU_ASSERT(match4(rs, UT_IP4(300), UT_IP4(511), IPPROTO_UDP, 1999, 9) == 3);
	CU_ASSERT(match4(rs, UT_IP4(300), UT_IP4(511), IPPROTO_UDP, 2000, 9) == RPS_RULE_NONE);
	CU_ASSERT(match4(rs, UT_IP4(300), UT_IP4(511), IPPROTO_UDP, 999, 9) == RPS_RULE_NONE);
	CU_ASSERT(match4(rs, UT_IP4(300), UT_IP4(512), IPPROTO_UDP, 1500, 9) == RPS_RULE_NONE);
	/* a protocol without ports cannot match a port rule (rule 3 wants TCP or UDP) */
	CU_ASSERT(match4(rs, UT_IP4(300), UT_IP4(256), IPPROTO_ICMP, 1000, 9) == 4);
	CU_ASSERT(match4(rs, UT_IP4(300), UT_IP4(256), IPPROTO_GRE, 1000, 9) == RPS_RULE_NONE);
	/* both ports */
	CU_ASSERT(match4(rs, UT_IP4(300), UT_IP4(400), IPPROTO_UDP, 7, 7) == 5);
	CU_ASSERT(match4(rs, UT_IP4(300), UT_IP4(400), IPPROTO_UDP, 7, 8) == RPS_RULE_NONE);
	/* an IPv4 rule never matches IPv6; rule 0 (no address) does */
	CU_ASSERT(match6(rs, 1, 2, IPPROTO_TCP, 5, 443) == 0);
	CU_ASSERT(match6(rs, 1, 2, IPPROTO_UDP, 1000, 9) == RPS_RULE_NONE);
	CU_ASSERT(match6(rs, 1, 2, IPPROTO_ICMPV6, 0, 0) == 4);
	rps_rules_free(rs);
}

static void
test_match_v6(void)
{
	const char *const txt[] = {
		"src 2001:db8::/96 dst 2001:db8::2 -> worker 1", /* 0 */
		"tcp dst 2001:db8::/120 dport 80-90 -> worker 2", /* 1 */
		"dst 2001:db8::100/127 -> drop",                 /* 2 */
	};
	struct rps_rules *rs = build(txt, RTE_DIM(txt));

	CU_ASSERT_FATAL(rs != NULL);
	CU_ASSERT(rs->acl4 == NULL && rs->acl6 != NULL);
	CU_ASSERT(match6(rs, 7, 2, IPPROTO_UDP, 1, 1) == 0);
	CU_ASSERT(match6(rs, 7, 3, IPPROTO_UDP, 1, 1) == RPS_RULE_NONE);
	CU_ASSERT(match6(rs, 7, 3, IPPROTO_TCP, 1, 85) == 1);
	CU_ASSERT(match6(rs, 7, 3, IPPROTO_TCP, 1, 91) == RPS_RULE_NONE);
	CU_ASSERT(match6(rs, 7, 0x100, IPPROTO_TCP, 1, 85) == 2);
	CU_ASSERT(match6(rs, 7, 0x101, IPPROTO_UDP, 1, 85) == 2);
	CU_ASSERT(match6(rs, 7, 0x102, IPPROTO_UDP, 1, 85) == RPS_RULE_NONE);
	CU_ASSERT(match4(rs, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 1, 85) == RPS_RULE_NONE);
	rps_rules_free(rs);
}

/* The rule of a v4 or v6 packet classified both ways (rps_rules_classify_dir() with both)
 * and, to check the two entry points agree, by its key (rps_rules_classify_keys_dir()). */
static uint16_t
match_both(const struct rps_rules *rs, int v6, uint32_t src, uint32_t dst, uint8_t proto,
	   uint16_t sp, uint16_t dp)
{
	struct ut_pkt p;
	struct rps_flow_key k;
	struct rte_mbuf *m;
	uint16_t r, rk;

	if (v6)
		ut_pkt_v6(&p, src, dst, proto, sp, dp);
	else
		ut_pkt_v4(&p, src, dst, proto, sp, dp);
	m = ut_mbuf(p.b, p.len);
	CU_ASSERT_FATAL(m != NULL);
	rps_rules_classify_dir(rs, &m, 1, &r, 1);
	(void)rps_flow_key_get(m, 0, NULL, &k);
	rps_rules_classify_keys_dir(rs, &k, 1, &rk, 1);
	CU_ASSERT_EQUAL(r, rk);
	rte_pktmbuf_free(m);
	return r;
}

/* Both ways (symmetric steering, pairs): a packet takes the first rule that matches it or
 * its reverse, so a server's replies follow its clients' rule; one way, only its own. */
static void
test_match_both_ways(void)
{
	const char *const txt[] = {
		"tcp dport 5201 -> worker 1",                 /* 0 */
		"src 198.18.0.0/24 sport 53 -> worker 2",     /* 1 */
		"udp dst 2001:db8::/120 dport 80 -> worker 3", /* 2 */
		"udp -> worker 4",                            /* 3 */
	};
	struct rps_rules *rs = build(txt, RTE_DIM(txt));

	CU_ASSERT_FATAL(rs != NULL);
	/* client to server, and the server's reply (sport 5201) */
	CU_ASSERT(match_both(rs, 0, UT_IP4(300), UT_IP4(400), IPPROTO_TCP, 40000, 5201) == 0);
	CU_ASSERT(match_both(rs, 0, UT_IP4(400), UT_IP4(300), IPPROTO_TCP, 5201, 40000) == 0);
	CU_ASSERT(match4(rs, UT_IP4(400), UT_IP4(300), IPPROTO_TCP, 5201, 40000) ==
		  RPS_RULE_NONE);
	CU_ASSERT(match_both(rs, 0, UT_IP4(400), UT_IP4(300), IPPROTO_TCP, 5200, 40000) ==
		  RPS_RULE_NONE);
	/* prefix and port swap together: the reverse of src 198.18.0.5:53 -> x:9 */
	CU_ASSERT(match_both(rs, 0, UT_IP4(300), UT_IP4(5), IPPROTO_TCP, 9, 53) == 1);
	CU_ASSERT(match_both(rs, 0, UT_IP4(300), UT_IP4(5), IPPROTO_TCP, 53, 9) ==
		  RPS_RULE_NONE); /* the address one way, the port the other: no */
	CU_ASSERT(match_both(rs, 0, UT_IP4(5), UT_IP4(300), IPPROTO_TCP, 53, 9) == 1);
	/* the first rule either way wins: the reply from [2001:db8::7]:80 is rule 2, though
	 * its own direction matches only rule 3 */
	CU_ASSERT(match_both(rs, 1, 0x300, 7, IPPROTO_UDP, 1234, 80) == 2);
	CU_ASSERT(match_both(rs, 1, 7, 0x300, IPPROTO_UDP, 80, 1234) == 2);
	CU_ASSERT(match6(rs, 7, 0x300, IPPROTO_UDP, 80, 1234) == 3);
	CU_ASSERT(match_both(rs, 1, 7, 0x300, IPPROTO_UDP, 1234, 80) == 3);
	rps_rules_free(rs);
}

/* The first rule in the list wins, whatever is more specific. */
static void
test_first_match(void)
{
	const char *const a[] = { "udp -> worker 1", "udp dport 53 -> worker 2" };
	const char *const b[] = { "udp dport 53 -> worker 2", "udp -> worker 1" };
	struct rps_rules *ra = build(a, 2), *rb = build(b, 2);

	CU_ASSERT_FATAL(ra != NULL && rb != NULL);
	CU_ASSERT(match4(ra, UT_IP4(1), UT_IP4(2), IPPROTO_UDP, 1, 53) == 0);
	CU_ASSERT(match4(rb, UT_IP4(1), UT_IP4(2), IPPROTO_UDP, 1, 53) == 0);
	CU_ASSERT(match4(rb, UT_IP4(1), UT_IP4(2), IPPROTO_UDP, 1, 54) == 1);
	rps_rules_free(ra);
	rps_rules_free(rb);
}

/* Non-IP and IP fragments after the first: no port rule matches them. A burst longer than a
 * classify chunk keeps every verdict at its packet. */
static void
test_burst_and_fragments(void)
{
	const char *const txt[] = { "udp dport 9 -> worker 1", "src 198.18.0.0/16 -> worker 2" };
	struct rps_rules *rs = build(txt, 2);
	struct rte_mbuf *m[200];
	uint16_t r[200];
	struct ut_pkt p;

	CU_ASSERT_FATAL(rs != NULL);
	for (unsigned int i = 0; i < RTE_DIM(m); i++) {
		ut_pkt_init(&p);
		if (i % 3 == 0) { /* non-IP */
			ut_put_eth(&p, 0x88cc);
			ut_put_l4_words(&p, 1, 2);
		} else if (i % 3 == 1) {
			ut_pkt_v4(&p, UT_IP4(i), UT_IP4(5), IPPROTO_UDP, 1, 9);
		} else { /* a fragment after the first, UDP: rule 1 (no ports) only */
			ut_put_eth(&p, 0x0800);
			ut_put_ipv4(&p, UT_IP4(i), UT_IP4(5), IPPROTO_UDP, 0, 10);
			ut_put_l4_words(&p, 1, 9);
			ut_pkt_finish(&p);
		}
		m[i] = ut_mbuf(p.b, p.len);
		CU_ASSERT_FATAL(m[i] != NULL);
	}
	CU_ASSERT(rps_rules_classify(rs, m, RTE_DIM(m), r) == 2 * RTE_DIM(m) / 3);
	for (unsigned int i = 0; i < RTE_DIM(m); i++) {
		CU_ASSERT(r[i] == (i % 3 == 0 ? RPS_RULE_NONE : i % 3 == 1 ? 0 : 1));
		rte_pktmbuf_free(m[i]);
	}
	rps_rules_free(rs);
}

/* RPS_RULES_MAX rules build and the last one still matches; one more is refused. */
static void
test_maximum(void)
{
	static struct rps_rule r[RPS_RULES_MAX + 1];
	static uint16_t t[RPS_RULES_MAX + 1];
	struct rps_rules *rs;
	char txt[64], err[160];

	for (unsigned int i = 0; i <= RPS_RULES_MAX; i++) {
		snprintf(txt, sizeof(txt), "udp dport %u -> worker %u", 1000 + i, i % 8);
		CU_ASSERT_FATAL(rps_rule_parse(txt, &r[i], err, sizeof(err)) == 0);
		CU_ASSERT_FATAL(rps_rule_resolve(&r[i], 8, NULL, 0, &t[i], err, sizeof(err)) == 0);
	}
	rs = rps_rules_build(r, t, RPS_RULES_MAX + 1, 1, SOCKET_ID_ANY);
	CU_ASSERT(rs == NULL && rte_errno == EINVAL);
	rs = rps_rules_build(r, t, RPS_RULES_MAX, 1, SOCKET_ID_ANY);
	CU_ASSERT_FATAL(rs != NULL);
	CU_ASSERT(rs->nb_rules == RPS_RULES_MAX);
	CU_ASSERT(match4(rs, UT_IP4(1), UT_IP4(2), IPPROTO_UDP, 1, 1000 + RPS_RULES_MAX - 1) ==
		  RPS_RULES_MAX - 1);
	CU_ASSERT(match4(rs, UT_IP4(1), UT_IP4(2), IPPROTO_UDP, 1, 1000 + RPS_RULES_MAX) ==
		  RPS_RULE_NONE);
	CU_ASSERT_STRING_EQUAL(rs->text[5], "udp dport 1005 -> worker 5");
	rps_rules_free(rs);
}

int
main(int argc, char **argv)
{
	CU_TestInfo tests[] = {
		{ "parse_fields", test_parse_fields },
		{ "parse_errors", test_parse_errors },
		{ "resolve", test_resolve },
		{ "match_v4", test_match_v4 },
		{ "match_v6", test_match_v6 },
		{ "first_match", test_first_match },
		{ "match_both_ways", test_match_both_ways },
		{ "burst_and_fragments", test_burst_and_fragments },
		{ "maximum", test_maximum },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "rules", tests);
}
