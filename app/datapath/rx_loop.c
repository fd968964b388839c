/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rx_loop.c: the RX lcores. Each polls its (port, queue) pairs, steers each burst through that
 * queue's map onto its own backlog of each worker (or processes it here when the map is
 * empty); RX lcore 0 decides when they all stop: signal, --duration, or --exit-when-idle.
 */
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_pause.h>

#include "app.h"
#include "rps_idle.h"

/* True once every backlog has been processed up to what was enqueued. */
static int
backlogs_empty(const struct rps_app_lcores *lc)
{
	/* a stalled worker's backlog may never empty: the exit gives up on it (health.c) */
	for (uint32_t i = 0; i < (uint32_t)lc->nb_rx * lc->nb_workers; i++)
		if (rps_backlog_depth(&lc->backlogs[i]) != 0 &&
		    !rps_backlog_failed(&lc->backlogs[i]))
			return 0;
	return 1;
}

/* --recycle-mbufs: free what this RX lcore's workers handed back into its own mempool cache,
 * where its next RX burst finds them; at most two bursts per worker a loop. */
static void
reclaim(struct rps_app *app, struct rps_rx_lcore *rx, uint16_t burst)
{
	struct rte_mbuf *m[RPS_BURST_MAX];

	for (uint16_t i = 0; i < app->lc.nb_workers; i++) {
		struct rps_backlog *b = rps_app_backlog(&app->lc, rx->index, i);
		uint32_t n = rps_backlog_reclaim(b, m, RTE_MIN(2u * burst,
							       (uint32_t)RPS_BURST_MAX));

		if (n != 0)
			rte_pktmbuf_free_bulk(m, n);
	}
}

/*
 * --exit-when-idle: every RX lcore has been idle for @p idle_ticks at @p now, and says so
 * itself: its last busy loop is that old and it has polled its queues and found them empty
 * since, within that window. A descheduled RX lcore (lcores sharing a CPU) never reported
 * its queues empty, so the others do not stop it while its queues still hold packets.
 */
static int
all_idle(const struct rps_app_lcores *lc, uint64_t now, uint64_t idle_ticks)
{
	for (uint16_t r = 0; r < lc->nb_rx; r++) {
		const uint64_t busy = __atomic_load_n(&lc->rx[r].busy_tsc, __ATOMIC_RELAXED);
		const uint64_t empty = __atomic_load_n(&lc->rx[r].empty_tsc, __ATOMIC_RELAXED);

		if (now - busy < idle_ticks || empty <= busy || now - empty >= idle_ticks)
			return 0;
	}
	return 1;
}

/* At the end, packets still held for full backlogs (backpressure) go as the workers make
 * room; those a worker has not taken after twice the stall timeout (at least a second) of no
 * progress are dropped as backlog_full. */
static void
place_held(struct rps_app *app, struct rps_steer_ctx *steer)
{
	const uint64_t wait = (uint64_t)RTE_MAX(2ull * app->opt.stall_timeout_ms, 1000ull) *
			      rte_get_tsc_hz() / 1000;
	uint64_t last = rte_rdtsc();
	uint32_t held = rps_steer_held(steer);

	while (held != 0) {
		uint32_t now_held = rps_steer_flush(steer);
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
		rps_steer_drop_held(steer);
	}
}

/* net_rps_action(): after a poll that queued packets, wake each sleeping worker it queued
 * to, one kick each however many of its queues' bursts went there (rps_wake.h). */
static void
wake_workers(struct rps_steer_ctx *steer, struct rps_lcore_stats *st)
{
	if (steer->backlogs[0].wake == NULL)
		return; /* --idle-sleep 0: workers never sleep */
	rps_wake_fence(); /* after this poll's enqueues, before reading who sleeps */
	for (uint16_t w = 0; w < steer->nb_workers; w++) {
		int r = rps_backlog_kick(&steer->backlogs[w]);

		if (r == RPS_KICK_WOKEN)
			RPS_CTR_ADD(st->wakeups, 1);
		else if (r == RPS_KICK_COALESCED)
			RPS_CTR_ADD(st->wakeups_coalesced, 1);
	}
}

/*
 * A drain of this RX lcore's backlogs (new rules, a move that waited too long): the point
 * each worker must process past, where drain_start() finds its backlog's tail; drained()
 * once every worker has (one marked failed is not waited for, as a failover). While a drain
 * is on the RX lcore enqueues nothing, so the tails stay where they were: two reasons for a
 * drain at once share the one mark.
 */
static void
drain_start(struct rps_app *app, struct rps_rx_lcore *rx)
{
	for (uint16_t w = 0; w < app->lc.nb_workers; w++)
		rx->drain_tail[w] = rps_app_backlog(&app->lc, rx->index, w)->prod.tail;
}

static int
drained(struct rps_app *app, const struct rps_rx_lcore *rx)
{
	for (uint16_t w = 0; w < app->lc.nb_workers; w++) {
		const struct rps_backlog *b = rps_app_backlog(&app->lc, rx->index, w);

		if (!rps_backlog_passed(b, rx->drain_tail[w], 0) && !rps_backlog_failed(b))
			return 0;
	}
	return 1;
}

/*
 * New steering rules (a reload) move the flows whose target they change, all at once: the
 * remap rule of the buckets (rps_steer.h) for every flow. Nothing is steered by them until
 * each worker has processed past what this RX lcore had enqueued to it when it first saw
 * them (rps_backlog_passed(), the moves' test; a worker marked failed is not waited for, as
 * a failover), so no flow has a new packet processed before its old ones. Meanwhile the RX
 * lcore takes nothing from its queues (the packets wait in the NIC), a drain of the
 * backlogs, once per reload. The new set's hits count from here (rule_base); each rule's
 * count since start goes on in its slot.
 * @return 1 when @p rs (NULL: none) is the set to steer by, 0 while the workers drain.
 */
static int
rules_take(struct rps_app *app, struct rps_rx_lcore *rx, const struct rps_rules *rs)
{
	const uint32_t gen = rs != NULL ? rs->generation : 0;

	if (likely(gen == rx->rules_gen))
		return 1;
	if (rx->rules_wait_gen != gen) { /* first look at it: where the old ones end */
		drain_start(app, rx);
		rx->rules_wait_gen = gen;
	}
	if (!drained(app, rx))
		return 0;
	/* the set's hits start here: a sequence count for rps_app_rule_hits() */
	__atomic_store_n(&rx->rules_gen, 0, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (uint16_t i = 0; rs != NULL && i < rs->nb_rules; i++)
		__atomic_store_n(&rx->rule_base[i], rx->rule_hits[rs->slot[i]], __ATOMIC_RELAXED);
	__atomic_store_n(&rx->rules_gen, gen, __ATOMIC_RELEASE);
	return 1;
}

/*
 * A bucket moves off its old worker once that worker has processed the bucket's last packet
 * (rps_steer.h); until then its packets still go there. A worker that never catches up (its
 * backlog always deep: overloaded, or paced by backpressure at its own rate) always has one
 * of the bucket's packets still to do, and the move waits for ever: a livelock that a map
 * change under sustained overload showed. So when moves have been deferred for every loop
 * over RPS_MOVE_WAIT_MS with the same maps (a map that keeps changing, a storm of reloads,
 * defers new moves all the time while the older ones complete: no drain for that), the RX
 * lcore takes nothing from its queues until each worker has
 * processed what it had enqueued to it (the drain of new rules, rules_take()); then every
 * deferred bucket's last packet is done and its next packet moves. Under overload this costs
 * a pause of one backlog's worth of work per stuck move; order holds as for any move.
 * @return 1 when no drain is on (or it just ended), 0 while the workers drain.
 */
#define RPS_MOVE_WAIT_MS 50u
static int
moves_drained(struct rps_app *app, struct rps_rx_lcore *rx)
{
	if (likely(!rx->move_drain))
		return 1;
	if (!drained(app, rx))
		return 0;
	rx->move_drain = 0;
	return 1;
}

/* After a loop that took packets: start a drain when its moves have waited too long. */
static void
moves_check(struct rps_app *app, struct rps_rx_lcore *rx, uint64_t deferred, uint64_t now,
	    uint64_t wait)
{
	if (deferred == 0) {
		rx->defer_tsc = 0;
		return;
	}
	if (rx->defer_tsc == 0) {
		rx->defer_tsc = now;
		return;
	}
	if (now - rx->defer_tsc < wait)
		return;
	drain_start(app, rx);
	rx->move_drain = 1;
	rx->defer_tsc = 0;
	RPS_CTR_ADD(rx->self.stats.move_drains, 1);
}

/* One RX lcore's loop: poll its (port, queue) pairs until a stop. RX lcore 0 also decides
 * when every RX lcore stops (--exit-when-idle, --duration) and tells the others (rx_stop). */
static void
rx_loop(struct rps_app *app, struct rps_rx_lcore *rx)
{
	struct rte_mbuf *pkts[RPS_BURST_MAX];
	struct rps_lcore_stats *st = &rx->self.stats;
	struct rps_steer_ctx *steer = &rx->steer;
	const uint16_t burst = app->opt.burst;
	const unsigned int tid = rx->index; /* its QSBR thread id */
	const int first = rx->index == 0;
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t idle_ticks = (uint64_t)app->opt.exit_when_idle * hz / 1000;
	const uint64_t deadline = app->opt.duration > 0 ?
		app->life.start_tsc + (uint64_t)(app->opt.duration * (double)hz) : UINT64_MAX;
	struct rps_idle backoff;
	const uint16_t nb_poll = rps_test_rx_queues(&app->io); /* nb_rxq but in fault tests */
	/* with consumers in the path a move also waits for what the old worker's consumer
	 * holds (RPS_INLINE_HOLD_MS at most): the drain only past that */
	const uint64_t move_wait = (uint64_t)(RPS_MOVE_WAIT_MS + (app->cons.nb_consumers != 0 &&
					      app->opt.consumer_inline ? RPS_INLINE_HOLD_MS : 0)) *
				   hz / 1000;

	rps_idle_init(&backoff, app->opt.idle_spin_us, app->opt.idle_sleep_us, hz);
	rps_idle_thread_init();
	__atomic_store_n(&rx->self.tid, rte_sys_gettid(), __ATOMIC_RELAXED);
	/* asleep on RX interrupts when idle, where every queue of it has one (rx_intr.c) */
	const int intr = rps_rx_intr_arm(app, rx);
	/* the longest such sleep: the exit's idle check and --duration still run in time (half
	 * the idle time: an RX lcore asleep still shows a recent empty poll to all_idle()) */
	const int intr_ms = idle_ticks != 0 ?
		(int)RTE_MAX(1u, RTE_MIN(app->opt.exit_when_idle / 2, 100u)) : 100;
	__atomic_store_n(&rx->busy_tsc, rte_rdtsc(), __ATOMIC_RELAXED);
	rte_rcu_qsbr_thread_online(app->steer.qsbr, tid);
	rte_rcu_qsbr_thread_online(app->io.cap_qsbr, tid);
	steer->rule_hits = rx->rule_hits;
	while (!__atomic_load_n(&app->life.quit, __ATOMIC_RELAXED) &&
	       !__atomic_load_n(&app->life.rx_stop, __ATOMIC_RELAXED)) {
		/* the rules of this loop (RCU: not held past its quiescent state) */
		const struct rps_rules *rules = __atomic_load_n(&app->steer.rules, __ATOMIC_ACQUIRE);
		/* its own count: what this loop's bursts deferred */
		const uint64_t deferred0 = __atomic_load_n(&st->migrations_deferred,
							   __ATOMIC_RELAXED);
		uint32_t got = 0;
		uint16_t nb_queues;
		int paused = 0;
		uint64_t now;

		if (app->opt.recycle)
			reclaim(app, rx, burst);
		/* backpressure: packets held for a full backlog go first; until they have all
		 * been placed nothing more is taken from the port */
		if (unlikely(rps_steer_held(steer) != 0) && rps_steer_flush(steer) != 0) {
			RPS_CTR_ADD(st->rx_paused, 1);
			paused = 1; /* not idle, not busy: waiting on a worker */
			nb_queues = 0;
		} else if (unlikely(!rules_take(app, rx, rules))) {
			RPS_CTR_ADD(st->rules_swap_waits, 1);
			paused = 1; /* new rules: the workers drain what the old ones steered */
			nb_queues = 0;
		} else if (unlikely(!moves_drained(app, rx))) {
			paused = 1; /* a move waited too long: the workers drain (moves_check()) */
			nb_queues = 0;
		} else {
			nb_queues = rx->nb_queues;
		}
#ifdef RPS_TEST_HOOKS
		if (unlikely(__atomic_load_n(&app->test.rx_hold, __ATOMIC_RELAXED)))
			nb_queues = 0; /* the offered load fell (test_hooks.c) */
#endif
		for (uint16_t k = 0; k < nb_queues; k++) {
			const uint16_t q = rx->queues[k];
			const struct rps_map *map;
			struct rps_buckets *bk;
			uint16_t n;

			if (unlikely(q >= nb_poll))
				continue; /* a fault test polls fewer queues */
			if (unlikely(rps_steer_held(steer) != 0))
				break; /* a queue's burst filled a backlog: the rest wait */
			n = rte_eth_rx_burst(app->io.rxq_port[q], app->io.rxq_queue[q], pkts, burst);

			if (n == 0)
				continue;
			got += n;
			RPS_CTR_ADD(st->rx_packets, n);
			RPS_CTR_ADD(rps_stats_port(st, app->io.rxq_port[q])->received, n);
#ifdef RPS_TEST_HOOKS
			if (unlikely(app->test.rx_delay_tsc != 0)) /* a paced source (test_hooks.c) */
				rps_test_spin(app->test.rx_delay_tsc * n);
			if (unlikely(app->test.rx_gap_every != 0) && first) /* a source with silences */
				rps_test_rx_gap(&app->test, n);
#endif
			n = rps_steer_sanitize(pkts, n, app->io.rxq_port[q], st);
			map = __atomic_load_n(&app->steer.maps[q], __ATOMIC_ACQUIRE);
			if (unlikely(map != rx->seen_map[k])) {
				rx->seen_map[k] = map;
				rx->defer_tsc = 0; /* a new map: its moves get their own wait */
			}
			steer->flow_limit = __atomic_load_n(&app->steer.flow_limit, __ATOMIC_RELAXED);
			if (map->nb_workers == 0) {
				rps_process_burst(&rx->self, pkts, n);
				continue;
			}
			steer->queue = q;
			steer->rules = rules;
			bk = app->steer.buckets[q];
			if (!__atomic_load_n(&app->steer.reorder_safe, __ATOMIC_RELAXED)) {
				/* off: steer without the table, but keep it where packets go */
				rps_buckets_follow(bk, map);
				bk = NULL;
			}
			rps_steer_burst(steer, map, bk, app->steer.bstats[q], pkts, n);
		}
		if (app->lc.nb_workers == 0)
			rps_process_idle(&rx->self);
		else if (got != 0 || paused)
			wake_workers(steer, st); /* rps_ipi_list: once per poll, each worker once */
		/* No map pointer is held across this point. */
		rte_rcu_qsbr_quiescent(app->steer.qsbr, tid);
		rte_rcu_qsbr_quiescent(app->io.cap_qsbr, tid); /* nor is any ethdev callback running */
		RPS_CTR_ADD(st->polls, 1);
		now = rte_rdtsc();
		if (got != 0 || paused)
			__atomic_store_n(&rx->busy_tsc, now, __ATOMIC_RELAXED);
		if (got != 0) {
			RPS_CTR_ADD(st->busy_polls, 1);
			moves_check(app, rx, __atomic_load_n(&st->migrations_deferred,
							     __ATOMIC_RELAXED) - deferred0,
				    now, move_wait);
		} else if (paused) {
			rte_pause();
			if (now >= deadline)
				break;
			continue;
		} else {
			rx->defer_tsc = 0; /* no packet waits on a move now */
			__atomic_store_n(&rx->empty_tsc, now, __ATOMIC_RELAXED);
			if (idle_ticks != 0 && first && all_idle(&app->lc, now, idle_ticks) &&
			    backlogs_empty(&app->lc))
				break;
		}
		if (now >= deadline)
			break;
		/* An idle port: sleep between polls (no map pointer is held here), on the RX
		 * interrupts where there are some, else backing off up to --idle-sleep. */
		if (intr && got == 0 && rps_idle_is_deep(&backoff, now)) {
			/* a second of nothing: asleep until a packet. Before that, the backoff's
			 * naps: a packet after a short pause is found within --idle-sleep, where
			 * an interrupt waking a halted CPU took ~0.2 ms more here (a ping's p50
			 * through net_tap: 231 us asleep on interrupts at once) */
			if (rps_idle_next(&backoff, 0, now) == 0) {
				rte_pause();
			} else {
				int ms = intr_ms;

				if (deadline != UINT64_MAX)
					ms = (int)RTE_MIN((uint64_t)ms,
							  (deadline - now) * 1000 / hz + 1);
				(void)rps_rx_intr_sleep(app, rx, tid, ms);
				RPS_CTR_ADD(st->idle_sleeps, 1);
			}
		} else if (rps_idle_poll(&backoff, got != 0, now, NULL, hz)) {
			RPS_CTR_ADD(st->idle_sleeps, 1);
		}
	}
	if (first) { /* the others stop too (a signal's quit they see themselves) */
		__atomic_store_n(&app->life.rx_stop, 1, __ATOMIC_RELAXED);
		rps_rx_intr_stop(&app->life);
	}
	rte_rcu_qsbr_thread_offline(app->steer.qsbr, tid);
	rte_rcu_qsbr_thread_offline(app->io.cap_qsbr, tid);
	place_held(app, steer);
}

int
rps_rx_lcore_main(void *arg)
{
	struct rps_rx_lcore *rx = arg;

	rx_loop(rx->self.app, rx);
	return 0;
}

void
rps_rx_main(struct rps_app *app)
{
	rx_loop(app, &app->lc.rx[0]);
	for (uint16_t r = 1; r < app->lc.nb_rx; r++)
		(void)rte_eal_wait_lcore(app->lc.rx[r].self.lcore);
	app->life.stop_tsc = rte_rdtsc();
	/* Everything every RX lcore enqueued happens-before this store (rte_eal_wait_lcore()
	 * synchronises with their return): a worker that sees it and then finds its rings empty
	 * has seen every packet. */
	__atomic_store_n(&app->life.rx_done, 1, __ATOMIC_RELEASE);
	/* and sleeping workers wake to see it (their re-check reads rx_done after its fence) */
	rps_wake_fence();
	for (uint16_t w = 0; w < app->lc.nb_workers; w++)
		(void)rps_wake_kick(&app->lc.workers[w].wake);
}
