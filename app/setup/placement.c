/* SPDX-License-Identifier: BSD-3-Clause */
/* placement.c: where the RX lcores, the ports and the workers are, said once at start, with
 * a warning for every placement that makes packets or backlogs cross sockets. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numa.h>
#include <rte_eal.h>

#include "app.h"
#include "rps_numa.h"
#include "setup.h"

/* One processing lcore as EAL and libnuma see it (debug), and what is wrong with it.
 * @p sample: a piece of its own state, to ask the kernel where that really is. */
static void
check_lcore_numa(const struct rps_app_io *io, const struct rps_worker *w, const char *role,
		 const void *sample)
{
	char cpus[64];
	int eal = io->lcore_socket[w->lcore];
	int node = rps_numa_lcore_node(w->lcore, cpus, sizeof(cpus));
	int mem = sample != NULL ? rps_numa_addr_node(sample) : -ENOENT;
	int here = node >= 0 ? node : eal;

	RPS_LOG(DEBUG, "NUMA: %s lcore %u: cpus %s, EAL socket %d, libnuma node %d; state "
		"asked on socket %d, is on node %d", role, w->lcore, cpus, eal, node, w->socket,
		mem);
	if (node == -EXDEV)
		RPS_LOG(WARNING, "NUMA: %s lcore %u runs on cpus %s of more than one node, so its "
			"memory cannot be local to it: give it the CPUs of one node (--lcores)",
			role, w->lcore, cpus);
	else if (node >= 0 && eal >= 0 && node != eal)
		RPS_LOG(WARNING, "NUMA: %s lcore %u: EAL puts it on socket %d but libnuma puts its "
			"cpus %s on node %d; its state follows EAL", role, w->lcore, eal, cpus,
			node);
	else if (eal >= 0 && w->socket < 0)
		RPS_LOG(WARNING, "NUMA: %s lcore %u is on socket %d, where EAL has no memory "
			"(see --socket-mem): its state lives on another socket", role, w->lcore,
			eal);
	else if (here >= 0 && mem >= 0 && mem != here)
		RPS_LOG(WARNING, "NUMA: %s lcore %u is on node %d but its state is on node %d%s",
			role, w->lcore, here, mem, rte_eal_has_hugepages() ? "" :
			" (without hugepages DPDK cannot place memory by socket: the first thread "
			"to touch a page decides)");
}

/* Where the RX lcore, the port and the workers are, once at start; warnings for every
 * placement that makes packets or backlogs cross sockets. */
void
rps_setup_report_numa(const struct rps_app *app)
{
	char desc[256], where[32] = "an unknown socket";
	int rx = app->io.lcore_socket[app->io.rx_lcore], port = app->io.rx_port_socket;

	for (uint16_t r = 0; r < app->lc.nb_rx; r++)
		check_lcore_numa(&app->io, &app->lc.rx[r].self, "RX", app->lc.nb_workers > 0 ?
				 (const void *)app->lc.rx[r].steer.groups :
				 (const void *)app->lc.rx[r].self.ctx.flows);
	for (uint16_t i = 0; i < app->lc.nb_workers; i++)
		check_lcore_numa(&app->io, &app->lc.workers[i], "worker", app->lc.workers[i].backlog->ring);
	(void)rps_app_map_sockets(&app->io, &app->opt.map, NULL, desc, sizeof(desc));
	if (port >= 0)
		snprintf(where, sizeof(where), "socket %d", port);
	RPS_LOG(INFO, "NUMA: %d node(s); RX lcore %u on socket %d, port %u on %s; workers: %s",
		numa_available() < 0 ? 1 : numa_num_configured_nodes(), app->io.rx_lcore, rx,
		app->opt.rx_port, where, app->lc.nb_workers > 0 ? desc : "none");
	if (rx >= 0 && port >= 0 && rx != port)
		RPS_LOG(WARNING, "NUMA: RX lcore %u is on socket %d, its port %u on socket %d: "
			"every packet it steers crosses the interconnect; keep the RX lcore, its "
			"port and each map's workers on one socket", app->io.rx_lcore, rx,
			app->opt.rx_port, port);
	rps_app_maps_check_numa(app, app->ctl.map_sets, "start");
}
