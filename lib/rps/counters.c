/* SPDX-License-Identifier: BSD-3-Clause */
/* counters.c: names of the drop reasons and helpers to read and sum per-lcore counters. */
#include <errno.h>
#include <string.h>

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
	memcpy(dst->port_slot, src->port_slot, sizeof(dst->port_slot)); /* set before start */
	for (unsigned int p = 0; p < RPS_PORT_SLOTS; p++) {
#define RPS_X_PREAD(f, d) dst->port[p].f = RPS_CTR_READ(src->port[p].f);
		RPS_PORT_COUNTERS(RPS_X_PREAD)
#undef RPS_X_PREAD
		for (unsigned int i = 0; i < RPS_DROP_MAX; i++)
			dst->port[p].dropped[i] = RPS_CTR_READ(src->port[p].dropped[i]);
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
	/* by slot: every lcore of an application has the same table */
	for (unsigned int p = 0; p < RPS_PORT_SLOTS; p++) {
#define RPS_X_PACC(f, d) dst->port[p].f += src->port[p].f;
		RPS_PORT_COUNTERS(RPS_X_PACC)
#undef RPS_X_PACC
		for (unsigned int i = 0; i < RPS_DROP_MAX; i++)
			dst->port[p].dropped[i] += src->port[p].dropped[i];
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

uint64_t
rps_port_dropped_total(const struct rps_port_stats *p)
{
	uint64_t t = 0;

	for (unsigned int i = 0; i < RPS_DROP_MAX; i++)
		t += p->dropped[i];
	return t;
}

int
rps_stats_set_ports(struct rps_lcore_stats *st, const uint16_t *ports, uint16_t n)
{
	memset(st->port_slot, 0, sizeof(st->port_slot));
	if (n > RPS_PORTS_MAX || (n != 0 && ports == NULL))
		return -EINVAL;
	for (uint16_t i = 0; i < n; i++) {
		if (ports[i] >= RTE_MAX_ETHPORTS || st->port_slot[ports[i]] != 0) {
			memset(st->port_slot, 0, sizeof(st->port_slot));
			return -EINVAL;
		}
		st->port_slot[ports[i]] = (uint8_t)(1 + i);
	}
	return 0;
}
