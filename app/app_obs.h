/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app_obs.h: observability's own part of the application context: the live-table thread,
 * the metrics server, and what telemetry asks of the workers. The main thread starts and
 * stops the threads; flows_wanted_tsc is the telemetry thread's, loaded by the workers.
 */
#ifndef RPS_APP_OBS_H
#define RPS_APP_OBS_H

#include <pthread.h>
#include <stdint.h>

struct rps_metrics;

struct rps_app_obs {
	pthread_t report_thread;       /* the live table (report.c) */
	int report_running;
	struct rps_metrics *metrics;   /* --metrics: the HTTP server (metrics.c), NULL if off */
	char metrics_where[64];        /* the address it is bound to ("127.0.0.1:9100"), set
					* at start and kept until exit; "" when off */
	uint64_t flows_wanted_tsc;     /* last /rps/flows query (telemetry stores, workers load,
					* relaxed): workers snapshot only then, since a snapshot
					* walks the whole flow table */
};

#endif /* RPS_APP_OBS_H */
