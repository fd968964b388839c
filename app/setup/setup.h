/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * setup.h: the set-up room, the steps main() composes, in the order it calls them:
 *
 *   signals     rps_signals_take()        before EAL: nothing arriving at start is lost
 *   options     rps_setup_hash_options()  the hash options once the file is merged
 *   lcores      rps_setup_rx_lcores(), rps_setup_check_map(), rps_setup_check_respond()
 *   ports       rps_setup_ports_plan()    every port by role, its queues (drivers/rps_port.h)
 *   pool        rps_setup_pool()          the mbuf pool and each worker's share of it
 *   ports       rps_setup_ports_start()   configure and start them
 *   workers     rps_setup_workers(), rps_setup_stages()
 *   placement   rps_setup_report_numa()
 *   launch      rps_setup_launch()        the lcores, then the control threads
 *   teardown    rps_teardown(), rps_release()
 *
 * Each step says what is wrong on stderr (naming the option) and returns a negative value;
 * the ones that return an exit status return it negated (-RPS_EXIT_USAGE: the command line
 * or the file is wrong; -RPS_EXIT_RUNTIME: the machine said no). Main lcore only, before
 * the lcores are launched or after they stopped.
 */
#ifndef RPS_SETUP_H
#define RPS_SETUP_H

#include "app.h"

#define RPS_EXIT_USAGE 2
#define RPS_EXIT_RUNTIME 1
#define RPS_RX_DESC 1024 /* descriptors per RX queue, per TX queue */
#define RPS_TX_DESC 1024

/* signals.c: install the handlers (again: the first time is before main()); SIGHUP asks
 * for a reload, SIGINT and SIGTERM set app->life.quit. */
void rps_signals_take(struct rps_app *app);
/* signals.c: the handler touches @p app no more (before it is freed). */
void rps_signals_release(void);
/* signals.c: a stop asked for during start-up: said (which signal, @p during) and 1. */
int rps_stop_requested(const struct rps_app_life *life, const char *during);

/* hash_options.c: complete the hash options (symmetric, inner, VXLAN ports, the Toeplitz
 * key: the file's, or drawn now) and refuse the combinations that cannot work. -1 on error. */
int rps_setup_hash_options(struct rps_app *app);
/* hash_options.c: log what port @p port's RSS got (key, hash types) or why not. */
void rps_setup_report_rss(const struct rps_app *app, uint16_t port,
			  const struct rps_port_info *info);

/* lcores.c: the RX lcores (--rx-lcores, the main lcore first) and the RX ports. -1 on error. */
int rps_setup_rx_lcores(struct rps_app *app);
/* lcores.c: the map (default: every enabled lcore but the RX lcores) against EAL's lcores. */
int rps_setup_check_map(struct rps_app *app);
/* lcores.c: the respond stage's addresses. */
int rps_setup_check_respond(struct rps_app *app);
/* --elephant-rate and --elephant-action against the stages, consumers and reorder_safe.
 * @return 0, or -1 (said on stderr: a usage error). */
int rps_setup_check_elephants(const struct rps_app *app);
/* lcores.c: whether two EAL lcores may run on one CPU. */
int rps_lcores_share_cpus(void);

/* pairs.c: what the inline pairs (--forward A:B) add at start, in the order main() gets
 * to them. */
/* hash_options.c, once the file's symmetric is merged: symmetric steering by default
 * (@p sym_given: --symmetric or --symmetric-xor was), a warning when it is off. */
void rps_pairs_symmetric(struct rps_app *app, int sym_given);
/* hash_options.c: the default stages, parse,flow,output (packets leave as they came). */
void rps_pairs_stages(struct rps_app *app);
/* lcores.c's RX ports: each pair's ports receive too (after --rx-port's); refuse a
 * --tx-port that is a pair's port. -1 on error. */
int rps_pairs_rx_ports(struct rps_app *app);
/* ports.c's plan: say that paired port @p port cannot have @p nb_txq TX queues. */
void rps_pairs_report_txq_limit(uint16_t port, const struct rps_port_info *pi,
				uint16_t nb_txq);
/* ports.c's start, app->io.ports[@p i] started: its MTU and multi-segment for each pair side
 * it is (app->io.fwd_mtu, app->io.fwd_multi_seg). */
void rps_pairs_port_started(struct rps_app *app, uint16_t i);
/* ports.c's start: whether the pairs need the re-fragmentation pool (app->io.indirect). */
int rps_pairs_want_indirect(const struct rps_app *app);
/* worker_loop.c's rps_worker_ctx_init(): worker @p w's TX queue on each pair's ports and
 * its port_txq (output's queue by RX port), state on @p socket; 0 or -ENOMEM. */
int rps_pairs_worker_txqs(const struct rps_app *app, struct rps_worker *w, int socket);
/* --consumer-mode inline: @p w's queues to its group-0 consumer, one per direction of each
 * pair (with --consumer-fail open, each falling back to the direction's forward), and its
 * queues for what the consumer returns. After rps_pairs_worker_txqs(). */
int rps_pairs_worker_inline(struct rps_app *app, struct rps_worker *w, int socket);

/* ports.c: every port with its role (the --rx-port list, then the --tx-port when another),
 * queried and planned, and the RX queues spread over the RX lcores; nothing configured. */
int rps_setup_ports_plan(struct rps_app *app);
/* ports.c: configure and start the planned ports (after rps_setup_pool()); the output's
 * MTU and re-fragmentation pool. */
int rps_setup_ports_start(struct rps_app *app);

/* pool.c: the mbuf pool on the RX port's socket and its split (rps_budget.h). */
int rps_setup_pool(struct rps_app *app);

/* workers.c: the workers, their backlogs and the RX lcores' steering; -EDOM for a map
 * that cannot be built (maps.c said why), else a negative errno. */
int rps_setup_workers(struct rps_app *app);
/* workers.c: each processing lcore's stage state (after the ports: TX queues exist). */
int rps_setup_stages(struct rps_app *app);

/* placement.c: the NUMA placement of lcores, ports and state, with warnings. */
void rps_setup_report_numa(const struct rps_app *app);

/* launch.c: launch the workers and the other RX lcores, then the live table, control and
 * telemetry. @return 0 or RPS_EXIT_RUNTIME (a launch failed: app->life.quit set). */
int rps_setup_launch(struct rps_app *app);

/* teardown.c: stop what can call in, flush the lcores' state, read and close the ports,
 * free the backlogs; what a stuck worker or telemetry command may still use stays. */
void rps_teardown(struct rps_app *app);
/* teardown.c: free the rest (only when nothing stuck may use it). */
void rps_release(struct rps_app *app);

#endif /* RPS_SETUP_H */
