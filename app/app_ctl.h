/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app_ctl.h: the control thread's part of the application context (control/): reloads and
 * their results, the config file's watch, the bucket views and the rebalancer, the rules'
 * hit slots, the per-second rates. The control thread is the one writer once running (the
 * main thread sets it up before, and reads it again only after rps_control_stop()); what
 * others read is under lock, or a single word read atomically, as each field says.
 */
#ifndef RPS_APP_CTL_H
#define RPS_APP_CTL_H

#include <pthread.h>
#include <stdint.h>

#include "rps_config.h"
#include "rps_map.h"
#include "rps_rules.h"

/** Which rule text counts in which hit slot (rules.c): a text keeps its slot, so its count
 * since start, across the rule sets that hold it. Control thread, under app->ctl.lock. */
struct rps_rule_slots {
	char text[RPS_RULE_SLOTS][RPS_RULE_TEXT_MAX]; /* "": never used */
	uint64_t base[RPS_RULE_SLOTS];  /* the slot's count (every RX lcore) when given its text */
	uint32_t gen[RPS_RULE_SLOTS];   /* the last set generation that held it */
};

/** What the control thread knows of one RX queue's buckets (buckets.c): owners of the
 * published map, and each bucket's rate and cycle estimate. Written by the control thread
 * under ctl.lock; telemetry and the exit summary read it under ctl.lock. */
struct rps_bucket_view {
	uint32_t size;                           /* the published map's table size */
	uint32_t epoch;                          /* the counters' epoch at the last sample */
	uint16_t owner[RPS_MAP_SIZE_MAX];        /* worker index of each bucket */
	uint64_t prev_packets[RPS_MAP_SIZE_MAX]; /* counters at the last sample */
	uint64_t delta[RPS_MAP_SIZE_MAX];        /* packets over the last interval */
	uint64_t prev_bytes[RPS_MAP_SIZE_MAX];   /* byte counters at the last sample */
	uint64_t dbytes[RPS_MAP_SIZE_MAX];       /* bytes over the last interval (isolate) */
	uint64_t pps[RPS_MAP_SIZE_MAX];          /* packets/s over the last interval */
	uint64_t cycles[RPS_MAP_SIZE_MAX];       /* estimated worker cycles spent, cumulative */
	uint64_t moved_tsc[RPS_MAP_SIZE_MAX];    /* last move by the rebalancer, 0 = never */
	uint32_t moves[RPS_MAP_SIZE_MAX];        /* moves by the rebalancer */
};

/** The rebalancer's settings (--rebalance*, live through reloads; control thread). */
struct rps_rebalance_conf {
	int on;
	uint32_t interval_ms, threshold_pct, moves, holddown_ms;
};

struct rps_app_ctl {
	pthread_mutex_t lock;          /* map_sets, bview, rebal, imbalance, rule_slots and
					* the reload results: the control thread vs telemetry
					* and the summary */
	struct rps_lcoreset *map_sets; /* [nb_rxq], the lcores of each queue's map */
	struct rps_bucket_view **bview; /* [nb_rxq], buckets.c (lock) */
	uint32_t table_size;           /* buckets of the maps being built */
	uint32_t generation;           /* configuration generation, bumped by each apply
					* (release; readers acquire) */
	struct rps_rebalance_conf rebal; /* copied for readers under lock */
	uint64_t buckets_moved;        /* rebalancer: buckets moved (atomic reads) */
	uint64_t rebalance_runs;       /* rebalancer: intervals it evaluated (atomic reads) */
	uint64_t rebalance_acted;      /* rebalancer: intervals it moved buckets in */
	double imbalance;              /* last interval's max/mean worker load (lock) */
	uint64_t *prev_busy;           /* [nb_workers]: busy_cycles at the last sample */
	uint8_t *isolated;             /* [nb_workers]: --elephant-action isolate: the worker is
					* left to its elephants' buckets (buckets.c). The control
					* thread writes, telemetry reads (relaxed atomic bytes) */
	uint64_t isolations;           /* workers isolated so far (atomic reads) */
	uint64_t buckets_tsc;          /* last sample, 0 = none yet */
	unsigned int over_count;       /* consecutive intervals over the threshold */
	uint32_t rules_gen;            /* generation of the last rules built (lock) */
	struct rps_rule_slots *rule_slots; /* rules.c (lock); NULL until the first set */
	uint16_t (*taken_from)[RPS_MAP_SIZE_MAX]; /* [nb_rxq]: per bucket, the stalled worker
					* it was moved off (health.c), or UINT16_MAX; NULL when
					* --stall-timeout is 0. Control thread only */
	uint64_t *pps;                 /* [nb_workers + 1]: processed/s over the last second,
					* the last entry is the RX lcore's rx rate (atomic) */

	/* live control (control.c): the thread, reloads and their results */
	struct rps_config *start_cfg;  /* the file as read at start (NULL without --config) */
	pthread_t control_thread;
	int control_running;
	int wake_fd;                   /* eventfd SIGHUP writes: wakes the control thread */
	int wake_made;                 /* wake_fd was created (-1 if that failed) */
	uint64_t reloads_ok, reloads_failed; /* (atomic reads) */
	uint64_t reloads_unchanged;    /* reloads of the file as last applied: nothing to do */
	/* the file as last applied (control.c; start or a reload): its digest, whether there is
	 * one, the generation it made and the keys it changed that need a restart (lock) */
	uint64_t applied_digest;
	int applied_known;
	uint32_t applied_gen;
	char applied_restart[160];
	uint64_t last_reload_tsc;      /* 0 = never */
	char last_reload_result[256];  /* "ok", "ok; needs a restart for: backlog", or the
					* error (lock) */
	uint64_t watch_events;         /* inotify events on the config's names (atomic reads) */
	uint32_t watch_names;          /* names watched along its symlink chain */
	int watch_armed;               /* a file reload is due once the writer is quiet */
};

/* The lock as its readers take it (telemetry, metrics, the reports): they hold the part
 * const, and the mutex is the one member they change. */
static inline void
rps_ctl_lock(const struct rps_app_ctl *ctl)
{
	pthread_mutex_lock((pthread_mutex_t *)(uintptr_t)&ctl->lock);
}

static inline void
rps_ctl_unlock(const struct rps_app_ctl *ctl)
{
	pthread_mutex_unlock((pthread_mutex_t *)(uintptr_t)&ctl->lock);
}

#endif /* RPS_APP_CTL_H */
