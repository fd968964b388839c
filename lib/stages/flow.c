/* SPDX-License-Identifier: BSD-3-Clause */
/* flow.c: the flow stage: per-worker flow table, TCP state and sequence tracking, ageing. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_mbuf_dyn.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf_ptype.h>
#include <rte_prefetch.h>
#include <rte_tcp.h>

#include "rps_flow.h"
#include "rps_hash.h" /* IPPROTO_DCCP, IPPROTO_UDPLITE where libc lacks them */
#include "rps_siphash.h"

/* Packets looked up in one rte_hash bulk call. */
#define FLOW_CHUNK RTE_HASH_LOOKUP_BULK_MAX
/* When a new flow finds the table full: slots examined to choose the flow it replaces, and
 * at most that many while every one examined is assured. */
#define FLOW_EVICT_SCAN 8
#define FLOW_EVICT_SCAN_MAX 32
/* Flows the table keeps as its top candidates (rps_flow_table_top() returns at most this). */
#define FLOW_TOP 64
/* Flows per bucket of rte_hash (RTE_HASH_BUCKET_ENTRIES, private to the library). */
#define FLOW_BUCKET_ENTRIES 8

/*
 * The hash key: canonical, endpoint 0 is the smaller (address, port). No implicit padding
 * (the explicit pad is always 0), and IPv4 leaves addr[x][1..3] zero, so equal flows have
 * byte-equal keys. 8-byte aligned: rte_hash_crc reads it in 64-bit words.
 */
struct flow_key {
	uint8_t family;       /* 4 or 6 */
	uint8_t proto;
	uint16_t pad;
	uint16_t port[2];     /* network order; port[i] belongs to addr[i] */
	uint32_t addr[2][4];  /* network order */
} __rte_aligned(8);

_Static_assert(sizeof(struct flow_key) == 40, "flow key must have no implicit padding");

/* seq_bits */
#define SEQ_VALID(d) (1u << (d))       /* next_seq[d] is set */
#define FIN_SEEN(d) (1u << (2 + (d)))  /* a FIN came from direction d */
#define DIR_SEEN(d) (1u << (4 + (d)))  /* a packet came from direction d (since a restart) */
#define IN_TOP (1u << 6)               /* the flow is in the table's top set */
#define FIRST_DIR1 (1u << 7)           /* direction 1 sent the first packet: it is orig */
/* what a new connection on the same tuple keeps of seq_bits */
#define SEQ_BITS_KEEP (IN_TOP | FIRST_DIR1)

/* dir_flags: the RPS_FLOW_F_* seen from direction d, four bits each */
#define DIR_FLAGS_SHIFT(d) (4u * (d))

/*
 * One flow, one cache line; its index is the rte_hash key position. The per-packet work
 * touches this line only. Everything is indexed by the key's direction (0: sent by endpoint
 * 0 of the key); FIRST_DIR1 says which of them is orig. 64 bytes hold exact 64-bit packets
 * and bytes each way only with the flow's first_seen outside the line (t->first_seen[],
 * written once, when the flow is created, and read by the dumps) and the first direction and
 * the flags packed into bits.
 */
struct flow {
	uint64_t packets[2];   /* per direction; the flow's total is their sum */
	uint64_t bytes[2];
	uint64_t last_seen;
	uint32_t next_seq[2];  /* per direction */
	uint32_t out_of_order;
	uint32_t retransmit;
	uint32_t sig;          /* the key's hash, as given to rte_hash */
	uint8_t in_use;
	uint8_t state;         /* enum rps_flow_state */
	uint8_t seq_bits;      /* SEQ_VALID, FIN_SEEN, DIR_SEEN, IN_TOP, FIRST_DIR1 */
	uint8_t dir_flags;     /* RPS_FLOW_F_* per direction, at DIR_FLAGS_SHIFT(d) */
} __rte_aligned(64);

_Static_assert(sizeof(struct flow) == 64, "a flow is one 64-byte line");
_Static_assert((RPS_FLOW_F_SYN | RPS_FLOW_F_SYNACK | RPS_FLOW_F_FIN | RPS_FLOW_F_RST) <= 0xf,
	       "a direction's flags fit in four bits of dir_flags");

struct rps_flow_table {
	struct rte_hash *h;
	struct flow *flows;    /* conf.size entries */
	uint64_t *first_seen;  /* conf.size entries: flows[i]'s first packet (TSC), cold */
	uint32_t *load;        /* flows per primary bucket (sig & load_mask) */
	struct rps_flow_conf conf;
	uint32_t load_mask;
	uint32_t active;       /* flows in use */
	uint32_t cursor;       /* next slot the ageing walk examines */
	uint32_t evict_cursor; /* next slot an eviction examines */
	uint64_t hz;           /* TSC rate the timeouts below were computed for */
	int sip_x4;            /* SipHash keys four at a time (rps_siphash13_x4() in AVX2) */
	uint64_t idle_tsc;
	uint64_t closed_tsc;
	uint64_t sweep_tsc;    /* paced ageing walks the whole table once per this */
	uint64_t age_last;     /* paced ageing: time up to which slots were examined */
	/* The top set: the flows with the most packets, kept as packets arrive. A flow joins
	 * when it has more packets than top_min (the smallest member's, 0 while not full),
	 * displacing that member; it leaves when removed. */
	uint64_t top_min;
	uint32_t top_n;
	uint32_t top[FLOW_TOP];
	/* The flows removed, as they were (conf.log_size, a ring; NULL: none kept). */
	struct rps_flow_summary *log;
	uint64_t *log_when;     /* TSC of each removal */
	uint64_t log_n;         /* removals logged since creation */
	uint64_t now;           /* the time of the last burst or ageing step */
	/* --bypass-after (conf.bypass_bytes; NULL: off): from when each flow is bypassed (TSC,
	 * 0: not), cold beside the flow's line, reset when its slot takes a new flow */
	uint64_t *bypass_from;
	uint64_t *bypass_until; /* a consumer's request: when it ends (TSC, 0: with the flow) */
	uint64_t bypass_mask;   /* the mbuf flag that says so to the output stage */
	uint64_t bypass_hold_tsc;
	/* --elephant-rate (conf.elephant_bps; NULL: off): each flow's two windows, cold beside
	 * its line, reset when its slot takes a new flow (rps_flow.h, "Elephants") */
	struct eleph *eleph;
	uint64_t eleph_win_tsc;   /* the window, in TSC */
	uint64_t eleph_bytes;     /* the rate as bytes per window: marked above it */
	uint64_t eleph_next;      /* next check of the listed elephants (TSC) */
	uint32_t eleph_n;         /* flows marked now */
	uint32_t eleph_shown;     /* eleph_n as last stored in the elephants_active gauge */
	uint32_t eleph_listed;
	uint32_t eleph_list[RPS_FLOW_ELEPHANTS]; /* positions of marked flows, unordered */
};

/* One flow's elephant state: bytes (both directions) in its current window, which started
 * at start, and in the window before. */
struct eleph {
	uint64_t start;
	uint64_t cur;
	uint64_t prev;
	uint8_t marked;        /* ELEPH_* */
};
#define ELEPH_NO 0
#define ELEPH_MARKED 1     /* marked, not in eleph_list (the list was full) */
#define ELEPH_LISTED 2     /* marked and in eleph_list */

/* What the stage needs from one packet. */
struct pkt_info {
	struct flow_key key;
	uint32_t seq;
	uint32_t len;          /* TCP payload bytes */
	uint8_t dir;           /* 0: sent by endpoint 0 of the key */
	uint8_t tcp_flags;
	uint8_t tcp_ok;        /* a TCP segment with a sane header: state and sequence apply */
};

static const char *const state_names[RPS_FLOW_STATE_MAX] = {
	[RPS_FLOW_NONE] = "none",
	[RPS_FLOW_NEW] = "new",
	[RPS_FLOW_SYN_SENT] = "syn_sent",
	[RPS_FLOW_SYN_RECV] = "syn_recv",
	[RPS_FLOW_ESTABLISHED] = "established",
	[RPS_FLOW_FIN_WAIT] = "fin_wait",
	[RPS_FLOW_CLOSED] = "closed",
};

const char *
rps_flow_state_name(enum rps_flow_state s)
{
	return (unsigned int)s < RPS_FLOW_STATE_MAX ? state_names[s] : NULL;
}

char *
rps_flow_flags_format(uint8_t flags, char *buf, size_t len)
{
	static const struct {
		uint8_t bit;
		const char *name;
	} names[] = {
		{ RPS_FLOW_F_SYN, "SYN" }, { RPS_FLOW_F_SYNACK, "SYN-ACK" },
		{ RPS_FLOW_F_FIN, "FIN" }, { RPS_FLOW_F_RST, "RST" },
	};
	size_t used = 0;

	if (buf == NULL || len == 0)
		return buf;
	buf[0] = '\0';
	for (unsigned int i = 0; i < RTE_DIM(names); i++) {
		int n;

		if (!(flags & names[i].bit))
			continue;
		n = snprintf(buf + used, len - used, "%s%s", used ? "," : "", names[i].name);
		if (n < 0 || (size_t)n >= len - used) {
			buf[used] = '\0'; /* cut short: the names that fitted, whole */
			break;
		}
		used += (size_t)n;
	}
	return buf;
}

static uint64_t
ms_to_tsc(uint32_t ms, uint64_t hz)
{
	return (uint64_t)(ms / 1000) * hz + (uint64_t)(ms % 1000) * hz / 1000;
}

static uint64_t
tsc_to_ms(uint64_t tsc, uint64_t hz)
{
	if (hz == 0)
		return 0;
	return tsc / hz * 1000 + tsc % hz * 1000 / hz;
}

/* Paced ageing sweeps the table every quarter of the shorter timeout (1 ms .. 60 s), so a
 * flow goes at most 25% after its timeout. */
static uint32_t
sweep_ms(const struct rps_flow_conf *conf)
{
	uint32_t ms = RTE_MIN(conf->idle_timeout_ms, conf->closed_timeout_ms) / 4;

	return RTE_MIN(RTE_MAX(ms, 1u), 60000u);
}

static void
set_hz(struct rps_flow_table *t, uint64_t hz)
{
	t->hz = hz;
	t->idle_tsc = ms_to_tsc(t->conf.idle_timeout_ms, hz);
	t->closed_tsc = ms_to_tsc(t->conf.closed_timeout_ms, hz);
	t->sweep_tsc = RTE_MAX(ms_to_tsc(sweep_ms(&t->conf), hz), (uint64_t)1);
	t->bypass_hold_tsc = ms_to_tsc(t->conf.bypass_hold_ms, hz);
	t->eleph_win_tsc = RTE_MAX(ms_to_tsc(t->conf.elephant_window_ms, hz), (uint64_t)1);
}

static inline int
proto_has_ports(uint8_t proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP || proto == IPPROTO_UDPLITE ||
	       proto == IPPROTO_SCTP || proto == IPPROTO_DCCP;
}

/* The transport protocol after an IPv6 extension chain of @p l3_len bytes at @p off. */
static uint8_t
ipv6_last_nh(const struct rte_mbuf *m, uint32_t off, uint32_t l3_len, uint8_t nh)
{
	uint32_t pos = sizeof(struct rte_ipv6_hdr);

	for (int i = 0; i < 16 && pos < l3_len; i++) {
		uint8_t buf[2];
		const uint8_t *e;
		uint32_t len;

		/* hop-by-hop, routing, fragment, AH, destination options, mobility, HIP, shim6 */
		if (nh != 0 && nh != 43 && nh != 44 && nh != 51 && nh != 60 && nh != 135 &&
		    nh != 139 && nh != 140)
			return nh;
		e = rte_pktmbuf_read(m, off + pos, sizeof(buf), buf);
		if (e == NULL)
			return nh;
		if (nh == 44)
			len = 8;
		else if (nh == 51)
			len = ((uint32_t)e[1] + 2) * 4;
		else
			len = ((uint32_t)e[1] + 1) * 8;
		nh = e[0];
		pos += len;
	}
	return nh;
}

/* memcmp(a, b, alen) for addresses (4 or 16 bytes), as words in network order: inline,
 * without a library call per packet. */
static inline int
addr_cmp(const void *a, const void *b, size_t alen)
{
	if (alen == 4) {
		uint32_t x, y;

		memcpy(&x, a, 4);
		memcpy(&y, b, 4);
		x = rte_be_to_cpu_32(x);
		y = rte_be_to_cpu_32(y);
		return (x > y) - (x < y);
	}
	for (size_t i = 0; i < alen; i += 8) {
		uint64_t x, y;

		memcpy(&x, (const uint8_t *)a + i, 8);
		memcpy(&y, (const uint8_t *)b + i, 8);
		x = rte_be_to_cpu_64(x);
		y = rte_be_to_cpu_64(y);
		if (x != y)
			return x > y ? 1 : -1;
	}
	return 0;
}

/* Order the two endpoints and fill the key's address/port pairs; returns the direction. */
static inline uint8_t
key_set_endpoints(struct flow_key *k, const void *sa, const void *da, size_t alen,
		  uint16_t sport, uint16_t dport)
{
	int cmp = addr_cmp(sa, da, alen);
	uint8_t dir;

	if (cmp == 0)
		cmp = (int)rte_be_to_cpu_16(sport) - (int)rte_be_to_cpu_16(dport);
	dir = cmp > 0;
	memcpy(k->addr[dir], sa, alen);
	memcpy(k->addr[!dir], da, alen);
	k->port[dir] = sport;
	k->port[!dir] = dport;
	return dir;
}

/*
 * Read a parsed packet's flow key and TCP fields. @return 0, or -1 for a packet that is not
 * tracked (not IP, a fragment, no layout, transport header cut short).
 */
static int
extract(const struct rte_mbuf *m, struct pkt_info *pi)
{
	const uint32_t pt = m->packet_type;
	const uint32_t l4type = pt & RTE_PTYPE_L4_MASK;
	const uint32_t l3off = m->l2_len;
	const uint32_t l4off = l3off + m->l3_len;
	const uint32_t pkt_len = rte_pktmbuf_pkt_len(m);
	const void *sa, *da;
	uint32_t ip_end;
	size_t alen;
	uint8_t proto;
	union {
		struct rte_ipv4_hdr v4;
		struct rte_ipv6_hdr v6;
		struct rte_tcp_hdr tcp;
		uint32_t ports;
	} buf, lbuf;
	uint16_t sport = 0, dport = 0;

	if (l4type == RTE_PTYPE_L4_FRAG || m->l3_len == 0)
		return -1;
	memset(&pi->key, 0, sizeof(pi->key));
	pi->tcp_ok = 0;
	if (RTE_ETH_IS_IPV4_HDR(pt)) {
		const struct rte_ipv4_hdr *ip = rte_pktmbuf_read(m, l3off, sizeof(buf.v4), &buf);

		if (ip == NULL)
			return -1;
		pi->key.family = 4;
		proto = ip->next_proto_id;
		sa = &ip->src_addr;
		da = &ip->dst_addr;
		alen = 4;
		ip_end = l3off + rte_be_to_cpu_16(ip->total_length);
	} else if (RTE_ETH_IS_IPV6_HDR(pt)) {
		const struct rte_ipv6_hdr *ip = rte_pktmbuf_read(m, l3off, sizeof(buf.v6), &buf);

		if (ip == NULL)
			return -1;
		pi->key.family = 6;
		if (l4type == RTE_PTYPE_L4_TCP)
			proto = IPPROTO_TCP;
		else if (l4type == RTE_PTYPE_L4_UDP)
			proto = IPPROTO_UDP;
		else if (m->l3_len > sizeof(buf.v6))
			proto = ipv6_last_nh(m, l3off, m->l3_len, ip->proto);
		else
			proto = ip->proto;
		sa = ip->src_addr;
		da = ip->dst_addr;
		alen = 16;
		ip_end = l3off + (uint32_t)sizeof(buf.v6) + rte_be_to_cpu_16(ip->payload_len);
	} else {
		return -1;
	}
	pi->key.proto = proto;
	if (ip_end > pkt_len)
		ip_end = pkt_len;
	if (proto == IPPROTO_TCP) {
		const struct rte_tcp_hdr *th = rte_pktmbuf_read(m, l4off, sizeof(lbuf.tcp), &lbuf);
		uint32_t hdr;

		if (th == NULL)
			return -1;
		sport = th->src_port;
		dport = th->dst_port;
		hdr = (uint32_t)(th->data_off >> 4) * 4;
		if (hdr >= sizeof(*th)) {
			pi->tcp_ok = 1;
			pi->tcp_flags = th->tcp_flags;
			pi->seq = rte_be_to_cpu_32(th->sent_seq);
			pi->len = ip_end > l4off + hdr ? ip_end - l4off - hdr : 0;
		}
	} else if (proto_has_ports(proto)) {
		const uint8_t *p = rte_pktmbuf_read(m, l4off, sizeof(lbuf.ports), &lbuf);

		if (p == NULL)
			return -1;
		memcpy(&sport, p, sizeof(sport)); /* the packet may be at any alignment */
		memcpy(&dport, p + 2, sizeof(dport));
	}
	pi->dir = key_set_endpoints(&pi->key, sa, da, alen, sport, dport);
	return 0;
}

/* ---- table ---- */

/*
 * The SipHash key of every flow table of the process. Process-wide because rte_hash calls
 * its hash function with a 32-bit seed only (it does, to check a key it returns from
 * rte_hash_get_key_with_position()): written at set-up, before any table exists, read-only
 * after that.
 */
static struct rps_siphash_key flow_secret;
static int flow_secret_set;

void
rps_flow_set_hash_key(const struct rps_siphash_key *key)
{
	if (key != NULL)
		flow_secret = *key;
	else
		rps_siphash_key_random(&flow_secret);
	flow_secret_set = 1;
}

/*
 * SipHash-1-3 of a key's meaningful bytes: an IPv6 key whole (40 bytes), an IPv4 key as the
 * 16 bytes it holds (family, protocol, pad, ports, then the two addresses; the other 24
 * bytes are always zero): 6 SipHash rounds instead of 9. The encoding is one-to-one and the
 * two families differ in length (which SipHash mixes in), so the hash stays a keyed PRF of
 * the flow: nothing outside can aim flows at a bucket any better.
 */
static inline uint32_t
flow_siphash(const struct flow_key *k)
{
	uint8_t b[16];

	if (k->family != 4)
		return (uint32_t)rps_siphash13(&flow_secret, k, sizeof(*k));
	memcpy(b, k, 12);               /* family, proto, pad, port[2], addr[0][0] */
	memcpy(b + 12, &k->addr[1][0], 4);
	return (uint32_t)rps_siphash13(&flow_secret, b, sizeof(b));
}

/*
 * flow_siphash() of keys[0..n-1] into sigs[], four keys at a time: the IPv4 keys (their 16
 * meaningful bytes) and the IPv6 keys (40 bytes) each in groups of their own, what is left
 * of each one by one. The same values as flow_siphash(), bit for bit.
 */
static void
flow_siphash_x4(const void *const *keys, uint32_t n, hash_sig_t *sigs)
{
	uint8_t v4[FLOW_CHUNK][16];
	const void *in[2][FLOW_CHUNK];
	uint32_t idx[2][FLOW_CHUNK], cnt[2] = { 0, 0 };
	uint64_t out[4];

	for (uint32_t k = 0; k < n; k++) {
		const struct flow_key *fk = keys[k];
		const int v6 = fk->family != 4;

		if (!v6) {
			memcpy(v4[cnt[0]], fk, 12); /* as flow_siphash() */
			memcpy(v4[cnt[0]] + 12, &fk->addr[1][0], 4);
			in[0][cnt[0]] = v4[cnt[0]];
		} else {
			in[1][cnt[1]] = fk;
		}
		idx[v6][cnt[v6]++] = k;
	}
	for (int f = 0; f < 2; f++) {
		const size_t len = f ? sizeof(struct flow_key) : 16;
		uint32_t i = 0;

		for (; i + 4 <= cnt[f]; i += 4) {
			rps_siphash13_x4(&flow_secret, &in[f][i], len, out);
			for (uint32_t j = 0; j < 4; j++)
				sigs[idx[f][i + j]] = (uint32_t)out[j];
		}
		for (; i < cnt[f]; i++)
			sigs[idx[f][i]] = (uint32_t)rps_siphash13(&flow_secret, in[f][i], len);
	}
}

/* rte_hash's hash_func: what flow_sig() gives for a SipHash table. */
static uint32_t
flow_hash_func(const void *key, uint32_t key_len, uint32_t init_val)
{
	struct flow_key k;

	(void)init_val;
	if (key_len != sizeof(k))
		return (uint32_t)rps_siphash13(&flow_secret, key, key_len);
	memcpy(&k, key, sizeof(k));
	return flow_siphash(&k);
}

uint64_t
rps_flow_bypass_flag(void)
{
	static const struct rte_mbuf_dynflag desc = { .name = "rps_dynflag_bypass" };
	static uint64_t mask;

	if (mask == 0) {
		const int bit = rte_mbuf_dynflag_register(&desc);

		if (bit >= 0)
			mask = UINT64_C(1) << bit;
	}
	return mask;
}

struct rps_flow_table *
rps_flow_table_create(const struct rps_flow_conf *conf, const char *name, int socket)
{
	struct rps_flow_table *t;
	struct rte_hash_parameters hp = {
		.name = name,
		.key_len = sizeof(struct flow_key),
		/* the signature flow_sig() gives: rte_hash calls it in get_key_with_position() */
		.hash_func = conf != NULL && conf->hash == RPS_FLOW_HASH_CRC32C ? rte_hash_crc
										 : flow_hash_func,
		.hash_func_init_val = 0,
		.socket_id = socket,
		/* extendable buckets: the table really holds conf->size flows */
		.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};

	uint32_t buckets;

	if (conf == NULL || name == NULL || conf->size < 8 ||
	    (conf->hash != RPS_FLOW_HASH_SIPHASH && conf->hash != RPS_FLOW_HASH_CRC32C) ||
	    conf->size > (1u << 30) || conf->log_size > (1u << 20) ||
	    (conf->elephant_bps != 0 && (conf->elephant_window_ms < 10 ||
					 conf->elephant_window_ms > 60000 ||
					 conf->elephant_bps > UINT64_C(1) << 50))) {
		rte_errno = EINVAL;
		return NULL;
	}
	hp.entries = conf->size;
	t = rte_zmalloc_socket("rps_flow_table", sizeof(*t), RTE_CACHE_LINE_SIZE, socket);
	if (t == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	t->conf = *conf;
	if (!flow_secret_set)
		rps_flow_set_hash_key(NULL);
	t->sip_x4 = conf->hash == RPS_FLOW_HASH_SIPHASH && rps_siphash_x4_simd();
	buckets = RTE_MAX(rte_align32pow2(conf->size) / FLOW_BUCKET_ENTRIES, 1u);
	t->load_mask = buckets - 1;
	t->flows = rte_zmalloc_socket("rps_flows", (size_t)conf->size * sizeof(struct flow),
				      RTE_CACHE_LINE_SIZE, socket);
	t->first_seen = rte_zmalloc_socket("rps_flow_born",
					   (size_t)conf->size * sizeof(*t->first_seen),
					   RTE_CACHE_LINE_SIZE, socket);
	t->load = rte_zmalloc_socket("rps_flow_load", (size_t)buckets * sizeof(*t->load),
				     RTE_CACHE_LINE_SIZE, socket);
	if (conf->bypass_bytes != 0 || conf->bypass_requests) {
		t->bypass_mask = rps_flow_bypass_flag();
		t->bypass_from = rte_zmalloc_socket("rps_flow_bypass", (size_t)conf->size *
						    sizeof(*t->bypass_from), RTE_CACHE_LINE_SIZE,
						    socket);
		t->bypass_until = rte_zmalloc_socket("rps_flow_bypass", (size_t)conf->size *
						     sizeof(*t->bypass_until), RTE_CACHE_LINE_SIZE,
						     socket);
	}
	if (conf->elephant_bps != 0) {
		t->eleph = rte_zmalloc_socket("rps_flow_eleph", (size_t)conf->size *
					      sizeof(*t->eleph), RTE_CACHE_LINE_SIZE, socket);
		/* bits a second over a window of W ms: bps / 8 * W / 1000 bytes (at least 1) */
		t->eleph_bytes = RTE_MAX(conf->elephant_bps / 8 * conf->elephant_window_ms / 1000,
					 (uint64_t)1);
	}
	if (conf->log_size != 0) {
		t->log = rte_zmalloc_socket("rps_flow_log", (size_t)conf->log_size *
					    sizeof(*t->log), RTE_CACHE_LINE_SIZE, socket);
		t->log_when = rte_zmalloc_socket("rps_flow_log", (size_t)conf->log_size *
						 sizeof(*t->log_when), RTE_CACHE_LINE_SIZE, socket);
	}
	if (t->flows == NULL || t->first_seen == NULL || t->load == NULL ||
	    (conf->elephant_bps != 0 && t->eleph == NULL) ||
	    (conf->log_size != 0 && (t->log == NULL || t->log_when == NULL)) ||
	    ((conf->bypass_bytes != 0 || conf->bypass_requests) &&
	     (t->bypass_from == NULL || t->bypass_until == NULL || t->bypass_mask == 0))) {
		rte_free(t->bypass_from);
		rte_free(t->bypass_until);
		rte_free(t->eleph);
		rte_free(t->flows);
		rte_free(t->first_seen);
		rte_free(t->load);
		rte_free(t->log);
		rte_free(t->log_when);
		rte_free(t);
		rte_errno = ENOMEM;
		return NULL;
	}
	t->h = rte_hash_create(&hp);
	if (t->h == NULL) {
		int err = rte_errno;

		rte_free(t->bypass_from);
		rte_free(t->bypass_until);
		rte_free(t->eleph);
		rte_free(t->flows);
		rte_free(t->first_seen);
		rte_free(t->load);
		rte_free(t->log);
		rte_free(t->log_when);
		rte_free(t);
		rte_errno = err;
		return NULL;
	}
	set_hz(t, rte_get_tsc_hz());
	return t;
}

void
rps_flow_table_free(struct rps_flow_table *t)
{
	if (t == NULL)
		return;
	rte_hash_free(t->h);
	rte_free(t->bypass_from);
	rte_free(t->bypass_until);
	rte_free(t->eleph);
	rte_free(t->flows);
	rte_free(t->first_seen);
	rte_free(t->load);
	rte_free(t->log);
	rte_free(t->log_when);
	rte_free(t);
}

uint32_t
rps_flow_table_count(const struct rps_flow_table *t)
{
	return t != NULL ? t->active : 0;
}

static inline void
publish_active(struct rps_stage_ctx *c, const struct rps_flow_table *t)
{
	__atomic_store_n(&c->st->flows_active, (uint64_t)t->active, __ATOMIC_RELAXED);
}

/* The elephants_active gauge, when it changed: release, so that the control thread
 * (--elephant-action isolate) that loads it with acquire sees the marks it counts. */
static inline void
publish_elephants(struct rps_stage_ctx *c, struct rps_flow_table *t)
{
	if (t->eleph_n == t->eleph_shown)
		return;
	t->eleph_shown = t->eleph_n;
	__atomic_store_n(&c->st->elephants_active, (uint64_t)t->eleph_n, __ATOMIC_RELEASE);
}

/*
 * The signature rte_hash files a key under: SipHash-1-3 of the key under the process's
 * secret key (or, for measurements and tests only, the CRC32C with seed 0 that dpdk-rps used
 * before, which anyone can aim at one bucket). rte_hash takes its bucket from the low bits
 * and a 16-bit short signature from the high half.
 */
static inline uint32_t
flow_sig(const struct rps_flow_table *t, const struct flow_key *k)
{
	if (unlikely(t->conf.hash == RPS_FLOW_HASH_CRC32C))
		return rte_hash_crc(k, sizeof(*k), 0);
	return flow_siphash(k);
}

static inline uint64_t
flow_packets(const struct flow *f)
{
	return f->packets[0] + f->packets[1];
}

static inline uint64_t
flow_bytes(const struct flow *f)
{
	return f->bytes[0] + f->bytes[1];
}

/* Whether flow a ranks before flow b. */
static inline int
ranks_before(const struct flow *a, const struct flow *b)
{
	const uint64_t pa = flow_packets(a), pb = flow_packets(b);

	return pa > pb || (pa == pb && flow_bytes(a) > flow_bytes(b));
}

/* The top set's smallest member (index into t->top); the set is not empty. */
static unsigned int
top_smallest(const struct rps_flow_table *t)
{
	unsigned int m = 0;

	for (unsigned int i = 1; i < t->top_n; i++)
		if (ranks_before(&t->flows[t->top[m]], &t->flows[t->top[i]]))
			m = i;
	return m;
}

/* The flow at @p pos leaves the top set (it is being removed). */
static void
top_leave(struct rps_flow_table *t, uint32_t pos)
{
	for (unsigned int i = 0; i < t->top_n; i++) {
		if (t->top[i] == pos) {
			t->top[i] = t->top[--t->top_n];
			break;
		}
	}
	t->flows[pos].seq_bits &= (uint8_t)~IN_TOP;
	t->top_min = 0; /* not full: the next flow to see a packet joins */
}

/* The flow at @p pos (not a member) has more packets than top_min: it joins the set,
 * displacing the smallest member when the set is full. Rare: top_min only grows while full. */
static void
top_join(struct rps_flow_table *t, uint32_t pos)
{
	if (t->top_n < FLOW_TOP) {
		t->top[t->top_n++] = pos;
	} else {
		const unsigned int m = top_smallest(t);

		t->flows[t->top[m]].seq_bits &= (uint8_t)~IN_TOP;
		t->top[m] = pos;
	}
	t->flows[pos].seq_bits |= IN_TOP;
	if (t->top_n == FLOW_TOP)
		t->top_min = flow_packets(&t->flows[t->top[top_smallest(t)]]);
}

static void summarize(const struct rps_flow_table *t, uint32_t pos, struct rps_flow_summary *s);

/* ---- elephants (rps_flow.h) ---- */

/* Bytes of @p e in the sliding window that ends at @p now: the part of the previous fixed
 * window still inside it plus the current one (a window with nothing since: its bytes slide
 * out in turn). Doubles: bytes times TSC would overflow 64 bits. */
static uint64_t
eleph_estimate(const struct rps_flow_table *t, const struct eleph *e, uint64_t now)
{
	const double w = (double)t->eleph_win_tsc;
	const double el = now > e->start ? (double)(now - e->start) : 0;

	if (el >= 2 * w)
		return 0;
	if (el >= w) /* no packet since the current window ended: it is the previous one */
		return (uint64_t)((double)e->cur * (2 * w - el) / w);
	return e->cur + (uint64_t)((double)e->prev * (w - el) / w);
}

/* Bytes per window as bits a second. */
static uint64_t
eleph_bps(const struct rps_flow_table *t, uint64_t bytes)
{
	return (uint64_t)((double)bytes * 8.0 * 1000.0 / (double)t->conf.elephant_window_ms);
}

static void
eleph_list_add(struct rps_flow_table *t, uint32_t pos)
{
	if (t->eleph_listed == RPS_FLOW_ELEPHANTS)
		return; /* marked and counted, not listed */
	t->eleph_list[t->eleph_listed++] = pos;
	t->eleph[pos].marked = ELEPH_LISTED;
}

/* The flow at @p pos is no elephant any more (below half the rate, or removed). */
static void
eleph_unmark(struct rps_flow_table *t, uint32_t pos)
{
	if (t->eleph[pos].marked == ELEPH_LISTED)
		for (uint32_t i = 0; i < t->eleph_listed; i++)
			if (t->eleph_list[i] == pos) {
				t->eleph_list[i] = t->eleph_list[--t->eleph_listed];
				break;
			}
	t->eleph[pos].marked = ELEPH_NO;
	t->eleph_n--;
}

/* Unmark the listed elephants whose estimate fell below half the rate (a flow that
 * stopped sends nothing that would check it): at most 8 times a window. */
static void
eleph_sweep(struct rps_flow_table *t, uint64_t now)
{
	if (t->eleph_n == 0 || now < t->eleph_next)
		return;
	t->eleph_next = now + t->eleph_win_tsc / 8;
	for (uint32_t i = 0; i < t->eleph_listed;) {
		const uint32_t pos = t->eleph_list[i];

		if (eleph_estimate(t, &t->eleph[pos], now) < t->eleph_bytes / 2)
			eleph_unmark(t, pos); /* the last listed takes slot i */
		else
			i++;
	}
}

/* Remove the flow at @p pos (into the log first, when there is one). */
static void
flow_remove(struct rps_flow_table *t, uint32_t pos)
{
	struct flow *f = &t->flows[pos];
	struct flow_key k;
	void *kp;

	if (t->log != NULL) {
		const uint64_t at = t->log_n++ % t->conf.log_size;

		summarize(t, pos, &t->log[at]);
		t->log_when[at] = t->now;
	}
	if (rte_hash_get_key_with_position(t->h, (int32_t)pos, &kp) == 0) {
		memcpy(&k, kp, sizeof(k));
		rte_hash_del_key_with_hash(t->h, &k, f->sig);
	}
	t->load[f->sig & t->load_mask]--;
	if (f->seq_bits & IN_TOP)
		top_leave(t, pos);
	if (t->eleph != NULL && t->eleph[pos].marked != ELEPH_NO)
		eleph_unmark(t, pos);
	f->in_use = 0;
	t->active--;
}

/* Whether @p f is idle past its timeout at @p now. */
static inline int
flow_expired(const struct rps_flow_table *t, const struct flow *f, uint64_t now)
{
	const uint64_t idle = now > f->last_seen ? now - f->last_seen : 0;

	return idle > t->idle_tsc || (f->state == RPS_FLOW_CLOSED && idle > t->closed_tsc);
}

/*
 * Assured, as conntrack's IPS_ASSURED: packets seen both ways and, for TCP, the handshake
 * completed (established or closing). Spoofed sources never get there: they see no reply.
 */
static inline int
flow_assured(const struct flow *f)
{
	if ((f->seq_bits & (DIR_SEEN(0) | DIR_SEEN(1))) != (DIR_SEEN(0) | DIR_SEEN(1)))
		return 0;
	return f->state == RPS_FLOW_NONE || f->state == RPS_FLOW_ESTABLISHED ||
	       f->state == RPS_FLOW_FIN_WAIT;
}

/* Examine @p budget slots from the cursor; remove expired flows. @return flows removed. */
static uint32_t
age_step(struct rps_flow_table *t, uint64_t now, uint32_t budget)
{
	const uint32_t size = t->conf.size;
	uint32_t cur = t->cursor, removed = 0;

	if (t->active == 0)
		return 0;
	t->now = now;
	if (budget > size)
		budget = size;
	for (uint32_t i = 0; i < budget; i++) {
		const struct flow *f = &t->flows[cur];

		if (f->in_use && flow_expired(t, f, now)) {
			flow_remove(t, cur);
			removed++;
		}
		if (++cur == size)
			cur = 0;
	}
	t->cursor = cur;
	return removed;
}

static void
age_count(struct rps_stage_ctx *c, struct rps_flow_table *t, uint32_t budget)
{
	const uint32_t removed = age_step(t, c->now, budget);

	if (removed != 0) {
		RPS_CTR_ADD(c->st->flows_expired, removed);
		publish_active(c, t);
	}
	if (t->eleph != NULL) {
		eleph_sweep(t, c->now);
		publish_elephants(c, t);
	}
}

void
rps_flow_table_age(struct rps_stage_ctx *c, uint32_t budget)
{
	struct rps_flow_table *t = c->flows;

	if (t == NULL)
		return;
	if (c->hz != 0 && c->hz != t->hz)
		set_hz(t, c->hz);
	age_count(c, t, budget);
}

void
rps_flow_table_age_paced(struct rps_stage_ctx *c, uint32_t max_budget)
{
	struct rps_flow_table *t = c->flows;
	uint64_t elapsed, owed;
	uint32_t budget;

	if (t == NULL)
		return;
	if (c->hz != 0 && c->hz != t->hz)
		set_hz(t, c->hz);
	if (t->eleph != NULL && t->eleph_n != 0 && c->now >= t->eleph_next) {
		eleph_sweep(t, c->now);
		publish_elephants(c, t);
	}
	if (c->now <= t->age_last) {
		if (t->age_last - c->now > t->sweep_tsc)
			t->age_last = c->now; /* the clock went back: start over */
		return;
	}
	elapsed = c->now - t->age_last;
	if (elapsed > t->sweep_tsc) {
		/* more than a sweep is due: do one sweep's worth, forget the rest */
		elapsed = t->sweep_tsc;
		t->age_last = c->now - elapsed;
	}
	/* elapsed <= 60 s of TSC (< 2^39) times size (< 2^25): no overflow */
	owed = elapsed * t->conf.size / t->sweep_tsc;
	if (owed == 0)
		return;
	budget = (uint32_t)RTE_MIN(owed, (uint64_t)max_budget);
	t->age_last += (uint64_t)budget * t->sweep_tsc / t->conf.size;
	age_count(c, t, budget);
}

/* ---- the stage ---- */

/* Per-burst tallies, added to the counters once. */
struct burst_ctrs {
	uint64_t created;
	uint64_t expired;
	uint64_t evicted;
	uint64_t out_of_order;
	uint64_t retransmit;
	uint64_t bypassed;
	uint64_t elephants;    /* flows marked */
	uint32_t bucket_max;
};

/* A flow's rank as an eviction victim (lower goes first): expired, not assured, assured. */
static inline unsigned int
evict_rank(const struct rps_flow_table *t, const struct flow *f, uint64_t now)
{
	if (flow_expired(t, f, now))
		return 0;
	return flow_assured(f) ? 2 : 1;
}

/*
 * Make room in a full table, as conntrack's early drop: of FLOW_EVICT_SCAN slots from a
 * rotating cursor (more, up to FLOW_EVICT_SCAN_MAX, while all of them are assured), remove
 * the lowest ranked flow (evict_rank()), the least recently seen among equals. Bounded
 * work: one scan per new flow that finds the table full.
 * @return 1 when a flow was removed.
 */
static int
evict_one(struct rps_flow_table *t, uint64_t now, struct burst_ctrs *bc)
{
	const uint32_t size = t->conf.size;
	uint32_t cur = t->evict_cursor, victim = UINT32_MAX;
	unsigned int best_rank = 3;
	uint64_t best_seen = UINT64_MAX;

	for (unsigned int i = 0; i < FLOW_EVICT_SCAN_MAX; i++) {
		const struct flow *f = &t->flows[cur];

		if (f->in_use) {
			const unsigned int r = evict_rank(t, f, now);

			if (r < best_rank || (r == best_rank && f->last_seen < best_seen)) {
				best_rank = r;
				best_seen = f->last_seen;
				victim = cur;
			}
		}
		if (++cur == size)
			cur = 0;
		if (i + 1 >= FLOW_EVICT_SCAN && best_rank < 2)
			break;
	}
	t->evict_cursor = cur;
	if (victim == UINT32_MAX)
		return 0;
	flow_remove(t, victim);
	if (best_rank == 0)
		bc->expired++;
	else
		bc->evicted++;
	return 1;
}

/*
 * Add the flow of @p pi (not found by the lookup). On a full table evict one flow first;
 * then earlier lookup results of the chunk may be stale (*stale = 1).
 * @return the flow's position, or < 0 when there is no room.
 */
static int32_t
flow_add(struct rps_flow_table *t, const struct pkt_info *pi, hash_sig_t sig, uint64_t now,
	 struct burst_ctrs *bc, int *stale)
{
	int32_t pos = rte_hash_add_key_with_hash(t->h, &pi->key, sig);
	struct flow *f;
	uint32_t *load;

	if (pos == -ENOSPC && evict_one(t, now, bc)) {
		*stale = 1;
		pos = rte_hash_add_key_with_hash(t->h, &pi->key, sig);
	}
	if (pos < 0)
		return pos;
	if (unlikely((uint32_t)pos >= t->conf.size)) {
		/* rte_hash gives positions below entries; never index past the array */
		rte_hash_del_key_with_hash(t->h, &pi->key, sig);
		return -ENOSPC;
	}
	f = &t->flows[pos];
	if (!f->in_use) {
		/* a new flow (otherwise an earlier packet of this chunk added it) */
		memset(f, 0, sizeof(*f));
		f->in_use = 1;
		f->seq_bits = pi->dir ? FIRST_DIR1 : 0;
		t->first_seen[pos] = now;
		if (t->bypass_from != NULL)
			t->bypass_from[pos] = t->bypass_until[pos] = 0;
		if (t->eleph != NULL)
			t->eleph[pos] = (struct eleph){ .start = now };
		f->sig = sig;
		f->state = pi->key.proto == IPPROTO_TCP ? RPS_FLOW_NEW : RPS_FLOW_NONE;
		load = &t->load[sig & t->load_mask];
		if (++*load > bc->bucket_max)
			bc->bucket_max = *load;
		t->active++;
		bc->created++;
	}
	return pos;
}

static inline void
tcp_state(struct flow *f, uint8_t flags, uint8_t dir)
{
	if (flags & RTE_TCP_RST_FLAG) {
		f->state = RPS_FLOW_CLOSED;
		return;
	}
	if (flags & RTE_TCP_SYN_FLAG) {
		if (!(flags & RTE_TCP_ACK_FLAG)) {
			if (f->state == RPS_FLOW_CLOSED) {
				/* a new connection on the same tuple */
				f->seq_bits &= SEQ_BITS_KEEP;
				f->state = RPS_FLOW_NEW;
			}
			if (f->state == RPS_FLOW_NEW)
				f->state = RPS_FLOW_SYN_SENT;
		} else if (f->state == RPS_FLOW_NEW || f->state == RPS_FLOW_SYN_SENT) {
			f->state = RPS_FLOW_SYN_RECV;
		}
	} else if (flags & RTE_TCP_ACK_FLAG) {
		if (f->state == RPS_FLOW_NEW || f->state == RPS_FLOW_SYN_SENT ||
		    f->state == RPS_FLOW_SYN_RECV)
			f->state = RPS_FLOW_ESTABLISHED;
	}
	if ((flags & RTE_TCP_FIN_FLAG) && f->state != RPS_FLOW_CLOSED) {
		f->seq_bits |= FIN_SEEN(dir);
		if ((f->seq_bits & (FIN_SEEN(0) | FIN_SEEN(1))) == (FIN_SEEN(0) | FIN_SEEN(1)))
			f->state = RPS_FLOW_CLOSED;
		else
			f->state = RPS_FLOW_FIN_WAIT;
	}
}

static inline void
tcp_seq(struct flow *f, const struct pkt_info *pi, struct burst_ctrs *bc)
{
	const uint8_t d = pi->dir;
	const uint32_t seg = pi->len + !!(pi->tcp_flags & RTE_TCP_SYN_FLAG) +
			     !!(pi->tcp_flags & RTE_TCP_FIN_FLAG);
	const uint32_t end = pi->seq + seg;
	int32_t ahead;

	if (!(f->seq_bits & SEQ_VALID(d))) {
		f->seq_bits |= SEQ_VALID(d);
		f->next_seq[d] = end;
		return;
	}
	if (seg == 0)
		return; /* pure ACK */
	ahead = (int32_t)(pi->seq - f->next_seq[d]);
	if (ahead == 0) {
		f->next_seq[d] = end;
	} else if (ahead > 0) {
		f->out_of_order++;
		bc->out_of_order++;
		f->next_seq[d] = end;
	} else {
		f->retransmit++;
		bc->retransmit++;
		if ((int32_t)(end - f->next_seq[d]) > 0)
			f->next_seq[d] = end; /* partial overlap: new data beyond next */
	}
}

/* The RPS_FLOW_F_* bits of a TCP segment's flags. */
static inline uint8_t
dir_flags_of(uint8_t tcp_flags)
{
	uint8_t b = 0;

	if (tcp_flags & RTE_TCP_SYN_FLAG)
		b = (tcp_flags & RTE_TCP_ACK_FLAG) ? RPS_FLOW_F_SYNACK : RPS_FLOW_F_SYN;
	if (tcp_flags & RTE_TCP_FIN_FLAG)
		b |= RPS_FLOW_F_FIN;
	if (tcp_flags & RTE_TCP_RST_FLAG)
		b |= RPS_FLOW_F_RST;
	return b;
}

/*
 * --elephant-rate: @p len more bytes of the flow at @p pos at @p now (rps_flow.h,
 * "Elephants"). The window rolls at most once per window and flow; the estimate is computed
 * only once the bound prev + cur is above the rate, and never for a marked flow. A flow
 * marked with --elephant-action bypass becomes pending, as a flow at its depth.
 */
static inline void
eleph_update(struct rps_flow_table *t, uint32_t pos, uint32_t len, uint64_t now,
	     struct burst_ctrs *bc)
{
	struct eleph *e = &t->eleph[pos];
	const uint64_t el = now > e->start ? now - e->start : 0;

	if (unlikely(el >= t->eleph_win_tsc)) {
		if (el < 2 * t->eleph_win_tsc) {
			e->prev = e->cur;
			e->start += t->eleph_win_tsc;
		} else { /* a window or more without a packet: start over from now */
			e->prev = 0;
			e->start = now;
		}
		e->cur = 0;
		if (e->marked != ELEPH_NO) {
			if (e->prev < t->eleph_bytes / 2)
				eleph_unmark(t, pos); /* the whole last window under half the rate */
			else if (e->marked == ELEPH_MARKED)
				eleph_list_add(t, pos); /* a place may have come free */
		}
	}
	e->cur += len;
	if (likely(e->marked != ELEPH_NO || e->prev + e->cur <= t->eleph_bytes) ||
	    eleph_estimate(t, e, now) <= t->eleph_bytes)
		return;
	e->marked = ELEPH_MARKED;
	eleph_list_add(t, pos);
	if (t->eleph_n++ == 0)
		t->eleph_next = now + t->eleph_win_tsc / 8;
	bc->elephants++;
	if (t->conf.elephant_bypass && t->bypass_from != NULL && t->bypass_from[pos] == 0)
		t->bypass_from[pos] = now + t->bypass_hold_tsc + 2; /* pending, as at the depth */
}

/*
 * --bypass-after: whether the packet of the flow at @p pos (@p f) skips the consumers.
 * bypass_from[pos]: 0, not bypassed; BYPASS_ON, bypassed; else pending, until that time at
 * the latest. A flow that reaches its depth is pending: its packets still go to the
 * consumers, until a burst starts with the consumers holding nothing of this worker's
 * (@p settled: every packet sent them came back, so nothing of the flow can be overtaken)
 * or the pending time ends (a consumer that keeps some packets, its verdict to drop them,
 * never holds nothing). The flow's first packet in such a burst is its first bypassed one.
 */
#define BYPASS_ON 1u

static inline int
bypass_check(struct rps_flow_table *t, uint32_t pos, const struct flow *f, uint64_t now,
	     int settled, struct burst_ctrs *bc)
{
	uint64_t *b = &t->bypass_from[pos];

	if (unlikely(t->bypass_until[pos] != 0) && now >= t->bypass_until[pos]) {
		/* a consumer's request for a while: over (the depth may take it again) */
		*b = t->bypass_until[pos] = 0;
	}
	if (likely(*b == 0)) {
		if (t->conf.bypass_bytes == 0 || flow_bytes(f) < t->conf.bypass_bytes)
			return 0;
		*b = now + t->bypass_hold_tsc + 2; /* pending (never 0 or BYPASS_ON) */
		bc->bypassed++;
		return 0; /* this one reached the depth: it goes to the consumers */
	}
	/* (not in the burst that made it pending: its packets before in this burst went to
	 * the consumers, after the check of what they held) */
	if (*b != BYPASS_ON && ((settled && now != *b - t->bypass_hold_tsc - 2) || now >= *b))
		*b = BYPASS_ON;
	return *b == BYPASS_ON;
}

static inline void
flow_update(struct rps_flow_table *t, uint32_t pos, const struct pkt_info *pi,
	    const struct rte_mbuf *m, uint64_t now, struct burst_ctrs *bc)
{
	struct flow *f = &t->flows[pos];
	const uint8_t d = pi->dir;

	f->packets[d]++;
	if (!(f->seq_bits & IN_TOP) && flow_packets(f) > t->top_min)
		top_join(t, pos);
	f->bytes[d] += rte_pktmbuf_pkt_len(m);
	f->last_seen = now;
	if (pi->tcp_ok) {
		f->dir_flags |= (uint8_t)(dir_flags_of(pi->tcp_flags) << DIR_FLAGS_SHIFT(d));
		tcp_state(f, pi->tcp_flags, d); /* a restart clears seq_bits */
		if (!(pi->tcp_flags & RTE_TCP_RST_FLAG))
			tcp_seq(f, pi, bc);
	}
	f->seq_bits |= DIR_SEEN(pi->dir);
}

uint16_t
rps_stage_flow(struct rps_stage_ctx *c, struct rte_mbuf **pkts, uint16_t n)
{
	struct rps_flow_table *t = c->flows;
	struct burst_ctrs bc = { .created = 0 };
	const uint64_t now = c->now;
	uint16_t out = 0;

	if (t == NULL)
		return n;
	if (c->hz != 0 && c->hz != t->hz)
		set_hz(t, c->hz);
	t->now = now; /* an eviction's time in the log */
	for (uint16_t base = 0; base < n; base += FLOW_CHUNK) {
		const uint16_t cnt = (uint16_t)RTE_MIN((unsigned int)FLOW_CHUNK,
						       (unsigned int)(n - base));
		struct pkt_info info[FLOW_CHUNK];
		const void *keys[FLOW_CHUNK];
		hash_sig_t sigs[FLOW_CHUNK];
		int32_t pos[FLOW_CHUNK];
		uint8_t tracked[FLOW_CHUNK];
		uint32_t nk = 0, j = 0;
		int stale = 0;

		for (uint16_t i = 0; i < cnt; i++) {
			tracked[i] = extract(pkts[base + i], &info[i]) == 0;
			if (tracked[i])
				keys[nk++] = &info[i].key;
		}
		/* four keys per AVX2 register where the CPU has it; otherwise a branch-free loop
		 * of independent hashes: the CPU overlaps consecutive ones */
		if (t->sip_x4)
			flow_siphash_x4(keys, nk, sigs);
		else
			for (uint32_t k = 0; k < nk; k++)
				sigs[k] = flow_sig(t, keys[k]);
		if (nk != 0 && rte_hash_lookup_with_hash_bulk(t->h, keys, sigs, nk, pos) != 0)
			stale = 1; /* cannot happen with valid arguments; look up one by one */
		/* the flows the updates below write: one line each, fetched together */
		for (uint32_t k = 0; !stale && k < nk; k++)
			if (pos[k] >= 0 && (uint32_t)pos[k] < t->conf.size)
				rte_prefetch0(&t->flows[pos[k]]);
		for (uint16_t i = 0; i < cnt; i++) {
			struct rte_mbuf *m = pkts[base + i];

			if (tracked[i]) {
				int32_t p = stale ? rte_hash_lookup_with_hash(t->h, keys[j], sigs[j])
						  : pos[j];

				if (p < 0)
					p = flow_add(t, &info[i], sigs[j], now, &bc, &stale);
				j++;
				if (p < 0) {
					rps_stage_drop(c, m, RPS_DROP_FLOW_TABLE_FULL);
					continue;
				}
				flow_update(t, (uint32_t)p, &info[i], m, now, &bc);
				if (t->eleph != NULL)
					eleph_update(t, (uint32_t)p, rte_pktmbuf_pkt_len(m), now,
						     &bc);
				if (t->bypass_from != NULL &&
				    bypass_check(t, (uint32_t)p, &t->flows[p], now,
						 c->bypass_settled, &bc))
					m->ol_flags |= t->bypass_mask;
			}
			pkts[out++] = m;
		}
	}
	if (bc.created != 0)
		RPS_CTR_ADD(c->st->flows_created, bc.created);
	if (bc.expired != 0)
		RPS_CTR_ADD(c->st->flows_expired, bc.expired);
	if (bc.evicted != 0)
		RPS_CTR_ADD(c->st->flows_evicted, bc.evicted);
	if (bc.bucket_max != 0)
		RPS_CTR_MAX(c->st->flow_bucket_max, bc.bucket_max);
	if (bc.out_of_order != 0)
		RPS_CTR_ADD(c->st->out_of_order, bc.out_of_order);
	if (bc.retransmit != 0)
		RPS_CTR_ADD(c->st->retransmit, bc.retransmit);
	if (bc.bypassed != 0)
		RPS_CTR_ADD(c->st->flows_bypassed, bc.bypassed);
	if (t->eleph != NULL) {
		if (bc.elephants != 0)
			RPS_CTR_ADD(c->st->flows_elephant, bc.elephants);
		publish_elephants(c, t);
	}
	if (bc.created != 0 || bc.expired != 0 || bc.evicted != 0)
		publish_active(c, t);
	return out;
}

/* ---- reading the table (owner lcore, or after it stopped) ---- */

static void
summarize(const struct rps_flow_table *t, uint32_t pos, struct rps_flow_summary *s)
{
	const struct flow *f = &t->flows[pos];
	const uint8_t a = !!(f->seq_bits & FIRST_DIR1), b = !a;
	struct flow_key k;
	void *kp;

	memset(s, 0, sizeof(*s));
	memset(&k, 0, sizeof(k));
	if (rte_hash_get_key_with_position(t->h, (int32_t)pos, &kp) == 0)
		memcpy(&k, kp, sizeof(k));
	s->family = k.family;
	s->proto = k.proto;
	s->sport = rte_be_to_cpu_16(k.port[a]);
	s->dport = rte_be_to_cpu_16(k.port[b]);
	memcpy(s->src, k.addr[a], sizeof(s->src));
	memcpy(s->dst, k.addr[b], sizeof(s->dst));
	s->packets = flow_packets(f);
	s->bytes = flow_bytes(f);
	for (unsigned int i = 0; i < RPS_FLOW_DIRS; i++) {
		const uint8_t d = i == RPS_FLOW_ORIG ? a : b;

		s->dir[i].packets = f->packets[d];
		s->dir[i].bytes = f->bytes[d];
		s->dir[i].flags = (uint8_t)((f->dir_flags >> DIR_FLAGS_SHIFT(d)) & 0xf);
	}
	s->first_seen = t->first_seen[pos];
	s->last_seen = f->last_seen;
	s->state = (enum rps_flow_state)f->state;
	s->out_of_order = f->out_of_order;
	s->retransmit = f->retransmit;
	s->bypassed = t->bypass_from != NULL && t->bypass_from[pos] != 0;
	if (t->eleph != NULL) {
		s->elephant = t->eleph[pos].marked != ELEPH_NO;
		s->rate_bps = eleph_bps(t, eleph_estimate(t, &t->eleph[pos], t->now));
	}
}

int
rps_flow_table_lookup(const struct rps_flow_table *t, const struct rte_mbuf *m,
		      struct rps_flow_summary *out)
{
	struct pkt_info pi;
	int32_t pos;

	if (t == NULL || extract(m, &pi) < 0)
		return -EINVAL;
	pos = rte_hash_lookup_with_hash(t->h, &pi.key, flow_sig(t, &pi.key));
	if (pos < 0 || !t->flows[pos].in_use)
		return -ENOENT;
	summarize(t, (uint32_t)pos, out);
	return 0;
}

/* The position of tuple @p q's flow (either direction) in @p t: -ENOENT when it is not
 * there, -EINVAL for a family other than 4 and 6. */
static int32_t
tuple_pos(const struct rps_flow_table *t, const struct rps_flow_tuple *q)
{
	const size_t alen = q->family == 4 ? 4 : 16;
	struct flow_key k;
	int32_t pos;

	if (q->family != 4 && q->family != 6)
		return -EINVAL;
	memset(&k, 0, sizeof(k));
	k.family = q->family;
	k.proto = q->proto;
	/* as extract() makes it: ports only for a protocol that has them */
	(void)key_set_endpoints(&k, q->src, q->dst, alen,
				proto_has_ports(q->proto) ? rte_cpu_to_be_16(q->sport) : 0,
				proto_has_ports(q->proto) ? rte_cpu_to_be_16(q->dport) : 0);
	pos = rte_hash_lookup_with_hash(t->h, &k, flow_sig(t, &k));
	if (pos < 0 || (uint32_t)pos >= t->conf.size || !t->flows[pos].in_use)
		return -ENOENT;
	return pos;
}

int
rps_flow_table_lookup_tuple(const struct rps_flow_table *t, const struct rps_flow_tuple *q,
			    struct rps_flow_summary *out)
{
	int32_t pos;

	if (t == NULL)
		return -EINVAL;
	pos = tuple_pos(t, q);
	if (pos < 0)
		return pos;
	summarize(t, (uint32_t)pos, out);
	return 0;
}

int
rps_flow_table_bypass_tuple(struct rps_flow_table *t, const struct rps_flow_tuple *q,
			    uint64_t now, uint64_t until)
{
	int32_t pos;

	if (t == NULL || t->bypass_from == NULL)
		return -ENOTSUP;
	pos = tuple_pos(t, q);
	if (pos < 0)
		return pos;
	if (t->bypass_from[pos] == 0)
		t->bypass_from[pos] = now + t->bypass_hold_tsc + 2; /* pending, as at the depth */
	t->bypass_until[pos] = until;
	return 0;
}

uint32_t
rps_flow_table_elephant_count(const struct rps_flow_table *t)
{
	return t != NULL ? t->eleph_n : 0;
}

int
rps_flow_table_elephants(const struct rps_flow_table *t, uint64_t now,
			 struct rps_flow_summary *out, unsigned int n)
{
	unsigned int have = 0;

	if (t == NULL || t->eleph == NULL || out == NULL || n == 0)
		return 0;
	n = RTE_MIN(n, (unsigned int)RPS_FLOW_ELEPHANTS);
	/* at most 16: insertion into out by rate, the lightest falling off the end */
	for (uint32_t i = 0; i < t->eleph_listed; i++) {
		struct rps_flow_summary s;
		unsigned int at;

		summarize(t, t->eleph_list[i], &s);
		s.rate_bps = eleph_bps(t, eleph_estimate(t, &t->eleph[t->eleph_list[i]], now));
		if (have < n)
			have++;
		else if (s.rate_bps <= out[have - 1].rate_bps)
			continue;
		for (at = have - 1; at > 0 && out[at - 1].rate_bps < s.rate_bps; at--)
			out[at] = out[at - 1];
		out[at] = s;
	}
	return (int)have;
}

int
rps_flow_table_top(const struct rps_flow_table *t, struct rps_flow_summary *out,
		   unsigned int n)
{
	uint32_t best[FLOW_TOP];
	unsigned int have = 0;

	if (t == NULL || out == NULL || n == 0)
		return 0;
	if (n > RTE_DIM(best))
		n = RTE_DIM(best);
	/* sort the top set (at most 64 flows), not the table */
	for (uint32_t i = 0; i < t->top_n; i++) {
		const uint32_t pos = t->top[i];
		unsigned int at = have++;

		while (at > 0 && ranks_before(&t->flows[pos], &t->flows[best[at - 1]])) {
			best[at] = best[at - 1];
			at--;
		}
		best[at] = pos;
	}
	if (have > n)
		have = n;
	for (unsigned int i = 0; i < have; i++)
		summarize(t, best[i], &out[i]);
	return (int)have;
}

/* One flow as JSON (rps_flow_table_dump_json()), @p extra (", \"removed_ms\": N" or "")
 * before its closing brace. */
static void
json_flow(FILE *f, const struct rps_flow_summary *s, unsigned int lcore, uint64_t hz,
	  const char *sep, const char *extra)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	char of[RPS_FLOW_FLAGS_LEN], rf[RPS_FLOW_FLAGS_LEN];

	if (inet_ntop(s->family == 4 ? AF_INET : AF_INET6, s->src, src, sizeof(src)) == NULL)
		snprintf(src, sizeof(src), "?");
	if (inet_ntop(s->family == 4 ? AF_INET : AF_INET6, s->dst, dst, sizeof(dst)) == NULL)
		snprintf(dst, sizeof(dst), "?");
	fprintf(f, "%s{\"lcore\": %u, \"family\": %u, \"proto\": %u, \"src\": \"%s\", "
		"\"dst\": \"%s\", \"sport\": %u, \"dport\": %u, \"packets\": %" PRIu64
		", \"bytes\": %" PRIu64 ", \"orig\": {\"packets\": %" PRIu64
		", \"bytes\": %" PRIu64 ", \"flags\": \"%s\"}, \"reply\": {\"packets\": %" PRIu64
		", \"bytes\": %" PRIu64 ", \"flags\": \"%s\"}, \"state\": \"%s\""
		", \"out_of_order\": %" PRIu64
		", \"retransmit\": %" PRIu64 ", \"bypassed\": %s, \"elephant\": %s"
		", \"rate_bps\": %" PRIu64 ", \"first_seen_ms\": %" PRIu64
		", \"last_seen_ms\": %" PRIu64 "%s}",
		sep, lcore, s->family, s->proto, src, dst,
		s->sport, s->dport, s->packets, s->bytes, s->dir[RPS_FLOW_ORIG].packets,
		s->dir[RPS_FLOW_ORIG].bytes,
		rps_flow_flags_format(s->dir[RPS_FLOW_ORIG].flags, of, sizeof(of)),
		s->dir[RPS_FLOW_REPLY].packets, s->dir[RPS_FLOW_REPLY].bytes,
		rps_flow_flags_format(s->dir[RPS_FLOW_REPLY].flags, rf, sizeof(rf)),
		rps_flow_state_name(s->state),
		s->out_of_order, s->retransmit, s->bypassed ? "true" : "false",
		s->elephant ? "true" : "false", s->rate_bps,
		tsc_to_ms(s->first_seen, hz),
		tsc_to_ms(s->last_seen, hz), extra);
}

int
rps_flow_table_dump_json(const struct rps_flow_table *t, FILE *f, unsigned int lcore,
			 int need_comma)
{
	int written = 0;

	if (t == NULL || f == NULL)
		return 0;
	for (uint32_t i = 0; i < t->conf.size; i++) {
		struct rps_flow_summary s;

		if (!t->flows[i].in_use)
			continue;
		summarize(t, i, &s);
		json_flow(f, &s, lcore, t->hz, (written > 0 || need_comma) ? ",\n" : "", "");
		written++;
	}
	return written;
}

int
rps_flow_table_dump_removed_json(const struct rps_flow_table *t, FILE *f, unsigned int lcore,
				 int need_comma, uint64_t *lost)
{
	uint64_t first;
	int written = 0;

	if (lost != NULL)
		*lost = 0;
	if (t == NULL || f == NULL || t->log == NULL)
		return 0;
	first = t->log_n > t->conf.log_size ? t->log_n - t->conf.log_size : 0;
	if (lost != NULL)
		*lost = first;
	for (uint64_t i = first; i < t->log_n; i++) {
		const uint64_t at = i % t->conf.log_size;
		char extra[48];

		snprintf(extra, sizeof(extra), ", \"removed_ms\": %" PRIu64,
			 tsc_to_ms(t->log_when[at], t->hz));
		json_flow(f, &t->log[at], lcore, t->hz, (written > 0 || need_comma) ? ",\n" : "",
			  extra);
		written++;
	}
	return written;
}
