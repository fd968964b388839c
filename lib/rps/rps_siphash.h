/* SPDX-License-Identifier: BSD-3-Clause */
/* rps_siphash.h: SipHash, a keyed hash (a PRF) for tables that hostile traffic can fill. */
/*
 * SipHash-c-d (Aumasson and Bernstein, "SipHash: a fast short-input PRF", 2012), written
 * from the paper: a 128-bit secret key, a 64-bit output, c compression rounds per 8-byte
 * message word and d finalization rounds. Without the key, nobody can compute which inputs
 * share a hash, so a table keyed by it has no multicollisions an attacker can aim at (a CRC
 * or jhash with a known or constant seed has them for every seed). SipHash-2-4 is the paper's
 * recommendation; SipHash-1-3 is the faster variant Linux uses for hsiphash and Rust for its
 * HashMap, enough where the output is never shown (a hash table's bucket choice).
 *
 * rps_siphash() is static inline: with a constant length and constant rounds the compiler
 * unrolls it for one key layout (the flow table's 40-byte key). Any thread may call
 * anything here; a key is read-only once set.
 */
#ifndef RPS_SIPHASH_H
#define RPS_SIPHASH_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/** A SipHash key: k[0] is bytes 0..7 of the 16-byte key read little-endian, k[1] bytes 8..15. */
struct rps_siphash_key {
	uint64_t k[2];
};

/**
 * Fill @p key with 16 random bytes from the kernel (getrandom(2)), falling back to
 * rte_rand() mixed with the TSC where that fails. Set-up path only (it may make a syscall).
 */
void rps_siphash_key_random(struct rps_siphash_key *key);
/** Set @p key from 16 bytes, as the paper's test vectors give it (key 00 01 .. 0f). */
void rps_siphash_key_from_bytes(struct rps_siphash_key *key, const uint8_t bytes[16]);

static inline uint64_t
rps_siphash_rotl(uint64_t x, unsigned int b)
{
	return (x << b) | (x >> (64 - b));
}

#define RPS_SIPROUND(v0, v1, v2, v3) do { \
	v0 += v1; v1 = rps_siphash_rotl(v1, 13); v1 ^= v0; v0 = rps_siphash_rotl(v0, 32); \
	v2 += v3; v3 = rps_siphash_rotl(v3, 16); v3 ^= v2; \
	v0 += v3; v3 = rps_siphash_rotl(v3, 21); v3 ^= v0; \
	v2 += v1; v1 = rps_siphash_rotl(v1, 17); v1 ^= v2; v2 = rps_siphash_rotl(v2, 32); \
} while (0)

/* A little-endian 64-bit word from @p p (any alignment). */
static inline uint64_t
rps_siphash_le64(const uint8_t *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

/**
 * SipHash-@p c_rounds-@p d_rounds of @p len bytes at @p data under @p key: the 64-bit output,
 * as the reference implementation's 8 output bytes read little-endian.
 */
static inline uint64_t
rps_siphash(const struct rps_siphash_key *key, const void *data, size_t len,
	    unsigned int c_rounds, unsigned int d_rounds)
{
	const uint8_t *p = data;
	const size_t whole = len & ~(size_t)7;
	uint64_t v0 = key->k[0] ^ UINT64_C(0x736f6d6570736575); /* "somepseudorandomlygeneratedbytes" */
	uint64_t v1 = key->k[1] ^ UINT64_C(0x646f72616e646f6d);
	uint64_t v2 = key->k[0] ^ UINT64_C(0x6c7967656e657261);
	uint64_t v3 = key->k[1] ^ UINT64_C(0x7465646279746573);
	uint64_t m, last = (uint64_t)len << 56;

	/* unrolled: with a constant length the hash is straight-line code, so the CPU overlaps
	 * the hashes of consecutive keys (the flow stage hashes a burst in one loop) */
#pragma GCC unroll 8
	for (size_t i = 0; i < whole; i += 8) {
		m = rps_siphash_le64(p + i);
		v3 ^= m;
#pragma GCC unroll 4
		for (unsigned int r = 0; r < c_rounds; r++)
			RPS_SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	for (size_t i = whole; i < len; i++)
		last |= (uint64_t)p[i] << (8 * (i - whole));
	v3 ^= last;
#pragma GCC unroll 4
	for (unsigned int r = 0; r < c_rounds; r++)
		RPS_SIPROUND(v0, v1, v2, v3);
	v0 ^= last;
	v2 ^= 0xff;
#pragma GCC unroll 4
	for (unsigned int r = 0; r < d_rounds; r++)
		RPS_SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

/** SipHash-2-4, the paper's recommended variant. */
static inline uint64_t
rps_siphash24(const struct rps_siphash_key *key, const void *data, size_t len)
{
	return rps_siphash(key, data, len, 2, 4);
}

/** SipHash-1-3, the faster variant (Linux hsiphash on 64-bit, Rust's HashMap). */
static inline uint64_t
rps_siphash13(const struct rps_siphash_key *key, const void *data, size_t len)
{
	return rps_siphash(key, data, len, 1, 3);
}

/**
 * SipHash-1-3 of four messages of @p len bytes each (data[0..3]) under @p key, into
 * out[0..3]: rps_siphash13() of each, bit for bit. With AVX2 (rps_siphash_x4_simd()) the
 * four are hashed together, one per 64-bit lane, for a length that is a multiple of 8 (16
 * and 40, the flow table's, unrolled); otherwise one after the other. Data path: no
 * allocation, no syscall.
 */
void rps_siphash13_x4(const struct rps_siphash_key *key, const void *const data[4], size_t len,
		      uint64_t out[4]);

/**
 * Whether rps_siphash13_x4() hashes the four together on this CPU (the library was built
 * with its AVX2 copy and the CPU has AVX2): where it does not, hashing one key at a time
 * with rps_siphash13() costs the same. Set-up path (a CPUID query): call it once.
 */
int rps_siphash_x4_simd(void);

#endif /* RPS_SIPHASH_H */
