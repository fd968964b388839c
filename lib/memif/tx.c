/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tx.c: the send path of the memif server: copy a burst into the buffers the client posted
 * on its S2C ring, every descriptor checked against the client's mapped memory first.
 */
#include <unistd.h>

#include <rte_branch_prediction.h>
#include <rte_memcpy.h>

#include "memif_private.h"

/* The client owns the descriptors and may change them while we read: each field is read
 * once, and only the copies are checked and used. */
struct desc_view {
	uint8_t *buf;
	uint32_t room;
};

/* Where descriptor @p d lets us write, or buf NULL when it points outside the client's
 * memory (or has no room). */
static inline struct desc_view
desc_check(const struct rps_memif_conn *c, const struct rps_memif_desc *d)
{
	const uint16_t region = __atomic_load_n(&d->region, __ATOMIC_RELAXED);
	const uint32_t len = __atomic_load_n(&d->length, __ATOMIC_RELAXED);
	const uint32_t off = __atomic_load_n(&d->offset, __ATOMIC_RELAXED);
	struct desc_view v = { NULL, 0 };

	if (likely(region < c->nb_regions && len != 0 &&
		   (uint64_t)off + len <= c->region[region].size)) {
		v.buf = c->region[region].addr + off;
		v.room = len;
	}
	return v;
}

/* Copy @p m into the ring from slot @p slot, using at most @p avail slots. @return the
 * slots used, 0 when it does not fit, -1 for a bad descriptor. */
static inline int
copy_one(const struct rps_memif_conn *c, const struct rps_memif_qring *q,
	 const struct rte_mbuf *m, uint16_t slot, uint16_t avail)
{
	struct rps_memif_ring *r = q->ring;
	struct rps_memif_desc *d = &r->desc[slot & q->mask];
	struct desc_view v = desc_check(c, d);
	uint32_t done = 0;
	int used = 1;

	if (unlikely(v.buf == NULL))
		return -1;
	for (const struct rte_mbuf *s = m; s != NULL; s = s->next) {
		const uint8_t *src = rte_pktmbuf_mtod(s, const uint8_t *);
		uint32_t left = s->data_len;

		while (left != 0) {
			uint32_t n;

			if (done == v.room) {
				/* this buffer is full: the packet goes on in the next slot */
				if (used == avail)
					return 0;
				__atomic_store_n(&d->length, done, __ATOMIC_RELAXED);
				__atomic_store_n(&d->flags, RPS_MEMIF_DESC_NEXT, __ATOMIC_RELAXED);
				d = &r->desc[(uint16_t)(slot + used) & q->mask];
				used++;
				v = desc_check(c, d);
				if (unlikely(v.buf == NULL))
					return -1;
				done = 0;
			}
			n = RTE_MIN(left, v.room - done);
			rte_memcpy(v.buf + done, src, n);
			done += n;
			src += n;
			left -= n;
		}
	}
	__atomic_store_n(&d->length, done, __ATOMIC_RELAXED);
	__atomic_store_n(&d->flags, 0, __ATOMIC_RELAXED);
	return used;
}

uint16_t
rps_memif_tx_ring(struct rps_memif *m, uint16_t ring, struct rte_mbuf **pkts, uint16_t n)
{
	struct rps_memif_conn *c = __atomic_load_n(&m->conn, __ATOMIC_ACQUIRE);
	const struct rps_memif_qring *q;
	struct rps_memif_ring *r;
	uint16_t tail, avail, sent = 0;

	if (unlikely(c == NULL || ring >= c->nb_s2c ||
		     __atomic_load_n(&c->broken, __ATOMIC_RELAXED)))
		return 0;
	q = &c->s2c[ring];
	r = q->ring;
	tail = c->tx[ring].tail;
	avail = rps_memif_ring_avail(c, q, tail); /* the buffers posted */
	while (sent < n && avail != 0) {
		const int used = copy_one(c, q, pkts[sent], tail, avail);

		if (unlikely(used <= 0)) {
			if (used < 0)
				__atomic_store_n(&c->broken, 1, __ATOMIC_RELAXED);
			break;
		}
		tail = (uint16_t)(tail + used);
		avail = (uint16_t)(avail - used);
		sent++;
	}
	if (sent == 0)
		return 0;
	c->tx[ring].tail = tail;
	/* the buffers and descriptors before the tail that publishes them */
	__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
	/* A client that sleeps on its eventfd (interrupts unmasked) is woken: one write per
	 * burst, the consumer's IPI. The eventfd is non-blocking and watched by the hub
	 * (server.c: kick_watch()), so this write cannot block. */
	if ((__atomic_load_n(&r->flags, __ATOMIC_RELAXED) & RPS_MEMIF_RING_MASK_INT) == 0) {
		const uint64_t one = 1;
		ssize_t rc = write(q->efd, &one, sizeof(one));

		RTE_SET_USED(rc);
	}
	rte_pktmbuf_free_bulk(pkts, sent);
	return sent;
}

uint32_t
rps_memif_tx_unread(const struct rps_memif *m)
{
	const struct rps_memif_conn *c = __atomic_load_n(&m->conn, __ATOMIC_ACQUIRE);
	uint32_t unread = 0;

	if (c == NULL)
		return 0;
	for (uint16_t i = 0; i < c->nb_s2c; i++) {
		const struct rps_memif_qring *q = &c->s2c[i];
		const uint16_t taken = (uint16_t)(__atomic_load_n(&q->ring->head, __ATOMIC_RELAXED) -
						  (q->mask + 1u));
		const int16_t d = (int16_t)(__atomic_load_n(&c->tx[i].tail, __ATOMIC_RELAXED) -
					    taken);

		unread += d > 0 ? (uint32_t)d : 0;
	}
	return unread;
}
