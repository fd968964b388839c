/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tel_out.c: the telemetry replies' writer (tel.h): each reply counted at its widest before
 * it is built, so one that would not fit DPDK's 16 KiB says so instead of being cut.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_telemetry.h>

#include "rps_number.h"
#include "tel.h"


static void
tel_over(struct tel_out *o, const char *why)
{
	if (o->c->over == NULL)
		o->c->over = why;
}

/* Count one entry of @p o (dict: ,"name":value; array: ,value); whether to add it. */
static int
tel_entry(struct tel_out *o, const char *name, size_t value_len)
{
	o->c->bytes += 1 + (name != NULL ? strlen(name) + 3 : 0) + value_len;
	if (++o->n > o->max)
		tel_over(o, o->max == RTE_TEL_MAX_DICT_ENTRIES ? "a dict over DPDK's 256 entries" :
			 "an array over DPDK's 512 entries");
	return o->d != NULL && o->c->over == NULL;
}

/* Check what DPDK's add function returned while building. */
static void
tel_added(struct tel_out *o, int rc)
{
	if (rc != 0)
		tel_over(o, "DPDK refused an entry");
}

/* A string as DPDK prints it, quoted and escaped; refused when DPDK would cut it. */
static size_t
tel_str_len(struct tel_out *o, const char *s)
{
	size_t n = 2;

	if (strlen(s) >= RTE_TEL_MAX_STRING_LEN)
		tel_over(o, "a string over DPDK's 127 characters");
	for (; *s != '\0'; s++)
		n += (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20) ? 2 : 1;
	return n;
}

void
tel_u64(struct tel_out *o, const char *name, uint64_t v)
{
	if (tel_entry(o, name, TEL_U64_W))
		tel_added(o, rte_tel_data_add_dict_u64(o->d, name, v));
}

void
tel_int(struct tel_out *o, const char *name, int v)
{
	if (tel_entry(o, name, TEL_INT_W))
		tel_added(o, rte_tel_data_add_dict_int(o->d, name, v));
}

void
tel_str(struct tel_out *o, const char *name, const char *s)
{
	if (s == NULL)
		s = "";
	if (tel_entry(o, name, tel_str_len(o, s)))
		tel_added(o, rte_tel_data_add_dict_string(o->d, name, s));
}

void
tel_arr_u64(struct tel_out *o, uint64_t v)
{
	if (tel_entry(o, NULL, TEL_U64_W))
		tel_added(o, rte_tel_data_add_array_u64(o->d, v));
}

void
tel_arr_int(struct tel_out *o, int v)
{
	if (tel_entry(o, NULL, TEL_INT_W))
		tel_added(o, rte_tel_data_add_array_int(o->d, v));
}

void
tel_arr_str(struct tel_out *o, const char *s)
{
	if (tel_entry(o, NULL, tel_str_len(o, s)))
		tel_added(o, rte_tel_data_add_array_string(o->d, s));
}

/* Open a dict (@p type RTE_TEL_CONTAINER) or an array of @p type inside @p parent; add it
 * with tel_close(). */
void
tel_open(struct tel_out *parent, struct tel_out *child, enum rte_tel_value_type type)
{
	child->c = parent->c;
	child->n = 0;
	child->max = type == RTE_TEL_CONTAINER ? RTE_TEL_MAX_DICT_ENTRIES :
		     RTE_TEL_MAX_ARRAY_ENTRIES;
	child->d = NULL;
	child->c->bytes += 2;   /* {} or [] */
	if (parent->d == NULL || child->c->over != NULL)
		return;
	child->d = rte_tel_data_alloc();
	if (child->d == NULL) {
		tel_over(parent, "out of memory");
		return;
	}
	if (type == RTE_TEL_CONTAINER)
		rte_tel_data_start_dict(child->d);
	else
		rte_tel_data_start_array(child->d, type);
}

void
tel_close(struct tel_out *parent, const char *name, struct tel_out *child)
{
	if (tel_entry(parent, name, 0) && child->d != NULL &&
	    rte_tel_data_add_dict_container(parent->d, name, child->d, 0) == 0)
		return;
	if (child->d != NULL) {
		tel_over(parent, "DPDK refused a container");
		rte_tel_data_free(child->d);
	}
}

/* Text that may be longer than a DPDK string (a path, a reload error): a string when it
 * fits, else an array of strings of at most 127 characters to be joined. */
void
tel_text(struct tel_out *o, const char *name, const char *s)
{
	char piece[RTE_TEL_MAX_STRING_LEN];
	struct tel_out a;
	size_t len = strlen(s);

	if (len < RTE_TEL_MAX_STRING_LEN) {
		tel_str(o, name, s);
		return;
	}
	tel_open(o, &a, RTE_TEL_STRING_VAL);
	for (size_t pos = 0; pos < len; pos += sizeof(piece) - 1) {
		snprintf(piece, sizeof(piece), "%s", s + pos);
		tel_arr_str(&a, piece);
	}
	tel_close(o, name, &a);
}

/* "first", and "next" (the next page's FIRST) unless the page ends the list. */
void
tel_page(struct tel_out *o, uint64_t first, uint64_t page, uint64_t total)
{
	tel_u64(o, "first", first);
	if (first + page < total)
		tel_u64(o, "next", first + page);
}


/* Count the reply @p build makes of @p arg, then build it into @p d if it fits, or say
 * that it does not. The data behind @p arg must not change between the two runs. */
int
tel_reply(struct rte_tel_data *d, tel_build_fn *build, const void *arg)
{
	struct tel_count c = { .bytes = 2, .over = NULL };
	struct tel_out o = { .d = NULL, .c = &c, .n = 0, .max = RTE_TEL_MAX_DICT_ENTRIES };

	build(&o, arg);
	if (c.over == NULL && c.bytes > TEL_REPLY_MAX)
		c.over = "the reply would be over DPDK's 16 KiB";
	rte_tel_data_start_dict(d);
	if (c.over != NULL) {
		rte_tel_data_add_dict_string(d, "error", c.over);
		rte_tel_data_add_dict_u64(d, "bytes", c.bytes);
		rte_tel_data_add_dict_u64(d, "max_bytes", TEL_REPLY_MAX);
		return 0;
	}
	c.bytes = 2;
	o.d = d;
	build(&o, arg);
	return c.over == NULL ? 0 : -ENOMEM;
}

/* The parameters "A[,B...]": up to @p max numbers (rps_number_list_parse). */
int
tel_params(const char *params, uint64_t *v, int max)
{
	return rps_number_list_parse(params, UINT32_MAX, v, max);
}

/* dropped_<reason> for every reason, and dropped_total. */
void
tel_add_drops(struct tel_out *o, const struct rps_lcore_stats *st)
{
	char name[64];

	for (unsigned int r = 0; r < RPS_DROP_MAX; r++) {
		snprintf(name, sizeof(name), "dropped_%s", rps_drop_name(r));
		tel_u64(o, name, st->dropped[r]);
	}
	tel_u64(o, "dropped_total", rps_stats_dropped_total(st));
}

/* The first worker of a page: FIRST of "/rps/<cmd>,FIRST" (0 without), < @p nb. */
int
tel_page_first(const char *params, uint32_t nb, uint32_t *first)
{
	uint64_t v[1] = { 0 };
	int n = tel_params(params, v, 1);

	if (n < 0 || (n == 1 && v[0] >= nb))
		return -EINVAL;
	*first = (uint32_t)v[0];
	return 0;
}
