/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_steer.h: the RX lcore's steering step, get_rps_cpu() + enqueue_to_backlog() for a
 * burst.
 *
 * For each packet (rps_steer_flow_hash(), the whole hash decision, top to bottom): the NIC's
 * RSS hash when the settings want it and the mbuf has one; else extract the flow key once
 * and hash it with the function the settings chose before the burst (rps_steer_hasher():
 * jhash with ctx->seed, or Toeplitz with ctx->toeplitz; inner with ctx->inner, canonical
 * when symmetric). The key is extracted and the function applied in
 * rps_steer_key_then_hash(), compiled once per decision in steer.c; the one other place is
 * the burst's software jhash in steer.c (jhash_lanes_pass()), which extracts the same keys
 * and hashes them side by side into the same values (unit-steer steer_jhash_lanes holds the
 * two together). Headers are prefetched a few packets ahead; the hash's top bits are looked
 * up in the queue's map; the packet is appended to that worker's group. Then one
 * rps_backlog_enqueue() per worker touched, so each ring sees one burst per RX burst.
 *
 * Concurrency: a context belongs to one RX lcore. The map is read-only here.
 */
#ifndef RPS_STEER_H
#define RPS_STEER_H

#include <stdint.h>
#include <rte_mbuf.h>

#include "rps_backlog.h"
#include "rps_counters.h"
#include "rps_hash.h"
#include "rps_map.h"
#include "rps_order.h"
#include "rps_rules.h"
#include "rps_toeplitz.h"

/** Headers prefetched ahead of the one being hashed in software (cold headers come from
 * DRAM or the LLC: enough misses in flight to cover that latency, see docs/benchmarks.md). */
#define RPS_STEER_PREFETCH 32

struct rps_steer_ctx {
	enum rps_hash_mode mode;
	uint32_t seed;               /**< jhash seed */
	uint16_t nb_workers;
	uint16_t burst_max;          /**< largest burst rps_steer_burst() accepts */
	int prefetch;                /**< prefetch headers: set when hashes are mostly computed */
	int symmetric;               /**< an enum rps_sym_mode: RPS_SYM_SORT hashes the canonical
				      * tuple in software (jhash or Toeplitz), never the NIC's;
				      * RPS_SYM_XOR: jhash sorted, Toeplitz and the NIC's hash
				      * through their symmetric key. Zeroed by rps_steer_init(),
				      * set by the caller after it */
	int inner;                   /**< --inner: hash tunnelled packets on their inner header
				      * (rps_flow_key_extract_inner()), every hash in software;
				      * zeroed by rps_steer_init(), set by the caller after it */
	struct rps_inner_cfg tunnels; /**< the VXLAN ports of ctx->inner; zeroed (4789) by
				       * rps_steer_init(), set by the caller after it */
	struct rps_order *order;     /**< stamp packets for --check-order, or NULL */
	uint16_t queue;              /**< RX queue of the burst being steered (--check-order) */
	int flow_limit;              /**< apply each backlog's flow limit (--flow-limit): the
				      * caller may change it between bursts; every backlog must
				      * have rps_backlog_flow_limit_init() done */
	int backpressure;            /**< lossless: a group a full backlog refuses stays held
				      * in the context (rps_steer_held()) instead of being
				      * dropped; zeroed by rps_steer_init(), set by the caller */
	const struct rps_rules *rules; /**< steering rules checked before the map, or NULL: the
				      * caller sets it before each burst (read under RCU); every
				      * target must be below nb_workers */
	uint64_t *rule_hits;         /**< [RPS_RULE_SLOTS] hits of each rule of ctx->rules in
				      * its slot (rps_rules.h: rule_hits[rules->slot[i]]), this
				      * RX lcore the only writer; needed with rules */
	uint32_t held;               /**< packets held for full backlogs (backpressure) */
	uint16_t nb_held;            /**< workers with held packets: touched[0..nb_held) */
	struct rps_backlog *backlogs; /**< [nb_workers] */
	struct rps_lcore_stats *stats; /**< the RX lcore's counters */
	/* scratch, [nb_workers][burst_max], [nb_workers] and [burst_max] */
	struct rte_mbuf **groups;
	uint16_t *group_len;
	uint16_t *touched;
	uint32_t *hashes;
	uint16_t *target;
	uint64_t *head_snap;         /**< [nb_workers]: worker's head when first touched */
	uint16_t *rule_target;       /**< [burst_max]: a rule's worker, or RPS_RULE_NONE */
	struct rps_flow_key *keys;   /**< [burst_max]: the rules' flow keys, hashed without
				      * being extracted again when the hash is software */
	/** The software jhash's keys of a burst by family, as rps_hash_jhash3_lanes() and
	 * rps_hash_jhash9_lanes() read them (word j of key i at w4[j * cap + i]), their hashes
	 * and their packets' indexes: one block, cap = burst_max rounded up to RPS_HASH_LANES */
	struct rps_steer_lanes {
		uint32_t *w4, *w6, *h4, *h6;
		uint16_t *i4, *i6;
		uint32_t cap;
	} lanes;
	/** The key of RPS_HASH_TOEPLITZ: zeroed by rps_steer_init(); the caller prepares it
	 * with rps_toeplitz_init() before the first burst. Last: it is large and read only
	 * in that mode. */
	struct rps_toeplitz toeplitz;
};

/** "No worker yet" in a bucket. */
#define RPS_BUCKET_NONE UINT32_MAX

/** One hash bucket of the reorder-safe table: where its packets went last, and the position
 * in that worker's backlog right after the last one (RFS's {cpu, last_qtail}). */
struct rps_bucket {
	uint32_t worker;
	uint32_t used;                /**< 1 once a packet went through the bucket */
	uint64_t last_tail;
};

/** Traffic of one bucket of a map's table. */
struct rps_bucket_ctr {
	uint64_t packets;             /**< packets the RX lcore steered through the bucket */
	uint64_t bytes;               /**< their pkt_len */
};

/**
 * Per-bucket counters of one RX queue, indexed by the map's bucket (rps_map_bucket()), as
 * the packets are steered (before backlog_full or flow_limit can drop them). The RX lcore
 * is the only writer (plain stores, no atomics); readers load each 64-bit value atomically.
 * When a map of another size arrives, the RX lcore clears them and bumps @c epoch twice, a
 * sequence count (odd while clearing): a reader loads it (acquire) before and after reading
 * mask and counters and keeps what it read only when both loads agree and are even; a
 * changed epoch also tells it the counts restarted.
 */
struct rps_bucket_stats {
	uint32_t mask;                /**< the table size - 1 they count for */
	uint32_t epoch;               /**< bumped each time they restart (size change) */
	struct rps_bucket_ctr b[RPS_MAP_SIZE_MAX] __rte_cache_aligned;
};

/** Allocate zeroed bucket counters (rte_zmalloc on @p socket); NULL on failure. */
struct rps_bucket_stats *rps_bucket_stats_create(int socket);
void rps_bucket_stats_free(struct rps_bucket_stats *s);

/**
 * The reorder-safe table of one RX queue (RX lcore only). A bucket whose map entry now names
 * another worker keeps going to its old worker until that worker has processed past
 * last_tail; only then does it move. So a remap never reorders a flow. One exception: a
 * worker whose backlog is marked failed (rps_backlog_set_failed(): stalled, app/control/health.c)
 * loses its buckets at once, each such early move counted in failover_moves; its packets
 * still queued are processed if it comes back, later than newer packets of their flows.
 *
 * The table costs nothing while the map is unchanged: once every bucket agrees with the
 * current map (a background scan of RPS_SETTLE_SCAN buckets per burst moves the ones whose
 * old worker has drained them), the map is "settled" and a burst goes straight through the
 * map after one comparison. A new map (a new pointer or generation) switches back to the
 * per-packet path, whose first burst re-reads every bucket's last_tail conservatively as its
 * worker's current tail (the fast path does not keep last_tail).
 */
struct rps_buckets {
	uint32_t mask;                /**< nb buckets - 1 (power of two, >= any map's mask) */
	uint32_t shift;               /**< 32 - log2(nb): bucket = hash >> shift */
	uint32_t scan;                /**< next bucket the settle scan examines */
	uint32_t clean;               /**< consecutive buckets the scan found settled... */
	uint32_t scan_gen;            /**< ...against this map (generation and pointer) */
	const struct rps_map *scan_map;
	uint32_t settled_gen;         /**< generation of the settled map */
	const struct rps_map *settled; /**< map every bucket agrees with, or NULL */
	int tails_stale;              /**< last_tail not kept since the map settled */
	struct rps_bucket b[];
};

/** Buckets the settle scan examines per burst while a map is new. */
#define RPS_SETTLE_SCAN 64

/** Whether @p map is the one the table has settled on (the per-burst fast-path check). */
static inline int
rps_buckets_settled(const struct rps_buckets *t, const struct rps_map *map)
{
	return map == t->settled && map->generation == t->settled_gen;
}

/**
 * Allocate a table of @p nb (power of two, 2..2^24) buckets, all empty. NULL on failure.
 * Bucket = the hash's top log2(nb) bits, as the map's: with nb at least the map's size
 * (RPS_MAP_SIZE_MAX covers every map), each of its buckets lies inside one bucket of the
 * map, so a packet's worker is the map's choice, and a bucket of the map moves as one piece.
 */
struct rps_buckets *rps_buckets_create(uint32_t nb, int socket);
void rps_buckets_free(struct rps_buckets *t);

/**
 * While reorder-safe remaps are off (steering without the table): keep the table in step with
 * where packets really go. Call it with the queue's current map before each burst steered
 * without the table; when @p map is not the one the table last agreed with, every bucket takes
 * the map's worker at once (no deferral: off means moves apply at once) and the tails are
 * marked stale, so that turning reorder-safe remaps on later starts from the true owners
 * (a stale owner would hold a flow on its old worker while its newer packets wait on the
 * new one). O(buckets) once per map change, nothing otherwise. RX lcore only.
 */
void rps_buckets_follow(struct rps_buckets *t, const struct rps_map *map);

/**
 * Allocate the scratch space of a context (rte_zmalloc on @p socket).
 * @return 0 or -EINVAL / -ENOMEM.
 */
int rps_steer_init(struct rps_steer_ctx *ctx, enum rps_hash_mode mode, uint32_t seed,
		   int prefetch,
		   struct rps_backlog *backlogs, uint16_t nb_workers, uint16_t burst_max,
		   struct rps_lcore_stats *stats, int socket);
/** Release the scratch space. */
void rps_steer_fini(struct rps_steer_ctx *ctx);

/** The function that hashes a flow key. */
enum rps_steer_hash_fn {
	RPS_STEER_HASH_JHASH,    /**< rps_hash_key() with ctx->seed */
	RPS_STEER_HASH_TOEPLITZ, /**< rps_toeplitz_flow_key() with ctx->toeplitz (GFNI or not) */
};

/** Steps 2 and 3 of rps_steer_flow_hash() (key, then hash) compiled for one decision. */
typedef uint32_t (*rps_steer_key_hash_t)(const struct rps_steer_ctx *ctx,
					 const struct rte_mbuf *m);

/** Every decision's rps_steer_key_then_hash() (steer.c), by rps_steer_key_hasher(). */
extern const rps_steer_key_hash_t rps_steer_key_hashers[8];

/** The compiled key-then-hash of function @p fn, @p sort and @p inner (--inner). */
static inline rps_steer_key_hash_t
rps_steer_key_hasher(enum rps_steer_hash_fn fn, int sort, int inner)
{
	return rps_steer_key_hashers[(unsigned int)(fn == RPS_STEER_HASH_TOEPLITZ) << 2 |
				     (unsigned int)(sort != 0) << 1 | (unsigned int)(inner != 0)];
}

/** The hash decision a context's settings make: taken once, before a burst's packets. */
struct rps_steer_hasher {
	enum rps_steer_hash_fn fn;           /**< what hashes the key */
	int nic;                             /**< take the NIC's RSS hash when the mbuf has one */
	int sort;                            /**< keys in canonical order (symmetric) */
	const struct rps_inner_cfg *tunnels; /**< --inner: the tunnels to look through; NULL */
};

/**
 * The hash decision of @p ctx's mode, symmetric and inner settings:
 * - the function: Toeplitz in toeplitz mode, jhash in the others;
 * - the NIC's hash in auto and rss modes, unless ctx->symmetric is RPS_SYM_SORT (a NIC's
 *   hash under a random key is not symmetric) or ctx->inner (the NIC hashed the outer
 *   header);
 * - canonical keys: with RPS_SYM_SORT; also with RPS_SYM_XOR for jhash, which has no
 *   symmetric key (Toeplitz, and the NIC's hash, are symmetric then through their key).
 */
static inline struct rps_steer_hasher
rps_steer_hasher(const struct rps_steer_ctx *ctx)
{
	struct rps_steer_hasher hs;

	hs.fn = ctx->mode == RPS_HASH_TOEPLITZ ? RPS_STEER_HASH_TOEPLITZ : RPS_STEER_HASH_JHASH;
	hs.nic = (ctx->mode == RPS_HASH_AUTO || ctx->mode == RPS_HASH_RSS) &&
		 ctx->symmetric != RPS_SYM_SORT && !ctx->inner;
	hs.sort = hs.fn == RPS_STEER_HASH_TOEPLITZ ? ctx->symmetric == RPS_SYM_SORT :
		  ctx->symmetric != RPS_SYM_OFF;
	hs.tunnels = ctx->inner ? &ctx->tunnels : NULL;
	return hs;
}

/* The function chosen at start, on a key of @p family (4, 6, or 0: layer 2 or none). */
static __rte_always_inline uint32_t
rps_steer_key_hash(const struct rps_steer_ctx *ctx, enum rps_steer_hash_fn fn,
		   const struct rps_flow_key *k, unsigned int family)
{
	if (fn == RPS_STEER_HASH_TOEPLITZ)
		return rps_toeplitz_flow_key_family(&ctx->toeplitz, k, family);
	return rps_hash_key_family(k, family, ctx->seed);
}

/**
 * rps_steer_key_then_hash() of a packet its fast path does not take (steer.c, out of line):
 * rps_flow_key_extract_slow() (tunnels with --inner, other layouts, layer 2), counted in
 * inner_hashed or inner_fallback, then @p fn. The decision comes by value: were its address
 * taken, the caller would have to store it for every packet.
 */
uint32_t rps_steer_flow_hash_slow(const struct rps_steer_ctx *ctx, const struct rte_mbuf *m,
				  enum rps_steer_hash_fn fn, int sort,
				  const struct rps_inner_cfg *tunnels);

/**
 * Steps 2 and 3 of rps_steer_flow_hash(): the flow key, extracted once (from the first
 * segment in the common layout, rps_flow_key_get_fast(), canonical with @p sort; else
 * rps_steer_flow_hash_slow()), then hashed by @p fn, compiled for the key's family (the
 * switch). steer.c compiles it once per decision (rps_steer_key_hashers), @p fn, @p sort and
 * whether @p tunnels is NULL constants in each, so the key stays in registers and no branch
 * on the settings is left per packet.
 */
static __rte_always_inline uint32_t
rps_steer_key_then_hash(const struct rps_steer_ctx *ctx, const struct rte_mbuf *m,
			enum rps_steer_hash_fn fn, int sort, const struct rps_inner_cfg *tunnels)
{
	struct rps_flow_key k;

	switch (rps_flow_key_get_fast(m, sort, tunnels, &k)) {
	case 4:
		return rps_steer_key_hash(ctx, fn, &k, 4);
	case 6:
		return rps_steer_key_hash(ctx, fn, &k, 6);
	default:
		return rps_steer_flow_hash_slow(ctx, m, fn, sort, tunnels);
	}
}

/**
 * The hash the RX lcore steers @p m by, as @p hs decided (0 = a runt: the map's first
 * worker), top to bottom, like Linux's get_rps_cpu():
 * 1. the NIC's RSS hash, when it is wanted and the mbuf has one;
 * 2. else the flow key, extracted once (inner with --inner, counted in inner_hashed or
 *    inner_fallback; canonical when symmetric; layer 2 without an IP flow),
 * 3. hashed by the function chosen at start. 2 and 3 are rps_steer_key_then_hash() for
 *    @p hs's function and flags: without --inner (jhash or Toeplitz, sorted or not) inlined
 *    here, one copy each with its arguments constant (a call cost up to a tenth of the
 *    cycles); with --inner one call to steer.c's copy (rps_steer_key_hasher()).
 * Adds 1 to *computed for a hash computed here.
 */
static __rte_always_inline uint32_t
rps_steer_flow_hash(const struct rps_steer_ctx *ctx, const struct rps_steer_hasher *hs,
		    const struct rte_mbuf *m, uint32_t *computed)
{
	if (hs->nic && rps_hash_has_rss(m))
		return rps_hash_rss(m);
	(*computed)++;
	if (hs->tunnels == NULL) {
		if (hs->fn == RPS_STEER_HASH_JHASH)
			return hs->sort ?
			       rps_steer_key_then_hash(ctx, m, RPS_STEER_HASH_JHASH, 1, NULL) :
			       rps_steer_key_then_hash(ctx, m, RPS_STEER_HASH_JHASH, 0, NULL);
		return hs->sort ? rps_steer_key_then_hash(ctx, m, RPS_STEER_HASH_TOEPLITZ, 1, NULL) :
		       rps_steer_key_then_hash(ctx, m, RPS_STEER_HASH_TOEPLITZ, 0, NULL);
	}
	return rps_steer_key_hasher(hs->fn, hs->sort, hs->tunnels != NULL)(ctx, m);
}

/** rps_steer_flow_hash() with the decision of @p ctx's current settings (rps_steer_hasher()),
 * for one packet. */
static __rte_always_inline uint32_t
rps_steer_hash(const struct rps_steer_ctx *ctx, const struct rte_mbuf *m, uint32_t *computed)
{
	const struct rps_steer_hasher hs = rps_steer_hasher(ctx);

	return rps_steer_flow_hash(ctx, &hs, m, computed);
}

/** The software hash of @p ctx's settings without --inner and never the NIC's: Toeplitz in
 * toeplitz mode (sorted with RPS_SYM_SORT), else jhash (sorted when ctx->symmetric). */
static inline uint32_t
rps_steer_sw_hash(const struct rps_steer_ctx *ctx, const struct rte_mbuf *m)
{
	const struct rps_steer_hasher hs = rps_steer_hasher(ctx);

	return rps_steer_key_hasher(hs.fn, hs.sort, 0)(ctx, m);
}

/**
 * Drop (free and count as bad_mbuf) packets whose segment chain does not add up to pkt_len,
 * which no later read could trust, and compact the burst. Single-segment packets cost one
 * compare; chains are checked with rte_mbuf_check(). Every packet's mbuf port is made
 * @p port, the port the burst was taken from (a PMD that leaves it stale, as net_ring does,
 * would count its packets under another port, or index past a table by port id).
 * @return packets kept.
 */
static inline uint16_t
rps_steer_sanitize(struct rte_mbuf **pkts, uint16_t n, uint16_t port, struct rps_lcore_stats *st)
{
	uint16_t kept = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const char *why;

		if (unlikely(m->port != port))
			m->port = port;
		if (unlikely(m->pkt_len != m->data_len) &&
		    (m->nb_segs == 1 || rte_mbuf_check(m, 1, &why) != 0)) {
			rps_stats_port_drop(st, m, RPS_DROP_BAD_MBUF);
			rte_pktmbuf_free(m);
			RPS_CTR_ADD(st->dropped[RPS_DROP_BAD_MBUF], 1);
			continue;
		}
		pkts[kept++] = m;
	}
	return kept;
}

/**
 * Steer a burst through @p map (nb_workers > 0) onto the workers' backlogs. Every packet is
 * either enqueued or freed and counted as backlog_full (or flow_limit). With @p buckets (the
 * queue's reorder-safe table, whose mask must be at least the map's) a flow moves to a new
 * worker only once its old worker has drained it; NULL gives
 * the seed's behaviour (a new map applies at once and may reorder). Every map published for
 * a queue must carry a new generation (the settled check compares pointer and generation,
 * so a new map that reuses a freed one's address is still seen as new). With @p bstats
 * (NULL: none) every packet the map steers is counted in its map bucket (not one a rule sent
 * to its worker: the bucket's owner never gets it).
 *
 * With ctx->rules, the rules come first (rps_rules_classify() over the burst, hits counted in
 * ctx->rule_hits): a packet a drop rule matches is freed and counted as `rule`; one a worker
 * rule matches goes to that worker, past the map and the reorder-safe table (a rule change's
 * reorder safety is the caller's: app/datapath/rx_loop.c); the others go through the map.
 *
 * The common case (the map settled, no rule matched, no flow limit, no order check) is one
 * loop: per packet its hash, its map bucket, the bucket's counters and its worker; then the
 * groups (a burst that all goes to one worker is copied as its group in one piece); then one
 * rps_backlog_enqueue() per worker touched. With the NIC's hash (and ctx->prefetch unset) that
 * loop reads the mbufs alone, a packet without the hash calling out for its software one.
 * The software jhash without --inner (and with the NIC's hash when ctx->prefetch is set, for
 * the packets that lack it) comes first, in a pass of its own: each packet's key extracted,
 * headers prefetched RPS_STEER_PREFETCH ahead, and the keys of each family hashed side by
 * side (rps_hash_jhash3_lanes(), rps_hash_jhash9_lanes()); the same hashes as one at a time.
 * Otherwise the same steps go in passes over the burst: hashes, targets (per packet through
 * the reorder-safe table while a new map settles), grouping with the flow limit. With rules
 * and a software hash without --inner, the flow keys the rules classified are the ones hashed
 * (extracted once).
 * @return packets enqueued.
 */
uint32_t rps_steer_burst(struct rps_steer_ctx *ctx, const struct rps_map *map,
			 struct rps_buckets *buckets, struct rps_bucket_stats *bstats,
			 struct rte_mbuf **pkts, uint16_t n);

/*
 * Backpressure (ctx->backpressure): a backlog that cannot take all of its group keeps the
 * rest held in the context, in order, and rps_steer_burst() must not be called again until
 * rps_steer_flush() has placed every held packet: the caller stops taking packets from the
 * port meanwhile (they wait in the NIC's queue, or in the file or ring that feeds it). Held
 * packets sit at the positions right after their backlog's tail that the reorder-safe table
 * already counted, so moves stay reorder-free.
 */

/** Packets held for full backlogs. */
static inline uint32_t
rps_steer_held(const struct rps_steer_ctx *ctx)
{
	return ctx->held;
}

/**
 * Offer the held packets again. A worker whose backlog is marked failed (stalled) will not
 * take them: they are dropped as backlog_full, so a stalled worker never blocks the others.
 * @return packets still held.
 */
uint32_t rps_steer_flush(struct rps_steer_ctx *ctx);

/** Drop every held packet (counted as backlog_full): at exit, when waiting is over. */
void rps_steer_drop_held(struct rps_steer_ctx *ctx);

#endif /* RPS_STEER_H */
