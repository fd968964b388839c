/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_order.h: measuring reordering at the steering point (--check-order).
 *
 * A worker's flow table cannot see a flow reordered across workers (each worker sees its own
 * part in order), so the RX lcore stamps every packet with (bucket, sequence number of the
 * bucket) in an mbuf dynamic field, and every worker, on dequeue, checks that the stamp is
 * newer than the last one any worker dequeued for that bucket. A bucket is the RX queue
 * (its top qbits bits, enough for every queue of the port) and the hash's top 20 - qbits
 * bits: two flows sharing a bucket share the queue and the map's bucket (the hash's top 12
 * bits at most, rps_map.h), hence the worker, so in-order flows are never counted. A stamp
 * that is not newer is counted in `reordered`: a packet that reached its worker after a later
 * packet of its flow had reached one.
 *
 * Concurrency: rps_order_stamp() from the RX lcore only (it owns the sequence counters);
 * rps_order_check() from workers, with relaxed atomic loads/stores on the shared table (no
 * read-modify-write). When remaps are reorder-safe only one worker handles a bucket at a
 * time, and the backlog's head/tail handover orders their accesses.
 */
#ifndef RPS_ORDER_H
#define RPS_ORDER_H

#include <stdint.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#define RPS_ORDER_BITS 20

struct rps_order {
	int dynfield;        /**< offset of the uint64_t stamp in the mbuf */
	uint32_t *rx_seq;    /**< [2^RPS_ORDER_BITS], RX lcore only */
	uint32_t *done;      /**< [2^RPS_ORDER_BITS], last stamp dequeued, any worker */
	uint32_t qbits;      /**< bits of the bucket that hold the RX queue (rps_order_set_queues) */
};

/** Register the dynamic field and allocate the tables. @return 0 or -ENOMEM / -rte_errno. */
int rps_order_init(struct rps_order *o, int socket);
void rps_order_fini(struct rps_order *o);

/** Make room in the bucket for @p nb_queues RX queues (at most 256; default 1). */
void rps_order_set_queues(struct rps_order *o, unsigned int nb_queues);

/** Stamp a packet of RX queue @p queue steered by @p hash (RX lcore). */
static inline void
rps_order_stamp(struct rps_order *o, struct rte_mbuf *m, uint32_t hash, uint16_t queue)
{
	uint32_t b = (uint32_t)queue << (RPS_ORDER_BITS - o->qbits) |
		     hash >> (32 - RPS_ORDER_BITS + o->qbits);

	*RTE_MBUF_DYNFIELD(m, o->dynfield, uint64_t *) = (uint64_t)b << 32 | ++o->rx_seq[b];
}

/** Check a dequeued burst (worker). @return packets that arrived after a later one. */
static inline uint32_t
rps_order_check(struct rps_order *o, struct rte_mbuf **pkts, uint16_t n)
{
	uint32_t late = 0;

	for (uint16_t i = 0; i < n; i++) {
		uint64_t v = *RTE_MBUF_DYNFIELD(pkts[i], o->dynfield, uint64_t *);
		uint32_t b = (uint32_t)(v >> 32), seq = (uint32_t)v;
		uint32_t last = __atomic_load_n(&o->done[b], __ATOMIC_RELAXED);

		if (unlikely(last != 0 && (int32_t)(seq - last) <= 0)) {
			late++;
			continue; /* keep the newest stamp */
		}
		__atomic_store_n(&o->done[b], seq, __ATOMIC_RELAXED);
	}
	return late;
}

#endif /* RPS_ORDER_H */
