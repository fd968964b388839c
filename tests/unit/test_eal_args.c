/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_eal_args.c: what dpdk-rps reads of EAL's arguments (app/setup/eal_args.c): lcores on
 * CPUs a machine lacks are refused in one line with the --lcores that works, whatever form
 * named them, and the forms it does not read are left to EAL; a failure for want of
 * hugepages says why and what to do, and no other failure does.
 */
#include <errno.h>
#include <string.h>

#include "rps_eal_args.h"
#include "test_common.h"

/* a machine with CPUs 0..n-1 */
static cpu_set_t
machine(unsigned int n)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	for (unsigned int i = 0; i < n; i++)
		CPU_SET(i, &s);
	return s;
}

/* rps_eal_check_lcores() on "prog ARGS..." */
static int
check(unsigned int ncpus, char *msg, size_t len, const char *a1, const char *a2,
      const char *a3)
{
	char *argv[] = { (char *)"dpdk-rps", (char *)a1, (char *)a2, (char *)a3, NULL };
	const cpu_set_t cpus = machine(ncpus);
	int argc = 1;

	while (argc < 4 && argv[argc] != NULL)
		argc++;
	msg[0] = '\0';
	return rps_eal_check_lcores(argc, argv, &cpus, msg, len);
}

static void
test_lcores_refused(void)
{
	char msg[1024];

	/* the case: -l 0-7 on two CPUs */
	CU_ASSERT_EQUAL(check(2, msg, sizeof(msg), "-l", "0-7", NULL), -1);
	CU_ASSERT_STRING_EQUAL(msg, "-l 0-7: this machine has CPUs 0-1; on fewer CPUs than "
			       "lcores use --lcores '0@0,(1-7)@1'");
	/* glued, after other options */
	CU_ASSERT_EQUAL(check(2, msg, sizeof(msg), "--no-huge", "-l0-3", NULL), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "-l 0-3: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "'0@0,(1-3)@1'"));
	/* a list, on four CPUs: the rest share CPUs 1-3 */
	CU_ASSERT_EQUAL(check(4, msg, sizeof(msg), "-l", "0,2,4-9", NULL), -1);
	CU_ASSERT_STRING_EQUAL(msg, "-l 0,2,4-9: this machine has CPUs 0-3; on fewer CPUs than "
			       "lcores use --lcores '0@0,(2,4-9)@(1-3)'");
	/* a coremask */
	CU_ASSERT_EQUAL(check(2, msg, sizeof(msg), "-c", "0xf", NULL), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "-c 0xf: this machine has CPUs 0-1; "));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "'0@0,(1-3)@1'"));
	/* --lcores without '@': each lcore on the CPU of its number */
	CU_ASSERT_EQUAL(check(2, msg, sizeof(msg), "--lcores", "0-3", NULL), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "--lcores 0-3: "));
	CU_ASSERT_EQUAL(check(2, msg, sizeof(msg), "--lcores=0,(1-2)", NULL, NULL), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "--lcores 0,(1-2): "));
	/* --lcores with '@' on a CPU that is not there */
	CU_ASSERT_EQUAL(check(2, msg, sizeof(msg), "--lcores", "0@0,(1-3)@5", NULL), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "'0@0,(1-3)@1'"));
	CU_ASSERT_EQUAL(check(2, msg, sizeof(msg), "--lcores", "0@0,(1-3)@(1,2)", NULL), -1);
	/* as many lcores as CPUs, on CPUs that are not there */
	CU_ASSERT_EQUAL(check(2, msg, sizeof(msg), "-l", "4-5", NULL), -1);
	CU_ASSERT_STRING_EQUAL(msg, "-l 4-5: this machine has CPUs 0-1; to run the lcores on "
			       "them use --lcores '4@0,5@1'");
	/* one CPU: every lcore on it */
	CU_ASSERT_EQUAL(check(1, msg, sizeof(msg), "-l", "0-2", NULL), -1);
	CU_ASSERT_STRING_EQUAL(msg, "-l 0-2: this machine has CPU 0; on fewer CPUs than lcores "
			       "use --lcores '(0-2)@0'");
}

static void
test_lcores_accepted(void)
{
	char msg[1024];

	/* what the machine has */
	CU_ASSERT_EQUAL(check(2, msg, sizeof(msg), "-l", "0-1", NULL), 0);
	CU_ASSERT_EQUAL(check(2, msg, sizeof(msg), "-l", "1", NULL), 0);
	CU_ASSERT_EQUAL(check(2, msg, sizeof(msg), "-c", "0x3", NULL), 0);
	CU_ASSERT_EQUAL(check(8, msg, sizeof(msg), "-l", "0-7", NULL), 0);
	/* more lcores than CPUs, placed on the CPUs there are */
	CU_ASSERT_EQUAL(check(2, msg, sizeof(msg), "--lcores", "0@0,(1-7)@1", NULL), 0);
	CU_ASSERT_EQUAL(check(2, msg, sizeof(msg), "--lcores=0@0,(1-3)@(0,1)", NULL, NULL), 0);
	/* no lcores at all */
	CU_ASSERT_EQUAL(check(2, msg, sizeof(msg), "--no-huge", NULL, NULL), 0);
	/* forms it does not read: EAL judges them */
	CU_ASSERT_EQUAL(check(2, msg, sizeof(msg), "--lcores", "garbage", NULL), 0);
	CU_ASSERT_EQUAL(check(2, msg, sizeof(msg), "-l", "0-7x", NULL), 0);
	CU_ASSERT_EQUAL(check(2, msg, sizeof(msg), "-c", "0xfg", NULL), 0);
	CU_ASSERT_EQUAL(check(2, msg, sizeof(msg), "--lcores", "0@0-3", NULL), 0);
	CU_ASSERT_EQUAL(check(2, msg, sizeof(msg), "-l", "5000", NULL), 0);
	CU_ASSERT_EQUAL(check(2, msg, sizeof(msg), "-l", NULL, NULL), 0);
	CU_ASSERT_STRING_EQUAL(msg, "");
}

/* rps_eal_huge_advice() on "prog ARGS..." */
static int
advice(int err, const struct rps_huge_facts *f, char *msg, size_t len, const char *a1,
       const char *a2)
{
	char *argv[] = { (char *)"dpdk-rps", (char *)a1, (char *)a2, NULL };
	int argc = a1 == NULL ? 1 : a2 == NULL ? 2 : 3;

	msg[0] = '\0';
	return rps_eal_huge_advice(argc, argv, err, f, msg, len);
}

static void
test_huge_advice(void)
{
	const struct rps_huge_facts none = { .total = 0, .free = 0, .mounted = 0,
					     .dir_mounted = -1 };
	const struct rps_huge_facts used = { .total = 512, .free = 0, .mounted = 1,
					     .dir_mounted = -1 };
	const struct rps_huge_facts some = { .total = 512, .free = 100, .mounted = 1,
					     .dir_mounted = -1 };
	struct rps_huge_facts dir = some;
	char msg[8192];

	/* this machine's case: no hugepages, EAL says EACCES */
	CU_ASSERT_EQUAL(advice(EACCES, &none, msg, sizeof(msg), "-l", "0-1"), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "none reserved"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "--no-huge -m 512"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "echo 512 > /sys/kernel/mm/hugepages/"
				       "hugepages-2048kB/nr_hugepages"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "mount -t hugetlbfs"));
	CU_ASSERT_PTR_NULL(strchr(msg, '\n'));
	CU_ASSERT_EQUAL(advice(ENOMEM, &used, msg, sizeof(msg), NULL, NULL), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "none of the 512 reserved is free"));
	CU_ASSERT_PTR_NULL(strstr(msg, "mount -t hugetlbfs"));
	CU_ASSERT_EQUAL(advice(ENOMEM, &some, msg, sizeof(msg), "-m", "4096"), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "100 free"));
	/* --huge-dir on a folder that is not a hugetlbfs mount */
	dir.dir_mounted = 0;
	CU_ASSERT_EQUAL(advice(EACCES, &dir, msg, sizeof(msg), "--huge-dir", "/tmp/x"), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "--huge-dir /tmp/x is not a hugetlbfs mount"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "mount -t hugetlbfs nodev /tmp/x"));
	CU_ASSERT_EQUAL(advice(EACCES, &dir, msg, sizeof(msg), "--huge-dir=/tmp/y", NULL), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "--huge-dir /tmp/y is not"));
	/* not a hugepage failure: EAL's own reason stands */
	CU_ASSERT_EQUAL(advice(EACCES, &none, msg, sizeof(msg), "--no-huge", NULL), 0);
	CU_ASSERT_EQUAL(advice(ENOMEM, &none, msg, sizeof(msg), "--no-huge", "-m"), 0);
	CU_ASSERT_EQUAL(advice(EINVAL, &none, msg, sizeof(msg), NULL, NULL), 0);
	CU_ASSERT_EQUAL(advice(0, &none, msg, sizeof(msg), NULL, NULL), 0);
	CU_ASSERT_STRING_EQUAL(msg, "");
}

static void
test_eal_arg(void)
{
	char *argv[] = { (char *)"p", (char *)"--huge-dir", (char *)"/a", (char *)"--no-huge",
			 (char *)"--huge-dir=/b", (char *)"--huge-unlink", NULL };

	CU_ASSERT_STRING_EQUAL(rps_eal_arg(5, argv, "--huge-dir"), "/b");
	CU_ASSERT_STRING_EQUAL(rps_eal_arg(3, argv, "--huge-dir"), "/a");
	CU_ASSERT_PTR_NOT_NULL(rps_eal_arg(6, argv, "--no-huge"));
	CU_ASSERT_PTR_NULL(rps_eal_arg(3, argv, "--no-huge"));
	CU_ASSERT_PTR_NULL(rps_eal_arg(6, argv, "--in-memory"));
}

/* the readers of the machine: whatever they find, they find something consistent */
static void
test_machine(void)
{
	struct rps_huge_facts f;
	cpu_set_t cpus;

	rps_eal_cpus_detected(&cpus);
	CU_ASSERT(CPU_COUNT(&cpus) >= 1);
	rps_eal_huge_facts_read(NULL, &f);
	CU_ASSERT(f.total >= 0 && f.free >= 0 && f.free <= f.total);
	CU_ASSERT_EQUAL(f.dir_mounted, -1);
	rps_eal_huge_facts_read("/nonexistent/rps-huge", &f);
	CU_ASSERT_EQUAL(f.dir_mounted, 0);
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "lcores_refused", test_lcores_refused },
		{ "lcores_accepted", test_lcores_accepted },
		{ "huge_advice", test_huge_advice },
		{ "eal_arg", test_eal_arg },
		{ "machine", test_machine },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "eal_args", tests);
}
