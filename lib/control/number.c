/* SPDX-License-Identifier: BSD-3-Clause */
/* number.c: the number syntax shared by the command line and the configuration file. */
#include <errno.h>
#include <stddef.h>

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
