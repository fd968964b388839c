/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app_lcores.h: the lcores' part of the application context: the RX lcores, the workers and
 * the backlogs between them. setup/ sizes and fills it on the main thread before any lcore
 * is launched; from then on each lcore writes only its own element (its counters, its
 * state) and others read those with atomic loads.
 */
#ifndef RPS_APP_LCORES_H
#define RPS_APP_LCORES_H

#include <stdint.h>

#include <rte_epoll.h>
#include <rte_lcore.h>
#include <rte_seqcount.h>

#include "app_test.h"
#include "options.h"
#include "rps_backlog.h"
#include "rps_counters.h"
#include "rps_flow.h"
#include "rps_map.h"
#include "rps_order.h"
#include "rps_rules.h"
#include "rps_stage.h"
#include "rps_steer.h"
#include "rps_wake.h"

struct rps_app;

#define RPS_TOP_FLOWS 32
/* (port, queue) pairs over every --rx-port: rps_order's bucket holds at most 256 */
#define RPS_RX_QUEUES_MAX 256

/** A worker's top flows, republished at most once a second while /rps/flows asks; read by
 * telemetry only through the sequence counter (single writer, no lock), with a bounded
 * number of retries: a worker stopped inside its write is skipped, never waited for. */
struct rps_flow_snap {
	rte_seqcount_t sc;
	uint32_t n;
	uint64_t tsc;                  /* when it was taken (atomic: read outside sc too) */
	uint64_t taken;                /* snapshots taken (the worker writes, others load) */
	struct rps_flow_summary f[RPS_TOP_FLOWS];
	struct rps_flow_summary scratch[RPS_TOP_FLOWS]; /* the worker's, outside sc: the walk
					* of its flow table is not in the write section */
	/* --elephant-rate: its marked elephants (/rps/elephants), heaviest first, in the same
	 * snapshot (under sc), and the worker's scratch copy of them */
	uint32_t nb_elephants;
	struct rps_flow_summary elephants[RPS_FLOW_ELEPHANTS];
	struct rps_flow_summary scratch_el[RPS_FLOW_ELEPHANTS];
};

/** A worker's health (health.c): state and counters written by the control thread, read
 * atomically by telemetry and the summary. */
enum { RPS_HEALTH_OK, RPS_HEALTH_STALLED, RPS_HEALTH_RECOVERING };
struct rps_health {
	int state;                     /* RPS_HEALTH_* */
	uint64_t stalls;               /* times it was declared stalled */
	uint64_t recoveries;           /* times it came back */
	/* control thread only */
	uint64_t last_head;            /* backlog head at the last tick... */
	uint64_t still_since;          /* ...unchanged since (TSC) */
	uint64_t stalled_since, back_since;
};


/** A worker lcore: its backlog, its TX queue, its counters. Set up on the main thread before
 * launch; then written by this worker alone, except health (the control thread) and ask's
 * request (telemetry), as their comments say. */
struct rps_worker {
	struct rps_lcore_stats stats;   /* written by this worker only */
	struct rps_app *app;
	unsigned int lcore;
	uint16_t index;
	uint16_t txq;
	struct rps_backlog *backlog;   /* its backlog from RX lcore 0; NULL for the RX lcore
					* in no-steering mode */
	struct rps_backlog_in in;      /* its backlogs, one per RX lcore, polled in turn */
	struct rps_stage_ctx ctx;      /* the pipeline's per-lcore state */
	struct rps_txq out_txq;        /* --tx-port, this lcore's queue */
	struct rps_txq cons_txq[RPS_CONSUMER_GROUPS_MAX]; /* --consumers: its queue to its
							   * consumer of each group */
	struct rps_txq *group_txq[RPS_CONSUMER_GROUPS_MAX]; /* ... pointers, for the ctx */
	struct rps_txq reply_txq[RPS_RX_PORTS_MAX]; /* respond: this lcore's queue on --rx-port
						     * i, where it has no other queue there */
	struct rps_txq fwd_txq[2 * RPS_FORWARD_MAX]; /* --forward: its queue on pair i's a (2i)
						      * and b (2i + 1) */
	struct rps_txq *port_txq[RTE_MAX_ETHPORTS]; /* output's queue by RX port (ctx) */
	/* --consumer-mode inline (setup/pairs.c): direction d = 2i (in by pair i's a, out by
	 * its b) or 2i + 1 (the other way), nb_inl of them; all this worker's own */
	struct rps_txq inl_txq[2 * RPS_FORWARD_MAX]; /* to its group-0 consumer, ring d */
	struct rps_txq ret_txq[2 * RPS_FORWARD_MAX]; /* what it returned on ring d, out */
	struct rps_txq *inl_port_txq[RTE_MAX_ETHPORTS]; /* inl_txq by RX port (ctx) */
	uint16_t inl_in_port[2 * RPS_FORWARD_MAX];  /* direction d's RX port */
	struct rps_memif *inl_memif;   /* its group-0 consumer's endpoint, NULL: not inline */
	uint16_t nb_inl;
	/* taps: its group-0 consumer when it feeds it alone, whose returned ring it reads for
	 * the consumer's requests (rps_consumer_ctl.h); NULL: none */
	struct rps_memif *ctl_memif;
	struct rps_txq *reply_port_txq[RTE_MAX_ETHPORTS]; /* respond's queue by RX port (ctx) */
	struct rps_flow_snap *flow_snap; /* NULL without the flow stage */
	uint64_t next_snap_tsc;
	/* /rps/flow (observability/flow_lookup.c): a flow looked up in this worker's table.
	 * Telemetry writes q, then bumps req (release), only while done == req; the worker,
	 * between bursts (rps_process_idle()), answers into rc and out, then stores done = req
	 * (release). */
	struct rps_flow_ask {
		struct rps_flow_tuple q;
		struct rps_flow_summary out;
		int rc;
		uint32_t req, done;
	} ask;
	struct rps_health health;      /* stalled or not (health.c) */
	struct rps_wake wake;          /* asleep or not: RX lcores wake it (rps_wake.h) */
	int tid;                       /* its thread's id (CPU time in /proc), 0 until it runs */
	int stuck;                     /* still stalled at exit: never joined, state kept */
#ifdef RPS_TEST_HOOKS
	struct rps_worker_test test;   /* the stall hooks (app_test.h) */
#endif
	int socket;                    /* where this lcore's state is allocated: its socket, or
					* SOCKET_ID_ANY when it has none (CPUs on several) or EAL
					* has no memory there */
} __rte_cache_aligned;

/**
 * An RX lcore (rx_loop.c), like l3fwd's lcore_conf: the (port, queue) pairs it polls, its row
 * of backlogs (one per worker, single producer: this lcore), its steering context, its
 * counters. Written by this lcore only, once launched; busy_tsc and done are read by others.
 */
struct rps_rx_lcore {
	struct rps_worker self;        /* its counters; the processing context without a map */
	struct rps_steer_ctx steer;    /* backlogs: its row of app->lc.backlogs */
	uint16_t index;                /* 0 (the main lcore) .. nb_rx - 1: its QSBR thread id */
	uint16_t nb_queues;
	uint16_t queues[RPS_RX_QUEUES_MAX]; /* the global queue indexes it polls */
	uint64_t busy_tsc;             /* last loop that took or held packets (relaxed) */
	uint64_t empty_tsc;            /* last loop that polled its queues and took nothing */
	int sleeping;                  /* 1 while it waits for an RX interrupt (rx_intr.c) */
	struct rte_epoll_event stop_ev; /* app->life.stop_fd in its epoll (rx_intr.c) */
	/* steering rules (rules.c, rx_loop.c): the generation it steers by, 0 while it sets
	 * rule_base (a sequence count for readers); the one it waits to take */
	uint32_t rules_gen;
	uint32_t rules_wait_gen;
	/* bucket moves (rx_loop.c, moves_drained()): the first loop of the current run of
	 * loops that deferred a move (0: none), whether it drains the backlogs for them now */
	uint64_t defer_tsc;
	int move_drain;
	/* a drain (new rules, a move): each backlog's tail when it began (drain_start()) */
	uint64_t drain_tail[RTE_MAX_LCORE];
	const struct rps_map *seen_map[RPS_RX_QUEUES_MAX]; /* each queue's map last loop */
	/* each rule's hits by its slot (rps_rules.h), since start, never reset: a rule keeps its
	 * slot across the sets that hold it (rules.c); this RX lcore only writes */
	uint64_t rule_hits[RPS_RULE_SLOTS] __rte_cache_aligned;
	/* rule i's slot count when this lcore took the set it steers by: hits since, the set's */
	uint64_t rule_base[RPS_RULES_MAX];
} __rte_cache_aligned;

/** The lcores, as set-up made them: counts and arrays are fixed once launched (writer: the
 * main thread, before launch); each element's contents are its lcore's, as above. */
struct rps_app_lcores {
	uint16_t nb_rx;                /* RX lcores (--rx-lcores), 1 by default */
	struct rps_rx_lcore *rx;       /* [nb_rx]; rx[0] runs on the main lcore */
	uint16_t nb_workers;
	/* Both arrays are contiguous because others index them (reports and telemetry
	 * app->lc.workers[i], the RX lcore's steer context ctx->backlogs[w]); every element is
	 * its own cache lines. Where they live and why: rps_setup_workers() (setup/). */
	struct rps_worker *workers;    /* [nb_workers] */
	struct rps_backlog *backlogs;  /* [nb_rx][nb_workers]: row r is RX lcore r's */
	int16_t lcore_worker[RTE_MAX_LCORE]; /* worker index of an lcore, -1 if none */
	struct rps_order order;        /* --check-order stamps (RX lcores) and checks (workers) */
	int order_on;
};

#endif /* RPS_APP_LCORES_H */
