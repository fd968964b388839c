/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_stage.h: the processing stages a worker runs over each burst it takes from its backlog,
 * and the pipeline that chains them.
 *
 * A stage is a function over a burst: it gets pkts[0..n), and returns how many it passes on,
 * compacted at the front of the same array, in their original relative order. A packet it
 * does not pass on is either dropped (freed, and counted with rps_stage_drop() under one
 * reason of RPS_DROP_REASONS) or finished (transmitted, answered, or absorbed into a
 * reassembled datagram, and counted as processed). Nothing is ever lost uncounted, so
 * rx_packets == processed + sum(dropped) holds.
 *
 * Concurrency: a context belongs to one lcore (a worker, or the RX lcore without a map).
 * Every flow reaches exactly one worker, so per-worker state (fragment table, flow table)
 * needs no locks and must not be touched from another lcore while the worker runs.
 *
 * Order: parse, validate, reassemble, flow, respond, output. Every stage but output needs
 * parse before it (it reads l2_len/l3_len/l4_len/packet_type); output, when present, is last.
 */
#ifndef RPS_STAGE_H
#define RPS_STAGE_H

#include <stdint.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "rps_backlog.h"
#include "rps_counters.h"
#include "rps_respond.h"

struct rps_reasm;        /* reassemble.c: per-worker rte_ip_frag tables */
struct rps_share;        /* below: a consumer queue several workers feed */
struct rps_memif;        /* rps_memif.h: a consumer's memif endpoint */
struct rps_flow_table;   /* flow.c: per-worker flow table */
struct rps_filter_set;   /* filter.c: the consumer groups' filters (rps_filter.h) */

/** A TX queue with its buffer (rte_eth_tx_buffer), owned by one lcore. */
struct rps_txq {
	uint16_t port;
	uint16_t queue;
	struct rte_eth_dev_tx_buffer *buf;
	struct rps_lcore_stats *st;   /* where sent / failed packets are counted */
	uint8_t *slot;                /* the ingress port slot (rps_stats_slot()) of each
				       * packet in buf, in buf's order: a flush sends a prefix */
	/* what the port can send (rps_txq_set_limits); mtu 0: no check (replies) */
	uint16_t mtu;                 /* largest L3 packet the port sends */
	uint16_t multi_seg;           /* the port takes multi-segment mbufs */
	struct rte_mempool *direct;   /* fragments' header mbufs */
	struct rte_mempool *indirect; /* fragments' data references */
	int consumer;                 /* a consumer's queue (--consumers): it sends itself
				       * (share.c), what it refuses is consumer_full, or
				       * consumer_absent while its endpoint has no client;
				       * what it takes consumer_delivered */
	/* consumers only (rps_txq_set_consumer()) */
	struct rps_memif *memif;      /* the consumer's endpoint, NULL: port and queue above */
	struct rps_share *share;      /* the consumer's shared queue, NULL: this lcore's own */
	int wait;                     /* backpressure: a full consumer queue is waited for... */
	const int *stop;              /* ...until *stop is set (the application's, at exit) */
	int secondary;                /* a consumer of a group after the first: what it sends
				       * or drops counts for the consumer (below) and in
				       * consumer_delivered, not in the packet's own accounting
				       * (processed, dropped, bytes), which group 0's does */
	uint16_t ring;                /* the endpoint's ring it sends on (inline: a direction) */
	/* inline consumers (--consumer-mode inline, --consumer-fail open): what the consumer
	 * refuses goes on through fail_open instead of being dropped, counted open_absent or
	 * open_full; share.c keeps it in open_pkts (at most the buffer's size) and output.c's
	 * flush sends it there */
	struct rps_txq *fail_open;
	struct rte_mbuf **open_pkts;
	uint16_t open_n;
	int returns;                  /* packets consumers returned (--consumer-mode inline):
				       * counted consumer_returned when taken, return_tx_failed
				       * when the port refuses them; never processed, dropped or
				       * tx_packets again (the packet's own fate was its
				       * delivery, which counted those) */
	/* what this lcore sent to / dropped for the consumer (written by it alone) */
	uint64_t delivered, absent, full;
	uint64_t returned;            /* inline: packets the consumer returned to this lcore */
	uint64_t open_absent, open_full; /* inline, --consumer-fail open: sent on directly */
	/* inline consumers with backpressure: called while a full queue is waited for (the
	 * worker takes its consumer's returns meanwhile: a consumer whose own return ring is
	 * full stops reading, and waiting on it without taking them waits for ever) */
	void (*waiting)(void *arg);
	void *waiting_arg;
	uint64_t filtered;            /* its group's filter refused them (--consumer-filter):
				       * not sent to it, on to the other groups */
};

/**
 * A consumer fed by several workers (share.c): one memif endpoint (or TX queue), one multi-producer rte_ring
 * in front of it, and a lock that only ever is tried.
 *
 * Concurrency: each feeding worker enqueues a whole burst at a time (multi-producer); the
 * worker that takes the lock (rte_spinlock_trylock, never a wait) dequeues and transmits on
 * the port's only TX queue for everyone (combining), then unlocks and, after a full fence,
 * looks at the ring again. A producer fences between its enqueue and its trylock, so of a
 * producer that failed the trylock and the holder that unlocks, at least one sees the
 * other's write: either the producer's trylock succeeds or the holder's re-check finds its
 * burst. Nothing is stranded, and no one waits for the lock.
 *
 * Order: one flow is on one worker; the ring keeps each producer's bursts in the order it
 * enqueued them (an enqueue's slots are reserved and published in order); one lcore at a
 * time dequeues, and transmits all it dequeued before it unlocks: the memif queue gets each
 * worker's packets, so each flow's, in the order the worker processed them.
 */
struct rps_share {
	struct rte_ring *ring;        /* feeding workers' bursts, MP enqueue, dequeued locked */
	struct rps_memif *memif;      /* the consumer's endpoint (set after init), or NULL: */
	uint16_t port, queue;         /* an ethdev TX queue */
	uint16_t feeders;             /* workers that enqueue here */
	rte_spinlock_t lock __rte_cache_aligned; /* held by the one draining (trylock only) */
} __rte_cache_aligned;

/** Everything a stage may use. Filled by the application before the lcore starts. */
struct rps_stage_ctx {
	struct rps_lcore_stats *st;   /* the owning lcore's counters */
	uint64_t now;                 /* rte_rdtsc() at the start of this burst */
	uint64_t hz;                  /* rte_get_tsc_hz() */
	unsigned int lcore;
	uint16_t worker;
	struct rps_reasm *reasm;      /* NULL unless reassemble runs */
	struct rps_flow_table *flows; /* NULL unless flow runs */
	const struct rps_respond_conf *respond; /* NULL unless respond runs */
	/** respond's TX queues by the port a request came in on (m->port): this lcore's queue
	 * on that port; a NULL entry: requests from that port are not answered. NULL: respond
	 * answers nothing. [RTE_MAX_ETHPORTS] */
	struct rps_txq *const *reply_txq;
	struct rps_respond_limit respond_limit; /* respond's echo reply rate, this lcore's;
						 * all zero: no limit */
	struct rps_txq *out_txq;      /* output's TX queue, NULL: packets are consumed */
	/** Inline pairs (--forward): output's TX queue by the port a packet came in on (its
	 * pair's peer; out_txq, or NULL for consumed, for a port in no pair); NULL: no pairs,
	 * out_txq for every packet. [RTE_MAX_ETHPORTS] */
	struct rps_txq *const *port_txq;
	/** Consumer groups (--consumers K,K...): output's queue to this lcore's consumer of
	 * each group, nb_groups of them (out_txq is group 0's); each packet goes to all, its
	 * refcnt set to nb_groups. nb_groups 0 or 1: out_txq alone. With port_txq (inline
	 * pairs) and nb_groups > 0: each packet goes to every group beside its forward. */
	struct rps_txq *const *group_txq;
	uint16_t nb_groups;
	/** Inline consumers (--consumer-mode inline, with port_txq): group 0's queue by the
	 * port a packet came in on (its consumer's ring for that direction), which takes the
	 * packet in place of its forward; the other groups get their reference as taps. NULL:
	 * consumers are taps. [RTE_MAX_ETHPORTS] */
	struct rps_txq *const *inline_txq;
	/** --bypass-after: the mbuf flag the flow stage sets on a bypassed flow's packets
	 * (rps_flow_bypass_flag()): output sends them past the consumers. 0: off. */
	uint64_t bypass_mask;
	/** Where a bypassed packet goes when it has no pair: the TX port's queue (consumers
	 * in the path with --tx-port); NULL: consumed (taps). */
	struct rps_txq *bypass_txq;
	/** --bypass-after: set before each burst: the consumers in the path hold nothing of
	 * this lcore's (always 1 for taps): a flow at its depth may start its bypass now. */
	int bypass_settled;
	/** --consumer-filter: where the control thread publishes the groups' filters (a
	 * struct rps_filter_set, rps_filter.h; NULL inside: none), loaded once per burst by
	 * output (acquire; the set freed only after this lcore's quiescent state). A group
	 * does not receive what its filter refuses (counted filtered in group_txq[g]), the
	 * other groups still do. NULL: no filters. */
	struct rps_filter_set *const *filters;
	struct rps_backlog *recycle;  /* consumed packets go back to its RX lcore
				       * (rps_backlog_recycle()), NULL: freed here */
};

typedef uint16_t (*rps_stage_fn)(struct rps_stage_ctx *c, struct rte_mbuf **pkts, uint16_t n);

/** Free a packet and count it under @p reason, in total and for its ingress port. */
static inline void
rps_stage_drop(struct rps_stage_ctx *c, struct rte_mbuf *m, enum rps_drop_reason reason)
{
	rps_stats_port_drop(c->st, m, reason);
	rte_pktmbuf_free(m);
	RPS_CTR_ADD(c->st->dropped[reason], 1);
}

/* ---- the stages ---- */

/**
 * parse: Ethernet, 802.1Q/QinQ, IPv4 with options, IPv6 with its extension chain
 * (hop-by-hop, routing, fragment, destination options, AH), TCP, UDP, ICMP, ICMPv6. Records
 * l2_len, l3_len (IP header incl. options/extensions), l4_len, and packet_type (RTE_PTYPE_L2,
 * L3, L4 incl. RTE_PTYPE_L4_FRAG) in the mbuf. Drops truncated, bad_version, bad_ihl,
 * bad_header. Non-IP frames pass (RTE_PTYPE_L3 bits 0). Counts pkts_*.
 */
uint16_t rps_stage_parse(struct rps_stage_ctx *c, struct rte_mbuf **pkts, uint16_t n);

/**
 * validate: IPv4 version/IHL/total length/header checksum, IPv6 payload length, TTL/hop
 * limit 0, TCP/UDP checksums (trusting RTE_MBUF_F_RX_IP_CKSUM_* / RTE_MBUF_F_RX_L4_CKSUM_*
 * GOOD/BAD from the PMD, verifying in software otherwise; fragments' L4 checksum is left to
 * after reassembly). Trims Ethernet padding so pkt_len matches the IP length.
 */
uint16_t rps_stage_validate(struct rps_stage_ctx *c, struct rte_mbuf **pkts, uint16_t n);

/**
 * reassemble: IPv4 and IPv6 fragments through rte_ip_frag; completed datagrams continue in
 * place of their last fragment (re-parsed); other packets pass untouched.
 */
uint16_t rps_stage_reassemble(struct rps_stage_ctx *c, struct rte_mbuf **pkts, uint16_t n);

/** flow: per-worker flow table: counts, TCP state, sequence tracking. Drops flow_table_full. */
uint16_t rps_stage_flow(struct rps_stage_ctx *c, struct rte_mbuf **pkts, uint16_t n);

/** respond: answer ARP, ICMP/ICMPv6 echo, neighbour solicitation, UDP echo on the port each
 * request came in on (reply_txq[m->port]); refuse reflector requests and echoes over the
 * rate limit (rps_respond.h). */
uint16_t rps_stage_respond(struct rps_stage_ctx *c, struct rte_mbuf **pkts, uint16_t n);

/** output: transmit on out_txq (with port_txq: on the queue of the packet's RX port; with
 * consumer groups: on each group's queue, one mbuf with a reference each), or consume when
 * there is none: returns those, compacted, for the pipeline's end. */
uint16_t rps_stage_output(struct rps_stage_ctx *c, struct rte_mbuf **pkts, uint16_t n);

/* ---- TX queues (output.c) ---- */

/**
 * Set up @p q on (port, queue) with a buffer of @p burst packets on @p socket, counting into
 * @p st. @return 0 or -ENOMEM.
 */
int rps_txq_init(struct rps_txq *q, uint16_t port, uint16_t queue, uint16_t burst, int socket,
		 struct rps_lcore_stats *st);
/**
 * What leaves through @p q must be sendable: an L3 packet above @p mtu is re-fragmented
 * (rte_ipv4_fragment_packet / rte_ipv6_fragment_packet, header mbufs from @p direct, data
 * referenced through @p indirect, the L2 header copied in front of each fragment), or dropped
 * as tx_too_big where it cannot be (IPv4 with DF, not IP, more than RPS_TX_MAX_FRAGS
 * fragments); a multi-segment mbuf for a port that does not advertise multi-segment TX
 * (@p multi_seg 0) is copied into one segment where it fits one.
 */
void rps_txq_set_limits(struct rps_txq *q, uint16_t mtu, int multi_seg,
			struct rte_mempool *direct, struct rte_mempool *indirect);

/** Most fragments one re-fragmented packet may become (a 64 KiB datagram at MTU 1280). */
#define RPS_TX_MAX_FRAGS 64

/**
 * Queue one packet; sent ones count as processed + tx_packets, refused ones as tx_failed,
 * and each also for its ingress port (processed and forwarded, or dropped tx_failed).
 * One packet re-fragmented into k frames counts once in processed (or once in tx_failed when
 * the port refused any of them) and k times in tx_packets.
 */
void rps_txq_send(struct rps_txq *q, struct rte_mbuf *m);
/** Transmit what is buffered (call when the backlog is idle and at exit). */
void rps_txq_flush(struct rps_txq *q);
/** Flush, then free the buffer. */
void rps_txq_fini(struct rps_txq *q);

/**
 * Make @p q a consumer's queue (--consumers): what its port refuses is consumer_full, or
 * consumer_absent while the port's link is down; what it sends counts consumer_delivered.
 * @p share: the consumer's shared queue when several workers feed it (q's port and queue are
 * then the share's), NULL when q is the only one. @p wait (backpressure): a full queue is
 * retried until it takes the packets, the client goes away (consumer_absent) or @p *stop is
 * set (consumer_full); 0: refused packets are dropped at once. Consumer queues are not
 * re-fragmented: memif chains a frame of any length over its buffers. (output.c)
 */
void rps_txq_set_consumer(struct rps_txq *q, struct rps_share *share, int wait,
			  const int *stop);
/** Make consumer queue @p q send to memif endpoint @p m (rps_memif.h) rather than an
 * ethdev TX queue; a share's queues take its own (rps_share.memif). */
static inline void
rps_txq_set_memif(struct rps_txq *q, struct rps_memif *m)
{
	q->memif = m;
}

/** Make consumer queue @p q send on ring @p ring of its endpoint (inline: a direction). */
static inline void
rps_txq_set_ring(struct rps_txq *q, uint16_t ring)
{
	q->ring = ring;
}

/**
 * Inline consumers, --consumer-fail open: what consumer queue @p q refuses (no client, or
 * full) is sent on @p to instead, counted open_absent / open_full. @return 0 or -ENOMEM.
 */
int rps_txq_set_fail_open(struct rps_txq *q, struct rps_txq *to, int socket);

/** While consumer queue @p q waits for room (backpressure), call @p fn(@p arg) between
 * tries (rps_txq.waiting): it must not send on @p q. */
static inline void
rps_txq_set_waiting(struct rps_txq *q, void (*fn)(void *arg), void *arg)
{
	q->waiting = fn;
	q->waiting_arg = arg;
}

/** Make @p q carry packets consumers returned (rps_txq.returns). */
static inline void
rps_txq_set_returns(struct rps_txq *q)
{
	q->returns = 1;
}

/** Make consumer queue @p q one of a group after the first (rps_txq.secondary). */
static inline void
rps_txq_set_secondary(struct rps_txq *q)
{
	q->secondary = 1;
}

/**
 * Send what @p q (a consumer's queue) has buffered: on its own TX queue, or into its share's
 * ring, then drain the share (rps_txq_share_drain(), one round). output.c's flush for
 * consumer queues.
 */
void rps_consumer_flush(struct rps_txq *q);

/* ---- a consumer queue several workers feed (share.c) ---- */

/**
 * Set up @p s: a ring of room for @p feeders x RPS_SHARE_PER_FEEDER(@p burst) packets, named
 * after @p name, on @p socket, in front of TX queue @p queue of @p port.
 * @return 0, or a negative errno (rte_ring_create's).
 */
int rps_share_init(struct rps_share *s, const char *name, uint16_t port, uint16_t queue,
		   uint16_t feeders, uint16_t burst, int socket);
/** Free the ring (what is left in it is freed uncounted: call after the last drain). */
void rps_share_fini(struct rps_share *s);
/** Lock holds one flush or housekeeping drain may take (rps_txq_share_drain()). */
#define RPS_SHARE_ROUNDS 4
/** Mbufs one feeder may have waiting in the ring, its part of the pool budget: room for
 * eight bursts, so that a lock holder preempted for a while does not make the others drop
 * at once. */
#define RPS_SHARE_PER_FEEDER(burst) (8u * (burst))

/**
 * Drain @p q's share if no one else is (trylock): transmit what the ring holds (at most its
 * capacity per lock hold), counted as @p q's (sent, or refused as rps_txq_set_consumer()
 * says), unlock, and when the ring is not empty then, take the lock again: at most @p rounds
 * times (0: until the ring is empty or another lcore holds the lock, for the exit). What a
 * bounded drain leaves, the next flush or between-bursts housekeeping of any feeding worker
 * takes (rps_txq_share_pending()), so it waits at most one poll.
 */
void rps_txq_share_drain(struct rps_txq *q, unsigned int rounds);
/** Whether @p q's share has packets waiting (0 for a queue without one). */
static inline int
rps_txq_share_pending(const struct rps_txq *q)
{
	return q->share != NULL && !rte_ring_empty(q->share->ring);
}

/* ---- the pipeline (pipeline.c) ---- */

/** An ordered list of stages. */
struct rps_pipeline {
	uint8_t nb;
	uint8_t ids[RPS_STAGE_MAX];
	rps_stage_fn fns[RPS_STAGE_MAX];
};

/** The default: parse,validate,reassemble,flow,output. */
void rps_pipeline_default(struct rps_pipeline *p);

/**
 * Parse "parse,validate,flow,output". @return 0; -EINVAL with *bad pointing at the offending
 * name (unknown, repeated, out of order, or a stage that needs parse without it).
 */
int rps_pipeline_parse(const char *text, struct rps_pipeline *p, char *bad, size_t bad_len);

/** Whether @p p runs stage @p id. */
int rps_pipeline_has(const struct rps_pipeline *p, enum rps_stage_id id);

/** Format as "parse,validate,...". */
int rps_pipeline_format(const struct rps_pipeline *p, char *buf, size_t len);

/**
 * Run the pipeline over a burst. Packets left after the last stage (when output is not in
 * the pipeline) are consumed and counted as processed.
 */
void rps_pipeline_run(const struct rps_pipeline *p, struct rps_stage_ctx *c,
		      struct rte_mbuf **pkts, uint16_t n);

/**
 * rps_pipeline_run(), also adding the TSC cycles each stage took over this burst to
 * @p cycles[i] (i: the stage's place in @p p, cycles has p->nb entries). Two rdtsc per stage
 * per burst: for measurements (dpdk-rps-bench's per-stage figures), not the worker loop.
 */
void rps_pipeline_run_timed(const struct rps_pipeline *p, struct rps_stage_ctx *c,
			    struct rte_mbuf **pkts, uint16_t n, uint64_t *cycles);

#endif /* RPS_STAGE_H */
