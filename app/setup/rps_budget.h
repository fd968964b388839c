/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_budget.h: each worker's share of the mbuf pool (DESIGN.md, Mbuf budgets).
 *
 * One pool serves every lcore. So that no worker, stalled or flooded with fragments that never
 * complete, can take the mbufs the RX lcores need to receive, the pool is split at start:
 * a reserve that only the RX lcores draw on (RX rings, their bursts, every lcore's mempool
 * cache), and per worker a share that bounds everything it may hold: its backlog rings
 * (capacity), what reassembly holds (its budget, past which the oldest datagrams are
 * evicted), and a fixed part (its TX ring, bursts in flight, return rings). Each limit is
 * kept by the one lcore that fills it (the RX lcore's ring enqueue, the worker's reassembly),
 * so the data path pays no atomics for it.
 *
 * rps_pool_budgets() is the pure planner: from the pool and what the options ask for, the
 * limits that fit. Slow path only (start-up).
 */
#ifndef RPS_BUDGET_H
#define RPS_BUDGET_H

#include <stdint.h>

/** What the options ask for (in) and the limits that fit the pool (out). */
struct rps_pool_budget {
	/* in */
	uint32_t pool;        /**< mbufs in the pool */
	uint32_t reserve;     /**< the RX lcores' own: rings, bursts, every lcore's cache */
	uint32_t workers;     /**< lcores with a share (the RX lcore alone without a map: 1) */
	uint32_t fixed;       /**< per share: TX ring, bursts in flight, return rings */
	uint32_t backlogs;    /**< backlog rings per worker (RX lcores; 0 without a map) */
	uint32_t backlog;     /**< --backlog: packets per ring asked for */
	uint32_t burst;       /**< --burst: a cut ring keeps at least this much (or backlog) */
	uint32_t frag_mbufs;  /**< --frag-mbufs asked for; 0 without the reassemble stage */
	/* out */
	uint32_t backlog_cap; /**< packets each backlog ring holds (<= backlog) */
	uint32_t frag_budget; /**< mbufs each worker's reassembly may hold (<= frag_mbufs) */
	uint64_t share;       /**< fixed + backlogs x backlog_cap + frag_budget */
	int cut;              /**< 1: the limits were cut below what was asked, to fit */
	int overcommit;       /**< 1: not even the smallest limits fit; kept as asked for
			       *   (reassembly at its floor): a worker may starve the RX lcores */
};

/** The smallest reassembly budget (rps_reasm_set_budget()). */
#define RPS_BUDGET_MIN_FRAG 16u

/**
 * Fill the out fields of @p b from its in fields. When reserve + workers x (fixed +
 * backlogs x backlog + frag_mbufs) fits the pool, the limits are as asked. Else the backlog
 * rings and the reassembly budget are cut by one factor so that it fits (cut = 1), each
 * ring keeping at least min(burst, backlog) packets and reassembly at least
 * RPS_BUDGET_MIN_FRAG mbufs; when even those do not fit, nothing is cut and overcommit = 1
 * (reassembly then gets what is left, at least RPS_BUDGET_MIN_FRAG).
 */
void rps_pool_budgets(struct rps_pool_budget *b);

#endif /* RPS_BUDGET_H */
