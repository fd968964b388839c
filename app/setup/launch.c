/* SPDX-License-Identifier: BSD-3-Clause */
/* launch.c: the lcores on their way (workers first, then the other RX lcores), then the
 * threads that watch and steer them: the live table, control, telemetry. */
#include <rte_errno.h>
#include <rte_launch.h>

#include "app.h"
#include "setup.h"

/* Every lcore counts by ingress port in the same table: slot 1 + i for the i-th RX port. */
_Static_assert(RPS_RX_PORTS_MAX <= RPS_PORTS_MAX, "every RX port has its counters");

static void
port_tables(struct rps_app *app)
{
	const struct rps_options *o = &app->opt;
	int rc = 0;

	for (uint16_t r = 0; r < app->lc.nb_rx; r++)
		rc |= rps_stats_set_ports(&app->lc.rx[r].self.stats, o->rx_ports, o->nb_rx_ports);
	for (uint16_t i = 0; i < app->lc.nb_workers; i++)
		rc |= rps_stats_set_ports(&app->lc.workers[i].stats, o->rx_ports, o->nb_rx_ports);
	if (rc != 0)
		RPS_LOG(WARNING, "per-port counters off: the RX ports do not fit the table");
}

int
rps_setup_launch(struct rps_app *app)
{
	int ret = 0, rc;

	port_tables(app);

	for (uint16_t i = 0; i < app->lc.nb_workers; i++) {
		rc = rte_eal_remote_launch(rps_worker_main, &app->lc.workers[i], app->lc.workers[i].lcore);
		if (rc != 0) {
			RPS_LOG(ERR, "cannot launch worker on lcore %u: %s", app->lc.workers[i].lcore,
				rte_strerror(-rc));
			__atomic_store_n(&app->life.quit, 1, __ATOMIC_RELAXED);
			ret = RPS_EXIT_RUNTIME;
		}
	}
	for (uint16_t r = 1; r < app->lc.nb_rx && ret == 0; r++) {
		rc = rte_eal_remote_launch(rps_rx_lcore_main, &app->lc.rx[r], app->lc.rx[r].self.lcore);
		if (rc != 0) {
			RPS_LOG(ERR, "cannot launch RX lcore %u: %s", app->lc.rx[r].self.lcore,
				rte_strerror(-rc));
			__atomic_store_n(&app->life.quit, 1, __ATOMIC_RELAXED);
			ret = RPS_EXIT_RUNTIME;
		}
	}
	if (rps_report_start(app) != 0)
		RPS_LOG(WARNING, "cannot start the live table thread");
	if (rps_control_start(app) != 0)
		RPS_LOG(WARNING, "cannot start the control thread: no reloads, no rates");
	if (rps_telemetry_register(app) != 0)
		RPS_LOG(WARNING, "cannot register the /rps/ telemetry commands");
	return ret;
}
