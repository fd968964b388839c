/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_wake.h: a worker that sleeps in the kernel while its backlogs are empty, and the RX
 * lcore's wake-up: the user-space twin of the IPI that Linux's net_rps_action() sends, once
 * per poll, to each CPU that enqueue_to_backlog() queued packets to (rps_ipi_list).
 *
 * One word per worker, a futex:
 *   RPS_WAKE_RUN    the worker is polling (or about to);
 *   RPS_WAKE_SLEEP  the worker has found its backlogs empty and sleeps (or is about to);
 *   RPS_WAKE_KICKED an RX lcore has changed SLEEP to KICKED and made the one futex wake-up;
 *                   others that enqueue before the worker runs again need none (coalesced).
 *
 * No lost wake-up (the rule of every sleeping consumer, Dekker's):
 *   worker: state = SLEEP; full fence; if (backlogs not empty) state = RUN, poll;
 *           else futex_wait(state, SLEEP, timeout); state = RUN.
 *   RX:     enqueue (the ring's release store of its tail); full fence (rps_wake_fence());
 *           if (state == SLEEP && CAS(state, SLEEP, KICKED)) futex_wake(state).
 * Each side stores, fences, then loads what the other stores: at least one of them sees the
 * other's store, so either the worker finds the packets or the RX lcore finds it asleep.
 * futex_wait() itself returns at once when the word is no longer SLEEP, so a kick between the
 * worker's check and its wait is not lost either. The wait has a timeout, so that a sleeping
 * worker still does its idle work (reassembly timers, flow ageing, drain marks) now and then.
 *
 * Cost on the RX lcore: per poll that enqueued anything, one fence and one load of each
 * touched worker's word (read-shared while the worker runs); a CAS and the syscall only for a
 * worker asleep: the one syscall of the data path, once per burst per sleeping worker.
 *
 * Concurrency: rps_wake_sleep() only from the worker that owns the word; rps_wake_kick() from
 * any thread (every RX lcore, the control thread at exit); rps_wake_state() from anywhere.
 */
#ifndef RPS_WAKE_H
#define RPS_WAKE_H

#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

/** Longest sleep of an idle worker: it wakes this often for its idle work (reassembly
 * timers, flow ageing, drain marks, flow snapshots) when no packet comes. */
#define RPS_WAKE_IDLE_US 10000u

enum rps_wake_state {
	RPS_WAKE_RUN = 0,
	RPS_WAKE_SLEEP = 1,
	RPS_WAKE_KICKED = 2,
};

/** One worker's word, alone on its cache line (RX lcores read it every busy poll). */
struct rps_wake {
	uint32_t state;
} __rte_cache_aligned;

/** What rps_wake_kick() did. */
enum rps_wake_kick_result {
	RPS_KICK_NONE = 0,      /**< the worker was running: nothing to do */
	RPS_KICK_WOKEN = 1,     /**< it slept: this call woke it (one syscall) */
	RPS_KICK_COALESCED = 2, /**< it slept and someone had woken it already */
};

/** The worker's state now (relaxed: for telemetry and tests). */
static inline uint32_t
rps_wake_state(const struct rps_wake *w)
{
	return __atomic_load_n(&w->state, __ATOMIC_RELAXED);
}

/** The RX lcore's full fence between its enqueues and its rps_wake_kick()s: once per poll. */
static inline void
rps_wake_fence(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/** The futex wake-up itself (wake.c): out of line, it is the slow path. */
void rps_wake_syscall(struct rps_wake *w);

/**
 * Wake @p w's worker if it sleeps, after rps_wake_fence() that follows the enqueue.
 * @return an enum rps_wake_kick_result.
 */
static inline int
rps_wake_kick(struct rps_wake *w)
{
	uint32_t s = __atomic_load_n(&w->state, __ATOMIC_RELAXED);

	if (likely(s == RPS_WAKE_RUN))
		return RPS_KICK_NONE;
	if (s == RPS_WAKE_SLEEP &&
	    __atomic_compare_exchange_n(&w->state, &s, RPS_WAKE_KICKED, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_RELAXED)) {
		rps_wake_syscall(w);
		return RPS_KICK_WOKEN;
	}
	return s == RPS_WAKE_RUN ? RPS_KICK_NONE : RPS_KICK_COALESCED;
}

/**
 * The worker's sleep: announce it, call @p empty(@p arg) once more after a full fence, and
 * if it still says there is nothing to do, sleep until kicked or @p timeout_us passes.
 * @return 1 when it slept in the kernel (woken or timed out), 0 when the re-check found work.
 */
int rps_wake_sleep(struct rps_wake *w, int (*empty)(void *arg), void *arg, uint32_t timeout_us);

#endif /* RPS_WAKE_H */
