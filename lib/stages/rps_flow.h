/* SPDX-License-Identifier: BSD-3-Clause */
/* rps_flow.h: per-worker flow table for the flow stage. */
/*
 * What is a flow: every IPv4/IPv6 packet that is not a fragment, keyed by (family,
 * protocol, the two addresses, the two ports). Ports are the first 4 transport bytes for
 * TCP, UDP, UDP-Lite, SCTP and DCCP and 0 for every other protocol (ICMP flows are keyed by
 * addresses and protocol). The key is canonical: the two endpoints are sorted, so both
 * directions of a connection share one entry. Not tracked (passed on, counted nowhere):
 * non-IP frames, IP fragments (RTE_PTYPE_L4_FRAG; after the reassemble stage whole datagrams
 * are tracked), packets without a recorded layout (l3_len 0), and TCP/UDP packets whose
 * transport header is cut short.
 *
 * Per flow (one entry per connection, both directions): packets and bytes (whole frames,
 * pkt_len) each way and in total, first/last seen (TSC of the burst, c->now), the endpoint
 * that sent the first packet ("src" in the dump), and for TCP the flags seen each way, a state
 * and per-direction sequence tracking:
 *   - directions: "orig" is the direction of the first packet the table saw of the flow (what
 *     conntrack calls the original direction), "reply" the other one. For a connection picked
 *     up mid-stream, or whose first packet was lost, orig is whoever sent first here, not
 *     necessarily the client. The entry keeps orig for its life (a new connection on the same
 *     tuple, below, keeps it too). Each way: packets and bytes (64-bit, exact; the totals are
 *     their sums) and the TCP flags seen (RPS_FLOW_F_*): SYN (without ACK), SYN-ACK, FIN,
 *     RST, as soon as a segment carrying them was counted, for the entry's life (a restart
 *     keeps them).
 *   - state: SYN -> syn_sent; SYN-ACK -> syn_recv; an ACK without SYN -> established (also
 *     for a flow picked up mid-stream or whose SYN-ACK was not seen); a FIN from one side
 *     -> fin_wait; FINs from both sides, or any RST -> closed. A SYN without ACK on a closed
 *     flow starts a new connection on the same tuple (state and sequence tracking restart,
 *     counters carry on). Non-TCP flows have state "none".
 *   - sequence: each direction remembers the next expected sequence number, set by the first
 *     segment seen in that direction (no verdict for it). A later segment that occupies
 *     sequence space (payload, SYN or FIN) with seq == next is in order (next = seq + len);
 *     seq after next (serial arithmetic) is out_of_order (next moves to seq + len); one that
 *     ends at or before next is a retransmit; one that starts before next and ends after it
 *     is a retransmit too (partial overlap; next moves to its end). So a reordered pair
 *     (2 before 1) counts 1 out_of_order for segment 2 and then 1 retransmit for the late
 *     segment 1: from the receiver's sequence point of view it fills space already passed.
 *     Pure ACKs (no payload, SYN or FIN) and RST segments never count.
 *
 * Hash: the table files each key under SipHash-1-3 (rps_siphash.h) with a secret 128-bit key
 * drawn once per process (getrandom, at the first table's creation, unless
 * rps_flow_set_hash_key() set one), so nobody outside can compute flows that share a
 * bucket: a CRC (what rte_hash offers, and what this table used) is linear, and 65,536 TCP
 * flows to one ip:port with one 32-bit CRC are a solved equation away (hash flooding: every
 * lookup then walks one chain of all of them). An IPv4 key is hashed as its 16 meaningful
 * bytes (the rest of the key is zero), an IPv6 key whole. The hash is computed once per packet
 * for the whole burst and given to rte_hash (the *_with_hash calls); rte_hash never hashes
 * itself.
 *
 * Table full: a new flow that does not fit replaces one, as conntrack's early drop does:
 * of 8 slots from a rotating cursor (up to 32 while all of them are assured), an expired
 * flow (counted in flows_expired), else one that is not assured, else any, the least
 * recently seen of its rank (counted in flows_evicted). Assured (conntrack's IPS_ASSURED):
 * packets seen in both directions and, for TCP, the handshake completed (established or
 * fin_wait). A SYN flood from spoofed sources never makes an assured flow, so it replaces
 * its own flows and those that never completed, and established connections keep their
 * state while new ones still get a slot. Bounded work: one scan of 8 (at most 32) slots per
 * new flow that finds the table full. The packet is dropped as flow_table_full only if
 * rte_hash still refuses the key (never seen).
 * The table holds exactly conf->size flows.
 *
 * Counters (c->st): flows_created, flows_expired, flows_evicted, flows_active (gauge, stored
 * by the owner), flow_bucket_max (high-water mark of the flows sharing one primary bucket of
 * rte_hash: about 20 at a full table with the keyed hash, the flood's size under flooding),
 * out_of_order, retransmit.
 *
 * Concurrency: a table belongs to one lcore. Every function here runs on the owning lcore,
 * or on another one after the owner stopped (dump at exit).
 */
#ifndef RPS_FLOW_H
#define RPS_FLOW_H
#include <stdint.h>
#include <stdio.h>
#include "rps_stage.h"

struct rps_siphash_key;

/** How the table hashes its keys. */
enum rps_flow_hash {
	RPS_FLOW_HASH_SIPHASH = 0, /**< SipHash-1-3 with a secret key: the default */
	RPS_FLOW_HASH_CRC32C,      /**< rte_hash_crc, seed 0: floodable; measurements/tests only */
};

struct rps_flow_conf {
	uint32_t size;              /**< flows the table holds (8 .. 2^30) */
	uint32_t idle_timeout_ms;   /**< an idle flow is removed after this */
	uint32_t closed_timeout_ms; /**< a TCP flow closed by FIN/RST is removed after this */
	enum rps_flow_hash hash;    /**< 0: SipHash */
	uint32_t log_size;          /**< keep the last this many flows removed (expired,
				     *   closed, evicted) for rps_flow_table_dump_json(); 0: none
				     *   (at most 2^20) */
	uint64_t bypass_bytes;      /**< a flow is bypassed once it carried this many bytes,
				     *   both directions counted (a stream depth); 0: never */
	int bypass_requests;        /**< consumers may ask for a flow's bypass
				     *   (rps_flow_table_bypass_tuple()) */
	uint32_t bypass_hold_ms;    /**< ...from the first burst that starts with the consumers
				     *   holding nothing (rps_stage_ctx.bypass_settled), this long
				     *   after at the latest */
	uint64_t elephant_bps;      /**< --elephant-rate: a flow above this many bits a second
				     *   (both directions) over the window is an elephant; 0: off */
	uint32_t elephant_window_ms; /**< --elephant-window: the sliding window (10 .. 60000) */
	int elephant_bypass;        /**< --elephant-action bypass: an elephant is bypassed, as a
				     *   flow at its depth (pending first); needs a bypass table
				     *   (bypass_requests or bypass_bytes) */
};

/**
 * The mbuf flag (a dynamic flag, registered on the first call: set-up path) the flow stage
 * sets on each packet of a bypassed flow, for the output stage. 0 when it cannot be
 * registered (rte_errno).
 */
uint64_t rps_flow_bypass_flag(void);

/**
 * Set the SipHash key of every flow table of the process: @p key, or 16 random bytes
 * (getrandom) when NULL. Set-up path, before any table is created (tables created earlier
 * would no longer find their flows); without a call the first rps_flow_table_create() draws
 * a random key. Tests and benchmarks set a fixed key to be reproducible.
 */
void rps_flow_set_hash_key(const struct rps_siphash_key *key);

/** TCP state of a flow (RPS_FLOW_NONE for other protocols). */
enum rps_flow_state {
	RPS_FLOW_NONE = 0,     /**< not TCP */
	RPS_FLOW_NEW,          /**< TCP, nothing conclusive seen yet (no SYN, no ACK) */
	RPS_FLOW_SYN_SENT,     /**< SYN seen */
	RPS_FLOW_SYN_RECV,     /**< SYN-ACK seen */
	RPS_FLOW_ESTABLISHED,  /**< handshake completed, or picked up mid-stream */
	RPS_FLOW_FIN_WAIT,     /**< a FIN from one side */
	RPS_FLOW_CLOSED,       /**< FINs from both sides, or a RST */
	RPS_FLOW_STATE_MAX
};

/** TCP flags seen in one direction of a flow (rps_flow_summary.dir[].flags). */
#define RPS_FLOW_F_SYN    0x1 /**< a SYN without ACK */
#define RPS_FLOW_F_SYNACK 0x2 /**< a SYN with ACK */
#define RPS_FLOW_F_FIN    0x4
#define RPS_FLOW_F_RST    0x8

/** The two directions of a flow, as rps_flow_summary.dir[] indexes them. */
enum rps_flow_dir {
	RPS_FLOW_ORIG = 0,  /**< the direction of the flow's first packet: src -> dst */
	RPS_FLOW_REPLY = 1, /**< dst -> src */
	RPS_FLOW_DIRS
};

/** One direction of a flow. */
struct rps_flow_dir_stats {
	uint64_t packets;
	uint64_t bytes;
	uint8_t flags;         /**< RPS_FLOW_F_* seen in this direction */
};

/** A copy of one flow, oriented as its first packet: src/sport sent it. */
struct rps_flow_summary {
	uint8_t family;        /**< 4 or 6 */
	uint8_t proto;
	uint16_t sport;        /**< host order */
	uint16_t dport;        /**< host order */
	uint8_t src[16];       /**< network order; IPv4 uses the first 4 bytes */
	uint8_t dst[16];
	uint64_t packets;      /**< both directions: dir[0].packets + dir[1].packets */
	uint64_t bytes;        /**< both directions */
	struct rps_flow_dir_stats dir[RPS_FLOW_DIRS]; /**< by enum rps_flow_dir */
	uint64_t first_seen;   /**< TSC */
	uint64_t last_seen;    /**< TSC */
	enum rps_flow_state state;
	uint64_t out_of_order;
	uint64_t retransmit;
	uint8_t bypassed;      /**< past --bypass-after: its packets skip the consumers */
	uint8_t elephant;      /**< marked an elephant (--elephant-rate) now */
	uint64_t rate_bps;     /**< --elephant-rate on: the window's estimate, bits/s, both
				*   directions, at the time of the copy; 0 when off */
};

/**
 * Create an empty table of conf->size flows on @p socket; @p name must be unique among live
 * tables (it names the rte_hash and its rings: keep it under 25 characters).
 * @return NULL on failure (rte_errno).
 */
struct rps_flow_table *rps_flow_table_create(const struct rps_flow_conf *conf, const char *name,
					     int socket);
/**
 * Ageing step of c->flows: examine @p budget slots from a rotating cursor and remove flows
 * idle longer than idle_timeout_ms, or closed and idle longer than closed_timeout_ms (times
 * against c->now, converted with c->hz). Counts flows_expired, updates flows_active.
 * No-op when c->flows is NULL. Each examined slot is a cache line of the flow array: on a
 * large table, prefer rps_flow_table_age_paced() in a loop that runs on every poll.
 */
void rps_flow_table_age(struct rps_stage_ctx *c, uint32_t budget);
/**
 * Paced ageing step: examine as many slots as the time since the last paced step calls for,
 * so that the whole table is walked once per sweep period (a quarter of the shorter timeout,
 * clamped to 1 ms .. 60 s), and at most @p max_budget. Between due slots it costs a few
 * instructions, so it may be called on every loop iteration; a flow is then removed at most
 * a quarter of its timeout late (provided max_budget per call keeps up: calls/s x max_budget
 * >= size / sweep period). Counts like rps_flow_table_age().
 */
void rps_flow_table_age_paced(struct rps_stage_ctx *c, uint32_t max_budget);
/**
 * The max_budget a worker passes to rps_flow_table_age_paced() on every loop iteration. It
 * bounds one call (1024 slots, a few microseconds) and keeps up with a table of 2^20 flows
 * swept every 250 ms (the default 1 s closed timeout: 4.2 M slots/s) down to about 4,000
 * calls a second; the worker loops far more often, even idle (a 50 us sleep is 20,000).
 * (64, before, needed 65,000 calls a second: ageing fell behind from about 300,000 flows.)
 */
#define RPS_FLOW_AGE_BUDGET 1024
/**
 * Write the table's flows to @p f as JSON objects ({"lcore": .., "family": .., "proto": ..,
 * "src": .., "dst": .., "sport": .., "dport": .., "packets": .., "bytes": ..,
 * "orig": {"packets": .., "bytes": .., "flags": ".."}, "reply": {..}, "state": ..,
 * "out_of_order": .., "retransmit": .., "bypassed": .., "elephant": .., "rate_bps": ..,
 * "first_seen_ms": .., "last_seen_ms": ..}) separated
 * by ",\n"; the first is preceded by ",\n" too when @p need_comma. Times are the TSC in ms;
 * flags as rps_flow_flags_format() writes them.
 * @return flows written.
 */
int rps_flow_table_dump_json(const struct rps_flow_table *t, FILE *f, unsigned int lcore,
			     int need_comma);
/**
 * rps_flow_table_dump_json() of the flows removed from the table (conf.log_size): the last
 * log_size removed, oldest first, each with "removed_ms" (when, the TSC in ms) beside the
 * fields above. @p lost (optional) receives how many older ones were overwritten.
 * @return flows written.
 */
int rps_flow_table_dump_removed_json(const struct rps_flow_table *t, FILE *f,
				     unsigned int lcore, int need_comma, uint64_t *lost);
/** Free the table (NULL is fine). Flows still in it are not counted as expired. */
void rps_flow_table_free(struct rps_flow_table *t);

/** Flows in the table now. */
uint32_t rps_flow_table_count(const struct rps_flow_table *t);
/**
 * The @p n (at most 64) flows with the most packets (ties: more bytes first), most first,
 * into @p out, from the table's top set: up to 64 flows kept as packets arrive (a flow joins
 * when one of its packets takes it above the smallest member, which it displaces; a member
 * leaves when its flow is removed). It costs 64 flows, not a walk of the table, so telemetry
 * may call it once a second on the owner. Exact while no member has left; after one left
 * (expired, evicted), a flow that has been idle since may be missing until its next packet.
 * @return how many were written (min(n, 64, flows in the set)).
 */
int rps_flow_table_top(const struct rps_flow_table *t, struct rps_flow_summary *out,
		       unsigned int n);
/**
 * The flow a parsed packet belongs to (either direction). @return 0 and @p out filled, or
 * -ENOENT (not in the table), -EINVAL (not a tracked packet).
 */
int rps_flow_table_lookup(const struct rps_flow_table *t, const struct rte_mbuf *m,
			  struct rps_flow_summary *out);
/** A flow named by its tuple, either direction (rps_flow_table_lookup_tuple()). */
struct rps_flow_tuple {
	uint8_t family;        /**< 4 or 6 */
	uint8_t proto;
	uint16_t sport, dport; /**< host order; ignored for a protocol without ports */
	uint8_t src[16];       /**< network order; IPv4 the first 4 bytes */
	uint8_t dst[16];
};
/**
 * A consumer asked to bypass the flow of tuple @p q (either direction) from @p now on, until
 * @p until (TSC; 0: until the flow ends): pending, as a flow at its depth, so that what the
 * consumers hold of it comes back first. Owner lcore only. @return 0; -ENOENT (not in the
 * table); -ENOTSUP (a table without bypass: conf.bypass_requests and bypass_bytes 0);
 * -EINVAL (a family other than 4 and 6).
 */
int rps_flow_table_bypass_tuple(struct rps_flow_table *t, const struct rps_flow_tuple *q,
				uint64_t now, uint64_t until);

/**
 * The flow of tuple @p q (either direction). @return 0 and @p out filled, or -ENOENT (not in
 * the table), -EINVAL (no table, a family other than 4 and 6). Owner lcore only, as a lookup.
 */
int rps_flow_table_lookup_tuple(const struct rps_flow_table *t, const struct rps_flow_tuple *q,
				struct rps_flow_summary *out);
/**
 * Elephants (conf.elephant_bps): each flow's bytes, both directions, in two fixed windows of
 * elephant_window_ms that start at the flow's first packet: the current one and the one
 * before. The rate over the last window is estimated as the two interpolated (the part of
 * the previous window still inside a sliding window ending now, plus the current one:
 * prev * (W - elapsed) / W + cur), the sliding-window counter of rate limiters. A flow is
 * marked when the estimate exceeds the rate (checked per packet, and only once prev + cur,
 * the estimate's bound, exceeds it: a small flow costs an addition and a compare), so a
 * flow that starts at a steady rate above the threshold is marked within one window. It
 * stays marked while above; it is unmarked once the estimate falls below half the rate
 * (hysteresis: a flow hovering at the rate does not flap), checked by
 * rps_flow_table_age_paced() for the marked flows, at most 8 times a window, so a flow that
 * stops is unmarked within a window and an eighth of stopping. Marking counts
 * flows_elephant; the gauge elephants_active (the owner stores it with release order: the
 * control thread's --elephant-action isolate loads it with acquire) is the marked flows now.
 * At most RPS_FLOW_ELEPHANTS flows are listed (rps_flow_table_elephants()); more are marked
 * and counted, not listed. The state lives beside the flow (a cold array, only with
 * elephant_bps) and ends with it: a removed flow is unmarked.
 */
#define RPS_FLOW_ELEPHANTS 16

/**
 * The marked elephants of @p t (at most @p n, at most RPS_FLOW_ELEPHANTS), heaviest
 * estimate first, each with its rate_bps at @p now (TSC). Owner lcore, or after it stopped.
 * @return how many were written.
 */
int rps_flow_table_elephants(const struct rps_flow_table *t, uint64_t now,
			     struct rps_flow_summary *out, unsigned int n);
/** Elephants marked in @p t now (0 without elephant_bps). */
uint32_t rps_flow_table_elephant_count(const struct rps_flow_table *t);

/** "none", "new", "syn_sent", "syn_recv", "established", "fin_wait", "closed"; NULL if bad. */
const char *rps_flow_state_name(enum rps_flow_state s);
/**
 * Write @p flags (RPS_FLOW_F_*) into @p buf as the names of the bits set, in the order "SYN",
 * "SYN-ACK", "FIN", "RST", joined by commas ("" for none; bits above 0xf are ignored).
 * RPS_FLOW_FLAGS_LEN bytes hold any value; a shorter @p len gets the names that fit, whole.
 * @return @p buf.
 */
char *rps_flow_flags_format(uint8_t flags, char *buf, size_t len);
/** The longest rps_flow_flags_format() output, with its NUL: "SYN,SYN-ACK,FIN,RST". */
#define RPS_FLOW_FLAGS_LEN 20

#endif
