/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_cpu.h: what the build was compiled for and which CPU-specific paths the running CPU
 * takes. Every path that needs an extension beyond the build's baseline is chosen at run
 * time from the CPU's own flags (rte_cpu_get_flag_enabled(), rte_cpu_get_intrinsics_support()),
 * so a binary built with -Dcpu=generic starts on any x86-64-v2 CPU and still uses GFNI or
 * WAITPKG where they exist. dpdk-rps logs the result at start and /rps/info reports it.
 */
#ifndef RPS_CPU_H
#define RPS_CPU_H

#include <stddef.h>

/** The CPU paths in use. Strings are static. */
struct rps_cpu_paths {
	const char *build;     /**< "native (-march=native)" or "generic (-march=x86-64-v2 ...)" */
	const char *toeplitz;  /**< "gfni" (inline), "gfni-ool" (out of line), "softrss" */
	const char *idle_wait; /**< "umwait" (rte_power_monitor on WAITPKG), "sleep" */
	const char *flow_hash; /**< the flow table's SipHash: "avx2-x4" (four keys at a time,
				*   rps_siphash13_x4()), "scalar" */
	const char *cpu_flags; /**< the optional extensions the CPU has, space-separated */
};

/** Fill @p p for this binary on this CPU (after rte_eal_init()). */
void rps_cpu_paths_get(struct rps_cpu_paths *p);

#endif /* RPS_CPU_H */
