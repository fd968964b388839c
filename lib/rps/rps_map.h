/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_map.h: lcore sets (the --map syntax) and the immutable map from flow hash to worker.
 *
 * A map is an indirection table, as a NIC's RETA: a power-of-two number of buckets (default
 * 128, at most 4096), bucket = the hash's top log2(size) bits (hash >> (32 - log2(size)),
 * the kernel's reciprocal_scale()), worker = table[bucket]. Top bits, not low ones: a NIC
 * picks the RX queue from the low bits (RETA[hash & (reta_size - 1)]), so within one queue
 * those bits are all alike and a table indexed by them would use 1/Q of its buckets (see
 * docs/rss-bits.md). A set of lcores
 * fills it evenly (bucket i -> the i-th lcore modulo their number, as NICs fill their RETA);
 * weights fill it in proportion, interleaved. It is created once, never modified, and
 * reached through one pointer per RX queue, so that a new one (a reload, or the rebalancer
 * moving a few buckets) is published with a single pointer store and the old one reclaimed
 * after an RCU grace period (rte_rcu_qsbr). rps_map_worker() is the whole fast-path lookup.
 *
 * Lcore-set syntax, as the kernel's rps_cpus takes it (bitmap_parse): hexadecimal, optional
 * 0x prefix, comma-separated 32-bit groups with the most significant group first ("fe",
 * "0xfe", "ff,ffffffff"); or a list of lcores and ranges, each with an optional weight
 * ("1-3,5", "7-7", "1:2,2:1,3:1", "1-4:3,5"). A value that contains '-' or ':' is a list,
 * anything else is hex. "0" is the empty set. A weight is 1..4096 (default 1); an lcore
 * listed twice takes the last weight.
 */
#ifndef RPS_MAP_H
#define RPS_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <rte_config.h>

#define RPS_LCORESET_WORDS ((RTE_MAX_LCORE + 63) / 64)

/** Largest weight of an lcore in a map. */
#define RPS_WEIGHT_MAX 4096

/** A set of lcore ids below RTE_MAX_LCORE, each with a weight (its share of the table). */
struct rps_lcoreset {
	uint64_t bits[RPS_LCORESET_WORDS];
	uint16_t weight[RTE_MAX_LCORE]; /**< 0 means 1: rps_lcoreset_weight() */
};

/** Buckets of a map's table: a power of two in [RPS_MAP_SIZE_MIN, RPS_MAP_SIZE_MAX]. */
#define RPS_MAP_SIZE_MIN 1
#define RPS_MAP_SIZE_MAX 4096
#define RPS_MAP_SIZE_DEFAULT 128

static inline int
rps_lcoreset_has(const struct rps_lcoreset *s, unsigned int lcore)
{
	return lcore < RTE_MAX_LCORE && (s->bits[lcore / 64] >> (lcore % 64)) & 1;
}

static inline void
rps_lcoreset_add(struct rps_lcoreset *s, unsigned int lcore)
{
	if (lcore < RTE_MAX_LCORE)
		s->bits[lcore / 64] |= UINT64_C(1) << (lcore % 64);
}

/** Weight of @p lcore in the set (1 unless given), 0 when it is not in the set. */
static inline unsigned int
rps_lcoreset_weight(const struct rps_lcoreset *s, unsigned int lcore)
{
	if (!rps_lcoreset_has(s, lcore))
		return 0;
	return s->weight[lcore] != 0 ? s->weight[lcore] : 1;
}

/** Whether some lcore of the set has a weight other than 1. */
int rps_lcoreset_weighted(const struct rps_lcoreset *s);

/** Number of lcores in the set. */
unsigned int rps_lcoreset_count(const struct rps_lcoreset *s);

/**
 * Parse a map value.
 * @param bad_lcore set to the first lcore id >= RTE_MAX_LCORE when -ERANGE is returned.
 * @return 0; -EINVAL for empty or malformed text; -ERANGE for an lcore out of range.
 */
int rps_lcoreset_parse(const char *s, struct rps_lcoreset *set, unsigned int *bad_lcore);

/**
 * Parse a plain list of lcores and ranges ("0,1", "0-1,4"), as EAL's -l: no hex, no weights
 * (--rx-lcores, where --map's hex would read "0,1" as two 32-bit groups).
 * @param bad_lcore set to the first lcore id >= RTE_MAX_LCORE when -ERANGE is returned.
 * @return 0; -EINVAL for empty or malformed text; -ERANGE for an lcore out of range.
 */
int rps_lcoreset_parse_list(const char *s, struct rps_lcoreset *set, unsigned int *bad_lcore);

/**
 * Check that every lcore of @p want is in @p enabled and is not @p rx_lcore.
 * @return 0; -ENODEV (lcore not enabled) or -EBUSY (it is the RX lcore), with *bad_lcore set.
 */
int rps_lcoreset_check(const struct rps_lcoreset *want, const struct rps_lcoreset *enabled,
		       unsigned int rx_lcore, unsigned int *bad_lcore);

/** Kernel-style hex ("fe", "ff,ffffffff") of a set. @return chars written, or -ENOSPC. */
int rps_lcoreset_format(const struct rps_lcoreset *s, char *buf, size_t len);

/** The set as a list: "1,2,3", or with @p weights each lcore's weight, "1:2,2:1,3:1".
 * @return chars written, or -ENOSPC. */
int rps_lcoreset_format_list(const struct rps_lcoreset *s, int weights, char *buf,
			     size_t len);

/** Immutable hash-to-worker map: an indirection table. */
struct rps_map {
	uint32_t mask;        /**< table size - 1 */
	uint32_t nb_workers;  /**< distinct workers in the table; 0 = no steering */
	uint32_t generation;  /**< configuration generation that built it */
	uint32_t shift;       /**< 32 - log2(size): bucket = hash >> shift (32 for size 1) */
	uint16_t table[];     /**< [mask + 1]: bucket -> worker index (the application's) */
};

/** Table size of @p map (its number of buckets). */
static inline uint32_t
rps_map_size(const struct rps_map *map)
{
	return map->mask + 1;
}

/**
 * Fill a table of @p size buckets over @p nb workers in proportion to their weights: worker
 * i gets size * weights[i] / sum(weights) buckets, rounded by largest remainder, at least
 * one each, and its buckets are interleaved with the others' (smooth weighted round robin;
 * equal weights give table[b] = workers[b % nb] when nb divides size).
 * @param weights NULL for all 1; each 1..RPS_WEIGHT_MAX.
 * @return 0; -EINVAL (size not a power of two in range, nb == 0 or nb > size, a weight out
 * of range); -ENOMEM.
 */
int rps_map_fill(uint16_t *table, uint32_t size, const uint16_t *workers,
		 const uint32_t *weights, uint32_t nb);

/**
 * Create a map of @p size buckets filled by rps_map_fill() (rte_zmalloc on @p socket).
 * @p nb == 0 gives the empty map (no steering; size and the arrays are ignored).
 * @return the map, or NULL with rte_errno set (EINVAL, ENOMEM).
 */
struct rps_map *rps_map_create(const uint16_t *workers, const uint32_t *weights, uint32_t nb,
			       uint32_t size, uint32_t generation, int socket);

/**
 * Create a map from an explicit table of @p size (a power of two in range) entries, e.g. a
 * running map with a few buckets moved. @return the map, or NULL with rte_errno set.
 */
struct rps_map *rps_map_create_table(const uint16_t *table, uint32_t size,
				     uint32_t generation, int socket);

/** Free a map (NULL is fine). Only once no reader can still hold it. */
void rps_map_free(struct rps_map *map);

struct rte_rcu_qsbr;

/**
 * Replace the maps behind @p nb pointers (one per RX queue) with @p next, each with one
 * atomic release store, then wait (this thread only) until every reader registered with @p qs
 * has reported a quiescent state, and free the old maps. Readers load a slot with acquire
 * order, use the map, and report quiescent once they hold no map pointer. Control plane only;
 * one publisher at a time.
 */
void rps_map_publish(struct rps_map **slots, struct rps_map *const *next, unsigned int nb,
		     struct rte_rcu_qsbr *qs);

/** The bucket of @p hash in @p map: its top log2(size) bits. */
static inline uint32_t
rps_map_bucket(const struct rps_map *map, uint32_t hash)
{
	return (uint32_t)((uint64_t)hash >> map->shift);
}

/** The fast-path lookup: which worker gets @p hash. @p map must have nb_workers > 0. */
static inline uint16_t
rps_map_worker(const struct rps_map *map, uint32_t hash)
{
	return map->table[rps_map_bucket(map, hash)];
}

#endif /* RPS_MAP_H */
