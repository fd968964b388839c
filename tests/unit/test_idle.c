/* SPDX-License-Identifier: BSD-3-Clause */
/* test_idle.c: the idle backoff's decisions (lib/rps/rps_idle.h) over a simulated clock. */
#include <rte_cycles.h>

#include "rps_idle.h"
#include "test_common.h"

#define HZ UINT64_C(1000000000) /* a 1 GHz clock: 1 tick = 1 ns */

/* Busy polls never sleep; empty ones only after the spin; then 1, 2, 4 ... max; work resets. */
static void
test_backoff_sequence(void)
{
	static const uint32_t want[] = { 1, 2, 4, 8, 16, 32, 50, 50, 50 };
	struct rps_idle s;
	uint64_t now = 1000;

	rps_idle_init(&s, 100, 50, HZ);
	CU_ASSERT_EQUAL(s.spin, 100000);
	CU_ASSERT_EQUAL(rps_idle_next(&s, 1, now), 0);
	CU_ASSERT_EQUAL(rps_idle_next(&s, 0, now), 0);            /* idle period starts */
	CU_ASSERT_EQUAL(rps_idle_next(&s, 0, now + 99999), 0);    /* still spinning */
	for (unsigned int i = 0; i < RTE_DIM(want); i++)
		CU_ASSERT_EQUAL(rps_idle_next(&s, 0, now + 100000 + i), want[i]);
	/* one busy poll: back to polling, and a new idle period spins again first */
	CU_ASSERT_EQUAL(rps_idle_next(&s, 1, now + 200000), 0);
	CU_ASSERT_EQUAL(rps_idle_next(&s, 0, now + 200001), 0);
	CU_ASSERT_EQUAL(rps_idle_next(&s, 0, now + 250000), 0);
	CU_ASSERT_EQUAL(rps_idle_next(&s, 0, now + 300001), 1);
	CU_ASSERT_EQUAL(rps_idle_next(&s, 0, now + 300002), 2);
}

/* A second of nothing (RPS_IDLE_DEEP_MS): the sleeps grow on to RPS_IDLE_DEEP_MIN_US (over
 * 4 x max here), and work resets
 * them to the short ones. */
static void
test_backoff_deep(void)
{
	struct rps_idle s;
	const uint64_t deep = 100000 + (uint64_t)RPS_IDLE_DEEP_MS * 1000000;
	uint64_t now = 1000;
	uint32_t us = 0;

	rps_idle_init(&s, 100, 50, HZ);
	CU_ASSERT_EQUAL(rps_idle_next(&s, 0, now), 0);
	for (int i = 0; i < 20; i++)
		us = rps_idle_next(&s, 0, now + 100000 + (uint64_t)i);
	CU_ASSERT_EQUAL(us, 50);                                  /* capped before */
	CU_ASSERT_EQUAL(rps_idle_next(&s, 0, now + deep - 1), 50);
	for (int i = 0; i < 7; i++)
		us = rps_idle_next(&s, 0, now + deep + (uint64_t)i);
	CU_ASSERT_EQUAL(us, RPS_IDLE_DEEP_MIN_US);                /* 100 .. 800, then 1000 */
	CU_ASSERT_EQUAL(rps_idle_next(&s, 0, now + deep + 10), RPS_IDLE_DEEP_MIN_US);
	CU_ASSERT_EQUAL(rps_idle_next(&s, 1, now + deep + 11), 0); /* work */
	CU_ASSERT_EQUAL(rps_idle_next(&s, 0, now + deep + 12), 0);
	CU_ASSERT_EQUAL(rps_idle_next(&s, 0, now + deep + 100013), 1);
}

/* max 0: always poll; spin 0: sleep from the second empty poll. */
static void
test_backoff_limits(void)
{
	struct rps_idle s;

	rps_idle_init(&s, 100, 0, HZ);
	for (uint64_t t = 1; t < 10000000; t += 99999)
		CU_ASSERT_EQUAL(rps_idle_next(&s, 0, t), 0);
	rps_idle_init(&s, 0, 1000, HZ);
	CU_ASSERT_EQUAL(rps_idle_next(&s, 0, 5), 0);
	CU_ASSERT_EQUAL(rps_idle_next(&s, 0, 6), 1);
	for (int i = 0; i < 20; i++)
		rps_idle_next(&s, 0, 7);
	CU_ASSERT_EQUAL(rps_idle_next(&s, 0, 8), 1000);
}

/* The waiting path: a real sleep of the calling thread returns 1, a busy poll 0. */
static void
test_backoff_poll(void)
{
	struct rps_idle s;
	uint64_t hz = rte_get_tsc_hz(), t0 = rte_rdtsc();
	unsigned int slept = 0;

	CU_ASSERT_EQUAL(rps_idle_thread_init(), 0);
	rps_idle_init(&s, 0, 20, hz);
	CU_ASSERT_EQUAL(rps_idle_poll(&s, 1, rte_rdtsc(), NULL, hz), 0);
	for (int i = 0; i < 10; i++)
		slept += (unsigned int)rps_idle_poll(&s, 0, rte_rdtsc(), NULL, hz);
	CU_ASSERT_EQUAL(slept, 9); /* the first empty poll only starts the idle period */
	/* 1+2+4+8+16+20*4 us at least */
	CU_ASSERT(rte_rdtsc() - t0 >= 111 * hz / 1000000);
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "backoff_sequence", test_backoff_sequence },
		{ "backoff_limits", test_backoff_limits },
		{ "backoff_deep", test_backoff_deep },
		{ "backoff_poll", test_backoff_poll },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "idle", tests);
}
