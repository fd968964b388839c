/* SPDX-License-Identifier: BSD-3-Clause */
/* measure_share.c: what a shared consumer queue (lib/stages/share.c) costs against one queue
 * per worker (docs/consumers.md#what-sharing-costs): 1 and 2 sender threads, each sending
 * bursts of 32 through the consumer send path into a net_null port (which frees them), either
 * on its own TX queue or through one share (what a full share refuses dropped, or waited for
 * as with backpressure). A measurement, not a test: built, not
 * registered; run build/tests/unit/measure_share [PACKETS_PER_THREAD]. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_pause.h>

#include "rps_stage.h"
#include "test_common.h"

#define NULL_VDEV "net_null_msh"
#define BURST 32
#define REPEAT 3

static uint16_t port = RTE_MAX_ETHPORTS;
static unsigned long per_thread = 2000000;

struct sender {
	struct rps_txq q;
	struct rps_lcore_stats st;
	pthread_t thread;
	int cpu;
} __rte_cache_aligned;

static struct sender snd[2];
static struct rps_share share;
static volatile int go;
static uint64_t last_dropped;
static const int stop; /* never set: backpressure waits for as long as it takes */

static int
port_setup(void)
{
	struct rte_eth_conf pc;

	memset(&pc, 0, sizeof(pc));
	if (rte_dev_probe(NULL_VDEV) != 0 ||
	    rte_eth_dev_get_port_by_name(NULL_VDEV, &port) != 0 ||
	    rte_eth_dev_configure(port, 2, 2, &pc) != 0)
		return -1;
	for (uint16_t q = 0; q < 2; q++)
		if (rte_eth_rx_queue_setup(port, q, 512, SOCKET_ID_ANY, NULL, ut_pool()) != 0 ||
		    rte_eth_tx_queue_setup(port, q, 512, SOCKET_ID_ANY, NULL) != 0)
			return -1;
	return rte_eth_dev_start(port);
}

static void *
sender_main(void *arg)
{
	struct sender *s = arg;
	struct rte_mbuf *m[BURST];

	while (!go)
		rte_pause();
	for (unsigned long n = 0; n < per_thread; n += BURST) {
		while (rte_pktmbuf_alloc_bulk(ut_pool(), m, BURST) != 0)
			rte_pause();
		for (unsigned int i = 0; i < BURST; i++) {
			m[i]->pkt_len = m[i]->data_len = 64;
			rps_txq_send(&s->q, m[i]);
		}
		rps_txq_flush(&s->q);
	}
	if (s->q.share != NULL)
		rps_txq_share_drain(&s->q, 0);
	return NULL;
}

/* One run: @p nb threads, each on its own queue (@p shared 0) or through one share, a full
 * one dropped (1) or waited for (2, backpressure). @return Mpps sent, all threads. */
static double
run(unsigned int nb, int shared)
{
	uint64_t t0, t1, sent = 0;
	pthread_attr_t attr;

	if (shared && rps_share_init(&share, "rps_msh", port, 0, (uint16_t)nb, BURST,
				     SOCKET_ID_ANY) != 0)
		return -1;
	for (unsigned int t = 0; t < nb; t++) {
		cpu_set_t one;

		memset(&snd[t].st, 0, sizeof(snd[t].st));
		if (rps_txq_init(&snd[t].q, port, (uint16_t)t, BURST, SOCKET_ID_ANY,
				 &snd[t].st) != 0)
			return -1;
		rps_txq_set_consumer(&snd[t].q, shared ? &share : NULL, shared == 2, &stop);
		CPU_ZERO(&one);
		CPU_SET(t, &one);
		pthread_attr_init(&attr);
		(void)pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
		go = 0;
		pthread_create(&snd[t].thread, &attr, sender_main, &snd[t]);
		pthread_attr_destroy(&attr);
	}
	rte_delay_ms(20);
	t0 = rte_rdtsc();
	go = 1;
	for (unsigned int t = 0; t < nb; t++)
		pthread_join(snd[t].thread, NULL);
	t1 = rte_rdtsc();
	for (unsigned int t = 0; t < nb; t++) {
		sent += snd[t].st.consumer_delivered;
		rps_txq_fini(&snd[t].q);
	}
	if (shared)
		rps_share_fini(&share);
	last_dropped = nb * per_thread - sent; /* the shared ring was full: consumer_full */
	return (double)sent / ((double)(t1 - t0) / (double)rte_get_tsc_hz()) / 1e6;
}

static void
measure(void)
{
	CU_ASSERT_EQUAL_FATAL(port_setup(), 0);
	printf("\n%-36s %10s  (best of %d, %lu packets per thread, bursts of %d, net_null)\n",
	       "senders", "Mpps", REPEAT, per_thread, BURST);
	for (unsigned int nb = 1; nb <= 2; nb++)
		for (int shared = 0; shared <= (nb > 1 ? 2 : 1); shared++) {
			double best = 0, mpps;
			uint64_t dropped = 0;

			for (int r = 0; r < REPEAT; r++) {
				mpps = run(nb, shared);
				if (mpps > best) {
					best = mpps;
					dropped = last_dropped;
				}
			}
			printf("%u thread(s), %-24s %10.2f  consumer_full %.1f%%\n", nb,
			       shared == 2 ? "one shared, backpressure" :
			       shared ? "one shared queue" : "a queue each", best,
			       100.0 * (double)dropped / (double)(nb * per_thread));
		}
}

int
main(int argc, char **argv)
{
	CU_TestInfo tests[] = {
		{ "measure", measure },
		CU_TEST_INFO_NULL,
	};
	char *eal_argv[] = { argv[0], NULL };

	if (argc > 1)
		per_thread = strtoul(argv[1], NULL, 0);
	return ut_main(1, eal_argv, "measure_share", tests);
}
