/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * options.h: dpdk-rps's own command line (after EAL's arguments and "--"). The settings
 * table (rps_settings.h) drives the parser, its checks and defaults, and --help.
 */
#ifndef RPS_OPTIONS_H
#define RPS_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

#include "rps_hash.h"
#include "rps_listen.h"
#include "rps_toeplitz.h"
#include "rps_map.h"
#include "rps_filter.h"
#include "rps_rules.h"
#include "rps_settings.h"
#include "rps_stage.h"

#define RPS_BURST_MAX 512
/* Mbufs each (RX lcore, worker) return ring holds with --recycle-mbufs: two largest bursts
 * (the worker frees locally what does not fit). */
#define RPS_RECYCLE_SIZE (2u * RPS_BURST_MAX)

#define RPS_RX_PORTS_MAX 8    /* --rx-port, repeated */
#define RPS_RX_LCORES_MAX 16  /* --rx-lcores */

struct rps_options {
	uint16_t rx_port;             /* the first of rx_ports (the last --rx-port given while
				       * parsing; rps_options_parse() sets it back to the first) */
	uint16_t rx_ports[RPS_RX_PORTS_MAX]; /* every --rx-port, in order (setup/lcores.c fills [0] from
				       * rx_port when none was given) */
	uint16_t nb_rx_ports;
	struct rps_lcoreset rx_lcores; /* --rx-lcores / rx_lcores (setup/lcores.c: the main lcore if
				       * not given) */
	int rx_lcores_given;
	char rx_lcores_text[128];
	int tx_port;                  /* -1: no transmit, packets are consumed */
	struct rps_lcoreset map;
	int map_given;
	char map_text[256];
	enum rps_hash_mode hash_mode;
	int seed_given;
	uint32_t seed;
	int symmetric;                /* an enum rps_sym_mode: --symmetric (RPS_SYM_SORT) or
				       * --symmetric-xor: both directions of a connection hash alike */
	int inner;                    /* --inner: tunnelled packets hash on their inner header */
	struct rps_inner_cfg tunnels; /* --vxlan-port (nb_vxlan 0: 4789) */
	uint8_t rss_key[RPS_TOEPLITZ_KEY_MAX]; /* Toeplitz key (--rss-key, the file's rss_key) */
	uint8_t rss_key_len;          /* 0 until given; setup/hash_options.c then fills in the
				       * default key */
	int rss_key_random;           /* the key was drawn at start (none given): a secret that
				       * only the owner may read (telemetry), never printed */
	uint32_t backlog;
	uint16_t burst;
	uint16_t rx_queues;           /* 0 = all the port has (capped) */
	uint32_t mbufs;               /* 0 = computed */
	unsigned int stats_interval;  /* seconds, 0 = off */
	double duration;              /* seconds, 0 = until signalled */
	unsigned int exit_when_idle;  /* ms, 0 = off */
	const char *summary_json;
	const char *flows_json;
	char stages_text[128];
	uint16_t mtu;                 /* --mtu: the ports' MTU, 0 = the PMD's own */
	uint32_t flow_table_size;
	uint32_t flow_timeout_ms;
	uint32_t flow_closed_timeout_ms;
	uint32_t elephant_rate;       /* --elephant-rate: bits/s, 0 = off */
	uint32_t elephant_window_ms;  /* --elephant-window */
	int elephant_action;          /* --elephant-action: enum rps_elephant_action */
	uint32_t frag_max;
	uint32_t frag_mbufs;          /* 0 = --frag-max */
	uint32_t frag_timeout_ms;
	int respond_has_ipv4, respond_has_ipv6;
	uint32_t respond_ipv4;        /* network order */
	uint8_t respond_ipv4_prefix;  /* --respond-ip A/LEN */
	uint8_t respond_ipv6[16];
	uint16_t udp_echo_port;
	uint32_t respond_rate;        /* echo replies a second per worker, 0 = no limit */
	uint32_t respond_burst;
	int help;
	const char *config_path;      /* --config FILE */
	int reorder_safe;             /* remaps never reorder a flow (default on) */
	int check_order;              /* measure reordering at the steering point */
	int verbose;                  /* --verbose: the summary lists every drop reason */
	int recycle;                  /* --recycle-mbufs: consumed mbufs go back to their RX lcore */
	int strict_modes;             /* --strict-modes: refuse a config file others can change */
	int flow_limit;               /* --flow-limit: the kernel's per-backlog flow limit */
	uint32_t idle_sleep_us;       /* longest sleep of an idle lcore between polls, 0 = poll */
	uint32_t idle_spin_us;        /* empty polls before an idle lcore starts sleeping */
	int idle_wait;                /* --idle-wait: 0 futex, 1 monitor (where WAITPKG) */
	uint16_t nb_fwd;              /* --forward: inline port pairs */
	struct rps_fwd_pair fwd[RPS_FORWARD_MAX];
	uint32_t table_size;          /* --table-size: buckets of each queue's map */
	int rebalance;                /* --rebalance */
	uint32_t rebalance_interval_ms;
	uint32_t rebalance_threshold; /* percent over the mean */
	uint32_t rebalance_moves;     /* per interval */
	uint32_t rebalance_holddown_ms;
	uint32_t stall_timeout_ms;    /* --stall-timeout: 0 = no stall detection */
	int backpressure;             /* --backpressure: 1 on, 0 off, -1 auto (by RX driver) */
	uint32_t consumers;           /* --consumers: memif consumers in all groups, 0 = off */
	uint16_t consumer_groups;     /* ... in groups (--consumers K,K...), 0 = off */
	uint16_t group_size[RPS_CONSUMER_GROUPS_MAX]; /* each group's K */
	char consumers_text[32];      /* as given, for messages */
	struct rps_rule rules[RPS_RULES_MAX]; /* every --rule, in order */
	char rule_text[RPS_RULES_MAX][128];  /* each as given (its messages quote it) */
	uint16_t nb_rules;
	/* --consumer-filter G=EXPR: group G's expression as given ("" none), compiled at
	 * set-up (filters.c) */
	char consumer_filter[RPS_CONSUMER_GROUPS_MAX][RPS_FILTER_TEXT_MAX + 1];
	char consumer_socket[RPS_CONSUMER_PATH_MAX]; /* --consumer-socket: the template ("" =
				       * the default, set once EAL's runtime directory is known) */
	uint32_t consumer_wait_ms;    /* --consumer-wait: hold RX until they are connected */
	int consumer_inline;          /* --consumer-mode: 0 tap, 1 inline (group 0 in the path) */
	int consumer_fail_open;       /* --consumer-fail: 0 closed, 1 open */
	uint32_t bypass_after;        /* --bypass-after: bytes, 0 = never */
	char consumer_group[RPS_CONSUMER_GROUP_MAX]; /* --consumer-group ("": none, 0600) */
	unsigned int nb_consumer_secrets; /* the file's consumer_secret: 0, 1 for all, or one
					   * per consumer */
	char consumer_secret[RPS_CONSUMERS_MAX][RPS_CONSUMER_SECRET_MAX + 1];
	struct rps_listen metrics;    /* --metrics: where to serve /metrics (off by default) */
	uint64_t given[2];            /* bit i % 64 of word i / 64: the i-th option of the table
				       * was on the command line */
};

/**
 * The value of setting @p id in @p o, for the settings with a number, boolean or enum field
 * (as rps_setting_parse() gives it: --flow-timeout in seconds, --tx-port none as -1).
 * @return 0, or -ENOTSUP (no such field: a list, a map, a file name...).
 */
int rps_options_value(const struct rps_options *o, enum rps_setting_id id, int64_t *v);

/**
 * Set setting @p id of @p o to @p v (as rps_options_value() reads it), for the settings with a
 * number, boolean or enum field. @return 0, or -ENOTSUP.
 */
int rps_options_set_value(struct rps_options *o, enum rps_setting_id id, int64_t v);

/** Whether option @p name ("backlog") was given on the command line. */
int rps_options_given(const struct rps_options *o, const char *name);

/**
 * Parse the application arguments (argv[0] is the program name).
 * @return 0, or -1 after printing "dpdk-rps: --opt: message" to @p err.
 */
int rps_options_parse(int argc, char **argv, struct rps_options *o, FILE *err);

/**
 * Parse a list of RX lcores (--rx-lcores, the file's rx_lcores) into @p set and copy it to
 * @p text. @return 0, or -1 with *@p why.
 */
int rps_options_parse_rx_lcores(const char *arg, struct rps_lcoreset *set, char *text,
				size_t text_len, const char **why);

/** Print --help: every option with its argument and default. */
void rps_options_usage(const char *prog, FILE *out);

/* The other port of @p port's inline pair (--forward), or -1 when it is in none. */
static inline int
rps_fwd_peer(const struct rps_options *o, uint16_t port)
{
	for (uint16_t i = 0; i < o->nb_fwd; i++) {
		if (o->fwd[i].a == port)
			return o->fwd[i].b;
		if (o->fwd[i].b == port)
			return o->fwd[i].a;
	}
	return -1;
}

#endif /* RPS_OPTIONS_H */
