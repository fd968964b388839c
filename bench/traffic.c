/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * traffic.c: the benchmark's traffic: a pool of mbufs that each hold one valid packet
 * (Ethernet + IPv4/IPv6 + TCP/UDP, correct checksums, addresses in 198.18.0.0/15 and
 * 2001:db8::/32) of one of `flows` flows, with the Toeplitz hash a NIC would have put in
 * mbuf->hash.rss (the common 40-byte key, 4-tuple). Flows cycle IPv4/TCP, IPv4/UDP,
 * IPv6/TCP, IPv6/UDP (a single flow is IPv4/TCP). Frames are `frame` bytes with the FCS,
 * or as short as the headers allow when those do not fit (IPv6/TCP in a 64-byte frame).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cpuflags.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_thash.h>
#include <rte_udp.h>

#include "bench.h"

/* The key most NICs ship (Microsoft's RSS verification key). */
static const uint8_t rss_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

static uint32_t
fill_packet(struct rte_mbuf *m, uint32_t flow, uint32_t nb_flows, uint32_t seq, uint32_t frame,
	    uint64_t rx_flags)
{
	int v6 = nb_flows > 1 && (flow & 2);
	int udp = nb_flows > 1 && (flow & 1);
	uint32_t l3 = v6 ? sizeof(struct rte_ipv6_hdr) : sizeof(struct rte_ipv4_hdr);
	uint32_t l4 = udp ? sizeof(struct rte_udp_hdr) : sizeof(struct rte_tcp_hdr);
	uint32_t hdrs = RTE_ETHER_HDR_LEN + l3 + l4;
	uint32_t len = RTE_MAX(frame - RTE_ETHER_CRC_LEN, hdrs);
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)p;
	uint16_t sport = (uint16_t)(1024 + flow % 60000), dport = udp ? 53 : 80;
	void *l4h = p + RTE_ETHER_HDR_LEN + l3;
	uint32_t hash;

	memset(p, 0, len);
	for (uint32_t i = hdrs; i < len; i++)
		p[i] = (uint8_t)(i + flow);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	memcpy(eh->dst_addr.addr_bytes, "\x02\x00\x00\x00\x00\x02", 6);
	memcpy(eh->src_addr.addr_bytes, "\x02\x00\x00\x00\x00\x01", 6);
	if (udp) {
		struct rte_udp_hdr *u = l4h;

		u->src_port = rte_cpu_to_be_16(sport);
		u->dst_port = rte_cpu_to_be_16(dport);
		u->dgram_len = rte_cpu_to_be_16((uint16_t)(len - RTE_ETHER_HDR_LEN - l3));
	} else {
		struct rte_tcp_hdr *tc = l4h;

		tc->src_port = rte_cpu_to_be_16(sport);
		tc->dst_port = rte_cpu_to_be_16(dport);
		tc->sent_seq = rte_cpu_to_be_32(seq);
		tc->recv_ack = rte_cpu_to_be_32(1);
		tc->data_off = 5 << 4;
		tc->tcp_flags = RTE_TCP_ACK_FLAG;
		tc->rx_win = rte_cpu_to_be_16(65535);
	}
	if (!v6) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);
		struct rte_ipv4_tuple tup;

		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(len - RTE_ETHER_HDR_LEN));
		ip->time_to_live = 64;
		ip->next_proto_id = udp ? IPPROTO_UDP : IPPROTO_TCP;
		/* not RTE_IPV4(): it shifts an int, which UBSan rightly flags for 198 << 24 */
		ip->src_addr = rte_cpu_to_be_32(UINT32_C(198) << 24 | 18u << 16 |
						((flow >> 8) & 0xff) << 8 | (flow & 0xff));
		ip->dst_addr = rte_cpu_to_be_32(UINT32_C(198) << 24 | 19u << 16 |
						((flow >> 16) & 0xff) << 8 | 1u);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		if (udp)
			((struct rte_udp_hdr *)l4h)->dgram_cksum = rte_ipv4_udptcp_cksum(ip, l4h);
		else
			((struct rte_tcp_hdr *)l4h)->cksum = rte_ipv4_udptcp_cksum(ip, l4h);
		tup.src_addr = rte_be_to_cpu_32(ip->src_addr);
		tup.dst_addr = rte_be_to_cpu_32(ip->dst_addr);
		tup.sport = sport;
		tup.dport = dport;
		hash = rte_softrss((uint32_t *)&tup, RTE_THASH_V4_L4_LEN, rss_key);
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eh + 1);
		union rte_thash_tuple tup;

		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
		ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip->payload_len = rte_cpu_to_be_16((uint16_t)(len - RTE_ETHER_HDR_LEN - l3));
		ip->proto = udp ? IPPROTO_UDP : IPPROTO_TCP;
		ip->hop_limits = 64;
		memcpy(ip->src_addr, "\x20\x01\x0d\xb8\x00\x00\x00\x00\x00\x00\x00\x00", 12);
		ip->src_addr[12] = (uint8_t)(flow >> 24);
		ip->src_addr[13] = (uint8_t)(flow >> 16);
		ip->src_addr[14] = (uint8_t)(flow >> 8);
		ip->src_addr[15] = (uint8_t)flow;
		memcpy(ip->dst_addr, "\x20\x01\x0d\xb8\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01",
		       16);
		if (udp)
			((struct rte_udp_hdr *)l4h)->dgram_cksum = rte_ipv6_udptcp_cksum(ip, l4h);
		else
			((struct rte_tcp_hdr *)l4h)->cksum = rte_ipv6_udptcp_cksum(ip, l4h);
		rte_thash_load_v6_addrs(ip, &tup);
		tup.v6.sport = sport;
		tup.v6.dport = dport;
		hash = rte_softrss((uint32_t *)&tup, RTE_THASH_V6_L4_LEN, rss_key);
	}
	m->ol_flags = RTE_MBUF_F_RX_RSS_HASH | rx_flags;
	m->hash.rss = hash;
	m->packet_type = 0;
	return len;
}

int
bench_traffic_build(struct bench_traffic *t, unsigned int pool, uint32_t flows, uint32_t frame,
		    uint64_t rx_flags, int socket)
{
	static unsigned int seq;
	struct rte_mbuf **all;
	char name[RTE_MEMPOOL_NAMESIZE];

	memset(t, 0, sizeof(*t));
	if (flows == 0 || frame < 64 || frame > 2048 || pool < 1024)
		return -EINVAL;
	snprintf(name, sizeof(name), "bench_%u", seq++);
	t->mp = rte_pktmbuf_pool_create(name, pool, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, socket);
	if (t->mp == NULL)
		return -ENOMEM;
	t->slot_base = rps_backlog_slot_base(&t->mp, 1);
	t->flows = flows;
	t->frame = frame;
	all = malloc(sizeof(*all) * pool);
	if (all == NULL || rte_pktmbuf_alloc_bulk(t->mp, all, pool) != 0) {
		free(all);
		bench_traffic_free(t);
		return -ENOMEM;
	}
	t->hdr_off = (uint32_t)(rte_pktmbuf_mtod(all[0], char *) - (char *)all[0]);
#ifdef __SSE2__
	/* CLFLUSH comes with SSE2 (every x86-64 CPU) but has its own CPUID bit: checked too */
	const int flush = rte_cpu_get_flag_enabled(RTE_CPUFLAG_CLFSH) > 0;
#endif
	for (unsigned int i = 0; i < pool; i++) {
		uint32_t len = fill_packet(all[i], i % flows, flows, (i / flows) * 1000u, frame,
					   rx_flags);

		/* the headers start cold, as if a NIC had just written them to memory (a build
		 * without SSE2, or a CPU without CLFLUSH, starts them warm) */
#ifdef __SSE2__
		for (uint32_t off = 0; flush && off < len; off += RTE_CACHE_LINE_SIZE)
			__builtin_ia32_clflush(rte_pktmbuf_mtod_offset(all[i], char *, off));
#else
		(void)len;
#endif
	}
	/* The pool keeps what the PMD-like rx does not re-arm: lengths, flags, hash. */
	rte_mempool_put_bulk(t->mp, (void **)all, pool);
	free(all);
	return 0;
}

void
bench_traffic_free(struct bench_traffic *t)
{
	rte_mempool_free(t->mp);
	t->mp = NULL;
}
