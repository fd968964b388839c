/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_numa.c: the NUMA placement helpers of the application (app/setup/numa.c). The socket check
 * is a pure function over a socket table, so layouts of several sockets are tested on any
 * machine; libnuma's view and EAL's memory are checked against this machine's real ones.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <numa.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "rps_numa.h"
#include "test_common.h"

static int sock[RTE_MAX_LCORE];

/* Every lcore on no single socket; each test then places the ones it uses. */
static void
table_reset(void)
{
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++)
		sock[l] = SOCKET_ID_ANY;
}

static struct rps_lcoreset
set_of(const char *list)
{
	struct rps_lcoreset s;
	unsigned int bad;

	CU_ASSERT_EQUAL_FATAL(rps_lcoreset_parse(list, &s, &bad), 0);
	return s;
}

static void
test_empty(void)
{
	struct rps_lcoreset none = { { 0 }, { 0 } };
	unsigned int off = 99;
	char d[64] = "junk";

	table_reset();
	sock[1] = 0;
	CU_ASSERT_EQUAL(rps_numa_map_sockets(&none, sock, 0, &off, d, sizeof(d)), 0);
	CU_ASSERT_EQUAL(off, 0);
	CU_ASSERT_STRING_EQUAL(d, "");
}

static void
test_one_socket(void)
{
	struct rps_lcoreset s = set_of("1-3");
	unsigned int off = 99;
	char d[128];

	table_reset();
	sock[0] = 0; /* the RX lcore: not in the map, not counted */
	sock[1] = sock[2] = sock[3] = 0;
	sock[4] = 1; /* enabled elsewhere, not in the map */
	CU_ASSERT_EQUAL(rps_numa_map_sockets(&s, sock, 0, &off, d, sizeof(d)), 1);
	CU_ASSERT_EQUAL(off, 0);
	CU_ASSERT_STRING_EQUAL(d, "lcores 1-3 on socket 0");
	/* the same workers all away from the port */
	CU_ASSERT_EQUAL(rps_numa_map_sockets(&s, sock, 1, &off, d, sizeof(d)), 1);
	CU_ASSERT_EQUAL(off, 3);
	/* port socket unknown: nobody is off it */
	CU_ASSERT_EQUAL(rps_numa_map_sockets(&s, sock, SOCKET_ID_ANY, &off, d, sizeof(d)), 1);
	CU_ASSERT_EQUAL(off, 0);
}

static void
test_two_sockets(void)
{
	struct rps_lcoreset s = set_of("1-2,5,7,9-10");
	unsigned int off = 99;
	char d[128];

	table_reset();
	sock[1] = sock[2] = sock[9] = 0;
	sock[5] = sock[7] = sock[10] = 1;
	CU_ASSERT_EQUAL(rps_numa_map_sockets(&s, sock, 0, &off, d, sizeof(d)), 2);
	CU_ASSERT_EQUAL(off, 3);
	CU_ASSERT_STRING_EQUAL(d, "lcores 1-2,9 on socket 0, lcores 5,7,10 on socket 1");
	CU_ASSERT_EQUAL(rps_numa_map_sockets(&s, sock, 1, &off, d, sizeof(d)), 2);
	CU_ASSERT_EQUAL(off, 3);
	/* sockets come out in ascending order whatever the lcore order */
	sock[1] = sock[2] = sock[9] = 3;
	CU_ASSERT_EQUAL(rps_numa_map_sockets(&s, sock, 3, &off, d, sizeof(d)), 2);
	CU_ASSERT_EQUAL(off, 3);
	CU_ASSERT_STRING_EQUAL(d, "lcores 5,7,10 on socket 1, lcores 1-2,9 on socket 3");
	/* outputs are optional */
	CU_ASSERT_EQUAL(rps_numa_map_sockets(&s, sock, 3, NULL, NULL, 0), 2);
}

static void
test_no_single_socket(void)
{
	struct rps_lcoreset s = set_of("2-4");
	unsigned int off = 99;
	char d[128];

	table_reset();
	sock[2] = 0; /* 3 and 4 float over CPUs of several sockets */
	CU_ASSERT_EQUAL(rps_numa_map_sockets(&s, sock, 0, &off, d, sizeof(d)), 1);
	CU_ASSERT_EQUAL(off, 0);
	CU_ASSERT_STRING_EQUAL(d, "lcores 2 on socket 0, lcores 3-4 on no single socket");
	sock[2] = SOCKET_ID_ANY;
	CU_ASSERT_EQUAL(rps_numa_map_sockets(&s, sock, 0, &off, d, sizeof(d)), 0);
	CU_ASSERT_STRING_EQUAL(d, "lcores 2-4 on no single socket");
}

static void
test_edges(void)
{
	struct rps_lcoreset s = { { 0 }, { 0 } };
	unsigned int off;
	char d[128], small[12];

	/* the last lcore id, ranges that reach it */
	table_reset();
	rps_lcoreset_add(&s, 0);
	rps_lcoreset_add(&s, RTE_MAX_LCORE - 2);
	rps_lcoreset_add(&s, RTE_MAX_LCORE - 1);
	sock[0] = 1;
	sock[RTE_MAX_LCORE - 2] = sock[RTE_MAX_LCORE - 1] = 1;
	CU_ASSERT_EQUAL(rps_numa_map_sockets(&s, sock, 1, &off, d, sizeof(d)), 1);
	{
		char want[64];

		snprintf(want, sizeof(want), "lcores 0,%u-%u on socket 1", RTE_MAX_LCORE - 2,
			 RTE_MAX_LCORE - 1);
		CU_ASSERT_STRING_EQUAL(d, want);
	}
	/* a description too long for its buffer is cut, terminated, and changes no count */
	memset(small, 'x', sizeof(small));
	sock[0] = 0;
	CU_ASSERT_EQUAL(rps_numa_map_sockets(&s, sock, 1, &off, small, sizeof(small)), 2);
	CU_ASSERT_EQUAL(off, 1);
	CU_ASSERT_EQUAL(strlen(small), sizeof(small) - 1);
	CU_ASSERT_EQUAL(strncmp(small, "lcores 0 on", sizeof(small) - 1), 0);
	CU_ASSERT_EQUAL(rps_numa_map_sockets(&s, sock, 1, &off, small, 1), 2);
	CU_ASSERT_STRING_EQUAL(small, "");
}

/* libnuma and EAL agree on this machine's lcores (nothing faked: whatever it is). */
static void
test_lcore_node(void)
{
	unsigned int lcore;
	char cpus[64];
	int n = 0;

	RTE_LCORE_FOREACH(lcore) {
		int node = rps_numa_lcore_node(lcore, cpus, sizeof(cpus));
		int eal = (int)rte_lcore_to_socket_id(lcore);

		CU_ASSERT_NOT_EQUAL(cpus[0], '\0');
		if (numa_available() < 0) {
			CU_ASSERT_EQUAL(node, -ENOTSUP);
		} else if (eal < 0) {
			CU_ASSERT_EQUAL(node, -EXDEV); /* EAL's "any": CPUs on several nodes */
		} else {
			CU_ASSERT_EQUAL(node, eal);
		}
		n++;
	}
	CU_ASSERT(n > 0);
	/* no such lcore */
	CU_ASSERT_EQUAL(rps_numa_lcore_node(RTE_MAX_LCORE, cpus, sizeof(cpus)), -ENOENT);
	CU_ASSERT_STRING_EQUAL(cpus, "");
	/* an lcore id with no CPU behind it (unless this machine has RTE_MAX_LCORE CPUs) */
	{
		rte_cpuset_t none = rte_lcore_cpuset(RTE_MAX_LCORE - 1);

		if (CPU_COUNT(&none) == 0) {
			CU_ASSERT_EQUAL(rps_numa_lcore_node(RTE_MAX_LCORE - 1, cpus, sizeof(cpus)),
					numa_available() < 0 ? -ENOTSUP : -ENOENT);
			CU_ASSERT_STRING_EQUAL(cpus, "");
		}
	}
}

/* Sockets EAL can allocate on are kept, others become "any". The unit tests' EAL runs
 * --no-huge, where EAL allocates anywhere whatever the socket: every valid one is kept. */
static void
test_mem_socket(void)
{
	CU_ASSERT_EQUAL(rps_numa_mem_socket(SOCKET_ID_ANY), SOCKET_ID_ANY);
	CU_ASSERT_EQUAL(rps_numa_mem_socket(RTE_MAX_NUMA_NODES), SOCKET_ID_ANY);
	CU_ASSERT_EQUAL(rps_numa_mem_socket((int)rte_socket_id()), (int)rte_socket_id());
	for (int s = 0; s < RTE_MAX_NUMA_NODES; s++) {
		int got = rps_numa_mem_socket(s);

		CU_ASSERT(got == s || got == SOCKET_ID_ANY);
		if (!rte_eal_has_hugepages())
			CU_ASSERT_EQUAL(got, s);
	}
}

/* The kernel's word on where memory is: a node that exists; with hugepages the socket EAL
 * placed it on, and on a machine of one node that node. (Without hugepages the first
 * thread to touch a page decides, which on several nodes may have been during EAL's
 * start-up, before it pinned this thread.) */
static void
test_addr_node(void)
{
	void *p = rte_zmalloc_socket("ut_numa", 4096, 0, (int)rte_socket_id());
	int node;

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	node = rps_numa_addr_node(p);
	if (numa_available() < 0) {
		CU_ASSERT_EQUAL(node, -ENOTSUP);
	} else if (node == -EPERM || node == -ENOSYS) {
		printf("(the kernel does not tell page nodes here: %d) ", node);
	} else {
		CU_ASSERT(node >= 0 && node <= numa_max_node());
		if (rte_eal_has_hugepages())
			CU_ASSERT_EQUAL(node, (int)rte_socket_id());
		if (numa_max_node() == 0)
			CU_ASSERT_EQUAL(node, 0);
	}
	rte_free(p);
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "empty", test_empty },
		{ "one_socket", test_one_socket },
		{ "two_sockets", test_two_sockets },
		{ "no_single_socket", test_no_single_socket },
		{ "edges", test_edges },
		{ "lcore_node", test_lcore_node },
		{ "mem_socket", test_mem_socket },
		{ "addr_node", test_addr_node },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "numa", tests);
}
