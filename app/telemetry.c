/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * telemetry.c: the /rps/ commands on DPDK's telemetry socket (query them with
 * dpdk-telemetry.py). Callbacks run on DPDK's telemetry thread and read only counters
 * (atomic 64-bit loads), the lcore sets behind the maps (under ctl_lock, never the maps the
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
#include <rte_lcore.h>
#include <rte_telemetry.h>

#include "app.h"

static const struct rps_app *tel_app;

static double
uptime_s(const struct rps_app *app)
{
	return (double)(rte_rdtsc() - app->start_tsc) / (double)rte_get_tsc_hz();
}

/* Buckets of the table @p v that worker @p w owns. ctl_lock held. */
static uint32_t
owned_in(const struct rps_bucket_view *v, uint16_t w)
{
	uint32_t n = 0;

	for (uint32_t b = 0; b < v->size; b++)
		n += v->owner[b] == w;
	return n;
}

/* Buckets of queue @p q's table each worker owns, "lcore:buckets,...". ctl_lock held. */
static void
owners_list(const struct rps_app *app, uint16_t q, char *buf, size_t len)
{
	const struct rps_bucket_view *v = app->bview != NULL ? app->bview[q] : NULL;
	size_t pos = 0;

	buf[0] = '\0';
	for (uint16_t w = 0; v != NULL && w < app->nb_workers && pos < len; w++) {
		uint32_t n = owned_in(v, w);

		if (n != 0)
			pos += (size_t)snprintf(buf + pos, len - pos, "%s%u:%u", pos ? "," : "",
						app->workers[w].lcore, n);
	}
}

/* dropped_<reason> for every reason, and dropped_total. */
static void
add_drops(struct rte_tel_data *d, const struct rps_lcore_stats *st)
{
	char name[64];

	for (unsigned int r = 0; r < RPS_DROP_MAX; r++) {
		snprintf(name, sizeof(name), "dropped_%s", rps_drop_name(r));
		rte_tel_data_add_dict_u64(d, name, st->dropped[r]);
	}
	rte_tel_data_add_dict_u64(d, "dropped_total", rps_stats_dropped_total(st));
}

static int
tel_info(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct rps_app *app = tel_app;
	struct rte_tel_data *w = rte_tel_data_alloc();

	(void)cmd;
	(void)params;
	if (w == NULL)
		return -ENOMEM;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "version", RPS_VERSION);
	rte_tel_data_add_dict_int(d, "rx_lcore", (int)app->rx_lcore);
	rte_tel_data_start_array(w, RTE_TEL_INT_VAL);
	for (uint16_t i = 0; i < app->nb_workers; i++)
		rte_tel_data_add_array_int(w, (int)app->workers[i].lcore);
	rte_tel_data_add_dict_container(d, "worker_lcores", w, 0);
	rte_tel_data_add_dict_int(d, "rx_port", app->opt.rx_port);
	rte_tel_data_add_dict_string(d, "driver", app->rx_driver);
	rte_tel_data_add_dict_int(d, "rx_queues", app->nb_rxq);
	rte_tel_data_add_dict_int(d, "tx_port", app->opt.tx_port);
	rte_tel_data_add_dict_u64(d, "uptime_s", (uint64_t)uptime_s(app));
	rte_tel_data_add_dict_u64(d, "config_generation",
				  __atomic_load_n(&app->generation, __ATOMIC_ACQUIRE));
	rte_tel_data_add_dict_string(d, "hash", rps_hash_mode_name(app->opt.hash_mode));
	rte_tel_data_add_dict_string(d, "stages", app->opt.stages_text);
	rte_tel_data_add_dict_int(d, "ready", __atomic_load_n(&app->ready, __ATOMIC_ACQUIRE));
	rte_tel_data_add_dict_string(d, "build_cpu", app->cpu.build);
	rte_tel_data_add_dict_string(d, "toeplitz_impl", app->cpu.toeplitz);
	rte_tel_data_add_dict_string(d, "idle_wait", app->cpu.idle_wait);
	rte_tel_data_add_dict_string(d, "cpu_flags", app->cpu.cpu_flags);
	rte_tel_data_add_dict_string(d, "metrics", app->metrics_where);
	return 0;
}

/* The counters of one lcore as a dict (drop reasons as dropped_<reason>). */
static struct rte_tel_data *
stats_dict(const struct rps_lcore_stats *st, uint64_t depth, uint64_t hwm, uint64_t pps)
{
	struct rte_tel_data *c = rte_tel_data_alloc();

	if (c == NULL)
		return NULL;
	rte_tel_data_start_dict(c);
#define RPS_X_TEL(f, desc) rte_tel_data_add_dict_u64(c, #f, st->f);
	RPS_LCORE_COUNTERS(RPS_X_TEL)
#undef RPS_X_TEL
	add_drops(c, st);
	rte_tel_data_add_dict_u64(c, "backlog_depth", depth);
	rte_tel_data_add_dict_u64(c, "backlog_hwm", hwm);
	rte_tel_data_add_dict_u64(c, "pps", pps);
	return c;
}

static uint64_t
pps_of(const struct rps_app *app, unsigned int i)
{
	return app->pps != NULL ? __atomic_load_n(&app->pps[i], __ATOMIC_RELAXED) : 0;
}

/*
 * The ports' own counters, read live (rte_eth_stats_get() from this thread: the PMDs sum
 * per-queue counters the data path writes), and the packet pool's fill: the losses that
 * happen before dpdk-rps sees a packet (rx_nombuf: the pool ran dry; imissed: the RX queue
 * overflowed) and how close the pool is to running dry.
 */
static void
add_port_pool(const struct rps_app *app, struct rte_tel_data *d)
{
	struct rte_eth_stats ps;
	struct rte_tel_data *c;

	if (app->rx_started && rte_eth_stats_get(app->opt.rx_port, &ps) == 0 &&
	    (c = rte_tel_data_alloc()) != NULL) {
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_u64(c, "port_id", app->opt.rx_port);
		rte_tel_data_add_dict_u64(c, "ipackets", ps.ipackets);
		rte_tel_data_add_dict_u64(c, "imissed", ps.imissed);
		rte_tel_data_add_dict_u64(c, "ierrors", ps.ierrors);
		rte_tel_data_add_dict_u64(c, "rx_nombuf", ps.rx_nombuf);
		if (app->opt.tx_port == (int)app->opt.rx_port) {
			rte_tel_data_add_dict_u64(c, "opackets", ps.opackets);
			rte_tel_data_add_dict_u64(c, "oerrors", ps.oerrors);
		}
		rte_tel_data_add_dict_container(d, "port", c, 0);
	}
	if (app->tx_started && app->opt.tx_port != (int)app->opt.rx_port &&
	    rte_eth_stats_get((uint16_t)app->opt.tx_port, &ps) == 0 &&
	    (c = rte_tel_data_alloc()) != NULL) {
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_u64(c, "port_id", (uint64_t)app->opt.tx_port);
		rte_tel_data_add_dict_u64(c, "opackets", ps.opackets);
		rte_tel_data_add_dict_u64(c, "oerrors", ps.oerrors);
		rte_tel_data_add_dict_container(d, "tx_port", c, 0);
	}
	if (app->pool != NULL && (c = rte_tel_data_alloc()) != NULL) {
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_u64(c, "size", app->pool->size);
		rte_tel_data_add_dict_u64(c, "in_use", rte_mempool_in_use_count(app->pool));
		rte_tel_data_add_dict_u64(c, "available", rte_mempool_avail_count(app->pool));
		rte_tel_data_add_dict_container(d, "mempool", c, 0);
	}
}

static int
tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct rps_app *app = tel_app;
	struct rps_snapshot *s = rps_snapshot_alloc();
	uint16_t nw = app->nb_workers ? app->nb_workers : 1;
	char name[32];

	(void)cmd;
	(void)params;
	if (s == NULL)
		return -ENOMEM;
	rps_snapshot_take(app, s);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "rx_packets", s->rx.rx_packets);
	rte_tel_data_add_dict_u64(d, "enqueued", s->rx.enqueued);
	rte_tel_data_add_dict_u64(d, "processed", s->total.processed);
	rte_tel_data_add_dict_u64(d, "tx_packets", s->total.tx_packets);
	rte_tel_data_add_dict_u64(d, "rx_pps", pps_of(app, nw));
	add_drops(d, &s->total);
	rte_tel_data_add_dict_u64(d, "time_squeeze", s->total.time_squeeze);
	rte_tel_data_add_dict_u64(d, "out_of_order", s->total.out_of_order);
	rte_tel_data_add_dict_u64(d, "flows_migrated", s->rx.flows_migrated);
	rte_tel_data_add_dict_u64(d, "migrations_deferred", s->rx.migrations_deferred);
	rte_tel_data_add_dict_u64(d, "buckets_moved",
				  __atomic_load_n(&app->buckets_moved, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(d, "rebalance_runs",
				  __atomic_load_n(&app->rebalance_runs, __ATOMIC_RELAXED));
	add_port_pool(app, d);
	for (uint16_t i = 0; i < s->nb; i++) {
		struct rte_tel_data *c = stats_dict(&s->w[i].st, s->w[i].depth, s->w[i].hwm,
						    pps_of(app, i));

		snprintf(name, sizeof(name), "worker_%u", s->w[i].lcore);
		if (c != NULL)
			rte_tel_data_add_dict_container(d, name, c, 0);
	}
	free(s);
	return 0;
}

/* Buckets worker @p w owns over every queue's table. */
static uint64_t
buckets_owned(const struct rps_app *app, uint16_t w)
{
	uint64_t n = 0;

	if (app->bview == NULL)
		return 0;
	pthread_mutex_lock((pthread_mutex_t *)(uintptr_t)&app->ctl_lock);
	for (uint16_t q = 0; q < app->nb_rxq; q++)
		if (app->bview[q] != NULL)
			n += owned_in(app->bview[q], w);
	pthread_mutex_unlock((pthread_mutex_t *)(uintptr_t)&app->ctl_lock);
	return n;
}

static int
tel_workers(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct rps_app *app = tel_app;
	struct rps_snapshot *s = rps_snapshot_alloc();

	(void)cmd;
	(void)params;
	if (s == NULL)
		return -ENOMEM;
	rps_snapshot_take(app, s);
	rte_tel_data_start_dict(d);
	for (uint16_t i = 0; i < s->nb; i++) {
		struct rte_tel_data *c = rte_tel_data_alloc();
		const struct rps_lcore_stats *st = &s->w[i].st;
		char name[32];

		if (c == NULL)
			break;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_int(c, "index", i);
		rte_tel_data_add_dict_int(c, "socket", (int)rte_lcore_to_socket_id(s->w[i].lcore));
		rte_tel_data_add_dict_u64(c, "backlog_capacity",
					  app->nb_workers ? app->backlogs[i].capacity : 0);
		rte_tel_data_add_dict_u64(c, "backlog_depth", s->w[i].depth);
		rte_tel_data_add_dict_u64(c, "backlog_hwm", s->w[i].hwm);
		if (app->nb_workers != 0) {
			const struct rps_health *h = &app->workers[i].health;

			rte_tel_data_add_dict_string(c, "health", rps_health_name(
				__atomic_load_n(&h->state, __ATOMIC_RELAXED)));
			rte_tel_data_add_dict_u64(c, "stalls",
						  __atomic_load_n(&h->stalls, __ATOMIC_RELAXED));
			rte_tel_data_add_dict_u64(c, "recoveries",
						  __atomic_load_n(&h->recoveries, __ATOMIC_RELAXED));
		}
		rte_tel_data_add_dict_u64(c, "received_rps", st->received_rps);
		rte_tel_data_add_dict_u64(c, "processed", st->processed);
		rte_tel_data_add_dict_u64(c, "pps", pps_of(app, i));
		rte_tel_data_add_dict_u64(c, "time_squeeze", st->time_squeeze);
		rte_tel_data_add_dict_u64(c, "busy_percent",
					  st->polls ? st->busy_polls * 100 / st->polls : 0);
		rte_tel_data_add_dict_u64(c, "busy_cycles", st->busy_cycles);
		rte_tel_data_add_dict_u64(c, "buckets", buckets_owned(app, i));
		rte_tel_data_add_dict_u64(c, "flows_active", st->flows_active);
		rte_tel_data_add_dict_u64(c, "dropped_total", rps_stats_dropped_total(st));
		rte_tel_data_add_dict_u64(c, "dropped_backlog_full",
					  st->dropped[RPS_DROP_BACKLOG_FULL]);
		rte_tel_data_add_dict_u64(c, "dropped_flow_limit", st->dropped[RPS_DROP_FLOW_LIMIT]);
		snprintf(name, sizeof(name), "%u", s->w[i].lcore);
		rte_tel_data_add_dict_container(d, name, c, 0);
	}
	free(s);
	return 0;
}

static int
tel_map(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rps_app *app = (struct rps_app *)(uintptr_t)tel_app;

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "generation",
				  __atomic_load_n(&app->generation, __ATOMIC_ACQUIRE));
	rte_tel_data_add_dict_int(d, "reorder_safe",
				  __atomic_load_n(&app->reorder_safe, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_int(d, "rx_port", app->opt.rx_port);
	pthread_mutex_lock(&app->ctl_lock);
	for (uint16_t q = 0; q < app->nb_rxq; q++) {
		struct rte_tel_data *c = rte_tel_data_alloc();
		char name[32], mask[128], list[640], weights[1280], owned[1280];

		if (c == NULL)
			break;
		rps_lcoreset_format(&app->map_sets[q], mask, sizeof(mask));
		rps_lcoreset_format_list(&app->map_sets[q], 0, list, sizeof(list));
		/* lcore:weight for each lcore of the map */
		rps_lcoreset_format_list(&app->map_sets[q], 1, weights, sizeof(weights));
		owners_list(app, q, owned, sizeof(owned));
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_string(c, "mask", mask);
		rte_tel_data_add_dict_string(c, "lcores", list);
		rte_tel_data_add_dict_string(c, "weights", weights);
		rte_tel_data_add_dict_string(c, "buckets", owned);
		rte_tel_data_add_dict_int(c, "nb_lcores",
					  (int)rps_lcoreset_count(&app->map_sets[q]));
		rte_tel_data_add_dict_int(c, "table_size",
					  app->bview != NULL && app->bview[q] != NULL ?
					  (int)app->bview[q]->size : 0);
		snprintf(name, sizeof(name), "queue%u", q);
		rte_tel_data_add_dict_container(d, name, c, 0);
	}
	pthread_mutex_unlock(&app->ctl_lock);
	return 0;
}

#define TEL_BUCKETS_TOP 32   /* /rps/buckets,Q: the hottest buckets */
#define TEL_BUCKETS_PAGE 64  /* /rps/buckets,Q,FIRST: buckets FIRST.. (16 KB of output) */

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

static int
tel_buckets(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rps_app *app = (struct rps_app *)(uintptr_t)tel_app;
	static const char *const cols[] = { "bucket", "lcore", "packets", "bytes", "pps",
					    "cycles", "moves" };
	struct rte_tel_data *col[RTE_DIM(cols)];
	unsigned long q = 0, first = 0;
	int paged = 0;
	uint64_t (*order)[3] = NULL;
	uint32_t idx[TEL_BUCKETS_PAGE], n = 0;
	const struct rps_bucket_view *v;
	const struct rps_bucket_stats *st;
	char owned[1280], imb[32];

	(void)cmd;
	if (params != NULL && *params != '\0') {
		char *end;

		q = strtoul(params, &end, 10);
		if (end == params || (*end != '\0' && *end != ','))
			return -EINVAL;
		if (*end == ',') {
			const char *p = end + 1;

			first = strtoul(p, &end, 10);
			if (end == p || *end != '\0')
				return -EINVAL;
			paged = 1;
		}
	}
	if (app->bview == NULL || q >= app->nb_rxq || app->bview[q] == NULL)
		return -EINVAL;
	memset(col, 0, sizeof(col));
	pthread_mutex_lock(&app->ctl_lock);
	v = app->bview[q];
	st = app->bstats[q];
	if (paged && first >= v->size) {
		pthread_mutex_unlock(&app->ctl_lock);
		return -EINVAL;
	}
	if (paged) {
		for (uint32_t b = (uint32_t)first; b < v->size && n < TEL_BUCKETS_PAGE; b++)
			idx[n++] = b;
	} else {
		order = calloc(v->size, sizeof(*order));
		if (order == NULL) {
			pthread_mutex_unlock(&app->ctl_lock);
			return -ENOMEM;
		}
		for (uint32_t b = 0; b < v->size; b++) {
			order[b][0] = v->pps[b];
			order[b][1] = __atomic_load_n(&st->b[b].packets, __ATOMIC_RELAXED);
			order[b][2] = b;
		}
		qsort(order, v->size, sizeof(*order), hot_cmp);
		for (uint32_t k = 0; k < v->size && n < TEL_BUCKETS_TOP; k++)
			idx[n++] = (uint32_t)order[k][2];
		free(order);
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "queue", (int)q);
	rte_tel_data_add_dict_int(d, "table_size", (int)v->size);
	rte_tel_data_add_dict_u64(d, "generation",
				  __atomic_load_n(&app->generation, __ATOMIC_ACQUIRE));
	rte_tel_data_add_dict_string(d, "view", paged ? "page" : "hottest");
	rte_tel_data_add_dict_int(d, "rebalance", app->rebal.on);
	rte_tel_data_add_dict_u64(d, "rebalance_runs", app->rebalance_runs);
	rte_tel_data_add_dict_u64(d, "buckets_moved", app->buckets_moved);
	snprintf(imb, sizeof(imb), "%.3f", app->imbalance);
	rte_tel_data_add_dict_string(d, "imbalance", imb);
	owners_list(app, (uint16_t)q, owned, sizeof(owned));
	rte_tel_data_add_dict_string(d, "owners", owned);
	for (unsigned int k = 0; k < RTE_DIM(cols); k++) {
		col[k] = rte_tel_data_alloc();
		if (col[k] == NULL)
			break;
		rte_tel_data_start_array(col[k], RTE_TEL_U64_VAL);
	}
	for (uint32_t i = 0; i < n && col[RTE_DIM(cols) - 1] != NULL; i++) {
		uint32_t b = idx[i];
		const uint64_t x[] = {
			b, app->workers[v->owner[b]].lcore,
			__atomic_load_n(&st->b[b].packets, __ATOMIC_RELAXED),
			__atomic_load_n(&st->b[b].bytes, __ATOMIC_RELAXED),
			v->pps[b], v->cycles[b], v->moves[b],
		};

		for (unsigned int k = 0; k < RTE_DIM(cols); k++)
			rte_tel_data_add_array_u64(col[k], x[k]);
	}
	pthread_mutex_unlock(&app->ctl_lock);
	for (unsigned int k = 0; k < RTE_DIM(cols); k++)
		if (col[k] != NULL)
			rte_tel_data_add_dict_container(d, cols[k], col[k], 0);
	return 0;
}

/*
 * Whether the steering secrets (jhash seed, Toeplitz key) may go out on the telemetry socket.
 * The socket lives in EAL's runtime directory, which EAL creates 0700 (owner only: connecting
 * to a Unix socket needs search permission on its directory); the socket itself gets the
 * umask's mode. But EAL keeps a directory that already exists with whatever mode it has
 * (and --file-prefix or RUNTIME_DIRECTORY may point elsewhere), so this checks instead of
 * trusting: the secrets are shown only when the directory is owned by us and closed to group
 * and others. Otherwise /rps/config says "hidden", and only the owner's --rss-key knows.
 */
static int
secrets_visible(void)
{
	struct stat st;
	const char *dir = rte_eal_get_runtime_dir();

	return dir != NULL && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	       st.st_uid == geteuid() && (st.st_mode & (S_IRWXG | S_IRWXO)) == 0;
}

/* The steering secrets and their provenance into /rps/config. */
static void
config_secrets(const struct rps_app *app, struct rte_tel_data *d)
{
	const struct rps_options *o = &app->opt;
	const int show = secrets_visible();
	char hex[2 * RPS_TOEPLITZ_KEY_MAX + 1];

	rte_tel_data_add_dict_string(d, "hash_seed_source", o->seed_given ? "configured" :
				     "random");
	rte_tel_data_add_dict_string(d, "rss_key_source", o->rss_key_random ? "random" :
				     "configured");
	rte_tel_data_add_dict_string(d, "symmetric", rps_sym_mode_name(o->symmetric));
	if (show) {
		rte_tel_data_add_dict_u64(d, "hash_seed", app->seed);
		rps_toeplitz_key_format(o->rss_key, o->rss_key_len, hex, sizeof(hex));
		rte_tel_data_add_dict_string(d, "rss_key", hex);
	} else {
		rte_tel_data_add_dict_string(d, "hash_seed", "hidden");
		rte_tel_data_add_dict_string(d, "rss_key", "hidden");
	}
}

/* The running value of setting @p id: what a reload changed for the live ones, else what
 * the program started with (command line over file). Called under ctl_lock. */
static int
setting_value(const struct rps_app *app, enum rps_setting_id id, int64_t *v)
{
	switch (id) {
	case RPS_SET_REORDER_SAFE:
		*v = __atomic_load_n(&app->reorder_safe, __ATOMIC_RELAXED);
		return 0;
	case RPS_SET_FLOW_LIMIT:
		*v = __atomic_load_n(&app->flow_limit, __ATOMIC_RELAXED);
		return 0;
	case RPS_SET_STATS_INTERVAL:
		*v = __atomic_load_n(&app->opt.stats_interval, __ATOMIC_RELAXED);
		return 0;
	case RPS_SET_TABLE_SIZE:
		*v = app->table_size;
		return 0;
	case RPS_SET_REBALANCE:
		*v = app->rebal.on;
		return 0;
	case RPS_SET_REBALANCE_INTERVAL:
		*v = app->rebal.interval_ms;
		return 0;
	case RPS_SET_REBALANCE_THRESHOLD:
		*v = app->rebal.threshold_pct;
		return 0;
	case RPS_SET_REBALANCE_MOVES:
		*v = app->rebal.moves;
		return 0;
	case RPS_SET_REBALANCE_HOLDDOWN:
		*v = app->rebal.holddown_ms;
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
config_settings(const struct rps_app *app, struct rte_tel_data *d)
{
	const struct rps_options *o = &app->opt;

	for (unsigned int i = 0; i < RPS_SET_NB; i++) {
		const struct rps_setting *s = &rps_settings[i];
		int64_t v;

		if (s->key == NULL || strcmp(s->section, "dataplane") != 0 ||
		    i == RPS_SET_HASH_SEED || i == RPS_SET_RSS_KEY || i == RPS_SET_SYMMETRIC)
			continue;
		if (i == RPS_SET_STAGES) {
			rte_tel_data_add_dict_string(d, s->key, o->stages_text);
		} else if (i == RPS_SET_METRICS) {
			rte_tel_data_add_dict_string(d, s->key, o->metrics.on ? o->metrics.text :
						     "off");
		} else if (i == RPS_SET_HASH) {
			rte_tel_data_add_dict_string(d, s->key, rps_hash_mode_name(o->hash_mode));
		} else if (setting_value(app, (enum rps_setting_id)i, &v) == 0) {
			if (v < 0 || s->type == RPS_SETTING_BOOL || v <= INT32_MAX)
				rte_tel_data_add_dict_int(d, s->key, (int)v);
			else
				rte_tel_data_add_dict_u64(d, s->key, (uint64_t)v);
		}
	}
}

static int
tel_config(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rps_app *app = (struct rps_app *)(uintptr_t)tel_app;
	const struct rps_options *o = &app->opt;

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "config_file", o->config_path ? o->config_path : "");
	rte_tel_data_add_dict_u64(d, "generation",
				  __atomic_load_n(&app->generation, __ATOMIC_ACQUIRE));
	pthread_mutex_lock(&app->ctl_lock);
	rte_tel_data_add_dict_string(d, "last_reload_result", app->last_reload_result);
	rte_tel_data_add_dict_u64(d, "last_reload_age_s", app->last_reload_tsc == 0 ? 0 :
				  (rte_rdtsc() - app->last_reload_tsc) / rte_get_tsc_hz());
	rte_tel_data_add_dict_u64(d, "reloads_ok", app->reloads_ok);
	rte_tel_data_add_dict_u64(d, "reloads_failed", app->reloads_failed);
	rte_tel_data_add_dict_u64(d, "watch_events",
				  __atomic_load_n(&app->watch_events, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(d, "watch_names",
				  __atomic_load_n(&app->watch_names, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_int(d, "watch_armed",
				  __atomic_load_n(&app->watch_armed, __ATOMIC_RELAXED));
	config_settings(app, d);
	pthread_mutex_unlock(&app->ctl_lock);
	config_secrets(app, d);
	/* command line only, as the program resolved them */
	rte_tel_data_add_dict_string(d, "backpressure", app->steer.backpressure ? "on" : "off");
	rte_tel_data_add_dict_u64(d, "stall_timeout_ms", o->stall_timeout_ms);
	return 0;
}

/* One worker's snapshot, copied consistently (retried while the worker writes it). */
static uint32_t
read_snap(const struct rps_flow_snap *s, struct rps_flow_summary *out)
{
	uint32_t n, sn;

	do {
		sn = rte_seqcount_read_begin(&s->sc);
		n = RTE_MIN(s->n, (uint32_t)RPS_TOP_FLOWS);
		memcpy(out, s->f, n * sizeof(*out));
	} while (rte_seqcount_read_retry(&s->sc, sn));
	return n;
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

static int
tel_flows(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct rps_app *app = tel_app;
	const struct rps_worker *ws = app->nb_workers ? app->workers : &app->self;
	uint16_t nw = app->nb_workers ? app->nb_workers : 1;
	struct tel_flow *all = calloc((size_t)nw * RPS_TOP_FLOWS, sizeof(*all));
	unsigned long want = 10;
	uint32_t total = 0;

	(void)cmd;
	if (all == NULL)
		return -ENOMEM;
	if (params != NULL && *params != '\0') {
		char *end;

		want = strtoul(params, &end, 10);
		if (*end != '\0' || want == 0 || want > 64) {
			free(all);
			return -EINVAL; /* N must be 1..64 */
		}
	}
	{
		/* Ask the workers for snapshots (they take one a second while asked) and wait
		 * (this thread only) until each has one at most a second old. The first query
		 * waits up to 1.5 s for them; later ones up to 50 ms, then answer with what
		 * there is: a worker that is stalled or never idle must not hold up the reply. */
		struct rps_app *mut = (struct rps_app *)(uintptr_t)app;
		uint64_t t0 = rte_rdtsc(), hz = rte_get_tsc_hz();
		uint64_t last = __atomic_load_n(&app->flows_wanted_tsc, __ATOMIC_RELAXED);
		/* workers snapshot while asked in the last 60 s (rps_process_idle) */
		uint64_t wait = last == 0 || t0 - last > 59 * hz ? hz * 3 / 2 : hz / 20;
		int fresh = 0;

		__atomic_store_n(&mut->flows_wanted_tsc, t0, __ATOMIC_RELAXED);
		while (!fresh && rte_rdtsc() - t0 < wait &&
		       !__atomic_load_n(&app->rx_done, __ATOMIC_ACQUIRE)) {
			fresh = 1;
			for (uint16_t i = 0; i < nw; i++)
				if (ws[i].flow_snap != NULL &&
				    __atomic_load_n(&ws[i].health.state, __ATOMIC_RELAXED) !=
				    RPS_HEALTH_STALLED && /* it will not answer */
				    __atomic_load_n(&ws[i].flow_snap->tsc, __ATOMIC_RELAXED) + hz < t0)
					fresh = 0;
			if (!fresh)
				rte_delay_us_sleep(5 * 1000);
		}
	}
	for (uint16_t i = 0; i < nw; i++) {
		struct rps_flow_summary tmp[RPS_TOP_FLOWS];
		uint32_t n;

		if (ws[i].flow_snap == NULL)
			continue;
		n = read_snap(ws[i].flow_snap, tmp);
		for (uint32_t k = 0; k < n; k++) {
			all[total].f = tmp[k];
			all[total++].lcore = ws[i].lcore;
		}
	}
	qsort(all, total, sizeof(*all), cmp_flow);
	rte_tel_data_start_dict(d);
	for (uint32_t k = 0; k < total && k < want; k++) {
		const struct rps_flow_summary *f = &all[k].f;
		struct rte_tel_data *c = rte_tel_data_alloc();
		char name[16], src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
		int af = f->family == 6 ? AF_INET6 : AF_INET;

		if (c == NULL)
			break;
		inet_ntop(af, f->src, src, sizeof(src));
		inet_ntop(af, f->dst, dst, sizeof(dst));
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_int(c, "lcore", (int)all[k].lcore);
		rte_tel_data_add_dict_string(c, "src", src);
		rte_tel_data_add_dict_string(c, "dst", dst);
		rte_tel_data_add_dict_int(c, "sport", f->sport);
		rte_tel_data_add_dict_int(c, "dport", f->dport);
		rte_tel_data_add_dict_int(c, "proto", f->proto);
		rte_tel_data_add_dict_u64(c, "packets", f->packets);
		rte_tel_data_add_dict_u64(c, "bytes", f->bytes);
		rte_tel_data_add_dict_string(c, "state", rps_flow_state_name(f->state));
		rte_tel_data_add_dict_u64(c, "out_of_order", f->out_of_order);
		rte_tel_data_add_dict_u64(c, "retransmit", f->retransmit);
		snprintf(name, sizeof(name), "%u", k);
		rte_tel_data_add_dict_container(d, name, c, 0);
	}
	free(all);
	return 0;
}

/*
 * Shutdown. DPDK 22.11 cannot unregister a command and rte_eal_cleanup() does not stop the
 * telemetry threads (one per client), so a query arriving while dpdk-rps stops would read
 * workers, backlogs and maps that teardown frees. Every command goes through tel_guarded():
 * it counts itself in (tel_inflight) and re-checks tel_closed; rps_telemetry_close() sets
 * tel_closed, then waits for tel_inflight to reach 0. Both sides use sequentially consistent
 * operations, so either the command sees tel_closed and refuses (an error reply), or the
 * close sees the command in flight and waits for it. Not on the data path.
 */
static int tel_closed;
static int tel_inflight;

static const struct {
	const char *name;
	telemetry_cb fn;
	const char *help;
} tel_cmds[] = {
	{ "/rps/info", tel_info, "Version, lcores, ports, uptime, config generation, ready, CPU "
	  "paths. No parameters" },
	{ "/rps/stats", tel_stats, "Global and per-worker counters, drops by reason, backlog "
	  "depth/hwm, pps. No parameters" },
	{ "/rps/workers", tel_workers, "Per-worker backlog, load and rates. No parameters" },
	{ "/rps/map", tel_map, "Per RX queue: mask, lcores, weights, table size, buckets per "
	  "lcore; generation. No parameters" },
	{ "/rps/buckets", tel_buckets, "Buckets of RX queue Q: lcore, packets, bytes, pps, "
	  "cycles, moves. Params: Q (32 hottest) or Q,FIRST (64 from FIRST)" },
	{ "/rps/flows", tel_flows, "Top N flows by packets across workers (from per-worker "
	  "snapshots, 1 s old at most). Parameters: int N (1..64, default 10)" },
	{ "/rps/config", tel_config, "Active settings, generation, last reload time and result. "
	  "No parameters" },
};

static int
tel_guarded(const char *cmd, const char *params, struct rte_tel_data *d)
{
	int rc = -ESHUTDOWN;

	__atomic_add_fetch(&tel_inflight, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&tel_closed, __ATOMIC_SEQ_CST)) {
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

void
rps_telemetry_close(void)
{
	__atomic_store_n(&tel_closed, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&tel_inflight, __ATOMIC_SEQ_CST) != 0)
		rte_delay_us_sleep(100);
}

int
rps_telemetry_register(struct rps_app *app)
{
	int rc = 0;

	tel_app = app;
	{
		/* DPDK's runtime directory is already owner-only; make the socket so too */
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/dpdk_telemetry.v2", rte_eal_get_runtime_dir());
		(void)chmod(path, 0600);
	}
	for (unsigned int i = 0; i < RTE_DIM(tel_cmds); i++)
		rc |= rte_telemetry_register_cmd(tel_cmds[i].name, tel_guarded, tel_cmds[i].help);
	return rc ? -1 : 0;
}
