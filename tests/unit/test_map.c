/* SPDX-License-Identifier: BSD-3-Clause */
/* test_map.c: lcore-set parsing/formatting and the hash-to-worker map (lib/rps/map.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_memory.h>

#include <pthread.h>
#include <sched.h>
#include <rte_rcu_qsbr.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include "rps_map.h"
#include "test_common.h"

/* The set of lcores lo..hi (empty when lo > hi). */
static struct rps_lcoreset
range_set(int lo, int hi)
{
	struct rps_lcoreset s;

	memset(&s, 0, sizeof(s));
	for (int l = lo; l <= hi; l++)
		rps_lcoreset_add(&s, (unsigned int)l);
	return s;
}

static int
set_eq(const struct rps_lcoreset *a, const struct rps_lcoreset *b)
{
	return memcmp(a->bits, b->bits, sizeof(a->bits)) == 0;
}

static void
test_lcoreset_basics(void)
{
	struct rps_lcoreset s;

	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(rps_lcoreset_count(&s), 0);
	rps_lcoreset_add(&s, 0);
	rps_lcoreset_add(&s, 63);
	rps_lcoreset_add(&s, 64);
	rps_lcoreset_add(&s, RTE_MAX_LCORE - 1);
	rps_lcoreset_add(&s, RTE_MAX_LCORE);       /* ignored */
	rps_lcoreset_add(&s, RTE_MAX_LCORE + 100); /* ignored */
	CU_ASSERT_EQUAL(rps_lcoreset_count(&s), RTE_MAX_LCORE > 64 ? 4 : 3);
	CU_ASSERT_TRUE(rps_lcoreset_has(&s, 0));
	CU_ASSERT_TRUE(rps_lcoreset_has(&s, 63));
	CU_ASSERT_TRUE(rps_lcoreset_has(&s, RTE_MAX_LCORE - 1));
	CU_ASSERT_FALSE(rps_lcoreset_has(&s, 1));
	CU_ASSERT_FALSE(rps_lcoreset_has(&s, RTE_MAX_LCORE));
	CU_ASSERT_FALSE(rps_lcoreset_has(&s, 100000));
	s = range_set(0, RTE_MAX_LCORE - 1);
	CU_ASSERT_EQUAL(rps_lcoreset_count(&s), RTE_MAX_LCORE);
}

static void
test_parse_good(void)
{
	static const struct {
		const char *s;
		int lo, hi;      /* range in the set, lo > hi for none */
		int extra;       /* one more lcore, or -1 */
		unsigned int count;
	} cases[] = {
		{ "fe", 1, 7, -1, 7 },
		{ "0xfe", 1, 7, -1, 7 },
		{ "0XFE", 1, 7, -1, 7 },
		{ "FE", 1, 7, -1, 7 },
		{ "ff,ffffffff", 0, 39, -1, 40 },
		{ "0xff,ffffffff", 0, 39, -1, 40 },
		{ "1,00000000", 1, 0, 32, 1 },
		{ "1", 0, 0, -1, 1 },
		{ "80000000", 1, 0, 31, 1 },
		{ "1-3,5", 1, 3, 5, 4 },
		{ "7-7", 7, 7, -1, 1 },
		{ "0-0", 0, 0, -1, 1 },
		{ "5,1-3", 1, 3, 5, 4 },
		{ "0", 1, 0, -1, 0 },
		{ "00000000", 1, 0, -1, 0 },
		{ "0,0", 1, 0, -1, 0 },
	};

	for (unsigned int i = 0; i < RTE_DIM(cases); i++) {
		struct rps_lcoreset s, want;
		unsigned int bad = 12345;
		int rc;

		want = range_set(cases[i].lo, cases[i].hi);
		if (cases[i].extra >= 0)
			rps_lcoreset_add(&want, (unsigned int)cases[i].extra);
		memset(&s, 0xff, sizeof(s));
		rc = rps_lcoreset_parse(cases[i].s, &s, &bad);
		CU_ASSERT_EQUAL(rc, 0);
		if (rc != 0)
			fprintf(stderr, "\n  parse '%s' -> %d\n", cases[i].s, rc);
		CU_ASSERT_TRUE(set_eq(&s, &want));
		CU_ASSERT_EQUAL(rps_lcoreset_count(&s), cases[i].count);
		/* bad_lcore may be NULL */
		CU_ASSERT_EQUAL(rps_lcoreset_parse(cases[i].s, &s, NULL), 0);
		CU_ASSERT_TRUE(set_eq(&s, &want));
	}
}

static void
test_parse_bad(void)
{
	static const char *const bad[] = {
		"", "xyz", "0x", "0X", "1-", "-3", "3-1", "1,,2", "123456789", "1-3,x", ",1", "1,",
		"fe ", " fe", "0xfg", "1-3,", "1--3", "1-3-5", "x1-3", "+1", "1-+3", "0x0x1",
		"1-3,,5", "1 - 3",
	};

	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		struct rps_lcoreset s;
		int rc = rps_lcoreset_parse(bad[i], &s, NULL);

		CU_ASSERT_EQUAL(rc, -EINVAL);
		if (rc != -EINVAL)
			fprintf(stderr, "\n  parse '%s' -> %d, want -EINVAL\n", bad[i], rc);
	}
	{
		struct rps_lcoreset s;

		CU_ASSERT_EQUAL(rps_lcoreset_parse(NULL, &s, NULL), -EINVAL);
	}
}

/* Hex text with exactly bit @p bit set, as 32-bit groups. */
static void
hex_with_bit(char *buf, size_t len, unsigned int bit)
{
	int n = snprintf(buf, len, "%x", 1u << (bit % 32));

	for (unsigned int g = 0; g < bit / 32; g++)
		n += snprintf(buf + n, len - (size_t)n, ",%08x", 0u);
}

static void
test_parse_range(void)
{
	struct rps_lcoreset s;
	unsigned int bad;
	char buf[256];

	/* list: a range that runs past the end reports RTE_MAX_LCORE, the first bad id */
	bad = 0;
	CU_ASSERT_EQUAL(rps_lcoreset_parse("1-200", &s, &bad), -ERANGE);
	CU_ASSERT_EQUAL(bad, RTE_MAX_LCORE);
	snprintf(buf, sizeof(buf), "0-%u", RTE_MAX_LCORE);
	bad = 0;
	CU_ASSERT_EQUAL(rps_lcoreset_parse(buf, &s, &bad), -ERANGE);
	CU_ASSERT_EQUAL(bad, RTE_MAX_LCORE);
	snprintf(buf, sizeof(buf), "0-%u", RTE_MAX_LCORE - 1);
	CU_ASSERT_EQUAL(rps_lcoreset_parse(buf, &s, &bad), 0);
	CU_ASSERT_EQUAL(rps_lcoreset_count(&s), RTE_MAX_LCORE);
	/* a range that starts out of range reports its start */
	snprintf(buf, sizeof(buf), "1-3,%u-%u", RTE_MAX_LCORE + 5, RTE_MAX_LCORE + 9);
	bad = 0;
	CU_ASSERT_EQUAL(rps_lcoreset_parse(buf, &s, &bad), -ERANGE);
	CU_ASSERT_EQUAL(bad, RTE_MAX_LCORE + 5);
	snprintf(buf, sizeof(buf), "2,%u-%u", RTE_MAX_LCORE + 77, RTE_MAX_LCORE + 77);
	bad = 0;
	CU_ASSERT_EQUAL(rps_lcoreset_parse(buf, &s, &bad), -ERANGE);
	CU_ASSERT_EQUAL(bad, RTE_MAX_LCORE + 77);

	/* hex: one bit past the last lcore, and the highest bit that is allowed */
	hex_with_bit(buf, sizeof(buf), RTE_MAX_LCORE);
	bad = 0;
	CU_ASSERT_EQUAL(rps_lcoreset_parse(buf, &s, &bad), -ERANGE);
	CU_ASSERT_EQUAL(bad, RTE_MAX_LCORE);
	hex_with_bit(buf, sizeof(buf), RTE_MAX_LCORE + 40);
	bad = 0;
	CU_ASSERT_EQUAL(rps_lcoreset_parse(buf, &s, &bad), -ERANGE);
	CU_ASSERT_EQUAL(bad, RTE_MAX_LCORE + 40);
	hex_with_bit(buf, sizeof(buf), RTE_MAX_LCORE - 1);
	CU_ASSERT_EQUAL(rps_lcoreset_parse(buf, &s, &bad), 0);
	CU_ASSERT_EQUAL(rps_lcoreset_count(&s), 1);
	CU_ASSERT_TRUE(rps_lcoreset_has(&s, RTE_MAX_LCORE - 1));
	/* leading zero groups beyond RTE_MAX_LCORE are harmless */
	snprintf(buf, sizeof(buf), "0,");
	hex_with_bit(buf + 2, sizeof(buf) - 2, RTE_MAX_LCORE - 1);
	CU_ASSERT_EQUAL(rps_lcoreset_parse(buf, &s, &bad), 0);
	CU_ASSERT_TRUE(rps_lcoreset_has(&s, RTE_MAX_LCORE - 1));
}

static void
test_check(void)
{
	struct rps_lcoreset want, enabled;
	unsigned int bad;

	enabled = range_set(0, 7);
	want = range_set(1, 3);
	bad = 999;
	CU_ASSERT_EQUAL(rps_lcoreset_check(&want, &enabled, 0, &bad), 0);
	/* the RX lcore cannot be a worker */
	bad = 999;
	CU_ASSERT_EQUAL(rps_lcoreset_check(&want, &enabled, 2, &bad), -EBUSY);
	CU_ASSERT_EQUAL(bad, 2);
	/* an lcore the EAL was not given */
	want = range_set(5, 9);
	bad = 999;
	CU_ASSERT_EQUAL(rps_lcoreset_check(&want, &enabled, 0, &bad), -ENODEV);
	CU_ASSERT_EQUAL(bad, 8);
	memset(&want, 0, sizeof(want));
	rps_lcoreset_add(&want, 3);
	rps_lcoreset_add(&want, RTE_MAX_LCORE - 1);
	bad = 999;
	CU_ASSERT_EQUAL(rps_lcoreset_check(&want, &enabled, 0, &bad), -ENODEV);
	CU_ASSERT_EQUAL(bad, RTE_MAX_LCORE - 1);
	/* the empty set is fine */
	memset(&want, 0, sizeof(want));
	CU_ASSERT_EQUAL(rps_lcoreset_check(&want, &enabled, 0, &bad), 0);
	/* the RX lcore may be outside the enabled set; it only matters when wanted */
	want = range_set(4, 7);
	CU_ASSERT_EQUAL(rps_lcoreset_check(&want, &enabled, 100, &bad), 0);
}

static void
test_format(void)
{
	static const char *const round[] = { "fe", "ff,ffffffff", "0", "1,00000000",
					     "80000000,00000001" };
	char buf[256];

	for (unsigned int i = 0; i < RTE_DIM(round); i++) {
		struct rps_lcoreset s, s2;
		int n;

		CU_ASSERT_EQUAL_FATAL(rps_lcoreset_parse(round[i], &s, NULL), 0);
		memset(buf, 'X', sizeof(buf));
		n = rps_lcoreset_format(&s, buf, sizeof(buf));
		CU_ASSERT_EQUAL(n, (int)strlen(round[i]));
		CU_ASSERT_STRING_EQUAL(buf, round[i]);
		CU_ASSERT_EQUAL(rps_lcoreset_parse(buf, &s2, NULL), 0);
		CU_ASSERT_TRUE(set_eq(&s, &s2));
	}
	/* lists and 0x come back as canonical hex */
	{
		struct rps_lcoreset s;

		CU_ASSERT_EQUAL_FATAL(rps_lcoreset_parse("1-3,5", &s, NULL), 0);
		CU_ASSERT_EQUAL(rps_lcoreset_format(&s, buf, sizeof(buf)), 2);
		CU_ASSERT_STRING_EQUAL(buf, "2e");
		CU_ASSERT_EQUAL_FATAL(rps_lcoreset_parse("0x00fe", &s, NULL), 0);
		CU_ASSERT_EQUAL(rps_lcoreset_format(&s, buf, sizeof(buf)), 2);
		CU_ASSERT_STRING_EQUAL(buf, "fe");
	}
	/* the highest lcore, and every lcore */
	{
		struct rps_lcoreset s, s2;
		char want[256];

		memset(&s, 0, sizeof(s));
		rps_lcoreset_add(&s, RTE_MAX_LCORE - 1);
		hex_with_bit(want, sizeof(want), RTE_MAX_LCORE - 1);
		CU_ASSERT_EQUAL(rps_lcoreset_format(&s, buf, sizeof(buf)), (int)strlen(want));
		CU_ASSERT_STRING_EQUAL(buf, want);
		s = range_set(0, RTE_MAX_LCORE - 1);
		CU_ASSERT(rps_lcoreset_format(&s, buf, sizeof(buf)) > 0);
		CU_ASSERT_EQUAL(rps_lcoreset_parse(buf, &s2, NULL), 0);
		CU_ASSERT_TRUE(set_eq(&s, &s2));
	}
	/* too small a buffer: -ENOSPC, never an overflow */
	{
		struct rps_lcoreset s;
		char small[16];

		CU_ASSERT_EQUAL_FATAL(rps_lcoreset_parse("ff,ffffffff", &s, NULL), 0);
		memset(small, 'X', sizeof(small));
		CU_ASSERT_EQUAL(rps_lcoreset_format(&s, small, 11), -ENOSPC);
		CU_ASSERT_EQUAL(small[11], 'X');
		CU_ASSERT_EQUAL(rps_lcoreset_format(&s, small, 12), 11);
		CU_ASSERT_STRING_EQUAL(small, "ff,ffffffff");
		CU_ASSERT_EQUAL(rps_lcoreset_format(&s, small, 2), -ENOSPC);
		CU_ASSERT_EQUAL(rps_lcoreset_format(&s, small, 0), -ENOSPC);
	}
}

/* Weighted lists: the lcores, and each one's weight. */
static void
test_parse_weights(void)
{
	struct rps_lcoreset s;
	char buf[256];

	CU_ASSERT_EQUAL_FATAL(rps_lcoreset_parse("1:2,2:1,3:1", &s, NULL), 0);
	CU_ASSERT_EQUAL(rps_lcoreset_count(&s), 3);
	CU_ASSERT_EQUAL(rps_lcoreset_weight(&s, 1), 2);
	CU_ASSERT_EQUAL(rps_lcoreset_weight(&s, 2), 1);
	CU_ASSERT_EQUAL(rps_lcoreset_weight(&s, 3), 1);
	CU_ASSERT_EQUAL(rps_lcoreset_weight(&s, 4), 0);
	CU_ASSERT_TRUE(rps_lcoreset_weighted(&s));
	CU_ASSERT(rps_lcoreset_format_list(&s, 1, buf, sizeof(buf)) > 0);
	CU_ASSERT_STRING_EQUAL(buf, "1:2,2:1,3:1");
	/* a range takes one weight; an lcore without weight is 1; the last weight wins */
	CU_ASSERT_EQUAL_FATAL(rps_lcoreset_parse("1-3:3,5,3:4096", &s, NULL), 0);
	CU_ASSERT_EQUAL(rps_lcoreset_count(&s), 4);
	CU_ASSERT_EQUAL(rps_lcoreset_weight(&s, 1), 3);
	CU_ASSERT_EQUAL(rps_lcoreset_weight(&s, 2), 3);
	CU_ASSERT_EQUAL(rps_lcoreset_weight(&s, 3), 4096);
	CU_ASSERT_EQUAL(rps_lcoreset_weight(&s, 5), 1);
	/* ':' alone makes a list: "5:1" is lcore 5, not hex 0x5 */
	CU_ASSERT_EQUAL_FATAL(rps_lcoreset_parse("5:1", &s, NULL), 0);
	CU_ASSERT_TRUE(rps_lcoreset_has(&s, 5));
	CU_ASSERT_EQUAL(rps_lcoreset_count(&s), 1);
	CU_ASSERT_FALSE(rps_lcoreset_weighted(&s));
	CU_ASSERT(rps_lcoreset_format_list(&s, 0, buf, sizeof(buf)) > 0);
	CU_ASSERT_STRING_EQUAL(buf, "5");
	CU_ASSERT(rps_lcoreset_format_list(&s, 1, buf, sizeof(buf)) > 0);
	CU_ASSERT_STRING_EQUAL(buf, "5:1");
	/* hex and plain lists have weight 1 */
	CU_ASSERT_EQUAL_FATAL(rps_lcoreset_parse("fe", &s, NULL), 0);
	CU_ASSERT_EQUAL(rps_lcoreset_weight(&s, 7), 1);
	CU_ASSERT_FALSE(rps_lcoreset_weighted(&s));
	CU_ASSERT_EQUAL(rps_lcoreset_format_list(&s, 0, buf, 3), -ENOSPC);
	CU_ASSERT_EQUAL(rps_lcoreset_parse("1:2,999:1", &s, NULL), -ERANGE);
	{
		static const char *const bad[] = {
			"1:0", "1:", ":1", "1:4097", "1:2:3", "1:x", "1:-2", "1:2,", "1:+2",
			"1-3:", "1::2", "1:2 ", "1:99999999999999999999",
		};

		for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
			int rc = rps_lcoreset_parse(bad[i], &s, NULL);

			CU_ASSERT_EQUAL(rc, -EINVAL);
			if (rc != -EINVAL)
				fprintf(stderr, "\n  '%s' -> %d\n", bad[i], rc);
		}
	}
}

/* Buckets of @p table (size) owned by @p w. */
static uint32_t
owned(const uint16_t *table, uint32_t size, uint16_t w)
{
	uint32_t n = 0;

	for (uint32_t b = 0; b < size; b++)
		n += table[b] == w;
	return n;
}

static void
test_map_create(void)
{
	uint16_t w[4] = { 4, 3, 2, 1 };
	struct rps_map *m;

	/* a mask fills the table as a NIC fills its RETA: bucket b -> workers[b % nb] */
	m = rps_map_create(w, NULL, RTE_DIM(w), 8, 42, SOCKET_ID_ANY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL(rps_map_size(m), 8);
	CU_ASSERT_EQUAL(m->mask, 7);
	CU_ASSERT_EQUAL(m->nb_workers, 4);
	CU_ASSERT_EQUAL(m->generation, 42);
	for (uint32_t b = 0; b < 8; b++)
		CU_ASSERT_EQUAL(m->table[b], w[b % 4]);
	/* the map owns a copy */
	w[0] = 99;
	CU_ASSERT_EQUAL(m->table[0], 4);
	CU_ASSERT_EQUAL(((uintptr_t)m) % RTE_CACHE_LINE_SIZE, 0);
	rps_map_free(m);

	/* an explicit table */
	{
		uint16_t t[4] = { 7, 7, 9, 7 };

		m = rps_map_create_table(t, 4, 3, SOCKET_ID_ANY);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_EQUAL(m->nb_workers, 2);
		CU_ASSERT_EQUAL(rps_map_worker(m, 0x80000006), 9);  /* top bits 10: bucket 2 */
		CU_ASSERT_EQUAL(rps_map_worker(m, 6), 7);           /* top bits 00: bucket 0 */
		CU_ASSERT_EQUAL(rps_map_worker(m, 0xfffffffb), 7);
		rps_map_free(m);
		rte_errno = 0;
		CU_ASSERT_PTR_NULL(rps_map_create_table(t, 3, 3, SOCKET_ID_ANY));
		CU_ASSERT_EQUAL(rte_errno, EINVAL);
		CU_ASSERT_PTR_NULL(rps_map_create_table(NULL, 4, 3, SOCKET_ID_ANY));
	}

	/* an empty map (no steering) */
	m = rps_map_create(NULL, NULL, 0, 0, 1, SOCKET_ID_ANY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL(m->nb_workers, 0);
	rps_map_free(m);

	/* refused: workers missing, size not a power of two or out of range, more workers
	 * than buckets, a weight out of range */
	{
		uint32_t wt0[2] = { 1, 0 }, wtbig[2] = { 1, RPS_WEIGHT_MAX + 1 };
		uint16_t two[2] = { 0, 1 };

		rte_errno = 0;
		CU_ASSERT_PTR_NULL(rps_map_create(NULL, NULL, 3, 8, 1, SOCKET_ID_ANY));
		CU_ASSERT_EQUAL(rte_errno, EINVAL);
		CU_ASSERT_PTR_NULL(rps_map_create(two, NULL, 2, 100, 1, SOCKET_ID_ANY));
		CU_ASSERT_PTR_NULL(rps_map_create(two, NULL, 2, 0, 1, SOCKET_ID_ANY));
		CU_ASSERT_PTR_NULL(rps_map_create(two, NULL, 2, RPS_MAP_SIZE_MAX * 2, 1,
						  SOCKET_ID_ANY));
		CU_ASSERT_PTR_NULL(rps_map_create(two, NULL, 2, 1, 1, SOCKET_ID_ANY));
		CU_ASSERT_PTR_NULL(rps_map_create(two, wt0, 2, 8, 1, SOCKET_ID_ANY));
		rte_errno = 0;
		CU_ASSERT_PTR_NULL(rps_map_create(two, wtbig, 2, 8, 1, SOCKET_ID_ANY));
		CU_ASSERT_EQUAL(rte_errno, EINVAL);
		m = rps_map_create(two, NULL, 1, 1, 1, SOCKET_ID_ANY); /* one bucket, one worker */
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_EQUAL(rps_map_worker(m, 12345), 0);
		rps_map_free(m);
	}
	rps_map_free(NULL);
}

/* The bucket is the hash's top bits (the kernel's reciprocal_scale), not the low bits a NIC
 * spends on picking the queue: within one queue of a Q-queue NIC (hashes alike in their low
 * bits) every bucket of the table still sees traffic. */
static void
test_map_worker_bucket(void)
{
	static const uint32_t hashes[] = { 0, 1, 2, 127, 128, 129, 0xdeadbeef, UINT32_MAX };

	for (uint32_t size = 1; size <= RPS_MAP_SIZE_MAX; size *= 2) {
		uint16_t w[3] = { 10, 11, 12 };
		uint32_t nb = RTE_MIN(3u, size);
		struct rps_map *m = rps_map_create(w, NULL, nb, size, 0, SOCKET_ID_ANY);

		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		for (unsigned int i = 0; i < RTE_DIM(hashes); i++) {
			uint32_t b = (uint32_t)(((uint64_t)hashes[i] * size) >> 32);

			CU_ASSERT_EQUAL(rps_map_bucket(m, hashes[i]), b);
			CU_ASSERT_EQUAL(rps_map_worker(m, hashes[i]), m->table[b]);
		}
		/* non-IP packets (hash 0) go to the first worker */
		CU_ASSERT_EQUAL(rps_map_worker(m, 0), 10);
		/* a queue of a NIC whose 512-entry RETA spreads over 8 queues round robin: its
		 * hashes share their low 3 bits, and still reach every bucket */
		{
			static uint8_t seen[RPS_MAP_SIZE_MAX];
			uint32_t hit = 0, x = 12345;

			memset(seen, 0, sizeof(seen));
			for (uint32_t k = 0; k < 64 * size; k++) {
				x = x * 1103515245u + 12345u;
				seen[rps_map_bucket(m, (x & ~7u) | 5u)] = 1;
			}
			for (uint32_t b = 0; b < size; b++)
				hit += seen[b];
			CU_ASSERT_EQUAL(hit, size);
		}
		rps_map_free(m);
	}
}

/* Fill from weights: largest-remainder shares, at least one bucket each, interleaved. */
static void
test_map_fill_weights(void)
{
	uint16_t t[RPS_MAP_SIZE_MAX], w[16];
	uint32_t wt[16];
	uint64_t st = 7;
	unsigned int bad = 0;

	for (uint16_t i = 0; i < 16; i++)
		w[i] = i;
	/* the example: 1:2,2:1,3:1 over 128 buckets */
	wt[0] = 2;
	wt[1] = 1;
	wt[2] = 1;
	CU_ASSERT_EQUAL_FATAL(rps_map_fill(t, 128, w, wt, 3), 0);
	CU_ASSERT_EQUAL(owned(t, 128, 0), 64);
	CU_ASSERT_EQUAL(owned(t, 128, 1), 32);
	CU_ASSERT_EQUAL(owned(t, 128, 2), 32);
	/* interleaved, not in blocks: never three buckets of one worker in a row */
	for (uint32_t b = 2; b < 128; b++)
		CU_ASSERT_FALSE(t[b] == t[b - 1] && t[b] == t[b - 2]);
	/* a tiny weight still gets its bucket */
	wt[0] = 4096;
	wt[1] = 1;
	CU_ASSERT_EQUAL_FATAL(rps_map_fill(t, 8, w, wt, 2), 0);
	CU_ASSERT_EQUAL(owned(t, 8, 0), 7);
	CU_ASSERT_EQUAL(owned(t, 8, 1), 1);
	/* equal weights, size not a multiple: the first ones get one more */
	CU_ASSERT_EQUAL_FATAL(rps_map_fill(t, 128, w, NULL, 3), 0);
	CU_ASSERT_EQUAL(owned(t, 128, 0), 43);
	CU_ASSERT_EQUAL(owned(t, 128, 1), 43);
	CU_ASSERT_EQUAL(owned(t, 128, 2), 42);
	CU_ASSERT_EQUAL(rps_map_fill(t, 2, w, NULL, 3), -EINVAL);
	CU_ASSERT_EQUAL(rps_map_fill(t, 128, w, NULL, 0), -EINVAL);
	/* random weights and sizes: every share within one bucket of size * w / W */
	for (unsigned int k = 0; k < 500; k++) {
		uint32_t nb = 1 + (uint32_t)(ut_rand(&st) % 16);
		uint32_t size = 1u << (4 + ut_rand(&st) % 9);
		uint64_t total = 0;

		for (uint32_t i = 0; i < nb; i++) {
			wt[i] = 1 + (uint32_t)(ut_rand(&st) % (k % 2 ? 20 : 4096));
			total += wt[i];
		}
		int tiny = 0;

		if (rps_map_fill(t, size, w, wt, nb) != 0) {
			bad++;
			continue;
		}
		/* a share under one bucket is raised to one, taken from the largest */
		for (uint32_t i = 0; i < nb; i++)
			tiny |= (double)size * wt[i] / (double)total < 1;
		for (uint32_t i = 0; i < nb; i++) {
			double want = (double)size * wt[i] / (double)total;
			uint32_t got = owned(t, size, (uint16_t)i);

			if (got < 1 || (!tiny && (got + 1 <= want || got >= want + 1))) {
				bad++;
				fprintf(stderr, "\n  size %u nb %u worker %u: %u buckets, want %.2f\n",
					size, nb, i, got, want);
			}
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/*
 * Random hashes through a map: each worker's share of packets within 2% of its share of
 * buckets, for masks of 1..16 workers and for weights.
 */
static void
test_map_worker_uniform(void)
{
	uint64_t st = UINT64_C(0x9e3779b97f4a7c15);
	unsigned int outside = 0;

	for (uint32_t len = 1; len <= 17; len++) {
		uint16_t w[17];
		uint32_t wt[17], cnt[17] = { 0 };
		const uint32_t n = 1000000;
		struct rps_map *m;

		for (uint32_t i = 0; i < len; i++) {
			w[i] = (uint16_t)i;
			wt[i] = len == 17 ? 1 + i % 3 : 1; /* the last one weighted */
		}
		m = rps_map_create(w, wt, len == 17 ? 16 : len, 128, 0, SOCKET_ID_ANY);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		for (uint32_t i = 0; i < n; i++)
			cnt[rps_map_worker(m, (uint32_t)ut_rand(&st))]++;
		for (uint32_t j = 0; j < (len == 17 ? 16 : len); j++) {
			double expect = (double)n * owned(m->table, 128, (uint16_t)j) / 128.0;

			if (cnt[j] < expect * 0.98 || cnt[j] > expect * 1.02) {
				outside++;
				fprintf(stderr, "\n  len %u worker %u: %u, expected %.0f\n", len, j,
					cnt[j], expect);
			}
		}
		rps_map_free(m);
	}
	CU_ASSERT_EQUAL(outside, 0);
}

/* RCU publish under a concurrent reader: 10000 swaps of 4 queue maps while a thread keeps
 * reading them the way the RX lcore does. DPDK's allocator is not ASan-instrumented, so the
 * reader checks each map is intact while it holds it: every entry equals the map's generation
 * and the generation does not change under it (a freed and reused map would). */
#define NQ 4
#define SWAPS 10000

struct reader {
	struct rps_map **slots;
	struct rte_rcu_qsbr *qs;
	int stop;
	uint64_t reads, torn;
};

static void *
reader_main(void *arg)
{
	struct reader *r = arg;
	cpu_set_t all;

	/* EAL pinned the creator to one CPU; let the reader run beside the publisher */
	CPU_ZERO(&all);
	for (int c = 0; c < CPU_SETSIZE; c++)
		CPU_SET(c, &all);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(all), &all);
	rte_rcu_qsbr_thread_online(r->qs, 0);
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		for (unsigned int q = 0; q < NQ; q++) {
			const struct rps_map *m = __atomic_load_n(&r->slots[q], __ATOMIC_ACQUIRE);
			uint32_t gen = m->generation;

			for (uint32_t i = 0; i <= m->mask; i++)
				if (m->table[i] != (uint16_t)gen)
					r->torn++;
			if (rps_map_worker(m, (uint32_t)r->reads * 2654435761u) != (uint16_t)gen ||
			    m->generation != gen)
				r->torn++;
			__atomic_store_n(&r->reads, r->reads + 1, __ATOMIC_RELAXED);
		}
		rte_rcu_qsbr_quiescent(r->qs, 0);
	}
	rte_rcu_qsbr_thread_offline(r->qs, 0);
	return NULL;
}

static struct rps_map *
gen_map(uint32_t gen)
{
	uint16_t w[64];
	uint32_t len = 1 + gen % 64;

	for (uint32_t i = 0; i < len; i++)
		w[i] = (uint16_t)gen;
	return rps_map_create(w, NULL, len, 64, gen, SOCKET_ID_ANY);
}

static void
test_publish_stress(void)
{
	size_t sz = rte_rcu_qsbr_get_memsize(1);
	struct rte_rcu_qsbr *qs = rte_zmalloc("ut_qsbr", sz, RTE_CACHE_LINE_SIZE);
	struct rps_map *slots[NQ], *next[NQ];
	struct reader r = { .slots = slots, .qs = qs };
	pthread_t th;

	CU_ASSERT_PTR_NOT_NULL_FATAL(qs);
	CU_ASSERT_EQUAL_FATAL(rte_rcu_qsbr_init(qs, 1), 0);
	CU_ASSERT_EQUAL_FATAL(rte_rcu_qsbr_thread_register(qs, 0), 0);
	for (unsigned int q = 0; q < NQ; q++)
		slots[q] = gen_map(1);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, reader_main, &r), 0);
	/* swap only while the reader is online and reading (a loaded machine may start it
	 * late; an offline reader would not be waited for) */
	while (__atomic_load_n(&r.reads, __ATOMIC_RELAXED) == 0)
		rte_pause();
	for (uint32_t g = 2; g < 2 + SWAPS; g++) {
		for (unsigned int q = 0; q < NQ; q++) {
			next[q] = gen_map(g);
			CU_ASSERT_PTR_NOT_NULL_FATAL(next[q]);
		}
		rps_map_publish(slots, next, NQ, qs);
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	CU_ASSERT(r.reads > 0);
	CU_ASSERT_EQUAL(r.torn, 0);
	for (unsigned int q = 0; q < NQ; q++) {
		CU_ASSERT_EQUAL(slots[q]->generation, 1 + SWAPS);
		rps_map_free(slots[q]);
	}
	rte_rcu_qsbr_thread_unregister(qs, 0);
	rte_free(qs);
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "lcoreset_basics", test_lcoreset_basics },
		{ "parse_good", test_parse_good },
		{ "parse_bad", test_parse_bad },
		{ "parse_range", test_parse_range },
		{ "check", test_check },
		{ "format", test_format },
		{ "parse_weights", test_parse_weights },
		{ "map_create", test_map_create },
		{ "map_worker_bucket", test_map_worker_bucket },
		{ "map_fill_weights", test_map_fill_weights },
		{ "map_worker_uniform", test_map_worker_uniform },
		{ "publish_stress_rcu", test_publish_stress },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "map", tests);
}
