/* SPDX-License-Identifier: BSD-3-Clause */
/* reassemble.c: the reassemble stage: IPv4/IPv6 fragments through a per-worker rte_ip_frag table. */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>
#include <rte_malloc.h>
#include <rte_mbuf_ptype.h>

#include "rps_l4.h"
#include "rps_reasm.h"
#include "rps_stage.h"

/*
 * How the fragments are counted exactly.
 *
 * rte_ip_frag hands back what it gives up on through the death row, one row entry per mbuf
 * chain; but when it fails half-way through chaining a datagram (a hole found after some
 * fragments were linked), one entry holds several fragments. So the row length is not the
 * number of fragments. Instead every fragment we give the table is marked: its first segment
 * has l3_len != 0 (the library needs l3_len there anyway) and we zero l3_len in its other
 * segments. rte_ip_frag chains whole fragments and never touches l3_len, so the fragments in
 * any chain it returns, completed or given up, are the segments with l3_len != 0.
 *
 * Timeout or error: rte_ip_frag also frees stale entries it meets while looking up a key,
 * and those are timeouts. Before the first table call of a burst we sweep every entry that
 * would be stale at any timestamp the burst will use (see below), so nothing a lookup meets
 * is stale: whatever lands on the death row during a table call is an error.
 *
 * Timestamps: every fragment is given to the table with its own timestamp, strictly above
 * the previous one (max(c->now, last + 1), then + 1 per fragment of the burst), so each
 * datagram's start time (that of its first fragment) is unique. Timeouts come at most a
 * burst's worth of cycles early, which no timeout in milliseconds can tell.
 *
 * The budget (like Linux's ipfrag_high_thresh): rte_ip_frag bounds datagrams (max_entries)
 * but not mbufs, and refuses a new datagram when its table is full. So we count what we hold
 * and, before a fragment would take more than @c max_mbufs mbufs or @c max_frags fragments,
 * evict the oldest datagrams, just enough for it (no low threshold: eviction costs O(1) per
 * datagram, so nothing is gained by freeing more than needed). Keeping fragments below
 * max_frags (the table's max_entries) also means a free entry always exists, since every
 * datagram in progress holds at least one fragment: a new datagram is never refused because
 * old ones fill the table, the oldest goes instead.
 * Which datagram is the oldest: rte_ip_frag's LRU list is ordered by start time (an entry is
 * appended when created, and never moved), and rte_ip_frag_table_del_expired_entries(tms)
 * frees entries from its head while start + max_cycles < tms. Its table is opaque, so we keep
 * a ring of the timestamps we gave (the last ring_mask + 1 of them): a datagram's start is
 * one of them. Evicting "up to t" (calling it with tms = t + max_cycles + 1) frees every
 * datagram that started at or before t, oldest first. Popping t from the ring's oldest end
 * frees at most the one datagram that started at t, if it is still held (those that
 * started before were freed by earlier pops, or are older than the whole ring, which can
 * only make the first pop free them too: still oldest first). Each timestamp is pushed and
 * popped once, so eviction is O(1) amortized per fragment. Evicted fragments are dropped as
 * frag_evicted.
 */

/* Entries per hash bucket (rte_ip_frag: a power of two; each key has two buckets). */
#define REASM_BUCKET_ENTRIES 16
/* Most segments a fragment may have: chaining 8 of them must not overflow nb_segs. */
#define REASM_MAX_SEGS (UINT16_MAX / (RTE_LIBRTE_IP_FRAG_MAX_FRAG + 1))
/* Largest timeout accepted (ms), as the app's --frag-timeout. */
#define REASM_MAX_TIMEOUT_MS 600000u
/* Death row entries prefetched while freeing. */
#define REASM_DR_PREFETCH 3

#define IP6_HDR_LEN ((uint32_t)sizeof(struct rte_ipv6_hdr))
#define IP6_FRAG_LEN ((uint32_t)sizeof(struct rte_ipv6_fragment_ext))
#define REASM_MAX_IP_LEN 65535u

/* Longest IPv6 unfragmentable part (extension headers before the fragment header) we
 * reassemble: l3_len is a 9-bit field and must hold 40 + this + 8. */
#define REASM_MAX_V6_UNFRAG 456u

struct rps_reasm {
	struct rte_ip_frag_tbl *tbl;
	uint64_t held;                  /* fragments in the table now */
	uint64_t held_mbufs;            /* their segments */
	uint64_t max_frags;             /* held stays below this: the table's max_entries */
	uint64_t max_mbufs;             /* held_mbufs stays at or below this: the budget */
	uint64_t max_cycles;            /* the table's timeout */
	uint64_t last_tms;              /* timestamp of the last fragment given to the table */
	uint64_t *ring;                 /* timestamps given to the table, oldest at tail */
	uint32_t ring_mask, ring_head, ring_tail;
	int check_l4;                   /* validate the completed datagram (validate stage runs) */
	struct rps_lcore_stats scratch; /* counters for re-parsing a completed datagram */
	struct rte_ip_frag_death_row dr;
};

uint64_t
rps_reasm_held(const struct rps_reasm *r)
{
	return r != NULL ? r->held : 0;
}

uint64_t
rps_reasm_held_mbufs(const struct rps_reasm *r)
{
	return r != NULL ? r->held_mbufs : 0;
}

uint32_t
rps_reasm_budget(const struct rps_reasm *r)
{
	return r != NULL ? (uint32_t)r->max_mbufs : 0;
}

int
rps_reasm_set_budget(struct rps_reasm *r, uint32_t max_mbufs)
{
	if (r == NULL || max_mbufs < RPS_REASM_MIN_BUDGET)
		return -EINVAL;
	r->max_mbufs = max_mbufs;
	return 0;
}

void
rps_reasm_set_check_l4(struct rps_reasm *r, int on)
{
	if (r != NULL)
		r->check_l4 = on != 0;
}

/* classify(): not a fragment (pass), or a fragment ready for the table. Values >= 0 are drop
 * reasons; only RPS_DROP_FRAG_ERROR counts as a fragment given to reassembly (frags_in). */
#define PASS (-1)
#define FRAG (-2)

struct frag_hdrs {
	void *ip;                             /* IPv4 header in the first segment, or &ip6 */
	struct rte_ipv6_fragment_ext *fh;     /* IPv6 fragment header, or NULL for IPv4 */
	uint16_t l3_len;
	/* IPv6: a copy of the header whose payload_len leaves out the unfragmentable part, as
	 * rte_ipv6_frag_reassemble_packet() expects (it subtracts only the fragment header) */
	struct rte_ipv6_hdr ip6;
	uint16_t stash;                       /* IPv6 first fragment with extension headers */
};

/* Fragments in a chain returned by rte_ip_frag (see the marking above), and the chain's
 * segments in @p segs; clears the marks of all but the first segment when @p clear. */
static inline uint32_t
count_frags(struct rte_mbuf *m, int clear, uint32_t *segs)
{
	uint32_t n = 1, sg = 1;

	for (struct rte_mbuf *s = m->next; s != NULL; s = s->next) {
		sg++;
		if (s->l3_len != 0) {
			n++;
			if (clear)
				s->l3_len = 0;
		}
	}
	*segs = sg;
	return n;
}

/* Count the fragments on the death row, each for its ingress port under @p why in @p st
 * (the caller adds the total to st->dropped[why]), free it, and return the count. */
static uint64_t
dr_flush(struct rps_reasm *r, struct rps_lcore_stats *st, enum rps_drop_reason why)
{
	uint64_t n = 0, segs = 0;

	for (uint32_t i = 0; i < r->dr.cnt; i++) {
		uint32_t sg, k = count_frags(r->dr.row[i], 0, &sg);

		RPS_CTR_ADD(rps_stats_port(st, r->dr.row[i]->port)->dropped[why], k);
		n += k;
		segs += sg;
	}
	rte_ip_frag_free_death_row(&r->dr, REASM_DR_PREFETCH);
	r->held -= n;
	r->held_mbufs -= segs;
	return n;
}

/* Move every entry that is stale at @p tms to the death row (as often as it takes, the row
 * being bounded) and free it, counted by port under @p why. Returns the fragments freed. */
static uint64_t
sweep(struct rps_reasm *r, uint64_t tms, struct rps_lcore_stats *st, enum rps_drop_reason why)
{
	uint64_t n = 0;

	/* the death row is always empty here: every table call is followed by dr_flush() */
	for (;;) {
		rte_ip_frag_table_del_expired_entries(r->tbl, &r->dr, tms);
		if (r->dr.cnt == 0)
			return n;
		n += dr_flush(r, st, why);
	}
}

/* Whether a fragment of @p segs mbufs must wait for evictions before it may be held. */
static inline int
over_budget(const struct rps_reasm *r, uint32_t segs)
{
	return r->held >= r->max_frags || r->held_mbufs + segs > r->max_mbufs;
}

/* Evict the oldest datagrams until a fragment of @p segs mbufs fits (see the top of the
 * file). Returns the fragments freed. */
static uint64_t
evict(struct rps_reasm *r, uint32_t segs, struct rps_lcore_stats *st)
{
	uint64_t n = 0;

	while (r->held != 0 && over_budget(r, segs)) {
		uint64_t t = UINT64_MAX - r->max_cycles - 1; /* empty ring: everything */

		if (r->ring_tail != r->ring_head)
			t = r->ring[r->ring_tail++ & r->ring_mask];
		n += sweep(r, t + r->max_cycles + 1, st, RPS_DROP_FRAG_EVICTED);
	}
	return n;
}

/* Remember @p tms as a datagram's possible start, forgetting the oldest when full. */
static inline void
ring_push(struct rps_reasm *r, uint64_t tms)
{
	r->ring[r->ring_head++ & r->ring_mask] = tms;
	if (r->ring_head - r->ring_tail > r->ring_mask + 1)
		r->ring_tail = r->ring_head - (r->ring_mask + 1);
}

/* Cut the packet to @p len bytes (< pkt_len), freeing the segments wholly past it. */
static void
trim_to(struct rte_mbuf *m, uint32_t len)
{
	struct rte_mbuf *s = m;
	uint32_t left = len;
	uint16_t segs = 1;

	while (left > s->data_len) {
		left -= s->data_len;
		s = s->next;
		segs++;
	}
	s->data_len = (uint16_t)left;
	if (s->next != NULL) {
		rte_pktmbuf_free(s->next);
		s->next = NULL;
		m->nb_segs = segs;
	}
	m->pkt_len = len;
}

/* The checks common to IPv4 and IPv6 once the packet is known to be a fragment; @p hdr_len
 * is l2 + l3 (what must be in the first segment), @p end where the IP datagram ends. */
static inline int
check_frag(struct rte_mbuf *m, uint32_t hdr_len, uint32_t end, uint32_t payload, uint32_t ofs,
	   int more, uint32_t max_end)
{
	if (payload == 0 || (more && (payload & 7) != 0) || ofs + payload > max_end)
		return RPS_DROP_FRAG_ERROR;
	if (hdr_len > m->data_len || m->nb_segs > REASM_MAX_SEGS)
		return RPS_DROP_FRAG_ERROR;
	if (rte_pktmbuf_pkt_len(m) > end)
		trim_to(m, end); /* Ethernet padding: rte_ip_frag trims only the last segment */
	return FRAG;
}

static inline int
classify_ipv4(struct rte_mbuf *m, struct frag_hdrs *f)
{
	const uint32_t l2 = m->l2_len, len = rte_pktmbuf_pkt_len(m);
	struct rte_ipv4_hdr buf;
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_read(m, l2, sizeof(buf), &buf);
	uint32_t ihl, tot;
	uint16_t fo;

	if (ip == NULL || (ip->version_ihl >> 4) != 4)
		return PASS; /* not what parse promised: not ours to judge */
	fo = rte_be_to_cpu_16(ip->fragment_offset);
	if ((fo & (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) == 0)
		return PASS;
	ihl = rte_ipv4_hdr_len(ip);
	if (ihl < sizeof(buf))
		return RPS_DROP_BAD_IHL;
	tot = rte_be_to_cpu_16(ip->total_length);
	if (tot < ihl || tot > len - l2)
		return RPS_DROP_BAD_LENGTH;
	f->ip = rte_pktmbuf_mtod_offset(m, void *, l2);
	f->fh = NULL;
	f->l3_len = (uint16_t)ihl;
	/* The datagram's header may be longer than this fragment's: finish() checks again. */
	return check_frag(m, l2 + ihl, l2 + tot, tot - ihl,
			  (uint32_t)(fo & RTE_IPV4_HDR_OFFSET_MASK) * RTE_IPV4_HDR_OFFSET_UNITS,
			  (fo & RTE_IPV4_HDR_MF_FLAG) != 0, REASM_MAX_IP_LEN - sizeof(buf));
}

/*
 * IPv6: the fragment header may follow hop-by-hop, routing and destination-options headers
 * (the unfragmentable part, RFC 8200 4.5); rte_ipv6_frag_get_ipv6_fragment_header() looks
 * only right after the fixed header, so walk the chain (at most RPS_PARSE_MAX_V6EXT headers,
 * all in the first segment). rte_ip_frag handles such a fragment as long as l3_len covers
 * the whole header chain up to and including the fragment header, and the header it is
 * given has a payload_len without the unfragmentable part: later fragments lose their
 * l2_len + l3_len when chained, and the first fragment's headers are moved over its fragment
 * header. It then writes the first extension header's next-header into the IPv6 header and
 * leaves the last one pointing at a fragment header that is gone, with the payload length of
 * the fragmentable part: the first fragment's IPv6 next-header and fragment next-header are
 * kept in its tso_segsz (nothing reads it on receive) and fix_ipv6() puts them back.
 * A fragment header after an AH or unknown header is refused (frag_error).
 */
static inline int
classify_ipv6(struct rte_mbuf *m, struct frag_hdrs *f)
{
	const uint32_t l2 = m->l2_len, len = rte_pktmbuf_pkt_len(m);
	struct rte_ipv6_hdr buf;
	const struct rte_ipv6_hdr *ip = rte_pktmbuf_read(m, l2, sizeof(buf), &buf);
	struct rte_ipv6_fragment_ext fbuf;
	const struct rte_ipv6_fragment_ext *fh;
	uint32_t off, plen, unfrag, ofs;
	uint16_t fd;
	uint8_t nh;
	int i, ah = 0;

	if (ip == NULL || (rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6)
		return PASS;
	nh = ip->proto;
	off = l2 + IP6_HDR_LEN;
	for (i = 0; nh != RPS_IP6_FRAGMENT; i++) {
		uint8_t eb[2];
		const uint8_t *e;

		if (i == RPS_PARSE_MAX_V6EXT ||
		    (nh != RPS_IP6_HOPOPTS && nh != RPS_IP6_ROUTING && nh != RPS_IP6_DSTOPTS &&
		     nh != RPS_IP6_AH))
			return PASS;
		e = rte_pktmbuf_read(m, off, sizeof(eb), eb);
		if (e == NULL)
			return PASS; /* not a fragment we can see: parse/validate judged it */
		ah |= nh == RPS_IP6_AH;
		off += rps_ip6_ext_len(nh, e);
		nh = e[0];
	}
	fh = rte_pktmbuf_read(m, off, sizeof(fbuf), &fbuf);
	if (fh == NULL)
		return RPS_DROP_TRUNCATED;
	fd = rte_be_to_cpu_16(fh->frag_data);
	if ((fd & RTE_IPV6_FRAG_USED_MASK) == 0)
		return PASS; /* atomic fragment (RFC 6946): a whole packet */
	if (ah)
		return RPS_DROP_FRAG_ERROR;
	unfrag = off - l2 - IP6_HDR_LEN;
	plen = rte_be_to_cpu_16(ip->payload_len);
	if (plen < unfrag + IP6_FRAG_LEN || plen > len - l2 - IP6_HDR_LEN)
		return RPS_DROP_BAD_LENGTH;
	if (unfrag > REASM_MAX_V6_UNFRAG)
		return RPS_DROP_FRAG_ERROR;
	ofs = fd & RTE_IPV6_EHDR_FO_MASK;
	memcpy(&f->ip6, ip, sizeof(f->ip6));
	f->ip6.payload_len = rte_cpu_to_be_16((uint16_t)(plen - unfrag));
	f->ip = &f->ip6;
	f->fh = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_fragment_ext *, off);
	f->l3_len = (uint16_t)(IP6_HDR_LEN + unfrag + IP6_FRAG_LEN);
	f->stash = 0;
	if (unfrag != 0 && ofs == 0)
		f->stash = (uint16_t)(ip->proto << 8 | fh->next_header);
	return check_frag(m, l2 + f->l3_len, l2 + IP6_HDR_LEN + plen,
			  plen - unfrag - IP6_FRAG_LEN, ofs, (fd & RTE_IPV6_EHDR_MF_MASK) != 0,
			  REASM_MAX_IP_LEN - unfrag);
}

/*
 * PASS, FRAG (with @p f filled in) or a drop reason.
 * A packet parse typed TCP, UDP, ICMP or other (not RTE_PTYPE_L4_FRAG, not 0) passes unread:
 * parse read the same fields (IPv4 MF and offset; IPv6: the chain of hop-by-hop, routing,
 * destination-options and AH headers up to the first fragment header, at most
 * RPS_PARSE_MAX_V6EXT) and typed the packet a fragment if either says so, so such a packet
 * is one classify_ipv4/6() pass too. The header is read for L4_FRAG and for an IP packet
 * with no L4 type (not typed by parse).
 */
static inline int
classify(struct rte_mbuf *m, struct frag_hdrs *f)
{
	const uint32_t pt = m->packet_type;
	const uint32_t l4 = pt & RTE_PTYPE_L4_MASK;

	if (likely(l4 != 0 && l4 != RTE_PTYPE_L4_FRAG))
		return PASS;
	if (RTE_ETH_IS_IPV4_HDR(pt))
		return classify_ipv4(m, f);
	if (RTE_ETH_IS_IPV6_HDR(pt))
		return classify_ipv6(m, f);
	return PASS;
}

/*
 * Undo what rte_ip_frag does to an IPv6 datagram whose first fragment had extension headers
 * before its fragment header (see classify_ipv6()): the IPv6 next-header back to the first
 * extension header, the last extension header's next-header to the fragment header's, the
 * payload length to all that follows the IPv6 header. @return 0, or -1 when the datagram
 * is over 65535 bytes of payload.
 */
static int
fix_ipv6(struct rte_mbuf *m)
{
	const uint32_t l2 = m->l2_len, unfrag = m->l3_len - IP6_HDR_LEN - IP6_FRAG_LEN;
	struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, l2);
	uint32_t plen = rte_pktmbuf_pkt_len(m) - l2 - IP6_HDR_LEN;
	uint8_t *e = (uint8_t *)(ip + 1), *end = e + unfrag;
	uint16_t stash = m->tso_segsz;

	m->tso_segsz = 0;
	if (plen > REASM_MAX_IP_LEN)
		return -1;
	ip->payload_len = rte_cpu_to_be_16((uint16_t)plen);
	ip->proto = (uint8_t)(stash >> 8);
	/* the headers were checked when the fragment came in and have not moved since (they
	 * are in the first segment, which rte_ip_frag only shifts by the fragment header) */
	for (;;) {
		uint8_t *next = e + ((uint32_t)e[1] + 1) * 8;

		if (next >= end) {
			e[0] = (uint8_t)stash;
			return 0;
		}
		e = next;
	}
}

/* Move the drops (and software checksums) counted on scratch counters to @p st; the drops
 * were of one datagram, which came in on port @p port. */
static void
carry_scratch(struct rps_reasm *r, struct rps_lcore_stats *st, uint16_t port)
{
	for (int i = 0; i < RPS_DROP_MAX; i++) {
		if (r->scratch.dropped[i] != 0) {
			RPS_CTR_ADD(st->dropped[i], r->scratch.dropped[i]);
			RPS_CTR_ADD(rps_stats_port(st, port)->dropped[i], r->scratch.dropped[i]);
			r->scratch.dropped[i] = 0;
			/* and the scratch's own count by port (its slot 0), never read */
			r->scratch.port[0].dropped[i] = 0;
		}
	}
	if (r->scratch.cksum_sw != 0) {
		RPS_CTR_ADD(st->cksum_sw, r->scratch.cksum_sw);
		r->scratch.cksum_sw = 0;
	}
}

/*
 * A datagram rte_ip_frag completed: count it, make its headers right, re-parse it and, when
 * the validate stage runs, validate it (its TCP/UDP checksum covers the whole datagram, so
 * no fragment's could be checked).
 * @return 1 to pass it on, 0 when it was dropped (counted).
 */
static int
finish(struct rps_stage_ctx *c, struct rps_reasm *r, struct rte_mbuf *m, int v6,
       uint64_t *absorbed, uint64_t *reassembled, uint64_t *errors)
{
	struct rps_stage_ctx pc = *c;
	struct rps_port_stats *in = rps_stats_port(c->st, m->port);
	const uint16_t port = m->port;
	uint32_t segs, k = count_frags(m, 1, &segs);
	uint16_t kept;
	int too_big;

	r->held -= k;
	r->held_mbufs -= segs;
	/* an IPv4 first fragment with options (or an IPv6 one with extension headers) can push
	 * the datagram past 65535 bytes */
	if (v6)
		too_big = m->l3_len > IP6_HDR_LEN + IP6_FRAG_LEN && fix_ipv6(m) < 0;
	else
		too_big = rte_pktmbuf_pkt_len(m) - m->l2_len > REASM_MAX_IP_LEN;
	if (too_big) {
		RPS_CTR_ADD(in->dropped[RPS_DROP_FRAG_ERROR], k);
		rte_pktmbuf_free(m);
		*errors += k;
		return 0;
	}
	*absorbed += k - 1;
	RPS_CTR_ADD(in->processed, k - 1);
	*reassembled += 1;
	m->ol_flags &= ~(RTE_MBUF_F_RX_L4_CKSUM_MASK | RTE_MBUF_F_TX_IP_CKSUM);
	if (!v6) {
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
								  m->l2_len);

		ip->hdr_checksum = 0; /* rte_ip_frag leaves it 0 */
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		m->ol_flags = (m->ol_flags & ~RTE_MBUF_F_RX_IP_CKSUM_MASK) |
			      RTE_MBUF_F_RX_IP_CKSUM_GOOD;
	}
	/* Re-parse (and validate) for the next stages, on scratch counters: the datagram is not
	 * a packet the parse stage saw (pkts_* stay per received packet); only a drop, and the
	 * software checksum of the whole datagram, are carried over. */
	pc.st = &r->scratch;
	kept = rps_stage_parse(&pc, &m, 1);
	if (kept != 0 && r->check_l4)
		kept = rps_stage_validate(&pc, &m, 1);
	carry_scratch(r, c->st, port);
	return kept;
}

uint16_t
rps_stage_reassemble(struct rps_stage_ctx *c, struct rte_mbuf **pkts, uint16_t n)
{
	struct rps_reasm *r = c->reasm;
	uint64_t in = 0, errors = 0, timeouts = 0, evicted = 0, absorbed = 0, reassembled = 0;
	uint64_t tms = 0;
	uint16_t kept = 0;
	int swept = 0;

	if (r == NULL)
		return n;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i], *out;
		struct frag_hdrs f;
		int rc = classify(m, &f);

		if (likely(rc == PASS)) {
			pkts[kept++] = m;
			continue;
		}
		if (rc != FRAG) {
			in += rc == RPS_DROP_FRAG_ERROR;
			rps_stage_drop(c, m, (enum rps_drop_reason)rc);
			continue;
		}
		in++;
		if (m->nb_segs > r->max_mbufs) {
			/* could not be held even in an empty table */
			rps_stage_drop(c, m, RPS_DROP_FRAG_ERROR);
			continue;
		}
		if (!swept) {
			/* this burst's timestamps are tms + 1 .. tms + n (see the top of the file) */
			tms = RTE_MAX(c->now, r->last_tms + 1) - 1;
			timeouts += sweep(r, tms + n + 1, c->st, RPS_DROP_FRAG_TIMEOUT);
			swept = 1;
		}
		if (unlikely(over_budget(r, m->nb_segs)))
			evicted += evict(r, m->nb_segs, c->st);
		/* mark the fragment (see the top of the file) */
		m->l3_len = f.l3_len;
		for (struct rte_mbuf *s = m->next; s != NULL; s = s->next)
			s->l3_len = 0;
		r->held++;
		r->held_mbufs += m->nb_segs;
		r->last_tms = ++tms;
		ring_push(r, tms);
		if (f.fh == NULL) {
			out = rte_ipv4_frag_reassemble_packet(r->tbl, &r->dr, m, tms, f.ip);
		} else {
			m->tso_segsz = f.stash; /* read back by fix_ipv6() if m is the head */
			out = rte_ipv6_frag_reassemble_packet(r->tbl, &r->dr, m, tms, f.ip, f.fh);
		}
		if (r->dr.cnt != 0)
			errors += dr_flush(r, c->st, RPS_DROP_FRAG_ERROR);
		if (out != NULL && finish(c, r, out, f.fh != NULL, &absorbed, &reassembled, &errors))
			pkts[kept++] = out;
	}
	if (in != 0) {
		struct rps_lcore_stats *st = c->st;

		RPS_CTR_ADD(st->frags_in, in);
		RPS_CTR_ADD(st->frags_reassembled, reassembled);
		RPS_CTR_ADD(st->frags_absorbed, absorbed);
		RPS_CTR_ADD(st->processed, absorbed);
		RPS_CTR_ADD(st->dropped[RPS_DROP_FRAG_TIMEOUT], timeouts);
		RPS_CTR_ADD(st->dropped[RPS_DROP_FRAG_EVICTED], evicted);
		RPS_CTR_ADD(st->dropped[RPS_DROP_FRAG_ERROR], errors);
	}
	return kept;
}

struct rps_reasm *
rps_reasm_create(uint32_t max_datagrams, uint32_t timeout_ms, int socket)
{
	uint64_t hz = rte_get_tsc_hz();
	uint64_t per_ms = (hz + 999) / 1000;
	uint32_t buckets;
	struct rps_reasm *r;

	if (max_datagrams == 0 || max_datagrams > (UINT32_C(1) << 30) || timeout_ms == 0 ||
	    timeout_ms > REASM_MAX_TIMEOUT_MS || hz == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	r = rte_zmalloc_socket("rps_reasm", sizeof(*r), RTE_CACHE_LINE_SIZE, socket);
	if (r == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	/* the ring needs no more timestamps than fragments may be held (below max_frags) */
	r->ring_mask = rte_align32pow2(max_datagrams) - 1;
	r->ring = rte_malloc_socket("rps_reasm_ring", ((size_t)r->ring_mask + 1) * sizeof(uint64_t),
				    RTE_CACHE_LINE_SIZE, socket);
	if (r->ring == NULL) {
		rte_free(r);
		rte_errno = ENOMEM;
		return NULL;
	}
	r->max_frags = max_datagrams;
	r->max_mbufs = RTE_MAX(max_datagrams, RPS_REASM_MIN_BUDGET);
	r->max_cycles = per_ms * timeout_ms;
	/* 2 * align32pow2(buckets) * 16 slots >= 2 * max_datagrams: at most half full, and each
	 * key has 32 candidate slots, so a full bucket pair is vanishingly rare. */
	buckets = (max_datagrams + REASM_BUCKET_ENTRIES - 1) / REASM_BUCKET_ENTRIES;
	r->tbl = rte_ip_frag_table_create(buckets, REASM_BUCKET_ENTRIES, max_datagrams,
					  r->max_cycles, socket);
	if (r->tbl == NULL) {
		rte_free(r->ring);
		rte_free(r);
		rte_errno = ENOMEM;
		return NULL;
	}
	return r;
}

void
rps_reasm_tick(struct rps_stage_ctx *c)
{
	struct rps_reasm *r = c->reasm;
	uint64_t n;

	if (r == NULL || r->held == 0)
		return;
	n = sweep(r, c->now, c->st, RPS_DROP_FRAG_TIMEOUT);
	if (n != 0)
		RPS_CTR_ADD(c->st->dropped[RPS_DROP_FRAG_TIMEOUT], n);
}

void
rps_reasm_destroy(struct rps_reasm *r, struct rps_lcore_stats *st)
{
	uint64_t n;

	if (r == NULL)
		return;
	n = sweep(r, UINT64_MAX, st, RPS_DROP_FRAG_TIMEOUT);
	/* Everything is stale at UINT64_MAX; should start + timeout ever equal it, the table's
	 * own destroy frees what is left, and r->held still says how many that were (their
	 * ports unknown: slot 0). */
	RPS_CTR_ADD(st->port[0].dropped[RPS_DROP_FRAG_TIMEOUT], r->held);
	n += r->held;
	r->held = 0;
	RPS_CTR_ADD(st->dropped[RPS_DROP_FRAG_TIMEOUT], n);
	rte_ip_frag_table_destroy(r->tbl);
	rte_free(r->ring);
	rte_free(r);
}
