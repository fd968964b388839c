/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_stages.c: libFuzzer harness for the worker stages on hostile packets.
 *
 * Built twice: FUZZ_CHAIN runs parse -> validate -> reassemble, FUZZ_FLOW runs
 * parse -> validate -> flow. An input is a sequence of packets, each "len_hi len_lo split
 * bytes..." (split: where the mbuf chain is cut into two segments, 0 = one segment), so
 * several fragments of one datagram or both directions of a TCP flow fit in one input.
 * Every packet is copied into an mbuf of exactly its length. After each input the harness
 * checks the accounting contract: every packet is passed on, dropped with a reason, or
 * (reassembly) credited as processed once the state is torn down; and that every mbuf went
 * back to the pool.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "rps_flow.h"
#include "rps_reasm.h"
#include "rps_stage.h"

#define MAX_PKTS 32

static struct rte_mempool *pool;
#ifdef FUZZ_FLOW
static struct rps_flow_table *flows;
#endif
static uint64_t fake_now;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char prefix[64];
	char *eal[] = { (*argv)[0], "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
			"--no-telemetry", "--log-level=1", "-l", "0", "--file-prefix", prefix };

	(void)argc;
	snprintf(prefix, sizeof(prefix), "rps-fuzz-%d", (int)getpid());
	if (rte_eal_init((int)RTE_DIM(eal), eal) < 0)
		abort();
	/* no per-lcore cache, so the in-use count is exact */
	pool = rte_pktmbuf_pool_create("fuzz", 4096, 0, 0, 512 + RTE_PKTMBUF_HEADROOM,
				       (int)rte_socket_id());
	if (pool == NULL)
		abort();
#ifdef FUZZ_FLOW
	{
		struct rps_flow_conf fc = { .size = 64, .idle_timeout_ms = 50,
					    .closed_timeout_ms = 10 };

		flows = rps_flow_table_create(&fc, "fuzz_flows", (int)rte_socket_id());
		if (flows == NULL)
			abort();
	}
#endif
	return 0;
}

/* Copy @p len bytes into a chain cut at @p split (segments of exactly their length). */
static struct rte_mbuf *
make_pkt(const uint8_t *p, uint16_t len, uint16_t split)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool), *m2;
	uint16_t first = (split > 0 && split < len) ? split : len;

	if (m == NULL)
		return NULL;
	if (first > rte_pktmbuf_tailroom(m) || len - first > 512) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(rte_pktmbuf_append(m, first), p, first);
	if (first == len)
		return m;
	m2 = rte_pktmbuf_alloc(pool);
	if (m2 == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(rte_pktmbuf_append(m2, len - first), p + first, len - first);
	if (rte_pktmbuf_chain(m, m2) != 0) {
		rte_pktmbuf_free(m);
		rte_pktmbuf_free(m2);
		return NULL;
	}
	return m;
}

static uint64_t
dropped(const struct rps_lcore_stats *st)
{
	return rps_stats_dropped_total(st);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_mbuf *pkts[MAX_PKTS];
	struct rps_lcore_stats st;
	struct rps_stage_ctx c;
	uint16_t n = 0, kept;
	size_t off = 0;

	memset(&st, 0, sizeof(st));
	memset(&c, 0, sizeof(c));
	c.st = &st;
	c.hz = 1000000; /* 1 tick = 1 us */
	c.now = fake_now;
	while (off + 3 <= size && n < MAX_PKTS) {
		uint16_t len = (uint16_t)((data[off] << 8 | data[off + 1]) % 1024);
		uint16_t split = data[off + 2];
		struct rte_mbuf *m;

		off += 3;
		if (len > size - off)
			len = (uint16_t)(size - off);
		m = make_pkt(data + off, len, split);
		off += len;
		if (m != NULL)
			pkts[n++] = m;
	}
#ifdef FUZZ_CHAIN
	c.reasm = rps_reasm_create(16, 5, (int)rte_socket_id());
	if (c.reasm == NULL)
		abort();
#else
	c.flows = flows;
#endif
	kept = rps_stage_parse(&c, pkts, n);
	kept = rps_stage_validate(&c, pkts, kept);
#ifdef FUZZ_CHAIN
	kept = rps_stage_reassemble(&c, pkts, kept);
	c.now += 10000; /* past the timeout: the tick expires what is left */
	rps_reasm_tick(&c);
	rps_reasm_destroy(c.reasm, &st);
#else
	kept = rps_stage_flow(&c, pkts, kept);
	fake_now += 20000;
	c.now = fake_now;
	rps_flow_table_age(&c, 64);
#endif
	/* Accounting: what went in is passed on, dropped, or credited as processed. */
	if ((uint64_t)kept + dropped(&st) + st.processed != (uint64_t)n) {
		fprintf(stderr, "accounting: in %u, kept %u, dropped %lu, processed %lu, "
			"datagrams %lu\n", n, kept, (unsigned long)dropped(&st),
			(unsigned long)st.processed, (unsigned long)st.frags_reassembled);
		abort();
	}
	for (uint16_t i = 0; i < kept; i++) {
		/* whatever is passed on must be readable to its stated length */
		uint8_t tmp[64];

		if (rte_pktmbuf_pkt_len(pkts[i]) > 0 &&
		    rte_pktmbuf_read(pkts[i], rte_pktmbuf_pkt_len(pkts[i]) - 1, 1, tmp) == NULL)
			abort();
		rte_pktmbuf_free(pkts[i]);
	}
	if (rte_mempool_in_use_count(pool) != 0) {
		fprintf(stderr, "leak: %u mbufs in use after the input\n",
			rte_mempool_in_use_count(pool));
		abort();
	}
	return 0;
}
