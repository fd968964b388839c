/* SPDX-License-Identifier: BSD-3-Clause */
/* lcore_state.c: what an lcore is doing (polling, sleeping) and its CPU time so far, for
 * /rps/workers, the live table and the metrics. Control thread only: reads /proc. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app.h"

const char *
rps_lcore_state_name(const struct rps_worker *w)
{
	switch (rps_wake_state(&w->wake)) {
	case RPS_WAKE_SLEEP:
		return "sleeping";
	case RPS_WAKE_KICKED:
		return "waking";
	default:
		return "polling";
	}
}

uint64_t
rps_lcore_cpu_ms(const struct rps_worker *w)
{
	const int tid = __atomic_load_n(&w->tid, __ATOMIC_RELAXED);
	unsigned long long ut = 0, st = 0;
	const long hz = sysconf(_SC_CLK_TCK);
	char path[64], buf[1024], *p;
	size_t n;
	FILE *f;

	if (tid <= 0 || hz <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* after the command name's ')': state is field 3, utime 14, stime 15 */
	p = strrchr(buf, ')');
	if (p == NULL || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
				&ut, &st) != 2)
		return 0;
	return (uint64_t)(ut + st) * 1000 / (uint64_t)hz;
}
