/* SPDX-License-Identifier: BSD-3-Clause */
/* test_flow.c: the flow stage (lib/stages/flow.c): keys, TCP state, sequences, ageing, dump. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf_ptype.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "crc_collide.h"
#include "rps_consumer_ctl.h"
#include "rps_flow.h"
#include "rps_siphash.h"
#include "rps_stage.h"
#include "test_common.h"

/* A 1 MHz "TSC": 1 ms is 1000 ticks. */
#define HZ 1000000u
#define MS(x) ((uint64_t)(x) * (HZ / 1000))
#define T0 MS(10000)

#define SYN RTE_TCP_SYN_FLAG
#define ACK RTE_TCP_ACK_FLAG
#define FIN RTE_TCP_FIN_FLAG
#define RST RTE_TCP_RST_FLAG
#define PSH RTE_TCP_PSH_FLAG

#define CLI UT_IP4(1)
#define SRV UT_IP4(2)
#define CPORT 40000
#define SPORT 80

/* One test's table, context and counters. */
struct fx {
	struct rps_lcore_stats st;
	struct rps_stage_ctx c;
	struct rps_flow_table *t;
};

static int
fx_init_log(struct fx *f, uint32_t size, uint32_t idle_ms, uint32_t closed_ms, uint32_t log)
{
	static unsigned int seq;
	struct rps_flow_conf conf = {
		.size = size, .idle_timeout_ms = idle_ms, .closed_timeout_ms = closed_ms,
		.log_size = log,
	};
	char name[32];

	memset(f, 0, sizeof(*f));
	snprintf(name, sizeof(name), "ut_flows_%u", seq++);
	f->t = rps_flow_table_create(&conf, name, SOCKET_ID_ANY);
	if (f->t == NULL)
		return -1;
	f->c.st = &f->st;
	f->c.hz = HZ;
	f->c.now = T0;
	f->c.flows = f->t;
	return 0;
}

static void
fx_fini(struct fx *f)
{
	rps_flow_table_free(f->t);
	f->t = NULL;
}

#define FX_INIT(f, size, idle, closed) \
	CU_ASSERT_EQUAL_FATAL(fx_init_log(f, size, idle, closed, 0), 0)

/* A packet to build: v4 or v6 (addresses: UT_IP4(n) or 2001:db8::n), TCP or UDP. */
struct seg {
	int v6;
	uint32_t src, dst;   /* UT_IP4() values; for v6 the low bits give 2001:db8::n */
	uint16_t sport, dport;
	uint8_t proto;
	uint8_t flags;
	uint32_t seq;
	uint16_t len;        /* payload bytes */
	uint8_t pad;         /* Ethernet padding after the IP datagram */
};

static unsigned int split_toggle;

static uint16_t
frame_len(const struct seg *s)
{
	return (uint16_t)(RTE_ETHER_HDR_LEN + (s->v6 ? 40 : 20) +
			  (s->proto == IPPROTO_TCP ? 20 : 8) + s->len);
}

/* Build @p s as an mbuf with l2/l3 lengths and packet_type set as the parse stage would;
 * every other one is a two-segment chain split inside the transport header. */
static struct rte_mbuf *
mk(const struct seg *s)
{
	struct ut_pkt p;
	struct rte_mbuf *m;
	uint16_t l4;

	ut_pkt_init(&p);
	if (s->v6) {
		uint8_t a[16], b[16];

		ut_ip6(a, 0, s->src & 0xffff);
		ut_ip6(b, 0, s->dst & 0xffff);
		ut_put_eth(&p, RTE_ETHER_TYPE_IPV6);
		ut_put_ipv6(&p, a, b, s->proto);
	} else {
		ut_put_eth(&p, RTE_ETHER_TYPE_IPV4);
		ut_put_ipv4(&p, s->src, s->dst, s->proto, 0, 0);
	}
	l4 = p.len;
	if (s->proto == IPPROTO_TCP) {
		struct rte_tcp_hdr *th;

		ut_put_tcp(&p, s->sport, s->dport);
		th = (struct rte_tcp_hdr *)(p.b + l4);
		th->sent_seq = rte_cpu_to_be_32(s->seq);
		th->tcp_flags = s->flags;
	} else {
		ut_put_udp(&p, s->sport, s->dport);
	}
	for (uint16_t i = 0; i < s->len; i++)
		*(uint8_t *)ut_put(&p, NULL, 1) = (uint8_t)(0x41 + i % 26);
	ut_pkt_finish(&p);
	if (s->proto == IPPROTO_UDP)
		((struct rte_udp_hdr *)(p.b + l4))->dgram_len = rte_cpu_to_be_16(p.len - l4);
	ut_put(&p, NULL, s->pad);
	if (split_toggle++ & 1)
		m = ut_mbuf_split(p.b, p.len, (uint16_t)(l4 + 6));
	else
		m = ut_mbuf_exact(p.b, p.len);
	if (m == NULL)
		return NULL;
	m->l2_len = RTE_ETHER_HDR_LEN;
	m->l3_len = s->v6 ? 40 : 20;
	m->packet_type = RTE_PTYPE_L2_ETHER |
			 (s->v6 ? RTE_PTYPE_L3_IPV6 : RTE_PTYPE_L3_IPV4) |
			 (s->proto == IPPROTO_TCP ? RTE_PTYPE_L4_TCP : RTE_PTYPE_L4_UDP);
	return m;
}

/* Run the stage over @p n packets; check the accounting, free what it kept. @return kept. */
static uint16_t
run(struct fx *f, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *in[600];
	uint64_t drops = f->st.dropped[RPS_DROP_FLOW_TABLE_FULL];
	uint16_t kept;
	unsigned int k = 0;

	CU_ASSERT_FATAL(n <= RTE_DIM(in));
	memcpy(in, pkts, n * sizeof(*pkts));
	kept = rps_stage_flow(&f->c, pkts, n);
	CU_ASSERT_EQUAL(kept + (f->st.dropped[RPS_DROP_FLOW_TABLE_FULL] - drops), n);
	/* kept packets are a subsequence of the input, in order */
	for (unsigned int i = 0; i < n && k < kept; i++)
		if (in[i] == pkts[k])
			k++;
	CU_ASSERT_EQUAL(k, kept);
	rte_pktmbuf_free_bulk(pkts, kept);
	return kept;
}

/* Send one segment. */
static uint16_t
send1(struct fx *f, const struct seg *s)
{
	struct rte_mbuf *m = mk(s);

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	return run(f, &m, 1);
}

/* The flow @p s belongs to. */
static int
get(struct fx *f, const struct seg *s, struct rps_flow_summary *out)
{
	struct rte_mbuf *m = mk(s);
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	rc = rps_flow_table_lookup(f->t, m, out);
	rte_pktmbuf_free(m);
	return rc;
}

/* client -> server and server -> client TCP segments */
static struct seg
c2s(uint8_t flags, uint32_t seq, uint16_t len)
{
	return (struct seg){ 0, CLI, SRV, CPORT, SPORT, IPPROTO_TCP, flags, seq, len, 0 };
}

static struct seg
s2c(uint8_t flags, uint32_t seq, uint16_t len)
{
	return (struct seg){ 0, SRV, CLI, SPORT, CPORT, IPPROTO_TCP, flags, seq, len, 0 };
}

static enum rps_flow_state
state_of(struct fx *f)
{
	struct rps_flow_summary s;
	struct seg k = c2s(ACK, 0, 0);

	if (get(f, &k, &s) != 0)
		return RPS_FLOW_STATE_MAX;
	return s.state;
}

/* SYN, SYN-ACK, ACK from client 1000 / server 5000. */
static void
handshake(struct fx *f)
{
	struct seg s;

	s = c2s(SYN, 1000, 0);
	send1(f, &s);
	s = s2c(SYN | ACK, 5000, 0);
	send1(f, &s);
	s = c2s(ACK, 1001, 0);
	send1(f, &s);
}

static void
test_handshake(void)
{
	struct fx f;
	struct rps_flow_summary s;
	struct seg p;
	uint64_t bytes = 0;

	FX_INIT(&f, 64, 1000, 100);
	p = c2s(SYN, 1000, 0);
	CU_ASSERT_EQUAL(send1(&f, &p), 1);
	bytes += frame_len(&p);
	CU_ASSERT_EQUAL(state_of(&f), RPS_FLOW_SYN_SENT);
	f.c.now += MS(1);
	p = s2c(SYN | ACK, 5000, 0);
	CU_ASSERT_EQUAL(send1(&f, &p), 1);
	bytes += frame_len(&p);
	CU_ASSERT_EQUAL(state_of(&f), RPS_FLOW_SYN_RECV);
	f.c.now += MS(1);
	p = c2s(ACK, 1001, 0);
	send1(&f, &p);
	bytes += frame_len(&p);
	CU_ASSERT_EQUAL(state_of(&f), RPS_FLOW_ESTABLISHED);
	/* in-order data both ways, pure ACKs in between */
	p = c2s(ACK | PSH, 1001, 100);
	send1(&f, &p);
	bytes += frame_len(&p);
	p = s2c(ACK, 5001, 0);
	send1(&f, &p);
	bytes += frame_len(&p);
	p = c2s(ACK | PSH, 1101, 100);
	send1(&f, &p);
	bytes += frame_len(&p);
	p = s2c(ACK | PSH, 5001, 50);
	send1(&f, &p);
	bytes += frame_len(&p);
	p = c2s(ACK, 1201, 0);
	send1(&f, &p);
	bytes += frame_len(&p);

	/* one flow, either direction finds it, oriented as the first packet (client) */
	CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(s.family, 4);
	CU_ASSERT_EQUAL(s.proto, IPPROTO_TCP);
	CU_ASSERT_EQUAL(s.sport, CPORT);
	CU_ASSERT_EQUAL(s.dport, SPORT);
	CU_ASSERT_EQUAL(s.src[0], 198);
	CU_ASSERT_EQUAL(s.src[3], 1);
	CU_ASSERT_EQUAL(s.dst[3], 2);
	CU_ASSERT_EQUAL(s.packets, 8);
	CU_ASSERT_EQUAL(s.bytes, bytes);
	CU_ASSERT_EQUAL(s.state, RPS_FLOW_ESTABLISHED);
	CU_ASSERT_EQUAL(s.out_of_order, 0);
	CU_ASSERT_EQUAL(s.retransmit, 0);
	CU_ASSERT_EQUAL(s.first_seen, T0);
	CU_ASSERT_EQUAL(s.last_seen, T0 + MS(2));
	p = s2c(ACK, 0, 0);
	CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(s.sport, CPORT);
	CU_ASSERT_EQUAL(f.st.flows_created, 1);
	CU_ASSERT_EQUAL(f.st.flows_active, 1);
	CU_ASSERT_EQUAL(f.st.flows_expired, 0);
	CU_ASSERT_EQUAL(f.st.out_of_order, 0);
	CU_ASSERT_EQUAL(f.st.retransmit, 0);
	CU_ASSERT_EQUAL(rps_stats_dropped_total(&f.st), 0);
	CU_ASSERT_EQUAL(rps_flow_table_count(f.t), 1);
	fx_fini(&f);
}

static void
test_fin_teardown(void)
{
	struct fx f;
	struct rps_flow_summary s;
	struct seg p;

	FX_INIT(&f, 64, 1000, 100);
	handshake(&f);
	p = c2s(ACK | PSH, 1001, 10);
	send1(&f, &p);
	p = c2s(FIN | ACK, 1011, 0);
	send1(&f, &p);
	CU_ASSERT_EQUAL(state_of(&f), RPS_FLOW_FIN_WAIT);
	p = s2c(ACK, 5001, 0);
	send1(&f, &p);
	CU_ASSERT_EQUAL(state_of(&f), RPS_FLOW_FIN_WAIT);
	/* the server's FIN closes it; its FIN follows in sequence (5001) */
	p = s2c(FIN | ACK, 5001, 0);
	send1(&f, &p);
	CU_ASSERT_EQUAL(state_of(&f), RPS_FLOW_CLOSED);
	/* the last ACK (seq after the client's FIN) leaves it closed */
	p = c2s(ACK, 1012, 0);
	send1(&f, &p);
	CU_ASSERT_EQUAL(state_of(&f), RPS_FLOW_CLOSED);
	/* a retransmitted FIN occupies sequence space already seen */
	p = s2c(FIN | ACK, 5001, 0);
	send1(&f, &p);
	CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(s.state, RPS_FLOW_CLOSED);
	CU_ASSERT_EQUAL(s.packets, 9);
	CU_ASSERT_EQUAL(s.out_of_order, 0);
	CU_ASSERT_EQUAL(s.retransmit, 1);
	/* a new SYN on the closed tuple starts over */
	p = c2s(SYN, 777777, 0);
	send1(&f, &p);
	CU_ASSERT_EQUAL(state_of(&f), RPS_FLOW_SYN_SENT);
	p = c2s(ACK, 777778, 0);
	send1(&f, &p);
	p = c2s(ACK, 777778, 5);
	send1(&f, &p);
	CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(s.state, RPS_FLOW_ESTABLISHED);
	CU_ASSERT_EQUAL(s.packets, 12);
	CU_ASSERT_EQUAL(s.out_of_order, 0);
	CU_ASSERT_EQUAL(s.retransmit, 1);
	CU_ASSERT_EQUAL(f.st.flows_created, 1);
	fx_fini(&f);
}

static void
test_rst(void)
{
	struct fx f;
	struct rps_flow_summary s;
	struct seg p;

	FX_INIT(&f, 64, 1000, 100);
	handshake(&f);
	CU_ASSERT_EQUAL(state_of(&f), RPS_FLOW_ESTABLISHED);
	/* a RST with any sequence number closes and counts nothing */
	p = s2c(RST, 123, 0);
	send1(&f, &p);
	CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(s.state, RPS_FLOW_CLOSED);
	CU_ASSERT_EQUAL(s.packets, 4);
	CU_ASSERT_EQUAL(s.out_of_order + s.retransmit, 0);
	/* a RST carrying data (allowed, RFC 9293 3.5.3), behind or ahead: still no verdict */
	p = s2c(RST | ACK, 4000, 10);
	send1(&f, &p);
	p = s2c(RST | ACK, 9000, 10);
	send1(&f, &p);
	CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(s.out_of_order + s.retransmit, 0);
	CU_ASSERT_EQUAL(f.st.out_of_order + f.st.retransmit, 0);
	/* a RST answering a SYN closes too */
	p = (struct seg){ 0, CLI, SRV, CPORT + 1, SPORT, IPPROTO_TCP, SYN, 1, 0, 0 };
	send1(&f, &p);
	p = (struct seg){ 0, SRV, CLI, SPORT, CPORT + 1, IPPROTO_TCP, RST | ACK, 0, 0, 0 };
	send1(&f, &p);
	CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(s.state, RPS_FLOW_CLOSED);
	CU_ASSERT_EQUAL(s.sport, CPORT + 1);
	CU_ASSERT_EQUAL(s.packets, 2);
	CU_ASSERT_EQUAL(f.st.flows_created, 2);
	CU_ASSERT_EQUAL(f.st.flows_active, 2);
	fx_fini(&f);
}

static void
test_midstream(void)
{
	struct fx f;
	struct rps_flow_summary s;
	struct seg p;

	FX_INIT(&f, 64, 1000, 100);
	/* the first packet seen is server data */
	p = s2c(ACK | PSH, 900000, 400);
	send1(&f, &p);
	CU_ASSERT_EQUAL(state_of(&f), RPS_FLOW_ESTABLISHED);
	p = s2c(ACK | PSH, 900400, 400);
	send1(&f, &p);
	p = c2s(ACK, 42, 0);
	send1(&f, &p);
	p = c2s(ACK | PSH, 42, 7);
	send1(&f, &p);
	p = s2c(ACK, 900800, 400);
	send1(&f, &p);
	CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(s.state, RPS_FLOW_ESTABLISHED);
	CU_ASSERT_EQUAL(s.sport, SPORT); /* the server sent first */
	CU_ASSERT_EQUAL(s.dport, CPORT);
	CU_ASSERT_EQUAL(s.src[3], 2);
	CU_ASSERT_EQUAL(s.packets, 5);
	CU_ASSERT_EQUAL(s.out_of_order, 0);
	CU_ASSERT_EQUAL(s.retransmit, 0);
	/* a segment without ACK, SYN or RST does not establish a new pickup */
	p = (struct seg){ 0, CLI, SRV, 1234, 4321, IPPROTO_TCP, PSH, 5, 10, 0 };
	send1(&f, &p);
	CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(s.state, RPS_FLOW_NEW);
	fx_fini(&f);
}

static void
test_retransmit(void)
{
	struct fx f;
	struct rps_flow_summary s;
	struct seg p;

	FX_INIT(&f, 64, 1000, 100);
	handshake(&f);
	p = c2s(ACK, 1001, 100);
	send1(&f, &p);
	p = c2s(ACK, 1101, 100);
	send1(&f, &p);
	CU_ASSERT_EQUAL(f.st.retransmit, 0);
	p = c2s(ACK, 1001, 100); /* a whole repeat */
	send1(&f, &p);
	CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(s.retransmit, 1);
	CU_ASSERT_EQUAL(s.out_of_order, 0);
	CU_ASSERT_EQUAL(f.st.retransmit, 1);
	/* ending exactly at next: a retransmit */
	p = c2s(ACK, 1151, 50);
	send1(&f, &p);
	CU_ASSERT_EQUAL(f.st.retransmit, 2);
	/* partial overlap (1151..1250, next 1201): a retransmit; next moves to 1251 */
	p = c2s(ACK, 1151, 100);
	send1(&f, &p);
	CU_ASSERT_EQUAL(f.st.retransmit, 3);
	p = c2s(ACK, 1251, 10);
	send1(&f, &p);
	/* a pure ACK with an old sequence number never counts; nor a duplicate ACK */
	p = c2s(ACK, 1001, 0);
	send1(&f, &p);
	send1(&f, &p);
	p = s2c(ACK, 5001, 0);
	send1(&f, &p);
	send1(&f, &p);
	CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(s.retransmit, 3);
	CU_ASSERT_EQUAL(s.out_of_order, 0);
	CU_ASSERT_EQUAL(f.st.retransmit, 3);
	CU_ASSERT_EQUAL(f.st.out_of_order, 0);
	/* a retransmitted SYN is a retransmit as well */
	p = (struct seg){ 0, CLI, SRV, 5555, 80, IPPROTO_TCP, SYN, 70, 0, 0 };
	send1(&f, &p);
	send1(&f, &p);
	CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(s.retransmit, 1);
	CU_ASSERT_EQUAL(f.st.retransmit, 4);
	fx_fini(&f);
}

/* Reordering: 2 before 1 counts out_of_order for 2, then retransmit for 1 (documented). */
static void
test_reorder(void)
{
	struct fx f;
	struct rps_flow_summary s;
	struct rte_mbuf *b[3];
	struct seg p;

	FX_INIT(&f, 64, 1000, 100);
	handshake(&f);
	p = c2s(ACK, 1001, 100);
	b[0] = mk(&p);
	p = c2s(ACK, 1201, 100); /* 1101..1200 still missing */
	b[1] = mk(&p);
	p = c2s(ACK, 1101, 100);
	b[2] = mk(&p);
	CU_ASSERT_FATAL(b[0] && b[1] && b[2]);
	CU_ASSERT_EQUAL(run(&f, b, 3), 3); /* one burst */
	CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(s.out_of_order, 1);
	CU_ASSERT_EQUAL(s.retransmit, 1);
	CU_ASSERT_EQUAL(f.st.out_of_order, 1);
	CU_ASSERT_EQUAL(f.st.retransmit, 1);
	/* next is 1301: in order again */
	p = c2s(ACK, 1301, 100);
	send1(&f, &p);
	CU_ASSERT_EQUAL(f.st.out_of_order, 1);
	CU_ASSERT_EQUAL(f.st.retransmit, 1);
	/* a gap, then a pure ACK beyond next: the ACK counts nothing */
	p = c2s(ACK, 9999, 0);
	send1(&f, &p);
	CU_ASSERT_EQUAL(f.st.out_of_order, 1);
	fx_fini(&f);
}

static void
test_wraparound(void)
{
	struct fx f;
	struct rps_flow_summary s;
	struct seg p;

	FX_INIT(&f, 64, 1000, 100);
	/* SYN at 2^32 - 1: the data starts at 0 */
	p = c2s(SYN, 0xffffffffu, 0);
	send1(&f, &p);
	p = s2c(SYN | ACK, 0xfffffff0u, 0);
	send1(&f, &p);
	p = c2s(ACK, 0, 100);
	send1(&f, &p);
	p = c2s(ACK, 100, 100);
	send1(&f, &p);
	/* the server's data wraps inside one segment: 0xfffffff1 + 100 */
	p = s2c(ACK, 0xfffffff1u, 100);
	send1(&f, &p);
	p = s2c(ACK, 0x55, 100);
	send1(&f, &p);
	CU_ASSERT_EQUAL(f.st.out_of_order, 0);
	CU_ASSERT_EQUAL(f.st.retransmit, 0);
	/* a repeat from before the wrap is a retransmit, not a jump ahead */
	p = s2c(ACK, 0xfffffff1u, 100);
	send1(&f, &p);
	CU_ASSERT_EQUAL(f.st.retransmit, 1);
	CU_ASSERT_EQUAL(f.st.out_of_order, 0);
	/* a jump across 2^32: next is 0xb9; 0x100 is ahead */
	p = s2c(ACK, 0x100, 10);
	send1(&f, &p);
	CU_ASSERT_EQUAL(f.st.out_of_order, 1);
	/* and the client side, far from its own wrap, never counted */
	CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(s.out_of_order, 1);
	CU_ASSERT_EQUAL(s.retransmit, 1);
	CU_ASSERT_EQUAL(s.state, RPS_FLOW_ESTABLISHED);
	fx_fini(&f);
}

/* Both directions share a flow; their sequence spaces are independent even when they
 * overlap numerically. */
static void
test_directions(void)
{
	struct fx f;
	struct rps_flow_summary s;
	struct rte_mbuf *b[8];
	struct seg p[8];
	uint64_t bytes = 0;

	FX_INIT(&f, 64, 1000, 100);
	p[0] = c2s(ACK, 1000, 100);
	p[1] = s2c(ACK, 1000, 300);  /* same numbers, other direction: its own first segment */
	p[2] = c2s(ACK, 1100, 100);
	p[3] = s2c(ACK, 1300, 300);
	p[4] = c2s(ACK, 1200, 100);
	p[5] = s2c(ACK, 1600, 300);
	p[6] = s2c(ACK, 1300, 300);  /* server retransmit */
	p[7] = c2s(ACK, 1400, 100);  /* client out of order (1300 missing) */
	for (int i = 0; i < 8; i++) {
		b[i] = mk(&p[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b[i]);
		bytes += frame_len(&p[i]);
	}
	CU_ASSERT_EQUAL(run(&f, b, 8), 8);
	CU_ASSERT_EQUAL_FATAL(get(&f, &p[0], &s), 0);
	CU_ASSERT_EQUAL(s.packets, 8);
	CU_ASSERT_EQUAL(s.bytes, bytes);
	CU_ASSERT_EQUAL(s.retransmit, 1);
	CU_ASSERT_EQUAL(s.out_of_order, 1);
	CU_ASSERT_EQUAL(f.st.flows_created, 1);
	CU_ASSERT_EQUAL(rps_flow_table_count(f.t), 1);
	/* same addresses, swapped ports: a different flow */
	p[0].sport = SPORT;
	p[0].dport = CPORT;
	CU_ASSERT_EQUAL(get(&f, &p[0], &s), -ENOENT);
	fx_fini(&f);
}

/* A direction of @p s is @p pk packets, @p by bytes, @p flags. */
static void
check_dir(const struct rps_flow_summary *s, enum rps_flow_dir d, uint64_t pk, uint64_t by,
	  uint8_t flags)
{
	CU_ASSERT_EQUAL(s->dir[d].packets, pk);
	CU_ASSERT_EQUAL(s->dir[d].bytes, by);
	CU_ASSERT_EQUAL(s->dir[d].flags, flags);
	if (s->dir[d].packets != pk || s->dir[d].bytes != by || s->dir[d].flags != flags)
		printf("\n  %s: %" PRIu64 " packets, %" PRIu64 " bytes, flags %#x; want %" PRIu64
		       ", %" PRIu64 ", %#x\n", d == RPS_FLOW_ORIG ? "orig" : "reply",
		       s->dir[d].packets, s->dir[d].bytes, s->dir[d].flags, pk, by, flags);
}

/*
 * A whole TCP conversation through one table: SYN, SYN-ACK, ACK, data both ways, a FIN each
 * way and the last ACK. One entry: orig is the client (its SYN came first), packets and bytes
 * each way exact and summing to the totals, flags each way exact; the dump shows both.
 */
static void
test_conversation(void)
{
	struct fx f;
	struct rps_flow_summary s;
	struct seg cs[] = {
		c2s(SYN, 1000, 0), c2s(ACK, 1001, 0), c2s(ACK | PSH, 1001, 100),
		c2s(ACK | PSH, 1101, 200), c2s(ACK, 1301, 0), c2s(FIN | ACK, 1301, 0),
		c2s(ACK, 1302, 0),
	};
	struct seg ss[] = {
		s2c(SYN | ACK, 5000, 0), s2c(ACK, 5001, 0), s2c(ACK | PSH, 5001, 300),
		s2c(FIN | ACK, 5301, 0),
	};
	/* the order on the wire: index into cs (>= 0) or ss (-1 - i) */
	const int order[] = { 0, -1, 1, 2, -2, 3, -3, 4, 5, -4, 6 };
	uint64_t cb = 0, sb = 0;
	char *buf = NULL, want[256];
	size_t len = 0;
	FILE *mf;

	FX_INIT(&f, 64, 1000, 100);
	for (unsigned int i = 0; i < RTE_DIM(order); i++) {
		const struct seg *p = order[i] >= 0 ? &cs[order[i]] : &ss[-1 - order[i]];

		CU_ASSERT_EQUAL(send1(&f, p), 1);
		*(order[i] >= 0 ? &cb : &sb) += frame_len(p);
	}
	CU_ASSERT_EQUAL(rps_flow_table_count(f.t), 1);
	CU_ASSERT_EQUAL(f.st.flows_created, 1);
	CU_ASSERT_EQUAL_FATAL(get(&f, &ss[0], &s), 0);
	CU_ASSERT_EQUAL(s.sport, CPORT);
	CU_ASSERT_EQUAL(s.src[3], 1);
	CU_ASSERT_EQUAL(s.state, RPS_FLOW_CLOSED);
	check_dir(&s, RPS_FLOW_ORIG, RTE_DIM(cs), cb, RPS_FLOW_F_SYN | RPS_FLOW_F_FIN);
	check_dir(&s, RPS_FLOW_REPLY, RTE_DIM(ss), sb, RPS_FLOW_F_SYNACK | RPS_FLOW_F_FIN);
	CU_ASSERT_EQUAL(s.packets, RTE_DIM(cs) + RTE_DIM(ss));
	CU_ASSERT_EQUAL(s.bytes, cb + sb);
	CU_ASSERT_EQUAL(s.out_of_order + s.retransmit, 0);
	/* a RST from the server is the server's flag only */
	ss[0] = s2c(RST | ACK, 5302, 0);
	send1(&f, &ss[0]);
	sb += frame_len(&ss[0]);
	CU_ASSERT_EQUAL_FATAL(get(&f, &cs[0], &s), 0);
	check_dir(&s, RPS_FLOW_ORIG, RTE_DIM(cs), cb, RPS_FLOW_F_SYN | RPS_FLOW_F_FIN);
	check_dir(&s, RPS_FLOW_REPLY, RTE_DIM(ss) + 1, sb,
		  RPS_FLOW_F_SYNACK | RPS_FLOW_F_FIN | RPS_FLOW_F_RST);

	mf = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mf);
	CU_ASSERT_EQUAL(rps_flow_table_dump_json(f.t, mf, 2, 0), 1);
	fclose(mf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	snprintf(want, sizeof(want), "\"packets\": %u, \"bytes\": %" PRIu64 ", \"orig\": "
		 "{\"packets\": %u, \"bytes\": %" PRIu64 ", \"flags\": \"SYN,FIN\"}, \"reply\": "
		 "{\"packets\": %u, \"bytes\": %" PRIu64 ", \"flags\": \"SYN-ACK,FIN,RST\"}, "
		 "\"state\": \"closed\"", (unsigned int)(RTE_DIM(cs) + RTE_DIM(ss) + 1), cb + sb,
		 (unsigned int)RTE_DIM(cs), cb, (unsigned int)RTE_DIM(ss) + 1, sb);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, want));
	if (strstr(buf, want) == NULL)
		printf("\n  dump: %s\n  want: %s\n", buf, want);
	free(buf);
	fx_fini(&f);
}

/*
 * The first packet seen is the server's SYN-ACK (the SYN was lost, or went another way): the
 * server is orig, for the entry's life. A new connection on the closed tuple, opened from the
 * other side, keeps orig and the flags and counts of both: they are the entry's.
 */
static void
test_reply_first(void)
{
	struct fx f;
	struct rps_flow_summary s;
	struct seg p;
	uint64_t cb = 0, sb = 0;

	FX_INIT(&f, 64, 1000, 100);
	p = s2c(SYN | ACK, 5000, 0);
	send1(&f, &p);
	sb += frame_len(&p);
	p = c2s(ACK, 1001, 0);
	send1(&f, &p);
	cb += frame_len(&p);
	p = c2s(ACK | PSH, 1001, 40);
	send1(&f, &p);
	cb += frame_len(&p);
	CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(s.sport, SPORT);
	CU_ASSERT_EQUAL(s.dport, CPORT);
	CU_ASSERT_EQUAL(s.src[3], 2);
	CU_ASSERT_EQUAL(s.state, RPS_FLOW_ESTABLISHED);
	check_dir(&s, RPS_FLOW_ORIG, 1, sb, RPS_FLOW_F_SYNACK);
	check_dir(&s, RPS_FLOW_REPLY, 2, cb, 0);
	/* the client resets; then opens again on the same tuple */
	p = c2s(RST, 1041, 0);
	send1(&f, &p);
	cb += frame_len(&p);
	CU_ASSERT_EQUAL(state_of(&f), RPS_FLOW_CLOSED);
	p = c2s(SYN, 900000, 0);
	send1(&f, &p);
	cb += frame_len(&p);
	CU_ASSERT_EQUAL(state_of(&f), RPS_FLOW_SYN_SENT);
	CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(s.sport, SPORT);
	check_dir(&s, RPS_FLOW_ORIG, 1, sb, RPS_FLOW_F_SYNACK);
	check_dir(&s, RPS_FLOW_REPLY, 4, cb, RPS_FLOW_F_RST | RPS_FLOW_F_SYN);
	CU_ASSERT_EQUAL(s.packets, 5);
	CU_ASSERT_EQUAL(s.bytes, cb + sb);
	CU_ASSERT_EQUAL(f.st.flows_created, 1);
	fx_fini(&f);
}

/*
 * The ends of the representation: every flag at once in one direction (a SYN-FIN-RST
 * segment; a SYN-ACK sets SYN-ACK, not SYN), the other direction's four bits untouched; the
 * names in order, and the longest name in RPS_FLOW_FLAGS_LEN exactly; a buffer too short
 * gets the names that fit, NUL-terminated. The counters are 64-bit: the top set ranks by the
 * sum of both directions (a flow of 3 + 3 packets before one of 5 one way).
 */
static void
test_dir_limits(void)
{
	struct fx f;
	struct rps_flow_summary s, top[4];
	struct seg p;
	struct seg one = { 0, UT_IP4(50), UT_IP4(60), 7000, 7001, IPPROTO_UDP, 0, 0, 10, 0 };
	char buf[RPS_FLOW_FLAGS_LEN], small[8];

	CU_ASSERT_STRING_EQUAL(rps_flow_flags_format(0, buf, sizeof(buf)), "");
	CU_ASSERT_STRING_EQUAL(rps_flow_flags_format(0xf, buf, sizeof(buf)), "SYN,SYN-ACK,FIN,RST");
	CU_ASSERT_EQUAL(strlen(buf) + 1, RPS_FLOW_FLAGS_LEN);
	CU_ASSERT_STRING_EQUAL(rps_flow_flags_format(RPS_FLOW_F_FIN | RPS_FLOW_F_RST, buf,
						     sizeof(buf)), "FIN,RST");
	CU_ASSERT_STRING_EQUAL(rps_flow_flags_format(0xf, small, sizeof(small)), "SYN");
	CU_ASSERT_STRING_EQUAL(rps_flow_flags_format(0xf0, buf, sizeof(buf)), "");

	FX_INIT(&f, 64, 1000, 100);
	p = c2s(SYN | FIN | RST, 1, 0);
	send1(&f, &p);
	p = s2c(SYN | ACK, 7, 0);
	send1(&f, &p);
	p = c2s(ACK, 2, 0);
	send1(&f, &p);
	p = s2c(ACK, 8, 0);
	send1(&f, &p);
	p = c2s(ACK, 2, 0);
	send1(&f, &p);
	p = s2c(ACK, 8, 0);
	send1(&f, &p);
	CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(s.dir[RPS_FLOW_ORIG].flags,
			RPS_FLOW_F_SYN | RPS_FLOW_F_FIN | RPS_FLOW_F_RST);
	CU_ASSERT_EQUAL(s.dir[RPS_FLOW_REPLY].flags, RPS_FLOW_F_SYNACK);
	CU_ASSERT_EQUAL(s.dir[RPS_FLOW_ORIG].packets, 3);
	CU_ASSERT_EQUAL(s.dir[RPS_FLOW_REPLY].packets, 3);
	for (int i = 0; i < 5; i++)
		send1(&f, &one);
	CU_ASSERT_EQUAL(rps_flow_table_top(f.t, top, 4), 2);
	CU_ASSERT_EQUAL(top[0].packets, 6);
	CU_ASSERT_EQUAL(top[0].sport, CPORT);
	CU_ASSERT_EQUAL(top[1].packets, 5);
	check_dir(&top[1], RPS_FLOW_ORIG, 5, 5u * frame_len(&one), 0);
	check_dir(&top[1], RPS_FLOW_REPLY, 0, 0, 0);
	fx_fini(&f);
}

/* The flows removed (expired here) are kept for the dump, the last log_size of them, oldest
 * first, as they were when removed; those overwritten are counted. */
static void
test_removed_log(void)
{
	struct fx f;
	struct seg q[3];
	struct rte_mbuf *b[4];
	char *buf = NULL, want[128];
	size_t len = 0;
	uint64_t lost = 9;
	FILE *mf;

	CU_ASSERT_EQUAL_FATAL(fx_init_log(&f, 64, 1000, 100, 2), 0);
	for (int i = 0; i < 3; i++) {
		q[i] = (struct seg){ 0, UT_IP4(10), UT_IP4(20), (uint16_t)(5000 + i), 53,
				     IPPROTO_UDP, 0, 0, 30, 0 };
		b[i] = mk(&q[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b[i]);
	}
	b[3] = mk(&q[1]); /* the second flow has two packets */
	CU_ASSERT_EQUAL(run(&f, b, 4), 4);
	mf = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(rps_flow_table_dump_removed_json(f.t, mf, 5, 0, &lost), 0);
	fclose(mf);
	free(buf);
	CU_ASSERT_EQUAL(lost, 0);
	/* idle past the timeout: all three go, the first is overwritten */
	f.c.now = T0 + 2 * HZ;
	rps_flow_table_age(&f.c, 64);
	CU_ASSERT_EQUAL(f.st.flows_expired, 3);
	mf = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mf);
	CU_ASSERT_EQUAL(rps_flow_table_dump_removed_json(f.t, mf, 5, 0, &lost), 2);
	fclose(mf);
	CU_ASSERT_EQUAL(lost, 1);
	CU_ASSERT_PTR_NULL(strstr(buf, "\"sport\": 5000,"));
	snprintf(want, sizeof(want), "\"lcore\": 5, \"family\": 4, \"proto\": 17, ");
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"sport\": 5001, \"dport\": 53, \"packets\": 2,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"sport\": 5002, \"dport\": 53, \"packets\": 1,"));
	CU_ASSERT_TRUE(strstr(buf, "5001") < strstr(buf, "5002")); /* oldest first */
	snprintf(want, sizeof(want), "\"removed_ms\": %" PRIu64 "}", (T0 + 2 * HZ) * 1000 / HZ);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, want));
	if (strstr(buf, want) == NULL)
		printf("\n  dump: %s\n  want: %s\n", buf, want);
	free(buf);
	/* a table without a log writes none */
	fx_fini(&f);
	FX_INIT(&f, 64, 1000, 100);
	CU_ASSERT_EQUAL(rps_flow_table_dump_removed_json(f.t, stdout, 5, 0, &lost), 0);
	fx_fini(&f);
}

static void
test_udp(void)
{
	struct fx f;
	struct rps_flow_summary s;
	struct rte_mbuf *b[8];
	struct seg a = { 0, UT_IP4(10), UT_IP4(20), 5353, 53, IPPROTO_UDP, 0, 0, 30, 0 };
	struct seg r = { 0, UT_IP4(20), UT_IP4(10), 53, 5353, IPPROTO_UDP, 0, 0, 200, 0 };
	struct seg o = { 0, UT_IP4(10), UT_IP4(20), 5354, 53, IPPROTO_UDP, 0, 0, 1, 0 };
	struct ut_pkt arp, frag;

	FX_INIT(&f, 64, 1000, 100);
	for (int i = 0; i < 3; i++)
		b[i] = mk(&a);
	b[3] = mk(&r);
	b[4] = mk(&r);
	b[5] = mk(&o);
	/* untracked: an ARP frame and an IPv4 fragment */
	ut_pkt_init(&arp);
	ut_put_eth(&arp, RTE_ETHER_TYPE_ARP);
	ut_put(&arp, NULL, 28);
	b[6] = ut_mbuf_exact(arp.b, arp.len);
	ut_pkt_init(&frag);
	ut_put_eth(&frag, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(&frag, UT_IP4(10), UT_IP4(20), IPPROTO_UDP, 0, RTE_IPV4_HDR_MF_FLAG);
	ut_put_udp(&frag, 5353, 53);
	ut_pkt_finish(&frag);
	b[7] = ut_mbuf_exact(frag.b, frag.len);
	for (int i = 0; i < 8; i++)
		CU_ASSERT_PTR_NOT_NULL_FATAL(b[i]);
	b[6]->packet_type = RTE_PTYPE_UNKNOWN;
	b[6]->l2_len = 0;
	b[6]->l3_len = 0;
	b[7]->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_FRAG;
	b[7]->l2_len = RTE_ETHER_HDR_LEN;
	b[7]->l3_len = 20;
	CU_ASSERT_EQUAL(run(&f, b, 8), 8);

	CU_ASSERT_EQUAL_FATAL(get(&f, &r, &s), 0);
	CU_ASSERT_EQUAL(s.proto, IPPROTO_UDP);
	CU_ASSERT_EQUAL(s.packets, 5);
	CU_ASSERT_EQUAL(s.bytes, 3u * frame_len(&a) + 2u * frame_len(&r));
	CU_ASSERT_EQUAL(s.state, RPS_FLOW_NONE);
	CU_ASSERT_EQUAL(s.sport, 5353);
	CU_ASSERT_EQUAL(s.dport, 53);
	/* both ways in one entry: orig is the query side */
	check_dir(&s, RPS_FLOW_ORIG, 3, 3u * frame_len(&a), 0);
	check_dir(&s, RPS_FLOW_REPLY, 2, 2u * frame_len(&r), 0);
	CU_ASSERT_EQUAL_FATAL(get(&f, &o, &s), 0);
	CU_ASSERT_EQUAL(s.packets, 1);
	CU_ASSERT_EQUAL(s.bytes, frame_len(&o));
	CU_ASSERT_EQUAL(f.st.flows_created, 2);
	CU_ASSERT_EQUAL(f.st.flows_active, 2);
	CU_ASSERT_EQUAL(f.st.out_of_order + f.st.retransmit, 0);
	fx_fini(&f);
}

static void
test_ipv6(void)
{
	struct fx f;
	struct rps_flow_summary s;
	struct seg p;
	struct seg u = { 1, 7, 8, 1000, 2000, IPPROTO_UDP, 0, 0, 10, 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *mf;

	FX_INIT(&f, 64, 1000, 100);
	p = (struct seg){ 1, 5, 3, 33000, 443, IPPROTO_TCP, SYN, 10, 0, 0 };
	send1(&f, &p);
	p = (struct seg){ 1, 3, 5, 443, 33000, IPPROTO_TCP, SYN | ACK, 20, 0, 0 };
	send1(&f, &p);
	p = (struct seg){ 1, 5, 3, 33000, 443, IPPROTO_TCP, ACK, 11, 0, 0 };
	send1(&f, &p);
	p.len = 100;
	send1(&f, &p);
	send1(&f, &p);  /* retransmit */
	send1(&f, &u);
	send1(&f, &u);
	CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(s.family, 6);
	CU_ASSERT_EQUAL(s.state, RPS_FLOW_ESTABLISHED);
	CU_ASSERT_EQUAL(s.packets, 5);
	CU_ASSERT_EQUAL(s.retransmit, 1);
	CU_ASSERT_EQUAL(s.sport, 33000);
	CU_ASSERT_EQUAL(s.src[0], 0x20);
	CU_ASSERT_EQUAL(s.src[15], 5);
	CU_ASSERT_EQUAL(s.dst[15], 3);
	CU_ASSERT_EQUAL_FATAL(get(&f, &u, &s), 0);
	CU_ASSERT_EQUAL(s.packets, 2);
	CU_ASSERT_EQUAL(s.bytes, 2u * frame_len(&u));
	/* an IPv4 flow with the same low address bits is another flow */
	u.v6 = 0;
	CU_ASSERT_EQUAL(get(&f, &u, &s), -ENOENT);
	CU_ASSERT_EQUAL(f.st.flows_created, 2);

	mf = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mf);
	CU_ASSERT_EQUAL(rps_flow_table_dump_json(f.t, mf, 3, 0), 2);
	fclose(mf);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"family\": 6, \"proto\": 6, \"src\": \"2001:db8::5\", "
					   "\"dst\": \"2001:db8::3\", \"sport\": 33000, "
					   "\"dport\": 443, \"packets\": 5"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"src\": \"2001:db8::7\", \"dst\": \"2001:db8::8\""));
	free(buf);
	fx_fini(&f);
}

/* Packets that go through the real parse stage first: VLAN, IPv6 extension headers, ICMP. */
static void
test_through_parse(void)
{
	struct fx f;
	struct rps_flow_summary s;
	struct rte_mbuf *b[4];
	uint8_t a6[16], d6[16];
	struct ut_pkt p;
	uint16_t n;

	FX_INIT(&f, 64, 1000, 100);
	ut_ip6(a6, 0, 9);
	ut_ip6(d6, 0, 10);
	/* VLAN + IPv4 with options + TCP */
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_VLAN);
	ut_put_vlan(&p, 10, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(&p, UT_IP4(100), UT_IP4(101), IPPROTO_TCP, 8, 0);
	ut_put_tcp(&p, 1111, 2222);
	ut_put(&p, "0123456789", 10);
	ut_pkt_finish(&p);
	b[0] = ut_mbuf_exact(p.b, p.len);
	/* IPv6 + hop-by-hop + UDP */
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(&p, a6, d6, 0);
	ut_put_ipv6_ext(&p, IPPROTO_UDP, 0);
	ut_put_udp(&p, 3333, 4444);
	ut_put(&p, "xy", 2);
	ut_pkt_finish(&p);
	((struct rte_udp_hdr *)(p.b + p.l4_off))->dgram_len = rte_cpu_to_be_16(10);
	b[1] = ut_mbuf_split(p.b, p.len, 14 + 40 + 3);
	/* ICMPv6 behind a destination-options header: addresses + protocol 58 */
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(&p, a6, d6, 60);
	ut_put_ipv6_ext(&p, 58, 0);
	ut_put_l4_words(&p, 0x8000, 0);
	ut_pkt_finish(&p);
	b[2] = ut_mbuf_exact(p.b, p.len);
	/* ICMPv4 */
	ut_pkt_v4(&p, UT_IP4(100), UT_IP4(101), IPPROTO_ICMP, 0x0800, 0);
	b[3] = ut_mbuf_exact(p.b, p.len);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_PTR_NOT_NULL_FATAL(b[i]);
	n = rps_stage_parse(&f.c, b, 4);
	CU_ASSERT_EQUAL_FATAL(n, 4);
	/* look up while the parsed packets still exist */
	CU_ASSERT_EQUAL(rps_flow_table_lookup(f.t, b[0], &s), -ENOENT);
	CU_ASSERT_EQUAL(rps_stage_flow(&f.c, b, n), 4);
	CU_ASSERT_EQUAL_FATAL(rps_flow_table_lookup(f.t, b[0], &s), 0);
	CU_ASSERT_EQUAL(s.family, 4);
	CU_ASSERT_EQUAL(s.sport, 1111);
	CU_ASSERT_EQUAL(s.dport, 2222);
	CU_ASSERT_EQUAL(s.state, RPS_FLOW_ESTABLISHED); /* the builder's segment carries ACK */
	CU_ASSERT_EQUAL(s.bytes, rte_pktmbuf_pkt_len(b[0]));
	CU_ASSERT_EQUAL_FATAL(rps_flow_table_lookup(f.t, b[1], &s), 0);
	CU_ASSERT_EQUAL(s.family, 6);
	CU_ASSERT_EQUAL(s.proto, IPPROTO_UDP);
	CU_ASSERT_EQUAL(s.sport, 3333);
	CU_ASSERT_EQUAL(s.dport, 4444);
	CU_ASSERT_EQUAL_FATAL(rps_flow_table_lookup(f.t, b[2], &s), 0);
	CU_ASSERT_EQUAL(s.proto, 58);
	CU_ASSERT_EQUAL(s.sport, 0);
	CU_ASSERT_EQUAL(s.dport, 0);
	CU_ASSERT_EQUAL(s.state, RPS_FLOW_NONE);
	CU_ASSERT_EQUAL_FATAL(rps_flow_table_lookup(f.t, b[3], &s), 0);
	CU_ASSERT_EQUAL(s.proto, IPPROTO_ICMP);
	CU_ASSERT_EQUAL(f.st.flows_created, 4);
	rte_pktmbuf_free_bulk(b, 4);
	fx_fini(&f);
}

/* A TCP or UDP header cut short by the end of the packet: passed on, not tracked. */
static void
test_short_l4(void)
{
	struct fx f;
	struct seg p = c2s(ACK, 1, 0);
	struct seg u = { 0, CLI, SRV, 1, 2, IPPROTO_UDP, 0, 0, 0, 0 };
	struct rte_mbuf *b[3];
	struct ut_pkt up;

	FX_INIT(&f, 64, 1000, 100);
	split_toggle = 0; /* one-segment mbufs, so that trimming works */
	b[0] = mk(&p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b[0]);
	CU_ASSERT_EQUAL_FATAL(rte_pktmbuf_trim(b[0], 1), 0); /* 19 bytes of TCP header */
	split_toggle = 0;
	b[1] = mk(&u);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b[1]);
	CU_ASSERT_EQUAL_FATAL(rte_pktmbuf_trim(b[1], 5), 0); /* 3 bytes of UDP header */
	/* an IP packet whose L3 length points past its end */
	ut_pkt_v4(&up, CLI, SRV, IPPROTO_UDP, 1, 2);
	b[2] = ut_mbuf_exact(up.b, 14 + 20);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b[2]);
	b[2]->l2_len = 14;
	b[2]->l3_len = 20;
	b[2]->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_UDP;
	CU_ASSERT_EQUAL(run(&f, b, 3), 3);
	CU_ASSERT_EQUAL(f.st.flows_created, 0);
	CU_ASSERT_EQUAL(rps_flow_table_count(f.t), 0);
	fx_fini(&f);
}

/* Ethernet padding after the IP datagram is not TCP payload: the IP length decides. */
static void
test_padding(void)
{
	struct fx f;
	struct rps_flow_summary s;
	struct seg p;

	FX_INIT(&f, 64, 1000, 100);
	handshake(&f);
	p = c2s(ACK, 1001, 100);
	send1(&f, &p);
	/* a pure ACK with an old sequence number, padded to the 60-byte minimum frame */
	p = c2s(ACK, 1001, 0);
	p.pad = 6;
	send1(&f, &p);
	/* and a padded 2-byte segment that is in order: next moves by 2, not by 6 */
	p = c2s(ACK, 1101, 2);
	p.pad = 4;
	send1(&f, &p);
	p = c2s(ACK, 1103, 10);
	send1(&f, &p);
	CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(s.out_of_order, 0);
	CU_ASSERT_EQUAL(s.retransmit, 0);
	CU_ASSERT_EQUAL(s.packets, 7);
	fx_fini(&f);
}

static struct seg
udp_flow(unsigned int i)
{
	return (struct seg){ 0, UT_IP4(1000 + i / 200), UT_IP4(3000), (uint16_t)(10000 + i % 200),
			     53, IPPROTO_UDP, 0, 0, 4, 0 };
}

/*
 * Size 64, 65 one-way UDP flows (none assured): the 65th replaces the least recently seen of
 * the 8 slots scanned (all equal: the first, flow 0, as rte_hash hands out the slots of a
 * fresh table in order). Once they are idle, a new flow replaces an expired one instead,
 * counted as expired.
 */
static void
test_table_full(void)
{
	enum { SIZE = 64 };
	struct fx f;
	struct rps_flow_summary s;
	struct rte_mbuf *b[SIZE + 1];
	struct seg p;

	FX_INIT(&f, SIZE, 1000, 100);
	for (unsigned int i = 0; i <= SIZE; i++) {
		p = udp_flow(i);
		b[i] = mk(&p);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b[i]);
	}
	CU_ASSERT_EQUAL(run(&f, b, SIZE + 1), SIZE + 1);
	CU_ASSERT_EQUAL(rps_stats_dropped_total(&f.st), 0);
	CU_ASSERT_EQUAL(f.st.flows_created, SIZE + 1);
	CU_ASSERT_EQUAL(f.st.flows_evicted, 1);
	CU_ASSERT_EQUAL(f.st.flows_expired, 0);
	CU_ASSERT_EQUAL(f.st.flows_active, SIZE);
	p = udp_flow(0);
	CU_ASSERT_EQUAL(get(&f, &p, &s), -ENOENT);
	p = udp_flow(SIZE);
	CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(s.packets, 1);
	/* known flows still pass, and are not replaced */
	p = udp_flow(7);
	CU_ASSERT_EQUAL(send1(&f, &p), 1);
	CU_ASSERT_EQUAL(f.st.flows_evicted, 1);

	/* all idle: the next scan (slots 8..15) finds expired flows; one goes, as expired */
	f.c.now += MS(1001);
	p = udp_flow(SIZE + 1);
	CU_ASSERT_EQUAL(send1(&f, &p), 1);
	CU_ASSERT_EQUAL(f.st.flows_expired, 1);
	CU_ASSERT_EQUAL(f.st.flows_evicted, 1);
	CU_ASSERT_EQUAL(f.st.flows_active, SIZE);
	CU_ASSERT_EQUAL(rps_flow_table_count(f.t), SIZE);
	p = udp_flow(8);
	CU_ASSERT_EQUAL(get(&f, &p, &s), -ENOENT);
	CU_ASSERT_EQUAL(rps_stats_dropped_total(&f.st), 0);
	fx_fini(&f);
}

/*
 * A burst of new flows on a full table: each one replaces a flow (fresh ones: evicted; idle
 * ones: expired), and a flow replaced early in a burst that comes back later in the same
 * burst is found again (stale bulk lookup results are not used).
 */
static void
test_evict_burst(void)
{
	enum { SIZE = 64, NEW = 40 };
	struct fx f;
	struct rps_flow_summary s;
	struct rte_mbuf *b[NEW];
	struct seg p;

	FX_INIT(&f, SIZE, 1000, 100);
	for (unsigned int i = 0; i < SIZE; i++) {
		p = udp_flow(i);
		b[i % NEW] = mk(&p);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b[i % NEW]);
		if (i % NEW == NEW - 1 || i == SIZE - 1)
			run(&f, b, (uint16_t)(i % NEW + 1));
	}
	CU_ASSERT_EQUAL(f.st.flows_active, SIZE);
	/* while they are fresh, new flows replace them: 10 evictions, flows 0..9 (slots 0..9
	 * hold the oldest: the first burst) -- the 8-slot scans cover 0..7 then 8..15 */
	f.c.now += MS(1);
	for (unsigned int i = 0; i < 10; i++) {
		p = udp_flow(1000 + i);
		b[i] = mk(&p);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b[i]);
	}
	/* and flow 0, replaced by the first of them, comes back in the same burst */
	p = udp_flow(0);
	b[10] = mk(&p);
	CU_ASSERT_EQUAL(run(&f, b, 11), 11);
	CU_ASSERT_EQUAL(rps_stats_dropped_total(&f.st), 0);
	CU_ASSERT_EQUAL(f.st.flows_evicted, 11);
	CU_ASSERT_EQUAL(f.st.flows_expired, 0);
	CU_ASSERT_EQUAL(f.st.flows_active, SIZE);
	CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(s.packets, 1);
	CU_ASSERT_EQUAL(s.first_seen, f.c.now);
	/* idle: 40 new flows replace 40 expired ones */
	f.c.now += MS(1001);
	for (unsigned int i = 0; i < NEW; i++) {
		p = udp_flow(2000 + i);
		b[i] = mk(&p);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b[i]);
	}
	CU_ASSERT_EQUAL(run(&f, b, NEW), NEW);
	CU_ASSERT_EQUAL(rps_stats_dropped_total(&f.st), 0);
	CU_ASSERT_EQUAL(f.st.flows_expired, NEW);
	CU_ASSERT_EQUAL(f.st.flows_evicted, 11);
	CU_ASSERT_EQUAL(f.st.flows_created, SIZE + 11 + NEW);
	CU_ASSERT_EQUAL(f.st.flows_active, SIZE);
	fx_fini(&f);
}

/* A complete handshake on client port @p cport, at the context's time. */
static void
handshake_port(struct fx *f, uint16_t cport)
{
	struct seg p = { 0, CLI, SRV, cport, SPORT, IPPROTO_TCP, SYN, 100, 0, 0 };

	CU_ASSERT_EQUAL(send1(f, &p), 1);
	p = (struct seg){ 0, SRV, CLI, SPORT, cport, IPPROTO_TCP, SYN | ACK, 900, 0, 0 };
	CU_ASSERT_EQUAL(send1(f, &p), 1);
	p = (struct seg){ 0, CLI, SRV, cport, SPORT, IPPROTO_TCP, ACK, 101, 0, 0 };
	CU_ASSERT_EQUAL(send1(f, &p), 1);
}

static int
established(struct fx *f, uint16_t cport, struct rps_flow_summary *s)
{
	struct seg p = { 0, CLI, SRV, cport, SPORT, IPPROTO_TCP, ACK, 101, 0, 0 };

	return get(f, &p, s) == 0 && s->state == RPS_FLOW_ESTABLISHED;
}

/*
 * The attack: a SYN flood from spoofed sources (no replies, so never assured) on a table of
 * 64 that holds 8 established connections. The flood replaces only its own flows: every
 * established connection keeps its state and counters, and new connections opened during
 * the flood get a slot and complete. Without eviction (before issue 13) the flood filled
 * the table and every new connection was dropped as flow_table_full.
 */
static void
test_syn_flood(void)
{
	enum { SIZE = 64, LEGIT = 8, FLOOD = 4000, BURST = 32, NEWCONN = 20 };
	struct fx f;
	struct rps_flow_summary s;
	struct rte_mbuf *b[BURST];
	unsigned int sent = 0, opened = 0;
	uint64_t evicted_before;

	FX_INIT(&f, SIZE, 30000, 1000);
	for (unsigned int i = 0; i < LEGIT; i++)
		handshake_port(&f, (uint16_t)(CPORT + i));
	while (sent < FLOOD) {
		f.c.now += MS(1);
		for (unsigned int i = 0; i < BURST; i++, sent++) {
			struct seg p = { 0, UT_IP4(4096 + sent), SRV, (uint16_t)(1024 + sent % 50000),
					 SPORT, IPPROTO_TCP, SYN, sent * 7919u, 0, 0 };

			b[i] = mk(&p);
			CU_ASSERT_PTR_NOT_NULL_FATAL(b[i]);
		}
		CU_ASSERT_EQUAL(run(&f, b, BURST), BURST);
		/* the established ones stay active: a data segment now and then */
		if (sent % 640 == 0)
			for (unsigned int i = 0; i < LEGIT; i++) {
				struct seg p = { 0, CLI, SRV, (uint16_t)(CPORT + i), SPORT, IPPROTO_TCP,
						 ACK | PSH, 101 + (uint32_t)sent, 10, 0 };

				CU_ASSERT_EQUAL(send1(&f, &p), 1);
			}
		/* a new legitimate connection every 192 flood packets */
		if (sent % 192 == 0 && opened < NEWCONN) {
			f.c.now += 1;
			handshake_port(&f, (uint16_t)(CPORT + LEGIT + opened++));
		}
	}
	CU_ASSERT_EQUAL(opened, NEWCONN);
	CU_ASSERT_EQUAL(rps_stats_dropped_total(&f.st), 0);
	CU_ASSERT_EQUAL(f.st.flows_active, SIZE);
	CU_ASSERT_EQUAL(f.st.flows_created, LEGIT + NEWCONN + FLOOD);
	CU_ASSERT_EQUAL(f.st.flows_evicted, f.st.flows_created - SIZE);
	CU_ASSERT_EQUAL(f.st.flows_expired, 0);
	/* the first 8: established since before the flood, every packet counted */
	for (unsigned int i = 0; i < LEGIT; i++) {
		CU_ASSERT_FATAL(established(&f, (uint16_t)(CPORT + i), &s));
		CU_ASSERT_EQUAL(s.packets, 3 + FLOOD / 640);
		CU_ASSERT_EQUAL(s.first_seen, T0);
	}
	/* those opened during the flood completed and are still there */
	for (unsigned int i = 0; i < NEWCONN; i++) {
		CU_ASSERT(established(&f, (uint16_t)(CPORT + LEGIT + i), &s));
		CU_ASSERT_EQUAL(s.packets, 3);
	}
	/* a table of established connections only: a new flow replaces the least recently
	 * seen of the scan, the flood's leftovers first */
	evicted_before = f.st.flows_evicted;
	handshake_port(&f, 9);
	CU_ASSERT_EQUAL(f.st.flows_evicted, evicted_before + 1);
	CU_ASSERT(established(&f, 9, &s));
	fx_fini(&f);
}

/* Every flow assured (UDP both ways): a new one replaces the least recently seen of the 32
 * slots scanned (a scan goes past 8 while it finds only assured flows), not the first. */
static void
test_evict_lru(void)
{
	enum { SIZE = 64 };
	struct fx f;
	struct rps_flow_summary s;
	struct seg p, q;

	FX_INIT(&f, SIZE, 30000, 1000);
	for (unsigned int i = 0; i < SIZE; i++) {
		f.c.now = T0 + MS(i);
		p = udp_flow(i);
		send1(&f, &p);
		q = (struct seg){ 0, p.dst, p.src, p.dport, p.sport, IPPROTO_UDP, 0, 0, 4, 0 };
		send1(&f, &q);
	}
	/* flow 0 seen again: flow 1 is now the least recently seen of slots 0..31 */
	f.c.now = T0 + MS(100);
	p = udp_flow(0);
	send1(&f, &p);
	p = udp_flow(500);
	send1(&f, &p);
	CU_ASSERT_EQUAL(f.st.flows_evicted, 1);
	p = udp_flow(1);
	CU_ASSERT_EQUAL(get(&f, &p, &s), -ENOENT);
	p = udp_flow(0);
	CU_ASSERT_EQUAL(get(&f, &p, &s), 0);
	p = udp_flow(2);
	CU_ASSERT_EQUAL(get(&f, &p, &s), 0);
	/* the next scan starts at slot 32: 8 assured flows, so it goes on to 32 slots (32..63)
	 * and takes the oldest of them, flow 32; flow 8 (older, outside the scan) stays */
	p = udp_flow(501);
	send1(&f, &p);
	p = udp_flow(32);
	CU_ASSERT_EQUAL(get(&f, &p, &s), -ENOENT);
	p = udp_flow(8);
	CU_ASSERT_EQUAL(get(&f, &p, &s), 0);
	CU_ASSERT_EQUAL(f.st.flows_evicted, 2);
	CU_ASSERT_EQUAL(rps_stats_dropped_total(&f.st), 0);
	fx_fini(&f);
}

/* An IPv6 TCP SYN from @p src:sport to @p dst:dport. */
static struct rte_mbuf *
mk_syn6(const uint8_t *src, const uint8_t *dst, uint16_t sport, uint16_t dport)
{
	struct ut_pkt p;
	struct rte_mbuf *m;
	uint16_t l4;

	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(&p, src, dst, IPPROTO_TCP);
	l4 = p.len;
	ut_put_tcp(&p, sport, dport);
	((struct rte_tcp_hdr *)(p.b + l4))->tcp_flags = SYN;
	ut_pkt_finish(&p);
	m = ut_mbuf(p.b, p.len);
	if (m == NULL)
		return NULL;
	m->l2_len = RTE_ETHER_HDR_LEN;
	m->l3_len = 40;
	m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6 | RTE_PTYPE_L4_TCP;
	return m;
}

/* Run @p n crafted flows (CRC32C-colliding) through a table hashing with @p hash. */
static void
flood_crafted(struct fx *f, const struct crc_collide *cc, unsigned int n)
{
	struct rte_mbuf *b[32];

	for (unsigned int i = 0; i < n; i += 32) {
		for (unsigned int j = 0; j < 32; j++) {
			struct crc_collide_flow6 fl;

			crc_collide_flow6(cc, i + j, &fl);
			b[j] = mk_syn6(fl.src, fl.dst, fl.sport, fl.dport);
			CU_ASSERT_PTR_NOT_NULL_FATAL(b[j]);
		}
		CU_ASSERT_EQUAL(run(f, b, 32), 32);
	}
}

/*
 * Hash flooding: 2048 IPv6 flows crafted to share one CRC32C. Under the old hash (CRC32C,
 * seed 0) they all land in one bucket (a lookup walks a chain of 2048); under SipHash they
 * spread as random flows do (a fixed key here, so the count is reproducible).
 */
static void
test_hash_flood(void)
{
	enum { N = 2048, SIZE = 4096 };
	static struct crc_collide cc;
	struct rps_flow_conf conf = {
		.size = SIZE, .idle_timeout_ms = 30000, .closed_timeout_ms = 1000,
		.hash = RPS_FLOW_HASH_CRC32C,
	};
	struct rps_flow_summary s;
	struct crc_collide_flow6 fl;
	struct rte_mbuf *m;
	struct fx f;

	CU_ASSERT_EQUAL_FATAL(crc_collide_flows6_init(&cc), 48);
	/* the old hash */
	FX_INIT(&f, 64, 1, 1);
	rps_flow_table_free(f.t);
	f.t = f.c.flows = rps_flow_table_create(&conf, "ut_flows_crc", SOCKET_ID_ANY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f.t);
	flood_crafted(&f, &cc, N);
	CU_ASSERT_EQUAL(f.st.flows_created, N);
	CU_ASSERT_EQUAL(f.st.flow_bucket_max, N);
	fx_fini(&f);
	/* SipHash */
	FX_INIT(&f, SIZE, 30000, 1000);
	flood_crafted(&f, &cc, N);
	CU_ASSERT_EQUAL(f.st.flows_created, N);
	CU_ASSERT_EQUAL(f.st.flows_active, N);
	printf("(2048 crafted flows in 512 buckets: at most %" PRIu64 " in one) ",
	       f.st.flow_bucket_max);
	CU_ASSERT(f.st.flow_bucket_max <= 16);
	/* each is found (through rte_hash_get_key_with_position, which rehashes) */
	for (unsigned int i = 0; i < N; i += 97) {
		crc_collide_flow6(&cc, i, &fl);
		m = mk_syn6(fl.src, fl.dst, fl.sport, fl.dport);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_EQUAL_FATAL(rps_flow_table_lookup(f.t, m, &s), 0);
		CU_ASSERT_EQUAL(s.family, 6);
		CU_ASSERT_EQUAL(s.sport, fl.sport);
		CU_ASSERT_EQUAL(memcmp(s.src, fl.src, 16), 0);
		rte_pktmbuf_free(m);
	}
	fx_fini(&f);
}

static void
test_ageing(void)
{
	struct fx f;
	struct rps_flow_summary s;
	struct seg p, u[3];

	FX_INIT(&f, 128, 1000, 100);
	for (int i = 0; i < 3; i++) {
		u[i] = udp_flow((unsigned int)i);
		send1(&f, &u[i]);
	}
	/* one established, one closed TCP flow */
	handshake(&f);
	p = (struct seg){ 0, CLI, SRV, 7, 8, IPPROTO_TCP, SYN, 1, 0, 0 };
	send1(&f, &p);
	p = (struct seg){ 0, SRV, CLI, 8, 7, IPPROTO_TCP, RST | ACK, 0, 0, 0 };
	send1(&f, &p);
	CU_ASSERT_EQUAL(f.st.flows_created, 5);
	CU_ASSERT_EQUAL(f.st.flows_active, 5);

	f.c.now = T0 + MS(50);
	rps_flow_table_age(&f.c, 128);
	CU_ASSERT_EQUAL(f.st.flows_expired, 0);
	/* exactly the closed timeout: not yet ("longer than") */
	f.c.now = T0 + MS(100);
	rps_flow_table_age(&f.c, 128);
	CU_ASSERT_EQUAL(f.st.flows_expired, 0);
	f.c.now = T0 + MS(100) + 1;
	rps_flow_table_age(&f.c, 128);
	CU_ASSERT_EQUAL(f.st.flows_expired, 1);
	CU_ASSERT_EQUAL(f.st.flows_active, 4);
	CU_ASSERT_EQUAL(get(&f, &p, &s), -ENOENT);
	CU_ASSERT_EQUAL(state_of(&f), RPS_FLOW_ESTABLISHED);
	/* a flow seen again stays */
	f.c.now = T0 + MS(900);
	send1(&f, &u[1]);
	f.c.now = T0 + MS(1000);
	rps_flow_table_age(&f.c, 128);
	CU_ASSERT_EQUAL(f.st.flows_expired, 1);
	/* the budget bounds one step: 128 slots in steps of 40 */
	f.c.now = T0 + MS(1001);
	for (int i = 0; i < 4; i++)
		rps_flow_table_age(&f.c, 40);
	CU_ASSERT_EQUAL(f.st.flows_expired, 4);
	CU_ASSERT_EQUAL(f.st.flows_active, 1);
	CU_ASSERT_EQUAL(rps_flow_table_count(f.t), 1);
	CU_ASSERT_EQUAL_FATAL(get(&f, &u[1], &s), 0);
	CU_ASSERT_EQUAL(s.packets, 2);
	CU_ASSERT_EQUAL(get(&f, &u[0], &s), -ENOENT);
	CU_ASSERT_EQUAL(state_of(&f), RPS_FLOW_STATE_MAX);
	/* a removed flow comes back as a new one */
	send1(&f, &u[0]);
	CU_ASSERT_EQUAL(f.st.flows_created, 6);
	CU_ASSERT_EQUAL(f.st.flows_active, 2);
	f.c.now = T0 + MS(5000);
	rps_flow_table_age(&f.c, 1000);
	CU_ASSERT_EQUAL(f.st.flows_expired, 6);
	CU_ASSERT_EQUAL(f.st.flows_active, 0);
	CU_ASSERT_EQUAL(f.st.flows_created - f.st.flows_expired, f.st.flows_active);
	/* no table: nothing happens */
	f.c.flows = NULL;
	rps_flow_table_age(&f.c, 10);
	fx_fini(&f);
}

/* Paced ageing: the table (128 slots) is walked once per 100 ms (closed timeout 400 / 4). */
static void
test_age_paced(void)
{
	enum { SIZE = 128 };
	struct fx f;
	struct rte_mbuf *b[SIZE];
	struct seg p;
	uint64_t t1;

	FX_INIT(&f, SIZE, 1000, 400);
	for (unsigned int i = 0; i < SIZE; i++) {
		p = udp_flow(i);
		b[i] = mk(&p);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b[i]);
	}
	CU_ASSERT_EQUAL(run(&f, b, SIZE), SIZE);
	CU_ASSERT_EQUAL(f.st.flows_active, SIZE);
	/* called every 50 ms: half the table each time, nothing idle for 1000 ms */
	t1 = f.c.now;
	for (unsigned int ms = 0; ms <= 1000; ms += 50) {
		f.c.now = t1 + MS(ms);
		rps_flow_table_age_paced(&f.c, 1000);
	}
	CU_ASSERT_EQUAL(f.st.flows_expired, 0);
	/* 500 ticks later less than one slot (781.25 ticks) is due: nothing is examined */
	f.c.now = t1 + MS(1000) + 500;
	rps_flow_table_age_paced(&f.c, 1000);
	rps_flow_table_age_paced(&f.c, 1000);
	CU_ASSERT_EQUAL(f.st.flows_expired, 0);
	/* 800 ticks: one slot; every slot holds a flow idle for over 1000 ms */
	f.c.now = t1 + MS(1000) + 800;
	rps_flow_table_age_paced(&f.c, 1000);
	CU_ASSERT_EQUAL(f.st.flows_expired, 1);
	/* a whole sweep later, capped by max_budget, then the rest */
	f.c.now += MS(200);
	rps_flow_table_age_paced(&f.c, 100);
	CU_ASSERT_EQUAL(f.st.flows_expired, 101);
	rps_flow_table_age_paced(&f.c, 100);
	CU_ASSERT_EQUAL(f.st.flows_expired, SIZE);
	CU_ASSERT_EQUAL(f.st.flows_active, 0);
	/* no table: nothing happens */
	f.c.flows = NULL;
	rps_flow_table_age_paced(&f.c, 10);
	fx_fini(&f);
}

/*
 * Ageing keeps up with a table of 2^20 flows: 1000 flows (slots 0..999) idle out at
 * T0 + 30 s; the worker's paced calls, every 50 us (its idle sleep) with
 * RPS_FLOW_AGE_BUDGET, sweep the whole table every 250 ms (a quarter of the 1 s closed
 * timeout), so all are gone by T0 + 30.25 s. With the budget of 64 used before, a sweep
 * took 820 ms: flows stayed up to 0.8 s late (and a table above ~300k flows fell behind).
 */
static void
test_age_million(void)
{
	enum { SIZE = 1 << 20, FLOWS = 1000 };
	struct fx f;
	struct rte_mbuf *b[40];
	struct seg p;
	uint64_t gone = 0;

	FX_INIT(&f, SIZE, 30000, 1000);
	for (unsigned int i = 0; i < FLOWS; i += 40) {
		for (unsigned int j = 0; j < 40; j++) {
			p = udp_flow(i + j);
			b[j] = mk(&p);
			CU_ASSERT_PTR_NOT_NULL_FATAL(b[j]);
		}
		run(&f, b, 40);
	}
	CU_ASSERT_EQUAL_FATAL(f.st.flows_active, FLOWS);
	for (uint64_t t = T0 + MS(29000); t <= T0 + MS(31000); t += 50) {
		f.c.now = t;
		rps_flow_table_age_paced(&f.c, RPS_FLOW_AGE_BUDGET);
		if (gone == 0 && f.st.flows_active == 0)
			gone = t;
	}
	CU_ASSERT_EQUAL(f.st.flows_expired, FLOWS);
	CU_ASSERT(gone > T0 + MS(30000));
	printf("(last flow gone %" PRIu64 " ms after its timeout) ",
	       (gone - T0 - MS(30000)) / MS(1));
	CU_ASSERT(gone != 0 && gone <= T0 + MS(30250) + MS(1));
	fx_fini(&f);
}

/* Count non-overlapping occurrences of @p needle. */
static unsigned int
count_str(const char *hay, const char *needle)
{
	unsigned int n = 0;

	for (const char *p = strstr(hay, needle); p != NULL; p = strstr(p + strlen(needle), needle))
		n++;
	return n;
}

static void
test_dump_json(void)
{
	struct fx f;
	struct seg p;
	char *buf = NULL;
	size_t len = 0;
	FILE *mf;
	int depth = 0, bad = 0, in_str = 0;

	FX_INIT(&f, 64, 1000, 100);
	CU_ASSERT_EQUAL(rps_flow_table_dump_json(f.t, stdout, 1, 1), 0);
	handshake(&f);
	p = c2s(ACK, 1001, 100);
	send1(&f, &p);
	send1(&f, &p);
	f.c.now = T0 + MS(250);
	p = udp_flow(3);
	send1(&f, &p);
	p = udp_flow(4);
	send1(&f, &p);

	mf = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mf);
	fputs("[", mf);
	CU_ASSERT_EQUAL(rps_flow_table_dump_json(f.t, mf, 5, 0), 3);
	CU_ASSERT_EQUAL(rps_flow_table_dump_json(f.t, mf, 6, 1), 3);
	fputs("]", mf);
	fclose(mf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	CU_ASSERT_EQUAL(strncmp(buf, "[{\"lcore\": 5, ", 14), 0);
	CU_ASSERT_EQUAL(count_str(buf, "{\"lcore\": 5, "), 3);
	CU_ASSERT_EQUAL(count_str(buf, "{\"lcore\": 6, "), 3);
	CU_ASSERT_EQUAL(count_str(buf, "},\n{"), 5);
	CU_ASSERT_EQUAL(count_str(buf, "}]"), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "{\"lcore\": 5, \"family\": 4, \"proto\": 6, "
					   "\"src\": \"198.18.0.1\", \"dst\": \"198.18.0.2\", "
					   "\"sport\": 40000, \"dport\": 80, \"packets\": 5, "));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"state\": \"established\", \"out_of_order\": 0, "
					   "\"retransmit\": 1, \"bypassed\": false, "
					   "\"elephant\": false, \"rate_bps\": 0, "
					   "\"first_seen_ms\": 10000, \"last_seen_ms\": 10000}"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"src\": \"198.18.3.232\", \"dst\": \"198.18.11.184\", "
					   "\"sport\": 10003, \"dport\": 53, \"packets\": 1, "
					   "\"bytes\": 46, \"orig\": {\"packets\": 1, \"bytes\": 46, "
					   "\"flags\": \"\"}, \"reply\": {\"packets\": 0, "
					   "\"bytes\": 0, \"flags\": \"\"}, \"state\": \"none\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"first_seen_ms\": 10250, \"last_seen_ms\": 10250}"));
	/* balanced braces outside strings, no stray characters between objects */
	for (const char *c = buf; *c != '\0'; c++) {
		if (*c == '"')
			in_str = !in_str;
		else if (!in_str && *c == '{')
			depth++;
		else if (!in_str && *c == '}')
			depth--;
		if (depth < 0 || depth > 2) /* a flow, its orig and reply */
			bad = 1;
	}
	CU_ASSERT_EQUAL(depth, 0);
	CU_ASSERT_EQUAL(in_str, 0);
	CU_ASSERT_EQUAL(bad, 0);
	free(buf);
	fx_fini(&f);
}

static void
test_top(void)
{
	struct fx f;
	struct rps_flow_summary top[4];
	struct seg p;

	FX_INIT(&f, 64, 1000, 100);
	CU_ASSERT_EQUAL(rps_flow_table_top(f.t, top, 4), 0);
	for (unsigned int i = 0; i < 5; i++) {
		p = udp_flow(i);
		for (unsigned int k = 0; k <= i * 2; k++)
			send1(&f, &p);
	}
	p = udp_flow(5); /* a small flow after the top ones: must not displace them */
	send1(&f, &p);
	send1(&f, &p);
	CU_ASSERT_EQUAL(rps_flow_table_top(f.t, top, 3), 3);
	CU_ASSERT_EQUAL(top[0].packets, 9);
	CU_ASSERT_EQUAL(top[0].sport, 10004);
	CU_ASSERT_EQUAL(top[1].packets, 7);
	CU_ASSERT_EQUAL(top[2].packets, 5);
	CU_ASSERT_EQUAL(rps_flow_table_top(f.t, top, 1), 1);
	CU_ASSERT_EQUAL(top[0].packets, 9);
	CU_ASSERT_EQUAL(rps_flow_table_top(f.t, top, 4), 4);
	CU_ASSERT_EQUAL(top[3].packets, 3);
	fx_fini(&f);
}

/*
 * The top set (64 flows kept as packets arrive, no walk of the table) is exact: 200 flows
 * growing round-robin, flow i to i + 1 packets, in a table of 256: the top 64 are flows
 * 199..136. A removed member leaves the set and the next flow to see a packet takes its place.
 */
static void
test_top_incremental(void)
{
	enum { FLOWS = 200 };
	struct fx f;
	struct rps_flow_summary top[64];
	struct rte_mbuf *b[FLOWS];
	struct seg p;

	FX_INIT(&f, 256, 1000, 100);
	for (unsigned int r = 0; r < FLOWS; r++) {
		unsigned int n = 0;

		for (unsigned int i = r; i < FLOWS; i++) {
			p = udp_flow(i);
			b[n] = mk(&p);
			CU_ASSERT_PTR_NOT_NULL_FATAL(b[n]);
			n++;
		}
		run(&f, b, (uint16_t)n);
	}
	CU_ASSERT_EQUAL_FATAL(rps_flow_table_top(f.t, top, 64), 64);
	for (unsigned int i = 0; i < 64; i++) {
		CU_ASSERT_EQUAL(top[i].packets, FLOWS - i);
		CU_ASSERT_EQUAL(top[i].sport, udp_flow(FLOWS - 1 - i).sport);
	}
	/* all but flow 150 idle out: it is the only member left */
	f.c.now += MS(600);
	p = udp_flow(150);
	send1(&f, &p);
	f.c.now += MS(500);
	rps_flow_table_age(&f.c, 256);
	CU_ASSERT_EQUAL(f.st.flows_active, 1);
	CU_ASSERT_EQUAL(rps_flow_table_top(f.t, top, 64), 1);
	CU_ASSERT_EQUAL(top[0].packets, 152);
	p = udp_flow(7);
	send1(&f, &p);
	CU_ASSERT_EQUAL(rps_flow_table_top(f.t, top, 64), 2);
	CU_ASSERT_EQUAL(top[1].packets, 1);
	fx_fini(&f);
}

/* Long bursts (several lookup chunks) keep order; no table: everything passes. */
static void
test_long_burst(void)
{
	enum { N = 300 };
	struct fx f;
	struct rps_flow_summary s;
	struct rte_mbuf *b[N];
	struct ut_pkt arp;
	struct seg p;
	uint64_t sum = 0;

	FX_INIT(&f, 1024, 1000, 100);
	ut_pkt_init(&arp);
	ut_put_eth(&arp, RTE_ETHER_TYPE_ARP);
	ut_put(&arp, NULL, 28);
	for (unsigned int i = 0; i < N; i++) {
		if (i % 7 == 3) {
			b[i] = ut_mbuf_exact(arp.b, arp.len);
			CU_ASSERT_PTR_NOT_NULL_FATAL(b[i]);
			b[i]->packet_type = 0;
			continue;
		}
		p = udp_flow(i % 50);
		b[i] = mk(&p);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b[i]);
	}
	CU_ASSERT_EQUAL(run(&f, b, N), N);
	CU_ASSERT_EQUAL(f.st.flows_created, 50);
	for (unsigned int i = 0; i < 50; i++) {
		p = udp_flow(i);
		CU_ASSERT_EQUAL_FATAL(get(&f, &p, &s), 0);
		sum += s.packets;
	}
	CU_ASSERT_EQUAL(sum, N - N / 7 - (N % 7 > 3));
	f.c.flows = NULL;
	p = udp_flow(999);
	CU_ASSERT_EQUAL(send1(&f, &p), 1);
	CU_ASSERT_EQUAL(f.st.flows_created, 50);
	fx_fini(&f);
}

static void
test_create_errors(void)
{
	struct rps_flow_conf conf = { .size = 4, .idle_timeout_ms = 1, .closed_timeout_ms = 1 };
	struct rps_flow_table *t;

	CU_ASSERT_PTR_NULL(rps_flow_table_create(&conf, "ut_flows_small", SOCKET_ID_ANY));
	conf.size = 64;
	CU_ASSERT_PTR_NULL(rps_flow_table_create(NULL, "ut_flows_null", SOCKET_ID_ANY));
	t = rps_flow_table_create(&conf, "ut_flows_dup", SOCKET_ID_ANY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	/* the name is taken while t lives */
	CU_ASSERT_PTR_NULL(rps_flow_table_create(&conf, "ut_flows_dup", SOCKET_ID_ANY));
	rps_flow_table_free(t);
	t = rps_flow_table_create(&conf, "ut_flows_dup", SOCKET_ID_ANY);
	CU_ASSERT_PTR_NOT_NULL(t);
	rps_flow_table_free(t);
	rps_flow_table_free(NULL);
	CU_ASSERT_STRING_EQUAL(rps_flow_state_name(RPS_FLOW_FIN_WAIT), "fin_wait");
	CU_ASSERT_PTR_NULL(rps_flow_state_name(RPS_FLOW_STATE_MAX));
}

/* --bypass-after: a flow that carried the depth (both directions counted) is bypassed from
 * the hold on: its packets before then unmarked, after it marked; counted once; another
 * flow untouched; a new flow in a freed slot starts unbypassed; off without the depth. */
static void
test_bypass_after(void)
{
	struct rps_flow_conf conf = {
		.size = 64, .idle_timeout_ms = 1000, .closed_timeout_ms = 100,
		.bypass_bytes = 400, .bypass_hold_ms = 20,
	};
	const uint64_t flag = rps_flow_bypass_flag();
	struct rps_flow_summary sum;
	struct rte_mbuf *m;
	struct seg p;
	struct fx f;

	CU_ASSERT_FATAL(flag != 0);
	memset(&f, 0, sizeof(f));
	f.t = rps_flow_table_create(&conf, "ut_flows_bypass", SOCKET_ID_ANY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f.t);
	f.c.st = &f.st;
	f.c.hz = HZ;
	f.c.now = T0;
	f.c.flows = f.t;
	f.c.bypass_settled = 0; /* the consumers hold something: pending till the hold ends */
	/* frames of 154 bytes (100 of payload): two one way, one back: past 400 with the
	 * third */
	for (unsigned int i = 0; i < 3; i++) {
		p = i < 2 ? c2s(ACK, 1 + 100 * i, 100) : s2c(ACK, 1, 100);
		m = mk(&p);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_EQUAL(rps_stage_flow(&f.c, &m, 1), 1);
		CU_ASSERT_EQUAL(m->ol_flags & flag, 0); /* (the hold has not passed) */
		rte_pktmbuf_free(m);
	}
	CU_ASSERT_EQUAL(f.st.flows_bypassed, 1);
	CU_ASSERT_EQUAL(get(&f, &p, &sum), 0);
	CU_ASSERT_EQUAL(sum.bypassed, 1);
	f.c.now = T0 + MS(10); /* within the hold: still to the consumers */
	p = c2s(ACK, 201, 10);
	m = mk(&p);
	CU_ASSERT_EQUAL(rps_stage_flow(&f.c, &m, 1), 1);
	CU_ASSERT_EQUAL(m->ol_flags & flag, 0);
	rte_pktmbuf_free(m);
	f.c.now = T0 + MS(21); /* past it: marked, both ways */
	for (unsigned int i = 0; i < 2; i++) {
		p = i ? s2c(ACK, 101, 10) : c2s(ACK, 211, 10);
		m = mk(&p);
		CU_ASSERT_EQUAL(rps_stage_flow(&f.c, &m, 1), 1);
		CU_ASSERT_EQUAL(m->ol_flags & flag, flag);
		rte_pktmbuf_free(m);
	}
	CU_ASSERT_EQUAL(f.st.flows_bypassed, 1);
	/* a second flow at its depth, the consumers holding nothing: its packet that reached
	 * the depth still went to them, and the next one in the same burst too (what came
	 * before in the burst went to them after the check); the next burst's does not */
	f.c.bypass_settled = 1;
	for (unsigned int i = 0; i < 5; i++) {
		p = (struct seg){ 0, UT_IP4(8), SRV, 1235, SPORT, IPPROTO_TCP, ACK, 1 + 100 * i,
				  100, 0 };
		if (i == 4)
			f.c.now += MS(1); /* the next burst */
		m = mk(&p);
		CU_ASSERT_EQUAL(rps_stage_flow(&f.c, &m, 1), 1);
		CU_ASSERT_EQUAL(m->ol_flags & flag, i < 4 ? 0 : flag);
		rte_pktmbuf_free(m);
	}
	CU_ASSERT_EQUAL(f.st.flows_bypassed, 2);
	/* another flow: not bypassed */
	p = (struct seg){ 0, UT_IP4(7), SRV, 1234, SPORT, IPPROTO_TCP, ACK, 1, 100, 0 };
	m = mk(&p);
	CU_ASSERT_EQUAL(rps_stage_flow(&f.c, &m, 1), 1);
	CU_ASSERT_EQUAL(m->ol_flags & flag, 0);
	rte_pktmbuf_free(m);
	/* the first flow ends (RST, then the closed timeout): its slot's next flow starts clean */
	p = c2s(RST, 221, 0);
	send1(&f, &p);
	f.c.now = T0 + MS(2000);
	rps_flow_table_age(&f.c, 1u << 20);
	p = c2s(ACK, 1, 10);
	m = mk(&p);
	CU_ASSERT_EQUAL(rps_stage_flow(&f.c, &m, 1), 1);
	CU_ASSERT_EQUAL(m->ol_flags & flag, 0);
	rte_pktmbuf_free(m);
	CU_ASSERT_EQUAL(get(&f, &p, &sum), 0);
	CU_ASSERT_EQUAL(sum.bypassed, 0);
	fx_fini(&f);
	/* off: no mark whatever the bytes */
	FX_INIT(&f, 64, 1000, 100);
	for (unsigned int i = 0; i < 4; i++) {
		p = c2s(ACK, 1 + 100 * i, 100);
		m = mk(&p);
		CU_ASSERT_EQUAL(rps_stage_flow(&f.c, &m, 1), 1);
		CU_ASSERT_EQUAL(m->ol_flags & flag, 0);
		rte_pktmbuf_free(m);
	}
	CU_ASSERT_EQUAL(f.st.flows_bypassed, 0);
	fx_fini(&f);
}

/* A control frame: Ethernet with EtherType @p type, then the request's 48 bytes. */
static struct rte_mbuf *
ctl_frame(uint16_t type, uint32_t magic, uint8_t version, uint8_t family, const struct seg *f,
	  uint32_t seconds, uint16_t cut)
{
	uint8_t b[14 + sizeof(struct rps_ctl_bypass)];
	struct rps_ctl_bypass *c = (struct rps_ctl_bypass *)(b + 14);

	memset(b, 0, sizeof(b));
	b[12] = (uint8_t)(type >> 8);
	b[13] = (uint8_t)type;
	c->magic = rte_cpu_to_be_32(magic);
	c->version = version;
	c->family = family;
	c->proto = f->proto;
	c->sport = rte_cpu_to_be_16(f->sport);
	c->dport = rte_cpu_to_be_16(f->dport);
	c->seconds = rte_cpu_to_be_32(seconds);
	memcpy(c->src, &(uint32_t){ rte_cpu_to_be_32(f->src) }, 4);
	memcpy(c->dst, &(uint32_t){ rte_cpu_to_be_32(f->dst) }, 4);
	return (cut & 1) ? ut_mbuf_split(b, (uint16_t)(sizeof(b) - cut + 1), 20) :
			   ut_mbuf_exact(b, (uint16_t)(sizeof(b) - cut));
}

/* A consumer's request (rps_consumer_ctl.h): parsed from its frame (in one segment or two),
 * a packet or a malformed request told apart; applied to its flow either way round, pending
 * until a burst with the consumers holding nothing, for its seconds; unknown flows refused;
 * a table without bypass refuses. */
static void
test_bypass_request(void)
{
	struct rps_flow_conf conf = {
		.size = 64, .idle_timeout_ms = 1000, .closed_timeout_ms = 100,
		.bypass_requests = 1, .bypass_hold_ms = 1000,
	};
	const uint64_t flag = rps_flow_bypass_flag();
	struct rps_flow_tuple q;
	struct rps_flow_summary sum;
	uint32_t seconds = 7;
	struct rte_mbuf *m;
	struct seg p = c2s(ACK, 1, 100), r = s2c(ACK, 1, 100);
	struct fx f;

	/* parsing */
	m = ctl_frame(RPS_CTL_ETHERTYPE, RPS_CTL_MAGIC, 1, 4, &r, 30, 0);
	CU_ASSERT_EQUAL(rps_ctl_parse(m, &q, &seconds), 1);
	CU_ASSERT(q.family == 4 && q.proto == IPPROTO_TCP && q.sport == SPORT &&
		  q.dport == CPORT && seconds == 30);
	rte_pktmbuf_free(m);
	m = ctl_frame(RPS_CTL_ETHERTYPE, RPS_CTL_MAGIC, 1, 4, &r, 0, 1); /* two segments */
	CU_ASSERT_EQUAL(rps_ctl_parse(m, &q, &seconds), 1);
	CU_ASSERT(q.sport == SPORT && seconds == 0);
	rte_pktmbuf_free(m);
	m = mk(&p); /* a packet */
	CU_ASSERT_EQUAL(rps_ctl_parse(m, &q, &seconds), 0);
	rte_pktmbuf_free(m);
	m = ctl_frame(0x0800, RPS_CTL_MAGIC, 1, 4, &r, 0, 0);
	CU_ASSERT_EQUAL(rps_ctl_parse(m, &q, &seconds), 0);
	rte_pktmbuf_free(m);
	m = ctl_frame(RPS_CTL_ETHERTYPE, RPS_CTL_MAGIC + 1, 1, 4, &r, 0, 0);
	CU_ASSERT_EQUAL(rps_ctl_parse(m, &q, &seconds), -1);
	rte_pktmbuf_free(m);
	m = ctl_frame(RPS_CTL_ETHERTYPE, RPS_CTL_MAGIC, 2, 4, &r, 0, 0);
	CU_ASSERT_EQUAL(rps_ctl_parse(m, &q, &seconds), -1);
	rte_pktmbuf_free(m);
	m = ctl_frame(RPS_CTL_ETHERTYPE, RPS_CTL_MAGIC, 1, 5, &r, 0, 0);
	CU_ASSERT_EQUAL(rps_ctl_parse(m, &q, &seconds), -1);
	rte_pktmbuf_free(m);
	m = ctl_frame(RPS_CTL_ETHERTYPE, RPS_CTL_MAGIC, 1, 4, &r, 0, 2); /* 2 bytes short */
	CU_ASSERT_EQUAL(rps_ctl_parse(m, &q, &seconds), -1);
	rte_pktmbuf_free(m);

	/* applying: a table without bypass refuses */
	FX_INIT(&f, 64, 1000, 100);
	send1(&f, &p);
	m = ctl_frame(RPS_CTL_ETHERTYPE, RPS_CTL_MAGIC, 1, 4, &r, 0, 0);
	CU_ASSERT_EQUAL(rps_ctl_parse(m, &q, &seconds), 1);
	rte_pktmbuf_free(m);
	CU_ASSERT_EQUAL(rps_flow_table_bypass_tuple(f.t, &q, T0, 0), -ENOTSUP);
	fx_fini(&f);

	memset(&f, 0, sizeof(f));
	f.t = rps_flow_table_create(&conf, "ut_flows_request", SOCKET_ID_ANY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f.t);
	f.c.st = &f.st;
	f.c.hz = HZ;
	f.c.now = T0;
	f.c.flows = f.t;
	f.c.bypass_settled = 0;
	send1(&f, &p);
	/* the reply direction's tuple names the same flow; 2 s */
	CU_ASSERT_EQUAL(rps_flow_table_bypass_tuple(f.t, &q, T0 + MS(1), T0 + MS(2001)), 0);
	CU_ASSERT_EQUAL(get(&f, &p, &sum), 0);
	CU_ASSERT_EQUAL(sum.bypassed, 1);
	f.c.now = T0 + MS(2); /* pending: the consumers hold something */
	m = mk(&p);
	CU_ASSERT_EQUAL(rps_stage_flow(&f.c, &m, 1), 1);
	CU_ASSERT_EQUAL(m->ol_flags & flag, 0);
	rte_pktmbuf_free(m);
	f.c.now = T0 + MS(3); /* they hold nothing: on, both ways */
	f.c.bypass_settled = 1;
	for (unsigned int i = 0; i < 2; i++) {
		m = mk(i ? &r : &p);
		CU_ASSERT_EQUAL(rps_stage_flow(&f.c, &m, 1), 1);
		CU_ASSERT_EQUAL(m->ol_flags & flag, flag);
		rte_pktmbuf_free(m);
	}
	f.c.now = T0 + MS(2002); /* the 2 s are over: inspected again */
	m = mk(&p);
	CU_ASSERT_EQUAL(rps_stage_flow(&f.c, &m, 1), 1);
	CU_ASSERT_EQUAL(m->ol_flags & flag, 0);
	rte_pktmbuf_free(m);
	CU_ASSERT_EQUAL(get(&f, &p, &sum), 0);
	CU_ASSERT_EQUAL(sum.bypassed, 0);
	CU_ASSERT_EQUAL(f.st.flows_bypassed, 0); /* (a request is counted by the worker) */
	/* an unknown flow */
	q.sport = 9;
	CU_ASSERT_EQUAL(rps_flow_table_bypass_tuple(f.t, &q, f.c.now, 0), -ENOENT);
	q.family = 5;
	CU_ASSERT_EQUAL(rps_flow_table_bypass_tuple(f.t, &q, f.c.now, 0), -EINVAL);
	fx_fini(&f);
}

/* ---- elephants (--elephant-rate) ---- */

/* 800 kbit/s over 100 ms windows: 10000 bytes a window. UDP frames of 125 bytes (83 of
 * payload) one a millisecond are 1 Mbit/s. */
#define EL_BPS 800000u
#define EL_WIN 100u
#define EL_PAYLOAD 83

static void
el_init(struct fx *f, int bypass)
{
	static unsigned int seq;
	struct rps_flow_conf conf = {
		.size = 64, .idle_timeout_ms = 10000, .closed_timeout_ms = 1000,
		.elephant_bps = EL_BPS, .elephant_window_ms = EL_WIN,
		.elephant_bypass = bypass, .bypass_requests = bypass, .bypass_hold_ms = 20,
	};
	char name[32];

	memset(f, 0, sizeof(*f));
	snprintf(name, sizeof(name), "ut_flows_el_%u", seq++);
	f->t = rps_flow_table_create(&conf, name, SOCKET_ID_ANY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f->t);
	f->c.st = &f->st;
	f->c.hz = HZ;
	f->c.now = T0;
	f->c.flows = f->t;
	f->c.bypass_settled = 1;
}

static struct seg
el_udp(uint32_t src)
{
	return (struct seg){ 0, src, SRV, 5000, 6000, IPPROTO_UDP, 0, 0, EL_PAYLOAD, 0 };
}

/* One packet of @p s at @p at (a burst of its own). @return the summary's elephant flag. */
static int
el_send(struct fx *f, const struct seg *s, uint64_t at)
{
	struct rps_flow_summary sum;

	f->c.now = at;
	send1(f, s);
	CU_ASSERT_EQUAL_FATAL(get(f, s, &sum), 0);
	return sum.elephant;
}

/* A flow above the rate is marked within the window, once the window's estimate passes
 * it; its rate is estimated over the sliding window; once it stops it is unmarked. */
static void
test_elephant_mark(void)
{
	const struct seg e = el_udp(UT_IP4(10));
	struct rps_flow_summary sum, list[RPS_FLOW_ELEPHANTS];
	struct fx f;

	CU_ASSERT_EQUAL(frame_len(&e), 125);
	el_init(&f, 0);
	/* 80 frames: 10000 bytes, not above; the 81st (at 80 ms, inside the first window) is */
	for (unsigned int i = 0; i < 80; i++)
		CU_ASSERT_EQUAL(el_send(&f, &e, T0 + MS(i)), 0);
	CU_ASSERT_EQUAL(f.st.flows_elephant, 0);
	CU_ASSERT_EQUAL(el_send(&f, &e, T0 + MS(80)), 1);
	CU_ASSERT_EQUAL(f.st.flows_elephant, 1);
	CU_ASSERT_EQUAL(f.st.elephants_active, 1);
	CU_ASSERT_EQUAL(rps_flow_table_elephant_count(f.t), 1);
	/* on to 250 ms at 1 Mbit/s: the sliding estimate says so (1.01 Mbit/s: half the
	 * previous window and the current one) */
	for (unsigned int i = 81; i <= 250; i++)
		CU_ASSERT_EQUAL(el_send(&f, &e, T0 + MS(i)), 1);
	CU_ASSERT_EQUAL(f.st.flows_elephant, 1); /* marked once */
	CU_ASSERT_EQUAL(get(&f, &e, &sum), 0);
	CU_ASSERT(sum.rate_bps >= 980000 && sum.rate_bps <= 1030000);
	CU_ASSERT_EQUAL(rps_flow_table_elephants(f.t, T0 + MS(250), list, RPS_FLOW_ELEPHANTS), 1);
	CU_ASSERT_EQUAL(list[0].elephant, 1);
	CU_ASSERT_EQUAL(list[0].sport, 5000);
	CU_ASSERT_EQUAL(list[0].rate_bps, sum.rate_bps);
	/* it stops at 250 ms: still above half the rate at 310, under it from 322 */
	f.c.now = T0 + MS(310);
	rps_flow_table_age_paced(&f.c, 1);
	CU_ASSERT_EQUAL(f.st.elephants_active, 1);
	f.c.now = T0 + MS(340);
	rps_flow_table_age_paced(&f.c, 1);
	CU_ASSERT_EQUAL(f.st.elephants_active, 0);
	CU_ASSERT_EQUAL(rps_flow_table_elephant_count(f.t), 0);
	CU_ASSERT_EQUAL(get(&f, &e, &sum), 0);
	CU_ASSERT_EQUAL(sum.elephant, 0);
	CU_ASSERT_EQUAL(rps_flow_table_elephants(f.t, f.c.now, list, RPS_FLOW_ELEPHANTS), 0);
	fx_fini(&f);
}

/* Flows under the rate are never marked, however long they last or whatever their total;
 * a marked flow that slows to over half the rate stays marked, under half it is not. */
static void
test_elephant_small(void)
{
	const struct seg a = el_udp(UT_IP4(11)), b = el_udp(UT_IP4(12));
	struct fx f;
	uint64_t t = T0;

	el_init(&f, 0);
	/* a at 500 kbit/s, b at 750 kbit/s, for 2 s: 187 KB in all, never above the rate */
	for (unsigned int i = 0; i < 2000; i++, t += MS(1)) {
		if (i % 2 == 0)
			CU_ASSERT_EQUAL(el_send(&f, &a, t), 0);
		if (i % 4 != 3)
			CU_ASSERT_EQUAL(el_send(&f, &b, t), 0);
	}
	CU_ASSERT_EQUAL(f.st.flows_elephant, 0);
	/* a at 1 Mbit/s is marked, then at 500 kbit/s (over half the rate) stays marked */
	for (unsigned int i = 0; i < 200; i++, t += MS(1))
		el_send(&f, &a, t);
	CU_ASSERT_EQUAL(f.st.flows_elephant, 1);
	for (unsigned int i = 0; i < 400; i += 2, t += MS(2))
		CU_ASSERT_EQUAL(el_send(&f, &a, t), 1);
	/* at 250 kbit/s: unmarked when the first whole window under half of it ends */
	for (unsigned int i = 0; i < 400; i += 4, t += MS(4))
		el_send(&f, &a, t);
	CU_ASSERT_EQUAL(el_send(&f, &a, t), 0);
	CU_ASSERT_EQUAL(f.st.elephants_active, 0);
	CU_ASSERT_EQUAL(f.st.flows_elephant, 1);
	fx_fini(&f);
}

/* --elephant-action bypass: a flow marked is bypassed as at the depth: pending in the burst
 * that marked it, its packets flagged from the next burst on; other flows are not. */
static void
test_elephant_bypass(void)
{
	const uint64_t flag = rps_flow_bypass_flag();
	const struct seg e = el_udp(UT_IP4(13)), s = el_udp(UT_IP4(14));
	struct rps_flow_summary sum;
	struct rte_mbuf *m;
	struct fx f;

	CU_ASSERT_FATAL(flag != 0);
	el_init(&f, 1);
	for (unsigned int i = 0; i <= 80; i++) {
		f.c.now = T0 + MS(i);
		m = mk(&e);
		CU_ASSERT_EQUAL(rps_stage_flow(&f.c, &m, 1), 1);
		CU_ASSERT_EQUAL(m->ol_flags & flag, 0); /* the marking packet too */
		rte_pktmbuf_free(m);
		if (i % 10 == 0)
			send1(&f, &s);
	}
	CU_ASSERT_EQUAL(f.st.flows_elephant, 1);
	CU_ASSERT_EQUAL(get(&f, &e, &sum), 0);
	CU_ASSERT_EQUAL(sum.bypassed, 1); /* pending */
	f.c.now = T0 + MS(81);
	m = mk(&e);
	CU_ASSERT_EQUAL(rps_stage_flow(&f.c, &m, 1), 1);
	CU_ASSERT_EQUAL(m->ol_flags & flag, flag);
	rte_pktmbuf_free(m);
	m = mk(&s);
	CU_ASSERT_EQUAL(rps_stage_flow(&f.c, &m, 1), 1);
	CU_ASSERT_EQUAL(m->ol_flags & flag, 0);
	rte_pktmbuf_free(m);
	CU_ASSERT_EQUAL(get(&f, &s, &sum), 0);
	CU_ASSERT_EQUAL(sum.elephant, 0);
	CU_ASSERT_EQUAL(sum.bypassed, 0);
	fx_fini(&f);
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "bypass_after", test_bypass_after },
		{ "bypass_request", test_bypass_request },
		{ "elephant_mark", test_elephant_mark },
		{ "elephant_small", test_elephant_small },
		{ "elephant_bypass", test_elephant_bypass },
		{ "handshake", test_handshake },
		{ "fin_teardown", test_fin_teardown },
		{ "rst", test_rst },
		{ "midstream", test_midstream },
		{ "retransmit", test_retransmit },
		{ "reorder", test_reorder },
		{ "wraparound", test_wraparound },
		{ "directions", test_directions },
		{ "conversation", test_conversation },
		{ "reply_first", test_reply_first },
		{ "dir_limits", test_dir_limits },
		{ "udp", test_udp },
		{ "removed_log", test_removed_log },
		{ "ipv6", test_ipv6 },
		{ "through_parse", test_through_parse },
		{ "short_l4", test_short_l4 },
		{ "padding", test_padding },
		{ "table_full", test_table_full },
		{ "evict_burst", test_evict_burst },
		{ "syn_flood", test_syn_flood },
		{ "evict_lru", test_evict_lru },
		{ "hash_flood", test_hash_flood },
		{ "ageing", test_ageing },
		{ "age_paced", test_age_paced },
		{ "age_million", test_age_million },
		{ "dump_json", test_dump_json },
		{ "top", test_top },
		{ "top_incremental", test_top_incremental },
		{ "long_burst", test_long_burst },
		{ "create_errors", test_create_errors },
		CU_TEST_INFO_NULL,
	};

	/* a fixed SipHash key: bucket counts are reproducible */
	static const uint8_t key[16] = { 0x5e, 0xc2, 0xe7, 0x13, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	struct rps_siphash_key k;

	rps_siphash_key_from_bytes(&k, key);
	rps_flow_set_hash_key(&k);
	return ut_main(argc, argv, "flow", tests);
}
