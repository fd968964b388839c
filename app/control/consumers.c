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
	s->returned = s->open_absent = s->open_full = s->filtered = 0;
	/* workers member, member + K, ... of its group, each with its queue to it (inline:
	 * one per direction besides) */
	for (uint16_t w = k->member; w < app->lc.nb_workers; w += app->cons.group_size[k->group]) {
		const struct rps_worker *wk = &app->lc.workers[w];
		const struct rps_txq *q = &wk->cons_txq[k->group];

		s->delivered += RPS_CTR_READ(q->delivered);
		s->absent += RPS_CTR_READ(q->absent);
		s->full += RPS_CTR_READ(q->full);
		s->filtered += RPS_CTR_READ(q->filtered);
		for (uint16_t d = 0; k->group == 0 && d < wk->nb_inl; d++) {
			q = &wk->inl_txq[d];
			s->delivered += RPS_CTR_READ(q->delivered);
			s->absent += RPS_CTR_READ(q->absent);
			s->full += RPS_CTR_READ(q->full);
			s->returned += RPS_CTR_READ(q->returned);
			s->open_absent += RPS_CTR_READ(q->open_absent);
			s->open_full += RPS_CTR_READ(q->open_full);
			s->filtered += RPS_CTR_READ(q->filtered); /* --tx-port: group 0's */
		}
	}
	if (k->memif != NULL)
		rps_memif_stats_get(k->memif, &s->link);
	else
		s->link = k->last;
}
