/* SPDX-License-Identifier: BSD-3-Clause */
/* test_counters.c: drop-reason names and the per-lcore counter helpers (lib/rps/counters.c). */
#include <errno.h>
#include <string.h>

#include "rps_counters.h"
#include "test_common.h"

static void
test_drop_names(void)
{
	for (unsigned int i = 0; i < RPS_DROP_MAX; i++) {
		const char *n = rps_drop_name((enum rps_drop_reason)i);
		const char *d = rps_drop_description((enum rps_drop_reason)i);

		CU_ASSERT_PTR_NOT_NULL_FATAL(n);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		CU_ASSERT(strlen(n) > 0);
		CU_ASSERT(strlen(d) > 0);
		/* names go into JSON keys: lower case, digits and '_' only */
		CU_ASSERT_EQUAL(strspn(n, "abcdefghijklmnopqrstuvwxyz0123456789_"), strlen(n));
		for (unsigned int j = 0; j < i; j++) {
			CU_ASSERT_STRING_NOT_EQUAL(n, rps_drop_name((enum rps_drop_reason)j));
			CU_ASSERT_STRING_NOT_EQUAL(d, rps_drop_description((enum rps_drop_reason)j));
		}
	}
	/* the X-macro list, spelled out: the enum and the names must agree */
#define CHECK_NAME(e, n, d) \
	CU_ASSERT_STRING_EQUAL(rps_drop_name(RPS_DROP_##e), #n); \
	CU_ASSERT_STRING_EQUAL(rps_drop_description(RPS_DROP_##e), d);
	RPS_DROP_REASONS(CHECK_NAME)
#undef CHECK_NAME
	CU_ASSERT_STRING_EQUAL(rps_drop_name(RPS_DROP_BACKLOG_FULL), "backlog_full");
	CU_ASSERT_STRING_EQUAL(rps_drop_name(RPS_DROP_TX_FAILED), "tx_failed");
}

static void
test_drop_names_out_of_range(void)
{
	CU_ASSERT_PTR_NULL(rps_drop_name(RPS_DROP_MAX));
	CU_ASSERT_PTR_NULL(rps_drop_description(RPS_DROP_MAX));
	CU_ASSERT_PTR_NULL(rps_drop_name((enum rps_drop_reason)(RPS_DROP_MAX + 7)));
	CU_ASSERT_PTR_NULL(rps_drop_description((enum rps_drop_reason)(RPS_DROP_MAX + 7)));
	CU_ASSERT_PTR_NULL(rps_drop_name((enum rps_drop_reason)-1));
	CU_ASSERT_PTR_NULL(rps_drop_description((enum rps_drop_reason)-1));
}

/* Give every field of @p s a distinct value derived from @p base. */
static void
fill_stats(struct rps_lcore_stats *s, uint64_t base)
{
	uint64_t v = base;

	memset(s, 0, sizeof(*s));
#define FILL(f, d) s->f = (v += 1000003);
	RPS_LCORE_COUNTERS(FILL)
#undef FILL
	for (unsigned int i = 0; i < RPS_DROP_MAX; i++)
		s->dropped[i] = (v += 1000003);
}

static void
test_stats_read(void)
{
	struct rps_lcore_stats src, dst;

	fill_stats(&src, UINT64_C(1) << 40);
	memset(&dst, 0xff, sizeof(dst));
	rps_stats_read(&src, &dst);
#define CHECK_COPY(f, d) CU_ASSERT_EQUAL(dst.f, src.f);
	RPS_LCORE_COUNTERS(CHECK_COPY)
#undef CHECK_COPY
	for (unsigned int i = 0; i < RPS_DROP_MAX; i++)
		CU_ASSERT_EQUAL(dst.dropped[i], src.dropped[i]);
	/* reading does not disturb the source */
	{
		struct rps_lcore_stats again;

		fill_stats(&again, UINT64_C(1) << 40);
#define CHECK_SRC(f, d) CU_ASSERT_EQUAL(src.f, again.f);
		RPS_LCORE_COUNTERS(CHECK_SRC)
#undef CHECK_SRC
	}
}

static void
test_stats_accumulate(void)
{
	struct rps_lcore_stats a, b, sum;

	fill_stats(&a, 7);
	fill_stats(&b, UINT64_C(1) << 33);
	sum = a;
	rps_stats_accumulate(&sum, &b);
#define CHECK_SUM(f, d) CU_ASSERT_EQUAL(sum.f, a.f + b.f);
	RPS_LCORE_COUNTERS(CHECK_SUM)
#undef CHECK_SUM
	for (unsigned int i = 0; i < RPS_DROP_MAX; i++)
		CU_ASSERT_EQUAL(sum.dropped[i], a.dropped[i] + b.dropped[i]);
	/* src untouched */
	{
		struct rps_lcore_stats b2;

		fill_stats(&b2, UINT64_C(1) << 33);
#define CHECK_SRC(f, d) CU_ASSERT_EQUAL(b.f, b2.f);
		RPS_LCORE_COUNTERS(CHECK_SRC)
#undef CHECK_SRC
	}
	/* accumulating into zero is a copy; accumulating zero changes nothing */
	{
		struct rps_lcore_stats z, acc;

		memset(&z, 0, sizeof(z));
		memset(&acc, 0, sizeof(acc));
		rps_stats_accumulate(&acc, &a);
		rps_stats_accumulate(&acc, &z);
#define CHECK_ID(f, d) CU_ASSERT_EQUAL(acc.f, a.f);
		RPS_LCORE_COUNTERS(CHECK_ID)
#undef CHECK_ID
		for (unsigned int i = 0; i < RPS_DROP_MAX; i++)
			CU_ASSERT_EQUAL(acc.dropped[i], a.dropped[i]);
	}
}

static void
test_stats_dropped_total(void)
{
	struct rps_lcore_stats s;
	uint64_t want = 0;

	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(rps_stats_dropped_total(&s), 0);
	fill_stats(&s, 100);
	for (unsigned int i = 0; i < RPS_DROP_MAX; i++)
		want += s.dropped[i];
	CU_ASSERT_EQUAL(rps_stats_dropped_total(&s), want);
	/* only the drop counters count */
	memset(&s, 0, sizeof(s));
	s.rx_packets = 1000;
	s.enqueued = 900;
	CU_ASSERT_EQUAL(rps_stats_dropped_total(&s), 0);
	s.dropped[RPS_DROP_BACKLOG_FULL] = 60;
	s.dropped[RPS_DROP_TX_FAILED] = 40;
	CU_ASSERT_EQUAL(rps_stats_dropped_total(&s), 100);
}

static void
test_ctr_macros(void)
{
	struct rps_lcore_stats s;

	memset(&s, 0, sizeof(s));
	RPS_CTR_ADD(s.rx_packets, 5);
	RPS_CTR_ADD(s.rx_packets, 7);
	CU_ASSERT_EQUAL(RPS_CTR_READ(s.rx_packets), 12);
	RPS_CTR_MAX(s.bytes, 10);
	RPS_CTR_MAX(s.bytes, 3);
	CU_ASSERT_EQUAL(s.bytes, 10);
	RPS_CTR_MAX(s.bytes, 11);
	CU_ASSERT_EQUAL(s.bytes, 11);
}

/* The port table: RX ports in slots 1.., every other id (and one past the table) in 0. */
static void
test_port_slots(void)
{
	static struct rps_lcore_stats s; /* static: about 2 KiB */
	const uint16_t ports[] = { 3, 0, RTE_MAX_ETHPORTS - 1 };
	struct rte_mbuf m;

	memset(&s, 0, sizeof(s));
	/* all zero: every port counts in slot 0 */
	CU_ASSERT_EQUAL(rps_stats_slot(&s, 3), 0);
	CU_ASSERT_EQUAL(rps_stats_set_ports(&s, ports, RTE_DIM(ports)), 0);
	CU_ASSERT_EQUAL(rps_stats_slot(&s, 3), 1);
	CU_ASSERT_EQUAL(rps_stats_slot(&s, 0), 2);
	CU_ASSERT_EQUAL(rps_stats_slot(&s, RTE_MAX_ETHPORTS - 1), 3);
	CU_ASSERT_EQUAL(rps_stats_slot(&s, 1), 0);
	CU_ASSERT_EQUAL(rps_stats_slot(&s, RTE_MAX_ETHPORTS), 0);
	CU_ASSERT_EQUAL(rps_stats_slot(&s, UINT16_MAX), 0); /* RTE_MBUF_PORT_INVALID */
	CU_ASSERT_PTR_EQUAL(rps_stats_port(&s, 0), &s.port[2]);

	/* a drop counts for the mbuf's port only */
	memset(&m, 0, sizeof(m));
	m.port = 0;
	rps_stats_port_drop(&s, &m, RPS_DROP_TRUNCATED);
	m.port = UINT16_MAX;
	rps_stats_port_drop(&s, &m, RPS_DROP_TX_FAILED);
	CU_ASSERT_EQUAL(s.port[2].dropped[RPS_DROP_TRUNCATED], 1);
	CU_ASSERT_EQUAL(s.port[0].dropped[RPS_DROP_TX_FAILED], 1);
	CU_ASSERT_EQUAL(rps_port_dropped_total(&s.port[2]), 1);
	CU_ASSERT_EQUAL(rps_port_dropped_total(&s.port[1]), 0);

	/* refused: too many, out of range, repeated; the table is then all slot 0 */
	uint16_t many[RPS_PORTS_MAX + 1];

	for (unsigned int i = 0; i < RTE_DIM(many); i++)
		many[i] = (uint16_t)i;
	CU_ASSERT_EQUAL(rps_stats_set_ports(&s, many, RPS_PORTS_MAX + 1), -EINVAL);
	CU_ASSERT_EQUAL(rps_stats_set_ports(&s, many, RPS_PORTS_MAX), 0);
	CU_ASSERT_EQUAL(rps_stats_slot(&s, RPS_PORTS_MAX - 1), RPS_PORTS_MAX);
	const uint16_t bad[] = { 1, RTE_MAX_ETHPORTS };
	const uint16_t twice[] = { 1, 2, 1 };

	CU_ASSERT_EQUAL(rps_stats_set_ports(&s, bad, RTE_DIM(bad)), -EINVAL);
	CU_ASSERT_EQUAL(rps_stats_slot(&s, 1), 0);
	CU_ASSERT_EQUAL(rps_stats_set_ports(&s, twice, RTE_DIM(twice)), -EINVAL);
	CU_ASSERT_EQUAL(rps_stats_slot(&s, 2), 0);
	CU_ASSERT_EQUAL(rps_stats_set_ports(&s, NULL, 0), 0);
	CU_ASSERT_EQUAL(s.port[2].dropped[RPS_DROP_TRUNCATED], 1); /* counters kept */
}

/* Per-port counters are read and summed slot by slot. */
static void
test_port_accumulate(void)
{
	static struct rps_lcore_stats a, b, r, sum;
	const uint16_t ports[] = { 0, 1 };

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&sum, 0, sizeof(sum));
	CU_ASSERT_EQUAL(rps_stats_set_ports(&a, ports, 2), 0);
	RPS_CTR_ADD(a.port[1].received, 10);
	RPS_CTR_ADD(a.port[1].processed, 7);
	RPS_CTR_ADD(a.port[1].forwarded, 6);
	RPS_CTR_ADD(a.port[1].dropped[RPS_DROP_BACKLOG_FULL], 3);
	RPS_CTR_ADD(b.port[1].processed, 2);
	RPS_CTR_ADD(b.port[2].dropped[RPS_DROP_TX_FAILED], 4);
	rps_stats_read(&a, &r);
	CU_ASSERT_EQUAL(r.port[1].received, 10);
	CU_ASSERT_EQUAL(r.port[1].dropped[RPS_DROP_BACKLOG_FULL], 3);
	CU_ASSERT_EQUAL(rps_stats_slot(&r, 1), 2); /* the table comes along */
	rps_stats_accumulate(&sum, &r);
	rps_stats_accumulate(&sum, &b);
	CU_ASSERT_EQUAL(sum.port[1].received, 10);
	CU_ASSERT_EQUAL(sum.port[1].processed, 9);
	CU_ASSERT_EQUAL(sum.port[1].forwarded, 6);
	CU_ASSERT_EQUAL(sum.port[1].dropped[RPS_DROP_BACKLOG_FULL], 3);
	CU_ASSERT_EQUAL(sum.port[2].dropped[RPS_DROP_TX_FAILED], 4);
	CU_ASSERT_EQUAL(rps_port_dropped_total(&sum.port[0]), 0);
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "drop_names", test_drop_names },
		{ "drop_names_out_of_range", test_drop_names_out_of_range },
		{ "stats_read", test_stats_read },
		{ "stats_accumulate", test_stats_accumulate },
		{ "stats_dropped_total", test_stats_dropped_total },
		{ "ctr_macros", test_ctr_macros },
		{ "port_slots", test_port_slots },
		{ "port_accumulate", test_port_accumulate },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "counters", tests);
}
