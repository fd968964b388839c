/* SPDX-License-Identifier: BSD-3-Clause */
/* teardown.c: the exit in the order DESIGN.md gives: what can call in first, then the
 * processing lcores' state, the ports, the backlogs; release() frees what is left. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "app.h"
#include "outfile.h"
#include "rps_flow.h"
#include "setup.h"

/* The flow tables of every processing lcore, read after they stopped. */
static int
write_flows_json(const struct rps_app *app, const char *path)
{
	struct rps_outfile of;
	int n = 0, rc = rps_outfile_open(&of, path);
	FILE *f = of.f;

	if (rc < 0)
		return rc;
	uint64_t lost = 0, l;

	fprintf(f, "{\"flows\": [");
	if (RPS_APP_SELF(app)->ctx.flows != NULL)
		n += rps_flow_table_dump_json(RPS_APP_SELF(app)->ctx.flows, f,
					      RPS_APP_SELF(app)->lcore, n > 0);
	for (uint16_t i = 0; i < app->lc.nb_workers; i++)
		if (app->lc.workers[i].ctx.flows != NULL)
			n += rps_flow_table_dump_json(app->lc.workers[i].ctx.flows, f,
						      app->lc.workers[i].lcore, n > 0);
	/* the flows that ended during the run (expired, closed, evicted), as they ended */
	fprintf(f, "\n],\n\"removed\": [");
	n = 0;
	if (RPS_APP_SELF(app)->ctx.flows != NULL) {
		n += rps_flow_table_dump_removed_json(RPS_APP_SELF(app)->ctx.flows, f,
						      RPS_APP_SELF(app)->lcore, n > 0, &l);
		lost += l;
	}
	for (uint16_t i = 0; i < app->lc.nb_workers; i++)
		if (app->lc.workers[i].ctx.flows != NULL) {
			n += rps_flow_table_dump_removed_json(app->lc.workers[i].ctx.flows, f,
							      app->lc.workers[i].lcore, n > 0, &l);
			lost += l;
		}
	fprintf(f, "\n],\n\"removed_not_kept\": %" PRIu64 "}\n", lost);
	return rps_outfile_commit(&of);
}

void
rps_teardown(struct rps_app *app)
{
	int stuck = 0;

	rps_metrics_close(&app->obs); /* before anything a request reads is freed */
	rps_report_stop(app);
	rps_control_stop(app);
	rps_test_hooks_fini();
	if (app->opt.flows_json != NULL) {
		int frc = write_flows_json(app, app->opt.flows_json);

		if (frc < 0)
			fprintf(stderr, "dpdk-rps: --flows-json %s: %s\n", app->opt.flows_json,
				strerror(-frc));
	}
	/* the memif server's thread stops: no client's memory is unmapped under the flush */
	rps_consumers_freeze(&app->cons);
	/* Flush TX, count fragments still held: before the ports close. A worker still stuck
	 * keeps its state: it may yet touch it. With a telemetry command still running
	 * (rps_telemetry_close() gave up on it) the flow snapshots, ports and backlogs stay:
	 * the command may read any of them. */
	if (app->lc.rx != NULL)
		rps_worker_ctx_fini(RPS_APP_SELF(app), app->exit.tel_stuck);
	for (uint16_t i = 0; app->lc.workers != NULL && i < app->lc.nb_workers; i++)
		if (app->lc.workers[i].stuck)
			stuck = 1;
		else
			rps_worker_ctx_fini(&app->lc.workers[i], app->exit.tel_stuck);
	/* the consumers' shares, drained by their workers' fini: unless one may still enqueue */
	for (uint16_t c = 0; c < app->cons.nb_consumers && !stuck; c++)
		rps_share_fini(&app->cons.consumers[c].share);
	/* the RX ports' own counters, summed */
	memset(&app->exit.port_stats, 0, sizeof(app->exit.port_stats));
	for (int p = 0; p < app->io.rx_started; p++) {
		struct rte_eth_stats ps;

		if (rte_eth_stats_get(app->opt.rx_ports[p], &ps) == 0) {
			app->exit.rx_port_stats[p] = ps;
			app->exit.port_stats.ipackets += ps.ipackets;
			app->exit.port_stats.imissed += ps.imissed;
			app->exit.port_stats.ierrors += ps.ierrors;
			app->exit.port_stats.rx_nombuf += ps.rx_nombuf;
		}
	}
	/* a stuck worker may still be using the ports: leave them open then */
	for (uint16_t i = 0;
	     app->exit.workers_stuck == 0 && !app->exit.tel_stuck && i < app->io.ports_started;
	     i++)
		rps_port_close(app->io.ports[i].port_id);
	/* unless a stuck worker may still send to them, or telemetry read their counts */
	if (!stuck && !app->exit.tel_stuck)
		rps_consumers_close(&app->cons);
	for (uint16_t i = 0; app->lc.backlogs != NULL && !app->exit.tel_stuck && i < app->lc.nb_workers;
	     i++)
		for (uint16_t r = 0; !app->lc.workers[i].stuck && r < app->lc.nb_rx; r++)
			rps_backlog_fini(rps_app_backlog(&app->lc, r, i));
	rps_health_fini(&app->ctl);
	if (app->io.pool != NULL)
		app->exit.pool_in_use_at_exit = (int64_t)rte_mempool_in_use_count(app->io.pool);
}

void
rps_release(struct rps_app *app)
{
	for (uint16_t r = 0; app->lc.rx != NULL && r < app->lc.nb_rx; r++)
		rps_steer_fini(&app->lc.rx[r].steer);
	for (uint16_t i = 0; app->lc.workers != NULL && i < app->lc.nb_workers; i++)
		rte_free(app->lc.workers[i].in.b);
	rps_app_maps_fini(app);
	rps_app_rules_fini(app);
	rps_app_filters_fini(app);
	rps_order_fini(&app->lc.order);
	free(app->ctl.start_cfg);
	free(app->ctl.pps);
	rte_free(app->lc.workers);
	rte_free(app->lc.backlogs);
	rte_free(app->lc.rx);
	rte_mempool_free(app->io.pool);
	rte_mempool_free(app->io.indirect);
}
