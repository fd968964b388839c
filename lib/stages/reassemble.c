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
 * and those are timeouts. Before the first table call of a burst we sweep every entry that is
 * stale at c->now (the LRU list is ordered by start time, which only grows), and all calls of
 * the burst use that same c->now, so nothing a lookup meets is stale: whatever lands on the
 * death row during a burst is an error.
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

struct rps_reasm {
	struct rte_ip_frag_tbl *tbl;
	uint64_t held;                  /* fragments in the table now */
	struct rps_lcore_stats scratch; /* counters for re-parsing a completed datagram */
	struct rte_ip_frag_death_row dr;
};

uint64_t
rps_reasm_held(const struct rps_reasm *r)
{
	return r != NULL ? r->held : 0;
}

/* classify(): not a fragment (pass), or a fragment ready for the table. Values >= 0 are drop
 * reasons; only RPS_DROP_FRAG_ERROR counts as a fragment given to reassembly (frags_in). */
#define PASS (-1)
#define FRAG (-2)

struct frag_hdrs {
	void *ip;                             /* IPv4 or IPv6 header, in the first segment */
	struct rte_ipv6_fragment_ext *fh;     /* IPv6 fragment header, or NULL for IPv4 */
	uint16_t l3_len;
};

/* Fragments in a chain returned by rte_ip_frag (see the marking above); clears the marks
 * of all but the first segment when @p clear. */
static inline uint32_t
count_frags(struct rte_mbuf *m, int clear)
{
	uint32_t n = 1;

	for (struct rte_mbuf *s = m->next; s != NULL; s = s->next) {
		if (s->l3_len != 0) {
			n++;
			if (clear)
				s->l3_len = 0;
		}
	}
	return n;
}

/* Count the fragments on the death row, free it, and return the count. */
static uint64_t
dr_flush(struct rps_reasm *r)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < r->dr.cnt; i++)
		n += count_frags(r->dr.row[i], 0);
	rte_ip_frag_free_death_row(&r->dr, REASM_DR_PREFETCH);
	r->held -= n;
	return n;
}

/* Move every entry that is stale at @p tms to the death row (as often as it takes, the row
 * being bounded) and free it. Returns the fragments freed. */
static uint64_t
sweep(struct rps_reasm *r, uint64_t tms)
{
	uint64_t n = 0;

	/* the death row is always empty here: every table call is followed by dr_flush() */
	for (;;) {
		rte_ip_frag_table_del_expired_entries(r->tbl, &r->dr, tms);
		if (r->dr.cnt == 0)
			return n;
		n += dr_flush(r);
	}
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

static inline int
classify_ipv6(struct rte_mbuf *m, struct frag_hdrs *f)
{
	const uint32_t l2 = m->l2_len, len = rte_pktmbuf_pkt_len(m);
	struct rte_ipv6_hdr buf;
	const struct rte_ipv6_hdr *ip = rte_pktmbuf_read(m, l2, sizeof(buf), &buf);
	struct rte_ipv6_fragment_ext fbuf;
	const struct rte_ipv6_fragment_ext *fh;
	uint32_t off, plen;
	uint16_t fd;
	uint8_t nh;

	if (ip == NULL || (rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6)
		return PASS;
	nh = ip->proto;
	if (nh == RPS_IP6_FRAGMENT) {
		fh = rte_pktmbuf_read(m, l2 + IP6_HDR_LEN, sizeof(fbuf), &fbuf);
		if (fh == NULL)
			return RPS_DROP_TRUNCATED;
		fd = rte_be_to_cpu_16(fh->frag_data);
		if ((fd & RTE_IPV6_FRAG_USED_MASK) == 0)
			return PASS; /* atomic fragment (RFC 6946): a whole packet */
		plen = rte_be_to_cpu_16(ip->payload_len);
		if (plen < IP6_FRAG_LEN || plen > len - l2 - IP6_HDR_LEN)
			return RPS_DROP_BAD_LENGTH;
		f->ip = rte_pktmbuf_mtod_offset(m, void *, l2);
		f->fh = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_fragment_ext *,
						l2 + IP6_HDR_LEN);
		f->l3_len = (uint16_t)(IP6_HDR_LEN + IP6_FRAG_LEN);
		return check_frag(m, l2 + IP6_HDR_LEN + IP6_FRAG_LEN, l2 + IP6_HDR_LEN + plen,
				  plen - IP6_FRAG_LEN, (uint32_t)(fd & RTE_IPV6_EHDR_FO_MASK),
				  (fd & RTE_IPV6_EHDR_MF_MASK) != 0, REASM_MAX_IP_LEN);
	}
	/* A fragment header further down the chain: rte_ip_frag cannot rebuild such a datagram
	 * (it assumes the fragment header follows the IPv6 header), so refuse it. */
	off = l2 + IP6_HDR_LEN;
	for (int i = 0; i < RPS_PARSE_MAX_V6EXT; i++) {
		uint8_t eb[RPS_IP6_EXT_MIN];
		const uint8_t *e;
		uint32_t elen;

		if (nh != RPS_IP6_HOPOPTS && nh != RPS_IP6_ROUTING && nh != RPS_IP6_DSTOPTS &&
		    nh != RPS_IP6_AH && nh != RPS_IP6_FRAGMENT)
			return PASS;
		e = rte_pktmbuf_read(m, off, sizeof(eb), eb);
		if (e == NULL)
			return PASS;
		if (nh == RPS_IP6_FRAGMENT)
			return ((e[2] << 8 | e[3]) & RTE_IPV6_FRAG_USED_MASK) == 0 ?
			       PASS : RPS_DROP_FRAG_ERROR;
		elen = rps_ip6_ext_len(nh, e);
		off += elen;
		nh = e[0];
	}
	return PASS;
}

/* PASS, FRAG (with @p f filled in) or a drop reason. */
static inline int
classify(struct rte_mbuf *m, struct frag_hdrs *f)
{
	const uint32_t pt = m->packet_type;

	if (RTE_ETH_IS_IPV4_HDR(pt))
		return classify_ipv4(m, f);
	if (RTE_ETH_IS_IPV6_HDR(pt))
		return classify_ipv6(m, f);
	return PASS;
}

/*
 * A datagram rte_ip_frag completed: count it, make its headers right, re-parse it.
 * @return 1 to pass it on, 0 when it was dropped (counted).
 */
static int
finish(struct rps_stage_ctx *c, struct rps_reasm *r, struct rte_mbuf *m, int v6,
       uint64_t *absorbed, uint64_t *reassembled, uint64_t *errors)
{
	struct rps_stage_ctx pc = *c;
	uint32_t k = count_frags(m, 1);
	uint16_t kept;

	r->held -= k;
	/* an IPv4 first fragment with options can push the datagram past 65535 bytes */
	if (!v6 && rte_pktmbuf_pkt_len(m) - m->l2_len > REASM_MAX_IP_LEN) {
		rte_pktmbuf_free(m);
		*errors += k;
		return 0;
	}
	*absorbed += k - 1;
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
	/* Re-parse for the next stages, on scratch counters: the datagram is not a packet the
	 * parse stage saw (pkts_* stay per received packet); only a drop is carried over. */
	pc.st = &r->scratch;
	kept = rps_stage_parse(&pc, &m, 1);
	for (int i = 0; kept == 0 && i < RPS_DROP_MAX; i++) {
		if (r->scratch.dropped[i] != 0) {
			RPS_CTR_ADD(c->st->dropped[i], r->scratch.dropped[i]);
			r->scratch.dropped[i] = 0;
		}
	}
	return kept;
}

uint16_t
rps_stage_reassemble(struct rps_stage_ctx *c, struct rte_mbuf **pkts, uint16_t n)
{
	struct rps_reasm *r = c->reasm;
	uint64_t in = 0, errors = 0, timeouts = 0, absorbed = 0, reassembled = 0;
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
		if (!swept) {
			timeouts += sweep(r, c->now);
			swept = 1;
		}
		/* mark the fragment (see the top of the file) */
		m->l3_len = f.l3_len;
		for (struct rte_mbuf *s = m->next; s != NULL; s = s->next)
			s->l3_len = 0;
		r->held++;
		if (f.fh == NULL)
			out = rte_ipv4_frag_reassemble_packet(r->tbl, &r->dr, m, c->now, f.ip);
		else
			out = rte_ipv6_frag_reassemble_packet(r->tbl, &r->dr, m, c->now, f.ip, f.fh);
		if (r->dr.cnt != 0)
			errors += dr_flush(r);
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
	/* 2 * align32pow2(buckets) * 16 slots >= 2 * max_datagrams: at most half full, and each
	 * key has 32 candidate slots, so a full bucket pair is vanishingly rare. */
	buckets = (max_datagrams + REASM_BUCKET_ENTRIES - 1) / REASM_BUCKET_ENTRIES;
	r->tbl = rte_ip_frag_table_create(buckets, REASM_BUCKET_ENTRIES, max_datagrams,
					  per_ms * timeout_ms, socket);
	if (r->tbl == NULL) {
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
	n = sweep(r, c->now);
	if (n != 0)
		RPS_CTR_ADD(c->st->dropped[RPS_DROP_FRAG_TIMEOUT], n);
}

void
rps_reasm_destroy(struct rps_reasm *r, struct rps_lcore_stats *st)
{
	uint64_t n;

	if (r == NULL)
		return;
	n = sweep(r, UINT64_MAX);
	/* Everything is stale at UINT64_MAX; should start + timeout ever equal it, the table's
	 * own destroy frees what is left, and r->held still says how many that were. */
	n += r->held;
	r->held = 0;
	RPS_CTR_ADD(st->dropped[RPS_DROP_FRAG_TIMEOUT], n);
	rte_ip_frag_table_destroy(r->tbl);
	rte_free(r);
}
