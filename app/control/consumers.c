/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * consumers.c: --consumers at run time. The control thread looks at each consumer's memif
 * link every tick (connected, reconnects: a client that connects again after the first);
 * a consumer's counters are the sums over the workers feeding it, each of which writes only
 * its own (its queue to the consumer's delivered, absent and full).
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
	const struct rps_consumer *k = &app->consumers[c];

	s->delivered = s->absent = s->full = 0;
	/* workers member, member + K, ... of its group, each with its queue to it */
	for (uint16_t w = k->member; w < app->nb_workers; w += app->group_size[k->group]) {
		const struct rps_txq *q = &app->workers[w].cons_txq[k->group];

		s->delivered += RPS_CTR_READ(q->delivered);
		s->absent += RPS_CTR_READ(q->absent);
		s->full += RPS_CTR_READ(q->full);
	}
}
