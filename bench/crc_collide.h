/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * crc_collide.h: inputs that share one CRC32C (rte_hash_crc, seed 0), for measuring and
 * testing what hash flooding costs. Attack code: the benchmark and the tests use it, the
 * application never does.
 *
 * rte_hash_crc with seed 0 and no final inversion is linear over GF(2): crc(a ^ b) =
 * crc(a) ^ crc(b) for inputs of one length. Given F free bits of an input, the XOR
 * patterns of them that leave the CRC unchanged form a subspace of dimension at least
 * F - 32; crc_collide_init() finds a basis by Gaussian elimination, and crc_collide_nth()
 * gives the base input XOR the combination selected by the bits of n: 2^dim distinct inputs
 * with the base's CRC.
 */
#ifndef CRC_COLLIDE_H
#define CRC_COLLIDE_H
#include <stddef.h>
#include <stdint.h>

#define CRC_COLLIDE_MAX_LEN 64
#define CRC_COLLIDE_MAX_FREE 256

struct crc_collide {
	size_t len;
	unsigned int dim;                                    /* basis vectors found */
	uint8_t basis[CRC_COLLIDE_MAX_FREE][CRC_COLLIDE_MAX_LEN];
};

/**
 * Solve for inputs of @p len bytes (a multiple of 4, at most CRC_COLLIDE_MAX_LEN) whose
 * @p nfree free bits are @p free_bits (bit i of byte b is b * 8 + i).
 * @return the dimension of the solution space, or -1 on bad arguments.
 */
int crc_collide_init(struct crc_collide *s, size_t len, const uint16_t *free_bits,
		     unsigned int nfree);
/** @p out = @p base XOR the basis vectors selected by the bits of @p n (n < 2^dim). */
void crc_collide_nth(const struct crc_collide *s, const uint8_t *base, uint64_t n,
		     uint8_t *out);

/*
 * IPv6 TCP flows from 2001:db8:1::/64 (any port) to [2001:db8:ffff::1]:443 whose flow-table
 * keys (lib/stages/flow.c's struct flow_key: family, proto, pad, port[2], addr[2][16], the
 * lower endpoint first) share one CRC32C: the source's low 64 bits and its port are free,
 * 80 bits for 32 equations.
 */
struct crc_collide_flow6 {
	uint8_t src[16], dst[16];
	uint16_t sport, dport;   /* host order */
};
/** Solve for those flows. @return the dimension (48), or -1. */
int crc_collide_flows6_init(struct crc_collide *s);
/** The @p n th such flow (distinct for distinct n < 2^dim). */
void crc_collide_flow6(const struct crc_collide *s, uint64_t n, struct crc_collide_flow6 *f);

#endif
