/* SPDX-License-Identifier: BSD-3-Clause */
/* output.c: the output stage and the buffered per-lcore TX queues it (and respond) use; what
 * leaves must be sendable: re-fragmented to the port's MTU, in one segment where the port
 * takes only one (rps_txq_set_limits()). A TX queue is set up here, a consumer's too
 * (rps_txq_set_consumer()); a consumer queue's send is share.c's, which output.c calls and
 * which calls nothing here. */
#include <errno.h>

#include <rte_ip_frag.h>
#include <rte_malloc.h>
#include <rte_memcpy.h>

#include "rps_filter.h"
#include "rps_stage.h"

/* Called by rte_eth_tx_buffer_flush for packets the queue refused: free and count. (A
 * consumer's queue sends itself, share.c, and counts its own refusals.) */
static void
tx_refused(struct rte_mbuf **pkts, uint16_t unsent, void *userdata)
{
	struct rps_txq *q = userdata;
	const enum rps_drop_reason why = RPS_DROP_TX_FAILED;

	if (q->returns) { /* a returned packet's own fate was its delivery */
		rte_pktmbuf_free_bulk(pkts, unsent);
		RPS_CTR_ADD(q->st->return_tx_failed, unsent);
		return;
	}
	rps_stats_port_drop_bulk(q->st, pkts, unsent, why);
	rte_pktmbuf_free_bulk(pkts, unsent);
	RPS_CTR_ADD(q->st->dropped[why], unsent);
}

int
rps_txq_init(struct rps_txq *q, uint16_t port, uint16_t queue, uint16_t burst, int socket,
	     struct rps_lcore_stats *st)
{
	q->port = port;
	q->queue = queue;
	q->st = st;
	q->mtu = 0;        /* no limit until rps_txq_set_limits() */
	q->multi_seg = 1;
	q->direct = NULL;
	q->indirect = NULL;
	q->consumer = 0;
	q->memif = NULL;
	q->share = NULL;
	q->wait = 0;
	q->stop = NULL;
	q->secondary = 0;
	q->ring = 0;
	q->fail_open = NULL;
	q->open_pkts = NULL;
	q->open_n = 0;
	q->returns = 0;
	q->waiting = NULL;
	q->waiting_arg = NULL;
	q->delivered = q->absent = q->full = 0;
	q->returned = q->open_absent = q->open_full = q->filtered = 0;
	q->buf = rte_zmalloc_socket("rps_txq", RTE_ETH_TX_BUFFER_SIZE(burst), 0, socket);
	q->slot = rte_zmalloc_socket("rps_txq", burst, 0, socket);
	if (q->buf == NULL || q->slot == NULL) {
		rte_free(q->buf);
		rte_free(q->slot);
		q->buf = NULL;
		q->slot = NULL;
		return -ENOMEM;
	}
	rte_eth_tx_buffer_init(q->buf, burst);
	rte_eth_tx_buffer_set_err_callback(q->buf, tx_refused, q);
	return 0;
}

/* A flush sent the first @p sent packets of the buffer (the rest went to tx_refused()). The
 * per-port counters by runs of one ingress port (a burst mostly came in by one): an add per
 * run, not a read-modify-write per packet that waits on the previous one. */
static inline void
count_sent(struct rps_txq *q, uint16_t sent)
{
	if (q->returns) /* counted when the consumer returned them (consumer_returned) */
		return;
	if (sent != 0) {
		RPS_CTR_ADD(q->st->processed, sent);
		RPS_CTR_ADD(q->st->tx_packets, sent);
		for (uint16_t i = 0; i < sent;) {
			const uint8_t slot = q->slot[i];
			uint16_t j = i + 1;

			while (j < sent && q->slot[j] == slot)
				j++;
			struct rps_port_stats *p = &q->st->port[slot];

			RPS_CTR_ADD(p->processed, j - i);
			RPS_CTR_ADD(p->forwarded, j - i);
			i = j;
		}
	}
}

static void fail_open_send(struct rps_txq *q);

/* Buffer @p m (its ingress slot noted where it will sit) and count what a full buffer's
 * flush sent. */
static __rte_always_inline void
buffer_one(struct rps_txq *q, struct rte_mbuf *m)
{
	if (q->consumer) {
		/* its own send (consumer.c): a shared queue, backpressure */
		q->buf->pkts[q->buf->length++] = m;
		if (q->buf->length == q->buf->size) {
			rps_consumer_flush(q);
			if (unlikely(q->open_n != 0))
				fail_open_send(q);
		}
		return;
	}
	q->slot[q->buf->length] = (uint8_t)rps_stats_slot(q->st, m->port);
	count_sent(q, rte_eth_tx_buffer(q->port, q->queue, q->buf, m));
}


void
rps_txq_flush(struct rps_txq *q)
{
	if (q->consumer && q->buf != NULL) {
		rps_consumer_flush(q);
		if (unlikely(q->open_n != 0))
			fail_open_send(q);
	} else if (q->buf != NULL && q->buf->length != 0) {
		count_sent(q, rte_eth_tx_buffer_flush(q->port, q->queue, q->buf));
	}
}

int
rps_txq_set_fail_open(struct rps_txq *q, struct rps_txq *to, int socket)
{
	q->open_pkts = rte_zmalloc_socket("rps_txq_open", sizeof(*q->open_pkts) * q->buf->size,
					  0, socket);
	if (q->open_pkts == NULL)
		return -ENOMEM;
	q->fail_open = to;
	return 0;
}

void
rps_txq_set_limits(struct rps_txq *q, uint16_t mtu, int multi_seg, struct rte_mempool *direct,
		   struct rte_mempool *indirect)
{
	q->mtu = mtu;
	q->multi_seg = multi_seg != 0;
	q->direct = direct;
	q->indirect = indirect;
}

void
rps_txq_set_consumer(struct rps_txq *q, struct rps_share *share, int wait, const int *stop)
{
	q->consumer = 1;
	q->share = share;
	q->wait = wait != 0 && stop != NULL;
	q->stop = stop;
	if (share != NULL) {
		q->memif = share->memif;
		q->port = share->port;
		q->queue = share->queue;
	}
	rps_txq_set_limits(q, 0, 1, NULL, NULL); /* memif takes any length, any chain */
}

/* Whether the parse stage found IPv4 or IPv6 (then l2_len is the L2 header's length). */
static inline int
is_ip(const struct rte_mbuf *m)
{
	return RTE_ETH_IS_IPV4_HDR(m->packet_type) || RTE_ETH_IS_IPV6_HDR(m->packet_type);
}

/* Whether @p m is above what the port sends: its L3 packet above the MTU where it is known
 * to be IP, else a frame above MTU + Ethernet header + two VLAN tags. */
static inline int
too_big(const struct rps_txq *q, const struct rte_mbuf *m)
{
	if (is_ip(m))
		return m->pkt_len > (uint32_t)m->l2_len + q->mtu;
	return m->pkt_len > (uint32_t)q->mtu + RTE_ETHER_HDR_LEN + 2 * RTE_VLAN_HLEN;
}

/* A chain for a port that does not say it takes chains: one segment where it fits one; a
 * chain that does not fit goes as it is (virtual PMDs such as net_pcap copy chains out
 * without advertising MULTI_SEGS; NICs that would truncate one advertise it, and have it). */
static void
one_segment(const struct rps_txq *q, struct rte_mbuf *m)
{
	if (!q->multi_seg && m->nb_segs > 1)
		(void)rte_pktmbuf_linearize(m);
}

/*
 * Re-fragment @p m (its L3 packet above the MTU) and transmit the fragments at once, after
 * what is buffered, so that they leave in order. @return 0, or -1 when it cannot be
 * fragmented (@p m untouched).
 */
static int
send_fragmented(struct rps_txq *q, struct rte_mbuf *m)
{
	struct rte_mbuf *frags[RPS_TX_MAX_FRAGS];
	uint8_t l2[64];
	const uint16_t l2_len = m->l2_len;
	int32_t n;
	uint16_t sent, ok = 1;
	struct rps_port_stats *in = rps_stats_port(q->st, m->port); /* m is freed below */

	if (q->direct == NULL || q->indirect == NULL || l2_len > sizeof(l2) || !is_ip(m) ||
	    rte_pktmbuf_data_len(m) < l2_len + sizeof(struct rte_ipv4_hdr))
		return -1;
	if (RTE_ETH_IS_IPV4_HDR(m->packet_type)) {
		const struct rte_ipv4_hdr *ip =
			rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, l2_len);

		if (ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG))
			return -1;
	} else if (!RTE_ETH_IS_IPV6_HDR(m->packet_type)) {
		return -1;
	}
	rte_memcpy(l2, rte_pktmbuf_mtod(m, const void *), l2_len);
	rte_pktmbuf_adj(m, l2_len);
	if (RTE_ETH_IS_IPV4_HDR(m->packet_type))
		n = rte_ipv4_fragment_packet(m, frags, RPS_TX_MAX_FRAGS, q->mtu, q->direct,
					     q->indirect);
	else
		n = rte_ipv6_fragment_packet(m, frags, RPS_TX_MAX_FRAGS, q->mtu, q->direct,
					     q->indirect);
	if (n <= 0) {
		rte_pktmbuf_prepend(m, l2_len); /* the L2 header is still there */
		return -1;
	}
	rte_pktmbuf_free(m); /* the fragments hold references to its data */
	for (int32_t i = 0; i < n; i++) {
		char *h = rte_pktmbuf_prepend(frags[i], l2_len);

		if (h == NULL) {
			ok = 0;
			continue;
		}
		one_segment(q, frags[i]);
		rte_memcpy(h, l2, l2_len);
		frags[i]->l2_len = l2_len;
		RPS_CTR_ADD(q->st->bytes, rte_pktmbuf_pkt_len(frags[i]));
	}
	if (!ok) {
		rte_pktmbuf_free_bulk(frags, (unsigned int)n);
		RPS_CTR_ADD(q->st->dropped[RPS_DROP_TX_TOO_BIG], 1);
		RPS_CTR_ADD(in->dropped[RPS_DROP_TX_TOO_BIG], 1);
		return 0;
	}
	rps_txq_flush(q);
	sent = rte_eth_tx_burst(q->port, q->queue, frags, (uint16_t)n);
	RPS_CTR_ADD(q->st->tx_packets, sent);
	RPS_CTR_ADD(q->st->tx_fragments, sent);
	if (sent < n) {
		const enum rps_drop_reason why = RPS_DROP_TX_FAILED;

		rte_pktmbuf_free_bulk(frags + sent, (unsigned int)(n - sent));
		RPS_CTR_ADD(q->st->dropped[why], 1);
		RPS_CTR_ADD(in->dropped[why], 1);
	} else {
		RPS_CTR_ADD(q->st->processed, 1);
		RPS_CTR_ADD(q->st->tx_fragmented, 1);
		RPS_CTR_ADD(in->processed, 1);
		RPS_CTR_ADD(in->forwarded, 1);
	}
	return 0;
}

/* The slow path of rps_txq_send(): a packet above the MTU, or several segments. */
static void __rte_noinline
send_big(struct rps_txq *q, struct rte_mbuf *m)
{
	if (q->mtu != 0 && too_big(q, m)) {
		if (send_fragmented(q, m) == 0)
			return;
	} else {
		one_segment(q, m);
		RPS_CTR_ADD(q->st->bytes, rte_pktmbuf_pkt_len(m));
		buffer_one(q, m);
		return;
	}
	rps_stats_port_drop(q->st, m, RPS_DROP_TX_TOO_BIG);
	rte_pktmbuf_free(m);
	RPS_CTR_ADD(q->st->dropped[RPS_DROP_TX_TOO_BIG], 1);
}

/* Whether sending @p m on @p q takes the slow path, which may rewrite it (re-fragmented,
 * linearized): the common case in one compare, a frame within MTU + the shortest L2
 * header. */
static inline int
needs_big(const struct rps_txq *q, const struct rte_mbuf *m)
{
	return (q->mtu != 0 && m->pkt_len > (uint32_t)q->mtu + RTE_ETHER_HDR_LEN) ||
	       (m->nb_segs > 1 && !q->multi_seg);
}

/* rps_txq_send(), inlined into the output stage's loops: a call per packet was 12% of a
 * forwarding worker's samples (docs/benchmarks.md); the slow path stays out of line. */
static __rte_always_inline void
txq_send_as(struct rps_txq *q, struct rte_mbuf *m, int count_bytes)
{
	if (unlikely(needs_big(q, m))) {
		send_big(q, m);
		return;
	}
	if (likely(count_bytes))
		RPS_CTR_ADD(q->st->bytes, rte_pktmbuf_pkt_len(m));
	buffer_one(q, m);
}

static __rte_always_inline void
txq_send(struct rps_txq *q, struct rte_mbuf *m)
{
	/* a packet's bytes once, whatever the consumer groups */
	txq_send_as(q, m, !q->secondary && !q->returns);
}

/* --consumer-fail open: what the consumer refused (share.c kept it) goes on through its
 * forward, as if there were no consumer (its bytes were counted when it was handed to the
 * consumer). */
static void
fail_open_send(struct rps_txq *q)
{
	const uint16_t n = q->open_n;

	q->open_n = 0;
	for (uint16_t i = 0; i < n; i++)
		txq_send_as(q->fail_open, q->open_pkts[i], 0);
	rps_txq_flush(q->fail_open);
}

void
rps_txq_send(struct rps_txq *q, struct rte_mbuf *m)
{
	txq_send(q, m);
}

void
rps_txq_fini(struct rps_txq *q)
{
	rps_txq_flush(q);
	rte_free(q->buf);
	rte_free(q->slot);
	rte_free(q->open_pkts);
	q->buf = NULL;
	q->slot = NULL;
	q->open_pkts = NULL;
}

/* Set every segment of @p m to @p refs references: the caller holds the only one of each. */
static inline void
refs_set(struct rte_mbuf *m, uint16_t refs)
{
	for (; m != NULL; m = m->next)
		rte_mbuf_refcnt_set(m, refs);
}

/*
 * The groups that receive @p m, a bit each: all of them without filters (@p fs NULL), else
 * those whose filter takes it (a group without one takes everything); a refusal is counted
 * filtered for the group's consumer (rps_filter.h).
 */
static __rte_always_inline unsigned int
groups_of(const struct rps_stage_ctx *c, const struct rps_filter_set *fs, struct rte_mbuf *m)
{
	unsigned int mask = (1u << c->nb_groups) - 1;

	if (likely(fs == NULL))
		return mask;
	for (uint16_t g = 0; g < c->nb_groups; g++) {
		const struct rps_filter *f = fs->group[g];

		if (f != NULL && !rps_filter_match(f, m)) {
			mask &= ~(1u << g);
			RPS_CTR_ADD(c->group_txq[g]->filtered, 1);
		}
	}
	return mask;
}

/* A packet group 0 does not take (its filter) while others do: its own fate is counted
 * here, as consumed (processed), since group 0's queue, which would count it, never sees
 * it; the other groups' queues count only their delivery (secondary). */
static void
count_consumed(struct rps_stage_ctx *c, struct rte_mbuf *m)
{
	RPS_CTR_ADD(c->st->processed, 1);
	RPS_CTR_ADD(c->st->consumed, 1);
	RPS_CTR_ADD(c->st->bytes, rte_pktmbuf_pkt_len(m));
	RPS_CTR_ADD(rps_stats_port(c->st, m->port)->processed, 1);
}

/* Send @p m to each group of @p mask (a reference each: @p m's refcnt set by the caller). */
static __rte_always_inline void
groups_send(struct rps_stage_ctx *c, struct rte_mbuf *m, unsigned int mask)
{
	for (uint16_t k = 0; k < c->nb_groups; k++)
		if (mask & (1u << k))
			txq_send(c->group_txq[k], m);
}

/*
 * Inline pairs with consumers: hand @p m to the consumer of each group of @p mask beside
 * its forward on @p t (NULL: consumed here). The consumers share the mbuf (a reference
 * each, as groups do) unless the forward may rewrite it (re-fragmented or linearized for
 * @p t's port): they get a copy of their own then, while a shared consumer's drain on
 * another lcore could be reading it. No mbuf for the copy: each consumer counts it
 * consumer_full.
 */
static void
mirror(struct rps_stage_ctx *c, struct rte_mbuf *m, const struct rps_txq *t, unsigned int mask)
{
	const uint16_t g = (uint16_t)__builtin_popcount(mask);
	struct rte_mbuf *d = m;

	if (g == 0)
		return;
	if (unlikely(t != NULL && needs_big(t, m))) {
		d = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
		if (d == NULL) {
			for (uint16_t k = 0; k < c->nb_groups; k++)
				if (mask & (1u << k))
					RPS_CTR_ADD(c->group_txq[k]->full, 1);
			return;
		}
		refs_set(d, g);
	} else {
		refs_set(m, (uint16_t)(g + 1));
	}
	groups_send(c, d, mask);
}

/*
 * Inline consumers: group 0's consumer takes @p m on @p iq (its ring for the packet's
 * direction) in place of the forward: what it returns leaves by the pair's other port, what
 * it does not is its verdict to drop. The other groups of @p mask get a reference each, as
 * taps (memif copies: nothing rewrites the mbuf under them).
 */
static inline void
inline_send(struct rps_stage_ctx *c, struct rte_mbuf *m, struct rps_txq *iq, unsigned int mask)
{
	const unsigned int taps = mask & ~1u;

	if (taps != 0) {
		refs_set(m, (uint16_t)(__builtin_popcount(taps) + 1));
		groups_send(c, m, taps);
	}
	txq_send(iq, m);
}

uint16_t
rps_stage_output(struct rps_stage_ctx *c, struct rte_mbuf **pkts, uint16_t n)
{
	struct rps_txq *q = c->out_txq;
	/* the groups' filters of this burst (the set lives until this lcore's next
	 * quiescent state) */
	const struct rps_filter_set *fs = c->filters != NULL ?
		__atomic_load_n(c->filters, __ATOMIC_ACQUIRE) : NULL;
	uint16_t k = 0;

	if (c->port_txq != NULL) {
		/* inline pairs: each packet leaves by its RX port's peer, unchanged, and with
		 * consumers reaches them too (both directions of a connection are on one
		 * worker, so at one consumer of each group) */
		for (uint16_t i = 0; i < n; i++) {
			struct rps_txq *t = c->port_txq[pkts[i]->port];

			if (unlikely(pkts[i]->ol_flags & c->bypass_mask)) {
				/* a bypassed flow: past the consumers, in the path or taps */
				RPS_CTR_ADD(c->st->bypassed, 1);
				RPS_CTR_ADD(c->st->bypassed_bytes, rte_pktmbuf_pkt_len(pkts[i]));
			} else if (c->nb_groups != 0) {
				const unsigned int mask = groups_of(c, fs, pkts[i]);

				if (c->inline_txq != NULL && c->inline_txq[pkts[i]->port] != NULL &&
				    (mask & 1)) {
					inline_send(c, pkts[i], c->inline_txq[pkts[i]->port], mask);
					continue;
				}
				/* taps; or in the path, refused by group 0's filter: forwarded */
				mirror(c, pkts[i], t, mask);
			}
			if (likely(t != NULL))
				txq_send(t, pkts[i]);
			else
				pkts[k++] = pkts[i]; /* a port with nowhere to send: consumed */
		}
		return k;
	}
	if (c->nb_groups > 1) {
		/* consumer groups: the same mbuf to each group's consumer, one reference each.
		 * This lcore holds the only reference to every segment, so a plain store sets
		 * them (no atomic add); each memif send copies the packet and drops one. */
		const uint16_t g = c->nb_groups;
		const unsigned int all = (1u << g) - 1;

		for (uint16_t i = 0; i < n; i++) {
			unsigned int mask;

			if (unlikely(pkts[i]->ol_flags & c->bypass_mask)) {
				RPS_CTR_ADD(c->st->bypassed, 1); /* no copy: out, or consumed */
				RPS_CTR_ADD(c->st->bypassed_bytes, rte_pktmbuf_pkt_len(pkts[i]));
				if (c->bypass_txq != NULL)
					txq_send(c->bypass_txq, pkts[i]);
				else
					pkts[k++] = pkts[i];
				continue;
			}
			mask = groups_of(c, fs, pkts[i]);
			if (unlikely(mask != all)) {
				if (!(mask & 1) && c->bypass_txq != NULL) {
					/* in the path with --tx-port, refused by group
					 * 0's filter: out by the TX port, the taps beside */
					refs_set(pkts[i], (uint16_t)(__builtin_popcount(mask) + 1));
					groups_send(c, pkts[i], mask);
					txq_send(c->bypass_txq, pkts[i]);
					continue;
				}
				if (mask == 0) {
					pkts[k++] = pkts[i]; /* no group takes it: consumed */
					continue;
				}
				if (!(mask & 1))
					count_consumed(c, pkts[i]);
				refs_set(pkts[i], (uint16_t)__builtin_popcount(mask));
				groups_send(c, pkts[i], mask);
				continue;
			}
			refs_set(pkts[i], g);
			for (uint16_t j = 0; j < g; j++)
				txq_send(c->group_txq[j], pkts[i]);
		}
		return k;
	}
	if (q == NULL)
		return n; /* consumed by the pipeline's end */
	for (uint16_t i = 0; i < n; i++) {
		if (unlikely(q->consumer && (pkts[i]->ol_flags & c->bypass_mask))) {
			RPS_CTR_ADD(c->st->bypassed, 1); /* a consumer's: no copy: out, or consumed */
			RPS_CTR_ADD(c->st->bypassed_bytes, rte_pktmbuf_pkt_len(pkts[i]));
			if (c->bypass_txq != NULL)
				txq_send(c->bypass_txq, pkts[i]);
			else
				pkts[k++] = pkts[i];
			continue;
		}
		if (unlikely(fs != NULL) && q->consumer && groups_of(c, fs, pkts[i]) == 0) {
			/* one group, whose filter refused it: consumed, or with consumers in
			 * the path and --tx-port, out by the TX port */
			if (c->bypass_txq != NULL)
				txq_send(c->bypass_txq, pkts[i]);
			else
				pkts[k++] = pkts[i];
			continue;
		}
		txq_send(q, pkts[i]);
	}
	return k;
}
