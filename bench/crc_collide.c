/* SPDX-License-Identifier: BSD-3-Clause */
/* crc_collide.c: the kernel of rte_hash_crc (seed 0) over chosen bits, by Gaussian elimination. */
#include <string.h>

#include <rte_hash_crc.h>

#include "crc_collide.h"

int
crc_collide_init(struct crc_collide *s, size_t len, const uint16_t *free_bits,
		 unsigned int nfree)
{
	uint8_t vec[CRC_COLLIDE_MAX_FREE][CRC_COLLIDE_MAX_LEN];
	uint32_t crc[CRC_COLLIDE_MAX_FREE];
	uint8_t used[CRC_COLLIDE_MAX_FREE];

	if (len == 0 || len > CRC_COLLIDE_MAX_LEN || len % 4 != 0 || nfree > CRC_COLLIDE_MAX_FREE)
		return -1;
	memset(s, 0, sizeof(*s));
	s->len = len;
	/* one unit vector per free bit, with its CRC (a column of the linear map) */
	for (unsigned int i = 0; i < nfree; i++) {
		if (free_bits[i] >= len * 8)
			return -1;
		memset(vec[i], 0, sizeof(vec[i]));
		vec[i][free_bits[i] / 8] = (uint8_t)(1u << (free_bits[i] % 8));
		crc[i] = rte_hash_crc(vec[i], (uint32_t)len, 0);
		used[i] = 0;
	}
	/* eliminate each CRC bit with one pivot vector, which is then set aside */
	for (unsigned int b = 0; b < 32; b++) {
		unsigned int p = nfree;

		for (unsigned int i = 0; i < nfree && p == nfree; i++)
			if (!used[i] && (crc[i] >> b & 1))
				p = i;
		if (p == nfree)
			continue;
		used[p] = 1;
		for (unsigned int i = 0; i < nfree; i++) {
			if (used[i] || !(crc[i] >> b & 1))
				continue;
			crc[i] ^= crc[p];
			for (size_t k = 0; k < len; k++)
				vec[i][k] ^= vec[p][k];
		}
	}
	/* what is left has CRC 0: a basis of the kernel */
	for (unsigned int i = 0; i < nfree; i++)
		if (!used[i])
			memcpy(s->basis[s->dim++], vec[i], len);
	return (int)s->dim;
}

void
crc_collide_nth(const struct crc_collide *s, const uint8_t *base, uint64_t n, uint8_t *out)
{
	memcpy(out, base, s->len);
	for (unsigned int i = 0; i < s->dim && i < 64; i++)
		if (n >> i & 1)
			for (size_t k = 0; k < s->len; k++)
				out[k] ^= s->basis[i][k];
}

/* The flow table's key layout (lib/stages/flow.c), 40 bytes. */
#define K_FAMILY 0
#define K_PROTO 1
#define K_PORT0 4
#define K_PORT1 6
#define K_ADDR0 8
#define K_ADDR1 24
#define K_LEN 40

static const uint8_t src_prefix[8] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0x00, 0x00 };
static const uint8_t dst_addr[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff, 0, 0, 0, 0, 0, 0,
				      0, 0, 0, 1 };

static void
base_key(uint8_t *k)
{
	memset(k, 0, K_LEN);
	k[K_FAMILY] = 6;
	k[K_PROTO] = 6; /* TCP */
	k[K_PORT1] = 443 >> 8;
	k[K_PORT1 + 1] = 443 & 0xff;
	memcpy(k + K_ADDR0, src_prefix, sizeof(src_prefix));
	memcpy(k + K_ADDR1, dst_addr, sizeof(dst_addr));
}

int
crc_collide_flows6_init(struct crc_collide *s)
{
	uint16_t bits[80];
	unsigned int n = 0;

	for (unsigned int b = 0; b < 16; b++)
		bits[n++] = (uint16_t)(K_PORT0 * 8 + b);
	for (unsigned int b = 0; b < 64; b++)
		bits[n++] = (uint16_t)((K_ADDR0 + 8) * 8 + b);
	return crc_collide_init(s, K_LEN, bits, n);
}

void
crc_collide_flow6(const struct crc_collide *s, uint64_t n, struct crc_collide_flow6 *f)
{
	uint8_t base[K_LEN], k[K_LEN];

	base_key(base);
	crc_collide_nth(s, base, n, k);
	/* the source (2001:db8:1::/64) sorts before the destination: it is endpoint 0 */
	memcpy(f->src, k + K_ADDR0, 16);
	memcpy(f->dst, k + K_ADDR1, 16);
	f->sport = (uint16_t)(k[K_PORT0] << 8 | k[K_PORT0 + 1]);
	f->dport = (uint16_t)(k[K_PORT1] << 8 | k[K_PORT1 + 1]);
}
