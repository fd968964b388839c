/* SPDX-License-Identifier: BSD-3-Clause */
/* toeplitz.c: Toeplitz keys (parse, check, prepare for GFNI or rte_softrss_be) and the
 * reference path of the software RSS hash. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include <rte_cpuflags.h>

#include "rps_toeplitz.h"

const uint8_t rps_toeplitz_default_key[RPS_TOEPLITZ_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

const uint8_t rps_toeplitz_symmetric_key[RPS_TOEPLITZ_KEY_LEN] = {
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
};

int
rps_toeplitz_gfni_available(void)
{
#if defined(RTE_THASH_GFNI_DEFINED) || defined(RPS_HAVE_GFNI_OOL)
	/* every extension rte_thash_x86_gfni.h's intrinsics use */
	static const enum rte_cpu_flag_t need[] = {
		RTE_CPUFLAG_GFNI, RTE_CPUFLAG_AVX512F, RTE_CPUFLAG_AVX512BW, RTE_CPUFLAG_AVX512DQ,
		RTE_CPUFLAG_AVX512VL, RTE_CPUFLAG_AVX512VBMI,
	};

	if (rte_thash_gfni_supported())
		return 1;
	for (unsigned int i = 0; i < RTE_DIM(need); i++)
		if (rte_cpu_get_flag_enabled(need[i]) <= 0)
			return 0;
	return 1;
#else
	return 0;
#endif
}

int
rps_toeplitz_init(struct rps_toeplitz *t, const uint8_t *key, size_t len,
		  enum rps_toeplitz_impl impl)
{
	if (t == NULL || key == NULL || (len != RPS_TOEPLITZ_KEY_LEN && len != RPS_TOEPLITZ_KEY_MAX))
		return -EINVAL;
	if (impl == RPS_TOEPLITZ_GFNI && !rps_toeplitz_gfni_available())
		return -ENOTSUP;
	memset(t, 0, sizeof(*t));
	memcpy(t->key, key, len);
	t->key_len = (uint8_t)len;
	rte_convert_rss_key((const uint32_t *)(const void *)t->key, t->key_be, (int)len);
	/* the matrices wrap around the key's end; only tuples up to len - 4 bytes are hashed */
	rte_thash_complete_matrix(t->mtrx, t->key, (int)len);
	t->gfni = impl != RPS_TOEPLITZ_SOFT && rps_toeplitz_gfni_available();
	return 0;
}

static int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int
rps_toeplitz_key_parse(const char *s, uint8_t *key, size_t *len)
{
	size_t n = 0;
	int colons;

	if (s == NULL || key == NULL || len == NULL)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	colons = strchr(s, ':') != NULL;
	if (*s == '\0')
		return -EINVAL;
	while (*s != '\0') {
		int hi = hex_digit(s[0]), lo = hi < 0 ? -1 : hex_digit(s[1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		if (n < RPS_TOEPLITZ_KEY_MAX)
			key[n] = (uint8_t)(hi << 4 | lo);
		n++;
		s += 2;
		if (colons && *s == ':' && s[1] != '\0')
			s++;
		else if (colons && *s != '\0')
			return -EINVAL; /* "6d:5a5b" or a trailing ':' */
	}
	*len = n;
	if (n != RPS_TOEPLITZ_KEY_LEN && n != RPS_TOEPLITZ_KEY_MAX)
		return -ERANGE;
	return 0;
}

void
rps_toeplitz_key_format(const uint8_t *key, size_t len, char *buf, size_t size)
{
	size_t pos = 0;

	if (size == 0)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < len && pos + 3 <= size; i++)
		pos += (size_t)snprintf(buf + pos, size - pos, "%02x", key[i]);
}

int
rps_toeplitz_key_is_symmetric(const uint8_t *key, size_t len)
{
	for (size_t i = 2; i < len; i++)
		if (key[i] != key[i % 2])
			return 0;
	return len >= 2;
}

int
rps_toeplitz_key_random(uint8_t *key, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = getrandom(key + got, len - got, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)n;
	}
	return 0;
}

uint32_t
rps_toeplitz_l2(const struct rps_toeplitz *t, const struct rte_mbuf *m, int sym)
{
	uint32_t w[RPS_HASH_L2_WORDS], h;

	if (rps_hash_l2_key(m, sym, w) < 0)
		return 0;
	h = rps_toeplitz_bytes(t, (const uint8_t *)w, sizeof(w));
	return h ? h : 1;
}

uint32_t
rps_toeplitz_sw_ref(const struct rps_toeplitz *t, const struct rte_mbuf *m)
{
	struct rps_flow_key k;

	if (rps_flow_key_extract(m, &k) < 0)
		return rps_toeplitz_l2(t, m, 0);
	return rps_toeplitz_flow_key(t, &k);
}

uint32_t
rps_toeplitz_sym_ref(const struct rps_toeplitz *t, const struct rte_mbuf *m)
{
	struct rps_flow_key k;

	if (rps_flow_key_extract(m, &k) < 0)
		return rps_toeplitz_l2(t, m, 1);
	rps_flow_key_symmetric(&k);
	return rps_toeplitz_flow_key(t, &k);
}
