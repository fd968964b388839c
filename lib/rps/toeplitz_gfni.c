/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * toeplitz_gfni.c: rte_thash_gfni() out of line, for builds whose baseline CPU has no GFNI
 * or AVX-512 (-Dcpu=generic). This one file is compiled with -mgfni -mavx512{f,bw,dq,vl,vbmi}
 * (lib/meson.build); nothing in it runs unless rps_toeplitz_gfni_available() has seen every
 * one of those extensions in the running CPU, so the rest of the program keeps the baseline.
 */
#include <rte_thash.h>

#include "rps_toeplitz.h"

#if !defined(RTE_THASH_GFNI_DEFINED)
#error "toeplitz_gfni.c must be compiled with GFNI and AVX-512 enabled (see lib/meson.build)"
#endif

uint32_t
rps_toeplitz_gfni_ool(const uint64_t *mtrx, const uint8_t *tuple, unsigned int len)
{
	return rte_thash_gfni(mtrx, tuple, (int)len);
}
