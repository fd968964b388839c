/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tel_consumers.c: /rps/consumers (telemetry.c registers it): each consumer's group, socket,
 * workers, link and counters, summed over the workers that feed it. Telemetry thread,
 * read-only.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_telemetry.h>

#include "app.h"
#include "tel.h"

/* ---- /rps/consumers ---- */

/* Each consumer (--consumers): its group, socket, workers feeding it, connected, reconnects,
 * its clients by how they ended, delivered and drops by reason (the sums over the workers
 * feeding it). At their widest 16 consumers are about 16 * 640 bytes. */
static void
consumers_build(struct tel_out *o, const void *arg)
{
	const struct rps_app *app = arg;
	struct tel_out cs;
	char name[16], filter[RPS_FILTER_TEXT_MAX + 1];

	tel_u64(o, "nb_consumers", app->cons.nb_consumers);
	tel_open(o, &cs, RTE_TEL_CONTAINER);
	for (uint16_t i = 0; i < app->cons.nb_consumers; i++) {
		const struct rps_consumer *k = &app->cons.consumers[i];
		struct rps_consumer_stats st;
		struct tel_out c;

		rps_consumer_stats(app, i, &st);
		tel_open(&cs, &c, RTE_TEL_CONTAINER);
		tel_u64(&c, "group", k->group);
		tel_str(&c, "socket", k->path);
		tel_u64(&c, "workers", k->feeders);
		tel_int(&c, "connected", st.link.up);
		tel_u64(&c, "reconnects", st.link.connects > 0 ? st.link.connects - 1 : 0);
		tel_u64(&c, "clients_accepted", st.link.accepted);
		tel_u64(&c, "clients_connected", st.link.connects);
		tel_u64(&c, "clients_disconnected", st.link.disconnects);
		tel_u64(&c, "clients_refused", st.link.refused);
		tel_u64(&c, "clients_aborted", st.link.aborted);
		tel_u64(&c, "clients_timed_out", st.link.timeouts);
		tel_u64(&c, "clients_rejected", st.link.rejected);
		tel_u64(&c, "clients_broken", st.link.broken);
		tel_u64(&c, "kicks_drained", st.link.kicks_drained);
		tel_u64(&c, "delivered", st.delivered);
		tel_u64(&c, "dropped_consumer_absent", st.absent);
		tel_u64(&c, "dropped_consumer_full", st.full);
		tel_int(&c, "inline", app->opt.consumer_inline && k->group == 0);
		tel_u64(&c, "returned", st.returned);
		tel_u64(&c, "fail_open_consumer_absent", st.open_absent);
		tel_u64(&c, "fail_open_consumer_full", st.open_full);
		rps_app_filter_text(app, k->group, filter, sizeof(filter));
		tel_str(&c, "filter", filter);
		tel_u64(&c, "filtered", st.filtered);
		snprintf(name, sizeof(name), "%u", i);
		tel_close(&cs, name, &c);
	}
	tel_close(o, "consumers", &cs);
}

int
tel_consumers(const struct rps_app *app, const char *params, struct rte_tel_data *d)
{
	if (params != NULL && *params != '\0')
		return -EINVAL;
	return tel_reply(d, consumers_build, app);
}
