/* SPDX-License-Identifier: BSD-3-Clause */
/* test_port.c: the PMD queue rules of drivers/port.c (rps_port_pmd_limits(),
 * rps_port_check_queues()): net_tap's pairs and its file descriptor limit per DPDK release. */
#include <errno.h>
#include <stdint.h>

#include <CUnit/Basic.h>

#include "rps_port.h"
#include "test_common.h"

static void
test_limits(void)
{
	static const struct {
		const char *driver;
		unsigned int year, month;
		int pair;
		uint16_t max;
	} cases[] = {
		/* a descriptor per RX and per TX queue in an array of 8: 4 pairs */
		{ "net_tap", 22, 11, 1, 8 }, { "net_tap", 23, 11, 1, 8 },
		{ "net_tap", 24, 3, 1, 8 },
		/* 24.07: one descriptor per pair, still 8 of them */
		{ "net_tap", 24, 7, 1, 16 },
		/* 24.11: 253 descriptors, more than net_tap's queues */
		{ "net_tap", 24, 11, 1, 0 }, { "net_tap", 25, 11, 1, 0 },
		/* before 22.03 the counts could differ */
		{ "net_tap", 21, 11, 0, 8 },
		{ "net_null", 22, 11, 0, 0 }, { "net_pcap", 22, 11, 0, 0 },
		{ "net_tapx", 22, 11, 0, 0 }, { "net_ta", 22, 11, 0, 0 }, { "", 22, 11, 0, 0 },
	};

	for (unsigned int i = 0; i < RTE_DIM(cases); i++) {
		int pair = -1;
		uint16_t max = 999;

		rps_port_pmd_limits(cases[i].driver, cases[i].year, cases[i].month, &pair, &max);
		CU_ASSERT_EQUAL(pair, cases[i].pair);
		CU_ASSERT_EQUAL(max, cases[i].max);
	}
}

static void
test_check(void)
{
	struct rps_port_info tap = { .max_rxq = 16, .max_txq = 16 };
	struct rps_port_info nul = { .max_rxq = 1024, .max_txq = 1024 };

	rps_port_pmd_limits("net_tap", 22, 11, &tap.pair_queues, &tap.max_queues);
	rps_port_pmd_limits("net_null", 22, 11, &nul.pair_queues, &nul.max_queues);
	CU_ASSERT_EQUAL(rps_port_check_queues(&tap, 1, 1), 0);
	CU_ASSERT_EQUAL(rps_port_check_queues(&tap, 4, 4), 0);
	/* -l 0-7 --map 0xfe: 7 TX queues, aborted in tap_mp_req_on_rxtx() before */
	CU_ASSERT_EQUAL(rps_port_check_queues(&tap, 7, 7), -E2BIG);
	CU_ASSERT_EQUAL(rps_port_check_queues(&tap, 5, 5), -E2BIG);
	CU_ASSERT_EQUAL(rps_port_check_queues(&tap, 16, 1), -E2BIG);
	CU_ASSERT_EQUAL(rps_port_check_queues(&tap, 2, 1), -EINVAL);
	CU_ASSERT_EQUAL(rps_port_check_queues(&tap, 0, 1), -EINVAL);
	CU_ASSERT_EQUAL(rps_port_check_queues(&tap, 17, 17), -EINVAL);
	CU_ASSERT_EQUAL(rps_port_check_queues(&nul, 16, 7), 0);
	CU_ASSERT_EQUAL(rps_port_check_queues(&nul, 0, 7), 0);
	CU_ASSERT_EQUAL(rps_port_check_queues(&nul, 1025, 1), -EINVAL);
	CU_ASSERT_EQUAL(rps_port_check_queues(&nul, 1, 1025), -EINVAL);
	/* 24.07: 8 pairs */
	rps_port_pmd_limits("net_tap", 24, 7, &tap.pair_queues, &tap.max_queues);
	CU_ASSERT_EQUAL(rps_port_check_queues(&tap, 8, 8), 0);
	CU_ASSERT_EQUAL(rps_port_check_queues(&tap, 9, 9), -E2BIG);
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "limits", test_limits },
		{ "check", test_check },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "port", tests);
}
