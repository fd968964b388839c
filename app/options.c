/* SPDX-License-Identifier: BSD-3-Clause */
/* options.c: the option table (name, argument, help, handler) behind getopt_long and --help. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "rps_number.h"

typedef int (*opt_handler)(struct rps_options *o, const char *arg, const char **why);

struct opt_def {
	const char *name;
	const char *metavar;      /* NULL: takes no argument */
	const char *help;
	opt_handler handle;
};

/* The configuration file's number syntax (rps_number.h): decimal without a leading zero
 * ("065536" is refused, not read as octal), or 0x hex; no blanks, no sign. */
static int
parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	return rps_number_parse(s, lo, hi, out);
}

/* The message of a failed parse_u64(): the syntax when @p s is not a number at all, else
 * the handler's range message @p msg. */
static const char *
num_why(const char *s, const char *msg)
{
	uint64_t v;

	return rps_number_parse(s, 0, (UINT64_C(1) << 60) - 1, &v) == -EINVAL ?
	       "not a number (" RPS_NUMBER_SYNTAX ")" : msg;
}

#define RANGE_HANDLER(fn, field, type, lo, hi, msg)                                      \
	static int fn(struct rps_options *o, const char *arg, const char **why)          \
	{                                                                                \
		uint64_t v;                                                              \
		if (parse_u64(arg, lo, hi, &v) < 0) {                                    \
			*why = num_why(arg, msg);                                        \
			return -1;                                                       \
		}                                                                        \
		o->field = (type)v;                                                      \
		return 0;                                                                \
	}

RANGE_HANDLER(h_rx_port, rx_port, uint16_t, 0, RTE_MAX_ETHPORTS - 1, "expected a port id")
RANGE_HANDLER(h_backlog, backlog, uint32_t, 1, 1u << 24, "expected 1..16777216 packets")
RANGE_HANDLER(h_burst, burst, uint16_t, 1, RPS_BURST_MAX, "expected 1..512 packets")
RANGE_HANDLER(h_rx_queues, rx_queues, uint16_t, 1, RTE_MAX_QUEUES_PER_PORT, "expected 1..1024 queues")
RANGE_HANDLER(h_mbufs, mbufs, uint32_t, 1024, 1u << 26, "expected 1024..67108864 mbufs")
RANGE_HANDLER(h_stats, stats_interval, unsigned int, 0, 86400, "expected 0..86400 seconds")
RANGE_HANDLER(h_idle, exit_when_idle, unsigned int, 1, 86400000, "expected 1..86400000 milliseconds")

static int
h_tx_port(struct rps_options *o, const char *arg, const char **why)
{
	uint64_t v;

	if (parse_u64(arg, 0, RTE_MAX_ETHPORTS - 1, &v) < 0) {
		*why = num_why(arg, "expected a port id");
		return -1;
	}
	o->tx_port = (int)v;
	return 0;
}

static int
h_seed(struct rps_options *o, const char *arg, const char **why)
{
	uint64_t v;

	if (parse_u64(arg, 0, UINT32_MAX, &v) < 0) {
		*why = num_why(arg, "expected a 32-bit number");
		return -1;
	}
	o->seed = (uint32_t)v;
	o->seed_given = 1;
	return 0;
}

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
h_hash(struct rps_options *o, const char *arg, const char **why)
{
	if (rps_hash_mode_parse(arg, &o->hash_mode) < 0) {
		*why = "expected auto, rss, jhash or toeplitz";
		return -1;
	}
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
h_inner(struct rps_options *o, const char *arg, const char **why)
{
	(void)arg;
	(void)why;
	o->inner = 1;
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

RANGE_HANDLER(h_flow_size, flow_table_size, uint32_t, 64, 1u << 24, "expected 64..16777216 flows")
RANGE_HANDLER(h_frag_max, frag_max, uint32_t, 16, 1u << 20, "expected 16..1048576 datagrams")
RANGE_HANDLER(h_frag_mbufs, frag_mbufs, uint32_t, 16, 1u << 24, "expected 16..16777216 mbufs")
RANGE_HANDLER(h_frag_timeout, frag_timeout_ms, uint32_t, 1, 600000, "expected 1..600000 milliseconds")
RANGE_HANDLER(h_udp_echo, udp_echo_port, uint16_t, 1, 65535, "expected a UDP port 1..65535")
RANGE_HANDLER(h_mtu, mtu, uint16_t, 68, 16000, "expected an MTU of 68..16000 bytes")
RANGE_HANDLER(h_respond_rate, respond_rate, uint32_t, 0, 100000000,
	      "expected 0..100000000 replies a second (0 = no limit)")
RANGE_HANDLER(h_respond_burst, respond_burst, uint32_t, 1, 1000000,
	      "expected 1..1000000 replies")

static int
h_flow_timeout(struct rps_options *o, const char *arg, const char **why)
{
	uint64_t v;

	if (parse_u64(arg, 1, 86400, &v) < 0) {
		*why = num_why(arg, "expected 1..86400 seconds");
		return -1;
	}
	o->flow_timeout_ms = (uint32_t)v * 1000;
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

/* A/LEN or A (prefix RPS_RESPOND_PREFIX_DEFAULT). */
static int
h_respond_ip(struct rps_options *o, const char *arg, const char **why)
{
	const char *slash = strchr(arg, '/');
	char addr[INET_ADDRSTRLEN];
	uint64_t plen = RPS_RESPOND_PREFIX_DEFAULT;
	size_t n = slash != NULL ? (size_t)(slash - arg) : strlen(arg);

	if (n >= sizeof(addr) || (slash != NULL && parse_u64(slash + 1, 0, 32, &plen) < 0)) {
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

/* "on" / "off" into @p flag. */
static int
on_off(const char *arg, int *flag, const char **why)
{
	if (strcmp(arg, "on") == 0) {
		*flag = 1;
	} else if (strcmp(arg, "off") == 0) {
		*flag = 0;
	} else {
		*why = "expected on or off";
		return -1;
	}
	return 0;
}

static int
h_reorder(struct rps_options *o, const char *arg, const char **why)
{
	return on_off(arg, &o->reorder_safe, why);
}

static int
h_flow_limit(struct rps_options *o, const char *arg, const char **why)
{
	return on_off(arg, &o->flow_limit, why);
}

static int
h_rebalance(struct rps_options *o, const char *arg, const char **why)
{
	return on_off(arg, &o->rebalance, why);
}

static int
h_table_size(struct rps_options *o, const char *arg, const char **why)
{
	uint64_t v;

	if (parse_u64(arg, RPS_MAP_SIZE_MIN, RPS_MAP_SIZE_MAX, &v) < 0 || (v & (v - 1)) != 0) {
		*why = num_why(arg, "expected a power of two 1..4096 buckets");
		return -1;
	}
	o->table_size = (uint32_t)v;
	return 0;
}

/* A number in [lo, hi] into @p dst, or @p msg. */
static int
u32_in(const char *arg, uint64_t lo, uint64_t hi, uint32_t *dst, const char *msg,
       const char **why)
{
	uint64_t v;

	if (parse_u64(arg, lo, hi, &v) < 0) {
		*why = num_why(arg, msg);
		return -1;
	}
	*dst = (uint32_t)v;
	return 0;
}

static int
h_rebalance_interval(struct rps_options *o, const char *arg, const char **why)
{
	return u32_in(arg, 10, 3600000, &o->rebalance_interval_ms,
		      "expected 10..3600000 milliseconds", why);
}

static int
h_rebalance_threshold(struct rps_options *o, const char *arg, const char **why)
{
	return u32_in(arg, 1, 1000, &o->rebalance_threshold, "expected 1..1000 percent", why);
}

static int
h_rebalance_moves(struct rps_options *o, const char *arg, const char **why)
{
	return u32_in(arg, 1, RPS_MAP_SIZE_MAX, &o->rebalance_moves,
		      "expected 1..4096 buckets per interval", why);
}

static int
h_rebalance_holddown(struct rps_options *o, const char *arg, const char **why)
{
	return u32_in(arg, 0, 86400000, &o->rebalance_holddown_ms,
		      "expected 0..86400000 milliseconds", why);
}

static int
h_backpressure(struct rps_options *o, const char *arg, const char **why)
{
	if (strcmp(arg, "auto") == 0) {
		o->backpressure = -1;
		return 0;
	}
	return on_off(arg, &o->backpressure, why);
}

static int
h_stall_timeout(struct rps_options *o, const char *arg, const char **why)
{
	return u32_in(arg, 0, 3600000, &o->stall_timeout_ms,
		      "expected 0 (off) or 1..3600000 milliseconds", why);
}

static int
h_idle_sleep(struct rps_options *o, const char *arg, const char **why)
{
	uint64_t v;

	if (parse_u64(arg, 0, 100000, &v) < 0) {
		*why = num_why(arg, "expected 0..100000 microseconds (0 = always poll)");
		return -1;
	}
	o->idle_sleep_us = (uint32_t)v;
	return 0;
}

static int
h_idle_spin(struct rps_options *o, const char *arg, const char **why)
{
	uint64_t v;

	if (parse_u64(arg, 0, 10000000, &v) < 0) {
		*why = num_why(arg, "expected 0..10000000 microseconds");
		return -1;
	}
	o->idle_spin_us = (uint32_t)v;
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
h_check_order(struct rps_options *o, const char *arg, const char **why)
{
	(void)arg;
	(void)why;
	o->check_order = 1;
	return 0;
}

static int
h_help(struct rps_options *o, const char *arg, const char **why)
{
	(void)arg;
	(void)why;
	o->help = 1;
	return 0;
}

static const struct opt_def opts[] = {
	{ "rx-port", "P", "port polled by the RX lcore, every RX queue of it (default 0)", h_rx_port },
	{ "rx-queues", "N", "RX queues to set up and poll (default: all the port has, at most 16)", h_rx_queues },
	{ "map", "M", "worker lcores: hex mask as rps_cpus (fe, 0xfe, ff,ffffffff) or list (1-3,5), "
		      "optionally weighted (1:2,2:1,3:1 gives lcore 1 half the table); "
		      "0 = no steering, the RX lcore processes (default: every EAL lcore but the main one)", h_map },
	{ "table-size", "N", "buckets of each RX queue's indirection table, a power of two 1..4096: "
			     "bucket = top log2(N) bits of the hash, filled from --map (default 128)", h_table_size },
	{ "hash", "MODE", "auto (NIC RSS hash when the mbuf has one, else jhash), rss, jhash, "
			  "toeplitz (software RSS from the headers, as the NIC with --rss-key) "
			  "(default auto)", h_hash },
	{ "hash-seed", "N", "jhash seed (default: random at start)", h_seed },
	{ "symmetric", NULL, "both directions of a connection go to one worker: the tuple is "
			     "sorted (lower address, then port, first) and hashed in software "
			     "with the secret key (jhash, or Toeplitz with --hash toeplitz); the "
			     "NIC's RSS hash is not used (not with --hash rss)", h_symmetric },
	{ "symmetric-xor", NULL, "both directions to one worker through a symmetric Toeplitz key "
				 "(default 6d5a x 20) on the NIC and in software: no software "
				 "hash, but crafted flows collide whatever the key "
				 "(docs/steering-keys.md)", h_symmetric_xor },
	{ "inner", NULL, "hash tunnelled packets (VXLAN, GENEVE, GTP-U, GRE, NVGRE, IP-in-IP) on "
			 "their inner header, one level deep, always in software (a NIC's RSS "
			 "hash is the outer one); unreadable tunnels hash on the outer header",
	  h_inner },
	{ "vxlan-port", "P", "UDP ports --inner reads as VXLAN, repeatable or a list (4789,8472) "
			     "(default 4789)", h_vxlan_port },
	{ "rss-key", "HEX", "Toeplitz key for --hash toeplitz and the NIC, 40 or 52 bytes in hex "
			    "(default: random at each start, kept secret); with --symmetric-xor it "
			    "must repeat one 16-bit pattern", h_rss_key },
	{ "backlog", "N", "packets a worker's backlog holds; the rest are dropped as backlog_full (default 1000)", h_backlog },
	{ "burst", "N", "packets per RX/dequeue/TX burst, 1..512 (default 64)", h_burst },
	{ "tx-port", "P", "each worker transmits what it processed on its own TX queue of P (default: none, packets are consumed)", h_tx_port },
	{ "mbufs", "N", "mbufs in the packet pool (default: enough for all rings and backlogs)", h_mbufs },
	{ "mtu", "N", "MTU of --rx-port and --tx-port, 68..16000 (default: the port's own); the output "
		      "stage re-fragments packets above the TX port's MTU", h_mtu },
	{ "stats-interval", "S", "print the live per-worker table every S seconds (default 0 = off)", h_stats },
	{ "duration", "S", "stop after S seconds (default: run until SIGINT/SIGTERM)", h_duration },
	{ "exit-when-idle", "MS", "stop once the RX port has been idle MS ms and every backlog is empty", h_idle },
	{ "summary-json", "FILE", "write the exit summary as JSON to FILE", h_summary },
	{ "stages", "LIST", "worker pipeline, in this order: parse,validate,reassemble,flow,respond,output "
			    "(default: all but respond)", h_stages },
	{ "flow-table-size", "N", "flows each worker tracks (default 65536)", h_flow_size },
	{ "flow-timeout", "S", "an idle flow is forgotten after S seconds (default 30)", h_flow_timeout },
	{ "frag-max", "N", "datagrams each worker reassembles at once (default 4096)", h_frag_max },
	{ "frag-mbufs", "N", "mbufs each worker's reassembly may hold; past it the oldest incomplete "
			     "datagrams are evicted (frag_evicted). The default pool adds this much per "
			     "worker; a smaller --mbufs lowers it (default: --frag-max)", h_frag_mbufs },
	{ "frag-timeout", "MS", "fragments of an incomplete datagram are dropped after MS ms (default 2000)", h_frag_timeout },
	{ "respond-ip", "A[/LEN]", "respond stage: answer ARP and ICMP echo for this IPv4 address; "
				   "requests from the network or broadcast address of its /LEN "
				   "(default /24) are refused", h_respond_ip },
	{ "respond-ip6", "A", "respond stage: answer neighbour solicitation and ICMPv6 echo for this IPv6 address", h_respond_ip6 },
	{ "udp-echo-port", "P", "respond stage: echo UDP datagrams sent to this port of the addresses above", h_udp_echo },
	{ "respond-rate", "N", "respond stage: echo replies (ICMP, ICMPv6, UDP) a second per worker "
			       "at most, 0 = no limit (default 1000, as Linux's icmp_msgs_per_sec)",
	  h_respond_rate },
	{ "respond-burst", "N", "respond stage: echo replies a worker may send back to back "
				"(default 50)", h_respond_burst },
	{ "flows-json", "FILE", "write every worker's flow table as JSON at exit", h_flows_json },
	{ "config", "FILE", "INI configuration file (see config/dpdk-rps.conf); reloaded on SIGHUP and "
			    "when it changes; the command line wins at start", h_config },
	{ "reorder-safe", "on|off", "a remap never reorders a flow: buckets move only once their old "
				    "worker drained them (default on; off = the seed's behaviour)", h_reorder },
	{ "check-order", NULL, "count packets that reach their worker after a later packet of their "
			       "flow (counter reordered; costs two table accesses per packet)",
	  h_check_order },
	{ "flow-limit", "on|off", "when a worker's backlog is over half full, drop first the packets of a "
				  "flow holding more than half of its last 256 (the kernel's flow limit; "
				  "default off)", h_flow_limit },
	{ "rebalance", "on|off", "move the hottest buckets from an overloaded worker to one with "
				 "room, without reordering (needs --reorder-safe on; default off)",
	  h_rebalance },
	{ "rebalance-interval", "MS", "how often bucket rates are measured and the rebalancer "
				      "runs (default 1000)", h_rebalance_interval },
	{ "rebalance-threshold", "PCT", "act when the busiest worker's load is PCT % over the mean "
					"for two intervals in a row (default 10)",
	  h_rebalance_threshold },
	{ "rebalance-moves", "K", "buckets moved per interval at most (default 8)",
	  h_rebalance_moves },
	{ "rebalance-holddown", "MS", "a bucket moved is not moved again for MS ms (default 10000)",
	  h_rebalance_holddown },
	{ "backpressure", "on|off|auto", "on: while a worker's backlog is full the RX lcore stops "
					 "taking packets from the port instead of dropping them "
					 "(lossless; the port's queue takes the overflow); auto (the "
					 "default): on for file and ring inputs (net_pcap, net_ring, "
					 "net_memif), off for NICs", h_backpressure },
	{ "stall-timeout", "MS", "a worker whose backlog holds packets but whose position has not "
				 "moved for MS ms is stalled: its buckets move to the healthy workers "
				 "of each map until it is back (default 0 = off: for dedicated "
				 "cores, e.g. 1000; on shared CPUs a descheduled worker looks stalled)",
	  h_stall_timeout },
	{ "idle-sleep", "US", "an idle lcore (nothing to poll for --idle-spin) sleeps between polls, "
			      "1 us doubling up to US; 0 = always busy-poll (default 50)", h_idle_sleep },
	{ "idle-spin", "US", "busy-poll this long after the last packet before sleeping (default 100)",
	  h_idle_spin },
	{ "metrics", "ADDR:PORT", "serve the counters for Prometheus over HTTP at "
				  "http://ADDR:PORT/metrics (text format 0.0.4, or OpenMetrics): "
				  "PORT alone listens on 127.0.0.1, [IPV6]:PORT, 0.0.0.0:PORT on every "
				  "address, port 0 a free one (/rps/info says which); off (the default)",
	  h_metrics },
	{ "help", NULL, "show this help and exit", h_help },
};

#define NB_OPTS RTE_DIM(opts)

int
rps_options_given(const struct rps_options *o, const char *name)
{
	for (size_t i = 0; i < NB_OPTS; i++)
		if (strcmp(opts[i].name, name) == 0)
			return (o->given >> i) & 1;
	return 0;
}

void
rps_options_usage(const char *prog, FILE *out)
{
	fprintf(out,
		"Usage: %s [EAL options] -- [options]\n"
		"Software Receive Packet Steering: one RX lcore hashes each packet's flow and\n"
		"queues it on the backlog of one worker lcore of the map.\n\nOptions:\n", prog);
	for (size_t i = 0; i < NB_OPTS; i++) {
		char left[40];

		snprintf(left, sizeof(left), "--%s%s%s", opts[i].name, opts[i].metavar ? " " : "",
			 opts[i].metavar ? opts[i].metavar : "");
		fprintf(out, "  %-22s %s\n", left, opts[i].help);
	}
	fprintf(out, "\nExit codes: 0 ok, 2 usage or configuration error, 1 run-time failure.\n"
		"EAL options (before --): see the DPDK documentation, e.g. -l 0-3 --no-huge --vdev ...\n");
}

int
rps_options_parse(int argc, char **argv, struct rps_options *o, FILE *err)
{
	struct option longopts[NB_OPTS + 1];

	memset(o, 0, sizeof(*o));
	o->tx_port = -1;
	o->hash_mode = RPS_HASH_AUTO;
	o->backlog = 1000;
	o->burst = 64;
	o->reorder_safe = 1;
	o->idle_sleep_us = 50;
	o->idle_spin_us = 100;
	o->table_size = RPS_MAP_SIZE_DEFAULT;
	o->rebalance_interval_ms = 1000;
	o->rebalance_threshold = 10;
	o->rebalance_moves = 8;
	o->rebalance_holddown_ms = 10000;
	o->stall_timeout_ms = 0;
	o->backpressure = -1;
	o->flow_table_size = 65536;
	o->flow_timeout_ms = 30000;
	o->flow_closed_timeout_ms = 1000;
	o->frag_max = 4096;
	o->frag_timeout_ms = 2000;
	o->respond_rate = RPS_RESPOND_RATE_DEFAULT;
	o->respond_burst = RPS_RESPOND_BURST_DEFAULT;
	snprintf(o->stages_text, sizeof(o->stages_text), "parse,validate,reassemble,flow,output");
	memset(longopts, 0, sizeof(longopts));
	for (size_t i = 0; i < NB_OPTS; i++) {
		longopts[i].name = opts[i].name;
		longopts[i].has_arg = opts[i].metavar ? required_argument : no_argument;
		longopts[i].val = (int)(i + 256);
	}
	optind = 1;
	opterr = 0;
	for (;;) {
		const char *why = NULL;
		int c = getopt_long(argc, argv, "h", longopts, NULL);

		if (c == -1)
			break;
		if (c == 'h') {
			o->help = 1;
			continue;
		}
		if (c == '?' || c == ':') {
			const char *bad = argv[optind - 1];

			if (optopt >= 256 && (size_t)(optopt - 256) < NB_OPTS)
				fprintf(err, "dpdk-rps: --%s: needs an argument (see --help)\n",
					opts[optopt - 256].name);
			else
				fprintf(err, "dpdk-rps: %s: unknown option (see --help)\n", bad);
			return -1;
		}
		o->given |= UINT64_C(1) << (c - 256);
		if (opts[c - 256].handle(o, optarg, &why) < 0) {
			fprintf(err, "dpdk-rps: --%s %s: %s\n", opts[c - 256].name,
				optarg ? optarg : "", why);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(err, "dpdk-rps: %s: unexpected argument (see --help)\n", argv[optind]);
		return -1;
	}
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
