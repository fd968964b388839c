/* SPDX-License-Identifier: BSD-3-Clause */
/* expo.c: the Prometheus / OpenMetrics text formats, escaping included (see expo.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expo.h"

void
rps_expo_init(struct rps_expo *e, enum rps_expo_format format)
{
	memset(e, 0, sizeof(*e));
	e->format = format;
}

void
rps_expo_fini(struct rps_expo *e)
{
	free(e->buf);
	e->buf = NULL;
	e->len = e->cap = 0;
}

/* Room for @p n more bytes and a NUL. */
static int
reserve(struct rps_expo *e, size_t n)
{
	size_t cap = e->cap ? e->cap : 4096;
	char *p;

	if (e->failed)
		return -1;
	if (e->len + n + 1 <= e->cap)
		return 0;
	while (cap < e->len + n + 1)
		cap *= 2;
	p = realloc(e->buf, cap);
	if (p == NULL) {
		e->failed = 1;
		return -1;
	}
	e->buf = p;
	e->cap = cap;
	return 0;
}

static void
put(struct rps_expo *e, const char *s, size_t n)
{
	if (reserve(e, n) < 0)
		return;
	memcpy(e->buf + e->len, s, n);
	e->len += n;
	e->buf[e->len] = '\0';
}

static void
puts_(struct rps_expo *e, const char *s)
{
	put(e, s, strlen(s));
}

static void __attribute__((format(printf, 2, 3)))
putf(struct rps_expo *e, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(e, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* @p s escaped: backslash and newline always, double quote when @p quote. */
static void
put_escaped(struct rps_expo *e, const char *s, int quote)
{
	const char *run = s;

	for (; *s != '\0'; s++) {
		const char *esc = *s == '\\' ? "\\\\" : *s == '\n' ? "\\n" :
				  *s == '"' && quote ? "\\\"" : NULL;

		if (esc == NULL)
			continue;
		put(e, run, (size_t)(s - run));
		put(e, esc, 2);
		run = s + 1;
	}
	put(e, run, (size_t)(s - run));
}

size_t
rps_expo_escape_label(const char *in, char *out, size_t size)
{
	size_t n = 0;

	for (; *in != '\0'; in++) {
		char c[2] = { *in, 0 };
		size_t k = 1;

		if (*in == '\\' || *in == '"' || *in == '\n') {
			c[0] = '\\';
			c[1] = *in == '\n' ? 'n' : *in;
			k = 2;
		}
		for (size_t i = 0; i < k; i++, n++)
			if (n + 1 < size)
				out[n] = c[i];
	}
	if (size > 0)
		out[n < size ? n : size - 1] = '\0';
	return n;
}

void
rps_expo_family(struct rps_expo *e, const char *name, enum rps_expo_type type,
		const char *help)
{
	const int om = e->format == RPS_EXPO_OPENMETRICS;
	static const char *const suffix[] = { "_total", "", "_info" };
	/* 0.0.4 has no info type: such a family is the gauge NAME_info */
	static const char *const tname[] = { "counter", "gauge", "info" };
	const char *typed = tname[type];
	char family[sizeof(e->sample)];

	snprintf(e->sample, sizeof(e->sample), "%s%s", name, suffix[type]);
	snprintf(family, sizeof(family), "%s", om ? name : e->sample);
	if (!om && type == RPS_EXPO_INFO)
		typed = "gauge";
	puts_(e, "# HELP ");
	puts_(e, family);
	puts_(e, " ");
	put_escaped(e, help, om);
	puts_(e, "\n# TYPE ");
	puts_(e, family);
	puts_(e, " ");
	puts_(e, typed);
	puts_(e, "\n");
}

static void
sample_head(struct rps_expo *e, const struct rps_expo_label *labels, unsigned int nb)
{
	puts_(e, e->sample);
	for (unsigned int i = 0; i < nb; i++) {
		puts_(e, i == 0 ? "{" : ",");
		puts_(e, labels[i].name);
		puts_(e, "=\"");
		put_escaped(e, labels[i].value != NULL ? labels[i].value : "", 1);
		puts_(e, "\"");
	}
	puts_(e, nb ? "} " : " ");
}

void
rps_expo_u64(struct rps_expo *e, const struct rps_expo_label *labels, unsigned int nb,
	     uint64_t value)
{
	sample_head(e, labels, nb);
	putf(e, "%llu\n", (unsigned long long)value);
}

void
rps_expo_double(struct rps_expo *e, const struct rps_expo_label *labels, unsigned int nb,
		double value)
{
	sample_head(e, labels, nb);
	if (isnan(value))
		puts_(e, "NaN\n");
	else if (isinf(value))
		puts_(e, value > 0 ? "+Inf\n" : "-Inf\n");
	else
		putf(e, "%.15g\n", value);
}

int
rps_expo_end(struct rps_expo *e)
{
	if (e->format == RPS_EXPO_OPENMETRICS)
		puts_(e, "# EOF\n");
	else if (reserve(e, 0) == 0) /* an empty page is still a string */
		e->buf[e->len] = '\0';
	return e->failed ? -ENOMEM : 0;
}

enum rps_expo_format
rps_expo_negotiate(const char *accept)
{
	return accept != NULL && strstr(accept, "application/openmetrics-text") != NULL ?
	       RPS_EXPO_OPENMETRICS : RPS_EXPO_TEXT;
}

const char *
rps_expo_content_type(enum rps_expo_format format)
{
	return format == RPS_EXPO_OPENMETRICS ?
	       "application/openmetrics-text; version=1.0.0; charset=utf-8" :
	       "text/plain; version=0.0.4; charset=utf-8";
}
