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

int
rps_lcoreset_weighted(const struct rps_lcoreset *s)
{
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++)
		if (rps_lcoreset_weight(s, l) > 1)
			return 1;
	return 0;
}

unsigned int
rps_lcoreset_count(const struct rps_lcoreset *s)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < RPS_LCORESET_WORDS; i++)
		n += (unsigned int)__builtin_popcountll(s->bits[i]);
	return n;
}

/* "1-3,5", "1:2,2-3:1": decimal lcores and ranges, each with an optional weight. */
static int
parse_list(const char *s, struct rps_lcoreset *set, unsigned int *bad)
{
	const char *p = s;

	for (;;) {
		char *end;
		unsigned long lo, hi, w = 0;

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
		if (*p == ':') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			w = strtoul(p, &end, 10);
			p = end;
			if (w < 1 || w > RPS_WEIGHT_MAX)
				return -EINVAL;
		}
		if (hi >= RTE_MAX_LCORE) {
			*bad = lo >= RTE_MAX_LCORE ? (unsigned int)RTE_MIN(lo, (unsigned long)UINT32_MAX)
						   : RTE_MAX_LCORE;
			return -ERANGE;
		}
		for (unsigned long l = lo; l <= hi; l++) {
			rps_lcoreset_add(set, (unsigned int)l);
			set->weight[l] = (uint16_t)w;
		}
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
rps_lcoreset_parse_list(const char *s, struct rps_lcoreset *set, unsigned int *bad_lcore)
{
	const char *p = s;

	memset(set, 0, sizeof(*set));
	for (;;) {
		char *end;
		unsigned long lo, hi;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		lo = strtoul(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			if (!isdigit((unsigned char)p[1]))
				return -EINVAL;
			hi = strtoul(p + 1, &end, 10);
			p = end;
		}
		if (hi < lo)
			return -EINVAL;
		if (hi >= RTE_MAX_LCORE) {
			if (bad_lcore != NULL)
				*bad_lcore = hi > UINT32_MAX ? UINT32_MAX : (unsigned int)hi;
			return -ERANGE;
		}
		for (unsigned long l = lo; l <= hi; l++)
			set->bits[l / 64] |= UINT64_C(1) << (l % 64);
		if (*p == '\0')
			return 0;
		if (*p++ != ',')
			return -EINVAL;
	}
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
	if (strchr(s, '-') != NULL || strchr(s, ':') != NULL)
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

int
rps_lcoreset_format_list(const struct rps_lcoreset *s, int weights, char *buf, size_t len)
{
	size_t pos = 0;

	if (len == 0)
		return -ENOSPC;
	buf[0] = '\0';
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++) {
		int n;

		if (!rps_lcoreset_has(s, l))
			continue;
		if (weights)
			n = snprintf(buf + pos, len - pos, "%s%u:%u", pos ? "," : "", l,
				     rps_lcoreset_weight(s, l));
		else
			n = snprintf(buf + pos, len - pos, "%s%u", pos ? "," : "", l);
		if (n < 0 || (size_t)n >= len - pos)
			return -ENOSPC;
		pos += (size_t)n;
	}
	return (int)pos;
}

static int
size_ok(uint32_t size)
{
	return size >= RPS_MAP_SIZE_MIN && size <= RPS_MAP_SIZE_MAX && (size & (size - 1)) == 0;
}

int
rps_map_fill(uint16_t *table, uint32_t size, const uint16_t *workers, const uint32_t *weights,
	     uint32_t nb)
{
	uint64_t total = 0, given = 0;
	uint32_t *cnt, *rem;
	int64_t *cur;

	if (!size_ok(size) || nb == 0 || nb > size || table == NULL || workers == NULL)
		return -EINVAL;
	for (uint32_t i = 0; i < nb; i++) {
		uint32_t w = weights != NULL ? weights[i] : 1;

		if (w < 1 || w > RPS_WEIGHT_MAX)
			return -EINVAL;
		total += w;
	}
	cnt = calloc(nb, sizeof(*cnt));
	rem = calloc(nb, sizeof(*rem));
	cur = calloc(nb, sizeof(*cur));
	if (cnt == NULL || rem == NULL || cur == NULL) {
		free(cnt);
		free(rem);
		free(cur);
		return -ENOMEM;
	}
	/* shares by largest remainder (ties: the earlier worker) */
	for (uint32_t i = 0; i < nb; i++) {
		uint64_t x = (uint64_t)size * (weights != NULL ? weights[i] : 1);

		cnt[i] = (uint32_t)(x / total);
		rem[i] = (uint32_t)(x % total);
		given += cnt[i];
	}
	for (; given < size; given++) {
		uint32_t best = 0;

		for (uint32_t i = 1; i < nb; i++)
			if (rem[i] > rem[best])
				best = i;
		cnt[best]++;
		rem[best] = 0;
	}
	/* every worker of the map gets a bucket: take it from the largest share */
	for (uint32_t i = 0; i < nb; i++) {
		if (cnt[i] != 0)
			continue;
		uint32_t big = 0;

		for (uint32_t j = 1; j < nb; j++)
			if (cnt[j] > cnt[big])
				big = j;
		cnt[big]--;
		cnt[i] = 1;
	}
	/* smooth weighted round robin over the shares: exactly cnt[i] buckets each, spread */
	for (uint32_t b = 0; b < size; b++) {
		uint32_t pick = 0;

		for (uint32_t i = 0; i < nb; i++) {
			cur[i] += cnt[i];
			if (cur[i] > cur[pick])
				pick = i;
		}
		table[b] = workers[pick];
		cur[pick] -= size;
	}
	free(cnt);
	free(rem);
	free(cur);
	return 0;
}

static struct rps_map *
map_alloc(uint32_t size, uint32_t generation, int socket)
{
	struct rps_map *m = rte_zmalloc_socket("rps_map", sizeof(*m) + size * sizeof(m->table[0]),
					       RTE_CACHE_LINE_SIZE, socket);

	if (m == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	m->mask = size - 1;
	m->shift = 32u - (uint32_t)__builtin_ctz(size);
	m->generation = generation;
	return m;
}

/* Distinct workers of a table. */
static uint32_t
count_workers(const uint16_t *table, uint32_t size)
{
	uint64_t seen[(UINT16_MAX + 1) / 64] = { 0 };
	uint32_t n = 0;

	for (uint32_t b = 0; b < size; b++) {
		uint64_t bit = UINT64_C(1) << (table[b] % 64);

		if (!(seen[table[b] / 64] & bit)) {
			seen[table[b] / 64] |= bit;
			n++;
		}
	}
	return n;
}

struct rps_map *
rps_map_create(const uint16_t *workers, const uint32_t *weights, uint32_t nb, uint32_t size,
	       uint32_t generation, int socket)
{
	struct rps_map *m;
	int rc;

	if (nb == 0)
		return map_alloc(1, generation, socket);
	if (workers == NULL || !size_ok(size) || nb > size) {
		rte_errno = EINVAL;
		return NULL;
	}
	m = map_alloc(size, generation, socket);
	if (m == NULL)
		return NULL;
	rc = rps_map_fill(m->table, size, workers, weights, nb);
	if (rc < 0) {
		rte_free(m);
		rte_errno = -rc;
		return NULL;
	}
	m->nb_workers = count_workers(m->table, size);
	return m;
}

struct rps_map *
rps_map_create_table(const uint16_t *table, uint32_t size, uint32_t generation, int socket)
{
	struct rps_map *m;

	if (table == NULL || !size_ok(size)) {
		rte_errno = EINVAL;
		return NULL;
	}
	m = map_alloc(size, generation, socket);
	if (m == NULL)
		return NULL;
	memcpy(m->table, table, size * sizeof(m->table[0]));
	m->nb_workers = count_workers(table, size);
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
