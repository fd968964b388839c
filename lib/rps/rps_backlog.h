/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_backlog.h: a worker's backlog, the user-space twin of the kernel's per-CPU
 * input_pkt_queue (enqueue_to_backlog / process_backlog).
 *
 * One single-producer/single-consumer rte_ring holding at most `capacity` packets
 * (netdev_max_backlog), plus two monotonically increasing counters that later make remaps
 * reorder-free (Linux RFS's rule):
 *   tail: packets accepted onto the ring; written only by the producer (the RX lcore);
 *   head: packets the worker has finished processing; written only by the worker, with
 *         release order, after the packets are done.
 * Packets the ring refuses never advance tail: they are freed and counted in full_drops
 * (under rps_backlog_full_reason(): backlog_full, or mbuf_budget for a ring cut to fit its
 * worker's share of the mbuf pool).
 *
 * The ring's slots are 32 bits where the mbufs' pools allow (rps_backlog_init_slots()): an
 * mbuf's offset from the pools' lowest address in cache lines, so a line of the ring carries
 * 16 packets, not 8 pointers' worth; the ring's slots are most of the lines that cross from
 * the RX lcore's core to the worker's and back. The return ring is the same. Elsewhere the
 * ring holds the mbufs' pointers.
 *
 * Concurrency: rps_backlog_enqueue() only from the one RX lcore that owns the backlog (with
 * several RX lcores each worker has one backlog per RX lcore: struct rps_backlog_in);
 * rps_backlog_dequeue(), rps_backlog_complete() and rps_backlog_recycle() only from the owning
 * worker; rps_backlog_reclaim() only from the RX lcore (the return ring runs the other way);
 * the *_read() helpers from anywhere.
 */
#ifndef RPS_BACKLOG_H
#define RPS_BACKLOG_H

#include <stdint.h>
#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_ring.h>
#include <rte_ring_peek_zc.h>

#include "rps_counters.h"
#include "rps_wake.h"

/** Packets of history and flow buckets of the flow limit (the kernel's defaults are 128 and
 * 4096; the history here is 256, as the issue asks). */
#define RPS_FLOW_LIMIT_HISTORY 256
/** Samples of the worker's head kept for rps_backlog_drain_update(): one per hold / 4, over
 * twice the reassembly timeout. */
#define RPS_DRAIN_MARKS 8

#define RPS_FLOW_LIMIT_BITS 12
#define RPS_FLOW_LIMIT_BUCKETS (1u << RPS_FLOW_LIMIT_BITS)

/**
 * The kernel's flow limit (skb_flow_limit()) for one backlog: the flow buckets of the last
 * RPS_FLOW_LIMIT_HISTORY packets offered while the backlog was at least half full, and how
 * many of those each bucket holds. RX lcore only.
 */
struct rps_flow_limit {
	uint32_t head;
	uint16_t history[RPS_FLOW_LIMIT_HISTORY];
	uint16_t count[RPS_FLOW_LIMIT_BUCKETS];
};

/** 32-bit slots: an mbuf is (base + slot << RPS_SLOT_SHIFT), its pool's objects being
 * cache-line aligned; the pools must lie within 2^(32 + RPS_SLOT_SHIFT) bytes (256 GiB). */
#define RPS_SLOT_SHIFT 6

struct rps_backlog {
	struct rte_ring *ring;
	/** The way back (NULL: off): mbufs the worker is done with, which the RX lcore frees
	 * into its own mempool cache (rps_backlog_recycle_init()). */
	struct rte_ring *ret;
	/** 0: the rings hold pointers; else they hold 32-bit slots from this base
	 * (rps_backlog_init_slots()). Set before the lcores start, read-only after. */
	uintptr_t slot_base;
	uint32_t capacity;
	/** 1: capacity was cut below --backlog to fit the worker's share of the mbuf pool
	 * (rps_backlog_set_budget_cut(), before the lcores start): what the full ring refuses
	 * is then an mbuf_budget drop, not backlog_full (rps_backlog_full_reason()). */
	uint32_t budget_cut;
	struct rps_flow_limit *fl;   /**< NULL until rps_backlog_flow_limit_init() */
	/** The consumer's wake word (rps_wake.h), NULL: it never sleeps in the kernel. Set
	 * before the lcores start; rps_backlog_kick() wakes it. */
	struct rps_wake *wake;
	/* Producer side: written by the RX lcore only. */
	struct {
		uint64_t tail;       /**< packets accepted onto the ring, ever */
		uint64_t kicked;     /**< tail at the last rps_backlog_kick() */
		uint64_t full_drops; /**< packets refused because the ring was full */
		uint64_t hwm;        /**< deepest the ring was right after an enqueue */
		uint64_t fl_drops;   /**< packets refused by the flow limit */
	} prod __rte_cache_aligned;
	/* Consumer side: written by the worker only. */
	struct {
		uint64_t head;       /**< packets taken off the ring and done with by the stages */
		uint64_t drained;    /**< packets that left the worker for good: <= head, held
				      *   back while reassembly may still hold fragments */
		uint64_t hold;       /**< reassembly timeout in TSC cycles, 0 without reassembly */
		uint32_t last;       /**< newest of the marks below */
		uint64_t mark_tsc[RPS_DRAIN_MARKS];  /**< when head was sampled... */
		uint64_t mark_head[RPS_DRAIN_MARKS]; /**< ...and its value then */
	} cons __rte_cache_aligned;
	/* Health: written by the control thread only (app/control/health.c), read by the RX lcore only
	 * when a bucket wants to leave this worker (never per packet). */
	struct {
		uint32_t failed;     /**< 1 while the worker is stalled: its buckets leave it
				      *   without waiting for it to drain (failover) */
	} ctl __rte_cache_aligned;
} __rte_cache_aligned;

/**
 * Create the ring ("rps_bl_<name>") on @p socket with room for exactly @p capacity packets,
 * of pointers. @return 0, -EINVAL (capacity 0 or too large), -ENOMEM, -EEXIST (name taken).
 */
int rps_backlog_init(struct rps_backlog *b, const char *name, uint32_t capacity, int socket);

/**
 * rps_backlog_init() with 32-bit slots from @p base (rps_backlog_slot_base()), or pointers
 * where @p base is 0. Every mbuf offered to the backlog must then come from the pools
 * @p base was computed for (the RX queues' pool: what a PMD receives into). The return
 * ring (rps_backlog_recycle_init()) follows; what the worker recycles from elsewhere is
 * freed instead.
 */
int rps_backlog_init_slots(struct rps_backlog *b, const char *name, uint32_t capacity,
			   int socket, uintptr_t base);

/**
 * The base of 32-bit slots for mbufs of the @p n pools @p pools (NULLs skipped): their
 * memory's lowest address, when all of it lies within 2^(32 + RPS_SLOT_SHIFT) bytes of it
 * and every object is cache-line aligned; else 0 (pointers).
 */
uintptr_t rps_backlog_slot_base(struct rte_mempool *const *pools, unsigned int n);

/**
 * Point an empty backlog's 32-bit slots at a new @p base (pools rebuilt while no lcore runs:
 * the benchmark's cells). @return 0, -EINVAL (pointer rings, base 0, or packets on a ring).
 */
int rps_backlog_rebase(struct rps_backlog *b, uintptr_t base);

/** The mbuf that 32-bit slot @p slot from @p base names. */
static inline struct rte_mbuf *
rps_backlog_slot_mbuf(uintptr_t base, uint32_t slot)
{
	return (struct rte_mbuf *)(base + ((uintptr_t)slot << RPS_SLOT_SHIFT));
}

/** @p n mbufs as slots from @p base into @p slots. */
static inline void
rps_backlog_to_slots(uintptr_t base, struct rte_mbuf *const *pkts, uint32_t *slots, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		slots[i] = (uint32_t)(((uintptr_t)pkts[i] - base) >> RPS_SLOT_SHIFT);
}

/** @p n slots from @p base back into mbufs. */
static inline void
rps_backlog_from_slots(uintptr_t base, const uint32_t *slots, struct rte_mbuf **pkts, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		pkts[i] = rps_backlog_slot_mbuf(base, slots[i]);
}

/* The rings' enqueue and dequeue, either layout (the backlog's functions below). The slots
 * are written and read in place (the ring's zero-copy calls, its SP/SC sync): no copy of
 * the burst on the stack, one pass that converts. */
static inline uint32_t
rps_backlog_ring_put(struct rte_ring *r, uintptr_t base, struct rte_mbuf **pkts, uint32_t n,
		     unsigned int *free_space)
{
	struct rte_ring_zc_data z;
	uint32_t k;

	if (base == 0)
		return rte_ring_enqueue_burst(r, (void **)pkts, n, free_space);
	k = rte_ring_enqueue_zc_burst_elem_start(r, sizeof(uint32_t), n, &z, free_space);
	if (k == 0)
		return 0;
	rps_backlog_to_slots(base, pkts, z.ptr1, z.n1);
	if (k > z.n1)
		rps_backlog_to_slots(base, pkts + z.n1, z.ptr2, k - z.n1);
	rte_ring_enqueue_zc_elem_finish(r, k);
	return k;
}

static inline uint32_t
rps_backlog_ring_get(struct rte_ring *r, uintptr_t base, struct rte_mbuf **pkts, uint32_t n,
		     unsigned int *avail)
{
	struct rte_ring_zc_data z;
	uint32_t k;

	if (base == 0)
		return rte_ring_dequeue_burst(r, (void **)pkts, n, avail);
	k = rte_ring_dequeue_zc_burst_elem_start(r, sizeof(uint32_t), n, &z, avail);
	if (k == 0)
		return 0;
	rps_backlog_from_slots(base, z.ptr1, pkts, z.n1);
	if (k > z.n1)
		rps_backlog_from_slots(base, z.ptr2, pkts + z.n1, k - z.n1);
	rte_ring_dequeue_zc_elem_finish(r, k);
	return k;
}

/**
 * Say that @p b's capacity is its worker's share of the mbuf pool, below the --backlog the
 * user asked for: what the full ring refuses is then counted as RPS_DROP_MBUF_BUDGET, not
 * RPS_DROP_BACKLOG_FULL. Before the lcores start.
 */
void rps_backlog_set_budget_cut(struct rps_backlog *b);

/** The drop reason of what @p b refuses when full (a constant once the lcores run). */
static inline enum rps_drop_reason
rps_backlog_full_reason(const struct rps_backlog *b)
{
	return b->budget_cut ? RPS_DROP_MBUF_BUDGET : RPS_DROP_BACKLOG_FULL;
}

/**
 * Count the packets waiting on @p b's ring by ingress port slot (rps_stats_slot() of @p st),
 * adding to @p by_slot[RPS_PORT_SLOTS], without taking them: for the exit, from the control
 * thread, when the ring's worker is stuck and will never take them (should it come back
 * meanwhile, a packet may be counted here and as processed, as rte_ring_count() would).
 * @return packets counted.
 */
uint32_t rps_backlog_count_ports(const struct rps_backlog *b, const struct rps_lcore_stats *st,
				 uint64_t *by_slot);

/** Free the ring and any packets still on it. */
void rps_backlog_fini(struct rps_backlog *b);

/**
 * Queue what fits of a group of packets, keeping the rest (RX lcore only): the lossless
 * form of rps_backlog_enqueue() (below) for backpressure. Refused packets are neither freed
 * nor counted; the caller offers them again (first) later.
 * @return the number accepted (a prefix of @p pkts).
 */
static inline uint32_t
rps_backlog_enqueue_keep(struct rps_backlog *b, struct rte_mbuf **pkts, uint32_t n)
{
	unsigned int free_space = 0;
	uint32_t sent = rps_backlog_ring_put(b->ring, b->slot_base, pkts, n, &free_space);

	RPS_CTR_ADD(b->prod.tail, sent);
	RPS_CTR_MAX(b->prod.hwm, b->capacity - free_space);
	return sent;
}

/**
 * Queue a group of packets for the worker (RX lcore only). Packets that do not fit are
 * freed and counted in prod.full_drops, never in tail.
 * @return the number accepted (a prefix of @p pkts).
 */
static inline uint32_t
rps_backlog_enqueue(struct rps_backlog *b, struct rte_mbuf **pkts, uint32_t n)
{
	uint32_t sent = rps_backlog_enqueue_keep(b, pkts, n);

	if (unlikely(sent < n)) {
		RPS_CTR_ADD(b->prod.full_drops, n - sent);
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);
	}
	return sent;
}

/**
 * The RX lcore's wake-up of @p b's worker, once per poll (after rps_wake_fence(), which
 * follows the poll's last enqueue): when the poll added packets to @p b and the worker
 * sleeps, wake it. RX lcore only.
 * @return an enum rps_wake_kick_result (RPS_KICK_NONE when nothing was added).
 */
static inline int
rps_backlog_kick(struct rps_backlog *b)
{
	if (b->prod.tail == b->prod.kicked || b->wake == NULL)
		return RPS_KICK_NONE;
	b->prod.kicked = b->prod.tail;
	return rps_wake_kick(b->wake);
}

/**
 * Give the backlog a return ring of @p size mbufs (before either lcore starts): the worker
 * then hands the mbufs it consumed back to the RX lcore (rps_backlog_recycle()) instead of
 * freeing them into its own mempool cache, and the RX lcore frees them into its cache
 * (rps_backlog_reclaim()), where its next RX burst finds them. An mbuf then only ever moves
 * between the two lcores' caches: the pool's common ring is not crossed, and the same few
 * mbufs cycle (LIFO), their header and data lines still in one of the two cores' caches,
 * instead of the whole pool passing in FIFO order through the common ring.
 * Single producer (the worker), single consumer (the RX lcore).
 * @return 0, -EINVAL (size 0 or too large), -ENOMEM, -EEXIST (name taken).
 */
int rps_backlog_recycle_init(struct rps_backlog *b, const char *name, uint32_t size,
			     int socket);

/**
 * Hand @p n mbufs the worker has finished with back to the RX lcore (worker only); what the
 * return ring has no room for is freed here. Safe on any mbuf: the RX lcore frees them with
 * rte_pktmbuf_free_bulk() (chains, references).
 */
static inline void
rps_backlog_recycle(struct rps_backlog *b, struct rte_mbuf **pkts, uint32_t n)
{
	uint32_t k;

	if (b->slot_base != 0) {
		/* slots: only what a slot can name goes back (an mbuf of a pool outside the
		 * span, or below its base, would come back as another address) */
		uintptr_t far = 0;

		for (uint32_t i = 0; i < n; i++)
			far |= ((uintptr_t)pkts[i] - b->slot_base) >> (32 + RPS_SLOT_SHIFT) |
			       ((uintptr_t)pkts[i] & (RTE_BIT64(RPS_SLOT_SHIFT) - 1));
		if (unlikely(far != 0)) {
			rte_pktmbuf_free_bulk(pkts, n);
			return;
		}
	}
	k = rps_backlog_ring_put(b->ret, b->slot_base, pkts, n, NULL);
	if (unlikely(k < n))
		rte_pktmbuf_free_bulk(pkts + k, n - k);
}

/**
 * Take up to @p n mbufs the worker handed back (RX lcore only; @p b has a return ring):
 * the caller frees them, in bulk, into its own mempool cache. @return how many.
 */
static inline uint32_t
rps_backlog_reclaim(struct rps_backlog *b, struct rte_mbuf **pkts, uint32_t n)
{
	return rps_backlog_ring_get(b->ret, b->slot_base, pkts, n, NULL);
}

/**
 * Prefetch, for the worker, what the RX lcore (and a copying PMD) wrote a moment ago: every
 * dequeued mbuf's header line first, its second line (to write), then the first @p bytes of
 * each packet's data, so all
 * of the burst's cross-core transfers are in flight before the stages wait on the first.
 * The data loop reads each header (buf_addr, data_off): by then most have arrived.
 */
static inline void
rps_backlog_prefetch(struct rte_mbuf *const *pkts, uint32_t n, uint32_t bytes)
{
	for (uint32_t i = 0; i < n; i++)
		rte_prefetch0(pkts[i]);
	/* the second line (next, tx_offload): the parse stage writes l2_len and l3_len there,
	 * and the last core to free or allocate the mbuf wrote it */
	for (uint32_t i = 0; i < n; i++)
		rte_prefetch0_write(RTE_PTR_ADD(pkts[i], RTE_CACHE_LINE_MIN_SIZE));
	for (uint32_t i = 0; i < n; i++) {
		const char *d = rte_pktmbuf_mtod(pkts[i], const char *);
		uint32_t len = RTE_MIN((uint32_t)pkts[i]->data_len, bytes);

		for (uint32_t off = 0; off < len; off += RTE_CACHE_LINE_SIZE)
			rte_prefetch0(d + off);
	}
}

/** Allocate the flow-limit state of @p b (before the RX lcore starts). @return 0, -ENOMEM. */
int rps_backlog_flow_limit_init(struct rps_backlog *b, int socket);

/**
 * The flow limit's verdict on one packet with flow hash @p hash, offered while the backlog
 * holds at least half its capacity (the caller checks that; RX lcore only): record it in the
 * history and return 1 when its flow now holds more than half of the history (drop it).
 */
static inline int
rps_backlog_flow_limited(struct rps_backlog *b, uint32_t hash)
{
	struct rps_flow_limit *fl = b->fl;
	/* top bits: the low ones chose the NIC queue, alike for every flow of a queue */
	uint16_t nf = (uint16_t)(hash >> (32 - RPS_FLOW_LIMIT_BITS));
	uint16_t of = fl->history[fl->head];

	fl->history[fl->head] = nf;
	fl->head = (fl->head + 1) & (RPS_FLOW_LIMIT_HISTORY - 1);
	if (likely(fl->count[of] != 0))
		fl->count[of]--;
	return ++fl->count[nf] > RPS_FLOW_LIMIT_HISTORY / 2;
}

/**
 * Take up to @p n packets (worker only). @p left gets how many are still waiting.
 * The caller must call rps_backlog_complete() once they are processed.
 */
static inline uint32_t
rps_backlog_dequeue(struct rps_backlog *b, struct rte_mbuf **pkts, uint32_t n, uint32_t *left)
{
	unsigned int avail = 0;
	uint32_t got = rps_backlog_ring_get(b->ring, b->slot_base, pkts, n, &avail);

	*left = avail;
	return got;
}

/** Publish that @p n more dequeued packets are fully processed (worker only). */
static inline void
rps_backlog_complete(struct rps_backlog *b, uint32_t n)
{
	__atomic_store_n(&b->cons.head, b->cons.head + n, __ATOMIC_RELEASE);
	if (b->cons.hold == 0) /* nothing can be held back: drained is head */
		__atomic_store_n(&b->cons.drained, b->cons.head, __ATOMIC_RELEASE);
}

/**
 * Tell the worker's drained position the reassembly timeout (TSC cycles; 0: no reassembly
 * stage, drained == head always). Before the worker starts.
 */
static inline void
rps_backlog_drain_init(struct rps_backlog *b, uint64_t hold_tsc)
{
	b->cons.hold = hold_tsc;
}

/**
 * Publish how far the worker's packets have left it for good (worker only, after
 * rps_backlog_complete() and on idle polls), given @p held, the fragments its reassembly
 * table holds now, at time @p now.
 *
 * A fragment counts in head once the stage took it, yet it is still in the worker until its
 * datagram completes or expires, and its datagram's later fragments must reach the same
 * worker: a bucket moved meanwhile would split the datagram and both halves would expire.
 * So while anything is held, drained stops at the head of one reassembly timeout ago (every
 * fragment dequeued before that has completed or expired by now); with nothing held it is
 * head. rps_backlog_passed() (the moves' test) reads drained: a move waits at most
 * the reassembly timeout longer for a worker that holds fragments, never for one that does
 * not. O(1) per call.
 */
static inline void
rps_backlog_drain_update(struct rps_backlog *b, uint64_t held, uint64_t now)
{
	uint64_t head = b->cons.head, pub = b->cons.drained;

	if (likely(held == 0 || b->cons.hold == 0)) {
		pub = head;
	} else {
		/* the newest head sample at least one timeout old */
		for (unsigned int k = 0; k < RPS_DRAIN_MARKS; k++) {
			unsigned int i = (b->cons.last + RPS_DRAIN_MARKS - k) % RPS_DRAIN_MARKS;

			if (now - b->cons.mark_tsc[i] >= b->cons.hold) {
				pub = RTE_MAX(pub, b->cons.mark_head[i]);
				break;
			}
		}
	}
	if (b->cons.hold != 0 &&
	    now - b->cons.mark_tsc[b->cons.last] >= b->cons.hold / (RPS_DRAIN_MARKS / 2)) {
		b->cons.last = (b->cons.last + 1) % RPS_DRAIN_MARKS;
		b->cons.mark_tsc[b->cons.last] = now;
		b->cons.mark_head[b->cons.last] = head;
	}
	if (pub != b->cons.drained)
		__atomic_store_n(&b->cons.drained, pub, __ATOMIC_RELEASE);
}

/**
 * Whether the worker has processed everything up to position @p pos of its backlog (RX lcore
 * only: it owns tail). @p pending: packets the RX lcore has grouped for this backlog in the
 * current burst but not enqueued yet (their positions follow tail). A position past
 * tail + pending (packets that were then refused) counts as that end. This is RFS's in-order
 * rule: (int)(head - last_qtail) >= 0.
 */
static inline int
rps_backlog_passed(const struct rps_backlog *b, uint64_t pos, uint32_t pending)
{
	/* drained, not head: a fragment the worker's reassembly still holds has not passed */
	uint64_t head = __atomic_load_n(&b->cons.drained, __ATOMIC_ACQUIRE);
	uint64_t tail = b->prod.tail + pending;

	if ((int64_t)(pos - tail) > 0)
		pos = tail;
	return (int64_t)(head - pos) >= 0;
}

/** Whether the control thread declared this backlog's worker stalled (any thread). */
static inline int
rps_backlog_failed(const struct rps_backlog *b)
{
	return __atomic_load_n(&b->ctl.failed, __ATOMIC_ACQUIRE) != 0;
}

/** Declare the worker stalled (1) or back (0): control thread only. */
static inline void
rps_backlog_set_failed(struct rps_backlog *b, int failed)
{
	__atomic_store_n(&b->ctl.failed, failed ? 1u : 0u, __ATOMIC_RELEASE);
}

/**
 * Packets accepted but not yet processed (any thread; exact from the RX lcore), in
 * [0, capacity]. From another thread the two counters are read at different moments, and the
 * ring hands packets to the worker before the RX lcore adds them to tail, so a fast worker's
 * head can be ahead of the tail read: that reads as 0, never as a wrapped 2^64 - k.
 */
static inline uint64_t
rps_backlog_depth(const struct rps_backlog *b)
{
	uint64_t head = __atomic_load_n(&b->cons.head, __ATOMIC_ACQUIRE);
	uint64_t tail = RPS_CTR_READ(b->prod.tail);

	if ((int64_t)(tail - head) <= 0)
		return 0;
	return RTE_MIN(tail - head, (uint64_t)b->capacity);
}

/**
 * A worker's inputs with several RX lcores: one backlog per (RX lcore, worker) pair, each
 * single-producer (its RX lcore) and single-consumer (this worker), so no ring has two
 * producers and the head/tail rule above holds per pair. The worker polls them in turn.
 *
 * Concurrency: rps_backlog_in_dequeue() from the owning worker only; the sums from anywhere.
 */
struct rps_backlog_in {
	struct rps_backlog **b;  /**< [nb]: the pair of RX lcore r is b[r] */
	uint16_t nb;
	uint16_t next;           /**< the backlog polled first by the next call */
};

/**
 * Take up to @p n packets from the next non-empty backlog of @p in, round robin: the search
 * starts after the backlog served last, so every non-empty backlog gets one burst before any
 * gets a second, whatever the others hold (no starvation). @p from gets the backlog the
 * packets came from (for rps_backlog_complete()), @p left how many it still holds.
 * @return packets taken, 0 when every backlog is empty (then @p from is NULL).
 */
static inline uint32_t
rps_backlog_in_dequeue(struct rps_backlog_in *in, struct rte_mbuf **pkts, uint32_t n,
		       uint32_t *left, struct rps_backlog **from)
{
	uint16_t i = in->next;

	for (uint16_t k = 0; k < in->nb; k++) {
		uint32_t got = rps_backlog_dequeue(in->b[i], pkts, n, left);

		if (got != 0) {
			*from = in->b[i];
			in->next = (uint16_t)(i + 1 == in->nb ? 0 : i + 1);
			return got;
		}
		i = (uint16_t)(i + 1 == in->nb ? 0 : i + 1);
	}
	*left = 0;
	*from = NULL;
	return 0;
}

/** Packets accepted but not yet processed over every backlog of @p in (any thread). */
static inline uint64_t
rps_backlog_in_depth(const struct rps_backlog_in *in)
{
	uint64_t d = 0;

	for (uint16_t i = 0; i < in->nb; i++)
		d += rps_backlog_depth(in->b[i]);
	return d;
}

/** The sum of the heads of every backlog of @p in: it moves when the worker progresses. */
static inline uint64_t
rps_backlog_in_head(const struct rps_backlog_in *in)
{
	uint64_t h = 0;

	for (uint16_t i = 0; i < in->nb; i++)
		h += __atomic_load_n(&in->b[i]->cons.head, __ATOMIC_ACQUIRE);
	return h;
}

/** Mark every backlog of @p in failed or not (rps_backlog_set_failed()): control thread. */
static inline void
rps_backlog_in_set_failed(struct rps_backlog_in *in, int failed)
{
	for (uint16_t i = 0; i < in->nb; i++)
		rps_backlog_set_failed(in->b[i], failed);
}

#endif /* RPS_BACKLOG_H */
