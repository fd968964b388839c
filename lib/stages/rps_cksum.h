/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_cksum.h: the Internet checksum's one's-complement sum, faster than rte_raw_cksum().
 *
 * DPDK 22.11's rte_raw_cksum() adds one 16-bit word per step; the validate stage spends most
 * of a worker's time there on software-checksummed traffic (perf, docs/benchmarks.md). This
 * adds 32-bit words into four independent 64-bit accumulators (no carry is lost before 2^32
 * words) and folds at the end: by RFC 1071's byte-order and word-size independence the
 * folded result is bit-identical to rte_raw_cksum() for every buffer, length and alignment
 * (tests/unit/test_validate.c compares them).
 */
#ifndef RPS_CKSUM_H
#define RPS_CKSUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/** Folded (not complemented) one's-complement sum of @p len bytes at @p buf, in the same
 * native byte order as rte_raw_cksum(). */
static inline uint16_t
rps_raw_cksum(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	uint32_t w[4];

	for (; len >= 16; p += 16, len -= 16) {
		memcpy(w, p, 16);
		s0 += w[0];
		s1 += w[1];
		s2 += w[2];
		s3 += w[3];
	}
	s0 += s1 + s2 + s3;
	if (len >= 8) {
		memcpy(w, p, 8);
		s0 += (uint64_t)w[0] + w[1];
		p += 8;
		len -= 8;
	}
	if (len >= 4) {
		memcpy(w, p, 4);
		s0 += w[0];
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		uint16_t h;

		memcpy(&h, p, 2);
		s0 += h;
		p += 2;
		len -= 2;
	}
	if (len == 1)
		s0 += *p; /* the last byte is the low-address half of a word: low lane on x86 */
	s0 = (s0 & 0xffffffff) + (s0 >> 32);
	s0 = (s0 & 0xffffffff) + (s0 >> 32);
	s0 = (s0 & 0xffff) + (s0 >> 16);
	s0 = (s0 & 0xffff) + (s0 >> 16);
	s0 = (s0 & 0xffff) + (s0 >> 16);
	return (uint16_t)s0;
}

#endif /* RPS_CKSUM_H */
