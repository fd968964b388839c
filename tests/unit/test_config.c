/* SPDX-License-Identifier: BSD-3-Clause */
/* test_config.c: the configuration-file parser (lib/control/config.c). */
#include <stdio.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "rps_config.h"
#include "test_common.h"

static struct rps_config cfg;
static char err[256];

static int
parse(const char *text)
{
	memset(err, 0, sizeof(err));
	return rps_config_parse_string(text, "t.conf", &cfg, err, sizeof(err));
}

static void
test_full(void)
{
	const struct rps_lcoreset *s;
	const char *text = NULL;

	CU_ASSERT_EQUAL_FATAL(parse("; comment\n# other\n[dataplane]\nrx_port = 1\nhash = jhash\n"
				    "hash_seed = 0x10\nbacklog = 2048\nburst = 64\n"
				    "stages = parse,flow,output\nflow_table_size = 1024\n"
				    "reorder_safe = off\nstats_interval = 2\n[map]\ndefault = 0xe\n"
				    "queue1 = 1-2\r\n"), 0);
	CU_ASSERT(cfg.has_rx_port && cfg.rx_port == 1);
	CU_ASSERT(cfg.has_hash && cfg.hash_mode == RPS_HASH_JHASH);
	CU_ASSERT(cfg.has_hash_seed && cfg.hash_seed == 16);
	CU_ASSERT(cfg.has_backlog && cfg.backlog == 2048);
	CU_ASSERT(cfg.has_burst && cfg.burst == 64);
	CU_ASSERT(cfg.has_stages && strcmp(cfg.stages, "parse,flow,output") == 0);
	CU_ASSERT(cfg.has_flow_table_size && cfg.flow_table_size == 1024);
	CU_ASSERT(cfg.has_reorder_safe && cfg.reorder_safe == 0);
	CU_ASSERT(cfg.has_stats_interval && cfg.stats_interval == 2);
	s = rps_config_queue_map(&cfg, 0, &text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT(rps_lcoreset_count(s) == 3 && rps_lcoreset_has(s, 1) && rps_lcoreset_has(s, 3));
	CU_ASSERT_STRING_EQUAL(text, "0xe");
	s = rps_config_queue_map(&cfg, 1, &text);
	CU_ASSERT(rps_lcoreset_count(s) == 2 && !rps_lcoreset_has(s, 3));
	CU_ASSERT_STRING_EQUAL(text, "1-2");
}

static void
test_empty(void)
{
	CU_ASSERT_EQUAL(parse("; nothing\n\n"), 0);
	CU_ASSERT(!cfg.has_backlog && !cfg.has_default_map);
	CU_ASSERT_PTR_NULL(rps_config_queue_map(&cfg, 0, NULL));
}

/* Each bad file: refused with exactly "t.conf:LINE: ..." naming the key. */
static void
test_errors(void)
{
	static const struct {
		const char *text;
		const char *prefix;
		const char *names;
	} bad[] = {
		{ "[dataplane]\nbakclog = 5\n", "t.conf:2: ", "bakclog" },
		/* inih reports a section at its first key */
		{ "[mapp]\nqueue0 = 1\n", "t.conf:2: ", "mapp" },
		{ "[dataplane]\nbacklog = abc\n", "t.conf:2: ", "backlog" },
		{ "[dataplane]\n\nburst = 513\n", "t.conf:3: ", "burst" },
		{ "[dataplane]\nbacklog = -1\n", "t.conf:2: ", "backlog" },
		{ "[map]\ndefault = xyz\n", "t.conf:2: ", "default" },
		{ "[map]\nqueue0 = 1-200\n", "t.conf:2: ", "queue0" },
		{ "[map]\nqueue64 = 1\n", "t.conf:2: ", "queue64" },
		{ "[dataplane]\nhash = foo\n", "t.conf:2: ", "hash" },
		{ "[dataplane]\nreorder_safe = maybe\n", "t.conf:2: ", "reorder_safe" },
		{ "[dataplane]\nburst = 1\nburst = 2\n", "t.conf:3: ", "burst" },
		{ "[dataplane]\nburst =\n", "t.conf:2: ", "burst" },
		{ "backlog = 1\n", "t.conf:1: ", "backlog" },
		{ "[dataplane]\njust words\n", "t.conf:2: ", "" },
		{ "[dataplane]\nstages = parse,bogus\n", "t.conf:2: ", "stages" },
	};

	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		int rc = parse(bad[i].text);

		CU_ASSERT_EQUAL(rc, -EINVAL);
		if (strncmp(err, bad[i].prefix, strlen(bad[i].prefix)) != 0 ||
		    strstr(err, bad[i].names) == NULL) {
			printf("case %u: got '%s'\n", i, err);
			CU_FAIL("error message");
		}
	}
}

static void
test_missing_file(void)
{
	CU_ASSERT_EQUAL(rps_config_load("/nonexistent/rps.conf", &cfg, err, sizeof(err)),
			-ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/rps.conf: cannot open"));
}

static void
test_example_file(void)
{
	err[0] = '\0';
	CU_ASSERT_EQUAL(rps_config_load(RPS_SOURCE_ROOT "/config/dpdk-rps.conf", &cfg, err,
					sizeof(err)), 0);
	if (err[0] != '\0')
		printf("%s\n", err);
	CU_ASSERT(cfg.has_default_map && cfg.has_backlog && cfg.has_reorder_safe);
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "full_file", test_full },
		{ "empty_file", test_empty },
		{ "errors_name_file_line_and_key", test_errors },
		{ "missing_file", test_missing_file },
		{ "example_file_parses", test_example_file },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "config", tests);
}
