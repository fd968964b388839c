/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_eal_args.h: what dpdk-rps reads of EAL's own arguments, so that the two failures a
 * newcomer meets first say what to do in one line instead of EAL's whole usage or a bare
 * errno: lcores on CPUs the machine does not have (checked before rte_eal_init()), and no
 * hugepage memory (explained after it failed).
 *
 * The checks are pure: the machine's facts (the CPUs EAL detects, the hugepages) are
 * parameters, read by rps_eal_cpus_detected() and rps_eal_huge_facts_read(). Only the
 * simple forms are read; whatever these do not understand is left for EAL to judge.
 */
#ifndef RPS_EAL_ARGS_H
#define RPS_EAL_ARGS_H

#include <sched.h>
#include <stddef.h>

/**
 * Check the lcores EAL is given (-l LIST, -c MASK, --lcores MAP; also -lLIST and
 * --lcores=MAP) against the CPUs EAL would find, as EAL 22.11 does: an lcore without '@' runs
 * on the CPU of its number, one with '@' on the CPUs after it.
 * @param argc, argv EAL's arguments (argv[0], the program, is skipped)
 * @param cpus the CPUs EAL detects (rps_eal_cpus_detected())
 * @param msg, len where the message goes, without "dpdk-rps: " or a newline:
 *   "-l 0-7: this machine has CPUs 0-1; on fewer CPUs than lcores use --lcores '0@0,(1-7)@1'"
 * @return 0 when every CPU they name is there or the argument is not one of the simple forms
 *   (EAL judges it); -1 with @p msg set when one names a CPU the machine lacks.
 */
int rps_eal_check_lcores(int argc, char *const *argv, const cpu_set_t *cpus, char *msg,
			 size_t len);

/**
 * The CPUs EAL 22.11 detects: those with a topology in sysfs
 * (/sys/devices/system/cpu/cpuN/topology/core_id, eal_cpu_detected()).
 */
void rps_eal_cpus_detected(cpu_set_t *cpus);

/** The machine's hugepages, as far as EAL's failure is concerned. -1: could not be read. */
struct rps_huge_facts {
	long total;      /**< HugePages_Total of the default size (/proc/meminfo) */
	long free;       /**< HugePages_Free */
	int mounted;     /**< a hugetlbfs is mounted (/proc/mounts) */
	int dir_mounted; /**< the --huge-dir given is a hugetlbfs mount; -1 when none given */
};

/**
 * Read the facts rps_eal_huge_advice() weighs.
 * @param huge_dir the --huge-dir given, or NULL
 */
void rps_eal_huge_facts_read(const char *huge_dir, struct rps_huge_facts *f);

/**
 * The value of EAL option @p name (such as "--huge-dir": "--huge-dir D" or "--huge-dir=D")
 * in argv[1..argc), the last one given; NULL when absent. For a flag (such as "--no-huge"):
 * non-NULL when given.
 */
const char *rps_eal_arg(int argc, char *const *argv, const char *name);

/**
 * Whether EAL's failure (@p eal_errno, its rte_errno) was for want of hugepage memory, and
 * what to do then: EAL 22.11 says EACCES when it finds no hugepages it could use ("Cannot get
 * hugepage information") and ENOMEM when they are too few for -m ("Cannot init memory").
 * Without --no-huge only: with it, EAL used no hugepages.
 * @param msg, len the line, without "dpdk-rps: " or a newline: why (from @p f) and the two
 *   ways out (--no-huge -m 512, or reserving 2 MiB hugepages)
 * @return 1 with @p msg set, or 0 (not a hugepage failure: EAL's own reason stands).
 */
int rps_eal_huge_advice(int argc, char *const *argv, int eal_errno,
			const struct rps_huge_facts *f, char *msg, size_t len);

#endif /* RPS_EAL_ARGS_H */
