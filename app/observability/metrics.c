/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * metrics.c: --metrics, the counters over HTTP for Prometheus (GET /metrics, the 0.0.4 text
 * format or OpenMetrics as the client's Accept header asks; expo.c writes them).
 *
 * The socket is bound at start, before the ports, so a bad address or a port in use stops
 * dpdk-rps at once (exit 2) instead of after a long set-up. libmicrohttpd runs without a
 * thread of its own ("external polling"), driven by one control thread, rps-metrics, started
 * once dpdk-rps is ready: every request is answered on that thread, from a snapshot of the
 * counters (rps_snapshot_take(), as /rps/stats and the summary read them), the bucket views
 * under ctl.lock (as telemetry), and the port's own counters. Nothing here touches the data
 * path. rps_metrics_close() (before teardown) stops the thread, which ends any request in
 * progress first, then closes every connection and the socket: no request can read what
 * teardown frees, and a client polling while dpdk-rps stops gets a refused connection.
 * Slow or silent clients cost a slot each, not the thread's time: up to 1024 at once, each
 * closed after 5 s without a byte (connection_limit(), METRICS_TIMEOUT_S).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "app.h"
#include "expo.h"

#define METRICS_POLL_MS 50         /* how long close() may wait for the thread to notice */
/*
 * Clients at once. At the limit libmicrohttpd stops accepting: a scrape then waits in the
 * kernel's listen queue, or has its SYN dropped and resent after 1, 3, 7, 15 s..., until a
 * slot frees. With 32 slots, 200 connections that sent half a request (and nothing more)
 * held a scrape 50 s. A connection costs one descriptor and a lazily touched 32 KiB pool, so
 * allow many (the same event loop serves them all: a half-sent request blocks nothing but
 * its slot), and bound the time a silent one holds its slot.
 */
#define METRICS_CONNECTIONS_MAX 1024
#define METRICS_CONNECTIONS_MIN 32 /* even when the descriptor limit leaves less room */
#define METRICS_TIMEOUT_S 5        /* a connection silent this long is closed */
#define METRICS_BACKLOG 128        /* connections the kernel queues past the limit */

struct rps_metrics {
	const struct rps_app *app;     /* what the server thread reads, never writes */
	struct MHD_Daemon *daemon;
	int fd;                        /* the listening socket until the daemon owns it */
	unsigned int limit;            /* clients at once (connection_limit()) */
	pthread_t thread;
	int running;
	int stop;
};

/* Counters of the X-macro that are not counts of events: gauges for Prometheus. */
static int
is_gauge(const char *name)
{
	return strcmp(name, "flows_active") == 0 || strcmp(name, "flow_bucket_max") == 0 ||
	       strcmp(name, "elephants_active") == 0;
}

/* One lcore whose counters the page shows. */
struct row {
	char lcore[12];
	const struct rps_lcore_stats *st;
	int worker;                    /* index in the snapshot's w[], -1 for the RX lcore */
};

/* What is read under ctl.lock, copied out so the page is written without it. */
struct locked {
	double imbalance;
	uint64_t reloads_ok, reloads_failed;
	uint32_t *owned;               /* [nb_workers]: buckets of every queue's table */
};

static void
read_locked(const struct rps_app *app, struct locked *l)
{
	rps_ctl_lock(&app->ctl);
	l->imbalance = app->ctl.imbalance;
	l->reloads_ok = app->ctl.reloads_ok;
	l->reloads_failed = app->ctl.reloads_failed;
	for (uint16_t q = 0; l->owned != NULL && app->ctl.bview != NULL && q < app->io.nb_rxq; q++)
		rps_view_owned_add(app, q, l->owned);
	rps_ctl_unlock(&app->ctl);
}

/* One sample per row of the lcore counter at byte offset @p off of struct rps_lcore_stats. */
static void
per_lcore(struct rps_expo *e, const struct row *rows, unsigned int nb, size_t off)
{
	for (unsigned int i = 0; i < nb; i++) {
		const struct rps_expo_label l[] = { { "lcore", rows[i].lcore } };
		uint64_t v;

		memcpy(&v, (const char *)rows[i].st + off, sizeof(v));
		rps_expo_u64(e, l, 1, v);
	}
}

static void
lcore_counters(struct rps_expo *e, const struct row *rows, unsigned int nb, int steering)
{
	char name[96];

#define RPS_X_METRIC(f, desc)                                                                \
	snprintf(name, sizeof(name), "dpdk_rps_%s", #f);                                     \
	rps_expo_family(e, name, is_gauge(#f) ? RPS_EXPO_GAUGE : RPS_EXPO_COUNTER, desc);    \
	per_lcore(e, rows, nb, offsetof(struct rps_lcore_stats, f));
	RPS_LCORE_COUNTERS(RPS_X_METRIC)
#undef RPS_X_METRIC

	rps_expo_family(e, "dpdk_rps_dropped", RPS_EXPO_COUNTER,
			"packets dropped, by reason (every packet received is processed or dropped "
			"once); backlog_full, mbuf_budget and flow_limit are labelled with the "
			"worker whose backlog refused the packet (the RX lcore drops them)");
	for (unsigned int i = 0; i < nb; i++)
		for (unsigned int r = 0; r < RPS_DROP_MAX; r++) {
			const struct rps_expo_label l[] = {
				{ "lcore", rows[i].lcore }, { "reason", rps_drop_name(r) } };

			if (steering && rows[i].worker < 0 &&
			    (r == RPS_DROP_BACKLOG_FULL || r == RPS_DROP_FLOW_LIMIT ||
			     r == RPS_DROP_MBUF_BUDGET))
				continue; /* shown on the worker they were meant for */
			rps_expo_u64(e, l, 2, rows[i].st->dropped[r]);
		}
}

static void
stage_counters(struct rps_expo *e, const struct rps_app *app, const struct row *rows,
	       unsigned int nb)
{
	for (int out = 0; out < 2; out++) {
		rps_expo_family(e, out ? "dpdk_rps_stage_out" : "dpdk_rps_stage_in",
				RPS_EXPO_COUNTER, out ? "packets each stage passed on" :
				"packets each stage was given");
		for (unsigned int i = 0; i < nb; i++)
			for (unsigned int g = 0; g < RPS_STAGE_MAX; g++) {
				const struct rps_expo_label l[] = {
					{ "lcore", rows[i].lcore },
					{ "stage", rps_stage_name((enum rps_stage_id)g) } };

				if (rows[i].worker < 0 && app->lc.nb_workers != 0)
					break; /* the RX lcore runs no stage when it steers */
				if (rps_pipeline_has(&app->pipeline, (enum rps_stage_id)g))
					rps_expo_u64(e, l, 2, out ? rows[i].st->stage_out[g] :
						     rows[i].st->stage_in[g]);
			}
	}
}

/* Gauges and health of each worker (only when there are workers). */
static void
worker_gauges(struct rps_expo *e, const struct rps_app_lcores *lc, const struct rps_snapshot *s,
	      const struct row *rows, const struct locked *lk)
{
	static const int states[] = { RPS_HEALTH_OK, RPS_HEALTH_STALLED, RPS_HEALTH_RECOVERING };
	const struct row *w = rows + 1; /* rows[0] is the RX lcore */
	uint16_t nw = lc->nb_workers;

	rps_expo_family(e, "dpdk_rps_backlog_depth", RPS_EXPO_GAUGE,
			"packets waiting in the worker's backlog");
	for (uint16_t i = 0; i < nw; i++)
		rps_expo_u64(e, &(struct rps_expo_label){ "lcore", w[i].lcore }, 1, s->w[i].depth);
	rps_expo_family(e, "dpdk_rps_backlog_hwm", RPS_EXPO_GAUGE,
			"deepest the worker's backlog was right after an enqueue (high-water mark)");
	for (uint16_t i = 0; i < nw; i++)
		rps_expo_u64(e, &(struct rps_expo_label){ "lcore", w[i].lcore }, 1, s->w[i].hwm);
	rps_expo_family(e, "dpdk_rps_backlog_capacity", RPS_EXPO_GAUGE,
			"packets the worker's backlog holds (--backlog)");
	for (uint16_t i = 0; i < nw; i++)
		rps_expo_u64(e, &(struct rps_expo_label){ "lcore", w[i].lcore }, 1,
			     lc->backlogs[i].capacity);
	if (lk->owned != NULL) {
		rps_expo_family(e, "dpdk_rps_worker_buckets", RPS_EXPO_GAUGE,
				"buckets the worker owns in every RX queue's indirection table");
		for (uint16_t i = 0; i < nw; i++)
			rps_expo_u64(e, &(struct rps_expo_label){ "lcore", w[i].lcore }, 1,
				     lk->owned[i]);
	}
	rps_expo_family(e, "dpdk_rps_worker_health", RPS_EXPO_GAUGE,
			"1 for the worker's health state (ok, stalled, recovering: --stall-timeout), "
			"0 for the others");
	for (uint16_t i = 0; i < nw; i++) {
		int st = __atomic_load_n(&lc->workers[i].health.state, __ATOMIC_RELAXED);

		for (unsigned int k = 0; k < RTE_DIM(states); k++) {
			const struct rps_expo_label l[] = {
				{ "lcore", w[i].lcore }, { "state", rps_health_name(states[k]) } };

			rps_expo_u64(e, l, 2, st == states[k]);
		}
	}
	rps_expo_family(e, "dpdk_rps_worker_stalls", RPS_EXPO_COUNTER,
			"times the worker was declared stalled (--stall-timeout)");
	for (uint16_t i = 0; i < nw; i++)
		rps_expo_u64(e, &(struct rps_expo_label){ "lcore", w[i].lcore }, 1,
			     __atomic_load_n(&lc->workers[i].health.stalls, __ATOMIC_RELAXED));
	rps_expo_family(e, "dpdk_rps_worker_recoveries", RPS_EXPO_COUNTER,
			"times a stalled worker came back");
	for (uint16_t i = 0; i < nw; i++)
		rps_expo_u64(e, &(struct rps_expo_label){ "lcore", w[i].lcore }, 1,
			     __atomic_load_n(&lc->workers[i].health.recoveries, __ATOMIC_RELAXED));
}

/* Every RX port's own counters: what it received, and what it could not (rx_nombuf,
 * imissed), which stands outside rx_packets = processed + dropped. */
static void
port_counters(struct rps_expo *e, const struct rps_app *app)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} f[] = {
		{ "dpdk_rps_port_ipackets", "packets the RX port received (rte_eth_stats ipackets)",
		  offsetof(struct rte_eth_stats, ipackets) },
		{ "dpdk_rps_port_imissed", "packets the RX port dropped because its queues were "
		  "full (imissed): the RX lcore is too slow or descheduled; never in "
		  "dpdk_rps_rx_packets", offsetof(struct rte_eth_stats, imissed) },
		{ "dpdk_rps_port_ierrors", "erroneous packets the RX port received (ierrors)",
		  offsetof(struct rte_eth_stats, ierrors) },
		{ "dpdk_rps_port_rx_nombuf", "receive mbuf allocation failures of the RX port "
		  "(rx_nombuf): the pool ran dry, raise --mbufs; never in dpdk_rps_rx_packets",
		  offsetof(struct rte_eth_stats, rx_nombuf) },
	};
	struct rte_eth_stats st[RPS_RX_PORTS_MAX];
	char port[RPS_RX_PORTS_MAX][8];
	int ok[RPS_RX_PORTS_MAX];

	for (uint16_t p = 0; p < app->opt.nb_rx_ports; p++) {
		ok[p] = p < app->io.rx_started && rte_eth_stats_get(app->opt.rx_ports[p], &st[p]) == 0;
		snprintf(port[p], sizeof(port[p]), "%u", app->opt.rx_ports[p]);
	}
	for (size_t k = 0; k < RTE_DIM(f); k++) {
		rps_expo_family(e, f[k].name, RPS_EXPO_COUNTER, f[k].help);
		for (uint16_t p = 0; p < app->opt.nb_rx_ports; p++) {
			const struct rps_expo_label l[] = { { "port", port[p] } };
			uint64_t v;

			if (!ok[p])
				continue;
			memcpy(&v, (const char *)&st[p] + f[k].off, sizeof(v));
			rps_expo_u64(e, l, 1, v);
		}
	}
}

/* Every RX port's packets by what became of them (lcores summed): received = processed +
 * dropped per port once drained; "other" for packets of no RX port, when there were some. */
static void
port_flows(struct rps_expo *e, const struct rps_app *app, const struct rps_snapshot *s)
{
	const struct rps_port_stats *other = &s->total.port[0];
	const int nb = app->opt.nb_rx_ports;
	const int with_other = (other->received | other->processed | other->forwarded |
				rps_port_dropped_total(other)) != 0;
	char port[RPS_PORT_SLOTS][8], name[64];

	for (int i = 0; i < nb; i++)
		snprintf(port[1 + i], sizeof(port[0]), "%u", app->opt.rx_ports[i]);
	snprintf(port[0], sizeof(port[0]), "other");
#define RPS_X_PMETRIC(f, desc)                                                               \
	snprintf(name, sizeof(name), "dpdk_rps_port_%s", #f);                                \
	rps_expo_family(e, name, RPS_EXPO_COUNTER, desc);                                    \
	for (int i = with_other ? 0 : 1; i <= nb; i++)                                       \
		rps_expo_u64(e, &(struct rps_expo_label){ "port", port[i] }, 1, s->total.port[i].f);
	RPS_PORT_COUNTERS(RPS_X_PMETRIC)
#undef RPS_X_PMETRIC
	rps_expo_family(e, "dpdk_rps_port_dropped", RPS_EXPO_COUNTER,
			"packets of the port dropped, by reason: dpdk_rps_port_received = "
			"dpdk_rps_port_processed + these, per port, once drained");
	for (int i = with_other ? 0 : 1; i <= nb; i++)
		for (unsigned int r = 0; r < RPS_DROP_MAX; r++) {
			const struct rps_expo_label l[] = {
				{ "port", port[i] }, { "reason", rps_drop_name(r) } };

			rps_expo_u64(e, l, 2, s->total.port[i].dropped[r]);
		}
}

/* --consumers: each consumer's counters (sums over the workers feeding it) and link, labelled
 * with its index and group. Nothing when off. */
/* One consumer's two samples of a family by reason: consumer_absent, consumer_full. */
static void
by_reason(struct rps_expo *e, const char *id, const char *grp, uint64_t absent,
	  uint64_t full)
{
	const struct rps_expo_label la[] = {
		{ "consumer", id }, { "group", grp }, { "reason", "consumer_absent" } };
	const struct rps_expo_label lf[] = {
		{ "consumer", id }, { "group", grp }, { "reason", "consumer_full" } };

	rps_expo_u64(e, la, 3, absent);
	rps_expo_u64(e, lf, 3, full);
}

static void
consumer_metrics(struct rps_expo *e, const struct rps_app *app)
{
	char id[RPS_CONSUMERS_MAX][8], grp[RPS_CONSUMERS_MAX][8];
	struct rps_expo_label lab[RPS_CONSUMERS_MAX][2];
	struct rps_consumer_stats st[RPS_CONSUMERS_MAX];
	uint64_t connects[RPS_CONSUMERS_MAX];
	const uint16_t nb = app->cons.nb_consumers;

	if (nb == 0)
		return;
	for (uint16_t i = 0; i < nb; i++) {
		snprintf(id[i], sizeof(id[i]), "%u", i);
		snprintf(grp[i], sizeof(grp[i]), "%u", app->cons.consumers[i].group);
		lab[i][0] = (struct rps_expo_label){ "consumer", id[i] };
		lab[i][1] = (struct rps_expo_label){ "group", grp[i] };
		rps_consumer_stats(app, i, &st[i]);
		connects[i] = st[i].link.connects;
	}
	rps_expo_family(e, "dpdk_rps_consumer_delivered", RPS_EXPO_COUNTER,
			"packets handed to the consumer's memif queues (--consumers)");
	for (uint16_t i = 0; i < nb; i++)
		rps_expo_u64(e, lab[i], 2, st[i].delivered);
	rps_expo_family(e, "dpdk_rps_consumer_dropped", RPS_EXPO_COUNTER,
			"packets for the consumer dropped, by reason: consumer_absent (no client "
			"connected), consumer_full (its queue had no room)");
	for (uint16_t i = 0; i < nb; i++)
		by_reason(e, id[i], grp[i], st[i].absent, st[i].full);
	rps_expo_family(e, "dpdk_rps_consumer_returned", RPS_EXPO_COUNTER,
			"--consumer-mode inline: packets the consumer returned (its verdict to "
			"pass), sent on by the pair's other port");
	for (uint16_t i = 0; i < nb; i++)
		rps_expo_u64(e, lab[i], 2, st[i].returned);
	rps_expo_family(e, "dpdk_rps_consumer_fail_open", RPS_EXPO_COUNTER,
			"--consumer-fail open: packets for the consumer forwarded directly, by "
			"why: consumer_absent (no client connected), consumer_full (no room)");
	for (uint16_t i = 0; i < nb; i++)
		by_reason(e, id[i], grp[i], st[i].open_absent, st[i].open_full);
	rps_expo_family(e, "dpdk_rps_consumer_filtered", RPS_EXPO_COUNTER,
			"--consumer-filter: packets the consumer's group filter refused (not "
			"sent to it; the other groups still get them)");
	for (uint16_t i = 0; i < nb; i++)
		rps_expo_u64(e, lab[i], 2, st[i].filtered);
	rps_expo_family(e, "dpdk_rps_consumer_connected", RPS_EXPO_GAUGE,
			"1 while a memif client is connected to the consumer's socket");
	for (uint16_t i = 0; i < nb; i++)
		rps_expo_u64(e, lab[i], 2, (uint64_t)st[i].link.up);
	rps_expo_family(e, "dpdk_rps_consumer_reconnects", RPS_EXPO_COUNTER,
			"times a client connected to the consumer again after the first");
	for (uint16_t i = 0; i < nb; i++)
		rps_expo_u64(e, lab[i], 2,
			     connects[i] > 0 ? connects[i] - 1 : 0);
	rps_expo_family(e, "dpdk_rps_consumer_clients", RPS_EXPO_COUNTER,
			"clients of the consumer's socket by how they ended: refused (the slot "
			"was taken), aborted (left in the handshake), timeout (handshake not "
			"finished in time), rejected (bad handshake: version, id, secret, memory), "
			"broken (sent away for a bad ring or descriptor)");
	for (uint16_t i = 0; i < nb; i++) {
		const struct { const char *why; uint64_t v; } ends[] = {
			{ "refused", st[i].link.refused }, { "aborted", st[i].link.aborted },
			{ "timeout", st[i].link.timeouts }, { "rejected", st[i].link.rejected },
			{ "broken", st[i].link.broken },
		};

		for (unsigned int j = 0; j < RTE_DIM(ends); j++) {
			const struct rps_expo_label l[] = {
				{ "consumer", id[i] }, { "group", grp[i] }, { "end", ends[j].why } };

			rps_expo_u64(e, l, 3, ends[j].v);
		}
	}
}

/* The pool's split (rps_budget.h): the RX lcores' reserve and what each worker may hold. */
static void
pool_budgets(struct rps_expo *e, const struct rps_app_io *io)
{
	const struct {
		const char *part;
		uint64_t v;
	} b[] = {
		{ "pool", io->pool_size }, { "reserve", io->pool_reserve },
		{ "worker_share", io->worker_share }, { "backlog_cap", io->backlog_cap },
		{ "frag_budget", io->frag_budget },
	};

	rps_expo_family(e, "dpdk_rps_mbuf_budget", RPS_EXPO_GAUGE,
			"the mbuf pool and its split: reserve (the RX lcores' own), worker_share "
			"(the most a worker holds), backlog_cap (packets per backlog ring, cut below "
			"--backlog when the pool is short: refused as mbuf_budget), frag_budget "
			"(mbufs a worker's reassembly holds)");
	for (size_t k = 0; k < RTE_DIM(b); k++)
		rps_expo_u64(e, &(struct rps_expo_label){ "part", b[k].part }, 1, b[k].v);
}

static void
globals(struct rps_expo *e, const struct rps_app *app, const struct locked *lk)
{
	const struct rps_expo_label ok[] = { { "result", "ok" } }, bad[] = { { "result", "failed" } };
	char rx[12];

	rps_expo_family(e, "dpdk_rps_build", RPS_EXPO_INFO, "version and set-up of this dpdk-rps");
	{
		const struct rps_expo_label l[] = {
			{ "version", RPS_VERSION }, { "driver", app->io.rx_driver },
			{ "hash", rps_hash_mode_name(app->opt.hash_mode) },
			{ "stages", app->opt.stages_text }, { "build_cpu", app->io.cpu.build },
		};

		rps_expo_u64(e, l, RTE_DIM(l), 1);
	}
	rps_expo_family(e, "dpdk_rps_lcore", RPS_EXPO_INFO,
			"each lcore of the page: role rx (polls the port and steers) or worker, and "
			"its socket");
	snprintf(rx, sizeof(rx), "%u", app->io.rx_lcore);
	{
		char sock[12];
		const struct rps_expo_label l[] = {
			{ "lcore", rx }, { "role", "rx" }, { "socket", sock } };

		snprintf(sock, sizeof(sock), "%d", (int)rte_lcore_to_socket_id(app->io.rx_lcore));
		rps_expo_u64(e, l, RTE_DIM(l), 1);
	}
	for (uint16_t i = 0; i < app->lc.nb_workers; i++) {
		char lc[12], sock[12];
		const struct rps_expo_label l[] = {
			{ "lcore", lc }, { "role", "worker" }, { "socket", sock } };

		snprintf(lc, sizeof(lc), "%u", app->lc.workers[i].lcore);
		snprintf(sock, sizeof(sock), "%d",
			 (int)rte_lcore_to_socket_id(app->lc.workers[i].lcore));
		rps_expo_u64(e, l, RTE_DIM(l), 1);
	}
	rps_expo_family(e, "dpdk_rps_ready", RPS_EXPO_GAUGE,
			"1 once ports, workers, reloads and telemetry are up (as /rps/info ready)");
	rps_expo_u64(e, NULL, 0, (uint64_t)__atomic_load_n(&app->life.ready, __ATOMIC_ACQUIRE));
	rps_expo_family(e, "dpdk_rps_uptime_seconds", RPS_EXPO_GAUGE, "seconds since the workers "
			"started");
	rps_expo_double(e, NULL, 0, rps_view_uptime_s(&app->life));
	rps_expo_family(e, "dpdk_rps_config_generation", RPS_EXPO_GAUGE,
			"configuration generation: 1 at start, one more for each applied reload or "
			"rebalance");
	rps_expo_u64(e, NULL, 0, __atomic_load_n(&app->ctl.generation, __ATOMIC_ACQUIRE));
	rps_expo_family(e, "dpdk_rps_config_reloads", RPS_EXPO_COUNTER,
			"configuration reloads (SIGHUP, file changed), applied or refused");
	rps_expo_u64(e, ok, 1, lk->reloads_ok);
	rps_expo_u64(e, bad, 1, lk->reloads_failed);
	rps_expo_family(e, "dpdk_rps_imbalance", RPS_EXPO_GAUGE,
			"the busiest worker's load over the mean (weighted), last rebalance interval");
	rps_expo_double(e, NULL, 0, lk->imbalance);
	rps_expo_family(e, "dpdk_rps_rebalance_runs", RPS_EXPO_COUNTER,
			"rebalance intervals evaluated while the rebalancer is on");
	rps_expo_u64(e, NULL, 0, __atomic_load_n(&app->ctl.rebalance_runs, __ATOMIC_RELAXED));
	rps_expo_family(e, "dpdk_rps_buckets_moved", RPS_EXPO_COUNTER,
			"buckets the rebalancer moved to another worker");
	rps_expo_u64(e, NULL, 0, __atomic_load_n(&app->ctl.buckets_moved, __ATOMIC_RELAXED));
}

/* Each steering rule's hits (rules.c), labelled with its index in match order, text and
 * action: since start (a counter: a reload goes on counting a rule whose text it keeps), and
 * since the set was taken (a gauge: it starts again with a reload that changes the rules). */
static void
rule_metrics(struct rps_expo *e, const struct rps_app *app)
{
	const struct rps_rules *rs;

	rps_ctl_lock(&app->ctl); /* the set stays while it is held */
	rs = app->steer.rules;
	for (int since_reload = 0; since_reload < 2; since_reload++) {
		if (since_reload)
			rps_expo_family(e, "dpdk_rps_rule_hits_since_reload", RPS_EXPO_GAUGE,
					"packets each steering rule matched since the reload that "
					"last changed the rules");
		else
			rps_expo_family(e, "dpdk_rps_rule_hits", RPS_EXPO_COUNTER,
					"packets each steering rule matched (--rule, [rules]) "
					"since start, across the reloads that kept it");
		for (uint16_t i = 0; rs != NULL && i < rs->nb_rules; i++) {
			char idx[8], act[48];
			const struct rps_expo_label l[] = {
				{ "rule", idx }, { "text", rs->text[i] },
				{ "action", rps_app_rule_action(rs, i, act, sizeof(act)) } };

			snprintf(idx, sizeof(idx), "%u", i);
			rps_expo_u64(e, l, 3, since_reload ? rps_app_rule_hits(&app->lc, rs, i) :
				     rps_app_rule_hits_total(app, rs, i));
		}
	}
	rps_ctl_unlock(&app->ctl);
}

/* The whole page into @p e. @return 0 or -ENOMEM. */
static int
render(const struct rps_app *app, struct rps_expo *e)
{
	struct rps_snapshot *s = rps_snapshot_alloc();
	const int steering = app->lc.nb_workers != 0;
	struct locked lk = { 0 };
	struct row *rows;
	unsigned int nb = 0;

	rows = calloc((size_t)app->lc.nb_workers + 1, sizeof(*rows));
	if (steering)
		lk.owned = calloc(app->lc.nb_workers, sizeof(*lk.owned));
	if (s == NULL || rows == NULL || (steering && lk.owned == NULL)) {
		free(s);
		free(rows);
		free(lk.owned);
		return -ENOMEM;
	}
	rps_snapshot_take(app, s);
	read_locked(app, &lk);
	/* The RX lcore, then each worker. Without a map the RX lcore is the one worker, and
	 * the snapshot lists it again as w[0]: once here. */
	snprintf(rows[nb].lcore, sizeof(rows[nb].lcore), "%u", app->io.rx_lcore);
	rows[nb].st = &s->rx;
	rows[nb++].worker = -1;
	for (uint16_t i = 0; steering && i < s->nb; i++) {
		snprintf(rows[nb].lcore, sizeof(rows[nb].lcore), "%u", s->w[i].lcore);
		rows[nb].st = &s->w[i].st;
		rows[nb++].worker = i;
	}
	lcore_counters(e, rows, nb, steering);
	stage_counters(e, app, rows, nb);
	if (steering)
		worker_gauges(e, &app->lc, s, rows, &lk);
	port_counters(e, app);
	port_flows(e, app, s);
	consumer_metrics(e, app);
	rule_metrics(e, app);
	pool_budgets(e, &app->io);
	globals(e, app, &lk);
	free(lk.owned);
	free(rows);
	free(s);
	return rps_expo_end(e);
}

static enum MHD_Result
reply(struct MHD_Connection *c, unsigned int status, const char *type, char *body, size_t len,
      int owned)
{
	struct MHD_Response *r = owned ?
		MHD_create_response_from_buffer_with_free_callback(len, body, free) :
		MHD_create_response_from_buffer(len, body, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result rc;

	if (r == NULL) {
		if (owned)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result
handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
       const char *version, const char *upload, size_t *upload_len, void **req)
{
	static char index[] = "dpdk-rps: the metrics are at /metrics\n";
	static char not_found[] = "not found: the metrics are at /metrics\n";
	static char not_allowed[] = "only GET and HEAD\n";
	static char oom[] = "out of memory\n";
	static int seen;
	struct rps_metrics *m = cls;
	struct rps_expo e;

	(void)version;
	(void)upload;
	if (*req == NULL) { /* the headers: answer once the request is complete */
		*req = &seen;
		return MHD_YES;
	}
	if (*upload_len != 0) { /* a body: not wanted, read and dropped */
		*upload_len = 0;
		return MHD_YES;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", not_allowed,
			     sizeof(not_allowed) - 1, 0);
	if (strcmp(url, "/") == 0)
		return reply(c, MHD_HTTP_OK, "text/plain", index, sizeof(index) - 1, 0);
	if (strcmp(url, "/metrics") != 0)
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", not_found,
			     sizeof(not_found) - 1, 0);
	rps_expo_init(&e, rps_expo_negotiate(MHD_lookup_connection_value(c, MHD_HEADER_KIND,
								     MHD_HTTP_HEADER_ACCEPT)));
	if (render(m->app, &e) < 0) {
		rps_expo_fini(&e);
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", oom,
			     sizeof(oom) - 1, 0);
	}
	return reply(c, MHD_HTTP_OK, rps_expo_content_type(e.format), e.buf, e.len, 1);
}

static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[256];
	size_t n;

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n > 0 && msg[n - 1] == '\n')
		msg[--n] = '\0';
	RPS_LOG(WARNING, "metrics: %s", msg);
}

/* Bind and listen on @p l; @return the socket, or -errno. */
static int
listen_on(const struct rps_listen *l, char *where, size_t where_len)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char host[INET6_ADDRSTRLEN];
	const int one = 1;
	int fd, err;

	memset(&ss, 0, sizeof(ss));
	if (l->family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(l->port);
		memcpy(&a->sin6_addr, l->addr, 16);
		len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(l->port);
		memcpy(&a->sin_addr, l->addr, 4);
		len = sizeof(*a);
	}
	fd = socket(l->family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* a restart does not wait for the last run's connections in TIME_WAIT; another
	 * listener on the port is still refused (EADDRINUSE) */
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, METRICS_BACKLOG) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		err = errno;
		close(fd);
		return -err;
	}
	if (l->family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		snprintf(where, where_len, "[%s]:%u", host, ntohs(a->sin6_port));
	} else {
		const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		snprintf(where, where_len, "%s:%u", host, ntohs(a->sin_port));
	}
	return fd;
}

/*
 * Clients at once: METRICS_CONNECTIONS_MAX, or half the descriptors the open-file limit
 * (ulimit -n) leaves free when that is less, so that scrapers can never take the
 * descriptors the ports, the consumers or a reload need. @p fd, the listening socket just
 * made, is the lowest free descriptor: about as many are open already.
 */
static unsigned int
connection_limit(int fd)
{
	struct rlimit rl;
	rlim_t free_fds;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return METRICS_CONNECTIONS_MAX;
	free_fds = rl.rlim_cur > (rlim_t)fd + 1 ? rl.rlim_cur - (rlim_t)fd - 1 : 0;
	return (unsigned int)RTE_MAX((rlim_t)METRICS_CONNECTIONS_MIN,
				     RTE_MIN(free_fds / 2, (rlim_t)METRICS_CONNECTIONS_MAX));
}

int
rps_metrics_open(struct rps_app *app, char *err, size_t err_len)
{
	const struct rps_listen *l = &app->opt.metrics;
	struct rps_metrics *m;
	int fd;

	if (!l->on)
		return 0;
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	fd = listen_on(l, app->obs.metrics_where, sizeof(app->obs.metrics_where));
	if (fd < 0) {
		snprintf(err, err_len, "cannot listen: %s%s", strerror(-fd),
			 fd == -EADDRINUSE ? " (another program has that port: choose another, "
			 "or port 0 for a free one)" : fd == -EADDRNOTAVAIL ?
			 " (no interface of this host has that address)" : fd == -EACCES ?
			 " (a port below 1024 needs privileges)" : "");
		app->obs.metrics_where[0] = '\0';
		free(m);
		return fd;
	}
	m->app = app;
	m->fd = fd;
	m->limit = connection_limit(fd);
	m->daemon = MHD_start_daemon(MHD_USE_EPOLL | MHD_USE_ERROR_LOG |
				     (l->family == AF_INET6 ? MHD_USE_IPv6 : 0), 0, NULL, NULL,
				     handle, m,
				     MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				     MHD_OPTION_LISTEN_SOCKET, fd,
				     MHD_OPTION_CONNECTION_LIMIT, m->limit,
				     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)METRICS_TIMEOUT_S,
				     MHD_OPTION_END);
	if (m->daemon == NULL) {
		snprintf(err, err_len, "cannot start the HTTP server (libmicrohttpd) on %s",
			 app->obs.metrics_where);
		app->obs.metrics_where[0] = '\0';
		close(fd);
		free(m);
		return -EIO;
	}
	app->obs.metrics = m;
	return 0;
}

static void *
serve(void *arg)
{
	struct rps_metrics *m = arg;

	while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE))
		if (MHD_run_wait(m->daemon, METRICS_POLL_MS) != MHD_YES)
			rte_delay_us_sleep(METRICS_POLL_MS * 1000); /* never spin on an error */
	return NULL;
}

int
rps_metrics_start(struct rps_app *app)
{
	struct rps_metrics *m = app->obs.metrics;
	int rc;

	if (m == NULL)
		return 0;
	rc = rte_ctrl_thread_create(&m->thread, "rps-metrics", NULL, serve, m);
	if (rc != 0) {
		RPS_LOG(ERR, "metrics: cannot start the rps-metrics thread: %s; no metrics",
			strerror(rc));
		rps_metrics_close(&app->obs);
		return -rc;
	}
	m->running = 1;
	RPS_LOG(INFO, "metrics: http://%s/metrics (Prometheus text 0.0.4, OpenMetrics on request; "
		"%u clients at once, silent ones closed after %d s)", app->obs.metrics_where,
		m->limit, METRICS_TIMEOUT_S);
	return 0;
}

void
rps_metrics_close(struct rps_app_obs *obs)
{
	struct rps_metrics *m = obs->metrics;

	if (m == NULL)
		return;
	if (m->running) {
		__atomic_store_n(&m->stop, 1, __ATOMIC_RELEASE);
		pthread_join(m->thread, NULL); /* a request in progress ends first */
	}
	MHD_stop_daemon(m->daemon); /* closes the connections and the listening socket */
	obs->metrics = NULL;
	free(m);
}
