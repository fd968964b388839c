/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_map.h: lcore sets (the --map syntax) and the immutable map from flow hash to worker.
 *
 * A map is created once, never modified, and reached through one pointer per RX queue, so
 * that a new one can be published with a single pointer store and the old one reclaimed
 * after an RCU grace period (rte_rcu_qsbr). rps_map_worker() is the whole fast-path lookup:
 * worker = workers[((uint64_t)hash * len) >> 32], the scaling of Linux's get_rps_cpu().
 *
 * Lcore-set syntax, as the kernel's rps_cpus takes it (bitmap_parse): hexadecimal, optional
 * 0x prefix, comma-separated 32-bit groups with the most significant group first ("fe",
 * "0xfe", "ff,ffffffff"); or a list of lcores and ranges ("1-3,5", "7-7"). A value that
 * contains '-' is a list, anything else is hex. "0" is the empty set.
 */
#ifndef RPS_MAP_H
#define RPS_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <rte_config.h>

#define RPS_LCORESET_WORDS ((RTE_MAX_LCORE + 63) / 64)

/** A set of lcore ids below RTE_MAX_LCORE. */
struct rps_lcoreset {
	uint64_t bits[RPS_LCORESET_WORDS];
};

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

/** Number of lcores in the set. */
unsigned int rps_lcoreset_count(const struct rps_lcoreset *s);

/**
 * Parse a map value.
 * @param bad_lcore set to the first lcore id >= RTE_MAX_LCORE when -ERANGE is returned.
 * @return 0; -EINVAL for empty or malformed text; -ERANGE for an lcore out of range.
 */
int rps_lcoreset_parse(const char *s, struct rps_lcoreset *set, unsigned int *bad_lcore);

/**
 * Check that every lcore of @p want is in @p enabled and is not @p rx_lcore.
 * @return 0; -ENODEV (lcore not enabled) or -EBUSY (it is the RX lcore), with *bad_lcore set.
 */
int rps_lcoreset_check(const struct rps_lcoreset *want, const struct rps_lcoreset *enabled,
		       unsigned int rx_lcore, unsigned int *bad_lcore);

/** Kernel-style hex ("fe", "ff,ffffffff") of a set. @return chars written, or -ENOSPC. */
int rps_lcoreset_format(const struct rps_lcoreset *s, char *buf, size_t len);

/** Immutable hash-to-worker map. */
struct rps_map {
	uint32_t len;         /**< number of entries; 0 = no steering */
	uint32_t generation;  /**< configuration generation that built it */
	uint16_t workers[];   /**< worker index (into the application's worker table) */
};

/**
 * Create a map over worker indices (rte_zmalloc on @p socket).
 * @return the map, or NULL with rte_errno set (EINVAL, ENOMEM).
 */
struct rps_map *rps_map_create(const uint16_t *workers, uint32_t len, uint32_t generation,
			       int socket);
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

/** The fast-path lookup: which worker gets @p hash. @p map must have len > 0. */
static inline uint16_t
rps_map_worker(const struct rps_map *map, uint32_t hash)
{
	return map->workers[((uint64_t)hash * map->len) >> 32];
}

#endif /* RPS_MAP_H */
