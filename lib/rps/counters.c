/* SPDX-License-Identifier: BSD-3-Clause */
/* counters.c: names of the drop reasons and helpers to read and sum per-lcore counters. */
#include "rps_counters.h"

static const char *const drop_names[RPS_DROP_MAX] = {
#define RPS_X_NAME(e, n, d) [RPS_DROP_##e] = #n,
	RPS_DROP_REASONS(RPS_X_NAME)
#undef RPS_X_NAME
};

static const char *const drop_descr[RPS_DROP_MAX] = {
#define RPS_X_DESCR(e, n, d) [RPS_DROP_##e] = d,
	RPS_DROP_REASONS(RPS_X_DESCR)
#undef RPS_X_DESCR
};

const char *
rps_drop_name(enum rps_drop_reason r)
{
	return (unsigned int)r < RPS_DROP_MAX ? drop_names[r] : NULL;
}

static const char *const stage_names[RPS_STAGE_MAX] = {
#define RPS_X_SNAME(e, n) [RPS_STAGE_##e] = #n,
	RPS_STAGE_LIST(RPS_X_SNAME)
#undef RPS_X_SNAME
};

const char *
rps_stage_name(enum rps_stage_id s)
{
	return (unsigned int)s < RPS_STAGE_MAX ? stage_names[s] : NULL;
}

const char *
rps_drop_description(enum rps_drop_reason r)
{
	return (unsigned int)r < RPS_DROP_MAX ? drop_descr[r] : NULL;
}

void
rps_stats_read(const struct rps_lcore_stats *src, struct rps_lcore_stats *dst)
{
#define RPS_X_READ(f, d) dst->f = RPS_CTR_READ(src->f);
	RPS_LCORE_COUNTERS(RPS_X_READ)
#undef RPS_X_READ
	for (unsigned int i = 0; i < RPS_DROP_MAX; i++)
		dst->dropped[i] = RPS_CTR_READ(src->dropped[i]);
	for (unsigned int i = 0; i < RPS_STAGE_MAX; i++) {
		dst->stage_in[i] = RPS_CTR_READ(src->stage_in[i]);
		dst->stage_out[i] = RPS_CTR_READ(src->stage_out[i]);
	}
}

void
rps_stats_accumulate(struct rps_lcore_stats *dst, const struct rps_lcore_stats *src)
{
#define RPS_X_ACC(f, d) dst->f += src->f;
	RPS_LCORE_COUNTERS(RPS_X_ACC)
#undef RPS_X_ACC
	for (unsigned int i = 0; i < RPS_DROP_MAX; i++)
		dst->dropped[i] += src->dropped[i];
	for (unsigned int i = 0; i < RPS_STAGE_MAX; i++) {
		dst->stage_in[i] += src->stage_in[i];
		dst->stage_out[i] += src->stage_out[i];
	}
}

uint64_t
rps_stats_dropped_total(const struct rps_lcore_stats *s)
{
	uint64_t t = 0;

	for (unsigned int i = 0; i < RPS_DROP_MAX; i++)
		t += s->dropped[i];
	return t;
}
