/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app_consumers.h: the consumers' part of the application context (--consumers): their
 * groups, endpoints and server. setup/consumers.c fills it on the main thread before the
 * lcores run and closes it at exit after they stopped; in between the memif hub thread owns
 * each endpoint's state (rps_memif.h) and each worker its own counters toward it; the
 * groups' filters are the control thread's (below).
 */
#ifndef RPS_APP_CONSUMERS_H
#define RPS_APP_CONSUMERS_H

#include <stdint.h>
#include <sys/types.h>

#include "options.h"
#include "rps_memif.h"
#include "rps_stage.h"

/** A consumer (--consumers, setup/consumers.c): a memif endpoint of dpdk-rps's own server
 * (rps_memif.h) that the workers w with w mod K == member send to (K: its group's size):
 * the only one on it directly, several through its share (rps_stage.h). */
struct rps_consumer {
	struct rps_memif *memif;       /* its endpoint (set-up; its hub thread owns the rest);
					* NULL once closed at exit: */
	struct rps_memif_stats last;   /* ... its counts then */
	uint16_t feeders;              /* workers feeding it */
	uint16_t group, member;        /* its group, and its index in the group */
	struct rps_share share;        /* feeders > 1: their ring and lock (ring NULL else) */
	char path[RPS_CONSUMER_PATH_MAX]; /* its memif socket */
} __rte_cache_aligned;

struct rps_app_consumers {
	uint16_t nb_consumers;          /* --consumers (0: off), in all groups */
	uint16_t nb_groups;             /* consumer groups (--consumers K,K...) */
	uint16_t group_base[RPS_CONSUMER_GROUPS_MAX]; /* group g's first consumer index */
	uint16_t group_size[RPS_CONSUMER_GROUPS_MAX]; /* ... and how many it has */
	struct rps_consumer consumers[RPS_CONSUMERS_MAX];
	struct rps_memif_hub *memif_hub; /* the consumers' server thread (setup/consumers.c) */
	gid_t consumer_gid;             /* --consumer-group's */
	/* --consumer-filter / [consumers] filter.G (control/filters.c): written by the set-up
	 * thread, then the control thread (reloads), with a release store under ctl.lock;
	 * workers load it once per burst (acquire; a replaced set is freed after their
	 * quiescent states), telemetry and reports read it under ctl.lock. NULL: no filter. */
	struct rps_filter_set *filters;
};

/* The consumer worker @p w feeds in group @p g (consumers are numbered across the groups,
 * group 0's first). */
static inline uint16_t
rps_consumer_of(const struct rps_app_consumers *cons, uint16_t g, uint16_t w)
{
	return (uint16_t)(cons->group_base[g] + w % cons->group_size[g]);
}

#endif /* RPS_APP_CONSUMERS_H */
