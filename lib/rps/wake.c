/* SPDX-License-Identifier: BSD-3-Clause */
/* wake.c: the futex under rps_wake.h: the worker's sleep and the RX lcore's wake-up. */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rps_wake.h"

void
rps_wake_syscall(struct rps_wake *w)
{
	/* FUTEX_PRIVATE: the word is in this process (its workers are threads) */
	(void)syscall(SYS_futex, &w->state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

int
rps_wake_sleep(struct rps_wake *w, int (*empty)(void *arg), void *arg, uint32_t timeout_us)
{
	const struct timespec ts = {
		.tv_sec = timeout_us / 1000000,
		.tv_nsec = (long)(timeout_us % 1000000) * 1000,
	};

	__atomic_store_n(&w->state, RPS_WAKE_SLEEP, __ATOMIC_RELAXED);
	/* pairs with rps_wake_fence() on the RX lcore: it sees SLEEP, or we see its packets */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!empty(arg)) {
		/* a kick may have landed meanwhile (KICKED): either way, running again */
		__atomic_store_n(&w->state, RPS_WAKE_RUN, __ATOMIC_RELAXED);
		return 0;
	}
	/* returns at once (EAGAIN) when the word is no longer SLEEP: a kick is never lost */
	(void)syscall(SYS_futex, &w->state, FUTEX_WAIT_PRIVATE, RPS_WAKE_SLEEP, &ts, NULL, 0);
	/* the dequeue that follows reads the ring's tail with acquire: it sees the packets */
	__atomic_store_n(&w->state, RPS_WAKE_RUN, __ATOMIC_RELAXED);
	return 1;
}
