/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * worker_loop.c: a worker lcore, the user-space process_backlog(). Dequeue a burst from its
 * own backlogs (one per RX lcore, in turn), run the stage pipeline, publish progress (head), and between bursts do the
 * housekeeping the stages need (TX flush, fragment death row, flow ageing).
 */
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include "app.h"
#include "setup.h"
#include "rps_idle.h"
#include "rps_flow.h"
#include "rps_consumer_ctl.h"
#include "rps_memif.h"
#include "rps_reasm.h"

/* Bytes of each dequeued packet prefetched before the stages run (the checksum reads all). */
#define WORKER_PREFETCH_BYTES 512u


int
rps_worker_ctx_init(struct rps_app *app, struct rps_worker *w)
{
	const struct rps_options *o = &app->opt;
	struct rps_stage_ctx *c = &w->ctx;
	int socket = w->socket; /* the lcore's own, when EAL has memory there (setup/workers.c) */
	char name[32];

	memset(c, 0, sizeof(*c));
	c->st = &w->stats;
	c->hz = rte_get_tsc_hz();
	w->ctl_memif = NULL;
	c->lcore = w->lcore;
	c->worker = w->index;
	if (app->cons.nb_consumers > 0 && rps_pipeline_has(&app->pipeline, RPS_STAGE_OUTPUT)) {
		/* --consumers (no --tx-port then): in each group, consumer w mod K's one queue,
		 * its own when it is the only worker feeding it, else through the consumer's
		 * share; group 0's is out_txq, the others' secondary. With --forward every
		 * group's is secondary (the forward is the packet's own fate) and output sends
		 * the consumers their reference beside the forward (rps_stage_output()). */
		for (uint16_t g = 0; g < app->cons.nb_groups; g++) {
			struct rps_consumer *k = &app->cons.consumers[rps_consumer_of(&app->cons, g, w->index)];
			struct rps_txq *q = &w->cons_txq[g];

			if (rps_txq_init(q, 0, 0, o->burst, socket, &w->stats) < 0)
				return -ENOMEM;
			rps_txq_set_memif(q, k->memif);
			rps_txq_set_consumer(q, k->feeders > 1 ? &k->share : NULL,
					     app->lc.rx[0].steer.backpressure, &app->life.consumers_stop);
			if (g > 0 || o->nb_fwd > 0)
				rps_txq_set_secondary(q);
			w->group_txq[g] = q;
			/* a tap it feeds alone: it reads what the consumer sends back, for its
			 * requests (in the path, the returns are read anyway) */
			if (g == 0 && k->feeders == 1 && !o->consumer_inline)
				w->ctl_memif = k->memif;
		}
		/* with pairs, a port in none consumes (its packets still reach the consumers) */
		c->out_txq = o->nb_fwd > 0 ? NULL : &w->cons_txq[0];
		c->group_txq = w->group_txq;
		c->nb_groups = app->cons.nb_groups;
		c->filters = &app->cons.filters; /* a reload may set some at any time */
	} else if (o->tx_port >= 0 && rps_pipeline_has(&app->pipeline, RPS_STAGE_OUTPUT)) {
		if (rps_txq_init(&w->out_txq, (uint16_t)o->tx_port, w->txq, o->burst, socket,
				 &w->stats) < 0)
			return -ENOMEM;
		rps_txq_set_limits(&w->out_txq, app->io.tx_mtu, app->io.tx_multi_seg, app->io.pool,
				   app->io.indirect);
		c->out_txq = &w->out_txq;
	}
	if (rps_pairs_worker_txqs(app, w, socket) < 0 || /* --forward: setup/pairs.c */
	    rps_pairs_worker_inline(app, w, socket) < 0)
		return -ENOMEM;
	if (rps_pipeline_has(&app->pipeline, RPS_STAGE_RESPOND)) {
		/* a request is answered on the port it came in on, by this lcore's queue there:
		 * the one output sends on where it has one (--tx-port, a pair's port), else its
		 * own (every RX port has one queue per worker with respond: setup/ports.c) */
		for (uint16_t p = 0; p < RTE_MAX_ETHPORTS; p++)
			w->reply_port_txq[p] = NULL;
		for (uint16_t i = 0; i < o->nb_rx_ports; i++) {
			const uint16_t port = o->rx_ports[i];
			struct rps_txq *t = NULL;

			if (c->out_txq != NULL && o->tx_port == (int)port)
				t = c->out_txq;
			for (uint16_t k = 0; c->port_txq != NULL && k < o->nb_fwd; k++)
				if (port == o->fwd[k].a || port == o->fwd[k].b)
					t = &w->fwd_txq[2 * k + (port == o->fwd[k].b)];
			if (t == NULL) {
				t = &w->reply_txq[i];
				if (rps_txq_init(t, port, w->txq, o->burst, socket, &w->stats) < 0)
					return -ENOMEM;
			}
			w->reply_port_txq[port] = t;
		}
		c->reply_txq = w->reply_port_txq;
		c->respond = &app->respond;
		rps_respond_limit_init(&c->respond_limit, app->respond.rate, app->respond.burst,
				       c->hz, rte_rdtsc());
	}
	if (rps_pipeline_has(&app->pipeline, RPS_STAGE_REASSEMBLE)) {
		c->reasm = rps_reasm_create(o->frag_max, o->frag_timeout_ms, socket);
		if (c->reasm == NULL)
			return -ENOMEM;
		if (rps_reasm_set_budget(c->reasm, app->io.frag_budget) < 0)
			return -EINVAL;
		rps_reasm_set_check_l4(c->reasm, rps_pipeline_has(&app->pipeline,
								  RPS_STAGE_VALIDATE));
		/* a bucket does not move off this worker while its fragments may be held */
		for (uint16_t r = 0; r < w->in.nb; r++)
			rps_backlog_drain_init(w->in.b[r], (uint64_t)o->frag_timeout_ms *
					       rte_get_tsc_hz() / 1000);
	}
	if (rps_pipeline_has(&app->pipeline, RPS_STAGE_FLOW)) {
		struct rps_flow_conf fc = {
			.size = o->flow_table_size,
			.idle_timeout_ms = o->flow_timeout_ms,
			.closed_timeout_ms = o->flow_closed_timeout_ms,
			.hash = rps_test_flow_crc() ? RPS_FLOW_HASH_CRC32C : RPS_FLOW_HASH_SIPHASH,
			/* --flows-json: the flows that ended during the run too */
			.log_size = o->flows_json != NULL ? RPS_FLOWS_REMOVED_KEPT : 0,
			/* --bypass-after: what the consumers hold comes back first */
			.bypass_bytes = o->bypass_after,
			.bypass_hold_ms = RPS_BYPASS_WAIT_MS,
			/* a consumer may ask for a flow's bypass (rps_consumer_ctl.h) */
			.bypass_requests = app->cons.nb_consumers > 0,
			/* --elephant-rate: marks in the flow's entry (rps_flow.h) */
			.elephant_bps = o->elephant_rate,
			.elephant_window_ms = o->elephant_window_ms,
			.elephant_bypass = o->elephant_action == RPS_ELEPHANT_BYPASS,
		};

		snprintf(name, sizeof(name), "rps_flows_%u", w->lcore);
		c->flows = rps_flow_table_create(&fc, name, socket);
		c->bypass_mask = o->bypass_after != 0 || app->cons.nb_consumers > 0 ?
				 rps_flow_bypass_flag() : 0;
		c->bypass_settled = 1; /* taps: at once (in the path: per burst) */
		w->flow_snap = rte_zmalloc_socket("rps_flow_snap", sizeof(*w->flow_snap),
						  RTE_CACHE_LINE_SIZE, socket);
		if (c->flows == NULL || w->flow_snap == NULL)
			return -ENOMEM;
		rte_seqcount_init(&w->flow_snap->sc);
	}
	return 0;
}

void
rps_worker_ctx_fini(struct rps_worker *w, int keep_snap)
{
	struct rps_stage_ctx *c = &w->ctx;

	/* inline consumers first: a fail-open flush sends by out_txq or fwd_txq */
	for (unsigned int i = 0; i < RTE_DIM(w->inl_txq); i++) {
		if (w->inl_txq[i].buf != NULL)
			rps_txq_fini(&w->inl_txq[i]);
		if (w->ret_txq[i].buf != NULL)
			rps_txq_fini(&w->ret_txq[i]);
	}
	if (w->out_txq.buf != NULL)
		rps_txq_fini(&w->out_txq);
	for (unsigned int g = 0; g < RTE_DIM(w->cons_txq); g++) {
		struct rps_txq *q = &w->cons_txq[g];

		if (q->buf == NULL)
			continue;
		rps_txq_flush(q);
		if (q->share != NULL) /* what the others left too: they have stopped */
			rps_txq_share_drain(q, 0);
		rps_txq_fini(q);
	}
	for (unsigned int i = 0; i < RTE_DIM(w->reply_txq); i++)
		if (w->reply_txq[i].buf != NULL)
			rps_txq_fini(&w->reply_txq[i]);
	for (unsigned int i = 0; i < RTE_DIM(w->fwd_txq); i++)
		if (w->fwd_txq[i].buf != NULL)
			rps_txq_fini(&w->fwd_txq[i]);
	if (c->reasm != NULL) {
		rps_reasm_destroy(c->reasm, &w->stats);
		c->reasm = NULL;
	}
	if (c->flows != NULL) {
		rps_flow_table_free(c->flows);
		c->flows = NULL;
	}
	if (!keep_snap) {
		rte_free(w->flow_snap);
		w->flow_snap = NULL;
	}
}

void
rps_process_burst(struct rps_worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	const uint64_t start = rte_rdtsc();

	w->ctx.now = start;
	rps_pipeline_run(&w->app->pipeline, &w->ctx, pkts, n);
	/* One TX burst per processed burst: buffering only coalesces within a burst. */
	if (w->ctx.out_txq != NULL)
		rps_txq_flush(w->ctx.out_txq);
	for (uint16_t g = 0; g < w->ctx.nb_groups; g++) /* consumers but out_txq */
		if (w->ctx.group_txq[g] != w->ctx.out_txq)
			rps_txq_flush(w->ctx.group_txq[g]);
	if (w->ctx.reply_txq != NULL) /* respond's own queues (the others are flushed here) */
		for (uint16_t i = 0; i < w->app->opt.nb_rx_ports; i++)
			rps_txq_flush(&w->reply_txq[i]);
	for (uint16_t d = 0; d < w->nb_inl; d++) /* inline consumers: before the forwards */
		rps_txq_flush(&w->inl_txq[d]);  /* (a fail-open flush sends there) */
	if (w->ctx.port_txq != NULL) /* inline pairs: each paired port's queue */
		for (uint16_t i = 0; i < 2 * w->app->opt.nb_fwd; i++)
			rps_txq_flush(&w->fwd_txq[i]);
	/* what /rps/buckets apportions to the buckets this lcore served */
	RPS_CTR_ADD(w->stats.busy_cycles, rte_rdtsc() - start);
}

/*
 * A consumer's control frame @p m (rps_consumer_ctl.h): a bypass request applied to this
 * worker's flow table, counted. @return 1 when @p m was one (freed), 0 for a packet.
 */
static int
consumer_ctl(struct rps_worker *w, struct rte_mbuf *m)
{
	struct rps_flow_tuple q;
	uint32_t seconds;
	const int rc = rps_ctl_parse(m, &q, &seconds);

	if (likely(rc == 0))
		return 0;
	if (rc > 0 && rps_flow_table_bypass_tuple(w->ctx.flows, &q, w->ctx.now, seconds == 0 ? 0 :
						  w->ctx.now + (uint64_t)seconds * w->ctx.hz) == 0)
		RPS_CTR_ADD(w->stats.bypass_requests, 1);
	else
		RPS_CTR_ADD(w->stats.bypass_requests_refused, 1);
	rte_pktmbuf_free(m);
	return 1;
}

/* Taps: what this worker's own consumer sent back: its requests; the rest is dropped
 * unread (a tap's returns are not forwarded). */
static void
consumer_ctl_poll(struct rps_worker *w)
{
	struct rte_mbuf *pkts[RPS_BURST_MAX];
	const uint16_t n = rps_memif_rx(w->ctl_memif, 0, w->app->io.pool, pkts,
					w->app->opt.burst);

	for (uint16_t i = 0; i < n; i++)
		if (!consumer_ctl(w, pkts[i]))
			rte_pktmbuf_free(pkts[i]);
}

/*
 * Publish @p w's top flows for /rps/flows. The walk of the flow table comes first, into the
 * worker's scratch copy, so the write section is only a copy of 32 summaries: a reader
 * retries while that lasts, and gives up on a worker stopped inside it (telemetry.c).
 */
static void
flow_snap_take(struct rps_worker *w)
{
	struct rps_stage_ctx *c = &w->ctx;
	struct rps_flow_snap *s = w->flow_snap;
	const int n = RTE_MAX(0, rps_flow_table_top(c->flows, s->scratch, RPS_TOP_FLOWS));
	const int ne = RTE_MAX(0, rps_flow_table_elephants(c->flows, c->now, s->scratch_el,
							   RPS_FLOW_ELEPHANTS));

	rte_seqcount_write_begin(&s->sc);
#ifdef RPS_TEST_HOOKS
	if (unlikely(w->test.snap_stall_tsc != 0))
		rps_test_snap_stall(w);
#endif
	s->n = (uint32_t)n;
	memcpy(s->f, s->scratch, (size_t)n * sizeof(s->f[0]));
	s->nb_elephants = (uint32_t)ne;
	memcpy(s->elephants, s->scratch_el, (size_t)ne * sizeof(s->elephants[0]));
	__atomic_store_n(&s->tsc, c->now, __ATOMIC_RELAXED);
	rte_seqcount_write_end(&s->sc);
	__atomic_store_n(&s->taken, s->taken + 1, __ATOMIC_RELAXED);
	w->next_snap_tsc = c->now + c->hz;
}

void
rps_process_idle(struct rps_worker *w)
{
	struct rps_stage_ctx *c = &w->ctx;

	c->now = rte_rdtsc();
	if (w->ctl_memif != NULL) /* its own tap consumer's requests */
		consumer_ctl_poll(w);
	/* a consumer this worker shares: what the others enqueued while one held its lock */
	for (uint16_t g = 0; g < w->app->cons.nb_groups; g++)
		if (unlikely(rps_txq_share_pending(&w->cons_txq[g])))
			rps_txq_share_drain(&w->cons_txq[g], RPS_SHARE_ROUNDS);
	if (c->reasm != NULL)
		rps_reasm_tick(c);
	if (c->flows != NULL) {
		/* a /rps/flow query: one lookup, answered between bursts */
		if (unlikely(__atomic_load_n(&w->ask.req, __ATOMIC_ACQUIRE) != w->ask.done)) {
			const uint32_t req = w->ask.req;

			w->ask.rc = rps_flow_table_lookup_tuple(c->flows, &w->ask.q, &w->ask.out);
			__atomic_store_n(&w->ask.done, req, __ATOMIC_RELEASE);
		}
		rps_flow_table_age_paced(c, RPS_FLOW_AGE_BUDGET);
		uint64_t wanted = __atomic_load_n(&w->app->obs.flows_wanted_tsc, __ATOMIC_RELAXED);

		/* At most once a second, and only while someone asks: a /rps/flows in the last
		 * RPS_FLOWS_ASKED_S seconds (signed: the query's TSC may be a little ahead of
		 * this lcore's). A client that stops polling stops the walks soon after. */
		if (wanted != 0 && c->now >= w->next_snap_tsc &&
		    (int64_t)(c->now - wanted) < (int64_t)(RPS_FLOWS_ASKED_S * c->hz))
			flow_snap_take(w);
	}
}

/*
 * --consumer-mode inline: take what this worker's consumer returned on each direction's
 * ring (its verdict to pass) and send it on by the direction's other port, in the
 * consumer's order. Copies into the pool's mbufs (rps_memif_rx()): the client's memory is
 * never sent from. @return how many it took.
 */
static uint32_t
worker_returns(struct rps_worker *w)
{
	struct rte_mbuf *pkts[RPS_BURST_MAX];
	uint32_t total = 0;

	for (uint16_t d = 0; d < w->nb_inl; d++) {
		const uint16_t n = rps_memif_rx(w->inl_memif, d, w->app->io.pool, pkts,
						w->app->opt.burst);

		uint16_t kept = 0;

		if (n == 0)
			continue;
		for (uint16_t i = 0; i < n; i++) {
			if (unlikely(consumer_ctl(w, pkts[i])))
				continue; /* a request, not a packet */
			pkts[i]->port = w->inl_in_port[d]; /* as it came in, for its counters */
			rps_txq_send(&w->ret_txq[d], pkts[i]);
			kept++;
		}
		RPS_CTR_ADD(w->inl_txq[d].returned, kept);
		RPS_CTR_ADD(w->stats.consumer_returned, kept);
		rps_txq_flush(&w->ret_txq[d]);
		total += n;
	}
	return total;
}

void
rps_worker_returns_waiting(void *arg)
{
	(void)worker_returns(arg);
}

/* What the worker's inline consumer still holds, for the moves (rps_backlog_drain_update())
 * and a bypass's start (0: settled):
 * the packets delivered to it and not returned (taken or not: a client between its receive
 * and its send holds them too; its verdicts to drop stay in the count, so such a consumer's
 * moves always wait the hold), and those not yet taken. */
static inline uint64_t
consumer_held(const struct rps_worker *w)
{
	uint64_t delivered = 0, returned = 0;

	if (w->inl_memif == NULL)
		return 0;
	for (uint16_t d = 0; d < w->nb_inl; d++) {
		delivered += w->inl_txq[d].delivered;
		returned += w->inl_txq[d].returned;
	}
	return delivered - returned + rps_memif_tx_unread(w->inl_memif);
}

/* At exit, once the backlogs are empty: what the consumer still returns, until it has
 * been quiet for RETURNS_QUIET_MS (at most RETURNS_EXIT_MS in all). */
#define RETURNS_QUIET_MS 50u
#define RETURNS_EXIT_MS 1000u

static void
worker_returns_drain(struct rps_worker *w)
{
	const uint64_t hz = rte_get_tsc_hz(), t0 = rte_rdtsc();
	uint64_t last = t0;

	if (w->nb_inl == 0)
		return;
	for (;;) {
		const uint64_t now = rte_rdtsc();

		if (worker_returns(w) != 0 || rps_memif_tx_unread(w->inl_memif) != 0)
			last = now;
		if (now - last > RETURNS_QUIET_MS * hz / 1000 ||
		    now - t0 > RETURNS_EXIT_MS * hz / 1000)
			break;
		rte_delay_us_sleep(100);
	}
}

/* For rps_wake_sleep()'s re-check after it announced the sleep: nothing on any backlog and
 * the RX lcores still running (rx_done, stored before the exit's kicks, ends the sleep). */
static int
worker_nothing_to_do(void *arg)
{
	const struct rps_worker *w = arg;

	if (__atomic_load_n(&w->app->life.rx_done, __ATOMIC_ACQUIRE))
		return 0;
	for (uint16_t g = 0; g < w->app->cons.nb_groups; g++)
		if (rps_txq_share_pending(&w->cons_txq[g]))
			return 0;
	for (uint16_t r = 0; r < w->in.nb; r++)
		if (!rte_ring_empty(w->in.b[r]->ring))
			return 0;
	return 1;
}

/* How long a sleeping worker sleeps when no kick comes: RPS_WAKE_IDLE_US, or seconds under
 * RPS_TEST_SELF_WAKE_MS, so that a lost kick shows as a packet late by that much. */
static inline uint32_t
self_wake_us(const struct rps_app *app)
{
#ifdef RPS_TEST_HOOKS
	if (unlikely(app->test.self_wake_us != 0))
		return app->test.self_wake_us;
#else
	(void)app;
#endif
	return RPS_WAKE_IDLE_US;
}

/* An empty poll: spin for --idle-spin, then sleep: in the kernel until an RX lcore's kick
 * (rps_wake.h) or RPS_WAKE_IDLE_US, offline for the capture's QSBR meanwhile; with
 * --idle-wait monitor on a CPU that can wait on a cache line (rps_idle.h) and one backlog, a
 * monitored wait on its tail instead. @return 1 when it slept. */
static int
worker_idle(struct rps_worker *w, struct rps_idle *idle, const volatile uint32_t *watch,
	    unsigned int tid, uint64_t hz)
{
	int slept;

	/* --idle-wait monitor on a CPU with WAITPKG: a monitored wait, no syscall; an inline
	 * consumer's worker naps (up to --idle-sleep): its consumer's returns wake no one */
	if ((w->app->opt.idle_wait && idle->monitor && watch != NULL) ||
	    w->backlog->wake == NULL || w->nb_inl != 0)
		return rps_idle_poll(idle, 0, w->ctx.now, watch, hz);
	if (rps_idle_next(idle, 0, w->ctx.now) == 0) {
		rte_pause();
		return 0;
	}
	rte_rcu_qsbr_thread_offline(w->app->io.cap_qsbr, tid);
	slept = rps_wake_sleep(&w->wake, worker_nothing_to_do, w, self_wake_us(w->app));
	rte_rcu_qsbr_thread_online(w->app->io.cap_qsbr, tid);
	return slept;
}

int
rps_worker_main(void *arg)
{
	struct rps_worker *w = arg;
	struct rps_lcore_stats *st = &w->stats;
	struct rte_mbuf *pkts[RPS_BURST_MAX];
	const uint16_t burst = w->app->opt.burst;
	const uint64_t hz = rte_get_tsc_hz();
	/* its only backlog's producer tail, which the RX lcore writes when it enqueues: an idle
	 * worker waits for a write there; with several RX lcores it has no one line to watch */
	const volatile uint32_t *watch = w->in.nb == 1 ? &w->backlog->ring->prod.tail : NULL;
	const unsigned int tid = w->app->lc.nb_rx + w->index; /* its cap_qsbr thread id */
	struct rps_idle idle;
	int draining = 0;

	rps_idle_init(&idle, w->app->opt.idle_spin_us, w->app->opt.idle_sleep_us, hz);
	rps_idle_thread_init();
	__atomic_store_n(&w->tid, rte_sys_gettid(), __ATOMIC_RELAXED);
	rte_rcu_qsbr_thread_online(w->app->io.cap_qsbr, tid);
	for (;;) {
		struct rps_backlog *from;
		uint32_t left, n, returned = 0;
		uint64_t held = 0; /* what its consumer in the path holds (after its returns) */

		/* between bursts: no TX callback (a capture's) is running */
		rte_rcu_qsbr_quiescent(w->app->io.cap_qsbr, tid);

#ifdef RPS_TEST_HOOKS
		/* a worker that stops polling its backlog, as if preempted (test_hooks.c) */
		if (unlikely(w->test.stall_tsc != 0))
			rps_test_worker_stall(w);
#endif
		/* a burst from the next of its backlogs (one per RX lcore) that has packets */
		n = rps_backlog_in_dequeue(&w->in, pkts, burst, &left, &from);

		RPS_CTR_ADD(st->polls, 1);
		rps_process_idle(w);
		if (w->nb_inl != 0) { /* inline consumers: what they returned, what they hold */
			returned = worker_returns(w);
			held = consumer_held(w);
		}
		for (uint16_t r = 0; r < w->in.nb; r++)
			rps_backlog_drain_update(w->in.b[r], rps_reasm_held(w->ctx.reasm) + held,
						 w->ctx.now);
		if (n == 0) {
			if (returned != 0) {
				rps_idle_next(&idle, 1, 0);
				continue;
			}
			/* Stop only after an empty dequeue that follows seeing rx_done. */
			if (draining)
				break;
			draining = __atomic_load_n(&w->app->life.rx_done, __ATOMIC_ACQUIRE);
			if (!draining && worker_idle(w, &idle, watch, tid, hz))
				RPS_CTR_ADD(st->idle_sleeps, 1);
			continue;
		}
		rps_idle_next(&idle, 1, 0);
		/* The RX lcore wrote these mbufs (and a copying PMD their data) a moment ago:
		 * start every cross-core transfer of the burst before the stages wait on one. */
		rps_backlog_prefetch(pkts, n, WORKER_PREFETCH_BYTES);
		RPS_CTR_ADD(st->busy_polls, 1);
		RPS_CTR_ADD(st->received_rps, n);
		if (w->app->lc.order_on)
			RPS_CTR_ADD(st->reordered, rps_order_check(&w->app->lc.order, pkts, (uint16_t)n));
		if (left != 0)
			RPS_CTR_ADD(st->time_squeeze, 1);
		/* what the stages consume goes back to the RX lcore it came from (NULL: off) */
		w->ctx.recycle = from->ret != NULL ? from : NULL;
		if (w->nb_inl != 0) /* a bypass: may a flow at its depth start it now */
			w->ctx.bypass_settled = held == 0;
		rps_process_burst(w, pkts, (uint16_t)n);
#ifdef RPS_TEST_HOOKS
		/* a worker slower than any RX lcore, whatever the machine (test_hooks.c) */
		if (unlikely(w->app->test.delay_tsc != 0))
			rps_test_spin(w->app->test.delay_tsc * n);
#endif
		rps_backlog_complete(from, n);
	}
	/* shared consumers' rings empty, or left to the lcore that holds their lock */
	for (uint16_t g = 0; g < w->app->cons.nb_groups; g++)
		if (w->cons_txq[g].share != NULL)
			rps_txq_share_drain(&w->cons_txq[g], 0);
	worker_returns_drain(w); /* inline consumers: their last verdicts */
	rte_rcu_qsbr_thread_offline(w->app->io.cap_qsbr, tid);
	return 0;
}
