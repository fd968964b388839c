/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * notify.c: saying when dpdk-rps is ready. Ready means: ports started, workers launched, the
 * control thread (reloads) running and the /rps/ telemetry commands registered; the RX loop
 * starts right after. Then: app->life.ready (read by /rps/info), a log line, and sd_notify()
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
	char status[192], ports[64];
	size_t pos = 0;

	/* "port 0", or "ports 0,1" with several --rx-port */
	for (uint16_t p = 0; p < app->opt.nb_rx_ports && pos < sizeof(ports); p++)
		pos += (size_t)snprintf(ports + pos, sizeof(ports) - pos, "%s%u", p ? "," : "",
					app->opt.rx_ports[p]);
	if (pos == 0)
		snprintf(ports, sizeof(ports), "%u", app->opt.rx_port);
	__atomic_store_n(&app->life.ready, 1, __ATOMIC_RELEASE);
	RPS_LOG(INFO, "ready: steering port%s %s over %u worker(s)",
		app->opt.nb_rx_ports > 1 ? "s" : "", ports, app->lc.nb_workers);
	snprintf(status, sizeof(status), "READY=1\nSTATUS=steering port%s %s over %u worker(s)",
		 app->opt.nb_rx_ports > 1 ? "s" : "", ports, app->lc.nb_workers);
	rps_notify(status);
}
