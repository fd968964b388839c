/* SPDX-License-Identifier: BSD-3-Clause */
/* test_reassemble.c: the reassemble stage (lib/stages/reassemble.c): datagrams, drops, exact accounting. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>
#include <rte_mbuf_ptype.h>

#include "rps_reasm.h"
#include "rps_stage.h"
#include "test_common.h"

/* ---- datagrams and their fragments, built by hand ---- */

#define ETH_LEN 14
#define VLAN_LEN 4
#define FRAME_MAX 70000
#define V6_FRAG_HDR 8

/** One datagram: everything its fragments and its reassembled form are built from. */
struct dg {
	int v6;
	int vlan;         /* one 802.1Q tag */
	int hbh;          /* IPv6: extension headers before the fragment header: 1 hop-by-hop,
			   * 2 + destination options (16 bytes), 3 + routing (segments left 0) */
	uint16_t id;      /* IPv4 identification / IPv6 id (+ 0x10000) and source address */
	uint8_t proto;    /* IPPROTO_UDP unless set */
	uint8_t opt_len;  /* IPv4 options in the first fragment (and the datagram) */
	uint8_t tcp_doff; /* TCP data offset word (proto TCP) */
	uint32_t l4_len;  /* bytes after the IP header of the whole datagram */
	uint16_t ck;      /* UDP checksum field as stored (0: none); see set_cksum() */
};

static uint8_t fbuf[FRAME_MAX], xbuf[FRAME_MAX], rbuf[FRAME_MAX];

static const uint8_t ext_type[] = { 0 /* hop-by-hop */, 60 /* dst opts */, 43 /* routing */ };
static const uint8_t ext_len[] = { 8, 16, 8 };

/* Bytes of @p d's IPv6 extension headers before the fragment header. */
static uint32_t
ext_bytes(const struct dg *d)
{
	uint32_t n = 0;

	for (int i = 0; i < d->hbh; i++)
		n += ext_len[i];
	return n;
}

/* Write @p d's extension headers at @p b, the last one's next header @p last; returns the
 * first one's type in @p first (or @p last when there are none) and their length. */
static uint32_t
put_ext(uint8_t *b, const struct dg *d, uint8_t last, uint8_t *first)
{
	uint32_t n = 0;

	*first = d->hbh ? ext_type[0] : last;
	for (int i = 0; i < d->hbh; i++) {
		uint8_t *e = b + n;

		memset(e, 0, ext_len[i]);
		e[0] = i + 1 < d->hbh ? ext_type[i + 1] : last;
		e[1] = (uint8_t)(ext_len[i] / 8 - 1);
		if (ext_type[i] == 43) {
			e[2] = 4; /* SRv6, segments left 0 */
		} else {
			e[2] = 1; /* PadN over the rest */
			e[3] = (uint8_t)(ext_len[i] - 4);
		}
		n += ext_len[i];
	}
	return n;
}

/* The datagram's transport bytes: a UDP (or TCP) header and a pattern. */
static void
dg_l4(const struct dg *d, uint8_t *b)
{
	uint8_t proto = d->proto ? d->proto : IPPROTO_UDP;

	for (uint32_t i = 0; i < d->l4_len; i++)
		b[i] = (uint8_t)(i * 7 + d->id * 13 + 1 + (i >> 8));
	if (d->l4_len >= 8 && proto == IPPROTO_UDP) {
		b[0] = 0x03;
		b[1] = 0xe8;
		b[2] = 0x07;
		b[3] = 0xd0;
		b[4] = (uint8_t)(d->l4_len >> 8);
		b[5] = (uint8_t)d->l4_len;
		memcpy(&b[6], &d->ck, 2);
	}
	if (d->l4_len >= 20 && proto == IPPROTO_TCP)
		b[12] = d->tcp_doff ? d->tcp_doff : 0x50;
}

static uint32_t
put_l2(uint8_t *b, const struct dg *d)
{
	uint16_t type = d->v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4;
	uint32_t n = 12;

	memset(b, 0, 12);
	b[0] = 0x02;
	b[5] = 0x02;
	b[6] = 0x02;
	b[11] = 0x01;
	if (d->vlan) {
		b[n++] = 0x81;
		b[n++] = 0x00;
		b[n++] = 0x00;
		b[n++] = 0x0a;
	}
	b[n++] = (uint8_t)(type >> 8);
	b[n++] = (uint8_t)type;
	return n;
}

static uint32_t
l2_len(const struct dg *d)
{
	return ETH_LEN + (d->vlan ? VLAN_LEN : 0);
}

/*
 * Into @p b: the fragment carrying datagram bytes [ofs, ofs + len) (M flag @p mf) followed by
 * @p pad bytes of Ethernet padding, or with @p whole the reassembled datagram. Returns the
 * frame length.
 */
static uint32_t
frame(uint8_t *b, const struct dg *d, uint32_t ofs, uint32_t len, int mf, int whole,
      uint32_t pad)
{
	static uint8_t l4[65536];
	uint8_t proto = d->proto ? d->proto : IPPROTO_UDP;
	uint32_t n = put_l2(b, d);

	dg_l4(d, l4);
	if (whole) {
		ofs = 0;
		len = d->l4_len;
	}
	if (!d->v6) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(b + n);
		uint32_t ihl = 20 + (ofs == 0 ? d->opt_len : 0);

		memset(ip, 0, ihl);
		ip->version_ihl = (uint8_t)(0x40 | ihl / 4);
		ip->total_length = rte_cpu_to_be_16((uint16_t)(ihl + len));
		ip->packet_id = rte_cpu_to_be_16(d->id);
		ip->fragment_offset = rte_cpu_to_be_16(whole ? 0 :
			(uint16_t)((mf ? RTE_IPV4_HDR_MF_FLAG : 0) | ofs / 8));
		ip->time_to_live = 64;
		ip->next_proto_id = proto;
		ip->src_addr = rte_cpu_to_be_32(UT_IP4(d->id));
		ip->dst_addr = rte_cpu_to_be_32(UT_IP4(0x10000));
		memset(ip + 1, 1 /* NOP */, ihl - 20);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		n += ihl;
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(b + n);
		uint8_t *e;

		memset(ip, 0, sizeof(*ip));
		ip->vtc_flow = rte_cpu_to_be_32(UINT32_C(6) << 28 | 0x12345);
		ip->hop_limits = 64;
		ut_ip6(ip->src_addr, 0x11, d->id);
		ut_ip6(ip->dst_addr, 0x22, 0xffff);
		n += sizeof(*ip);
		if (whole) {
			n += put_ext(b + n, d, proto, &ip->proto);
			ip->payload_len = rte_cpu_to_be_16((uint16_t)(len + ext_bytes(d)));
		} else {
			uint16_t fd = (uint16_t)(ofs | (mf ? 1 : 0));
			uint32_t id = 0x10000u + d->id;

			ip->payload_len = rte_cpu_to_be_16((uint16_t)(len + V6_FRAG_HDR +
								      ext_bytes(d)));
			n += put_ext(b + n, d, 44, &ip->proto);
			e = b + n;
			e[0] = proto;
			e[1] = 0;
			e[2] = (uint8_t)(fd >> 8);
			e[3] = (uint8_t)fd;
			e[4] = (uint8_t)(id >> 24);
			e[5] = (uint8_t)(id >> 16);
			e[6] = (uint8_t)(id >> 8);
			e[7] = (uint8_t)id;
			n += V6_FRAG_HDR;
		}
	}
	memcpy(b + n, l4 + ofs, len);
	n += len;
	memset(b + n, 0xee, pad);
	return n + pad;
}

/*
 * What parse leaves in an mbuf: l2_len and packet_type (l3_len left wrong on purpose). Also
 * what a PMD may leave: an L4 checksum verdict on a fragment, stale fields in later segments.
 */
static void
prep(struct rte_mbuf *m, const struct dg *d)
{
	for (struct rte_mbuf *s = m->next; s != NULL; s = s->next)
		s->tx_offload = UINT64_C(0x0123456789abcdef);
	m->ol_flags |= RTE_MBUF_F_RX_L4_CKSUM_BAD | RTE_MBUF_F_RX_IP_CKSUM_NONE;
	m->l2_len = l2_len(d);
	m->l3_len = 3;
	m->packet_type = (d->vlan ? RTE_PTYPE_L2_ETHER_VLAN : RTE_PTYPE_L2_ETHER) |
			 (d->v6 ? RTE_PTYPE_L3_IPV6_EXT : RTE_PTYPE_L3_IPV4) | RTE_PTYPE_L4_FRAG;
}

/* A fragment as an exact-size mbuf, or split in two at @p split (0: one segment). */
static struct rte_mbuf *
mk_ex(const struct dg *d, uint32_t ofs, uint32_t len, int mf, uint16_t split, uint32_t pad)
{
	uint32_t n = frame(fbuf, d, ofs, len, mf, 0, pad);
	struct rte_mbuf *m;

	CU_ASSERT_FATAL(n <= UINT16_MAX);
	m = split ? ut_mbuf_split(fbuf, (uint16_t)n, split) : ut_mbuf_exact(fbuf, (uint16_t)n);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	prep(m, d);
	return m;
}

static struct rte_mbuf *
mk(const struct dg *d, uint32_t ofs, uint32_t len, int mf)
{
	return mk_ex(d, ofs, len, mf, 0, 0);
}

/* The @p i-th of @p k equal fragments of @p d. */
static struct rte_mbuf *
mk_nth(const struct dg *d, unsigned int i, unsigned int k)
{
	uint32_t step = d->l4_len / k;

	return mk(d, i * step, step, i + 1 < k);
}

/* @p m is exactly the reassembled @p d, typed for the next stages, in @p segs segments. */
static void
check_dgram(struct rte_mbuf *m, const struct dg *d, uint16_t segs)
{
	uint32_t n = frame(xbuf, d, 0, 0, 0, 1, 0);
	const uint8_t *got;
	const char *why = NULL;
	uint32_t pt = m->packet_type;
	uint8_t proto = d->proto ? d->proto : IPPROTO_UDP;

	CU_ASSERT_EQUAL_FATAL(rte_pktmbuf_pkt_len(m), n);
	CU_ASSERT_EQUAL(rte_mbuf_check(m, 1, &why), 0);
	got = rte_pktmbuf_read(m, 0, n, rbuf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT(memcmp(got, xbuf, n) == 0);
	if (memcmp(got, xbuf, n) != 0)
		for (uint32_t i = 0; i < n; i++)
			if (got[i] != xbuf[i]) {
				fprintf(stderr, "\n  datagram differs at byte %u: %#x, want %#x\n", i,
					got[i], xbuf[i]);
				break;
			}
	if (segs != 0)
		CU_ASSERT_EQUAL(m->nb_segs, segs);
	CU_ASSERT_EQUAL(m->l2_len, l2_len(d));
	CU_ASSERT_EQUAL(m->l3_len, d->v6 ? 40u + ext_bytes(d) : 20u + d->opt_len);
	CU_ASSERT(d->v6 ? RTE_ETH_IS_IPV6_HDR(pt) != 0 : RTE_ETH_IS_IPV4_HDR(pt) != 0);
	CU_ASSERT_EQUAL(pt & RTE_PTYPE_L4_MASK,
			proto == IPPROTO_UDP ? RTE_PTYPE_L4_UDP :
			proto == IPPROTO_TCP ? RTE_PTYPE_L4_TCP : RTE_PTYPE_L4_NONFRAG);
	if (proto == IPPROTO_UDP)
		CU_ASSERT_EQUAL(m->l4_len, 8);
	CU_ASSERT_EQUAL(m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK, RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN);
	if (!d->v6)
		CU_ASSERT_EQUAL(m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK,
				RTE_MBUF_F_RX_IP_CKSUM_GOOD);
}

/* Give UDP datagram @p d its right checksum, or with @p good 0 a wrong one. */
static void
set_cksum(struct dg *d, int good)
{
	uint32_t l2 = l2_len(d), l3 = d->v6 ? 40 + ext_bytes(d) : 20u + d->opt_len;
	uint16_t ck;

	d->ck = 0;
	frame(xbuf, d, 0, 0, 0, 1, 0);
	if (d->v6) {
		struct rte_ipv6_hdr h;

		memcpy(&h, xbuf + l2, sizeof(h));
		h.proto = IPPROTO_UDP;
		h.payload_len = rte_cpu_to_be_16((uint16_t)d->l4_len);
		ck = rte_ipv6_udptcp_cksum(&h, xbuf + l2 + l3);
	} else {
		ck = rte_ipv4_udptcp_cksum((const struct rte_ipv4_hdr *)(xbuf + l2), xbuf + l2 + l3);
	}
	d->ck = good ? ck : (uint16_t)(ck ^ 0x0101);
}

/* ---- a stage context with its own table and counters ---- */

#define T0 UINT64_C(1000000000)

struct fx {
	struct rps_lcore_stats st;
	struct rps_stage_ctx c;
	unsigned int pool0;
	uint64_t ms;      /* TSC cycles per millisecond, as the table computes them */
	uint64_t given;   /* fragments handed to the stage */
	uint64_t out;     /* datagrams the stage passed on (and the test freed) */
	uint64_t in_dg;   /* fragments inside those datagrams */
};

static void
fx_init(struct fx *f, uint32_t max_datagrams, uint32_t timeout_ms)
{
	memset(f, 0, sizeof(*f));
	f->pool0 = ut_pool_avail();
	f->c.st = &f->st;
	f->c.now = T0;
	f->c.hz = rte_get_tsc_hz();
	f->ms = (f->c.hz + 999) / 1000;
	f->c.reasm = rps_reasm_create(max_datagrams, timeout_ms, SOCKET_ID_ANY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f->c.reasm);
}

/* Run one burst; fragments among @p pkts are counted as given (all but @p nonfrag of them). */
static uint16_t
fx_run(struct fx *f, struct rte_mbuf **pkts, uint16_t n, uint16_t nonfrag)
{
	f->given += (uint64_t)(n - nonfrag);
	return rps_stage_reassemble(&f->c, pkts, n);
}

/* A datagram of @p k fragments came out: check it, free it. */
static void
fx_took(struct fx *f, struct rte_mbuf *m, const struct dg *d, uint16_t k, uint16_t segs)
{
	check_dgram(m, d, segs);
	f->out++;
	f->in_dg += k;
	rte_pktmbuf_free(m);
}

static uint64_t
dropped_total(const struct rps_lcore_stats *st)
{
	return rps_stats_dropped_total(st);
}

/*
 * Destroy the table, then check the exact accounting: every fragment given is in a datagram
 * that came out, or dropped; processed credit + datagrams + drops == fragments given; the
 * pool is back where it was.
 */
static void
fx_fini(struct fx *f)
{
	const struct rps_lcore_stats *st = &f->st;

	rps_reasm_destroy(f->c.reasm, &f->st);
	f->c.reasm = NULL;
	CU_ASSERT_EQUAL(st->frags_in, f->in_dg + st->dropped[RPS_DROP_FRAG_ERROR] +
			st->dropped[RPS_DROP_FRAG_TIMEOUT] + st->dropped[RPS_DROP_FRAG_EVICTED]);
	CU_ASSERT_EQUAL(rps_reasm_held(NULL), 0);
	CU_ASSERT_EQUAL(st->frags_reassembled, f->out);
	CU_ASSERT_EQUAL(st->frags_absorbed, f->in_dg - f->out);
	CU_ASSERT_EQUAL(st->processed, st->frags_absorbed);
	CU_ASSERT_EQUAL(st->processed + f->out + dropped_total(st), f->given);
	CU_ASSERT_EQUAL(ut_pool_avail(), f->pool0);
	if (st->processed + f->out + dropped_total(st) != f->given || ut_pool_avail() != f->pool0)
		fprintf(stderr, "\n  given %lu: processed %lu + out %lu + dropped %lu; pool %u/%u\n",
			(unsigned long)f->given, (unsigned long)st->processed,
			(unsigned long)f->out, (unsigned long)dropped_total(st), ut_pool_avail(),
			f->pool0);
}

/* Fragment order @p ord of @p k (0 in order, 1 reversed, 2+ seeded shuffles) into @p idx. */
static void
order(unsigned int *idx, unsigned int k, unsigned int ord)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL ^ (uint64_t)(ord * 131 + k);

	for (unsigned int i = 0; i < k; i++)
		idx[i] = ord == 1 ? k - 1 - i : i;
	if (ord >= 2)
		for (unsigned int i = k - 1; i > 0; i--) {
			unsigned int j = (unsigned int)(ut_rand(&seed) % (i + 1));
			unsigned int t = idx[i];

			idx[i] = idx[j];
			idx[j] = t;
		}
}

/* ---- the tests ---- */

/* 2, 3, 4 and 8 fragments, in order, reversed and shuffled, in one burst or one per burst. */
static void
orders(int v6)
{
	static const unsigned int ks[] = { 2, 3, 4, 8 };

	for (unsigned int ki = 0; ki < RTE_DIM(ks); ki++)
		for (unsigned int ord = 0; ord < 5; ord++)
			for (int per_burst = 0; per_burst < 2; per_burst++) {
				unsigned int k = ks[ki], idx[8];
				struct dg d = { .v6 = v6, .id = (uint16_t)(100 + ki * 10 + ord),
						.l4_len = k * 24, .opt_len = v6 ? 0 : 8 };
				struct rte_mbuf *pkts[8];
				struct fx f;
				uint16_t got = 0;

				fx_init(&f, 64, 1000);
				order(idx, k, ord);
				for (unsigned int i = 0; i < k; i++)
					pkts[i] = mk_nth(&d, idx[i], k);
				if (per_burst) {
					for (unsigned int i = 0; i < k; i++) {
						uint16_t r = fx_run(&f, &pkts[i], 1, 0);

						/* only the last one given completes it */
						CU_ASSERT_EQUAL(r, i + 1 == k ? 1 : 0);
						if (r == 1)
							pkts[got++] = pkts[i];
					}
				} else {
					got = fx_run(&f, pkts, (uint16_t)k, 0);
				}
				CU_ASSERT_EQUAL_FATAL(got, 1);
				fx_took(&f, pkts[0], &d, (uint16_t)k, (uint16_t)k);
				CU_ASSERT_EQUAL(f.st.frags_in, k);
				CU_ASSERT_EQUAL(f.st.frags_reassembled, 1);
				CU_ASSERT_EQUAL(f.st.frags_absorbed, k - 1);
				CU_ASSERT_EQUAL(f.st.processed, k - 1);
				CU_ASSERT_EQUAL(dropped_total(&f.st), 0);
				fx_fini(&f);
				CU_ASSERT_EQUAL(dropped_total(&f.st), 0);
			}
}

static void
test_v4_orders(void)
{
	orders(0);
}

static void
test_v6_orders(void)
{
	orders(1);
}

/* Non-fragments keep their order and identity; datagrams come out where they completed. */
static void
test_interleaved(void)
{
	struct dg x = { .id = 1, .l4_len = 32 };
	struct dg y = { .v6 = 1, .id = 2, .l4_len = 48 };
	struct dg xv = { .id = 3, .l4_len = 32, .vlan = 1 };
	struct rte_mbuf *pkts[12], *a, *b, *cc, *dd, *e, *g;
	uint8_t atomic[128];
	uint16_t atomic_len;
	struct ut_pkt p;
	struct fx f;
	uint16_t n;

	fx_init(&f, 64, 1000);
	ut_pkt_v4(&p, UT_IP4(10), UT_IP4(11), IPPROTO_TCP, 1, 2);
	a = ut_mbuf_exact(p.b, p.len);
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_ARP);
	ut_put(&p, NULL, 28);
	b = ut_mbuf_exact(p.b, p.len);
	{ /* an IPv6 atomic fragment (offset 0, M 0): a whole packet, passes untouched */
		uint8_t s6[16], d6[16];

		ut_ip6(s6, 0, 1);
		ut_ip6(d6, 0, 2);
		ut_pkt_init(&p);
		ut_put_eth(&p, RTE_ETHER_TYPE_IPV6);
		ut_put_ipv6(&p, s6, d6, 44);
		ut_put_ipv6_frag(&p, IPPROTO_UDP, 0, 0);
		ut_put_udp(&p, 7, 7);
		ut_put(&p, "atomic", 6);
		ut_pkt_finish(&p);
		memcpy(atomic, p.b, p.len);
		atomic_len = p.len;
		cc = ut_mbuf_exact(p.b, p.len);
	}
	ut_pkt_init(&p); /* IPv4 with DF only: not a fragment */
	ut_put_eth(&p, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(&p, UT_IP4(5), UT_IP4(6), IPPROTO_UDP, 0, RTE_IPV4_HDR_DF_FLAG);
	ut_put_udp(&p, 1, 2);
	ut_pkt_finish(&p);
	dd = ut_mbuf_exact(p.b, p.len);
	ut_pkt_v6(&p, 3, 4, IPPROTO_UDP, 5, 6);
	e = ut_mbuf_exact(p.b, p.len);
	ut_pkt_v4(&p, UT_IP4(12), UT_IP4(13), IPPROTO_UDP, 1, 2);
	g = ut_mbuf_exact(p.b, p.len);
	CU_ASSERT_FATAL(a && b && cc && dd && e && g);
	a->l2_len = 14;
	a->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_TCP;
	b->l2_len = 14;
	b->packet_type = RTE_PTYPE_L2_ETHER;
	cc->l2_len = 14;
	cc->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6_EXT | RTE_PTYPE_L4_UDP;
	dd->l2_len = 14;
	dd->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_UDP;
	e->l2_len = 14;
	e->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6 | RTE_PTYPE_L4_UDP;
	g->l2_len = 14;
	g->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_UDP;

	pkts[0] = a;
	pkts[1] = mk_nth(&x, 1, 2);
	pkts[2] = b;
	pkts[3] = mk_nth(&y, 0, 2);
	pkts[4] = cc;
	pkts[5] = mk_nth(&x, 0, 2);  /* completes x */
	pkts[6] = dd;
	pkts[7] = mk_nth(&xv, 0, 2);
	pkts[8] = mk_nth(&y, 1, 2);  /* completes y */
	pkts[9] = e;
	pkts[10] = mk_nth(&xv, 1, 2); /* completes xv (VLAN-tagged) */
	pkts[11] = g;
	n = fx_run(&f, pkts, 12, 6);
	CU_ASSERT_EQUAL_FATAL(n, 9);
	CU_ASSERT_PTR_EQUAL(pkts[0], a);
	CU_ASSERT_PTR_EQUAL(pkts[1], b);
	CU_ASSERT_PTR_EQUAL(pkts[2], cc);
	CU_ASSERT_PTR_EQUAL(pkts[4], dd);
	CU_ASSERT_PTR_EQUAL(pkts[6], e);
	CU_ASSERT_PTR_EQUAL(pkts[8], g);
	/* the passed packets are untouched */
	CU_ASSERT_EQUAL_FATAL(rte_pktmbuf_pkt_len(cc), atomic_len);
	CU_ASSERT(memcmp(rte_pktmbuf_mtod(cc, void *), atomic, atomic_len) == 0);
	CU_ASSERT_EQUAL(cc->packet_type,
			RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6_EXT | RTE_PTYPE_L4_UDP);
	fx_took(&f, pkts[3], &x, 2, 2);
	fx_took(&f, pkts[5], &y, 2, 2);
	fx_took(&f, pkts[7], &xv, 2, 2);
	CU_ASSERT_EQUAL(f.st.frags_in, 6);
	CU_ASSERT_EQUAL(f.st.frags_reassembled, 3);
	CU_ASSERT_EQUAL(f.st.processed, 3);
	/* reassembled datagrams are not counted again as packets the parser saw */
	CU_ASSERT_EQUAL(f.st.pkts_ipv4 + f.st.pkts_ipv6 + f.st.pkts_udp, 0);
	for (uint16_t i = 0; i < n; i++)
		if (i != 3 && i != 5 && i != 7)
			rte_pktmbuf_free(pkts[i]);
	fx_fini(&f);
	CU_ASSERT_EQUAL(dropped_total(&f.st), 0);
}

/* 8-byte fragments, shuffled, IPv4 and IPv6; and a stage run after the real parse. */
static void
test_tiny_and_parsed(void)
{
	for (int v6 = 0; v6 < 2; v6++)
		for (int parsed = 0; parsed < 2; parsed++) {
			struct dg d = { .v6 = v6, .id = 7, .l4_len = 48, .vlan = parsed };
			struct rte_mbuf *pkts[6];
			unsigned int idx[6];
			struct fx f;
			uint16_t n;

			fx_init(&f, 64, 1000);
			order(idx, 6, 3);
			for (unsigned int i = 0; i < 6; i++)
				pkts[i] = mk_nth(&d, idx[i], 6);
			if (parsed) {
				for (unsigned int i = 0; i < 6; i++) {
					pkts[i]->l2_len = 0;
					pkts[i]->packet_type = 0;
				}
				CU_ASSERT_EQUAL_FATAL(rps_stage_parse(&f.c, pkts, 6), 6);
				CU_ASSERT_EQUAL(f.st.pkts_fragment, 6);
			}
			n = fx_run(&f, pkts, 6, 0);
			CU_ASSERT_EQUAL_FATAL(n, 1);
			fx_took(&f, pkts[0], &d, 6, 6);
			fx_fini(&f);
			CU_ASSERT_EQUAL(dropped_total(&f.st), 0);
			CU_ASSERT_EQUAL(f.st.frags_absorbed, 5);
		}
}

/* Fragments in two segments (data split anywhere after the headers), with padding. */
static void
test_multiseg_and_padding(void)
{
	for (int v6 = 0; v6 < 2; v6++) {
		struct dg d = { .v6 = v6, .id = 9, .l4_len = 72 };
		struct dg pd = { .id = 10, .l4_len = 96 };
		uint16_t hdr = (uint16_t)(ETH_LEN + (v6 ? 48 : 20));
		struct rte_mbuf *pkts[4];
		struct fx f;

		/* split right after the headers, in the middle, one byte before the end */
		fx_init(&f, 64, 1000);
		pkts[0] = mk_ex(&d, 24, 24, 1, hdr, 0);
		pkts[1] = mk_ex(&d, 48, 24, 0, (uint16_t)(hdr + 23), 0);
		pkts[2] = mk_ex(&d, 0, 24, 1, (uint16_t)(hdr + 7), 0);
		CU_ASSERT_EQUAL_FATAL(fx_run(&f, pkts, 3, 0), 1);
		fx_took(&f, pkts[0], &d, 3, 6);
		fx_fini(&f);
		CU_ASSERT_EQUAL(dropped_total(&f.st), 0);

		/* Ethernet padding: in one segment; in the last of two; over both; a whole
		 * segment of it (freed) */
		fx_init(&f, 64, 1000);
		pd.v6 = v6;
		pkts[0] = mk_ex(&pd, 0, 24, 1, 0, 10);
		pkts[1] = mk_ex(&pd, 24, 24, 1, (uint16_t)(hdr + 20), 9);
		pkts[2] = mk_ex(&pd, 48, 24, 1, (uint16_t)(hdr + 27), 9);
		pkts[3] = mk_ex(&pd, 72, 24, 0, (uint16_t)(hdr + 24), 12);
		CU_ASSERT_EQUAL_FATAL(fx_run(&f, pkts, 4, 0), 1);
		fx_took(&f, pkts[0], &pd, 4, 5);
		fx_fini(&f);
		CU_ASSERT_EQUAL(dropped_total(&f.st), 0);

		/* headers split across segments: rte_ip_frag cannot take it */
		fx_init(&f, 64, 1000);
		pkts[0] = mk_ex(&d, 0, 24, 1, 10, 0);
		pkts[1] = mk_ex(&d, 24, 24, 1, (uint16_t)(hdr - 1), 0);
		CU_ASSERT_EQUAL(fx_run(&f, pkts, 2, 0), 0);
		CU_ASSERT_EQUAL(f.st.frags_in, 2);
		CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_ERROR], 2);
		fx_fini(&f);
		CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_TIMEOUT], 0);
	}
}

/* More fragments than RTE_LIBRTE_IP_FRAG_MAX_FRAG: the whole datagram is an error. */
static void
test_too_many(void)
{
	const unsigned int k = RTE_LIBRTE_IP_FRAG_MAX_FRAG + 1;

	CU_ASSERT_EQUAL(RTE_LIBRTE_IP_FRAG_MAX_FRAG, 8);
	for (int v6 = 0; v6 < 2; v6++) {
		struct dg d = { .v6 = v6, .id = 11, .l4_len = k * 8 };
		struct rte_mbuf *pkts[16];
		struct fx f;

		/* in order: the 9th fragment is a middle one; it and the 8 held are dropped, the
		 * last one then starts a new datagram that never completes */
		fx_init(&f, 64, 1000);
		for (unsigned int i = 0; i < k; i++)
			pkts[i] = mk_nth(&d, i, k);
		CU_ASSERT_EQUAL(fx_run(&f, pkts, (uint16_t)k, 0), 0);
		CU_ASSERT_EQUAL(f.st.frags_in, k);
		CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_ERROR], k - 1);
		fx_fini(&f);
		CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_TIMEOUT], 1);

		/* last and first fragments first: the 7th middle one overflows, all 9 are
		 * errors, nothing is left held */
		fx_init(&f, 64, 1000);
		pkts[0] = mk_nth(&d, k - 1, k);
		for (unsigned int i = 0; i + 1 < k; i++)
			pkts[i + 1] = mk_nth(&d, i, k);
		CU_ASSERT_EQUAL(fx_run(&f, pkts, (uint16_t)k, 0), 0);
		CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_ERROR], k);
		fx_fini(&f);
		CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_TIMEOUT], 0);
	}
}

/* A fragment of a test datagram: [ofs, ofs + len), and whether more follow. */
struct frag {
	uint32_t ofs, len;
	int mf;
};

/*
 * The @p n (at most 4) fragments @p fr of @p d, in one burst on a fresh table of 64
 * datagrams (1 s timeout): none comes out, @p errors are counted as frag_error and, unless @p timeouts is negative,
 * @p timeouts as frag_timeout once the table is destroyed.
 */
static void
expect_no_dgram(const struct dg *d, const struct frag *fr, uint16_t n, uint64_t errors,
		int timeouts)
{
	struct rte_mbuf *pkts[4];
	struct fx f;

	fx_init(&f, 64, 1000);
	for (uint16_t i = 0; i < n; i++)
		pkts[i] = mk(d, fr[i].ofs, fr[i].len, fr[i].mf);
	CU_ASSERT_EQUAL(fx_run(&f, pkts, n, 0), 0);
	CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_ERROR], errors);
	fx_fini(&f);
	if (timeouts >= 0)
		CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_TIMEOUT], (uint64_t)timeouts);
}

/* Overlaps and duplicates: every fragment involved is a frag_error, none leaks. */
static void
test_overlap_duplicate(void)
{
	static const struct {
		struct frag fr[4];
		uint16_t n;
		uint64_t errors;
		int timeouts; /* -1: not checked */
	} cases[] = {
		/* [0,16) [8,24) [24,32): more bytes than the datagram */
		{ { { 0, 16, 1 }, { 8, 16, 1 }, { 24, 8, 0 } }, 3, 3, 0 },
		/* [0,8) [16,24) [16,24) [24,32): the byte count matches, the chain has a hole;
		 * rte_ip_frag links two of them before noticing, so its death row holds three
		 * chains for four fragments */
		{ { { 0, 8, 1 }, { 16, 8, 1 }, { 16, 8, 1 }, { 24, 8, 0 } }, 4, 4, 0 },
		/* a duplicate middle fragment */
		{ { { 0, 8, 1 }, { 8, 8, 1 }, { 8, 8, 1 }, { 16, 16, 0 } }, 4, 4, -1 },
		/* a duplicate first fragment: both dropped; the last then waits alone */
		{ { { 0, 16, 1 }, { 0, 16, 1 }, { 16, 16, 0 } }, 3, 2, 1 },
	};

	for (int v6 = 0; v6 < 2; v6++) {
		struct dg d = { .v6 = v6, .id = 12, .l4_len = 32 };
		struct rte_mbuf *pkts[8];
		struct fx f;

		for (unsigned int i = 0; i < RTE_DIM(cases); i++)
			expect_no_dgram(&d, cases[i].fr, cases[i].n, cases[i].errors,
					cases[i].timeouts);

		/* a duplicate after completion starts a new datagram, which times out */
		fx_init(&f, 64, 1000);
		pkts[0] = mk(&d, 0, 16, 1);
		pkts[1] = mk(&d, 16, 16, 0);
		pkts[2] = mk(&d, 16, 16, 0);
		CU_ASSERT_EQUAL_FATAL(fx_run(&f, pkts, 3, 0), 1);
		fx_took(&f, pkts[0], &d, 2, 2);
		fx_fini(&f);
		CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_ERROR], 0);
		CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_TIMEOUT], 1);
	}
}

/* A datagram missing a fragment expires on tick; a stale one met in the stage too. */
static void
test_timeout(void)
{
	for (int v6 = 0; v6 < 2; v6++) {
		struct dg x = { .v6 = v6, .id = 20, .l4_len = 24 };
		struct dg y = { .v6 = v6, .id = 21, .l4_len = 16 };
		struct rte_mbuf *pkts[4];
		struct fx f;

		fx_init(&f, 64, 10);
		pkts[0] = mk_nth(&x, 0, 3);
		CU_ASSERT_EQUAL(fx_run(&f, pkts, 1, 0), 0);
		f.c.now = T0 + 6 * f.ms;
		pkts[0] = mk_nth(&x, 2, 3);
		CU_ASSERT_EQUAL(fx_run(&f, pkts, 1, 0), 0);
		rps_reasm_tick(&f.c);
		f.c.now = T0 + 10 * f.ms; /* exactly the timeout: not yet */
		rps_reasm_tick(&f.c);
		CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_TIMEOUT], 0);
		f.c.now = T0 + 10 * f.ms + 1;
		rps_reasm_tick(&f.c);
		CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_TIMEOUT], 2);
		/* the missing middle one, late: alone now, dropped at exit */
		pkts[0] = mk_nth(&x, 1, 3);
		CU_ASSERT_EQUAL(fx_run(&f, pkts, 1, 0), 0);
		rps_reasm_tick(&f.c);
		CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_TIMEOUT], 2);

		/* y's first fragment goes stale without a tick; its second, 20 ms later, meets
		 * it in the table: a timeout, not an error; then y completes anew */
		f.c.now = T0 + 100 * f.ms;
		pkts[0] = mk_nth(&y, 0, 2);
		CU_ASSERT_EQUAL(fx_run(&f, pkts, 1, 0), 0);
		f.c.now = T0 + 120 * f.ms;
		pkts[0] = mk_nth(&y, 1, 2);
		pkts[1] = mk_nth(&y, 0, 2);
		CU_ASSERT_EQUAL_FATAL(fx_run(&f, pkts, 2, 0), 1);
		fx_took(&f, pkts[0], &y, 2, 2);
		CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_ERROR], 0);
		/* x's late middle fragment expired at the same sweep */
		CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_TIMEOUT], 4);
		fx_fini(&f);
		CU_ASSERT_EQUAL(f.st.frags_in, 6);
		CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_TIMEOUT], 4);
		CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_ERROR], 0);
	}
}

/* Fragments still held at exit are frag_timeout; many datagrams, more than a death row. */
static void
test_destroy_held(void)
{
	struct rte_mbuf *pkts[64];
	struct fx f;
	uint16_t n = 0;

	fx_init(&f, 512, 1000); /* room for all: nothing evicted */
	for (uint16_t i = 0; i < 60; i++) {
		struct dg d = { .v6 = i & 1, .id = (uint16_t)(300 + i), .l4_len = 64,
				.opt_len = (i % 3 == 0 && !(i & 1)) ? 4 : 0 };

		/* 6 of 8 fragments: 360 fragments held, more than RTE_IP_FRAG_DEATH_ROW_MBUF_LEN */
		for (unsigned int j = 0; j < 6; j++) {
			pkts[0] = i % 4 == 1 ? mk_ex(&d, j * 8, 8, 1,
						     (uint16_t)(ETH_LEN + 48 + 3), 0) :
					       mk_nth(&d, j, 8);
			CU_ASSERT_EQUAL(fx_run(&f, pkts, 1, 0), 0);
			n++;
		}
	}
	CU_ASSERT(n > RTE_IP_FRAG_DEATH_ROW_MBUF_LEN);
	CU_ASSERT_EQUAL(f.st.frags_in, n);
	CU_ASSERT_EQUAL(dropped_total(&f.st), 0);
	rps_reasm_tick(&f.c);
	CU_ASSERT_EQUAL(dropped_total(&f.st), 0);
	fx_fini(&f);
	CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_TIMEOUT], n);
	CU_ASSERT_EQUAL(dropped_total(&f.st), n);

	/* the same through a tick after the timeout */
	fx_init(&f, 512, 5);
	for (uint16_t i = 0; i < 60; i++) {
		struct dg d = { .v6 = i & 1, .id = (uint16_t)(400 + i), .l4_len = 64 };

		for (unsigned int j = 0; j < 5; j++) {
			pkts[0] = mk_nth(&d, j, 8);
			CU_ASSERT_EQUAL(fx_run(&f, pkts, 1, 0), 0);
		}
	}
	f.c.now = T0 + 6 * f.ms;
	rps_reasm_tick(&f.c);
	CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_TIMEOUT], 300);
	fx_fini(&f);
	CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_TIMEOUT], 300);
}

/* Fragments refused before the table (frags_in, frag_error) and malformed ones (not). */
static void
test_refused(void)
{
	struct dg v4 = { .id = 30, .l4_len = 64 };
	struct dg v6 = { .v6 = 1, .id = 31, .l4_len = 64 };
	struct dg hbh = { .v6 = 1, .hbh = 1, .id = 32, .l4_len = 64 };
	struct rte_mbuf *pkts[16];
	struct fx f;
	uint32_t n;

	fx_init(&f, 64, 1000);
	/* an AH header before the fragment header (hop-by-hop ones reassemble: test_v6_ext) */
	for (int i = 0; i < 2; i++) {
		n = frame(fbuf, &hbh, (uint32_t)i * 16, 16, !i, 0, 0);
		fbuf[ETH_LEN + 6] = 51;
		fbuf[ETH_LEN + 40 + 1] = 0; /* (0 + 2) * 4 bytes */
		pkts[i] = ut_mbuf_exact(fbuf, (uint16_t)n);
		CU_ASSERT_PTR_NOT_NULL_FATAL(pkts[i]);
		prep(pkts[i], &hbh);
	}
	pkts[2] = mk(&v4, 0, 12, 1);        /* middle length not a multiple of 8 */
	pkts[3] = mk(&v6, 8, 20, 1);
	pkts[4] = mk(&v4, 8, 0, 1);         /* no payload */
	pkts[5] = mk(&v6, 8, 0, 0);
	pkts[6] = mk(&v4, 65528, 8, 0);     /* past 65535 bytes */
	pkts[7] = mk(&v6, 65528, 8, 0);
	/* IP length longer than the frame: bad_length, not a fragment given to reassembly */
	n = frame(fbuf, &v4, 0, 16, 1, 0, 0);
	fbuf[ETH_LEN + 3] += 4;
	((struct rte_ipv4_hdr *)(fbuf + ETH_LEN))->hdr_checksum = 0;
	((struct rte_ipv4_hdr *)(fbuf + ETH_LEN))->hdr_checksum =
		rte_ipv4_cksum((struct rte_ipv4_hdr *)(fbuf + ETH_LEN));
	pkts[8] = ut_mbuf_exact(fbuf, (uint16_t)n);
	n = frame(fbuf, &v6, 0, 16, 1, 0, 0);
	fbuf[ETH_LEN + 5] += 1;
	pkts[9] = ut_mbuf_exact(fbuf, (uint16_t)n);
	/* IPv4 length shorter than its header */
	n = frame(fbuf, &v4, 16, 16, 1, 0, 0);
	fbuf[ETH_LEN + 2] = 0;
	fbuf[ETH_LEN + 3] = 12;
	pkts[10] = ut_mbuf_exact(fbuf, (uint16_t)n);
	/* IPv6 fragment header cut off by the end of the frame */
	n = frame(fbuf, &v6, 0, 16, 1, 0, 0);
	pkts[11] = ut_mbuf_exact(fbuf, (uint16_t)(ETH_LEN + 40 + 4));
	CU_ASSERT_FATAL(pkts[8] && pkts[9] && pkts[10] && pkts[11]);
	prep(pkts[8], &v4);
	prep(pkts[9], &v6);
	prep(pkts[10], &v4);
	prep(pkts[11], &v6);
	CU_ASSERT_EQUAL(fx_run(&f, pkts, 12, 0), 0);
	CU_ASSERT_EQUAL(f.st.frags_in, 8);
	CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_ERROR], 8);
	CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_BAD_LENGTH], 3);
	CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_TRUNCATED], 1);
	fx_fini(&f);
	CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_TIMEOUT], 0);
}

/* Datagrams at the size limit: 65535 bytes reassemble; one byte more (options in the first
 * fragment) is a frag_error for every fragment. */
static void
test_size_limit(void)
{
	for (int over = 0; over < 2; over++) {
		struct dg d = { .id = 40, .opt_len = 40, .l4_len = 65535 - 60 + (uint32_t)over };
		struct rte_mbuf *pkts[2];
		struct fx f;
		uint16_t n;

		fx_init(&f, 64, 1000);
		pkts[0] = mk(&d, 32768, d.l4_len - 32768, 0);
		pkts[1] = mk_ex(&d, 0, 32768, 1, 1000, 0);
		n = fx_run(&f, pkts, 2, 0);
		CU_ASSERT_EQUAL(n, over ? 0 : 1);
		if (n == 1)
			fx_took(&f, pkts[0], &d, 2, 3);
		CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_ERROR], over ? 2u : 0u);
		fx_fini(&f);
	}
	{ /* IPv6: a 65535-byte payload reassembles */
		struct dg d = { .v6 = 1, .id = 41, .l4_len = 65535 };
		struct rte_mbuf *pkts[2];
		struct fx f;

		fx_init(&f, 64, 1000);
		pkts[0] = mk(&d, 0, 32768, 1);
		pkts[1] = mk(&d, 32768, 65535 - 32768, 0);
		CU_ASSERT_EQUAL_FATAL(fx_run(&f, pkts, 2, 0), 1);
		fx_took(&f, pkts[0], &d, 2, 2);
		fx_fini(&f);
		CU_ASSERT_EQUAL(dropped_total(&f.st), 0);
	}
}

/* A full table (max_datagrams 2: fewer than 2 fragments held) evicts its oldest datagram,
 * just one, for a new fragment instead of refusing it (frag_evicted, not frag_error). */
static void
test_table_full(void)
{
	struct dg d[4];
	struct rte_mbuf *pkts[4];
	struct fx f;

	for (int i = 0; i < 4; i++)
		d[i] = (struct dg){ .v6 = i == 1, .id = (uint16_t)(50 + i), .l4_len = 16 };
	fx_init(&f, 2, 1000);
	pkts[0] = mk_nth(&d[0], 0, 2);
	pkts[1] = mk_nth(&d[1], 0, 2);
	pkts[2] = mk_nth(&d[2], 0, 2);     /* no room: d[0], the oldest, goes */
	CU_ASSERT_EQUAL(fx_run(&f, pkts, 3, 0), 0);
	CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_EVICTED], 1);
	CU_ASSERT_EQUAL(rps_reasm_held(f.c.reasm), 2);
	pkts[0] = mk_nth(&d[2], 1, 2);     /* the newest completes: d[1] goes */
	CU_ASSERT_EQUAL_FATAL(fx_run(&f, pkts, 1, 0), 1);
	fx_took(&f, pkts[0], &d[2], 2, 2);
	CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_EVICTED], 2);
	pkts[0] = mk_nth(&d[3], 0, 2);     /* room again: nothing evicted */
	pkts[1] = mk_nth(&d[3], 1, 2);
	CU_ASSERT_EQUAL_FATAL(fx_run(&f, pkts, 2, 0), 1);
	fx_took(&f, pkts[0], &d[3], 2, 2);
	CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_EVICTED], 2);
	CU_ASSERT_EQUAL(rps_reasm_held(f.c.reasm), 0);
	fx_fini(&f);
	CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_ERROR], 0);
	CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_TIMEOUT], 0);
}

/*
 * The mbuf budget: a flood of datagrams that never complete (first fragments only, some in
 * two segments) never holds more than the budget; the oldest are evicted first, one
 * fragment's worth at a time, so the newest still complete and a complete datagram that
 * arrives in the middle of the flood comes out; exact accounting.
 */
static void
test_budget(void)
{
	enum { FLOOD = 3000, BUDGET = 40 };
	struct rte_mbuf *pkts[32];
	struct fx f;
	uint64_t max_held = 0;

	CU_ASSERT_EQUAL(rps_reasm_set_budget(NULL, 64), -EINVAL);
	fx_init(&f, 4096, 1000);
	CU_ASSERT_EQUAL(rps_reasm_budget(f.c.reasm), 4096);
	CU_ASSERT_EQUAL(rps_reasm_set_budget(f.c.reasm, RPS_REASM_MIN_BUDGET - 1), -EINVAL);
	CU_ASSERT_EQUAL(rps_reasm_set_budget(f.c.reasm, BUDGET), 0);
	CU_ASSERT_EQUAL(rps_reasm_budget(f.c.reasm), BUDGET);
	for (uint32_t i = 0; i < FLOOD; i += 16) {
		uint16_t n = 0, got;

		for (uint32_t j = i; j < i + 16; j++) {
			struct dg d = { .v6 = j & 1, .id = (uint16_t)(2000 + j), .l4_len = 64 };

			/* the first 2 of 4 fragments, every third one in two segments */
			pkts[n++] = j % 3 ? mk_nth(&d, 0, 4) :
				    mk_ex(&d, 0, 16, 1, (uint16_t)(ETH_LEN + (d.v6 ? 48 : 20) + 4), 0);
			pkts[n++] = mk_nth(&d, 1, 4);
		}
		if (i == 1600) { /* a whole datagram in the middle of the flood */
			struct dg ok = { .id = 7, .l4_len = 64 };

			for (unsigned int k = 0; k < 4; k++) { /* instead of 2 flood datagrams */
				rte_pktmbuf_free(pkts[n - 4 + k]);
				pkts[n - 4 + k] = mk_nth(&ok, k, 4);
			}
		}
		f.c.now += f.ms / 100;
		got = fx_run(&f, pkts, n, 0);
		max_held = RTE_MAX(max_held, rps_reasm_held_mbufs(f.c.reasm));
		CU_ASSERT(rps_reasm_held_mbufs(f.c.reasm) <= BUDGET);
		CU_ASSERT(rps_reasm_held(f.c.reasm) < 4096);
		CU_ASSERT_EQUAL(got, i == 1600 ? 1 : 0);
		if (got == 1) {
			struct dg ok = { .id = 7, .l4_len = 64 };

			fx_took(&f, pkts[0], &ok, 4, 4);
		}
	}
	CU_ASSERT(max_held > BUDGET - 3);
	CU_ASSERT(f.st.dropped[RPS_DROP_FRAG_EVICTED] > FLOOD);
	CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_ERROR], 0);
	/* the newest datagram is still there: its last fragments complete it */
	{
		struct dg d = { .v6 = (FLOOD - 1) & 1, .id = (uint16_t)(2000 + FLOOD - 1),
				.l4_len = 64 };
		struct dg old = { .v6 = 0, .id = 2000, .l4_len = 64 };
		uint64_t ev = f.st.dropped[RPS_DROP_FRAG_EVICTED];

		pkts[0] = mk_nth(&d, 2, 4);
		pkts[1] = mk_nth(&d, 3, 4);
		CU_ASSERT_EQUAL_FATAL(fx_run(&f, pkts, 2, 0), 1);
		fx_took(&f, pkts[0], &d, 4, 0);
		/* the oldest is gone: its last fragments start a new datagram */
		pkts[0] = mk_nth(&old, 2, 4);
		pkts[1] = mk_nth(&old, 3, 4);
		CU_ASSERT_EQUAL(fx_run(&f, pkts, 2, 0), 0);
		/* two fragments of one mbuf each made room for two more: at most 2 evicted */
		CU_ASSERT(f.st.dropped[RPS_DROP_FRAG_EVICTED] - ev <= 2 + 2);
	}
	/* lowering the budget evicts down to it with the next fragment */
	CU_ASSERT_EQUAL(rps_reasm_set_budget(f.c.reasm, 16), 0);
	{
		struct dg d = { .id = 9, .l4_len = 64 };

		pkts[0] = mk_nth(&d, 0, 4);
		CU_ASSERT_EQUAL(fx_run(&f, pkts, 1, 0), 0);
		CU_ASSERT(rps_reasm_held_mbufs(f.c.reasm) <= 16);
	}
	fx_fini(&f);
}

/* A fragment over the budget by itself is refused (frag_error), nothing is evicted for it. */
static void
test_budget_one_fragment(void)
{
	struct dg d = { .id = 11, .l4_len = 4000 };
	struct dg small = { .id = 12, .l4_len = 64 };
	struct rte_mbuf *pkts[2], *m, *s;
	struct fx f;

	fx_init(&f, 64, 1000);
	CU_ASSERT_EQUAL(rps_reasm_set_budget(f.c.reasm, 16), 0);
	pkts[0] = mk_nth(&small, 0, 2);
	CU_ASSERT_EQUAL(fx_run(&f, pkts, 1, 0), 0);
	/* 17 segments: the first 2 bytes into the second segment, then 1 byte each */
	m = mk_ex(&d, 0, 2000, 1, (uint16_t)(ETH_LEN + 20 + 2), 0);
	s = m->next;
	for (int i = 0; i < 15; i++) { /* move the big segment's last byte into a new one */
		struct rte_mbuf *t = rte_pktmbuf_alloc(m->pool);

		CU_ASSERT_PTR_NOT_NULL_FATAL(t);
		s->data_len--;
		*rte_pktmbuf_mtod(t, uint8_t *) = rte_pktmbuf_mtod(s, uint8_t *)[s->data_len];
		t->data_len = 1;
		t->next = s->next;
		s->next = t;
		m->nb_segs++;
	}
	CU_ASSERT_EQUAL(m->nb_segs, 17);
	pkts[0] = m;
	CU_ASSERT_EQUAL(fx_run(&f, pkts, 1, 0), 0);
	CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_ERROR], 1);
	CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_FRAG_EVICTED], 0);
	CU_ASSERT_EQUAL(rps_reasm_held(f.c.reasm), 1);
	fx_fini(&f);
}

/* IPv6 fragments with hop-by-hop, destination-options and routing headers before the
 * fragment header reassemble into the datagram with the first fragment's headers. */
static void
test_v6_ext(void)
{
	static const unsigned int ks[] = { 2, 4 };

	for (int hbh = 1; hbh <= 3; hbh++)
		for (unsigned int ki = 0; ki < RTE_DIM(ks); ki++)
			for (unsigned int ord = 0; ord < 3; ord++) {
				unsigned int k = ks[ki], idx[8];
				struct dg d = { .v6 = 1, .hbh = hbh, .vlan = ord == 2,
						.id = (uint16_t)(500 + hbh * 10 + ki * 3 + ord),
						.l4_len = k * 24 };
				struct rte_mbuf *pkts[8];
				struct fx f;

				fx_init(&f, 64, 1000);
				order(idx, k, ord);
				for (unsigned int i = 0; i < k; i++)
					pkts[i] = mk_nth(&d, idx[i], k);
				CU_ASSERT_EQUAL_FATAL(fx_run(&f, pkts, (uint16_t)k, 0), 1);
				fx_took(&f, pkts[0], &d, (uint16_t)k, (uint16_t)k);
				fx_fini(&f);
				CU_ASSERT_EQUAL(dropped_total(&f.st), 0);
			}
	{ /* two such datagrams interleaved with a plain one, and an atomic fragment */
		struct dg a = { .v6 = 1, .hbh = 2, .id = 601, .l4_len = 48 };
		struct dg b = { .v6 = 1, .id = 602, .l4_len = 48 };
		struct dg c = { .v6 = 1, .hbh = 3, .id = 603, .l4_len = 48 };
		struct dg at = { .v6 = 1, .hbh = 1, .id = 604, .l4_len = 16 };
		struct rte_mbuf *pkts[8];
		struct fx f;

		fx_init(&f, 64, 1000);
		pkts[0] = mk_nth(&a, 1, 2);
		pkts[1] = mk_nth(&b, 0, 2);
		pkts[2] = mk_nth(&c, 0, 2);
		pkts[3] = mk(&at, 0, 16, 0); /* offset 0, M 0: a whole packet, passed as is */
		pkts[4] = mk_nth(&a, 0, 2);
		pkts[5] = mk_nth(&c, 1, 2);
		pkts[6] = mk_nth(&b, 1, 2);
		CU_ASSERT_EQUAL_FATAL(fx_run(&f, pkts, 7, 1), 4);
		rte_pktmbuf_free(pkts[0]);
		fx_took(&f, pkts[1], &a, 2, 2);
		fx_took(&f, pkts[2], &c, 2, 2);
		fx_took(&f, pkts[3], &b, 2, 2);
		fx_fini(&f);
		CU_ASSERT_EQUAL(dropped_total(&f.st), 0);
	}
}

/* With the validate stage (rps_reasm_set_check_l4), a completed datagram's UDP checksum is
 * verified over the whole datagram: a wrong one is dropped once as bad_l4_checksum. */
static void
test_l4_cksum(void)
{
	for (int v = 0; v < 3; v++)
		for (int good = 0; good < 2; good++)
			for (int check = 0; check < 2; check++) {
				struct dg d = { .v6 = v != 0, .hbh = v == 2 ? 3 : 0,
						.opt_len = v == 0 ? 8 : 0,
						.id = (uint16_t)(700 + v * 4 + good * 2 + check),
						.l4_len = 120 };
				struct rte_mbuf *pkts[4];
				struct fx f;
				uint16_t n;

				set_cksum(&d, good);
				fx_init(&f, 64, 1000);
				rps_reasm_set_check_l4(f.c.reasm, check);
				for (unsigned int i = 0; i < 3; i++)
					pkts[i] = mk_nth(&d, 2 - i, 3);
				n = fx_run(&f, pkts, 3, 0);
				CU_ASSERT_EQUAL(n, good || !check ? 1 : 0);
				if (n == 1)
					fx_took(&f, pkts[0], &d, 3, 3);
				CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_BAD_L4_CHECKSUM],
						good || !check ? 0u : 1u);
				CU_ASSERT_EQUAL(f.st.cksum_sw, check ? 1u : 0u);
				CU_ASSERT_EQUAL(f.st.frags_reassembled, 1);
				CU_ASSERT_EQUAL(f.st.processed, 2);
				rps_reasm_destroy(f.c.reasm, &f.st);
				f.c.reasm = NULL;
				CU_ASSERT_EQUAL(f.st.processed + n + dropped_total(&f.st), 3);
				CU_ASSERT_EQUAL(ut_pool_avail(), f.pool0);
			}
	{ /* UDP over IPv4 without a checksum (0) passes */
		struct dg d = { .id = 720, .l4_len = 64 };
		struct rte_mbuf *pkts[2];
		struct fx f;

		fx_init(&f, 64, 1000);
		rps_reasm_set_check_l4(f.c.reasm, 1);
		pkts[0] = mk_nth(&d, 0, 2);
		pkts[1] = mk_nth(&d, 1, 2);
		CU_ASSERT_EQUAL_FATAL(fx_run(&f, pkts, 2, 0), 1);
		fx_took(&f, pkts[0], &d, 2, 2);
		fx_fini(&f);
		CU_ASSERT_EQUAL(dropped_total(&f.st), 0);
	}
}

/* A datagram the re-parse refuses is dropped under parse's reason, counted once. */
static void
test_reparse_drop(void)
{
	struct dg d = { .id = 60, .proto = IPPROTO_TCP, .tcp_doff = 0x20, .l4_len = 40 };
	struct dg ok = { .id = 61, .proto = IPPROTO_TCP, .l4_len = 40 };
	struct rte_mbuf *pkts[4];
	struct fx f;

	fx_init(&f, 64, 1000);
	pkts[0] = mk(&d, 0, 24, 1);
	pkts[1] = mk(&d, 24, 16, 0);
	pkts[2] = mk(&ok, 24, 16, 0);
	pkts[3] = mk(&ok, 0, 24, 1);
	CU_ASSERT_EQUAL_FATAL(fx_run(&f, pkts, 4, 0), 1);
	CU_ASSERT_EQUAL(pkts[0]->l4_len, 20);
	fx_took(&f, pkts[0], &ok, 2, 2);
	CU_ASSERT_EQUAL(f.st.frags_reassembled, 2);
	CU_ASSERT_EQUAL(f.st.dropped[RPS_DROP_BAD_HEADER], 1);
	/* the dropped datagram was completed: among reassembled, its k-1 absorbed */
	CU_ASSERT_EQUAL(f.st.processed, 2);
	CU_ASSERT_EQUAL(f.st.pkts_tcp, 0);
	rps_reasm_destroy(f.c.reasm, &f.st);
	f.c.reasm = NULL;
	CU_ASSERT_EQUAL(f.st.frags_in, 4);
	CU_ASSERT_EQUAL(f.st.frags_absorbed, 2);
	/* 4 given: 2 absorbed (processed) + 1 datagram out + 1 datagram dropped */
	CU_ASSERT_EQUAL(f.st.processed + 1 + dropped_total(&f.st), 4);
	CU_ASSERT_EQUAL(ut_pool_avail(), f.pool0);
}

/* Parameters, and a stage without a table. */
static void
test_create_and_null(void)
{
	struct rps_lcore_stats st;
	struct rps_stage_ctx c = { .st = &st };
	struct dg d = { .id = 70, .l4_len = 16 };
	struct rte_mbuf *m;
	struct rps_reasm *r;

	memset(&st, 0, sizeof(st));
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(rps_reasm_create(0, 100, SOCKET_ID_ANY));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(rps_reasm_create(16, 0, SOCKET_ID_ANY));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(rps_reasm_create(16, 600001, SOCKET_ID_ANY));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	r = rps_reasm_create(4096, 600000, SOCKET_ID_ANY);
	CU_ASSERT_PTR_NOT_NULL(r);
	rps_reasm_destroy(r, &st);
	rps_reasm_destroy(NULL, &st);
	rps_reasm_tick(&c);
	m = mk(&d, 0, 8, 1);
	CU_ASSERT_EQUAL(rps_stage_reassemble(&c, &m, 1), 1);
	rte_pktmbuf_free(m);
	CU_ASSERT_EQUAL(dropped_total(&st), 0);
	CU_ASSERT_EQUAL(st.frags_in, 0);
}

/* Random fragment soup: shuffled fragments of many datagrams, some lost, some duplicated,
 * some overlapping, in random bursts with time passing; the accounting stays exact. */
static void
test_random_soup(void)
{
	enum { DGRAMS = 400, MAXK = 8 };
	static struct rte_mbuf *all[DGRAMS * (MAXK + 2)];
	static struct dg ds[DGRAMS];
	uint64_t seed = 0x1234567;
	struct fx f;
	uint32_t n = 0;

	fx_init(&f, 1024, 3);
	for (int i = 0; i < DGRAMS; i++) {
		unsigned int k = 1 + (unsigned int)(ut_rand(&seed) % MAXK);
		uint64_t what = ut_rand(&seed) % 10;

		ds[i] = (struct dg){ .v6 = (int)(ut_rand(&seed) & 1), .id = (uint16_t)(1000 + i),
				     .l4_len = k * 16 };
		for (unsigned int j = 0; j < k; j++) {
			if (what == 0 && j == k / 2)
				continue; /* lost */
			/* k == 1: a lone first fragment (M set) that can never complete */
			all[n++] = k == 1 ? mk(&ds[i], 0, 16, 1) : mk_nth(&ds[i], j, k);
			if (what == 1 && j == 0) /* duplicate */
				all[n++] = k == 1 ? mk(&ds[i], 0, 16, 1) : mk_nth(&ds[i], j, k);
			if (what == 2 && j == 0 && k > 1)
				all[n++] = mk(&ds[i], 8, 16, 1); /* overlap */
		}
	}
	for (uint32_t i = n - 1; i > 0; i--) { /* shuffle within a window of 48 */
		uint32_t j = i - (uint32_t)(ut_rand(&seed) % RTE_MIN(i + 1, 48u));
		struct rte_mbuf *t = all[i];

		all[i] = all[j];
		all[j] = t;
	}
	for (uint32_t i = 0; i < n;) {
		uint16_t b = (uint16_t)RTE_MIN(n - i, 1 + ut_rand(&seed) % 32), got;

		f.c.now += f.ms / 4;
		got = fx_run(&f, &all[i], b, 0);
		for (uint16_t j = 0; j < got; j++) {
			struct rte_mbuf *m = all[i + j];
			uint32_t id = 0;
			const uint8_t *h;
			uint8_t hb[64];

			h = rte_pktmbuf_read(m, 0, ETH_LEN + 24, hb);
			CU_ASSERT_PTR_NOT_NULL_FATAL(h);
			id = RTE_ETH_IS_IPV4_HDR(m->packet_type) ?
			     (uint32_t)(h[ETH_LEN + 4] << 8 | h[ETH_LEN + 5]) :
			     (uint32_t)(h[ETH_LEN + 22] << 8 | h[ETH_LEN + 23]);
			CU_ASSERT_FATAL(id >= 1000 && id < 1000 + DGRAMS);
			check_dgram(m, &ds[id - 1000], 0);
			f.out++;
			rte_pktmbuf_free(m);
		}
		i += b;
		if (ut_rand(&seed) % 4 == 0)
			rps_reasm_tick(&f.c);
	}
	f.in_dg = f.st.frags_absorbed + f.out;
	fx_fini(&f);
	CU_ASSERT(f.out > DGRAMS / 2);
	CU_ASSERT(f.st.dropped[RPS_DROP_FRAG_ERROR] > 0);
	CU_ASSERT(f.st.dropped[RPS_DROP_FRAG_TIMEOUT] > 0);
	CU_ASSERT_EQUAL(f.given, n);
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "v4_orders", test_v4_orders },
		{ "v6_orders", test_v6_orders },
		{ "interleaved", test_interleaved },
		{ "tiny_and_parsed", test_tiny_and_parsed },
		{ "multiseg_and_padding", test_multiseg_and_padding },
		{ "too_many", test_too_many },
		{ "overlap_duplicate", test_overlap_duplicate },
		{ "timeout", test_timeout },
		{ "destroy_held", test_destroy_held },
		{ "refused", test_refused },
		{ "size_limit", test_size_limit },
		{ "table_full", test_table_full },
		{ "budget", test_budget },
		{ "v6_ext", test_v6_ext },
		{ "l4_cksum", test_l4_cksum },
		{ "budget_one_fragment", test_budget_one_fragment },
		{ "reparse_drop", test_reparse_drop },
		{ "create_and_null", test_create_and_null },
		{ "random_soup", test_random_soup },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "reassemble", tests);
}
