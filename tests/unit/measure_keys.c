/* SPDX-License-Identifier: BSD-3-Clause */
/* measure_keys.c: cycles per packet of each steering-hash mode (docs/steering-keys.md), warm
 * headers, rps_steer_hash() over a burst of 4096 packets. A measurement, not a test: built,
 * not registered; run build/tests/unit/measure_keys. */
#include <stdio.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <rte_cycles.h>

#include "rps_steer.h"
#include "rps_toeplitz.h"
#include "test_common.h"

#define NPKT 4096
#define ROUNDS 200

static struct rte_mbuf *pk[NPKT];

/* IPv4 TCP, IPv6 UDP or ARP (kind 0, 1, 2) of random flows. */
static void
make(int kind, int nic_hash)
{
	uint64_t s = 42;

	for (unsigned int i = 0; i < NPKT; i++) {
		struct ut_pkt p;
		uint64_t r = ut_rand(&s);

		if (kind == 0) {
			ut_pkt_v4(&p, UT_IP4(r & 0x1ffff), UT_IP4((r >> 17) & 0x1ffff), IPPROTO_TCP,
				  (uint16_t)(r >> 34), (uint16_t)(r >> 50));
		} else if (kind == 1) {
			ut_pkt_v6(&p, (uint32_t)r, (uint32_t)(r >> 32), IPPROTO_UDP,
				  (uint16_t)(r >> 7), (uint16_t)(r >> 23));
		} else {
			ut_pkt_init(&p);
			ut_put_eth(&p, RTE_ETHER_TYPE_ARP);
			memcpy(p.b + 6, &r, 6);
			p.b[6] &= 0xfe;
			ut_put(&p, NULL, 46);
		}
		pk[i] = ut_mbuf(p.b, p.len);
		if (nic_hash) {
			pk[i]->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
			pk[i]->hash.rss = (uint32_t)(r >> 11);
		}
	}
}

static void
drop(void)
{
	for (unsigned int i = 0; i < NPKT; i++)
		rte_pktmbuf_free(pk[i]);
}

static double
cycles(const struct rps_steer_ctx *ctx)
{
	uint32_t computed = 0, sink = 0;
	uint64_t best = UINT64_MAX;

	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = rte_rdtsc_precise(), t;

		for (unsigned int i = 0; i < NPKT; i++)
			sink += rps_steer_hash(ctx, pk[i], &computed);
		t = rte_rdtsc_precise() - t0;
		best = t < best ? t : best;
	}
	CU_ASSERT(sink != 1); /* keep the loop */
	return (double)best / NPKT;
}

static void
measure(void)
{
	static const char *const kinds[] = { "IPv4 TCP", "IPv6 UDP", "non-IP (ARP)" };
	struct rps_steer_ctx ctx;
	uint8_t key[RPS_TOEPLITZ_KEY_LEN];
	struct {
		const char *name;
		enum rps_hash_mode mode;
		enum rps_sym_mode sym;
		enum rps_toeplitz_impl impl;
		int nic;
	} rows[] = {
		{ "auto, NIC hash in the mbuf", RPS_HASH_AUTO, RPS_SYM_OFF, RPS_TOEPLITZ_AUTO, 1 },
		{ "auto --symmetric-xor, NIC hash", RPS_HASH_AUTO, RPS_SYM_XOR, RPS_TOEPLITZ_AUTO, 1 },
		{ "auto --symmetric, NIC hash ignored", RPS_HASH_AUTO, RPS_SYM_SORT, RPS_TOEPLITZ_AUTO,
		  1 },
		{ "jhash", RPS_HASH_JHASH, RPS_SYM_OFF, RPS_TOEPLITZ_AUTO, 0 },
		{ "jhash --symmetric (sorted)", RPS_HASH_JHASH, RPS_SYM_SORT, RPS_TOEPLITZ_AUTO, 0 },
		{ "toeplitz (GFNI if any)", RPS_HASH_TOEPLITZ, RPS_SYM_OFF, RPS_TOEPLITZ_AUTO, 0 },
		{ "toeplitz --symmetric (sorted)", RPS_HASH_TOEPLITZ, RPS_SYM_SORT, RPS_TOEPLITZ_AUTO,
		  0 },
		{ "toeplitz --symmetric-xor", RPS_HASH_TOEPLITZ, RPS_SYM_XOR, RPS_TOEPLITZ_AUTO, 0 },
		{ "toeplitz softrss", RPS_HASH_TOEPLITZ, RPS_SYM_OFF, RPS_TOEPLITZ_SOFT, 0 },
		{ "toeplitz softrss --symmetric", RPS_HASH_TOEPLITZ, RPS_SYM_SORT, RPS_TOEPLITZ_SOFT,
		  0 },
	};

	CU_ASSERT_EQUAL_FATAL(rps_toeplitz_key_random(key, sizeof(key)), 0);
	printf("\ncycles per packet, best of %d rounds of %d warm packets (TSC %.2f GHz)\n",
	       ROUNDS, NPKT, rte_get_tsc_hz() / 1e9);
	printf("%-38s %10s %10s %12s\n", "mode", kinds[0], kinds[1], kinds[2]);
	for (unsigned int r = 0; r < RTE_DIM(rows); r++) {
		printf("%-38s", rows[r].name);
		for (int k = 0; k < 3; k++) {
			memset(&ctx, 0, sizeof(ctx));
			ctx.mode = rows[r].mode;
			ctx.symmetric = rows[r].sym;
			ctx.seed = 0x5eed;
			if (rps_toeplitz_init(&ctx.toeplitz, rows[r].sym == RPS_SYM_XOR ?
					      rps_toeplitz_symmetric_key : key, sizeof(key),
					      rows[r].impl) < 0) {
				printf(" %10s", "n/a");
				continue;
			}
			make(k, rows[r].nic);
			printf(" %10.1f", cycles(&ctx));
			drop();
		}
		printf("\n");
	}
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "measure", measure },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "measure_keys", tests);
}
