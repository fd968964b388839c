/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * snapshot.c: what the readers of the application context share (telemetry, metrics, the
 * live table and the exit summary): a copy of every counter (rps_snapshot_take()), and the
 * views of what the control thread keeps: rates, the buckets each worker owns, the uptime.
 * Any thread; nothing here writes the context.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "app.h"

struct rps_snapshot *
rps_snapshot_alloc(void)
{
	/* cache-aligned counters inside: calloc's 16-byte alignment is not enough */
	size_t sz = RTE_ALIGN_CEIL(sizeof(struct rps_snapshot), RTE_CACHE_LINE_SIZE);
	struct rps_snapshot *s = aligned_alloc(RTE_CACHE_LINE_SIZE, sz);

	if (s != NULL)
		memset(s, 0, sz);
	return s;
}

void
rps_snapshot_take(const struct rps_app *app, struct rps_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	s->nb_rx = app->lc.nb_rx;
	for (uint16_t r = 0; r < app->lc.nb_rx; r++) {
		s->rxl[r].lcore = app->lc.rx[r].self.lcore;
		rps_stats_read(&app->lc.rx[r].self.stats, &s->rxl[r].st);
		rps_stats_accumulate(&s->rx, &s->rxl[r].st);
	}
	rps_stats_accumulate(&s->total, &s->rx);
	if (app->lc.nb_workers == 0) {
		/* No steering: the RX lcore is the one worker. */
		s->nb = 1;
		s->w[0].lcore = app->io.rx_lcore;
		s->w[0].st = s->rx;
		return;
	}
	s->nb = app->lc.nb_workers;
	for (uint16_t i = 0; i < app->lc.nb_workers; i++) {
		s->w[i].lcore = app->lc.workers[i].lcore;
		rps_stats_read(&app->lc.workers[i].stats, &s->w[i].st);
		rps_stats_accumulate(&s->total, &s->w[i].st);
		/* its backlogs from every RX lcore: drops and depth summed, the deepest hwm */
		for (uint16_t r = 0; r < app->lc.nb_rx; r++) {
			const struct rps_backlog *b = rps_app_backlog(&app->lc, r, i);

			s->w[i].st.dropped[rps_backlog_full_reason(b)] +=
				RPS_CTR_READ(b->prod.full_drops);
			s->w[i].st.dropped[RPS_DROP_FLOW_LIMIT] += RPS_CTR_READ(b->prod.fl_drops);
			s->w[i].depth += rps_backlog_depth(b);
			s->w[i].hwm = RTE_MAX(s->w[i].hwm, RPS_CTR_READ(b->prod.hwm));
		}
	}
}

double
rps_view_uptime_s(const struct rps_app_life *life)
{
	return (double)(rte_rdtsc() - life->start_tsc) / (double)rte_get_tsc_hz();
}

uint64_t
rps_view_pps(const struct rps_app_ctl *ctl, unsigned int i)
{
	return ctl->pps != NULL ? __atomic_load_n(&ctl->pps[i], __ATOMIC_RELAXED) : 0;
}

void
rps_view_owned_add(const struct rps_app *app, uint16_t q, uint32_t *cnt)
{
	const struct rps_bucket_view *v = app->ctl.bview != NULL ? app->ctl.bview[q] : NULL;

	for (uint32_t b = 0; v != NULL && b < v->size; b++)
		if (v->owner[b] < app->lc.nb_workers)
			cnt[v->owner[b]]++;
}

void
rps_view_owned(const struct rps_app *app, uint32_t *cnt)
{
	memset(cnt, 0, RTE_MAX_LCORE * sizeof(*cnt));
	if (app->ctl.bview == NULL)
		return;
	rps_ctl_lock(&app->ctl);
	for (uint16_t q = 0; q < app->io.nb_rxq; q++)
		rps_view_owned_add(app, q, cnt);
	rps_ctl_unlock(&app->ctl);
}
