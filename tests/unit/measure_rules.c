/* SPDX-License-Identifier: BSD-3-Clause */
/* measure_rules.c: cycles per packet of rps_steer_burst() with 0, 16 and RPS_RULES_MAX
 * steering rules (docs/benchmarks.md, Steering rules), traffic no rule matches and traffic
 * the last rule matches, warm headers, bursts of 32 onto 4 backlogs (dequeued untimed). A
 * measurement, not a test: built, not registered; run build/tests/unit/measure_rules. */
#include <stdio.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <rte_cycles.h>

#include "rps_steer.h"
#include "test_common.h"

#define NPKT 4096
#define BURST 32
#define NW 4
#define ROUNDS 100

static struct rte_mbuf *pk[NPKT];
static struct rps_backlog bl[NW];
static struct rps_lcore_stats st;
static uint64_t hits[RPS_RULE_SLOTS];

/* Half IPv4 TCP, half IPv6 UDP, random flows; dport 80 (no rule's) or @p dport. */
static void
make(uint16_t dport)
{
	uint64_t s = 42;

	for (unsigned int i = 0; i < NPKT; i++) {
		struct ut_pkt p;
		uint64_t r = ut_rand(&s);

		if (i & 1)
			ut_pkt_v4(&p, UT_IP4(r & 0x1ffff), UT_IP4((r >> 17) & 0x1ffff), IPPROTO_TCP,
				  (uint16_t)(r >> 34), dport);
		else
			ut_pkt_v6(&p, (uint32_t)r, (uint32_t)(r >> 32), IPPROTO_UDP,
				  (uint16_t)(r >> 7), dport);
		pk[i] = ut_mbuf(p.b, p.len);
		CU_ASSERT_FATAL(pk[i] != NULL);
	}
}

/* @p n rules "dport 1000+i -> worker i%NW" (tcp and udp); the last matches dport 1000+n-1. */
static struct rps_rules *
rules(uint16_t n)
{
	static struct rps_rule r[RPS_RULES_MAX];
	static uint16_t t[RPS_RULES_MAX];
	char txt[64], err[128];

	for (uint16_t i = 0; i < n; i++) {
		snprintf(txt, sizeof(txt), "dport %u -> worker %u", 1000u + i, i % NW);
		CU_ASSERT_FATAL(rps_rule_parse(txt, &r[i], err, sizeof(err)) == 0);
		CU_ASSERT_FATAL(rps_rule_resolve(&r[i], NW, NULL, 0, &t[i], err, sizeof(err)) == 0);
	}
	return rps_rules_build(r, t, n, 1, SOCKET_ID_ANY);
}

/* Median over ROUNDS of the cycles per packet of steering all NPKT packets. */
static double
measure(struct rps_steer_ctx *ctx, const struct rps_map *map)
{
	double v[ROUNDS];

	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t = 0;

		for (unsigned int o = 0; o < NPKT; o += BURST) {
			uint64_t t0 = rte_rdtsc_precise();

			rps_steer_burst(ctx, map, NULL, NULL, &pk[o], BURST);
			t += rte_rdtsc_precise() - t0;
			for (unsigned int w = 0; w < NW; w++) { /* back in place, untimed */
				struct rte_mbuf *m[BURST];
				uint32_t left, got = rps_backlog_dequeue(&bl[w], m, BURST, &left);

				rps_backlog_complete(&bl[w], got);
				(void)m;
			}
		}
		v[r] = (double)t / NPKT;
	}
	for (int i = 0; i < ROUNDS; i++)
		for (int j = i + 1; j < ROUNDS; j++)
			if (v[j] < v[i]) {
				double x = v[i];

				v[i] = v[j];
				v[j] = x;
			}
	return v[ROUNDS / 2];
}

/* Median cycles per packet of the rules' own parts on the same bursts: the flow key alone
 * (what the classifier's input costs) and rps_rules_classify() (key + librte_acl). */
static void
parts(const struct rps_rules *rs, double *key, double *cls)
{
	double vk[ROUNDS], vc[ROUNDS];
	volatile uint32_t sink = 0;

	for (int r = 0; r < ROUNDS; r++) {
		uint64_t tk = 0, tc = 0;

		for (unsigned int o = 0; o < NPKT; o += BURST) {
			uint16_t match[BURST];
			uint64_t t0 = rte_rdtsc_precise();

			for (unsigned int i = 0; i < BURST; i++) {
				struct rps_flow_key k;

				(void)rps_flow_key_get(pk[o + i], 0, NULL, &k);
				sink += k.src[0];
			}
			tk += rte_rdtsc_precise() - t0;
			t0 = rte_rdtsc_precise();
			rps_rules_classify(rs, &pk[o], BURST, match);
			tc += rte_rdtsc_precise() - t0;
			sink += match[0];
		}
		vk[r] = (double)tk / NPKT;
		vc[r] = (double)tc / NPKT;
	}
	for (int i = 0; i < ROUNDS; i++)
		for (int j = i + 1; j < ROUNDS; j++) {
			if (vk[j] < vk[i]) {
				double x = vk[i];

				vk[i] = vk[j];
				vk[j] = x;
			}
			if (vc[j] < vc[i]) {
				double x = vc[i];

				vc[i] = vc[j];
				vc[j] = x;
			}
		}
	*key = vk[ROUNDS / 2];
	*cls = vc[ROUNDS / 2];
	(void)sink;
}

static void
run(void)
{
	const uint16_t counts[] = { 0, 16, RPS_RULES_MAX };
	uint16_t w[64];
	struct rps_steer_ctx ctx;
	struct rps_map *map;

	for (unsigned int i = 0; i < 64; i++)
		w[i] = (uint16_t)(i % NW);
	map = rps_map_create_table(w, 64, 1, SOCKET_ID_ANY);
	for (unsigned int i = 0; i < NW; i++) {
		char name[16];

		snprintf(name, sizeof(name), "mr%u", i);
		CU_ASSERT_FATAL(rps_backlog_init(&bl[i], name, 1024, SOCKET_ID_ANY) == 0);
	}
	CU_ASSERT_FATAL(map != NULL);
	CU_ASSERT_FATAL(rps_steer_init(&ctx, RPS_HASH_JHASH, 7, 1, bl, NW, BURST, &st,
				       SOCKET_ID_ANY) == 0);
	ctx.rule_hits = hits;
	printf("\n%-8s %-12s %s\n", "rules", "traffic", "cycles/packet (median of 100 x 4096)");
	for (unsigned int c = 0; c < RTE_DIM(counts); c++) {
		struct rps_rules *rs = counts[c] != 0 ? rules(counts[c]) : NULL;

		CU_ASSERT_FATAL(counts[c] == 0 || rs != NULL);
		ctx.rules = rs;
		for (int match = 0; match < 2; match++) {
			if (match && counts[c] == 0)
				continue;
			make(match ? (uint16_t)(1000 + counts[c] - 1) : 80);
			printf("%-8u %-12s %.1f", counts[c], match ? "last rule" : "no match",
			       measure(&ctx, map));
			if (rs != NULL) {
				double k, cl;

				parts(rs, &k, &cl);
				printf("   (of which: flow key %.1f, classify incl. key %.1f)", k, cl);
			}
			printf("\n");
			for (unsigned int i = 0; i < NPKT; i++)
				rte_pktmbuf_free(pk[i]);
		}
		rps_rules_free(rs);
	}
	rps_steer_fini(&ctx);
	for (unsigned int i = 0; i < NW; i++)
		rps_backlog_fini(&bl[i]);
	rps_map_free(map);
}

int
main(int argc, char **argv)
{
	CU_TestInfo tests[] = {
		{ "run", run },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "measure_rules", tests);
}
