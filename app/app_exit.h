/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app_exit.h: the exit accounting part of the application context: what the exit path
 * found (stranded packets, workers and telemetry commands given up on, the ports' own
 * counters, the pool's use). Written on the main thread after RX stopped (workers_stuck by
 * the exit's wait for the workers, health.c, on that thread too), read by the summary and
 * teardown after, on the same thread.
 */
#ifndef RPS_APP_EXIT_H
#define RPS_APP_EXIT_H

#include <stdint.h>

#include <rte_ethdev.h>

#include "options.h"
#include "rps_counters.h"
#include "rps_port.h"

struct rps_app_exit {
	uint64_t stranded;             /* packets left to stalled workers at exit */
	uint64_t stranded_port[RPS_PORT_SLOTS]; /* ... by ingress port slot */
	int workers_stuck;             /* workers given up on at exit (health.c) */
	int tel_stuck;                 /* a telemetry command still ran at exit: nothing it may
					* read is freed (rps_telemetry_close()) */
	int64_t pool_in_use_at_exit;   /* -1 until measured after the ports are closed */
	struct rte_eth_stats port_stats; /* RX ports' own counters, summed, read at exit */
	struct rte_eth_stats rx_port_stats[RPS_RX_PORTS_MAX]; /* ... each of them */
};

#endif /* RPS_APP_EXIT_H */
