/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * health.c: stalled workers (--stall-timeout). A worker whose backlog holds packets while its
 * position (head) has not moved for the timeout is stalled: preempted for seconds, stuck in a
 * stage, a bug. The control thread (rps_health_tick(), every tick) then
 *   1. publishes maps in which each of its buckets goes to the healthy worker of the same
 *      queue's map with the fewest buckets (the normal publish path: RCU, a new generation);
 *   2. then marks its backlog failed, so the RX lcore's reorder-safe table lets those buckets
 *      leave at once instead of waiting for it to drain (each such move counted in
 *      failover_moves: the one case that may reorder a flow: its packets stranded in the
 *      stalled backlog are processed after newer ones, if ever). What is still steered to
 *      it from then on (packets already grouped, a bucket with nowhere to go) is dropped as
 *      backlog_full.
 * When its position moves again it is back; after a hold-down of twice the timeout (at least
 * a second) with no new stall, it gets the same buckets back by a normal reorder-safe move.
 * A worker still stalled at exit is given up on after the hold-down: the packets left in its
 * backlog are counted as dropped (stranded) and the process exits without joining it.
 *
 * Concurrency: all state here is the control thread's, except the counters and state that
 * telemetry and the summary read atomically (struct rps_health in app.h) and the backlog's
 * failed flag (rps_backlog_set_failed()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_pause.h>

#include "app.h"

/* Bucket not taken from a stalled worker. */
#define NOT_TAKEN UINT16_MAX

static uint64_t
ms_tsc(uint64_t ms)
{
	return ms * rte_get_tsc_hz() / 1000;
}

/* Hold-down before a worker that came back gets its buckets back, and the grace a stalled
 * worker gets at exit: twice the timeout, at least a second. */
static uint64_t
holddown_tsc(const struct rps_app *app)
{
	return ms_tsc(RTE_MAX(2ull * app->opt.stall_timeout_ms, 1000ull));
}

int
rps_health_init(struct rps_app *app)
{
	if (app->lc.nb_workers == 0 || app->opt.stall_timeout_ms == 0)
		return 0;
	app->ctl.taken_from = calloc(app->io.nb_rxq, sizeof(*app->ctl.taken_from));
	if (app->ctl.taken_from == NULL)
		return -ENOMEM;
	for (uint16_t q = 0; q < app->io.nb_rxq; q++)
		for (uint32_t i = 0; i < RPS_MAP_SIZE_MAX; i++)
			app->ctl.taken_from[q][i] = NOT_TAKEN;
	return 0;
}

void
rps_health_fini(struct rps_app_ctl *ctl)
{
	free(ctl->taken_from);
	ctl->taken_from = NULL;
}

static int
is_failed(const struct rps_app_lcores *lc, uint16_t w)
{
	return __atomic_load_n(&lc->workers[w].health.state, __ATOMIC_RELAXED) ==
	       RPS_HEALTH_STALLED;
}

void
rps_health_adjust(const struct rps_app *app, uint16_t q, const struct rps_lcoreset *set,
		  uint16_t *owner, uint32_t size, int fresh)
{
	uint32_t count[RTE_MAX_LCORE] = { 0 };
	int healthy = 0;

	if (app->ctl.taken_from == NULL)
		return;
	if (fresh) /* a table rebuilt from the configuration: nothing in it was taken */
		for (uint32_t i = 0; i < RPS_MAP_SIZE_MAX; i++)
			app->ctl.taken_from[q][i] = NOT_TAKEN;
	for (uint16_t w = 0; w < app->lc.nb_workers; w++)
		if (!is_failed(&app->lc, w) && rps_lcoreset_weight(set, app->lc.workers[w].lcore) != 0)
			healthy = 1;
	if (!healthy)
		return; /* every worker of this queue is stalled: nowhere to go */
	for (uint32_t i = 0; i < size; i++)
		count[owner[i]]++;
	for (uint32_t i = 0; i < size; i++) {
		uint16_t from = owner[i], best = UINT16_MAX;

		if (!is_failed(&app->lc, from))
			continue;
		for (uint16_t w = 0; w < app->lc.nb_workers; w++)
			if (!is_failed(&app->lc, w) && rps_lcoreset_weight(set, app->lc.workers[w].lcore) &&
			    (best == UINT16_MAX || count[w] < count[best]))
				best = w;
		owner[i] = best;
		count[best]++;
		count[from]--;
		app->ctl.taken_from[q][i] = from;
	}
}

/* Publish the current tables with @p w's buckets moved away (@p back == 0) or returned. */
static void
republish(struct rps_app *app, uint16_t w, int back)
{
	uint16_t (*owner)[RPS_MAP_SIZE_MAX] = calloc(app->io.nb_rxq, sizeof(*owner));
	uint32_t changed = 0;

	if (owner == NULL) {
		RPS_LOG(ERR, "health: out of memory: worker %u's buckets not %s",
			app->lc.workers[w].lcore, back ? "returned" : "moved");
		return;
	}
	pthread_mutex_lock(&app->ctl.lock);
	for (uint16_t q = 0; q < app->io.nb_rxq; q++) {
		const struct rps_bucket_view *v = app->ctl.bview[q];

		memcpy(owner[q], v->owner, sizeof(owner[q]));
		if (!back) {
			uint16_t before[RPS_MAP_SIZE_MAX];

			memcpy(before, owner[q], v->size * sizeof(before[0]));
			rps_health_adjust(app, q, &app->ctl.map_sets[q], owner[q], v->size, 0);
			changed += memcmp(before, owner[q], v->size * sizeof(before[0])) != 0;
			continue;
		}
		for (uint32_t i = 0; i < v->size; i++)
			if (app->ctl.taken_from[q][i] == w) {
				app->ctl.taken_from[q][i] = NOT_TAKEN;
				if (rps_lcoreset_weight(&app->ctl.map_sets[q], app->lc.workers[w].lcore)) {
					owner[q][i] = w;
					changed++;
				}
			}
	}
	pthread_mutex_unlock(&app->ctl.lock);
	if (changed != 0 && rps_buckets_publish_owners(app, owner) < 0)
		RPS_LOG(ERR, "health: out of memory: worker %u's buckets not %s",
			app->lc.workers[w].lcore, back ? "returned" : "moved");
	else if (changed != 0)
		RPS_LOG(WARNING, "health: worker lcore %u's buckets %s (generation %u)",
			app->lc.workers[w].lcore, back ? "returned to it" : "moved to healthy workers",
			app->ctl.generation);
	free(owner);
}

void
rps_health_tick(struct rps_app *app, uint64_t now)
{
	const uint64_t timeout = ms_tsc(app->opt.stall_timeout_ms);

	if (app->ctl.taken_from == NULL)
		return;
	for (uint16_t w = 0; w < app->lc.nb_workers; w++) {
		struct rps_worker *wk = &app->lc.workers[w];
		struct rps_health *h = &wk->health;
		struct rps_backlog_in *in = &wk->in; /* its backlogs, one per RX lcore */
		uint64_t head = rps_backlog_in_head(in);
		int state = h->state;

		if (head != h->last_head || rps_backlog_in_depth(in) == 0) {
			/* progress, or nothing to do: not stalled */
			h->last_head = head;
			h->still_since = now;
			if (state == RPS_HEALTH_STALLED) {
				rps_backlog_in_set_failed(in, 0);
				__atomic_store_n(&h->state, RPS_HEALTH_RECOVERING, __ATOMIC_RELAXED);
				__atomic_store_n(&h->recoveries, h->recoveries + 1, __ATOMIC_RELAXED);
				h->back_since = now;
				RPS_LOG(WARNING, "health: worker lcore %u is back after %.3f s",
					wk->lcore, (double)(now - h->stalled_since) /
					(double)rte_get_tsc_hz());
			} else if (state == RPS_HEALTH_RECOVERING &&
				   now - h->back_since >= holddown_tsc(app)) {
				__atomic_store_n(&h->state, RPS_HEALTH_OK, __ATOMIC_RELAXED);
				republish(app, w, 1);
			}
			continue;
		}
		if (state == RPS_HEALTH_STALLED || now - h->still_since < timeout)
			continue;
		/* stalled: failover */
		h->stalled_since = now;
		__atomic_store_n(&h->state, RPS_HEALTH_STALLED, __ATOMIC_RELAXED);
		__atomic_store_n(&h->stalls, h->stalls + 1, __ATOMIC_RELAXED);
		/* The new owners first, then the flag: from the flag on, whatever is steered to
		 * the stalled worker is dropped (backlog_full), so the moves must already be in
		 * place for the flag to let them happen at once. The other way round, everything
		 * its buckets received during the publish (an RCU wait) was dropped. */
		republish(app, w, 0);
		rps_backlog_in_set_failed(in, 1);
		RPS_LOG(WARNING, "health: worker lcore %u stalled: %" PRIu64 " packet(s) waiting, "
			"position unchanged for %u ms", wk->lcore, rps_backlog_in_depth(in),
			app->opt.stall_timeout_ms);
	}
}

const char *
rps_health_name(int state)
{
	switch (state) {
	case RPS_HEALTH_OK:
		return "ok";
	case RPS_HEALTH_STALLED:
		return "stalled";
	case RPS_HEALTH_RECOVERING:
		return "recovering";
	}
	return "?";
}

/* How long the exit waits for workers that are not stalled (health) but have not finished:
 * a report of each one's progress every second, then it gives up on them. (The test hook
 * RPS_TEST_EXIT_WAIT_S makes it shorter.) */
#define EXIT_WAIT_S 10

int
rps_health_wait_workers(struct rps_app *app)
{
	const uint64_t hz = rte_get_tsc_hz(), start = rte_rdtsc();
	const unsigned int exit_wait = rps_test_exit_wait_s(EXIT_WAIT_S);
	uint64_t given_up_at = 0, next_report = start + hz;
	uint64_t last_head[RTE_MAX_LCORE];
	int give_up = 0;

	for (uint16_t w = 0; w < app->lc.nb_workers; w++)
		last_head[w] = rps_backlog_in_head(&app->lc.workers[w].in); /* over its rings */
	for (;;) {
		int running = 0, stuck = 0;
		uint64_t now = rte_rdtsc();

		/* a worker waiting for a full consumer (backpressure) has a second more, then
		 * drops what is left for it as consumer_full and finishes */
		if (now - start >= hz)
			__atomic_store_n(&app->life.consumers_stop, 1, __ATOMIC_RELAXED);
		for (uint16_t w = 0; w < app->lc.nb_workers; w++) {
			const struct rps_health *h = &app->lc.workers[w].health;

			if (rte_eal_get_lcore_state(app->lc.workers[w].lcore) != RUNNING)
				continue;
			running++;
			if (__atomic_load_n(&h->state, __ATOMIC_RELAXED) == RPS_HEALTH_STALLED)
				stuck++;
		}
		if (running == 0) {
			rte_eal_mp_wait_lcore(); /* reap: every worker is back in WAIT */
			return 0;
		}
		/* give up only when every worker still running is stalled, for the hold-down */
		if (stuck != running || app->ctl.taken_from == NULL)
			given_up_at = 0;
		else if (given_up_at == 0)
			given_up_at = now + holddown_tsc(app);
		else if (now >= given_up_at)
			break;
		/* A worker that keeps running after the stop without being stalled (its
		 * backlog should empty in milliseconds): say what it does, once a second,
		 * and after exit_wait s give up on it, so that a stop always ends. */
		if (now >= next_report) {
			const unsigned int waited = (unsigned int)((now - start) / hz);

			for (uint16_t w = 0; w < app->lc.nb_workers; w++) {
				const struct rps_worker *wk = &app->lc.workers[w];
				const uint64_t head = rps_backlog_in_head(&wk->in);

				if (rte_eal_get_lcore_state(wk->lcore) != RUNNING)
					continue;
				RPS_LOG(WARNING, "exit: worker lcore %u still running %u s after the "
					"stop: %" PRIu64 " packet(s) in its backlog, %" PRIu64
					" processed in the last second, health %s", wk->lcore, waited,
					rps_backlog_in_depth(&wk->in), head - last_head[w],
					rps_health_name(__atomic_load_n(&wk->health.state,
									__ATOMIC_RELAXED)));
				last_head[w] = head;
			}
			next_report = now + hz;
			if (waited >= exit_wait) {
				give_up = 1;
				break;
			}
		}
		rte_delay_us_sleep(1000);
	}
	for (uint16_t w = 0; w < app->lc.nb_workers; w++) {
		struct rps_worker *wk = &app->lc.workers[w];

		if (rte_eal_get_lcore_state(wk->lcore) != RUNNING)
			continue;
		wk->stuck = 1;
		app->exit.workers_stuck++;
		/* it dequeues nothing: what its rings hold never leaves it */
		unsigned int left = 0;

		for (uint16_t r = 0; r < wk->in.nb; r++)
			left += rps_backlog_count_ports(wk->in.b[r], &wk->stats,
							app->exit.stranded_port);
		app->exit.stranded += left;
		if (give_up)
			RPS_LOG(ERR, "health: worker lcore %u still running %u s after the stop at "
				"exit: %u packet(s) stranded in its backlog", wk->lcore, exit_wait, left);
		else
			RPS_LOG(ERR, "health: worker lcore %u still stalled at exit: %u packet(s) "
				"stranded in its backlog", wk->lcore, left);
	}
	return -EBUSY;
}
