/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * consumers.c: --consumers at run time. The control thread looks at each consumer's memif
 * link every tick (connected, reconnects: a client that connects again after the first);
 * a consumer's counters are the sums over the workers feeding it, each of which writes only
 * its own (consumer_delivered, dropped consumer_absent and consumer_full).
 */
#include <rte_ethdev.h>

#include "app.h"

void
rps_consumers_tick(struct rps_app *app)
{
	for (uint16_t c = 0; c < app->nb_consumers; c++) {
		struct rps_consumer *cs = &app->consumers[c];
		struct rte_eth_link link;
		const int up = rte_eth_link_get_nowait(cs->port, &link) == 0 &&
			       link.link_status == RTE_ETH_LINK_UP;

		if (up == __atomic_load_n(&cs->up, __ATOMIC_RELAXED))
			continue;
		if (up)
			__atomic_store_n(&cs->connects, cs->connects + 1, __ATOMIC_RELAXED);
		__atomic_store_n(&cs->up, up, __ATOMIC_RELAXED);
		RPS_LOG(INFO, "consumer %u (%s): %s", c, cs->path, up ?
			(cs->connects > 1 ? "connected again" : "connected") : "disconnected");
	}
}

void
rps_consumer_stats(const struct rps_app *app, uint16_t c, struct rps_consumer_stats *s)
{
	s->delivered = s->absent = s->full = 0;
	for (uint16_t w = c; w < app->nb_workers; w += app->nb_consumers) {
		const struct rps_lcore_stats *st = &app->workers[w].stats;

		s->delivered += RPS_CTR_READ(st->consumer_delivered);
		s->absent += RPS_CTR_READ(st->dropped[RPS_DROP_CONSUMER_ABSENT]);
		s->full += RPS_CTR_READ(st->dropped[RPS_DROP_CONSUMER_FULL]);
	}
}
