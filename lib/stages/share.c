/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * share.c: sending to a consumer (--consumers): on its memif endpoint (rps_memif.h; or an
 * ethdev TX queue) straight from the worker, or, for a consumer several workers feed,
 * through the consumer's multi-producer ring that whichever worker holds its trylock drains
 * into the endpoint (rps_stage.h: struct rps_share).
 * A full queue drops (consumer_full) or, with backpressure, is waited for.
 * output.c owns the queue (set-up, limits, rps_txq_set_consumer()) and calls in here to
 * flush a consumer's queue; nothing here calls back into output.c.
 */
#include <errno.h>
#include <stdio.h>

#include <rte_atomic.h>
#include <rte_cycles.h>
#include <rte_pause.h>

#include "rps_memif.h"
#include "rps_stage.h"

/* Packets one drain transmits at a time. */
#define SHARE_BURST 64u

int
rps_share_init(struct rps_share *s, const char *name, uint16_t port, uint16_t queue,
	       uint16_t feeders, uint16_t burst, int socket)
{
	const unsigned int size = (unsigned int)feeders * RPS_SHARE_PER_FEEDER(burst);

	s->memif = NULL;
	s->port = port;
	s->queue = queue;
	s->feeders = feeders;
	rte_spinlock_init(&s->lock);
	/* multi-producer enqueue; one consumer at a time, under the lock */
	s->ring = rte_ring_create(name, size, socket, RING_F_SC_DEQ | RING_F_EXACT_SZ);
	return s->ring != NULL ? 0 : -rte_errno;
}

void
rps_share_fini(struct rps_share *s)
{
	void *m;

	if (s->ring == NULL)
		return;
	while (rte_ring_sc_dequeue(s->ring, &m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(s->ring);
	s->ring = NULL;
}

/* Why the consumer refused packets: absent while it has no client (for a port: its link
 * down; either query reads a flag, no syscall), else full. */
static enum rps_drop_reason
refused_reason(const struct rps_txq *q)
{
	struct rte_eth_link link;

	if (q->memif != NULL)
		return rps_memif_up(q->memif) ? RPS_DROP_CONSUMER_FULL : RPS_DROP_CONSUMER_ABSENT;
	if (rte_eth_link_get_nowait(q->port, &link) == 0 && link.link_status == RTE_ETH_LINK_UP)
		return RPS_DROP_CONSUMER_FULL;
	return RPS_DROP_CONSUMER_ABSENT;
}

/* Whether to wait for a full queue: backpressure, the client there, no stop asked. */
static inline int
keep_waiting(const struct rps_txq *q, enum rps_drop_reason why)
{
	return q->wait && why == RPS_DROP_CONSUMER_FULL &&
	       !__atomic_load_n(q->stop, __ATOMIC_RELAXED);
}

/*
 * One step of waiting for a full consumer queue (backpressure): a pause, and after
 * WAIT_SPINS of them in a row a short sleep. A consumer often runs on a CPU the worker
 * shares (a memif client beside it), and a worker that only spins there can keep it from
 * ever taking the packets: seen on Linux 6.18, where two dpdk-testpmd clients on the
 * workers' CPU got a fifth of a second of CPU in ten seconds while a worker spun on their
 * full ring, and everything stopped. The sleep is on the slow path of a full consumer only.
 */
#define WAIT_SPINS 256u
#define WAIT_SLEEP_US 20u

static inline void
wait_step(unsigned int *spins)
{
	if (++*spins < WAIT_SPINS) {
		rte_pause();
		return;
	}
	*spins = 0;
	rte_delay_us_sleep(WAIT_SLEEP_US);
}

/* Free @p n refused packets, counted under @p why for the consumer and (group 0's, or with
 * no groups) as @p q's lcore's drops. */
static void
drop(struct rps_txq *q, struct rte_mbuf **pkts, unsigned int n, enum rps_drop_reason why)
{
	if (n == 0)
		return;
	if (q->fail_open != NULL) {
		/* --consumer-fail open: they go on by their forward (output.c's flush sends
		 * them), counted for the consumer and the lcore, not dropped */
		if (why == RPS_DROP_CONSUMER_ABSENT)
			RPS_CTR_ADD(q->open_absent, n);
		else
			RPS_CTR_ADD(q->open_full, n);
		RPS_CTR_ADD(q->st->consumer_fail_open, n);
		for (unsigned int i = 0; i < n; i++)
			q->open_pkts[q->open_n++] = pkts[i];
		return;
	}
	if (why == RPS_DROP_CONSUMER_ABSENT)
		RPS_CTR_ADD(q->absent, n);
	else
		RPS_CTR_ADD(q->full, n);
	if (!q->secondary) {
		rps_stats_port_drop_bulk(q->st, pkts, n, why);
		RPS_CTR_ADD(q->st->dropped[why], n);
	}
	rte_pktmbuf_free_bulk(pkts, n);
}

/* Transmit @p n packets (at most SHARE_BURST) on q's port and queue, counting what went as
 * processed and delivered, what did not as dropped (or, waiting, retrying it in order). */
static void
consumer_tx(struct rps_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
	uint8_t slot[SHARE_BURST];
	uint16_t done = 0;
	unsigned int spins = 0;
	enum rps_drop_reason why;

	/* the ingress slots now: memif frees what it sent (it copies) */
	for (uint16_t i = 0; i < n; i++)
		slot[i] = (uint8_t)rps_stats_slot(q->st, pkts[i]->port);
	for (;;) {
		const uint16_t sent = q->memif != NULL ?
			rps_memif_tx_ring(q->memif, q->ring, pkts + done, (uint16_t)(n - done)) :
			rte_eth_tx_burst(q->port, q->queue, pkts + done, (uint16_t)(n - done));

		if (sent != 0) {
			RPS_CTR_ADD(q->st->consumer_delivered, sent);
			RPS_CTR_ADD(q->delivered, sent);
			for (uint16_t i = done; !q->secondary && i < done + sent; i++) {
				struct rps_port_stats *p = &q->st->port[slot[i]];

				RPS_CTR_ADD(p->processed, 1);
				RPS_CTR_ADD(p->forwarded, 1);
			}
			if (!q->secondary) {
				RPS_CTR_ADD(q->st->processed, sent);
				RPS_CTR_ADD(q->st->tx_packets, sent);
			}
			done = (uint16_t)(done + sent);
		}
		if (done == n)
			return;
		why = refused_reason(q);
		if (!keep_waiting(q, why))
			break;
		if (q->waiting != NULL)
			q->waiting(q->waiting_arg); /* an inline consumer's returns */
		wait_step(&spins);
	}
	drop(q, pkts + done, (unsigned int)(n - done), why);
}

/* Transmit up to @p n packets of @p pkts, SHARE_BURST at a time. */
static void
consumer_tx_all(struct rps_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i += SHARE_BURST)
		consumer_tx(q, pkts + i, (uint16_t)RTE_MIN(SHARE_BURST, (unsigned int)(n - i)));
}

void
rps_txq_share_drain(struct rps_txq *q, unsigned int rounds)
{
	struct rps_share *s = q->share;
	struct rte_mbuf *pkts[SHARE_BURST];

	for (unsigned int r = 0; rounds == 0 || r < rounds; r++) {
		/* at most one ring's worth per hold, so a holder is not kept from its own
		 * backlog by the others' packets for ever */
		unsigned int left = rte_ring_get_capacity(s->ring), n;

		if (!rte_spinlock_trylock(&s->lock))
			return; /* the holder's re-check below finds what is there */
		do {
			n = rte_ring_sc_dequeue_burst(s->ring, (void **)pkts, SHARE_BURST, NULL);
			if (n != 0)
				consumer_tx(q, pkts, (uint16_t)n);
			left -= RTE_MIN(left, n);
		} while (n == SHARE_BURST && left != 0);
		rte_spinlock_unlock(&s->lock);
		/* The other half of the producers' fence in share_put(): the unlock above and
		 * the load below are not reordered, so a burst enqueued while this lcore held
		 * the lock is either seen here or its producer's trylock succeeds. */
		rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (rte_ring_empty(s->ring))
			return;
		/* a burst came in while it held the lock: another round (past the last, the
		 * next flush or housekeeping of a feeding worker takes it) */
	}
}

/* Enqueue @p n packets on q's share (one enqueue per burst), then drain it. A full ring
 * drops the rest (consumer_full, or consumer_absent with no client), or, waiting, drains and
 * retries until it takes them. */
static void
share_put(struct rps_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct rps_share *s = q->share;
	unsigned int done = rte_ring_mp_enqueue_burst(s->ring, (void **)pkts, n, NULL);
	unsigned int spins = 0;

	while (done < n) {
		const enum rps_drop_reason why = refused_reason(q);

		if (!keep_waiting(q, why)) {
			drop(q, pkts + done, n - done, why);
			break;
		}
		rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
		rps_txq_share_drain(q, RPS_SHARE_ROUNDS);
		wait_step(&spins);
		done += rte_ring_mp_enqueue_burst(s->ring, (void **)pkts + done, n - done, NULL);
	}
	/* the enqueue's tail store before the trylock's load (see rps_txq_share_drain()) */
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	rps_txq_share_drain(q, RPS_SHARE_ROUNDS);
}

void
rps_consumer_flush(struct rps_txq *q)
{
	const uint16_t n = q->buf->length;

	q->buf->length = 0;
	if (q->share != NULL) {
		if (n != 0)
			share_put(q, q->buf->pkts, n);
		else if (rps_txq_share_pending(q))
			rps_txq_share_drain(q, RPS_SHARE_ROUNDS);
	} else if (n != 0) {
		consumer_tx_all(q, q->buf->pkts, n);
	}
}
