/* SPDX-License-Identifier: BSD-3-Clause */
/* test_expo.c: the Prometheus 0.0.4 and OpenMetrics text formats (app/observability/expo.c): escaping of
 * label values and help, families and samples byte for byte, the page's growth. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "expo.h"
#include "test_common.h"

static void
test_escape_label(void)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "", "" },
		{ "plain", "plain" },
		{ "a\\b", "a\\\\b" },                 /* backslash */
		{ "say \"hi\"", "say \\\"hi\\\"" },    /* double quote */
		{ "two\nlines", "two\\nlines" },      /* newline */
		{ "\\\"\n", "\\\\\\\"\\n" },          /* all three, back to back */
		{ "tab\tcr\r", "tab\tcr\r" },         /* others pass as they are */
		{ "caf\xc3\xa9", "caf\xc3\xa9" },     /* UTF-8 untouched */
	};
	char out[64];

	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = rps_expo_escape_label(cases[i].in, out, sizeof(out));

		CU_ASSERT_STRING_EQUAL(out, cases[i].out);
		CU_ASSERT_EQUAL(n, strlen(cases[i].out));
	}
	/* too small: cut, NUL-terminated, the full length returned (as snprintf) */
	CU_ASSERT_EQUAL(rps_expo_escape_label("a\"b", out, 3), 4);
	CU_ASSERT_STRING_EQUAL(out, "a\\");
	CU_ASSERT_EQUAL(rps_expo_escape_label("abc", NULL, 0), 3);
}

/* A counter with two labels whose values need escaping, in both formats. */
static void
test_counter_sample(void)
{
	const struct rps_expo_label l[] = { { "lcore", "3" }, { "reason", "a\\b\"c\nd" } };
	struct rps_expo e;

	rps_expo_init(&e, RPS_EXPO_TEXT);
	rps_expo_family(&e, "dpdk_rps_dropped", RPS_EXPO_COUNTER, "help \\ with\nnewline \"q\"");
	rps_expo_u64(&e, l, 2, 42);
	rps_expo_u64(&e, l, 1, UINT64_MAX);
	CU_ASSERT_EQUAL(rps_expo_end(&e), 0);
	CU_ASSERT_STRING_EQUAL(e.buf,
		"# HELP dpdk_rps_dropped_total help \\\\ with\\nnewline \"q\"\n"
		"# TYPE dpdk_rps_dropped_total counter\n"
		"dpdk_rps_dropped_total{lcore=\"3\",reason=\"a\\\\b\\\"c\\nd\"} 42\n"
		"dpdk_rps_dropped_total{lcore=\"3\"} 18446744073709551615\n");
	CU_ASSERT_EQUAL(e.len, strlen(e.buf));
	rps_expo_fini(&e);

	/* OpenMetrics: the family without _total, '"' escaped in HELP too, # EOF */
	rps_expo_init(&e, RPS_EXPO_OPENMETRICS);
	rps_expo_family(&e, "dpdk_rps_dropped", RPS_EXPO_COUNTER, "help \\ with\nnewline \"q\"");
	rps_expo_u64(&e, l, 2, 42);
	CU_ASSERT_EQUAL(rps_expo_end(&e), 0);
	CU_ASSERT_STRING_EQUAL(e.buf,
		"# HELP dpdk_rps_dropped help \\\\ with\\nnewline \\\"q\\\"\n"
		"# TYPE dpdk_rps_dropped counter\n"
		"dpdk_rps_dropped_total{lcore=\"3\",reason=\"a\\\\b\\\"c\\nd\"} 42\n"
		"# EOF\n");
	rps_expo_fini(&e);
}

/* Gauges (integer and float, special values) and info families. */
static void
test_gauge_info(void)
{
	const struct rps_expo_label v[] = { { "version", "0.1.0" } };
	struct rps_expo e;

	for (int om = 0; om < 2; om++) {
		rps_expo_init(&e, om ? RPS_EXPO_OPENMETRICS : RPS_EXPO_TEXT);
		rps_expo_family(&e, "dpdk_rps_imbalance", RPS_EXPO_GAUGE, "max/mean");
		rps_expo_double(&e, NULL, 0, 1.05);
		rps_expo_double(&e, NULL, 0, 0.0);
		rps_expo_double(&e, NULL, 0, NAN);
		rps_expo_double(&e, NULL, 0, INFINITY);
		rps_expo_double(&e, NULL, 0, -INFINITY);
		rps_expo_u64(&e, NULL, 0, 7);
		rps_expo_family(&e, "dpdk_rps_build", RPS_EXPO_INFO, "build");
		rps_expo_u64(&e, v, 1, 1);
		CU_ASSERT_EQUAL(rps_expo_end(&e), 0);
		CU_ASSERT_STRING_EQUAL(e.buf, om ?
			"# HELP dpdk_rps_imbalance max/mean\n"
			"# TYPE dpdk_rps_imbalance gauge\n"
			"dpdk_rps_imbalance 1.05\ndpdk_rps_imbalance 0\ndpdk_rps_imbalance NaN\n"
			"dpdk_rps_imbalance +Inf\ndpdk_rps_imbalance -Inf\ndpdk_rps_imbalance 7\n"
			"# HELP dpdk_rps_build build\n"
			"# TYPE dpdk_rps_build info\n"
			"dpdk_rps_build_info{version=\"0.1.0\"} 1\n"
			"# EOF\n" :
			"# HELP dpdk_rps_imbalance max/mean\n"
			"# TYPE dpdk_rps_imbalance gauge\n"
			"dpdk_rps_imbalance 1.05\ndpdk_rps_imbalance 0\ndpdk_rps_imbalance NaN\n"
			"dpdk_rps_imbalance +Inf\ndpdk_rps_imbalance -Inf\ndpdk_rps_imbalance 7\n"
			"# HELP dpdk_rps_build_info build\n"
			"# TYPE dpdk_rps_build_info gauge\n"
			"dpdk_rps_build_info{version=\"0.1.0\"} 1\n");
		rps_expo_fini(&e);
	}
	/* an empty page is an empty string, not NULL */
	rps_expo_init(&e, RPS_EXPO_TEXT);
	CU_ASSERT_EQUAL(rps_expo_end(&e), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.buf);
	CU_ASSERT_STRING_EQUAL(e.buf, "");
	rps_expo_fini(&e);
}

/* A page far beyond the first allocation: nothing lost or repeated. */
static void
test_growth(void)
{
	struct rps_expo e;
	char lc[16], want[64];
	const struct rps_expo_label l[] = { { "lcore", lc } };
	size_t off;

	rps_expo_init(&e, RPS_EXPO_TEXT);
	rps_expo_family(&e, "dpdk_rps_polls", RPS_EXPO_COUNTER, "loop iterations");
	off = e.len;
	for (unsigned int i = 0; i < 20000; i++) {
		snprintf(lc, sizeof(lc), "%u", i);
		rps_expo_u64(&e, l, 1, i);
	}
	CU_ASSERT_EQUAL(rps_expo_end(&e), 0);
	CU_ASSERT(e.cap >= e.len + 1);
	for (unsigned int i = 0; i < 20000; i++) {
		int n = snprintf(want, sizeof(want), "dpdk_rps_polls_total{lcore=\"%u\"} %u\n", i, i);

		if (strncmp(e.buf + off, want, (size_t)n) != 0) {
			CU_FAIL("sample lost or garbled");
			break;
		}
		off += (size_t)n;
	}
	CU_ASSERT_EQUAL(off, e.len);
	rps_expo_fini(&e);
}

static void
test_negotiate(void)
{
	CU_ASSERT_EQUAL(rps_expo_negotiate(NULL), RPS_EXPO_TEXT);
	CU_ASSERT_EQUAL(rps_expo_negotiate("*/*"), RPS_EXPO_TEXT);
	CU_ASSERT_EQUAL(rps_expo_negotiate("text/plain;version=0.0.4"), RPS_EXPO_TEXT);
	/* what Prometheus 2.x sends */
	CU_ASSERT_EQUAL(rps_expo_negotiate("application/openmetrics-text;version=1.0.0,"
					   "application/openmetrics-text;version=0.0.1;q=0.75,"
					   "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
			RPS_EXPO_OPENMETRICS);
	CU_ASSERT_STRING_EQUAL(rps_expo_content_type(RPS_EXPO_TEXT),
			       "text/plain; version=0.0.4; charset=utf-8");
	CU_ASSERT_STRING_EQUAL(rps_expo_content_type(RPS_EXPO_OPENMETRICS),
			       "application/openmetrics-text; version=1.0.0; charset=utf-8");
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "escape_label", test_escape_label },
		{ "counter_sample", test_counter_sample },
		{ "gauge_info", test_gauge_info },
		{ "growth", test_growth },
		{ "negotiate", test_negotiate },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "expo", tests);
}
