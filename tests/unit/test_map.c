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

static void
test_map_create(void)
{
	uint16_t w[5] = { 4, 3, 2, 1, 0 };
	struct rps_map *m;

	m = rps_map_create(w, RTE_DIM(w), 42, SOCKET_ID_ANY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL(m->len, 5);
	CU_ASSERT_EQUAL(m->generation, 42);
	CU_ASSERT_EQUAL(memcmp(m->workers, w, sizeof(w)), 0);
	/* the map owns a copy */
	w[0] = 99;
	CU_ASSERT_EQUAL(m->workers[0], 4);
	CU_ASSERT_EQUAL(((uintptr_t)m) % RTE_CACHE_LINE_SIZE, 0);
	rps_map_free(m);

	/* an empty map (no steering) */
	m = rps_map_create(NULL, 0, 1, SOCKET_ID_ANY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL(m->len, 0);
	rps_map_free(m);

	/* workers missing */
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(rps_map_create(NULL, 3, 1, SOCKET_ID_ANY));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);

	rps_map_free(NULL);
}

static void
test_map_worker_edges(void)
{
	for (uint32_t len = 1; len <= 64; len++) {
		uint16_t w[64];
		struct rps_map *m;

		for (uint32_t i = 0; i < len; i++)
			w[i] = (uint16_t)(1000 + i);
		m = rps_map_create(w, len, 0, SOCKET_ID_ANY);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_EQUAL(rps_map_worker(m, 0), 1000);        /* non-IP */
		CU_ASSERT_EQUAL(rps_map_worker(m, 1), 1000);
		CU_ASSERT_EQUAL(rps_map_worker(m, UINT32_MAX), 1000 + len - 1);
		rps_map_free(m);
	}
}

/*
 * Exact fairness: the hashes going to entry j are [ceil(j * 2^32 / len), ceil((j+1) * 2^32 /
 * len)), so every entry gets floor(2^32 / len) or one more of the 2^32 hashes. Check the
 * boundaries themselves through rps_map_worker().
 */
static uint64_t
ceil_div(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

static void
test_map_worker_partition(void)
{
	unsigned int wrong = 0;

	for (uint32_t len = 1; len <= 64; len++) {
		uint16_t w[64];
		struct rps_map *m;
		uint64_t span = (UINT64_C(1) << 32) / len;

		for (uint32_t i = 0; i < len; i++)
			w[i] = (uint16_t)i;
		m = rps_map_create(w, len, 0, SOCKET_ID_ANY);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		for (uint32_t j = 0; j < len; j++) {
			uint64_t lo = ceil_div((uint64_t)j << 32, len);
			uint64_t hi = ceil_div((uint64_t)(j + 1) << 32, len);

			if (hi - lo != span && hi - lo != span + 1)
				wrong++;
			if (rps_map_worker(m, (uint32_t)lo) != j)
				wrong++;
			if (rps_map_worker(m, (uint32_t)(hi - 1)) != j)
				wrong++;
			if (j > 0 && rps_map_worker(m, (uint32_t)(lo - 1)) != j - 1)
				wrong++;
		}
		rps_map_free(m);
	}
	CU_ASSERT_EQUAL(wrong, 0);
}

/*
 * Random hashes: each entry's share within 2% of uniform for every length 1..64. 10^6 draws
 * per length, more for long maps so that 2% stays >= 5 standard deviations (at 64 entries,
 * 10^6 draws give 15625 per entry and sigma = 0.8%, which random noise would exceed).
 */
static void
test_map_worker_uniform(void)
{
	uint64_t st = UINT64_C(0x9e3779b97f4a7c15);
	unsigned int outside = 0;

	for (uint32_t len = 1; len <= 64; len++) {
		uint16_t w[64];
		uint32_t cnt[64] = { 0 };
		struct rps_map *m;
		uint32_t n = RTE_MAX(UINT32_C(1000000), UINT32_C(62500) * len);
		double expect = (double)n / len;

		for (uint32_t i = 0; i < len; i++)
			w[i] = (uint16_t)i;
		m = rps_map_create(w, len, 0, SOCKET_ID_ANY);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		for (uint32_t i = 0; i < n; i += 2) {
			uint64_t r = ut_rand(&st);

			cnt[rps_map_worker(m, (uint32_t)r)]++;
			cnt[rps_map_worker(m, (uint32_t)(r >> 32))]++;
		}
		for (uint32_t j = 0; j < len; j++) {
			if (cnt[j] < expect * 0.98 || cnt[j] > expect * 1.02) {
				outside++;
				fprintf(stderr, "\n  len %u entry %u: %u, expected %.0f\n", len, j,
					cnt[j], expect);
			}
		}
		rps_map_free(m);
	}
	CU_ASSERT_EQUAL(outside, 0);
}

/* A map longer than the worker table spreads in proportion to each worker's entries. */
static void
test_map_worker_weighted(void)
{
	uint16_t w[8] = { 0, 0, 0, 1, 1, 2, 2, 2 };
	uint32_t cnt[3] = { 0 };
	uint64_t st = 99;
	struct rps_map *m = rps_map_create(w, RTE_DIM(w), 0, SOCKET_ID_ANY);
	const uint32_t n = 800000;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	for (uint32_t i = 0; i < n; i++)
		cnt[rps_map_worker(m, (uint32_t)ut_rand(&st))]++;
	CU_ASSERT(cnt[0] > 300000 * 0.98 && cnt[0] < 300000 * 1.02);
	CU_ASSERT(cnt[1] > 200000 * 0.98 && cnt[1] < 200000 * 1.02);
	CU_ASSERT(cnt[2] > 300000 * 0.98 && cnt[2] < 300000 * 1.02);
	rps_map_free(m);
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

			for (uint32_t i = 0; i < m->len; i++)
				if (m->workers[i] != (uint16_t)gen)
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
	return rps_map_create(w, len, gen, SOCKET_ID_ANY);
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
		{ "map_create", test_map_create },
		{ "map_worker_edges", test_map_worker_edges },
		{ "map_worker_partition", test_map_worker_partition },
		{ "map_worker_uniform", test_map_worker_uniform },
		{ "map_worker_weighted", test_map_worker_weighted },
		{ "publish_stress_rcu", test_publish_stress },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "map", tests);
}
