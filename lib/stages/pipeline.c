/* SPDX-License-Identifier: BSD-3-Clause */
/* pipeline.c: choosing the stages (--stages) and running them over a burst. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "rps_stage.h"

static const rps_stage_fn stage_fns[RPS_STAGE_MAX] = {
	[RPS_STAGE_PARSE] = rps_stage_parse,
	[RPS_STAGE_VALIDATE] = rps_stage_validate,
	[RPS_STAGE_REASSEMBLE] = rps_stage_reassemble,
	[RPS_STAGE_FLOW] = rps_stage_flow,
	[RPS_STAGE_RESPOND] = rps_stage_respond,
	[RPS_STAGE_OUTPUT] = rps_stage_output,
};

static void
add(struct rps_pipeline *p, enum rps_stage_id id)
{
	p->ids[p->nb] = (uint8_t)id;
	p->fns[p->nb] = stage_fns[id];
	p->nb++;
}

void
rps_pipeline_default(struct rps_pipeline *p)
{
	memset(p, 0, sizeof(*p));
	add(p, RPS_STAGE_PARSE);
	add(p, RPS_STAGE_VALIDATE);
	add(p, RPS_STAGE_REASSEMBLE);
	add(p, RPS_STAGE_FLOW);
	add(p, RPS_STAGE_OUTPUT);
}

int
rps_pipeline_has(const struct rps_pipeline *p, enum rps_stage_id id)
{
	for (uint8_t i = 0; i < p->nb; i++)
		if (p->ids[i] == id)
			return 1;
	return 0;
}

int
rps_pipeline_parse(const char *text, struct rps_pipeline *p, char *bad, size_t bad_len)
{
	char buf[256];
	char *save = NULL;
	int last = -1;

	memset(p, 0, sizeof(*p));
	if (text == NULL || strlen(text) >= sizeof(buf) || *text == '\0') {
		snprintf(bad, bad_len, "%s", text ? text : "");
		return -EINVAL;
	}
	strcpy(buf, text);
	for (char *tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		int id = -1;

		for (int s = 0; s < RPS_STAGE_MAX; s++)
			if (strcmp(tok, rps_stage_name((enum rps_stage_id)s)) == 0)
				id = s;
		/* unknown, repeated or out of order: every stage must come after the last one */
		if (id < 0 || id <= last) {
			snprintf(bad, bad_len, "%s", tok);
			return -EINVAL;
		}
		if (id != RPS_STAGE_PARSE && id != RPS_STAGE_OUTPUT &&
		    !rps_pipeline_has(p, RPS_STAGE_PARSE)) {
			snprintf(bad, bad_len, "%s", tok);
			return -EINVAL;
		}
		add(p, (enum rps_stage_id)id);
		last = id;
	}
	if (p->nb == 0) {
		snprintf(bad, bad_len, "%s", text);
		return -EINVAL;
	}
	return 0;
}

int
rps_pipeline_format(const struct rps_pipeline *p, char *buf, size_t len)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (uint8_t i = 0; i < p->nb; i++) {
		int n = snprintf(buf + pos, len - pos, "%s%s", i ? "," : "",
				 rps_stage_name((enum rps_stage_id)p->ids[i]));

		if (n < 0 || (size_t)n >= len - pos)
			return -ENOSPC;
		pos += (size_t)n;
	}
	return (int)pos;
}

/*
 * The one pipeline loop; @p cycles NULL is the plain run (the test is on a constant after
 * inlining), else each stage's TSC cycles over the burst are added to cycles[i] (two rdtsc
 * per stage per burst, not per packet).
 */
static inline void
pipeline_run(const struct rps_pipeline *p, struct rps_stage_ctx *c, struct rte_mbuf **pkts,
	     uint16_t n, uint64_t *cycles)
{
	struct rps_lcore_stats *st = c->st;
	uint64_t t0 = cycles != NULL ? rte_rdtsc() : 0;

	for (uint8_t i = 0; i < p->nb && n > 0; i++) {
		uint8_t id = p->ids[i];

		RPS_CTR_ADD(st->stage_in[id], n);
		n = p->fns[i](c, pkts, n);
		RPS_CTR_ADD(st->stage_out[id], n);
		if (cycles != NULL) {
			uint64_t t1 = rte_rdtsc();

			cycles[i] += t1 - t0;
			t0 = t1;
		}
	}
	if (n > 0) {
		/* No output stage: what is left is consumed here. */
		uint64_t bytes = 0;

		for (uint16_t i = 0; i < n; i++) {
			bytes += rte_pktmbuf_pkt_len(pkts[i]);
			RPS_CTR_ADD(rps_stats_port(st, pkts[i]->port)->processed, 1);
		}
		if (c->recycle != NULL)
			rps_backlog_recycle(c->recycle, pkts, n);
		else
			rte_pktmbuf_free_bulk(pkts, n);
		RPS_CTR_ADD(st->processed, n);
		RPS_CTR_ADD(st->consumed, n);
		RPS_CTR_ADD(st->bytes, bytes);
	}
}

void
rps_pipeline_run(const struct rps_pipeline *p, struct rps_stage_ctx *c, struct rte_mbuf **pkts,
		 uint16_t n)
{
	pipeline_run(p, c, pkts, n, NULL);
}

void
rps_pipeline_run_timed(const struct rps_pipeline *p, struct rps_stage_ctx *c,
		       struct rte_mbuf **pkts, uint16_t n, uint64_t *cycles)
{
	pipeline_run(p, c, pkts, n, cycles);
}
