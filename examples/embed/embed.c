/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * embed.c: the steering of dpdk-rps inside another DPDK program, through the installed
 * library (pkg-config rps). It builds a weighted map of three workers, hashes a few UDP
 * flows (each in both directions, symmetric jhash, a fixed seed), prints the bucket and the
 * worker of each packet, then steers the burst onto the workers' backlogs the way dpdk-rps's
 * RX lcore does and checks that each backlog got what the map said.
 *
 *   cc embed.c $(pkg-config --cflags --libs rps) -o embed && ./embed
 *
 * With no arguments it starts EAL with "--no-huge -m 64 --no-pci --no-shconf -l 0"; any
 * arguments replace those. Exit 0 when every packet reached the worker its hash names and
 * both directions of each flow share a worker.
 */
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "rps_backlog.h"
#include "rps_counters.h"
#include "rps_hash.h"
#include "rps_map.h"
#include "rps_steer.h"

#define NB_WORKERS 3
#define NB_FLOWS 6
#define TABLE_SIZE 16
#define SEED 7

/* An Ethernet + IPv4 + UDP frame from src:sport to dst:dport. */
static struct rte_mbuf *
udp_packet(struct rte_mempool *mp, uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	const uint16_t len = sizeof(*eth) + sizeof(*ip) + sizeof(*udp) + 18;

	if (m == NULL || rte_pktmbuf_append(m, len) == NULL)
		return NULL;
	memset(rte_pktmbuf_mtod(m, void *), 0, len);
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->total_length = rte_cpu_to_be_16(len - sizeof(*eth));
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp = (struct rte_udp_hdr *)(ip + 1);
	udp->src_port = rte_cpu_to_be_16(sport);
	udp->dst_port = rte_cpu_to_be_16(dport);
	udp->dgram_len = rte_cpu_to_be_16(len - sizeof(*eth) - sizeof(*ip));
	return m;
}

int
main(int argc, char **argv)
{
	static char *def_argv[] = { "embed", "--no-huge", "-m", "64", "--no-pci", "--no-shconf",
				    "--no-telemetry", "-l", "0", "--log-level", "lib.eal:error", NULL };
	static struct rps_backlog backlogs[NB_WORKERS];
	static struct rps_lcore_stats stats;
	const uint16_t workers[NB_WORKERS] = { 0, 1, 2 };  /* indexes into backlogs[] */
	const uint32_t weights[NB_WORKERS] = { 2, 1, 1 };  /* worker 0 gets half the table */
	struct rte_mbuf *pkts[2 * NB_FLOWS], *out[2 * NB_FLOWS];
	unsigned int expect[NB_WORKERS] = { 0 }, bad = 0;
	struct rps_steer_ctx steer;
	struct rte_mempool *mp;
	struct rps_map *map;
	uint16_t n = 0;

	if (argc < 2) {
		argc = (int)RTE_DIM(def_argv) - 1;
		argv = def_argv;
	}
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "embed: EAL initialisation failed\n");
		return 1;
	}
	mp = rte_pktmbuf_pool_create("embed", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	map = rps_map_create(workers, weights, NB_WORKERS, TABLE_SIZE, 1, SOCKET_ID_ANY);
	if (mp == NULL || map == NULL) {
		fprintf(stderr, "embed: no memory for the pool or the map\n");
		return 1;
	}
	for (unsigned int w = 0; w < NB_WORKERS; w++) {
		char name[8];

		snprintf(name, sizeof(name), "w%u", w);
		if (rps_backlog_init(&backlogs[w], name, 64, SOCKET_ID_ANY) < 0) {
			fprintf(stderr, "embed: cannot create backlog %u\n", w);
			return 1;
		}
	}
	if (rps_steer_init(&steer, RPS_HASH_JHASH, SEED, 1, backlogs, NB_WORKERS, 2 * NB_FLOWS,
			   &stats, SOCKET_ID_ANY) < 0) {
		fprintf(stderr, "embed: cannot set up steering\n");
		return 1;
	}
	steer.symmetric = RPS_SYM_SORT; /* both directions of a flow to one worker */

	printf("map: %u buckets, weights 2:1:1 ->", rps_map_size(map));
	for (uint32_t b = 0; b < rps_map_size(map); b++)
		printf(" %u", map->table[b]);
	printf("\n");
	for (unsigned int f = 0; f < NB_FLOWS; f++) {
		const uint32_t a = RTE_IPV4(198, 18, 0, 1 + f), b = RTE_IPV4(198, 19, 0, 1);
		const uint16_t pa = (uint16_t)(40000 + 17 * f), pb = 53;

		pkts[n++] = udp_packet(mp, a, b, pa, pb);
		pkts[n++] = udp_packet(mp, b, a, pb, pa);
		if (pkts[n - 2] == NULL || pkts[n - 1] == NULL) {
			fprintf(stderr, "embed: out of mbufs\n");
			return 1;
		}
	}
	for (uint16_t i = 0; i < n; i++) {
		uint32_t h = rps_steer_sw_hash(&steer, pkts[i]);
		uint16_t w = rps_map_worker(map, h);
		const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(pkts[i],
			const struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
		const struct rte_udp_hdr *udp = (const struct rte_udp_hdr *)(ip + 1);
		uint32_t s = rte_be_to_cpu_32(ip->src_addr), d = rte_be_to_cpu_32(ip->dst_addr);

		printf("flow %u %-6s %u.%u.%u.%u:%u -> %u.%u.%u.%u:%u  hash %08x  bucket %2u  "
		       "worker %u\n", i / 2, i % 2 ? "reply" : "query",
		       s >> 24, (s >> 16) & 255, (s >> 8) & 255, s & 255,
		       rte_be_to_cpu_16(udp->src_port),
		       d >> 24, (d >> 16) & 255, (d >> 8) & 255, d & 255,
		       rte_be_to_cpu_16(udp->dst_port), h, rps_map_bucket(map, h), w);
		expect[w]++;
		if (i % 2 == 1 && w != rps_map_worker(map, rps_steer_sw_hash(&steer, pkts[i - 1])))
			bad++;
	}
	/* What dpdk-rps's RX lcore does with a burst: one enqueue per worker touched. */
	if (rps_steer_burst(&steer, map, NULL, NULL, pkts, n) != n) {
		fprintf(stderr, "embed: a backlog refused packets\n");
		return 1;
	}
	for (unsigned int w = 0; w < NB_WORKERS; w++) {
		uint32_t left, got = rps_backlog_dequeue(&backlogs[w], out, RTE_DIM(out), &left);

		printf("backlog of worker %u: %u packets (the map said %u)\n", w, got, expect[w]);
		bad += got != expect[w];
		rte_pktmbuf_free_bulk(out, got);
		rps_backlog_complete(&backlogs[w], got);
		rps_backlog_fini(&backlogs[w]);
	}
	rps_steer_fini(&steer);
	rps_map_free(map);
	rte_mempool_free(mp);
	rte_eal_cleanup();
	printf("%s\n", bad ? "FAIL" : "ok: every packet on its worker, both directions together");
	return bad ? 1 : 0;
}
