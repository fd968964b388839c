/* SPDX-License-Identifier: BSD-3-Clause */
/* output.c: the output stage and the buffered per-lcore TX queues it (and respond) use. */
#include <errno.h>

#include <rte_malloc.h>

#include "rps_stage.h"

/* Called by rte_eth_tx_buffer_flush for packets the queue refused: free and count. */
static void
tx_refused(struct rte_mbuf **pkts, uint16_t unsent, void *userdata)
{
	struct rps_txq *q = userdata;

	rte_pktmbuf_free_bulk(pkts, unsent);
	RPS_CTR_ADD(q->st->dropped[RPS_DROP_TX_FAILED], unsent);
}

int
rps_txq_init(struct rps_txq *q, uint16_t port, uint16_t queue, uint16_t burst, int socket,
	     struct rps_lcore_stats *st)
{
	q->port = port;
	q->queue = queue;
	q->st = st;
	q->buf = rte_zmalloc_socket("rps_txq", RTE_ETH_TX_BUFFER_SIZE(burst), 0, socket);
	if (q->buf == NULL)
		return -ENOMEM;
	rte_eth_tx_buffer_init(q->buf, burst);
	rte_eth_tx_buffer_set_err_callback(q->buf, tx_refused, q);
	return 0;
}

static inline void
count_sent(struct rps_txq *q, uint16_t sent)
{
	if (sent != 0) {
		RPS_CTR_ADD(q->st->processed, sent);
		RPS_CTR_ADD(q->st->tx_packets, sent);
	}
}

void
rps_txq_send(struct rps_txq *q, struct rte_mbuf *m)
{
	RPS_CTR_ADD(q->st->bytes, rte_pktmbuf_pkt_len(m));
	count_sent(q, rte_eth_tx_buffer(q->port, q->queue, q->buf, m));
}

void
rps_txq_flush(struct rps_txq *q)
{
	if (q->buf != NULL && q->buf->length != 0)
		count_sent(q, rte_eth_tx_buffer_flush(q->port, q->queue, q->buf));
}

void
rps_txq_fini(struct rps_txq *q)
{
	rps_txq_flush(q);
	rte_free(q->buf);
	q->buf = NULL;
}

uint16_t
rps_stage_output(struct rps_stage_ctx *c, struct rte_mbuf **pkts, uint16_t n)
{
	struct rps_txq *q = c->out_txq;

	if (q == NULL)
		return n; /* consumed by the pipeline's end */
	for (uint16_t i = 0; i < n; i++)
		rps_txq_send(q, pkts[i]);
	return 0;
}
