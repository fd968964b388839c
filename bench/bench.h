/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench.h: dpdk-rps-bench, the side-by-side benchmark of steering dispatchers.
 *
 * Every mode runs on the same traffic source and the same lcores: the first K EAL lcores are
 * dispatchers (RX lcores; the main lcore is dispatcher 0; K = --dispatchers, default 1), the
 * others are workers. Each dispatcher is one RX queue: its own source, map, reorder-safe
 * table and counters, and its own SP/SC backlog to every worker, as the binary's RX lcores
 * (app/datapath/rx_loop.c); workers poll their backlogs in turn (rps_backlog_in). The source is an ideal NIC:
 * a pool of pre-built mbufs (real Ethernet/IPv4/IPv6/TCP/UDP headers, the NIC's Toeplitz
 * hash in mbuf->hash.rss) in a mempool with per-lcore caches; "rx burst" gets mbufs from
 * the pool and re-arms them as a PMD does (a write to the mbuf's first cache line), "free"
 * puts them back with rte_mempool_put_bulk(). Workers make each header cold again before
 * putting it back (clflushopt, or cldemote to the LLC), so a dispatcher that reads headers
 * pays what it would on a real NIC. Workers return mbufs without reading them so that what
 * a worker's rte_pktmbuf_free() costs on its own core (cache-line traffic that depends on the
 * worker, not on the dispatcher) does not throttle the dispatcher on a box with one worker
 * core; the stage modes and the binary mode (tools/bench_binary.py) pay the full costs.
 */
#ifndef RPS_BENCH_H
#define RPS_BENCH_H

#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "rps_backlog.h"
#include "rps_counters.h"
#include "rps_map.h"
#include "rps_stage.h"
#include "rps_steer.h"

#define BENCH_BURST_MAX 256
#define BENCH_MAX_LIST 16
#define BENCH_MAX_RUNS 64
#define BENCH_MAX_DISP 16
/* A dispatcher loop iteration longer than this was descheduled (its CPU was lent to another
 * thread), not working: it counts in cycles but not in busy cycles. Far above any burst's
 * work, far below a scheduler time slice (about a millisecond). */
#define BENCH_DESCHED_US 200
/* latency histogram: 16 ns buckets up to 64 us, then one overflow bucket */
#define BENCH_HIST_SHIFT 4
#define BENCH_HIST_BUCKETS 4096
/* per-burst stage cost histogram: bins of 1/BENCH_STAGE_SCALE cycle/pkt, the last one open */
#define BENCH_STAGE_SCALE 4
#define BENCH_STAGE_BINS (4096 * BENCH_STAGE_SCALE)

/* X(ENUM, name, what it measures) */
#define BENCH_MODES(X) \
	X(IO_LIMIT, io_limit, "source alone: rx burst and free on the dispatcher lcore") \
	X(RSS, rss, "dpdk-rps dispatcher, hash from the mbuf (NIC RSS)") \
	X(JHASH, jhash, "dpdk-rps dispatcher, jhash computed from cold headers") \
	X(TOEPLITZ, toeplitz, "dpdk-rps dispatcher, Toeplitz (RSS) hash computed from cold headers") \
	X(DISTRIBUTOR, distributor, "rte_distributor burst mode, tag = the mbuf's hash") \
	X(EVENT_DSW, event_dsw, "eventdev event_dsw, one atomic queue, flow = the mbuf's hash") \
	X(EVENT_SW, event_sw, "eventdev event_sw (scheduler on the dispatcher), as event_dsw") \
	X(EVENT_DSW_JHASH, event_dsw_jhash, \
	  "eventdev event_dsw, flow = the keyed jhash its producer computes from cold headers") \
	X(SINGLE_CORE, single_core, "no steering: the stages run on the dispatcher lcore") \
	X(E2E, e2e_stages, "dpdk-rps dispatcher (NIC hash) + workers running the stages")

enum bench_mode {
#define X(e, n, d) BENCH_##e,
	BENCH_MODES(X)
#undef X
	BENCH_MODE_MAX
};

/* What a worker does to a header it is done with. FLUSH is CLFLUSHOPT where the CPU has it,
 * else CLFLUSH (bench_cold_resolve()); DEMOTE needs CLDEMOTE and is refused without it. */
enum bench_cold { BENCH_COLD_NONE, BENCH_COLD_FLUSH, BENCH_COLD_DEMOTE, BENCH_COLD_CLFLUSH };

/** The cold action this CPU can run for @p asked (FLUSH may become CLFLUSH); -1 where it
 * has none (DEMOTE without CLDEMOTE). */
int bench_cold_resolve(enum bench_cold asked);
/** Name of a cold action: none, flush (clflushopt), demote, flush (clflush). */
const char *bench_cold_name(enum bench_cold c);

struct bench_opts {
	uint32_t modes;          /* bit per enum bench_mode */
	uint32_t flows[BENCH_MAX_LIST];
	unsigned int nb_flows;
	uint32_t frames[BENCH_MAX_LIST];
	unsigned int nb_frames;
	unsigned int runs;
	double duration;         /* seconds per run */
	unsigned int burst;
	unsigned int backlog;
	unsigned int pool;       /* mbufs in the source pool */
	enum bench_cold cold;
	int latency;             /* measure latency at load_pct of the rss rate */
	double load_pct;
	unsigned int idle_sleep_us; /* workers' idle backoff (rps_idle.h), 0 = busy-poll */
	uint32_t latency_flows;
	uint32_t latency_frame;
	const char *json;
	int reorder_safe;
	int recycle;                /* e2e_stages: mbufs go back through a return ring */
	unsigned int slots;         /* 32: the rings carry 32-bit slots (as the binary), 64:
				     * pointers */
	unsigned int flow_hash;     /* --flow-hash N: only the flow-hash micro-bench, N flows */
	unsigned int dispatchers;   /* K: the first K lcores dispatch */
	int handoff;                /* measure the ring handoff alone (enqueue, dequeue) */
	int rx_cksum_hw;            /* the source's mbufs say their checksums were verified */
};

/* The traffic source (traffic.c). */
struct bench_traffic {
	struct rte_mempool *mp;
	uint32_t flows;
	uint32_t frame;
	uint32_t hdr_off;          /* packet data = (char *)mbuf + hdr_off, for every mbuf */
	uintptr_t slot_base;       /* its pool's base of 32-bit ring slots, 0: none
				    * (rps_backlog_slot_base()) */
};

/* rx_flags: what the PMD says besides the RSS hash (RTE_MBUF_F_RX_*_CKSUM_GOOD for a NIC
 * that verified the checksums, 0 for one that did not, as net_pcap) */
int bench_traffic_build(struct bench_traffic *t, unsigned int pool, uint32_t flows,
			uint32_t frame, uint64_t rx_flags, int socket);
void bench_traffic_free(struct bench_traffic *t);

/* rx burst of the ideal NIC: take pre-built mbufs and re-arm them. */
static inline uint16_t
bench_rx(const struct bench_traffic *t, struct rte_mbuf **pkts, uint16_t n)
{
	if (rte_mempool_get_bulk(t->mp, (void **)pkts, n) != 0)
		return 0;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		m->data_off = RTE_PKTMBUF_HEADROOM;
		rte_mbuf_refcnt_set(m, 1);
		m->nb_segs = 1;
		m->port = 0;
	}
	return n;
}

/* Give mbufs back to the source (any lcore), as the PMD's free would but without reading
 * the mbufs: rte_mempool_put_bulk() into this lcore's cache. */
static inline void
bench_free(const struct bench_traffic *t, struct rte_mbuf **pkts, unsigned int n)
{
	rte_mempool_put_bulk(t->mp, (void **)pkts, n);
}

/* One dispatcher's share of a run. */
struct bench_part {
	uint64_t rx;             /* packets it took from its source */
	uint64_t delivered;      /* of which reached a worker (or were processed) */
	uint64_t throttled;      /* refused by full worker rings */
	uint64_t cycles;         /* its TSC cycles in the measured loop */
	uint64_t steer_cycles;   /* of which inside the steering call */
	uint64_t busy_rx;        /* packets of the iterations that took packets and were not
				  * descheduled (BENCH_DESCHED_US)... */
	uint64_t busy_cycles;    /* ...their cycles... */
	uint64_t busy_steer_cycles; /* ...and of those, inside the steering call */
	uint64_t desched_cycles; /* in iterations longer than BENCH_DESCHED_US */
	uint64_t stage_cycles[RPS_STAGE_MAX]; /* single_core: each stage's, of steer_cycles */
	double seconds;
};

/* One measured run: the totals over the dispatchers, and each one's part. */
struct bench_run {
	uint64_t rx;             /* packets taken from the sources */
	uint64_t delivered;      /* packets that reached a worker (or were processed) */
	uint64_t throttled;      /* packets refused by full worker rings */
	uint64_t processed;      /* packets the stages completed (stage modes) */
	uint64_t cycles;         /* dispatchers' TSC cycles in the measured loop, summed */
	uint64_t steer_cycles;   /* of which inside the steering call */
	double seconds;          /* the dispatchers' mean run time */
	unsigned int nb_disp;
	struct bench_part disp[BENCH_MAX_DISP];
	/* handoff probe only: the workers' dequeue cost, and the enqueue cost of the bursts the
	 * rings took whole (a refused burst also pays for freeing its rest) */
	uint64_t enq_cycles, enq_pkts, deq_cycles, deq_pkts;
	/* single_core: the stages' cycles summed over the dispatchers (each stage by its
	 * place in bench_ctx.pipeline), and dispatcher 0's median over its bursts of each
	 * stage's cycles/pkt and the whole pipeline's: a burst the lcore was preempted in (a
	 * shared CPU) moves the mean, not the median */
	uint64_t stage_cycles[RPS_STAGE_MAX];
	double stage_burst_median[RPS_STAGE_MAX];
	double pipeline_burst_median;
};

/* Modes with one dispatcher only (skipped with --dispatchers K > 1). */
#define BENCH_ONE_DISP_MODES \
	((1u << BENCH_DISTRIBUTOR) | (1u << BENCH_EVENT_DSW) | (1u << BENCH_EVENT_SW) | \
	 (1u << BENCH_EVENT_DSW_JHASH))

/* The event device modes. */
static inline int
bench_mode_is_event(enum bench_mode m)
{
	return m == BENCH_EVENT_DSW || m == BENCH_EVENT_SW || m == BENCH_EVENT_DSW_JHASH;
}

/* The event modes' device (modes.c): one per event mode, created on its first run and kept
 * for the others (nothing is in flight between runs). Ports 0..nb_workers-1 are the
 * workers', linked to the one atomic queue; port nb_workers is the dispatcher's. */
struct bench_event {
	int dev;                 /* event device id; -1: not created */
	uint8_t disp_port;
	uint16_t enq_depth;      /* the ports' enqueue depth (bursts are split to it) */
	uint16_t deq_depth;
	int has_service;         /* event_sw: its scheduler is a service... */
	uint32_t service;        /* ...which the dispatcher runs on its own lcore */
};

/* Per-worker state shared with the dispatcher. */
struct bench_ctx;
struct bench_worker {
	struct bench_ctx *owner;
	unsigned int lcore;
	uint16_t id;
	struct rps_backlog *backlog;     /* its backlog from dispatcher 0 */
	struct rps_backlog_in in;        /* its backlogs, one per dispatcher, polled in turn */
	uint64_t deq_cycles, deq_pkts;   /* handoff probe */
	struct rps_lcore_stats stats;
	struct rps_stage_ctx ctx;        /* stage modes */
	uint64_t *hist;                  /* latency histogram, BENCH_HIST_BUCKETS + 1 */
	uint64_t hist_max;
} __rte_cache_aligned;

/* A dispatcher: one RX queue's steering state, as an RX lcore of the binary holds it. */
struct bench_disp {
	struct bench_ctx *owner;
	unsigned int lcore;
	uint16_t id;
	const struct bench_traffic *t;     /* its source in the current run */
	struct rps_backlog *backlogs;      /* its row of the context's backlogs: [nb_workers] */
	struct rps_map *map;
	struct rps_buckets *buckets;
	struct rps_bucket_stats *bstats;   /* per-bucket counters, as the binary keeps */
	struct rps_steer_ctx steer;
	struct rps_lcore_stats rx_stats;
	struct rps_stage_ctx self;         /* single_core */
	struct bench_part part;            /* its figures of the current run */
	uint64_t enq_cycles, enq_pkts;     /* handoff probe */
} __rte_cache_aligned;

/* Everything a run needs (modes.c). */
struct bench_ctx {
	const struct bench_opts *o;
	enum bench_mode mode;
	int handoff;                       /* this run is the handoff probe */
	uint16_t nb_disp;
	struct bench_disp *disp;           /* [nb_disp] */
	uint16_t nb_workers;
	struct bench_worker *workers;      /* [nb_workers] */
	struct rps_backlog *backlogs;      /* [nb_disp * nb_workers]: row d is dispatcher d's */
	struct rte_distributor *dist;
	struct bench_event ev[2];          /* [0] event_dsw, [1] event_sw */
	struct rps_pipeline pipeline;
	uint32_t *stage_hist;              /* single_core, dispatcher 0: per-burst cycles/pkt
					    * histograms, (RPS_STAGE_MAX + 1) x BENCH_STAGE_BINS */
	int tsc_dynfield;                  /* offset of the latency stamp, or -1 */
	double pace_mpps;                  /* > 0: dispatchers paced, in all (latency runs) */
	volatile int quit;
	volatile int ready;                /* workers started */
	volatile int disp_ready;           /* dispatchers 1..K-1 started */
	volatile int go;                   /* every dispatcher starts its clock */
};

int bench_ctx_init(struct bench_ctx *c, const struct bench_opts *o);
void bench_ctx_fini(struct bench_ctx *c);
/* One run of @p mode, dispatcher d taking from source @p t[d]; fills @p r.
 * @return 0, or -1 with a message on stderr. */
int bench_run_mode(struct bench_ctx *c, enum bench_mode mode, struct bench_traffic *t,
		   struct bench_run *r);
/* The handoff probe: each dispatcher enqueues its bursts whole to the workers' backlogs in
 * turn (no hash, no map), workers dequeue and consume; fills r->enq_* and r->deq_*. */
int bench_run_handoff(struct bench_ctx *c, struct bench_traffic *t, struct bench_run *r);
/* Stage state for a context (flow table, reassembly), freed by bench_stage_ctx_fini. */
int bench_stage_ctx_init(struct rps_stage_ctx *sc, struct rps_lcore_stats *st,
			 unsigned int lcore, uint16_t id, int socket);
void bench_stage_ctx_fini(struct rps_stage_ctx *sc, struct rps_lcore_stats *st);

const char *bench_mode_name(enum bench_mode m);

/* dpdk-rps-bench --flow-hash N (flowhash.c): hash and flooding costs. @return 0 or -1. */
int bench_flow_hash(unsigned int n);

/* Latency summary (stats.c). */
struct bench_latency {
	uint64_t samples;
	double p50_ns, p99_ns, p999_ns, max_ns;
};
void bench_hist_merge(uint64_t *into, const uint64_t *from);
void bench_latency_summary(const uint64_t *hist, uint64_t max_ns, struct bench_latency *l);
double bench_median(double *v, unsigned int n);

#endif /* RPS_BENCH_H */
