/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * telemetry.c: the /rps/ commands on DPDK's telemetry socket (query them with
 * dpdk-telemetry.py). Callbacks run on DPDK's telemetry thread and read only counters
 * (atomic 64-bit loads), the lcore sets behind the maps (under ctl.lock, never the maps the
 * RX lcore uses), and snapshots. DPDK 22.11's callbacks take no user pointer, so the one
 * application context is kept in a file-level pointer set once at registration.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>
#include <rte_pause.h>
#include <rte_lcore.h>
#include <rte_telemetry.h>

#include "app.h"
#include "rps_number.h"

static const struct rps_app *tel_app;

/*
 * Replies that fit. DPDK 22.11 prints a reply as {"<command>":<value>} into 16 KiB
 * (MAX_OUTPUT_LEN in lib/telemetry/telemetry.c), and whatever does not fit it leaves out
 * without a word: a dict entry or array element that would overflow is skipped, a dict holds
 * at most RTE_TEL_MAX_DICT_ENTRIES, an array RTE_TEL_MAX_ARRAY_ENTRIES, and a string is cut
 * at RTE_TEL_MAX_STRING_LEN - 1 characters. So every reply is built by one function run
 * twice over the same data: first counting (tel_out.d NULL) the bytes DPDK will print, each
 * number at its widest (20 digits for a u64, 11 for an int), then, only if that fits,
 * building it. A reply that would not fit answers {"error": why, "bytes", "max_bytes"}
 * instead of a cut one. Paged replies (/rps/stats, /rps/workers, /rps/map, /rps/buckets,
 * /rps/flows) have fixed page sizes whose widest page fits (the arithmetic is at each
 * TEL_*_PAGE), with "next" giving the next page's FIRST, absent on the last page.
 */
#define TEL_OUTPUT_MAX (16 * 1024)  /* DPDK 22.11's MAX_OUTPUT_LEN */
#define TEL_CMD_MAX 56              /* its MAX_CMD_LEN: {"<command>": and } around a reply */
#define TEL_REPLY_MAX (TEL_OUTPUT_MAX - TEL_CMD_MAX - 8)
#define TEL_U64_W 20                /* widest u64: 18446744073709551615 */
#define TEL_INT_W 11                /* widest int: -2147483648 */

struct tel_count {
	size_t bytes;      /* the reply as DPDK prints it, at most */
	const char *over;  /* why it would not fit (or could not be built); NULL while it does */
};

/* A dict or array of the reply being counted (d NULL) or built. */
struct tel_out {
	struct rte_tel_data *d;
	struct tel_count *c;
	unsigned int n, max;  /* entries so far; DPDK's cap for this container */
};

static void
tel_over(struct tel_out *o, const char *why)
{
	if (o->c->over == NULL)
		o->c->over = why;
}

/* Count one entry of @p o (dict: ,"name":value; array: ,value); whether to add it. */
static int
tel_entry(struct tel_out *o, const char *name, size_t value_len)
{
	o->c->bytes += 1 + (name != NULL ? strlen(name) + 3 : 0) + value_len;
	if (++o->n > o->max)
		tel_over(o, o->max == RTE_TEL_MAX_DICT_ENTRIES ? "a dict over DPDK's 256 entries" :
			 "an array over DPDK's 512 entries");
	return o->d != NULL && o->c->over == NULL;
}

/* Check what DPDK's add function returned while building. */
static void
tel_added(struct tel_out *o, int rc)
{
	if (rc != 0)
		tel_over(o, "DPDK refused an entry");
}

/* A string as DPDK prints it, quoted and escaped; refused when DPDK would cut it. */
static size_t
tel_str_len(struct tel_out *o, const char *s)
{
	size_t n = 2;

	if (strlen(s) >= RTE_TEL_MAX_STRING_LEN)
		tel_over(o, "a string over DPDK's 127 characters");
	for (; *s != '\0'; s++)
		n += (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20) ? 2 : 1;
	return n;
}

static void
tel_u64(struct tel_out *o, const char *name, uint64_t v)
{
	if (tel_entry(o, name, TEL_U64_W))
		tel_added(o, rte_tel_data_add_dict_u64(o->d, name, v));
}

static void
tel_int(struct tel_out *o, const char *name, int v)
{
	if (tel_entry(o, name, TEL_INT_W))
		tel_added(o, rte_tel_data_add_dict_int(o->d, name, v));
}

static void
tel_str(struct tel_out *o, const char *name, const char *s)
{
	if (s == NULL)
		s = "";
	if (tel_entry(o, name, tel_str_len(o, s)))
		tel_added(o, rte_tel_data_add_dict_string(o->d, name, s));
}

static void
tel_arr_u64(struct tel_out *o, uint64_t v)
{
	if (tel_entry(o, NULL, TEL_U64_W))
		tel_added(o, rte_tel_data_add_array_u64(o->d, v));
}

static void
tel_arr_int(struct tel_out *o, int v)
{
	if (tel_entry(o, NULL, TEL_INT_W))
		tel_added(o, rte_tel_data_add_array_int(o->d, v));
}

static void
tel_arr_str(struct tel_out *o, const char *s)
{
	if (tel_entry(o, NULL, tel_str_len(o, s)))
		tel_added(o, rte_tel_data_add_array_string(o->d, s));
}

/* Open a dict (@p type RTE_TEL_CONTAINER) or an array of @p type inside @p parent; add it
 * with tel_close(). */
static void
tel_open(struct tel_out *parent, struct tel_out *child, enum rte_tel_value_type type)
{
	child->c = parent->c;
	child->n = 0;
	child->max = type == RTE_TEL_CONTAINER ? RTE_TEL_MAX_DICT_ENTRIES :
		     RTE_TEL_MAX_ARRAY_ENTRIES;
	child->d = NULL;
	child->c->bytes += 2;   /* {} or [] */
	if (parent->d == NULL || child->c->over != NULL)
		return;
	child->d = rte_tel_data_alloc();
	if (child->d == NULL) {
		tel_over(parent, "out of memory");
		return;
	}
	if (type == RTE_TEL_CONTAINER)
		rte_tel_data_start_dict(child->d);
	else
		rte_tel_data_start_array(child->d, type);
}

static void
tel_close(struct tel_out *parent, const char *name, struct tel_out *child)
{
	if (tel_entry(parent, name, 0) && child->d != NULL &&
	    rte_tel_data_add_dict_container(parent->d, name, child->d, 0) == 0)
		return;
	if (child->d != NULL) {
		tel_over(parent, "DPDK refused a container");
		rte_tel_data_free(child->d);
	}
}

/* Text that may be longer than a DPDK string (a path, a reload error): a string when it
 * fits, else an array of strings of at most 127 characters to be joined. */
static void
tel_text(struct tel_out *o, const char *name, const char *s)
{
	char piece[RTE_TEL_MAX_STRING_LEN];
	struct tel_out a;
	size_t len = strlen(s);

	if (len < RTE_TEL_MAX_STRING_LEN) {
		tel_str(o, name, s);
		return;
	}
	tel_open(o, &a, RTE_TEL_STRING_VAL);
	for (size_t pos = 0; pos < len; pos += sizeof(piece) - 1) {
		snprintf(piece, sizeof(piece), "%s", s + pos);
		tel_arr_str(&a, piece);
	}
	tel_close(o, name, &a);
}

/* "first", and "next" (the next page's FIRST) unless the page ends the list. */
static void
tel_page(struct tel_out *o, uint64_t first, uint64_t page, uint64_t total)
{
	tel_u64(o, "first", first);
	if (first + page < total)
		tel_u64(o, "next", first + page);
}

typedef void tel_build_fn(struct tel_out *o, const void *arg);

/* Count the reply @p build makes of @p arg, then build it into @p d if it fits, or say
 * that it does not. The data behind @p arg must not change between the two runs. */
static int
tel_reply(struct rte_tel_data *d, tel_build_fn *build, const void *arg)
{
	struct tel_count c = { .bytes = 2, .over = NULL };
	struct tel_out o = { .d = NULL, .c = &c, .n = 0, .max = RTE_TEL_MAX_DICT_ENTRIES };

	build(&o, arg);
	if (c.over == NULL && c.bytes > TEL_REPLY_MAX)
		c.over = "the reply would be over DPDK's 16 KiB";
	rte_tel_data_start_dict(d);
	if (c.over != NULL) {
		rte_tel_data_add_dict_string(d, "error", c.over);
		rte_tel_data_add_dict_u64(d, "bytes", c.bytes);
		rte_tel_data_add_dict_u64(d, "max_bytes", TEL_REPLY_MAX);
		return 0;
	}
	c.bytes = 2;
	o.d = d;
	build(&o, arg);
	return c.over == NULL ? 0 : -ENOMEM;
}

/* The parameters "A[,B...]": up to @p max numbers (rps_number_list_parse). */
static int
tel_params(const char *params, uint64_t *v, int max)
{
	return rps_number_list_parse(params, UINT32_MAX, v, max);
}

static double
uptime_s(const struct rps_app *app)
{
	return (double)(rte_rdtsc() - app->life.start_tsc) / (double)rte_get_tsc_hz();
}

static uint64_t
pps_of(const struct rps_app *app, unsigned int i)
{
	return app->ctl.pps != NULL ? __atomic_load_n(&app->ctl.pps[i], __ATOMIC_RELAXED) : 0;
}

/* Add the buckets of queue @p q's table each worker owns to @p cnt[worker]. ctl.lock held. */
static void
owned_add(const struct rps_app *app, uint16_t q, uint32_t *cnt)
{
	const struct rps_bucket_view *v = app->ctl.bview != NULL ? app->ctl.bview[q] : NULL;

	for (uint32_t b = 0; v != NULL && b < v->size; b++)
		if (v->owner[b] < app->lc.nb_workers)
			cnt[v->owner[b]]++;
}

/* Buckets each worker owns over every queue's table, into @p cnt[RTE_MAX_LCORE]. */
static void
owned_all(const struct rps_app *app, uint32_t *cnt)
{
	memset(cnt, 0, RTE_MAX_LCORE * sizeof(*cnt));
	if (app->ctl.bview == NULL)
		return;
	pthread_mutex_lock((pthread_mutex_t *)(uintptr_t)&app->ctl.lock);
	for (uint16_t q = 0; q < app->io.nb_rxq; q++)
		owned_add(app, q, cnt);
	pthread_mutex_unlock((pthread_mutex_t *)(uintptr_t)&app->ctl.lock);
}

/* dropped_<reason> for every reason, and dropped_total. */
static void
add_drops(struct tel_out *o, const struct rps_lcore_stats *st)
{
	char name[64];

	for (unsigned int r = 0; r < RPS_DROP_MAX; r++) {
		snprintf(name, sizeof(name), "dropped_%s", rps_drop_name(r));
		tel_u64(o, name, st->dropped[r]);
	}
	tel_u64(o, "dropped_total", rps_stats_dropped_total(st));
}

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
	tel_u64(o, "uptime_s", (uint64_t)uptime_s(app));
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

static int
tel_info(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	return tel_reply(d, info_build, tel_app);
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
	tel_u64(o, "rx_pps", pps_of(app, nw));
	add_drops(o, &s->total);
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
					const struct rps_backlog *b = rps_app_backlog(app, k, w);

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
		tel_u64(&c, "pps", pps_of(app, i));
		tel_u64(&c, "time_squeeze", st->time_squeeze);
		snprintf(name, sizeof(name), "worker_%u", s->w[i].lcore);
		tel_close(o, name, &c);
	}
}

/* The first worker of a page: FIRST of "/rps/<cmd>,FIRST" (0 without), < @p nb. */
static int
page_first(const char *params, uint32_t nb, uint32_t *first)
{
	uint64_t v[1] = { 0 };
	int n = tel_params(params, v, 1);

	if (n < 0 || (n == 1 && v[0] >= nb))
		return -EINVAL;
	*first = (uint32_t)v[0];
	return 0;
}

static int
tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct rps_app *app = tel_app;
	struct stats_arg a = { .app = app };
	struct rps_snapshot *s;
	int rc;

	(void)cmd;
	if (page_first(params, app->lc.nb_workers ? app->lc.nb_workers : 1, &a.first) != 0)
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

static int
tel_ports(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct stats_arg a = { .app = tel_app };
	struct rps_snapshot *s;
	int rc;

	(void)cmd;
	if (params != NULL && *params != '\0')
		return -EINVAL;
	s = rps_snapshot_alloc();
	if (s == NULL)
		return -ENOMEM;
	rps_snapshot_take(tel_app, s);
	a.s = s;
	rc = tel_reply(d, ports_build, &a);
	free(s);
	return rc;
}

/* ---- /rps/consumers ---- */

/* Each consumer (--consumers): its group, socket, workers feeding it, connected, reconnects,
 * its clients by how they ended, delivered and drops by reason (the sums over the workers
 * feeding it). At their widest 16 consumers are about 16 * 640 bytes. */
static void
consumers_build(struct tel_out *o, const void *arg)
{
	const struct rps_app *app = arg;
	struct tel_out cs;
	char name[16];

	tel_u64(o, "nb_consumers", app->cons.nb_consumers);
	tel_open(o, &cs, RTE_TEL_CONTAINER);
	for (uint16_t i = 0; i < app->cons.nb_consumers; i++) {
		const struct rps_consumer *k = &app->cons.consumers[i];
		struct rps_consumer_stats st;
		struct tel_out c;

		rps_consumer_stats(app, i, &st);
		tel_open(&cs, &c, RTE_TEL_CONTAINER);
		tel_u64(&c, "group", k->group);
		tel_str(&c, "socket", k->path);
		tel_u64(&c, "workers", k->feeders);
		tel_int(&c, "connected", st.link.up);
		tel_u64(&c, "reconnects", st.link.connects > 0 ? st.link.connects - 1 : 0);
		tel_u64(&c, "clients_accepted", st.link.accepted);
		tel_u64(&c, "clients_connected", st.link.connects);
		tel_u64(&c, "clients_disconnected", st.link.disconnects);
		tel_u64(&c, "clients_refused", st.link.refused);
		tel_u64(&c, "clients_aborted", st.link.aborted);
		tel_u64(&c, "clients_timed_out", st.link.timeouts);
		tel_u64(&c, "clients_rejected", st.link.rejected);
		tel_u64(&c, "clients_broken", st.link.broken);
		tel_u64(&c, "kicks_drained", st.link.kicks_drained);
		tel_u64(&c, "delivered", st.delivered);
		tel_u64(&c, "dropped_consumer_absent", st.absent);
		tel_u64(&c, "dropped_consumer_full", st.full);
		snprintf(name, sizeof(name), "%u", i);
		tel_close(&cs, name, &c);
	}
	tel_close(o, "consumers", &cs);
}

static int
tel_consumers(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	if (params != NULL && *params != '\0')
		return -EINVAL;
	return tel_reply(d, consumers_build, tel_app);
}

/* ---- /rps/rules ---- */

/* Rules in a page of /rps/rules: at their widest (a 159-character text, "consumer 15 (worker
 * 15)", 20-digit hits) about 260 bytes each, 32 of them 8,400 bytes of the 16,320. */
#define TEL_RULES_PAGE 32

struct rules_arg {
	uint32_t generation, nb, first, count;
	char text[TEL_RULES_PAGE][RPS_RULE_TEXT_MAX];
	char action[TEL_RULES_PAGE][48];
	uint64_t hits[TEL_RULES_PAGE], hits_total[TEL_RULES_PAGE];
};

static void
rules_build(struct tel_out *o, const void *arg)
{
	const struct rules_arg *a = arg;
	struct tel_out rs;
	char name[16];

	tel_u64(o, "nb_rules", a->nb);
	tel_u64(o, "max_rules", RPS_RULES_MAX);
	tel_u64(o, "rules_generation", a->generation);
	tel_u64(o, "first", a->first);
	tel_open(o, &rs, RTE_TEL_CONTAINER);
	for (uint32_t i = 0; i < a->count; i++) {
		struct tel_out c;

		tel_open(&rs, &c, RTE_TEL_CONTAINER);
		tel_str(&c, "rule", a->text[i]);
		tel_str(&c, "action", a->action[i]);
		tel_u64(&c, "hits", a->hits[i]);
		tel_u64(&c, "hits_since_start", a->hits_total[i]);
		snprintf(name, sizeof(name), "%u", a->first + i);
		tel_close(&rs, name, &c);
	}
	tel_close(o, "rules", &rs);
}

/* Each steering rule from FIRST (a page of 32): its text, action and hits (since its set was
 * taken, since start), in match order. */
static int
tel_rules(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rps_app *app = (struct rps_app *)(uintptr_t)tel_app;
	struct rules_arg *a = calloc(1, sizeof(*a));
	const struct rps_rules *rs;
	int rc;

	(void)cmd;
	if (a == NULL)
		return -ENOMEM;
	pthread_mutex_lock(&app->ctl.lock); /* the set stays while it is held (rules.c) */
	rs = app->steer.rules;
	a->nb = rs != NULL ? rs->nb_rules : 0;
	a->generation = rs != NULL ? rs->generation : 0;
	rc = page_first(params, a->nb ? a->nb : 1, &a->first);
	if (rc == 0 && rs != NULL) {
		a->count = RTE_MIN((uint32_t)TEL_RULES_PAGE, a->nb - a->first);
		for (uint32_t i = 0; i < a->count; i++) {
			uint16_t k = (uint16_t)(a->first + i);

			memcpy(a->text[i], rs->text[k], sizeof(a->text[i]));
			rps_app_rule_action(rs, k, a->action[i], sizeof(a->action[i]));
			a->hits[i] = rps_app_rule_hits(app, rs, k);
			a->hits_total[i] = rps_app_rule_hits_total(app, rs, k);
		}
	}
	pthread_mutex_unlock(&app->ctl.lock);
	if (rc == 0)
		rc = tel_reply(d, rules_build, a);
	free(a);
	return rc;
}

/* Where a flow goes (flow_lookup.c). */
static int
tel_flow(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	return rps_tel_flow((struct rps_app *)(uintptr_t)tel_app, params, d);
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
	owned_all(app, a->owned);
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
	tel_u64(c, "pps", pps_of(app, i));
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

static int
tel_workers(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct rps_app *app = tel_app;
	struct workers_arg *a = calloc(1, sizeof(*a));
	struct rps_snapshot *s = rps_snapshot_alloc();
	int rc = -ENOMEM;

	(void)cmd;
	if (a == NULL || s == NULL)
		goto out;
	rc = page_first(params, app->lc.nb_workers ? app->lc.nb_workers : 1, &a->first);
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
	add_drops(o, st);
}

static int
tel_worker(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct rps_app *app = tel_app;
	struct workers_arg *a = calloc(1, sizeof(*a));
	struct rps_snapshot *s = rps_snapshot_alloc();
	uint64_t lcore;
	int rc = -ENOMEM;

	(void)cmd;
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

/* ---- /rps/map ---- */

/*
 * RX queues in a page of /rps/map. At its widest (127 lcores, each with a weight and a
 * bucket count, every int 11 characters) a queue is 4,719 bytes: 2 queues and the rest of
 * the reply make 9,604 bytes of the 16,320 (3 would make 14,323).
 */
#define TEL_MAP_PAGE 2

struct map_arg {
	const struct rps_app *app;
	uint32_t first;
};

/* Queue @p q's map: lcores, their weights and the buckets each owns (aligned arrays: an
 * lcore that owns buckets but is not in the map has weight 0). ctl.lock held. */
static void
map_queue_build(struct tel_out *o, const struct rps_app *app, uint16_t q)
{
	const struct rps_lcoreset *set = &app->ctl.map_sets[q];
	uint32_t cnt[RTE_MAX_LCORE] = { 0 };
	struct tel_out c, lc, wt, bk;
	char mask[128], name[32];

	owned_add(app, q, cnt);
	rps_lcoreset_format(set, mask, sizeof(mask));
	tel_open(o, &c, RTE_TEL_CONTAINER);
	tel_str(&c, "mask", mask);
	tel_int(&c, "nb_lcores", (int)rps_lcoreset_count(set));
	tel_int(&c, "table_size", app->ctl.bview != NULL && app->ctl.bview[q] != NULL ?
		(int)app->ctl.bview[q]->size : 0);
	tel_open(&c, &lc, RTE_TEL_INT_VAL);
	tel_open(&c, &wt, RTE_TEL_INT_VAL);
	tel_open(&c, &bk, RTE_TEL_INT_VAL);
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++) {
		int w = app->lc.lcore_worker[l];
		uint32_t n = w >= 0 ? cnt[w] : 0;

		if (!rps_lcoreset_has(set, l) && n == 0)
			continue;
		tel_arr_int(&lc, (int)l);
		tel_arr_int(&wt, (int)rps_lcoreset_weight(set, l));
		tel_arr_int(&bk, (int)n);
	}
	tel_close(&c, "lcores", &lc);
	tel_close(&c, "weights", &wt);
	tel_close(&c, "buckets", &bk);
	snprintf(name, sizeof(name), "queue%u", q);
	tel_close(o, name, &c);
}

static void
map_build(struct tel_out *o, const void *arg)
{
	const struct map_arg *a = arg;
	const struct rps_app *app = a->app;

	tel_u64(o, "generation", __atomic_load_n(&app->ctl.generation, __ATOMIC_ACQUIRE));
	tel_int(o, "reorder_safe", __atomic_load_n(&app->steer.reorder_safe, __ATOMIC_RELAXED));
	tel_int(o, "rx_port", app->opt.rx_port);
	tel_int(o, "nb_queues", app->io.nb_rxq);
	tel_page(o, a->first, TEL_MAP_PAGE, app->io.nb_rxq);
	for (uint32_t q = a->first; q < app->io.nb_rxq && q < a->first + TEL_MAP_PAGE; q++)
		map_queue_build(o, app, (uint16_t)q);
}

static int
tel_map(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rps_app *app = (struct rps_app *)(uintptr_t)tel_app;
	struct map_arg a = { .app = app };
	int rc;

	(void)cmd;
	if (page_first(params, app->io.nb_rxq, &a.first) != 0)
		return -EINVAL;
	pthread_mutex_lock(&app->ctl.lock);
	rc = tel_reply(d, map_build, &a);
	pthread_mutex_unlock(&app->ctl.lock);
	return rc;
}

/* ---- /rps/buckets ---- */

#define TEL_BUCKETS_TOP 32   /* /rps/buckets,Q: the hottest buckets */
/*
 * /rps/buckets,Q,FIRST: buckets FIRST.. At their widest, 7 columns of 64 numbers of 20
 * digits are 9,487 bytes, the rest of the reply (owners: 127 lcores) 3,365: 12,852 bytes of
 * the 16,320.
 */
#define TEL_BUCKETS_PAGE 64
_Static_assert(TEL_BUCKETS_TOP <= TEL_BUCKETS_PAGE, "the hottest fit in a page");

static const char *const bucket_cols[] = { "bucket", "lcore", "packets", "bytes", "pps",
					   "cycles", "moves" };

struct buckets_arg {
	const struct rps_app *app;
	uint16_t q;
	int paged;
	uint32_t first, n;
	uint32_t idx[TEL_BUCKETS_PAGE];   /* the buckets shown (TOP <= PAGE) */
};

/* Hottest first: pps over the last interval, then packets. */
static int
hot_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? 1 : -1;
	if (x[1] != y[1])
		return x[1] < y[1] ? 1 : -1;
	return x[2] < y[2] ? -1 : x[2] > y[2];
}

/* ctl.lock held. */
static void
buckets_build(struct tel_out *o, const void *arg)
{
	const struct buckets_arg *a = arg;
	const struct rps_app *app = a->app;
	const struct rps_bucket_view *v = app->ctl.bview[a->q];
	const struct rps_bucket_stats *st = app->steer.bstats[a->q];
	struct tel_out col[RTE_DIM(bucket_cols)], ow, on;
	uint32_t cnt[RTE_MAX_LCORE] = { 0 };
	char imb[32];

	tel_int(o, "queue", (int)a->q);
	tel_int(o, "table_size", (int)v->size);
	tel_u64(o, "generation", __atomic_load_n(&app->ctl.generation, __ATOMIC_ACQUIRE));
	tel_str(o, "view", a->paged ? "page" : "hottest");
	if (a->paged)
		tel_page(o, a->first, TEL_BUCKETS_PAGE, v->size);
	tel_int(o, "rebalance", app->ctl.rebal.on);
	tel_u64(o, "rebalance_runs", __atomic_load_n(&app->ctl.rebalance_runs, __ATOMIC_RELAXED));
	tel_u64(o, "buckets_moved", __atomic_load_n(&app->ctl.buckets_moved, __ATOMIC_RELAXED));
	snprintf(imb, sizeof(imb), "%.3f", app->ctl.imbalance);
	tel_str(o, "imbalance", imb);
	/* the lcores owning buckets of this table, and how many each */
	owned_add(app, a->q, cnt);
	tel_open(o, &ow, RTE_TEL_INT_VAL);
	tel_open(o, &on, RTE_TEL_INT_VAL);
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++) {
		int w = app->lc.lcore_worker[l];

		if (w >= 0 && cnt[w] != 0) {
			tel_arr_int(&ow, (int)l);
			tel_arr_int(&on, (int)cnt[w]);
		}
	}
	tel_close(o, "owners", &ow);
	tel_close(o, "owned", &on);
	for (unsigned int k = 0; k < RTE_DIM(bucket_cols); k++)
		tel_open(o, &col[k], RTE_TEL_U64_VAL);
	for (uint32_t i = 0; i < a->n; i++) {
		uint32_t b = a->idx[i];
		const uint64_t x[RTE_DIM(bucket_cols)] = {
			b, app->lc.workers[v->owner[b]].lcore,
			__atomic_load_n(&st->b[b].packets, __ATOMIC_RELAXED),
			__atomic_load_n(&st->b[b].bytes, __ATOMIC_RELAXED),
			v->pps[b], v->cycles[b], v->moves[b],
		};

		for (unsigned int k = 0; k < RTE_DIM(bucket_cols); k++)
			tel_arr_u64(&col[k], x[k]);
	}
	for (unsigned int k = 0; k < RTE_DIM(bucket_cols); k++)
		tel_close(o, bucket_cols[k], &col[k]);
}

/* The hottest buckets of @p v into @p a->idx. ctl.lock held. */
static int
buckets_hottest(struct buckets_arg *a, const struct rps_bucket_view *v,
		const struct rps_bucket_stats *st)
{
	uint64_t (*order)[3] = calloc(v->size, sizeof(*order));

	if (order == NULL)
		return -ENOMEM;
	for (uint32_t b = 0; b < v->size; b++) {
		order[b][0] = v->pps[b];
		order[b][1] = __atomic_load_n(&st->b[b].packets, __ATOMIC_RELAXED);
		order[b][2] = b;
	}
	qsort(order, v->size, sizeof(*order), hot_cmp);
	for (uint32_t k = 0; k < v->size && a->n < TEL_BUCKETS_TOP; k++)
		a->idx[a->n++] = (uint32_t)order[k][2];
	free(order);
	return 0;
}

static int
tel_buckets(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rps_app *app = (struct rps_app *)(uintptr_t)tel_app;
	struct buckets_arg a = { .app = app };
	uint64_t p[2] = { 0, 0 };
	const struct rps_bucket_view *v;
	int n = tel_params(params, p, 2), rc = 0;

	(void)cmd;
	if (n < 0 || app->ctl.bview == NULL || p[0] >= app->io.nb_rxq || app->ctl.bview[p[0]] == NULL)
		return -EINVAL;
	a.q = (uint16_t)p[0];
	a.paged = n == 2;
	a.first = (uint32_t)p[1];
	pthread_mutex_lock(&app->ctl.lock);
	v = app->ctl.bview[a.q];
	if (a.paged && a.first >= v->size)
		rc = -EINVAL;
	else if (a.paged)
		for (uint32_t b = a.first; b < v->size && a.n < TEL_BUCKETS_PAGE; b++)
			a.idx[a.n++] = b;
	else
		rc = buckets_hottest(&a, v, app->steer.bstats[a.q]);
	if (rc == 0)
		rc = tel_reply(d, buckets_build, &a);
	pthread_mutex_unlock(&app->ctl.lock);
	return rc;
}

/* ---- /rps/config ---- */

/*
 * Whether the steering secrets (jhash seed, Toeplitz key) may go out on the telemetry socket.
 * The socket lives in EAL's runtime directory, which EAL creates 0700 (owner only: connecting
 * to a Unix socket needs search permission on its directory), and is owner-only itself
 * (main.c's umask around rte_eal_init()). EAL keeps a directory that already exists with
 * whatever mode it has (and --file-prefix or RUNTIME_DIRECTORY may point elsewhere): one
 * that others could write to is refused at start (rps_telemetry_check_dir()); one that they
 * can only read or search is accepted, but then the secrets are not shown: /rps/config says
 * "hidden", and only the owner's --rss-key knows.
 */
static int
secrets_visible(void)
{
	struct stat st;
	const char *dir = rte_eal_get_runtime_dir();

	return dir != NULL && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	       st.st_uid == geteuid() && (st.st_mode & (S_IRWXG | S_IRWXO)) == 0;
}

/* Say why directory @p dir (@p st, @p role) is refused: @p what, its owner and mode, and
 * @p todo. */
static int
dir_refused(char *err, size_t len, const char *role, const char *dir, const struct stat *st,
	    const char *what, const char *todo)
{
	snprintf(err, len, "%s %s (owner uid %u, mode %o) %s: whoever can change it can replace "
		 "the telemetry and multi-process sockets. %s", role, dir,
		 (unsigned int)st->st_uid, (unsigned int)(st->st_mode & 07777), what, todo);
	return -EPERM;
}

#define RUNDIR "EAL's runtime directory"
#define RUNDIR_UP "The folder holding EAL's runtime directory,"

int
rps_telemetry_check_dir(char *err, size_t len)
{
	const char *dir = rte_eal_get_runtime_dir();
	char parent[PATH_MAX];
	struct stat st;
	char *slash;

	if (dir == NULL || *dir == '\0')
		return 0;
	if (stat(dir, &st) != 0) {
		int e = errno;

		snprintf(err, len, "EAL's runtime directory %s: %s", dir, strerror(e));
		return -e;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, len, "EAL's runtime directory %s: not a directory", dir);
		return -ENOTDIR;
	}
	if (st.st_uid != geteuid()) {
		char what[64];

		snprintf(what, sizeof(what), "is not this user's (uid %u)",
			 (unsigned int)geteuid());
		return dir_refused(err, len, RUNDIR, dir, &st, what, "Remove it (EAL makes it again, "
				   "0700) or choose another --file-prefix.");
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
		return dir_refused(err, len, RUNDIR, dir, &st, "is writable by group or others",
				   "Remove it (EAL makes it again, 0700) or chmod go-w it.");
	/* its parent (EAL's dpdk/ folder): whoever may rename in it may swap the directory */
	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (slash == NULL || slash == parent)
		return 0;
	*slash = '\0';
	if (stat(parent, &st) != 0)
		return 0;   /* not ours to judge: EAL made the directory inside it */
	if (st.st_uid != geteuid() && st.st_uid != 0)
		return dir_refused(err, len, RUNDIR_UP, parent, &st, "is another user's",
				   "Remove it or set RUNTIME_DIRECTORY (or XDG_RUNTIME_DIR) to "
				   "a directory of this user's.");
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0)
		return dir_refused(err, len, RUNDIR_UP, parent, &st, "is writable by group or "
				   "others without the sticky bit", "chmod go-w (or +t) it.");
	return 0;
}

struct config_arg {
	const struct rps_app *app;
	int show_secrets;
};

/* The steering secrets and their provenance into /rps/config. */
static void
config_secrets(struct tel_out *o, const struct rps_app *app, int show)
{
	const struct rps_options *opt = &app->opt;
	char hex[2 * RPS_TOEPLITZ_KEY_MAX + 1];

	tel_str(o, "hash_seed_source", opt->seed_given ? "configured" : "random");
	tel_str(o, "rss_key_source", opt->rss_key_random ? "random" : "configured");
	tel_str(o, "symmetric", rps_sym_mode_name(opt->symmetric));
	if (show) {
		tel_u64(o, "hash_seed", app->io.seed);
		rps_toeplitz_key_format(opt->rss_key, opt->rss_key_len, hex, sizeof(hex));
		tel_str(o, "rss_key", hex);
	} else {
		tel_str(o, "hash_seed", "hidden");
		tel_str(o, "rss_key", "hidden");
	}
}

/* The running value of setting @p id: what a reload changed for the live ones, else what
 * the program started with (command line over file). Called under ctl.lock. */
static int
setting_value(const struct rps_app *app, enum rps_setting_id id, int64_t *v)
{
	switch (id) {
	case RPS_SET_REORDER_SAFE:
		*v = __atomic_load_n(&app->steer.reorder_safe, __ATOMIC_RELAXED);
		return 0;
	case RPS_SET_FLOW_LIMIT:
		*v = __atomic_load_n(&app->steer.flow_limit, __ATOMIC_RELAXED);
		return 0;
	case RPS_SET_STATS_INTERVAL:
		*v = __atomic_load_n(&app->opt.stats_interval, __ATOMIC_RELAXED);
		return 0;
	case RPS_SET_TABLE_SIZE:
		*v = app->ctl.table_size;
		return 0;
	case RPS_SET_REBALANCE:
		*v = app->ctl.rebal.on;
		return 0;
	case RPS_SET_REBALANCE_INTERVAL:
		*v = app->ctl.rebal.interval_ms;
		return 0;
	case RPS_SET_REBALANCE_THRESHOLD:
		*v = app->ctl.rebal.threshold_pct;
		return 0;
	case RPS_SET_REBALANCE_MOVES:
		*v = app->ctl.rebal.moves;
		return 0;
	case RPS_SET_REBALANCE_HOLDDOWN:
		*v = app->ctl.rebal.holddown_ms;
		return 0;
	default:
		return rps_options_value(&app->opt, id, v);
	}
}

/*
 * Every setting of the file (the settings table's keys), by key: its running value. The
 * secrets (hash_seed, rss_key) and symmetric come from config_secrets(); the maps from
 * /rps/map; lists as the text given.
 */
static void
config_settings(struct tel_out *o, const struct rps_app *app)
{
	const struct rps_options *opt = &app->opt;

	for (unsigned int i = 0; i < RPS_SET_NB; i++) {
		const struct rps_setting *s = &rps_settings[i];
		int64_t v;

		if (s->key == NULL || strcmp(s->section, "dataplane") != 0 ||
		    i == RPS_SET_HASH_SEED || i == RPS_SET_RSS_KEY || i == RPS_SET_SYMMETRIC)
			continue;
		if (i == RPS_SET_STAGES)
			tel_text(o, s->key, opt->stages_text);
		else if (i == RPS_SET_RX_LCORES)
			tel_text(o, s->key, opt->rx_lcores_text);
		else if (i == RPS_SET_METRICS)
			tel_text(o, s->key, opt->metrics.on ? opt->metrics.text : "off");
		else if (i == RPS_SET_HASH)
			tel_str(o, s->key, rps_hash_mode_name(opt->hash_mode));
		else if (i == RPS_SET_CONSUMERS) /* K, or the groups K,K... */
			tel_text(o, s->key, opt->consumers ? opt->consumers_text : "0");
		else if (setting_value(app, (enum rps_setting_id)i, &v) == 0) {
			if (v < 0 || s->type == RPS_SETTING_BOOL || v <= INT32_MAX)
				tel_int(o, s->key, (int)v);
			else
				tel_u64(o, s->key, (uint64_t)v);
		}
	}
}

/* ctl.lock held. */
static void
config_build(struct tel_out *o, const void *arg)
{
	const struct config_arg *a = arg;
	const struct rps_app *app = a->app;
	const struct rps_options *opt = &app->opt;

	tel_text(o, "config_file", opt->config_path ? opt->config_path : "");
	tel_u64(o, "generation", __atomic_load_n(&app->ctl.generation, __ATOMIC_ACQUIRE));
	tel_text(o, "last_reload_result", app->ctl.last_reload_result);
	tel_u64(o, "last_reload_age_s", app->ctl.last_reload_tsc == 0 ? 0 :
		(rte_rdtsc() - app->ctl.last_reload_tsc) / rte_get_tsc_hz());
	tel_u64(o, "reloads_ok", app->ctl.reloads_ok);
	tel_u64(o, "reloads_failed", app->ctl.reloads_failed);
	tel_u64(o, "reloads_unchanged", app->ctl.reloads_unchanged);
	tel_u64(o, "watch_events", __atomic_load_n(&app->ctl.watch_events, __ATOMIC_RELAXED));
	tel_u64(o, "watch_names", __atomic_load_n(&app->ctl.watch_names, __ATOMIC_RELAXED));
	tel_int(o, "watch_armed", __atomic_load_n(&app->ctl.watch_armed, __ATOMIC_RELAXED));
	config_settings(o, app);
	config_secrets(o, app, a->show_secrets);
	/* command line only, as the program resolved them */
	tel_str(o, "backpressure", app->lc.nb_workers && app->lc.rx[0].steer.backpressure ? "on" : "off");
	tel_u64(o, "stall_timeout_ms", opt->stall_timeout_ms);
}

static int
tel_config(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rps_app *app = (struct rps_app *)(uintptr_t)tel_app;
	struct config_arg a = { .app = app, .show_secrets = secrets_visible() };
	int rc;

	(void)cmd;
	(void)params;
	pthread_mutex_lock(&app->ctl.lock);
	rc = tel_reply(d, config_build, &a);
	pthread_mutex_unlock(&app->ctl.lock);
	return rc;
}

/* ---- /rps/flows ---- */

/*
 * Flows in a page of /rps/flows. At its widest (IPv6 addresses of 39 characters, every
 * number 20 or 11 digits, "SYN,SYN-ACK,FIN,RST" both ways) a flow is 538 bytes: 24 and the
 * rest make 12,969 bytes of the 16,320 (32 made 10,843 before the orig and reply dicts,
 * 17,273 with them); the 64 that /rps/flows,64 used to put in one reply could be 34,400. The
 * "stale" and "unavailable" lists name each worker once at most: 127 lcores of 11 characters
 * add 1,433 bytes (14,402 in all).
 */
#define TEL_FLOWS_PAGE 24
#define TEL_FLOWS_MAX 64

/* How long a /rps/flows waits for the workers' snapshots, at most; and how long it retries
 * reading one that its worker is writing. A worker stopped (preempted, stalled, given up on
 * at exit) must cost a reply little and never hold it: its flows are left out and named. */
#define TEL_FLOWS_WAIT_MS 100u
#define TEL_SNAP_READ_US 1000u

/* Worker snapshot @p s copied consistently into @p out: how many flows, or -EBUSY when its
 * worker is still writing it after TEL_SNAP_READ_US (stopped inside the write). */
static int
read_snap(const struct rps_flow_snap *s, struct rps_flow_summary *out)
{
	const uint64_t end = rte_rdtsc() + rte_get_tsc_hz() * TEL_SNAP_READ_US / 1000000;

	do {
		uint32_t sn = rte_seqcount_read_begin(&s->sc);
		uint32_t n = RTE_MIN(s->n, (uint32_t)RPS_TOP_FLOWS);

		if ((sn & 1) == 0) {
			memcpy(out, s->f, n * sizeof(*out));
			if (!rte_seqcount_read_retry(&s->sc, sn))
				return (int)n;
		}
		rte_pause();
	} while (rte_rdtsc() < end);
	return -EBUSY;
}

struct tel_flow {
	struct rps_flow_summary f;
	unsigned int lcore;
};

static int
cmp_flow(const void *a, const void *b)
{
	const struct tel_flow *x = a, *y = b;

	return x->f.packets < y->f.packets ? 1 : x->f.packets > y->f.packets ? -1 : 0;
}

struct flows_arg {
	const struct tel_flow *all;
	uint32_t first, end, want;  /* ranks [first, end) of the top want */
	/* workers whose snapshot is over a second old (they did not answer in time), and
	 * those left out (stopped inside their write, or given up on at exit) */
	uint16_t nb_stale, nb_unavailable;
	unsigned int stale[RTE_MAX_LCORE], unavailable[RTE_MAX_LCORE];
};

/* One direction of a flow: {"packets", "bytes", "flags"}. */
static void
tel_flow_dir(struct tel_out *o, const char *name, const struct rps_flow_dir_stats *d)
{
	char flags[RPS_FLOW_FLAGS_LEN];
	struct tel_out c;

	tel_open(o, &c, RTE_TEL_CONTAINER);
	tel_u64(&c, "packets", d->packets);
	tel_u64(&c, "bytes", d->bytes);
	tel_str(&c, "flags", rps_flow_flags_format(d->flags, flags, sizeof(flags)));
	tel_close(o, name, &c);
}

static void
flows_build(struct tel_out *o, const void *arg)
{
	const struct flows_arg *a = arg;
	struct tel_out l;

	tel_page(o, a->first, TEL_FLOWS_PAGE, a->want);
	tel_open(o, &l, RTE_TEL_INT_VAL);
	for (uint16_t i = 0; i < a->nb_stale; i++)
		tel_arr_int(&l, (int)a->stale[i]);
	tel_close(o, "stale", &l);
	tel_open(o, &l, RTE_TEL_INT_VAL);
	for (uint16_t i = 0; i < a->nb_unavailable; i++)
		tel_arr_int(&l, (int)a->unavailable[i]);
	tel_close(o, "unavailable", &l);
	for (uint32_t k = a->first; k < a->end; k++) {
		const struct rps_flow_summary *f = &a->all[k].f;
		char name[16], src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
		int af = f->family == 6 ? AF_INET6 : AF_INET;
		struct tel_out c;

		inet_ntop(af, f->src, src, sizeof(src));
		inet_ntop(af, f->dst, dst, sizeof(dst));
		tel_open(o, &c, RTE_TEL_CONTAINER);
		tel_int(&c, "lcore", (int)a->all[k].lcore);
		tel_str(&c, "src", src);
		tel_str(&c, "dst", dst);
		tel_int(&c, "sport", f->sport);
		tel_int(&c, "dport", f->dport);
		tel_int(&c, "proto", f->proto);
		tel_u64(&c, "packets", f->packets);
		tel_u64(&c, "bytes", f->bytes);
		tel_flow_dir(&c, "orig", &f->dir[RPS_FLOW_ORIG]);
		tel_flow_dir(&c, "reply", &f->dir[RPS_FLOW_REPLY]);
		tel_str(&c, "state", rps_flow_state_name(f->state));
		tel_u64(&c, "out_of_order", f->out_of_order);
		tel_u64(&c, "retransmit", f->retransmit);
		snprintf(name, sizeof(name), "%u", k);
		tel_close(o, name, &c);
	}
}

/* Whether worker @p w will not answer: declared stalled, or given up on at exit. */
static int
worker_gone(const struct rps_worker *w)
{
	return __atomic_load_n(&w->health.state, __ATOMIC_RELAXED) == RPS_HEALTH_STALLED ||
	       __atomic_load_n(&w->stuck, __ATOMIC_RELAXED);
}

/* Whether snapshot @p s was taken at most a second before @p t0. */
static int
snap_fresh(const struct rps_flow_snap *s, uint64_t t0, uint64_t hz)
{
	return __atomic_load_n(&s->tsc, __ATOMIC_RELAXED) + hz >= t0;
}

/*
 * Ask the workers for snapshots (they take one a second while asked in the last
 * RPS_FLOWS_ASKED_S seconds, worker_loop.c) and wait (this thread only) until each has one
 * at most a second old, for TEL_FLOWS_WAIT_MS at most: then the reply goes with what there
 * is, naming the workers that did not answer ("stale"). An idle worker answers within its
 * sleep (--idle-sleep, 50 us by default), a busy one within a burst.
 */
static void
flows_wait_fresh(const struct rps_app *app, const struct rps_worker *ws, uint16_t nw,
		 uint64_t t0)
{
	struct rps_app *mut = (struct rps_app *)(uintptr_t)app;
	const uint64_t hz = rte_get_tsc_hz(), wait = hz * TEL_FLOWS_WAIT_MS / 1000;

	__atomic_store_n(&mut->obs.flows_wanted_tsc, t0, __ATOMIC_RELAXED);
	for (;;) {
		int fresh = 1;

		for (uint16_t i = 0; i < nw; i++) {
			const struct rps_flow_snap *s = ws[i].flow_snap;

			if (s != NULL && !worker_gone(&ws[i]) && !snap_fresh(s, t0, hz))
				fresh = 0;
		}
		if (fresh || rte_rdtsc() - t0 >= wait ||
		    __atomic_load_n(&app->life.rx_done, __ATOMIC_ACQUIRE))
			return;
		rte_delay_us_sleep(1000);
	}
}

static int
tel_flows(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct rps_app *app = tel_app;
	const struct rps_worker *ws = app->lc.nb_workers ? app->lc.workers : RPS_APP_SELF(app);
	uint16_t nw = app->lc.nb_workers ? app->lc.nb_workers : 1;
	const uint64_t t0 = rte_rdtsc(), hz = rte_get_tsc_hz();
	struct tel_flow *all;
	struct flows_arg *a;
	uint64_t p[2] = { 10, 0 };
	uint32_t total = 0;
	int n = tel_params(params, p, 2), rc;

	(void)cmd;
	/* N must be 1..64, FIRST below N */
	if (n < 0 || p[0] == 0 || p[0] > TEL_FLOWS_MAX || p[1] >= p[0])
		return -EINVAL;
	all = calloc((size_t)nw * RPS_TOP_FLOWS, sizeof(*all));
	a = calloc(1, sizeof(*a));
	if (all == NULL || a == NULL) {
		free(all);
		free(a);
		return -ENOMEM;
	}
	flows_wait_fresh(app, ws, nw, t0);
	for (uint16_t i = 0; i < nw; i++) {
		const struct rps_flow_snap *s = ws[i].flow_snap;
		struct rps_flow_summary tmp[RPS_TOP_FLOWS];
		int m;

		if (s == NULL)
			continue;
		/* a worker given up on at exit is not even tried */
		m = __atomic_load_n(&ws[i].stuck, __ATOMIC_RELAXED) ? -EBUSY : read_snap(s, tmp);
		if (m < 0) {
			a->unavailable[a->nb_unavailable++] = ws[i].lcore;
			continue;
		}
		if (!snap_fresh(s, t0, hz))
			a->stale[a->nb_stale++] = ws[i].lcore;
		for (int k = 0; k < m; k++) {
			all[total].f = tmp[k];
			all[total++].lcore = ws[i].lcore;
		}
	}
	qsort(all, total, sizeof(*all), cmp_flow);
	a->all = all;
	a->first = (uint32_t)p[1];
	a->want = RTE_MIN((uint32_t)p[0], total);
	a->end = RTE_MIN(a->first + TEL_FLOWS_PAGE, a->want);
	if (a->end < a->first)
		a->end = a->first;
	rc = tel_reply(d, flows_build, a);
	free(a);
	free(all);
	return rc;
}

/*
 * Shutdown. DPDK 22.11 cannot unregister a command and rte_eal_cleanup() does not stop the
 * telemetry threads (one per client), so a query arriving while dpdk-rps stops would read
 * workers, backlogs and maps that teardown frees. Every command goes through tel_guarded():
 * it counts itself in (tel_inflight) and re-checks tel_closed; rps_telemetry_close() sets
 * tel_closed, then waits for tel_inflight to reach 0. Both sides use sequentially consistent
 * operations, so either the command sees tel_closed and refuses (an error reply), or the
 * close sees the command in flight and waits for it, at most TEL_CLOSE_WAIT_MS: past that
 * it says so and main.c frees nothing a command reads (a leak at exit, not a use after
 * free). Not on the data path.
 */
static int tel_closed;
static int tel_inflight;

/* How long the close waits for the commands in flight. Each is bounded far below it (the
 * longest, /rps/flows, by TEL_FLOWS_WAIT_MS and TEL_SNAP_READ_US a worker): one still
 * running after this is stuck, and the exit goes on without freeing what it may read. */
#define TEL_CLOSE_WAIT_MS 2000u

static const struct {
	const char *name;
	telemetry_cb fn;
	const char *help;
} tel_cmds[] = {
	{ "/rps/info", tel_info, "Version, lcores, ports, uptime, config generation, ready, CPU "
	  "paths. No parameters" },
	{ "/rps/stats", tel_stats, "Global counters, drops by reason, port, pool; a page of 16 "
	  "workers' summaries from FIRST. Params: [FIRST]" },
	{ "/rps/ports", tel_ports, "Each RX port by id: received, processed, forwarded, drops "
	  "by reason, the port it forwards to. No parameters" },
	{ "/rps/consumers", tel_consumers, "Each consumer (--consumers) by index: group, socket, "
	  "workers, connected, clients, delivered, drops by reason. No parameters" },
	{ "/rps/workers", tel_workers, "A page of 16 workers from FIRST: backlog, health, load, "
	  "buckets, drops. Params: [FIRST]" },
	{ "/rps/worker", tel_worker, "One worker: every counter and drop reason, backlog, health, "
	  "buckets owned. Params: LCORE" },
	{ "/rps/map", tel_map, "RX queues Q, Q+1: mask, lcores, weights, buckets per lcore "
	  "(arrays); generation. Params: [Q]" },
	{ "/rps/buckets", tel_buckets, "Buckets of RX queue Q: lcore, packets, bytes, pps, "
	  "cycles, moves. Params: Q (32 hottest) or Q,FIRST (64 from FIRST)" },
	{ "/rps/flows", tel_flows, "Top N flows by packets across workers, 24 a page from FIRST. "
	  "Params: N (1..64, default 10)[,FIRST]" },
	{ "/rps/rules", tel_rules, "Steering rules from FIRST (32 a page), in match order: text, "
	  "action, hits. Params: [FIRST]" },
	{ "/rps/flow", tel_flow, "Where a flow goes: hash, bucket, rule, worker, consumers, its "
	  "flow-table entry. Params: PROTO,SRC,SPORT,DST,DPORT[,QUEUE]" },
	{ "/rps/config", tel_config, "Active settings, generation, last reload time and result. "
	  "No parameters" },
};

static int
tel_guarded(const char *cmd, const char *params, struct rte_tel_data *d)
{
	int rc = -ESHUTDOWN;

	__atomic_add_fetch(&tel_inflight, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&tel_closed, __ATOMIC_SEQ_CST)) {
#ifdef RPS_TEST_HOOKS
		rps_test_tel_hold(cmd); /* a command that takes long (test_hooks.c) */
#endif
		rc = -ENOENT;
		for (unsigned int i = 0; i < RTE_DIM(tel_cmds); i++)
			if (strcmp(cmd, tel_cmds[i].name) == 0) {
				rc = tel_cmds[i].fn(cmd, params, d);
				break;
			}
	}
	__atomic_sub_fetch(&tel_inflight, 1, __ATOMIC_SEQ_CST);
	return rc;
}

int
rps_telemetry_close(void)
{
	const uint64_t hz = rte_get_tsc_hz(), start = rte_rdtsc();
	int n;

	__atomic_store_n(&tel_closed, 1, __ATOMIC_SEQ_CST);
	while ((n = __atomic_load_n(&tel_inflight, __ATOMIC_SEQ_CST)) != 0) {
		if (rte_rdtsc() - start >= hz * TEL_CLOSE_WAIT_MS / 1000) {
			RPS_LOG(ERR, "telemetry: %d command(s) still in flight %u ms after the "
				"stop: what they may read is left in place, not freed", n,
				TEL_CLOSE_WAIT_MS);
			return -ETIMEDOUT;
		}
		rte_delay_us_sleep(100);
	}
	return 0;
}

int
rps_telemetry_register(struct rps_app *app)
{
	int rc = 0;

	/* the socket is owner-only from its creation (main.c's umask around rte_eal_init())
	 * and its directory was checked (rps_telemetry_check_dir()): nothing to chmod */
	tel_app = app;
	for (unsigned int i = 0; i < RTE_DIM(tel_cmds); i++)
		if (rte_telemetry_register_cmd(tel_cmds[i].name, tel_guarded,
					       tel_cmds[i].help) != 0) {
			/* a help text of 128 characters or more is refused, for one */
			RPS_LOG(WARNING, "telemetry: cannot register %s", tel_cmds[i].name);
			rc = -1;
		}
	return rc;
}
