/* SPDX-License-Identifier: BSD-3-Clause */
/* test_backlog.c: a worker's backlog ring and its counters (lib/rps/backlog.c). */
#include <errno.h>
#include <string.h>

#include <rte_memory.h>
#include <rte_ring.h>

#include "rps_backlog.h"
#include "test_common.h"

/* @p n one-byte-tagged mbufs: pkts[i] carries i + tag0 in its first byte. */
static void
alloc_pkts(struct rte_mbuf **pkts, unsigned int n, uint8_t tag0)
{
	for (unsigned int i = 0; i < n; i++) {
		uint8_t b[60] = { (uint8_t)(tag0 + i) };

		pkts[i] = ut_mbuf(b, sizeof(b));
		CU_ASSERT_PTR_NOT_NULL_FATAL(pkts[i]);
	}
}

static uint8_t
tag(const struct rte_mbuf *m)
{
	return *rte_pktmbuf_mtod(m, const uint8_t *);
}

static void
test_init_errors(void)
{
	struct rps_backlog b;

	CU_ASSERT_EQUAL(rps_backlog_init(&b, "zero", 0, SOCKET_ID_ANY), -EINVAL);
	CU_ASSERT_PTR_NULL(b.ring);
	CU_ASSERT_EQUAL(rps_backlog_init(&b, "huge", RTE_RING_SZ_MASK + 1, SOCKET_ID_ANY),
			-EINVAL);
	CU_ASSERT_PTR_NULL(b.ring);
	/* An exact-size ring of 2^30 or more needs 2^31 slots, more than any ring can have:
	 * also "too large", not "out of memory". */
	CU_ASSERT_EQUAL(rps_backlog_init(&b, "huge", RTE_RING_SZ_MASK, SOCKET_ID_ANY), -EINVAL);
	CU_ASSERT_PTR_NULL(b.ring);
	CU_ASSERT_EQUAL(rps_backlog_init(&b, "huge", UINT32_C(1) << 30, SOCKET_ID_ANY), -EINVAL);
	CU_ASSERT_PTR_NULL(b.ring);
	rps_backlog_fini(&b); /* fini of a failed init is harmless */

	/* a name already taken */
	{
		struct rps_backlog b1, b2;

		CU_ASSERT_EQUAL_FATAL(rps_backlog_init(&b1, "dup", 8, SOCKET_ID_ANY), 0);
		CU_ASSERT_EQUAL(rps_backlog_init(&b2, "dup", 8, SOCKET_ID_ANY), -EEXIST);
		CU_ASSERT_PTR_NULL(b2.ring);
		rps_backlog_fini(&b1);
		CU_ASSERT_PTR_NULL(b1.ring);
		rps_backlog_fini(&b1); /* twice is harmless */
		/* and free again once released */
		CU_ASSERT_EQUAL_FATAL(rps_backlog_init(&b2, "dup", 8, SOCKET_ID_ANY), 0);
		rps_backlog_fini(&b2);
	}
}

static void
test_init_state(void)
{
	struct rps_backlog b;

	memset(&b, 0x5a, sizeof(b));
	CU_ASSERT_EQUAL_FATAL(rps_backlog_init(&b, "state", 100, SOCKET_ID_ANY), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b.ring);
	CU_ASSERT_STRING_EQUAL(b.ring->name, "rps_bl_state");
	CU_ASSERT_EQUAL(b.capacity, 100);
	CU_ASSERT_EQUAL(b.prod.tail, 0);
	CU_ASSERT_EQUAL(b.prod.full_drops, 0);
	CU_ASSERT_EQUAL(b.prod.hwm, 0);
	CU_ASSERT_EQUAL(b.cons.head, 0);
	CU_ASSERT_EQUAL(rps_backlog_depth(&b), 0);
	/* one producer, one consumer */
	CU_ASSERT_EQUAL(b.ring->prod.sync_type, RTE_RING_SYNC_ST);
	CU_ASSERT_EQUAL(b.ring->cons.sync_type, RTE_RING_SYNC_ST);
	/* the counters the two sides write live on separate cache lines */
	CU_ASSERT_NOT_EQUAL((uintptr_t)&b.prod / RTE_CACHE_LINE_SIZE,
			    (uintptr_t)&b.cons / RTE_CACHE_LINE_SIZE);
	rps_backlog_fini(&b);
}

/* The capacity asked for is exactly what fits, for sizes that are and aren't powers of 2. */
static void
test_exact_capacity(void)
{
	static const uint32_t caps[] = { 1, 2, 3, 10, 64, 100, 1000 };
	struct rte_mbuf *pkts[1001];

	for (unsigned int i = 0; i < RTE_DIM(caps); i++) {
		struct rps_backlog b;
		unsigned int avail = ut_pool_avail();
		uint32_t cap = caps[i], got, left = 0;

		CU_ASSERT_EQUAL_FATAL(rps_backlog_init(&b, "cap", cap, SOCKET_ID_ANY), 0);
		CU_ASSERT_EQUAL(b.capacity, cap);
		CU_ASSERT_EQUAL(rte_ring_get_capacity(b.ring), cap);
		alloc_pkts(pkts, cap + 1, 0);
		CU_ASSERT_EQUAL(rps_backlog_enqueue(&b, pkts, cap + 1), cap);
		CU_ASSERT_EQUAL(b.prod.full_drops, 1);
		CU_ASSERT_EQUAL(b.prod.tail, cap);
		CU_ASSERT_EQUAL(b.prod.hwm, cap);
		CU_ASSERT_EQUAL(rps_backlog_depth(&b), cap);
		got = rps_backlog_dequeue(&b, pkts, cap + 1, &left);
		CU_ASSERT_EQUAL(got, cap);
		CU_ASSERT_EQUAL(left, 0);
		rte_pktmbuf_free_bulk(pkts, got);
		rps_backlog_complete(&b, got);
		CU_ASSERT_EQUAL(rps_backlog_depth(&b), 0);
		rps_backlog_fini(&b);
		CU_ASSERT_EQUAL(ut_pool_avail(), avail);
	}
}

/* The brief's worked example: capacity 10, 7 + 7 offered. */
static void
test_full_drops(void)
{
	struct rps_backlog b;
	struct rte_mbuf *a[7], *c[7], *out[16];
	unsigned int avail0 = ut_pool_avail();
	uint32_t left = 99;

	CU_ASSERT_EQUAL_FATAL(rps_backlog_init(&b, "full", 10, SOCKET_ID_ANY), 0);
	alloc_pkts(a, 7, 0);
	alloc_pkts(c, 7, 7);
	CU_ASSERT_EQUAL(ut_pool_avail(), avail0 - 14);

	CU_ASSERT_EQUAL(rps_backlog_enqueue(&b, a, 7), 7);
	CU_ASSERT_EQUAL(b.prod.tail, 7);
	CU_ASSERT_EQUAL(b.prod.full_drops, 0);
	CU_ASSERT_EQUAL(b.prod.hwm, 7);
	CU_ASSERT_EQUAL(rps_backlog_depth(&b), 7);

	CU_ASSERT_EQUAL(rps_backlog_enqueue(&b, c, 7), 3);
	CU_ASSERT_EQUAL(b.prod.full_drops, 4);
	CU_ASSERT_EQUAL(b.prod.tail, 10);
	CU_ASSERT_EQUAL(b.prod.hwm, 10);
	CU_ASSERT_EQUAL(rps_backlog_depth(&b), 10);
	/* the 4 refused mbufs went back to the pool */
	CU_ASSERT_EQUAL(ut_pool_avail(), avail0 - 10);
	CU_ASSERT_EQUAL(rte_ring_count(b.ring), 10);

	/* the worker takes 4: FIFO, the accepted prefix of the second burst last */
	CU_ASSERT_EQUAL(rps_backlog_dequeue(&b, out, 4, &left), 4);
	CU_ASSERT_EQUAL(left, 6);
	for (unsigned int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(tag(out[i]), i);
	/* dequeued but not completed: still counted in the depth */
	CU_ASSERT_EQUAL(rps_backlog_depth(&b), 10);
	CU_ASSERT_EQUAL(b.cons.head, 0);
	rte_pktmbuf_free_bulk(out, 4);
	rps_backlog_complete(&b, 4);
	CU_ASSERT_EQUAL(rps_backlog_depth(&b), 6);
	CU_ASSERT_EQUAL(b.cons.head, 4);

	/* room for 4 again: the high-water mark stays, drops continue to count */
	alloc_pkts(a, 5, 100);
	CU_ASSERT_EQUAL(rps_backlog_enqueue(&b, a, 5), 4);
	CU_ASSERT_EQUAL(b.prod.tail, 14);
	CU_ASSERT_EQUAL(b.prod.full_drops, 5);
	CU_ASSERT_EQUAL(b.prod.hwm, 10);
	CU_ASSERT_EQUAL(rps_backlog_depth(&b), 10);

	/* order across bursts: 4..6 of the first burst, 7..9 of the second, then 100..103 */
	CU_ASSERT_EQUAL(rps_backlog_dequeue(&b, out, 16, &left), 10);
	CU_ASSERT_EQUAL(left, 0);
	for (unsigned int i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(tag(out[i]), 4 + i);
	for (unsigned int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(tag(out[6 + i]), 100 + i);
	rte_pktmbuf_free_bulk(out, 10);
	rps_backlog_complete(&b, 10);
	CU_ASSERT_EQUAL(b.cons.head, 14);
	CU_ASSERT_EQUAL(rps_backlog_depth(&b), 0);
	/* an empty dequeue */
	CU_ASSERT_EQUAL(rps_backlog_dequeue(&b, out, 16, &left), 0);
	CU_ASSERT_EQUAL(left, 0);

	rps_backlog_fini(&b);
	CU_ASSERT_EQUAL(ut_pool_avail(), avail0);
}

static void
test_hwm(void)
{
	struct rps_backlog b;
	struct rte_mbuf *p[8], *out[8];
	uint32_t left;

	CU_ASSERT_EQUAL_FATAL(rps_backlog_init(&b, "hwm", 8, SOCKET_ID_ANY), 0);
	alloc_pkts(p, 3, 0);
	rps_backlog_enqueue(&b, p, 3);
	CU_ASSERT_EQUAL(b.prod.hwm, 3);
	CU_ASSERT_EQUAL(rps_backlog_dequeue(&b, out, 8, &left), 3);
	rte_pktmbuf_free_bulk(out, 3);
	rps_backlog_complete(&b, 3);
	alloc_pkts(p, 2, 0);
	rps_backlog_enqueue(&b, p, 2);
	CU_ASSERT_EQUAL(b.prod.hwm, 3); /* a shallower burst does not lower it */
	alloc_pkts(p, 3, 0);
	rps_backlog_enqueue(&b, p, 3);
	CU_ASSERT_EQUAL(b.prod.hwm, 5);
	/* an empty enqueue changes nothing */
	CU_ASSERT_EQUAL(rps_backlog_enqueue(&b, p, 0), 0);
	CU_ASSERT_EQUAL(b.prod.tail, 8);
	CU_ASSERT_EQUAL(b.prod.full_drops, 0);
	rps_backlog_fini(&b);
}

/* fini frees whatever is still queued, more than one dequeue burst's worth. */
static void
test_fini_frees(void)
{
	struct rps_backlog b;
	struct rte_mbuf *p[300];
	unsigned int avail0 = ut_pool_avail();

	CU_ASSERT_EQUAL_FATAL(rps_backlog_init(&b, "fini", 300, SOCKET_ID_ANY), 0);
	alloc_pkts(p, 300, 0);
	CU_ASSERT_EQUAL(rps_backlog_enqueue(&b, p, 300), 300);
	CU_ASSERT_EQUAL(ut_pool_avail(), avail0 - 300);
	rps_backlog_fini(&b);
	CU_ASSERT_PTR_NULL(b.ring);
	CU_ASSERT_EQUAL(ut_pool_avail(), avail0);

	/* multi-segment packets are freed whole */
	CU_ASSERT_EQUAL_FATAL(rps_backlog_init(&b, "fini", 4, SOCKET_ID_ANY), 0);
	{
		uint8_t raw[100] = { 0 };
		struct rte_mbuf *m[6];

		for (unsigned int i = 0; i < 6; i++) {
			m[i] = ut_mbuf_split(raw, sizeof(raw), 40);
			CU_ASSERT_PTR_NOT_NULL_FATAL(m[i]);
		}
		CU_ASSERT_EQUAL(rps_backlog_enqueue(&b, m, 6), 4);
		CU_ASSERT_EQUAL(ut_pool_avail(), avail0 - 8);
	}
	rps_backlog_fini(&b);
	CU_ASSERT_EQUAL(ut_pool_avail(), avail0);
}

/* The way back (--recycle-mbufs): what fits goes onto the return ring in order, the rest is
 * freed at once; reclaim hands them out in order; fini frees what is left on both rings. */
static void
test_recycle(void)
{
	struct rps_backlog b;
	struct rte_mbuf *p[6], *q[8];
	unsigned int avail0 = ut_pool_avail();

	CU_ASSERT_EQUAL_FATAL(rps_backlog_init(&b, "rec", 8, SOCKET_ID_ANY), 0);
	CU_ASSERT_PTR_NULL(b.ret);
	CU_ASSERT_EQUAL(rps_backlog_recycle_init(&b, "rec", 0, SOCKET_ID_ANY), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(rps_backlog_recycle_init(&b, "rec", 4, SOCKET_ID_ANY), 0);
	alloc_pkts(p, 6, 10);
	rps_backlog_recycle(&b, p, 6);
	CU_ASSERT_EQUAL(ut_pool_avail(), avail0 - 4); /* two did not fit: freed */
	CU_ASSERT_EQUAL_FATAL(rps_backlog_reclaim(&b, q, 3), 3);
	for (unsigned int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(tag(q[i]), 10 + i);
	rte_pktmbuf_free_bulk(q, 3);
	CU_ASSERT_EQUAL(ut_pool_avail(), avail0 - 1);
	/* one still on the way back, two waiting on the backlog: fini frees all three */
	alloc_pkts(p, 2, 20);
	CU_ASSERT_EQUAL(rps_backlog_enqueue(&b, p, 2), 2);
	rps_backlog_fini(&b);
	CU_ASSERT_PTR_NULL(b.ret);
	CU_ASSERT_EQUAL(ut_pool_avail(), avail0);
}

/* 32-bit slots (rps_backlog_init_slots()): every mbuf comes out as itself, in order, through
 * the backlog (bursts that wrap around the ring's end included) and the way back; what the
 * slots cannot name (below the base) is freed, not recycled; fini frees both rings' packets;
 * a rebase needs empty rings. */
static void
test_slots(void)
{
	enum { N = 300 };
	struct rte_mempool *pools[] = { NULL, ut_pool() };
	const uintptr_t base = rps_backlog_slot_base(pools, RTE_DIM(pools));
	static struct rte_mbuf *p[N + 2], *q[N];
	struct rps_backlog b;
	unsigned int avail0 = ut_pool_avail();
	uint32_t left, got = 0;

	CU_ASSERT_EQUAL(rps_backlog_slot_base(pools, 1), 0);      /* no pool: pointers */
	CU_ASSERT_FATAL(base != 0 && base % RTE_CACHE_LINE_MIN_SIZE == 0);
	CU_ASSERT_EQUAL_FATAL(rps_backlog_init_slots(&b, "slots", N, SOCKET_ID_ANY, base), 0);
	CU_ASSERT_EQUAL(b.slot_base, base);
	CU_ASSERT_EQUAL(b.capacity, N);
	for (unsigned int i = 0; i < N + 2; i++) {
		uint8_t d[60] = { (uint8_t)i, (uint8_t)(i >> 8) };

		p[i] = ut_mbuf(d, sizeof(d));
		CU_ASSERT_PTR_NOT_NULL_FATAL(p[i]);
	}
	CU_ASSERT_EQUAL(rps_backlog_enqueue(&b, p, N + 2), N);    /* two refused: freed */
	CU_ASSERT_EQUAL(b.prod.full_drops, 2);
	CU_ASSERT_EQUAL(ut_pool_avail(), avail0 - N);
	CU_ASSERT_EQUAL(rte_ring_count(b.ring), N);
	while (got < N) {
		uint32_t k = rps_backlog_dequeue(&b, q + got, RTE_MIN(N - got, 64u), &left);

		CU_ASSERT_FATAL(k != 0);
		got += k;
		CU_ASSERT_EQUAL(left, N - got);
	}
	for (unsigned int i = 0; i < N; i++)
		CU_ASSERT_PTR_EQUAL(q[i], p[i]);
	/* 60 at a time past the ring's end (its 512 slots): each burst wraps once */
	for (unsigned int round = 0; round < 12; round++) {
		CU_ASSERT_EQUAL(rps_backlog_enqueue(&b, q, 60), 60);
		CU_ASSERT_EQUAL_FATAL(rps_backlog_dequeue(&b, p, 60, &left), 60);
		for (unsigned int i = 0; i < 60; i++)
			CU_ASSERT_PTR_EQUAL(p[i], q[i]);
	}
	CU_ASSERT_EQUAL(rps_backlog_rebase(&b, base), 0);         /* empty: allowed */

	/* the way back: in order, the two that do not fit freed */
	CU_ASSERT_EQUAL_FATAL(rps_backlog_recycle_init(&b, "slots", 8, SOCKET_ID_ANY), 0);
	rps_backlog_recycle(&b, q, 10);
	CU_ASSERT_EQUAL(ut_pool_avail(), avail0 - N + 2);
	CU_ASSERT_EQUAL_FATAL(rps_backlog_reclaim(&b, p, 8), 8);
	for (unsigned int i = 0; i < 8; i++)
		CU_ASSERT_PTR_EQUAL(p[i], q[i]);
	rte_pktmbuf_free_bulk(p, 8);
	CU_ASSERT_EQUAL(ut_pool_avail(), avail0 - N + 10);

	/* packets on both rings: no rebase; fini frees them all */
	CU_ASSERT_EQUAL(rps_backlog_enqueue(&b, q + 10, 5), 5);
	rps_backlog_recycle(&b, q + 15, 3);
	CU_ASSERT_EQUAL(rps_backlog_rebase(&b, base), -EINVAL);
	rps_backlog_fini(&b);
	rte_pktmbuf_free_bulk(q + 18, N - 18);
	CU_ASSERT_EQUAL(ut_pool_avail(), avail0);

	/* an mbuf below the base cannot be named: recycled, it is freed instead */
	alloc_pkts(p, 2, 0);
	if ((uintptr_t)p[0] > (uintptr_t)p[1]) {
		struct rte_mbuf *t = p[0];

		p[0] = p[1];
		p[1] = t;
	}
	CU_ASSERT_EQUAL_FATAL(rps_backlog_init_slots(&b, "below", 4, SOCKET_ID_ANY,
						     (uintptr_t)p[0] + RTE_CACHE_LINE_MIN_SIZE), 0);
	CU_ASSERT_EQUAL_FATAL(rps_backlog_recycle_init(&b, "below", 4, SOCKET_ID_ANY), 0);
	rps_backlog_recycle(&b, &p[1], 1);                        /* above: goes back */
	rps_backlog_recycle(&b, &p[0], 1);                        /* below: freed */
	CU_ASSERT_EQUAL(ut_pool_avail(), avail0 - 1);
	CU_ASSERT_EQUAL(rps_backlog_reclaim(&b, q, 4), 1);
	CU_ASSERT_PTR_EQUAL(q[0], p[1]);
	rte_pktmbuf_free(q[0]);
	rps_backlog_fini(&b);

	/* pointers: no rebase */
	CU_ASSERT_EQUAL_FATAL(rps_backlog_init(&b, "ptrs", 4, SOCKET_ID_ANY), 0);
	CU_ASSERT_EQUAL(rps_backlog_rebase(&b, base), -EINVAL);
	rps_backlog_fini(&b);
	CU_ASSERT_EQUAL(ut_pool_avail(), avail0);
}

/* Another thread reading the depth between the ring's enqueue and the tail counter's update,
 * after a fast worker processed those packets: head is ahead of the tail it reads. */
static void
test_depth_race(void)
{
	struct rps_backlog b;
	struct rte_mbuf *a[3], *out[3];
	uint32_t left;

	CU_ASSERT_EQUAL_FATAL(rps_backlog_init(&b, "race", 8, SOCKET_ID_ANY), 0);
	alloc_pkts(a, 3, 0);
	/* the ring has them, tail not yet: the RX lcore is between the two steps */
	CU_ASSERT_EQUAL(rte_ring_enqueue_burst(b.ring, (void **)a, 3, NULL), 3);
	CU_ASSERT_EQUAL(rps_backlog_dequeue(&b, out, 3, &left), 3);
	rps_backlog_complete(&b, 3);
	CU_ASSERT_EQUAL(rps_backlog_depth(&b), 0);  /* not 2^64 - 3 */
	b.prod.tail += 3;
	CU_ASSERT_EQUAL(rps_backlog_depth(&b), 0);
	rte_pktmbuf_free_bulk(out, 3);
	rps_backlog_fini(&b);
}

/* Fragments held by the worker's reassembly keep its drained position (what moves wait for)
 * behind head for at most one reassembly timeout; with nothing held drained is head. */
static void
test_drained_holds_fragments(void)
{
	struct rps_backlog b;
	struct rte_mbuf *a[8], *out[8];
	uint32_t left;

	CU_ASSERT_EQUAL_FATAL(rps_backlog_init(&b, "drain", 16, SOCKET_ID_ANY), 0);
	rps_backlog_drain_init(&b, 1000);
	alloc_pkts(a, 8, 0);
	CU_ASSERT_EQUAL(rps_backlog_enqueue(&b, a, 4), 4);
	CU_ASSERT_EQUAL(rps_backlog_dequeue(&b, out, 4, &left), 4);
	rps_backlog_complete(&b, 4);
	rte_pktmbuf_free_bulk(out, 4);
	rps_backlog_drain_update(&b, 0, 10);          /* nothing held: drained is head */
	CU_ASSERT_EQUAL(b.cons.drained, 4);
	CU_ASSERT_TRUE(rps_backlog_passed(&b, 4, 0));

	/* 4 more, two of them fragments the reassembly keeps */
	CU_ASSERT_EQUAL(rps_backlog_enqueue(&b, a + 4, 4), 4);
	CU_ASSERT_EQUAL(rps_backlog_dequeue(&b, out, 4, &left), 4);
	rps_backlog_complete(&b, 4);
	rte_pktmbuf_free_bulk(out, 4);
	rps_backlog_drain_update(&b, 2, 20);
	CU_ASSERT_EQUAL(b.cons.head, 8);
	CU_ASSERT_EQUAL(b.cons.drained, 4);            /* not passed while they may be held */
	CU_ASSERT_FALSE(rps_backlog_passed(&b, 8, 0));
	rps_backlog_drain_update(&b, 2, 600);          /* a mark: head 8 at 600 */
	CU_ASSERT_EQUAL(b.cons.drained, 4);
	rps_backlog_drain_update(&b, 2, 1599);
	CU_ASSERT_EQUAL(b.cons.drained, 4);
	/* one timeout after the mark, whatever was dequeued before it completed or expired */
	rps_backlog_drain_update(&b, 2, 1600);
	CU_ASSERT_EQUAL(b.cons.drained, 8);
	CU_ASSERT_TRUE(rps_backlog_passed(&b, 8, 0));
	/* and the datagram completing (nothing held) releases at once */
	rps_backlog_drain_init(&b, 1000);
	b.cons.drained = 4;
	rps_backlog_drain_update(&b, 0, 1700);
	CU_ASSERT_EQUAL(b.cons.drained, 8);
	rps_backlog_fini(&b);
}

/* A worker's backlogs from several RX lcores (struct rps_backlog_in): one burst from each
 * non-empty backlog in turn, the turn starting after the one served last, so a busy RX lcore
 * cannot starve a quiet one; pairs are drained in their own order; each its own head. */
static void
test_in_round_robin(void)
{
	struct rps_backlog b[3];
	struct rps_backlog *bp[3] = { &b[0], &b[1], &b[2] };
	struct rps_backlog_in in = { .b = bp, .nb = 3, .next = 0 };
	struct rte_mbuf *a[64], *out[8];
	struct rps_backlog *from;
	uint32_t left, got;
	int order[16], nb = 0;

	CU_ASSERT_EQUAL_FATAL(rps_backlog_init(&b[0], "in0", 64, SOCKET_ID_ANY), 0);
	CU_ASSERT_EQUAL_FATAL(rps_backlog_init(&b[1], "in1", 64, SOCKET_ID_ANY), 0);
	CU_ASSERT_EQUAL_FATAL(rps_backlog_init(&b[2], "in2", 64, SOCKET_ID_ANY), 0);
	/* empty: nothing, from NULL */
	CU_ASSERT_EQUAL(rps_backlog_in_dequeue(&in, out, 4, &left, &from), 0);
	CU_ASSERT_PTR_NULL(from);
	CU_ASSERT_EQUAL(in.next, 0);
	/* a busy pair (40 packets on 0), a quiet one (4 on 1), one idle (2) */
	alloc_pkts(a, 44, 0);
	CU_ASSERT_EQUAL(rps_backlog_enqueue(&b[0], a, 40), 40);
	CU_ASSERT_EQUAL(rps_backlog_enqueue(&b[1], a + 40, 4), 4);
	CU_ASSERT_EQUAL(rps_backlog_in_depth(&in), 44);
	while ((got = rps_backlog_in_dequeue(&in, out, 4, &left, &from)) != 0 && nb < 16) {
		int idx = (int)(from - b);

		/* each pair hands its own packets, in its own order */
		uint8_t want = (uint8_t)(idx == 0 ? b[0].cons.head : 40 + b[1].cons.head);

		CU_ASSERT_EQUAL(tag(out[0]), want);
		CU_ASSERT_EQUAL(got, 4);
		rps_backlog_complete(from, got);
		rte_pktmbuf_free_bulk(out, got);
		order[nb++] = idx;
	}
	/* 0, 1, then 0 alone: the quiet pair was served second, not after the busy one's 10 */
	CU_ASSERT_EQUAL_FATAL(nb, 11);
	CU_ASSERT_EQUAL(order[0], 0);
	CU_ASSERT_EQUAL(order[1], 1);
	for (int i = 2; i < nb; i++)
		CU_ASSERT_EQUAL(order[i], 0);
	CU_ASSERT_EQUAL(b[0].cons.head, 40);
	CU_ASSERT_EQUAL(b[1].cons.head, 4);
	CU_ASSERT_EQUAL(b[2].cons.head, 0);
	CU_ASSERT_EQUAL(rps_backlog_in_head(&in), 44);
	CU_ASSERT_EQUAL(rps_backlog_in_depth(&in), 0);

	/* all three full: strict rotation, wherever the turn stood */
	alloc_pkts(a, 36, 100);
	for (int r = 0; r < 3; r++)
		CU_ASSERT_EQUAL(rps_backlog_enqueue(&b[r], a + 12 * r, 12), 12);
	in.next = 2;
	for (int k = 0; k < 9; k++) {
		got = rps_backlog_in_dequeue(&in, out, 4, &left, &from);
		CU_ASSERT_EQUAL(got, 4);
		CU_ASSERT_EQUAL((int)(from - b), (2 + k) % 3);
		CU_ASSERT_EQUAL(left, (uint32_t)(8 - 4 * (k / 3)));
		rps_backlog_complete(from, got);
		rte_pktmbuf_free_bulk(out, got);
	}
	CU_ASSERT_EQUAL(rps_backlog_in_dequeue(&in, out, 4, &left, &from), 0);
	/* a stalled worker: every pair failed */
	rps_backlog_in_set_failed(&in, 1);
	for (int r = 0; r < 3; r++)
		CU_ASSERT_TRUE(rps_backlog_failed(&b[r]));
	rps_backlog_in_set_failed(&in, 0);
	CU_ASSERT_FALSE(rps_backlog_failed(&b[1]));
	for (int r = 0; r < 3; r++)
		rps_backlog_fini(&b[r]);
}

/* One pair fed faster than the worker drains it cannot keep another's packets waiting more
 * than one burst per pair: with the busy pair refilled after every burst, the quiet pair's
 * packets still leave within nb turns. */
static void
test_in_no_starvation(void)
{
	struct rps_backlog b[2];
	struct rps_backlog *bp[2] = { &b[0], &b[1] };
	struct rps_backlog_in in = { .b = bp, .nb = 2, .next = 0 };
	struct rte_mbuf *a[8], *out[4];
	struct rps_backlog *from;
	uint32_t left, got;
	unsigned int quiet_seen = 0;

	CU_ASSERT_EQUAL_FATAL(rps_backlog_init(&b[0], "st0", 64, SOCKET_ID_ANY), 0);
	CU_ASSERT_EQUAL_FATAL(rps_backlog_init(&b[1], "st1", 64, SOCKET_ID_ANY), 0);
	alloc_pkts(a, 4, 0);
	CU_ASSERT_EQUAL(rps_backlog_enqueue(&b[1], a, 4), 4); /* the quiet pair: one burst */
	for (int k = 0; k < 20; k++) {
		alloc_pkts(a, 4, 10);
		CU_ASSERT_EQUAL(rps_backlog_enqueue(&b[0], a, 4), 4); /* the busy one refills */
		got = rps_backlog_in_dequeue(&in, out, 4, &left, &from);
		CU_ASSERT_EQUAL(got, 4);
		if (from == &b[1]) {
			quiet_seen++;
			CU_ASSERT_TRUE(k <= 1); /* its turn came at once */
		}
		rps_backlog_complete(from, got);
		rte_pktmbuf_free_bulk(out, got);
	}
	CU_ASSERT_EQUAL(quiet_seen, 1);
	CU_ASSERT_EQUAL(b[1].cons.head, 4);
	/* a single pair behaves as a plain backlog */
	{
		struct rps_backlog_in one = { .b = bp, .nb = 1, .next = 0 };

		got = rps_backlog_in_dequeue(&one, out, 4, &left, &from);
		CU_ASSERT_EQUAL(got, 4);
		CU_ASSERT_PTR_EQUAL(from, &b[0]);
		CU_ASSERT_EQUAL(one.next, 0);
		rps_backlog_complete(from, got);
		rte_pktmbuf_free_bulk(out, got);
	}
	rps_backlog_fini(&b[0]);
	rps_backlog_fini(&b[1]);
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "init_errors", test_init_errors },
		{ "init_state", test_init_state },
		{ "exact_capacity", test_exact_capacity },
		{ "full_drops", test_full_drops },
		{ "hwm", test_hwm },
		{ "fini_frees", test_fini_frees },
		{ "recycle", test_recycle },
		{ "slots", test_slots },
		{ "depth_race", test_depth_race },
		{ "drained_holds_fragments", test_drained_holds_fragments },
		{ "in_round_robin", test_in_round_robin },
		{ "in_no_starvation", test_in_no_starvation },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "backlog", tests);
}
