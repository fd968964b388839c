/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_wake.c: the sleeping worker and the RX lcore's wake-up (lib/rps/rps_wake.h) raced on
 * two threads over a real backlog: a producer enqueues bursts with short random gaps and
 * kicks after each, as the RX lcore does once per poll; a consumer drains and sleeps in the
 * kernel whenever it finds the backlog empty. A lost wake-up shows as a sleep that runs to
 * its timeout while the producer is still sending (its gaps are far shorter); the control
 * run, whose producer never kicks, must show them, so the detector is known to work.
 */
#include <pthread.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include "rps_backlog.h"
#include "rps_wake.h"
#include "test_common.h"

#define RING 4096u

struct race {
	struct rps_backlog b;
	struct rps_wake wake;
	int kick;                 /* 0: the control, a producer that never wakes anyone */
	uint32_t items;
	uint32_t timeout_us;      /* the consumer's sleep */
	uint32_t max_gap_us;      /* the producer's longest pause between bursts */
	uint32_t done;            /* the producer has sent everything */
	/* results */
	uint64_t woken, coalesced, sleeps, rechecks, lost, got, out_of_order;
};

static int
ring_empty(void *arg)
{
	const struct race *r = arg;

	return rte_ring_empty(r->b.ring);
}

static void *
consumer(void *arg)
{
	struct race *r = arg;
	const uint64_t hz = rte_get_tsc_hz();
	uintptr_t next = 1;
	void *objs[32];

	while (r->got < r->items) {
		unsigned int n = rte_ring_dequeue_burst(r->b.ring, objs, RTE_DIM(objs), NULL);
		uint64_t t0;
		int done;

		for (unsigned int i = 0; i < n; i++, next++)
			if ((uintptr_t)objs[i] != next)
				r->out_of_order++;
		r->got += n;
		if (n != 0)
			continue;
		done = __atomic_load_n(&r->done, __ATOMIC_ACQUIRE);
		t0 = rte_rdtsc();
		if (!rps_wake_sleep(&r->wake, ring_empty, r, r->timeout_us)) {
			r->rechecks++;
			continue;
		}
		r->sleeps++;
		/* slept the whole timeout while the producer, which pauses far less, still sent */
		if (!done && rte_rdtsc() - t0 >= (uint64_t)r->timeout_us * hz / 1000000 * 3 / 4)
			r->lost++;
	}
	return NULL;
}

static void
producer(struct race *r)
{
	const uint64_t hz = rte_get_tsc_hz();
	uintptr_t next = 1;

	while (next <= r->items) {
		void *objs[32];
		uint32_t n = 1 + (uint32_t)rand() % RTE_DIM(objs);
		uint64_t gap;

		n = RTE_MIN(n, r->items - (uint32_t)next + 1);
		for (uint32_t i = 0; i < n; i++)
			objs[i] = (void *)(next + i);
		/* a consumer descheduled for long may let the ring fill: wait for room (as
		 * backpressure does) rather than drop, so that every item is counted */
		while (rte_ring_free_count(r->b.ring) < n)
			rte_pause();
		CU_ASSERT_EQUAL_FATAL(rps_backlog_enqueue(&r->b, (struct rte_mbuf **)objs, n), n);
		next += n;
		if (r->kick) {
			int k;

			rps_wake_fence();
			k = rps_backlog_kick(&r->b);
			r->woken += k == RPS_KICK_WOKEN;
			r->coalesced += k == RPS_KICK_COALESCED;
		}
		/* a gap of 0 to max_gap_us: long enough, often, for the consumer to fall asleep */
		gap = (uint64_t)((uint32_t)rand() % (r->max_gap_us + 1)) * hz / 1000000;
		for (uint64_t t = rte_rdtsc(); rte_rdtsc() - t < gap;)
			rte_pause();
	}
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	rps_wake_fence();
	(void)rps_wake_kick(&r->wake);
}

static void
race_run(struct race *r, const char *name)
{
	pthread_t t;

	CU_ASSERT_EQUAL_FATAL(rps_backlog_init(&r->b, name, RING, SOCKET_ID_ANY), 0);
	r->b.wake = &r->wake;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, consumer, r), 0);
	producer(r);
	pthread_join(t, NULL);
	printf("\n  %s: %u items, %lu sleeps, %lu re-checks found work, woken %lu, coalesced %lu, "
	       "lost %lu\n", name, r->items, (unsigned long)r->sleeps, (unsigned long)r->rechecks,
	       (unsigned long)r->woken, (unsigned long)r->coalesced, (unsigned long)r->lost);
	rte_ring_free(r->b.ring);
}

/* The race: every item arrives, in order, and no sleep outlives the producer's pauses. */
static void
test_wake_race(void)
{
	struct race r = { .kick = 1, .items = 200000, .timeout_us = 200000, .max_gap_us = 20 };

	srand(7);
	race_run(&r, "wake_race");
	CU_ASSERT_EQUAL(r.got, r.items);
	CU_ASSERT_EQUAL(r.out_of_order, 0);
	CU_ASSERT_EQUAL(r.lost, 0);
	/* the race happened: the consumer slept and was woken many times */
	CU_ASSERT(r.sleeps > 100);
	CU_ASSERT(r.woken > 100);
	CU_ASSERT_EQUAL(r.b.prod.kicked, r.b.prod.tail);
	CU_ASSERT_EQUAL(rps_wake_state(&r.wake), RPS_WAKE_RUN);
}

/* The control: a producer that never kicks leaves the consumer asleep to its timeout while
 * items wait; the detector above counts those (so lost == 0 there means something). */
static void
test_wake_control(void)
{
	struct race r = { .kick = 0, .items = 2000, .timeout_us = 10000, .max_gap_us = 1000 };

	srand(7);
	race_run(&r, "wake_control");
	CU_ASSERT_EQUAL(r.got, r.items);
	CU_ASSERT(r.lost > 0);
	CU_ASSERT_EQUAL(r.woken, 0);
}

static int
flag_says(void *arg)
{
	return *(const int *)arg;
}

/* the re-check says "nothing", but an RX lcore kicks right after it */
static int
kick_in_recheck(void *arg)
{
	CU_ASSERT_EQUAL(rps_wake_kick(arg), RPS_KICK_WOKEN);
	return 1;
}

/* Single-threaded semantics: a kick on a running worker does nothing; a re-check that finds
 * work returns 0 without sleeping; a sleep times out; KICKED is coalesced. */
static void
test_wake_states(void)
{
	struct rps_wake w = { .state = RPS_WAKE_RUN };
	int work = 0, none = 1;
	uint64_t t0;

	CU_ASSERT_EQUAL(rps_wake_kick(&w), RPS_KICK_NONE);
	CU_ASSERT_EQUAL(rps_wake_sleep(&w, flag_says, &work, 1000), 0);
	CU_ASSERT_EQUAL(rps_wake_state(&w), RPS_WAKE_RUN);
	t0 = rte_rdtsc();
	CU_ASSERT_EQUAL(rps_wake_sleep(&w, flag_says, &none, 5000), 1);
	CU_ASSERT(rte_rdtsc() - t0 >= rte_get_tsc_hz() / 1000 * 4);
	CU_ASSERT_EQUAL(rps_wake_state(&w), RPS_WAKE_RUN);
	w.state = RPS_WAKE_SLEEP;
	CU_ASSERT_EQUAL(rps_wake_kick(&w), RPS_KICK_WOKEN);
	CU_ASSERT_EQUAL(rps_wake_state(&w), RPS_WAKE_KICKED);
	CU_ASSERT_EQUAL(rps_wake_kick(&w), RPS_KICK_COALESCED);
	/* a kick between the re-check and the wait: the wait returns at once */
	t0 = rte_rdtsc();
	CU_ASSERT_EQUAL(rps_wake_sleep(&w, kick_in_recheck, &w, 2000000), 1);
	CU_ASSERT(rte_rdtsc() - t0 < rte_get_tsc_hz() / 2);
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "wake_states", test_wake_states },
		{ "wake_race", test_wake_race },
		{ "wake_control", test_wake_control },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "wake", tests);
}
