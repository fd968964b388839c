/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu.c: the build's CPU baseline and the run-time choice of CPU-specific paths (rps_cpu.h). */
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cpuflags.h>
#include <rte_power_intrinsics.h>

#include "rps_cpu.h"
#include "rps_siphash.h"
#include "rps_toeplitz.h"

#ifndef RPS_BUILD_CPU
#define RPS_BUILD_CPU "unknown"
#endif

void
rps_cpu_paths_get(struct rps_cpu_paths *p)
{
	static char flags[128];
	static const struct {
		enum rte_cpu_flag_t f;
		const char *name;
	} opt[] = {
		{ RTE_CPUFLAG_AVX2, "avx2" }, { RTE_CPUFLAG_AVX512F, "avx512f" },
		{ RTE_CPUFLAG_AVX512VBMI, "avx512vbmi" }, { RTE_CPUFLAG_GFNI, "gfni" },
		{ RTE_CPUFLAG_WAITPKG, "waitpkg" }, { RTE_CPUFLAG_CLDEMOTE, "cldemote" },
	};
	struct rte_cpu_intrinsics intr;
	size_t len = 0;

	memset(p, 0, sizeof(*p));
	p->build = RPS_BUILD_CPU;
	if (!rps_toeplitz_gfni_available())
		p->toeplitz = "softrss";
	else
#ifdef RTE_THASH_GFNI_DEFINED
		p->toeplitz = "gfni";
#else
		p->toeplitz = "gfni-ool";
#endif
	rte_cpu_get_intrinsics_support(&intr);
	p->idle_wait = intr.power_monitor ? "umwait" : "sleep";
	p->flow_hash = rps_siphash_x4_simd() ? "avx2-x4" : "scalar";
	flags[0] = '\0';
	for (unsigned int i = 0; i < RTE_DIM(opt); i++) {
		if (rte_cpu_get_flag_enabled(opt[i].f) <= 0)
			continue;
		len += (size_t)snprintf(flags + len, sizeof(flags) - len, "%s%s", len ? " " : "",
					opt[i].name);
		if (len >= sizeof(flags))
			break;
	}
	p->cpu_flags = flags;
}
