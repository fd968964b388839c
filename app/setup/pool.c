/* SPDX-License-Identifier: BSD-3-Clause */
/* pool.c: the mbuf pool, on the RX port's socket, and its split into the RX lcores' reserve
 * and each worker's share (the planner: budget.c, rps_budget.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>

#include "app.h"
#include "rps_budget.h"
#include "rps_reasm.h"
#include "setup.h"

#define MIN_POOL 16384u
#define MAX_POOL (1u << 26) /* as --mbufs */

_Static_assert(RPS_BUDGET_MIN_FRAG == RPS_REASM_MIN_BUDGET, "the planner's reassembly floor");

/* The start-up line: the pool, the RX lcores' reserve and what each worker may hold; a
 * warning when the pool made the limits smaller than asked, or could not keep them at all. */
static void
report_budgets(const struct rps_app *app, const struct rps_pool_budget *b, uint64_t want)
{
	const struct rps_options *o = &app->opt;
	char bl[96] = "";

	if (b->backlogs != 0)
		snprintf(bl, sizeof(bl), "%u backlog ring(s) of %u packets, ", b->backlogs,
			 b->backlog_cap);
	RPS_LOG(INFO, "mbuf pool: %u mbufs%s; the RX lcores keep %u, each of %u %s may hold "
		"%" PRIu64 " (%sreassembly %u, TX ring, bursts and return rings %u)",
		app->io.pool_size, o->mbufs ? " (--mbufs)" : "", b->reserve, b->workers,
		app->lc.nb_workers ? "workers" : "lcore (no map)", b->share, bl, b->frag_budget,
		b->fixed);
	if (b->overcommit)
		rte_log(RTE_LOG_WARNING, rps_logtype, "RPS: a pool of %u mbufs is below what the "
			"smallest budgets need (%u for the RX lcores, %u per worker and more): "
			"each worker may hold every mbuf, and a stalled or flooded one starve the "
			"RX lcores (rx_nombuf); raise --mbufs to %" PRIu64 "\n", app->io.pool_size,
			b->reserve, b->fixed, want);
	else if (b->cut)
		rte_log(RTE_LOG_WARNING, rps_logtype, "RPS: a pool of %u mbufs, not the %" PRIu64
			" that --backlog %u and --frag-mbufs %u ask for: each backlog ring cut to "
			"%u packets (what it refuses: mbuf_budget), reassembly to %u mbufs per "
			"worker (frag_evicted); raise --mbufs%s\n", app->io.pool_size, want,
			o->backlog, b->frag_mbufs, b->backlog_cap, b->frag_budget,
			o->mbufs ? "" : " or give EAL more memory (-m)");
}

/* Consumer groups with fewer consumers than workers: each worker has a part of a ring there. */
static unsigned int
shared_groups(const struct rps_app *app)
{
	unsigned int n = 0;

	for (uint16_t g = 0; g < app->cons.nb_groups; g++)
		n += app->cons.group_size[g] < app->lc.nb_workers;
	return n;
}

int
rps_setup_pool(struct rps_app *app)
{
	const struct rps_options *o = &app->opt;
	const uint16_t nb_tx = app->lc.nb_workers ? app->lc.nb_workers : 1;
	const int socket = app->io.rx_port_socket >= 0 ? app->io.rx_port_socket : (int)rte_socket_id();
	struct rps_pool_budget bud;
	uint64_t want;
	int shared;

	/*
	 * The pool, and each worker's share of it (docs/reassembly-budget.md):
	 *   reserve = RX rings + the RX lcores' bursts (and what backpressure holds)
	 *             + a cache reserve for every lcore (384: a cache of 256 fills to 1.5x):
	 *             what keeps the RX lcores receiving, no worker's to take;
	 *   share   = fixed: the worker's TX ring, its bursts in flight, its return rings, its
	 *             part of a shared consumer's ring
	 *             + RX lcores x --backlog (its backlogs) + --frag-mbufs (reassembly);
	 *   pool    = max(MIN_POOL, reserve + workers x share) by default, or --mbufs.
	 * Without a map the RX lcore is the one "worker" (no backlog, no bursts in flight).
	 * A pool smaller than that (--mbufs, or the default halved for want of memory) cuts
	 * each worker's backlogs and reassembly budget by one factor until reserve + workers x
	 * share fits (rps_pool_budgets()): however slow or flooded, a worker then holds at most its
	 * share (its rings refuse the rest as mbuf_budget, reassembly evicts as frag_evicted)
	 * and the RX lcores always find mbufs.
	 */
	memset(&bud, 0, sizeof(bud));
	bud.workers = nb_tx;
	bud.backlogs = app->lc.nb_workers ? app->lc.nb_rx : 0;
	bud.backlog = o->backlog;
	bud.burst = o->burst;
	bud.frag_mbufs = rps_pipeline_has(&app->pipeline, RPS_STAGE_REASSEMBLE) ?
			 (o->frag_mbufs ? o->frag_mbufs : o->frag_max) : 0;
	bud.reserve = app->io.nb_rxq * RPS_RX_DESC + 2u * RPS_BURST_MAX * app->lc.nb_rx +
		      384u * rte_lcore_count();
	bud.fixed = RPS_TX_DESC + (app->lc.nb_workers ? 2u * RPS_BURST_MAX +
			       (o->recycle ? app->lc.nb_rx * RPS_RECYCLE_SIZE : 0) : 0) +
		    /* its part of a shared consumer's ring, in each group that shares */
		    shared_groups(app) * RPS_SHARE_PER_FEEDER(o->burst);
	want = bud.reserve + (uint64_t)bud.workers * (bud.fixed +
		(uint64_t)bud.backlogs * bud.backlog + bud.frag_mbufs);
	if (app->io.pool_size == 0)
		app->io.pool_size = o->mbufs ? o->mbufs :
				 (uint32_t)RTE_MIN(MAX_POOL, RTE_MAX(MIN_POOL, want));
	shared = rps_lcores_share_cpus();
	if (shared)
		RPS_LOG(INFO, "some lcores share a CPU: the mbuf pool uses ring_mt_rts, which a "
			"preempted lcore cannot stall (one lcore per CPU is still what performs)");
	app->io.pool = rps_port_pool_create(app->io.pool_size, socket, shared);
	/* The computed default covers full backlogs; when memory is short, settle for less:
	 * the budgets shrink with it. */
	while (app->io.pool == NULL && o->mbufs == 0 && rte_errno == ENOMEM &&
	       app->io.pool_size / 2 >= MIN_POOL) {
		app->io.pool_size /= 2;
		app->io.pool = rps_port_pool_create(app->io.pool_size, socket, shared);
	}
	if (app->io.pool == NULL) {
		fprintf(stderr, "dpdk-rps: cannot create a pool of %u mbufs on socket %d: %s "
			"(use --mbufs or give EAL more memory with -m)\n", app->io.pool_size, socket,
			rte_strerror(rte_errno));
		return -RPS_EXIT_RUNTIME;
	}
	bud.pool = app->io.pool_size;
	rps_pool_budgets(&bud);
	app->io.backlog_cap = bud.backlog_cap;
	app->io.frag_budget = bud.frag_budget;
	app->io.worker_share = bud.share;
	app->io.pool_reserve = bud.reserve;
	report_budgets(app, &bud, want);
	return 0;
}
