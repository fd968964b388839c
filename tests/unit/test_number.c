/* SPDX-License-Identifier: BSD-3-Clause */
/* test_number.c: rps_number_parse(), the one number syntax of the command line and the
 * configuration file (lib/control/number.c). */
#include <errno.h>
#include <stdint.h>

#include <CUnit/Basic.h>

#include "rps_number.h"
#include "test_common.h"

static void
test_good(void)
{
	static const struct { const char *s; uint64_t v; } good[] = {
		{ "0", 0 }, { "1", 1 }, { "65536", 65536 }, { "0x10000", 65536 },
		{ "0X10000", 65536 }, { "0xfF", 255 }, { "0x0", 0 }, { "0x00ff", 255 },
		{ "4294967295", UINT32_MAX }, { "0xffffffff", UINT32_MAX },
	};

	for (unsigned int i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uint64_t v = 12345;

		CU_ASSERT_EQUAL(rps_number_parse(good[i].s, 0, UINT32_MAX, &v), 0);
		CU_ASSERT_EQUAL(v, good[i].v);
	}
}

static void
test_bad(void)
{
	/* not numbers: -EINVAL, and *out untouched */
	static const char *const bad[] = {
		"", " 1", "1 ", "\t1", "1\n", "065536", "00", "01", "-1", "+1", "0x", "0x 1",
		"1e3", "1.0", "ff", "0b101", "1,000", "1_000", "0xg", "x10", "0o17",
	};

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = 777;

		CU_ASSERT_EQUAL(rps_number_parse(bad[i], 0, UINT32_MAX, &v), -EINVAL);
		CU_ASSERT_EQUAL(v, 777);
	}
	CU_ASSERT_EQUAL(rps_number_parse(NULL, 0, 1, NULL), -EINVAL);
}

static void
test_range(void)
{
	uint64_t v = 777;

	CU_ASSERT_EQUAL(rps_number_parse("4294967296", 0, UINT32_MAX, &v), -ERANGE);
	CU_ASSERT_EQUAL(rps_number_parse("0x100000000", 0, UINT32_MAX, &v), -ERANGE);
	CU_ASSERT_EQUAL(rps_number_parse("99999999999999999999999999999", 0, 10, &v), -ERANGE);
	CU_ASSERT_EQUAL(rps_number_parse("0xffffffffffffffffffffffff", 0, 10, &v), -ERANGE);
	/* a syntax error after an out-of-range prefix is still a syntax error */
	CU_ASSERT_EQUAL(rps_number_parse("99999999999999999999x", 0, 10, &v), -EINVAL);
	CU_ASSERT_EQUAL(rps_number_parse("0", 1, 10, &v), -ERANGE);
	CU_ASSERT_EQUAL(v, 777);
	CU_ASSERT_EQUAL(rps_number_parse("10", 1, 10, &v), 0);
	CU_ASSERT_EQUAL(v, 10);
}

/* rps_number_list_parse(): the parameters of /rps/ telemetry commands ("Q,FIRST") */
static void
test_list(void)
{
	static const struct { const char *s; int n; uint64_t v[3]; } cases[] = {
		{ NULL, 0, { 0 } }, { "", 0, { 0 } }, { "7", 1, { 7 } }, { "0,16", 2, { 0, 16 } },
		{ "0x10,4294967295", 2, { 16, UINT32_MAX } },
		{ ",", -EINVAL, { 0 } }, { "1,", -EINVAL, { 0 } }, { ",1", -EINVAL, { 0 } },
		{ "1,,2", -EINVAL, { 0 } }, { "1,2,3", -EINVAL, { 0 } }, { "1 ,2", -EINVAL, { 0 } },
		{ "4294967296", -EINVAL, { 0 } }, { "-1", -EINVAL, { 0 } }, { "01", -EINVAL, { 0 } },
		{ "0x000000000000000000000000000001", -EINVAL, { 0 } },  /* 32 characters */
		{ "0x00000000000000000000000000001", 1, { 1 } },         /* 31 */
	};

	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v[2] = { 99, 99 };
		int n = rps_number_list_parse(cases[i].s, UINT32_MAX, v, 2);

		CU_ASSERT_EQUAL(n, cases[i].n);
		for (int k = 0; k < n; k++)
			CU_ASSERT_EQUAL(v[k], cases[i].v[k]);
	}
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "good", test_good },
		{ "bad", test_bad },
		{ "range", test_range },
		{ "list", test_list },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "number", tests);
}
