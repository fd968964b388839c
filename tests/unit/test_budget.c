/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_budget.c: the planner that splits the mbuf pool into the RX lcores' reserve and the
 * workers' shares (app/setup/budget.c): whatever the pool, the shares it promises fit it, and the
 * limits are only cut when they must be.
 */
#include "rps_budget.h"
#include "test_common.h"

/* 2 workers, 1 RX lcore, the defaults: --backlog 1000, --frag-mbufs 4096 */
static struct rps_pool_budget
two_workers(uint32_t pool, uint32_t backlog)
{
	struct rps_pool_budget b = {
		.pool = pool, .reserve = 3200, .workers = 2, .fixed = 3072, .backlogs = 1,
		.backlog = backlog, .burst = 64, .frag_mbufs = 4096,
	};

	rps_pool_budgets(&b);
	return b;
}

static void
test_fits(void)
{
	/* the default pool: reserve + 2 x (fixed + backlog + frag) */
	struct rps_pool_budget b = two_workers(3200 + 2 * (3072 + 1000 + 4096), 1000);

	CU_ASSERT_EQUAL(b.cut, 0);
	CU_ASSERT_EQUAL(b.overcommit, 0);
	CU_ASSERT_EQUAL(b.backlog_cap, 1000);
	CU_ASSERT_EQUAL(b.frag_budget, 4096);
	CU_ASSERT_EQUAL(b.share, 3072 + 1000 + 4096);
}

static void
test_cut(void)
{
	/* issue 25's run: --mbufs 16384 --backlog 16384 */
	struct rps_pool_budget b = two_workers(16384, 16384);

	CU_ASSERT_EQUAL(b.cut, 1);
	CU_ASSERT_EQUAL(b.overcommit, 0);
	CU_ASSERT(b.backlog_cap < 16384 && b.backlog_cap >= 64);
	CU_ASSERT(b.frag_budget < 4096 && b.frag_budget >= RPS_BUDGET_MIN_FRAG);
	CU_ASSERT(b.reserve + 2 * b.share <= b.pool);
	/* one factor: the rings keep about their proportion (16384 : 4096) */
	CU_ASSERT(b.backlog_cap / 3 >= b.frag_budget);
	/* one mbuf less or more: still fits, never over */
	for (uint32_t pool = 9000; pool < 60000; pool += 97) {
		b = two_workers(pool, 16384);
		CU_ASSERT_FATAL(b.overcommit || b.reserve + 2 * b.share <= b.pool);
	}
}

static void
test_floors(void)
{
	/* just enough for the smallest limits: a ring of a burst, reassembly 16 */
	struct rps_pool_budget b = two_workers(3200 + 2 * (3072 + 64 + 16), 1000);

	CU_ASSERT_EQUAL(b.cut, 1);
	CU_ASSERT_EQUAL(b.backlog_cap, 64);
	CU_ASSERT_EQUAL(b.frag_budget, 16);
	/* one mbuf per worker less: overcommitted, the limits as asked, reassembly at 16 */
	b = two_workers(3200 + 2 * (3072 + 64 + 16) - 2, 1000);
	CU_ASSERT_EQUAL(b.overcommit, 1);
	CU_ASSERT_EQUAL(b.cut, 0);
	CU_ASSERT_EQUAL(b.backlog_cap, 1000);
	CU_ASSERT_EQUAL(b.frag_budget, 16);
	/* a pool below the reserve (integration-faults' --mbufs 1024) */
	b = two_workers(1024, 4096);
	CU_ASSERT_EQUAL(b.overcommit, 1);
	CU_ASSERT_EQUAL(b.backlog_cap, 4096);
}

static void
test_no_map(void)
{
	/* the RX lcore alone: no backlog, reassembly gets what is left (the pool4096 run) */
	struct rps_pool_budget b = {
		.pool = 4096, .reserve = 2432, .workers = 1, .fixed = 1024, .backlogs = 0,
		.backlog = 1000, .burst = 64, .frag_mbufs = 4096,
	};

	rps_pool_budgets(&b);
	CU_ASSERT_EQUAL(b.cut, 1);
	CU_ASSERT_EQUAL(b.frag_budget, 640);
	CU_ASSERT_EQUAL(b.share, 1024 + 640);
	/* no reassembly stage, rings cut alone */
	b = two_workers(12000, 16384);
	b.frag_mbufs = 0;
	rps_pool_budgets(&b);
	CU_ASSERT_EQUAL(b.frag_budget, 0);
	CU_ASSERT_EQUAL(b.cut, 1);
	CU_ASSERT_EQUAL(b.backlog_cap, (12000 - 3200) / 2 - 3072);
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "fits", test_fits },
		{ "cut", test_cut },
		{ "floors", test_floors },
		{ "no_map", test_no_map },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "budget", tests);
}
