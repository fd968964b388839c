/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rx_loop.c: the RX lcore. Poll every RX queue of the port, steer each burst through that
 * queue's map onto the workers' backlogs (or process it here when the map is empty), and
 * decide when to stop: signal, --duration, or --exit-when-idle.
 */
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_pause.h>

#include "app.h"
#include "rps_idle.h"

/* True once every backlog has been processed up to what was enqueued. */
static int
backlogs_empty(const struct rps_app *app)
{
	/* a stalled worker's backlog may never empty: the exit gives up on it (health.c) */
	for (uint16_t w = 0; w < app->nb_workers; w++)
		if (rps_backlog_depth(&app->backlogs[w]) != 0 &&
		    !rps_backlog_failed(&app->backlogs[w]))
			return 0;
	return 1;
}

/* At the end, packets still held for full backlogs (backpressure) go as the workers make
 * room; those a worker has not taken after twice the stall timeout (at least a second) of no
 * progress are dropped as backlog_full. */
static void
place_held(struct rps_app *app)
{
	const uint64_t wait = (uint64_t)RTE_MAX(2ull * app->opt.stall_timeout_ms, 1000ull) *
			      rte_get_tsc_hz() / 1000;
	uint64_t last = rte_rdtsc();
	uint32_t held = rps_steer_held(&app->steer);

	while (held != 0) {
		uint32_t now_held = rps_steer_flush(&app->steer);
		uint64_t now = rte_rdtsc();

		if (now_held < held)
			last = now;
		else if (now - last >= wait)
			break;
		held = now_held;
		rte_pause();
	}
	if (held != 0) {
		RPS_LOG(WARNING, "exit: %u packet(s) held for full backlogs dropped", held);
		rps_steer_drop_held(&app->steer);
	}
}

void
rps_rx_main(struct rps_app *app)
{
	struct rte_mbuf *pkts[RPS_BURST_MAX];
	struct rps_lcore_stats *st = &app->self.stats;
	const uint16_t port = app->opt.rx_port, burst = app->opt.burst;
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t idle_ticks = (uint64_t)app->opt.exit_when_idle * hz / 1000;
	const uint64_t deadline = app->opt.duration > 0 ?
		app->start_tsc + (uint64_t)(app->opt.duration * (double)hz) : UINT64_MAX;
	uint64_t idle_since = 0;
	struct rps_idle backoff;
	const uint16_t nb_poll = rps_test_rx_queues(app); /* nb_rxq but in fault tests */

	rps_idle_init(&backoff, app->opt.idle_spin_us, app->opt.idle_sleep_us, hz);
	rps_idle_thread_init();
	rte_rcu_qsbr_thread_online(app->qsbr, 0);
	rte_rcu_qsbr_thread_online(app->cap_qsbr, 0);
	while (!__atomic_load_n(&app->quit, __ATOMIC_RELAXED)) {
		uint32_t got = 0;
		uint16_t nb_queues;
		int paused = 0;
		uint64_t now;

		/* backpressure: packets held for a full backlog go first; until they have all
		 * been placed nothing more is taken from the port */
		if (unlikely(rps_steer_held(&app->steer) != 0) &&
		    rps_steer_flush(&app->steer) != 0) {
			RPS_CTR_ADD(st->rx_paused, 1);
			paused = 1; /* not idle, not busy: waiting on a worker */
			nb_queues = 0;
		} else {
			nb_queues = nb_poll;
		}
#ifdef RPS_TEST_HOOKS
		if (unlikely(__atomic_load_n(&app->test_rx_hold, __ATOMIC_RELAXED)))
			nb_queues = 0; /* the offered load fell (test_hooks.c) */
#endif
		for (uint16_t q = 0; q < nb_queues; q++) {
			const struct rps_map *map;
			struct rps_buckets *bk;
			uint16_t n;

			if (unlikely(rps_steer_held(&app->steer) != 0))
				break; /* a queue's burst filled a backlog: the rest wait */
			n = rte_eth_rx_burst(port, q, pkts, burst);

			if (n == 0)
				continue;
			got += n;
			RPS_CTR_ADD(st->rx_packets, n);
#ifdef RPS_TEST_HOOKS
			if (unlikely(app->test_rx_delay_tsc != 0)) /* a paced source (test_hooks.c) */
				rps_test_spin(app->test_rx_delay_tsc * n);
			if (unlikely(app->test_rx_gap_every != 0)) /* a source with silences */
				rps_test_rx_gap(app, n);
#endif
			n = rps_steer_sanitize(pkts, n, st);
			map = __atomic_load_n(&app->maps[q], __ATOMIC_ACQUIRE);
			app->steer.flow_limit = __atomic_load_n(&app->flow_limit, __ATOMIC_RELAXED);
			if (map->nb_workers == 0) {
				rps_process_burst(&app->self, pkts, n);
				continue;
			}
			app->steer.queue = q;
			bk = app->buckets[q];
			if (!__atomic_load_n(&app->reorder_safe, __ATOMIC_RELAXED)) {
				/* off: steer without the table, but keep it where packets go */
				rps_buckets_follow(bk, map);
				bk = NULL;
			}
			rps_steer_burst(&app->steer, map, bk, app->bstats[q], pkts, n);
		}
		if (app->nb_workers == 0)
			rps_process_idle(&app->self);
		/* No map pointer is held across this point. */
		rte_rcu_qsbr_quiescent(app->qsbr, 0);
		rte_rcu_qsbr_quiescent(app->cap_qsbr, 0); /* nor is any ethdev callback running */
		RPS_CTR_ADD(st->polls, 1);
		now = rte_rdtsc();
		if (got != 0) {
			RPS_CTR_ADD(st->busy_polls, 1);
			idle_since = 0;
		} else if (paused) {
			idle_since = 0;
			rte_pause();
			if (now >= deadline)
				break;
			continue;
		} else if (idle_ticks != 0) {
			if (idle_since == 0)
				idle_since = now;
			else if (now - idle_since >= idle_ticks && backlogs_empty(app))
				break;
		}
		if (now >= deadline)
			break;
		/* An idle port: sleep between polls (no map pointer is held here). */
		if (rps_idle_poll(&backoff, got != 0, now, NULL, hz))
			RPS_CTR_ADD(st->idle_sleeps, 1);
	}
	rte_rcu_qsbr_thread_offline(app->qsbr, 0);
	rte_rcu_qsbr_thread_offline(app->cap_qsbr, 0);
	place_held(app);
	app->stop_tsc = rte_rdtsc();
	/* Everything enqueued so far happens-before this store: a worker that sees it and
	 * then finds its ring empty has seen every packet. */
	__atomic_store_n(&app->rx_done, 1, __ATOMIC_RELEASE);
}
