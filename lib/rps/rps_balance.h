/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_balance.h: the rebalancer's decision, a pure function the control thread calls once per
 * interval with every bucket's load over that interval (packets, from the per-bucket
 * counters) and its owner; it chooses which buckets to move where. Publishing the moved
 * buckets (a new map through RCU) and the reorder-free migration are the caller's.
 *
 * Load of a worker = the sum of its buckets' loads; normalised by its weight (its share of
 * the map), so a worker of weight 2 is balanced at twice the load of one of weight 1.
 * Imbalance = the largest normalised load / the mean (sum of loads / sum of weights).
 *
 * Plan: when the imbalance is over 1 + threshold, move buckets greedily, one at a time:
 * from the busiest worker, the movable bucket and destination (a worker allowed for the
 * bucket's group, i.e. in that RX queue's map) that leave the lower peak of the two; only a
 * move that lowers the busiest worker's normalised load by at least RPS_BALANCE_MIN_GAIN of
 * the mean (no churn for crumbs) and does not leave the destination above the new peak;
 * among moves that leave the same peak, the one that leaves its destination lightest. Stop after max_moves, when no move helps (a bucket hotter than the
 * gap cannot be split), or once the imbalance is within 1 + threshold / 2 (hysteresis: no
 * churn around the threshold).
 */
#ifndef RPS_BALANCE_H
#define RPS_BALANCE_H

#include <stdint.h>

/** Smallest gain of a move, as a fraction of the mean normalised load. */
#define RPS_BALANCE_MIN_GAIN 0.005

/** A bucket as the planner sees it. */
struct rps_balance_bucket {
	uint64_t load;      /**< packets (or any cost) over the last interval */
	uint16_t owner;     /**< worker index; updated by rps_balance_plan() for each move */
	uint16_t group;     /**< RX queue: the bucket may only go to a worker allowed there */
	uint8_t movable;    /**< 0: in hold-down, stays */
};

/** One move of the plan. */
struct rps_balance_move {
	uint32_t bucket;    /**< index into the caller's bucket array */
	uint16_t from, to;
};

struct rps_balance_cfg {
	uint32_t threshold_pct; /**< act when max / mean > 1 + threshold_pct / 100 */
	uint32_t max_moves;     /**< moves per plan at most */
	uint64_t min_load;      /**< total load under which nothing is planned (idle link) */
};

/** Imbalance of the workers: max over weighted workers of (load / weight) / mean; 1.0 when
 * there is no load. @p load and @p weight are [nb_workers]; weight 0 = not in any map. */
double rps_balance_ratio(const uint64_t *load, const uint32_t *weight, uint16_t nb_workers);

/**
 * Plan the moves of one interval.
 * @param b           [nb] buckets; owners of moved buckets are updated.
 * @param weight      [nb_workers] each worker's weight, 0 for a worker in no map.
 * @param allowed     [nb_groups * nb_workers]: allowed[g * nb_workers + w] != 0 when worker
 *                    w may own buckets of group g.
 * @param moves       receives at most cfg->max_moves moves.
 * @param before, after  receive the imbalance before and after the plan (may be NULL).
 * @return number of moves, 0 when balanced (or idle), -EINVAL on bad arguments.
 */
int rps_balance_plan(struct rps_balance_bucket *b, uint32_t nb, const uint32_t *weight,
		     uint16_t nb_workers, const uint8_t *allowed, uint16_t nb_groups,
		     const struct rps_balance_cfg *cfg, struct rps_balance_move *moves,
		     double *before, double *after);

/**
 * --elephant-action isolate: move every movable bucket of worker @p iso to the other workers,
 * so that @p iso is left to its buckets that are not movable (the caller marks its
 * elephants' buckets so). Each goes where it is allowed (its group's row of @p allowed) to
 * the worker whose normalised load would be the lowest after it, a bucket's cost being its
 * load plus one (so that idle buckets spread evenly too); a worker with weight 0, or with
 * @p excluded[w] set (isolated itself), takes none. Unlike rps_balance_plan() it ignores
 * thresholds and gains: it empties the worker.
 * @param b       [nb] buckets; owners of moved buckets are updated.
 * @param moves   receives at most @p max_moves moves.
 * @return number of moves (0 when nothing could go anywhere), -EINVAL on bad arguments.
 */
int rps_balance_isolate(struct rps_balance_bucket *b, uint32_t nb, uint16_t iso,
			const uint32_t *weight, uint16_t nb_workers, const uint8_t *allowed,
			uint16_t nb_groups, const uint8_t *excluded,
			struct rps_balance_move *moves, uint32_t max_moves);

#endif /* RPS_BALANCE_H */
