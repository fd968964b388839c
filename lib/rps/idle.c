/* SPDX-License-Identifier: BSD-3-Clause */
/* idle.c: set-up of the idle backoff (rps_idle.h). */
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>

#include <rte_cpuflags.h>

#include "rps_idle.h"

void
rps_idle_init(struct rps_idle *s, uint32_t spin_us, uint32_t max_us, uint64_t hz)
{
	struct rte_cpu_intrinsics intr;

	memset(s, 0, sizeof(*s));
	s->spin = (uint64_t)spin_us * hz / 1000000;
	s->deep = s->spin + (uint64_t)RPS_IDLE_DEEP_MS * hz / 1000;
	s->max_us = max_us;
	s->deep_us = RTE_MAX(max_us * RPS_IDLE_DEEP_FACTOR, RPS_IDLE_DEEP_MIN_US);
	s->cur_us = 1;
	rte_cpu_get_intrinsics_support(&intr);
	s->monitor = intr.power_monitor != 0;
}

int
rps_idle_thread_init(void)
{
	/* The default 50 us slack would stretch every short sleep by up to 50 us. */
	return prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) == 0 ? 0 : -errno;
}
