/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_share.c: lib/stages/share.c, a consumer's queue: several producers (threads) over one
 * shared queue, each one's packets in its order and none stranded; a full queue dropped and
 * counted consumer_full, or, with backpressure, waited for until it takes everything or the
 * stop flag is set. The consumer's port is a net_ring port whose RX queue 0 reads back what
 * its TX queue 0 took (as in test_respond.c), its ring 1023 packets deep.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_pause.h>

#include "rps_stage.h"
#include "test_common.h"

#define RING_VDEV "net_ring_shr"
#define PORT_DEPTH 1023u    /* what net_ring's TX ring holds */
#define BURST 8
#define PRODUCERS 3
#define PER_PRODUCER 300u   /* 900 in all: within PORT_DEPTH, so nothing is refused */

static uint16_t ring_port = RTE_MAX_ETHPORTS;

static int
ring_setup(void)
{
	struct rte_eth_conf pc;

	if (ring_port != RTE_MAX_ETHPORTS)
		return 0;
	memset(&pc, 0, sizeof(pc));
	if (rte_dev_probe(RING_VDEV) != 0 ||
	    rte_eth_dev_get_port_by_name(RING_VDEV, &ring_port) != 0 ||
	    rte_eth_dev_configure(ring_port, 1, 1, &pc) != 0 ||
	    rte_eth_rx_queue_setup(ring_port, 0, 512, SOCKET_ID_ANY, NULL, ut_pool()) != 0 ||
	    rte_eth_tx_queue_setup(ring_port, 0, 512, SOCKET_ID_ANY, NULL) != 0 ||
	    rte_eth_dev_start(ring_port) != 0) {
		fprintf(stderr, "\n  net_ring port set-up failed (is the net_ring PMD loaded?)\n");
		ring_port = RTE_MAX_ETHPORTS;
		return -1;
	}
	return 0;
}

/* A packet tagged (producer, seq) in its first 8 bytes. */
static struct rte_mbuf *
tagged(uint32_t producer, uint32_t seq)
{
	uint8_t b[64];

	memset(b, 0, sizeof(b));
	memcpy(b, &producer, 4);
	memcpy(b + 4, &seq, 4);
	return ut_mbuf(b, sizeof(b));
}

/* Read back everything the port took: per producer, the sequence numbers in order from 0.
 * @return the number read; next[p] ends at the count of producer p's. */
static unsigned int
read_back(uint32_t *next, unsigned int producers, int *in_order)
{
	struct rte_mbuf *m[64];
	unsigned int total = 0;
	uint16_t n;

	*in_order = 1;
	while ((n = rte_eth_rx_burst(ring_port, 0, m, RTE_DIM(m))) != 0) {
		for (uint16_t i = 0; i < n; i++) {
			uint32_t p, seq;

			memcpy(&p, rte_pktmbuf_mtod(m[i], const void *), 4);
			memcpy(&seq, rte_pktmbuf_mtod_offset(m[i], const uint8_t *, 4), 4);
			if (p >= producers || seq != next[p])
				*in_order = 0;
			else
				next[p]++;
		}
		rte_pktmbuf_free_bulk(m, n);
		total += n;
	}
	return total;
}

struct producer {
	struct rps_txq q;
	struct rps_lcore_stats st;
	struct rte_mbuf *pkts[PER_PRODUCER];
	pthread_t thread;
} __rte_cache_aligned;

static struct rps_share share;
static struct producer prod[PRODUCERS];
static volatile int go;

/* A worker's part: its packets in bursts, a flush after each (as rps_process_burst()), then
 * the exit's drain. */
static void *
producer_main(void *arg)
{
	struct producer *p = arg;

	while (!go)
		rte_pause();
	for (unsigned int i = 0; i < PER_PRODUCER; i++) {
		rps_txq_send(&p->q, p->pkts[i]);
		if (i % BURST == BURST - 1)
			rps_txq_flush(&p->q);
	}
	rps_txq_flush(&p->q);
	rps_txq_share_drain(&p->q, 0);
	return NULL;
}

static void
producers_init(unsigned int nb, int wait, const int *stop)
{
	memset(&share, 0, sizeof(share));
	CU_ASSERT_EQUAL_FATAL(rps_share_init(&share, "rps_ut_share", ring_port, 0, (uint16_t)nb,
					     BURST, SOCKET_ID_ANY), 0);
	for (unsigned int t = 0; t < nb; t++) {
		struct producer *p = &prod[t];

		memset(&p->st, 0, sizeof(p->st));
		CU_ASSERT_EQUAL_FATAL(rps_txq_init(&p->q, ring_port, 0, BURST, SOCKET_ID_ANY,
						   &p->st), 0);
		rps_txq_set_consumer(&p->q, &share, wait, stop);
		for (unsigned int i = 0; i < PER_PRODUCER; i++) {
			p->pkts[i] = tagged(t, i);
			CU_ASSERT_PTR_NOT_NULL_FATAL(p->pkts[i]);
		}
	}
}

static void
producers_fini(unsigned int nb)
{
	for (unsigned int t = 0; t < nb; t++)
		rps_txq_fini(&prod[t].q);
	rps_share_fini(&share);
}

/* Three threads over one shared queue at once, with backpressure (a thread preempted while
 * it holds the lock would otherwise let the ring fill and the others drop, as designed): all
 * 900 packets reach the port, each producer's in its order, none left in the share's ring
 * without anyone draining it after the threads end; counted processed and
 * consumer_delivered once each (by whichever thread sent them), no drop. */
static void
test_share_threads_order(void)
{
	uint32_t next[PRODUCERS] = { 0 };
	static const int stop;
	uint64_t delivered = 0, processed = 0, dropped = 0;
	int in_order;

	CU_ASSERT_EQUAL_FATAL(ring_setup(), 0);
	producers_init(PRODUCERS, 1, &stop);
	go = 0;
	/* on every CPU, not only the EAL main thread's one that they would inherit */
	pthread_attr_t attr;
	cpu_set_t all;
	const long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	CPU_ZERO(&all);
	for (long c = 0; c < cpus && c < CPU_SETSIZE; c++)
		CPU_SET((int)c, &all);
	pthread_attr_init(&attr);
	(void)pthread_attr_setaffinity_np(&attr, sizeof(all), &all);
	for (unsigned int t = 0; t < PRODUCERS; t++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&prod[t].thread, &attr, producer_main,
						     &prod[t]), 0);
	pthread_attr_destroy(&attr);
	go = 1;
	for (unsigned int t = 0; t < PRODUCERS; t++)
		pthread_join(prod[t].thread, NULL);
	/* nothing stranded: the threads' own drains emptied it */
	CU_ASSERT_EQUAL(rte_ring_count(share.ring), 0);
	for (unsigned int t = 0; t < PRODUCERS; t++) {
		delivered += prod[t].st.consumer_delivered;
		processed += prod[t].st.processed;
		for (unsigned int r = 0; r < RPS_DROP_MAX; r++)
			dropped += prod[t].st.dropped[r];
	}
	CU_ASSERT_EQUAL(read_back(next, PRODUCERS, &in_order), PRODUCERS * PER_PRODUCER);
	CU_ASSERT(in_order);
	for (unsigned int t = 0; t < PRODUCERS; t++)
		CU_ASSERT_EQUAL(next[t], PER_PRODUCER);
	CU_ASSERT_EQUAL(delivered, PRODUCERS * PER_PRODUCER);
	CU_ASSERT_EQUAL(processed, PRODUCERS * PER_PRODUCER);
	CU_ASSERT_EQUAL(dropped, 0);
	producers_fini(PRODUCERS);
}

/* Send @p n packets through producer 0 (in bursts of BURST) on this thread. */
static void
send_all(unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		rps_txq_send(&prod[0].q, prod[0].pkts[i]);
		if (i % BURST == BURST - 1)
			rps_txq_flush(&prod[0].q);
	}
	rps_txq_flush(&prod[0].q);
	rps_txq_share_drain(&prod[0].q, 0);
}

/* A port that is full: what it refuses is consumer_full (its link is up), counted per drop
 * and per port; delivered + full = sent. Without backpressure, and with backpressure once
 * the stop flag is set (no wait then). */
static void
check_full(int wait, const int *stop)
{
	uint32_t next[1] = { 0 };
	int in_order;
	const unsigned int n = PER_PRODUCER;
	unsigned int got;

	producers_init(1, wait, stop);
	/* fill the port to 100 below its depth first, from another producer id */
	for (unsigned int i = 0; i < PORT_DEPTH - 100; i++) {
		struct rte_mbuf *m = tagged(1, i);

		CU_ASSERT_EQUAL_FATAL(rte_eth_tx_burst(ring_port, 0, &m, 1), 1);
	}
	send_all(n);
	CU_ASSERT_EQUAL(prod[0].st.consumer_delivered, 100);
	CU_ASSERT_EQUAL(prod[0].st.dropped[RPS_DROP_CONSUMER_FULL], n - 100);
	CU_ASSERT_EQUAL(prod[0].st.port[0].dropped[RPS_DROP_CONSUMER_FULL], n - 100);
	CU_ASSERT_EQUAL(prod[0].st.dropped[RPS_DROP_CONSUMER_ABSENT], 0);
	got = read_back(next, 1, &in_order);
	CU_ASSERT_EQUAL(got, PORT_DEPTH);
	producers_fini(1);
}

static void
test_share_full_drops(void)
{
	static const int stop = 1;

	CU_ASSERT_EQUAL_FATAL(ring_setup(), 0);
	check_full(0, NULL);
	check_full(1, &stop);
}

static volatile int reader_done;
static unsigned int reader_got;
static uint32_t reader_next[1];
static int reader_order;

/* A slow consumer: reads the port in small bursts until told to stop and nothing is left. */
static void *
reader_main(void *arg)
{
	struct rte_mbuf *m[4];

	(void)arg;
	reader_order = 1;
	for (;;) {
		uint16_t n = rte_eth_rx_burst(ring_port, 0, m, RTE_DIM(m));

		if (n == 0 && reader_done)
			break;
		for (uint16_t i = 0; i < n; i++) {
			uint32_t p, seq;

			memcpy(&p, rte_pktmbuf_mtod(m[i], const void *), 4);
			memcpy(&seq, rte_pktmbuf_mtod_offset(m[i], const uint8_t *, 4), 4);
			if (p == 0) {
				if (seq != reader_next[0])
					reader_order = 0;
				reader_next[0] = seq + 1;
			}
		}
		rte_pktmbuf_free_bulk(m, n);
		reader_got += n;
		rte_delay_us_sleep(50);
	}
	return NULL;
}

/* The port all but @p room slots full of producer 1's packets (which the order check
 * ignores), then the slow reader started on it. */
static void
reader_start_on_full_port(unsigned int room, pthread_t *reader)
{
	for (unsigned int i = 0; i < PORT_DEPTH - room; i++) {
		struct rte_mbuf *m = tagged(1, i);

		CU_ASSERT_EQUAL_FATAL(rte_eth_tx_burst(ring_port, 0, &m, 1), 1);
	}
	reader_done = 0;
	reader_got = 0;
	reader_next[0] = 0;
	CU_ASSERT_EQUAL_FATAL(pthread_create(reader, NULL, reader_main, NULL), 0);
}

/* Backpressure: a full port is waited for, so a slow reader gets every packet, in order,
 * and nothing is dropped. */
static void
test_share_backpressure_waits(void)
{
	static const int stop;
	pthread_t reader;

	CU_ASSERT_EQUAL_FATAL(ring_setup(), 0);
	producers_init(1, 1, &stop);
	reader_start_on_full_port(100, &reader);
	send_all(PER_PRODUCER);
	reader_done = 1;
	pthread_join(reader, NULL);
	CU_ASSERT_EQUAL(prod[0].st.consumer_delivered, PER_PRODUCER);
	CU_ASSERT_EQUAL(prod[0].st.dropped[RPS_DROP_CONSUMER_FULL], 0);
	CU_ASSERT_EQUAL(reader_got, PORT_DEPTH - 100 + PER_PRODUCER);
	CU_ASSERT_EQUAL(reader_next[0], PER_PRODUCER);
	CU_ASSERT(reader_order);
	producers_fini(1);
}

/* Producer 0 sends one burst (its buffer's size: the last send flushes it), and nothing
 * else, not even a flush that would look at the ring again: its lock hold blocks while the
 * port is full (backpressure). */
static void *
holder_main(void *arg)
{
	(void)arg;
	for (unsigned int i = 0; i < BURST; i++)
		rps_txq_send(&prod[0].q, prod[0].pkts[i]);
	return NULL;
}

/* The re-check after unlocking, made to happen: producer 0 holds the lock, waiting on a full
 * port; producer 1 enqueues a burst, fails the trylock and returns at once (its packets in
 * the ring); the port is read; producer 0's drain, on its re-check, sends producer 1's burst
 * too: nothing stays in the ring though no one flushes again. */
static void
test_share_recheck(void)
{
	static const int stop;
	uint32_t next[2] = { 0 };
	pthread_t holder;
	struct rte_mbuf *m;
	int in_order;
	unsigned int got = 0;

	CU_ASSERT_EQUAL_FATAL(ring_setup(), 0);
	producers_init(2, 1, &stop);
	for (unsigned int i = 0; i < PORT_DEPTH; i++) {
		m = tagged(1, 1000 + i);
		CU_ASSERT_EQUAL_FATAL(rte_eth_tx_burst(ring_port, 0, &m, 1), 1);
	}
	/* full: else the holder would not block and the wait below would never end */
	m = tagged(1, 0);
	if (rte_eth_tx_burst(ring_port, 0, &m, 1) != 0) {
		CU_FAIL_FATAL("the net_ring port holds more than PORT_DEPTH packets");
	}
	rte_pktmbuf_free(m);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&holder, NULL, holder_main, NULL), 0);
	/* locked with the ring empty: it has dequeued its burst and waits on the port */
	while (!rte_spinlock_is_locked(&share.lock) || rte_ring_count(share.ring) != 0)
		rte_pause();
	for (unsigned int i = 0; i < BURST; i++)
		rps_txq_send(&prod[1].q, prod[1].pkts[i]);
	rps_txq_flush(&prod[1].q); /* its trylock fails: the holder has it */
	CU_ASSERT_EQUAL(rte_ring_count(share.ring), BURST);
	CU_ASSERT_EQUAL(prod[1].st.consumer_delivered, 0);
	/* the filler out, then whatever the holder sends */
	while (got < PORT_DEPTH) {
		struct rte_mbuf *b[32];
		uint16_t n = rte_eth_rx_burst(ring_port, 0, b, (uint16_t)RTE_MIN(32u,
								PORT_DEPTH - got));

		rte_pktmbuf_free_bulk(b, n);
		got += n;
	}
	pthread_join(holder, NULL);
	CU_ASSERT_EQUAL(rte_ring_count(share.ring), 0);
	CU_ASSERT_EQUAL(prod[0].st.consumer_delivered, 2 * BURST); /* it sent both bursts */
	CU_ASSERT_EQUAL(read_back(next, 2, &in_order), 2 * BURST);
	CU_ASSERT(in_order);
	CU_ASSERT(next[0] == BURST && next[1] == BURST);
	/* the packets never sent go back to the pool */
	for (unsigned int t = 0; t < 2; t++)
		rte_pktmbuf_free_bulk(prod[t].pkts + BURST, PER_PRODUCER - BURST);
	producers_fini(2);
}

/* Consumer groups through the output stage: one mbuf goes to each group's queue with a
 * reference each (every segment of a chain), group 0's counted as the packet's (processed,
 * bytes once), group 1's only for its consumer. net_ring passes the mbuf itself, so the
 * port sees each packet twice, the same pointer. */
static void
test_groups_output(void)
{
	struct rps_lcore_stats st;
	struct rps_txq q[2];
	struct rps_txq *groups[2] = { &q[0], &q[1] };
	struct rps_stage_ctx c;
	struct rte_mbuf *pkts[4], *back[16];
	uint8_t data[100];
	uint16_t n;
	unsigned int seen[4] = { 0 };

	CU_ASSERT_EQUAL_FATAL(ring_setup(), 0);
	memset(&st, 0, sizeof(st));
	memset(&c, 0, sizeof(c));
	memset(data, 0x5a, sizeof(data));
	for (unsigned int g = 0; g < 2; g++) {
		CU_ASSERT_EQUAL_FATAL(rps_txq_init(&q[g], ring_port, 0, BURST, SOCKET_ID_ANY, &st),
				      0);
		rps_txq_set_consumer(&q[g], NULL, 0, NULL);
	}
	rps_txq_set_secondary(&q[1]);
	c.st = &st;
	c.out_txq = &q[0];
	c.group_txq = groups;
	c.nb_groups = 2;
	for (unsigned int i = 0; i < 3; i++)
		pkts[i] = tagged(0, i);
	pkts[3] = ut_mbuf_split(data, sizeof(data), 40); /* a chain of two */
	CU_ASSERT_PTR_NOT_NULL_FATAL(pkts[3]);
	CU_ASSERT_EQUAL(rps_stage_output(&c, pkts, 4), 0);
	rps_txq_flush(&q[0]);
	rps_txq_flush(&q[1]);
	n = rte_eth_rx_burst(ring_port, 0, back, RTE_DIM(back));
	CU_ASSERT_EQUAL(n, 8);
	for (uint16_t i = 0; i < n; i++)
		for (unsigned int k = 0; k < 4; k++)
			seen[k] += back[i] == pkts[k];
	for (unsigned int k = 0; k < 4; k++) {
		CU_ASSERT_EQUAL(seen[k], 2);
		CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(pkts[k]), 2);
	}
	CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(pkts[3]->next), 2);
	CU_ASSERT_EQUAL(st.processed, 4);
	CU_ASSERT_EQUAL(st.tx_packets, 4);
	CU_ASSERT_EQUAL(st.bytes, 3 * 64 + sizeof(data));
	CU_ASSERT_EQUAL(st.consumer_delivered, 8);
	CU_ASSERT(q[0].delivered == 4 && q[1].delivered == 4);
	/* the two references go one by one: the pool gets each back once (ut_main checks) */
	rte_pktmbuf_free_bulk(back, n);
	rps_txq_fini(&q[0]);
	rps_txq_fini(&q[1]);
}

static struct rps_txq *fwd_by_port[RTE_MAX_ETHPORTS];

/* Inline pairs with a consumer: a packet is forwarded and handed to the consumer, the same
 * mbuf with two references; one the forward will rewrite (a chain for a port that takes
 * one segment: linearized) reaches the consumer as a copy, the forward keeps the original.
 * The forward counts the packet, the consumer only for itself. */
static void
test_forward_mirror(void)
{
	struct rps_lcore_stats st;
	struct rps_txq fwd, cq;
	struct rps_txq *groups[1] = { &cq };
	struct rps_stage_ctx c;
	struct rte_mbuf *pkts[2], *back[8];
	uint8_t data[100];
	uint16_t n;

	CU_ASSERT_EQUAL_FATAL(ring_setup(), 0);
	memset(&st, 0, sizeof(st));
	memset(&c, 0, sizeof(c));
	memset(data, 0xa5, sizeof(data));
	CU_ASSERT_EQUAL_FATAL(rps_txq_init(&fwd, ring_port, 0, BURST, SOCKET_ID_ANY, &st), 0);
	CU_ASSERT_EQUAL_FATAL(rps_txq_init(&cq, ring_port, 0, BURST, SOCKET_ID_ANY, &st), 0);
	rps_txq_set_consumer(&cq, NULL, 0, NULL);
	rps_txq_set_secondary(&cq);
	fwd_by_port[0] = &fwd;
	c.st = &st;
	c.port_txq = fwd_by_port;
	c.group_txq = groups;
	c.nb_groups = 1;

	/* a plain packet: shared */
	pkts[0] = tagged(0, 0);
	pkts[0]->port = 0;
	CU_ASSERT_EQUAL(rps_stage_output(&c, pkts, 1), 0);
	rps_txq_flush(&fwd);
	rps_txq_flush(&cq);
	n = rte_eth_rx_burst(ring_port, 0, back, RTE_DIM(back));
	CU_ASSERT(n == 2 && back[0] == pkts[0] && back[1] == pkts[0]);
	CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(pkts[0]), 2);
	rte_pktmbuf_free_bulk(back, n);

	/* a chain the forward linearizes: the consumer gets its own copy */
	rps_txq_set_limits(&fwd, 0, 0, NULL, NULL);
	pkts[1] = ut_mbuf_split(data, sizeof(data), 40);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pkts[1]);
	pkts[1]->port = 0;
	CU_ASSERT_EQUAL(rps_stage_output(&c, pkts + 1, 1), 0);
	rps_txq_flush(&fwd);
	rps_txq_flush(&cq);
	n = rte_eth_rx_burst(ring_port, 0, back, RTE_DIM(back));
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT(back[0] != back[1]);
	for (uint16_t i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(back[i]), 1);
		CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(back[i]), sizeof(data));
		CU_ASSERT(rte_pktmbuf_read(back[i], 60, 1, data) != NULL &&
			  *rte_pktmbuf_mtod_offset(rte_pktmbuf_lastseg(back[i]), uint8_t *,
						   rte_pktmbuf_lastseg(back[i])->data_len - 1) ==
			  0xa5);
	}
	rte_pktmbuf_free_bulk(back, n);
	/* the forward counted both packets, the consumer both copies for itself */
	CU_ASSERT_EQUAL(st.processed, 2);
	CU_ASSERT_EQUAL(st.tx_packets, 2);
	CU_ASSERT_EQUAL(cq.delivered, 2);
	CU_ASSERT_EQUAL(st.consumer_delivered, 2);
	rps_txq_fini(&fwd);
	rps_txq_fini(&cq);
	fwd_by_port[0] = NULL;
}

/* The direct path (one worker, no share) with backpressure waits the same way. */
static void
test_direct_backpressure_waits(void)
{
	static const int stop;
	pthread_t reader;
	struct rps_txq q;
	struct rps_lcore_stats st;

	CU_ASSERT_EQUAL_FATAL(ring_setup(), 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL_FATAL(rps_txq_init(&q, ring_port, 0, BURST, SOCKET_ID_ANY, &st), 0);
	rps_txq_set_consumer(&q, NULL, 1, &stop);
	reader_start_on_full_port(10, &reader);
	for (uint32_t i = 0; i < 200; i++) {
		rps_txq_send(&q, tagged(0, i));
		if (i % BURST == BURST - 1)
			rps_txq_flush(&q);
	}
	rps_txq_fini(&q);
	reader_done = 1;
	pthread_join(reader, NULL);
	CU_ASSERT_EQUAL(st.consumer_delivered, 200);
	CU_ASSERT_EQUAL(st.processed, 200);
	CU_ASSERT_EQUAL(st.dropped[RPS_DROP_CONSUMER_FULL], 0);
	CU_ASSERT_EQUAL(reader_next[0], 200);
	CU_ASSERT(reader_order);
}

int
main(int argc, char **argv)
{
	CU_TestInfo tests[] = {
		{ "share_threads_order", test_share_threads_order },
		{ "share_full_drops", test_share_full_drops },
		{ "share_backpressure_waits", test_share_backpressure_waits },
		{ "share_recheck", test_share_recheck },
		{ "groups_output", test_groups_output },
		{ "forward_mirror", test_forward_mirror },
		{ "direct_backpressure_waits", test_direct_backpressure_waits },
		CU_TEST_INFO_NULL,
	};
	int rc = ut_main(argc, argv, "share", tests);

	return rc;
}
