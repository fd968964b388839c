/* SPDX-License-Identifier: BSD-3-Clause */
/* test_inner.c: --inner, the inner flow key of tunnelled packets (lib/rps/hash.c's
 * rps_flow_key_extract_inner()) and its dispatch in rps_steer_hash(). */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>

#include "rps_hash.h"
#include "rps_steer.h"
#include "rps_toeplitz.h"
#include "test_common.h"

#define SEED UINT32_C(0x1badcafe)
#define ETH_LEN 14
#define IP4_LEN 20
#define IP6_LEN 40

#define P_IPIP 4
#define P_IPV6 41
#define P_GRE 47
#define TEB 0x6558

/* Outer addresses: one tunnel between two endpoints, whatever it carries. */
#define OUT4_SRC UT_IP4(0x1000)
#define OUT4_DST UT_IP4(0x1001)

static const struct rps_inner_cfg dflt; /* zeroed: VXLAN on 4789 */

/* ---- builders ---- */

/* The bare inner packet: Ethernet + IPv4/IPv6 + TCP/UDP + payload. */
static void
bare(struct ut_pkt *p, int family, uint8_t proto, uint32_t flow)
{
	if (family == 4)
		ut_pkt_v4(p, UT_IP4(0x100 + flow % 97), UT_IP4(0x2000 + flow % 13), proto,
			  (uint16_t)(1024 + flow), (uint16_t)(80 + flow % 7));
	else
		ut_pkt_v6(p, 0x100 + flow % 97, 0x2000 + flow % 13, proto,
			  (uint16_t)(1024 + flow), (uint16_t)(80 + flow % 7));
}

/* Ethernet + outer IPv4 or IPv6 (protocol @p proto), no options. */
static void
outer(struct ut_pkt *p, int family, uint8_t proto)
{
	ut_pkt_init(p);
	if (family == 4) {
		ut_put_eth(p, RTE_ETHER_TYPE_IPV4);
		ut_put_ipv4(p, OUT4_SRC, OUT4_DST, proto, 0, 0);
	} else {
		uint8_t s[16], d[16];

		ut_ip6(s, 0xfeed, 0x1000);
		ut_ip6(d, 0xfeed, 0x1001);
		ut_put_eth(p, RTE_ETHER_TYPE_IPV6);
		ut_put_ipv6(p, s, d, proto);
	}
}

/* Append the inner packet: the whole frame, or from its IP header when @p ip_only. */
static void
put_inner(struct ut_pkt *p, const struct ut_pkt *in, int ip_only)
{
	ut_put(p, in->b + (ip_only ? ETH_LEN : 0), (uint16_t)(in->len - (ip_only ? ETH_LEN : 0)));
	/* the outer lengths as a sender would write them; the last IP put is the outer one */
	ut_pkt_finish(p);
}

static void
put_vxlan(struct ut_pkt *p, uint8_t flags)
{
	const uint8_t h[8] = { flags, 0, 0, 0, 0x12, 0x34, 0x56, 0 };

	ut_put(p, h, sizeof(h));
}

/* GENEVE base header, @p opt_words words of options. */
static void
put_geneve(struct ut_pkt *p, uint8_t version, uint8_t opt_words, uint16_t proto)
{
	const uint8_t h[8] = { (uint8_t)(version << 6 | opt_words), 0, (uint8_t)(proto >> 8),
			       (uint8_t)proto, 0xab, 0xcd, 0xef, 0 };
	uint8_t *o;

	ut_put(p, h, sizeof(h));
	o = ut_put(p, NULL, (uint16_t)(opt_words * 4));
	memset(o, 0x5c, opt_words * 4u);
}

/* GTP-U header: @p flags (version/PT included), type, the optional word when E/S/PN, then the
 * extension headers @p ext (n of them, each @p ext_len[i] 4-byte units, types @p ext). */
static void
put_gtpu(struct ut_pkt *p, uint8_t flags, uint8_t type, const uint8_t *ext,
	 const uint8_t *ext_len, unsigned int n)
{
	const uint8_t h[8] = { flags, type, 0, 0, 0xde, 0xad, 0xbe, 0xef };

	ut_put(p, h, sizeof(h));
	if (flags & 0x07) {
		const uint8_t w[4] = { 0x12, 0x34, 0, n > 0 ? ext[0] : 0 };

		ut_put(p, w, sizeof(w));
	}
	for (unsigned int i = 0; i < n; i++) {
		uint16_t len = (uint16_t)(ext_len[i] * 4);
		uint8_t *e = ut_put(p, NULL, len);

		e[0] = ext_len[i];
		if (len > 0) {
			memset(e + 1, 0x77, len - 2u);
			e[len - 1] = i + 1 < n ? ext[i + 1] : 0;
		}
	}
}

/* GRE header with @p flags (host order), protocol @p proto, and the fields the flags ask for. */
static void
put_gre(struct ut_pkt *p, uint16_t flags, uint16_t proto)
{
	const uint8_t h[4] = { (uint8_t)(flags >> 8), (uint8_t)flags, (uint8_t)(proto >> 8),
			       (uint8_t)proto };
	int n = !!(flags & 0x8000) + !!(flags & 0x2000) + !!(flags & 0x1000);
	uint8_t *f;

	ut_put(p, h, sizeof(h));
	f = ut_put(p, NULL, (uint16_t)(4 * n));
	memset(f, 0xee, 4u * n);
}

/* ---- checks ---- */

/*
 * rps_flow_key_extract_inner() of the first @p len bytes, in every layout: an exact-size
 * buffer (ASan sees any over-read), a trimmed pool mbuf, a chain split at every offset; all
 * must agree. A result other than RPS_INNER_HASHED must leave the outer key; and
 * rps_inner_is_plain() may claim only RPS_INNER_PLAIN packets.
 */
static int
inner_of(const struct ut_pkt *p, uint16_t len, const struct rps_inner_cfg *cfg,
	 struct rps_flow_key *k)
{
	struct rps_flow_key k2, outer_k;
	struct rte_mbuf *m;
	unsigned int mismatches = 0;
	int rc, rc2;

	m = ut_mbuf_exact(p->b, len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	memset(k, 0xa5, sizeof(*k));
	rc = rps_flow_key_extract_inner(m, cfg, k);
	if (rps_inner_is_plain(cfg, m))
		CU_ASSERT_EQUAL(rc, RPS_INNER_PLAIN);
	if (rc != RPS_INNER_HASHED) {
		int orc = rps_flow_key_extract(m, &outer_k);

		CU_ASSERT_EQUAL(orc < 0, rc == RPS_INNER_NOT_IP);
		if (orc == 0)
			CU_ASSERT_EQUAL(memcmp(&outer_k, k, sizeof(*k)), 0);
	}
	rte_pktmbuf_free(m);

	m = ut_mbuf(p->b, UT_PKT_MAX);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL_FATAL(rte_pktmbuf_trim(m, (uint16_t)(UT_PKT_MAX - len)), 0);
	rc2 = rps_flow_key_extract_inner(m, cfg, &k2);
	if (rc2 != rc || (rc >= 0 && memcmp(&k2, k, sizeof(k2)) != 0))
		mismatches++;
	rte_pktmbuf_free(m);

	for (uint16_t split = 1; split < len; split++) {
		m = ut_mbuf_split(p->b, len, split);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		rc2 = rps_flow_key_extract_inner(m, cfg, &k2);
		if (rc2 != rc || (rc >= 0 && memcmp(&k2, k, sizeof(k2)) != 0))
			mismatches++;
		rte_pktmbuf_free(m);
	}
	CU_ASSERT_EQUAL(mismatches, 0);
	return rc;
}

/* A steering context that only hashes (rps_steer_hash() reads nothing else). */
static struct rps_lcore_stats stats;

static void
ctx_init(struct rps_steer_ctx *c, enum rps_hash_mode mode, int sym, int inner,
	 const struct rps_inner_cfg *cfg)
{
	memset(c, 0, sizeof(*c));
	c->mode = mode;
	c->seed = SEED;
	c->symmetric = sym;
	c->inner = inner;
	if (cfg != NULL)
		c->tunnels = *cfg;
	c->stats = &stats;
	CU_ASSERT_EQUAL_FATAL(rps_toeplitz_init(&c->toeplitz, sym ? rps_toeplitz_symmetric_key :
						rps_toeplitz_default_key, RPS_TOEPLITZ_KEY_LEN,
						RPS_TOEPLITZ_AUTO), 0);
}

static uint32_t
steer_hash(const struct rps_steer_ctx *c, const uint8_t *b, uint16_t len)
{
	struct rte_mbuf *m = ut_mbuf(b, len);
	uint32_t computed = 0, h;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	h = rps_steer_hash(c, m, &computed);
	CU_ASSERT_EQUAL(computed, 1);
	rte_pktmbuf_free(m);
	return h;
}

/*
 * @p t carries @p in: the inner key is the bare packet's (except l2_len), and every hash of
 * rps_steer_hash() with --inner (jhash, symmetric jhash, Toeplitz, symmetric Toeplitz; in
 * auto mode with an RSS hash in the mbuf too) equals that of the bare packet without it.
 */
static void
check_tunnel(const struct ut_pkt *t, const struct ut_pkt *in, const struct rps_inner_cfg *cfg)
{
	static const enum rps_hash_mode modes[] = { RPS_HASH_JHASH, RPS_HASH_TOEPLITZ };
	struct rps_flow_key k, kb;
	struct rte_mbuf *m;
	uint64_t hashed = stats.inner_hashed;

	CU_ASSERT_EQUAL_FATAL(inner_of(t, t->len, cfg, &k), RPS_INNER_HASHED);
	m = ut_mbuf(in->b, in->len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL(rps_flow_key_extract(m, &kb), 0);
	rte_pktmbuf_free(m);
	kb.l2_len = k.l2_len;
	CU_ASSERT_EQUAL(memcmp(&k, &kb, sizeof(k)), 0);
	CU_ASSERT_EQUAL(rps_hash_key(&k, SEED), rps_hash_sw_ref(m = ut_mbuf(in->b, in->len), SEED));
	rte_pktmbuf_free(m);

	for (unsigned int i = 0; i < RTE_DIM(modes); i++)
		for (int sym = 0; sym < 2; sym++) {
			struct rps_steer_ctx on, off;
			uint32_t h_t, h_in;

			ctx_init(&on, modes[i], sym, 1, cfg);
			ctx_init(&off, modes[i], sym, 0, NULL);
			h_t = steer_hash(&on, t->b, t->len);
			h_in = steer_hash(&off, in->b, in->len);
			CU_ASSERT_NOT_EQUAL(h_t, 0);
			CU_ASSERT_EQUAL(h_t, h_in);
			/* without --inner the tunnel hashes on its outer header */
			CU_ASSERT_NOT_EQUAL(steer_hash(&off, t->b, t->len), h_in);
		}
	CU_ASSERT_EQUAL(stats.inner_hashed - hashed, 4);
	/* auto mode with a NIC hash in the mbuf: --inner still computes the inner hash */
	{
		struct rps_steer_ctx on, off;
		uint32_t computed = 0;

		ctx_init(&on, RPS_HASH_AUTO, 0, 1, cfg);
		ctx_init(&off, RPS_HASH_AUTO, 0, 0, NULL);
		m = ut_mbuf(t->b, t->len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		m->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
		m->hash.rss = 0x12345678;
		CU_ASSERT_EQUAL(rps_steer_hash(&on, m, &computed),
				steer_hash(&off, in->b, in->len));
		CU_ASSERT_EQUAL(computed, 1);
		rte_pktmbuf_free(m);
	}
}

/* @p t is a tunnel dpdk-rps cannot read: fallback, the outer key and hash, counted. */
static void
check_fallback(const struct ut_pkt *t, const struct rps_inner_cfg *cfg)
{
	struct rps_steer_ctx on, off;
	struct rps_flow_key k;
	uint64_t fb = stats.inner_fallback, hashed = stats.inner_hashed;

	CU_ASSERT_EQUAL(inner_of(t, t->len, cfg, &k), RPS_INNER_FALLBACK);
	ctx_init(&on, RPS_HASH_JHASH, 0, 1, cfg);
	ctx_init(&off, RPS_HASH_JHASH, 0, 0, NULL);
	CU_ASSERT_EQUAL(steer_hash(&on, t->b, t->len), steer_hash(&off, t->b, t->len));
	CU_ASSERT_EQUAL(stats.inner_fallback - fb, 1);
	CU_ASSERT_EQUAL(stats.inner_hashed, hashed);
}

/* ---- tests ---- */

static void
test_vxlan(void)
{
	struct rps_inner_cfg cfg = { .vxlan_port = { 8472, 4789 }, .nb_vxlan = 2 };
	struct rps_inner_cfg only = { .vxlan_port = { 8472 }, .nb_vxlan = 1 };
	struct ut_pkt t, in;
	struct rps_flow_key k;

	for (int of = 4; of <= 6; of += 2)
		for (int inf = 4; inf <= 6; inf += 2)
			for (uint32_t f = 0; f < 4; f++) {
				bare(&in, inf, f % 2 ? IPPROTO_UDP : IPPROTO_TCP, f);
				outer(&t, of, IPPROTO_UDP);
				ut_put_udp(&t, (uint16_t)(49152 + f), 4789);
				put_vxlan(&t, 0x08);
				put_inner(&t, &in, 0);
				check_tunnel(&t, &in, &dflt);
				check_tunnel(&t, &in, &cfg);
				/* 4789 is no tunnel when the ports do not list it */
				CU_ASSERT_EQUAL(inner_of(&t, t.len, &only, &k), RPS_INNER_PLAIN);
			}
	/* another port, and a VLAN-tagged inner frame */
	bare(&in, 4, IPPROTO_TCP, 9);
	outer(&t, 4, IPPROTO_UDP);
	ut_put_udp(&t, 40000, 8472);
	put_vxlan(&t, 0x08);
	ut_put_eth(&t, RTE_ETHER_TYPE_VLAN);
	ut_put_vlan(&t, 100, RTE_ETHER_TYPE_IPV4);
	ut_put(&t, in.b + ETH_LEN, (uint16_t)(in.len - ETH_LEN));
	ut_pkt_finish(&t);
	CU_ASSERT_EQUAL(inner_of(&t, t.len, &dflt, &k), RPS_INNER_PLAIN);
	CU_ASSERT_EQUAL(inner_of(&t, t.len, &cfg, &k), RPS_INNER_HASHED);
	CU_ASSERT_EQUAL(k.l2_len, ETH_LEN + IP4_LEN + 8 + 8 + ETH_LEN + 4);
	check_tunnel(&t, &in, &cfg);
	/* malformed: I flag clear; inner frame not IP (ARP) */
	outer(&t, 4, IPPROTO_UDP);
	ut_put_udp(&t, 40000, 4789);
	put_vxlan(&t, 0x00);
	put_inner(&t, &in, 0);
	check_fallback(&t, &dflt);
	outer(&t, 6, IPPROTO_UDP);
	ut_put_udp(&t, 40000, 4789);
	put_vxlan(&t, 0x08);
	ut_put_eth(&t, RTE_ETHER_TYPE_ARP);
	ut_put(&t, NULL, 28);
	ut_pkt_finish(&t);
	check_fallback(&t, &dflt);
}

static void
test_geneve(void)
{
	struct ut_pkt t, in;

	for (int of = 4; of <= 6; of += 2)
		for (int inf = 4; inf <= 6; inf += 2)
			for (uint8_t opt = 0; opt <= 5; opt += 5) {
				bare(&in, inf, IPPROTO_TCP, opt + (uint32_t)inf);
				/* inner Ethernet */
				outer(&t, of, IPPROTO_UDP);
				ut_put_udp(&t, 50000, RPS_INNER_GENEVE_PORT);
				put_geneve(&t, 0, opt, TEB);
				put_inner(&t, &in, 0);
				check_tunnel(&t, &in, &dflt);
				/* inner IP straight after the header */
				outer(&t, of, IPPROTO_UDP);
				ut_put_udp(&t, 50000, RPS_INNER_GENEVE_PORT);
				put_geneve(&t, 0, opt, inf == 4 ? RTE_ETHER_TYPE_IPV4 :
					   RTE_ETHER_TYPE_IPV6);
				put_inner(&t, &in, 1);
				check_tunnel(&t, &in, &dflt);
			}
	/* malformed: version 1, unknown protocol, IPv6 announced but IPv4 inside */
	bare(&in, 4, IPPROTO_UDP, 3);
	outer(&t, 4, IPPROTO_UDP);
	ut_put_udp(&t, 50000, RPS_INNER_GENEVE_PORT);
	put_geneve(&t, 1, 0, TEB);
	put_inner(&t, &in, 0);
	check_fallback(&t, &dflt);
	outer(&t, 4, IPPROTO_UDP);
	ut_put_udp(&t, 50000, RPS_INNER_GENEVE_PORT);
	put_geneve(&t, 0, 1, 0x88b5);
	put_inner(&t, &in, 0);
	check_fallback(&t, &dflt);
	outer(&t, 6, IPPROTO_UDP);
	ut_put_udp(&t, 50000, RPS_INNER_GENEVE_PORT);
	put_geneve(&t, 0, 0, RTE_ETHER_TYPE_IPV6);
	put_inner(&t, &in, 1);
	check_fallback(&t, &dflt);
	/* options longer than the packet */
	outer(&t, 4, IPPROTO_UDP);
	ut_put_udp(&t, 50000, RPS_INNER_GENEVE_PORT);
	put_geneve(&t, 0, 0, TEB);
	t.b[t.len - 8] = 63;
	put_inner(&t, &in, 0);
	check_fallback(&t, &dflt);
}

static void
test_gtpu(void)
{
	static const uint8_t pdu_session[] = { 0x85 }, one[] = { 1 };
	static const uint8_t two_types[] = { 0x85, 0x40 }, two_lens[] = { 1, 3 };
	struct ut_pkt t, in;

	for (int of = 4; of <= 6; of += 2)
		for (int inf = 4; inf <= 6; inf += 2) {
			bare(&in, inf, IPPROTO_UDP, (uint32_t)(of * 10 + inf));
			/* no optional fields */
			outer(&t, of, IPPROTO_UDP);
			ut_put_udp(&t, 2152, RPS_INNER_GTPU_PORT);
			put_gtpu(&t, 0x30, 255, NULL, NULL, 0);
			put_inner(&t, &in, 1);
			check_tunnel(&t, &in, &dflt);
			/* a sequence number (S), N-PDU (PN) */
			outer(&t, of, IPPROTO_UDP);
			ut_put_udp(&t, 2152, RPS_INNER_GTPU_PORT);
			put_gtpu(&t, 0x33, 255, NULL, NULL, 0);
			put_inner(&t, &in, 1);
			check_tunnel(&t, &in, &dflt);
			/* E: a PDU session container */
			outer(&t, of, IPPROTO_UDP);
			ut_put_udp(&t, 2152, RPS_INNER_GTPU_PORT);
			put_gtpu(&t, 0x34, 255, pdu_session, one, 1);
			put_inner(&t, &in, 1);
			check_tunnel(&t, &in, &dflt);
			/* E: a chain of two, the second 12 bytes */
			outer(&t, of, IPPROTO_UDP);
			ut_put_udp(&t, 2152, RPS_INNER_GTPU_PORT);
			put_gtpu(&t, 0x36, 255, two_types, two_lens, 2);
			put_inner(&t, &in, 1);
			check_tunnel(&t, &in, &dflt);
		}
	/* malformed: echo request (type 1), GTPv2 (version 2), GTP' (PT 0), an extension
	 * header of length 0, a payload that is not IP */
	bare(&in, 4, IPPROTO_TCP, 5);
	{
		static const uint8_t bad_flags[] = { 0x30, 0x50, 0x20 };
		static const uint8_t bad_type[] = { 1, 255, 255 };

		for (unsigned int i = 0; i < RTE_DIM(bad_flags); i++) {
			outer(&t, 4, IPPROTO_UDP);
			ut_put_udp(&t, 2152, RPS_INNER_GTPU_PORT);
			put_gtpu(&t, bad_flags[i], bad_type[i], NULL, NULL, 0);
			put_inner(&t, &in, 1);
			check_fallback(&t, &dflt);
		}
	}
	outer(&t, 4, IPPROTO_UDP);
	ut_put_udp(&t, 2152, RPS_INNER_GTPU_PORT);
	put_gtpu(&t, 0x34, 255, pdu_session, one, 1);
	t.b[t.len - 4] = 0; /* the container's length */
	put_inner(&t, &in, 1);
	check_fallback(&t, &dflt);
	outer(&t, 6, IPPROTO_UDP);
	ut_put_udp(&t, 2152, RPS_INNER_GTPU_PORT);
	put_gtpu(&t, 0x30, 255, NULL, NULL, 0);
	put_inner(&t, &in, 0); /* an Ethernet frame: first nibble 0 */
	check_fallback(&t, &dflt);
}

static void
test_gre(void)
{
	static const uint16_t flag_sets[] = { 0, 0x8000, 0x2000, 0x1000, 0xb000 };
	struct ut_pkt t, in;

	for (int of = 4; of <= 6; of += 2)
		for (int inf = 4; inf <= 6; inf += 2)
			for (unsigned int i = 0; i < RTE_DIM(flag_sets); i++) {
				bare(&in, inf, IPPROTO_TCP, i * 3 + (uint32_t)inf);
				outer(&t, of, P_GRE);
				put_gre(&t, flag_sets[i], inf == 4 ? RTE_ETHER_TYPE_IPV4 :
					RTE_ETHER_TYPE_IPV6);
				put_inner(&t, &in, 1);
				check_tunnel(&t, &in, &dflt);
				/* transparent Ethernet bridging; with the key alone: NVGRE */
				outer(&t, of, P_GRE);
				put_gre(&t, flag_sets[i], TEB);
				put_inner(&t, &in, 0);
				check_tunnel(&t, &in, &dflt);
			}
	/* malformed: version 1 (PPTP), routing present (RFC 1701), unknown protocol (MPLS),
	 * protocol IPv4 but IPv6 inside */
	bare(&in, 6, IPPROTO_UDP, 1);
	{
		static const uint16_t bad_flags[] = { 0x2001, 0x4000, 0x0000, 0x0000 };
		static const uint16_t bad_proto[] = { RTE_ETHER_TYPE_IPV6, RTE_ETHER_TYPE_IPV6,
						      0x8847, RTE_ETHER_TYPE_IPV4 };

		for (unsigned int i = 0; i < RTE_DIM(bad_flags); i++) {
			outer(&t, i % 2 ? 6 : 4, P_GRE);
			put_gre(&t, bad_flags[i], bad_proto[i]);
			put_inner(&t, &in, 1);
			check_fallback(&t, &dflt);
		}
	}
	/* a fragment of a GRE datagram: not readable, counted */
	ut_pkt_init(&t);
	ut_put_eth(&t, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(&t, OUT4_SRC, OUT4_DST, P_GRE, 0, RTE_IPV4_HDR_MF_FLAG);
	put_gre(&t, 0, RTE_ETHER_TYPE_IPV6);
	put_inner(&t, &in, 1);
	check_fallback(&t, &dflt);
}

static void
test_ipip(void)
{
	struct ut_pkt t, in;
	struct rps_flow_key k;

	for (int of = 4; of <= 6; of += 2)
		for (int inf = 4; inf <= 6; inf += 2) {
			bare(&in, inf, IPPROTO_TCP, (uint32_t)(of + inf));
			outer(&t, of, inf == 4 ? P_IPIP : P_IPV6);
			put_inner(&t, &in, 1);
			check_tunnel(&t, &in, &dflt);
			/* the protocol names the other version */
			outer(&t, of, inf == 4 ? P_IPV6 : P_IPIP);
			put_inner(&t, &in, 1);
			check_fallback(&t, &dflt);
		}
	/* one level only: IPv4 in IPv4 in IPv4 hashes on the middle header */
	bare(&in, 4, IPPROTO_TCP, 1);
	outer(&t, 4, P_IPIP);
	ut_put_ipv4(&t, UT_IP4(0x3000), UT_IP4(0x3001), P_IPIP, 0, 0);
	ut_put(&t, in.b + ETH_LEN, (uint16_t)(in.len - ETH_LEN));
	CU_ASSERT_EQUAL(inner_of(&t, t.len, &dflt, &k), RPS_INNER_HASHED);
	CU_ASSERT(k.family == 4 && k.proto == P_IPIP &&
		  k.src[0] == rte_cpu_to_be_32(UT_IP4(0x3000)) && k.has_ports == 0);
}

/* Packets that are no tunnel hash as without --inner, in every mode; UDP fragments to a
 * tunnel port too (no port: all of a datagram's fragments together). */
static void
test_plain(void)
{
	static const enum rps_hash_mode modes[] = { RPS_HASH_JHASH, RPS_HASH_TOEPLITZ };
	struct ut_pkt p[8];
	struct rps_flow_key k;
	uint64_t hashed = stats.inner_hashed, fb = stats.inner_fallback;
	unsigned int n = 0;

	ut_pkt_v4(&p[n++], UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 1000, 4789);
	ut_pkt_v4(&p[n++], UT_IP4(1), UT_IP4(2), IPPROTO_UDP, 4789, 53);
	ut_pkt_v6(&p[n++], 1, 2, IPPROTO_UDP, 6081, 2153);
	ut_pkt_v6(&p[n++], 1, 2, IPPROTO_TCP, 1, 2152);
	ut_pkt_v4(&p[n++], UT_IP4(1), UT_IP4(2), IPPROTO_ICMP, 8, 0);
	ut_pkt_init(&p[n]);
	ut_put_eth(&p[n], RTE_ETHER_TYPE_VLAN);
	ut_put_vlan(&p[n], 7, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(&p[n], UT_IP4(3), UT_IP4(4), IPPROTO_UDP, 4, 0);
	ut_put_udp(&p[n], 1, 53);
	ut_pkt_finish(&p[n++]);
	ut_pkt_init(&p[n]);
	ut_put_eth(&p[n], RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(&p[n], UT_IP4(3), UT_IP4(4), IPPROTO_UDP, 0, RTE_IPV4_HDR_MF_FLAG);
	ut_put_udp(&p[n], 1, 4789);
	put_vxlan(&p[n], 0x08);
	ut_pkt_finish(&p[n++]);
	ut_pkt_init(&p[n]);
	ut_put_eth(&p[n], RTE_ETHER_TYPE_ARP);
	ut_put(&p[n++], NULL, 28);
	for (unsigned int i = 0; i < n; i++) {
		int rc = inner_of(&p[i], p[i].len, &dflt, &k);

		CU_ASSERT_EQUAL(rc, i == n - 1 ? RPS_INNER_NOT_IP : RPS_INNER_PLAIN);
		for (unsigned int j = 0; j < RTE_DIM(modes); j++)
			for (int sym = 0; sym < 2; sym++) {
				struct rps_steer_ctx on, off;

				ctx_init(&on, modes[j], sym, 1, &dflt);
				ctx_init(&off, modes[j], sym, 0, NULL);
				CU_ASSERT_EQUAL(steer_hash(&on, p[i].b, p[i].len),
						steer_hash(&off, p[i].b, p[i].len));
			}
	}
	CU_ASSERT_EQUAL(stats.inner_hashed, hashed);
	CU_ASSERT_EQUAL(stats.inner_fallback, fb);
}

/* Both directions of an inner connection, through the tunnel's two directions, meet with
 * --symmetric (jhash and Toeplitz). */
static void
test_symmetric(void)
{
	static const enum rps_hash_mode modes[] = { RPS_HASH_JHASH, RPS_HASH_TOEPLITZ };

	for (uint32_t f = 0; f < 64; f++) {
		struct ut_pkt fwd_in, rev_in, fwd, rev;
		int fam = f % 2 ? 6 : 4;

		if (fam == 4) {
			ut_pkt_v4(&fwd_in, UT_IP4(f), UT_IP4(500 + f), IPPROTO_TCP,
				  (uint16_t)(2000 + f), 443);
			ut_pkt_v4(&rev_in, UT_IP4(500 + f), UT_IP4(f), IPPROTO_TCP, 443,
				  (uint16_t)(2000 + f));
		} else {
			ut_pkt_v6(&fwd_in, f, 500 + f, IPPROTO_UDP, (uint16_t)(2000 + f), 443);
			ut_pkt_v6(&rev_in, 500 + f, f, IPPROTO_UDP, 443, (uint16_t)(2000 + f));
		}
		outer(&fwd, 4, IPPROTO_UDP);
		ut_put_udp(&fwd, (uint16_t)(30000 + f), 4789);
		put_vxlan(&fwd, 0x08);
		put_inner(&fwd, &fwd_in, 0);
		outer(&rev, 6, P_GRE);
		put_gre(&rev, 0x2000, TEB);
		put_inner(&rev, &rev_in, 0);
		for (unsigned int j = 0; j < RTE_DIM(modes); j++) {
			struct rps_steer_ctx c;

			ctx_init(&c, modes[j], 1, 1, &dflt);
			CU_ASSERT_EQUAL(steer_hash(&c, fwd.b, fwd.len),
					steer_hash(&c, rev.b, rev.len));
		}
	}
}

/*
 * Every truncation of a VXLAN, a GRE and a GTP-U packet (outer IPv4 and IPv6), in every
 * layout: no over-read, and the result is what the bytes present allow: no flow before the
 * outer IP header is whole, the outer key until the inner IP header is, then the inner key.
 */
static void
test_truncated(void)
{
	static const uint8_t pdu_session[] = { 0x85 }, one[] = { 1 };

	for (int kind = 0; kind < 3; kind++)
		for (int of = 4; of <= 6; of += 2) {
			const uint16_t l3 = of == 4 ? IP4_LEN : IP6_LEN;
			struct ut_pkt t, in;
			struct rps_steer_ctx c;
			uint16_t inner_ip, tunnel_from;
			unsigned int counts[4] = { 0 };
			uint64_t fb = stats.inner_fallback, hashed = stats.inner_hashed;

			bare(&in, 4, IPPROTO_TCP, 77);
			if (kind == 0) {
				outer(&t, of, IPPROTO_UDP);
				ut_put_udp(&t, 40000, 4789);
				put_vxlan(&t, 0x08);
				put_inner(&t, &in, 0);
				inner_ip = (uint16_t)(ETH_LEN + l3 + 8 + 8 + ETH_LEN);
				tunnel_from = (uint16_t)(ETH_LEN + l3 + 4); /* the ports */
			} else if (kind == 1) {
				outer(&t, of, P_GRE);
				put_gre(&t, 0xb000, TEB);
				put_inner(&t, &in, 0);
				inner_ip = (uint16_t)(ETH_LEN + l3 + 16 + ETH_LEN);
				tunnel_from = (uint16_t)(ETH_LEN + l3);
			} else {
				outer(&t, of, IPPROTO_UDP);
				ut_put_udp(&t, 40000, RPS_INNER_GTPU_PORT);
				put_gtpu(&t, 0x34, 255, pdu_session, one, 1);
				put_inner(&t, &in, 1);
				inner_ip = (uint16_t)(ETH_LEN + l3 + 8 + 16);
				tunnel_from = (uint16_t)(ETH_LEN + l3 + 4);
			}
			ctx_init(&c, RPS_HASH_JHASH, 0, 1, &dflt);
			for (uint16_t len = 0; len <= t.len; len++) {
				struct rps_flow_key k;
				int rc = inner_of(&t, len, &dflt, &k);
				int want = len < ETH_LEN + l3 ? RPS_INNER_NOT_IP :
					   len < tunnel_from ? RPS_INNER_PLAIN :
					   len < inner_ip + IP4_LEN ? RPS_INNER_FALLBACK :
					   RPS_INNER_HASHED;

				if (rc != want)
					printf("\nkind %d outer v%d len %u: %d, expected %d\n", kind,
					       of, len, rc, want);
				CU_ASSERT_EQUAL(rc, want);
				counts[rc + 1]++;
				if (len > 0) /* and through the steering hash */
					(void)steer_hash(&c, t.b, len);
			}
			CU_ASSERT_EQUAL(stats.inner_fallback - fb, counts[RPS_INNER_FALLBACK + 1]);
			CU_ASSERT_EQUAL(stats.inner_hashed - hashed, counts[RPS_INNER_HASHED + 1]);
			CU_ASSERT(counts[RPS_INNER_FALLBACK + 1] > 0 && counts[RPS_INNER_HASHED + 1] > 0);
		}
}

static void
test_vxlan_ports_parse(void)
{
	struct rps_inner_cfg c;

	memset(&c, 0, sizeof(c));
	CU_ASSERT_EQUAL(rps_inner_vxlan_ports_parse("8472", &c), 0);
	CU_ASSERT(c.nb_vxlan == 1 && c.vxlan_port[0] == 8472);
	CU_ASSERT_EQUAL(rps_inner_vxlan_ports_parse("4789,8472,4790", &c), 0);
	CU_ASSERT(c.nb_vxlan == 3 && c.vxlan_port[1] == 4789 && c.vxlan_port[2] == 4790);
	CU_ASSERT_EQUAL(rps_inner_vxlan_ports_parse("1,2,3,4,5", &c), 0);
	CU_ASSERT_EQUAL(c.nb_vxlan, 8);
	CU_ASSERT_EQUAL(rps_inner_vxlan_ports_parse("6", &c), -ENOSPC);
	CU_ASSERT_EQUAL(rps_inner_vxlan_ports_parse("5", &c), 0); /* already there */
	CU_ASSERT_EQUAL(c.nb_vxlan, 8);
	memset(&c, 0, sizeof(c));
	{
		static const char *const bad[] = { "", "0", "65536", "4789,", ",4789", "47 89",
						   "-1", "+5", "0x12b5", "6081", "2152", "a" };

		for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
			CU_ASSERT_EQUAL(rps_inner_vxlan_ports_parse(bad[i], &c), -EINVAL);
			CU_ASSERT_EQUAL(c.nb_vxlan, 0);
		}
	}
	c.nb_vxlan = 0;
	CU_ASSERT(rps_inner_udp_port(&c, RTE_BE16(4789)) && rps_inner_udp_port(&c, RTE_BE16(6081)) &&
		  rps_inner_udp_port(&c, RTE_BE16(2152)) && !rps_inner_udp_port(&c, RTE_BE16(8472)));
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "vxlan_v4_v6", test_vxlan },
		{ "geneve_options_protocols", test_geneve },
		{ "gtpu_optional_fields_extensions", test_gtpu },
		{ "gre_nvgre_flags_protocols", test_gre },
		{ "ipip_ip6ip", test_ipip },
		{ "plain_packets_unchanged", test_plain },
		{ "symmetric_inner", test_symmetric },
		{ "truncated_every_offset", test_truncated },
		{ "vxlan_ports_parse", test_vxlan_ports_parse },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "inner", tests);
}
