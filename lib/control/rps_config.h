/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_config.h: the dpdk-rps configuration file (INI, parsed with libinih).
 *
 * A file is parsed into a plain struct rps_config; nothing is applied here. Every error is
 * reported as "FILE:LINE: message" and the whole file is refused. Each value records whether
 * the file set it, so the application can let the command line win at start, apply the keys
 * that can change live on reload, and report the others as needing a restart.
 *
 *   [dataplane]
 *   rx_port = 0                 ; restart
 *   hash = auto|rss|jhash       ; restart
 *   hash_seed = 7               ; restart
 *   backlog = 1000              ; restart
 *   burst = 32                  ; restart
 *   stages = parse,validate,... ; restart
 *   flow_table_size = 65536     ; restart
 *   reorder_safe = on|off       ; live
 *   stats_interval = 1          ; live (seconds, 0 = off)
 *
 *   [map]
 *   default = 0xfe              ; every RX queue without a line of its own (like --map); live
 *   queue0 = 0x6                ; RX queue 0 (rps_cpus syntax or a list); live
 *   queue1 = 1-3
 *
 * Thread-safety: the functions are pure (no globals); call from any one thread at a time.
 */
#ifndef RPS_CONFIG_H
#define RPS_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "rps_hash.h"
#include "rps_map.h"

#define RPS_CONFIG_MAX_QUEUES 64

struct rps_config {
	/* [dataplane] */
	int has_rx_port;       uint16_t rx_port;
	int has_hash;          enum rps_hash_mode hash_mode;
	int has_hash_seed;     uint32_t hash_seed;
	int has_backlog;       uint32_t backlog;
	int has_burst;         uint16_t burst;
	int has_stages;        char stages[128];
	int has_flow_table_size; uint32_t flow_table_size;
	int has_reorder_safe;  int reorder_safe;
	int has_stats_interval; unsigned int stats_interval;
	/* [map] */
	int has_default_map;   struct rps_lcoreset default_map;   char default_map_text[128];
	int has_queue_map[RPS_CONFIG_MAX_QUEUES];
	struct rps_lcoreset queue_map[RPS_CONFIG_MAX_QUEUES];
	char queue_map_text[RPS_CONFIG_MAX_QUEUES][128];
};

/**
 * Parse @p path into @p cfg (zeroed first).
 * @param err receives "FILE:LINE: message" on failure (e.g. "rps.conf:7: backlog: expected
 *   1..16777216 packets", "rps.conf:3: unknown key 'bakclog' in [dataplane]",
 *   "rps.conf:9: unknown section [mapp]", "rps.conf: cannot open: No such file or directory").
 * @return 0, or -EINVAL (syntax or value error), -ENOENT/-EACCES (cannot open).
 */
int rps_config_load(const char *path, struct rps_config *cfg, char *err, size_t err_len);

/** Same as rps_config_load on an in-memory text (for tests); @p name is used in messages. */
int rps_config_parse_string(const char *text, const char *name, struct rps_config *cfg,
			    char *err, size_t err_len);

/**
 * The map of RX queue @p q: its own line, else default, else NULL (not set by the file).
 * @p text (optional) receives the text as written.
 */
const struct rps_lcoreset *rps_config_queue_map(const struct rps_config *cfg, unsigned int q,
						const char **text);

#endif /* RPS_CONFIG_H */
