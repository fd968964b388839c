/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * options.c: the command line, derived from the settings table (rps_settings.h): getopt_long's
 * options, the checks and messages of every number, boolean and enum, and --help. Only the
 * values with a syntax of their own (maps, keys, lists, addresses, files) have a handler here.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "rps_number.h"
#include "rps_settings.h"

_Static_assert(RPS_SET_NB <= 128, "rps_options.given has a bit per setting");

typedef int (*opt_handler)(struct rps_options *o, const char *arg, const char **why);

static int
h_map(struct rps_options *o, const char *arg, const char **why)
{
	static char msg[128];
	unsigned int bad = 0;
	int rc = rps_lcoreset_parse(arg, &o->map, &bad);

	if (rc == -ERANGE) {
		snprintf(msg, sizeof(msg), "lcore %u is out of range (max %u)", bad,
			 RTE_MAX_LCORE - 1);
		*why = msg;
		return -1;
	}
	if (rc < 0) {
		*why = "expected a hex mask (fe, 0xfe, ff,ffffffff) or a list (1-3,5) with optional "
		       "weights 1..4096 (1:2,2:1,3:1)";
		return -1;
	}
	snprintf(o->map_text, sizeof(o->map_text), "%s", arg);
	o->map_given = 1;
	return 0;
}

static int
h_rx_port(struct rps_options *o, const char *arg, const char **why)
{
	(void)arg; /* the value: the table's check, into o->rx_port */
	for (uint16_t i = 0; i < o->nb_rx_ports; i++)
		if (o->rx_ports[i] == o->rx_port) {
			*why = "given twice";
			return -1;
		}
	if (o->nb_rx_ports == RPS_RX_PORTS_MAX) {
		*why = "at most " RTE_STR(RPS_RX_PORTS_MAX) " RX ports";
		return -1;
	}
	o->rx_ports[o->nb_rx_ports++] = o->rx_port;
	return 0;
}

/* --rx-lcores and the file's rx_lcores (rps_lcoreset_parse_list()). */
int
rps_options_parse_rx_lcores(const char *arg, struct rps_lcoreset *set, char *text,
			    size_t text_len, const char **why)
{
	static char msg[128];
	unsigned int bad = 0;
	int rc = rps_lcoreset_parse_list(arg, set, &bad);

	if (rc == -ERANGE) {
		snprintf(msg, sizeof(msg), "lcore %u is out of range (max %u)", bad,
			 RTE_MAX_LCORE - 1);
		*why = msg;
		return -1;
	}
	if (rc < 0) {
		*why = "expected a list of lcores and ranges (0,1 or 0-1) that includes the EAL "
		       "main lcore";
		return -1;
	}
	if (rps_lcoreset_count(set) > RPS_RX_LCORES_MAX) {
		*why = "at most " RTE_STR(RPS_RX_LCORES_MAX) " RX lcores";
		return -1;
	}
	snprintf(text, text_len, "%s", arg);
	return 0;
}

static int
h_rx_lcores(struct rps_options *o, const char *arg, const char **why)
{
	if (rps_options_parse_rx_lcores(arg, &o->rx_lcores, o->rx_lcores_text,
					sizeof(o->rx_lcores_text), why) < 0)
		return -1;
	o->rx_lcores_given = 1;
	return 0;
}

static int
h_forward(struct rps_options *o, const char *arg, const char **why)
{
	return rps_forward_parse(arg, o->fwd, &o->nb_fwd, why) < 0 ? -1 : 0;
}

/* K, or groups K,K... */
static int
h_consumers(struct rps_options *o, const char *arg, const char **why)
{
	if (strlen(arg) >= sizeof(o->consumers_text)) {
		*why = "expected K or a list of groups K,K... (0 alone: off)";
		return -1;
	}
	if (rps_consumers_parse(arg, o->group_size, &o->consumer_groups, &o->consumers,
				why) < 0)
		return -1;
	snprintf(o->consumers_text, sizeof(o->consumers_text), "%s", arg);
	return 0;
}

/* The template's own checks; the longest path is checked again against --consumers once
 * every option is read (rps_setup_check_consumers()). */
static int
h_consumer_socket(struct rps_options *o, const char *arg, const char **why)
{
	if (rps_consumer_socket_check(arg, 1, why) < 0)
		return -1;
	snprintf(o->consumer_socket, sizeof(o->consumer_socket), "%s", arg);
	return 0;
}

static int
h_consumer_group(struct rps_options *o, const char *arg, const char **why)
{
	if (arg[0] == '\0' || strlen(arg) >= sizeof(o->consumer_group)) {
		*why = "expected a group's name or number";
		return -1;
	}
	snprintf(o->consumer_group, sizeof(o->consumer_group), "%s", arg);
	return 0;
}

/* --rule: parsed here (the grammar); its worker or consumer is checked once the workers
 * are known (rps_app_rules_start()). */
static int
h_rule(struct rps_options *o, const char *arg, const char **why)
{
	static char msg[256];

	if (o->nb_rules >= RPS_RULES_MAX) {
		snprintf(msg, sizeof(msg), "more than %u rules (the most --rule and [rules] may "
			 "hold together)", RPS_RULES_MAX);
		*why = msg;
		return -1;
	}
	if (rps_rule_parse(arg, &o->rules[o->nb_rules], msg, sizeof(msg)) < 0) {
		*why = msg;
		return -1;
	}
	snprintf(o->rule_text[o->nb_rules], sizeof(o->rule_text[0]), "%s", arg);
	o->nb_rules++;
	return 0;
}

/* --consumer-filter G=EXPR: the group and the text here; compiled once EAL runs and the
 * groups are known (control/filters.c). */
static int
h_consumer_filter(struct rps_options *o, const char *arg, const char **why)
{
	static char msg[160];
	const char *eq = strchr(arg, '=');
	uint64_t g;
	char num[8];

	if (eq == NULL || eq == arg || (size_t)(eq - arg) >= sizeof(num)) {
		*why = "expected G=EXPR: a consumer group's number, '=', a tcpdump expression";
		return -1;
	}
	snprintf(num, sizeof(num), "%.*s", (int)(eq - arg), arg);
	if (rps_number_parse(num, 0, RPS_CONSUMER_GROUPS_MAX - 1, &g) < 0) {
		snprintf(msg, sizeof(msg), "group '%s': expected 0..%u", num,
			 RPS_CONSUMER_GROUPS_MAX - 1);
		*why = msg;
		return -1;
	}
	if (strlen(eq + 1) > RPS_FILTER_TEXT_MAX) {
		snprintf(msg, sizeof(msg), "group %u: an expression of %zu characters (at most %u)",
			 (unsigned int)g, strlen(eq + 1), RPS_FILTER_TEXT_MAX);
		*why = msg;
		return -1;
	}
	if (o->consumer_filter[g][0] != '\0') {
		snprintf(msg, sizeof(msg), "group %u has a filter already (one per group: join "
			 "expressions with 'or')", (unsigned int)g);
		*why = msg;
		return -1;
	}
	if (eq[1 + strspn(eq + 1, " \t")] == '\0') {
		snprintf(msg, sizeof(msg), "group %u: an empty expression (a group without a "
			 "filter receives every packet)", (unsigned int)g);
		*why = msg;
		return -1;
	}
	snprintf(o->consumer_filter[g], sizeof(o->consumer_filter[g]), "%s", eq + 1);
	return 0;
}

static int
h_symmetric(struct rps_options *o, const char *arg, const char **why)
{
	(void)arg;
	(void)why;
	o->symmetric = RPS_SYM_SORT;
	return 0;
}

static int
h_symmetric_xor(struct rps_options *o, const char *arg, const char **why)
{
	(void)arg;
	(void)why;
	o->symmetric = RPS_SYM_XOR;
	return 0;
}

static int
h_vxlan_port(struct rps_options *o, const char *arg, const char **why)
{
	int rc = rps_inner_vxlan_ports_parse(arg, &o->tunnels);

	if (rc == -ENOSPC) {
		*why = "at most 8 VXLAN ports";
		return -1;
	}
	if (rc < 0) {
		*why = "expected UDP ports 1..65535 (a list: 4789,8472), not GENEVE's 6081 or "
		       "GTP-U's 2152";
		return -1;
	}
	return 0;
}

static int
h_rss_key(struct rps_options *o, const char *arg, const char **why)
{
	static char msg[128];
	size_t len = 0;
	int rc = rps_toeplitz_key_parse(arg, o->rss_key, &len);

	if (rc == -ERANGE) {
		snprintf(msg, sizeof(msg), "%zu bytes: expected %u or %u (%u or %u hex digits)",
			 len, RPS_TOEPLITZ_KEY_LEN, RPS_TOEPLITZ_KEY_MAX, 2 * RPS_TOEPLITZ_KEY_LEN,
			 2 * RPS_TOEPLITZ_KEY_MAX);
		*why = msg;
		return -1;
	}
	if (rc < 0) {
		*why = "expected a key in hex (6d5a56da... or 6d:5a:56:da:...), 40 or 52 bytes";
		return -1;
	}
	o->rss_key_len = (uint8_t)len;
	return 0;
}

static int
h_duration(struct rps_options *o, const char *arg, const char **why)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	/* no blank before (strtod would skip it), as every other number (rps_number.h) */
	if (*arg == '\0' || isspace((unsigned char)*arg) || *end != '\0' || errno != 0 ||
	    !isfinite(v) || v <= 0 || v > 1e7) {
		*why = "expected a positive number of seconds";
		return -1;
	}
	o->duration = v;
	return 0;
}

static int
h_summary(struct rps_options *o, const char *arg, const char **why)
{
	if (*arg == '\0') {
		*why = "expected a file name";
		return -1;
	}
	o->summary_json = arg;
	return 0;
}

static int
h_stages(struct rps_options *o, const char *arg, const char **why)
{
	static char msg[256];
	struct rps_pipeline p;
	char bad[64];

	if (rps_pipeline_parse(arg, &p, bad, sizeof(bad)) < 0) {
		snprintf(msg, sizeof(msg), "'%s' is unknown, repeated or out of order (order: "
			 "parse,validate,reassemble,flow,respond,output; all but output need parse)",
			 bad);
		*why = msg;
		return -1;
	}
	snprintf(o->stages_text, sizeof(o->stages_text), "%s", arg);
	return 0;
}

static int
h_respond_ip(struct rps_options *o, const char *arg, const char **why)
{
	const char *slash = strchr(arg, '/');
	char addr[INET_ADDRSTRLEN];
	uint64_t plen = RPS_RESPOND_PREFIX_DEFAULT;
	size_t n = slash != NULL ? (size_t)(slash - arg) : strlen(arg);

	if (n >= sizeof(addr) || (slash != NULL && rps_number_parse(slash + 1, 0, 32, &plen) < 0)) {
		*why = "expected an IPv4 address, optionally with a prefix length /0../32";
		return -1;
	}
	memcpy(addr, arg, n);
	addr[n] = '\0';
	if (inet_pton(AF_INET, addr, &o->respond_ipv4) != 1) {
		*why = "expected an IPv4 address, optionally with a prefix length /0../32";
		return -1;
	}
	o->respond_ipv4_prefix = (uint8_t)plen;
	o->respond_has_ipv4 = 1;
	return 0;
}

static int
h_respond_ip6(struct rps_options *o, const char *arg, const char **why)
{
	if (inet_pton(AF_INET6, arg, o->respond_ipv6) != 1) {
		*why = "expected an IPv6 address";
		return -1;
	}
	o->respond_has_ipv6 = 1;
	return 0;
}

static int
h_flows_json(struct rps_options *o, const char *arg, const char **why)
{
	if (*arg == '\0') {
		*why = "expected a file name";
		return -1;
	}
	o->flows_json = arg;
	return 0;
}

static int
h_config(struct rps_options *o, const char *arg, const char **why)
{
	if (*arg == '\0') {
		*why = "expected a file name";
		return -1;
	}
	o->config_path = arg;
	return 0;
}

static int
h_metrics(struct rps_options *o, const char *arg, const char **why)
{
	static char msg[192];

	if (rps_listen_parse(arg, &o->metrics, msg, sizeof(msg)) < 0) {
		*why = msg;
		return -1;
	}
	return 0;
}

static int
h_seed(struct rps_options *o, const char *arg, const char **why)
{
	(void)arg;
	(void)why;
	o->seed_given = 1; /* the value: the table's check, into o->seed */
	return 0;
}

/*
 * Where each setting's value goes: the field a number, boolean or enum is stored in by the
 * table's check (rps_setting_parse), a switch's field (set to 1), and a handler for what the
 * table does not check (called after the store, when both are there).
 */
#define FIELD(f) offsetof(struct rps_options, f), sizeof(((struct rps_options *)0)->f)
static const struct opt_bind {
	size_t off, size;     /* size 0: no field */
	uint32_t scale;       /* the stored value is the given one times this (0: 1) */
	opt_handler handle;
} binds[RPS_SET_NB] = {
	[RPS_SET_RX_PORT] = { FIELD(rx_port), 0, h_rx_port },
	[RPS_SET_RX_QUEUES] = { FIELD(rx_queues), 0, NULL },
	[RPS_SET_RX_LCORES] = { 0, 0, 0, h_rx_lcores },
	[RPS_SET_MAP] = { 0, 0, 0, h_map },
	[RPS_SET_TABLE_SIZE] = { FIELD(table_size), 0, NULL },
	[RPS_SET_HASH] = { FIELD(hash_mode), 0, NULL },
	[RPS_SET_HASH_SEED] = { FIELD(seed), 0, h_seed },
	[RPS_SET_SYMMETRIC] = { 0, 0, 0, h_symmetric },
	[RPS_SET_SYMMETRIC_XOR] = { 0, 0, 0, h_symmetric_xor },
	[RPS_SET_INNER] = { FIELD(inner), 0, NULL },
	[RPS_SET_VXLAN_PORT] = { 0, 0, 0, h_vxlan_port },
	[RPS_SET_RSS_KEY] = { 0, 0, 0, h_rss_key },
	[RPS_SET_BACKLOG] = { FIELD(backlog), 0, NULL },
	[RPS_SET_BURST] = { FIELD(burst), 0, NULL },
	[RPS_SET_RECYCLE] = { FIELD(recycle), 0, NULL },
	[RPS_SET_TX_PORT] = { FIELD(tx_port), 0, NULL },
	[RPS_SET_MBUFS] = { FIELD(mbufs), 0, NULL },
	[RPS_SET_MTU] = { FIELD(mtu), 0, NULL },
	[RPS_SET_STATS_INTERVAL] = { FIELD(stats_interval), 0, NULL },
	[RPS_SET_DURATION] = { 0, 0, 0, h_duration },
	[RPS_SET_EXIT_WHEN_IDLE] = { FIELD(exit_when_idle), 0, NULL },
	[RPS_SET_SUMMARY_JSON] = { 0, 0, 0, h_summary },
	[RPS_SET_VERBOSE] = { FIELD(verbose), 0, NULL },
	[RPS_SET_STAGES] = { 0, 0, 0, h_stages },
	[RPS_SET_FLOW_TABLE_SIZE] = { FIELD(flow_table_size), 0, NULL },
	[RPS_SET_FLOW_TIMEOUT] = { FIELD(flow_timeout_ms), 1000, NULL },
	[RPS_SET_ELEPHANT_RATE] = { FIELD(elephant_rate), 0, NULL },
	[RPS_SET_ELEPHANT_WINDOW] = { FIELD(elephant_window_ms), 0, NULL },
	[RPS_SET_ELEPHANT_ACTION] = { FIELD(elephant_action), 0, NULL },
	[RPS_SET_FRAG_MAX] = { FIELD(frag_max), 0, NULL },
	[RPS_SET_FRAG_MBUFS] = { FIELD(frag_mbufs), 0, NULL },
	[RPS_SET_FRAG_TIMEOUT] = { FIELD(frag_timeout_ms), 0, NULL },
	[RPS_SET_RESPOND_IP] = { 0, 0, 0, h_respond_ip },
	[RPS_SET_RESPOND_IP6] = { 0, 0, 0, h_respond_ip6 },
	[RPS_SET_UDP_ECHO_PORT] = { FIELD(udp_echo_port), 0, NULL },
	[RPS_SET_RESPOND_RATE] = { FIELD(respond_rate), 0, NULL },
	[RPS_SET_RESPOND_BURST] = { FIELD(respond_burst), 0, NULL },
	[RPS_SET_FLOWS_JSON] = { 0, 0, 0, h_flows_json },
	[RPS_SET_CONFIG] = { 0, 0, 0, h_config },
	[RPS_SET_STRICT_MODES] = { FIELD(strict_modes), 0, NULL },
	[RPS_SET_REORDER_SAFE] = { FIELD(reorder_safe), 0, NULL },
	[RPS_SET_CHECK_ORDER] = { FIELD(check_order), 0, NULL },
	[RPS_SET_FLOW_LIMIT] = { FIELD(flow_limit), 0, NULL },
	[RPS_SET_REBALANCE] = { FIELD(rebalance), 0, NULL },
	[RPS_SET_REBALANCE_INTERVAL] = { FIELD(rebalance_interval_ms), 0, NULL },
	[RPS_SET_REBALANCE_THRESHOLD] = { FIELD(rebalance_threshold), 0, NULL },
	[RPS_SET_REBALANCE_MOVES] = { FIELD(rebalance_moves), 0, NULL },
	[RPS_SET_REBALANCE_HOLDDOWN] = { FIELD(rebalance_holddown_ms), 0, NULL },
	[RPS_SET_BACKPRESSURE] = { FIELD(backpressure), 0, NULL },
	[RPS_SET_STALL_TIMEOUT] = { FIELD(stall_timeout_ms), 0, NULL },
	[RPS_SET_IDLE_SLEEP] = { FIELD(idle_sleep_us), 0, NULL },
	[RPS_SET_IDLE_SPIN] = { FIELD(idle_spin_us), 0, NULL },
	[RPS_SET_IDLE_WAIT] = { FIELD(idle_wait), 0, NULL },
	[RPS_SET_FORWARD] = { 0, 0, 0, h_forward },
	[RPS_SET_CONSUMERS] = { 0, 0, 0, h_consumers },
	[RPS_SET_CONSUMER_SOCKET] = { 0, 0, 0, h_consumer_socket },
	[RPS_SET_CONSUMER_WAIT] = { FIELD(consumer_wait_ms), 0, NULL },
	[RPS_SET_CONSUMER_GROUP] = { 0, 0, 0, h_consumer_group },
	[RPS_SET_CONSUMER_MODE] = { FIELD(consumer_inline), 0, NULL },
	[RPS_SET_CONSUMER_FAIL] = { FIELD(consumer_fail_open), 0, NULL },
	[RPS_SET_BYPASS_AFTER] = { FIELD(bypass_after), 0, NULL },
	[RPS_SET_CONSUMER_FILTER] = { 0, 0, 0, h_consumer_filter },
	[RPS_SET_RULE] = { 0, 0, 0, h_rule },
	[RPS_SET_METRICS] = { 0, 0, 0, h_metrics },
	[RPS_SET_HELP] = { FIELD(help), 0, NULL },
};
#undef FIELD

/* Setting @p s given as --flag @p arg (NULL for a switch). @return 0, or -1 and *why. */
static int
set_option(struct rps_options *o, const struct rps_setting *s, const char *arg,
	   const char **why)
{
	static char msg[192];
	const struct opt_bind *b = &binds[rps_setting_id(s)];
	int64_t v = 1; /* a switch: on */

	if (arg != NULL && s->type != RPS_SETTING_TEXT &&
	    rps_setting_parse(s, arg, 0, &v, msg, sizeof(msg)) < 0) {
		*why = msg;
		return -1;
	}
	if (b->size != 0)
		rps_setting_store((char *)o + b->off, b->size, b->scale ? v * b->scale : v);
	return b->handle != NULL ? b->handle(o, arg, why) : 0;
}

int
rps_options_value(const struct rps_options *o, enum rps_setting_id id, int64_t *v)
{
	const struct opt_bind *b = &binds[id];
	const char *p = (const char *)o + b->off;
	int is_signed = id == RPS_SET_TX_PORT || id == RPS_SET_HASH || id == RPS_SET_BACKPRESSURE;

	if ((unsigned int)id >= RPS_SET_NB || b->size == 0)
		return -ENOTSUP;
	if (b->size == 1) {
		*v = *(const uint8_t *)p;
	} else if (b->size == 2) {
		*v = *(const uint16_t *)p;
	} else {
		uint32_t u;

		memcpy(&u, p, sizeof(u));
		*v = is_signed ? (int64_t)(int32_t)u : (int64_t)u;
	}
	if (b->scale != 0)
		*v /= b->scale;
	return 0;
}

int
rps_options_set_value(struct rps_options *o, enum rps_setting_id id, int64_t v)
{
	const struct opt_bind *b;

	if ((unsigned int)id >= RPS_SET_NB || binds[id].size == 0)
		return -ENOTSUP;
	b = &binds[id];
	rps_setting_store((char *)o + b->off, b->size, b->scale ? v * b->scale : v);
	return 0;
}

/* The table's defaults: every setting with a field whose default is a value its parser
 * takes ("1000", "on", "auto", "0 (off)"; the file's word for "none"); the others start
 * at 0 (computed later or off). */
static void
set_defaults(struct rps_options *o)
{
	for (unsigned int i = 0; i < RPS_SET_NB; i++) {
		const struct rps_setting *s = &rps_settings[i];
		const struct opt_bind *b = &binds[i];
		char word[32], why[160];
		int64_t v;

		if (b->size == 0 || s->type == RPS_SETTING_SWITCH || s->type == RPS_SETTING_TEXT)
			continue;
		snprintf(word, sizeof(word), "%.*s", (int)strcspn(s->def, " "), s->def);
		if (rps_setting_parse(s, word, s->key != NULL, &v, why, sizeof(why)) == 0)
			rps_setting_store((char *)o + b->off, b->size, b->scale ? v * b->scale : v);
	}
	snprintf(o->stages_text, sizeof(o->stages_text), "%s", rps_settings[RPS_SET_STAGES].def);
}

int
rps_options_given(const struct rps_options *o, const char *name)
{
	const struct rps_setting *s = rps_setting_by_flag(name);

	return s != NULL && ((o->given[rps_setting_id(s) / 64] >> (rps_setting_id(s) % 64)) & 1);
}

void
rps_options_usage(const char *prog, FILE *out)
{
	fprintf(out,
		"Usage: %s [EAL options] -- [options]\n"
		"Software Receive Packet Steering: one RX lcore hashes each packet's flow and\n"
		"queues it on the backlog of one worker lcore of the map.\n\nOptions:\n", prog);
	for (size_t i = 0; i < RPS_SET_NB; i++) {
		const struct rps_setting *s = &rps_settings[i];
		char left[40];

		if (s->flag == NULL)
			continue;
		snprintf(left, sizeof(left), "--%s%s%s", s->flag, s->metavar ? " " : "",
			 s->metavar ? s->metavar : "");
		fprintf(out, "  %-22s %s\n", left, s->help);
	}
	fprintf(out, "\nExit codes: 0 ok, 2 usage or configuration error, 1 run-time failure.\n"
		"EAL options (before --): see the DPDK documentation, e.g. -l 0-3 --no-huge --vdev ...\n"
		"Configuration file keys: man dpdk-rps.conf; this list as a table: --help-table "
		"markdown|mdoc|mdoc-conf.\n");
}

int
rps_options_parse(int argc, char **argv, struct rps_options *o, FILE *err)
{
	struct option longopts[RPS_SET_NB + 1];
	size_t nb = 0;

	memset(o, 0, sizeof(*o));
	set_defaults(o);
	o->flow_closed_timeout_ms = 1000; /* not a setting */
	memset(longopts, 0, sizeof(longopts));
	for (size_t i = 0; i < RPS_SET_NB; i++) {
		if (rps_settings[i].flag == NULL)
			continue;
		longopts[nb].name = rps_settings[i].flag;
		longopts[nb].has_arg = rps_settings[i].metavar ? required_argument : no_argument;
		longopts[nb].val = (int)(i + 256);
		nb++;
	}
	optind = 1;
	opterr = 0;
	for (;;) {
		const char *why = NULL;
		const struct rps_setting *s;
		int c = getopt_long(argc, argv, "h", longopts, NULL);

		if (c == -1)
			break;
		if (c == 'h') {
			o->help = 1;
			continue;
		}
		if (c == '?' || c == ':') {
			const char *bad = argv[optind - 1];

			if (optopt >= 256 && (size_t)(optopt - 256) < RPS_SET_NB)
				fprintf(err, "dpdk-rps: --%s: needs an argument (see --help)\n",
					rps_settings[optopt - 256].flag);
			else
				fprintf(err, "dpdk-rps: %s: unknown option (see --help)\n", bad);
			return -1;
		}
		s = &rps_settings[c - 256];
		o->given[(c - 256) / 64] |= UINT64_C(1) << ((c - 256) % 64);
		if (set_option(o, s, optarg, &why) < 0) {
			/* a secret's value is never repeated, not even to its owner's terminal:
			 * stderr goes to journals and CI logs */
			fprintf(err, "dpdk-rps: --%s %s: %s\n", s->flag,
				(s->flags & RPS_SETTING_SECRET) ? "(secret: not shown)" :
				optarg ? optarg : "", why);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(err, "dpdk-rps: %s: unexpected argument (see --help)\n", argv[optind]);
		return -1;
	}
	if (o->nb_rx_ports > 0)
		o->rx_port = o->rx_ports[0];
	if (o->rebalance && !o->reorder_safe) {
		fprintf(err, "dpdk-rps: --rebalance on: needs --reorder-safe on (a bucket moved "
			"without it may reorder its flows)\n");
		return -1;
	}
	if (rps_options_given(o, "symmetric") && rps_options_given(o, "symmetric-xor")) {
		fprintf(err, "dpdk-rps: --symmetric and --symmetric-xor: choose one\n");
		return -1;
	}
	if (o->symmetric == RPS_SYM_XOR && o->rss_key_len != 0 &&
	    !rps_toeplitz_key_is_symmetric(o->rss_key, o->rss_key_len)) {
		/* the key is not echoed: it is a secret */
		fprintf(err, "dpdk-rps: --rss-key: not symmetric: with --symmetric-xor the key "
			"must repeat one 16-bit pattern (6d5a6d5a...); leave --rss-key out to get "
			"6d5a x 20, or use --symmetric (any key)\n");
		return -1;
	}
	return 0;
}
