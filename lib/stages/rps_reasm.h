/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_reasm.h: per-worker IPv4/IPv6 reassembly state for the reassemble stage
 * (rps_stage_reassemble() in rps_stage.h), built on DPDK's rte_ip_frag.
 *
 * What is a fragment: an IPv4 packet with MF set or a non-zero offset, or an IPv6 packet whose
 * fragment header has M set or a non-zero offset. IPv6 atomic fragments (offset 0, M 0,
 * RFC 6946) are whole packets and pass untouched. The stage reads the IP header itself (at
 * l2_len, for packets whose packet_type says IPv4 or IPv6) unless parse typed the packet
 * whole (an L4 type other than RTE_PTYPE_L4_FRAG: parse found no fragment in the same
 * fields); RTE_PTYPE_L4_FRAG alone does not make a packet a fragment here.
 *
 * Limits (those of rte_ip_frag in DPDK 22.11, plus a few of our own):
 *  - at most RTE_LIBRTE_IP_FRAG_MAX_FRAG (8) fragments per datagram;
 *  - the IP header (IPv4 with options; IPv6 header + fragment header) must lie in the first
 *    segment of the mbuf; later data may be in any number of segments;
 *  - IPv6: hop-by-hop, routing and destination-options headers may come before the fragment
 *    header (at most RPS_PARSE_MAX_V6EXT headers, 456 bytes, in the first segment); the
 *    reassembled datagram keeps the first fragment's; a fragment header after an AH header
 *    is refused;
 *  - every fragment but the last carries a multiple of 8 bytes, none is empty;
 *  - the reassembled IPv4 datagram must fit in 65535 bytes, the IPv6 payload likewise;
 *  - the budget: fewer than @c max_datagrams fragments and at most rps_reasm_set_budget()
 *    mbufs (segments) held at once. Before a fragment would exceed either, the oldest
 *    datagrams (by their first fragment's arrival) are evicted, just enough for it, and their
 *    fragments dropped as frag_evicted. So a flood of datagrams that never complete holds
 *    at most the budget, and the newest datagrams still complete. A fragment is refused
 *    only when its hash buckets are full (32 entries per key) or it alone is over budget.
 * A refused fragment is dropped as frag_error, as are all the fragments of a datagram that
 * rte_ip_frag gives up on (overlap, a duplicate fragment, too many fragments, inconsistent
 * offsets). Fragments of a datagram that does not complete within @c timeout_ms of its first
 * fragment are dropped as frag_timeout, as are those still held at rps_reasm_destroy().
 *
 * A completed datagram is parsed again and, after rps_reasm_set_check_l4(r, 1) (the app does
 * it when the validate stage runs), validated: its TCP/UDP checksum covers the whole datagram,
 * so it could not be checked on any fragment. A bad one is dropped as bad_l4_checksum (one
 * drop for the datagram; its other fragments were absorbed) and counts in cksum_sw.
 * Fragments whose IP length disagrees with the frame are dropped as bad_length (truncated
 * when the fragment header is cut off) and are not counted in frags_in.
 *
 * Accounting (exact, per fragment): every fragment counted in frags_in ends up in exactly one
 * of: a completed datagram, dropped frag_error, frag_timeout or frag_evicted, or still held. When a
 * datagram of k fragments completes, frags_reassembled += 1 and frags_absorbed and processed
 * += k - 1 at once; the datagram itself continues down the pipeline as one packet and is
 * counted once where it ends. So at any time
 *   rx_packets == processed + sum(dropped) + packets in backlogs + fragments held,
 * and after rps_reasm_destroy() nothing is held.
 *
 * Concurrency: a struct rps_reasm belongs to one worker lcore; nothing here is thread-safe.
 */
#ifndef RPS_REASM_H
#define RPS_REASM_H
#include <stdint.h>
#include "rps_stage.h"

/**
 * Create a worker's reassembly table: up to @p max_datagrams datagrams in progress at once
 * (>= 1), the fragments of each dropped @p timeout_ms (1..600000) after its first fragment
 * arrived, memory on NUMA @p socket (or SOCKET_ID_ANY). Needs the EAL (TSC frequency).
 * @return the table, or NULL with rte_errno set: EINVAL for bad parameters, ENOMEM.
 */
struct rps_reasm *rps_reasm_create(uint32_t max_datagrams, uint32_t timeout_ms, int socket);

/** Smallest budget: two datagrams of the most fragments rte_ip_frag takes (8). */
#define RPS_REASM_MIN_BUDGET 16u

/**
 * Set the most mbufs (segments of the fragments) @p r may hold at once, >= RPS_REASM_MIN_BUDGET
 * (the default is max_datagrams). Takes effect with the next fragment; what is held above a
 * lowered budget is evicted then. @return 0, or -EINVAL.
 */
int rps_reasm_set_budget(struct rps_reasm *r, uint32_t max_mbufs);

/** The budget in mbufs (0 for NULL). */
uint32_t rps_reasm_budget(const struct rps_reasm *r);

/** Validate completed datagrams (TCP/UDP checksum of the whole datagram) when @p on. */
void rps_reasm_set_check_l4(struct rps_reasm *r, int on);

/** Fragments the table holds now (0 for NULL). */
uint64_t rps_reasm_held(const struct rps_reasm *r);

/** Mbufs (segments of those fragments) the table holds now (0 for NULL). */
uint64_t rps_reasm_held_mbufs(const struct rps_reasm *r);

/**
 * Housekeeping, once per worker loop iteration (cheap when nothing expired): drop, as
 * frag_timeout, the fragments of every datagram older than the timeout at @c c->now, into
 * @c c->st. Does nothing when @c c->reasm is NULL.
 */
void rps_reasm_tick(struct rps_stage_ctx *c);

/**
 * At exit, on the owning lcore or after it stopped: drop every fragment still held, counted
 * as frag_timeout in @p st (the owning worker's counters), and free the table. NULL is a
 * no-op. Absorbed fragments were already credited to processed when their datagram
 * completed, so nothing else is owed.
 */
void rps_reasm_destroy(struct rps_reasm *r, struct rps_lcore_stats *st);

#endif /* RPS_REASM_H */
