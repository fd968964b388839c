/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * modes.c: the dispatcher and worker loops of each benchmark mode. The dpdk-rps modes call
 * the library's own rps_steer_burst() / rps_backlog_*() / rps_pipeline_run(), so what is
 * measured is what the dpdk-rps binary runs.
 *
 * Every worker does the same per-packet work whatever feeds it: prefetch the burst's headers,
 * read one header word, make the header cold again (the --cold action), free the burst.
 * With K dispatchers (--dispatchers) each has its own source and steering state and its own
 * backlog to each worker; a worker takes its bursts from them in turn (rps_backlog_in, as
 * the binary's workers do) and gives each burst back to the source it came from.
 *
 * The peers: rte_distributor, and the event devices (event_dsw, event_sw), "the other way
 * DPDK does this job": the dispatcher enqueues each packet as a NEW event of one atomic
 * queue, flow = the same hash the rss mode steers by; worker ports dequeue bursts and run
 * the same consume() on them. event_dsw_jhash is jhash's peer, what a user on a NIC
 * without RSS would build: the same event_dsw device, its producer computing the flow as
 * the jhash mode does (the same keyed jhash of the same cold headers), the burst's headers
 * prefetched first.
 */
#include <cpuid.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cpuflags.h>
#include <rte_cycles.h>
#include <rte_bus_vdev.h>
#include <rte_distributor.h>
#include <rte_errno.h>
#include <rte_eventdev.h>
#include <rte_malloc.h>
#include <rte_mbuf_dyn.h>
#include <rte_memzone.h>
#include <rte_pause.h>
#include <rte_prefetch.h>
#include <rte_service.h>

#include "bench.h"
#include "rps_flow.h"
#include "rps_idle.h"
#include "rps_reasm.h"

#define BENCH_BUCKETS 4096      /* the binary's reorder-safe table size per queue */
#define BENCH_FLOW_TABLE 65536  /* the binary's default flow table size */
#define BENCH_FRAG_MAX 4096
#define BENCH_PREFETCH_BYTES 512 /* the binary's WORKER_PREFETCH_BYTES */

const char *
bench_mode_name(enum bench_mode m)
{
	static const char *const names[] = {
#define X(e, n, d) #n,
		BENCH_MODES(X)
#undef X
	};
	return m < BENCH_MODE_MAX ? names[m] : "?";
}

/*
 * No builtin that needs a CPU extension (-mclflushopt, -mcldemote): the build may target a
 * baseline without them. CLFLUSHOPT is written as its encoding (CLFLUSH with a 0x66 prefix)
 * and runs only where CPUID says so; CLDEMOTE is DPDK's rte_cldemote() (a NOP on CPUs
 * without it, so DEMOTE is refused there rather than measured warm); CLFLUSH is SSE2.
 */
int
bench_cold_resolve(enum bench_cold asked)
{
	unsigned int a, b = 0, c, d;

	if (asked == BENCH_COLD_FLUSH) {
		if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_CLFLUSHOPT))
			return BENCH_COLD_FLUSH;
		return BENCH_COLD_CLFLUSH;
	}
	if (asked == BENCH_COLD_DEMOTE && rte_cpu_get_flag_enabled(RTE_CPUFLAG_CLDEMOTE) <= 0)
		return -1;
	return (int)asked;
}

const char *
bench_cold_name(enum bench_cold c)
{
	static const char *const names[] = {
		[BENCH_COLD_NONE] = "none", [BENCH_COLD_FLUSH] = "flush (clflushopt)",
		[BENCH_COLD_DEMOTE] = "demote (cldemote)", [BENCH_COLD_CLFLUSH] = "flush (clflush)",
	};
	return (unsigned int)c < RTE_DIM(names) ? names[c] : "?";
}

static inline void
make_cold(enum bench_cold cold, const void *p)
{
	if (cold == BENCH_COLD_FLUSH)
		asm volatile(".byte 0x66; clflush %0" : : "m"(*(const volatile char *)p) : "memory");
	else if (cold == BENCH_COLD_CLFLUSH)
		asm volatile("clflush %0" : : "m"(*(const volatile char *)p) : "memory");
	else if (cold == BENCH_COLD_DEMOTE)
		rte_cldemote(p);
}

static inline uint64_t *
stamp_of(const struct bench_ctx *c, struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, c->tsc_dynfield, uint64_t *);
}

static void
record_latency(const struct bench_ctx *c, struct bench_worker *w, struct rte_mbuf **pkts,
	       unsigned int n)
{
	const uint64_t now = rte_rdtsc();
	const double ns_per_tick = 1e9 / (double)rte_get_tsc_hz();

	for (unsigned int i = 0; i < n; i++) {
		/* TSCs of two CPUs may disagree by a few cycles: a "negative" delay counts as 0 */
		int64_t d = (int64_t)(now - *stamp_of(c, pkts[i]));
		uint64_t ns = d > 0 ? (uint64_t)((double)d * ns_per_tick) : 0;
		uint64_t b = ns >> BENCH_HIST_SHIFT;

		w->hist[b < BENCH_HIST_BUCKETS ? b : BENCH_HIST_BUCKETS]++;
		if (ns > w->hist_max)
			w->hist_max = ns;
	}
}

/*
 * The worker's work on a burst in the dispatcher comparisons: make the headers cold again
 * and recycle the mbufs. The header address comes from the pool's fixed layout, so the
 * worker never reads the mbuf and the dispatcher alone pays for what it touches.
 */
static inline void
consume(const struct bench_ctx *c, const struct bench_traffic *t, struct bench_worker *w,
	struct rte_mbuf **pkts, unsigned int n)
{
	const enum bench_cold cold = c->o->cold;
	const uint32_t off = t->hdr_off;

	if (c->pace_mpps > 0 && c->tsc_dynfield >= 0)
		record_latency(c, w, pkts, n);
	for (unsigned int i = 0; i < n; i++)
		make_cold(cold, (const char *)pkts[i] + off);
	RPS_CTR_ADD(w->stats.processed, n);
	bench_free(t, pkts, n);
}

/* What stage_sink needs (a stage function has no user pointer): set before each run.
 * sink_traffic is the one source with one dispatcher, NULL with several. */
static enum bench_cold sink_cold;
static const struct bench_traffic *sink_traffic;

/* The pipeline's last stage in the stage modes: cold action, count, free (with several
 * sources, each run of packets to the pool it came from; the stages have read the mbufs). */
static uint16_t
stage_sink(struct rps_stage_ctx *sc, struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		make_cold(sink_cold, rte_pktmbuf_mtod(pkts[i], void *));
	RPS_CTR_ADD(sc->st->processed, n);
	if (sc->recycle != NULL) { /* --recycle: back to the dispatcher it came from */
		rps_backlog_recycle(sc->recycle, pkts, n);
		return 0;
	}
	if (sink_traffic != NULL) {
		bench_free(sink_traffic, pkts, n);
		return 0;
	}
	for (uint16_t i = 0, j; i < n; i = j) {
		for (j = (uint16_t)(i + 1); j < n && pkts[j]->pool == pkts[i]->pool; j++)
			;
		rte_mempool_put_bulk(pkts[i]->pool, (void **)(pkts + i), j - i);
	}
	return 0;
}

int
bench_stage_ctx_init(struct rps_stage_ctx *sc, struct rps_lcore_stats *st, unsigned int lcore,
		     uint16_t id, int socket)
{
	static unsigned int seq;
	struct rps_flow_conf fc = {
		.size = BENCH_FLOW_TABLE, .idle_timeout_ms = 30000, .closed_timeout_ms = 1000,
	};
	char name[24];

	memset(sc, 0, sizeof(*sc));
	sc->st = st;
	sc->hz = rte_get_tsc_hz();
	sc->lcore = lcore;
	sc->worker = id;
	snprintf(name, sizeof(name), "bench_fl%u", seq++);
	sc->flows = rps_flow_table_create(&fc, name, socket);
	sc->reasm = rps_reasm_create(BENCH_FRAG_MAX, 2000, socket);
	return sc->flows != NULL && sc->reasm != NULL ? 0 : -ENOMEM;
}

void
bench_stage_ctx_fini(struct rps_stage_ctx *sc, struct rps_lcore_stats *st)
{
	rps_flow_table_free(sc->flows);
	if (sc->reasm != NULL)
		rps_reasm_destroy(sc->reasm, st);
	sc->flows = NULL;
	sc->reasm = NULL;
}

static inline void
stages_run(const struct bench_ctx *c, struct rps_stage_ctx *sc, struct rte_mbuf **pkts,
	   uint16_t n)
{
	sc->now = rte_rdtsc();
	rps_pipeline_run(&c->pipeline, sc, pkts, n);
}

static inline void
stages_idle(struct rps_stage_ctx *sc)
{
	sc->now = rte_rdtsc();
	rps_reasm_tick(sc);
	rps_flow_table_age_paced(sc, RPS_FLOW_AGE_BUDGET);
}

/* ---- workers ---- */

static int
ring_worker(struct bench_ctx *c, struct bench_worker *w, int stages)
{
	struct rte_mbuf *pkts[BENCH_BURST_MAX];
	const unsigned int burst = c->o->burst;
	const uint64_t hz = rte_get_tsc_hz();
	const int probe = c->handoff;
	const uint64_t gap = BENCH_DESCHED_US * hz / 1000000;
	/* an idle worker waits for a write to its only backlog's tail; with several it has no
	 * one line to watch (as app/datapath/worker_loop.c) */
	const volatile uint32_t *watch = w->in.nb == 1 ? &w->backlog->ring->prod.tail : NULL;
	struct rps_idle idle;
	int draining = 0;

	rps_idle_init(&idle, 100, c->o->idle_sleep_us, hz);
	rps_idle_thread_init();
	__atomic_fetch_add(&c->ready, 1, __ATOMIC_RELEASE);
	for (;;) {
		struct rps_backlog *from;
		const uint64_t t0 = probe ? rte_rdtsc() : 0;
		uint32_t left, n = rps_backlog_in_dequeue(&w->in, pkts, burst, &left, &from);

		if (stages)
			stages_idle(&w->ctx);
		if (n == 0) {
			if (draining)
				break;
			draining = __atomic_load_n(&c->quit, __ATOMIC_ACQUIRE);
			if (!draining && rps_idle_poll(&idle, 0, rte_rdtsc(), watch, hz))
				RPS_CTR_ADD(w->stats.idle_sleeps, 1);
			continue;
		}
		if (probe) { /* a call that lost its CPU measures the scheduler, not the ring */
			const uint64_t dt = rte_rdtsc() - t0;

			if (dt <= gap) {
				w->deq_cycles += dt;
				w->deq_pkts += n;
			}
		}
		rps_idle_next(&idle, 1, 0);
		RPS_CTR_ADD(w->stats.received_rps, n);
		if (stages) {
			/* as the binary's worker (worker_loop.c) */
			rps_backlog_prefetch(pkts, n, BENCH_PREFETCH_BYTES);
			/* what the stages consume goes back to the dispatcher it came from */
			w->ctx.recycle = from->ret != NULL ? from : NULL;
			stages_run(c, &w->ctx, pkts, (uint16_t)n);
		} else { /* back to the source of the dispatcher whose row @from is in */
			consume(c, c->disp[(from - c->backlogs) / c->nb_workers].t, w, pkts, n);
		}
		rps_backlog_complete(from, n);
	}
	return 0;
}

static int
distributor_worker(struct bench_ctx *c, struct bench_worker *w)
{
	struct rte_mbuf *pkts[8];

	rte_distributor_request_pkt(c->dist, w->id, NULL, 0);
	__atomic_fetch_add(&c->ready, 1, __ATOMIC_RELEASE);
	for (;;) {
		int n = rte_distributor_poll_pkt(c->dist, w->id, pkts);

		if (n < 0) {
			if (__atomic_load_n(&c->quit, __ATOMIC_ACQUIRE))
				break;
			rte_pause();
			continue;
		}
		if (n > 0) {
			RPS_CTR_ADD(w->stats.received_rps, (unsigned int)n);
			consume(c, c->disp[0].t, w, pkts, (unsigned int)n);
		}
		/* request_pkt() may wait for the distributor: it keeps polling until we left */
		rte_distributor_request_pkt(c->dist, w->id, NULL, 0);
	}
	/* No rte_distributor_return_pkt(): the instance is used for one run only (reusing one
	 * across runs hung in rte_distributor_process() after workers had returned). */
	__atomic_fetch_sub(&c->ready, 1, __ATOMIC_RELEASE);
	return 0;
}

static inline struct bench_event *
event_of(struct bench_ctx *c, enum bench_mode mode)
{
	return &c->ev[mode == BENCH_EVENT_SW];
}

/* An event mode's worker: its port's bursts, the same consume() as the ring workers; the
 * events of a burst are released implicitly by the next dequeue (the port's default). Busy
 * polls as distributor_worker, and leaves once told: bench_run_mode() has seen every event
 * enqueued processed by then. */
static int
event_worker(struct bench_ctx *c, struct bench_worker *w)
{
	const struct bench_event *e = event_of(c, c->mode);
	const uint8_t dev = (uint8_t)e->dev, port = (uint8_t)w->id;
	const uint16_t burst = (uint16_t)RTE_MIN(c->o->burst, e->deq_depth);
	struct rte_event ev[BENCH_BURST_MAX];
	struct rte_mbuf *pkts[BENCH_BURST_MAX];

	__atomic_fetch_add(&c->ready, 1, __ATOMIC_RELEASE);
	for (;;) {
		uint16_t n = rte_event_dequeue_burst(dev, port, ev, burst, 0);

		if (n == 0) {
			if (__atomic_load_n(&c->quit, __ATOMIC_ACQUIRE))
				break;
			rte_pause();
			continue;
		}
		for (uint16_t i = 0; i < n; i++)
			pkts[i] = ev[i].mbuf;
		RPS_CTR_ADD(w->stats.received_rps, n);
		consume(c, c->disp[0].t, w, pkts, n);
	}
	return 0;
}

static int
worker_main(void *arg)
{
	struct bench_worker *w = arg;
	struct bench_ctx *c = w->owner;

	switch (c->mode) {
	case BENCH_DISTRIBUTOR:
		return distributor_worker(c, w);
	case BENCH_EVENT_DSW:
	case BENCH_EVENT_SW:
	case BENCH_EVENT_DSW_JHASH:
		return event_worker(c, w);
	case BENCH_E2E:
		return ring_worker(c, w, 1);
	default:
		return ring_worker(c, w, 0);
	}
}

/* ---- the dispatcher ---- */

/* Packets the dispatcher may take now: a burst, or what its pace allows. */
static inline uint16_t
allowance(const struct bench_ctx *c, uint64_t now, uint64_t start, uint64_t rx, double per_tick)
{
	double due;

	if (c->pace_mpps <= 0)
		return (uint16_t)c->o->burst;
	due = (double)(now - start) * per_tick - (double)rx;
	return due <= 0 ? 0 : (uint16_t)RTE_MIN((double)c->o->burst, due);
}

static void
stamp(const struct bench_ctx *c, struct rte_mbuf **pkts, uint16_t n, uint64_t now)
{
	if (c->tsc_dynfield < 0)
		return;
	for (uint16_t i = 0; i < n; i++)
		*stamp_of(c, pkts[i]) = now;
}

static inline void
stage_hist_add(uint32_t *hist, uint64_t cycles, uint16_t n)
{
	uint64_t bin = cycles * BENCH_STAGE_SCALE / n;

	hist[bin < BENCH_STAGE_BINS ? bin : BENCH_STAGE_BINS - 1]++;
}

/* single_core: the stages over a burst on dispatcher @p d, each timed (its share of
 * steer_cycles); dispatcher 0 puts each burst's cycles/pkt per stage and in all into the
 * histograms. */
static inline void
stages_run_timed(struct bench_ctx *c, struct bench_disp *d, struct bench_part *p,
		 struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t sc[RPS_STAGE_MAX] = { 0 }, all = 0;

	d->self.now = rte_rdtsc();
	rps_pipeline_run_timed(&c->pipeline, &d->self, pkts, n, sc);
	for (uint8_t s = 0; s < c->pipeline.nb; s++) {
		p->stage_cycles[s] += sc[s];
		all += sc[s];
		if (d->id == 0)
			stage_hist_add(c->stage_hist + (size_t)s * BENCH_STAGE_BINS, sc[s], n);
	}
	if (d->id == 0)
		stage_hist_add(c->stage_hist + (size_t)RPS_STAGE_MAX * BENCH_STAGE_BINS, all, n);
}

static double
hist_median(const uint32_t *hist)
{
	uint64_t total = 0, seen = 0;

	for (unsigned int b = 0; b < BENCH_STAGE_BINS; b++)
		total += hist[b];
	for (unsigned int b = 0; b < BENCH_STAGE_BINS && total > 0; b++) {
		seen += hist[b];
		if (2 * seen >= total)
			return ((double)b + 0.5) / BENCH_STAGE_SCALE;
	}
	return 0;
}

static void
stage_medians(struct bench_ctx *c, struct bench_run *r)
{
	for (uint8_t s = 0; s < c->pipeline.nb; s++)
		r->stage_burst_median[s] = hist_median(c->stage_hist + (size_t)s * BENCH_STAGE_BINS);
	r->pipeline_burst_median = hist_median(c->stage_hist +
					       (size_t)RPS_STAGE_MAX * BENCH_STAGE_BINS);
}

/* --recycle: free what the workers handed back into dispatcher @p d's cache (rx_loop.c). */
static void
reclaim(struct bench_disp *d, struct rte_mbuf **pkts, unsigned int max)
{
	const struct bench_ctx *c = d->owner;

	for (uint16_t i = 0; c->o->recycle && i < c->nb_workers; i++) {
		uint32_t k = rps_backlog_reclaim(&d->backlogs[i], pkts, max);

		if (k != 0)
			bench_free(d->t, pkts, k);
	}
}

/* The handoff probe's "steering": the whole burst to the next worker's backlog. Counted
 * when the ring took it whole and the call kept its CPU. */
static inline void
handoff_burst(struct bench_disp *d, struct rte_mbuf **pkts, uint16_t n, uint16_t *next,
	      uint64_t gap)
{
	const uint64_t t0 = rte_rdtsc();

	if (rps_backlog_enqueue(&d->backlogs[*next], pkts, n) == n) {
		const uint64_t dt = rte_rdtsc() - t0;

		if (dt <= gap) {
			d->enq_cycles += dt;
			d->enq_pkts += n;
		}
	}
	*next = (uint16_t)(*next + 1 == d->owner->nb_workers ? 0 : *next + 1);
}

/* What keeps an event device moving when the dispatcher has nothing to enqueue (and after
 * its loop): event_sw's scheduler is a service that the dispatcher runs on its own lcore;
 * event_dsw's producer port buffers events per worker and hands them over on its
 * background task, which an enqueue runs, or rte_event_maintain() (flushing with @p op). */
static inline void
event_poll(const struct bench_event *e, int op)
{
	if (e->has_service)
		rte_service_run_iter_on_app_lcore(e->service, 0);
	else
		rte_event_maintain((uint8_t)e->dev, e->disp_port, op);
}

/* The event modes' steering: the burst as NEW events of the atomic queue 0, flow = the
 * mbuf's hash (the NIC's, as rss and distributor steer by), in chunks of the port's
 * enqueue depth, until the device takes nothing more; what the device refuses (no credits: the workers are behind) goes back to
 * the source and counts as throttled, as a full backlog ring does. @return the refused. */
static inline uint16_t
event_enqueue(const struct bench_event *e, const struct bench_traffic *t,
	      const struct rps_steer_ctx *sw, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_event ev[BENCH_BURST_MAX];
	uint16_t done = 0;

	/* event_dsw_jhash (@p sw set): the headers are cold, as in the jhash mode: ask for
	 * every one of the burst before the first hash waits on one */
	for (uint16_t i = 0; sw != NULL && i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], const void *));
	for (uint16_t i = 0; i < n; i++) {
		ev[i].event = 0;
		ev[i].flow_id = (sw != NULL ? rps_steer_sw_hash(sw, pkts[i]) :
				 pkts[i]->hash.rss) & 0xfffff;
		ev[i].op = RTE_EVENT_OP_NEW;
		ev[i].sched_type = RTE_SCHED_TYPE_ATOMIC;
		ev[i].event_type = RTE_EVENT_TYPE_ETHDEV;
		ev[i].priority = RTE_EVENT_DEV_PRIORITY_NORMAL;
		ev[i].mbuf = pkts[i];
	}
	while (done < n) {
		uint16_t want = (uint16_t)RTE_MIN(n - done, e->enq_depth);
		uint16_t k = rte_event_enqueue_new_burst((uint8_t)e->dev, e->disp_port, ev + done,
							 want);

		/* a short count is not a refusal (event_sw takes credits 32 at a time): the
		 * device refused once it takes nothing */
		if (k == 0)
			break;
		done = (uint16_t)(done + k);
	}
	if (done < n)
		bench_free(t, pkts + done, n - done);
	if (e->has_service) /* event_dsw's enqueue ran its port's background task itself */
		rte_service_run_iter_on_app_lcore(e->service, 0);
	return (uint16_t)(n - done);
}

/* Where a dispatcher's iterations went: those that took packets and kept their CPU, and
 * those that lost it (longer than BENCH_DESCHED_US). */
struct iter_acct {
	uint64_t busy;       /* cycles of busy iterations */
	uint64_t busy_steer; /* their cycles in the steering (or stages) call */
	uint64_t busy_rx;    /* their packets */
	uint64_t desched;    /* cycles of iterations that lost their CPU */
};

/* Sorts the iteration that just ended: it lasted span cycles, took n packets, steered in
 * steer cycles. */
static inline void
iter_end(struct iter_acct *a, uint64_t span, uint64_t gap, uint16_t n, uint64_t steer)
{
	if (span > gap) {
		a->desched += span;
	} else if (n != 0) {
		a->busy += span;
		a->busy_steer += steer;
		a->busy_rx += n;
	}
}

/*
 * One dispatcher's measured loop, for the run's duration on its own clock. Besides all its
 * cycles, it counts the busy ones: iterations that took packets and lasted less than
 * BENCH_DESCHED_US (longer ones lost their CPU to another thread: an oversubscribed run).
 */
static void
dispatch(struct bench_disp *d, struct bench_part *p)
{
	struct bench_ctx *c = d->owner;
	struct rte_mbuf *pkts[BENCH_BURST_MAX];
	const uint64_t hz = rte_get_tsc_hz();
	const double per_tick = c->pace_mpps / c->nb_disp * 1e6 / (double)hz;
	const uint64_t gap = BENCH_DESCHED_US * hz / 1000000;
	const enum bench_mode mode = c->mode;
	const int handoff = c->handoff;
	const struct bench_traffic *t = d->t;
	const struct bench_event *ev = bench_mode_is_event(mode) ? event_of(c, mode) : NULL;
	const struct rps_steer_ctx *sw = mode == BENCH_EVENT_DSW_JHASH ? &d->steer : NULL;
	uint64_t rx = 0, steer = 0, refused = 0, start, end, now, last, last_steer = 0;
	struct iter_acct acct = {0};
	uint16_t last_n = 0, next = 0;

	memset(p->stage_cycles, 0, sizeof(p->stage_cycles));
	if (mode == BENCH_SINGLE_CORE && d->id == 0)
		memset(c->stage_hist, 0, sizeof(uint32_t) * (RPS_STAGE_MAX + 1) * BENCH_STAGE_BINS);
	start = last = rte_rdtsc();
	end = start + (uint64_t)(c->o->duration * (double)hz);
	while ((now = rte_rdtsc()) < end) {
		uint16_t want = allowance(c, now, start, rx, per_tick);
		uint16_t n = want ? bench_rx(t, pkts, want) : 0;
		uint64_t t0;

		/* the iteration that ended now: busy if it worked and kept its CPU */
		iter_end(&acct, now - last, gap, last_n, last_steer);
		last = now;
		last_n = n;
		if (mode == BENCH_SINGLE_CORE)
			stages_idle(&d->self);
		if (n == 0) {
			if (ev != NULL) /* the scheduler runs on, the pool may wait for it */
				event_poll(ev, 0);
			continue;
		}
		rx += n;
		if (c->pace_mpps > 0)
			stamp(c, pkts, n, now);
		t0 = rte_rdtsc();
		if (unlikely(handoff)) {
			handoff_burst(d, pkts, n, &next, gap);
		} else {
			switch (mode) {
			case BENCH_IO_LIMIT:
				bench_free(t, pkts, n);
				break;
			case BENCH_RSS:
			case BENCH_JHASH:
			case BENCH_TOEPLITZ:
				rps_steer_burst(&d->steer, d->map, d->buckets, d->bstats, pkts, n);
				break;
			case BENCH_E2E:
				rps_steer_burst(&d->steer, d->map, d->buckets, d->bstats, pkts, n);
				reclaim(d, pkts, c->o->burst);
				break;
			case BENCH_DISTRIBUTOR:
				rte_distributor_process(c->dist, pkts, n);
				break;
			case BENCH_EVENT_DSW:
			case BENCH_EVENT_SW:
			case BENCH_EVENT_DSW_JHASH:
				refused += event_enqueue(ev, t, sw, pkts, n);
				break;
			case BENCH_SINGLE_CORE:
				stages_run_timed(c, d, p, pkts, n);
				break;
			default:
				break;
			}
		}
		last_steer = rte_rdtsc() - t0;
		steer += last_steer;
	}
	p->cycles = rte_rdtsc() - start;
	iter_end(&acct, now - last, gap, last_n, last_steer);
	p->seconds = (double)p->cycles / (double)hz;
	p->rx = rx;
	p->throttled = refused; /* event modes; the others' is their rings' full_drops */
	p->steer_cycles = steer;
	p->busy_cycles = acct.busy;
	p->busy_steer_cycles = acct.busy_steer;
	p->busy_rx = acct.busy_rx;
	p->desched_cycles = acct.desched;
}

/* Dispatchers 1..K-1: wait for the start, then run the same loop as dispatcher 0. */
static int
dispatcher_main(void *arg)
{
	struct bench_disp *d = arg;
	struct bench_ctx *c = d->owner;

	__atomic_fetch_add(&c->disp_ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&c->go, __ATOMIC_ACQUIRE))
		rte_pause();
	dispatch(d, &d->part);
	return 0;
}

static int
steer_setup(struct bench_disp *d, enum bench_mode mode)
{
	struct bench_ctx *c = d->owner;
	enum rps_hash_mode hm = mode == BENCH_JHASH || mode == BENCH_EVENT_DSW_JHASH ?
				RPS_HASH_JHASH :
				mode == BENCH_TOEPLITZ ? RPS_HASH_TOEPLITZ : RPS_HASH_AUTO;
	int rc;

	rps_steer_fini(&d->steer);
	rc = rps_steer_init(&d->steer, hm, 0x5eed, hm != RPS_HASH_AUTO,
			    d->backlogs, c->nb_workers, (uint16_t)c->o->burst, &d->rx_stats,
			    (int)rte_lcore_to_socket_id(d->lcore));
	if (rc < 0)
		return rc;
	/* the key the traffic's "NIC" hashed with (traffic.c), so both hashes agree */
	return rps_toeplitz_init(&d->steer.toeplitz, rps_toeplitz_default_key,
				 RPS_TOEPLITZ_KEY_LEN, RPS_TOEPLITZ_AUTO);
}

static const char *
event_vdev_name(enum bench_mode mode)
{
	return mode == BENCH_EVENT_SW ? "event_sw0" : "event_dsw0";
}

/*
 * The event device of @p mode, on its first run: the vdev, one atomic queue linked to every
 * worker's port, the dispatcher's port, in-flight events limited to what the workers'
 * backlogs hold in the other modes (--backlog per worker, within the device's limits), and
 * for event_sw its scheduler service made runnable from an application lcore (the
 * dispatcher runs it: no service lcore). @return 0, or -1 with a message.
 */
static int
event_setup(struct bench_ctx *c, enum bench_mode mode)
{
	struct bench_event *e = event_of(c, mode);
	const char *name = event_vdev_name(mode);
	const uint8_t queue = 0;
	struct rte_event_dev_info info;
	struct rte_event_dev_config dc;
	struct rte_event_queue_conf qc;
	uint32_t limit;
	int dev, rc;

	if (e->dev >= 0)
		return 0;
	rc = rte_vdev_init(name, NULL);
	if (rc < 0) {
		fprintf(stderr, "dpdk-rps-bench: rte_vdev_init(%s): %s (is DPDK's %s driver "
			"installed?)\n", name, rte_strerror(-rc), bench_mode_name(mode));
		return -1;
	}
	dev = rte_event_dev_get_dev_id(name);
	if (dev < 0 || rte_event_dev_info_get((uint8_t)dev, &info) < 0)
		goto fail;
	e->dev = dev;
	if (c->nb_workers + 1u > info.max_event_ports) {
		fprintf(stderr, "dpdk-rps-bench: %s has %u ports, %u needed\n", name,
			info.max_event_ports, c->nb_workers + 1u);
		goto fail;
	}
	limit = RTE_MAX(c->o->backlog * c->nb_workers, 4u * BENCH_BURST_MAX);
	limit = RTE_MIN(limit, (uint32_t)info.max_num_events);
	memset(&dc, 0, sizeof(dc));
	dc.nb_event_queues = 1;
	dc.nb_event_ports = (uint8_t)(c->nb_workers + 1);
	dc.nb_events_limit = (int32_t)limit;
	dc.nb_event_queue_flows = info.max_event_queue_flows;
	dc.nb_event_port_dequeue_depth = RTE_MIN(c->o->burst, info.max_event_port_dequeue_depth);
	dc.nb_event_port_enqueue_depth = RTE_MIN(c->o->burst, info.max_event_port_enqueue_depth);
	dc.dequeue_timeout_ns = info.min_dequeue_timeout_ns;
	if ((rc = rte_event_dev_configure((uint8_t)dev, &dc)) < 0)
		goto fail_rc;
	if ((rc = rte_event_queue_default_conf_get((uint8_t)dev, queue, &qc)) < 0)
		goto fail_rc;
	qc.event_queue_cfg = 0;
	qc.schedule_type = RTE_SCHED_TYPE_ATOMIC;
	if ((rc = rte_event_queue_setup((uint8_t)dev, queue, &qc)) < 0)
		goto fail_rc;
	for (uint16_t p = 0; p <= c->nb_workers; p++) {
		struct rte_event_port_conf pc;

		if ((rc = rte_event_port_default_conf_get((uint8_t)dev, (uint8_t)p, &pc)) < 0)
			goto fail_rc;
		pc.new_event_threshold = (int32_t)limit;
		pc.dequeue_depth = (uint16_t)dc.nb_event_port_dequeue_depth;
		pc.enqueue_depth = (uint16_t)dc.nb_event_port_enqueue_depth;
		pc.event_port_cfg = 0; /* implicit release */
		if ((rc = rte_event_port_setup((uint8_t)dev, (uint8_t)p, &pc)) < 0)
			goto fail_rc;
		if (p < c->nb_workers &&
		    rte_event_port_link((uint8_t)dev, (uint8_t)p, &queue, NULL, 1) != 1) {
			rc = -rte_errno;
			goto fail_rc;
		}
	}
	e->disp_port = (uint8_t)c->nb_workers;
	e->enq_depth = (uint16_t)dc.nb_event_port_enqueue_depth;
	e->deq_depth = (uint16_t)dc.nb_event_port_dequeue_depth;
	e->has_service = rte_event_dev_service_id_get((uint8_t)dev, &e->service) == 0;
	if (e->has_service) {
		rte_service_set_runstate_mapped_check(e->service, 0);
		rte_service_runstate_set(e->service, 1);
	}
	if ((rc = rte_event_dev_start((uint8_t)dev)) < 0)
		goto fail_rc;
	return 0;
fail_rc:
	fprintf(stderr, "dpdk-rps-bench: %s set-up: %s\n", name, rte_strerror(-rc));
	goto out;
fail:
	fprintf(stderr, "dpdk-rps-bench: %s: no such event device\n", name);
out:
	if (e->dev >= 0)
		rte_event_dev_close((uint8_t)e->dev);
	rte_vdev_uninit(name);
	e->dev = -1;
	return -1;
}

static void
event_teardown(struct bench_ctx *c, enum bench_mode mode)
{
	struct bench_event *e = event_of(c, mode);

	if (e->dev < 0)
		return;
	if (e->has_service)
		rte_service_runstate_set(e->service, 0);
	rte_event_dev_stop((uint8_t)e->dev);
	rte_event_dev_close((uint8_t)e->dev);
	rte_vdev_uninit(event_vdev_name(mode));
	e->dev = -1;
}

/* After the measured loop, as the distributor's flush: flush the dispatcher's port and run
 * the scheduler until the workers have processed every event enqueued (@p target past
 * @p processed0), so that the run's accounting is exact; then the workers may leave.
 * @return 0, or -1 if events went missing for 5 s. */
static int
event_drain(struct bench_ctx *c, const struct bench_event *e, uint64_t processed0,
	    uint64_t target)
{
	const uint64_t until = rte_rdtsc() + 5 * rte_get_tsc_hz();
	uint64_t done = 0;

	while (rte_rdtsc() < until) {
		done = 0;
		for (uint16_t i = 0; i < c->nb_workers; i++)
			done += RPS_CTR_READ(c->workers[i].stats.processed);
		if (done - processed0 >= target)
			return 0;
		event_poll(e, RTE_EVENT_DEV_MAINT_OP_FLUSH);
	}
	fprintf(stderr, "dpdk-rps-bench: %s: %" PRIu64 " of %" PRIu64 " events enqueued were "
		"never dequeued\n", bench_mode_name(c->mode), target - (done - processed0), target);
	return -1;
}

/* Counters of dispatcher @p d's row of backlogs, summed over the workers. */
struct row_sum {
	uint64_t tail, head, full, processed;
};

static void
row_sum(const struct bench_ctx *c, uint16_t d, struct row_sum *s)
{
	const struct rps_backlog *b = &c->backlogs[(uint32_t)d * c->nb_workers];

	memset(s, 0, sizeof(*s));
	for (uint16_t i = 0; i < c->nb_workers; i++) {
		s->tail += b[i].prod.tail;
		s->head += __atomic_load_n(&b[i].cons.head, __ATOMIC_ACQUIRE);
		s->full += b[i].prod.full_drops;
	}
	s->processed = c->disp[d].rx_stats.processed;
}

/* --slots 32: dispatcher d's rings (its row) name the mbufs of its source's pool. */
static int
slots_point(struct bench_ctx *c, uint16_t d, const struct bench_traffic *t)
{
	const uintptr_t base = t->slot_base;

	if (c->o->slots != 32)
		return 0;
	for (uint16_t n = 0; n < c->nb_workers; n++) {
		struct rps_backlog *b = &c->backlogs[(uint32_t)d * c->nb_workers + n];

		if (b->slot_base == base)
			continue;
		if (base == 0 || rps_backlog_rebase(b, base) < 0) {
			fprintf(stderr, "dpdk-rps-bench: --slots 32: %s\n", base == 0 ?
				"the source's pool is not addressable by 32-bit slots" :
				"a ring still holds packets between runs");
			return -1;
		}
	}
	return 0;
}

int
bench_run_mode(struct bench_ctx *c, enum bench_mode mode, struct bench_traffic *t,
	       struct bench_run *r)
{
	struct row_sum before[BENCH_MAX_DISP], after;
	uint64_t processed0 = 0, processed = 0;
	int need_workers = mode != BENCH_IO_LIMIT && mode != BENCH_SINGLE_CORE;
	const int event = bench_mode_is_event(mode);
	int rc = 0;

	memset(r, 0, sizeof(*r));
	c->mode = mode;
	sink_traffic = c->nb_disp == 1 ? &t[0] : NULL;
	c->quit = 0;
	c->ready = 0;
	c->disp_ready = 0;
	c->go = 0;
	if (mode == BENCH_DISTRIBUTOR) {
		/* a fresh instance per run (DPDK has no rte_distributor_free(): its memzone stays) */
		static unsigned int nb_dist;
		char name[RTE_MEMZONE_NAMESIZE];

		if (c->nb_disp != 1) {
			fprintf(stderr, "dpdk-rps-bench: distributor: one distributor lcore only\n");
			return -1;
		}
		snprintf(name, sizeof(name), "bench_dist%u", nb_dist++);
		c->dist = rte_distributor_create(name, rte_socket_id(), c->nb_workers,
						 RTE_DIST_ALG_BURST);
		if (c->dist == NULL) {
			fprintf(stderr, "dpdk-rps-bench: rte_distributor_create: %s\n",
				rte_strerror(rte_errno));
			return -1;
		}
	}
	if (event) {
		if (c->nb_disp != 1) {
			fprintf(stderr, "dpdk-rps-bench: %s: one dispatcher lcore only\n",
				bench_mode_name(mode));
			return -1;
		}
		if (event_setup(c, mode) < 0)
			return -1;
	}
	for (uint16_t d = 0; d < c->nb_disp; d++) {
		c->disp[d].t = &t[d];
		if (slots_point(c, d, &t[d]) < 0)
			return -1;
		memset(&c->disp[d].part, 0, sizeof(c->disp[d].part));
		c->disp[d].enq_cycles = c->disp[d].enq_pkts = 0;
		if ((mode == BENCH_RSS || mode == BENCH_JHASH || mode == BENCH_TOEPLITZ ||
		     mode == BENCH_E2E || mode == BENCH_EVENT_DSW_JHASH) && !c->handoff &&
		    steer_setup(&c->disp[d], mode) < 0) {
			fprintf(stderr, "dpdk-rps-bench: cannot set up the steering context\n");
			return -1;
		}
		row_sum(c, d, &before[d]);
	}
	for (uint16_t i = 0; i < c->nb_workers; i++) {
		processed0 += c->workers[i].stats.processed;
		c->workers[i].deq_cycles = c->workers[i].deq_pkts = 0;
	}
	if (need_workers) {
		for (uint16_t i = 0; i < c->nb_workers; i++)
			if (rte_eal_remote_launch(worker_main, &c->workers[i],
						  c->workers[i].lcore) != 0) {
				fprintf(stderr, "dpdk-rps-bench: lcore %u is busy\n",
					c->workers[i].lcore);
				return -1;
			}
		while (__atomic_load_n(&c->ready, __ATOMIC_ACQUIRE) < c->nb_workers)
			rte_pause();
	}
	for (uint16_t d = 1; d < c->nb_disp; d++)
		if (rte_eal_remote_launch(dispatcher_main, &c->disp[d], c->disp[d].lcore) != 0) {
			fprintf(stderr, "dpdk-rps-bench: lcore %u is busy\n", c->disp[d].lcore);
			return -1;
		}
	while (__atomic_load_n(&c->disp_ready, __ATOMIC_ACQUIRE) < c->nb_disp - 1)
		rte_pause();
	__atomic_store_n(&c->go, 1, __ATOMIC_RELEASE);
	dispatch(&c->disp[0], &c->disp[0].part);
	/* the workers keep draining until every dispatcher is done */
	for (uint16_t d = 1; d < c->nb_disp; d++)
		rte_eal_wait_lcore(c->disp[d].lcore);
	if (mode == BENCH_DISTRIBUTOR) {
		rte_distributor_flush(c->dist);
		__atomic_store_n(&c->quit, 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&c->ready, __ATOMIC_ACQUIRE) > 0)
			rte_distributor_process(c->dist, NULL, 0);
	} else if (event) {
		const struct bench_part *p = &c->disp[0].part;

		rc = event_drain(c, event_of(c, mode), processed0, p->rx - p->throttled);
		__atomic_store_n(&c->quit, 1, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&c->quit, 1, __ATOMIC_RELEASE);
	}
	rte_eal_mp_wait_lcore();
	if (rc < 0)
		return -1;
	if (c->o->recycle) { /* what the workers handed back after the dispatchers stopped */
		struct rte_mbuf *m[BENCH_BURST_MAX];

		for (uint16_t d = 0; d < c->nb_disp; d++)
			for (uint16_t i = 0; i < c->nb_workers; i++)
				while (rte_ring_count(c->disp[d].backlogs[i].ret) != 0)
					reclaim(&c->disp[d], m, BENCH_BURST_MAX);
	}
	for (uint16_t i = 0; i < c->nb_workers; i++) {
		processed += c->workers[i].stats.processed;
		r->deq_cycles += c->workers[i].deq_cycles;
		r->deq_pkts += c->workers[i].deq_pkts;
	}
	r->nb_disp = c->nb_disp;
	for (uint16_t d = 0; d < c->nb_disp; d++) {
		struct bench_part *p = &r->disp[d];

		*p = c->disp[d].part;
		row_sum(c, d, &after);
		if (!event) /* the event modes counted what their device refused */
			p->throttled = after.full - before[d].full;
		processed += after.processed - before[d].processed;
		switch (mode) {
		case BENCH_IO_LIMIT:
			p->delivered = p->rx;
			break;
		case BENCH_SINGLE_CORE:
			p->delivered = after.processed - before[d].processed;
			break;
		case BENCH_E2E: /* what the workers finished of its rows (drained: head == tail) */
			p->delivered = after.head - before[d].head;
			break;
		default:
			p->delivered = after.tail - before[d].tail;
			break;
		}
		r->rx += p->rx;
		r->throttled += p->throttled;
		r->cycles += p->cycles;
		r->steer_cycles += p->steer_cycles;
		r->seconds += p->seconds / c->nb_disp;
		r->delivered += p->delivered;
		r->enq_cycles += c->disp[d].enq_cycles;
		r->enq_pkts += c->disp[d].enq_pkts;
		for (unsigned int s = 0; s < RPS_STAGE_MAX; s++)
			r->stage_cycles[s] += p->stage_cycles[s];
	}
	if (mode == BENCH_SINGLE_CORE)
		stage_medians(c, r);
	r->processed = processed - processed0;
	switch (mode) {
	case BENCH_DISTRIBUTOR:
	case BENCH_EVENT_DSW:
	case BENCH_EVENT_SW:
	case BENCH_EVENT_DSW_JHASH:
	case BENCH_SINGLE_CORE:
	case BENCH_E2E:
		r->delivered = r->processed;
		break;
	default:
		break;
	}
	if (mode == BENCH_DISTRIBUTOR || event)
		r->disp[0].delivered = r->delivered;
	return 0;
}

int
bench_run_handoff(struct bench_ctx *c, struct bench_traffic *t, struct bench_run *r)
{
	int rc;

	c->handoff = 1;
	rc = bench_run_mode(c, BENCH_RSS, t, r);
	c->handoff = 0;
	return rc;
}

int
bench_ctx_init(struct bench_ctx *c, const struct bench_opts *o)
{
	static const struct rte_mbuf_dynfield stamp_desc = {
		.name = "rps_bench_rx_tsc", .size = sizeof(uint64_t), .align = __alignof__(uint64_t),
	};
	unsigned int lcores[RTE_MAX_LCORE], nb_lcores = 0, lcore;
	uint16_t idx[RTE_MAX_LCORE];

	memset(c, 0, sizeof(*c));
	c->o = o;
	c->ev[0].dev = c->ev[1].dev = -1;
	/* the first K lcores dispatch (the main lcore first), the others work */
	lcores[nb_lcores++] = rte_get_main_lcore();
	RTE_LCORE_FOREACH_WORKER(lcore)
		lcores[nb_lcores++] = lcore;
	c->nb_disp = (uint16_t)o->dispatchers;
	if (c->nb_disp == 0 || nb_lcores <= c->nb_disp) {
		fprintf(stderr, "dpdk-rps-bench: --dispatchers %u leaves no worker: give EAL more "
			"lcores (at least %u)\n", o->dispatchers, o->dispatchers + 1);
		return -1;
	}
	c->nb_workers = (uint16_t)(nb_lcores - c->nb_disp);
	c->disp = rte_zmalloc("bench_disp", sizeof(*c->disp) * c->nb_disp, RTE_CACHE_LINE_SIZE);
	c->workers = rte_zmalloc("bench_workers", sizeof(*c->workers) * c->nb_workers,
				 RTE_CACHE_LINE_SIZE);
	c->backlogs = rte_zmalloc("bench_backlogs", sizeof(*c->backlogs) * c->nb_workers *
				  c->nb_disp, RTE_CACHE_LINE_SIZE);
	if (c->disp == NULL || c->workers == NULL || c->backlogs == NULL)
		return -1;
	c->tsc_dynfield = rte_mbuf_dynfield_register(&stamp_desc);
	for (uint16_t n = 0; n < c->nb_workers; n++) {
		struct bench_worker *w = &c->workers[n];
		unsigned int wl = lcores[c->nb_disp + n];
		int wsock = (int)rte_lcore_to_socket_id(wl);

		w->owner = c;
		w->lcore = wl;
		w->id = n;
		w->backlog = &c->backlogs[n];
		w->in.nb = c->nb_disp;
		w->in.b = rte_zmalloc_socket("bench_in", sizeof(*w->in.b) * c->nb_disp, 0, wsock);
		w->hist = rte_zmalloc_socket("bench_hist", sizeof(uint64_t) *
					     (BENCH_HIST_BUCKETS + 1), RTE_CACHE_LINE_SIZE, wsock);
		if (w->in.b == NULL || w->hist == NULL ||
		    bench_stage_ctx_init(&w->ctx, &w->stats, wl, w->id, wsock) < 0)
			return -1;
		/* the ring of the (dispatcher d, worker n) pair: row d, column n, on its consumer's
		 * socket (the name keeps the one-dispatcher "benchN"); with --recycle its return
		 * ring on the dispatcher's */
		for (uint16_t d = 0; d < c->nb_disp; d++) {
			struct rps_backlog *b = &c->backlogs[(uint32_t)d * c->nb_workers + n];
			char name[24];

			if (d == 0)
				snprintf(name, sizeof(name), "bench%u", n);
			else
				snprintf(name, sizeof(name), "bench%u_%u", d, n);
			/* 32-bit slots from a placeholder base: each run points them at its
			 * sources' pools (bench_run_mode()) */
			if (rps_backlog_init_slots(b, name, o->backlog, wsock,
						   o->slots == 32 ? RTE_BIT64(RPS_SLOT_SHIFT) :
						   0) < 0 ||
			    (o->recycle &&
			     rps_backlog_recycle_init(b, name, 2 * BENCH_BURST_MAX,
						      (int)rte_lcore_to_socket_id(lcores[d])) < 0))
				return -1;
			w->in.b[d] = b;
		}
		idx[n] = n;
	}
	for (uint16_t d = 0; d < c->nb_disp; d++) {
		struct bench_disp *dp = &c->disp[d];
		int socket = (int)rte_lcore_to_socket_id(lcores[d]);

		dp->owner = c;
		dp->lcore = lcores[d];
		dp->id = d;
		dp->backlogs = &c->backlogs[(uint32_t)d * c->nb_workers];
		dp->map = rps_map_create(idx, NULL, c->nb_workers, RPS_MAP_SIZE_DEFAULT, 1, socket);
		dp->buckets = o->reorder_safe ? rps_buckets_create(BENCH_BUCKETS, socket) : NULL;
		dp->bstats = rps_bucket_stats_create(socket);
		if (dp->map == NULL || dp->bstats == NULL ||
		    (o->reorder_safe && dp->buckets == NULL)) {
			fprintf(stderr, "dpdk-rps-bench: set-up failed: %s\n",
				rte_strerror(rte_errno));
			return -1;
		}
		if (bench_stage_ctx_init(&dp->self, &dp->rx_stats, dp->lcore, 0, socket) < 0)
			return -1;
	}
	c->stage_hist = calloc((size_t)(RPS_STAGE_MAX + 1) * BENCH_STAGE_BINS, sizeof(uint32_t));
	if (c->stage_hist == NULL)
		return -1;
	sink_cold = o->cold;
	/* parse, validate, reassemble, flow: the binary's default pipeline, then our sink */
	rps_pipeline_default(&c->pipeline);
	c->pipeline.nb--;
	c->pipeline.ids[c->pipeline.nb] = RPS_STAGE_OUTPUT;
	c->pipeline.fns[c->pipeline.nb] = stage_sink;
	c->pipeline.nb++;
	return 0;
}

void
bench_ctx_fini(struct bench_ctx *c)
{
	event_teardown(c, BENCH_EVENT_DSW);
	event_teardown(c, BENCH_EVENT_SW);
	for (uint16_t i = 0; c->workers != NULL && i < c->nb_workers; i++) {
		bench_stage_ctx_fini(&c->workers[i].ctx, &c->workers[i].stats);
		rte_free(c->workers[i].hist);
		rte_free(c->workers[i].in.b);
	}
	for (uint32_t i = 0; c->backlogs != NULL && i < (uint32_t)c->nb_disp * c->nb_workers; i++)
		if (c->backlogs[i].ring != NULL)
			rps_backlog_fini(&c->backlogs[i]);
	for (uint16_t d = 0; c->disp != NULL && d < c->nb_disp; d++) {
		struct bench_disp *dp = &c->disp[d];

		bench_stage_ctx_fini(&dp->self, &dp->rx_stats);
		rps_steer_fini(&dp->steer);
		rps_map_free(dp->map);
		rps_buckets_free(dp->buckets);
		rps_bucket_stats_free(dp->bstats);
	}
	rte_free(c->disp);
	rte_free(c->workers);
	rte_free(c->backlogs);
	c->disp = NULL;
	free(c->stage_hist);
	c->stage_hist = NULL;
	c->workers = NULL;
	c->backlogs = NULL;
}
