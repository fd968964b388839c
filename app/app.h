/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app.h: the dpdk-rps application context shared by every room of app/: datapath/ (the RX
 * and worker loops), control/, observability/ and setup/. Everything here is set up by
 * setup/ (composed by main.c) before any lcore is launched; afterwards each lcore writes
 * only its own counters, and the flags below are the only shared writes.
 */
#ifndef RPS_APP_H
#define RPS_APP_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_epoll.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>
#include <rte_seqcount.h>

#include "options.h"
#include "rps_backlog.h"
#include "rps_counters.h"
#include "rps_cpu.h"
#include "rps_map.h"
#include "rps_memif.h"
#include "rps_steer.h"
#include "rps_stage.h"
#include "rps_respond.h"
#include "rps_config.h"
#include "rps_flow.h"
#include "rps_port.h"

extern int rps_logtype;
#define RPS_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, rps_logtype, "RPS: " fmt "\n", ##__VA_ARGS__)

#define RPS_TOP_FLOWS 32
/* --flows-json: the flows each worker removed that it keeps for the file (the last ones) */
#define RPS_FLOWS_REMOVED_KEPT 16384
/* (port, queue) pairs over every --rx-port: rps_order's bucket holds at most 256 */
#define RPS_RX_QUEUES_MAX 256
/* every --rx-port, the --tx-port and the consumers' ports */
#define RPS_APP_PORTS_MAX (RPS_RX_PORTS_MAX + 1 + RPS_CONSUMERS_MAX)

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

/** A worker lcore: its backlog, its TX queue, its counters. */
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
	uint64_t test_stall_after;     /* test hook: stall once received_rps reaches this... */
	uint64_t test_stall_tsc;       /* ...for this long (0: no stall hook) */
	uint64_t test_stall_every_tsc; /* ...and again this long after each (0: once) */
	uint64_t test_stall_not_before;
	uint64_t test_snap_stall_tsc;  /* test hook: stop this long inside the next flow
					* snapshot (0: no hook) */
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
	struct rps_steer_ctx steer;    /* backlogs: its row of app->backlogs */
	uint16_t index;                /* 0 (the main lcore) .. nb_rx - 1: its QSBR thread id */
	uint16_t nb_queues;
	uint16_t queues[RPS_RX_QUEUES_MAX]; /* the global queue indexes it polls */
	uint64_t busy_tsc;             /* last loop that took or held packets (relaxed) */
	uint64_t empty_tsc;            /* last loop that polled its queues and took nothing */
	int sleeping;                  /* 1 while it waits for an RX interrupt (rx_intr.c) */
	struct rte_epoll_event stop_ev; /* app->stop_fd in its epoll (rx_intr.c) */
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

/** Which rule text counts in which hit slot (rules.c): a text keeps its slot, so its count
 * since start, across the rule sets that hold it. Control thread, under ctl_lock. */
struct rps_rule_slots {
	char text[RPS_RULE_SLOTS][RPS_RULE_TEXT_MAX]; /* "": never used */
	uint64_t base[RPS_RULE_SLOTS];  /* the slot's count (every RX lcore) when given its text */
	uint32_t gen[RPS_RULE_SLOTS];   /* the last set generation that held it */
};

/** What the control thread knows of one RX queue's buckets (buckets.c): owners of the
 * published map, and each bucket's rate and cycle estimate. Written by the control thread
 * under ctl_lock; telemetry and the exit summary read it under ctl_lock. */
struct rps_bucket_view {
	uint32_t size;                           /* the published map's table size */
	uint32_t epoch;                          /* the counters' epoch at the last sample */
	uint16_t owner[RPS_MAP_SIZE_MAX];        /* worker index of each bucket */
	uint64_t prev_packets[RPS_MAP_SIZE_MAX]; /* counters at the last sample */
	uint64_t delta[RPS_MAP_SIZE_MAX];        /* packets over the last interval */
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

struct rps_app {
	struct rps_options opt;
	struct rps_pipeline pipeline;
	struct rps_respond_conf respond;
	unsigned int rx_lcore;         /* the main lcore: RX lcore 0 */
	uint16_t nb_rxq;               /* (port, queue) pairs over every RX port: "queue" q
					* below is one of them, ports in --rx-port order */
	uint16_t rxq_port[RPS_RX_QUEUES_MAX];  /* q's port */
	uint16_t rxq_queue[RPS_RX_QUEUES_MAX]; /* q's queue on its port */
	uint16_t rxq_lcore[RPS_RX_QUEUES_MAX]; /* q's RX lcore (index in rx[]) */
	uint16_t nb_rx;                /* RX lcores (--rx-lcores), 1 by default */
	struct rps_rx_lcore *rx;       /* [nb_rx]; rx[0] runs on the main lcore */
	int rss_hash;                  /* the RX port delivers the NIC hash in mbufs */
	struct rte_mempool *pool;
	struct rte_mempool *indirect;  /* re-fragmented output's data references, or NULL */
	uint16_t tx_mtu;               /* the output port's MTU (0: no output port) */
	int tx_multi_seg;              /* ... and whether it takes multi-segment mbufs */
	uint16_t fwd_mtu[2 * RPS_FORWARD_MAX]; /* --forward: each paired port's (a, b), */
	int fwd_multi_seg[2 * RPS_FORWARD_MAX]; /* as tx_mtu and tx_multi_seg */
	uint32_t pool_size;
	/* each worker's share of the pool (rps_budget.h, rps_setup_pool()) */
	uint32_t frag_budget;          /* mbufs each worker's reassembly may hold */
	uint32_t backlog_cap;          /* packets each backlog ring holds (<= --backlog) */
	uint64_t worker_share;         /* the most mbufs a worker holds: rings, reassembly,
					* TX ring, bursts, return rings */
	uint32_t pool_reserve;         /* the RX lcores' own: no worker's to take */
	int64_t pool_in_use_at_exit;  /* -1 until measured after the ports are closed */
	char rx_driver[64];
	struct rps_cpu_paths cpu;      /* build baseline, CPU-specific paths taken (rps_cpu.h) */
	int rx_started, tx_started;     /* which RX ports (0..rx_started) and whether the
					 * --tx-port were started: read and closed at exit */
	/* Every port by role (drivers/rps_port.h, setup/ports.c): the --rx-port list in
	 * order (RX, or PAIR when the workers send on it), then the --tx-port when it is
	 * another port (TX). ports_started: the first ones started, to close at exit. */
	struct rps_port_use ports[RPS_APP_PORTS_MAX];
	struct rps_port_info port_info[RPS_APP_PORTS_MAX];
	struct rps_port_queues port_queues[RPS_APP_PORTS_MAX];
	uint16_t nb_ports, ports_started;
	int pdump;                      /* rte_pdump_init() done: rte_pdump_uninit() at exit */
	struct rte_rcu_qsbr *cap_qsbr;  /* RX lcores (their index) and workers (nb_rx + index)
					 * report once per loop: capture callbacks removed wait
					 * for it (pdump.c) */
	struct rte_eth_stats port_stats; /* RX ports' own counters, summed, read at exit */
	struct rte_eth_stats rx_port_stats[RPS_RX_PORTS_MAX]; /* ... each of them */

	uint16_t nb_consumers;          /* --consumers (0: off), in all groups */
	uint16_t nb_groups;             /* consumer groups (--consumers K,K...) */
	uint16_t group_base[RPS_CONSUMER_GROUPS_MAX]; /* group g's first consumer index */
	uint16_t group_size[RPS_CONSUMER_GROUPS_MAX]; /* ... and how many it has */
	struct rps_consumer consumers[RPS_CONSUMERS_MAX];
	struct rps_memif_hub *memif_hub; /* the consumers' server thread (setup/consumers.c) */
	gid_t consumer_gid;             /* --consumer-group's */

	uint16_t nb_workers;
	/* Both arrays are contiguous because others index them (reports and telemetry
	 * app->workers[i], the RX lcore's steer context ctx->backlogs[w]); every element is
	 * its own cache lines. Where they live and why: rps_setup_workers() (setup/). */
	struct rps_worker *workers;    /* [nb_workers] */
	struct rps_backlog *backlogs;  /* [nb_rx][nb_workers]: row r is RX lcore r's */
	struct rps_order order;        /* --check-order stamps and checks */
	int order_on;
	struct rps_map **maps;         /* [nb_rxq], one per RX queue, read by the RX lcore,
					* replaced only by rps_app_maps_publish() */
	struct rps_lcoreset *map_sets; /* [nb_rxq], the lcores of each queue's map (control) */
	struct rps_buckets **buckets;  /* [nb_rxq], reorder-safe tables, RX lcore only */
	struct rps_bucket_stats **bstats; /* [nb_rxq], per-bucket counters, RX lcore writes */
	struct rps_bucket_view **bview;   /* [nb_rxq], control thread (buckets.c) */
	uint32_t table_size;           /* buckets of the maps being built (control thread) */
	struct rps_rebalance_conf rebal; /* control thread; copied for readers under ctl_lock */
	uint64_t buckets_moved;        /* rebalancer: buckets moved (atomic reads) */
	uint64_t rebalance_runs;       /* rebalancer: intervals it evaluated (atomic reads) */
	uint64_t rebalance_acted;      /* rebalancer: intervals it moved buckets in */
	double imbalance;              /* last interval's max/mean worker load (ctl_lock) */
	uint64_t *prev_busy;           /* [nb_workers]: busy_cycles at the last sample */
	uint64_t buckets_tsc;          /* last sample, 0 = none yet */
	unsigned int over_count;       /* consecutive intervals over the threshold */
	struct rps_rules *rules;       /* steering rules (rules.c), NULL: none; RX lcores read
					* it once per loop (RCU: qsbr), replaced only by
					* rps_app_rules_publish() */
	uint32_t rules_gen;            /* generation of the last rules built (ctl_lock) */
	struct rps_rule_slots *rule_slots; /* rules.c (ctl_lock); NULL until the first set */
	int reorder_safe;              /* read by the RX lcore once per burst */
	int flow_limit;                /* --flow-limit, likewise */
	struct rte_rcu_qsbr *qsbr;     /* every RX lcore (thread = its index) reports once
					* per loop */
	pthread_mutex_t ctl_lock;      /* map_sets and reload results: control vs telemetry */
	int16_t lcore_worker[RTE_MAX_LCORE]; /* worker index of an lcore, -1 if none */
	int lcore_socket[RTE_MAX_LCORE]; /* EAL's socket of each enabled lcore; SOCKET_ID_ANY
					  * for none, or for CPUs on several sockets */
	int rx_port_socket;            /* the RX port's socket, SOCKET_ID_ANY if unknown */
	uint32_t generation;           /* configuration generation, bumped by each apply */

	/* live control (control.c): reloads, rates; written by the control thread only */
	struct rps_config *start_cfg;  /* the file as read at start (NULL without --config) */
	int control_stop;
	pthread_t control_thread;
	int control_running;
	int reload_requested;          /* set by SIGHUP */
	int wake_fd;                   /* eventfd SIGHUP writes: wakes the control thread */
	int wake_made;                 /* wake_fd was created (-1 if that failed) */
	int stop_fd;                   /* eventfd SIGINT/SIGTERM and rx_stop write, never read:
					* wakes RX lcores asleep on RX interrupts (rx_intr.c) */
	uint64_t reloads_ok, reloads_failed;
	uint64_t reloads_unchanged;    /* reloads of the file as last applied: nothing to do */
	/* the file as last applied (control.c; start or a reload): its digest, whether there is
	 * one, the generation it made and the keys it changed that need a restart */
	uint64_t applied_digest;
	int applied_known;
	uint32_t applied_gen;
	char applied_restart[160];
	uint64_t last_reload_tsc;      /* 0 = never */
	char last_reload_result[256];  /* "ok", "ok; needs a restart for: backlog", or the error */
	uint64_t watch_events;         /* inotify events on the config's names (atomic reads) */
	uint32_t watch_names;          /* names watched along its symlink chain */
	int watch_armed;               /* a file reload is due once the writer is quiet */
	uint64_t flows_wanted_tsc;     /* last /rps/flows query: workers snapshot only then,
					* since a snapshot walks the whole flow table */
	uint16_t (*taken_from)[RPS_MAP_SIZE_MAX]; /* [nb_rxq]: per bucket, the stalled worker
					* it was moved off (health.c), or UINT16_MAX; NULL when
					* --stall-timeout is 0. Control thread only */
	uint64_t stranded;             /* packets left to stalled workers at exit */
	uint64_t stranded_port[RPS_PORT_SLOTS]; /* ... by ingress port slot */
	int workers_stuck;             /* workers given up on at exit (health.c) */
	int tel_stuck;                 /* a telemetry command still ran at exit: nothing it may
					* read is freed (rps_telemetry_close()) */
	uint64_t *pps;                 /* [nb_workers + 1]: processed/s over the last second,
					* the last entry is the RX lcore's rx rate */

	uint64_t start_tsc;
	uint64_t stop_tsc;
	uint32_t seed;
	int quit;                      /* set by signals / duration: stop RX */
	int consumers_stop;            /* set at exit a second after RX stopped: workers waiting
					* for a full consumer (backpressure) drop what is left */
	int quit_signal;               /* the signal that set quit, 0 if none */
	int ready;                     /* start-up done, RX loop about to run (notify.c) */
	uint64_t test_delay_tsc;       /* test hook: worker cycles per packet (test_hooks.c) */
	uint64_t test_rx_delay_tsc;    /* test hook: RX lcore cycles per packet */
	uint64_t test_rx_gap_every;    /* test hook: packets between RX pauses (0: none) */
	uint64_t test_rx_gap_tsc;      /* test hook: length of an RX pause */
	uint64_t test_rx_gap_seen;     /* packets since the last RX pause */
	int test_rx_gap_random;        /* each pause 0..test_rx_gap_tsc, uniform */
	int test_rx_hold;              /* test hook: the RX lcore polls nothing while set */
	uint32_t test_self_wake_us;    /* test hook: a sleeping worker's own wake-up instead of
					* RPS_WAKE_IDLE_US (0: that) */
	int rx_done;                   /* set once every RX lcore stopped (release) */
	int rx_stop;                   /* RX lcore 0 tells the others to stop (idle, deadline) */
	int report_stop;               /* tells the live-table thread to end */
	pthread_t report_thread;
	int report_running;
	struct rps_metrics *metrics;   /* --metrics: the HTTP server (metrics.c), NULL if off */
	char metrics_where[64];        /* the address it is bound to ("127.0.0.1:9100"), set
					* at start and kept until exit; "" when off */
};

/* maps.c: the lcores EAL enabled (-l / --lcores). */
void rps_app_enabled_lcores(struct rps_lcoreset *set);
/* maps.c: whether @p set may be a map's workers: every lcore enabled (-ENODEV) and none an
 * RX lcore (-EBUSY); *@p bad gets the lcore at fault. */
int rps_app_check_workers(const struct rps_app *app, const struct rps_lcoreset *set,
			  const struct rps_lcoreset *enabled, unsigned int *bad);
/* maps.c: building maps from lcore sets and publishing them under RCU. */
int rps_app_maps_init(struct rps_app *app);
struct rps_map *rps_app_map_build(const struct rps_app *app, const struct rps_lcoreset *set,
				  uint32_t size, uint32_t generation, char *err, size_t err_len);
int rps_app_maps_publish(struct rps_app *app, struct rps_map **maps,
			 const struct rps_lcoreset *sets);
void rps_app_maps_fini(struct rps_app *app);
/* maps.c: the sockets @p set's lcores are on (rps_numa_map_sockets() over the app's socket
 * table and RX port); returns how many, @p desc says which lcores are where. */
int rps_app_map_sockets(const struct rps_app *app, const struct rps_lcoreset *set,
			unsigned int *off_port, char *desc, size_t len);
/* maps.c: warn about each RX queue's map (sets[nb_rxq]) whose workers are on more than one
 * socket or on another socket than the RX port; @p when names the occasion in the log. */
void rps_app_maps_check_numa(const struct rps_app *app, const struct rps_lcoreset *sets,
			     const char *when);

/* rules.c: the steering rules, every --rule then the file's [rules] (@p c, NULL: none),
 * resolved and built. @return 1 and *out (a new set to publish), 0 (nothing to change:
 * the same rules, or none), or -errno with @p err naming the rule ("--rule 'TEXT': ..." or
 * "FILE:LINE: rule: ..."). */
int rps_app_rules_build(struct rps_app *app, const struct rps_config *c,
			struct rps_rules **out, char *err, size_t err_len);
/* rules.c: the start's rules (before the RX lcores run). @return 0 or -errno with @p err. */
int rps_app_rules_start(struct rps_app *app, char *err, size_t err_len);
/* rules.c: publish @p rs and free the set it replaces once no RX lcore can read it (control
 * thread; blocks until then). The RX lcores take it reorder-safely (rx_loop.c). */
void rps_app_rules_publish(struct rps_app *app, struct rps_rules *rs);
void rps_app_rules_fini(struct rps_app *app);
/* rules.c: hits of rule @p i of @p rs (the current set, read under ctl_lock), summed over the
 * RX lcores that steer by it: since they took the set (the last reload that changed the
 * rules). */
uint64_t rps_app_rule_hits(const struct rps_app *app, const struct rps_rules *rs, uint16_t i);
/* rules.c: hits of rule @p i of @p rs since start: every set that held its text (ctl_lock,
 * or the control thread stopped). */
uint64_t rps_app_rule_hits_total(const struct rps_app *app, const struct rps_rules *rs,
				 uint16_t i);
/* rules.c: "worker 3", "consumer 1 (worker 1)" or "drop". */
const char *rps_app_rule_action(const struct rps_rules *rs, uint16_t i, char *buf, size_t len);

/* buckets.c: sample the per-bucket counters (rates, cycle estimates) and, with the
 * rebalancer on, move buckets; called by the control thread every rebalance interval. */
void rps_buckets_tick(struct rps_app *app, uint64_t now);
/* buckets.c: copy the tables of @p maps (about to be published) into the views. ctl_lock
 * held by the caller. */
void rps_buckets_set_owners(struct rps_app *app, struct rps_map *const *maps);

/* buckets.c: publish @p owner (per queue, a table of the views' size) as new maps. */
int rps_buckets_publish_owners(struct rps_app *app, uint16_t (*owner)[RPS_MAP_SIZE_MAX]);

/* health.c: stalled workers (--stall-timeout): detection and failover on the control thread
 * (rps_health_tick() every control tick), the exit's bounded wait for the workers. */
int rps_health_init(struct rps_app *app);
void rps_health_fini(struct rps_app *app);
void rps_health_tick(struct rps_app *app, uint64_t now);
/* Give queue @p q's table @p owner (@p size buckets, map set @p set) no stalled worker:
 * each of their buckets goes to the healthy worker of @p set with the fewest, remembered to
 * be returned. @p fresh: the table was rebuilt from the configuration (forget what was
 * taken before). Control thread, ctl_lock or no concurrent publisher. */
void rps_health_adjust(const struct rps_app *app, uint16_t q, const struct rps_lcoreset *set,
		       uint16_t *owner, uint32_t size, int fresh);
const char *rps_health_name(int state);
/* Wait for every worker to end; give up on those still stalled after the hold-down, or
 * still running 10 s after the stop (less under RPS_TEST_EXIT_WAIT_S; reported each second
 * with their progress): their backlogs counted in app->stranded, worker->stuck set.
 * @return 0, or -EBUSY if any. */
int rps_health_wait_workers(struct rps_app *app);

/* buckets.c: the "buckets" member of the summary JSON (table size, rebalancer counters,
 * per queue and bucket: lcore, packets, bytes, cycles, moves). */
void rps_buckets_json(struct rps_app *app, FILE *f);

/* control.c: the control thread (SIGHUP / inotify reloads, per-second rates). */
int rps_control_start(struct rps_app *app);
void rps_control_stop(struct rps_app *app);
int rps_control_reload(struct rps_app *app, const char *why);
/* control.c: merge the file read at start under the command line. */
int rps_control_apply_start_config(struct rps_app *app, char *err, size_t err_len);
/* control.c: refuse at start (ports set up) a file's maps that every reload would refuse. */
int rps_control_check_start_config(const struct rps_app *app, char *err, size_t err_len);

/* telemetry.c: the /rps/ commands on DPDK's telemetry socket. */
int rps_telemetry_register(struct rps_app *app);
/* Refuse every /rps/ command from now on and wait for those in flight: before teardown frees
 * what they read (DPDK 22.11 cannot unregister commands). The wait has a deadline (2 s):
 * @return 0, or -ETIMEDOUT when a command is still running (logged): then nothing it may
 * read must be freed. */
int rps_telemetry_close(void);
/* Whether EAL's runtime directory (its sockets: telemetry, multi-process) is safe: ours, not
 * writable by group or others, in a parent only we or root can change. @return 0, or -EPERM
 * (-errno if it cannot be read) with the reason, the directory, its owner and mode and what
 * to do in @p err. After rte_eal_init(). */
int rps_telemetry_check_dir(char *err, size_t len);
/* How long workers keep snapshotting their top flows after a /rps/flows (seconds). */
#define RPS_FLOWS_ASKED_S 3

/* metrics.c: --metrics, the counters for Prometheus over HTTP. Open binds the socket (at
 * start, before the ports: exit on error, with the message in @p err); start serves it on
 * its own control thread once ready; close stops that thread (ending the request in
 * progress) and the server: before teardown frees what a request reads. */
int rps_metrics_open(struct rps_app *app, char *err, size_t err_len);
int rps_metrics_start(struct rps_app *app);
void rps_metrics_close(struct rps_app *app);

/* test_hooks.c: read RPS_TEST_* from the environment. Only builds with -Dtest_hooks=true
 * have it; in others the stubs below (#else) stand in and no such variable is read. */
#ifdef RPS_TEST_HOOKS
void rps_test_hooks_init(struct rps_app *app);
/* Stop what the hooks started (the ring-drain thread). */
void rps_test_hooks_fini(void);
/* How many RX queues the RX lcore polls: all, or fewer under RPS_TEST_RX_QUEUES. */
uint16_t rps_test_rx_queues(const struct rps_app *app);
/* Busy-wait @p tsc cycles (the worker delay hook). */
void rps_test_spin(uint64_t tsc);
/* The stall hook: stop @p w here when RPS_TEST_WORKER_STALL says so. */
void rps_test_worker_stall(struct rps_worker *w);
/* RPS_TEST_FLOW_HASH=crc32c: whether a flow table should hash with CRC32C, seed 0. */
int rps_test_flow_crc(void);
/* RPS_TEST_START_PAUSE_MS: stop start-up here (right after EAL's initialisation). */
void rps_test_start_pause(void);
/* RPS_TEST_SNAP_STALL: stop @p w inside its flow snapshot's write section. */
void rps_test_snap_stall(struct rps_worker *w);
/* RPS_TEST_TEL_HOLD: make telemetry command @p cmd take long when it is the one named. */
void rps_test_tel_hold(const char *cmd);
/* RPS_TEST_EXIT_WAIT_S: how long (s) the exit waits for a worker still running (not
 * stalled) before it gives up on it: @p dflt, or less under the hook. */
unsigned int rps_test_exit_wait_s(unsigned int dflt);
/* Count @p n packets received; pause the RX lcore when RPS_TEST_RX_GAP says so. */
void rps_test_rx_gap(struct rps_app *app, uint16_t n);
#else
static inline void rps_test_hooks_init(struct rps_app *app) { (void)app; }
static inline void rps_test_hooks_fini(void) {}
static inline uint16_t rps_test_rx_queues(const struct rps_app *app) { return app->nb_rxq; }
static inline int rps_test_flow_crc(void) { return 0; }
static inline void rps_test_start_pause(void) {}
static inline unsigned int rps_test_exit_wait_s(unsigned int dflt) { return dflt; }
#endif

/* rx_intr.c: an idle RX lcore sleeps on its queues' RX interrupts where the PMD has them.
 * arm: once, on the RX lcore, 1 when every queue of it has one; sleep: until a packet, a stop
 * or timeout_ms; stop: wake every sleeper for good (async-signal-safe). */
int rps_rx_intr_arm(struct rps_app *app, struct rps_rx_lcore *rx);
int rps_rx_intr_sleep(struct rps_app *app, struct rps_rx_lcore *rx, unsigned int tid,
		      int timeout_ms);
void rps_rx_intr_stop(struct rps_app *app);

/* lcore_state.c: "polling", "sleeping" or "waking" (rps_wake.h); CPU time of its thread so
 * far in ms (0 before it runs). Control thread. */
const char *rps_lcore_state_name(const struct rps_worker *w);
uint64_t rps_lcore_cpu_ms(const struct rps_worker *w);

/* notify.c: readiness (app->ready, log, sd_notify READY=1) and other sd_notify states. */
/* pdump.c: dpdk-dumpcap / dpdk-pdump support, with a grace period for removed callbacks */
int rps_pdump_init(struct rps_app *app);
void rps_pdump_fini(struct rps_app *app);

void rps_ready(struct rps_app *app);
void rps_notify(const char *state);
/* rx_loop.c: the RX lcores' loop; rps_rx_main() on the main lcore (RX lcore 0) returns once
 * every RX lcore has stopped; rps_rx_lcore_main() for the others (rte_eal_remote_launch). */
void rps_rx_main(struct rps_app *app);
int rps_rx_lcore_main(void *arg);

/* The backlog RX lcore @p r fills for worker @p w. */
static inline struct rps_backlog *
rps_app_backlog(const struct rps_app *app, uint16_t r, uint16_t w)
{
	return &app->backlogs[(uint32_t)r * app->nb_workers + w];
}

/* The RX lcore 0's: the main lcore's processing context, socket, settings of the steering. */
#define RPS_APP_SELF(app) (&(app)->rx[0].self)

/* worker_loop.c: a worker's loop (rte_eal_remote_launch). */
int rps_worker_main(void *arg);
/* worker_loop.c: the processing step on a burst (workers, and the RX lcore without map). */
void rps_process_burst(struct rps_worker *w, struct rte_mbuf **pkts, uint16_t n);
/* worker_loop.c: once-per-loop housekeeping of a processing lcore (TX flush, ageing). */
void rps_process_idle(struct rps_worker *w);
/* worker_loop.c: set up / tear down a processing lcore's stage state; @p keep_snap: leave
 * its flow snapshot allocated (a telemetry command may still read it). */
int rps_worker_ctx_init(struct rps_app *app, struct rps_worker *w);
void rps_worker_ctx_fini(struct rps_worker *w, int keep_snap);

/* A copy of every counter, each 64-bit value read atomically (report.c). */
struct rps_snapshot {
	struct rps_lcore_stats rx;       /* RX lcores, summed (incl. backlog_full, and
					  * processing when there is no map) */
	uint16_t nb_rx;                  /* RX lcores listed */
	struct {
		unsigned int lcore;
		struct rps_lcore_stats st;
	} rxl[RPS_RX_LCORES_MAX];
	struct rps_lcore_stats total;    /* sum of everything */
	uint16_t nb;                     /* workers listed */
	struct {
		unsigned int lcore;
		struct rps_lcore_stats st;   /* own counters + RX-side drops for it */
		uint64_t depth, hwm;
	} w[RTE_MAX_LCORE];
};
struct rps_snapshot *rps_snapshot_alloc(void); /* free() it */
void rps_snapshot_take(const struct rps_app *app, struct rps_snapshot *s);

/* report.c: where port @p port's packets leave: its pair's other port, else --tx-port when
 * the output stage sends, else -1 (consumed); and whether it is one side of a pair. */
int rps_port_to(const struct rps_app *app, uint16_t port);
int rps_port_paired(const struct rps_app *app, uint16_t port);

/* consumers.c (setup/): --consumers. check: the options (before EAL's ports; the default
 * socket template); create: the memif server and its sockets (clients may connect from
 * then on); publish: start serving them, once the lcores' QSBR exists; freeze: at exit,
 * once the workers stopped, stop the server's thread (nothing unmapped under the last
 * flush); close: after it, send the clients away and remove the sockets; wait: hold RX
 * until every consumer is connected (--consumer-wait). */
int rps_consumers_check(struct rps_app *app);
int rps_consumers_create(struct rps_app *app);
int rps_consumers_publish(struct rps_app *app);
void rps_consumers_freeze(struct rps_app *app);
void rps_consumers_close(struct rps_app *app);
void rps_consumers_wait(struct rps_app *app);
/* The consumer worker @p w feeds in group @p g (consumers are numbered across the groups,
 * group 0's first). */
static inline uint16_t
rps_consumer_of(const struct rps_app *app, uint16_t g, uint16_t w)
{
	return (uint16_t)(app->group_base[g] + w % app->group_size[g]);
}
/* A consumer's counters: the sums over the workers feeding it (each writes its own). */
struct rps_consumer_stats {
	uint64_t delivered, absent, full;
	struct rps_memif_stats link;   /* its endpoint's: connected, clients and refusals */
};
void rps_consumer_stats(const struct rps_app *app, uint16_t c, struct rps_consumer_stats *s);

/* flow_lookup.c: /rps/flow's reply for PARAMS "PROTO,SRC,SPORT,DST,DPORT[,QUEUE]" into
 * @p d (-EINVAL for bad params). Telemetry thread. */
struct rte_tel_data;
int rps_tel_flow(struct rps_app *app, const char *params, struct rte_tel_data *d);

/* report.c: the live table and the exit summary. */
int rps_report_start(struct rps_app *app);
void rps_report_stop(struct rps_app *app);
void rps_report_summary(const struct rps_app *app, FILE *out);
int rps_report_json(const struct rps_app *app, const char *path);

#endif /* RPS_APP_H */
