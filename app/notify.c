/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * notify.c: saying when dpdk-rps is ready. Ready means: ports started, workers launched, the
 * control thread (reloads) running and the /rps/ telemetry commands registered; the RX loop
 * starts right after. Then: app->ready (read by /rps/info), a log line, and sd_notify()
 * READY=1 for systemd Type=notify units (libsystemd, where the build found it; it does
 * nothing without $NOTIFY_SOCKET). STOPPING=1 when the RX loop ends.
 */
#include <stdio.h>
#include <stdlib.h>

#ifdef RPS_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "app.h"

void
rps_notify(const char *state)
{
#ifdef RPS_HAVE_SYSTEMD
	(void)sd_notify(0, state);
#else
	static int said;

	if (!said && getenv("NOTIFY_SOCKET") != NULL)
		RPS_LOG(WARNING, "$NOTIFY_SOCKET is set but dpdk-rps was built without libsystemd: "
			"no sd_notify(%s); use Type=simple or rebuild with libsystemd-dev", state);
	said = 1;
#endif
}

void
rps_ready(struct rps_app *app)
{
	char status[160];

	__atomic_store_n(&app->ready, 1, __ATOMIC_RELEASE);
	RPS_LOG(INFO, "ready: steering port %u over %u worker(s)", app->opt.rx_port,
		app->nb_workers);
	snprintf(status, sizeof(status), "READY=1\nSTATUS=steering port %u over %u worker(s)",
		 app->opt.rx_port, app->nb_workers);
	rps_notify(status);
}
