/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tel_lcores.c: the telemetry commands about the lcores and ports (telemetry.c registers
 * them): /rps/info, /rps/stats, /rps/ports, /rps/workers and /rps/worker. Telemetry thread;
 * the application context is read-only here: counters through snapshots (snapshot.c),
 * what the control thread keeps under its lock.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_telemetry.h>

#include "app.h"
#include "tel.h"

/* ---- /rps/info ---- */

static void
info_build(struct tel_out *o, const void *arg)
{
	const struct rps_app *app = arg;
	struct tel_out w;

	tel_str(o, "version", RPS_VERSION);
	tel_int(o, "rx_lcore", (int)app->io.rx_lcore);
	tel_open(o, &w, RTE_TEL_INT_VAL);
	for (uint16_t i = 0; i < app->lc.nb_workers; i++)
		tel_arr_int(&w, (int)app->lc.workers[i].lcore);
	tel_close(o, "worker_lcores", &w);
	tel_int(o, "rx_port", app->opt.rx_port);
	tel_str(o, "driver", app->io.rx_driver);
	tel_int(o, "rx_queues", app->io.nb_rxq);
	tel_int(o, "tx_port", app->opt.tx_port);
	tel_u64(o, "uptime_s", (uint64_t)rps_view_uptime_s(&app->life));
	/* what turns busy_cycles (/rps/workers) into a share of the lcore's time */
	tel_u64(o, "tsc_hz", rte_get_tsc_hz());
	tel_u64(o, "config_generation", __atomic_load_n(&app->ctl.generation, __ATOMIC_ACQUIRE));
	tel_str(o, "hash", rps_hash_mode_name(app->opt.hash_mode));
	/* both directions of a connection on one worker or not: what a pair needs (pairs.c
	 * turns it on for one unless told off) */
	tel_str(o, "symmetric", rps_sym_mode_name((enum rps_sym_mode)app->opt.symmetric));
	tel_open(o, &w, RTE_TEL_STRING_VAL);
	for (uint16_t i = 0; i < app->opt.nb_fwd; i++) {
		char pair[16];

		snprintf(pair, sizeof(pair), "%u:%u", app->opt.fwd[i].a, app->opt.fwd[i].b);
		tel_arr_str(&w, pair);
	}
	tel_close(o, "pairs", &w);
	tel_str(o, "stages", app->opt.stages_text);
	tel_int(o, "ready", __atomic_load_n(&app->life.ready, __ATOMIC_ACQUIRE));
	tel_str(o, "build_cpu", app->io.cpu.build);
	tel_str(o, "toeplitz_impl", app->io.cpu.toeplitz);
	tel_str(o, "idle_wait", app->io.cpu.idle_wait);
	tel_str(o, "flow_hash_impl", app->io.cpu.flow_hash);
	tel_str(o, "cpu_flags", app->io.cpu.cpu_flags);
	tel_str(o, "metrics", app->obs.metrics_where);
}

int
tel_info(const struct rps_app *app, const char *params, struct rte_tel_data *d)
{
	(void)params;
	return tel_reply(d, info_build, app);
}

/* ---- /rps/stats ---- */

/*
 * Workers in a page of /rps/stats. At their widest (every number 20 digits, lcores of three)
 * a worker's summary is 291 bytes and the rest of the reply 1,730: 16 workers make 6,386
 * bytes of the TEL_REPLY_MAX 16,320 (32 would make 11,042).
 */
#define TEL_STATS_PAGE 16

/* What /rps/stats shows, read once for both runs of the reply. */
struct stats_arg {
	const struct rps_app *app;
	const struct rps_snapshot *s;
	uint32_t first;
	int rx_ok, tx_ok;             /* the ports' counters were read */
	struct rte_eth_stats rx, tx;
	int pool;
	uint64_t pool_size, pool_in_use, pool_avail;
};

/*
 * The ports' own counters, read live (rte_eth_stats_get() from this thread: the PMDs sum
 * per-queue counters the data path writes), and the packet pool's fill: the losses that
 * happen before dpdk-rps sees a packet (rx_nombuf: the pool ran dry; imissed: the RX queue
 * overflowed) and how close the pool is to running dry.
 */
static void
port_pool_read(const struct rps_app *app, struct stats_arg *a)
{
	a->rx_ok = app->io.rx_started && rte_eth_stats_get(app->opt.rx_port, &a->rx) == 0;
	a->tx_ok = app->io.tx_started && app->opt.tx_port != (int)app->opt.rx_port &&
		   rte_eth_stats_get((uint16_t)app->opt.tx_port, &a->tx) == 0;
	a->pool = app->io.pool != NULL;
	if (a->pool) {
		a->pool_size = app->io.pool->size;
		a->pool_in_use = rte_mempool_in_use_count(app->io.pool);
		a->pool_avail = rte_mempool_avail_count(app->io.pool);
	}
}

static void
port_pool_build(struct tel_out *o, const struct stats_arg *a)
{
	const struct rps_app *app = a->app;
	struct tel_out c;

	if (a->rx_ok) {
		tel_open(o, &c, RTE_TEL_CONTAINER);
		tel_u64(&c, "port_id", app->opt.rx_port);
		tel_u64(&c, "ipackets", a->rx.ipackets);
		tel_u64(&c, "imissed", a->rx.imissed);
		tel_u64(&c, "ierrors", a->rx.ierrors);
		tel_u64(&c, "rx_nombuf", a->rx.rx_nombuf);
		if (app->opt.tx_port == (int)app->opt.rx_port) {
			tel_u64(&c, "opackets", a->rx.opackets);
			tel_u64(&c, "oerrors", a->rx.oerrors);
		}
		tel_close(o, "port", &c);
	}
	if (a->tx_ok) {
		tel_open(o, &c, RTE_TEL_CONTAINER);
		tel_u64(&c, "port_id", (uint64_t)app->opt.tx_port);
		tel_u64(&c, "opackets", a->tx.opackets);
		tel_u64(&c, "oerrors", a->tx.oerrors);
		tel_close(o, "tx_port", &c);
	}
	if (a->pool) {
		tel_open(o, &c, RTE_TEL_CONTAINER);
		tel_u64(&c, "size", a->pool_size);
		tel_u64(&c, "in_use", a->pool_in_use);
		tel_u64(&c, "available", a->pool_avail);
		/* its split (rps_budget.h): the RX lcores' reserve, each worker's share */
		tel_u64(&c, "reserve", app->io.pool_reserve);
		tel_u64(&c, "worker_share", app->io.worker_share);
		tel_u64(&c, "backlog_cap", app->io.backlog_cap);
		tel_u64(&c, "frag_budget", app->io.frag_budget);
		tel_close(o, "mempool", &c);
	}
}

static void
stats_build(struct tel_out *o, const void *arg)
{
	const struct stats_arg *a = arg;
	const struct rps_app *app = a->app;
	const struct rps_snapshot *s = a->s;
	uint16_t nw = app->lc.nb_workers ? app->lc.nb_workers : 1;

	tel_u64(o, "rx_packets", s->rx.rx_packets);
	tel_u64(o, "enqueued", s->rx.enqueued);
	tel_u64(o, "processed", s->total.processed);
	tel_u64(o, "tx_packets", s->total.tx_packets);
	tel_u64(o, "rx_pps", rps_view_pps(&app->ctl, nw));
	tel_add_drops(o, &s->total);
	tel_u64(o, "time_squeeze", s->total.time_squeeze);
	tel_u64(o, "out_of_order", s->total.out_of_order);
	tel_u64(o, "flows_migrated", s->rx.flows_migrated);
	tel_u64(o, "migrations_deferred", s->rx.migrations_deferred);
	tel_u64(o, "move_drains", s->rx.move_drains);
	tel_u64(o, "buckets_moved", __atomic_load_n(&app->ctl.buckets_moved, __ATOMIC_RELAXED));
	tel_u64(o, "rebalance_runs", __atomic_load_n(&app->ctl.rebalance_runs, __ATOMIC_RELAXED));
	if (s->nb_rx > 1) {
		/* each RX lcore: its lcore, what it received and enqueued */
		struct tel_out l, r, e;

		tel_open(o, &l, RTE_TEL_INT_VAL);
		tel_open(o, &r, RTE_TEL_U64_VAL);
		tel_open(o, &e, RTE_TEL_U64_VAL);
		for (uint16_t k = 0; k < s->nb_rx; k++) {
			tel_arr_int(&l, (int)s->rxl[k].lcore);
			tel_arr_u64(&r, s->rxl[k].st.rx_packets);
			tel_arr_u64(&e, s->rxl[k].st.enqueued);
		}
		tel_close(o, "rx_lcores", &l);
		tel_close(o, "rx_lcores_rx_packets", &r);
		tel_close(o, "rx_lcores_enqueued", &e);
		/* each (RX lcore, worker) pair's backlog, row by row: [rx * nb_workers + worker] */
		if (app->lc.nb_workers != 0 &&
		    (uint32_t)s->nb_rx * app->lc.nb_workers <= RTE_TEL_MAX_ARRAY_ENTRIES) {
			tel_open(o, &r, RTE_TEL_U64_VAL);
			tel_open(o, &e, RTE_TEL_U64_VAL);
			for (uint16_t k = 0; k < s->nb_rx; k++)
				for (uint16_t w = 0; w < app->lc.nb_workers; w++) {
					const struct rps_backlog *b = rps_app_backlog(&app->lc, k, w);

					tel_arr_u64(&r, rps_backlog_depth(b));
					tel_arr_u64(&e, RPS_CTR_READ(b->prod.full_drops));
				}
			tel_close(o, "pair_backlog_depth", &r);
			tel_close(o, "pair_backlog_full", &e);
		}
	}
	port_pool_build(o, a);
	tel_u64(o, "nb_workers", s->nb);
	tel_page(o, a->first, TEL_STATS_PAGE, s->nb);
	for (uint32_t i = a->first; i < s->nb && i < a->first + TEL_STATS_PAGE; i++) {
		const struct rps_lcore_stats *st = &s->w[i].st;
		struct tel_out c;
		char name[32];

		tel_open(o, &c, RTE_TEL_CONTAINER);
		tel_u64(&c, "received_rps", st->received_rps);
		tel_u64(&c, "processed", st->processed);
		tel_u64(&c, "tx_packets", st->tx_packets);
		tel_u64(&c, "dropped_total", rps_stats_dropped_total(st));
		tel_u64(&c, "backlog_depth", s->w[i].depth);
		tel_u64(&c, "backlog_hwm", s->w[i].hwm);
		tel_u64(&c, "pps", rps_view_pps(&app->ctl, i));
		tel_u64(&c, "time_squeeze", st->time_squeeze);
		snprintf(name, sizeof(name), "worker_%u", s->w[i].lcore);
		tel_close(o, name, &c);
	}
}

int
tel_stats(const struct rps_app *app, const char *params, struct rte_tel_data *d)
{
	struct stats_arg a = { .app = app };
	struct rps_snapshot *s;
	int rc;

	if (tel_page_first(params, app->lc.nb_workers ? app->lc.nb_workers : 1, &a.first) != 0)
		return -EINVAL;
	s = rps_snapshot_alloc();
	if (s == NULL)
		return -ENOMEM;
	rps_snapshot_take(app, s);
	a.s = s;
	port_pool_read(app, &a);
	rc = tel_reply(d, stats_build, &a);
	free(s);
	return rc;
}

/* ---- /rps/ports ---- */

/* One ingress port: its counters, drops by reason, where its packets leave. At their widest
 * (every number 20 digits) 26 entries are about 1,250 bytes: the 8 RX ports and "other"
 * make about 11,300 of the 16,320. */
static void
port_build(struct tel_out *o, const char *name, int port, int to, int paired,
	   const struct rps_port_stats *p)
{
	struct tel_out c;
	char key[64];

	tel_open(o, &c, RTE_TEL_CONTAINER);
	if (port >= 0)
		tel_int(&c, "port_id", port);
#define RPS_X_PTEL(fld, d) tel_u64(&c, #fld, p->fld);
	RPS_PORT_COUNTERS(RPS_X_PTEL)
#undef RPS_X_PTEL
	for (unsigned int r = 0; r < RPS_DROP_MAX; r++) {
		snprintf(key, sizeof(key), "dropped_%s", rps_drop_name(r));
		tel_u64(&c, key, p->dropped[r]);
	}
	tel_u64(&c, "dropped_total", rps_port_dropped_total(p));
	if (to >= 0) {
		tel_int(&c, "to", to);
		tel_int(&c, "pair", paired);
	}
	tel_close(o, name, &c);
}

static void
ports_build(struct tel_out *o, const void *arg)
{
	const struct stats_arg *a = arg;
	const struct rps_app *app = a->app;
	const struct rps_port_stats *other = &a->s->total.port[0];
	struct tel_out ps;
	char name[16];

	tel_u64(o, "nb_ports", app->opt.nb_rx_ports);
	tel_open(o, &ps, RTE_TEL_CONTAINER);
	for (uint16_t i = 0; i < app->opt.nb_rx_ports; i++) {
		const uint16_t port = app->opt.rx_ports[i];

		snprintf(name, sizeof(name), "%u", port);
		port_build(&ps, name, port, rps_port_to(app, port), rps_port_paired(app, port),
			   &a->s->total.port[1 + i]);
	}
	if ((other->received | other->processed | other->forwarded |
	     rps_port_dropped_total(other)) != 0)
		port_build(&ps, "other", -1, -1, 0, other);
	tel_close(o, "ports", &ps);
}

int
tel_ports(const struct rps_app *app, const char *params, struct rte_tel_data *d)
{
	struct stats_arg a = { .app = app };
	struct rps_snapshot *s;
	int rc;

	if (params != NULL && *params != '\0')
		return -EINVAL;
	s = rps_snapshot_alloc();
	if (s == NULL)
		return -ENOMEM;
	rps_snapshot_take(app, s);
	a.s = s;
	rc = tel_reply(d, ports_build, &a);
	free(s);
	return rc;
}

/* ---- /rps/workers and /rps/worker ---- */

/*
 * Workers in a page of /rps/workers. At their widest (lcores of three digits, every number
 * 20 or 11 digits, "recovering") 19 fields are 641 bytes: 16 workers and the rest of the
 * reply make 10,362 bytes of the 16,320.
 */
#define TEL_WORKERS_PAGE 16

/* What /rps/workers and /rps/worker show, read once for both runs of the reply. */
struct workers_arg {
	const struct rps_app *app;
	const struct rps_snapshot *s;
	uint32_t first, count;             /* workers shown: [first, first + count) */
	uint32_t owned[RTE_MAX_LCORE];     /* buckets each worker owns, every queue */
	int health[RTE_MAX_LCORE];         /* RPS_HEALTH_* of each worker */
};

static void
workers_read(const struct rps_app *app, struct workers_arg *a)
{
	rps_view_owned(app, a->owned);
	for (uint16_t i = 0; i < app->lc.nb_workers; i++)
		a->health[i] = __atomic_load_n(&app->lc.workers[i].health.state, __ATOMIC_RELAXED);
}

/* Backlog, health, load and buckets of worker @p i: /rps/workers and /rps/worker share them. */
static void
worker_common(struct tel_out *c, const struct workers_arg *a, uint32_t i)
{
	const struct rps_app *app = a->app;
	const struct rps_lcore_stats *st = &a->s->w[i].st;

	tel_int(c, "index", (int)i);
	tel_int(c, "socket", (int)rte_lcore_to_socket_id(a->s->w[i].lcore));
	tel_u64(c, "backlog_capacity", app->lc.nb_workers ? app->lc.backlogs[i].capacity : 0);
	tel_u64(c, "backlog_depth", a->s->w[i].depth);
	tel_u64(c, "backlog_hwm", a->s->w[i].hwm);
	if (app->lc.nb_workers != 0) {
		const struct rps_health *h = &app->lc.workers[i].health;

		tel_str(c, "health", rps_health_name(a->health[i]));
		tel_u64(c, "stalls", __atomic_load_n(&h->stalls, __ATOMIC_RELAXED));
		tel_u64(c, "recoveries", __atomic_load_n(&h->recoveries, __ATOMIC_RELAXED));
		tel_str(c, "state", rps_lcore_state_name(&app->lc.workers[i]));
	}
	{
		const struct rps_worker *w = app->lc.nb_workers ? &app->lc.workers[i] : RPS_APP_SELF(app);

		/* its thread's CPU time so far (/proc): a sleeping worker's stays flat */
		tel_u64(c, "cpu_ms", rps_lcore_cpu_ms(w));
	}
	tel_u64(c, "pps", rps_view_pps(&app->ctl, i));
	tel_u64(c, "busy_percent", st->polls ? st->busy_polls * 100 / st->polls : 0);
	{
		/* /rps/flows snapshots it took: they walk its flow table on the data path */
		const struct rps_flow_snap *fs = app->lc.nb_workers ? app->lc.workers[i].flow_snap :
						 RPS_APP_SELF(app)->flow_snap;

		tel_u64(c, "flow_snapshots", fs != NULL ?
			__atomic_load_n(&fs->taken, __ATOMIC_RELAXED) : 0);
	}
	tel_u64(c, "buckets", a->owned[i]);
}

static void
workers_build(struct tel_out *o, const void *arg)
{
	const struct workers_arg *a = arg;
	const struct rps_snapshot *s = a->s;
	struct tel_out ws;

	tel_u64(o, "nb_workers", s->nb);
	tel_page(o, a->first, TEL_WORKERS_PAGE, s->nb);
	tel_open(o, &ws, RTE_TEL_CONTAINER);
	for (uint32_t i = a->first; i < a->first + a->count; i++) {
		const struct rps_lcore_stats *st = &s->w[i].st;
		struct tel_out c;
		char name[16];

		tel_open(&ws, &c, RTE_TEL_CONTAINER);
		worker_common(&c, a, i);
		tel_u64(&c, "received_rps", st->received_rps);
		tel_u64(&c, "processed", st->processed);
		tel_u64(&c, "time_squeeze", st->time_squeeze);
		tel_u64(&c, "busy_cycles", st->busy_cycles);
		tel_u64(&c, "flows_active", st->flows_active);
		tel_u64(&c, "dropped_total", rps_stats_dropped_total(st));
		tel_u64(&c, "dropped_backlog_full", st->dropped[RPS_DROP_BACKLOG_FULL]);
		tel_u64(&c, "dropped_mbuf_budget", st->dropped[RPS_DROP_MBUF_BUDGET]);
		tel_u64(&c, "dropped_flow_limit", st->dropped[RPS_DROP_FLOW_LIMIT]);
		snprintf(name, sizeof(name), "%u", s->w[i].lcore);
		tel_close(&ws, name, &c);
	}
	tel_close(o, "workers", &ws);
}

int
tel_workers(const struct rps_app *app, const char *params, struct rte_tel_data *d)
{
	struct workers_arg *a = calloc(1, sizeof(*a));
	struct rps_snapshot *s = rps_snapshot_alloc();
	int rc = -ENOMEM;

	if (a == NULL || s == NULL)
		goto out;
	rc = tel_page_first(params, app->lc.nb_workers ? app->lc.nb_workers : 1, &a->first);
	if (rc != 0)
		goto out;
	rps_snapshot_take(app, s);
	a->app = app;
	a->s = s;
	a->count = RTE_MIN((uint32_t)TEL_WORKERS_PAGE, s->nb - a->first);
	workers_read(app, a);
	rc = tel_reply(d, workers_build, a);
out:
	free(s);
	free(a);
	return rc;
}

/* One worker: every counter, backlog, health, buckets owned (85 entries, 3,117 bytes at
 * their widest). */
static void
worker_build(struct tel_out *o, const void *arg)
{
	const struct workers_arg *a = arg;
	const struct rps_lcore_stats *st = &a->s->w[a->first].st;

	tel_int(o, "lcore", (int)a->s->w[a->first].lcore);
	worker_common(o, a, a->first);
#define RPS_X_TEL(f, desc) tel_u64(o, #f, st->f);
	RPS_LCORE_COUNTERS(RPS_X_TEL)
#undef RPS_X_TEL
	tel_add_drops(o, st);
}

int
tel_worker(const struct rps_app *app, const char *params, struct rte_tel_data *d)
{
	struct workers_arg *a = calloc(1, sizeof(*a));
	struct rps_snapshot *s = rps_snapshot_alloc();
	uint64_t lcore;
	int rc = -ENOMEM;

	if (a == NULL || s == NULL)
		goto out;
	rc = -EINVAL;
	if (tel_params(params, &lcore, 1) != 1)
		goto out;
	rps_snapshot_take(app, s);
	for (a->first = 0; a->first < s->nb && s->w[a->first].lcore != lcore; a->first++)
		;
	if (a->first == s->nb)
		goto out;   /* not a worker */
	a->app = app;
	a->s = s;
	a->count = 1;
	workers_read(app, a);
	rc = tel_reply(d, worker_build, a);
out:
	free(s);
	free(a);
	return rc;
}
