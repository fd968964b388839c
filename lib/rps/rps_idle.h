/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_idle.h: idle backoff for a polling lcore, so that an idle link does not burn cores.
 *
 * While polls find work, nothing happens. Once they have found none for `spin` TSC ticks the
 * lcore starts to sleep between polls, first 1 us, doubling up to `max_us`; the first poll
 * that finds work resets it. So at load the loop is the plain busy poll, and when idle the
 * lcore wakes at most max_us (plus the kernel's timer slack, which rps_idle_thread_init()
 * sets to 1 ns) after new packets arrive. max_us == 0 disables the backoff (always poll).
 * After RPS_IDLE_DEEP_MS of nothing the sleeps grow on to RPS_IDLE_DEEP_FACTOR x max_us, and
 * at least RPS_IDLE_DEEP_MIN_US, as a cpuidle governor picks a deeper state for a longer
 * idle: a link silent for that long costs a twentieth of the wake-ups at the default
 * max_us (each wake-up costs 10 to 40 us of CPU in a guest: the vCPU halts and is woken),
 * and only its first packet waits longer. Traffic that comes at least once a second (a
 * ping, keep-alives) never reaches the deep sleeps.
 *
 * Where the CPU can wait on a cache line (WAITPKG: UMONITOR/UMWAIT, rte_power_monitor()),
 * the sleep is instead a monitor on the word that the producer writes (the backlog ring's
 * producer tail), so the lcore wakes as soon as packets are enqueued; this machine has no
 * WAITPKG, so that path is used only where rte_cpu_get_intrinsics_support() reports it.
 *
 * Concurrency: one struct per polling loop, used by its lcore only.
 */
#ifndef RPS_IDLE_H
#define RPS_IDLE_H

#include <stdint.h>
#include <time.h>

#include <rte_common.h>
#include <rte_pause.h>
#include <rte_power_intrinsics.h>

/** Idle this long (ms), the sleeps may grow to RPS_IDLE_DEEP_FACTOR x max_us, and at least
 * to RPS_IDLE_DEEP_MIN_US. */
#define RPS_IDLE_DEEP_MS 1000u
#define RPS_IDLE_DEEP_FACTOR 4u
#define RPS_IDLE_DEEP_MIN_US 1000u

struct rps_idle {
	uint64_t spin;        /**< TSC ticks of empty polls before sleeping */
	uint64_t deep;        /**< TSC ticks of empty polls before the deeper sleeps */
	uint32_t max_us;      /**< longest sleep; 0 = never sleep */
	uint32_t deep_us;     /**< longest sleep past `deep` */
	uint32_t cur_us;      /**< next sleep */
	uint64_t since;       /**< TSC of the first empty poll of this idle period, 0 = busy */
	int monitor;          /**< rte_power_monitor() is usable */
};

/**
 * Set up @p s: @p spin_us of empty polls before the first sleep, sleeps up to @p max_us.
 * @p hz: rte_get_tsc_hz(). Call rps_idle_thread_init() once from the polling thread.
 */
void rps_idle_init(struct rps_idle *s, uint32_t spin_us, uint32_t max_us, uint64_t hz);

/** Make the calling thread's sleeps exact (timer slack 1 ns). @return 0 or -errno. */
int rps_idle_thread_init(void);

/**
 * The sleep this poll should take, in us (0: just pause), given whether it found work and
 * the TSC now. Pure bookkeeping, no waiting: rps_idle_poll() does the waiting.
 */
static inline uint32_t
rps_idle_next(struct rps_idle *s, int busy, uint64_t now)
{
	uint32_t us;

	if (busy || s->max_us == 0) {
		s->since = 0;
		s->cur_us = 1;
		return 0;
	}
	if (s->since == 0) {
		s->since = now;
		return 0;
	}
	if (now - s->since < s->spin)
		return 0;
	us = s->cur_us;
	s->cur_us = RTE_MIN(s->cur_us * 2, now - s->since < s->deep ? s->max_us : s->deep_us);
	return us;
}

/** Whether the idle period that @p s is in has lasted RPS_IDLE_DEEP_MS (past the spin):
 * where an lcore has a deeper way to sleep (RX interrupts), the time to use it. */
static inline int
rps_idle_is_deep(const struct rps_idle *s, uint64_t now)
{
	return s->max_us != 0 && s->since != 0 && now - s->since >= s->deep;
}

/** Callback of the monitor: stay asleep while the watched word still holds opaque[0]. */
static inline int
rps_idle_monitor_clb(const uint64_t val, const uint64_t opaque[RTE_POWER_MONITOR_OPAQUE_SZ])
{
	return val == opaque[0] ? 0 : -1;
}

/**
 * Account one poll and wait as the backoff says. @p watch: a 32-bit word the producer
 * writes when it adds work (NULL: none), for the monitor path.
 * @return 1 when the lcore slept (count it), else 0.
 */
static inline int
rps_idle_poll(struct rps_idle *s, int busy, uint64_t now, const volatile uint32_t *watch,
	      uint64_t hz)
{
	uint32_t us = rps_idle_next(s, busy, now);

	if (us == 0) {
		if (!busy)
			rte_pause();
		return 0;
	}
	if (s->monitor && watch != NULL) {
		struct rte_power_monitor_cond pmc = {
			.addr = (volatile void *)(uintptr_t)watch, /* only read */
			.fn = rps_idle_monitor_clb,
			.size = sizeof(uint32_t),
		};

		pmc.opaque[0] = *watch;
		if (rte_power_monitor(&pmc, now + (uint64_t)us * hz / 1000000) == 0)
			return 1;
	}
	{
		struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)us * 1000 };

		nanosleep(&ts, NULL);
	}
	return 1;
}

#endif /* RPS_IDLE_H */
