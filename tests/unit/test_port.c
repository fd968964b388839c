/* SPDX-License-Identifier: BSD-3-Clause */
/* test_port.c: the PMD queue rules of drivers/port.c (rps_port_pmd_limits(),
 * rps_port_check_queues()): net_tap's pairs and its file descriptor limit per DPDK release;
 * and the queues each role gets (rps_port_plan(), rps_ports_plan()), without a NIC; the hint
 * for a port with too few TX queues (rps_port_txq_hint()). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

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

/* One port's plan: @p rc and, whatever it is, the queues asked. */
static void
expect_plan(enum rps_port_role role, uint16_t senders, const struct rps_port_info *info,
	    uint16_t rx_queues, uint16_t workers, int rc, uint16_t nb_rxq, uint16_t nb_txq,
	    int workers_tx)
{
	const struct rps_port_use use = { .port_id = 0, .role = role, .nb_senders = senders };
	const struct rps_port_plan_conf conf = { .rx_queues = rx_queues, .nb_workers = workers };
	struct rps_port_queues q;

	memset(&q, 0xa5, sizeof(q));
	CU_ASSERT_EQUAL(rps_port_plan(&use, info, &conf, &q), rc);
	CU_ASSERT_EQUAL(q.nb_rxq, nb_rxq);
	CU_ASSERT_EQUAL(q.nb_txq, nb_txq);
	CU_ASSERT_EQUAL(q.workers_tx, workers_tx);
}

static void
test_roles(void)
{
	struct rps_port_info nul = { .max_rxq = 1024, .max_txq = 1024 };
	struct rps_port_info few = { .max_rxq = 4, .max_txq = 2 };
	struct rps_port_info rxonly = { .max_rxq = 8, .max_txq = 0 };
	struct rps_port_info tap = { .max_rxq = 16, .max_txq = 16 };

	rps_port_pmd_limits("net_tap", 22, 11, &tap.pair_queues, &tap.max_queues);
	CU_ASSERT_STRING_EQUAL(rps_port_role_name(RPS_PORT_RX), "rx");
	CU_ASSERT_STRING_EQUAL(rps_port_role_name(RPS_PORT_TX), "tx");
	CU_ASSERT_STRING_EQUAL(rps_port_role_name(RPS_PORT_PAIR), "pair");
	CU_ASSERT_STRING_EQUAL(rps_port_role_name(RPS_PORT_CONSUMER), "consumer");
	CU_ASSERT(rps_port_role_rx(RPS_PORT_RX) && !rps_port_role_tx(RPS_PORT_RX));
	CU_ASSERT(!rps_port_role_rx(RPS_PORT_TX) && rps_port_role_tx(RPS_PORT_TX));
	CU_ASSERT(rps_port_role_rx(RPS_PORT_PAIR) && rps_port_role_tx(RPS_PORT_PAIR));
	CU_ASSERT(!rps_port_role_rx(RPS_PORT_CONSUMER) && rps_port_role_tx(RPS_PORT_CONSUMER));

	/* RX: the RX lcores' queues (--rx-queues, or the PMD's up to the cap) and one idle TX
	 * queue for dpdk-dumpcap, none on a port without TX */
	expect_plan(RPS_PORT_RX, 0, &nul, 0, 7, 0, RPS_PORT_DEFAULT_MAX_RXQ, 1, 0);
	expect_plan(RPS_PORT_RX, 0, &nul, 3, 7, 0, 3, 1, 0);
	expect_plan(RPS_PORT_RX, 0, &few, 0, 7, 0, 4, 1, 0);
	expect_plan(RPS_PORT_RX, 0, &rxonly, 0, 7, 0, 8, 0, 0);
	expect_plan(RPS_PORT_RX, 0, &few, 5, 1, -ERANGE, 5, 1, 0);
	/* net_tap: RX and TX counts equal, so one RX queue with the idle TX queue */
	expect_plan(RPS_PORT_RX, 0, &tap, 1, 7, 0, 1, 1, 0);
	expect_plan(RPS_PORT_RX, 0, &tap, 2, 7, -EINVAL, 2, 1, 0);

	/* TX: one queue per worker (the RX lcore's one without workers), no RX queue */
	expect_plan(RPS_PORT_TX, 0, &nul, 4, 7, 0, 0, 7, 1);
	expect_plan(RPS_PORT_TX, 0, &nul, 0, 0, 0, 0, 1, 1);
	expect_plan(RPS_PORT_TX, 0, &few, 0, 3, -ENOSPC, 0, 3, 1);
	expect_plan(RPS_PORT_TX, 0, &tap, 0, 2, -EINVAL, 0, 2, 1); /* no RX queue to pair */

	/* PAIR: the RX lcores' queues and one TX queue per worker */
	expect_plan(RPS_PORT_PAIR, 0, &nul, 0, 7, 0, RPS_PORT_DEFAULT_MAX_RXQ, 7, 1);
	expect_plan(RPS_PORT_PAIR, 0, &few, 2, 2, 0, 2, 2, 1);
	expect_plan(RPS_PORT_PAIR, 0, &few, 2, 3, -ENOSPC, 2, 3, 1);
	expect_plan(RPS_PORT_PAIR, 0, &tap, 4, 4, 0, 4, 4, 1);
	expect_plan(RPS_PORT_PAIR, 0, &tap, 2, 4, -EINVAL, 2, 4, 1);
	expect_plan(RPS_PORT_PAIR, 0, &tap, 5, 5, -E2BIG, 5, 5, 1);

	/* CONSUMER: one TX queue per worker feeding it (all by default), as many RX queues
	 * (memif queue pairs; never polled), whatever --rx-queues says */
	expect_plan(RPS_PORT_CONSUMER, 2, &nul, 4, 7, 0, 2, 2, 1);
	expect_plan(RPS_PORT_CONSUMER, 0, &nul, 4, 7, 0, 7, 7, 1);
	expect_plan(RPS_PORT_CONSUMER, 3, &few, 0, 7, -ENOSPC, 3, 3, 1);
	expect_plan(RPS_PORT_CONSUMER, 5, &few, 0, 7, -ERANGE, 5, 5, 1);
	expect_plan(RPS_PORT_TX, 2, &few, 0, 7, 0, 0, 2, 1); /* senders count for TX too */
}

static void
test_ports_plan(void)
{
	/* an inline pair, a tap port that only receives, a TX port, a consumer fed by two */
	const struct rps_port_use use[] = {
		{ .port_id = 0, .role = RPS_PORT_PAIR },
		{ .port_id = 1, .role = RPS_PORT_RX },
		{ .port_id = 2, .role = RPS_PORT_TX },
		{ .port_id = 3, .role = RPS_PORT_CONSUMER, .nb_senders = 2 },
	};
	struct rps_port_info info[RTE_DIM(use)] = {
		{ .max_rxq = 8, .max_txq = 8 }, { .max_rxq = 16, .max_txq = 16 },
		{ .max_rxq = 1, .max_txq = 4 }, { .max_rxq = 2, .max_txq = 2 },
	};
	const struct rps_port_plan_conf conf = { .rx_queues = 1, .nb_workers = 4 };
	struct rps_port_queues q[RTE_DIM(use)];
	unsigned int bad = 99;

	rps_port_pmd_limits("net_tap", 22, 11, &info[1].pair_queues, &info[1].max_queues);
	CU_ASSERT_EQUAL(rps_ports_plan(use, RTE_DIM(use), info, &conf, q, &bad), 0);
	CU_ASSERT_EQUAL(bad, 99);
	CU_ASSERT(q[0].nb_rxq == 1 && q[0].nb_txq == 4 && q[0].workers_tx);
	CU_ASSERT(q[1].nb_rxq == 1 && q[1].nb_txq == 1 && !q[1].workers_tx);
	CU_ASSERT(q[2].nb_rxq == 0 && q[2].nb_txq == 4 && q[2].workers_tx);
	CU_ASSERT(q[3].nb_rxq == 2 && q[3].nb_txq == 2 && q[3].workers_tx);
	/* the first port that cannot have its queues is named */
	info[2].max_txq = 3;
	CU_ASSERT_EQUAL(rps_ports_plan(use, RTE_DIM(use), info, &conf, q, &bad), -ENOSPC);
	CU_ASSERT_EQUAL(bad, 2);
}

/* a port with too few TX queues: the PMD's own argument that gives more, with the count */
static void
test_txq_hint(void)
{
	char buf[96];

	CU_ASSERT_STRING_EQUAL(rps_port_txq_hint("net_af_packet", 3, buf, sizeof(buf)),
			       " (net_af_packet: add qpairs=3 to its --vdev)");
	CU_ASSERT_STRING_EQUAL(rps_port_txq_hint("net_pcap", 3, buf, sizeof(buf)),
			       " (net_pcap: one tx_pcap= or tx_iface= per queue)");
	CU_ASSERT_STRING_EQUAL(rps_port_txq_hint("net_tap", 3, buf, sizeof(buf)), "");
	CU_ASSERT_STRING_EQUAL(rps_port_txq_hint("net_af_packetx", 3, buf, sizeof(buf)), "");
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "limits", test_limits },
		{ "check", test_check },
		{ "roles", test_roles },
		{ "ports_plan", test_ports_plan },
		{ "txq_hint", test_txq_hint },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "port", tests);
}
