/* SPDX-License-Identifier: BSD-3-Clause */
/* test_hash.c: flow-key extraction and the software flow hash (lib/rps/hash.c, rps_hash.h). */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_jhash.h>

#include "rps_hash.h"
#include "test_common.h"

#define SEED UINT32_C(0x5eed1234)
#define ETH_LEN ((uint16_t)sizeof(struct rte_ether_hdr))
#define IP4_LEN ((uint16_t)sizeof(struct rte_ipv4_hdr))
#define IP6_LEN ((uint16_t)sizeof(struct rte_ipv6_hdr))

#ifndef IPPROTO_SCTP
#define IPPROTO_SCTP 132
#endif
#define IPPROTO_GRE_ 47
#define IPPROTO_OSPF_ 89
#define IPPROTO_ICMPV6_ 58
#define IPPROTO_NONE_ 59
#define IP6_HOPOPTS 0
#define IP6_ROUTING 43
#define IP6_FRAGMENT 44
#define IP6_DSTOPTS 60

static const uint8_t port_protos[] = {
	IPPROTO_TCP, IPPROTO_UDP, IPPROTO_UDPLITE, IPPROTO_DCCP, IPPROTO_SCTP, IPPROTO_ESP,
	IPPROTO_AH,
};
static const uint8_t portless_protos[] = {
	IPPROTO_ICMP, IPPROTO_GRE_, IPPROTO_OSPF_, 253 /* experimental */, 0, 255,
};

/* The "never 0" rule of rps_hash_key(). */
static uint32_t
nz(uint32_t h)
{
	return h ? h : 1;
}

static uint32_t
raw32(const uint8_t *b)
{
	uint32_t v;

	memcpy(&v, b, 4);
	return v;
}

/*
 * Extract the key of the first @p len bytes of @p p in every mbuf layout we can think of and
 * insist that they all agree:
 *  - an exact-size external buffer (ASan reports any read past the packet),
 *  - a pool mbuf holding the whole builder buffer but trimmed to @p len (so bytes past the
 *    packet are real header bytes: reading them would change the answer),
 *  - a two-segment chain split at every possible offset.
 * @return what rps_flow_key_extract() returned for the exact buffer.
 */
static int
key_of(const struct ut_pkt *p, uint16_t len, struct rps_flow_key *k)
{
	struct rps_flow_key k2;
	struct rte_mbuf *m;
	unsigned int mismatches = 0;
	int rc, rc2;

	m = ut_mbuf_exact(p->b, len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	memset(k, 0xa5, sizeof(*k));
	rc = rps_flow_key_extract(m, k);
	rte_pktmbuf_free(m);
	if (rc < 0) {
		CU_ASSERT_EQUAL(k->family, 0);
	}

	m = ut_mbuf(p->b, UT_PKT_MAX);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL_FATAL(rte_pktmbuf_trim(m, (uint16_t)(UT_PKT_MAX - len)), 0);
	CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(m), len);
	rc2 = rps_flow_key_extract(m, &k2);
	if (rc2 != rc || (rc == 0 && memcmp(&k2, k, sizeof(k2)) != 0))
		mismatches++;
	rte_pktmbuf_free(m);

	for (uint16_t split = 1; split < len; split++) {
		m = ut_mbuf_split(p->b, len, split);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_EQUAL(m->nb_segs, 2);
		rc2 = rps_flow_key_extract(m, &k2);
		if (rc2 != rc || (rc == 0 && memcmp(&k2, k, sizeof(k2)) != 0))
			mismatches++;
		rte_pktmbuf_free(m);
	}
	CU_ASSERT_EQUAL(mismatches, 0);
	return rc;
}

/* The layer-2 hash of the first @p len bytes, computed here from the bytes (independent of
 * rps_hash_l2_key()): jhash of dst MAC, src MAC (the lower first with @p sym), the
 * EtherType after up to RPS_HASH_MAX_VLAN complete tags, the outer VLAN ID; 0 below 14. */
static uint32_t
l2_ref(const uint8_t *b, uint16_t len, uint32_t seed, int sym)
{
	uint8_t k[16] = { 0 };
	uint32_t w[4], h;
	uint16_t type, off = ETH_LEN;

	if (len < ETH_LEN)
		return 0;
	/* both MACs first, then ordered from that copy (GCC 12 under ASan took b + 6 for an
	 * object of no bytes: -Warray-bounds) */
	memcpy(k, b, 12);
	if (sym && memcmp(k, k + 6, 6) > 0) {
		uint8_t a[6];

		memcpy(a, k, 6);
		memmove(k, k + 6, 6);
		memcpy(k + 6, a, 6);
	}
	type = (uint16_t)(b[12] << 8 | b[13]);
	for (int tags = 0; tags < RPS_HASH_MAX_VLAN && off + 4 <= len &&
	     (type == 0x8100 || type == 0x88a8 || type == 0x9100); tags++) {
		if (tags == 0) {
			k[14] = b[off] & 0x0f;
			k[15] = b[off + 1];
		}
		type = (uint16_t)(b[off + 2] << 8 | b[off + 3]);
		off += 4;
	}
	k[12] = (uint8_t)(type >> 8);
	k[13] = (uint8_t)type;
	memcpy(w, k, 16);
	h = rte_jhash_32b(w, 4, seed);
	return h ? h : 1;
}

/* rps_hash_sw() of the first @p len bytes, checked equal across layouts and against the
 * key: the layer-2 hash (l2_ref()) exactly when the key says "no flow". */
static uint32_t
hash_of(const struct ut_pkt *p, uint16_t len, uint32_t seed)
{
	struct rps_flow_key k;
	struct rte_mbuf *m;
	unsigned int mismatches = 0;
	uint32_t h;
	int rc = key_of(p, len, &k);

	m = ut_mbuf_exact(p->b, len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	h = rps_hash_sw(m, seed);
	rte_pktmbuf_free(m);
	if (rc < 0) {
		CU_ASSERT_EQUAL(h, l2_ref(p->b, len, seed, 0));
		CU_ASSERT_EQUAL(h == 0, len < ETH_LEN);
	} else {
		CU_ASSERT_EQUAL(h, rps_hash_key(&k, seed));
	}
	for (uint16_t split = 1; split < len; split += 7) {
		m = ut_mbuf_split(p->b, len, split);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		if (rps_hash_sw(m, seed) != h)
			mismatches++;
		rte_pktmbuf_free(m);
	}
	CU_ASSERT_EQUAL(mismatches, 0);
	return h;
}

static uint32_t
hash_pkt(const struct ut_pkt *p)
{
	return hash_of(p, p->len, SEED);
}

/* The hash of the addresses alone (ports 0) for an IPv4 packet built by ut_pkt. */
static uint32_t
v4_addr_hash(const struct ut_pkt *p, uint32_t seed)
{
	uint32_t h = rte_jhash_3words(raw32(p->b + p->l3_off + 12), raw32(p->b + p->l3_off + 16),
				      0, seed);

	return h ? h : 1;
}

static uint32_t
v6_addr_hash(const struct ut_pkt *p, uint32_t seed, uint32_t ports)
{
	uint32_t w[9], h;

	memcpy(w, p->b + p->l3_off + 8, 32);
	w[8] = ports;
	h = rte_jhash_32b(w, 9, seed);
	return h ? h : 1;
}

static void
test_proto_has_ports(void)
{
	for (unsigned int proto = 0; proto < 256; proto++) {
		int want = 0;

		for (unsigned int i = 0; i < RTE_DIM(port_protos); i++)
			want |= port_protos[i] == proto;
		CU_ASSERT_EQUAL(!!rps_hash_proto_has_ports((uint8_t)proto), want);
	}
	CU_ASSERT(rps_hash_proto_has_ports(136));
	CU_ASSERT(rps_hash_proto_has_ports(33));
	CU_ASSERT(rps_hash_proto_has_ports(132));
	CU_ASSERT(rps_hash_proto_has_ports(50));
	CU_ASSERT(rps_hash_proto_has_ports(51));
}

/* The key of a TCP/UDP-like packet @p p (Ethernet + IPv4 or IPv6, no options): family,
 * protocol, not a fragment, the ports as they stand after the IP header, the lengths. */
static void
check_port_key(const struct rps_flow_key *k, const struct ut_pkt *p, uint8_t family,
	       uint8_t proto, uint16_t sport, uint16_t dport)
{
	uint16_t l3 = family == 4 ? IP4_LEN : IP6_LEN;

	CU_ASSERT_EQUAL(k->family, family);
	CU_ASSERT_EQUAL(k->proto, proto);
	CU_ASSERT_EQUAL(k->is_frag, 0);
	CU_ASSERT_EQUAL(k->has_ports, 1);
	CU_ASSERT_EQUAL(k->ports, raw32(p->b + ETH_LEN + l3));
	CU_ASSERT_EQUAL(k->ports, rte_cpu_to_be_32((uint32_t)sport << 16 | dport));
	CU_ASSERT_EQUAL(k->l2_len, ETH_LEN);
	CU_ASSERT_EQUAL(k->l3_len, l3);
}

static void
test_v4_ports(void)
{
	for (unsigned int i = 0; i < RTE_DIM(port_protos); i++) {
		uint8_t proto = port_protos[i];
		struct ut_pkt p, q;
		struct rps_flow_key k;
		uint32_t h;

		ut_pkt_v4(&p, UT_IP4(1), UT_IP4(0x10002), proto, (uint16_t)(1000 + i), 2000);
		CU_ASSERT_EQUAL_FATAL(key_of(&p, p.len, &k), 0);
		check_port_key(&k, &p, 4, proto, (uint16_t)(1000 + i), 2000);
		CU_ASSERT_EQUAL(k.src[0], rte_cpu_to_be_32(UT_IP4(1)));
		CU_ASSERT_EQUAL(k.dst[0], rte_cpu_to_be_32(UT_IP4(0x10002)));
		CU_ASSERT(k.src[1] == 0 && k.src[2] == 0 && k.src[3] == 0);
		CU_ASSERT(k.dst[1] == 0 && k.dst[2] == 0 && k.dst[3] == 0);

		h = hash_pkt(&p);
		CU_ASSERT_NOT_EQUAL(h, 0);
		CU_ASSERT_EQUAL(h, nz(rte_jhash_3words(k.src[0], k.dst[0], k.ports, SEED)));
		/* the ports really take part: another source port, another hash */
		ut_pkt_v4(&q, UT_IP4(1), UT_IP4(0x10002), proto, (uint16_t)(3000 + i), 2000);
		CU_ASSERT_NOT_EQUAL(hash_pkt(&q), h);
		CU_ASSERT_NOT_EQUAL(h, v4_addr_hash(&p, SEED));
	}
}

static void
test_v6_ports(void)
{
	for (unsigned int i = 0; i < RTE_DIM(port_protos); i++) {
		uint8_t proto = port_protos[i];
		struct ut_pkt p, q;
		struct rps_flow_key k;
		uint32_t h, w[9];

		ut_pkt_v6(&p, 1, 2, proto, (uint16_t)(1000 + i), 443);
		CU_ASSERT_EQUAL_FATAL(key_of(&p, p.len, &k), 0);
		check_port_key(&k, &p, 6, proto, (uint16_t)(1000 + i), 443);
		CU_ASSERT_EQUAL(memcmp(k.src, p.b + ETH_LEN + 8, 16), 0);
		CU_ASSERT_EQUAL(memcmp(k.dst, p.b + ETH_LEN + 24, 16), 0);

		h = hash_pkt(&p);
		memcpy(w, k.src, 16);
		memcpy(w + 4, k.dst, 16);
		w[8] = k.ports;
		CU_ASSERT_EQUAL(h, nz(rte_jhash_32b(w, 9, SEED)));
		ut_pkt_v6(&q, 1, 2, proto, (uint16_t)(3000 + i), 443);
		CU_ASSERT_NOT_EQUAL(hash_pkt(&q), h);
	}
}

static void
test_portless_protocols(void)
{
	for (unsigned int i = 0; i < RTE_DIM(portless_protos); i++) {
		uint8_t proto = portless_protos[i];
		struct ut_pkt p, q;
		struct rps_flow_key k;
		uint32_t h;

		/* IPv4: the 4 bytes after the header are ignored */
		ut_pkt_v4(&p, UT_IP4(7), UT_IP4(8), proto, 0x1111, 0x2222);
		ut_pkt_v4(&q, UT_IP4(7), UT_IP4(8), proto, 0x3333, 0x4444);
		CU_ASSERT_EQUAL_FATAL(key_of(&p, p.len, &k), 0);
		CU_ASSERT_EQUAL(k.family, 4);
		CU_ASSERT_EQUAL(k.proto, proto);
		CU_ASSERT_EQUAL(k.has_ports, 0);
		CU_ASSERT_EQUAL(k.ports, 0);
		CU_ASSERT_EQUAL(k.is_frag, 0);
		h = hash_pkt(&p);
		CU_ASSERT_EQUAL(h, hash_pkt(&q));
		CU_ASSERT_EQUAL(h, v4_addr_hash(&p, SEED));

		/* IPv6 */
		ut_pkt_v6(&p, 7, 8, proto == 0 ? IPPROTO_NONE_ : proto, 0x1111, 0x2222);
		ut_pkt_v6(&q, 7, 8, proto == 0 ? IPPROTO_NONE_ : proto, 0x3333, 0x4444);
		CU_ASSERT_EQUAL_FATAL(key_of(&p, p.len, &k), 0);
		CU_ASSERT_EQUAL(k.family, 6);
		CU_ASSERT_EQUAL(k.has_ports, 0);
		CU_ASSERT_EQUAL(k.ports, 0);
		h = hash_pkt(&p);
		CU_ASSERT_EQUAL(h, hash_pkt(&q));
		CU_ASSERT_EQUAL(h, v6_addr_hash(&p, SEED, 0));
	}
	/* ICMPv6 */
	{
		struct ut_pkt p;
		struct rps_flow_key k;

		ut_pkt_v6(&p, 7, 8, IPPROTO_ICMPV6_, 0x8000, 0x1234);
		CU_ASSERT_EQUAL_FATAL(key_of(&p, p.len, &k), 0);
		CU_ASSERT_EQUAL(k.proto, IPPROTO_ICMPV6_);
		CU_ASSERT_EQUAL(k.has_ports, 0);
		CU_ASSERT_EQUAL(hash_pkt(&p), v6_addr_hash(&p, SEED, 0));
	}
}

static void
test_v4_options(void)
{
	static const uint8_t opts[] = { 4, 8, 12, 40 };
	struct ut_pkt plain;
	uint32_t h_plain;

	ut_pkt_v4(&plain, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 5555, 80);
	h_plain = hash_pkt(&plain);
	for (unsigned int i = 0; i < RTE_DIM(opts); i++) {
		struct ut_pkt p;
		struct rps_flow_key k;

		ut_pkt_init(&p);
		ut_put_eth(&p, RTE_ETHER_TYPE_IPV4);
		ut_put_ipv4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, opts[i], 0);
		ut_put_tcp(&p, 5555, 80);
		ut_pkt_finish(&p);
		CU_ASSERT_EQUAL(p.b[ETH_LEN] & 0x0f, 5 + opts[i] / 4);
		CU_ASSERT_EQUAL_FATAL(key_of(&p, p.len, &k), 0);
		CU_ASSERT_EQUAL(k.l3_len, IP4_LEN + opts[i]);
		CU_ASSERT_EQUAL(k.has_ports, 1);
		CU_ASSERT_EQUAL(k.ports, rte_cpu_to_be_32((uint32_t)5555 << 16 | 80));
		/* the options do not move the flow */
		CU_ASSERT_EQUAL(hash_pkt(&p), h_plain);

		/* options present in the IHL but cut short: a truncated IP header, hashed on
		 * its layer-2 key */
		{
			const uint16_t cut = (uint16_t)(ETH_LEN + IP4_LEN + opts[i] - 1);

			CU_ASSERT_EQUAL(hash_of(&p, cut, SEED), l2_ref(p.b, cut, SEED, 0));
		}
		/* header complete, transport missing: addresses alone */
		CU_ASSERT_EQUAL_FATAL(key_of(&p, (uint16_t)(ETH_LEN + IP4_LEN + opts[i]), &k), 0);
		CU_ASSERT_EQUAL(k.has_ports, 0);
		CU_ASSERT_EQUAL(k.ports, 0);
	}
}

static void
build_v4_frag(struct ut_pkt *p, uint16_t frag, int with_tcp)
{
	ut_pkt_init(p);
	ut_put_eth(p, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(p, UT_IP4(0x100), UT_IP4(0x200), IPPROTO_UDP, 0, frag);
	if (with_tcp)
		ut_put_udp(p, 4000, 53);
	ut_put(p, "fragment payload bytes..", 24);
	ut_pkt_finish(p);
}

static void
test_v4_fragments(void)
{
	struct ut_pkt first, middle, last, whole, df;
	struct rps_flow_key k;
	uint32_t h;

	build_v4_frag(&first, RTE_IPV4_HDR_MF_FLAG, 1);
	build_v4_frag(&middle, RTE_IPV4_HDR_MF_FLAG | 4, 0);
	build_v4_frag(&last, 185, 0);
	build_v4_frag(&whole, 0, 1);
	build_v4_frag(&df, RTE_IPV4_HDR_DF_FLAG, 1);

	CU_ASSERT_EQUAL_FATAL(key_of(&first, first.len, &k), 0);
	CU_ASSERT_EQUAL(k.is_frag, 1);
	CU_ASSERT_EQUAL(k.has_ports, 0);
	CU_ASSERT_EQUAL(k.ports, 0);
	CU_ASSERT_EQUAL(k.proto, IPPROTO_UDP);
	CU_ASSERT_EQUAL_FATAL(key_of(&middle, middle.len, &k), 0);
	CU_ASSERT_EQUAL(k.is_frag, 1);
	CU_ASSERT_EQUAL(k.ports, 0);
	CU_ASSERT_EQUAL_FATAL(key_of(&last, last.len, &k), 0);
	CU_ASSERT_EQUAL(k.is_frag, 1);
	CU_ASSERT_EQUAL(k.has_ports, 0);
	CU_ASSERT_EQUAL(k.ports, 0);

	/* all fragments of the datagram go to one worker: one hash, the addresses' hash */
	h = hash_pkt(&first);
	CU_ASSERT_EQUAL(hash_pkt(&middle), h);
	CU_ASSERT_EQUAL(hash_pkt(&last), h);
	CU_ASSERT_EQUAL(h, v4_addr_hash(&first, SEED));

	/* not fragments: no flags, or DF alone */
	CU_ASSERT_EQUAL_FATAL(key_of(&whole, whole.len, &k), 0);
	CU_ASSERT_EQUAL(k.is_frag, 0);
	CU_ASSERT_EQUAL(k.has_ports, 1);
	CU_ASSERT_NOT_EQUAL(hash_pkt(&whole), h);
	CU_ASSERT_EQUAL_FATAL(key_of(&df, df.len, &k), 0);
	CU_ASSERT_EQUAL(k.is_frag, 0);
	CU_ASSERT_EQUAL(k.has_ports, 1);
	CU_ASSERT_EQUAL(hash_pkt(&df), hash_pkt(&whole));
}

static void
test_v6_ext_chain(void)
{
	uint8_t s[16], d[16];
	struct ut_pkt p, plain;
	struct rps_flow_key k;

	ut_ip6(s, 0, 1);
	ut_ip6(d, 0, 2);
	ut_pkt_init(&p);
	ut_put_eth(&p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(&p, s, d, IP6_HOPOPTS);
	ut_put_ipv6_ext(&p, IP6_ROUTING, 0);   /* hop-by-hop, 8 bytes */
	ut_put_ipv6_ext(&p, IP6_DSTOPTS, 2);   /* routing, 24 bytes */
	ut_put_ipv6_ext(&p, IPPROTO_TCP, 1);   /* destination options, 16 bytes */
	ut_put_tcp(&p, 40000, 22);
	ut_put(&p, "data", 4);
	ut_pkt_finish(&p);

	CU_ASSERT_EQUAL_FATAL(key_of(&p, p.len, &k), 0);
	CU_ASSERT_EQUAL(k.family, 6);
	CU_ASSERT_EQUAL(k.proto, IPPROTO_TCP);
	CU_ASSERT_EQUAL(k.l3_len, IP6_LEN + 8 + 24 + 16);
	CU_ASSERT_EQUAL(k.is_frag, 0);
	CU_ASSERT_EQUAL(k.has_ports, 1);
	CU_ASSERT_EQUAL(k.ports, rte_cpu_to_be_32((uint32_t)40000 << 16 | 22));
	/* the extension headers do not move the flow */
	ut_pkt_v6(&plain, 1, 2, IPPROTO_TCP, 40000, 22);
	CU_ASSERT_EQUAL(hash_pkt(&p), hash_pkt(&plain));

	/* chain cut short inside the routing header's first 8 bytes: addresses alone */
	CU_ASSERT_EQUAL_FATAL(key_of(&p, ETH_LEN + IP6_LEN + 8 + 4, &k), 0);
	CU_ASSERT_EQUAL(k.family, 6);
	CU_ASSERT_EQUAL(k.has_ports, 0);
	CU_ASSERT_EQUAL(k.ports, 0);
	CU_ASSERT_EQUAL(hash_of(&p, ETH_LEN + IP6_LEN + 8 + 4, SEED), v6_addr_hash(&p, SEED, 0));
	/* whole chain present, TCP cut to 3 bytes: addresses alone */
	CU_ASSERT_EQUAL_FATAL(key_of(&p, ETH_LEN + IP6_LEN + 48 + 3, &k), 0);
	CU_ASSERT_EQUAL(k.proto, IPPROTO_TCP);
	CU_ASSERT_EQUAL(k.has_ports, 0);
	CU_ASSERT_EQUAL(k.ports, 0);
}

static void
test_v6_ext_limit(void)
{
	/* RPS_HASH_MAX_V6EXT headers are walked; one more and the walk gives up without ports */
	for (int n = RPS_HASH_MAX_V6EXT; n <= RPS_HASH_MAX_V6EXT + 1; n++) {
		uint8_t s[16], d[16];
		struct ut_pkt p;
		struct rps_flow_key k;

		ut_ip6(s, 0, 1);
		ut_ip6(d, 0, 2);
		ut_pkt_init(&p);
		ut_put_eth(&p, RTE_ETHER_TYPE_IPV6);
		ut_put_ipv6(&p, s, d, IP6_DSTOPTS);
		for (int i = 0; i < n; i++)
			ut_put_ipv6_ext(&p, i == n - 1 ? IPPROTO_UDP : IP6_DSTOPTS, 0);
		ut_put_udp(&p, 1234, 5678);
		ut_pkt_finish(&p);
		CU_ASSERT_EQUAL_FATAL(key_of(&p, p.len, &k), 0);
		CU_ASSERT_EQUAL(k.family, 6);
		if (n <= RPS_HASH_MAX_V6EXT) {
			CU_ASSERT_EQUAL(k.proto, IPPROTO_UDP);
			CU_ASSERT_EQUAL(k.l3_len, IP6_LEN + 8 * n);
			CU_ASSERT_EQUAL(k.has_ports, 1);
			CU_ASSERT_EQUAL(k.ports, rte_cpu_to_be_32((uint32_t)1234 << 16 | 5678));
		} else {
			CU_ASSERT_EQUAL(k.has_ports, 0);
			CU_ASSERT_EQUAL(k.ports, 0);
			CU_ASSERT_EQUAL(hash_pkt(&p), v6_addr_hash(&p, SEED, 0));
		}
	}
}

static void
build_v6_frag(struct ut_pkt *p, uint16_t offset, int more, int hbh, int with_l4)
{
	uint8_t s[16], d[16];

	ut_ip6(s, 0x0000000100000000, 0x11);
	ut_ip6(d, 0x0000000200000000, 0x22);
	ut_pkt_init(p);
	ut_put_eth(p, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(p, s, d, hbh ? IP6_HOPOPTS : IP6_FRAGMENT);
	if (hbh)
		ut_put_ipv6_ext(p, IP6_FRAGMENT, 0);
	ut_put_ipv6_frag(p, IPPROTO_UDP, offset, more);
	if (with_l4)
		ut_put_udp(p, 5353, 5353);
	ut_put(p, "fragment data...", 16);
	ut_pkt_finish(p);
}

static void
test_v6_fragments(void)
{
	struct ut_pkt first, middle, last, first_hbh, atomic, reserved;
	struct rps_flow_key k;
	uint32_t h;

	build_v6_frag(&first, 0, 1, 0, 1);
	build_v6_frag(&middle, 100, 1, 0, 0);
	build_v6_frag(&last, 200, 0, 0, 0);
	build_v6_frag(&first_hbh, 0, 1, 1, 1);
	build_v6_frag(&atomic, 0, 0, 0, 1);

	CU_ASSERT_EQUAL_FATAL(key_of(&first, first.len, &k), 0);
	CU_ASSERT_EQUAL(k.is_frag, 1);
	CU_ASSERT_EQUAL(k.has_ports, 0);
	CU_ASSERT_EQUAL(k.ports, 0);
	CU_ASSERT_EQUAL(k.l3_len, IP6_LEN + 8);
	CU_ASSERT_EQUAL_FATAL(key_of(&middle, middle.len, &k), 0);
	CU_ASSERT_EQUAL(k.is_frag, 1);
	CU_ASSERT_EQUAL(k.ports, 0);
	CU_ASSERT_EQUAL_FATAL(key_of(&last, last.len, &k), 0);
	CU_ASSERT_EQUAL(k.is_frag, 1);
	CU_ASSERT_EQUAL(k.ports, 0);
	CU_ASSERT_EQUAL_FATAL(key_of(&first_hbh, first_hbh.len, &k), 0);
	CU_ASSERT_EQUAL(k.is_frag, 1);
	CU_ASSERT_EQUAL(k.ports, 0);
	CU_ASSERT_EQUAL(k.l3_len, IP6_LEN + 16);

	h = hash_pkt(&first);
	CU_ASSERT_EQUAL(hash_pkt(&middle), h);
	CU_ASSERT_EQUAL(hash_pkt(&last), h);
	CU_ASSERT_EQUAL(hash_pkt(&first_hbh), h);
	CU_ASSERT_EQUAL(h, v6_addr_hash(&first, SEED, 0));

	/* atomic fragment (offset 0, M 0): a whole datagram, ports after the fragment header */
	CU_ASSERT_EQUAL_FATAL(key_of(&atomic, atomic.len, &k), 0);
	CU_ASSERT_EQUAL(k.is_frag, 0);
	CU_ASSERT_EQUAL(k.proto, IPPROTO_UDP);
	CU_ASSERT_EQUAL(k.l3_len, IP6_LEN + 8);
	CU_ASSERT_EQUAL(k.has_ports, 1);
	CU_ASSERT_EQUAL(k.ports, rte_cpu_to_be_32((uint32_t)5353 << 16 | 5353));
	CU_ASSERT_NOT_EQUAL(hash_pkt(&atomic), h);

	/* the two reserved bits next to M are not "more fragments" */
	reserved = atomic;
	reserved.b[ETH_LEN + IP6_LEN + 3] |= 0x06;
	CU_ASSERT_EQUAL_FATAL(key_of(&reserved, reserved.len, &k), 0);
	CU_ASSERT_EQUAL(k.is_frag, 0);
	CU_ASSERT_EQUAL(k.has_ports, 1);
}

static void
test_v6_full_address(void)
{
	enum { N = 1 + 64 + 64 + 32 };
	uint32_t h[N];
	unsigned int n = 0, dup = 0;
	struct ut_pkt p;
	uint8_t s[16], d[16];

	ut_ip6(d, 0xfeedface00000000, 0x99);
	/* base, then every single bit of bytes 4..11 of the source, then of the destination */
	for (int b = -1; b < 64; b++) {
		ut_ip6(s, b < 0 ? 0 : UINT64_C(1) << b, 0x42);
		ut_pkt_init(&p);
		ut_put_eth(&p, RTE_ETHER_TYPE_IPV6);
		ut_put_ipv6(&p, s, d, IPPROTO_TCP);
		ut_put_tcp(&p, 1, 2);
		ut_pkt_finish(&p);
		h[n++] = hash_of(&p, p.len, SEED);
	}
	ut_ip6(s, 0, 0x42);
	for (int b = 0; b < 64; b++) {
		ut_ip6(d, 0xfeedface00000000 ^ (UINT64_C(1) << b), 0x99);
		ut_pkt_init(&p);
		ut_put_eth(&p, RTE_ETHER_TYPE_IPV6);
		ut_put_ipv6(&p, s, d, IPPROTO_TCP);
		ut_put_tcp(&p, 1, 2);
		ut_pkt_finish(&p);
		h[n++] = hash_of(&p, p.len, SEED);
	}
	/* and random upper halves with the same low 32 bits */
	{
		uint64_t st = 0x1234567;

		ut_ip6(d, 0xfeedface00000000, 0x99);
		for (int i = 0; i < 32; i++) {
			ut_ip6(s, ut_rand(&st), 0x42);
			ut_pkt_init(&p);
			ut_put_eth(&p, RTE_ETHER_TYPE_IPV6);
			ut_put_ipv6(&p, s, d, IPPROTO_TCP);
			ut_put_tcp(&p, 1, 2);
			ut_pkt_finish(&p);
			h[n++] = hash_of(&p, p.len, SEED);
		}
	}
	CU_ASSERT_EQUAL_FATAL(n, N);
	for (unsigned int i = 0; i < n; i++)
		for (unsigned int j = 0; j < i; j++)
			dup += h[i] == h[j];
	/* 161 hashes: a chance collision has probability ~3e-6 */
	CU_ASSERT_EQUAL(dup, 0);
}

static void
test_vlan(void)
{
	for (int v6 = 0; v6 <= 1; v6++) {
		struct ut_pkt plain, q, qinq, four, five;
		struct rps_flow_key k;
		uint16_t et = v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4;
		uint8_t s[16], d[16];
		uint32_t h;

		ut_ip6(s, 0, 5);
		ut_ip6(d, 0, 6);
#define BODY(pk) do { \
		if (v6) \
			ut_put_ipv6(pk, s, d, IPPROTO_TCP); \
		else \
			ut_put_ipv4(pk, UT_IP4(5), UT_IP4(6), IPPROTO_TCP, 0, 0); \
		ut_put_tcp(pk, 33000, 443); \
		ut_pkt_finish(pk); \
	} while (0)
		ut_pkt_init(&plain);
		ut_put_eth(&plain, et);
		BODY(&plain);
		ut_pkt_init(&q);
		ut_put_eth(&q, RTE_ETHER_TYPE_VLAN);
		ut_put_vlan(&q, 100, et);
		BODY(&q);
		ut_pkt_init(&qinq);
		ut_put_eth(&qinq, RTE_ETHER_TYPE_QINQ);
		ut_put_vlan(&qinq, 200, RTE_ETHER_TYPE_VLAN);
		ut_put_vlan(&qinq, 100, et);
		BODY(&qinq);
		ut_pkt_init(&four);
		ut_put_eth(&four, RTE_ETHER_TYPE_QINQ);
		for (int i = 0; i < RPS_HASH_MAX_VLAN; i++)
			ut_put_vlan(&four, (uint16_t)i,
				    i == RPS_HASH_MAX_VLAN - 1 ? et : RTE_ETHER_TYPE_VLAN);
		BODY(&four);
		ut_pkt_init(&five);
		ut_put_eth(&five, RTE_ETHER_TYPE_QINQ);
		for (int i = 0; i <= RPS_HASH_MAX_VLAN; i++)
			ut_put_vlan(&five, (uint16_t)i,
				    i == RPS_HASH_MAX_VLAN ? et : RTE_ETHER_TYPE_VLAN);
		BODY(&five);
#undef BODY

		h = hash_pkt(&plain);
		CU_ASSERT_NOT_EQUAL(h, 0);
		CU_ASSERT_EQUAL_FATAL(key_of(&q, q.len, &k), 0);
		CU_ASSERT_EQUAL(k.l2_len, ETH_LEN + 4);
		CU_ASSERT_EQUAL(k.family, v6 ? 6 : 4);
		CU_ASSERT_EQUAL(k.has_ports, 1);
		CU_ASSERT_EQUAL(hash_pkt(&q), h);
		CU_ASSERT_EQUAL_FATAL(key_of(&qinq, qinq.len, &k), 0);
		CU_ASSERT_EQUAL(k.l2_len, ETH_LEN + 8);
		CU_ASSERT_EQUAL(k.has_ports, 1);
		CU_ASSERT_EQUAL(hash_pkt(&qinq), h);
		CU_ASSERT_EQUAL_FATAL(key_of(&four, four.len, &k), 0);
		CU_ASSERT_EQUAL(k.l2_len, ETH_LEN + 4 * RPS_HASH_MAX_VLAN);
		CU_ASSERT_EQUAL(hash_pkt(&four), h);
		/* more tags than the parser walks: given up on, not misread */
		CU_ASSERT_EQUAL(hash_pkt(&five), l2_ref(five.b, five.len, SEED, 0));

		/* a tag cut short, or the frame ending right after the tags */
		for (uint16_t len = ETH_LEN; len < ETH_LEN + 8; len++)
			CU_ASSERT_EQUAL(hash_of(&qinq, len, SEED), l2_ref(qinq.b, len, SEED, 0));
		CU_ASSERT_EQUAL(hash_of(&qinq, ETH_LEN + 8, SEED), l2_ref(qinq.b, ETH_LEN + 8, SEED, 0));
	}
	/* a tagged non-IP frame */
	{
		struct ut_pkt p;

		ut_pkt_init(&p);
		ut_put_eth(&p, RTE_ETHER_TYPE_VLAN);
		ut_put_vlan(&p, 7, RTE_ETHER_TYPE_ARP);
		ut_put(&p, NULL, 28);
		CU_ASSERT_EQUAL(hash_pkt(&p), l2_ref(p.b, p.len, SEED, 0));
	}
}

static void
test_non_ip(void)
{
	static const uint16_t types[] = { RTE_ETHER_TYPE_ARP, RTE_ETHER_TYPE_LLDP,
					  RTE_ETHER_TYPE_RARP, 0x0000, 0x05dc /* 802.3 length */,
					  RTE_ETHER_TYPE_MPLS, RTE_ETHER_TYPE_SLOW };

	for (unsigned int i = 0; i < RTE_DIM(types); i++) {
		struct ut_pkt p;
		struct rps_flow_key k;
		uint8_t arp[28] = { 0, 1, 8, 0, 6, 4, 0, 1 };

		ut_pkt_init(&p);
		ut_put_eth(&p, types[i]);
		ut_put(&p, arp, sizeof(arp));
		/* something that would parse as IPv4 if the ethertype were ignored */
		p.b[ETH_LEN] = 0x45;
		ut_put(&p, NULL, 32);
		CU_ASSERT_EQUAL(key_of(&p, p.len, &k), -1);
		CU_ASSERT_EQUAL(k.family, 0);
		CU_ASSERT_EQUAL(hash_pkt(&p), l2_ref(p.b, p.len, SEED, 0));
	}
}

static void
test_truncated(void)
{
	struct ut_pkt v4, v6, p;
	struct rps_flow_key k;

	ut_pkt_v4(&v4, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 1, 2);
	ut_pkt_v6(&v6, 1, 2, IPPROTO_TCP, 1, 2);

	/* Ethernet cut short */
	for (uint16_t len = 0; len < ETH_LEN; len++) {
		CU_ASSERT_EQUAL(hash_of(&v4, len, SEED), l2_ref(v4.b, len, SEED, 0));
		CU_ASSERT_EQUAL(key_of(&v6, len, &k), -1);
	}
	/* IPv4 header shorter than 20 bytes */
	for (uint16_t len = ETH_LEN; len < ETH_LEN + IP4_LEN; len++) {
		CU_ASSERT_EQUAL(hash_of(&v4, len, SEED), l2_ref(v4.b, len, SEED, 0));
		CU_ASSERT_EQUAL(key_of(&v4, len, &k), -1);
		CU_ASSERT_EQUAL(k.family, 0);
	}
	/* IPv6 header shorter than 40 bytes */
	for (uint16_t len = ETH_LEN; len < ETH_LEN + IP6_LEN; len++) {
		CU_ASSERT_EQUAL(hash_of(&v6, len, SEED), l2_ref(v6.b, len, SEED, 0));
		CU_ASSERT_EQUAL(key_of(&v6, len, &k), -1);
		CU_ASSERT_EQUAL(k.family, 0);
	}
	/* ihl below 5 */
	for (uint8_t ihl = 0; ihl < 5; ihl++) {
		p = v4;
		p.b[ETH_LEN] = (uint8_t)(0x40 | ihl);
		CU_ASSERT_EQUAL(hash_pkt(&p), l2_ref(p.b, p.len, SEED, 0));
	}
	/* wrong IP version for the ethertype */
	for (uint8_t ver = 0; ver < 16; ver++) {
		if (ver == 4)
			continue;
		p = v4;
		p.b[ETH_LEN] = (uint8_t)(ver << 4 | 5);
		CU_ASSERT_EQUAL(hash_pkt(&p), l2_ref(p.b, p.len, SEED, 0));
	}
	for (uint8_t ver = 0; ver < 16; ver++) {
		if (ver == 6)
			continue;
		p = v6;
		p.b[ETH_LEN] = (uint8_t)(ver << 4 | (p.b[ETH_LEN] & 0x0f));
		CU_ASSERT_EQUAL(hash_pkt(&p), l2_ref(p.b, p.len, SEED, 0));
	}
	/* IPv4 header with ihl 15 but fewer bytes: truncated */
	p = v4;
	p.b[ETH_LEN] = 0x4f;
	CU_ASSERT_EQUAL(hash_of(&p, ETH_LEN + 59, SEED), l2_ref(p.b, ETH_LEN + 59, SEED, 0));
	CU_ASSERT_NOT_EQUAL(hash_of(&p, ETH_LEN + 60, SEED), 0);
}

static void
test_transport_cut_short(void)
{
	for (unsigned int i = 0; i < RTE_DIM(port_protos); i++) {
		struct ut_pkt v4, v6;
		struct rps_flow_key k;

		ut_pkt_v4(&v4, UT_IP4(3), UT_IP4(4), port_protos[i], 1111, 2222);
		ut_pkt_v6(&v6, 3, 4, port_protos[i], 1111, 2222);
		for (uint16_t cut = 0; cut < 4; cut++) {
			CU_ASSERT_EQUAL_FATAL(key_of(&v4, ETH_LEN + IP4_LEN + cut, &k), 0);
			CU_ASSERT_EQUAL(k.family, 4);
			CU_ASSERT_EQUAL(k.proto, port_protos[i]);
			CU_ASSERT_EQUAL(k.has_ports, 0);
			CU_ASSERT_EQUAL(k.ports, 0);
			CU_ASSERT_EQUAL(hash_of(&v4, ETH_LEN + IP4_LEN + cut, SEED),
					v4_addr_hash(&v4, SEED));
			CU_ASSERT_EQUAL_FATAL(key_of(&v6, ETH_LEN + IP6_LEN + cut, &k), 0);
			CU_ASSERT_EQUAL(k.family, 6);
			CU_ASSERT_EQUAL(k.has_ports, 0);
			CU_ASSERT_EQUAL(k.ports, 0);
			CU_ASSERT_EQUAL(hash_of(&v6, ETH_LEN + IP6_LEN + cut, SEED),
					v6_addr_hash(&v6, SEED, 0));
		}
		/* exactly 4 transport bytes are enough */
		CU_ASSERT_EQUAL_FATAL(key_of(&v4, ETH_LEN + IP4_LEN + 4, &k), 0);
		CU_ASSERT_EQUAL(k.has_ports, 1);
		CU_ASSERT_EQUAL(hash_of(&v4, ETH_LEN + IP4_LEN + 4, SEED), hash_pkt(&v4));
		CU_ASSERT_EQUAL_FATAL(key_of(&v6, ETH_LEN + IP6_LEN + 4, &k), 0);
		CU_ASSERT_EQUAL(k.has_ports, 1);
		CU_ASSERT_EQUAL(hash_of(&v6, ETH_LEN + IP6_LEN + 4, SEED), hash_pkt(&v6));
	}
}

/* One segment per byte: the most fragmented layout possible. */
static struct rte_mbuf *
chain_bytewise(const uint8_t *b, uint16_t len)
{
	struct rte_mbuf *head = ut_mbuf_exact(b, 1);

	for (uint16_t i = 1; head != NULL && i < len; i++) {
		struct rte_mbuf *seg = ut_mbuf_exact(b + i, 1);

		if (seg == NULL || rte_pktmbuf_chain(head, seg) != 0) {
			rte_pktmbuf_free(seg);
			rte_pktmbuf_free(head);
			return NULL;
		}
	}
	return head;
}

static void
test_multiseg(void)
{
	uint8_t s[16], d[16];
	struct ut_pkt pk[3];
	struct rps_flow_key k1, k2;

	ut_ip6(s, 0x1111, 1);
	ut_ip6(d, 0x2222, 2);
	ut_pkt_init(&pk[0]);
	ut_put_eth(&pk[0], RTE_ETHER_TYPE_QINQ);
	ut_put_vlan(&pk[0], 1, RTE_ETHER_TYPE_VLAN);
	ut_put_vlan(&pk[0], 2, RTE_ETHER_TYPE_IPV6);
	ut_put_ipv6(&pk[0], s, d, IP6_HOPOPTS);
	ut_put_ipv6_ext(&pk[0], IP6_ROUTING, 0);
	ut_put_ipv6_ext(&pk[0], IP6_DSTOPTS, 2);
	ut_put_ipv6_ext(&pk[0], IPPROTO_SCTP, 1);
	ut_put_l4_words(&pk[0], 2905, 2906);
	ut_pkt_finish(&pk[0]);
	ut_pkt_init(&pk[1]);
	ut_put_eth(&pk[1], RTE_ETHER_TYPE_VLAN);
	ut_put_vlan(&pk[1], 3, RTE_ETHER_TYPE_IPV4);
	ut_put_ipv4(&pk[1], UT_IP4(9), UT_IP4(10), IPPROTO_UDP, 12, 0);
	ut_put_udp(&pk[1], 9, 10);
	ut_pkt_finish(&pk[1]);
	build_v6_frag(&pk[2], 0, 0, 1, 1);

	for (unsigned int i = 0; i < RTE_DIM(pk); i++) {
		struct rte_mbuf *c, *m;
		uint32_t h;

		/* key_of() already compares every two-segment split; add 1-byte segments */
		CU_ASSERT_EQUAL_FATAL(key_of(&pk[i], pk[i].len, &k1), 0);
		CU_ASSERT_EQUAL(k1.has_ports, 1);
		m = ut_mbuf(pk[i].b, pk[i].len);
		c = chain_bytewise(pk[i].b, pk[i].len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		CU_ASSERT_EQUAL(c->nb_segs, pk[i].len);
		CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(c), pk[i].len);
		CU_ASSERT_EQUAL(rps_flow_key_extract(c, &k2), 0);
		CU_ASSERT_EQUAL(memcmp(&k1, &k2, sizeof(k1)), 0);
		h = rps_hash_sw(m, SEED);
		CU_ASSERT_NOT_EQUAL(h, 0);
		CU_ASSERT_EQUAL(rps_hash_sw(c, SEED), h);
		rte_pktmbuf_free(m);
		rte_pktmbuf_free(c);
	}
}

static void
test_hash_key_formula(void)
{
	struct rps_flow_key k;
	struct ut_pkt p;
	uint32_t w[9];

	ut_pkt_v4(&p, UT_IP4(0x1234), UT_IP4(0x5678), IPPROTO_UDP, 53, 53);
	CU_ASSERT_EQUAL_FATAL(key_of(&p, p.len, &k), 0);
	for (uint32_t seed = 0; seed < 8; seed++)
		CU_ASSERT_EQUAL(rps_hash_key(&k, seed),
				nz(rte_jhash_3words(k.src[0], k.dst[0], k.ports, seed)));
	ut_pkt_v6(&p, 0x1234, 0x5678, IPPROTO_UDP, 53, 53);
	CU_ASSERT_EQUAL_FATAL(key_of(&p, p.len, &k), 0);
	memcpy(w, k.src, 16);
	memcpy(w + 4, k.dst, 16);
	w[8] = k.ports;
	for (uint32_t seed = 0; seed < 8; seed++)
		CU_ASSERT_EQUAL(rps_hash_key(&k, seed), nz(rte_jhash_32b(w, 9, seed)));
}

/* The straight-line 9-word jhash is DPDK's rte_jhash_32b(), bit for bit: random words and
 * seeds (a fixed xorshift sequence), and the words one at a time. */
static void
test_hash_jhash9(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	uint32_t w[9];

	for (unsigned int n = 0; n < 20000; n++) {
		uint32_t seed;

		for (unsigned int i = 0; i < 9; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			w[i] = (uint32_t)(x >> 16);
		}
		seed = (uint32_t)x;
		CU_ASSERT_EQUAL(rps_hash_jhash9(w, seed), rte_jhash_32b(w, 9, seed));
	}
	for (unsigned int i = 0; i < 9; i++) {
		memset(w, 0, sizeof(w));
		w[i] = 1u << (3 * i);
		CU_ASSERT_EQUAL(rps_hash_jhash9(w, 0), rte_jhash_32b(w, 9, 0));
	}
}

/* The straight-line 4-word jhash (the layer-2 key's) is DPDK's rte_jhash_32b(), bit for bit. */
static void
test_hash_jhash4(void)
{
	uint64_t x = 0x2545f4914f6cdd1dull;
	uint32_t w[4];

	for (unsigned int n = 0; n < 20000; n++) {
		for (unsigned int i = 0; i < 4; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			w[i] = (uint32_t)(x >> 16);
		}
		CU_ASSERT_EQUAL(rps_hash_jhash4(w, (uint32_t)x), rte_jhash_32b(w, 4, (uint32_t)x));
	}
}

/* The lane-wise jhashes are DPDK's, key by key: rps_hash_jhash3_lanes() is
 * rte_jhash_3words() and rps_hash_jhash9_lanes() is rte_jhash_32b(, 9,) for every count
 * 0..70 (whole steps of RPS_HASH_LANES and partial ones), random words and seeds, a stride
 * above the count; the lanes past the count are written, nothing past the rounded count is. */
static void
test_hash_jhash_lanes(void)
{
	enum { MAXN = 70, STRIDE = 80, CANARY = 0x5a5a5a5a };
	static uint32_t w[9 * STRIDE], h[STRIDE + 8];
	uint64_t x = 0x853c49e6748fea9bull;

	for (uint32_t n = 0; n <= MAXN; n++) {
		const uint32_t rounded = RTE_ALIGN_CEIL(n, RPS_HASH_LANES);
		uint32_t seed;

		for (unsigned int i = 0; i < RTE_DIM(w); i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			w[i] = (uint32_t)(x >> 16);
		}
		seed = (uint32_t)x;
		for (unsigned int i = 0; i < RTE_DIM(h); i++)
			h[i] = CANARY;
		rps_hash_jhash3_lanes(w, STRIDE, n, seed, h);
		for (uint32_t i = 0; i < n; i++)
			CU_ASSERT_EQUAL(h[i], rte_jhash_3words(w[i], w[STRIDE + i],
							       w[2 * STRIDE + i], seed));
		for (uint32_t i = rounded; i < RTE_DIM(h); i++)
			CU_ASSERT_EQUAL(h[i], CANARY);
		for (unsigned int i = 0; i < RTE_DIM(h); i++)
			h[i] = CANARY;
		rps_hash_jhash9_lanes(w, STRIDE, n, seed, h);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t k[9];

			for (unsigned int j = 0; j < 9; j++)
				k[j] = w[j * STRIDE + i];
			CU_ASSERT_EQUAL(h[i], rte_jhash_32b(k, 9, seed));
		}
		for (uint32_t i = rounded; i < RTE_DIM(h); i++)
			CU_ASSERT_EQUAL(h[i], CANARY);
	}
}

/*
 * A frame without an IP flow in the first segment takes a shortcut to its layer-2 key
 * (rps_flow_key_extract_slow()): the key and hash must be l2_ref()'s, plain and sorted, with
 * and without --inner, whatever the MACs (random, and pairs equal up to byte j so that the
 * order is decided at each of the 6 bytes), for non-IP EtherTypes and for the frames that
 * must not take it (tags, IP cut short), in one segment and split at every byte of the
 * Ethernet header (the long way).
 */
static void
test_l2_shortcut(void)
{
	static const uint16_t types[] = { RTE_ETHER_TYPE_ARP, RTE_ETHER_TYPE_LLDP, 0x0000,
					  0x05dc, RTE_ETHER_TYPE_MPLS, RTE_ETHER_TYPE_VLAN,
					  RTE_ETHER_TYPE_QINQ, RTE_ETHER_TYPE_IPV4,
					  RTE_ETHER_TYPE_IPV6 };
	const struct rps_inner_cfg tunnels = { .nb_vxlan = 0 };
	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned int bad_key = 0, bad_split = 0, n = 0;

	for (unsigned int round = 0; round < 400; round++) {
		for (unsigned int t = 0; t < RTE_DIM(types); t++) {
			struct ut_pkt p;

			ut_pkt_init(&p);
			ut_put_eth(&p, types[t]);
			for (unsigned int i = 0; i < 12; i++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				p.b[i] = (uint8_t)(x >> 24);
			}
			if (round % 7 < 6) /* MAC b equal to MAC a up to byte round % 7 */
				memcpy(p.b + 6, p.b, round % 7);
			/* a tag or an IP header cut short: 3 bytes after the Ethernet header */
			ut_put(&p, NULL, 3);
			for (int sort = 0; sort <= 1; sort++) {
				for (int inner = 0; inner <= 1; inner++) {
					const struct rps_inner_cfg *tc = inner ? &tunnels : NULL;
					struct rte_mbuf *m = ut_mbuf_exact(p.b, p.len);
					struct rps_flow_key k;
					uint32_t h;

					CU_ASSERT_PTR_NOT_NULL_FATAL(m);
					CU_ASSERT_EQUAL(rps_flow_key_get(m, sort, tc, &k),
							RPS_INNER_NOT_IP);
					h = rps_hash_key(&k, SEED);
					rte_pktmbuf_free(m);
					bad_key += k.family != 0 || !k.has_l2 ||
						   h != l2_ref(p.b, p.len, SEED, sort);
					for (uint16_t split = 1; split <= ETH_LEN; split++) {
						m = ut_mbuf_split(p.b, p.len, split);
						CU_ASSERT_PTR_NOT_NULL_FATAL(m);
						(void)rps_flow_key_get(m, sort, tc, &k);
						bad_split += rps_hash_key(&k, SEED) != h;
						rte_pktmbuf_free(m);
					}
					n++;
				}
			}
		}
	}
	CU_ASSERT_EQUAL(n, 400u * RTE_DIM(types) * 4);
	CU_ASSERT_EQUAL(bad_key, 0);
	CU_ASSERT_EQUAL(bad_split, 0);
}

/*
 * Keys whose jhash is exactly 0, found offline by searching the ports word: the hash must
 * come out as 1. Words are the raw (network-order) words as the key holds them; on a
 * little-endian host the addresses are 198.18.0.1 -> 198.19.0.2 and
 * 2001:db8::1 -> 2001:db8:1::2.
 */
#define ZERO4_SRC UINT32_C(0x010012c6)
#define ZERO4_DST UINT32_C(0x020013c6)
#define ZERO4_PORTS UINT32_C(0x8c424e17)
#define ZERO4_SEED UINT32_C(0x5eed0001)
static const uint32_t zero6_src[4] = { 0xb80d0120, 0, 0, 0x01000000 };
static const uint32_t zero6_dst[4] = { 0xb80d0120, 0x00000100, 0, 0x02000000 };
#define ZERO6_PORTS UINT32_C(0x332eec6b)
#define ZERO6_SEED UINT32_C(0x5eed0003)

static void
test_hash_never_zero(void)
{
	struct rps_flow_key k;
	struct rte_mbuf *m;
	struct ut_pkt p;
	uint32_t w[9];

	/* the vectors really hash to 0 */
	CU_ASSERT_EQUAL(rte_jhash_3words(ZERO4_SRC, ZERO4_DST, ZERO4_PORTS, ZERO4_SEED), 0);
	memcpy(w, zero6_src, 16);
	memcpy(w + 4, zero6_dst, 16);
	w[8] = ZERO6_PORTS;
	CU_ASSERT_EQUAL(rte_jhash_32b(w, 9, ZERO6_SEED), 0);

	memset(&k, 0, sizeof(k));
	k.family = 4;
	k.proto = IPPROTO_TCP;
	k.has_ports = 1;
	k.src[0] = ZERO4_SRC;
	k.dst[0] = ZERO4_DST;
	k.ports = ZERO4_PORTS;
	CU_ASSERT_EQUAL(rps_hash_key(&k, ZERO4_SEED), 1);
	CU_ASSERT_NOT_EQUAL(rps_hash_key(&k, ZERO4_SEED + 1), 0);
	memset(&k, 0, sizeof(k));
	k.family = 6;
	k.proto = IPPROTO_TCP;
	k.has_ports = 1;
	memcpy(k.src, zero6_src, 16);
	memcpy(k.dst, zero6_dst, 16);
	k.ports = ZERO6_PORTS;
	CU_ASSERT_EQUAL(rps_hash_key(&k, ZERO6_SEED), 1);

	/* and through a packet: rps_hash_sw() must not report "no flow" for a real flow */
	ut_pkt_v4(&p, 0, 0, IPPROTO_TCP, 0, 0);
	memcpy(p.b + p.l3_off + 12, &(uint32_t){ ZERO4_SRC }, 4);
	memcpy(p.b + p.l3_off + 16, &(uint32_t){ ZERO4_DST }, 4);
	memcpy(p.b + p.l4_off, &(uint32_t){ ZERO4_PORTS }, 4);
	m = ut_mbuf(p.b, p.len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL(rps_hash_sw(m, ZERO4_SEED), 1);
	rte_pktmbuf_free(m);

	ut_pkt_v6(&p, 0, 0, IPPROTO_UDP, 0, 0);
	memcpy(p.b + p.l3_off + 8, zero6_src, 16);
	memcpy(p.b + p.l3_off + 24, zero6_dst, 16);
	memcpy(p.b + p.l4_off, &(uint32_t){ ZERO6_PORTS }, 4);
	m = ut_mbuf(p.b, p.len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL(rps_hash_sw(m, ZERO6_SEED), 1);
	rte_pktmbuf_free(m);
}

static void
test_seeds(void)
{
	enum { NS = 32 };
	uint32_t h4[NS], h6[NS];
	unsigned int dup = 0;
	struct ut_pkt v4, v6;

	ut_pkt_v4(&v4, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 1, 2);
	ut_pkt_v6(&v6, 1, 2, IPPROTO_TCP, 1, 2);
	for (unsigned int i = 0; i < NS; i++) {
		uint32_t seed = i * UINT32_C(0x9e3779b9);

		h4[i] = hash_of(&v4, v4.len, seed);
		h6[i] = hash_of(&v6, v6.len, seed);
		for (unsigned int j = 0; j < i; j++)
			dup += (h4[i] == h4[j]) + (h6[i] == h6[j]);
	}
	CU_ASSERT_EQUAL(dup, 0);
	/* same seed, same answer */
	CU_ASSERT_EQUAL(hash_of(&v4, v4.len, 0), h4[0]);
}

static void
test_mode_parse(void)
{
	static const struct {
		const char *s;
		enum rps_hash_mode m;
	} good[] = {
		{ "auto", RPS_HASH_AUTO }, { "AUTO", RPS_HASH_AUTO }, { "Auto", RPS_HASH_AUTO },
		{ "rss", RPS_HASH_RSS }, { "RSS", RPS_HASH_RSS }, { "rSs", RPS_HASH_RSS },
		{ "jhash", RPS_HASH_JHASH }, { "JHASH", RPS_HASH_JHASH },
		{ "JHash", RPS_HASH_JHASH },
		{ "toeplitz", RPS_HASH_TOEPLITZ }, { "Toeplitz", RPS_HASH_TOEPLITZ },
	};
	static const char *const bad[] = {
		"", "foo", "auto ", " rss", "jhash2", "rs", "autorss", "j", "toep", "toeplitz ",
	};

	for (unsigned int i = 0; i < RTE_DIM(good); i++) {
		enum rps_hash_mode m = (enum rps_hash_mode)99;

		CU_ASSERT_EQUAL(rps_hash_mode_parse(good[i].s, &m), 0);
		CU_ASSERT_EQUAL(m, good[i].m);
	}
	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		enum rps_hash_mode m = RPS_HASH_RSS;

		CU_ASSERT_EQUAL(rps_hash_mode_parse(bad[i], &m), -EINVAL);
	}
	/* names round-trip */
	for (int mode = RPS_HASH_AUTO; mode <= RPS_HASH_TOEPLITZ; mode++) {
		enum rps_hash_mode m = (enum rps_hash_mode)99;

		CU_ASSERT_EQUAL(rps_hash_mode_parse(rps_hash_mode_name((enum rps_hash_mode)mode),
						    &m), 0);
		CU_ASSERT_EQUAL((int)m, mode);
	}
	CU_ASSERT_STRING_EQUAL(rps_hash_mode_name(RPS_HASH_AUTO), "auto");
	CU_ASSERT_STRING_EQUAL(rps_hash_mode_name(RPS_HASH_RSS), "rss");
	CU_ASSERT_STRING_EQUAL(rps_hash_mode_name(RPS_HASH_JHASH), "jhash");
	CU_ASSERT_STRING_EQUAL(rps_hash_mode_name(RPS_HASH_TOEPLITZ), "toeplitz");
}

static uint32_t
sym_hash(const struct ut_pkt *p, uint32_t *ref)
{
	struct rte_mbuf *m = ut_mbuf_exact(p->b, p->len);
	uint32_t h;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	h = rps_hash_sw_sym(m, SEED);
	*ref = rps_hash_sw_sym_ref(m, SEED);
	rte_pktmbuf_free(m);
	return h;
}

/*
 * --symmetric with jhash: both directions of many random v4 and v6 connections (TCP, UDP,
 * SCTP, ESP, ICMP; fragments; tagged frames on the reference path) hash alike, fast path and
 * reference agree; without it nearly every connection splits.
 */
static void
test_symmetric(void)
{
	static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_TCP, IPPROTO_UDP,
					  IPPROTO_SCTP, IPPROTO_ESP, IPPROTO_ICMP };
	unsigned int asym = 0, ref_bad = 0, split = 0, n = 0;
	uint64_t st = 0x51de;

	for (unsigned int i = 0; i < 20000; i++) {
		int v6 = i & 1, frag = i % 11 == 0, vlan = i % 7 == 0;
		uint8_t proto = protos[(i >> 1) % RTE_DIM(protos)];
		uint16_t sp = (uint16_t)ut_rand(&st), dp = (uint16_t)ut_rand(&st);
		uint8_t a[16], b[16];
		uint32_t fwd, rev, ref;
		struct ut_pkt p, q;
		struct rte_mbuf *m;

		for (unsigned int j = 0; j < 16; j++) {
			a[j] = (uint8_t)ut_rand(&st);
			b[j] = (uint8_t)ut_rand(&st);
		}
		if (i % 13 == 0)
			memcpy(b, a, 16); /* one host talking to itself: the ports decide */
		if (i % 19 == 0)
			dp = sp;
		ut_pkt_conn(&p, v6, proto, frag, vlan ? 3 : 0, a, b, sp, dp);
		ut_pkt_conn(&q, v6, proto, frag, vlan ? 3 : 0, b, a, dp, sp);
		fwd = sym_hash(&p, &ref);
		CU_ASSERT_NOT_EQUAL(fwd, 0);
		ref_bad += ref != fwd;
		rev = sym_hash(&q, &ref);
		ref_bad += ref != rev;
		asym += fwd != rev;
		/* the plain hash of the same packets: direction-dependent */
		m = ut_mbuf_exact(p.b, p.len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		fwd = rps_hash_sw(m, SEED);
		rte_pktmbuf_free(m);
		m = ut_mbuf_exact(q.b, q.len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		rev = rps_hash_sw(m, SEED);
		rte_pktmbuf_free(m);
		split += fwd != rev;
		n++;
	}
	CU_ASSERT_EQUAL(asym, 0);
	CU_ASSERT_EQUAL(ref_bad, 0);
	CU_ASSERT(split > n * 9 / 10);
}

/* The canonical key: lower address first, then lower port; ESP/AH lose their SPI. */
static void
test_symmetric_key(void)
{
	struct rps_flow_key k, r;
	struct ut_pkt p;

	/* already in order: unchanged */
	ut_pkt_v4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 5000, 80);
	CU_ASSERT_EQUAL_FATAL(key_of(&p, p.len, &k), 0);
	r = k;
	rps_flow_key_symmetric(&r);
	CU_ASSERT_EQUAL(memcmp(&r, &k, sizeof(k)), 0);
	/* reversed: swapped back, ports too */
	ut_pkt_v4(&p, UT_IP4(2), UT_IP4(1), IPPROTO_TCP, 80, 5000);
	CU_ASSERT_EQUAL_FATAL(key_of(&p, p.len, &r), 0);
	rps_flow_key_symmetric(&r);
	CU_ASSERT_EQUAL(r.src[0], k.src[0]);
	CU_ASSERT_EQUAL(r.dst[0], k.dst[0]);
	CU_ASSERT_EQUAL(r.ports, k.ports);
	/* addresses compare as numbers: 198.18.1.0 > 198.18.0.255 */
	ut_pkt_v4(&p, UT_IP4(0x100), UT_IP4(0xff), IPPROTO_UDP, 1, 2);
	CU_ASSERT_EQUAL_FATAL(key_of(&p, p.len, &r), 0);
	rps_flow_key_symmetric(&r);
	CU_ASSERT_EQUAL(r.src[0], rte_cpu_to_be_32(UT_IP4(0xff)));
	CU_ASSERT_EQUAL(r.ports, rte_cpu_to_be_32(2u << 16 | 1));
	/* equal addresses: the lower port first */
	ut_pkt_v6(&p, 9, 9, IPPROTO_UDP, 4000, 53);
	CU_ASSERT_EQUAL_FATAL(key_of(&p, p.len, &r), 0);
	rps_flow_key_symmetric(&r);
	CU_ASSERT_EQUAL(r.ports, rte_cpu_to_be_32(53u << 16 | 4000));
	/* ESP: the SPI is not a port pair, so it leaves the key */
	ut_pkt_v4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_ESP, 0x1234, 0x5678);
	CU_ASSERT_EQUAL_FATAL(key_of(&p, p.len, &r), 0);
	CU_ASSERT_EQUAL(r.has_ports, 1);
	rps_flow_key_symmetric(&r);
	CU_ASSERT_EQUAL(r.has_ports, 0);
	CU_ASSERT_EQUAL(r.ports, 0);
}

static void
test_rss(void)
{
	struct ut_pkt p;
	struct rte_mbuf *m;

	ut_pkt_v4(&p, UT_IP4(1), UT_IP4(2), IPPROTO_TCP, 1, 2);
	m = ut_mbuf(p.b, p.len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_FALSE(rps_hash_has_rss(m));
	m->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
	CU_ASSERT_TRUE(rps_hash_has_rss(m));
	m->hash.rss = 0;
	CU_ASSERT_EQUAL(rps_hash_rss(m), 1);
	m->hash.rss = 1;
	CU_ASSERT_EQUAL(rps_hash_rss(m), 1);
	m->hash.rss = 0xdeadbeef;
	CU_ASSERT_EQUAL(rps_hash_rss(m), 0xdeadbeef);
	m->hash.rss = 0xffffffff;
	CU_ASSERT_EQUAL(rps_hash_rss(m), 0xffffffff);
	/* other flags do not count as an RSS hash */
	m->ol_flags = RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_VLAN;
	CU_ASSERT_FALSE(rps_hash_has_rss(m));
	rte_pktmbuf_free(m);
}

/* rps_flow_key_extract_fast(): on every protocol of the common layout it gives the reference's
 * key (every field a hash reads) and points tuple at the addresses in the header; a layout it
 * does not read (a VLAN tag) is left to the reference. */
static void
test_key_fast(void)
{
	static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP, IPPROTO_SCTP,
					  IPPROTO_ESP, IPPROTO_GRE };

	for (unsigned int i = 0; i < RTE_DIM(protos); i++)
		for (int v6 = 0; v6 < 2; v6++) {
			struct rps_flow_key f, r;
			struct ut_pkt p;
			struct rte_mbuf *m;

			if (v6)
				ut_pkt_v6(&p, 1 + i, 2 + i, protos[i], 1000, 443);
			else
				ut_pkt_v4(&p, UT_IP4(1 + i), UT_IP4(2 + i), protos[i], 1000, 443);
			m = ut_mbuf(p.b, p.len);
			CU_ASSERT_PTR_NOT_NULL_FATAL(m);
			memset(&f, 0, sizeof(f));
			CU_ASSERT_EQUAL_FATAL(rps_flow_key_extract_fast(m, &f), v6 ? 6 : 4);
			CU_ASSERT_EQUAL_FATAL(rps_flow_key_extract(m, &r), 0);
			CU_ASSERT_EQUAL(f.family, r.family);
			CU_ASSERT_EQUAL(f.proto, r.proto);
			CU_ASSERT_EQUAL(f.is_frag, r.is_frag);
			CU_ASSERT_EQUAL(f.has_ports, r.has_ports);
			CU_ASSERT_EQUAL(f.ports, r.ports);
			CU_ASSERT_EQUAL(memcmp(f.src, r.src, v6 ? 16 : 4), 0);
			CU_ASSERT_EQUAL(memcmp(f.dst, r.dst, v6 ? 16 : 4), 0);
			CU_ASSERT_EQUAL(f.l2_len, r.l2_len);
			CU_ASSERT_EQUAL(f.l3_len, r.l3_len);
			CU_ASSERT_PTR_EQUAL(f.tuple, rte_pktmbuf_mtod_offset(m, const uint8_t *,
						ETH_LEN + (v6 ? 8 : 12)));
			CU_ASSERT_EQUAL(rps_hash_key(&f, SEED), rps_hash_key(&r, SEED));
			rte_pktmbuf_free(m);
		}
	{
		struct rps_flow_key f;
		struct ut_pkt p;
		struct rte_mbuf *m;

		ut_pkt_init(&p);
		ut_put_eth(&p, RTE_ETHER_TYPE_VLAN);
		ut_put_vlan(&p, 7, RTE_ETHER_TYPE_IPV4);
		ut_put(&p, NULL, 60);
		m = ut_mbuf(p.b, p.len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_EQUAL(rps_flow_key_extract_fast(m, &f), 0);
		rte_pktmbuf_free(m);
	}
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "proto_has_ports", test_proto_has_ports },
		{ "v4_ports", test_v4_ports },
		{ "v6_ports", test_v6_ports },
		{ "portless_protocols", test_portless_protocols },
		{ "v4_options", test_v4_options },
		{ "v4_fragments", test_v4_fragments },
		{ "v6_ext_chain", test_v6_ext_chain },
		{ "v6_ext_limit", test_v6_ext_limit },
		{ "v6_fragments", test_v6_fragments },
		{ "v6_full_address", test_v6_full_address },
		{ "vlan", test_vlan },
		{ "non_ip", test_non_ip },
		{ "truncated", test_truncated },
		{ "transport_cut_short", test_transport_cut_short },
		{ "multiseg", test_multiseg },
		{ "hash_key_formula", test_hash_key_formula },
		{ "hash_jhash9", test_hash_jhash9 },
		{ "hash_jhash4", test_hash_jhash4 },
		{ "hash_jhash_lanes", test_hash_jhash_lanes },
		{ "l2_shortcut", test_l2_shortcut },
		{ "hash_never_zero", test_hash_never_zero },
		{ "seeds", test_seeds },
		{ "mode_parse", test_mode_parse },
		{ "symmetric", test_symmetric },
		{ "symmetric_key", test_symmetric_key },
		{ "rss", test_rss },
		{ "key_fast", test_key_fast },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "hash", tests);
}
