/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tel_maps.c: the telemetry commands about steering (telemetry.c registers them): /rps/map,
 * /rps/buckets and /rps/rules. Telemetry thread; read under the control thread's lock
 * (app->ctl.lock), never the maps the RX lcores use.
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

	rps_view_owned_add(app, q, cnt);
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

int
tel_map(const struct rps_app *app, const char *params, struct rte_tel_data *d)
{
	struct map_arg a = { .app = app };
	int rc;

	if (tel_page_first(params, app->io.nb_rxq, &a.first) != 0)
		return -EINVAL;
	rps_ctl_lock(&app->ctl);
	rc = tel_reply(d, map_build, &a);
	rps_ctl_unlock(&app->ctl);
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
	rps_view_owned_add(app, a->q, cnt);
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

int
tel_buckets(const struct rps_app *app, const char *params, struct rte_tel_data *d)
{
	struct buckets_arg a = { .app = app };
	uint64_t p[2] = { 0, 0 };
	const struct rps_bucket_view *v;
	int n = tel_params(params, p, 2), rc = 0;

	if (n < 0 || app->ctl.bview == NULL || p[0] >= app->io.nb_rxq || app->ctl.bview[p[0]] == NULL)
		return -EINVAL;
	a.q = (uint16_t)p[0];
	a.paged = n == 2;
	a.first = (uint32_t)p[1];
	rps_ctl_lock(&app->ctl);
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
	rps_ctl_unlock(&app->ctl);
	return rc;
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
int
tel_rules(const struct rps_app *app, const char *params, struct rte_tel_data *d)
{
	struct rules_arg *a = calloc(1, sizeof(*a));
	const struct rps_rules *rs;
	int rc;

	if (a == NULL)
		return -ENOMEM;
	rps_ctl_lock(&app->ctl); /* the set stays while it is held (rules.c) */
	rs = app->steer.rules;
	a->nb = rs != NULL ? rs->nb_rules : 0;
	a->generation = rs != NULL ? rs->generation : 0;
	rc = tel_page_first(params, a->nb ? a->nb : 1, &a->first);
	if (rc == 0 && rs != NULL) {
		a->count = RTE_MIN((uint32_t)TEL_RULES_PAGE, a->nb - a->first);
		for (uint32_t i = 0; i < a->count; i++) {
			uint16_t k = (uint16_t)(a->first + i);

			memcpy(a->text[i], rs->text[k], sizeof(a->text[i]));
			rps_app_rule_action(rs, k, a->action[i], sizeof(a->action[i]));
			a->hits[i] = rps_app_rule_hits(&app->lc, rs, k);
			a->hits_total[i] = rps_app_rule_hits_total(app, rs, k);
		}
	}
	rps_ctl_unlock(&app->ctl);
	if (rc == 0)
		rc = tel_reply(d, rules_build, a);
	free(a);
	return rc;
}
