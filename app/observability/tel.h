/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tel.h: what the telemetry commands share (app/observability/tel_*.c, telemetry.c): the
 * reply writer (tel_out.c) and each command's handler, registered in telemetry.c's one
 * table. Telemetry thread only.
 */
#ifndef RPS_TEL_H
#define RPS_TEL_H

#include <stddef.h>
#include <stdint.h>

#include <rte_telemetry.h>

#include "rps_counters.h"

struct rps_app;

/*
 * Replies that fit. DPDK 22.11 prints a reply as {"<command>":<value>} into 16 KiB
 * (MAX_OUTPUT_LEN in lib/telemetry/telemetry.c), and whatever does not fit it leaves out
 * without a word: a dict entry or array element that would overflow is skipped, a dict holds
 * at most RTE_TEL_MAX_DICT_ENTRIES, an array RTE_TEL_MAX_ARRAY_ENTRIES, and a string is cut
 * at RTE_TEL_MAX_STRING_LEN - 1 characters. So every reply is built by one function run
 * twice over the same data: first counting (tel_out.d NULL) the bytes DPDK will print, each
 * number at its widest (20 digits for a u64, 11 for an int), then, only if that fits,
 * building it. A reply that would not fit answers {"error": why, "bytes", "max_bytes"}
 * instead of a cut one. Paged replies (/rps/stats, /rps/workers, /rps/map, /rps/buckets,
 * /rps/flows) have fixed page sizes whose widest page fits (the arithmetic is at each
 * TEL_*_PAGE), with "next" giving the next page's FIRST, absent on the last page.
 */
#define TEL_OUTPUT_MAX (16 * 1024)  /* DPDK 22.11's MAX_OUTPUT_LEN */
#define TEL_CMD_MAX 56              /* its MAX_CMD_LEN: {"<command>": and } around a reply */
#define TEL_REPLY_MAX (TEL_OUTPUT_MAX - TEL_CMD_MAX - 8)
#define TEL_U64_W 20                /* widest u64: 18446744073709551615 */
#define TEL_INT_W 11                /* widest int: -2147483648 */

struct tel_count {
	size_t bytes;      /* the reply as DPDK prints it, at most */
	const char *over;  /* why it would not fit (or could not be built); NULL while it does */
};

/* A dict or array of the reply being counted (d NULL) or built. */
struct tel_out {
	struct rte_tel_data *d;
	struct tel_count *c;
	unsigned int n, max;  /* entries so far; DPDK's cap for this container */
};

/* Builds a reply of @p arg into @p o (run twice: counting, then building). */
typedef void tel_build_fn(struct tel_out *o, const void *arg);

void tel_u64(struct tel_out *o, const char *name, uint64_t v);

void tel_int(struct tel_out *o, const char *name, int v);

void tel_str(struct tel_out *o, const char *name, const char *s);

void tel_arr_u64(struct tel_out *o, uint64_t v);

void tel_arr_int(struct tel_out *o, int v);

void tel_arr_str(struct tel_out *o, const char *s);

/* Open a dict (@p type RTE_TEL_CONTAINER) or an array of @p type inside @p parent; add it
 * with tel_close(). */
void tel_open(struct tel_out *parent, struct tel_out *child, enum rte_tel_value_type type);

void tel_close(struct tel_out *parent, const char *name, struct tel_out *child);

/* Text that may be longer than a DPDK string (a path, a reload error): a string when it
 * fits, else an array of strings of at most 127 characters to be joined. */
void tel_text(struct tel_out *o, const char *name, const char *s);

/* "first", and "next" (the next page's FIRST) unless the page ends the list. */
void tel_page(struct tel_out *o, uint64_t first, uint64_t page, uint64_t total);

/* Count the reply @p build makes of @p arg, then build it into @p d if it fits, or say
 * that it does not. The data behind @p arg must not change between the two runs. */
int tel_reply(struct rte_tel_data *d, tel_build_fn *build, const void *arg);

/* The parameters "A[,B...]": up to @p max numbers (rps_number_list_parse). */
int tel_params(const char *params, uint64_t *v, int max);

/* dropped_<reason> for every reason, and dropped_total. */
void tel_add_drops(struct tel_out *o, const struct rps_lcore_stats *st);

/* The first worker of a page: FIRST of "/rps/<cmd>,FIRST" (0 without), < @p nb. */
int tel_page_first(const char *params, uint32_t nb, uint32_t *first);

/** A command: the reply to PARAMS of the application context @p app (read-only) into @p d;
 * 0 or -errno (-EINVAL: bad parameters). */
typedef int tel_cmd_fn(const struct rps_app *app, const char *params, struct rte_tel_data *d);

/* tel_lcores.c */
tel_cmd_fn tel_info, tel_stats, tel_ports, tel_workers, tel_worker;
/* tel_maps.c */
tel_cmd_fn tel_map, tel_buckets, tel_rules;
/* tel_consumers.c */
tel_cmd_fn tel_consumers;
/* tel_config.c */
tel_cmd_fn tel_config;
/* tel_flows.c: /rps/flows; @p wanted: the time of the ask, which the workers load
 * (app->obs.flows_wanted_tsc: the one thing a command writes). */
int rps_tel_flows(const struct rps_app *app, uint64_t *wanted, const char *params,
		  struct rte_tel_data *d);
/* tel_flows.c: /rps/elephants, from the same snapshots (the same ask). */
int rps_tel_elephants(const struct rps_app *app, uint64_t *wanted, const char *params,
		      struct rte_tel_data *d);

#endif /* RPS_TEL_H */
