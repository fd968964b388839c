/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * maps.c: the per-RX-queue maps. Built off the fast path from lcore sets, published with one
 * atomic pointer store each, and freed only after the RX lcore has reported a quiescent
 * state (rte_rcu_qsbr), so the data path never waits and never reads a freed map. Each new
 * set of maps is checked for workers spread over sockets.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "app.h"
#include "rps_numa.h"

/* reorder-safe table size, like rps_flow_cnt: at least the largest map table */
#define BUCKETS_PER_QUEUE RPS_MAP_SIZE_MAX

void
rps_app_enabled_lcores(struct rps_lcoreset *set)
{
	unsigned int lcore;

	memset(set, 0, sizeof(*set));
	RTE_LCORE_FOREACH(lcore)
		rps_lcoreset_add(set, lcore);
}

struct rps_map *
rps_app_map_build(const struct rps_app *app, const struct rps_lcoreset *set, uint32_t size,
		  uint32_t generation, char *err, size_t err_len)
{
	uint16_t idx[RTE_MAX_LCORE];
	uint32_t wt[RTE_MAX_LCORE];
	uint32_t n = 0;
	struct rps_map *m;

	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++) {
		if (!rps_lcoreset_has(set, l))
			continue;
		if (app->lc.lcore_worker[l] < 0) {
			snprintf(err, err_len, "lcore %u is not a worker of this run (workers are "
				 "fixed at start: a new one needs a restart)", l);
			rte_errno = EINVAL;
			return NULL;
		}
		wt[n] = rps_lcoreset_weight(set, l);
		idx[n++] = (uint16_t)app->lc.lcore_worker[l];
	}
	if (n > size) {
		snprintf(err, err_len, "%u workers do not fit a table of %u buckets (table_size)",
			 n, size);
		rte_errno = EINVAL;
		return NULL;
	}
	if (n == 0 && app->lc.nb_workers > 0) {
		snprintf(err, err_len, "an empty map (no steering) needs a restart");
		rte_errno = EINVAL;
		return NULL;
	}
	/* on the RX lcore's socket, the one reader (reloads build it on the control thread) */
	m = rps_map_create(idx, wt, n, size, generation, RPS_APP_SELF(app)->socket);
	if (m == NULL)
		snprintf(err, err_len, "out of memory");
	return m;
}

int
rps_app_maps_init(struct rps_app *app)
{
	char err[160];
	size_t sz;

	app->steer.maps = calloc(app->io.nb_rxq, sizeof(*app->steer.maps));
	app->ctl.map_sets = calloc(app->io.nb_rxq, sizeof(*app->ctl.map_sets));
	app->steer.buckets = calloc(app->io.nb_rxq, sizeof(*app->steer.buckets));
	app->steer.bstats = calloc(app->io.nb_rxq, sizeof(*app->steer.bstats));
	app->ctl.bview = calloc(app->io.nb_rxq, sizeof(*app->ctl.bview));
	app->ctl.prev_busy = calloc(app->lc.nb_workers + 1u, sizeof(*app->ctl.prev_busy));
	app->ctl.isolated = calloc(app->lc.nb_workers + 1u, sizeof(*app->ctl.isolated));
	if (app->steer.maps == NULL || app->ctl.map_sets == NULL || app->steer.buckets == NULL ||
	    app->steer.bstats == NULL || app->ctl.bview == NULL || app->ctl.prev_busy == NULL ||
	    app->ctl.isolated == NULL)
		return -ENOMEM;
	/* every RX lcore reads its queues' maps: an old map is freed once all of them have
	 * reported a quiescent state (thread id: the RX lcore's index) */
	sz = rte_rcu_qsbr_get_memsize(app->lc.nb_rx);
	app->steer.qsbr = rte_zmalloc("rps_qsbr", sz, RTE_CACHE_LINE_SIZE);
	if (app->steer.qsbr == NULL || rte_rcu_qsbr_init(app->steer.qsbr, app->lc.nb_rx) != 0)
		return -ENOMEM;
	for (uint16_t r = 0; r < app->lc.nb_rx; r++)
		if (rte_rcu_qsbr_thread_register(app->steer.qsbr, r) != 0)
			return -ENOMEM;
	app->ctl.generation = 1;
	pthread_mutex_init(&app->ctl.lock, NULL);
	app->steer.reorder_safe = app->opt.reorder_safe;
	app->steer.flow_limit = app->opt.flow_limit;
	app->ctl.table_size = app->opt.table_size;
	app->ctl.rebal = (struct rps_rebalance_conf){
		.on = app->opt.rebalance,
		.interval_ms = app->opt.rebalance_interval_ms,
		.threshold_pct = app->opt.rebalance_threshold,
		.moves = app->opt.rebalance_moves,
		.holddown_ms = app->opt.rebalance_holddown_ms,
	};
	for (uint16_t q = 0; q < app->io.nb_rxq; q++) {
		const struct rps_lcoreset *s = NULL;

		/* --map sets every queue; otherwise the file's line for the queue, if any */
		if (app->ctl.start_cfg != NULL && !rps_options_given(&app->opt, "map"))
			s = rps_config_queue_map(app->ctl.start_cfg, q, NULL);
		app->ctl.map_sets[q] = s != NULL ? *s : app->opt.map;
		app->steer.maps[q] = rps_app_map_build(app, &app->ctl.map_sets[q], app->ctl.table_size,
						 app->ctl.generation, err, sizeof(err));
		if (app->steer.maps[q] == NULL) {
			fprintf(stderr, "dpdk-rps: map of RX queue %u: %s; --table-size %u\n", q,
				err, app->ctl.table_size);
			return rte_errno == ENOMEM ? -ENOMEM : -EINVAL;
		}
		if (app->lc.nb_workers > 0) {
			/* written by the queue's RX lcore: on its socket */
			const int sock = app->lc.rx[app->io.rxq_lcore[q]].self.socket;

			app->steer.buckets[q] = rps_buckets_create(BUCKETS_PER_QUEUE, sock);
			app->steer.bstats[q] = rps_bucket_stats_create(sock);
			app->ctl.bview[q] = calloc(1, sizeof(*app->ctl.bview[q]));
			if (app->steer.buckets[q] == NULL || app->steer.bstats[q] == NULL ||
			    app->ctl.bview[q] == NULL)
				return -ENOMEM;
		}
	}
	rps_buckets_set_owners(app, app->steer.maps);
	return 0;
}

int
rps_app_check_workers(const struct rps_app *app, const struct rps_lcoreset *set,
		      const struct rps_lcoreset *enabled, unsigned int *bad)
{
	int rc = rps_lcoreset_check(set, enabled, app->io.rx_lcore, bad);

	if (rc < 0)
		return rc;
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++)
		if (rps_lcoreset_has(set, l) && rps_lcoreset_has(&app->opt.rx_lcores, l)) {
			*bad = l;
			return -EBUSY;
		}
	return 0;
}

int
rps_app_maps_publish(struct rps_app *app, struct rps_map **maps, const struct rps_lcoreset *sets)
{
	pthread_mutex_lock(&app->ctl.lock);
	for (uint16_t q = 0; q < app->io.nb_rxq; q++)
		app->ctl.map_sets[q] = sets[q];
	rps_buckets_set_owners(app, maps);
	pthread_mutex_unlock(&app->ctl.lock);
	/* Blocks this (control) thread only, until the RX lcore has finished the loop
	 * iteration that may still hold an old map. */
	rps_map_publish(app->steer.maps, maps, app->io.nb_rxq, app->steer.qsbr);
	return 0;
}

int
rps_app_map_sockets(const struct rps_app_io *io, const struct rps_lcoreset *set,
		    unsigned int *off_port, char *desc, size_t len)
{
	return rps_numa_map_sockets(set, io->lcore_socket, io->rx_port_socket, off_port, desc,
				    len);
}

static int
lcoreset_equal(const struct rps_lcoreset *a, const struct rps_lcoreset *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

void
rps_app_maps_check_numa(const struct rps_app *app, const struct rps_lcoreset *sets,
			const char *when)
{
	for (uint16_t q = 0; q < app->io.nb_rxq; q++) {
		char desc[256], what[64], port[48], also[48] = "";
		unsigned int off, same = 0;
		uint16_t p;
		int nb;

		/* one warning per distinct map, not sixteen for the default one */
		for (p = 0; p < q && !lcoreset_equal(&sets[p], &sets[q]); p++)
			;
		if (p < q || rps_lcoreset_count(&sets[q]) == 0)
			continue;
		nb = rps_app_map_sockets(&app->io, &sets[q], &off, desc, sizeof(desc));
		for (p = q + 1; p < app->io.nb_rxq; p++)
			same += lcoreset_equal(&sets[p], &sets[q]);
		if (same > 0)
			snprintf(also, sizeof(also), " (and %u more with the same map)", same);
		if (nb <= 1 && off == 0) {
			RPS_LOG(DEBUG, "NUMA (%s): the map of RX queue %u%s: %s", when, q, also,
				desc);
			continue;
		}
		if (nb > 1)
			snprintf(what, sizeof(what), "spans %d sockets", nb);
		else
			snprintf(what, sizeof(what), "has %u worker(s) off the RX port's socket", off);
		if (app->io.rx_port_socket >= 0)
			snprintf(port, sizeof(port), "RX port %u on socket %d", app->opt.rx_port,
				 app->io.rx_port_socket);
		else
			snprintf(port, sizeof(port), "RX port %u on an unknown socket",
				 app->opt.rx_port);
		RPS_LOG(WARNING, "NUMA (%s): the map of RX queue %u%s %s (%s; %s): packets and "
			"backlogs cross the interconnect on every burst; keep the RX lcore, its port "
			"and each map's workers on one socket", when, q, also, what, desc, port);
	}
}

void
rps_app_maps_fini(struct rps_app *app)
{
	for (uint16_t q = 0; app->steer.maps != NULL && q < app->io.nb_rxq; q++) {
		rps_map_free(app->steer.maps[q]);
		if (app->steer.buckets != NULL)
			rps_buckets_free(app->steer.buckets[q]);
		if (app->steer.bstats != NULL)
			rps_bucket_stats_free(app->steer.bstats[q]);
		if (app->ctl.bview != NULL)
			free(app->ctl.bview[q]);
	}
	free(app->steer.bstats);
	free(app->ctl.bview);
	free(app->ctl.prev_busy);
	free(app->ctl.isolated);
	app->ctl.isolated = NULL;
	app->steer.bstats = NULL;
	app->ctl.bview = NULL;
	app->ctl.prev_busy = NULL;
	free(app->steer.maps);
	free(app->ctl.map_sets);
	free(app->steer.buckets);
	rte_free(app->steer.qsbr);
	app->steer.maps = NULL;
	app->ctl.map_sets = NULL;
	app->steer.buckets = NULL;
	app->steer.qsbr = NULL;
}
