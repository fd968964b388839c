/* SPDX-License-Identifier: BSD-3-Clause */
/* rps_flow.h: per-worker flow table for the flow stage. */
#ifndef RPS_FLOW_H
#define RPS_FLOW_H
#include <stdint.h>
#include <stdio.h>
#include "rps_stage.h"

struct rps_flow_conf {
	uint32_t size;              /**< flows the table holds */
	uint32_t idle_timeout_ms;   /**< an idle flow is removed after this */
	uint32_t closed_timeout_ms; /**< a TCP flow closed by FIN/RST is removed after this */
};

struct rps_flow_table *rps_flow_table_create(const struct rps_flow_conf *conf, const char *name,
					     int socket);
/** Remove up to @p budget idle/closed flows (incremental scan); call once per worker loop. */
void rps_flow_table_age(struct rps_stage_ctx *c, uint32_t budget);
/** Write the table's flows as JSON objects, comma-separated, to @p f. @return flows written. */
int rps_flow_table_dump_json(const struct rps_flow_table *t, FILE *f, unsigned int lcore,
			     int need_comma);
void rps_flow_table_free(struct rps_flow_table *t);
#endif
