/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_counters.h: every per-lcore counter and drop reason of dpdk-rps, declared once.
 *
 * The drop reasons are one X-macro list; the enum, the names used in the summary JSON and
 * in the live table, and the README's table are all generated from (or checked against) it,
 * so they can never disagree.
 *
 * Concurrency: each struct rps_lcore_stats is written by exactly one lcore (its owner) with
 * RPS_CTR_ADD(), which is a relaxed load + relaxed store, not an atomic read-modify-write, so
 * the data path pays nothing for it. Other threads read with RPS_CTR_READ() (relaxed atomic
 * 64-bit loads) and therefore never see a torn value.
 *
 * Per ingress port: every lcore also counts by the port a packet came in on (the mbuf's
 * port), in a small dense table of slots: slot 1 + i for the application's i-th RX port
 * (rps_stats_set_ports(), before the lcores start), slot 0 for any other port, so an unknown
 * or out-of-range port id can never index past the table. Each drop is counted twice, in
 * dropped[reason] and in its port's dropped[reason]; summed over slots, a port's counters
 * give received = processed + dropped once every lcore has drained.
 */
#ifndef RPS_COUNTERS_H
#define RPS_COUNTERS_H

#include <stdint.h>
#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_mbuf_core.h>

/* X(ENUM, name, description). RX-side reasons first, then the stages' in pipeline order. */
#define RPS_DROP_REASONS(X)                                                              \
	X(BAD_MBUF, bad_mbuf, "the PMD delivered an inconsistent mbuf (pkt_len vs segments)") \
	X(BACKLOG_FULL, backlog_full, "the target worker's backlog ring held --backlog packets") \
	X(MBUF_BUDGET, mbuf_budget, "the target worker's backlog held its share of the mbuf pool: --mbufs (or the memory EAL had) too small for --backlog, its ring was cut to fit") \
	X(FLOW_LIMIT, flow_limit, "--flow-limit: the worker's backlog was over half full and the packet's flow held more than half of its last 256 packets") \
	X(RULE, rule, "a steering rule's drop action (--rule, [rules] in the file)")         \
	X(TRUNCATED, truncated, "a header is cut short by the end of the packet")             \
	X(BAD_VERSION, bad_version, "IP version field does not match the ethertype")          \
	X(BAD_IHL, bad_ihl, "IPv4 header length below 20 bytes")                              \
	X(BAD_LENGTH, bad_length, "IP total/payload length disagrees with the frame")         \
	X(BAD_IP_CHECKSUM, bad_ip_checksum, "IPv4 header checksum is wrong")                  \
	X(BAD_L4_CHECKSUM, bad_l4_checksum, "TCP/UDP checksum is wrong")                      \
	X(TTL_ZERO, ttl_zero, "IPv4 TTL or IPv6 hop limit is 0")                              \
	X(BAD_HEADER, bad_header, "a malformed transport or extension header (e.g. TCP data offset < 5)") \
	X(FRAG_ERROR, frag_error, "fragment refused: overlap, too many fragments, bad offsets") \
	X(FRAG_TIMEOUT, frag_timeout, "fragments of a datagram that never completed (timeout or exit)") \
	X(FRAG_EVICTED, frag_evicted, "fragments of the oldest incomplete datagrams, evicted to keep reassembly within --frag-mbufs / --frag-max") \
	X(FLOW_TABLE_FULL, flow_table_full, "the worker's flow table had no room for a new flow") \
	X(TX_FAILED, tx_failed, "the TX queue did not accept the packet") \
	X(TX_TOO_BIG, tx_too_big, "above the TX port's MTU and not fragmentable (IPv4 DF, not IP, too many fragments)") \
	X(CONSUMER_ABSENT, consumer_absent, "--consumers: the worker's consumer was not connected (no memif client at its socket)") \
	X(CONSUMER_FULL, consumer_full, "--consumers: the worker's consumer was connected but its queue was full (it did not keep up)") \
	X(STRANDED, stranded, "left in the backlog of a worker still stalled at exit (--stall-timeout)")

enum rps_drop_reason {
#define RPS_X_ENUM(e, n, d) RPS_DROP_##e,
	RPS_DROP_REASONS(RPS_X_ENUM)
#undef RPS_X_ENUM
	RPS_DROP_MAX
};

/* Requests the respond stage recognised as addressed to it and refused to answer, by reason
 * (they are passed on unanswered, like every packet it does not answer). Part of
 * RPS_LCORE_COUNTERS. X(field, description) */
#define RPS_RESPOND_REFUSALS(X)                                                          \
	X(refused_mac_src, "respond: request not answered: its Ethernet source, ARP sender or ND source link-layer address is broadcast, multicast or zero") \
	X(refused_src_self, "respond: request not answered: its source address is the address it asks for (ours)") \
	X(refused_src_martian, "respond: request not answered: its source is loopback, 0/8, multicast, class E, the limited or a directed broadcast of --respond-ip's prefix; ::, ::1, multicast, IPv4-mapped or -compatible") \
	X(refused_udp_port, "respond: UDP echo not answered: source port below 1024, the echo port or a known UDP reflector service (1900, 5353, 11211, ...)") \
	X(refused_source_route, "respond: request not answered: IPv4 loose or strict source route option") \
	X(refused_ip_options, "respond: request not answered: malformed IPv4 options") \
	X(refused_rate_limit, "respond: echo not answered: the worker's --respond-rate / --respond-burst was spent")

/* Counters that every lcore keeps (RX lcore and workers), in summary/JSON order.
 * X(field, description) */
#define RPS_LCORE_COUNTERS(X)                                                            \
	X(rx_packets, "packets taken from the RX port (RX lcore only)")                      \
	X(enqueued, "packets the RX lcore put on backlogs (RX lcore only)")                  \
	X(received_rps, "packets this worker dequeued from its backlog")                     \
	X(processed, "packets that completed processing (consumed, transmitted, answered or absorbed into a reassembled datagram)") \
	X(tx_packets, "frames transmitted (output and respond)")                            \
	X(consumed, "packets that completed processing without leaving: no output stage, or a port with nowhere to send (counted as processed)") \
	X(consumer_delivered, "--consumers: packets this worker handed to consumers' memif queues (a copy to each consumer group; on a shared consumer, the others' packets it sent too)") \
	X(consumer_returned, "--consumer-mode inline: packets this worker's consumer returned (its verdict to pass), sent on by the pair's other port") \
	X(consumer_fail_open, "--consumer-fail open: packets forwarded directly because their inline consumer was absent or full (counted processed)") \
	X(return_tx_failed, "--consumer-mode inline: returned packets the pair's other port refused (freed; the packet's own fate was its delivery)") \
	X(flows_bypassed, "--bypass-after: flows that carried their stream depth and were bypassed: their later packets skip the consumers") \
	X(bypassed, "--bypass-after or a consumer's request: packets of bypassed flows that skipped the consumers (in the path: forwarded directly; taps: not copied)") \
	X(bypassed_bytes, "bytes of those bypassed packets") \
	X(bypass_requests, "bypass requests consumers sent back (control frames, EtherType 0x88B5) that this worker applied to a flow of its table") \
	X(bypass_requests_refused, "consumers' control frames this worker could not apply: malformed, or no such flow in its table") \
	X(tx_fragmented, "packets above the TX port's MTU re-fragmented and sent whole")     \
	X(tx_fragments, "frames those re-fragmented packets became on the wire")             \
	X(time_squeeze, "polls that stopped with packets still waiting in the backlog")      \
	X(polls, "loop iterations")                                                          \
	X(busy_polls, "loop iterations that found packets")                                  \
	X(idle_sleeps, "sleeps taken between polls of an idle loop (--idle-sleep)")          \
	X(wakeups, "sleeping workers this RX lcore woke after a poll that queued packets to them, one futex wake-up each (RX lcore)") \
	X(wakeups_coalesced, "polls that queued packets to a sleeping worker already woken and not yet running: no wake-up needed (RX lcore)") \
	X(busy_cycles, "TSC cycles spent processing bursts (workers; the RX lcore without a map)") \
	X(rx_paused, "--backpressure: RX loop iterations that took nothing from the port because a worker's backlog was full (RX lcore)") \
	X(hash_computed, "packets whose hash was computed in software (RX lcore)")           \
	X(hash_from_nic, "packets whose hash came from the NIC's RSS (RX lcore)")            \
	X(inner_hashed, "--inner: tunnelled packets hashed on their inner header (RX lcore)") \
	X(inner_fallback, "--inner: tunnels that could not be read, hashed on the outer header (RX lcore)") \
	X(flows_migrated, "hash buckets moved to their new worker after a remap (RX lcore)")  \
	X(failover_moves, "buckets moved off a stalled worker before it had processed their packets: the one move that may reorder a flow (RX lcore)") \
	X(migrations_deferred, "packets kept on a bucket's old worker until it drained it (RX lcore)") \
	X(move_drains, "bucket moves that waited over RPS_MOVE_WAIT_MS on an old worker that never caught up: the RX lcore took nothing until the workers drained (RX lcore)") \
	X(rule_steered, "packets a steering rule sent to its worker, past the map (RX lcore)") \
	X(rules_swap_waits, "RX loop iterations that took nothing from the port while the workers drained what was steered before new rules (RX lcore)") \
	X(pkts_ipv4, "IPv4 packets seen by the parse stage")                                 \
	X(pkts_ipv6, "IPv6 packets seen by the parse stage")                                 \
	X(pkts_tcp, "TCP packets seen by the parse stage")                                   \
	X(pkts_udp, "UDP packets seen by the parse stage")                                   \
	X(pkts_icmp, "ICMP and ICMPv6 packets seen by the parse stage")                      \
	X(pkts_other_l4, "IP packets with another or no transport header")                   \
	X(pkts_non_ip, "non-IP packets seen by the parse stage")                             \
	X(pkts_fragment, "IP fragments seen by the parse stage")                             \
	X(cksum_hw, "checksums the PMD had already verified (RX offload flags)")             \
	X(cksum_sw, "checksums verified in software")                                        \
	X(frags_in, "fragments given to the reassembly table")                               \
	X(frags_reassembled, "datagrams completed by reassembly")                            \
	X(frags_absorbed, "fragments that became part of a reassembled datagram, less one per datagram (counted as processed)") \
	X(flows_created, "flows added to this worker's flow table")                          \
	X(flows_expired, "flows removed by idle timeout or TCP close")                        \
	X(flows_evicted, "flows removed from a full flow table to make room for a new one (not assured first, then the least recently seen)") \
	X(flow_bucket_max, "the most flows that shared one bucket of a worker's flow table (high-water mark; about 20 with the keyed hash, thousands under hash flooding)") \
	X(flows_active, "flows in the table now (gauge)")                                    \
	X(flows_elephant, "--elephant-rate: flows marked elephants (above the rate over the window)") \
	X(elephants_active, "--elephant-rate: flows marked elephants now (gauge)") \
	X(out_of_order, "TCP segments that arrived ahead of the next expected sequence number") \
	X(retransmit, "TCP segments that repeat already-seen sequence space")                \
	X(reordered, "packets that reached their worker after a later packet of their flow (--check-order)") \
	X(arp_replies, "ARP requests answered by the respond stage")                         \
	X(icmp_echo_replies, "ICMP echo requests answered")                                  \
	X(icmp6_echo_replies, "ICMPv6 echo requests answered")                               \
	X(nd_replies, "ICMPv6 neighbour solicitations answered")                             \
	X(udp_echo_replies, "UDP echo datagrams answered")                                   \
	RPS_RESPOND_REFUSALS(X)                                                              \
	X(bytes, "bytes that completed processing")

/* The processing stages, in the only order they may run. X(ENUM, name) */
#define RPS_STAGE_LIST(X) \
	X(PARSE, parse) X(VALIDATE, validate) X(REASSEMBLE, reassemble) X(FLOW, flow) \
	X(RESPOND, respond) X(OUTPUT, output)

enum rps_stage_id {
#define RPS_X_STAGE(e, n) RPS_STAGE_##e,
	RPS_STAGE_LIST(RPS_X_STAGE)
#undef RPS_X_STAGE
	RPS_STAGE_MAX
};

/** Ingress ports counted one by one (the application's RX ports, in order). */
#define RPS_PORTS_MAX 8
/** Their slots, and slot 0 for a packet of any other port. */
#define RPS_PORT_SLOTS (RPS_PORTS_MAX + 1)

/* Counters each lcore keeps per ingress port, besides dropped[reason]. X(field, description) */
#define RPS_PORT_COUNTERS(X)                                                             \
	X(received, "packets an RX lcore took from the port")                               \
	X(processed, "packets of the port that completed processing (as processed)")        \
	X(forwarded, "packets of the port that left by a TX queue, once each however many fragments: by the other port of its pair (--forward), by --tx-port, or as respond's answer")

/** One ingress port's counters on one lcore. */
struct rps_port_stats {
#define RPS_X_PFIELD(f, d) uint64_t f;
	RPS_PORT_COUNTERS(RPS_X_PFIELD)
#undef RPS_X_PFIELD
	uint64_t dropped[RPS_DROP_MAX];
};

/** Per-lcore counters: one writer (the owning lcore), any number of readers. */
struct rps_lcore_stats {
#define RPS_X_FIELD(f, d) uint64_t f;
	RPS_LCORE_COUNTERS(RPS_X_FIELD)
#undef RPS_X_FIELD
	uint64_t dropped[RPS_DROP_MAX];
	uint64_t stage_in[RPS_STAGE_MAX];   /* packets each stage was given */
	uint64_t stage_out[RPS_STAGE_MAX];  /* packets each stage passed on */
	/** The slot of each port id (0: not counted one by one). Set before the lcores start
	 * (rps_stats_set_ports()), read-only afterwards; all zero counts every port in slot 0. */
	uint8_t port_slot[RTE_MAX_ETHPORTS];
	struct rps_port_stats port[RPS_PORT_SLOTS]; /* by ingress port slot */
} __rte_cache_aligned;

/** Add to a counter owned by the calling lcore: no lock prefix, no tearing for readers. */
#define RPS_CTR_ADD(c, n) \
	__atomic_store_n(&(c), __atomic_load_n(&(c), __ATOMIC_RELAXED) + (n), __ATOMIC_RELAXED)
/** Raise a high-water mark owned by the calling lcore. */
#define RPS_CTR_MAX(c, v) do { \
	if ((uint64_t)(v) > __atomic_load_n(&(c), __ATOMIC_RELAXED)) \
		__atomic_store_n(&(c), (uint64_t)(v), __ATOMIC_RELAXED); \
} while (0)
/** Read a counter owned by another lcore. */
#define RPS_CTR_READ(c) __atomic_load_n(&(c), __ATOMIC_RELAXED)

/** The slot of port id @p port in @p st's table: 1 + its place among the RX ports, 0 for any
 * other (an id past RTE_MAX_ETHPORTS included). */
static inline unsigned int
rps_stats_slot(const struct rps_lcore_stats *st, uint16_t port)
{
	return likely(port < RTE_MAX_ETHPORTS) ? st->port_slot[port] : 0;
}

/** The counters of ingress port @p port on the calling lcore's @p st. */
static inline struct rps_port_stats *
rps_stats_port(struct rps_lcore_stats *st, uint16_t port)
{
	return &st->port[rps_stats_slot(st, port)];
}

/** Count one drop under @p reason for the port @p m came in on (before @p m is freed); the
 * caller counts it in st->dropped[reason] too, per packet or per burst. */
static inline void
rps_stats_port_drop(struct rps_lcore_stats *st, const struct rte_mbuf *m,
		    enum rps_drop_reason reason)
{
	RPS_CTR_ADD(rps_stats_port(st, m->port)->dropped[reason], 1);
}

/** rps_stats_port_drop() for each of @p n packets (a drop path: not yet freed). */
static inline void
rps_stats_port_drop_bulk(struct rps_lcore_stats *st, struct rte_mbuf *const *pkts, uint32_t n,
			 enum rps_drop_reason reason)
{
	for (uint32_t i = 0; i < n; i++)
		rps_stats_port_drop(st, pkts[i], reason);
}

/**
 * Give @p st its port table: @p ports[i] (the application's RX ports, in order) is counted in
 * slot 1 + i, every other port in slot 0. Before the owning lcore starts; counters are kept.
 * @return 0; -EINVAL for more than RPS_PORTS_MAX ports, a port id of RTE_MAX_ETHPORTS or
 * more, or a port listed twice (the table is then all slot 0).
 */
int rps_stats_set_ports(struct rps_lcore_stats *st, const uint16_t *ports, uint16_t n);

/** Sum of a port's drops over every reason. */
uint64_t rps_port_dropped_total(const struct rps_port_stats *p);

/** Name of a drop reason as used in JSON and tables ("backlog_full"), or NULL. */
const char *rps_drop_name(enum rps_drop_reason r);
/** Name of a stage ("parse"), or NULL. */
const char *rps_stage_name(enum rps_stage_id s);
/** One-line description of a drop reason, or NULL. */
const char *rps_drop_description(enum rps_drop_reason r);

/** Consistent copy of another lcore's counters (each field read atomically). */
void rps_stats_read(const struct rps_lcore_stats *src, struct rps_lcore_stats *dst);
/** dst += src, field by field. */
void rps_stats_accumulate(struct rps_lcore_stats *dst, const struct rps_lcore_stats *src);
/** Sum of all drop reasons. */
uint64_t rps_stats_dropped_total(const struct rps_lcore_stats *s);

#endif /* RPS_COUNTERS_H */
