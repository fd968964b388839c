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
	if (ctx->groups == NULL || ctx->group_len == NULL || ctx->touched == NULL) {
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
	ctx->groups = NULL;
	ctx->group_len = NULL;
	ctx->touched = NULL;
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
	t->shift = 32 - (uint32_t)__builtin_ctz(nb);
	t->low_mask = (UINT32_C(1) << t->shift) - 1;
	for (uint32_t i = 0; i < nb; i++)
		t->b[i].worker = RPS_BUCKET_NONE;
	return t;
}

void
rps_buckets_free(struct rps_buckets *t)
{
	rte_free(t);
}

/* The reorder-safe choice for one packet: stay on the bucket's old worker while it still
 * holds this bucket's packets, and remember where this packet will sit in the backlog. */
static inline uint16_t
bucket_worker(struct rps_steer_ctx *ctx, const struct rps_map *map, struct rps_buckets *t,
	      uint32_t hash, uint32_t *moved, uint32_t *deferred)
{
	/* The bucket is the hash's top bits, and the map is looked up with the bucket's own
	 * hash (its low bits cleared), so every flow of a bucket wants the same worker and a
	 * bucket moves as one piece. */
	struct rps_bucket *b = &t->b[hash >> t->shift];
	uint16_t want = rps_map_worker(map, hash & ~t->low_mask);
	uint32_t cur = b->worker;
	uint16_t w = want;

	if (unlikely(cur != want)) {
		if (cur != RPS_BUCKET_NONE && cur < ctx->nb_workers &&
		    !rps_backlog_passed(&ctx->backlogs[cur], b->last_tail, ctx->group_len[cur])) {
			w = (uint16_t)cur;
			(*deferred)++;
		} else {
			*moved += cur != RPS_BUCKET_NONE;
			b->worker = want;
		}
	}
	/* position right after this packet once its group is enqueued */
	b->last_tail = ctx->backlogs[w].prod.tail + ctx->group_len[w] + 1;
	return w;
}

uint32_t
rps_steer_burst(struct rps_steer_ctx *ctx, const struct rps_map *map,
		struct rps_buckets *buckets, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf **groups = ctx->groups;
	uint16_t *glen = ctx->group_len;
	uint16_t nb_touched = 0;
	uint32_t sent = 0, computed = 0, moved = 0, deferred = 0;
	const int prefetch = ctx->prefetch;

	RTE_ASSERT(n <= ctx->burst_max);

	if (prefetch)
		for (uint16_t i = 0; i < RTE_MIN(n, (uint16_t)RPS_STEER_PREFETCH); i++)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint16_t w;

		if (prefetch && i + RPS_STEER_PREFETCH < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + RPS_STEER_PREFETCH], void *));
		uint32_t h = rps_steer_hash(ctx, m, &computed);

		w = buckets == NULL ? rps_map_worker(map, h) :
			bucket_worker(ctx, map, buckets, h, &moved, &deferred);
		if (ctx->order != NULL)
			rps_order_stamp(ctx->order, m, h);
		if (glen[w] == 0)
			ctx->touched[nb_touched++] = w;
		groups[(uint32_t)w * ctx->burst_max + glen[w]++] = m;
	}

	for (uint16_t t = 0; t < nb_touched; t++) {
		uint16_t w = ctx->touched[t];
		uint32_t ok = rps_backlog_enqueue(&ctx->backlogs[w],
						  &groups[(uint32_t)w * ctx->burst_max], glen[w]);

		RPS_CTR_ADD(ctx->stats->dropped[RPS_DROP_BACKLOG_FULL], glen[w] - ok);
		sent += ok;
		glen[w] = 0;
	}
	RPS_CTR_ADD(ctx->stats->enqueued, sent);
	RPS_CTR_ADD(ctx->stats->hash_computed, computed);
	RPS_CTR_ADD(ctx->stats->hash_from_nic, n - computed);
	if (buckets != NULL) {
		RPS_CTR_ADD(ctx->stats->flows_migrated, moved);
		RPS_CTR_ADD(ctx->stats->migrations_deferred, deferred);
	}
	return sent;
}
