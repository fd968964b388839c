/* SPDX-License-Identifier: BSD-3-Clause */
/* map.c: parsing and formatting lcore sets, and creating hash-to-worker maps. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "rps_map.h"

unsigned int
rps_lcoreset_count(const struct rps_lcoreset *s)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < RPS_LCORESET_WORDS; i++)
		n += (unsigned int)__builtin_popcountll(s->bits[i]);
	return n;
}

/* "1-3,5": decimal lcores and ranges. */
static int
parse_list(const char *s, struct rps_lcoreset *set, unsigned int *bad)
{
	const char *p = s;

	for (;;) {
		char *end;
		unsigned long lo, hi;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		lo = strtoul(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			hi = strtoul(p, &end, 10);
			p = end;
			if (hi < lo)
				return -EINVAL;
		}
		if (hi >= RTE_MAX_LCORE) {
			*bad = lo >= RTE_MAX_LCORE ? (unsigned int)RTE_MIN(lo, (unsigned long)UINT32_MAX)
						   : RTE_MAX_LCORE;
			return -ERANGE;
		}
		for (unsigned long l = lo; l <= hi; l++)
			rps_lcoreset_add(set, (unsigned int)l);
		if (*p == '\0')
			return 0;
		if (*p != ',')
			return -EINVAL;
		p++;
	}
}

/* "ff,ffffffff": 32-bit hex groups, most significant first (bitmap_parse). */
static int
parse_hex(const char *s, struct rps_lcoreset *set, unsigned int *bad)
{
	const char *groups[RTE_MAX_LCORE];
	size_t glen[RTE_MAX_LCORE];
	unsigned int ng = 0;
	const char *p = s;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (;;) {
		const char *start = p;

		while (isxdigit((unsigned char)*p))
			p++;
		if (p == start || p - start > 8 || ng == RTE_DIM(groups))
			return -EINVAL;
		groups[ng] = start;
		glen[ng++] = (size_t)(p - start);
		if (*p == '\0')
			break;
		if (*p != ',')
			return -EINVAL;
		p++;
	}
	/* The last group holds bits 0-31. */
	for (unsigned int g = 0; g < ng; g++) {
		char tmp[9];
		unsigned long v;
		unsigned int base = (ng - 1 - g) * 32;

		memcpy(tmp, groups[g], glen[g]);
		tmp[glen[g]] = '\0';
		v = strtoul(tmp, NULL, 16);
		for (unsigned int b = 0; b < 32; b++) {
			if (!((v >> b) & 1))
				continue;
			if (base + b >= RTE_MAX_LCORE) {
				*bad = base + b;
				return -ERANGE;
			}
			rps_lcoreset_add(set, base + b);
		}
	}
	return 0;
}

int
rps_lcoreset_parse(const char *s, struct rps_lcoreset *set, unsigned int *bad_lcore)
{
	unsigned int dummy;

	memset(set, 0, sizeof(*set));
	if (bad_lcore == NULL)
		bad_lcore = &dummy;
	if (s == NULL || *s == '\0')
		return -EINVAL;
	if (strchr(s, '-') != NULL)
		return parse_list(s, set, bad_lcore);
	return parse_hex(s, set, bad_lcore);
}

int
rps_lcoreset_check(const struct rps_lcoreset *want, const struct rps_lcoreset *enabled,
		   unsigned int rx_lcore, unsigned int *bad_lcore)
{
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++) {
		if (!rps_lcoreset_has(want, l))
			continue;
		*bad_lcore = l;
		if (l == rx_lcore)
			return -EBUSY;
		if (!rps_lcoreset_has(enabled, l))
			return -ENODEV;
	}
	return 0;
}

int
rps_lcoreset_format(const struct rps_lcoreset *s, char *buf, size_t len)
{
	int top = -1;
	size_t pos = 0;

	for (int g = (RTE_MAX_LCORE + 31) / 32 - 1; g >= 0; g--) {
		if ((uint32_t)(s->bits[g / 2] >> ((g % 2) * 32)) != 0) {
			top = g;
			break;
		}
	}
	if (top < 0)
		top = 0;
	for (int g = top; g >= 0; g--) {
		uint32_t v = (uint32_t)(s->bits[g / 2] >> ((g % 2) * 32));
		int n = snprintf(buf + pos, len - pos, g == top ? "%x" : ",%08x", v);

		if (n < 0 || (size_t)n >= len - pos)
			return -ENOSPC;
		pos += (size_t)n;
	}
	return (int)pos;
}

struct rps_map *
rps_map_create(const uint16_t *workers, uint32_t len, uint32_t generation, int socket)
{
	struct rps_map *m;

	if (len > 0 && workers == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	m = rte_zmalloc_socket("rps_map", sizeof(*m) + len * sizeof(m->workers[0]),
			       RTE_CACHE_LINE_SIZE, socket);
	if (m == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	m->len = len;
	m->generation = generation;
	if (len > 0)
		memcpy(m->workers, workers, len * sizeof(m->workers[0]));
	return m;
}

void
rps_map_free(struct rps_map *map)
{
	rte_free(map);
}

void
rps_map_publish(struct rps_map **slots, struct rps_map *const *next, unsigned int nb,
		struct rte_rcu_qsbr *qs)
{
	struct rps_map *old[64];

	for (unsigned int base = 0; base < nb; base += RTE_DIM(old)) {
		unsigned int n = RTE_MIN(nb - base, (unsigned int)RTE_DIM(old));

		for (unsigned int i = 0; i < n; i++) {
			old[i] = slots[base + i];
			__atomic_store_n(&slots[base + i], next[base + i], __ATOMIC_RELEASE);
		}
		/* An offline reader (stopped) does not hold this up. */
		rte_rcu_qsbr_synchronize(qs, RTE_QSBR_THRID_INVALID);
		for (unsigned int i = 0; i < n; i++)
			rps_map_free(old[i]);
	}
}
