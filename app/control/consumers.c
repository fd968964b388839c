/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * consumers.c: --consumers at run time: a consumer's counters, the sums over the workers
 * feeding it (each writes only its own: its queue's delivered, absent and full) and its
 * endpoint's (the memif server's thread writes those: connected, clients, refusals).
 */
#include "app.h"

void
rps_consumer_stats(const struct rps_app *app, uint16_t c, struct rps_consumer_stats *s)
{
	const struct rps_consumer *k = &app->cons.consumers[c];

	s->delivered = s->absent = s->full = 0;
	/* workers member, member + K, ... of its group, each with its queue to it */
	for (uint16_t w = k->member; w < app->lc.nb_workers; w += app->cons.group_size[k->group]) {
		const struct rps_txq *q = &app->lc.workers[w].cons_txq[k->group];

		s->delivered += RPS_CTR_READ(q->delivered);
		s->absent += RPS_CTR_READ(q->absent);
		s->full += RPS_CTR_READ(q->full);
	}
	if (k->memif != NULL)
		rps_memif_stats_get(k->memif, &s->link);
	else
		s->link = k->last;
}
