/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * expo.h: writing metrics in Prometheus's text exposition format (version 0.0.4) or in
 * OpenMetrics 1.0 (what Prometheus asks for first), into a growing buffer. Pure C without
 * DPDK, so a unit test can check every byte (tests/unit/test_expo.c); metrics.c (beside it)
 * fills it from the counters.
 *
 * A page is a sequence of families: rps_expo_family() writes the HELP and TYPE lines, then
 * rps_expo_u64() / rps_expo_double() write that family's samples (all of a family's samples
 * must follow its header, as both formats require), and rps_expo_end() closes the page.
 *
 * The formats differ in three places, all handled here: a counter family "x" is typed
 * "x_total" in 0.0.4 and "x" in OpenMetrics (its samples are "x_total" in both); an info
 * family "x" is a gauge "x_info" in 0.0.4; HELP escapes '"' only in OpenMetrics; OpenMetrics
 * ends with "# EOF". Label values escape backslash, double quote and newline in both.
 *
 * Not thread-safe: one writer per struct rps_expo. Allocates (malloc): not for the data path.
 */
#ifndef RPS_EXPO_H
#define RPS_EXPO_H

#include <stddef.h>
#include <stdint.h>

enum rps_expo_format {
	RPS_EXPO_TEXT,         /* text/plain; version=0.0.4 */
	RPS_EXPO_OPENMETRICS,  /* application/openmetrics-text; version=1.0.0 */
};

enum rps_expo_type {
	RPS_EXPO_COUNTER,      /* samples NAME_total */
	RPS_EXPO_GAUGE,        /* samples NAME */
	RPS_EXPO_INFO,         /* samples NAME_info, value 1 */
};

struct rps_expo_label {
	const char *name;      /* [a-zA-Z_][a-zA-Z0-9_]*, not checked */
	const char *value;     /* any UTF-8 text: escaped here (NULL: empty) */
};

struct rps_expo {
	enum rps_expo_format format;
	char *buf;             /* NUL-terminated page, malloc()ed; NULL until written */
	size_t len, cap;
	int failed;            /* an allocation failed: the page is incomplete */
	char sample[128];      /* the current family's sample name */
};

/** Start an empty page in @p format. */
void rps_expo_init(struct rps_expo *e, enum rps_expo_format format);
/** Free the page (or leave it to whoever took e->buf and set it to NULL). */
void rps_expo_fini(struct rps_expo *e);

/** Begin family @p name (without _total/_info) of @p type: its # HELP and # TYPE lines. */
void rps_expo_family(struct rps_expo *e, const char *name, enum rps_expo_type type,
		     const char *help);
/** A sample of the current family with @p nb labels. */
void rps_expo_u64(struct rps_expo *e, const struct rps_expo_label *labels, unsigned int nb,
		  uint64_t value);
void rps_expo_double(struct rps_expo *e, const struct rps_expo_label *labels,
		     unsigned int nb, double value);
/** Close the page ("# EOF" in OpenMetrics). @return 0, or -ENOMEM if anything was lost. */
int rps_expo_end(struct rps_expo *e);

/**
 * Escape @p in as a label value: backslash as \\, double quote as \", newline as \n.
 * @return the escaped length (without the NUL); @p out (of @p size) holds as much as fits,
 *   NUL-terminated when size > 0, as snprintf.
 */
size_t rps_expo_escape_label(const char *in, char *out, size_t size);

/** The format an HTTP Accept header asks for (NULL: none given): OpenMetrics when it names
 * application/openmetrics-text, else the 0.0.4 text format. */
enum rps_expo_format rps_expo_negotiate(const char *accept);
/** The Content-Type of @p format. */
const char *rps_expo_content_type(enum rps_expo_format format);

#endif /* RPS_EXPO_H */
