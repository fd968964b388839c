/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * worker_loop.c: a worker lcore, the user-space process_backlog(). Dequeue a burst from its
 * own backlog, run the processing step, transmit or consume, publish progress (head).
 */
#include <rte_ethdev.h>
#include <rte_pause.h>

#include "app.h"
#include "rps_stage.h"

/* Retries of a partial TX burst before the rest counts as tx_failed. */
#define TX_RETRIES 8

void
rps_process_burst(struct rps_worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	struct rps_lcore_stats *st = &w->stats;
	const int tx_port = w->app->opt.tx_port;
	uint64_t bytes = 0;
	uint16_t done;

	rps_stage_parse(pkts, n, st);
	for (uint16_t i = 0; i < n; i++)
		bytes += rte_pktmbuf_pkt_len(pkts[i]);

	if (tx_port < 0) {
		rte_pktmbuf_free_bulk(pkts, n);
		RPS_CTR_ADD(st->processed, n);
		RPS_CTR_ADD(st->bytes, bytes);
		return;
	}
	done = rte_eth_tx_burst((uint16_t)tx_port, w->txq, pkts, n);
	for (int r = 0; done < n && r < TX_RETRIES; r++)
		done += rte_eth_tx_burst((uint16_t)tx_port, w->txq, pkts + done, n - done);
	if (unlikely(done < n)) {
		for (uint16_t i = done; i < n; i++)
			bytes -= rte_pktmbuf_pkt_len(pkts[i]);
		rte_pktmbuf_free_bulk(pkts + done, n - done);
		RPS_CTR_ADD(st->dropped[RPS_DROP_TX_FAILED], n - done);
	}
	RPS_CTR_ADD(st->processed, done);
	RPS_CTR_ADD(st->tx_packets, done);
	RPS_CTR_ADD(st->bytes, bytes);
}

int
rps_worker_main(void *arg)
{
	struct rps_worker *w = arg;
	struct rps_lcore_stats *st = &w->stats;
	struct rte_mbuf *pkts[RPS_BURST_MAX];
	const uint16_t burst = w->app->opt.burst;
	int draining = 0;

	for (;;) {
		uint32_t left;
		uint32_t n = rps_backlog_dequeue(w->backlog, pkts, burst, &left);

		RPS_CTR_ADD(st->polls, 1);
		if (n == 0) {
			/* Stop only after an empty dequeue that follows seeing rx_done. */
			if (draining)
				break;
			draining = __atomic_load_n(&w->app->rx_done, __ATOMIC_ACQUIRE);
			rte_pause();
			continue;
		}
		RPS_CTR_ADD(st->busy_polls, 1);
		RPS_CTR_ADD(st->received_rps, n);
		if (left != 0)
			RPS_CTR_ADD(st->time_squeeze, 1);
		rps_process_burst(w, pkts, (uint16_t)n);
		rps_backlog_complete(w->backlog, n);
	}
	return 0;
}
