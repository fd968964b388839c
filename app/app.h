/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app.h: the dpdk-rps application context shared by every room of app/: datapath/ (the RX
 * and worker loops), control/, observability/ and setup/, and the rooms' functions. The
 * context is made of parts, each its own type in its own header (app_*.h) with one writer
 * once the lcores run: set up by setup/ (composed by main.c) before any lcore is launched,
 * then written only as each part's header says.
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

#include "app_consumers.h"
#include "app_ctl.h"
#include "app_exit.h"
#include "app_io.h"
#include "app_lcores.h"
#include "app_life.h"
#include "app_obs.h"
#include "app_steer.h"
#include "app_test.h"

extern int rps_logtype;
#define RPS_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, rps_logtype, "RPS: " fmt "\n", ##__VA_ARGS__)

/* --flows-json: the flows each worker removed that it keeps for the file (the last ones) */
#define RPS_FLOWS_REMOVED_KEPT 16384
/* How long a bucket's move waits at most for what a worker's consumer in the path still
 * holds (setup/pairs.c): long enough for a consumer that shares its CPU to get turns (on a
 * 2-CPU machine whose other work takes its share, a testpmd consumer kept packets over
 * 40 ms, the value before, and Linux TCP saw reordering under remaps); the RX lcore's move
 * wait is this plus RPS_MOVE_WAIT_MS (50 ms, rx_loop.c) with consumers in the path, past
 * which a waiting move stops RX. A consumer that drops some packets (its verdicts) makes
 * every move of its worker's buckets wait this long: moves come later, none is lost */
#define RPS_INLINE_HOLD_MS 200u
/* --bypass-after: how long a flow at its depth waits at most for the consumers to hold
 * nothing of its worker's before its bypass starts (lib/stages/flow.c bypass_check()) */
#define RPS_BYPASS_WAIT_MS 1000u

/**
 * The application context, in parts by owner (docs/design.md, "Who writes what"): each part
 * has one writer, or one lock, once the lcores run; a function that only reads a part
 * another thread writes takes it const.
 */
struct rps_app {
	/* the configuration: options, pipeline and respond settings as set up (main thread);
	 * read-only once running (a reload changes the parts below), but for
	 * opt.stats_interval: a reload stores it, the live table and /rps/config load it
	 * (relaxed) */
	struct rps_options opt;
	struct rps_pipeline pipeline;
	struct rps_respond_conf respond;
	struct rps_app_io io;          /* ports and pools: set-up, then read-only */
	struct rps_app_lcores lc;      /* RX lcores, workers, backlogs: each lcore its own */
	struct rps_app_steer steer;    /* maps, rules, buckets: the control thread publishes
					* under RCU, RX lcores read */
	struct rps_app_ctl ctl;        /* the control thread's: reloads, watch, rebalancer */
	struct rps_app_consumers cons; /* --consumers: set-up, then the memif hub */
	struct rps_app_life life;      /* lifecycle flags: signals, the exit path, RX lcore 0 */
	struct rps_app_exit exit;      /* exit accounting: the main thread, after RX stopped */
	struct rps_app_obs obs;        /* the live table, metrics, telemetry's requests */
#ifdef RPS_TEST_HOOKS
	struct rps_app_test test;      /* the test hooks' knobs (app_test.h) */
#endif
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
int rps_app_map_sockets(const struct rps_app_io *io, const struct rps_lcoreset *set,
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
/* filters.c: the consumer groups' filters, each group's --consumer-filter else the file's
 * [consumers] filter.G (@p c, NULL: none). build: @return 1 and *out (a new set to publish),
 * 0 (the same expressions), or -errno with @p err naming the group's origin and libpcap's
 * message. publish: @p s (NULL: none) for the workers, the set it replaces freed once they
 * cannot read it (@p running: wait for their quiescent states; control thread). start: at
 * set-up, before the lcores run. filter_text: group @p g's expression ("" none), for
 * telemetry and reports (under ctl.lock). */
int rps_app_filters_build(struct rps_app *app, const struct rps_config *c,
			  struct rps_filter_set **out, char *err, size_t err_len);
void rps_app_filters_publish(struct rps_app *app, struct rps_filter_set *s, int running);
int rps_app_filters_start(struct rps_app *app, char *err, size_t err_len);
void rps_app_filters_fini(struct rps_app *app);
void rps_app_filter_text(const struct rps_app *app, uint16_t g, char *buf, size_t len);

/* rules.c: hits of rule @p i of @p rs (the current set, read under ctl.lock), summed over the
 * RX lcores that steer by it: since they took the set (the last reload that changed the
 * rules). */
uint64_t rps_app_rule_hits(const struct rps_app_lcores *lc, const struct rps_rules *rs, uint16_t i);

/* rules.c: hits of rule @p i of @p rs since start: every set that held its text (ctl.lock,
 * or the control thread stopped). */
uint64_t rps_app_rule_hits_total(const struct rps_app *app, const struct rps_rules *rs,
				 uint16_t i);
/* rules.c: "worker 3", "consumer 1 (worker 1)" or "drop". */
const char *rps_app_rule_action(const struct rps_rules *rs, uint16_t i, char *buf, size_t len);

/* buckets.c: sample the per-bucket counters (rates, cycle estimates) and, with the
 * rebalancer on, move buckets; called by the control thread every rebalance interval. */
void rps_buckets_tick(struct rps_app *app, uint64_t now);
/* buckets.c: copy the tables of @p maps (about to be published) into the views. ctl.lock
 * held by the caller. */
void rps_buckets_set_owners(struct rps_app *app, struct rps_map *const *maps);

/* buckets.c: publish @p owner (per queue, a table of the views' size) as new maps. */
int rps_buckets_publish_owners(struct rps_app *app, uint16_t (*owner)[RPS_MAP_SIZE_MAX]);

/* health.c: stalled workers (--stall-timeout): detection and failover on the control thread
 * (rps_health_tick() every control tick), the exit's bounded wait for the workers. */
int rps_health_init(struct rps_app *app);
void rps_health_fini(struct rps_app_ctl *ctl);
void rps_health_tick(struct rps_app *app, uint64_t now);
/* Give queue @p q's table @p owner (@p size buckets, map set @p set) no stalled worker:
 * each of their buckets goes to the healthy worker of @p set with the fewest, remembered to
 * be returned. @p fresh: the table was rebuilt from the configuration (forget what was
 * taken before). Control thread, ctl.lock or no concurrent publisher. */
void rps_health_adjust(const struct rps_app *app, uint16_t q, const struct rps_lcoreset *set,
		       uint16_t *owner, uint32_t size, int fresh);
const char *rps_health_name(int state);
/* Wait for every worker to end; give up on those still stalled after the hold-down, or
 * still running 10 s after the stop (less under RPS_TEST_EXIT_WAIT_S; reported each second
 * with their progress): their backlogs counted in app->exit.stranded, worker->stuck set.
 * @return 0, or -EBUSY if any. */
int rps_health_wait_workers(struct rps_app *app);

/* buckets.c: the "buckets" member of the summary JSON (table size, rebalancer counters,
 * per queue and bucket: lcore, packets, bytes, cycles, moves). */
void rps_buckets_json(const struct rps_app *app, FILE *f);

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
void rps_metrics_close(struct rps_app_obs *obs);

/* test_hooks.c: read RPS_TEST_* from the environment. Only builds with -Dtest_hooks=true
 * have it; in others the stubs below (#else) stand in and no such variable is read. */
#ifdef RPS_TEST_HOOKS
void rps_test_hooks_init(struct rps_app *app);
/* Stop what the hooks started (the ring-drain thread). */
void rps_test_hooks_fini(void);
/* How many RX queues the RX lcore polls: all, or fewer under RPS_TEST_RX_QUEUES. */
uint16_t rps_test_rx_queues(const struct rps_app_io *io);
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
void rps_test_rx_gap(struct rps_app_test *test, uint16_t n);
#else
static inline void rps_test_hooks_init(struct rps_app *app) { (void)app; }
static inline void rps_test_hooks_fini(void) {}
static inline uint16_t rps_test_rx_queues(const struct rps_app_io *io) { return io->nb_rxq; }
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
void rps_rx_intr_stop(const struct rps_app_life *life);

/* lcore_state.c: "polling", "sleeping" or "waking" (rps_wake.h); CPU time of its thread so
 * far in ms (0 before it runs). Control thread. */
const char *rps_lcore_state_name(const struct rps_worker *w);
uint64_t rps_lcore_cpu_ms(const struct rps_worker *w);

/* notify.c: readiness (app->life.ready, log, sd_notify READY=1) and other sd_notify states. */
/* pdump.c: dpdk-dumpcap / dpdk-pdump support, with a grace period for removed callbacks */
int rps_pdump_init(struct rps_app *app);
void rps_pdump_fini(struct rps_app_io *io);

void rps_ready(struct rps_app *app);
void rps_notify(const char *state);
/* rx_loop.c: the RX lcores' loop; rps_rx_main() on the main lcore (RX lcore 0) returns once
 * every RX lcore has stopped; rps_rx_lcore_main() for the others (rte_eal_remote_launch). */
void rps_rx_main(struct rps_app *app);
int rps_rx_lcore_main(void *arg);

/* The backlog RX lcore @p r fills for worker @p w. */
static inline struct rps_backlog *
rps_app_backlog(const struct rps_app_lcores *lc, uint16_t r, uint16_t w)
{
	return &lc->backlogs[(uint32_t)r * lc->nb_workers + w];
}

/* The RX lcore 0's: the main lcore's processing context, socket, settings of the steering. */
#define RPS_APP_SELF(app) (&(app)->lc.rx[0].self)

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
/* worker_loop.c: take worker @p arg's inline consumer's returns (a struct rps_worker *),
 * for its consumer queues to call while they wait for room (rps_txq_set_waiting()). */
void rps_worker_returns_waiting(void *arg);

/* A copy of every counter, each 64-bit value read atomically (snapshot.c). */
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
/* snapshot.c: the readers' views of the context (telemetry, metrics, report.c), any thread:
 * a copy of every counter; seconds since start; worker @p i's processed/s over the last
 * second (i == nb_workers: the RX lcore's rx rate), 0 before the first; the buckets each
 * worker owns in queue @p q's table added to @p cnt[worker] (app->ctl.lock held), or over
 * every queue into @p cnt[RTE_MAX_LCORE] (takes the lock). */
struct rps_snapshot *rps_snapshot_alloc(void); /* free() it */
void rps_snapshot_take(const struct rps_app *app, struct rps_snapshot *s);
double rps_view_uptime_s(const struct rps_app_life *life);
uint64_t rps_view_pps(const struct rps_app_ctl *ctl, unsigned int i);
void rps_view_owned_add(const struct rps_app *app, uint16_t q, uint32_t *cnt);
void rps_view_owned(const struct rps_app *app, uint32_t *cnt);

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
void rps_consumers_freeze(struct rps_app_consumers *cons);
void rps_consumers_close(struct rps_app_consumers *cons);
void rps_consumers_wait(struct rps_app *app);
/* A consumer's counters: the sums over the workers feeding it (each writes its own). */
struct rps_consumer_stats {
	uint64_t delivered, absent, full;
	/* --consumer-mode inline (group 0): what it returned; what went on without it
	 * (--consumer-fail open), by why */
	uint64_t returned, open_absent, open_full;
	uint64_t filtered;             /* its group's filter refused them (--consumer-filter) */
	struct rps_memif_stats link;   /* its endpoint's: connected, clients and refusals */
};
void rps_consumer_stats(const struct rps_app *app, uint16_t c, struct rps_consumer_stats *s);

/* flow_lookup.c: /rps/flow's reply for PARAMS "PROTO,SRC,SPORT,DST,DPORT[,QUEUE]" into
 * @p d (-EINVAL for bad params). Telemetry thread. */
struct rte_tel_data;
int rps_tel_flow(const struct rps_app *app, const char *params, struct rte_tel_data *d);

/* report.c: the live table and the exit summary. */
int rps_report_start(struct rps_app *app);
void rps_report_stop(struct rps_app *app);
void rps_report_summary(const struct rps_app *app, FILE *out);
int rps_report_json(const struct rps_app *app, const char *path);

#endif /* RPS_APP_H */
