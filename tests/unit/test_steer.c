/* SPDX-License-Identifier: BSD-3-Clause */
/* test_steer.c: the RX lcore's steering step over real backlogs (lib/rps/steer.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_memory.h>
#include <rte_ring.h>

#include "rps_steer.h"
#include "test_common.h"

#define SEED UINT32_C(0xc0ffee11)
#define MAX_W 8
#define MAX_BURST 256
#define NB_FLOWS 40

struct bed {
	struct rps_backlog bl[MAX_W];
	uint16_t nb;
	struct rps_lcore_stats stats;
	struct rps_steer_ctx ctx;
	struct rps_map *map;
};

/* Backlogs of @p cap for @p nb workers, a map whose table (the power of two at least
 * @p map_len) repeats map_len entries (entry i -> worker wmap[i] or i % nb), a steering
 * context. */
static void
bed_init(struct bed *t, uint16_t nb, uint32_t cap, uint32_t map_len, const uint16_t *wmap,
	 enum rps_hash_mode mode, int prefetch)
{
	uint16_t w[64];
	uint32_t size = 1;

	memset(t, 0, sizeof(*t));
	t->nb = nb;
	for (uint16_t i = 0; i < nb; i++) {
		char name[16];

		snprintf(name, sizeof(name), "st%u", i);
		CU_ASSERT_EQUAL_FATAL(rps_backlog_init(&t->bl[i], name, cap, SOCKET_ID_ANY), 0);
	}
	while (size < map_len)
		size *= 2;
	for (uint32_t i = 0; i < size; i++)
		w[i] = wmap != NULL ? wmap[i % map_len] : (uint16_t)(i % map_len % nb);
	t->map = rps_map_create_table(w, size, 1, SOCKET_ID_ANY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t->map);
	CU_ASSERT_EQUAL_FATAL(rps_steer_init(&t->ctx, mode, SEED, prefetch, t->bl, nb, MAX_BURST,
					     &t->stats, SOCKET_ID_ANY), 0);
}

static void
bed_fini(struct bed *t)
{
	rps_steer_fini(&t->ctx);
	for (uint16_t i = 0; i < t->nb; i++)
		rps_backlog_fini(&t->bl[i]);
	rps_map_free(t->map);
}

/* Packet @p seq of flow @p f: a mix of IPv4/IPv6, TCP/UDP, a VLAN, a fragment, non-IP. */
static struct rte_mbuf *
flow_pkt(unsigned int f, unsigned int seq)
{
	struct ut_pkt p;
	uint16_t sport = (uint16_t)(10000 + f), dport = (uint16_t)(80 + f % 3);

	switch (f % 8) {
	case 0: case 4:
		ut_pkt_v4(&p, UT_IP4(f), UT_IP4(0x10000 + f / 2), IPPROTO_TCP, sport, dport);
		break;
	case 1:
		ut_pkt_v4(&p, UT_IP4(7), UT_IP4(9), IPPROTO_UDP, sport, dport);
		break;
	case 2: case 6:
		ut_pkt_v6(&p, f, 1000, IPPROTO_TCP, sport, dport);
		break;
	case 3:
		ut_pkt_v6(&p, 5, 6, IPPROTO_UDP, sport, dport);
		break;
	case 5:
		ut_pkt_init(&p);
		ut_put_eth(&p, RTE_ETHER_TYPE_VLAN);
		ut_put_vlan(&p, (uint16_t)f, RTE_ETHER_TYPE_IPV4);
		ut_put_ipv4(&p, UT_IP4(f), UT_IP4(1), IPPROTO_UDP, 0, 0);
		ut_put_udp(&p, sport, dport);
		ut_pkt_finish(&p);
		break;
	default: /* 7 */
		if (f == 7) { /* non-IP */
			ut_pkt_init(&p);
			ut_put_eth(&p, RTE_ETHER_TYPE_ARP);
			ut_put(&p, NULL, 46);
		} else {      /* fragments of one datagram per flow */
			ut_pkt_init(&p);
			ut_put_eth(&p, RTE_ETHER_TYPE_IPV4);
			ut_put_ipv4(&p, UT_IP4(f), UT_IP4(2), IPPROTO_UDP, 0,
				    (uint16_t)(seq == 0 ? RTE_IPV4_HDR_MF_FLAG : seq));
			ut_put(&p, NULL, 24);
			ut_pkt_finish(&p);
		}
		break;
	}
	/* the sequence number in the last two bytes */
	p.b[p.len - 2] = (uint8_t)(seq >> 8);
	p.b[p.len - 1] = (uint8_t)seq;
	return ut_mbuf(p.b, p.len);
}

/* A burst of @p n packets cycling through the flows in a scrambled order. */
static void
make_burst(struct rte_mbuf **pkts, unsigned int n, unsigned int *flow, unsigned int *seq,
	   unsigned int seq0)
{
	for (unsigned int i = 0; i < n; i++) {
		flow[i] = (i * 7 + i / NB_FLOWS) % NB_FLOWS;
		seq[i] = seq0 + i;
		pkts[i] = flow_pkt(flow[i], seq[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(pkts[i]);
	}
}

static int
index_of(struct rte_mbuf *const *pkts, unsigned int n, const struct rte_mbuf *m)
{
	for (unsigned int i = 0; i < n; i++)
		if (pkts[i] == m)
			return (int)i;
	return -1;
}

/*
 * Drain every backlog and check that each packet sits on the backlog of the worker its hash
 * selects (@p want[i]), that each backlog holds packets in arrival order, and that exactly
 * @p expect_total of the burst arrived. Frees the packets.
 */
static void
drain_and_check(struct bed *t, struct rte_mbuf *const *pkts, unsigned int n,
		const uint16_t *want, unsigned int expect_total)
{
	unsigned int total = 0, misplaced = 0, unordered = 0, unknown = 0;

	for (uint16_t w = 0; w < t->nb; w++) {
		struct rte_mbuf *out[MAX_BURST];
		uint32_t left, got;
		int last = -1;

		got = rps_backlog_dequeue(&t->bl[w], out, MAX_BURST, &left);
		CU_ASSERT_EQUAL(left, 0);
		for (uint32_t j = 0; j < got; j++) {
			int i = index_of(pkts, n, out[j]);

			if (i < 0) {
				unknown++;
				continue;
			}
			if (want[i] != w)
				misplaced++;
			if (i <= last)
				unordered++;
			last = i;
		}
		total += got;
		rte_pktmbuf_free_bulk(out, got);
		rps_backlog_complete(&t->bl[w], got);
		CU_ASSERT_EQUAL(rps_backlog_depth(&t->bl[w]), 0);
	}
	CU_ASSERT_EQUAL(unknown, 0);
	CU_ASSERT_EQUAL(misplaced, 0);
	CU_ASSERT_EQUAL(unordered, 0);
	CU_ASSERT_EQUAL(total, expect_total);
}

static void
test_init(void)
{
	struct rps_backlog bl[2];
	struct rps_lcore_stats st;
	struct rps_steer_ctx ctx;

	CU_ASSERT_EQUAL(rps_steer_init(&ctx, RPS_HASH_AUTO, 1, 0, bl, 0, 32, &st,
				       SOCKET_ID_ANY), -EINVAL);
	CU_ASSERT_EQUAL(rps_steer_init(&ctx, RPS_HASH_AUTO, 1, 0, bl, 2, 0, &st,
				       SOCKET_ID_ANY), -EINVAL);
	CU_ASSERT_EQUAL(rps_steer_init(&ctx, RPS_HASH_AUTO, 1, 0, NULL, 2, 32, &st,
				       SOCKET_ID_ANY), -EINVAL);
	CU_ASSERT_EQUAL(rps_steer_init(&ctx, RPS_HASH_AUTO, 1, 0, bl, 2, 32, NULL,
				       SOCKET_ID_ANY), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(rps_steer_init(&ctx, RPS_HASH_RSS, 77, 1, bl, 2, 32, &st,
					     SOCKET_ID_ANY), 0);
	CU_ASSERT_EQUAL(ctx.mode, RPS_HASH_RSS);
	CU_ASSERT_EQUAL(ctx.seed, 77);
	CU_ASSERT_EQUAL(ctx.prefetch, 1);
	CU_ASSERT_EQUAL(ctx.nb_workers, 2);
	CU_ASSERT_EQUAL(ctx.burst_max, 32);
	CU_ASSERT_PTR_EQUAL(ctx.backlogs, bl);
	CU_ASSERT_PTR_EQUAL(ctx.stats, &st);
	CU_ASSERT_PTR_NOT_NULL(ctx.groups);
	CU_ASSERT_PTR_NOT_NULL(ctx.group_len);
	CU_ASSERT_PTR_NOT_NULL(ctx.touched);
	for (unsigned int i = 0; ctx.group_len != NULL && i < 2; i++)
		CU_ASSERT_EQUAL(ctx.group_len[i], 0);
	rps_steer_fini(&ctx);
	CU_ASSERT_PTR_NULL(ctx.groups);
	CU_ASSERT_PTR_NULL(ctx.group_len);
	CU_ASSERT_PTR_NULL(ctx.touched);
	rps_steer_fini(&ctx); /* twice is harmless */
}

/* Every packet on backlog rps_map_worker(map, rps_hash_sw(m, seed)), in order, counted. */
static void
steer_jhash(uint16_t nb, uint32_t map_len, const uint16_t *wmap, int prefetch,
	    unsigned int n)
{
	struct bed t;
	struct rte_mbuf *pkts[MAX_BURST];
	unsigned int flow[MAX_BURST], seq[MAX_BURST];
	uint16_t want[MAX_BURST];
	uint32_t per_w[MAX_W] = { 0 };
	unsigned int avail0 = ut_pool_avail(), round;

	bed_init(&t, nb, 1024, map_len, wmap, RPS_HASH_JHASH, prefetch);
	for (round = 0; round < 2; round++) {
		make_burst(pkts, n, flow, seq, round * n);
		memset(per_w, 0, sizeof(per_w));
		for (unsigned int i = 0; i < n; i++) {
			/* the RSS flag is ignored in JHASH mode */
			if (i % 3 == 0) {
				pkts[i]->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
				pkts[i]->hash.rss = 0x12345678u * i;
			}
			want[i] = rps_map_worker(t.map, rps_hash_sw(pkts[i], SEED));
			per_w[want[i]]++;
			/* non-IP is hashed on its layer-2 key, not sent to one fixed worker */
			if (flow[i] == 7) {
				CU_ASSERT_EQUAL(want[i],
						rps_map_worker(t.map, rps_hash_l2(pkts[i], SEED, 0)));
			}
		}
		CU_ASSERT_EQUAL(rps_steer_burst(&t.ctx, t.map, NULL, NULL, pkts, (uint16_t)n), n);
		CU_ASSERT_EQUAL(ut_pool_avail(), avail0 - n);
		for (uint16_t w = 0; w < nb; w++) {
			CU_ASSERT_EQUAL(rte_ring_count(t.bl[w].ring), per_w[w]);
			CU_ASSERT_EQUAL(t.bl[w].prod.full_drops, 0);
		}
		CU_ASSERT_EQUAL(t.stats.enqueued, (round + 1) * n);
		CU_ASSERT_EQUAL(t.stats.hash_computed, (round + 1) * n);
		CU_ASSERT_EQUAL(t.stats.hash_from_nic, 0);
		CU_ASSERT_EQUAL(t.stats.dropped[RPS_DROP_BACKLOG_FULL], 0);
		CU_ASSERT_EQUAL(rps_stats_dropped_total(&t.stats), 0);
		/* the scratch space is clean for the next burst */
		for (uint16_t w = 0; w < nb; w++)
			CU_ASSERT_EQUAL(t.ctx.group_len[w], 0);
		drain_and_check(&t, pkts, n, want, n);
	}
	/* more than one worker really got packets (the flows are spread) */
	{
		unsigned int busy = 0;

		for (uint16_t w = 0; w < nb; w++)
			busy += t.bl[w].prod.tail > 0;
		if (wmap == NULL && nb > 1 && n >= 64)
			CU_ASSERT(busy > 1);
	}
	CU_ASSERT_EQUAL(t.stats.rx_packets, 0); /* not the steering step's counter */
	bed_fini(&t);
	CU_ASSERT_EQUAL(ut_pool_avail(), avail0);
}

static void
test_steer_jhash(void)
{
	static const uint16_t sparse[8] = { 3, 1, 3, 1, 1, 3, 3, 1 };

	steer_jhash(5, 16, NULL, 0, MAX_BURST);
	steer_jhash(5, 16, NULL, 1, MAX_BURST);
	steer_jhash(4, 4, NULL, 1, 200);
	steer_jhash(1, 1, NULL, 1, 64);
	steer_jhash(8, 64, NULL, 1, MAX_BURST);
	/* bursts shorter than the prefetch distance */
	for (unsigned int n = 1; n <= RPS_STEER_PREFETCH + 1; n++)
		steer_jhash(3, 7, NULL, 1, n);
	/* the map's values, not its positions, pick the backlog: 0 and 2 stay empty */
	steer_jhash(4, 8, sparse, 1, MAX_BURST);
}

static void
test_steer_empty_burst(void)
{
	struct bed t;

	bed_init(&t, 2, 16, 2, NULL, RPS_HASH_AUTO, 1);
	CU_ASSERT_EQUAL(rps_steer_burst(&t.ctx, t.map, NULL, NULL, NULL, 0), 0);
	CU_ASSERT_EQUAL(t.stats.enqueued, 0);
	CU_ASSERT_EQUAL(t.stats.hash_computed, 0);
	CU_ASSERT_EQUAL(t.stats.hash_from_nic, 0);
	CU_ASSERT_EQUAL(t.bl[0].prod.tail + t.bl[1].prod.tail, 0);
	bed_fini(&t);
}

/* Tiny backlogs: the overflow is freed and counted once, per reason and per backlog. */
static void
test_steer_overflow(void)
{
	static const uint32_t caps[] = { 1, 3, 8, 50 };

	for (unsigned int c = 0; c < RTE_DIM(caps); c++) {
		struct bed t;
		struct rte_mbuf *pkts[MAX_BURST];
		unsigned int flow[MAX_BURST], seq[MAX_BURST], avail0 = ut_pool_avail();
		uint16_t want[MAX_BURST];
		uint32_t per_w[MAX_W] = { 0 }, accepted = 0, full = 0, sent;
		const unsigned int n = 128;
		const uint16_t nb = 3;

		bed_init(&t, nb, caps[c], 12, NULL, RPS_HASH_JHASH, 1);
		make_burst(pkts, n, flow, seq, 0);
		for (unsigned int i = 0; i < n; i++) {
			want[i] = rps_map_worker(t.map, rps_hash_sw(pkts[i], SEED));
			per_w[want[i]]++;
		}
		for (uint16_t w = 0; w < nb; w++)
			accepted += RTE_MIN(per_w[w], caps[c]);
		sent = rps_steer_burst(&t.ctx, t.map, NULL, NULL, pkts, (uint16_t)n);
		CU_ASSERT_EQUAL(sent, accepted);
		for (uint16_t w = 0; w < nb; w++) {
			CU_ASSERT_EQUAL(t.bl[w].prod.tail, RTE_MIN(per_w[w], caps[c]));
			CU_ASSERT_EQUAL(t.bl[w].prod.full_drops,
					per_w[w] - RTE_MIN(per_w[w], caps[c]));
			full += t.bl[w].prod.full_drops;
		}
		CU_ASSERT_EQUAL(t.stats.enqueued, accepted);
		CU_ASSERT_EQUAL(t.stats.dropped[RPS_DROP_BACKLOG_FULL], full);
		CU_ASSERT_EQUAL(t.stats.enqueued + t.stats.dropped[RPS_DROP_BACKLOG_FULL], n);
		CU_ASSERT_EQUAL(rps_stats_dropped_total(&t.stats), n - accepted);
		CU_ASSERT_EQUAL(t.stats.hash_computed, n);
		if (caps[c] < 10) {
			CU_ASSERT(full > 0);
		}
		/* the dropped packets are back in the pool, the accepted ones queued */
		CU_ASSERT_EQUAL(ut_pool_avail(), avail0 - accepted);
		/* what was kept is the earliest packets of each worker, in order: the pointers
		 * of the dropped ones are stale, so compare only what is queued */
		{
			unsigned int bad = 0;

			for (uint16_t w = 0; w < nb; w++) {
				struct rte_mbuf *out[MAX_BURST];
				uint32_t left, got = rps_backlog_dequeue(&t.bl[w], out, MAX_BURST,
									  &left);
				unsigned int k = 0;

				for (unsigned int i = 0; i < n && k < got; i++) {
					if (want[i] != w)
						continue;
					if (out[k] != pkts[i])
						bad++;
					k++;
				}
				if (k != got)
					bad++;
				rte_pktmbuf_free_bulk(out, got);
				rps_backlog_complete(&t.bl[w], got);
			}
			CU_ASSERT_EQUAL(bad, 0);
		}
		bed_fini(&t);
		CU_ASSERT_EQUAL(ut_pool_avail(), avail0);
	}
}

/* Packets with an RSS hash are steered by it unless the mode is JHASH; the others by the
 * software hash. With @p prefetch 0 (the app's setting when the port gives the NIC's hash) the
 * RSS and auto modes take the NIC-only loop, whose packets without a hash call out; with
 * @p counted, through the per-bucket counters, each packet counted in its bucket. */
static void
steer_rss(enum rps_hash_mode mode, int prefetch, int counted)
{
	struct rps_bucket_stats *bs = counted ? rps_bucket_stats_create(SOCKET_ID_ANY) : NULL;
	uint64_t want_pk[8] = { 0 }, want_by[8] = { 0 };
	struct bed t;
	struct rte_mbuf *pkts[MAX_BURST];
	unsigned int flow[MAX_BURST], seq[MAX_BURST], flagged = 0;
	uint16_t want[MAX_BURST];
	const unsigned int n = 160;
	uint64_t st = 42;

	CU_ASSERT_FATAL(!counted || bs != NULL);
	bed_init(&t, 4, 1024, 8, NULL, mode, prefetch);
	make_burst(pkts, n, flow, seq, 0);
	for (unsigned int i = 0; i < n; i++) {
		uint32_t h;

		if (i % 5 != 4) {
			pkts[i]->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
			/* 0 stands in for a NIC hash of 0, which must not become "no flow" */
			pkts[i]->hash.rss = i == 0 ? 0 : (uint32_t)ut_rand(&st);
			flagged++;
		} else {
			pkts[i]->hash.rss = (uint32_t)ut_rand(&st); /* no flag: must be ignored */
		}
		if (mode != RPS_HASH_JHASH && rps_hash_has_rss(pkts[i]))
			h = rps_hash_rss(pkts[i]);
		else
			h = rps_hash_sw(pkts[i], SEED);
		want[i] = rps_map_worker(t.map, h);
		want_pk[rps_map_bucket(t.map, h)]++;
		want_by[rps_map_bucket(t.map, h)] += pkts[i]->pkt_len;
	}
	CU_ASSERT_EQUAL(rps_steer_burst(&t.ctx, t.map, NULL, bs, pkts, (uint16_t)n), n);
	for (unsigned int b = 0; bs != NULL && b < 8; b++) {
		CU_ASSERT_EQUAL(bs->b[b].packets, want_pk[b]);
		CU_ASSERT_EQUAL(bs->b[b].bytes, want_by[b]);
	}
	rps_bucket_stats_free(bs);
	if (mode == RPS_HASH_JHASH) {
		CU_ASSERT_EQUAL(t.stats.hash_from_nic, 0);
		CU_ASSERT_EQUAL(t.stats.hash_computed, n);
	} else {
		CU_ASSERT_EQUAL(t.stats.hash_from_nic, flagged);
		CU_ASSERT_EQUAL(t.stats.hash_computed, n - flagged);
	}
	CU_ASSERT_EQUAL(t.stats.enqueued, n);
	drain_and_check(&t, pkts, n, want, n);
	bed_fini(&t);
}

static void
test_steer_rss(void)
{
	static const enum rps_hash_mode modes[] = { RPS_HASH_RSS, RPS_HASH_AUTO, RPS_HASH_JHASH };

	for (unsigned int m = 0; m < RTE_DIM(modes); m++)
		for (int v = 0; v < 4; v++)
			steer_rss(modes[m], v & 1, v >> 1);
}

/*
 * The software jhash hashes a burst's keys by family, side by side (jhash_lanes_pass()): each
 * packet must land where rps_steer_sw_hash() (one key at a time, through another path) sends
 * it, on the mixed flows (IPv4 and IPv6, a VLAN tag and a non-IP frame that take the slow
 * path, fragments), sorted or not, with and without bucket counters, in bursts whose families
 * fill whole steps of lanes or leave a tail; in auto mode with prefetch (a port that gives
 * the NIC's hash to some packets only), the packets that have it keep it; in the fast path
 * and, with a reorder-safe table of its own (a new table is not settled on the map: its first
 * burst takes the general path), in the general one.
 */
static void
test_steer_jhash_lanes(void)
{
	static const uint16_t sizes[] = { 1, 2, 7, 8, 9, 17, 63, 64, 65, MAX_BURST };
	struct rps_bucket_stats *bs = rps_bucket_stats_create(SOCKET_ID_ANY);

	CU_ASSERT_FATAL(bs != NULL);
	for (int v = 0; v < 16; v++) {
		const enum rps_hash_mode mode = v & 4 ? RPS_HASH_AUTO : RPS_HASH_JHASH;
		struct rps_buckets *bk = NULL;
		struct rte_mbuf *pkts[MAX_BURST];
		unsigned int flow[MAX_BURST], seq[MAX_BURST], seq0 = 0;
		uint16_t want[MAX_BURST];
		uint64_t computed = 0, st = 7;
		struct bed t;

		bed_init(&t, 4, 1024, 16, NULL, mode, 1);
		t.ctx.symmetric = v & 2 ? RPS_SYM_SORT : RPS_SYM_OFF;
		for (unsigned int z = 0; z < RTE_DIM(sizes); z++) {
			const uint16_t n = sizes[z];
			unsigned int sw = 0;

			if (v & 8) { /* a fresh table for each burst: the general path each time */
				rps_buckets_free(bk);
				bk = rps_buckets_create(RPS_MAP_SIZE_MAX, SOCKET_ID_ANY);
				CU_ASSERT_FATAL(bk != NULL);
			}
			make_burst(pkts, n, flow, seq, seq0);
			seq0 += n;
			for (unsigned int i = 0; i < n; i++) {
				/* in auto mode one packet in three comes with the NIC's hash, which
				 * RPS_SYM_SORT ignores (a NIC's hash is not symmetric) */
				if (mode == RPS_HASH_AUTO && i % 3 == 1) {
					pkts[i]->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
					pkts[i]->hash.rss = (uint32_t)ut_rand(&st) | 1;
				}
				if (mode == RPS_HASH_AUTO && rps_hash_has_rss(pkts[i]) &&
				    t.ctx.symmetric != RPS_SYM_SORT) {
					want[i] = rps_map_worker(t.map, rps_hash_rss(pkts[i]));
				} else {
					want[i] = rps_map_worker(t.map,
								 rps_steer_sw_hash(&t.ctx, pkts[i]));
					sw++;
				}
			}
			CU_ASSERT_EQUAL(rps_steer_burst(&t.ctx, t.map, bk, v & 1 ? bs : NULL,
							pkts, n), n);
			computed += sw;
			CU_ASSERT_EQUAL(t.stats.hash_computed, computed);
			drain_and_check(&t, pkts, n, want, n);
		}
		rps_buckets_free(bk);
		bed_fini(&t);
	}
	rps_bucket_stats_free(bs);
}

/* The RSS hash picks the worker: hashes aimed at each entry land there. */
static void
test_steer_rss_targeted(void)
{
	struct bed t;
	struct rte_mbuf *pkts[64];
	uint16_t want[64];
	const uint32_t len = 8;

	bed_init(&t, 8, 64, len, NULL, RPS_HASH_RSS, 0);
	for (unsigned int i = 0; i < 64; i++) {
		uint32_t entry = i % len;

		/* all packets of one flow, so only the NIC hash can spread them */
		pkts[i] = flow_pkt(0, i);
		CU_ASSERT_PTR_NOT_NULL_FATAL(pkts[i]);
		pkts[i]->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
		/* the top bits pick the bucket; the low ones vary (never 0: no hash) */
		pkts[i]->hash.rss = entry << 29 | (uint32_t)(i + 1) << 8;
		want[i] = (uint16_t)entry;
	}
	CU_ASSERT_EQUAL(rps_steer_burst(&t.ctx, t.map, NULL, NULL, pkts, 64), 64);
	for (uint16_t w = 0; w < 8; w++)
		CU_ASSERT_EQUAL(rte_ring_count(t.bl[w].ring), 8);
	CU_ASSERT_EQUAL(t.stats.hash_from_nic, 64);
	CU_ASSERT_EQUAL(t.stats.hash_computed, 0);
	drain_and_check(&t, pkts, 64, want, 64);
	bed_fini(&t);
}

static void
test_steer_hash(void)
{
	struct rps_steer_ctx ctx;
	struct rte_mbuf *m = flow_pkt(0, 0);
	uint32_t computed = 0, sw;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	memset(&ctx, 0, sizeof(ctx));
	ctx.seed = SEED;
	sw = rps_hash_sw(m, SEED);
	CU_ASSERT_NOT_EQUAL(sw, 0);

	ctx.mode = RPS_HASH_AUTO;
	CU_ASSERT_EQUAL(rps_steer_hash(&ctx, m, &computed), sw);
	CU_ASSERT_EQUAL(computed, 1);
	m->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
	m->hash.rss = 0xabcdef01;
	CU_ASSERT_EQUAL(rps_steer_hash(&ctx, m, &computed), 0xabcdef01);
	CU_ASSERT_EQUAL(computed, 1);
	ctx.mode = RPS_HASH_RSS;
	CU_ASSERT_EQUAL(rps_steer_hash(&ctx, m, &computed), 0xabcdef01);
	m->hash.rss = 0;
	CU_ASSERT_EQUAL(rps_steer_hash(&ctx, m, &computed), 1);
	CU_ASSERT_EQUAL(computed, 1);
	ctx.mode = RPS_HASH_JHASH;
	CU_ASSERT_EQUAL(rps_steer_hash(&ctx, m, &computed), sw);
	CU_ASSERT_EQUAL(computed, 2);
	ctx.seed = SEED + 1;
	CU_ASSERT_NOT_EQUAL(rps_steer_hash(&ctx, m, &computed), sw);
	CU_ASSERT_EQUAL(computed, 3);
	rte_pktmbuf_free(m);
}

/* The worker's side: take up to @p max (<= 8) packets off @p bl, @p want of them expected,
 * mark them processed and free them. */
static void
work(struct rps_backlog *bl, uint32_t max, uint32_t want)
{
	struct rte_mbuf *out[8];
	uint32_t left, n = rps_backlog_dequeue(bl, out, max, &left);

	CU_ASSERT_EQUAL(n, want);
	rps_backlog_complete(bl, n);
	rte_pktmbuf_free_bulk(out, n);
}

/* Reorder-safe remap: a bucket stays on its old worker until that worker has processed
 * everything the bucket queued there; without the table the new map applies at once. */
static void
test_reorder_safe_remap(void)
{
	static const uint16_t to0[1] = { 0 }, to1[1] = { 1 };
	struct rte_mbuf *pkts[8];
	struct rps_map *m0, *m1;
	struct rps_buckets *bk;
	struct bed t;

	bed_init(&t, 2, 64, 1, to0, RPS_HASH_JHASH, 0);
	m0 = t.map;
	m1 = rps_map_create(to1, NULL, 1, 1, 2, SOCKET_ID_ANY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m1);
	CU_ASSERT_PTR_NULL(rps_buckets_create(1, SOCKET_ID_ANY));
	CU_ASSERT_PTR_NULL(rps_buckets_create(100, SOCKET_ID_ANY));
	bk = rps_buckets_create(16, SOCKET_ID_ANY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(bk);

	/* 4 packets of one flow to worker 0 (old map) */
	for (unsigned int i = 0; i < 4; i++)
		pkts[i] = flow_pkt(0, i);
	CU_ASSERT_EQUAL(rps_steer_burst(&t.ctx, m0, bk, NULL, pkts, 4), 4);
	CU_ASSERT_EQUAL(rte_ring_count(t.bl[0].ring), 4);

	/* remap to worker 1 while worker 0 still holds them: the flow stays on worker 0 */
	for (unsigned int i = 0; i < 2; i++)
		pkts[i] = flow_pkt(0, 4 + i);
	CU_ASSERT_EQUAL(rps_steer_burst(&t.ctx, m1, bk, NULL, pkts, 2), 2);
	CU_ASSERT_EQUAL(rte_ring_count(t.bl[0].ring), 6);
	CU_ASSERT_EQUAL(rte_ring_count(t.bl[1].ring), 0);
	CU_ASSERT_EQUAL(t.stats.migrations_deferred, 2);
	CU_ASSERT_EQUAL(t.stats.flows_migrated, 0);

	/* worker 0 processes 5 of 6: still not drained, still deferred */
	work(&t.bl[0], 5, 5);
	pkts[0] = flow_pkt(0, 6);
	CU_ASSERT_EQUAL(rps_steer_burst(&t.ctx, m1, bk, NULL, pkts, 1), 1);
	CU_ASSERT_EQUAL(rte_ring_count(t.bl[0].ring), 2);
	CU_ASSERT_EQUAL(t.stats.migrations_deferred, 3);

	/* worker 0 drains: the bucket moves, the next packet goes to worker 1 */
	work(&t.bl[0], 8, 2);
	pkts[0] = flow_pkt(0, 7);
	CU_ASSERT_EQUAL(rps_steer_burst(&t.ctx, m1, bk, NULL, pkts, 1), 1);
	CU_ASSERT_EQUAL(rte_ring_count(t.bl[1].ring), 1);
	CU_ASSERT_EQUAL(t.stats.flows_migrated, 1);
	CU_ASSERT_EQUAL(t.stats.migrations_deferred, 3);

	/* without the table (the seed's behaviour) a remap applies at once */
	pkts[0] = flow_pkt(0, 8);
	rps_buckets_follow(bk, m0);
	CU_ASSERT_EQUAL(rps_steer_burst(&t.ctx, m0, NULL, NULL, pkts, 1), 1);
	CU_ASSERT_EQUAL(rte_ring_count(t.bl[0].ring), 1);

	/* reorder-safe turned back on with the same map: the table followed the remap made
	 * while off, so the flow stays on worker 0, behind its packet there, rather than go
	 * back to worker 1 (its stale owner) and overtake it */
	for (unsigned int i = 0; i < 4; i++)
		pkts[i] = flow_pkt(0, 9 + i);
	CU_ASSERT_EQUAL(rps_steer_burst(&t.ctx, m0, bk, NULL, pkts, 4), 4);
	CU_ASSERT_EQUAL(rte_ring_count(t.bl[0].ring), 5);
	CU_ASSERT_EQUAL(rte_ring_count(t.bl[1].ring), 1);
	work(&t.bl[0], 8, 5);
	work(&t.bl[1], 8, 1);

	rps_buckets_free(bk);
	rps_map_free(m1);
	bed_fini(&t);
}

/* Failover: a bucket whose old worker is marked failed (stalled) leaves it at once, each
 * such early move counted, and its queued packets stay where they are. */
static void
test_failover_move(void)
{
	static const uint16_t to0[1] = { 0 }, to1[1] = { 1 };
	struct rte_mbuf *pkts[8], *out[8];
	struct rps_map *m0, *m1;
	struct rps_buckets *bk;
	struct bed t;
	uint32_t left;

	bed_init(&t, 2, 64, 1, to0, RPS_HASH_JHASH, 0);
	m0 = t.map;
	m1 = rps_map_create(to1, NULL, 1, 1, 2, SOCKET_ID_ANY);
	bk = rps_buckets_create(16, SOCKET_ID_ANY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(bk);
	for (unsigned int i = 0; i < 4; i++)
		pkts[i] = flow_pkt(0, i);
	CU_ASSERT_EQUAL(rps_steer_burst(&t.ctx, m0, bk, NULL, pkts, 4), 4);
	/* remapped while worker 0 holds them: deferred, as long as worker 0 is healthy */
	pkts[0] = flow_pkt(0, 4);
	CU_ASSERT_EQUAL(rps_steer_burst(&t.ctx, m1, bk, NULL, pkts, 1), 1);
	CU_ASSERT_EQUAL(rte_ring_count(t.bl[0].ring), 5);
	CU_ASSERT_EQUAL(t.stats.failover_moves, 0);
	/* worker 0 stalls: the next packet goes to worker 1 at once, one failover move */
	rps_backlog_set_failed(&t.bl[0], 1);
	CU_ASSERT(rps_backlog_failed(&t.bl[0]));
	for (unsigned int i = 0; i < 3; i++)
		pkts[i] = flow_pkt(0, 5 + i);
	CU_ASSERT_EQUAL(rps_steer_burst(&t.ctx, m1, bk, NULL, pkts, 3), 3);
	CU_ASSERT_EQUAL(rte_ring_count(t.bl[0].ring), 5);
	CU_ASSERT_EQUAL(rte_ring_count(t.bl[1].ring), 3);
	CU_ASSERT_EQUAL(t.stats.failover_moves, 1);
	CU_ASSERT_EQUAL(t.stats.flows_migrated, 1);
	/* back: moves wait for it again (back to worker 0 only once worker 1 drained) */
	rps_backlog_set_failed(&t.bl[0], 0);
	pkts[0] = flow_pkt(0, 8);
	CU_ASSERT_EQUAL(rps_steer_burst(&t.ctx, m0, bk, NULL, pkts, 1), 1);
	CU_ASSERT_EQUAL(rte_ring_count(t.bl[1].ring), 4);
	CU_ASSERT_EQUAL(t.stats.failover_moves, 1);
	for (unsigned int w = 0; w < 2; w++) {
		uint32_t n;

		while ((n = rps_backlog_dequeue(&t.bl[w], out, 8, &left)) != 0) {
			rps_backlog_complete(&t.bl[w], n);
			rte_pktmbuf_free_bulk(out, n);
		}
	}
	rps_buckets_free(bk);
	rps_map_free(m1);
	bed_fini(&t);
}

/*
 * Reorder-safe remapping under a random schedule (one thread plays RX lcore and workers):
 * bursts from 120 flows, partial drains of random workers, remaps to random maps (each with
 * a new generation) — no packet may reach its worker after a later packet of its flow. The
 * small table settles often, so the settled fast path and the way back from it are both
 * exercised many times.
 */
struct stress_result {
	uint32_t late, settled_bursts, remaps;
	uint64_t deferred, migrated;
};

/* The random schedule; @p safe: through the reorder-safe table, or without it (every remap
 * applies at once: the control, where the order check must count late packets). */
static struct stress_result
reorder_stress(int safe)
{
	struct rte_mbuf *pkts[32], *out[16];
	struct stress_result r = { 0 };
	struct rps_order order;
	struct rps_buckets *bk;
	struct rps_map *cur;
	struct bed t;
	uint32_t rng = 7, gen = 1, late = 0, settled_bursts = 0, remaps = 0, left;
	unsigned int seq[120] = {0};

	bed_init(&t, 3, 64, 3, NULL, RPS_HASH_JHASH, 0);
	CU_ASSERT_EQUAL_FATAL(rps_order_init(&order, SOCKET_ID_ANY), 0);
	t.ctx.order = &order;
	bk = rps_buckets_create(64, SOCKET_ID_ANY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(bk);
	cur = t.map;
	for (unsigned int it = 0; it < 30000; it++) {
		unsigned int act;

		rng = rng * 1103515245u + 12345u;
		act = (rng >> 16) % 20;
		if (act < 9) {
			unsigned int k = 1 + (rng >> 8) % 32;

			for (unsigned int i = 0; i < k; i++) {
				unsigned int f;

				rng = rng * 1103515245u + 12345u;
				f = (rng >> 16) % 120;
				/* fragments and non-IP share one hash per datagram: keep to flows */
				if (f % 8 == 7)
					f--;
				pkts[i] = flow_pkt(f, seq[f]++ & 0x3fff);
			}
			if (safe) {
				settled_bursts += rps_buckets_settled(bk, cur);
				rps_steer_burst(&t.ctx, cur, bk, NULL, pkts, (uint16_t)k);
			} else {
				rps_steer_burst(&t.ctx, cur, NULL, NULL, pkts, (uint16_t)k);
			}
		} else if (act < 19) {
			uint16_t w = (uint16_t)((rng >> 8) % 3);
			uint32_t n = rps_backlog_dequeue(&t.bl[w], out, 1 + (rng >> 4) % 16, &left);

			late += rps_order_check(&order, out, (uint16_t)n);
			rte_pktmbuf_free_bulk(out, n);
			rps_backlog_complete(&t.bl[w], n);
		} else {
			uint16_t w[4];
			uint32_t len = 1 + (rng >> 8) % 4;

			for (uint32_t i = 0; i < len; i++)
				w[i] = (uint16_t)((rng >> (10 + 2 * i)) % 3);
			rps_map_free(cur == t.map ? NULL : cur);
			cur = rps_map_create(w, NULL, len, 16, ++gen, SOCKET_ID_ANY);
			CU_ASSERT_PTR_NOT_NULL_FATAL(cur);
			remaps++;
		}
	}
	for (uint16_t w = 0; w < 3; w++) {
		uint32_t n;

		while ((n = rps_backlog_dequeue(&t.bl[w], out, 16, &left)) != 0) {
			late += rps_order_check(&order, out, (uint16_t)n);
			rte_pktmbuf_free_bulk(out, n);
			rps_backlog_complete(&t.bl[w], n);
		}
	}
	r = (struct stress_result){ .late = late, .settled_bursts = settled_bursts,
				    .remaps = remaps, .deferred = t.stats.migrations_deferred,
				    .migrated = t.stats.flows_migrated };
	if (cur != t.map)
		rps_map_free(cur);
	rps_buckets_free(bk);
	rps_order_fini(&order);
	bed_fini(&t);
	return r;
}

static void
test_reorder_safe_stress(void)
{
	struct stress_result r = reorder_stress(1);

	CU_ASSERT_EQUAL(r.late, 0);
	CU_ASSERT(r.remaps > 500);
	CU_ASSERT(r.settled_bursts > 300);  /* the fast path ran */
	CU_ASSERT(r.deferred > 0);
	CU_ASSERT(r.migrated > 0);
	if (r.late != 0 || r.settled_bursts <= 300)
		printf("\nlate %u, settled bursts %u, remaps %u\n", r.late, r.settled_bursts,
		       r.remaps);
}

/* The control of the stress test: the same schedule without the reorder-safe table reorders
 * flows, and the order check counts them (a checker that always said 0 would fail here). */
static void
test_reorder_unsafe_control(void)
{
	struct stress_result r = reorder_stress(0);

	CU_ASSERT(r.late > 0);
	CU_ASSERT(r.remaps > 500);
	CU_ASSERT_EQUAL(r.deferred, 0);
	printf("\ncontrol without the table: late %u over %u remaps\n", r.late, r.remaps);
}

/* Offer @p k packets: pattern[i % plen] says elephant (flow 0) or the next mouse. */
static void
offer(struct bed *t, unsigned int k, const char *pattern, unsigned int *mouse, unsigned int *seq,
      unsigned int *mice_sent)
{
	struct rte_mbuf *pkts[32];
	unsigned int done = 0;

	while (done < k) {
		unsigned int n = RTE_MIN(32u, k - done);

		for (unsigned int i = 0; i < n; i++) {
			char c = pattern[(done + i) % strlen(pattern)];
			/* mice: IPv4/TCP flows 8, 16, 24, ... (flow_pkt()'s case 0) */
			unsigned int f = c == 'e' ? 0 : 8 * (1 + (*mouse)++ % 500);

			*mice_sent += c != 'e';
			pkts[i] = flow_pkt(f, (*seq)++);
		}
		rps_steer_burst(&t->ctx, t->map, NULL, NULL, pkts, (uint16_t)n);
		done += n;
	}
}

/* Mice in worker 0's ring (every packet that is not flow 0's). */
static unsigned int
mice_queued(struct bed *t)
{
	uint32_t h0, mice = 0, left;
	struct rte_mbuf *m0 = flow_pkt(0, 0), *out[64];
	unsigned int n;

	h0 = rps_hash_sw(m0, SEED);
	rte_pktmbuf_free(m0);
	while ((n = rps_backlog_dequeue(&t->bl[0], out, 64, &left)) != 0) {
		for (unsigned int i = 0; i < n; i++)
			mice += rps_hash_sw(out[i], SEED) != h0;
		rte_pktmbuf_free_bulk(out, n);
		rps_backlog_complete(&t->bl[0], n);
	}
	return mice;
}

/*
 * The flow limit: below half a backlog nothing is limited; above it an elephant holding more
 * than half of the last 256 packets is dropped while every mouse gets through. Without the
 * limit the backlog fills and mice are lost with the elephant.
 */
static void
test_flow_limit(void)
{
	unsigned int mouse = 0, seq = 0, mice_sent = 0;
	struct bed t;

	bed_init(&t, 1, 512, 1, NULL, RPS_HASH_JHASH, 0);
	CU_ASSERT_EQUAL_FATAL(rps_backlog_flow_limit_init(&t.bl[0], SOCKET_ID_ANY), 0);
	t.ctx.flow_limit = 1;
	offer(&t, 200, "e", &mouse, &seq, &mice_sent);           /* under half: all queued */
	CU_ASSERT_EQUAL(t.bl[0].prod.fl_drops, 0);
	CU_ASSERT_EQUAL(rps_backlog_depth(&t.bl[0]), 200);
	offer(&t, 400, "eeem", &mouse, &seq, &mice_sent);        /* over half: 3 elephant : 1 */
	CU_ASSERT(t.bl[0].prod.fl_drops > 0);
	CU_ASSERT_EQUAL(t.stats.dropped[RPS_DROP_FLOW_LIMIT], t.bl[0].prod.fl_drops);
	CU_ASSERT_EQUAL(t.stats.dropped[RPS_DROP_BACKLOG_FULL], 0);
	CU_ASSERT_EQUAL(rps_backlog_depth(&t.bl[0]), 600 - t.bl[0].prod.fl_drops);
	CU_ASSERT_EQUAL(mice_queued(&t), mice_sent);               /* no mouse lost */
	bed_fini(&t);

	/* the same offer without the limit: the backlog fills and mice are lost too */
	mouse = seq = mice_sent = 0;
	bed_init(&t, 1, 512, 1, NULL, RPS_HASH_JHASH, 0);
	offer(&t, 200, "e", &mouse, &seq, &mice_sent);
	offer(&t, 400, "eeem", &mouse, &seq, &mice_sent);
	CU_ASSERT_EQUAL(t.stats.dropped[RPS_DROP_FLOW_LIMIT], 0);
	CU_ASSERT_EQUAL(t.stats.dropped[RPS_DROP_BACKLOG_FULL], 88);
	CU_ASSERT(mice_queued(&t) < mice_sent);
	bed_fini(&t);
}

/* Per-bucket counters: every packet counted once in its map bucket, with its bytes; a map of
 * another size restarts them (epoch). */
static void
test_bucket_stats(void)
{
	struct rps_bucket_stats *bs = rps_bucket_stats_create(SOCKET_ID_ANY);
	uint64_t want_pk[8] = { 0 }, want_by[8] = { 0 }, sum = 0;
	struct rte_mbuf *pkts[MAX_BURST], *out[MAX_BURST];
	struct rps_map *m16;
	uint16_t w[16];
	uint32_t left, epoch;
	struct bed t;

	CU_ASSERT_PTR_NOT_NULL_FATAL(bs);
	bed_init(&t, 4, 1024, 8, NULL, RPS_HASH_JHASH, 1);
	for (unsigned int round = 0; round < 3; round++) {
		for (unsigned int i = 0; i < 60; i++) {
			pkts[i] = flow_pkt(i % 40, round * 60 + i);
			CU_ASSERT_PTR_NOT_NULL_FATAL(pkts[i]);
			want_pk[rps_hash_sw(pkts[i], SEED) >> 29]++;
			want_by[rps_hash_sw(pkts[i], SEED) >> 29] += pkts[i]->pkt_len;
		}
		CU_ASSERT_EQUAL(rps_steer_burst(&t.ctx, t.map, NULL, bs, pkts, 60), 60);
	}
	CU_ASSERT_EQUAL(bs->mask, 7);
	for (unsigned int b = 0; b < 8; b++) {
		CU_ASSERT_EQUAL(bs->b[b].packets, want_pk[b]);
		CU_ASSERT_EQUAL(bs->b[b].bytes, want_by[b]);
		sum += bs->b[b].packets;
	}
	CU_ASSERT_EQUAL(sum, 180);
	for (unsigned int b = 8; b < RPS_MAP_SIZE_MAX; b++)
		CU_ASSERT_EQUAL(bs->b[b].packets, 0);
	/* a table of 16: the counters start again at that size */
	for (unsigned int i = 0; i < 16; i++)
		w[i] = (uint16_t)(i % 4);
	m16 = rps_map_create_table(w, 16, 2, SOCKET_ID_ANY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m16);
	for (unsigned int i = 0; i < 10; i++)
		pkts[i] = flow_pkt(3, 1000 + i);
	epoch = bs->epoch;
	CU_ASSERT_EQUAL(rps_steer_burst(&t.ctx, m16, NULL, bs, pkts, 10), 10);
	CU_ASSERT_EQUAL(bs->mask, 15);
	CU_ASSERT_EQUAL(bs->epoch, epoch + 2);
	sum = 0;
	for (unsigned int b = 0; b < 16; b++)
		sum += bs->b[b].packets;
	CU_ASSERT_EQUAL(sum, 10);
	for (uint16_t k = 0; k < 4; k++) {
		uint32_t n;

		while ((n = rps_backlog_dequeue(&t.bl[k], out, MAX_BURST, &left)) != 0) {
			rte_pktmbuf_free_bulk(out, n);
			rps_backlog_complete(&t.bl[k], n);
		}
	}
	rps_map_free(m16);
	rps_bucket_stats_free(bs);
	bed_fini(&t);
}

/* --check-order buckets hold the RX queue: two queues' flows with the same top hash bits (on
 * different workers under per-queue maps) never share a bucket; within one queue the bucket
 * is the hash's top bits, finer than any map's. */
static void
test_order_queues(void)
{
	struct rps_order o;
	struct rte_mbuf *a = flow_pkt(1, 0), *b = flow_pkt(2, 0);
	const uint32_t h = 0xabcde123;
	uint64_t sa, sb;

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL_FATAL(rps_order_init(&o, SOCKET_ID_ANY), 0);
	rps_order_stamp(&o, a, h, 0);
	sa = *RTE_MBUF_DYNFIELD(a, o.dynfield, uint64_t *);
	CU_ASSERT_EQUAL(sa >> 32, h >> (32 - RPS_ORDER_BITS));
	rps_order_set_queues(&o, 3);
	CU_ASSERT_EQUAL(o.qbits, 2);
	rps_order_stamp(&o, a, h, 0);
	rps_order_stamp(&o, b, h, 2);
	sa = *RTE_MBUF_DYNFIELD(a, o.dynfield, uint64_t *);
	sb = *RTE_MBUF_DYNFIELD(b, o.dynfield, uint64_t *);
	CU_ASSERT_NOT_EQUAL(sa >> 32, sb >> 32);
	CU_ASSERT_EQUAL(sa >> 32, h >> (32 - RPS_ORDER_BITS + 2));
	CU_ASSERT_EQUAL(sb >> 32, (2u << (RPS_ORDER_BITS - 2)) | h >> (32 - RPS_ORDER_BITS + 2));
	/* the top 12 bits (the largest map's bucket) are inside the order bucket */
	CU_ASSERT_EQUAL(((sa >> 32) & ((1u << (RPS_ORDER_BITS - 2)) - 1)) >> (RPS_ORDER_BITS - 14),
			h >> 20);
	rte_pktmbuf_free(a);
	rte_pktmbuf_free(b);
	rps_order_fini(&o);
}

/* Steering rules before the map: a drop rule's packets freed and counted as `rule`, a worker
 * rule's on its worker in order past the map (and past a reorder-safe table with a new map),
 * the rest through the map; hits per rule. */
static void
test_rules_pass(void)
{
	const char *const txt[] = { "udp dport 53 -> worker 2", "tcp -> drop" };
	const uint16_t only0[] = { 0 };
	struct rps_rule r[2];
	uint16_t tg[2];
	uint64_t hits[RPS_RULE_SLOTS] = { 0 };
	struct rps_rules *rs;
	struct rps_buckets *bk;
	char e[128];
	struct bed t;

	for (int i = 0; i < 2; i++) {
		CU_ASSERT_FATAL(rps_rule_parse(txt[i], &r[i], e, sizeof(e)) == 0);
		CU_ASSERT_FATAL(rps_rule_resolve(&r[i], 3, NULL, 0, &tg[i], e, sizeof(e)) == 0);
	}
	rs = rps_rules_build(r, tg, 2, 1, SOCKET_ID_ANY);
	CU_ASSERT_FATAL(rs != NULL);
	bk = rps_buckets_create(RPS_MAP_SIZE_MAX, SOCKET_ID_ANY);
	CU_ASSERT_FATAL(bk != NULL);
	for (int safe = 0; safe < 2; safe++) {
		struct rte_mbuf *pk[30], *out[64];
		uint32_t left, got;

		bed_init(&t, 3, 64, 1, only0, RPS_HASH_JHASH, 0); /* the map: all to worker 0 */
		t.ctx.rules = rs;
		t.ctx.rule_hits = hits;
		memset(hits, 0, sizeof(hits));
		if (safe) { /* the caller's slots (the application's counts across sets) */
			rs->slot[0] = RPS_RULE_SLOTS - 1;
			rs->slot[1] = 5;
		}
		for (unsigned int i = 0; i < RTE_DIM(pk); i++) {
			struct ut_pkt p;

			ut_pkt_v4(&p, UT_IP4(i), UT_IP4(1000), i < 20 ? IPPROTO_UDP : IPPROTO_TCP,
				  (uint16_t)(100 + i), i < 10 ? 53 : 54);
			pk[i] = ut_mbuf(p.b, p.len);
			CU_ASSERT_FATAL(pk[i] != NULL);
		}
		CU_ASSERT(rps_steer_burst(&t.ctx, t.map, safe ? bk : NULL, NULL, pk, 30) == 20);
		CU_ASSERT(hits[rs->slot[0]] == 10 && hits[rs->slot[1]] == 10);
		CU_ASSERT(hits[0] + hits[1] + hits[5] + hits[RPS_RULE_SLOTS - 1] == 20);
		CU_ASSERT(t.stats.dropped[RPS_DROP_RULE] == 10 && t.stats.rule_steered == 10);
		CU_ASSERT(t.stats.enqueued == 20);
		got = rps_backlog_dequeue(&t.bl[2], out, 64, &left);
		CU_ASSERT(got == 10);
		for (uint32_t j = 0; j < got; j++) {
			CU_ASSERT(out[j] == pk[j]); /* in order: the first 10 (the compacted burst) */
			rte_pktmbuf_free(out[j]);
		}
		rps_backlog_complete(&t.bl[2], got);
		got = rps_backlog_dequeue(&t.bl[0], out, 64, &left);
		CU_ASSERT(got == 10);
		rte_pktmbuf_free_bulk(out, got);
		rps_backlog_complete(&t.bl[0], got);
		CU_ASSERT(rps_backlog_dequeue(&t.bl[1], out, 64, &left) == 0);
		bed_fini(&t);
	}
	rps_buckets_free(bk);
	rps_rules_free(rs);
}

/*
 * With rules and a software hash the rules' flow keys are hashed, not extracted again: every
 * packet the rules leave to the map must land where its own extracted key's hash sends it,
 * for jhash and Toeplitz, sorted (symmetric) or not, on the mixed flows (IPv4, IPv6, a VLAN
 * tag, fragments, a non-IP frame), with and without per-bucket counters; the ruled ones on
 * their rule's worker, all in order.
 */
static void
test_rules_shared_key(void)
{
	const char *const txt[] = { "udp dport 82 -> worker 1", "tcp dport 81 -> worker 2",
				    "udp dport 80 -> drop" };
	struct rps_rule r[3];
	uint16_t tg[3];
	uint64_t hits[RPS_RULE_SLOTS] = { 0 };
	struct rps_rules *rs;
	struct rps_bucket_stats *bs = rps_bucket_stats_create(SOCKET_ID_ANY);
	char e[128];

	CU_ASSERT_FATAL(bs != NULL);
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_FATAL(rps_rule_parse(txt[i], &r[i], e, sizeof(e)) == 0);
		CU_ASSERT_FATAL(rps_rule_resolve(&r[i], 4, NULL, 0, &tg[i], e, sizeof(e)) == 0);
	}
	rs = rps_rules_build(r, tg, 3, 1, SOCKET_ID_ANY);
	CU_ASSERT_FATAL(rs != NULL);
	for (int v = 0; v < 8; v++) {
		const enum rps_hash_mode mode = v & 1 ? RPS_HASH_TOEPLITZ : RPS_HASH_JHASH;
		struct rte_mbuf *pkts[MAX_BURST], *orig[MAX_BURST];
		unsigned int flow[MAX_BURST], seq[MAX_BURST], ruled = 0, dropped = 0;
		uint16_t want[MAX_BURST], match[MAX_BURST];
		struct bed t;

		bed_init(&t, 4, 1024, 16, NULL, mode, 1);
		CU_ASSERT_FATAL(rps_toeplitz_init(&t.ctx.toeplitz, rps_toeplitz_default_key,
						  RPS_TOEPLITZ_KEY_LEN, RPS_TOEPLITZ_AUTO) == 0);
		t.ctx.symmetric = v & 2 ? RPS_SYM_SORT : RPS_SYM_OFF;
		t.ctx.rules = rs;
		t.ctx.rule_hits = hits;
		make_burst(pkts, MAX_BURST, flow, seq, 0);
		rps_rules_classify(rs, pkts, MAX_BURST, match);
		for (unsigned int i = 0; i < MAX_BURST; i++) {
			want[i] = match[i] != RPS_RULE_NONE ? tg[match[i]] :
				  rps_map_worker(t.map, rps_steer_sw_hash(&t.ctx, pkts[i]));
			dropped += match[i] == 2;
			ruled += match[i] != RPS_RULE_NONE && match[i] != 2;
			orig[i] = pkts[i];
		}
		/* drops between kept packets: the keys are compacted with the burst */
		CU_ASSERT(ruled > 0 && dropped > 0 && ruled + dropped < MAX_BURST);
		memset(bs->b, 0, sizeof(bs->b)); /* the last round's second burst */
		CU_ASSERT_EQUAL(rps_steer_burst(&t.ctx, t.map, NULL, v & 4 ? bs : NULL, pkts,
						MAX_BURST), MAX_BURST - dropped);
		CU_ASSERT_EQUAL(t.stats.hash_computed, MAX_BURST - dropped);
		CU_ASSERT_EQUAL(t.stats.rule_steered, ruled);
		if (v & 4) { /* the buckets count what the map steered, not the rules' */
			uint64_t counted = 0;

			for (unsigned int b = 0; b < RPS_MAP_SIZE_MAX; b++)
				counted += bs->b[b].packets;
			CU_ASSERT_EQUAL(counted, MAX_BURST - dropped - ruled);
		}
		drain_and_check(&t, orig, MAX_BURST, want, MAX_BURST - dropped);
		/* and a burst no rule matches (the one-pass path, keys shared) */
		for (unsigned int i = 0; i < MAX_BURST; i++) {
			struct ut_pkt p;

			ut_pkt_v6(&p, i, 1000, IPPROTO_UDP, (uint16_t)(1000 + i), 53);
			pkts[i] = ut_mbuf(p.b, p.len);
			CU_ASSERT_FATAL(pkts[i] != NULL);
			want[i] = rps_map_worker(t.map, rps_steer_sw_hash(&t.ctx, pkts[i]));
		}
		CU_ASSERT_EQUAL(rps_steer_burst(&t.ctx, t.map, NULL, v & 4 ? bs : NULL, pkts,
						MAX_BURST), MAX_BURST);
		CU_ASSERT_EQUAL(t.stats.hash_computed, 2 * MAX_BURST - dropped);
		drain_and_check(&t, pkts, MAX_BURST, want, MAX_BURST);
		bed_fini(&t);
	}
	rps_bucket_stats_free(bs);
	rps_rules_free(rs);
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "init", test_init },
		{ "rules_pass", test_rules_pass },
		{ "rules_shared_key", test_rules_shared_key },
		{ "reorder_safe_stress", test_reorder_safe_stress },
		{ "reorder_unsafe_control", test_reorder_unsafe_control },
		{ "flow_limit", test_flow_limit },
		{ "steer_hash", test_steer_hash },
		{ "steer_jhash", test_steer_jhash },
		{ "steer_empty_burst", test_steer_empty_burst },
		{ "steer_overflow", test_steer_overflow },
		{ "steer_rss", test_steer_rss },
		{ "steer_jhash_lanes", test_steer_jhash_lanes },
		{ "steer_rss_targeted", test_steer_rss_targeted },
		{ "reorder_safe_remap", test_reorder_safe_remap },
		{ "failover_move", test_failover_move },
		{ "bucket_stats", test_bucket_stats },
		{ "order_queues", test_order_queues },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "steer", tests);
}
