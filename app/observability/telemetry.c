/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * telemetry.c: the /rps/ commands on DPDK's telemetry socket (query them with
 * dpdk-telemetry.py): the one table that registers them all, and the guard that closes them
 * at exit. The commands live by what they serve: tel_lcores.c (info, stats, ports, workers),
 * tel_maps.c (map, buckets, rules), tel_flows.c and flow_lookup.c (flows, flow),
 * tel_consumers.c, tel_config.c; the reply writer they share is tel_out.c. Callbacks run on
 * DPDK's telemetry thread and read only counters (atomic 64-bit loads), the lcore sets
 * behind the maps (under app->ctl.lock, never the maps the RX lcore uses), and snapshots.
 * DPDK 22.11's callbacks take no user pointer, so the one application context is kept in a
 * file-level pointer set once at registration, and handed to each command const.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "app.h"
#include "tel.h"

static const struct rps_app *tel_app;
/* the one part a command writes: /rps/flows's ask (obs.flows_wanted_tsc) */
static struct rps_app_obs *tel_obs;

/* /rps/flows: the workers snapshot their flows while asked (tel_flows.c). */
static int
tel_flows(const struct rps_app *app, const char *params, struct rte_tel_data *d)
{
	return rps_tel_flows(app, &tel_obs->flows_wanted_tsc, params, d);
}

/* /rps/elephants: the same snapshots (tel_flows.c). */
static int
tel_elephants(const struct rps_app *app, const char *params, struct rte_tel_data *d)
{
	return rps_tel_elephants(app, &tel_obs->flows_wanted_tsc, params, d);
}

/* Where a flow goes (flow_lookup.c). */
static int
tel_flow(const struct rps_app *app, const char *params, struct rte_tel_data *d)
{
	return rps_tel_flow(app, params, d);
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
	tel_cmd_fn *fn;
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
	{ "/rps/elephants", tel_elephants, "Flows marked elephants (--elephant-rate), heaviest "
	  "first, 32 at most: lcore, tuple, rate_bps, bytes. No parameters" },
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
				rc = tel_cmds[i].fn(tel_app, params, d);
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
	tel_obs = &app->obs;
	for (unsigned int i = 0; i < RTE_DIM(tel_cmds); i++)
		if (rte_telemetry_register_cmd(tel_cmds[i].name, tel_guarded,
					       tel_cmds[i].help) != 0) {
			/* a help text of 128 characters or more is refused, for one */
			RPS_LOG(WARNING, "telemetry: cannot register %s", tel_cmds[i].name);
			rc = -1;
		}
	return rc;
}
