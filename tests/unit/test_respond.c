/* SPDX-License-Identifier: BSD-3-Clause */
/* test_respond.c: the respond stage: every reply checked byte for byte through a real TX queue. */
#include <stdio.h>
#include <string.h>

#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "rps_respond.h"
#include "rps_stage.h"
#include "test_common.h"

/*
 * The replies go out through a net_ring port whose RX queue 0 reads back what TX queue 0
 * sent (a net_ring vdev created without arguments uses one ring per queue pair), so the
 * test sees exactly what a NIC would have been given. The vdev is hot-plugged with
 * rte_dev_probe(): rte_vdev_init() lives in a driver library the unit tests do not link,
 * and Debian's EAL loads the net_ring PMD from its plugin directory.
 */

#define RING_VDEV "net_ring_rsp" /* short: the PMD names its rings after it */
#define BURST 32

static uint16_t ring_port = RTE_MAX_ETHPORTS;
static struct rps_txq txq;
static struct rps_lcore_stats st;
/* The requests come in on port IN_PORT (m->port); its reply queue is txq. */
#define IN_PORT 0
static struct rps_txq *replies[RTE_MAX_ETHPORTS] = { [IN_PORT] = &txq };

/* Us: 198.18.0.1, 2001:db8::1, this MAC, UDP echo on 7. The peer: 198.18.0.2, 2001:db8::2,
 * 02:00:00:00:00:01 (ut_put_eth's source). */
static const struct rte_ether_addr self_mac = { .addr_bytes = { 0x02, 0, 0, 0, 0, 0xaa } };
static const struct rte_ether_addr peer_mac = { .addr_bytes = { 0x02, 0, 0, 0, 0, 0x01 } };
static const struct rte_ether_addr other_mac = { .addr_bytes = { 0x02, 0, 0, 0, 0, 0x77 } };
static const struct rte_ether_addr bcast_mac = {
	.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };
static const struct rte_ether_addr zero_mac = { .addr_bytes = { 0 } };
#define SELF4 UT_IP4(1)
#define PEER4 UT_IP4(2)
#define OTHER4 UT_IP4(3)
#define ECHO_PORT 7
static uint8_t self6[16], peer6[16], other6[16];
static const uint8_t unspec6[16];
static const uint8_t all_nodes6[16] = { 0xff, 0x02, [15] = 1 };
static struct rps_respond_conf conf;

static int
ring_setup(void)
{
	struct rte_eth_conf pc;
	int rc;

	if (ring_port != RTE_MAX_ETHPORTS)
		return 0;
	memset(&pc, 0, sizeof(pc));
	rc = rte_dev_probe(RING_VDEV);
	if (rc != 0) {
		fprintf(stderr, "\n  rte_dev_probe(%s): %d (is the net_ring PMD loaded?)\n",
			RING_VDEV, rc);
		return -1;
	}
	if (rte_eth_dev_get_port_by_name(RING_VDEV, &ring_port) != 0 ||
	    rte_eth_dev_configure(ring_port, 1, 1, &pc) != 0 ||
	    rte_eth_rx_queue_setup(ring_port, 0, 512, SOCKET_ID_ANY, NULL, ut_pool()) != 0 ||
	    rte_eth_tx_queue_setup(ring_port, 0, 512, SOCKET_ID_ANY, NULL) != 0 ||
	    rte_eth_dev_start(ring_port) != 0) {
		fprintf(stderr, "\n  net_ring port set-up failed\n");
		ring_port = RTE_MAX_ETHPORTS;
		return -1;
	}
	if (rps_txq_init(&txq, ring_port, 0, BURST, SOCKET_ID_ANY, &st) != 0)
		return -1;
	ut_ip6(self6, 0, 1);
	ut_ip6(peer6, 0, 2);
	ut_ip6(other6, 0, 3);
	memset(&conf, 0, sizeof(conf));
	conf.has_ipv4 = 1;
	conf.ipv4 = rte_cpu_to_be_32(SELF4);
	conf.has_ipv6 = 1;
	memcpy(conf.ipv6, self6, 16);
	conf.udp_echo_port = ECHO_PORT;
	conf.mac[IN_PORT] = self_mac;
	return 0;
}

/* Fresh counters for each case. */
static void
reset(void)
{
	memset(&st, 0, sizeof(st));
}

/* The packets came in on port @p port. */
static void
arrive(struct rte_mbuf **pkts, uint16_t n, uint16_t port)
{
	for (uint16_t i = 0; i < n; i++)
		pkts[i]->port = port;
}

/* parse + respond over pkts (from IN_PORT); the TX buffer is flushed; returns what respond
 * passed on. */
static uint16_t
run(struct rte_mbuf **pkts, uint16_t n, const struct rps_respond_conf *cf)
{
	struct rps_stage_ctx c = { .st = &st, .respond = cf, .reply_txq = replies };
	uint16_t k;

	arrive(pkts, n, IN_PORT);
	k = rps_stage_parse(&c, pkts, n);
	CU_ASSERT_EQUAL(k, n);
	k = rps_stage_respond(&c, pkts, k);
	rps_txq_flush(&txq);
	return k;
}

/* What the port transmitted since the last call. */
static uint16_t
sent(struct rte_mbuf **out, uint16_t max)
{
	uint16_t n = 0, r;

	do {
		r = rte_eth_rx_burst(ring_port, 0, out + n, (uint16_t)(max - n));
		n = (uint16_t)(n + r);
	} while (r != 0 && n < max);
	return n;
}

/* The packet's bytes, linear. */
static uint32_t
flat(const struct rte_mbuf *m, uint8_t *buf, uint32_t cap)
{
	const void *p;

	if (m->pkt_len > cap)
		return 0;
	p = rte_pktmbuf_read(m, 0, m->pkt_len, buf);
	if (p == NULL)
		return 0;
	if (p != buf)
		memcpy(buf, p, m->pkt_len);
	return m->pkt_len;
}

static int
same_bytes(const struct rte_mbuf *m, const struct ut_pkt *want, const char *what)
{
	uint8_t b[UT_PKT_MAX];
	uint32_t len = flat(m, b, sizeof(b)), nb = 0, sum = 0;
	int ok = len == want->len && memcmp(b, want->b, len) == 0;

	/* the chain agrees with itself */
	for (const struct rte_mbuf *s = m; s != NULL; s = s->next) {
		nb++;
		sum += s->data_len;
	}
	ok &= nb == m->nb_segs && sum == m->pkt_len;
	if (!ok) {
		fprintf(stderr, "\n  %s: got %u bytes (%u segs):", what, len, m->nb_segs);
		for (uint32_t i = 0; i < len; i++)
			fprintf(stderr, "%s%02x", i % 16 ? "" : "\n    ", b[i]);
		fprintf(stderr, "\n  want %u bytes:", want->len);
		for (uint32_t i = 0; i < want->len; i++)
			fprintf(stderr, "%s%02x", i % 16 ? "" : "\n    ", want->b[i]);
		fprintf(stderr, "\n");
	}
	return ok;
}

/* ---- packets ---- */

static void
set_macs(struct ut_pkt *p, const struct rte_ether_addr *dst, const struct rte_ether_addr *src)
{
	memcpy(p->b, dst->addr_bytes, 6);
	memcpy(p->b + 6, src->addr_bytes, 6);
}

/* Ethernet (with @p vlans tags) up to the inner ethertype @p type. */
static void
put_l2(struct ut_pkt *p, int vlans, uint16_t type)
{
	ut_pkt_init(p);
	if (vlans == 0) {
		ut_put_eth(p, type);
	} else {
		ut_put_eth(p, vlans > 1 ? RTE_ETHER_TYPE_QINQ : RTE_ETHER_TYPE_VLAN);
		for (int i = 1; i < vlans; i++)
			ut_put_vlan(p, (uint16_t)(100 + i), RTE_ETHER_TYPE_VLAN);
		ut_put_vlan(p, 42, type);
	}
}

static void
put_payload(struct ut_pkt *p, uint16_t n, uint8_t seed)
{
	uint8_t *d = ut_put(p, NULL, n);

	for (uint16_t i = 0; i < n; i++)
		d[i] = (uint8_t)(seed + i * 7);
}

static void
arp_frame(struct ut_pkt *p, int vlans, uint16_t op, const struct rte_ether_addr *eth_dst,
	  const struct rte_ether_addr *eth_src, const struct rte_ether_addr *sha, uint32_t spa,
	  const struct rte_ether_addr *tha, uint32_t tpa, uint16_t pad_to)
{
	uint8_t a[28] = { 0, 1, 0x08, 0x00, 6, 4, (uint8_t)(op >> 8), (uint8_t)op };
	uint32_t be;

	put_l2(p, vlans, RTE_ETHER_TYPE_ARP);
	set_macs(p, eth_dst, eth_src);
	memcpy(a + 8, sha->addr_bytes, 6);
	be = rte_cpu_to_be_32(spa);
	memcpy(a + 14, &be, 4);
	memcpy(a + 18, tha->addr_bytes, 6);
	be = rte_cpu_to_be_32(tpa);
	memcpy(a + 24, &be, 4);
	ut_put(p, a, sizeof(a));
	if (p->len < pad_to)
		ut_put(p, NULL, (uint16_t)(pad_to - p->len));
}

/* IPv4 ICMP message (type, code 0, id 0x4242, seq 7, payload) with TTL @p ttl. */
static void
icmp4_frame(struct ut_pkt *p, int vlans, uint8_t opt_len, uint32_t src, uint32_t dst,
	    uint8_t type, uint8_t ttl, uint16_t payload, uint16_t frag)
{
	uint8_t ic[8] = { type, 0, 0, 0, 0x42, 0x42, 0, 7 };
	struct rte_ipv4_hdr *ip;
	uint16_t ck;
	int l4;

	put_l2(p, vlans, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(p, src, dst, IPPROTO_ICMP, opt_len, frag);
	l4 = p->len;
	ut_put(p, ic, sizeof(ic));
	put_payload(p, payload, 3);
	ut_pkt_finish(p);
	ip = (struct rte_ipv4_hdr *)(p->b + p->l3_off);
	ip->time_to_live = ttl;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	ck = (uint16_t)~rte_raw_cksum(p->b + l4, (size_t)(p->len - l4));
	memcpy(p->b + l4 + 2, &ck, 2);
}

/* The expected echo reply to icmp4_frame(..., PEER4, SELF4, 8, ...). */
static void
icmp4_reply(struct ut_pkt *p, int vlans, uint8_t opt_len, uint16_t payload)
{
	icmp4_frame(p, vlans, opt_len, SELF4, PEER4, 0, 64, payload, 0);
	set_macs(p, &peer_mac, &self_mac);
}

/* IPv6 header + ICMPv6 message of @p msg_len bytes (checksum filled), hop limit @p hl. */
static void
icmp6_frame(struct ut_pkt *p, int vlans, const uint8_t *src, const uint8_t *dst, uint8_t hl,
	    const uint8_t *msg, uint16_t msg_len)
{
	struct rte_ipv6_hdr *ip;
	uint8_t *l4;
	uint16_t ck;

	put_l2(p, vlans, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(p, src, dst, IPPROTO_ICMPV6);
	l4 = ut_put(p, msg, msg_len);
	ut_pkt_finish(p);
	ip = (struct rte_ipv6_hdr *)(p->b + p->l3_off);
	ip->hop_limits = hl;
	l4[2] = l4[3] = 0;
	ck = rte_ipv6_udptcp_cksum(ip, l4);
	memcpy(l4 + 2, &ck, 2);
}

static void
echo6_frame(struct ut_pkt *p, int vlans, const uint8_t *src, const uint8_t *dst, uint8_t type,
	    uint8_t hl, uint16_t payload)
{
	uint8_t msg[8 + 300] = { type, 0, 0, 0, 0x13, 0x37, 0, 9 };

	for (uint16_t i = 0; i < payload; i++)
		msg[8 + i] = (uint8_t)(i * 5 + 1);
	icmp6_frame(p, vlans, src, dst, hl, msg, (uint16_t)(8 + payload));
}

static void
echo6_reply(struct ut_pkt *p, int vlans, uint16_t payload)
{
	echo6_frame(p, vlans, self6, peer6, 129, 64, payload);
	set_macs(p, &peer_mac, &self_mac);
}

static void
solicited_node(uint8_t *d, const uint8_t *a)
{
	static const uint8_t prefix[13] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };

	memcpy(d, prefix, 13);
	memcpy(d + 13, a + 13, 3);
}

/* Neighbour solicitation for @p target, optionally with a source link-layer option. */
static void
ns_frame(struct ut_pkt *p, int vlans, const uint8_t *src, const uint8_t *dst,
	 const uint8_t *target, const struct rte_ether_addr *slla, uint8_t hl)
{
	uint8_t msg[40] = { 135, 0 };
	uint16_t len = 24;
	struct rte_ether_addr eth_dst = { .addr_bytes = { 0x33, 0x33 } };

	memcpy(msg + 8, target, 16);
	if (slla != NULL) {
		msg[24] = 1;
		msg[25] = 1;
		memcpy(msg + 26, slla->addr_bytes, 6);
		len = 32;
	}
	icmp6_frame(p, vlans, src, dst, hl, msg, len);
	memcpy(eth_dst.addr_bytes + 2, dst + 12, 4);
	set_macs(p, &eth_dst, &peer_mac);
}

/* The advertisement we expect. */
static void
na_frame(struct ut_pkt *p, int vlans, const struct rte_ether_addr *eth_dst, const uint8_t *dst,
	 int solicited)
{
	uint8_t msg[32] = { 136, 0, 0, 0, (uint8_t)(0x20 | (solicited ? 0x40 : 0)) };
	struct rte_ipv6_hdr *ip;

	memcpy(msg + 8, self6, 16);
	msg[24] = 2;
	msg[25] = 1;
	memcpy(msg + 26, self_mac.addr_bytes, 6);
	icmp6_frame(p, vlans, self6, dst, 255, msg, sizeof(msg));
	ip = (struct rte_ipv6_hdr *)(p->b + p->l3_off);
	ip->vtc_flow = rte_cpu_to_be_32(UINT32_C(6) << 28); /* not covered by the checksum */
	set_macs(p, eth_dst, &self_mac);
}

static void
udp4_frame(struct ut_pkt *p, int vlans, uint32_t src, uint32_t dst, uint16_t sport,
	   uint16_t dport, uint8_t ttl, uint16_t payload, int with_cksum)
{
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *uh;

	put_l2(p, vlans, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(p, src, dst, IPPROTO_UDP, 0, 0);
	ut_put_udp(p, sport, dport);
	put_payload(p, payload, 11);
	ut_pkt_finish(p);
	ip = (struct rte_ipv4_hdr *)(p->b + p->l3_off);
	uh = (struct rte_udp_hdr *)(p->b + p->l4_off);
	ip->time_to_live = ttl;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	uh->dgram_len = rte_cpu_to_be_16((uint16_t)(p->len - p->l4_off));
	uh->dgram_cksum = 0;
	if (with_cksum)
		uh->dgram_cksum = rte_ipv4_udptcp_cksum(ip, uh);
}

static void
udp6_frame(struct ut_pkt *p, int vlans, const uint8_t *src, const uint8_t *dst, uint16_t sport,
	   uint16_t dport, uint8_t hl, uint16_t payload, int with_cksum)
{
	struct rte_ipv6_hdr *ip;
	struct rte_udp_hdr *uh;

	put_l2(p, vlans, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(p, src, dst, IPPROTO_UDP);
	ut_put_udp(p, sport, dport);
	put_payload(p, payload, 13);
	ut_pkt_finish(p);
	ip = (struct rte_ipv6_hdr *)(p->b + p->l3_off);
	uh = (struct rte_udp_hdr *)(p->b + p->l4_off);
	ip->hop_limits = hl;
	uh->dgram_len = rte_cpu_to_be_16((uint16_t)(p->len - p->l4_off));
	uh->dgram_cksum = 0;
	if (with_cksum)
		uh->dgram_cksum = rte_ipv6_udptcp_cksum(ip, uh);
}

/* ---- checks ---- */

enum ctr { C_NONE, C_ARP, C_ICMP, C_ICMP6, C_ND, C_UDP };

static int
counters_are(enum ctr which, uint64_t n)
{
	int ok = st.arp_replies == (which == C_ARP ? n : 0) &&
		 st.icmp_echo_replies == (which == C_ICMP ? n : 0) &&
		 st.icmp6_echo_replies == (which == C_ICMP6 ? n : 0) &&
		 st.nd_replies == (which == C_ND ? n : 0) &&
		 st.udp_echo_replies == (which == C_UDP ? n : 0) &&
		 st.processed == (which == C_NONE ? 0 : n) &&
		 st.tx_packets == (which == C_NONE ? 0 : n) &&
		 rps_stats_dropped_total(&st) == 0;

	if (!ok)
		fprintf(stderr, "\n  counters: arp %lu icmp %lu icmp6 %lu nd %lu udp %lu processed "
			"%lu tx %lu dropped %lu; want %lu of kind %d\n",
			(unsigned long)st.arp_replies, (unsigned long)st.icmp_echo_replies,
			(unsigned long)st.icmp6_echo_replies, (unsigned long)st.nd_replies,
			(unsigned long)st.udp_echo_replies, (unsigned long)st.processed,
			(unsigned long)st.tx_packets, (unsigned long)rps_stats_dropped_total(&st),
			(unsigned long)n, which);
	return ok;
}

/* Valid checksums in a frame, checked from scratch (IPv4 header, ICMP, UDP, ICMPv6). */
static int
cksums_valid(const struct ut_pkt *p)
{
	const uint8_t *b = p->b;
	uint32_t off = 12;
	uint16_t type;

	for (;;) {
		type = (uint16_t)(b[off] << 8 | b[off + 1]);
		off += 2;
		if (type != RTE_ETHER_TYPE_VLAN && type != RTE_ETHER_TYPE_QINQ)
			break;
		off += 2;
	}
	if (type == RTE_ETHER_TYPE_IPV4) {
		const struct rte_ipv4_hdr *ip = (const void *)(b + off);
		const uint8_t *l4 = b + off + rte_ipv4_hdr_len(ip);
		uint32_t l4len = rte_be_to_cpu_16(ip->total_length) - rte_ipv4_hdr_len(ip);

		if (rte_ipv4_cksum(ip) != 0)
			return 0;
		if (ip->next_proto_id == IPPROTO_ICMP)
			return rte_raw_cksum(l4, l4len) == 0xffff;
		if (ip->next_proto_id == IPPROTO_UDP)
			return rte_ipv4_udptcp_cksum_verify(ip, l4) == 0 && (l4[6] | l4[7]) != 0;
		return 1;
	}
	if (type == RTE_ETHER_TYPE_IPV6) {
		const struct rte_ipv6_hdr *ip = (const void *)(b + off);

		return rte_ipv6_udptcp_cksum_verify(ip, b + off + sizeof(*ip)) == 0;
	}
	return 1;
}

/*
 * Give @p req to parse + respond in every mbuf layout (pool buffer, exact-size external
 * buffer, two exact-size segments split at every offset) and check the outcome: with
 * @p want, exactly that frame was transmitted and counted under @p which (and nothing else);
 * without, the packet was passed on byte for byte and nothing was counted or sent.
 */
/* Sum of the respond stage's refusal counters. */
static uint64_t
refused_total(void)
{
	uint64_t t = 0;

#define RPS_X_SUM(f, d) t += st.f;
	RPS_RESPOND_REFUSALS(RPS_X_SUM)
#undef RPS_X_SUM
	return t;
}

static void
check_layouts_r(const struct ut_pkt *req, const struct ut_pkt *want, enum ctr which,
		const uint64_t *refused, const char *what);

static void
check_layouts(const struct ut_pkt *req, const struct ut_pkt *want, enum ctr which,
	      const char *what)
{
	check_layouts_r(req, want, which, NULL, what);
}

/* As check_layouts(req, NULL, C_NONE, what), and the request was refused: counted once, in
 * @p refused (a refusal counter of st), and in no other. */
static void
check_refused(const struct ut_pkt *req, const uint64_t *refused, const char *what)
{
	check_layouts_r(req, NULL, C_NONE, refused, what);
}

static void
check_layouts_r(const struct ut_pkt *req, const struct ut_pkt *want, enum ctr which,
		const uint64_t *refused, const char *what)
{
	int bad = 0;

	if (want != NULL)
		CU_ASSERT_TRUE(cksums_valid(want)); /* the expectation itself */
	for (int form = -2; form < (int)req->len && bad < 3; form++) {
		struct rte_mbuf *m, *out[BURST];
		uint16_t k, ns;
		int ok = 1;

		if (form == 0)
			continue;
		m = form == -2 ? ut_mbuf(req->b, req->len) :
		    form == -1 ? ut_mbuf_exact(req->b, req->len) :
		    ut_mbuf_split(req->b, req->len, (uint16_t)form);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		reset();
		k = run(&m, 1, &conf);
		ns = sent(out, BURST);
		if (want != NULL) {
			ok &= k == 0 && ns == 1;
			if (ns == 1)
				ok &= same_bytes(out[0], want, what);
			ok &= counters_are(which, 1);
		} else {
			ok &= k == 1 && ns == 0;
			if (k == 1)
				ok &= same_bytes(m, req, what);
			ok &= counters_are(C_NONE, 0);
		}
		if (refused != NULL)
			ok &= *refused == 1 && refused_total() == 1;
		else
			ok &= refused_total() == 0;
		if (!ok) {
			bad++;
			fprintf(stderr, "  %s: layout %d: passed %u, sent %u, refused %lu\n", what,
				form, k, ns, (unsigned long)refused_total());
		}
		CU_ASSERT_TRUE(ok);
		if (k == 1)
			rte_pktmbuf_free(m);
		rte_pktmbuf_free_bulk(out, ns);
	}
}

/* ---- tests ---- */

#define NEED_PORT() CU_ASSERT_EQUAL_FATAL(ring_setup(), 0)

static void
test_arp(void)
{
	struct ut_pkt req, want;

	NEED_PORT();
	/* request for us, padded to 60 bytes as on the wire: the reply keeps the length */
	arp_frame(&req, 0, 1, &bcast_mac, &peer_mac, &peer_mac, PEER4, &zero_mac, SELF4, 60);
	arp_frame(&want, 0, 2, &peer_mac, &self_mac, &self_mac, SELF4, &peer_mac, PEER4, 60);
	check_layouts(&req, &want, C_ARP, "arp request");
	/* unpadded; the sender hardware address differs from the Ethernet source */
	arp_frame(&req, 0, 1, &bcast_mac, &peer_mac, &other_mac, PEER4, &zero_mac, SELF4, 0);
	arp_frame(&want, 0, 2, &other_mac, &self_mac, &self_mac, SELF4, &other_mac, PEER4, 0);
	check_layouts(&req, &want, C_ARP, "arp request, sha != eth src");
	/* two tags, kept */
	arp_frame(&req, 2, 1, &bcast_mac, &peer_mac, &peer_mac, PEER4, &zero_mac, SELF4, 0);
	arp_frame(&want, 2, 2, &peer_mac, &self_mac, &self_mac, SELF4, &peer_mac, PEER4, 0);
	check_layouts(&req, &want, C_ARP, "arp request, QinQ");
	/* not ours to answer */
	arp_frame(&req, 0, 1, &bcast_mac, &peer_mac, &peer_mac, PEER4, &zero_mac, OTHER4, 60);
	check_layouts(&req, NULL, C_NONE, "arp request for another address");
	arp_frame(&req, 0, 2, &self_mac, &peer_mac, &peer_mac, PEER4, &self_mac, SELF4, 60);
	check_layouts(&req, NULL, C_NONE, "arp reply");
	arp_frame(&req, 0, 1, &bcast_mac, &peer_mac, &peer_mac, SELF4, &zero_mac, SELF4, 60);
	check_refused(&req, &st.refused_src_self, "gratuitous arp");
	arp_frame(&req, 0, 1, &bcast_mac, &peer_mac, &bcast_mac, PEER4, &zero_mac, SELF4, 60);
	check_refused(&req, &st.refused_mac_src, "arp from a broadcast sha");
	/* cut short: the ARP body ends 1 byte early */
	arp_frame(&req, 0, 1, &bcast_mac, &peer_mac, &peer_mac, PEER4, &zero_mac, SELF4, 0);
	req.len--;
	check_layouts(&req, NULL, C_NONE, "truncated arp");
}

static void
test_icmp4_echo(void)
{
	struct ut_pkt req, want;

	NEED_PORT();
	icmp4_frame(&req, 0, 0, PEER4, SELF4, 8, 17, 56, 0);
	icmp4_reply(&want, 0, 0, 56);
	check_layouts(&req, &want, C_ICMP, "icmp echo");
	/* odd payload length, IPv4 options echoed */
	icmp4_frame(&req, 0, 8, PEER4, SELF4, 8, 1, 33, 0);
	icmp4_reply(&want, 0, 8, 33);
	check_layouts(&req, &want, C_ICMP, "icmp echo with options");
	/* Ethernet padding after a short echo is left out of the reply */
	icmp4_frame(&req, 0, 0, PEER4, SELF4, 8, 5, 4, 0);
	ut_put(&req, NULL, 14);
	icmp4_reply(&want, 0, 0, 4);
	check_layouts(&req, &want, C_ICMP, "padded icmp echo");

	icmp4_frame(&req, 0, 0, PEER4, OTHER4, 8, 17, 56, 0);
	check_layouts(&req, NULL, C_NONE, "icmp echo to another address");
	icmp4_frame(&req, 0, 0, PEER4, SELF4, 0, 17, 56, 0);
	check_layouts(&req, NULL, C_NONE, "icmp echo reply");
	icmp4_frame(&req, 0, 0, PEER4, SELF4, 8, 17, 56, 0);
	req.b[req.len - 1] ^= 0x40;
	check_layouts(&req, NULL, C_NONE, "icmp echo with a bad checksum");
	icmp4_frame(&req, 0, 0, PEER4, SELF4, 8, 17, 56, RTE_IPV4_HDR_MF_FLAG);
	check_layouts(&req, NULL, C_NONE, "icmp echo, first fragment");
	icmp4_frame(&req, 0, 0, 0xe0120002, SELF4, 8, 17, 56, 0);
	check_refused(&req, &st.refused_src_martian, "icmp echo from a multicast source");
	/* the total length claims more than the frame holds */
	icmp4_frame(&req, 0, 0, PEER4, SELF4, 8, 17, 56, 0);
	req.len = (uint16_t)(req.len - 10);
	check_layouts(&req, NULL, C_NONE, "icmp echo cut short");
}

static void
test_icmp6_echo(void)
{
	struct ut_pkt req, want;

	NEED_PORT();
	echo6_frame(&req, 0, peer6, self6, 128, 3, 56);
	echo6_reply(&want, 0, 56);
	check_layouts(&req, &want, C_ICMP6, "icmpv6 echo");
	echo6_frame(&req, 0, peer6, self6, 128, 200, 7);
	echo6_reply(&want, 0, 7);
	check_layouts(&req, &want, C_ICMP6, "icmpv6 echo, odd length");

	echo6_frame(&req, 0, peer6, other6, 128, 3, 56);
	check_layouts(&req, NULL, C_NONE, "icmpv6 echo to another address");
	echo6_frame(&req, 0, peer6, self6, 129, 3, 56);
	check_layouts(&req, NULL, C_NONE, "icmpv6 echo reply");
	echo6_frame(&req, 0, peer6, self6, 128, 3, 56);
	req.b[req.len - 3] ^= 1;
	check_layouts(&req, NULL, C_NONE, "icmpv6 echo with a bad checksum");
	echo6_frame(&req, 0, all_nodes6, self6, 128, 3, 56);
	check_refused(&req, &st.refused_src_martian, "icmpv6 echo from a multicast source");
	echo6_frame(&req, 0, peer6, self6, 128, 3, 56);
	req.len = (uint16_t)(req.len - 1);
	check_layouts(&req, NULL, C_NONE, "icmpv6 echo cut short");
	/* behind a hop-by-hop header: not answered */
	{
		uint8_t msg[16] = { 128, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };

		put_l2(&req, 0, RTE_ETHER_TYPE_IPV6);
		ut_put_ipv6(&req, peer6, self6, 0);
		ut_put_ipv6_ext(&req, IPPROTO_ICMPV6, 0);
		ut_put(&req, msg, sizeof(msg));
		ut_pkt_finish(&req);
		check_layouts(&req, NULL, C_NONE, "icmpv6 echo behind an extension header");
	}
}

static void
test_nd(void)
{
	static const struct rte_ether_addr all_nodes_mac = {
		.addr_bytes = { 0x33, 0x33, 0, 0, 0, 1 } };
	struct ut_pkt req, want;
	uint8_t sn[16], msg[48] = { 135, 0 };

	NEED_PORT();
	solicited_node(sn, self6);
	/* multicast solicitation with a source link-layer option (not the Ethernet source) */
	ns_frame(&req, 0, peer6, sn, self6, &other_mac, 255);
	na_frame(&want, 0, &other_mac, peer6, 1);
	check_layouts(&req, &want, C_ND, "ns with slla");
	/* without the option: to the Ethernet source; the reply is longer than the request */
	ns_frame(&req, 0, peer6, sn, self6, NULL, 255);
	na_frame(&want, 0, &peer_mac, peer6, 1);
	check_layouts(&req, &want, C_ND, "ns without options");
	/* unicast (neighbour unreachability detection) */
	ns_frame(&req, 0, peer6, self6, self6, &peer_mac, 255);
	na_frame(&want, 0, &peer_mac, peer6, 1);
	check_layouts(&req, &want, C_ND, "unicast ns");
	/* duplicate address detection: from ::, answered to all nodes, S clear */
	ns_frame(&req, 0, unspec6, sn, self6, NULL, 255);
	na_frame(&want, 0, &all_nodes_mac, all_nodes6, 0);
	check_layouts(&req, &want, C_ND, "dad ns");
	/* VLAN tag kept */
	ns_frame(&req, 1, peer6, sn, self6, &peer_mac, 255);
	na_frame(&want, 1, &peer_mac, peer6, 1);
	check_layouts(&req, &want, C_ND, "ns, vlan");
	/* an unknown option (a nonce) is skipped; the reply is shorter than the request */
	memcpy(msg + 8, self6, 16);
	msg[24] = 14;
	msg[25] = 1;
	msg[32] = 1;
	msg[33] = 1;
	memcpy(msg + 34, other_mac.addr_bytes, 6);
	icmp6_frame(&req, 0, peer6, sn, 255, msg, 40);
	na_frame(&want, 0, &other_mac, peer6, 1);
	check_layouts(&req, &want, C_ND, "ns with nonce + slla");
	msg[25] = 0; /* a zero-length option makes the message invalid */
	icmp6_frame(&req, 0, peer6, sn, 255, msg, 40);
	check_layouts(&req, NULL, C_NONE, "ns with a zero-length option");
	msg[25] = 3; /* an option running past the message */
	icmp6_frame(&req, 0, peer6, sn, 255, msg, 40);
	check_layouts(&req, NULL, C_NONE, "ns with an overlong option");

	ns_frame(&req, 0, peer6, sn, other6, &peer_mac, 255);
	check_layouts(&req, NULL, C_NONE, "ns for another target");
	ns_frame(&req, 0, peer6, sn, self6, &peer_mac, 64);
	check_layouts(&req, NULL, C_NONE, "ns with hop limit 64");
	ns_frame(&req, 0, peer6, sn, self6, &peer_mac, 255);
	req.b[req.len - 1] ^= 0x10;
	check_layouts(&req, NULL, C_NONE, "ns with a bad checksum");
	ns_frame(&req, 0, unspec6, sn, self6, &peer_mac, 255);
	check_layouts(&req, NULL, C_NONE, "dad ns with slla");
	ns_frame(&req, 0, peer6, all_nodes6, self6, &peer_mac, 255);
	check_layouts(&req, NULL, C_NONE, "ns to all nodes");
	ns_frame(&req, 0, unspec6, self6, self6, NULL, 255);
	check_layouts(&req, NULL, C_NONE, "unicast ns from ::");
	/* an advertisement is not a solicitation */
	na_frame(&req, 0, &self_mac, self6, 1);
	check_layouts(&req, NULL, C_NONE, "na");
}

static void
test_udp_echo(void)
{
	struct ut_pkt req, want;
	struct rte_mbuf *m;

	NEED_PORT();
	udp4_frame(&req, 0, PEER4, SELF4, 40000, ECHO_PORT, 9, 100, 1);
	udp4_frame(&want, 0, SELF4, PEER4, ECHO_PORT, 40000, 64, 100, 1);
	set_macs(&want, &peer_mac, &self_mac);
	check_layouts(&req, &want, C_UDP, "udp echo v4");
	/* no checksum in the request: the reply gets one */
	udp4_frame(&req, 0, PEER4, SELF4, 40001, ECHO_PORT, 9, 33, 0);
	udp4_frame(&want, 0, SELF4, PEER4, ECHO_PORT, 40001, 64, 33, 1);
	set_macs(&want, &peer_mac, &self_mac);
	check_layouts(&req, &want, C_UDP, "udp echo v4 without checksum");
	udp6_frame(&req, 0, peer6, self6, 50000, ECHO_PORT, 1, 77, 1);
	udp6_frame(&want, 0, self6, peer6, ECHO_PORT, 50000, 64, 77, 1);
	set_macs(&want, &peer_mac, &self_mac);
	check_layouts(&req, &want, C_UDP, "udp echo v6");
	udp6_frame(&req, 0, peer6, self6, 50000, ECHO_PORT, 1, 0, 1);
	udp6_frame(&want, 0, self6, peer6, ECHO_PORT, 50000, 64, 0, 1);
	set_macs(&want, &peer_mac, &self_mac);
	check_layouts(&req, &want, C_UDP, "udp echo v6, empty");

	udp4_frame(&req, 0, PEER4, SELF4, 40000, ECHO_PORT + 1, 9, 100, 1);
	check_layouts(&req, NULL, C_NONE, "udp v4 to another port");
	udp4_frame(&req, 0, PEER4, OTHER4, 40000, ECHO_PORT, 9, 100, 1);
	check_layouts(&req, NULL, C_NONE, "udp v4 to another address");
	udp4_frame(&req, 0, PEER4, SELF4, ECHO_PORT, ECHO_PORT, 9, 100, 1);
	check_refused(&req, &st.refused_udp_port, "udp v4 from the echo port");
	udp4_frame(&req, 0, PEER4, SELF4, 40000, ECHO_PORT, 9, 100, 1);
	req.b[req.len - 1] ^= 0x21;
	check_layouts(&req, NULL, C_NONE, "udp v4 with a bad checksum");
	udp6_frame(&req, 0, peer6, self6, 50000, ECHO_PORT, 1, 77, 0);
	check_layouts(&req, NULL, C_NONE, "udp v6 without checksum");
	udp6_frame(&req, 0, peer6, other6, 50000, ECHO_PORT, 1, 77, 1);
	check_layouts(&req, NULL, C_NONE, "udp v6 to another address");
	/* echo off */
	udp4_frame(&req, 0, PEER4, SELF4, 40000, ECHO_PORT, 9, 100, 1);
	conf.udp_echo_port = 0;
	m = ut_mbuf(req.b, req.len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	reset();
	CU_ASSERT_EQUAL(run(&m, 1, &conf), 1);
	conf.udp_echo_port = ECHO_PORT;
	CU_ASSERT_TRUE(same_bytes(m, &req, "udp echo off"));
	CU_ASSERT_TRUE(counters_are(C_NONE, 0));
	rte_pktmbuf_free(m);
}

static void
test_vlan_echo(void)
{
	struct ut_pkt req, want;

	NEED_PORT();
	icmp4_frame(&req, 1, 0, PEER4, SELF4, 8, 17, 56, 0);
	icmp4_reply(&want, 1, 0, 56);
	check_layouts(&req, &want, C_ICMP, "vlan icmp echo");
	icmp4_frame(&req, 3, 0, PEER4, SELF4, 8, 17, 20, 0);
	icmp4_reply(&want, 3, 0, 20);
	check_layouts(&req, &want, C_ICMP, "3-tag icmp echo");
	echo6_frame(&req, 2, peer6, self6, 128, 3, 24);
	echo6_reply(&want, 2, 24);
	check_layouts(&req, &want, C_ICMP6, "QinQ icmpv6 echo");
	udp4_frame(&req, 1, PEER4, SELF4, 40000, ECHO_PORT, 9, 10, 1);
	udp4_frame(&want, 1, SELF4, PEER4, ECHO_PORT, 40000, 64, 10, 1);
	set_macs(&want, &peer_mac, &self_mac);
	check_layouts(&req, &want, C_UDP, "vlan udp echo");
}

/* A mixed burst: answered ones leave, the rest stay in order; replies in request order. */
static void
test_mixed_burst(void)
{
	enum { N = 10, R = 4 };
	static const unsigned int pass[] = { 1, 3, 5, 7, 8, 9 };
	struct ut_pkt req[N], want[R];
	struct rte_mbuf *pkts[N], *orig[N], *out[BURST];
	uint8_t sn[16];
	uint16_t k, ns;

	NEED_PORT();
	solicited_node(sn, self6);
	arp_frame(&req[0], 0, 1, &bcast_mac, &peer_mac, &peer_mac, PEER4, &zero_mac, SELF4, 60);
	ut_pkt_v4(&req[1], PEER4, SELF4, IPPROTO_TCP, 1000, 80);
	icmp4_frame(&req[2], 0, 0, PEER4, SELF4, 8, 17, 56, 0);
	icmp4_frame(&req[3], 0, 0, PEER4, OTHER4, 8, 17, 56, 0);
	udp6_frame(&req[4], 0, peer6, self6, 50000, ECHO_PORT, 1, 77, 1);
	ut_pkt_init(&req[5]);
	ut_put_eth(&req[5], 0x88b5);
	ut_put(&req[5], "not ip, not arp!", 16);
	ns_frame(&req[6], 0, peer6, sn, self6, &peer_mac, 255);
	udp4_frame(&req[7], 0, PEER4, SELF4, 40000, 9, 9, 100, 1);
	echo6_frame(&req[8], 0, peer6, other6, 128, 3, 56);
	ut_pkt_v6(&req[9], 2, 1, IPPROTO_TCP, 1000, 80);

	arp_frame(&want[0], 0, 2, &peer_mac, &self_mac, &self_mac, SELF4, &peer_mac, PEER4, 60);
	icmp4_reply(&want[1], 0, 0, 56);
	udp6_frame(&want[2], 0, self6, peer6, ECHO_PORT, 50000, 64, 77, 1);
	set_macs(&want[2], &peer_mac, &self_mac);
	na_frame(&want[3], 0, &peer_mac, peer6, 1);

	for (int i = 0; i < N; i++) {
		pkts[i] = i % 2 ? ut_mbuf_exact(req[i].b, req[i].len) :
			  ut_mbuf_split(req[i].b, req[i].len, 17);
		CU_ASSERT_PTR_NOT_NULL_FATAL(pkts[i]);
		orig[i] = pkts[i];
	}
	reset();
	k = run(pkts, N, &conf);
	ns = sent(out, BURST);
	CU_ASSERT_EQUAL(k, RTE_DIM(pass));
	CU_ASSERT_EQUAL(ns, R);
	for (unsigned int i = 0; i < RTE_MIN((unsigned int)k, RTE_DIM(pass)); i++) {
		CU_ASSERT_PTR_EQUAL(pkts[i], orig[pass[i]]);
		CU_ASSERT_TRUE(same_bytes(pkts[i], &req[pass[i]], "passed on"));
	}
	for (unsigned int i = 0; i < RTE_MIN((unsigned int)ns, (unsigned int)R); i++)
		CU_ASSERT_TRUE(same_bytes(out[i], &want[i], "reply"));
	CU_ASSERT_EQUAL(st.arp_replies, 1);
	CU_ASSERT_EQUAL(st.icmp_echo_replies, 1);
	CU_ASSERT_EQUAL(st.icmp6_echo_replies, 0);
	CU_ASSERT_EQUAL(st.nd_replies, 1);
	CU_ASSERT_EQUAL(st.udp_echo_replies, 1);
	CU_ASSERT_EQUAL(st.processed, R);
	CU_ASSERT_EQUAL(st.tx_packets, R);
	CU_ASSERT_EQUAL(rps_stats_dropped_total(&st), 0);
	rte_pktmbuf_free_bulk(pkts, k);
	rte_pktmbuf_free_bulk(out, ns);
}

/* Without a configuration, a TX queue or an address family, nothing is answered. */
static void
test_not_configured(void)
{
	struct ut_pkt req[4];
	struct rte_mbuf *pkts[4], *out[BURST];
	struct rps_respond_conf cf;
	struct rps_stage_ctx c = { .st = &st };
	uint8_t sn[16];

	NEED_PORT();
	cf = conf;
	cf.has_ipv4 = 0;
	cf.has_ipv6 = 0;
	solicited_node(sn, self6);
	icmp4_frame(&req[0], 0, 0, PEER4, SELF4, 8, 17, 56, 0);
	echo6_frame(&req[1], 0, peer6, self6, 128, 3, 56);
	ns_frame(&req[2], 0, peer6, sn, self6, &peer_mac, 255);
	arp_frame(&req[3], 0, 1, &bcast_mac, &peer_mac, &peer_mac, PEER4, &zero_mac, SELF4, 60);
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 4; i++) {
			pkts[i] = ut_mbuf(req[i].b, req[i].len);
			CU_ASSERT_PTR_NOT_NULL_FATAL(pkts[i]);
		}
		reset();
		c.respond = round == 1 ? NULL : round == 2 ? &cf : &conf;
		c.reply_txq = round == 0 ? NULL : replies;
		arrive(pkts, 4, IN_PORT);
		CU_ASSERT_EQUAL(rps_stage_parse(&c, pkts, 4), 4);
		CU_ASSERT_EQUAL(rps_stage_respond(&c, pkts, 4), 4);
		rps_txq_flush(&txq);
		CU_ASSERT_EQUAL(sent(out, BURST), 0);
		for (int i = 0; i < 4; i++)
			CU_ASSERT_TRUE(same_bytes(pkts[i], &req[i], "unanswered"));
		CU_ASSERT_TRUE(counters_are(C_NONE, 0));
		rte_pktmbuf_free_bulk(pkts, 4);
	}
}

/* Several ports: a request is answered on the queue of the port it came in on, from that
 * port's MAC; one from a port without a reply queue (or no port at all) passes unchanged. */
static void
test_ports(void)
{
	static const struct rte_ether_addr mac1 = { .addr_bytes = { 0x02, 0, 0, 0, 0, 0xbb } };
	static const uint16_t from[5] = { IN_PORT, 1, 1, 2, RTE_MBUF_PORT_INVALID };
	struct rps_txq txq1, *tab[RTE_MAX_ETHPORTS] = { [IN_PORT] = &txq, [1] = &txq1 };
	struct rps_respond_conf cf = conf;
	struct rps_stage_ctx c = { .st = &st, .respond = &cf, .reply_txq = tab };
	struct ut_pkt req[5], want0, want1[2];
	struct rte_mbuf *pkts[5], *out[BURST];
	uint16_t k, ns;

	NEED_PORT();
	/* a second queue of this lcore: another buffer on the same ring, flushed apart */
	CU_ASSERT_EQUAL_FATAL(rps_txq_init(&txq1, ring_port, 0, BURST, SOCKET_ID_ANY, &st), 0);
	cf.mac[1] = mac1;
	icmp4_frame(&req[0], 0, 0, PEER4, SELF4, 8, 17, 56, 0);
	icmp4_frame(&req[1], 0, 0, PEER4, SELF4, 8, 17, 56, 0);
	arp_frame(&req[2], 0, 1, &bcast_mac, &peer_mac, &peer_mac, PEER4, &zero_mac, SELF4, 60);
	icmp4_frame(&req[3], 0, 0, PEER4, SELF4, 8, 17, 56, 0);
	icmp4_frame(&req[4], 0, 0, PEER4, SELF4, 8, 17, 56, 0);
	icmp4_reply(&want0, 0, 0, 56);
	icmp4_reply(&want1[0], 0, 0, 56);
	set_macs(&want1[0], &peer_mac, &mac1);
	arp_frame(&want1[1], 0, 2, &peer_mac, &mac1, &mac1, SELF4, &peer_mac, PEER4, 60);
	for (int i = 0; i < 5; i++) {
		pkts[i] = ut_mbuf(req[i].b, req[i].len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(pkts[i]);
		pkts[i]->port = from[i];
	}
	reset();
	CU_ASSERT_EQUAL_FATAL(rps_stage_parse(&c, pkts, 5), 5);
	k = rps_stage_respond(&c, pkts, 5);
	CU_ASSERT_EQUAL_FATAL(k, 2);
	CU_ASSERT_EQUAL(txq.buf->length, 1);
	CU_ASSERT_EQUAL(txq1.buf->length, 2);
	CU_ASSERT_TRUE(pkts[0]->port == 2 && same_bytes(pkts[0], &req[3], "from port 2"));
	CU_ASSERT_TRUE(pkts[1]->port == RTE_MBUF_PORT_INVALID &&
		       same_bytes(pkts[1], &req[4], "from no port"));
	rte_pktmbuf_free_bulk(pkts, k);
	rps_txq_flush(&txq);
	ns = sent(out, BURST);
	CU_ASSERT_EQUAL_FATAL(ns, 1);
	CU_ASSERT_TRUE(same_bytes(out[0], &want0, "echo reply on port 0"));
	rte_pktmbuf_free_bulk(out, ns);
	rps_txq_flush(&txq1);
	ns = sent(out, BURST);
	CU_ASSERT_EQUAL_FATAL(ns, 2);
	CU_ASSERT_TRUE(same_bytes(out[0], &want1[0], "echo reply on port 1"));
	CU_ASSERT_TRUE(same_bytes(out[1], &want1[1], "ARP reply on port 1"));
	rte_pktmbuf_free_bulk(out, ns);
	CU_ASSERT_EQUAL(st.icmp_echo_replies, 2);
	CU_ASSERT_EQUAL(st.arp_replies, 1);
	CU_ASSERT_EQUAL(st.processed, 3);
	CU_ASSERT_EQUAL(st.tx_packets, 3);
	rps_txq_fini(&txq1);
}

/* A request whose data another reference shares is not rewritten. */
static void
test_shared_data(void)
{
	struct ut_pkt req;
	struct rte_mbuf *m, *c, *out[BURST];

	NEED_PORT();
	icmp4_frame(&req, 0, 0, PEER4, SELF4, 8, 17, 56, 0);
	m = ut_mbuf(req.b, req.len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	rte_mbuf_refcnt_update(m, 1);
	reset();
	CU_ASSERT_EQUAL(run(&m, 1, &conf), 1);
	CU_ASSERT_EQUAL(sent(out, BURST), 0);
	CU_ASSERT_TRUE(same_bytes(m, &req, "shared"));
	CU_ASSERT_TRUE(counters_are(C_NONE, 0));
	rte_pktmbuf_free(m); /* one reference left */
	/* an indirect clone */
	c = rte_pktmbuf_clone(m, ut_pool());
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	reset();
	CU_ASSERT_EQUAL(run(&c, 1, &conf), 1);
	CU_ASSERT_EQUAL(sent(out, BURST), 0);
	CU_ASSERT_TRUE(same_bytes(m, &req, "clone's parent"));
	CU_ASSERT_TRUE(counters_are(C_NONE, 0));
	rte_pktmbuf_free(c);
	rte_pktmbuf_free(m);
}

/* Replies to random payload lengths, tag counts and split points carry valid checksums
 * (checked from scratch, independently of the exact-frame tests). */
static void
test_random_replies(void)
{
	uint64_t seed = 0x5eed;
	int bad = 0;

	NEED_PORT();
	for (int i = 0; i < 400 && bad < 3; i++) {
		struct ut_pkt req, got;
		struct rte_mbuf *m, *out[BURST];
		uint16_t plen = (uint16_t)(ut_rand(&seed) % 300), k, ns;
		int kind = (int)(ut_rand(&seed) % 4), vl = (int)(ut_rand(&seed) % 3), ok;

		if (kind == 0)
			icmp4_frame(&req, vl, 0, PEER4, SELF4, 8, 17, plen, 0);
		else if (kind == 1)
			echo6_frame(&req, vl, peer6, self6, 128, 3, plen);
		else if (kind == 2)
			udp4_frame(&req, vl, PEER4, SELF4, 40000, ECHO_PORT, 9, plen,
				   (int)(ut_rand(&seed) & 1));
		else
			udp6_frame(&req, vl, peer6, self6, 50000, ECHO_PORT, 1, plen, 1);
		m = ut_mbuf_split(req.b, req.len,
				  (uint16_t)(1 + ut_rand(&seed) % (uint64_t)(req.len - 1)));
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		reset();
		k = run(&m, 1, &conf);
		ns = sent(out, BURST);
		ok = k == 0 && ns == 1 && counters_are(kind == 0 ? C_ICMP : kind == 1 ? C_ICMP6 :
							C_UDP, 1);
		if (ns == 1) {
			ut_pkt_init(&got);
			got.len = (uint16_t)flat(out[0], got.b, sizeof(got.b));
			ok &= got.len == req.len && cksums_valid(&got);
		}
		if (!ok) {
			bad++;
			fprintf(stderr, "\n  random case %d (kind %d, %u bytes) failed\n", i, kind,
				req.len);
		}
		CU_ASSERT_TRUE(ok);
		if (k != 0)
			rte_pktmbuf_free(m);
		rte_pktmbuf_free_bulk(out, ns);
	}
}

/* ---- refusals: requests that would make the stage a reflector ---- */

static const struct rte_ether_addr mcast_mac = {
	.addr_bytes = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 } };
static const struct rte_ether_addr mcast6_mac = {
	.addr_bytes = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 } };

/* An IPv6 address: @p prefix12 (12 bytes, NULL: zeros) then IPv4 address @p v4. */
static void
ip6_of(uint8_t *a, const uint8_t *prefix12, uint32_t v4)
{
	memset(a, 0, 16);
	if (prefix12 != NULL)
		memcpy(a, prefix12, 12);
	a[12] = (uint8_t)(v4 >> 24);
	a[13] = (uint8_t)(v4 >> 16);
	a[14] = (uint8_t)(v4 >> 8);
	a[15] = (uint8_t)v4;
}

/* Replace the IPv4 options of an ICMP frame (no VLAN) with @p opt (the header's length) and
 * fix the header checksum; the ICMP checksum does not cover them. */
static void
set_opts(struct ut_pkt *p, const uint8_t *opt, uint8_t len)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p->b + p->l3_off);

	CU_ASSERT_EQUAL_FATAL(rte_ipv4_hdr_len(ip), sizeof(*ip) + len);
	memcpy(ip + 1, opt, len);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/* Broadcast, multicast or zero Ethernet sources and link-layer addresses: each was answered
 * before (the reply went to a group, or was sent on behalf of one). */
static void
test_refuse_mac_src(void)
{
	struct ut_pkt req;
	uint8_t sn[16];

	NEED_PORT();
	solicited_node(sn, self6);
	arp_frame(&req, 0, 1, &bcast_mac, &bcast_mac, &peer_mac, PEER4, &zero_mac, SELF4, 60);
	check_refused(&req, &st.refused_mac_src, "arp from a broadcast Ethernet source");
	arp_frame(&req, 0, 1, &bcast_mac, &mcast_mac, &peer_mac, PEER4, &zero_mac, SELF4, 60);
	check_refused(&req, &st.refused_mac_src, "arp from a multicast Ethernet source");
	arp_frame(&req, 0, 1, &bcast_mac, &peer_mac, &mcast_mac, PEER4, &zero_mac, SELF4, 60);
	check_refused(&req, &st.refused_mac_src, "arp from a multicast sha");
	arp_frame(&req, 0, 1, &bcast_mac, &peer_mac, &zero_mac, PEER4, &zero_mac, SELF4, 60);
	check_refused(&req, &st.refused_mac_src, "arp from a zero sha");
	icmp4_frame(&req, 0, 0, PEER4, SELF4, 8, 17, 56, 0);
	set_macs(&req, &self_mac, &bcast_mac);
	check_refused(&req, &st.refused_mac_src, "icmp echo from a broadcast Ethernet source");
	icmp4_frame(&req, 1, 0, PEER4, SELF4, 8, 17, 56, 0);
	set_macs(&req, &self_mac, &mcast_mac);
	check_refused(&req, &st.refused_mac_src, "vlan icmp echo from a multicast source");
	echo6_frame(&req, 0, peer6, self6, 128, 3, 56);
	set_macs(&req, &self_mac, &mcast6_mac);
	check_refused(&req, &st.refused_mac_src, "icmpv6 echo from a multicast Ethernet source");
	udp4_frame(&req, 0, PEER4, SELF4, 40000, ECHO_PORT, 9, 100, 1);
	set_macs(&req, &self_mac, &bcast_mac);
	check_refused(&req, &st.refused_mac_src, "udp echo from a broadcast Ethernet source");
	udp6_frame(&req, 0, peer6, self6, 50000, ECHO_PORT, 1, 77, 1);
	set_macs(&req, &self_mac, &zero_mac);
	check_refused(&req, &st.refused_mac_src, "udp6 echo from a zero Ethernet source");
	ns_frame(&req, 0, peer6, sn, self6, &peer_mac, 255);
	memcpy(req.b + 6, bcast_mac.addr_bytes, 6);
	check_refused(&req, &st.refused_mac_src, "ns from a broadcast Ethernet source");
	ns_frame(&req, 0, peer6, sn, self6, &mcast6_mac, 255);
	check_refused(&req, &st.refused_mac_src, "ns with a multicast source link-layer address");
	ns_frame(&req, 0, peer6, sn, self6, &bcast_mac, 255);
	check_refused(&req, &st.refused_mac_src, "ns with a broadcast source link-layer address");
}

/* IPv4 sources no reply may go to (RFC 1122 3.2.1.3, 3.2.2.6). */
static void
test_refuse_src4(void)
{
	static const uint32_t martian[] = {
		0x7f000001, 0x7f120001,    /* loopback */
		0x00000000, 0x00120002,    /* this network */
		0xffffffff,                /* limited broadcast */
		0xe0000001, 0xefffffff,    /* multicast */
		0xf0000001,                /* class E */
		0xc61200ff, 0xc6120000,    /* directed broadcast and network of 198.18.0.1/24 */
	};
	struct rps_respond_conf saved = conf;
	struct ut_pkt req, want;
	char what[96];

	NEED_PORT();
	conf.ipv4_prefix = 24;
	icmp4_frame(&req, 0, 0, SELF4, SELF4, 8, 17, 56, 0);
	check_refused(&req, &st.refused_src_self, "icmp echo from our own address");
	udp4_frame(&req, 0, SELF4, SELF4, 40000, ECHO_PORT, 9, 20, 1);
	check_refused(&req, &st.refused_src_self, "udp echo from our own address");
	for (unsigned int i = 0; i < RTE_DIM(martian); i++) {
		snprintf(what, sizeof(what), "icmp echo from %08x", martian[i]);
		icmp4_frame(&req, 0, 0, martian[i], SELF4, 8, 17, 56, 0);
		check_refused(&req, &st.refused_src_martian, what);
		snprintf(what, sizeof(what), "udp echo from %08x", martian[i]);
		udp4_frame(&req, 0, martian[i], SELF4, 40000, ECHO_PORT, 9, 20, 1);
		check_refused(&req, &st.refused_src_martian, what);
		if (martian[i] == 0)
			continue; /* an ARP probe */
		snprintf(what, sizeof(what), "arp from %08x", martian[i]);
		arp_frame(&req, 0, 1, &bcast_mac, &peer_mac, &peer_mac, martian[i], &zero_mac,
			  SELF4, 60);
		check_refused(&req, &st.refused_src_martian, what);
	}
	/* an ARP probe (sender 0.0.0.0, RFC 5227) is answered */
	arp_frame(&req, 0, 1, &bcast_mac, &peer_mac, &peer_mac, 0, &zero_mac, SELF4, 60);
	arp_frame(&want, 0, 2, &peer_mac, &self_mac, &self_mac, SELF4, &peer_mac, 0, 60);
	check_layouts(&req, &want, C_ARP, "arp probe");
	/* in a /16, 198.18.0.255 is a host like any other; 198.18.255.255 is not */
	conf.ipv4_prefix = 16;
	icmp4_frame(&req, 0, 0, UT_IP4(255), SELF4, 8, 17, 56, 0);
	icmp4_frame(&want, 0, 0, SELF4, UT_IP4(255), 0, 64, 56, 0);
	set_macs(&want, &peer_mac, &self_mac);
	check_layouts(&req, &want, C_ICMP, "icmp echo from 198.18.0.255 in a /16");
	icmp4_frame(&req, 0, 0, UT_IP4(0xffff), SELF4, 8, 17, 56, 0);
	check_refused(&req, &st.refused_src_martian, "icmp echo from 198.18.255.255 in a /16");
	/* a /31 has no broadcast address (RFC 3021) */
	conf.ipv4_prefix = 31;
	icmp4_frame(&req, 0, 0, UT_IP4(0), SELF4, 8, 17, 56, 0);
	icmp4_frame(&want, 0, 0, SELF4, UT_IP4(0), 0, 64, 56, 0);
	set_macs(&want, &peer_mac, &self_mac);
	check_layouts(&req, &want, C_ICMP, "icmp echo from the other end of a /31");
	conf = saved;
}

/* IPv6 sources no reply may go to. */
static void
test_refuse_src6(void)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	uint8_t srcs[5][16], sn[16];
	struct ut_pkt req;
	char what[96];

	NEED_PORT();
	solicited_node(sn, self6);
	ip6_of(srcs[0], NULL, 1);                  /* ::1 */
	ip6_of(srcs[1], NULL, 0);                  /* :: */
	ip6_of(srcs[2], mapped, PEER4);            /* ::ffff:198.18.0.2 */
	ip6_of(srcs[3], NULL, PEER4);              /* ::198.18.0.2, IPv4-compatible */
	memcpy(srcs[4], all_nodes6, 16);           /* ff02::1 */
	echo6_frame(&req, 0, self6, self6, 128, 3, 56);
	check_refused(&req, &st.refused_src_self, "icmpv6 echo from our own address");
	udp6_frame(&req, 0, self6, self6, 50000, ECHO_PORT, 1, 77, 1);
	check_refused(&req, &st.refused_src_self, "udp6 echo from our own address");
	ns_frame(&req, 0, self6, sn, self6, &peer_mac, 255);
	check_refused(&req, &st.refused_src_self, "ns from our own address");
	for (unsigned int i = 0; i < RTE_DIM(srcs); i++) {
		snprintf(what, sizeof(what), "icmpv6 echo from source %u", i);
		echo6_frame(&req, 0, srcs[i], self6, 128, 3, 56);
		check_refused(&req, &st.refused_src_martian, what);
		snprintf(what, sizeof(what), "udp6 echo from source %u", i);
		udp6_frame(&req, 0, srcs[i], self6, 50000, ECHO_PORT, 1, 77, 1);
		check_refused(&req, &st.refused_src_martian, what);
		if (i == 1)
			continue; /* an NS from :: is duplicate address detection (test_nd) */
		snprintf(what, sizeof(what), "ns from source %u", i);
		ns_frame(&req, 0, srcs[i], sn, self6, i == 4 ? NULL : &peer_mac, 255);
		check_refused(&req, &st.refused_src_martian, what);
	}
}

/* UDP echo from a service's port: echo/chargen loops and reflection into a victim's service. */
static void
test_refuse_udp_port(void)
{
	static const uint16_t refused[] = { 0, 1, 7, 13, 17, 19, 37, 53, 69, 111, 123, 137, 161,
					    389, 1023, 1900, 3702, 5353, 11211 };
	static const uint16_t answered[] = { 1024, 40000, 65535 };
	struct ut_pkt req, want;
	char what[64];

	NEED_PORT();
	for (unsigned int i = 0; i < RTE_DIM(refused); i++) {
		snprintf(what, sizeof(what), "udp echo from port %u", refused[i]);
		udp4_frame(&req, 0, PEER4, SELF4, refused[i], ECHO_PORT, 9, 30, 1);
		check_refused(&req, &st.refused_udp_port, what);
		snprintf(what, sizeof(what), "udp6 echo from port %u", refused[i]);
		udp6_frame(&req, 0, peer6, self6, refused[i], ECHO_PORT, 1, 30, 1);
		check_refused(&req, &st.refused_udp_port, what);
	}
	for (unsigned int i = 0; i < RTE_DIM(answered); i++) {
		snprintf(what, sizeof(what), "udp echo from port %u", answered[i]);
		udp4_frame(&req, 0, PEER4, SELF4, answered[i], ECHO_PORT, 9, 30, 1);
		udp4_frame(&want, 0, SELF4, PEER4, ECHO_PORT, answered[i], 64, 30, 1);
		set_macs(&want, &peer_mac, &self_mac);
		check_layouts(&req, &want, C_UDP, what);
	}
	/* the echo service on another port: its own port is refused, 7 too */
	conf.udp_echo_port = 4000;
	udp4_frame(&req, 0, PEER4, SELF4, 4000, 4000, 9, 30, 1);
	check_refused(&req, &st.refused_udp_port, "udp echo from the echo port 4000");
	udp4_frame(&req, 0, PEER4, SELF4, 7, 4000, 9, 30, 1);
	check_refused(&req, &st.refused_udp_port, "udp echo on 4000 from port 7");
	conf.udp_echo_port = ECHO_PORT;
}

/* IPv4 options: source routes refused; Record Route filled in; others become NOPs. */
static void
test_ip_options(void)
{
	uint8_t lsrr[8] = { 131, 7, 4, 198, 18, 0, 9, 1 };
	uint8_t ssrr[8] = { 137, 7, 4, 198, 18, 0, 9, 0 };
	uint8_t rr[12] = { 7, 11, 4, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
	uint8_t rr_want[12] = { 7, 11, 8, 198, 18, 0, 1, 0, 0, 0, 0, 1 };
	uint8_t rr_full[8] = { 7, 7, 8, 198, 18, 0, 5, 0 };
	uint8_t ts[12] = { 1, 68, 10, 5, 0, 0, 0, 0, 0, 0, 0, 0 };
	uint8_t ts_want[12] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0 };
	uint8_t eol_lsrr[8] = { 0, 131, 7, 4, 198, 18, 0, 9 };
	uint8_t zeros[8] = { 0 };
	uint8_t bad_len[8] = { 1, 7, 9, 4, 0, 0, 0, 0 };
	uint8_t bad_ptr[8] = { 7, 7, 2, 0, 0, 0, 0, 0 };
	uint8_t one_byte[4] = { 1, 1, 1, 68 };
	struct ut_pkt req, want;

	NEED_PORT();
	icmp4_frame(&req, 0, 8, PEER4, SELF4, 8, 17, 56, 0);
	set_opts(&req, lsrr, 8);
	check_refused(&req, &st.refused_source_route, "icmp echo with LSRR");
	icmp4_frame(&req, 0, 8, PEER4, SELF4, 8, 17, 56, 0);
	set_opts(&req, ssrr, 8);
	check_refused(&req, &st.refused_source_route, "icmp echo with SSRR");
	/* Record Route with room: our address recorded, the pointer moved on */
	icmp4_frame(&req, 0, 12, PEER4, SELF4, 8, 17, 56, 0);
	set_opts(&req, rr, 12);
	icmp4_reply(&want, 0, 12, 56);
	set_opts(&want, rr_want, 12);
	check_layouts(&req, &want, C_ICMP, "icmp echo with record route");
	icmp4_frame(&req, 0, 8, PEER4, SELF4, 8, 17, 56, 0);
	set_opts(&req, rr_full, 8);
	icmp4_reply(&want, 0, 8, 56);
	set_opts(&want, rr_full, 8);
	check_layouts(&req, &want, C_ICMP, "icmp echo with a full record route");
	/* a timestamp option is not echoed: NOPs in its place */
	icmp4_frame(&req, 0, 12, PEER4, SELF4, 8, 17, 56, 0);
	set_opts(&req, ts, 12);
	icmp4_reply(&want, 0, 12, 56);
	set_opts(&want, ts_want, 12);
	check_layouts(&req, &want, C_ICMP, "icmp echo with a timestamp option");
	/* after End of Options nothing is read, and nothing is sent back */
	icmp4_frame(&req, 0, 8, PEER4, SELF4, 8, 17, 56, 0);
	set_opts(&req, eol_lsrr, 8);
	icmp4_reply(&want, 0, 8, 56);
	set_opts(&want, zeros, 8);
	check_layouts(&req, &want, C_ICMP, "icmp echo with junk after end of options");
	/* malformed */
	icmp4_frame(&req, 0, 8, PEER4, SELF4, 8, 17, 56, 0);
	set_opts(&req, bad_len, 8);
	check_refused(&req, &st.refused_ip_options, "icmp echo, option running past the header");
	icmp4_frame(&req, 0, 8, PEER4, SELF4, 8, 17, 56, 0);
	set_opts(&req, bad_ptr, 8);
	check_refused(&req, &st.refused_ip_options, "icmp echo, record route pointer 2");
	icmp4_frame(&req, 0, 4, PEER4, SELF4, 8, 17, 56, 0);
	set_opts(&req, one_byte, 4);
	check_refused(&req, &st.refused_ip_options, "icmp echo, option without its length");
}

/* The token bucket alone, on a clock the test drives. */
static void
test_limit_bucket(void)
{
	struct rps_respond_limit l;
	const uint64_t hz = 1000000000, t0 = 5000; /* 1000/s: one reply every 1e6 cycles */
	unsigned int ok = 0;

	rps_respond_limit_init(&l, 1000, 5, hz, t0);
	for (int i = 0; i < 10; i++)
		ok += (unsigned int)rps_respond_limit_take(&l, t0);
	CU_ASSERT_EQUAL(ok, 5);                                 /* the burst, then nothing */
	CU_ASSERT_EQUAL(rps_respond_limit_take(&l, t0 + 999999), 0);
	CU_ASSERT_EQUAL(rps_respond_limit_take(&l, t0 + 1000000), 1); /* one interval: one */
	CU_ASSERT_EQUAL(rps_respond_limit_take(&l, t0 + 1000000), 0);
	CU_ASSERT_EQUAL(rps_respond_limit_take(&l, t0 + 2500000), 1); /* 1.5: one, half kept */
	CU_ASSERT_EQUAL(rps_respond_limit_take(&l, t0 + 2999999), 0);
	CU_ASSERT_EQUAL(rps_respond_limit_take(&l, t0 + 3000000), 1);
	/* a long silence refills the burst, no more */
	ok = 0;
	for (int i = 0; i < 10; i++)
		ok += (unsigned int)rps_respond_limit_take(&l, t0 + 100 * hz);
	CU_ASSERT_EQUAL(ok, 5);
	/* a clock far ahead does not overflow the credit; one that goes back adds nothing */
	ok = 0;
	for (int i = 0; i < 10; i++)
		ok += (unsigned int)rps_respond_limit_take(&l, UINT64_MAX - 1);
	CU_ASSERT_EQUAL(ok, 5);
	CU_ASSERT_EQUAL(rps_respond_limit_take(&l, t0), 0);
	/* 1000 replies a second over 10 s: 10 000 + the burst */
	rps_respond_limit_init(&l, 1000, 5, hz, 0);
	ok = 0;
	for (uint64_t t = 0; t <= 10 * hz; t += hz / 4000) /* offered 4000/s */
		ok += (unsigned int)rps_respond_limit_take(&l, t);
	CU_ASSERT_EQUAL(ok, 10000 + 5);
	/* rate 0: no limit; burst 0 taken as 1; a rate above hz costs a cycle */
	rps_respond_limit_init(&l, 0, 5, hz, 0);
	for (int i = 0; i < 1000; i++)
		CU_ASSERT_EQUAL(rps_respond_limit_take(&l, 0), 1);
	rps_respond_limit_init(&l, 1000, 0, hz, 0);
	CU_ASSERT_EQUAL(rps_respond_limit_take(&l, 0), 1);
	CU_ASSERT_EQUAL(rps_respond_limit_take(&l, 0), 0);
	rps_respond_limit_init(&l, 100, 3, 10, 0);
	CU_ASSERT_EQUAL(l.cost, 1);
}

/* The stage under its bucket: echoes beyond the burst are refused (rate_limit) and passed
 * on; ARP and ND are always answered; a refused request spends no token. */
static void
test_limit_stage(void)
{
	enum { N = 12 };
	static const unsigned int pass[] = { 3, 5, 6, 7, 9, 10, 11 };
	struct rps_stage_ctx c = { .st = &st, .respond = &conf, .reply_txq = replies };
	struct ut_pkt req[N];
	struct rte_mbuf *pkts[N], *orig[N], *out[BURST];
	uint8_t sn[16];
	uint16_t k, ns;

	NEED_PORT();
	solicited_node(sn, self6);
	/* 10 replies a second on a 1000 Hz clock: one every 100 ticks, bursts of 3 */
	c.hz = 1000;
	c.now = 7;
	rps_respond_limit_init(&c.respond_limit, 10, 3, c.hz, c.now);
	for (int i = 0; i < 4; i++)
		icmp4_frame(&req[i], 0, 0, PEER4, SELF4, 8, 17, 56, 0);
	arp_frame(&req[4], 0, 1, &bcast_mac, &peer_mac, &peer_mac, PEER4, &zero_mac, SELF4, 60);
	for (int i = 5; i < 8; i++)
		echo6_frame(&req[i], 0, peer6, self6, 128, 3, 56);
	ns_frame(&req[8], 0, peer6, sn, self6, &peer_mac, 255);
	for (int i = 9; i < N; i++)
		udp4_frame(&req[i], 0, PEER4, SELF4, 40000, ECHO_PORT, 9, 30, 1);
	for (int i = 0; i < N; i++) {
		pkts[i] = ut_mbuf(req[i].b, req[i].len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(pkts[i]);
		orig[i] = pkts[i];
	}
	reset();
	arrive(pkts, N, IN_PORT);
	CU_ASSERT_EQUAL_FATAL(rps_stage_parse(&c, pkts, N), N);
	k = rps_stage_respond(&c, pkts, N);
	rps_txq_flush(&txq);
	ns = sent(out, BURST);
	/* 3 echoes, ARP, NA: 5 sent; 9 echoes refused and passed on */
	CU_ASSERT_EQUAL(ns, 5);
	CU_ASSERT_EQUAL(k, N - 5);
	CU_ASSERT_EQUAL(st.icmp_echo_replies, 3);
	CU_ASSERT_EQUAL(st.arp_replies, 1);
	CU_ASSERT_EQUAL(st.nd_replies, 1);
	CU_ASSERT_EQUAL(st.icmp6_echo_replies + st.udp_echo_replies, 0);
	CU_ASSERT_EQUAL(st.refused_rate_limit, N - 5);
	CU_ASSERT_EQUAL(refused_total(), N - 5);
	CU_ASSERT_EQUAL(st.processed, 5);
	for (uint16_t i = 0; i < RTE_MIN(k, (uint16_t)RTE_DIM(pass)); i++)
		CU_ASSERT_PTR_EQUAL(pkts[i], orig[pass[i]]); /* in order, untouched */
	rte_pktmbuf_free_bulk(pkts, k);
	rte_pktmbuf_free_bulk(out, ns);

	/* 150 ticks later: one token (and half of the next); a refused request takes none */
	c.now += 150;
	icmp4_frame(&req[0], 0, 0, 0x7f000001, SELF4, 8, 17, 56, 0);     /* loopback: refused */
	udp4_frame(&req[1], 0, PEER4, SELF4, 40000, ECHO_PORT, 9, 30, 1);
	echo6_frame(&req[2], 0, peer6, self6, 128, 3, 56);
	for (int i = 0; i < 3; i++) {
		pkts[i] = ut_mbuf(req[i].b, req[i].len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(pkts[i]);
	}
	reset();
	arrive(pkts, 3, IN_PORT);
	CU_ASSERT_EQUAL_FATAL(rps_stage_parse(&c, pkts, 3), 3);
	k = rps_stage_respond(&c, pkts, 3);
	rps_txq_flush(&txq);
	ns = sent(out, BURST);
	CU_ASSERT_EQUAL(ns, 1);
	CU_ASSERT_EQUAL(k, 2);
	CU_ASSERT_EQUAL(st.udp_echo_replies, 1);
	CU_ASSERT_EQUAL(st.refused_src_martian, 1);
	CU_ASSERT_EQUAL(st.refused_rate_limit, 1);
	rte_pktmbuf_free_bulk(pkts, k);
	rte_pktmbuf_free_bulk(out, ns);

	/* 50 ticks more: the half token became one */
	c.now += 50;
	echo6_frame(&req[0], 0, peer6, self6, 128, 3, 56);
	pkts[0] = ut_mbuf(req[0].b, req[0].len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pkts[0]);
	reset();
	arrive(pkts, 1, IN_PORT);
	CU_ASSERT_EQUAL_FATAL(rps_stage_parse(&c, pkts, 1), 1);
	CU_ASSERT_EQUAL(rps_stage_respond(&c, pkts, 1), 0);
	rps_txq_flush(&txq);
	ns = sent(out, BURST);
	CU_ASSERT_EQUAL(ns, 1);
	CU_ASSERT_EQUAL(st.icmp6_echo_replies, 1);
	CU_ASSERT_EQUAL(refused_total(), 0);
	rte_pktmbuf_free_bulk(out, ns);
}

/*
 * The TX queue's per-port counts (count_sent() adds them by runs of one ingress port): packets
 * from three ports in runs of 1 to 9, over several full buffers and a partial one, must each
 * count under their own port, and every one in processed and tx_packets.
 */
static void
test_txq_port_counts(void)
{
	static const uint16_t ports[] = { 3, 5, 7 };
	uint64_t want[3] = { 0 }, total = 0;
	struct rte_mbuf *out[BURST];
	unsigned int run = 0, rx = 0;

	NEED_PORT();
	reset();
	CU_ASSERT_EQUAL_FATAL(rps_stats_set_ports(&st, ports, 3), 0);
	for (unsigned int i = 0; total < 3 * BURST + 5; i++) {
		const unsigned int p = (i * 7 + run) % 3, len = 1 + (i * 5) % 9;

		for (unsigned int k = 0; k < len && total < 3 * BURST + 5; k++, total++) {
			struct ut_pkt f;
			struct rte_mbuf *m;

			ut_pkt_init(&f);
			ut_put_eth(&f, RTE_ETHER_TYPE_ARP);
			ut_put(&f, NULL, 46);
			m = ut_mbuf(f.b, f.len);
			CU_ASSERT_PTR_NOT_NULL_FATAL(m);
			m->port = ports[p];
			rps_txq_send(&txq, m);
			want[p]++;
			uint16_t r = sent(out, BURST); /* keep the ring from filling */

			rx += r;
			rte_pktmbuf_free_bulk(out, r);
		}
		run++;
	}
	rps_txq_flush(&txq);
	for (uint16_t r; (r = sent(out, BURST)) != 0; rx += r)
		rte_pktmbuf_free_bulk(out, r);
	CU_ASSERT_EQUAL(rx, total);
	CU_ASSERT_EQUAL(st.processed, total);
	CU_ASSERT_EQUAL(st.tx_packets, total);
	for (unsigned int p = 0; p < 3; p++) {
		const struct rps_port_stats *ps = &st.port[rps_stats_slot(&st, ports[p])];

		CU_ASSERT_EQUAL(ps->processed, want[p]);
		CU_ASSERT_EQUAL(ps->forwarded, want[p]);
	}
	CU_ASSERT_EQUAL(rps_stats_set_ports(&st, NULL, 0), 0);
}

int
main(int argc, char **argv)
{
	CU_TestInfo tests[] = {
		{ "arp", test_arp },
		{ "icmp4_echo", test_icmp4_echo },
		{ "icmp6_echo", test_icmp6_echo },
		{ "nd", test_nd },
		{ "udp_echo", test_udp_echo },
		{ "vlan_echo", test_vlan_echo },
		{ "mixed_burst", test_mixed_burst },
		{ "not_configured", test_not_configured },
		{ "ports", test_ports },
		{ "shared_data", test_shared_data },
		{ "random_replies", test_random_replies },
		{ "refuse_mac_src", test_refuse_mac_src },
		{ "refuse_src4", test_refuse_src4 },
		{ "refuse_src6", test_refuse_src6 },
		{ "refuse_udp_port", test_refuse_udp_port },
		{ "ip_options", test_ip_options },
		{ "limit_bucket", test_limit_bucket },
		{ "limit_stage", test_limit_stage },
		{ "txq_port_counts", test_txq_port_counts },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "respond", tests);
}
