/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * modes.c: the dispatcher and worker loops of each benchmark mode. The dpdk-rps modes call
 * the library's own rps_steer_burst() / rps_backlog_*() / rps_pipeline_run(), so what is
 * measured is what the dpdk-rps binary runs.
 *
 * Every worker does the same per-packet work whatever feeds it: prefetch the burst's headers,
 * read one header word, make the header cold again (the --cold action), free the burst.
 */
#include <cpuid.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cpuflags.h>
#include <rte_cycles.h>
#include <rte_distributor.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf_dyn.h>
#include <rte_memzone.h>
#include <rte_pause.h>
#include <rte_prefetch.h>

#include "bench.h"
#include "rps_flow.h"
#include "rps_idle.h"
#include "rps_reasm.h"

#define BENCH_BUCKETS 4096      /* the binary's reorder-safe table size per queue */
#define BENCH_FLOW_TABLE 65536  /* the binary's default flow table size */
#define BENCH_FRAG_MAX 4096

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
consume(const struct bench_ctx *c, struct bench_worker *w, struct rte_mbuf **pkts,
	unsigned int n)
{
	const enum bench_cold cold = c->o->cold;
	const uint32_t off = c->t->hdr_off;

	if (c->pace_mpps > 0 && c->tsc_dynfield >= 0)
		record_latency(c, w, pkts, n);
	for (unsigned int i = 0; i < n; i++)
		make_cold(cold, (const char *)pkts[i] + off);
	RPS_CTR_ADD(w->stats.processed, n);
	bench_free(c->t, pkts, n);
}

/* What stage_sink needs (a stage function has no user pointer): set before each run. */
static enum bench_cold sink_cold;
static const struct bench_traffic *sink_traffic;

/* The pipeline's last stage in the stage modes: cold action, count, free. */
static uint16_t
stage_sink(struct rps_stage_ctx *sc, struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		make_cold(sink_cold, rte_pktmbuf_mtod(pkts[i], void *));
	RPS_CTR_ADD(sc->st->processed, n);
	bench_free(sink_traffic, pkts, n);
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
	struct rps_idle idle;
	int draining = 0;

	rps_idle_init(&idle, 100, c->o->idle_sleep_us, hz);
	rps_idle_thread_init();
	__atomic_fetch_add(&c->ready, 1, __ATOMIC_RELEASE);
	for (;;) {
		uint32_t left, n = rps_backlog_dequeue(w->backlog, pkts, burst, &left);

		if (stages)
			stages_idle(&w->ctx);
		if (n == 0) {
			if (draining)
				break;
			draining = __atomic_load_n(&c->quit, __ATOMIC_ACQUIRE);
			if (!draining && rps_idle_poll(&idle, 0, rte_rdtsc(),
						       &w->backlog->ring->prod.tail, hz))
				RPS_CTR_ADD(w->stats.idle_sleeps, 1);
			continue;
		}
		rps_idle_next(&idle, 1, 0);
		RPS_CTR_ADD(w->stats.received_rps, n);
		if (stages)
			stages_run(c, &w->ctx, pkts, (uint16_t)n);
		else
			consume(c, w, pkts, n);
		rps_backlog_complete(w->backlog, n);
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
			consume(c, w, pkts, (unsigned int)n);
		}
		/* request_pkt() may wait for the distributor: it keeps polling until we left */
		rte_distributor_request_pkt(c->dist, w->id, NULL, 0);
	}
	/* No rte_distributor_return_pkt(): the instance is used for one run only (reusing one
	 * across runs hung in rte_distributor_process() after workers had returned). */
	__atomic_fetch_sub(&c->ready, 1, __ATOMIC_RELEASE);
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
	case BENCH_E2E:
		return ring_worker(c, w, 1);
	default:
		return ring_worker(c, w, 0);
	}
}

/* ---- the dispatcher ---- */

/* Packets the dispatcher may take now: a burst, or what the pace allows. */
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

/* single_core: the stages over a burst, each timed (its share of steer_cycles), each burst's
 * cycles/pkt per stage and in all into the histograms. */
static inline void
stages_run_timed(struct bench_ctx *c, struct bench_run *r, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t sc[RPS_STAGE_MAX] = { 0 }, all = 0;

	c->self.now = rte_rdtsc();
	rps_pipeline_run_timed(&c->pipeline, &c->self, pkts, n, sc);
	for (uint8_t s = 0; s < c->pipeline.nb; s++) {
		r->stage_cycles[s] += sc[s];
		all += sc[s];
		stage_hist_add(c->stage_hist + (size_t)s * BENCH_STAGE_BINS, sc[s], n);
	}
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

static void
dispatch(struct bench_ctx *c, struct bench_run *r)
{
	struct rte_mbuf *pkts[BENCH_BURST_MAX];
	const uint64_t hz = rte_get_tsc_hz();
	const double per_tick = c->pace_mpps * 1e6 / (double)hz;
	const enum bench_mode mode = c->mode;
	const struct bench_traffic *t = c->t;
	uint64_t rx = 0, steer = 0, start, end, now;

	if (mode == BENCH_SINGLE_CORE)
		memset(c->stage_hist, 0, sizeof(uint32_t) * (RPS_STAGE_MAX + 1) * BENCH_STAGE_BINS);
	start = rte_rdtsc();
	end = start + (uint64_t)(c->o->duration * (double)hz);
	while ((now = rte_rdtsc()) < end) {
		uint16_t want = allowance(c, now, start, rx, per_tick);
		uint16_t n = want ? bench_rx(t, pkts, want) : 0;
		uint64_t t0;

		if (mode == BENCH_SINGLE_CORE)
			stages_idle(&c->self);
		if (n == 0)
			continue;
		rx += n;
		if (c->pace_mpps > 0)
			stamp(c, pkts, n, now);
		t0 = rte_rdtsc();
		switch (mode) {
		case BENCH_IO_LIMIT:
			bench_free(t, pkts, n);
			break;
		case BENCH_RSS:
		case BENCH_JHASH:
		case BENCH_TOEPLITZ:
		case BENCH_E2E:
			rps_steer_burst(&c->steer, c->map, c->buckets, c->bstats, pkts, n);
			break;
		case BENCH_DISTRIBUTOR:
			rte_distributor_process(c->dist, pkts, n);
			break;
		case BENCH_SINGLE_CORE:
			stages_run_timed(c, r, pkts, n);
			break;
		default:
			break;
		}
		steer += rte_rdtsc() - t0;
	}
	r->cycles = rte_rdtsc() - start;
	r->seconds = (double)r->cycles / (double)hz;
	r->rx = rx;
	r->steer_cycles = steer;
	if (mode == BENCH_SINGLE_CORE)
		stage_medians(c, r);
}

static int
steer_setup(struct bench_ctx *c, enum bench_mode mode)
{
	enum rps_hash_mode hm = mode == BENCH_JHASH ? RPS_HASH_JHASH :
				mode == BENCH_TOEPLITZ ? RPS_HASH_TOEPLITZ : RPS_HASH_AUTO;
	int rc;

	rps_steer_fini(&c->steer);
	rc = rps_steer_init(&c->steer, hm, 0x5eed, mode == BENCH_JHASH || mode == BENCH_TOEPLITZ,
			    c->backlogs, c->nb_workers, (uint16_t)c->o->burst, &c->rx_stats,
			    (int)rte_socket_id());
	if (rc < 0)
		return rc;
	/* the key the traffic's "NIC" hashed with (traffic.c), so both hashes agree */
	return rps_toeplitz_init(&c->steer.toeplitz, rps_toeplitz_default_key,
				 RPS_TOEPLITZ_KEY_LEN, RPS_TOEPLITZ_AUTO);
}

int
bench_run_mode(struct bench_ctx *c, enum bench_mode mode, struct bench_traffic *t,
	       struct bench_run *r)
{
	uint64_t tail0 = 0, full0 = 0, processed0 = 0, processed = 0, tail = 0, full = 0;
	int need_workers = mode != BENCH_IO_LIMIT && mode != BENCH_SINGLE_CORE;

	memset(r, 0, sizeof(*r));
	c->mode = mode;
	c->t = t;
	sink_traffic = t;
	c->quit = 0;
	c->ready = 0;
	if (mode == BENCH_DISTRIBUTOR) {
		/* a fresh instance per run (DPDK has no rte_distributor_free(): its memzone stays) */
		static unsigned int nb_dist;
		char name[RTE_MEMZONE_NAMESIZE];

		snprintf(name, sizeof(name), "bench_dist%u", nb_dist++);
		c->dist = rte_distributor_create(name, rte_socket_id(), c->nb_workers,
						 RTE_DIST_ALG_BURST);
		if (c->dist == NULL) {
			fprintf(stderr, "dpdk-rps-bench: rte_distributor_create: %s\n",
				rte_strerror(rte_errno));
			return -1;
		}
	}
	if ((mode == BENCH_RSS || mode == BENCH_JHASH || mode == BENCH_TOEPLITZ ||
	     mode == BENCH_E2E) &&
	    steer_setup(c, mode) < 0) {
		fprintf(stderr, "dpdk-rps-bench: cannot set up the steering context\n");
		return -1;
	}
	for (uint16_t i = 0; i < c->nb_workers; i++) {
		tail0 += c->backlogs[i].prod.tail;
		full0 += c->backlogs[i].prod.full_drops;
		processed0 += c->workers[i].stats.processed;
	}
	processed0 += c->self.st->processed;
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
	dispatch(c, r);
	if (mode == BENCH_DISTRIBUTOR) {
		rte_distributor_flush(c->dist);
		__atomic_store_n(&c->quit, 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&c->ready, __ATOMIC_ACQUIRE) > 0)
			rte_distributor_process(c->dist, NULL, 0);
	} else {
		__atomic_store_n(&c->quit, 1, __ATOMIC_RELEASE);
	}
	rte_eal_mp_wait_lcore();
	for (uint16_t i = 0; i < c->nb_workers; i++) {
		tail += c->backlogs[i].prod.tail;
		full += c->backlogs[i].prod.full_drops;
		processed += c->workers[i].stats.processed;
	}
	processed += c->self.st->processed;
	r->throttled = full - full0;
	r->processed = processed - processed0;
	switch (mode) {
	case BENCH_IO_LIMIT:
		r->delivered = r->rx;
		break;
	case BENCH_DISTRIBUTOR:
	case BENCH_SINGLE_CORE:
	case BENCH_E2E:
		r->delivered = r->processed;
		break;
	default:
		r->delivered = tail - tail0;
		break;
	}
	return 0;
}

int
bench_ctx_init(struct bench_ctx *c, const struct bench_opts *o)
{
	static const struct rte_mbuf_dynfield stamp_desc = {
		.name = "rps_bench_rx_tsc", .size = sizeof(uint64_t), .align = __alignof__(uint64_t),
	};
	int socket = (int)rte_socket_id();
	uint16_t idx[RTE_MAX_LCORE];
	unsigned int lcore, n = 0;

	memset(c, 0, sizeof(*c));
	c->o = o;
	c->nb_workers = (uint16_t)(rte_lcore_count() - 1);
	if (c->nb_workers == 0) {
		fprintf(stderr, "dpdk-rps-bench: give EAL at least 2 lcores (dispatcher + worker)\n");
		return -1;
	}
	c->workers = rte_zmalloc("bench_workers", sizeof(*c->workers) * c->nb_workers,
				 RTE_CACHE_LINE_SIZE);
	c->backlogs = rte_zmalloc("bench_backlogs", sizeof(*c->backlogs) * c->nb_workers,
				  RTE_CACHE_LINE_SIZE);
	if (c->workers == NULL || c->backlogs == NULL)
		return -1;
	c->tsc_dynfield = rte_mbuf_dynfield_register(&stamp_desc);
	RTE_LCORE_FOREACH_WORKER(lcore) {
		struct bench_worker *w = &c->workers[n];
		char name[16];
		int wsock = (int)rte_lcore_to_socket_id(lcore);

		w->owner = c;
		w->lcore = lcore;
		w->id = (uint16_t)n;
		w->backlog = &c->backlogs[n];
		w->hist = rte_zmalloc_socket("bench_hist", sizeof(uint64_t) *
					     (BENCH_HIST_BUCKETS + 1), RTE_CACHE_LINE_SIZE, wsock);
		snprintf(name, sizeof(name), "bench%u", n);
		if (w->hist == NULL || rps_backlog_init(w->backlog, name, o->backlog, wsock) < 0 ||
		    bench_stage_ctx_init(&w->ctx, &w->stats, lcore, w->id, wsock) < 0)
			return -1;
		idx[n] = (uint16_t)n;
		n++;
	}
	c->map = rps_map_create(idx, NULL, n, RPS_MAP_SIZE_DEFAULT, 1, socket);
	c->buckets = o->reorder_safe ? rps_buckets_create(BENCH_BUCKETS, socket) : NULL;
	c->bstats = rps_bucket_stats_create(socket);
	if (c->map == NULL || c->bstats == NULL || (o->reorder_safe && c->buckets == NULL)) {
		fprintf(stderr, "dpdk-rps-bench: set-up failed: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	if (bench_stage_ctx_init(&c->self, &c->rx_stats, rte_lcore_id(), 0, socket) < 0)
		return -1;
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
	for (uint16_t i = 0; c->workers != NULL && i < c->nb_workers; i++) {
		bench_stage_ctx_fini(&c->workers[i].ctx, &c->workers[i].stats);
		rps_backlog_fini(&c->backlogs[i]);
		rte_free(c->workers[i].hist);
	}
	bench_stage_ctx_fini(&c->self, &c->rx_stats);
	rps_steer_fini(&c->steer);
	rps_map_free(c->map);
	rps_buckets_free(c->buckets);
	rps_bucket_stats_free(c->bstats);
	rte_free(c->workers);
	rte_free(c->backlogs);
	free(c->stage_hist);
	c->stage_hist = NULL;
	c->workers = NULL;
}
