/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_stage.h: the processing stages a worker runs over each burst it takes from its backlog.
 *
 * A stage is a function over a burst. Stages run on exactly one lcore at a time with that
 * lcore's counters, so they need no locks; every flow reaches exactly one worker, so
 * per-worker flow state (added by later stages) needs none either.
 */
#ifndef RPS_STAGE_H
#define RPS_STAGE_H

#include <stdint.h>
#include <rte_mbuf.h>

#include "rps_counters.h"

/**
 * parse: record each packet's layout in the mbuf (l2_len, l3_len, packet_type with
 * RTE_PTYPE_L2/L3/L4 bits and RTE_PTYPE_L4_FRAG for fragments) and count IPv4, IPv6, TCP,
 * UDP, other transport, non-IP and fragments. Reads only through rte_pktmbuf_read(), so a
 * short or multi-segment packet is safe. Drops nothing.
 */
void rps_stage_parse(struct rte_mbuf **pkts, uint16_t n, struct rps_lcore_stats *st);

#endif /* RPS_STAGE_H */
