/* SPDX-License-Identifier: BSD-3-Clause */
/* siphash.c: SipHash keys: random per start, or given (tests). The hash is in rps_siphash.h. */
#include <sys/random.h>

#include <rte_cpuflags.h>
#include <rte_cycles.h>
#include <rte_random.h>

#include "rps_siphash.h"

void
rps_siphash_key_from_bytes(struct rps_siphash_key *key, const uint8_t bytes[16])
{
	key->k[0] = rps_siphash_le64(bytes);
	key->k[1] = rps_siphash_le64(bytes + 8);
}

void
rps_siphash_key_random(struct rps_siphash_key *key)
{
	uint8_t b[16];

	if (getrandom(b, sizeof(b), 0) == (ssize_t)sizeof(b)) {
		rps_siphash_key_from_bytes(key, b);
		return;
	}
	/* no getrandom (old kernel, seccomp): DPDK's generator, seeded from getentropy/rdseed */
	key->k[0] = rte_rand() ^ rte_rdtsc();
	key->k[1] = rte_rand() ^ rps_siphash_rotl(rte_rdtsc(), 32);
}

/* siphash_x4.c's: 1 when it was compiled with AVX2 */
extern const int rps_siphash_x4_avx2;

int
rps_siphash_x4_simd(void)
{
	/* here, in the baseline's code, not in the AVX2 file: the check runs on any CPU */
	return rps_siphash_x4_avx2 && rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) > 0;
}
