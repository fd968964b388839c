/* SPDX-License-Identifier: BSD-3-Clause */
/* steer.c: group a burst by target worker and enqueue one burst per worker. */
#include <errno.h>

#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "rps_steer.h"

int
rps_steer_init(struct rps_steer_ctx *ctx, enum rps_hash_mode mode, uint32_t seed, int prefetch,
	       struct rps_backlog *backlogs, uint16_t nb_workers, uint16_t burst_max,
	       struct rps_lcore_stats *stats, int socket)
{
	memset(ctx, 0, sizeof(*ctx));
	if (nb_workers == 0 || burst_max == 0 || backlogs == NULL || stats == NULL)
		return -EINVAL;
	ctx->mode = mode;
	ctx->seed = seed;
	ctx->prefetch = prefetch;
	ctx->nb_workers = nb_workers;
	ctx->burst_max = burst_max;
	ctx->backlogs = backlogs;
	ctx->stats = stats;
	ctx->groups = rte_zmalloc_socket("rps_steer", sizeof(ctx->groups[0]) * nb_workers *
					 burst_max, RTE_CACHE_LINE_SIZE, socket);
	ctx->group_len = rte_zmalloc_socket("rps_steer", sizeof(uint16_t) * nb_workers,
					    RTE_CACHE_LINE_SIZE, socket);
	ctx->touched = rte_zmalloc_socket("rps_steer", sizeof(uint16_t) * nb_workers,
					  RTE_CACHE_LINE_SIZE, socket);
	ctx->hashes = rte_zmalloc_socket("rps_steer", sizeof(uint32_t) * burst_max,
					 RTE_CACHE_LINE_SIZE, socket);
	ctx->target = rte_zmalloc_socket("rps_steer", sizeof(uint16_t) * burst_max,
					 RTE_CACHE_LINE_SIZE, socket);
	ctx->head_snap = rte_zmalloc_socket("rps_steer", sizeof(uint64_t) * nb_workers,
					    RTE_CACHE_LINE_SIZE, socket);
	ctx->rule_target = rte_zmalloc_socket("rps_steer", sizeof(uint16_t) * burst_max,
					      RTE_CACHE_LINE_SIZE, socket);
	ctx->keys = rte_zmalloc_socket("rps_steer", sizeof(ctx->keys[0]) * burst_max,
				       RTE_CACHE_LINE_SIZE, socket);
	ctx->lanes.cap = RTE_ALIGN_CEIL((uint32_t)burst_max, RPS_HASH_LANES);
	/* w4 [3][cap], w6 [9][cap], h4 and h6 [cap]; then i4 and i6 [cap] of uint16_t */
	ctx->lanes.w4 = rte_zmalloc_socket("rps_steer", sizeof(uint32_t) * 15 * ctx->lanes.cap,
					   RTE_CACHE_LINE_SIZE, socket);
	if (ctx->lanes.w4 != NULL) {
		ctx->lanes.w6 = ctx->lanes.w4 + 3 * ctx->lanes.cap;
		ctx->lanes.h4 = ctx->lanes.w6 + 9 * ctx->lanes.cap;
		ctx->lanes.h6 = ctx->lanes.h4 + ctx->lanes.cap;
		ctx->lanes.i4 = (uint16_t *)(ctx->lanes.h6 + ctx->lanes.cap);
		ctx->lanes.i6 = ctx->lanes.i4 + ctx->lanes.cap;
	}
	if (ctx->lanes.w4 == NULL || ctx->keys == NULL || ctx->rule_target == NULL ||
	    ctx->groups == NULL || ctx->group_len == NULL || ctx->touched == NULL ||
	    ctx->hashes == NULL || ctx->target == NULL || ctx->head_snap == NULL) {
		rps_steer_fini(ctx);
		return -ENOMEM;
	}
	return 0;
}

void
rps_steer_fini(struct rps_steer_ctx *ctx)
{
	rte_free(ctx->groups);
	rte_free(ctx->group_len);
	rte_free(ctx->touched);
	rte_free(ctx->hashes);
	rte_free(ctx->target);
	rte_free(ctx->head_snap);
	rte_free(ctx->rule_target);
	rte_free(ctx->keys);
	rte_free(ctx->lanes.w4);
	memset(&ctx->lanes, 0, sizeof(ctx->lanes));
	ctx->keys = NULL;
	ctx->head_snap = NULL;
	ctx->rule_target = NULL;
	ctx->groups = NULL;
	ctx->group_len = NULL;
	ctx->touched = NULL;
	ctx->hashes = NULL;
	ctx->target = NULL;
}

struct rps_buckets *
rps_buckets_create(uint32_t nb, int socket)
{
	struct rps_buckets *t;

	if (nb < 2 || (nb & (nb - 1)) != 0 || nb > (1u << 24))
		return NULL;
	t = rte_zmalloc_socket("rps_buckets", sizeof(*t) + nb * sizeof(t->b[0]),
			       RTE_CACHE_LINE_SIZE, socket);
	if (t == NULL)
		return NULL;
	t->mask = nb - 1;
	t->shift = 32u - (uint32_t)__builtin_ctz(nb);
	for (uint32_t i = 0; i < nb; i++)
		t->b[i].worker = RPS_BUCKET_NONE;
	return t;
}

void
rps_buckets_follow(struct rps_buckets *t, const struct rps_map *map)
{
	if (t == NULL || rps_buckets_settled(t, map))
		return;
	for (uint32_t i = 0; i <= t->mask; i++)
		t->b[i].worker = rps_map_worker(map, (uint32_t)((uint64_t)i << t->shift));
	t->settled = map;
	t->settled_gen = map->generation;
	t->scan_map = NULL;
	t->clean = 0;
	t->tails_stale = 1;
}

void
rps_buckets_free(struct rps_buckets *t)
{
	rte_free(t);
}

struct rps_bucket_stats *
rps_bucket_stats_create(int socket)
{
	return rte_zmalloc_socket("rps_bucket_stats", sizeof(struct rps_bucket_stats),
				  RTE_CACHE_LINE_SIZE, socket);
}

void
rps_bucket_stats_free(struct rps_bucket_stats *s)
{
	rte_free(s);
}

/* Counters of a map of another size: start again. The epoch is a sequence count: odd while
 * the counters are cleared, so the control thread discards what it read across it. */
static void
bucket_stats_resize(struct rps_bucket_stats *s, uint32_t mask)
{
	__atomic_store_n(&s->epoch, s->epoch + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memset(s->b, 0, sizeof(s->b));
	__atomic_store_n(&s->mask, mask, __ATOMIC_RELAXED);
	__atomic_store_n(&s->epoch, s->epoch + 1, __ATOMIC_RELEASE);
}

/* Count a burst in its map buckets (plain stores: this lcore is the only writer), but not
 * the packets a rule sent to its worker (@p rt, NULL: none): they are not the bucket's, its
 * owner never sees them (and a move of the bucket would not move them). */
static inline void
bucket_stats_add(struct rps_bucket_stats *s, const struct rps_map *map, const uint32_t *hv,
		 const uint16_t *rt, struct rte_mbuf *const *pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		struct rps_bucket_ctr *c = &s->b[rps_map_bucket(map, hv[i])];

		if (rt != NULL && rt[i] != RPS_RULE_NONE)
			continue;

		c->packets++;
		c->bytes += pkts[i]->pkt_len;
	}
}

/* The reorder-safe choice for one packet: stay on the bucket's old worker while it still
 * holds this bucket's packets, and remember where this packet will sit in the backlog. */
static inline uint16_t
bucket_worker(struct rps_steer_ctx *ctx, const struct rps_map *map, struct rps_buckets *t,
	      uint32_t hash, uint32_t *moved, uint32_t *deferred)
{
	/* The bucket is the hash's top bits, as the map's, and at least as many: every flow
	 * of a bucket wants the same worker and a bucket moves as one piece. */
	struct rps_bucket *b = &t->b[(uint64_t)hash >> t->shift];
	uint16_t want = rps_map_worker(map, hash);
	uint32_t cur = b->worker;
	uint16_t w = want;

	if (unlikely(cur != want)) {
		if (cur != RPS_BUCKET_NONE && cur < ctx->nb_workers &&
		    !rps_backlog_passed(&ctx->backlogs[cur], b->last_tail, ctx->group_len[cur])) {
			if (likely(!rps_backlog_failed(&ctx->backlogs[cur]))) {
				w = (uint16_t)cur;
				(*deferred)++;
				goto stay;
			}
			/* failover: its worker stalled with packets of the bucket */
			if (b->used)
				RPS_CTR_ADD(ctx->stats->failover_moves, 1);
		}
		*moved += cur != RPS_BUCKET_NONE && b->used;
		b->worker = want;
	}
stay:
	b->used = 1;
	/* position right after this packet once its group is enqueued */
	b->last_tail = ctx->backlogs[w].prod.tail + ctx->group_len[w] + 1;
	return w;
}

/* First per-packet burst after a settled period: the fast path kept no last_tail, so take
 * each bucket's worker's current tail (no packet of the bucket can sit past it). */
static void
refresh_tails(const struct rps_steer_ctx *ctx, struct rps_buckets *t)
{
	for (uint32_t i = 0; i <= t->mask; i++) {
		struct rps_bucket *b = &t->b[i];

		if (b->worker < ctx->nb_workers)
			b->last_tail = ctx->backlogs[b->worker].prod.tail;
	}
	t->tails_stale = 0;
}

/* Background step while a map is new: move buckets that want another worker and whose old
 * worker has drained them; once a whole turn finds every bucket agreeing, the map is settled. */
static void
settle_scan(const struct rps_steer_ctx *ctx, const struct rps_map *map, struct rps_buckets *t,
	    uint32_t *moved)
{
	/* a count of agreeing buckets only holds for the map it was counted against */
	if (map != t->scan_map || map->generation != t->scan_gen) {
		t->scan_map = map;
		t->scan_gen = map->generation;
		t->clean = 0;
	}
	for (unsigned int k = 0; k < RPS_SETTLE_SCAN; k++) {
		uint32_t i = t->scan;
		struct rps_bucket *b = &t->b[i];
		/* the map's choice for any hash of this bucket: its top bits are i */
		uint16_t want = rps_map_worker(map, (uint32_t)((uint64_t)i << t->shift));
		uint32_t cur = b->worker;

		t->scan = (i + 1) & t->mask;
		if (cur != want) {
			if (cur != RPS_BUCKET_NONE && cur < ctx->nb_workers &&
			    !rps_backlog_passed(&ctx->backlogs[cur], b->last_tail, 0)) {
				if (!rps_backlog_failed(&ctx->backlogs[cur])) {
					t->clean = 0;
					continue;
				}
				if (b->used)
					RPS_CTR_ADD(ctx->stats->failover_moves, 1);
			}
			*moved += cur != RPS_BUCKET_NONE && b->used;
			b->worker = want;
		}
		if (++t->clean > t->mask) {
			t->settled = map;
			t->settled_gen = map->generation;
			t->tails_stale = 1;
			t->clean = 0;
			return;
		}
	}
}

/* Free the @p n packets of a group that backlog @p b refused (g: the first of them), each
 * counted under the backlog's full reason, in total and for its ingress port. */
static void
drop_refused(struct rps_steer_ctx *ctx, struct rps_backlog *b, struct rte_mbuf **g, uint32_t n)
{
	const enum rps_drop_reason r = rps_backlog_full_reason(b);

	RPS_CTR_ADD(b->prod.full_drops, n);
	RPS_CTR_ADD(ctx->stats->dropped[r], n);
	rps_stats_port_drop_bulk(ctx->stats, g, n, r);
	rte_pktmbuf_free_bulk(g, n);
}

/* Append packet @p m (hash @p h) to worker @p w's group, unless the flow limit refuses it
 * (then it is freed and counted). @return 1 when appended. */
static inline int
group_add(struct rps_steer_ctx *ctx, uint16_t w, struct rte_mbuf *m, uint32_t h,
	  uint16_t *nb_touched, uint32_t *limited)
{
	uint16_t *glen = ctx->group_len;
	const int fresh = glen[w] == 0;

	if (fresh) {
		ctx->touched[(*nb_touched)++] = w;
		if (ctx->flow_limit)
			ctx->head_snap[w] = __atomic_load_n(&ctx->backlogs[w].cons.head,
							    __ATOMIC_ACQUIRE);
	}
	if (unlikely(ctx->flow_limit)) {
		struct rps_backlog *b = &ctx->backlogs[w];
		uint64_t qlen = b->prod.tail + glen[w] - ctx->head_snap[w];

		/* as the kernel: only while the backlog is at least half full */
		if (qlen >= b->capacity / 2 && rps_backlog_flow_limited(b, h)) {
			rps_stats_port_drop(ctx->stats, m, RPS_DROP_FLOW_LIMIT);
			rte_pktmbuf_free(m);
			RPS_CTR_ADD(b->prod.fl_drops, 1);
			(*limited)++;
			if (fresh)
				(*nb_touched)--; /* w is last in touched: each worker once */
			return 0;
		}
	}
	ctx->groups[(uint32_t)w * ctx->burst_max + glen[w]++] = m;
	return 1;
}

/* Step 3 of the common case: the groups of the burst, whose workers fast_pass() left in
 * ctx->target. A burst whose packets all want one worker (@p one: one worker, or a train of
 * one flow) becomes its group in one copy: appending packet by packet makes each append wait
 * for the previous one's group length (a store-to-load chain through memory, about 5 cycles
 * a packet) when consecutive packets go to the same worker. */
static __rte_always_inline void
group_targets(struct rps_steer_ctx *ctx, struct rte_mbuf **pkts, uint16_t n, int one,
	      uint16_t *nb_touched)
{
	struct rte_mbuf **groups = ctx->groups;
	uint16_t *glen = ctx->group_len;
	const uint16_t *tv = ctx->target;
	const uint32_t bmax = ctx->burst_max;
	uint16_t nt = *nb_touched;

	if (one) {
		/* the group is empty: rps_steer_burst() starts with every group empty */
		memcpy(&groups[(uint32_t)tv[0] * bmax], pkts, n * sizeof(*pkts));
		glen[tv[0]] = n;
		ctx->touched[nt++] = tv[0];
	} else {
		for (uint16_t i = 0; i < n; i++) {
			const uint16_t w = tv[i], len = glen[w];

			if (len == 0)
				ctx->touched[nt++] = w;
			groups[(uint32_t)w * bmax + len] = pkts[i];
			glen[w] = (uint16_t)(len + 1);
		}
	}
	*nb_touched = nt;
}

/* Headers prefetched RPS_STEER_PREFETCH packets ahead of the one hashed in software: the
 * first ones before the loop (then call with each i). */
static __rte_always_inline void
prefetch_ahead(struct rte_mbuf *const *pkts, uint16_t n, int first, uint16_t i)
{
	if (first) {
		for (uint16_t j = 0; j < RTE_MIN(n, (uint16_t)RPS_STEER_PREFETCH); j++)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[j], void *));
	} else if (i + RPS_STEER_PREFETCH < n) {
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i + RPS_STEER_PREFETCH], void *));
	}
}

/* Packet i's hash: from the key the rules extracted (@p keys, non-NULL only when the hash is
 * software without --inner, rules_pass()), put in canonical order when symmetric, as
 * rps_steer_key_then_hash() would; else (and for a frame without an IP flow, whose layer-2
 * key is sorted where it is made) rps_steer_flow_hash(). */
static __rte_always_inline uint32_t
packet_hash(const struct rps_steer_ctx *ctx, const struct rps_steer_hasher *hs,
	    const struct rps_flow_key *keys, struct rte_mbuf *const *pkts, uint16_t i,
	    uint32_t *computed)
{
	if (keys != NULL && likely(keys[i].family != 0)) {
		struct rps_flow_key k = keys[i];

		(*computed)++;
		if (hs->sort)
			rps_flow_key_symmetric(&k);
		return rps_steer_key_hash(ctx, hs->fn, &k, k.family);
	}
	return rps_steer_flow_hash(ctx, hs, pkts[i], computed);
}

/* Where fast_pass() takes each packet's hash from. */
enum fast_src {
	FAST_KEYS,   /* packet_hash(): the NIC's, or the key (the rules', or extracted) hashed */
	FAST_NIC,    /* the NIC's alone; a packet without it calls nic_missing_hash() */
	FAST_HASHED, /* ctx->hashes, filled by jhash_lanes_pass() */
};

/* The software hash of a packet that came without the NIC's hash it was to be steered by
 * (fast_pass() with FAST_NIC): out of line, so that the loop over packets that have one keeps
 * its values in registers. */
static __rte_noinline uint32_t
nic_missing_hash(const struct rps_steer_ctx *ctx, const struct rps_steer_hasher *hs,
		 const struct rte_mbuf *m)
{
	uint32_t computed = 0;

	return rps_steer_flow_hash(ctx, hs, m, &computed);
}

/*
 * Steps 1 to 3 in the common case (a settled map, no rule matched, no flow limit, no order
 * check): per packet its hash (headers prefetched when hashed in software), its bucket of the
 * map, the bucket's counters (@p s, or NULL: a constant in each inlined copy) and its worker,
 * in one loop (the hash, the bucket and the worker stay in registers); then the groups.
 * @p src (a constant in each copy) says where the hash comes from. FAST_NIC: the caller
 * checked that hs->nic is set and that neither rules' keys nor ctx->prefetch ask for more;
 * the loop is the NIC's hash alone, and a packet without one calls out: the flags the general
 * loop tests per packet are gone, and what it kept on the stack (the OR of the workers, a
 * chain through memory of a store-to-load a packet) stays in registers. FAST_HASHED: the
 * hashes are in ctx->hashes already.
 */
static __rte_always_inline void
fast_pass(struct rps_steer_ctx *ctx, const struct rps_steer_hasher *hs,
	  const struct rps_map *map, struct rps_bucket_stats *s, const struct rps_flow_key *keys,
	  struct rte_mbuf **pkts, uint16_t n, uint16_t *nb_touched, uint32_t *computed,
	  enum fast_src src)
{
	/* the rules' pass read the headers already when it extracted the keys */
	const int pf = src == FAST_KEYS && keys == NULL &&
		       (ctx->mode == RPS_HASH_JHASH || ctx->prefetch);
	const uint32_t *hv = ctx->hashes;
	uint16_t *tv = ctx->target;
	uint16_t any = 0, all = UINT16_MAX; /* OR and AND of the workers: equal iff one */
	uint32_t missing = 0; /* FAST_NIC: packets without the NIC's hash */

	if (pf)
		prefetch_ahead(pkts, n, 1, 0);
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint32_t bkt, h;
		uint16_t w;

		if (pf)
			prefetch_ahead(pkts, n, 0, i);
		if (src == FAST_NIC) {
			if (likely(rps_hash_has_rss(m))) {
				h = rps_hash_rss(m);
			} else {
				missing++;
				h = nic_missing_hash(ctx, hs, m);
			}
		} else if (src == FAST_HASHED) {
			h = hv[i];
		} else {
			h = packet_hash(ctx, hs, keys, pkts, i, computed);
		}
		bkt = rps_map_bucket(map, h);
		w = map->table[bkt];
		if (s != NULL) {
			s->b[bkt].packets++;
			s->b[bkt].bytes += m->pkt_len;
		}
		tv[i] = w;
		any |= w;
		all &= w;
	}
	if (src == FAST_NIC)
		*computed += missing;
	group_targets(ctx, pkts, n, any == all, nb_touched);
}

/* fast_pass() without the rules' keys, from @p src (a constant), compiled once with the
 * bucket counters and once without (NULL a constant in that copy). */
static __rte_always_inline void
keyless_pass(struct rps_steer_ctx *ctx, const struct rps_steer_hasher *hs,
	     const struct rps_map *map, struct rps_bucket_stats *s, struct rte_mbuf **pkts,
	     uint16_t n, uint16_t *nb_touched, uint32_t *computed, enum fast_src src)
{
	if (s != NULL)
		fast_pass(ctx, hs, map, s, NULL, pkts, n, nb_touched, computed, src);
	else
		fast_pass(ctx, hs, map, NULL, NULL, pkts, n, nb_touched, computed, src);
}

/*
 * Step 1 of the software jhash in the common case (no rules' keys, no --inner): each packet's
 * key, its header prefetched ahead, put in its family's lanes (a packet that has the NIC's
 * hash it is to be steered by, hs->nic, keeps it; one outside the common layout is hashed at
 * once, rps_steer_flow_hash_slow()); then each family's keys hashed side by side
 * (rps_hash_jhash3_lanes(), rps_hash_jhash9_lanes()) into ctx->hashes. @p sort a constant in
 * each copy. The same hashes as rps_steer_key_then_hash() (unit-steer checks it against
 * rps_hash_sw()), at a fraction of the cost: a key's jhash is a chain of dependent steps, and
 * one per packet in the loop left the core waiting on each. @return how many it computed.
 */
static __rte_always_inline uint32_t
jhash_lanes_pass(struct rps_steer_ctx *ctx, const struct rps_steer_hasher *hs,
		 struct rte_mbuf **pkts, uint16_t n, int sort)
{
	const struct rps_steer_lanes *l = &ctx->lanes;
	const uint32_t cap = l->cap;
	uint32_t *hv = ctx->hashes;
	uint32_t n4 = 0, n6 = 0, nic = 0;

	prefetch_ahead(pkts, n, 1, 0);
	for (uint16_t i = 0; i < n; i++) {
		const struct rte_mbuf *m = pkts[i];
		struct rps_flow_key k;

		prefetch_ahead(pkts, n, 0, i);
		if (hs->nic && rps_hash_has_rss(m)) {
			hv[i] = rps_hash_rss(m);
			nic++;
			continue;
		}
		switch (rps_flow_key_get_fast(m, sort, NULL, &k)) {
		case 4:
			l->w4[n4] = k.src[0];
			l->w4[cap + n4] = k.dst[0];
			l->w4[2 * cap + n4] = k.ports;
			l->i4[n4++] = i;
			break;
		case 6:
			/* word by word, no loop: the key's address is never taken, so that it
			 * stays in registers (a loop over k.w kept it on the stack) */
			l->w6[n6] = k.w[0];
			l->w6[cap + n6] = k.w[1];
			l->w6[2 * cap + n6] = k.w[2];
			l->w6[3 * cap + n6] = k.w[3];
			l->w6[4 * cap + n6] = k.w[4];
			l->w6[5 * cap + n6] = k.w[5];
			l->w6[6 * cap + n6] = k.w[6];
			l->w6[7 * cap + n6] = k.w[7];
			l->w6[8 * cap + n6] = k.w[8];
			l->i6[n6++] = i;
			break;
		default:
			hv[i] = rps_steer_flow_hash_slow(ctx, m, RPS_STEER_HASH_JHASH, sort, NULL);
			break;
		}
	}
	rps_hash_jhash3_lanes(l->w4, cap, n4, ctx->seed, l->h4);
	rps_hash_jhash9_lanes(l->w6, cap, n6, ctx->seed, l->h6);
	/* never 0, as rps_hash_key_family() */
	for (uint32_t j = 0; j < n4; j++)
		hv[l->i4[j]] = l->h4[j] ? l->h4[j] : 1;
	for (uint32_t j = 0; j < n6; j++)
		hv[l->i6[j]] = l->h6[j] ? l->h6[j] : 1;
	return n - nic;
}

/* jhash_lanes_pass() compiled once sorted and once not: called once a burst, from the fast
 * path and from the general one. */
static __rte_noinline uint32_t
jhash_lanes(struct rps_steer_ctx *ctx, const struct rps_steer_hasher *hs,
	    struct rte_mbuf **pkts, uint16_t n)
{
	return hs->sort ? jhash_lanes_pass(ctx, hs, pkts, n, 1) :
	       jhash_lanes_pass(ctx, hs, pkts, n, 0);
}

/* Step 1 of the general path: every packet's hash into ctx->hashes. */
static void
hash_pass(struct rps_steer_ctx *ctx, const struct rps_steer_hasher *hs,
	  const struct rps_flow_key *keys, struct rte_mbuf **pkts, uint16_t n,
	  uint32_t *computed)
{
	const int pf = keys == NULL && (ctx->mode == RPS_HASH_JHASH || ctx->prefetch);
	uint32_t *hv = ctx->hashes;

	if (pf)
		prefetch_ahead(pkts, n, 1, 0);
	for (uint16_t i = 0; i < n; i++) {
		if (pf)
			prefetch_ahead(pkts, n, 0, i);
		hv[i] = packet_hash(ctx, hs, keys, pkts, i, computed);
	}
}

/* Backpressure: enqueue what fits of the groups of touched[0..nb_held); keep the rest at the
 * front of each group, and those workers at the front of touched. @return packets placed. */
static uint32_t
place_held(struct rps_steer_ctx *ctx)
{
	uint16_t *glen = ctx->group_len;
	uint16_t keep = 0;
	uint32_t sent = 0;

	ctx->held = 0;
	for (uint16_t t = 0; t < ctx->nb_held; t++) {
		uint16_t w = ctx->touched[t];
		struct rte_mbuf **g = &ctx->groups[(uint32_t)w * ctx->burst_max];
		struct rps_backlog *b = &ctx->backlogs[w];
		uint32_t ok = rps_backlog_enqueue_keep(b, g, glen[w]);

		sent += ok;
		if (ok == glen[w]) {
			glen[w] = 0;
			continue;
		}
		if (rps_backlog_failed(b)) { /* a stalled worker: do not wait for it */
			drop_refused(ctx, b, g + ok, glen[w] - ok);
			glen[w] = 0;
			continue;
		}
		memmove(g, g + ok, (glen[w] - ok) * sizeof(*g));
		glen[w] = (uint16_t)(glen[w] - ok);
		ctx->held += glen[w];
		ctx->touched[keep++] = w;
	}
	ctx->nb_held = keep;
	return sent;
}

uint32_t
rps_steer_flush(struct rps_steer_ctx *ctx)
{
	if (ctx->held != 0)
		RPS_CTR_ADD(ctx->stats->enqueued, place_held(ctx));
	return ctx->held;
}

void
rps_steer_drop_held(struct rps_steer_ctx *ctx)
{
	for (uint16_t t = 0; t < ctx->nb_held; t++) {
		uint16_t w = ctx->touched[t];
		struct rps_backlog *b = &ctx->backlogs[w];

		drop_refused(ctx, b, &ctx->groups[(uint32_t)w * ctx->burst_max],
			     ctx->group_len[w]);
		ctx->group_len[w] = 0;
	}
	ctx->nb_held = 0;
	ctx->held = 0;
}

uint32_t
rps_steer_flow_hash_slow(const struct rps_steer_ctx *ctx, const struct rte_mbuf *m,
			 enum rps_steer_hash_fn fn, int sort, const struct rps_inner_cfg *tunnels)
{
	struct rps_flow_key k;
	const int rc = rps_flow_key_extract_slow(m, sort, tunnels, &k);

	if (rc == RPS_INNER_HASHED)
		RPS_CTR_ADD(ctx->stats->inner_hashed, 1);
	else if (rc == RPS_INNER_FALLBACK)
		RPS_CTR_ADD(ctx->stats->inner_fallback, 1);
	return rps_steer_key_hash(ctx, fn, &k, k.family);
}

/* rps_steer_key_then_hash() compiled once per decision: FN (0 jhash, 1 Toeplitz), SORT and
 * INNER constants in each (rps_steer_key_hasher() picks one) */
#define RPS_STEER_KEY_HASHER(FN, SORT, INNER) \
static uint32_t \
key_hash_##FN##SORT##INNER(const struct rps_steer_ctx *ctx, const struct rte_mbuf *m) \
{ \
	return rps_steer_key_then_hash(ctx, m, \
				       (FN) ? RPS_STEER_HASH_TOEPLITZ : RPS_STEER_HASH_JHASH, \
				       (SORT), (INNER) ? &ctx->tunnels : NULL); \
}
RPS_STEER_KEY_HASHER(0, 0, 0) RPS_STEER_KEY_HASHER(0, 0, 1)
RPS_STEER_KEY_HASHER(0, 1, 0) RPS_STEER_KEY_HASHER(0, 1, 1)
RPS_STEER_KEY_HASHER(1, 0, 0) RPS_STEER_KEY_HASHER(1, 0, 1)
RPS_STEER_KEY_HASHER(1, 1, 0) RPS_STEER_KEY_HASHER(1, 1, 1)
#undef RPS_STEER_KEY_HASHER

const rps_steer_key_hash_t rps_steer_key_hashers[8] = {
	key_hash_000, key_hash_001, key_hash_010, key_hash_011,
	key_hash_100, key_hash_101, key_hash_110, key_hash_111,
};

/* The rules' pass: classify the burst, count each rule's hits, free what a drop rule matched
 * (counted as `rule`), and compact the rest with their rule's worker in ctx->rule_target
 * (RPS_RULE_NONE: the map decides). With @p share (the hash is software, without --inner)
 * the flow keys are extracted into ctx->keys, headers prefetched, and kept in step with the
 * packets, so that the hash reads them instead of extracting them again.
 * @return packets kept; @p steered_out: how many of them a rule sent to its worker. */
static uint16_t
rules_pass(struct rps_steer_ctx *ctx, struct rte_mbuf **pkts, uint16_t n, int share,
	   uint16_t *steered_out)
{
	const struct rps_rules *rs = ctx->rules;
	struct rps_flow_key *keys = ctx->keys;
	uint16_t *rt = ctx->rule_target;
	uint16_t kept = 0, dropped = 0, steered = 0, matched;
	/* where both directions of a connection go to one worker, a rule takes the connection:
	 * it matches a packet or its reverse */
	const int both = ctx->symmetric != RPS_SYM_OFF;

	if (share) {
		prefetch_ahead(pkts, n, 1, 0);
		for (uint16_t i = 0; i < n; i++) {
			prefetch_ahead(pkts, n, 0, i);
			(void)rps_flow_key_get(pkts[i], 0, NULL, &keys[i]);
		}
		matched = rps_rules_classify_keys_dir(rs, keys, n, rt, both);
	} else {
		matched = rps_rules_classify_dir(rs, pkts, n, rt, both);
	}
	*steered_out = 0;
	if (matched == 0)
		return n;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint16_t r = rt[i], t = RPS_RULE_NONE;

		if (r != RPS_RULE_NONE) {
			ctx->rule_hits[rs->slot[r]]++;
			t = rs->target[r];
			if (t == RPS_RULE_DROP) {
				rps_stats_port_drop(ctx->stats, m, RPS_DROP_RULE);
				rte_pktmbuf_free(m);
				dropped++;
				continue;
			}
			steered++;
		}
		if (share && kept != i)
			keys[kept] = keys[i];
		rt[kept] = t;
		pkts[kept++] = m;
	}
	RPS_CTR_ADD(ctx->stats->dropped[RPS_DROP_RULE], dropped);
	RPS_CTR_ADD(ctx->stats->rule_steered, steered);
	*steered_out = steered;
	return kept;
}

uint32_t
rps_steer_burst(struct rps_steer_ctx *ctx, const struct rps_map *map,
		struct rps_buckets *buckets, struct rps_bucket_stats *bstats,
		struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf **groups = ctx->groups;
	uint16_t *glen = ctx->group_len;
	uint32_t *hv = ctx->hashes;
	uint16_t *tv = ctx->target;
	const uint32_t bmax = ctx->burst_max;
	const uint16_t *rt = NULL; /* each packet's rule worker, when a rule matched any */
	const struct rps_flow_key *keys = NULL; /* the rules' keys, when the hash takes them */
	struct rps_steer_hasher hs;
	uint16_t nb_touched = 0;
	uint32_t sent = 0, computed = 0, moved = 0, deferred = 0, limited = 0;
	int lanes;

	RTE_ASSERT(n <= ctx->burst_max);
	RTE_ASSERT(buckets == NULL || buckets->mask >= map->mask);

	hs = rps_steer_hasher(ctx);
	/* 0. the rules, before the map: drops leave the burst, matches get their worker; their
	 * flow keys are the software hash's too (not with the NIC's hash, nor with --inner,
	 * which hashes the inner packet's key) */
	if (ctx->rules != NULL && ctx->rules->nb_rules != 0) {
		const int share = !hs.nic && hs.tunnels == NULL;
		uint16_t steered;

		n = rules_pass(ctx, pkts, n, share, &steered);
		keys = share ? ctx->keys : NULL;
		if (steered != 0)
			rt = ctx->rule_target;
	}

	/* 1. hashes: the NIC's, or the flow key's under the function the settings chose;
	 * 2. each packet's worker; 3. one group per worker */
	/* the software jhash of keys extracted here, but not for a burst of NIC hashes */
	lanes = keys == NULL && hs.fn == RPS_STEER_HASH_JHASH && hs.tunnels == NULL &&
		(!hs.nic || ctx->prefetch);
	if (bstats != NULL && unlikely(bstats->mask != map->mask))
		bucket_stats_resize(bstats, map->mask);
	if (likely(rt == NULL && !ctx->flow_limit && ctx->order == NULL && n != 0) &&
	    (buckets == NULL || rps_buckets_settled(buckets, map))) {
		/* the common case, in one pass (compiled without keys, with and without counters:
		 * rules cost nothing when there are none) */
		if (keys != NULL) {
			fast_pass(ctx, &hs, map, bstats, keys, pkts, n, &nb_touched, &computed,
				  FAST_KEYS);
		} else if (hs.nic && !ctx->prefetch) {
			keyless_pass(ctx, &hs, map, bstats, pkts, n, &nb_touched, &computed,
				     FAST_NIC);
		} else if (lanes) {
			computed = jhash_lanes(ctx, &hs, pkts, n);
			keyless_pass(ctx, &hs, map, bstats, pkts, n, &nb_touched, &computed,
				     FAST_HASHED);
		} else {
			keyless_pass(ctx, &hs, map, bstats, pkts, n, &nb_touched, &computed,
				     FAST_KEYS);
		}
	} else {
		if (lanes)
			computed = jhash_lanes(ctx, &hs, pkts, n);
		else
			hash_pass(ctx, &hs, keys, pkts, n, &computed);
		if (ctx->order != NULL)
			for (uint16_t i = 0; i < n; i++)
				rps_order_stamp(ctx->order, pkts[i], hv[i], ctx->queue);
		if (bstats != NULL)
			bucket_stats_add(bstats, map, hv, rt, pkts, n);
		if (buckets == NULL || rps_buckets_settled(buckets, map)) {
			for (uint16_t i = 0; i < n; i++)
				tv[i] = rt != NULL && rt[i] != RPS_RULE_NONE ? rt[i] :
					rps_map_worker(map, hv[i]);
			for (uint16_t i = 0; i < n; i++)
				group_add(ctx, tv[i], pkts[i], hv[i], &nb_touched, &limited);
		} else {
			/* a new map: per packet, a bucket moves only once its old worker drained
			 * it; targets depend on the groups built so far, so both go together */
			if (buckets->tails_stale)
				refresh_tails(ctx, buckets);
			for (uint16_t i = 0; i < n; i++) {
				uint16_t w = rt != NULL && rt[i] != RPS_RULE_NONE ? rt[i] :
					bucket_worker(ctx, map, buckets, hv[i], &moved, &deferred);

				/* a refused packet leaves its bucket's last_tail one ahead:
				 * harmless, the next packet of that worker takes the position */
				group_add(ctx, w, pkts[i], hv[i], &nb_touched, &limited);
			}
		}
	}

	/* 4. one enqueue per worker touched */
	if (unlikely(ctx->backpressure)) {
		ctx->nb_held = nb_touched;
		sent += place_held(ctx);
	} else {
		for (uint16_t t = 0; t < nb_touched; t++) {
			uint16_t w = ctx->touched[t];
			struct rps_backlog *b = &ctx->backlogs[w];
			struct rte_mbuf **g = &groups[(uint32_t)w * bmax];
			/* rps_backlog_enqueue(), with the refused counted by port before freed */
			uint32_t ok = rps_backlog_enqueue_keep(b, g, glen[w]);

			if (unlikely(ok < glen[w]))
				drop_refused(ctx, b, g + ok, glen[w] - ok);
			sent += ok;
			glen[w] = 0;
		}
	}
	if (buckets != NULL && !rps_buckets_settled(buckets, map))
		settle_scan(ctx, map, buckets, &moved);
	if (limited != 0)
		RPS_CTR_ADD(ctx->stats->dropped[RPS_DROP_FLOW_LIMIT], limited);
	RPS_CTR_ADD(ctx->stats->enqueued, sent);
	RPS_CTR_ADD(ctx->stats->hash_computed, computed);
	RPS_CTR_ADD(ctx->stats->hash_from_nic, n - computed);
	if (moved != 0 || deferred != 0) {
		RPS_CTR_ADD(ctx->stats->flows_migrated, moved);
		RPS_CTR_ADD(ctx->stats->migrations_deferred, deferred);
	}
	return sent;
}
