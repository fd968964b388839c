/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_common.h: what every unit test shares: one EAL per process, an mbuf pool, mbufs built
 * from raw bytes (pool-backed, exact-size, or split into two segments), a small packet
 * builder, the parse and validate stages run alone, and a CUnit runner whose exit status
 * tells meson whether anything failed.
 */
#ifndef RPS_TEST_COMMON_H
#define RPS_TEST_COMMON_H

#include <stdint.h>

#include <CUnit/CUnit.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

/** Mbufs in the shared pool (no per-lcore cache, so the available count is exact). */
#define UT_POOL_SIZE 8191

/**
 * Start the EAL (once per process: --no-huge --no-shconf, a per-process --file-prefix, one
 * lcore, no PCI, no telemetry), create the pool, register @p tests as one suite named
 * @p suite, run it with the basic interface (or only the test named by argv[1]), check that
 * every mbuf came back to the pool, and tear everything down.
 * @return the process exit status: 0 when every assertion held, 1 otherwise.
 */
int ut_main(int argc, char **argv, const char *suite, CU_TestInfo *tests);

/** The shared mbuf pool. */
struct rte_mempool *ut_pool(void);
/** Mbufs currently available in the shared pool. */
unsigned int ut_pool_avail(void);

/** A one-segment mbuf whose data (in the pool's own buffer) is a copy of @p data. */
struct rte_mbuf *ut_mbuf(const void *data, uint16_t len);
/**
 * A one-segment mbuf whose data lives in a malloc()ed external buffer of exactly @p len
 * bytes, so that under AddressSanitizer any read past the packet is reported.
 */
struct rte_mbuf *ut_mbuf_exact(const void *data, uint16_t len);
/**
 * A two-segment chain: bytes [0, split) in the first segment and [split, len) in the second,
 * each an exact-size external buffer. @p split must be in 1..len-1.
 */
struct rte_mbuf *ut_mbuf_split(const void *data, uint16_t len, uint16_t split);

/** Deterministic xorshift64* generator, so a failing run can be reproduced. */
static inline uint64_t
ut_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * UINT64_C(0x2545F4914F6CDD1D);
}

/* ---- packet builder (documentation addresses only: 198.18.0.0/15, 2001:db8::/32) ---- */

#define UT_PKT_MAX 512

struct ut_pkt {
	uint8_t b[UT_PKT_MAX];
	uint16_t len;
	int l3_off;     /**< offset of the last IP header put, or -1 */
	uint8_t family; /**< 4 or 6 for that header */
	int l4_off;     /**< offset of the transport header, or -1 */
};

/** 198.18.0.0/15 + @p n as a host-order address (n < 2^17). */
#define UT_IP4(n) (UINT32_C(0xc6120000) + (uint32_t)(n))

void ut_pkt_init(struct ut_pkt *p);
/** Append raw bytes; returns where they went. */
void *ut_put(struct ut_pkt *p, const void *src, uint16_t n);
/** Ethernet header (locally administered MACs) with @p ethertype (host order). */
void ut_put_eth(struct ut_pkt *p, uint16_t ethertype);
/** A VLAN tag (TCI @p tci) whose inner ethertype is @p inner (host order). */
void ut_put_vlan(struct ut_pkt *p, uint16_t tci, uint16_t inner);
/**
 * IPv4 header with @p opt_len bytes of options (multiple of 4, NOP-filled); @p frag is the
 * fragment_offset field in host order (flags | offset/8). src/dst in host order.
 */
void ut_put_ipv4(struct ut_pkt *p, uint32_t src, uint32_t dst, uint8_t proto,
		 uint8_t opt_len, uint16_t frag);
/** IPv6 header; src/dst are 16 bytes each. */
void ut_put_ipv6(struct ut_pkt *p, const uint8_t *src, const uint8_t *dst, uint8_t nh);
/** IPv6 hop-by-hop, routing or destination-options header of (hdr_ext_len + 1) * 8 bytes. */
void ut_put_ipv6_ext(struct ut_pkt *p, uint8_t nh, uint8_t hdr_ext_len);
/** IPv6 fragment header: @p offset in 8-byte units, @p more the M flag. */
void ut_put_ipv6_frag(struct ut_pkt *p, uint8_t nh, uint16_t offset, int more);
/** TCP header (20 bytes). */
void ut_put_tcp(struct ut_pkt *p, uint16_t sport, uint16_t dport);
/** UDP header (8 bytes). */
void ut_put_udp(struct ut_pkt *p, uint16_t sport, uint16_t dport);
/** 8 transport bytes beginning with @p w0 and @p w1 (host order, stored big-endian). */
void ut_put_l4_words(struct ut_pkt *p, uint16_t w0, uint16_t w1);
/** The transport header of @p proto: ut_put_tcp(), ut_put_udp(), else ut_put_l4_words(). */
void ut_put_l4(struct ut_pkt *p, uint8_t proto, uint16_t sport, uint16_t dport);
/** Fill IPv4 total_length / IPv6 payload_len / UDP length from the current length. */
void ut_pkt_finish(struct ut_pkt *p);
/**
 * End a whole TCP or UDP packet: the transport header (@p sport, @p dport), @p plen bytes of
 * @p payload, ut_pkt_finish(), and a right checksum (ut_fix_l4() with @p final_dst).
 */
void ut_pkt_end(struct ut_pkt *p, uint8_t proto, uint16_t sport, uint16_t dport,
		const void *payload, uint16_t plen, const uint8_t *final_dst);

/** The 2001:db8::/32 address whose last 4 bytes are @p n and bytes 4..11 @p mid. */
void ut_ip6(uint8_t *a, uint64_t mid, uint32_t n);

/**
 * One direction of a connection, finished, no payload: Ethernet (a VLAN tag of TCI @p vlan
 * when not 0), IPv4 or (@p v6) IPv6 from @p a to @p b (IPv4: their first 4 bytes, network
 * order), a first fragment when @p frag (MF set; IPv6: a fragment header), then
 * ut_put_l4(@p proto, @p sp, @p dp).
 */
void ut_pkt_conn(struct ut_pkt *p, int v6, uint8_t proto, int frag, uint16_t vlan,
		 const uint8_t *a, const uint8_t *b, uint16_t sp, uint16_t dp);
/** Convenience: Ethernet + IPv4 (no options, not a fragment) + TCP or UDP, finished. */
void ut_pkt_v4(struct ut_pkt *p, uint32_t src, uint32_t dst, uint8_t proto,
	       uint16_t sport, uint16_t dport);
/** Convenience: Ethernet + IPv6 + TCP or UDP, finished. */
void ut_pkt_v6(struct ut_pkt *p, uint32_t src_n, uint32_t dst_n, uint8_t proto,
	       uint16_t sport, uint16_t dport);

/** IPv6 authentication header of (@p plen + 2) * 4 bytes; bytes 4 on are 0x44, 0x45, ... */
void ut_put_ah(struct ut_pkt *p, uint8_t nh, uint8_t plen);
/**
 * IPv6 routing header of @p type with @p naddr addresses 2001:db8:0:aa::(100 + i) and
 * @p segleft (type 4, SRH: last_entry naddr - 1); returns where it went.
 */
uint8_t *ut_put_rh(struct ut_pkt *p, uint8_t nh, uint8_t type, uint8_t segleft, uint8_t naddr);

/* ---- running the parse and validate stages (lib/stages) on their own ---- */

struct rps_lcore_stats;

/** What ut_drop_reason() says when nothing was dropped. */
#define UT_NO_DROP (-1)

/** rps_stage_parse() with a context whose counters are @p st. */
uint16_t ut_stage_parse(struct rte_mbuf **pkts, uint16_t n, struct rps_lcore_stats *st);
/** rps_stage_validate() with a context whose counters are @p st. */
uint16_t ut_stage_validate(struct rte_mbuf **pkts, uint16_t n, struct rps_lcore_stats *st);
/**
 * The one drop reason counted in @p st: UT_NO_DROP when none, -2 when more than one drop was
 * counted (never expected for one packet).
 */
int ut_drop_reason(const struct rps_lcore_stats *st);

/** Internet checksum: add @p n bytes (big-endian words) to the running sum @p s. */
uint32_t ut_csum_add(uint32_t s, const uint8_t *b, size_t n);
/** Fold a running sum to 16 bits (not complemented). */
uint16_t ut_csum_fold(uint32_t s);
/** Set the UDP length and the TCP/UDP checksum of @p p (transport header at p->l4_off,
 * running to the end); @p final_dst replaces the IPv6 pseudo-header destination (a routing
 * header in transit) when not NULL. */
void ut_fix_l4(struct ut_pkt *p, uint8_t proto, const uint8_t *final_dst);

#endif /* RPS_TEST_COMMON_H */
