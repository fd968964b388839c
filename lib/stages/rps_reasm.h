/* SPDX-License-Identifier: BSD-3-Clause */
/* rps_reasm.h: per-worker IPv4/IPv6 reassembly state for the reassemble stage. */
#ifndef RPS_REASM_H
#define RPS_REASM_H
#include <stdint.h>
#include "rps_stage.h"

/** Create a worker's tables: up to @p max_datagrams in flight, each expiring after
 * @p timeout_ms. @return NULL with rte_errno set on failure. */
struct rps_reasm *rps_reasm_create(uint32_t max_datagrams, uint32_t timeout_ms, int socket);
/** Free the death row (counting what it held); call once per worker loop. */
void rps_reasm_tick(struct rps_stage_ctx *c);
/** At exit: count every fragment still held as frag_timeout, credit frags_absorbed to
 * processed, free everything. */
void rps_reasm_destroy(struct rps_reasm *r, struct rps_lcore_stats *st);
#endif
