/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * siphash_x4.c: SipHash-1-3 of four messages at once, one per 64-bit lane of AVX2 registers
 * (rps_siphash13_x4()). The flow stage hashes a burst's keys in groups of four with it.
 *
 * This one file is compiled with -mavx2 on x86-64 (lib/meson.build); no code of it runs
 * unless rps_siphash_x4_simd() (siphash.c, compiled for the build's baseline: the check
 * itself cannot be given an AVX2 instruction) has seen AVX2 in the running CPU. It only
 * says, in rps_siphash_x4_avx2, whether it was built with AVX2. Built without (another
 * architecture, or a compiler without -mavx2), rps_siphash13_x4() is four calls of
 * rps_siphash13() and rps_siphash_x4_simd() says 0. Either way the results are rps_siphash13()'s, bit for bit (unit-siphash checks).
 */
#include "rps_siphash.h"

#if defined(__AVX2__)
#include <immintrin.h>

static inline __m256i
rotl(__m256i x, int b)
{
	return _mm256_or_si256(_mm256_slli_epi64(x, b), _mm256_srli_epi64(x, 64 - b));
}

/* rotate by 16: a byte shuffle (one instruction instead of three) */
static inline __m256i
rotl16(__m256i x)
{
	const __m256i m = _mm256_setr_epi8(6, 7, 0, 1, 2, 3, 4, 5, 14, 15, 8, 9, 10, 11, 12, 13,
					   6, 7, 0, 1, 2, 3, 4, 5, 14, 15, 8, 9, 10, 11, 12, 13);

	return _mm256_shuffle_epi8(x, m);
}

/* rotate by 32: swap the 32-bit halves */
static inline __m256i
rotl32(__m256i x)
{
	return _mm256_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1));
}

#define SIPROUND_X4(v0, v1, v2, v3) do { \
	v0 = _mm256_add_epi64(v0, v1); v1 = rotl(v1, 13); v1 = _mm256_xor_si256(v1, v0); \
	v0 = rotl32(v0); \
	v2 = _mm256_add_epi64(v2, v3); v3 = rotl16(v3); v3 = _mm256_xor_si256(v3, v2); \
	v0 = _mm256_add_epi64(v0, v3); v3 = rotl(v3, 21); v3 = _mm256_xor_si256(v3, v0); \
	v2 = _mm256_add_epi64(v2, v1); v1 = rotl(v1, 17); v1 = _mm256_xor_si256(v1, v2); \
	v2 = rotl32(v2); \
} while (0)

/* Word @p w (little-endian, 8 bytes at offset 8 * w) of each of the four messages. */
static inline __m256i
word_x4(const uint8_t *const p[4], unsigned int w)
{
	return _mm256_set_epi64x((long long)rps_siphash_le64(p[3] + 8 * w),
				 (long long)rps_siphash_le64(p[2] + 8 * w),
				 (long long)rps_siphash_le64(p[1] + 8 * w),
				 (long long)rps_siphash_le64(p[0] + 8 * w));
}

/* The four hashes of messages of @p words 8-byte words (a constant where inlined). */
static inline void
siphash13_x4_words(const struct rps_siphash_key *key, const uint8_t *const p[4],
		   unsigned int words, uint64_t out[4])
{
	__m256i v0 = _mm256_set1_epi64x((long long)(key->k[0] ^ UINT64_C(0x736f6d6570736575)));
	__m256i v1 = _mm256_set1_epi64x((long long)(key->k[1] ^ UINT64_C(0x646f72616e646f6d)));
	__m256i v2 = _mm256_set1_epi64x((long long)(key->k[0] ^ UINT64_C(0x6c7967656e657261)));
	__m256i v3 = _mm256_set1_epi64x((long long)(key->k[1] ^ UINT64_C(0x7465646279746573)));
	const __m256i last = _mm256_set1_epi64x((long long)((uint64_t)(8 * words) << 56));
	__m256i m;

	for (unsigned int w = 0; w < words; w++) {
		m = word_x4(p, w);
		v3 = _mm256_xor_si256(v3, m);
		SIPROUND_X4(v0, v1, v2, v3);
		v0 = _mm256_xor_si256(v0, m);
	}
	v3 = _mm256_xor_si256(v3, last);
	SIPROUND_X4(v0, v1, v2, v3);
	v0 = _mm256_xor_si256(v0, last);
	v2 = _mm256_xor_si256(v2, _mm256_set1_epi64x(0xff));
	SIPROUND_X4(v0, v1, v2, v3);
	SIPROUND_X4(v0, v1, v2, v3);
	SIPROUND_X4(v0, v1, v2, v3);
	m = _mm256_xor_si256(_mm256_xor_si256(v0, v1), _mm256_xor_si256(v2, v3));
	_mm256_storeu_si256((__m256i *)(void *)out, m);
}

const int rps_siphash_x4_avx2 = 1;

void
rps_siphash13_x4(const struct rps_siphash_key *key, const void *const data[4], size_t len,
		 uint64_t out[4])
{
	const uint8_t *const p[4] = { data[0], data[1], data[2], data[3] };

	/* the lengths the flow table hashes, unrolled; any other multiple of 8 in the loop */
	if (len == 16)
		siphash13_x4_words(key, p, 2, out);
	else if (len == 40)
		siphash13_x4_words(key, p, 5, out);
	else if ((len & 7) == 0 && len <= 8 * 255)
		siphash13_x4_words(key, p, (unsigned int)(len / 8), out);
	else
		for (unsigned int i = 0; i < 4; i++)
			out[i] = rps_siphash13(key, data[i], len);
}

#else /* no AVX2 in this build */

const int rps_siphash_x4_avx2 = 0;

void
rps_siphash13_x4(const struct rps_siphash_key *key, const void *const data[4], size_t len,
		 uint64_t out[4])
{
	for (unsigned int i = 0; i < 4; i++)
		out[i] = rps_siphash13(key, data[i], len);
}

#endif
