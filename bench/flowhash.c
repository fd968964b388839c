/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flowhash.c: dpdk-rps-bench --flow-hash N: what the flow table's hash costs, and what hash
 * flooding costs the worker (docs/flow-hash.md). On the main lcore, no workers:
 *   - cycles per hash of a 40-byte flow key: rte_hash_crc (CRC32C, the old hash), SipHash-1-3
 *     (the table's) and SipHash-2-4;
 *   - flow stage cycles per packet for N IPv6 TCP SYNs, first pass (every flow new) and
 *     second pass (every flow known), for random flows and for flows crafted to share one
 *     CRC32C (crc_collide.c), under each hash;
 *   - paced ageing: cycles per slot examined on a table of 2^20 flows.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_ptype.h>
#include <rte_random.h>
#include <rte_tcp.h>

#include "bench.h"
#include "crc_collide.h"
#include "rps_flow.h"
#include "rps_siphash.h"
#include "rps_stage.h"

#define FH_KEYS 4096
#define FH_HASH_ROUNDS 256
#define FH_BURST 32
#define FH_TABLE 65536
#define FH_AGE_TABLE (1u << 20)

/* An IPv6 TCP SYN, laid out as the parse stage leaves it. */
static int
build_syn6(struct rte_mbuf *m, const struct crc_collide_flow6 *f)
{
	const uint16_t len = RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr) +
			     sizeof(struct rte_tcp_hdr);
	char *d = rte_pktmbuf_append(m, len);
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)d;
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);
	struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)(ip + 1);

	if (d == NULL)
		return -1;
	memset(d, 0, len);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(sizeof(*th));
	ip->proto = IPPROTO_TCP;
	ip->hop_limits = 64;
	memcpy(ip->src_addr, f->src, 16);
	memcpy(ip->dst_addr, f->dst, 16);
	th->src_port = rte_cpu_to_be_16(f->sport);
	th->dst_port = rte_cpu_to_be_16(f->dport);
	th->data_off = 5 << 4;
	th->tcp_flags = RTE_TCP_SYN_FLAG;
	m->l2_len = RTE_ETHER_HDR_LEN;
	m->l3_len = sizeof(*ip);
	m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6 | RTE_PTYPE_L4_TCP;
	return 0;
}

/* Cycles per hash of FH_KEYS random 40-byte keys, FH_HASH_ROUNDS times. */
static void
hash_costs(void)
{
	static uint8_t keys[FH_KEYS][40] __rte_aligned(8);
	struct rps_siphash_key k;
	uint64_t t0, sink = 0;
	double c_crc, c_13, c_24;

	rps_siphash_key_random(&k);
	for (unsigned int i = 0; i < FH_KEYS; i++)
		for (unsigned int j = 0; j < 40; j++)
			keys[i][j] = (uint8_t)rte_rand();
	t0 = rte_rdtsc_precise();
	for (unsigned int r = 0; r < FH_HASH_ROUNDS; r++)
		for (unsigned int i = 0; i < FH_KEYS; i++)
			sink += rte_hash_crc(keys[i], 40, 0);
	c_crc = (double)(rte_rdtsc_precise() - t0) / (FH_KEYS * FH_HASH_ROUNDS);
	t0 = rte_rdtsc_precise();
	for (unsigned int r = 0; r < FH_HASH_ROUNDS; r++)
		for (unsigned int i = 0; i < FH_KEYS; i++)
			sink += rps_siphash13(&k, keys[i], 40);
	c_13 = (double)(rte_rdtsc_precise() - t0) / (FH_KEYS * FH_HASH_ROUNDS);
	t0 = rte_rdtsc_precise();
	for (unsigned int r = 0; r < FH_HASH_ROUNDS; r++)
		for (unsigned int i = 0; i < FH_KEYS; i++)
			sink += rps_siphash24(&k, keys[i], 40);
	c_24 = (double)(rte_rdtsc_precise() - t0) / (FH_KEYS * FH_HASH_ROUNDS);
	printf("hash of a 40-byte flow key, cycles: crc32c %.1f  siphash-1-3 %.1f  "
	       "siphash-2-4 %.1f  (sink %u)\n", c_crc, c_13, c_24, (unsigned int)(sink & 1));
}

/* Run @p n packets through the flow stage in bursts. @return cycles per packet. */
static double
stage_pass(struct rps_stage_ctx *c, struct rte_mbuf **pkts, unsigned int n)
{
	uint64_t t0 = rte_rdtsc_precise();

	for (unsigned int i = 0; i < n; i += FH_BURST) {
		struct rte_mbuf *b[FH_BURST];
		uint16_t cnt = (uint16_t)RTE_MIN((unsigned int)FH_BURST, n - i);

		memcpy(b, pkts + i, cnt * sizeof(*b));
		c->now = rte_rdtsc();
		rps_stage_flow(c, b, cnt);
	}
	return (double)(rte_rdtsc_precise() - t0) / n;
}

static int
stage_costs(struct rte_mbuf **rnd, struct rte_mbuf **evil, unsigned int n)
{
	static const char *const hname[] = { "siphash-1-3", "crc32c" };
	static const char *const tname[] = { "random", "crafted" };
	double cyc[2][2][2];

	printf("flow stage, %u IPv6 TCP SYNs, table of %u, cycles/packet "
	       "(new flows / known flows: best of 3 passes, bucket_max):\n", n, FH_TABLE);
	/* h = -1: an unreported warm-up (first touch of the heap) */
	for (int h = -1; h < 2; h++) {
		for (int tr = 0; tr < 2; tr++) {
			struct rps_flow_conf fc = {
				.size = FH_TABLE, .idle_timeout_ms = 30000, .closed_timeout_ms = 1000,
				.hash = h == 1 ? RPS_FLOW_HASH_CRC32C : RPS_FLOW_HASH_SIPHASH,
			};
			static struct rps_lcore_stats st;
			struct rps_stage_ctx c;
			char name[24];

			memset(&st, 0, sizeof(st));
			memset(&c, 0, sizeof(c));
			double known;

			snprintf(name, sizeof(name), "fh_%d_%d", h + 1, tr);
			c.st = &st;
			c.hz = rte_get_tsc_hz();
			c.flows = rps_flow_table_create(&fc, name, (int)rte_socket_id());
			if (c.flows == NULL) {
				fprintf(stderr, "dpdk-rps-bench: no memory for a flow table (-m)\n");
				return -1;
			}
			if (h < 0) {
				if (tr == 0) {
					stage_pass(&c, rnd, n);
					stage_pass(&c, rnd, n);
				}
				rps_flow_table_free(c.flows);
				continue;
			}
			cyc[h][tr][0] = stage_pass(&c, tr ? evil : rnd, n);
			cyc[h][tr][1] = stage_pass(&c, tr ? evil : rnd, n);
			for (int r = 0; r < 2; r++) {
				known = stage_pass(&c, tr ? evil : rnd, n);
				if (known < cyc[h][tr][1])
					cyc[h][tr][1] = known;
			}
			printf("  %-12s %-8s %10.0f %10.0f   %6" PRIu64 "\n", hname[h], tname[tr],
			       cyc[h][tr][0], cyc[h][tr][1], st.flow_bucket_max);
			rps_flow_table_free(c.flows);
		}
	}
	printf("crafted/random, known flows: siphash-1-3 %.2fx, crc32c %.1fx\n",
	       cyc[0][1][1] / cyc[0][0][1], cyc[1][1][1] / cyc[1][0][1]);
	return 0;
}

/* Paced ageing on a table of 2^20 flows holding @p n of them: cycles per slot examined. */
static int
age_cost(struct rte_mbuf **rnd, unsigned int n)
{
	struct rps_flow_conf fc = {
		.size = FH_AGE_TABLE, .idle_timeout_ms = 30000, .closed_timeout_ms = 1000,
	};
	static struct rps_lcore_stats st;
	struct rps_stage_ctx c;
	uint64_t t0, best = UINT64_MAX;

	memset(&c, 0, sizeof(c));
	c.st = &st;
	c.hz = rte_get_tsc_hz();
	c.flows = rps_flow_table_create(&fc, "fh_age", (int)rte_socket_id());
	if (c.flows == NULL) {
		fprintf(stderr, "dpdk-rps-bench: no memory for a table of 2^20 flows (-m 1024)\n");
		return -1;
	}
	stage_pass(&c, rnd, n);
	c.now = rte_rdtsc();
	/* whole sweeps, best of 4 */
	for (int r = 0; r < 4; r++) {
		t0 = rte_rdtsc_precise();
		for (unsigned int i = 0; i < FH_AGE_TABLE / RPS_FLOW_AGE_BUDGET; i++)
			rps_flow_table_age(&c, RPS_FLOW_AGE_BUDGET);
		t0 = rte_rdtsc_precise() - t0;
		best = t0 < best ? t0 : best;
	}
	printf("ageing, table of %u (%u flows): %.2f cycles per slot examined, %.0f per call of "
	       "%u slots (best of 4 sweeps)\n", FH_AGE_TABLE, n, (double)best / FH_AGE_TABLE,
	       (double)best * RPS_FLOW_AGE_BUDGET / FH_AGE_TABLE, RPS_FLOW_AGE_BUDGET);
	rps_flow_table_free(c.flows);
	return 0;
}

int
bench_flow_hash(unsigned int n)
{
	static struct crc_collide cc;
	struct rte_mempool *mp;
	struct rte_mbuf **rnd, **evil;
	int rc = -1;

	if (crc_collide_flows6_init(&cc) < 20) {
		fprintf(stderr, "dpdk-rps-bench: CRC32C solver found too few collisions\n");
		return -1;
	}
	mp = rte_pktmbuf_pool_create("fh_pool", 2 * n, 0, 0, RTE_PKTMBUF_HEADROOM + 128,
				     (int)rte_socket_id());
	rnd = calloc(n, sizeof(*rnd));
	evil = calloc(n, sizeof(*evil));
	if (mp == NULL || rnd == NULL || evil == NULL ||
	    rte_pktmbuf_alloc_bulk(mp, rnd, n) != 0 || rte_pktmbuf_alloc_bulk(mp, evil, n) != 0) {
		fprintf(stderr, "dpdk-rps-bench: no memory for %u mbufs (-m)\n", 2 * n);
		goto out;
	}
	for (unsigned int i = 0; i < n; i++) {
		struct crc_collide_flow6 f;

		crc_collide_flow6(&cc, i, &f);
		if (build_syn6(evil[i], &f) < 0)
			goto out;
		/* random: the same destination, random source address and port */
		for (unsigned int j = 8; j < 16; j++)
			f.src[j] = (uint8_t)rte_rand();
		f.sport = (uint16_t)rte_rand();
		if (build_syn6(rnd[i], &f) < 0)
			goto out;
	}
	printf("# dpdk-rps-bench --flow-hash %u, TSC %.2f GHz\n", n, rte_get_tsc_hz() / 1e9);
	hash_costs();
	if (stage_costs(rnd, evil, n) < 0 || age_cost(rnd, n) < 0)
		goto out;
	rc = 0;
out:
	if (rnd != NULL && rnd[0] != NULL)
		rte_pktmbuf_free_bulk(rnd, n);
	if (evil != NULL && evil[0] != NULL)
		rte_pktmbuf_free_bulk(evil, n);
	free(rnd);
	free(evil);
	rte_mempool_free(mp);
	return rc;
}
