/* SPDX-License-Identifier: BSD-3-Clause */
/* workers.c: the workers and their backlogs (one ring per RX lcore and worker, each on its
 * worker's socket), the RX lcores' steering contexts, the stages' state. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_malloc.h>

#include "app.h"
#include "rps_numa.h"
#include "setup.h"

/* The socket most of the map's workers are on (all of them, when the map is sound), as an
 * allocation socket. */
static int
workers_socket(const struct rps_app *app)
{
	unsigned int count[RTE_MAX_NUMA_NODES] = { 0 };
	int best = SOCKET_ID_ANY;

	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++) {
		int s = app->io.lcore_socket[l];

		if (!rps_lcoreset_has(&app->opt.map, l) || s < 0 || s >= RTE_MAX_NUMA_NODES)
			continue;
		if (++count[s] > (best < 0 ? 0 : count[best]))
			best = s;
	}
	return rps_numa_mem_socket(best);
}

/* RX lcore @p rx's steering context: its row of backlogs, its counters. */
static int
setup_steer(struct rps_app *app, struct rps_rx_lcore *rx)
{
	const struct rps_options *o = &app->opt;
	struct rps_steer_ctx *st = &rx->steer;

	if (rps_steer_init(st, o->hash_mode, app->io.seed,
			   o->hash_mode == RPS_HASH_JHASH || o->hash_mode == RPS_HASH_TOEPLITZ ||
			   o->inner || !app->io.rss_hash || o->symmetric == RPS_SYM_SORT,
			   rps_app_backlog(&app->lc, rx->index, 0), app->lc.nb_workers,
			   o->burst, &rx->self.stats, rx->self.socket) < 0)
		return -ENOMEM;
	st->symmetric = o->symmetric;
	st->inner = o->inner;
	st->backpressure = o->backpressure >= 0 ? o->backpressure :
		rps_port_is_replay(app->io.rx_driver);
	st->tunnels = o->tunnels;
	if (rps_toeplitz_init(&st->toeplitz, o->rss_key, o->rss_key_len,
			      RPS_TOEPLITZ_AUTO) < 0)
		return -EINVAL;
	if (o->check_order)
		st->order = &app->lc.order;
	return 0;
}

int
rps_setup_workers(struct rps_app *app)
{
	const struct rps_options *o = &app->opt;
	uint16_t n = (uint16_t)rps_lcoreset_count(&o->map), i = 0;
	const uint16_t nb_rx = app->lc.nb_rx;
	struct rps_worker *self = RPS_APP_SELF(app);
	/* every mbuf an RX lcore queues or a worker recycles is of these pools */
	struct rte_mempool *pools[] = {app->io.pool, app->io.indirect};
	uintptr_t slot_base = 0;
	unsigned int lcore;
	int rc;

	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++) {
		app->lc.lcore_worker[l] = -1;
		app->io.lcore_socket[l] = SOCKET_ID_ANY;
	}
	RTE_LCORE_FOREACH(lcore)
		app->io.lcore_socket[lcore] = (int)rte_lcore_to_socket_id(lcore);
	for (uint16_t r = 0; r < nb_rx; r++)
		app->lc.rx[r].self.socket =
			rps_numa_mem_socket(app->io.lcore_socket[app->lc.rx[r].self.lcore]);
	app->lc.nb_workers = n;
	if (n > 0) {
		/* One array, because the reports and telemetry index it. Each element is
		 * cache-line aligned and written by its worker only, so its lines stay in that
		 * worker's cache wherever the array is; the array goes where most workers are.
		 * What is large or read per packet (backlog ring, flow table, reassembly table,
		 * TX buffers, flow snapshot) is on each worker's own socket, w->socket. */
		app->lc.workers = rte_zmalloc_socket("rps_workers", sizeof(*app->lc.workers) * n,
						  RTE_CACHE_LINE_SIZE, workers_socket(app));
		/* One array, [nb_rx][n], because each RX lcore's steer context indexes its row
		 * (ctx->backlogs[w]). An RX lcore writes the producer side of every element of
		 * its row on every burst, a worker only its own consumer lines once per burst:
		 * the array is on RX lcore 0's socket, each ring on its worker's. */
		app->lc.backlogs = rte_zmalloc_socket("rps_backlogs",
						   sizeof(*app->lc.backlogs) * n * nb_rx,
						   RTE_CACHE_LINE_SIZE, self->socket);
		if (app->lc.workers == NULL || app->lc.backlogs == NULL)
			return -ENOMEM;
		/* the rings carry 32-bit slots where the pools allow (rps_backlog.h) */
		slot_base = rps_backlog_slot_base(pools, RTE_DIM(pools));
		RPS_LOG(INFO, "backlog rings carry %s", slot_base != 0 ?
			"32-bit slots (16 packets a cache line)" :
			"pointers (the pools are not addressable by 32-bit slots)");
	}
	for (unsigned int l = 0; l < RTE_MAX_LCORE && n > 0; l++) {
		struct rps_worker *w;
		char name[16];

		if (!rps_lcoreset_has(&o->map, l))
			continue;
		w = &app->lc.workers[i];
		w->app = app;
		w->lcore = l;
		w->index = i;
		w->txq = i;
		w->socket = rps_numa_mem_socket(app->io.lcore_socket[l]);
		w->in.nb = nb_rx;
		w->in.b = rte_zmalloc_socket("rps_worker_in", sizeof(*w->in.b) * nb_rx,
					     RTE_CACHE_LINE_SIZE, w->socket);
		if (w->in.b == NULL)
			return -ENOMEM;
		for (uint16_t r = 0; r < nb_rx; r++) {
			struct rps_backlog *b = rps_app_backlog(&app->lc, r, i);

			/* the single RX lcore's ring keeps its name; more: "<rx>_<worker>" */
			if (nb_rx == 1)
				snprintf(name, sizeof(name), "%u", l);
			else
				snprintf(name, sizeof(name), "%u_%u", app->lc.rx[r].self.lcore, l);
			/* its share of the pool may hold fewer than --backlog (rps_setup_pool) */
			rc = rps_backlog_init_slots(b, name, app->io.backlog_cap, w->socket,
						    slot_base);
			if (rc == 0 && app->io.backlog_cap < o->backlog)
				rps_backlog_set_budget_cut(b);
			/* the RX lcore writes the flow-limit state: on its socket; always there,
			 * so that a reload can turn the limit on */
			if (rc == 0)
				rc = rps_backlog_flow_limit_init(b, app->lc.rx[r].self.socket);
			/* the way back: the RX lcore frees from it into its own mempool cache */
			if (rc == 0 && o->recycle)
				rc = rps_backlog_recycle_init(b, name, RPS_RECYCLE_SIZE,
							      app->lc.rx[r].self.socket);
			if (rc < 0)
				return rc;
			/* an idle worker sleeps in the kernel; the RX lcore wakes it (rps_wake.h) */
			if (o->idle_sleep_us != 0)
				b->wake = &w->wake;
			w->in.b[r] = b;
		}
		w->backlog = w->in.b[0];
		app->lc.lcore_worker[l] = (int16_t)i;
		i++;
	}
	rc = rps_app_maps_init(app);
	if (rc < 0) /* -EDOM: a map that cannot be built (maps.c said why): a usage error */
		return rc == -EINVAL ? -EDOM : rc;
	/* both modes: /rps/info and the metrics report them, the RX lcore idles too */
	rps_cpu_paths_get(&app->io.cpu);
	RPS_LOG(INFO, "CPU paths: build %s; Toeplitz %s; idle wait %s; flow hash %s; CPU has: %s",
		app->io.cpu.build, app->io.cpu.toeplitz, app->io.cpu.idle_wait, app->io.cpu.flow_hash,
		app->io.cpu.cpu_flags[0] ? app->io.cpu.cpu_flags : "(none of the optional extensions)");
	if (n == 0)
		return 0; /* no steering: the RX lcore processes */
	if (o->check_order) {
		if (rps_order_init(&app->lc.order, self->socket) < 0)
			return -ENOMEM;
		rps_order_set_queues(&app->lc.order, app->io.nb_rxq);
		app->lc.order_on = 1;
	}
	for (uint16_t r = 0; r < nb_rx; r++) {
		rc = setup_steer(app, &app->lc.rx[r]);
		if (rc < 0)
			return rc;
	}
	RPS_LOG(INFO, "backpressure %s%s", app->lc.rx[0].steer.backpressure ? "on" : "off",
		o->backpressure >= 0 ? "" : app->lc.rx[0].steer.backpressure ?
		" (auto: a file or ring input)" : " (auto: a NIC: its queue takes the overflow)");
	if (o->inner)
		RPS_LOG(INFO, "--inner: tunnels hashed on their inner header, every hash in "
			"software (%u VXLAN port(s), first %u)", RTE_MAX(o->tunnels.nb_vxlan, 1),
			o->tunnels.nb_vxlan ? o->tunnels.vxlan_port[0] : RPS_INNER_VXLAN_PORT);
	if (o->hash_mode == RPS_HASH_TOEPLITZ)
		RPS_LOG(INFO, "Toeplitz hash in software (%s)%s",
			app->lc.rx[0].steer.toeplitz.gfni ? "GFNI" : "rte_softrss_be",
			o->symmetric == RPS_SYM_XOR ? ", symmetric key" :
			o->symmetric == RPS_SYM_SORT ? ", sorted tuple" : "");
	return 0;
}

/* Stage state of every processing lcore, after the port is up (TX queues exist). */
int
rps_setup_stages(struct rps_app *app)
{
	/* The RX lcore processes only when there is no map; its TX queue 0 is a worker's
	 * otherwise. */
	int rc = app->lc.nb_workers == 0 ? rps_worker_ctx_init(app, RPS_APP_SELF(app)) : 0;

	for (uint16_t i = 0; rc == 0 && i < app->lc.nb_workers; i++)
		rc = rps_worker_ctx_init(app, &app->lc.workers[i]);
	return rc;
}
