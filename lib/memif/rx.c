/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rx.c: the receive path of the memif server: take the packets a client returns on its C2S
 * ring, each copied out of the client's buffers into mbufs of ours, every descriptor
 * checked against the client's mapped memory first. The client's memory is never handed
 * on: it may change or go at any time, our copies stay ours.
 */
#include <rte_branch_prediction.h>
#include <rte_memcpy.h>

#include "memif_private.h"

/* Where descriptor @p d lets us read (@p len bytes at @p buf), or 0 when it points outside
 * the client's memory or is empty. Each field is read once: the client may change them. */
static inline int
rx_desc(const struct rps_memif_conn *c, const struct rps_memif_desc *d, const uint8_t **buf,
	uint32_t *len, uint16_t *flags)
{
	const uint16_t region = __atomic_load_n(&d->region, __ATOMIC_RELAXED);
	const uint32_t n = __atomic_load_n(&d->length, __ATOMIC_RELAXED);
	const uint32_t off = __atomic_load_n(&d->offset, __ATOMIC_RELAXED);

	*flags = __atomic_load_n(&d->flags, __ATOMIC_RELAXED);
	if (unlikely(region >= c->nb_regions || n == 0 ||
		     (uint64_t)off + n > c->region[region].size))
		return 0;
	*buf = c->region[region].addr + off;
	*len = n;
	return 1;
}

/* Append @p len bytes at @p src to the chain @p head whose last segment is *@p last, taking
 * more segments from @p mp as each fills. @return 0, or -1 when the pool ran dry. */
static inline int
rx_append(struct rte_mbuf *head, struct rte_mbuf **last, struct rte_mempool *mp,
	  const uint8_t *src, uint32_t len)
{
	struct rte_mbuf *seg = *last;

	while (len != 0) {
		uint32_t room = rte_pktmbuf_tailroom(seg);
		uint32_t n;

		if (room == 0) {
			struct rte_mbuf *more = rte_pktmbuf_alloc(mp);

			if (unlikely(more == NULL))
				return -1;
			seg->next = more;
			seg = more;
			head->nb_segs++;
			room = rte_pktmbuf_tailroom(seg);
		}
		n = RTE_MIN(len, room);
		rte_memcpy(rte_pktmbuf_mtod_offset(seg, uint8_t *, seg->data_len), src, n);
		seg->data_len = (uint16_t)(seg->data_len + n);
		head->pkt_len += n;
		src += n;
		len -= n;
	}
	*last = seg;
	return 0;
}

/* Copy the packet that starts at slot @p slot (at most @p avail slots filled) into a new
 * chain in *@p out. @return the slots it took; 0 when it is not all there yet or the pool
 * is dry (nothing taken); -1 for a bad descriptor or a packet too long. */
static inline int
rx_one(const struct rps_memif_conn *c, const struct rps_memif_qring *q, uint16_t slot,
       uint16_t avail, struct rte_mempool *mp, struct rte_mbuf **out)
{
	const struct rps_memif_ring *r = q->ring;
	struct rte_mbuf *head = rte_pktmbuf_alloc(mp), *last = head;
	int used = 0;

	if (unlikely(head == NULL))
		return 0;
	for (;;) {
		const uint8_t *buf;
		uint32_t len;
		uint16_t flags;

		if (unlikely(used == avail)) {
			/* NEXT on the last slot filled: the rest is not written yet */
			rte_pktmbuf_free(head);
			return 0;
		}
		if (unlikely(!rx_desc(c, &r->desc[(uint16_t)(slot + used) & q->mask], &buf, &len,
				      &flags) || head->pkt_len + len > RPS_MEMIF_RX_PKT_MAX)) {
			rte_pktmbuf_free(head);
			return -1;
		}
		used++;
		if (unlikely(rx_append(head, &last, mp, buf, len) < 0)) {
			rte_pktmbuf_free(head);
			return 0;
		}
		if (likely((flags & RPS_MEMIF_DESC_NEXT) == 0))
			break;
	}
	*out = head;
	return used;
}

uint16_t
rps_memif_rx(struct rps_memif *m, uint16_t ring, struct rte_mempool *mp, struct rte_mbuf **pkts,
	     uint16_t n)
{
	struct rps_memif_conn *c = __atomic_load_n(&m->conn, __ATOMIC_ACQUIRE);
	const struct rps_memif_qring *q;
	uint16_t tail, avail, got = 0;

	if (unlikely(c == NULL || ring >= c->nb_c2s ||
		     __atomic_load_n(&c->broken, __ATOMIC_RELAXED)))
		return 0;
	q = &c->c2s[ring];
	tail = c->rx[ring].tail;
	avail = rps_memif_ring_avail(c, q, tail); /* the packets written */
	while (got < n && avail != 0) {
		const int used = rx_one(c, q, tail, avail, mp, &pkts[got]);

		if (unlikely(used <= 0)) {
			if (used < 0)
				__atomic_store_n(&c->broken, 1, __ATOMIC_RELAXED);
			break;
		}
		tail = (uint16_t)(tail + used);
		avail = (uint16_t)(avail - used);
		got++;
	}
	if (tail != c->rx[ring].tail) {
		c->rx[ring].tail = tail;
		/* our copies made before the tail that gives the buffers back */
		__atomic_store_n(&q->ring->tail, tail, __ATOMIC_RELEASE);
	}
	return got;
}

int
rps_memif_returns(const struct rps_memif *m)
{
	const struct rps_memif_conn *c = __atomic_load_n(&m->conn, __ATOMIC_ACQUIRE);

	return c != NULL && c->nb_c2s != 0;
}
