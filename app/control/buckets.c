/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * buckets.c: the control thread's view of every RX queue's buckets, and the rebalancer.
 *
 * Every rebalance interval (--rebalance-interval, whether the rebalancer is on or not) the
 * control thread samples the RX lcore's per-bucket counters: packets over the interval and
 * packets/s per bucket, and an estimate of the worker cycles each bucket cost (each worker's
 * busy_cycles over the interval, shared among its buckets in proportion to their packets).
 *
 * With the rebalancer on, the same sample feeds rps_balance_plan(): when the busiest
 * worker's load (the packets of its buckets) has stayed over the mean by more than the
 * threshold for two intervals in a row, at most --rebalance-moves buckets that have not
 * moved within the hold-down go to workers with room, through a new map per queue. The
 * reorder-safe table then moves each bucket only once its old worker has drained it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "app.h"
#include "rps_balance.h"

/* Intervals whose total is below this many packets are not rebalanced (idle link). */
#define REBALANCE_MIN_PACKETS 1000

void
rps_buckets_set_owners(struct rps_app *app, struct rps_map *const *maps)
{
	for (uint16_t q = 0; q < app->io.nb_rxq; q++) {
		struct rps_bucket_view *v = app->ctl.bview[q];

		if (v == NULL || maps[q] == NULL || maps[q]->nb_workers == 0)
			continue;
		v->size = rps_map_size(maps[q]);
		memcpy(v->owner, maps[q]->table, v->size * sizeof(v->owner[0]));
	}
}

/* Sample the counters: delta, pps, cycle estimates. Each queue on its own terms: a queue
 * whose counters are not (yet) at its map's size, or were being cleared while read (an idle
 * queue after a table_size change; a resize racing the read), contributes nothing this time
 * and blocks nothing. @return 0, or -1 when out of memory. */
static int
sample(struct rps_app *app, double dt)
{
	const uint16_t nw = app->lc.nb_workers;
	uint64_t *busy = calloc(nw, sizeof(*busy));
	uint64_t *pk = calloc(nw, sizeof(*pk));
	uint64_t *now = calloc(RPS_MAP_SIZE_MAX, sizeof(*now));
	uint64_t *nowb = calloc(RPS_MAP_SIZE_MAX, sizeof(*nowb));

	if (busy == NULL || pk == NULL || now == NULL || nowb == NULL) {
		free(busy);
		free(pk);
		free(now);
		free(nowb);
		return -1;
	}
	for (uint16_t w = 0; w < nw; w++) {
		uint64_t c = RPS_CTR_READ(app->lc.workers[w].stats.busy_cycles);

		busy[w] = c - app->ctl.prev_busy[w];
		app->ctl.prev_busy[w] = c;
	}
	for (uint16_t q = 0; q < app->io.nb_rxq; q++) {
		struct rps_bucket_view *v = app->ctl.bview[q];
		const struct rps_bucket_stats *s = app->steer.bstats[q];
		uint32_t epoch = __atomic_load_n(&s->epoch, __ATOMIC_ACQUIRE);
		uint32_t mask = __atomic_load_n(&s->mask, __ATOMIC_RELAXED);
		int ok = (epoch & 1) == 0 && mask + 1 == v->size;

		for (uint32_t b = 0; ok && b < v->size; b++) {
			now[b] = __atomic_load_n(&s->b[b].packets, __ATOMIC_RELAXED);
			nowb[b] = __atomic_load_n(&s->b[b].bytes, __ATOMIC_RELAXED);
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		ok = ok && __atomic_load_n(&s->epoch, __ATOMIC_RELAXED) == epoch;
		if (epoch != v->epoch && (epoch & 1) == 0) { /* counters restarted: new size */
			memset(v->prev_packets, 0, sizeof(v->prev_packets));
			memset(v->prev_bytes, 0, sizeof(v->prev_bytes));
			memset(v->cycles, 0, sizeof(v->cycles));
			v->epoch = epoch;
		}
		if (!ok) {
			/* not counted at the map's size yet (an idle queue after a resize), or
			 * cleared meanwhile: nothing from this queue this time */
			memset(v->delta, 0, sizeof(v->delta));
			memset(v->dbytes, 0, sizeof(v->dbytes));
			memset(v->pps, 0, sizeof(v->pps));
			continue;
		}
		for (uint32_t b = 0; b < v->size; b++) {
			uint64_t p = now[b];

			v->delta[b] = p - v->prev_packets[b];
			v->prev_packets[b] = p;
			v->dbytes[b] = nowb[b] - v->prev_bytes[b];
			v->prev_bytes[b] = nowb[b];
			v->pps[b] = dt > 0 ? (uint64_t)((double)v->delta[b] / dt) : 0;
			pk[v->owner[b]] += v->delta[b];
		}
	}
	/* each worker's busy cycles, shared among its buckets by packets */
	for (uint16_t q = 0; q < app->io.nb_rxq; q++) {
		struct rps_bucket_view *v = app->ctl.bview[q];

		for (uint32_t b = 0; b < v->size; b++) {
			uint16_t w = v->owner[b];

			if (v->delta[b] != 0 && pk[w] != 0)
				v->cycles[b] += (uint64_t)((double)busy[w] * (double)v->delta[b] /
							   (double)pk[w]);
		}
	}
	free(busy);
	free(pk);
	free(now);
	free(nowb);
	return 0;
}

/* Each worker's weight (its largest in any queue's map) and where it may serve. */
static void
workers_of_maps(const struct rps_app *app, uint32_t *weight, uint8_t *allowed)
{
	for (uint16_t q = 0; q < app->io.nb_rxq; q++)
		for (uint16_t w = 0; w < app->lc.nb_workers; w++) {
			unsigned int x = rps_lcoreset_weight(&app->ctl.map_sets[q], app->lc.workers[w].lcore);

			/* never onto a stalled worker (health.c) */
			allowed[(uint32_t)q * app->lc.nb_workers + w] = x != 0 &&
				__atomic_load_n(&app->lc.workers[w].health.state, __ATOMIC_RELAXED) !=
				RPS_HEALTH_STALLED;
			if (x > weight[w])
				weight[w] = x;
		}
}

/* Publish the views' owner tables as new maps. @return 0 or -ENOMEM. */
int
rps_buckets_publish_owners(struct rps_app *app, uint16_t (*owner)[RPS_MAP_SIZE_MAX])
{
	struct rps_map **maps = calloc(app->io.nb_rxq, sizeof(*maps));
	struct rps_lcoreset *sets = calloc(app->io.nb_rxq, sizeof(*sets));
	uint32_t gen = app->ctl.generation + 1;
	int rc = 0;

	if (maps == NULL || sets == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint16_t q = 0; q < app->io.nb_rxq; q++) {
		maps[q] = rps_map_create_table(owner[q], app->ctl.bview[q]->size, gen,
					       RPS_APP_SELF(app)->socket);
		if (maps[q] == NULL) {
			rc = -ENOMEM;
			goto out;
		}
	}
	pthread_mutex_lock(&app->ctl.lock);
	memcpy(sets, app->ctl.map_sets, app->io.nb_rxq * sizeof(*sets));
	pthread_mutex_unlock(&app->ctl.lock);
	rps_app_maps_publish(app, maps, sets);
	memset(maps, 0, app->io.nb_rxq * sizeof(*maps));
	__atomic_store_n(&app->ctl.generation, gen, __ATOMIC_RELEASE);
out:
	for (uint16_t q = 0; maps != NULL && q < app->io.nb_rxq; q++)
		rps_map_free(maps[q]);
	free(maps);
	free(sets);
	return rc;
}

/*
 * --elephant-action isolate, once per interval, before the rebalancer's plan. Which workers
 * hold elephants: each worker's elephants_active gauge (its flow table's marks; the worker
 * stores it with release order, loaded here with acquire). A worker that holds k of them
 * keeps its k bucket numbers with the most bytes over the interval, in every queue's table
 * (an elephant is above the rate: its bucket carries at least that much, which is how the
 * control thread finds it without the worker knowing its hash) and every other bucket of
 * it moves to the other workers
 * (rps_balance_isolate(); the hold-down does not hold them: the elephant is the load). A
 * worker isolated takes no bucket, and the plan that follows leaves it out (its weight 0
 * for the plan: the rebalancer evens out the others). One whose elephants ended is isolated
 * no more: buckets come back by rebalancing. Not while every other worker is isolated too.
 * @return the moves written to @p mv (at most @p max).
 */
static int
isolate(struct rps_app *app, struct rps_balance_bucket *b, uint32_t nb, const uint32_t *qof,
	uint32_t *weight, const uint8_t *allowed, struct rps_balance_move *mv, uint32_t max)
{
	const uint16_t nw = app->lc.nb_workers, nq = app->io.nb_rxq;
	uint8_t *iso = app->ctl.isolated;
	uint64_t *sum = calloc(RPS_MAP_SIZE_MAX, sizeof(*sum));
	uint32_t total = 0;

	if (sum == NULL)
		return 0;

	for (uint16_t w = 0; w < nw; w++) {
		const uint64_t el = __atomic_load_n(&app->lc.workers[w].stats.elephants_active,
						    __ATOMIC_ACQUIRE);
		unsigned int others = 0;
		int n;

		if (el == 0 || weight[w] == 0) {
			if (iso[w])
				RPS_LOG(INFO, "elephants: lcore %u holds none any more: its isolation "
					"ends", app->lc.workers[w].lcore);
			__atomic_store_n(&iso[w], 0, __ATOMIC_RELAXED);
			continue;
		}
		for (uint16_t d = 0; d < nw; d++)
			others += d != w && weight[d] != 0 && !iso[d];
		if (others == 0)
			continue; /* nowhere to move its other buckets */
		/* the el bucket numbers with the most bytes, summed over every queue's table,
		 * stay (movable 0) wherever it owns them: a flow's hash gives it one number in
		 * every table, so a --symmetric connection's two directions, which arrive on
		 * the two ports of a pair, stay together. All the others go. */
		memset(sum, 0, RPS_MAP_SIZE_MAX * sizeof(*sum));
		for (uint32_t i = 0; i < nb; i++) {
			const uint32_t x = qof[i] & 0xffff;

			if (b[i].owner != w)
				continue;
			b[i].movable = 1;
			sum[x] += 1 + app->ctl.bview[qof[i] >> 16]->dbytes[x]; /* 1: owned */
		}
		for (uint64_t k = 0; k < el; k++) {
			uint32_t top = UINT32_MAX;

			for (uint32_t x = 0; x < RPS_MAP_SIZE_MAX; x++)
				if (sum[x] != 0 && sum[x] != UINT64_MAX &&
				    (top == UINT32_MAX || sum[x] > sum[top]))
					top = x;
			if (top == UINT32_MAX)
				break;
			sum[top] = UINT64_MAX; /* kept */
		}
		for (uint32_t i = 0; i < nb; i++)
			if (b[i].owner == w && sum[qof[i] & 0xffff] == UINT64_MAX)
				b[i].movable = 0;
		n = rps_balance_isolate(b, nb, w, weight, nw, allowed, nq, iso, mv + total,
					max - total);
		if (n < 0)
			continue;
		total += (uint32_t)n;
		if (!iso[w]) {
			__atomic_store_n(&iso[w], 1, __ATOMIC_RELAXED);
			__atomic_store_n(&app->ctl.isolations, app->ctl.isolations + 1,
					 __ATOMIC_RELAXED);
			RPS_LOG(INFO, "elephants: lcore %u holds %" PRIu64 ": isolated, %d other "
				"bucket(s) moved off it", app->lc.workers[w].lcore, el, n);
		}
	}
	for (uint16_t w = 0; w < nw; w++)
		if (iso[w])
			weight[w] = 0; /* the plan evens out the others */
	free(sum);
	return (int)total;
}

/* The worker load ratio of the sample just taken and, when @p act, one rebalancer run;
 * before it, with --elephant-action isolate, the isolation of the elephants' workers. */
static void
rebalance(struct rps_app *app, uint64_t now, int act, int isolating)
{
	const uint16_t nw = app->lc.nb_workers, nq = app->io.nb_rxq;
	const uint64_t hold = (uint64_t)app->ctl.rebal.holddown_ms * rte_get_tsc_hz() / 1000;
	struct rps_balance_cfg cfg = {
		.threshold_pct = app->ctl.rebal.threshold_pct,
		.max_moves = app->ctl.rebal.moves,
		.min_load = REBALANCE_MIN_PACKETS,
	};
	uint32_t nb = 0, *weight = calloc(nw, sizeof(*weight)), *qof = NULL;
	uint8_t *allowed = calloc((size_t)nq * nw, 1);
	struct rps_balance_bucket *b = calloc((size_t)nq * RPS_MAP_SIZE_MAX, sizeof(*b));
	/* room for the isolation's moves (every bucket at most) and the plan's */
	struct rps_balance_move *mv = calloc((size_t)nq * RPS_MAP_SIZE_MAX + cfg.max_moves,
					     sizeof(*mv));
	uint16_t (*owner)[RPS_MAP_SIZE_MAX] = calloc(nq, sizeof(*owner));
	double before = 1.0, after = 1.0;
	int n, ni = 0;

	qof = calloc((size_t)nq * RPS_MAP_SIZE_MAX, sizeof(*qof));
	if (weight == NULL || allowed == NULL || b == NULL || mv == NULL || owner == NULL ||
	    qof == NULL)
		goto out;
	workers_of_maps(app, weight, allowed);
	for (uint16_t q = 0; q < nq; q++) {
		const struct rps_bucket_view *v = app->ctl.bview[q];

		memcpy(owner[q], v->owner, sizeof(owner[q]));
		for (uint32_t i = 0; i < v->size; i++, nb++) {
			b[nb] = (struct rps_balance_bucket){
				.load = v->delta[i],
				.owner = v->owner[i],
				.group = q,
				.movable = v->moved_tsc[i] == 0 || now - v->moved_tsc[i] >= hold,
			};
			qof[nb] = ((uint32_t)q << 16) | i;
		}
	}
	if (isolating)
		ni = isolate(app, b, nb, qof, weight, allowed, mv, (uint32_t)nq * RPS_MAP_SIZE_MAX);
	/* a plan only at the second interval in a row over the threshold: before that, the
	 * planner only measures (no moves); it moves nothing at or under the threshold */
	if (!act || app->ctl.over_count == 0)
		cfg.max_moves = 0;
	n = rps_balance_plan(b, nb, weight, nw, allowed, nq, &cfg, mv + ni, &before, &after);
	pthread_mutex_lock(&app->ctl.lock);
	app->ctl.imbalance = before;
	pthread_mutex_unlock(&app->ctl.lock);
	if (!act) {
		app->ctl.over_count = 0;
		n = 0;
	} else {
		app->ctl.over_count = before > 1.0 + app->ctl.rebal.threshold_pct / 100.0 ?
			app->ctl.over_count + 1 : 0;
		__atomic_store_n(&app->ctl.rebalance_runs, app->ctl.rebalance_runs + 1,
				 __ATOMIC_RELAXED);
	}
	if (n < 0)
		n = 0;
	if (n + ni == 0)
		goto out;
	n += ni; /* the isolation's moves first, then the plan's */
	for (int k = 0; k < n; k++) {
		uint32_t q = qof[mv[k].bucket] >> 16, i = qof[mv[k].bucket] & 0xffff;

		owner[q][i] = mv[k].to;
	}
	if (rps_buckets_publish_owners(app, owner) < 0) {
		RPS_LOG(ERR, "rebalance: out of memory, %d moves not applied", n);
		goto out;
	}
	pthread_mutex_lock(&app->ctl.lock);
	for (int k = 0; k < n; k++) {
		uint32_t q = qof[mv[k].bucket] >> 16, i = qof[mv[k].bucket] & 0xffff;

		app->ctl.bview[q]->moved_tsc[i] = now;
		app->ctl.bview[q]->moves[i]++;
	}
	pthread_mutex_unlock(&app->ctl.lock);
	app->ctl.over_count = 0; /* judge the new map on fresh intervals */
	__atomic_store_n(&app->ctl.buckets_moved, app->ctl.buckets_moved + (uint64_t)n,
			 __ATOMIC_RELAXED);
	if (n > ni) {
		__atomic_store_n(&app->ctl.rebalance_acted, app->ctl.rebalance_acted + 1,
				 __ATOMIC_RELAXED);
		RPS_LOG(INFO, "rebalance: moved %d bucket(s), worker load max/mean %.2f -> %.2f "
			"(generation %u)", n - ni, before, after, app->ctl.generation);
	}
	if (ni > 0)
		RPS_LOG(INFO, "elephants: %d bucket(s) moved off isolated workers (generation %u)",
			ni, app->ctl.generation);
out:
	free(weight);
	free(allowed);
	free(b);
	free(mv);
	free(owner);
	free(qof);
}

void
rps_buckets_tick(struct rps_app *app, uint64_t now)
{
	double dt;
	int usable;

	if (app->lc.nb_workers == 0 || app->ctl.bview == NULL)
		return;
	if (app->ctl.buckets_tsc == 0) { /* first call: a baseline */
		for (uint16_t w = 0; w < app->lc.nb_workers; w++)
			app->ctl.prev_busy[w] = RPS_CTR_READ(app->lc.workers[w].stats.busy_cycles);
	}
	dt = app->ctl.buckets_tsc == 0 ? 0 :
	     (double)(now - app->ctl.buckets_tsc) / (double)rte_get_tsc_hz();
	pthread_mutex_lock(&app->ctl.lock);
	usable = sample(app, dt);
	pthread_mutex_unlock(&app->ctl.lock);
	if (app->ctl.buckets_tsc != 0 && usable == 0) {
		const int safe = app->lc.nb_workers > 1 &&
				 __atomic_load_n(&app->steer.reorder_safe, __ATOMIC_RELAXED);

		rebalance(app, now, app->ctl.rebal.on && safe,
			  safe && app->opt.elephant_action == RPS_ELEPHANT_ISOLATE);
	}
	app->ctl.buckets_tsc = now;
}

/* One array of the summary: per bucket, what @p what names (see rps_buckets_json()). */
static void
json_array(FILE *f, const char *name, const struct rps_bucket_view *v,
	   const struct rps_bucket_stats *s, const struct rps_app_lcores *lc, int what)
{
	fprintf(f, "\"%s\": [", name);
	for (uint32_t b = 0; b < v->size; b++) {
		uint64_t x = 0;

		switch (what) {
		case 0:
			x = lc->workers[v->owner[b]].lcore;
			break;
		case 1:
			x = __atomic_load_n(&s->b[b].packets, __ATOMIC_RELAXED);
			break;
		case 2:
			x = __atomic_load_n(&s->b[b].bytes, __ATOMIC_RELAXED);
			break;
		case 3:
			x = v->cycles[b];
			break;
		default:
			x = v->moves[b];
			break;
		}
		fprintf(f, "%s%" PRIu64, b ? ", " : "", x);
	}
	fprintf(f, "]");
}

void
rps_buckets_json(const struct rps_app *app, FILE *f)
{
	static const char *const names[] = { "lcore", "packets", "bytes", "cycles", "moves" };

	rps_ctl_lock(&app->ctl);
	fprintf(f, "  \"buckets\": {\"table_size\": %u, \"rebalance\": {\"on\": %s, "
		"\"interval_ms\": %u, \"threshold_pct\": %u, \"moves\": %u, \"holddown_ms\": %u, "
		"\"rebalance_runs\": %" PRIu64 ", \"rebalance_acted\": %" PRIu64 ", "
		"\"buckets_moved\": %" PRIu64 ", \"imbalance\": %.3f, "
		"\"elephant_isolations\": %" PRIu64 "}, \"queues\": [",
		app->ctl.table_size, app->ctl.rebal.on ? "true" : "false", app->ctl.rebal.interval_ms,
		app->ctl.rebal.threshold_pct, app->ctl.rebal.moves, app->ctl.rebal.holddown_ms,
		app->ctl.rebalance_runs, app->ctl.rebalance_acted, app->ctl.buckets_moved, app->ctl.imbalance,
		__atomic_load_n(&app->ctl.isolations, __ATOMIC_RELAXED));
	for (uint16_t q = 0; app->ctl.bview != NULL && q < app->io.nb_rxq; q++) {
		const struct rps_bucket_view *v = app->ctl.bview[q];

		if (v == NULL)
			break;
		fprintf(f, "%s\n    {\"queue\": %u, \"size\": %u, ", q ? "," : "", q, v->size);
		/* counters of another size (a reload just changed it) are not this table's */
		if (__atomic_load_n(&app->steer.bstats[q]->mask, __ATOMIC_RELAXED) + 1 != v->size) {
			fprintf(f, "\"stale\": true}");
			continue;
		}
		for (unsigned int k = 0; k < RTE_DIM(names); k++) {
			json_array(f, names[k], v, app->steer.bstats[q], &app->lc, (int)k);
			fprintf(f, k + 1 < RTE_DIM(names) ? ", " : "}");
		}
	}
	fprintf(f, "\n  ]},\n");
	rps_ctl_unlock(&app->ctl);
}
