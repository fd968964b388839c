/* SPDX-License-Identifier: BSD-3-Clause */
/* number.c: the number syntax shared by the command line and the configuration file. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "rps_number.h"

static int
digit(char c, unsigned int base)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (base == 16 && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (base == 16 && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
rps_number_parse(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	unsigned int base = 10;
	uint64_t x = 0;
	int range = 0;

	if (s == NULL)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	} else if (s[0] == '0' && s[1] != '\0') {
		return -EINVAL; /* octal to strtoul(0), decimal to a reader: neither */
	}
	if (*s == '\0')
		return -EINVAL;
	for (; *s != '\0'; s++) {
		int d = digit(*s, base);

		if (d < 0)
			return -EINVAL;
		if (!range) {
			x = x * base + (unsigned int)d;
			range = x > hi; /* hi < 2^60: x never overflows before this */
		}
	}
	if (range || x < lo)
		return -ERANGE;
	*out = x;
	return 0;
}

int
rps_number_list_parse(const char *s, uint64_t hi, uint64_t *v, int max)
{
	char buf[32];
	int n = 0;

	if (s == NULL || *s == '\0')
		return 0;
	for (const char *p = s;; n++) {
		const char *end = strchr(p, ',');
		size_t len = end != NULL ? (size_t)(end - p) : strlen(p);

		if (n == max || len >= sizeof(buf))
			return -EINVAL;
		memcpy(buf, p, len);
		buf[len] = '\0';
		if (rps_number_parse(buf, 0, hi, &v[n]) != 0)
			return -EINVAL;
		if (end == NULL)
			return n + 1;
		p = end + 1;
	}
}
