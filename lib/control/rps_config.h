/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_config.h: the dpdk-rps configuration file (INI, parsed with libinih).
 *
 * A file is parsed into a plain struct rps_config; nothing is applied here. The keys, their
 * checks and messages come from the settings table (rps_settings.h), shared with the command
 * line. Every error is
 * reported as "FILE:LINE: message" naming the key (or section) and what was expected, and
 * the whole file is refused. Each value records whether the file set it, so the application
 * can let the command line win at start, apply the keys that can change live on reload, and
 * report the others as needing a restart. Example with every key: config/dpdk-rps.conf.
 * The settings table (rps_settings.h) is the authority on keys, ranges and live/restart;
 * the list below is a summary (dpdk-rps --help-table mdoc-conf prints the table's).
 *
 *   [dataplane]
 *   rx_port = 0                 ; restart (0..RTE_MAX_ETHPORTS-1, i.e. 0..31; a list 0,1 for
 *                               ;   several ports, at most 8, as --rx-port repeated)
 *   rx_lcores = 0,1             ; restart (as --rx-lcores: a list with the EAL main lcore)
 *   tx_port = none              ; restart (a port id 0..31, or none: as --tx-port P; each
 *                               ;   worker transmits on its own TX queue of P; none, the
 *                               ;   default, consumes the packets; lowercase "none")
 *   hash = auto|rss|jhash|toeplitz ; restart (case-insensitive, as --hash)
 *   hash_seed = 7               ; restart (0..4294967295)
 *   symmetric = on|off|xor      ; restart (on, also "sort": as --symmetric; xor: as
 *                               ;   --symmetric-xor; the booleans of reorder_safe for on/off)
 *   rss_key = 6d5a56da...       ; restart (as --rss-key: 40 or 52 bytes in hex, "6d:5a:..."
 *                               ;   too; with symmetric = xor in the same file it must repeat
 *                               ;   one 16-bit pattern, or the file is refused; default:
 *                               ;   random at each start)
 *   inner = on|off              ; restart (as --inner: hash tunnels on the inner header)
 *   vxlan_port = 4789,8472      ; restart (as --vxlan-port: UDP ports 1..65535 read as VXLAN,
 *                               ;   decimal, at most 8, not 6081 or 2152; default 4789)
 *   backlog = 1000              ; restart (1..16777216)
 *   burst = 32                  ; restart (1..512)
 *   stages = parse,validate,... ; restart (at most 127 characters; --stages' rules)
 *   flow_table_size = 65536     ; restart (64..16777216)
 *   elephant_rate = 1G          ; restart (as --elephant-rate, bits/s, K/M/G x 1000, off)
 *   elephant_window = 1000      ; restart (as --elephant-window, 10..60000 ms)
 *   elephant_action = isolate   ; restart (as --elephant-action, none|bypass|isolate)
 *   reorder_safe = on|off       ; live (also yes/no, true/false, 1/0, case-insensitive)
 *   flow_limit = on|off         ; live (as --flow-limit)
 *   stats_interval = 1          ; live (seconds, 0..86400, 0 = off)
 *   idle_sleep_us = 50          ; restart (as --idle-sleep, 0..100000)
 *   idle_spin_us = 100          ; restart (as --idle-spin, 0..10000000)
 *   idle_wait = futex           ; restart (as --idle-wait, futex|monitor)
 *   forward = 0:1               ; restart (as --forward, a list of port pairs)
 *   respond_rate = 1000         ; restart (as --respond-rate: echo replies a second per
 *                               ;   worker, 0..100000000, 0 = no limit)
 *   respond_burst = 50          ; restart (as --respond-burst, 1..1000000)
 *   metrics = 127.0.0.1:9100    ; restart (as --metrics: PORT, IPV4:PORT, [IPV6]:PORT or off;
 *                               ;   default off)
 *   consumers = 2               ; restart (as --consumers, 0..16, 0 = off)
 *   consumer_socket = /run/rps/c%u.sock ; restart (as --consumer-socket: one %u)
 *   consumer_wait_ms = 5000     ; restart (as --consumer-wait, 0..3600000)
 *   consumer_mode = inline      ; restart (as --consumer-mode, tap|inline)
 *   consumer_fail = open        ; restart (as --consumer-fail, open|closed)
 *   bypass_after = 1M           ; restart (as --bypass-after, bytes, K/M/G suffixes)
 *
 *   [map]
 *   default = 0xfe              ; every RX queue without a line of its own (like --map); live
 *   queue0 = 0x6                ; RX queue 0 (rps_cpus syntax or a list); live
 *   queue1 = 1-3
 *
 *   [rules]                     ; live: steering rules, one a line, first match wins
 *   tcp dport 443 -> worker 3   ;   (rps_rules.h's grammar; at most RPS_RULES_MAX with
 *   src 198.18.0.0/16 -> drop   ;   every --rule, which come first)
 *
 * Syntax (stricter than libinih alone; the parser feeds inih cleaned lines):
 * - Sections [dataplane], [map] and [rules] only, in any order, each may appear more than once; a
 *   key outside any section, an unknown section, an unknown key are errors. Section and
 *   key names are case-sensitive (lowercase). Nothing but a comment may follow "[name]".
 * - Each key at most once in the whole file ("KEY: set twice (first on line N)"); an empty
 *   value is an error. Lines are "key = value"; "key: value" (which inih would take) and a
 *   line without '=' are errors.
 * - Comments: a line whose first non-blank character is ';' or '#', and inline, ';' or '#'
 *   after a blank ("backlog = 1000   ; packets"); "8#x" is a value, not 8.
 * - Indentation is ignored (there are no continuation lines). CRLF line endings, a UTF-8
 *   byte order mark and a last line without a newline are accepted. A line may hold at most
 *   198 characters once indentation, comment and trailing blanks are cut; NUL bytes are
 *   refused; a file is at most 1 MiB.
 * - Numbers: decimal, or hexadecimal with 0x. A leading zero ("010", which the command line
 *   would read as octal) is refused as ambiguous; so are signs and blanks inside.
 * - Maps: rps_lcoreset_parse() (see rps_map.h): hex unless the value contains '-' or ':'
 *   ("5,7" is hex groups; "5-5,7" is the list of lcores 5 and 7; "1:2,2:1" weighs lcore 1
 *   twice lcore 2 in the table); "0" is the empty set; at most 127
 *   characters. queueN: N in 0..RPS_CONFIG_MAX_QUEUES-1, decimal without a leading zero
 *   ("queue01" is an unknown key, "queue64" is out of range).
 *
 * Thread-safety: the functions are pure (no globals); call from any one thread at a time.
 */
#ifndef RPS_CONFIG_H
#define RPS_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "rps_hash.h"
#include "rps_listen.h"
#include "rps_map.h"
#include "rps_filter.h"
#include "rps_rules.h"
#include "rps_settings.h"
#include "rps_toeplitz.h"

#define RPS_CONFIG_MAX_QUEUES 64
#define RPS_CONFIG_MAX_RX_PORTS 8 /* rx_port's list, as --rx-port repeated */

struct rps_config {
	/* [dataplane] */
	int has_rx_port;       uint16_t rx_port; /* the first of rx_ports */
	uint16_t rx_ports[RPS_CONFIG_MAX_RX_PORTS]; uint16_t nb_rx_ports; /* the list, in order */
	int has_rx_lcores;     struct rps_lcoreset rx_lcores; char rx_lcores_text[128];
	int has_tx_port;       int tx_port;          /* -1: none (no transmit) */
	int has_hash;          enum rps_hash_mode hash_mode;
	int has_hash_seed;     uint32_t hash_seed;
	int has_symmetric;     int symmetric; /* an enum rps_sym_mode */
	int has_rss_key;       uint8_t rss_key[RPS_TOEPLITZ_KEY_MAX]; uint8_t rss_key_len;
	int has_inner;         int inner;
	int has_vxlan_port;    struct rps_inner_cfg tunnels;  /* vxlan_port */
	int has_backlog;       uint32_t backlog;
	int has_burst;         uint16_t burst;
	int has_stages;        char stages[128];
	int has_flow_table_size; uint32_t flow_table_size;
	int has_elephant_rate; uint32_t elephant_rate;     /* as --elephant-rate, bits/s */
	int has_elephant_window; uint32_t elephant_window; /* as --elephant-window, ms */
	int has_elephant_action; int elephant_action;      /* enum rps_elephant_action */
	int has_reorder_safe;  int reorder_safe;
	int has_flow_limit;    int flow_limit;
	int has_stats_interval; unsigned int stats_interval;
	int has_idle_sleep_us; uint32_t idle_sleep_us;
	int has_idle_spin_us;  uint32_t idle_spin_us;
	int has_idle_wait;     int idle_wait;      /* 0 futex, 1 monitor */
	int has_forward;       uint16_t nb_fwd;    struct rps_fwd_pair fwd[RPS_FORWARD_MAX];
	int has_table_size;    uint32_t table_size;
	int has_rebalance;     int rebalance;
	int has_rebalance_interval_ms; uint32_t rebalance_interval_ms;
	int has_rebalance_threshold;   uint32_t rebalance_threshold;   /* percent */
	int has_rebalance_moves;       uint32_t rebalance_moves;
	int has_rebalance_holddown_ms; uint32_t rebalance_holddown_ms;
	int has_respond_rate;  uint32_t respond_rate;     /* echo replies a second, 0 = no limit */
	int has_respond_burst; uint32_t respond_burst;
	int has_metrics;       struct rps_listen metrics;   /* as --metrics */
	int has_consumers;     uint32_t consumers;          /* as --consumers: in all */
	uint16_t consumer_groups, group_size[RPS_CONSUMER_GROUPS_MAX]; /* ... by group */
	char consumers_text[32];
	int has_consumer_socket; char consumer_socket[RPS_CONSUMER_PATH_MAX]; /* the template */
	int has_consumer_wait_ms; uint32_t consumer_wait_ms; /* as --consumer-wait */
	int has_consumer_mode;  int consumer_inline;     /* as --consumer-mode: 1 inline */
	int has_consumer_fail;  int consumer_fail_open;  /* as --consumer-fail: 1 open */
	int has_bypass_after;   uint32_t bypass_after;   /* as --bypass-after, bytes */
	int has_consumer_group; char consumer_group[RPS_CONSUMER_GROUP_MAX]; /* as --consumer-group */
	int has_consumer_secret;       /* consumer_secret: one, or one per consumer */
	unsigned int nb_consumer_secrets;
	char consumer_secret[RPS_CONSUMERS_MAX][RPS_CONSUMER_SECRET_MAX + 1];
	/* [map] */
	int has_default_map;   struct rps_lcoreset default_map;   char default_map_text[128];
	int has_queue_map[RPS_CONFIG_MAX_QUEUES];
	struct rps_lcoreset queue_map[RPS_CONFIG_MAX_QUEUES];
	char queue_map_text[RPS_CONFIG_MAX_QUEUES][128];
	/* the line that set each map (for FILE:LINE in the application's checks), 0 = none */
	int default_map_line;
	int queue_map_line[RPS_CONFIG_MAX_QUEUES];
	/* [rules]: one steering rule a line (rps_rules.h), in order, after every --rule */
	int has_rules;         uint16_t nb_rules;
	struct rps_rule rules[RPS_RULES_MAX];
	int rule_line[RPS_RULES_MAX];
	/* [consumers]: filter.G = EXPR, consumer group G's tcpdump expression (as
	 * --consumer-filter G=EXPR; checked here for its form, compiled by the application) */
	int has_consumers_section;
	char filter[RPS_CONSUMER_GROUPS_MAX][RPS_FILTER_TEXT_MAX + 1]; /* "": none */
	int filter_line[RPS_CONSUMER_GROUPS_MAX];
	/* the line that set each key of the settings table, 0 = not set */
	int line[RPS_SET_NB];
};

/**
 * Parse @p path into @p cfg (zeroed first, and zeroed again on any failure).
 * @param err receives "FILE:LINE: message" on failure, only the first error of the file
 *   (e.g. "rps.conf:7: backlog: expected 1..16777216 packets, not '0'",
 *   "rps.conf:3: unknown key 'bakclog' in [dataplane] (expected ...)",
 *   "rps.conf:9: unknown section [mapp] (expected [dataplane], [map], [rules] or [consumers])",
 *   "rps.conf: cannot open: No such file or directory"); may be NULL; truncated to
 *   @p err_len.
 * The file is opened with O_NONBLOCK (a FIFO at the path cannot block the caller) and must
 * be a regular file (a symlink to one is fine): anything else is refused with
 * "FILE: not a regular file (a FIFO)". It is read until two reads in a row agree
 * (device, inode, size, mtime and content), in pairs of reads back to back, at most 4 pairs 1 ms apart, so a file rewritten
 * while it is read is never parsed half-old, half-new.
 * @return 0, or -EINVAL (syntax or value error, or not a regular file), -errno when the
 *   file cannot be opened or read (-ENOENT, -EACCES, -EISDIR, ...), -EFBIG (over 1 MiB),
 *   -EAGAIN (it changed during every read), -ENOMEM.
 */
int rps_config_load(const char *path, struct rps_config *cfg, char *err, size_t err_len);

/** What rps_config_load_file() found about the file besides its content. */
struct rps_config_file {
	/*
	 * Why the file is unsafe, "" if it is not (rps_safepath.h): the file, a folder on the
	 * way to it or a symlink hop is writable by group or others or owned by another user.
	 * Anyone who can write there can change what dpdk-rps applies at the next reload. The
	 * caller decides (the application refuses it unless --strict-modes off).
	 */
	char unsafe[512];
	/** SipHash-2-4 of the bytes read (under a fixed key: it tells a change, it keeps no
	 * secret), whenever the file could be read: a reload can tell a file it applied
	 * already. */
	uint64_t digest;
};

/**
 * rps_config_load(), and when @p info is not NULL also the owner and mode checks above
 * (filled whenever the file could be read, whether it parsed or not).
 */
int rps_config_load_file(const char *path, struct rps_config *cfg, struct rps_config_file *info,
			 char *err, size_t err_len);

/**
 * Same as rps_config_load on an in-memory NUL-terminated text (for tests); @p name stands
 * for FILE in messages. @return 0, -EINVAL or -ENOMEM.
 */
int rps_config_parse_string(const char *text, const char *name, struct rps_config *cfg,
			    char *err, size_t err_len);

/**
 * The value of setting @p id in @p cfg, for the settings with a number, boolean or enum field
 * (as rps_setting_parse() gives it: tx_port = none as -1, symmetric as enum rps_sym_mode).
 * @return 0; -ENOENT when the file did not set it; -ENOTSUP for the other settings (lists,
 *   maps, keys, addresses) and those the file lacks.
 */
int rps_config_value(const struct rps_config *cfg, enum rps_setting_id id, int64_t *v);

/**
 * The map of RX queue @p q: its own line, else default, else NULL (not set by the file).
 * @p text (optional) receives the text as written.
 */
const struct rps_lcoreset *rps_config_queue_map(const struct rps_config *cfg, unsigned int q,
						const char **text);

#endif /* RPS_CONFIG_H */
