/* SPDX-License-Identifier: BSD-3-Clause */
/* stats.c: medians and latency percentiles for dpdk-rps-bench. */
#include <stdlib.h>

#include "bench.h"

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double
bench_median(double *v, unsigned int n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void
bench_hist_merge(uint64_t *into, const uint64_t *from)
{
	for (unsigned int i = 0; i <= BENCH_HIST_BUCKETS; i++)
		into[i] += from[i];
}

/* Upper bound (ns) of the bucket holding the q-quantile sample. */
static double
quantile(const uint64_t *hist, uint64_t total, double q, uint64_t max_ns)
{
	uint64_t rank = (uint64_t)((double)total * q), seen = 0;

	for (unsigned int i = 0; i < BENCH_HIST_BUCKETS; i++) {
		seen += hist[i];
		if (seen > rank)
			return (double)((uint64_t)(i + 1) << BENCH_HIST_SHIFT);
	}
	return (double)max_ns; /* in the overflow bucket */
}

void
bench_latency_summary(const uint64_t *hist, uint64_t max_ns, struct bench_latency *l)
{
	uint64_t total = 0;

	for (unsigned int i = 0; i <= BENCH_HIST_BUCKETS; i++)
		total += hist[i];
	l->samples = total;
	l->p50_ns = quantile(hist, total, 0.50, max_ns);
	l->p99_ns = quantile(hist, total, 0.99, max_ns);
	l->p999_ns = quantile(hist, total, 0.999, max_ns);
	l->max_ns = (double)max_ns;
}
