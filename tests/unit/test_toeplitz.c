/* SPDX-License-Identifier: BSD-3-Clause */
/* test_toeplitz.c: the software Toeplitz (RSS) hash and its keys (lib/rps/toeplitz.c,
 * rps_toeplitz.h), and how the steering step uses it (rps_steer_hash()). */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cpuflags.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_thash.h>

#include "rps_cpu.h"
#include "rps_steer.h"
#include "rps_toeplitz.h"
#include "test_common.h"

#define ETH_LEN ((uint16_t)sizeof(struct rte_ether_hdr))
#define IP6_HOPOPTS 0
#define IP6_ICMPV6 58
#define RANDOM_TUPLES 20000

/*
 * The RSS verification suite: Microsoft, "Verifying the RSS Hash Calculation" (Windows
 * driver documentation, NDIS RSS), with the 40-byte key 6d5a56da...01fa; the same table is
 * in the Intel 82599 datasheet (7.1.2.8.3, RSS Verification Suite) and in DPDK's
 * app/test/test_thash.c (v4_tbl, v6_tbl), from which these rows are copied with the same
 * source/destination assignment. hash_l3: addresses alone ("IPv4" / "IPv6" column);
 * hash_l4: with the ports ("IPv4 with TCP" / "IPv6 with TCP").
 */
static const struct {
	uint8_t dst[4], src[4];
	uint16_t dport, sport;
	uint32_t hash_l3, hash_l4;
} ms_v4[] = {
	{ { 161, 142, 100, 80 }, { 66, 9, 149, 187 }, 1766, 2794, 0x323e8fc2, 0x51ccc178 },
	{ { 65, 69, 140, 83 }, { 199, 92, 111, 2 }, 4739, 14230, 0xd718262a, 0xc626b0ea },
	{ { 12, 22, 207, 184 }, { 24, 19, 198, 95 }, 38024, 12898, 0xd2d0a5de, 0x5c2b394a },
	{ { 209, 142, 163, 6 }, { 38, 27, 205, 30 }, 2217, 48228, 0x82989176, 0xafc7327f },
	{ { 202, 188, 127, 2 }, { 153, 39, 163, 191 }, 1303, 44251, 0x5d1809c5, 0x10e828a2 },
};

static const struct {
	const char *dst, *src;
	uint16_t dport, sport;
	uint32_t hash_l3, hash_l4;
} ms_v6[] = {
	{ "3ffe:2501:200:3::1", "3ffe:2501:200:1fff::7", 1766, 2794, 0x2cc18cd5, 0x40207d3d },
	{ "ff02::1", "3ffe:501:8::260:97ff:fe40:efab", 4739, 14230, 0x0f0c461c, 0xdde51bbf },
	{ "fe80::200:f8ff:fe21:67cf", "3ffe:1900:4545:3:200:f8ff:fe21:67cf", 38024, 44251,
	  0x4b61e985, 0x02d1feef },
};

static uint32_t
host32(const uint8_t *a)
{
	return (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
}

static void
put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

/* The implementations to try: always rte_softrss_be, GFNI where it runs. */
static unsigned int
impls(enum rps_toeplitz_impl *out)
{
	unsigned int n = 0;

	out[n++] = RPS_TOEPLITZ_SOFT;
	if (rps_toeplitz_gfni_available())
		out[n++] = RPS_TOEPLITZ_GFNI;
	return n;
}

/* DPDK's generic rte_softrss() with the key as given: the reference every path must match.
 * @p tuple: @p len bytes in network order. */
static uint32_t
ref_softrss(const uint8_t *key, const uint8_t *tuple, unsigned int len)
{
	uint32_t w[RPS_TOEPLITZ_TUPLE_MAX / 4];

	for (unsigned int i = 0; i < len / 4; i++)
		w[i] = host32(tuple + 4 * i);
	return rte_softrss(w, len / 4, key);
}

/* Hash of a packet in every mbuf layout (exact buffer, then split at every offset), which
 * must all agree; and the reference path must agree with the fast one. */
static uint32_t
pkt_hash(const struct rps_toeplitz *t, const struct ut_pkt *p)
{
	struct rte_mbuf *m = ut_mbuf_exact(p->b, p->len);
	unsigned int mismatches = 0;
	uint32_t h;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	h = rps_toeplitz_sw(t, m);
	CU_ASSERT_EQUAL(rps_toeplitz_sw_ref(t, m), h);
	rte_pktmbuf_free(m);
	for (uint16_t split = 1; split < p->len; split++) {
		m = ut_mbuf_split(p->b, p->len, split);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		mismatches += rps_toeplitz_sw(t, m) != h;
		rte_pktmbuf_free(m);
	}
	CU_ASSERT_EQUAL(mismatches, 0);
	return h;
}

static void
test_ms_vectors_raw(void)
{
	enum rps_toeplitz_impl im[2];
	unsigned int ni = impls(im);

	for (unsigned int k = 0; k < ni; k++) {
		struct rps_toeplitz t;

		CU_ASSERT_EQUAL_FATAL(rps_toeplitz_init(&t, rps_toeplitz_default_key,
							RPS_TOEPLITZ_KEY_LEN, im[k]), 0);
		CU_ASSERT_EQUAL(t.gfni, im[k] == RPS_TOEPLITZ_GFNI);
		for (unsigned int i = 0; i < RTE_DIM(ms_v4); i++) {
			uint8_t b[12];

			memcpy(b, ms_v4[i].src, 4);
			memcpy(b + 4, ms_v4[i].dst, 4);
			put16(b + 8, ms_v4[i].sport);
			put16(b + 10, ms_v4[i].dport);
			CU_ASSERT_EQUAL(rps_toeplitz_bytes(&t, b, 8), ms_v4[i].hash_l3);
			CU_ASSERT_EQUAL(rps_toeplitz_bytes(&t, b, 12), ms_v4[i].hash_l4);
		}
		for (unsigned int i = 0; i < RTE_DIM(ms_v6); i++) {
			uint8_t b[36];

			CU_ASSERT_EQUAL_FATAL(inet_pton(AF_INET6, ms_v6[i].src, b), 1);
			CU_ASSERT_EQUAL_FATAL(inet_pton(AF_INET6, ms_v6[i].dst, b + 16), 1);
			put16(b + 32, ms_v6[i].sport);
			put16(b + 34, ms_v6[i].dport);
			CU_ASSERT_EQUAL(rps_toeplitz_bytes(&t, b, 32), ms_v6[i].hash_l3);
			CU_ASSERT_EQUAL(rps_toeplitz_bytes(&t, b, 36), ms_v6[i].hash_l4);
		}
	}
}

/* The same vectors through real packets: which fields join the hash, per protocol. */
static void
test_ms_vectors_packets(void)
{
	enum rps_toeplitz_impl im[2];
	unsigned int ni = impls(im);

	for (unsigned int k = 0; k < ni; k++) {
		struct rps_toeplitz t;

		CU_ASSERT_EQUAL_FATAL(rps_toeplitz_init(&t, rps_toeplitz_default_key,
							RPS_TOEPLITZ_KEY_LEN, im[k]), 0);
		for (unsigned int i = 0; i < RTE_DIM(ms_v4); i++) {
			uint32_t s = host32(ms_v4[i].src), d = host32(ms_v4[i].dst);
			uint16_t sp = ms_v4[i].sport, dp = ms_v4[i].dport;
			struct ut_pkt p;

			/* TCP and UDP: 4-tuple (fast path) */
			ut_pkt_v4(&p, s, d, IPPROTO_TCP, sp, dp);
			CU_ASSERT_EQUAL(pkt_hash(&t, &p), ms_v4[i].hash_l4);
			ut_pkt_v4(&p, s, d, IPPROTO_UDP, sp, dp);
			CU_ASSERT_EQUAL(pkt_hash(&t, &p), ms_v4[i].hash_l4);
			/* other protocols (SCTP, ESP and ICMP too): addresses alone */
			ut_pkt_v4(&p, s, d, IPPROTO_SCTP, sp, dp);
			CU_ASSERT_EQUAL(pkt_hash(&t, &p), ms_v4[i].hash_l3);
			ut_pkt_v4(&p, s, d, IPPROTO_ESP, sp, dp);
			CU_ASSERT_EQUAL(pkt_hash(&t, &p), ms_v4[i].hash_l3);
			ut_pkt_v4(&p, s, d, IPPROTO_ICMP, sp, dp);
			CU_ASSERT_EQUAL(pkt_hash(&t, &p), ms_v4[i].hash_l3);
			/* a fragment (first and later): addresses alone */
			for (uint16_t frag = 0; frag < 2; frag++) {
				ut_pkt_init(&p);
				ut_put_eth(&p, RTE_ETHER_TYPE_IPV4);
				ut_put_ipv4(&p, s, d, IPPROTO_UDP, 0,
					    frag ? 0x0010 : RTE_IPV4_HDR_MF_FLAG);
				ut_put_udp(&p, sp, dp);
				ut_pkt_finish(&p);
				CU_ASSERT_EQUAL(pkt_hash(&t, &p), ms_v4[i].hash_l3);
			}
			/* DF is not a fragment */
			ut_pkt_init(&p);
			ut_put_eth(&p, RTE_ETHER_TYPE_IPV4);
			ut_put_ipv4(&p, s, d, IPPROTO_TCP, 0, RTE_IPV4_HDR_DF_FLAG);
			ut_put_tcp(&p, sp, dp);
			ut_pkt_finish(&p);
			CU_ASSERT_EQUAL(pkt_hash(&t, &p), ms_v4[i].hash_l4);
			/* VLAN tag and IP options: the reference path, same hash */
			ut_pkt_init(&p);
			ut_put_eth(&p, RTE_ETHER_TYPE_VLAN);
			ut_put_vlan(&p, 7, RTE_ETHER_TYPE_IPV4);
			ut_put_ipv4(&p, s, d, IPPROTO_TCP, 8, 0);
			ut_put_tcp(&p, sp, dp);
			ut_pkt_finish(&p);
			CU_ASSERT_EQUAL(pkt_hash(&t, &p), ms_v4[i].hash_l4);
		}
		for (unsigned int i = 0; i < RTE_DIM(ms_v6); i++) {
			uint8_t s[16], d[16];
			uint16_t sp = ms_v6[i].sport, dp = ms_v6[i].dport;
			struct ut_pkt p;

			CU_ASSERT_EQUAL_FATAL(inet_pton(AF_INET6, ms_v6[i].src, s), 1);
			CU_ASSERT_EQUAL_FATAL(inet_pton(AF_INET6, ms_v6[i].dst, d), 1);
			for (int udp = 0; udp < 2; udp++) {
				ut_pkt_init(&p);
				ut_put_eth(&p, RTE_ETHER_TYPE_IPV6);
				ut_put_ipv6(&p, s, d, udp ? IPPROTO_UDP : IPPROTO_TCP);
				if (udp)
					ut_put_udp(&p, sp, dp);
				else
					ut_put_tcp(&p, sp, dp);
				ut_pkt_finish(&p);
				CU_ASSERT_EQUAL(pkt_hash(&t, &p), ms_v6[i].hash_l4);
			}
			/* hop-by-hop header before TCP: the chain is walked, ports still count */
			ut_pkt_init(&p);
			ut_put_eth(&p, RTE_ETHER_TYPE_IPV6);
			ut_put_ipv6(&p, s, d, IP6_HOPOPTS);
			ut_put_ipv6_ext(&p, IPPROTO_TCP, 0);
			ut_put_tcp(&p, sp, dp);
			ut_pkt_finish(&p);
			CU_ASSERT_EQUAL(pkt_hash(&t, &p), ms_v6[i].hash_l4);
			/* ICMPv6 and a fragment: addresses alone */
			ut_pkt_init(&p);
			ut_put_eth(&p, RTE_ETHER_TYPE_IPV6);
			ut_put_ipv6(&p, s, d, IP6_ICMPV6);
			ut_put_l4_words(&p, 0x8000, 0x1234);
			ut_pkt_finish(&p);
			CU_ASSERT_EQUAL(pkt_hash(&t, &p), ms_v6[i].hash_l3);
			ut_pkt_init(&p);
			ut_put_eth(&p, RTE_ETHER_TYPE_IPV6);
			ut_put_ipv6(&p, s, d, 44);
			ut_put_ipv6_frag(&p, IPPROTO_UDP, 0, 1);
			ut_put_udp(&p, sp, dp);
			ut_pkt_finish(&p);
			CU_ASSERT_EQUAL(pkt_hash(&t, &p), ms_v6[i].hash_l3);
		}
	}
}

static void
random_key(uint64_t *st, uint8_t *key, size_t len)
{
	for (size_t i = 0; i < len; i++)
		key[i] = (uint8_t)ut_rand(st);
}

/* GFNI, rte_softrss_be and DPDK's generic rte_softrss agree on random tuples and keys. */
static void
test_impls_agree(void)
{
	static const unsigned int lens[] = { 8, 12, 32, 36 };
	enum rps_toeplitz_impl im[2];
	unsigned int ni = impls(im), bad = 0;
	uint64_t st = 0x7031;

	for (unsigned int round = 0; round < 12; round++) {
		uint8_t key[RPS_TOEPLITZ_KEY_MAX];
		size_t klen = round % 3 == 2 ? RPS_TOEPLITZ_KEY_MAX : RPS_TOEPLITZ_KEY_LEN;
		struct rps_toeplitz t[2];

		if (round == 0)
			memcpy(key, rps_toeplitz_default_key, klen);
		else if (round == 1)
			memcpy(key, rps_toeplitz_symmetric_key, klen);
		else
			random_key(&st, key, klen);
		for (unsigned int k = 0; k < ni; k++)
			CU_ASSERT_EQUAL_FATAL(rps_toeplitz_init(&t[k], key, klen, im[k]), 0);
		for (unsigned int n = 0; n < 2000; n++) {
			uint8_t tuple[RPS_TOEPLITZ_TUPLE_MAX];
			unsigned int len = lens[n % RTE_DIM(lens)];
			uint32_t want;

			for (unsigned int i = 0; i < sizeof(tuple); i++)
				tuple[i] = (uint8_t)ut_rand(&st);
			want = ref_softrss(key, tuple, len);
			for (unsigned int k = 0; k < ni; k++)
				bad += rps_toeplitz_bytes(&t[k], tuple, len) != want;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
}

static uint32_t
mbuf_hash(const struct rps_toeplitz *t, const struct ut_pkt *p, uint32_t *ref)
{
	struct rte_mbuf *m = ut_mbuf_exact(p->b, p->len);
	uint32_t h;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	h = rps_toeplitz_sw(t, m);
	*ref = rps_toeplitz_sw_ref(t, m);
	rte_pktmbuf_free(m);
	return h;
}

/*
 * Both directions of a connection, many random v4 and v6 tuples: equal hashes with the
 * symmetric key (6d5a x 20), almost never with the default key, whose hashes still match
 * DPDK's rte_softrss() over the tuple.
 */
static void
test_symmetric(void)
{
	static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_TCP, IPPROTO_UDP,
					  IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP, IPPROTO_SCTP };
	enum rps_toeplitz_impl im[2];
	unsigned int ni = impls(im);
	uint64_t st = 0x5e11;

	for (unsigned int k = 0; k < ni; k++) {
		struct rps_toeplitz sym, def;
		unsigned int asym = 0, split = 0, ref_bad = 0, fast_bad = 0, n = 0;

		CU_ASSERT_EQUAL_FATAL(rps_toeplitz_init(&sym, rps_toeplitz_symmetric_key,
							RPS_TOEPLITZ_KEY_LEN, im[k]), 0);
		CU_ASSERT_EQUAL_FATAL(rps_toeplitz_init(&def, rps_toeplitz_default_key,
							RPS_TOEPLITZ_KEY_LEN, im[k]), 0);
		for (unsigned int i = 0; i < RANDOM_TUPLES; i++) {
			int v6 = i & 1, frag = (i % 13) == 0;
			uint8_t proto = protos[(i >> 1) % RTE_DIM(protos)];
			uint8_t a[16], b[16], tuple[RPS_TOEPLITZ_TUPLE_MAX];
			uint16_t sp = (uint16_t)ut_rand(&st), dp = (uint16_t)ut_rand(&st);
			unsigned int alen = v6 ? 16 : 4, len;
			uint32_t fwd, rev, ref, d_fwd, d_rev;
			struct ut_pkt p, q;

			random_key(&st, a, sizeof(a));
			random_key(&st, b, sizeof(b));
			if (i % 17 == 0)
				memcpy(b, a, sizeof(b)); /* same address both ends: ports decide */
			ut_pkt_conn(&p, v6, proto, frag, 0, a, b, sp, dp);
			ut_pkt_conn(&q, v6, proto, frag, 0, b, a, dp, sp);
			fwd = mbuf_hash(&sym, &p, &ref);
			fast_bad += ref != fwd;
			rev = mbuf_hash(&sym, &q, &ref);
			fast_bad += ref != rev;
			asym += fwd != rev;
			/* the default key: the tuple's hash, direction-dependent */
			d_fwd = mbuf_hash(&def, &p, &ref);
			d_rev = mbuf_hash(&def, &q, &ref);
			memcpy(tuple, a, alen);
			memcpy(tuple + alen, b, alen);
			len = 2 * alen;
			if (!frag && (proto == IPPROTO_TCP || proto == IPPROTO_UDP)) {
				put16(tuple + len, sp);
				put16(tuple + len + 2, dp);
				len += 4;
			}
			ref = ref_softrss(rps_toeplitz_default_key, tuple, len);
			ref_bad += d_fwd != (ref ? ref : 1);
			split += d_fwd != d_rev;
			n++;
		}
		CU_ASSERT_EQUAL(asym, 0);
		CU_ASSERT_EQUAL(fast_bad, 0);
		CU_ASSERT_EQUAL(ref_bad, 0);
		/* without the symmetric key nearly every connection splits (the test can fail) */
		CU_ASSERT(split > n * 9 / 10);
	}
}

static void
test_init(void)
{
	struct rps_toeplitz t;
	uint8_t key[RPS_TOEPLITZ_KEY_MAX] = { 0 };

	CU_ASSERT_EQUAL(rps_toeplitz_init(&t, key, 0, RPS_TOEPLITZ_AUTO), -EINVAL);
	CU_ASSERT_EQUAL(rps_toeplitz_init(&t, key, 39, RPS_TOEPLITZ_AUTO), -EINVAL);
	CU_ASSERT_EQUAL(rps_toeplitz_init(&t, key, 44, RPS_TOEPLITZ_AUTO), -EINVAL);
	CU_ASSERT_EQUAL(rps_toeplitz_init(&t, NULL, 40, RPS_TOEPLITZ_AUTO), -EINVAL);
	CU_ASSERT_EQUAL(rps_toeplitz_init(NULL, key, 40, RPS_TOEPLITZ_AUTO), -EINVAL);
	CU_ASSERT_EQUAL(rps_toeplitz_init(&t, key, 52, RPS_TOEPLITZ_AUTO), 0);
	CU_ASSERT_EQUAL(t.key_len, 52);
	CU_ASSERT_EQUAL(rps_toeplitz_init(&t, rps_toeplitz_default_key, 40, RPS_TOEPLITZ_AUTO),
			0);
	CU_ASSERT_EQUAL(t.gfni, rps_toeplitz_gfni_available());
	CU_ASSERT_EQUAL(memcmp(t.key, rps_toeplitz_default_key, 40), 0);
	if (!rps_toeplitz_gfni_available())
		CU_ASSERT_EQUAL(rps_toeplitz_init(&t, rps_toeplitz_default_key, 40,
						  RPS_TOEPLITZ_GFNI), -ENOTSUP);
	/* a zero key hashes everything to 0, and packets to 1 */
	{
		struct ut_pkt p;
		struct rte_mbuf *m;

		CU_ASSERT_EQUAL_FATAL(rps_toeplitz_init(&t, key, 40, RPS_TOEPLITZ_AUTO), 0);
		ut_pkt_v4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 1, 2);
		m = ut_mbuf(p.b, p.len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_EQUAL(rps_toeplitz_sw(&t, m), 1);
		CU_ASSERT_EQUAL(rps_toeplitz_sw_ref(&t, m), 1);
		rte_pktmbuf_free(m);
	}
}

static void
test_non_ip(void)
{
	struct rps_toeplitz t;
	struct ut_pkt p;
	struct rte_mbuf *m;
	static const uint8_t arp[28] = { 0, 1, 8, 0, 6, 4, 0, 1 };

	CU_ASSERT_EQUAL_FATAL(rps_toeplitz_init(&t, rps_toeplitz_default_key, 40,
						RPS_TOEPLITZ_AUTO), 0);
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_ARP);
	ut_put(&p, arp, sizeof(arp));
	m = ut_mbuf_exact(p.b, p.len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	/* hashed on the layer-2 key with the Toeplitz key: MACs, EtherType, VLAN ID 0 */
	{
		uint8_t k[16] = { 0 };

		memcpy(k, p.b, 14);
		CU_ASSERT_EQUAL(rps_toeplitz_sw(&t, m), rps_toeplitz_bytes(&t, k, 16) ?
				rps_toeplitz_bytes(&t, k, 16) : 1);
		CU_ASSERT_NOT_EQUAL(rps_toeplitz_sw(&t, m), 0);
		/* the sorted mode sorts the MACs: the reply hashes alike */
		CU_ASSERT_EQUAL(rps_toeplitz_sw_sym(&t, m), rps_toeplitz_l2(&t, m, 1));
	}
	rte_pktmbuf_free(m);
	/* an IPv4 header cut short: no flow either, the layer-2 key */
	ut_pkt_v4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 1, 2);
	m = ut_mbuf_exact(p.b, ETH_LEN + 19);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL(rps_toeplitz_sw(&t, m), rps_toeplitz_l2(&t, m, 0));
	CU_ASSERT_NOT_EQUAL(rps_toeplitz_sw(&t, m), 0);
	rte_pktmbuf_free(m);
	/* a runt: 0 */
	m = ut_mbuf_exact(p.b, ETH_LEN - 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL(rps_toeplitz_sw(&t, m), 0);
	rte_pktmbuf_free(m);
}

static void
test_key_parse(void)
{
	static const char *const good40[] = {
		"6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa",
		"0x6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa",
		"6D5A56DA255B0EC24167253D43A38FB0D0CA2BCBAE7B30B477CB2DA38030F20C6A42B73BBEAC01FA",
		("6d:5a:56:da:25:5b:0e:c2:41:67:25:3d:43:a3:8f:b0:d0:ca:2b:cb:ae:7b:30:b4:77:cb:2d:"
		 "a3:80:30:f2:0c:6a:42:b7:3b:be:ac:01:fa"),
	};
	static const char *const bad[] = {
		"", "0x", "zz", "6d5", "6d:5a56", "6d:5a:", ":6d", "6d 5a", "-6d",
		("6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01"
		 "fg"),
	};
	uint8_t key[RPS_TOEPLITZ_KEY_MAX];
	char hex[2 * RPS_TOEPLITZ_KEY_MAX + 1], in[2 * 64 + 1];
	size_t len;

	for (unsigned int i = 0; i < RTE_DIM(good40); i++) {
		len = 0;
		memset(key, 0, sizeof(key));
		CU_ASSERT_EQUAL(rps_toeplitz_key_parse(good40[i], key, &len), 0);
		CU_ASSERT_EQUAL(len, 40);
		CU_ASSERT_EQUAL(memcmp(key, rps_toeplitz_default_key, 40), 0);
	}
	for (unsigned int i = 0; i < RTE_DIM(bad); i++)
		CU_ASSERT_EQUAL(rps_toeplitz_key_parse(bad[i], key, &len), -EINVAL);
	/* hex of the wrong length: -ERANGE with the length */
	for (unsigned int n = 1; n <= 64; n++) {
		int want = n == 40 || n == 52 ? 0 : -ERANGE;

		for (unsigned int i = 0; i < n; i++)
			snprintf(in + 2 * i, 3, "%02x", (unsigned int)(i * 37 + 5) & 0xff);
		len = 0;
		CU_ASSERT_EQUAL(rps_toeplitz_key_parse(in, key, &len), want);
		CU_ASSERT_EQUAL(len, n);
		if (n == 52) {
			rps_toeplitz_key_format(key, 52, hex, sizeof(hex));
			CU_ASSERT_STRING_EQUAL(hex, in);
		}
	}
	rps_toeplitz_key_format(rps_toeplitz_symmetric_key, 40, hex, sizeof(hex));
	CU_ASSERT_EQUAL(strlen(hex), 80);
	CU_ASSERT_EQUAL(strncmp(hex, "6d5a6d5a", 8), 0);
	rps_toeplitz_key_format(rps_toeplitz_symmetric_key, 40, hex, 7); /* cut, terminated */
	CU_ASSERT_STRING_EQUAL(hex, "6d5a6d");
}

static void
test_key_symmetric(void)
{
	uint8_t key[RPS_TOEPLITZ_KEY_MAX];

	CU_ASSERT(rps_toeplitz_key_is_symmetric(rps_toeplitz_symmetric_key, 40));
	CU_ASSERT(!rps_toeplitz_key_is_symmetric(rps_toeplitz_default_key, 40));
	for (unsigned int i = 0; i < sizeof(key); i++)
		key[i] = i % 2 ? 0xbb : 0xaa;
	CU_ASSERT(rps_toeplitz_key_is_symmetric(key, 52));
	key[51] = 0xaa;
	CU_ASSERT(!rps_toeplitz_key_is_symmetric(key, 52));
	CU_ASSERT(rps_toeplitz_key_is_symmetric(key, 40));
	/* a 32-bit pattern swaps the ports' halves: not symmetric */
	for (unsigned int i = 0; i < sizeof(key); i++)
		key[i] = rps_toeplitz_symmetric_key[i % 4] ^ (i % 4 >= 2);
	CU_ASSERT(!rps_toeplitz_key_is_symmetric(key, 40));
}

/* rps_steer_hash(): toeplitz never takes the NIC's hash; auto does; jhash symmetric. */
static void
test_steer_hash(void)
{
	struct rps_steer_ctx ctx;
	struct ut_pkt p, q;
	struct rte_mbuf *m, *r;
	uint32_t computed = 0, sw;

	memset(&ctx, 0, sizeof(ctx));
	CU_ASSERT_EQUAL_FATAL(rps_toeplitz_init(&ctx.toeplitz, rps_toeplitz_default_key, 40,
						RPS_TOEPLITZ_AUTO), 0);
	ctx.seed = 77;
	ut_pkt_v4(&p, host32(ms_v4[0].src), host32(ms_v4[0].dst), IPPROTO_TCP, ms_v4[0].sport,
		  ms_v4[0].dport);
	ut_pkt_v4(&q, host32(ms_v4[0].dst), host32(ms_v4[0].src), IPPROTO_TCP, ms_v4[0].dport,
		  ms_v4[0].sport);
	m = ut_mbuf(p.b, p.len);
	r = ut_mbuf(q.b, q.len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	m->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
	m->hash.rss = 0xabcdef01;

	ctx.mode = RPS_HASH_TOEPLITZ;
	CU_ASSERT_EQUAL(rps_steer_hash(&ctx, m, &computed), ms_v4[0].hash_l4);
	CU_ASSERT_EQUAL(computed, 1);
	ctx.mode = RPS_HASH_AUTO;
	CU_ASSERT_EQUAL(rps_steer_hash(&ctx, m, &computed), 0xabcdef01);
	CU_ASSERT_EQUAL(computed, 1);
	ctx.mode = RPS_HASH_RSS;
	CU_ASSERT_EQUAL(rps_steer_hash(&ctx, m, &computed), 0xabcdef01);
	/* jhash, then symmetric jhash: the reverse direction meets only with symmetric */
	ctx.mode = RPS_HASH_JHASH;
	sw = rps_steer_hash(&ctx, m, &computed);
	CU_ASSERT_EQUAL(sw, rps_hash_sw(m, 77));
	CU_ASSERT_NOT_EQUAL(rps_steer_hash(&ctx, r, &computed), sw);
	ctx.symmetric = 1;
	sw = rps_steer_hash(&ctx, m, &computed);
	CU_ASSERT_EQUAL(sw, rps_hash_sw_sym(m, 77));
	CU_ASSERT_EQUAL(rps_steer_hash(&ctx, r, &computed), sw);
	/* auto falls back to (symmetric) jhash for a packet without the NIC's hash */
	ctx.mode = RPS_HASH_AUTO;
	CU_ASSERT_EQUAL(rps_steer_hash(&ctx, r, &computed), sw);
	/* toeplitz with the symmetric key: both directions */
	ctx.mode = RPS_HASH_TOEPLITZ;
	CU_ASSERT_EQUAL_FATAL(rps_toeplitz_init(&ctx.toeplitz, rps_toeplitz_symmetric_key, 40,
						RPS_TOEPLITZ_AUTO), 0);
	CU_ASSERT_EQUAL(rps_steer_hash(&ctx, m, &computed), rps_steer_hash(&ctx, r, &computed));
	CU_ASSERT_EQUAL(computed, 8);
	rte_pktmbuf_free(m);
	rte_pktmbuf_free(r);
}

/* A flow of the XOR-collapsing set: 198.18.(i) -> 198.19.0.1, ports (i ^ 0x4000) -> 80. The
 * tuple's 16-bit words XOR to the same value for every i, which is all a key repeating one
 * 16-bit pattern (6d5a) hashes: every flow has one hash, whatever that key. */
static struct rte_mbuf *
xor_flow(unsigned int i, int reverse)
{
	struct ut_pkt p;
	const uint32_t a = UT_IP4(i), b = UINT32_C(0xc6130001);
	const uint16_t sp = (uint16_t)(i ^ 0x4000), dp = 80;

	if (reverse)
		ut_pkt_v4(&p, b, a, IPPROTO_TCP, dp, sp);
	else
		ut_pkt_v4(&p, a, b, IPPROTO_TCP, sp, dp);
	return ut_mbuf(p.b, p.len);
}

#define XOR_FLOWS 3000
#define XOR_WORKERS 4 /* hash >> 30: the map's top bits, 4 equal shares */

/* Workers (of XOR_WORKERS) the set lands on, and the smallest share, under @p hash. */
static unsigned int
xor_spread(uint32_t (*hash)(const struct rps_toeplitz *, const struct rte_mbuf *),
	   const struct rps_toeplitz *t, unsigned int *min_share)
{
	unsigned int per[XOR_WORKERS] = { 0 }, used = 0;

	for (unsigned int i = 1; i <= XOR_FLOWS; i++) {
		struct rte_mbuf *m = xor_flow(i, 0);

		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		per[hash(t, m) >> 30]++;
		rte_pktmbuf_free(m);
	}
	*min_share = XOR_FLOWS;
	for (unsigned int w = 0; w < XOR_WORKERS; w++) {
		used += per[w] != 0;
		*min_share = RTE_MIN(*min_share, per[w]);
	}
	return used;
}

/* The sorted symmetric mode: both directions alike with any key (fast path, reference path
 * and segmented mbufs agree), and the 6d5a-colliding set spread; with the 6d5a key (the XOR
 * mode) the same set all on one worker. */
static void
test_symmetric_sorted(void)
{
	struct rps_toeplitz t, x;
	uint8_t key[RPS_TOEPLITZ_KEY_LEN];
	unsigned int min_share, mismatches = 0;

	CU_ASSERT_EQUAL_FATAL(rps_toeplitz_key_random(key, sizeof(key)), 0);
	CU_ASSERT_EQUAL_FATAL(rps_toeplitz_init(&t, key, sizeof(key), RPS_TOEPLITZ_AUTO), 0);
	CU_ASSERT_EQUAL_FATAL(rps_toeplitz_init(&x, rps_toeplitz_symmetric_key, 40,
						RPS_TOEPLITZ_AUTO), 0);
	for (unsigned int i = 1; i <= 500; i++) {
		struct rte_mbuf *f = xor_flow(i * 7, 0), *r = xor_flow(i * 7, 1);
		uint32_t h;

		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		h = rps_toeplitz_sw_sym(&t, f);
		mismatches += h != rps_toeplitz_sw_sym(&t, r);
		mismatches += h != rps_toeplitz_sym_ref(&t, f);
		mismatches += h != rps_toeplitz_sym_ref(&t, r);
		/* not symmetric without sorting under a random key (a check that can fail) */
		mismatches += i == 1 && rps_toeplitz_sw(&t, f) == rps_toeplitz_sw(&t, r);
		rte_pktmbuf_free(f);
		rte_pktmbuf_free(r);
	}
	CU_ASSERT_EQUAL(mismatches, 0);
	/* IPv6 both ways, the fast path and a chain split inside the header */
	{
		struct ut_pkt p, q;
		struct rte_mbuf *m, *r, *c;

		ut_pkt_v6(&p, 1, 2, IPPROTO_UDP, 4000, 53);
		ut_pkt_v6(&q, 2, 1, IPPROTO_UDP, 53, 4000);
		m = ut_mbuf(p.b, p.len);
		r = ut_mbuf(q.b, q.len);
		c = ut_mbuf_split(q.b, q.len, 30);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		CU_ASSERT_EQUAL(rps_toeplitz_sw_sym(&t, m), rps_toeplitz_sw_sym(&t, r));
		CU_ASSERT_EQUAL(rps_toeplitz_sw_sym(&t, m), rps_toeplitz_sw_sym(&t, c));
		CU_ASSERT_NOT_EQUAL(rps_toeplitz_sw(&t, m), rps_toeplitz_sw(&t, r));
		rte_pktmbuf_free(m);
		rte_pktmbuf_free(r);
		rte_pktmbuf_free(c);
	}
	/* the attack: with 6d5a every crafted flow has one hash */
	CU_ASSERT_EQUAL(xor_spread(rps_toeplitz_sw, &x, &min_share), 1);
	/* sorted with the random key: every worker, none below 15 % (expected 25 %) */
	CU_ASSERT_EQUAL(xor_spread(rps_toeplitz_sw_sym, &t, &min_share), XOR_WORKERS);
	CU_ASSERT(min_share >= XOR_FLOWS * 15 / 100);
	/* sorting only permutes the 16-bit words: with the 6d5a key the set still collapses
	 * (which is why --symmetric draws a random key and warns about a periodic one) */
	CU_ASSERT_EQUAL(xor_spread(rps_toeplitz_sw_sym, &x, &min_share), 1);
}

/* Two draws of the random key differ (a key fixed in the binary would not), and neither is
 * all zeros. */
static void
test_key_random(void)
{
	uint8_t a[RPS_TOEPLITZ_KEY_MAX], b[RPS_TOEPLITZ_KEY_MAX], zero[RPS_TOEPLITZ_KEY_MAX] = { 0 };

	CU_ASSERT_EQUAL(rps_toeplitz_key_random(a, sizeof(a)), 0);
	CU_ASSERT_EQUAL(rps_toeplitz_key_random(b, sizeof(b)), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(a, b, sizeof(a)), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(a, zero, sizeof(a)), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(a, rps_toeplitz_default_key, RPS_TOEPLITZ_KEY_LEN), 0);
	CU_ASSERT_EQUAL(rps_toeplitz_key_random(a, 0), 0);
}

/* The steering step with RPS_SYM_SORT never takes the NIC's hash (not symmetric under a
 * random key) and hashes the sorted tuple in every mode; RPS_SYM_XOR takes it. */
static void
test_steer_sym_modes(void)
{
	struct rps_steer_ctx ctx;
	struct rte_mbuf *f = xor_flow(9, 0), *r = xor_flow(9, 1);
	uint32_t computed = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	memset(&ctx, 0, sizeof(ctx));
	CU_ASSERT_EQUAL_FATAL(rps_toeplitz_init(&ctx.toeplitz, rps_toeplitz_default_key, 40,
						RPS_TOEPLITZ_AUTO), 0);
	ctx.seed = 99;
	f->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
	f->hash.rss = 0x1234;
	ctx.symmetric = RPS_SYM_SORT;
	ctx.mode = RPS_HASH_AUTO;
	CU_ASSERT_EQUAL(rps_steer_hash(&ctx, f, &computed), rps_hash_sw_sym(f, 99));
	CU_ASSERT_EQUAL(rps_steer_hash(&ctx, f, &computed), rps_steer_hash(&ctx, r, &computed));
	CU_ASSERT_EQUAL(computed, 3);
	ctx.mode = RPS_HASH_TOEPLITZ;
	CU_ASSERT_EQUAL(rps_steer_hash(&ctx, f, &computed), rps_toeplitz_sw_sym(&ctx.toeplitz, f));
	CU_ASSERT_EQUAL(rps_steer_hash(&ctx, f, &computed), rps_steer_hash(&ctx, r, &computed));
	ctx.symmetric = RPS_SYM_XOR;
	ctx.mode = RPS_HASH_AUTO;
	CU_ASSERT_EQUAL(rps_steer_hash(&ctx, f, &computed), 0x1234);
	rte_pktmbuf_free(f);
	rte_pktmbuf_free(r);
}

/* Frames without an IP flow from many stations spread over the workers (jhash and Toeplitz,
 * keyed); one station's frames keep one hash; the sorted mode puts a reply with it. */
static void
test_non_ip_spread(void)
{
	struct rps_toeplitz t;
	uint8_t key[RPS_TOEPLITZ_KEY_LEN];
	unsigned int per_j[XOR_WORKERS] = { 0 }, per_t[XOR_WORKERS] = { 0 };
	const unsigned int n = 2000;

	CU_ASSERT_EQUAL_FATAL(rps_toeplitz_key_random(key, sizeof(key)), 0);
	CU_ASSERT_EQUAL_FATAL(rps_toeplitz_init(&t, key, sizeof(key), RPS_TOEPLITZ_AUTO), 0);
	for (unsigned int i = 0; i < n; i++) {
		static const uint8_t arp[28] = { 0, 1, 8, 0, 6, 4, 0, 1 };
		struct ut_pkt p, q;
		struct rte_mbuf *m, *r;

		ut_pkt_init(&p);
		ut_put_eth(&p, i % 2 ? RTE_ETHER_TYPE_ARP : RTE_ETHER_TYPE_LLDP);
		p.b[9] = (uint8_t)(i >> 8); /* source MAC 02:00:00:ii:ii:01 */
		p.b[10] = (uint8_t)i;
		ut_put(&p, arp, sizeof(arp));
		q = p; /* the reply: MACs swapped */
		memcpy(q.b, p.b + 6, 6);
		memcpy(q.b + 6, p.b, 6);
		m = ut_mbuf(p.b, p.len);
		r = ut_mbuf(q.b, q.len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		per_j[rps_hash_sw(m, 5) >> 30]++;
		per_t[rps_toeplitz_sw(&t, m) >> 30]++;
		CU_ASSERT_EQUAL(rps_hash_sw_sym(m, 5), rps_hash_sw_sym(r, 5));
		CU_ASSERT_EQUAL(rps_toeplitz_sw_sym(&t, m), rps_toeplitz_sw_sym(&t, r));
		rte_pktmbuf_free(r);
		/* the same station again: the same hash */
		r = ut_mbuf(p.b, p.len);
		CU_ASSERT_EQUAL(rps_hash_sw(m, 5), rps_hash_sw(r, 5));
		rte_pktmbuf_free(r);
		rte_pktmbuf_free(m);
	}
	for (unsigned int w = 0; w < XOR_WORKERS; w++) {
		CU_ASSERT(per_j[w] >= n * 15 / 100);
		CU_ASSERT(per_t[w] >= n * 15 / 100);
	}
}

/* The CPU-specific paths follow the running CPU, whatever the build's baseline: GFNI where
 * the CPU has every extension rte_thash_gfni() uses (a -Dcpu=generic build included), the
 * UMWAIT idle wait where it has WAITPKG; the build says what it was compiled for. */
static void
test_cpu_paths(void)
{
	static const enum rte_cpu_flag_t gfni_needs[] = {
		RTE_CPUFLAG_GFNI, RTE_CPUFLAG_AVX512F, RTE_CPUFLAG_AVX512BW, RTE_CPUFLAG_AVX512DQ,
		RTE_CPUFLAG_AVX512VL, RTE_CPUFLAG_AVX512VBMI,
	};
	struct rps_cpu_paths p;
	int cpu_gfni = 1;

	for (unsigned int i = 0; i < RTE_DIM(gfni_needs); i++)
		cpu_gfni &= rte_cpu_get_flag_enabled(gfni_needs[i]) > 0;
	rps_cpu_paths_get(&p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p.build);
	CU_ASSERT(strncmp(p.build, "native", 6) == 0 || strncmp(p.build, "generic", 7) == 0);
#if defined(RPS_HAVE_GFNI_OOL) || defined(RTE_THASH_GFNI_DEFINED)
	CU_ASSERT_EQUAL(rps_toeplitz_gfni_available(), cpu_gfni);
#endif
	CU_ASSERT_EQUAL(strcmp(p.toeplitz, "softrss") != 0, rps_toeplitz_gfni_available());
#if !defined(RTE_THASH_GFNI_DEFINED)
	/* a build whose baseline lacks GFNI reaches it only out of line */
	if (rps_toeplitz_gfni_available())
		CU_ASSERT_STRING_EQUAL(p.toeplitz, "gfni-ool");
#endif
	CU_ASSERT_EQUAL(strcmp(p.idle_wait, "umwait") == 0,
			rte_cpu_get_flag_enabled(RTE_CPUFLAG_WAITPKG) > 0);
	CU_ASSERT_EQUAL(strstr(p.cpu_flags, "gfni") != NULL,
			rte_cpu_get_flag_enabled(RTE_CPUFLAG_GFNI) > 0);
	printf("\n    build %s, Toeplitz %s, idle %s, CPU: %s ", p.build, p.toeplitz, p.idle_wait,
	       p.cpu_flags);
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "cpu_paths", test_cpu_paths },
		{ "ms_vectors_raw", test_ms_vectors_raw },
		{ "ms_vectors_packets", test_ms_vectors_packets },
		{ "impls_agree", test_impls_agree },
		{ "symmetric", test_symmetric },
		{ "init", test_init },
		{ "non_ip", test_non_ip },
		{ "key_parse", test_key_parse },
		{ "key_symmetric", test_key_symmetric },
		{ "steer_hash", test_steer_hash },
		{ "symmetric_sorted", test_symmetric_sorted },
		{ "key_random", test_key_random },
		{ "steer_sym_modes", test_steer_sym_modes },
		{ "non_ip_spread", test_non_ip_spread },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "toeplitz", tests);
}
