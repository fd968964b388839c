/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk-rps-example-consumer: a dpdk-rps consumer (docs/consumers.md) in one file. It opens a
 * net_memif client port at a consumer socket, polls its one RX queue and counts packets and
 * bytes per 5-tuple; on exit it prints a summary (and, with --json, every flow's counts).
 *
 *   dpdk-rps-example-consumer -l 3 --file-prefix c0 -- --socket /run/rps/c0.sock --top 5
 *
 * Single-threaded: the main lcore does everything, so nothing here takes a lock.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "intr_park.h"

#define PROG "dpdk-rps-example-consumer"
#define VDEV_NAME "net_memif0"
#define BURST 32
#define NB_MBUFS 8191
#define NB_DESC 1024
#define MAX_VLAN 4          /* tags walked before a frame is given up on (as dpdk-rps) */
#define MAX_V6EXT 8         /* IPv6 extension headers walked (as dpdk-rps) */
#define DEFAULT_MAX_FLOWS 65536
#define LIMIT_MAX_FLOWS (1u << 22)
#define SLICE_MS 10          /* polled with the interrupt thread parked, then released */
#define CONNECT_CHECK_MS 10  /* link looked at this often while not connected */
#define CONNECT_TIMEOUT_MS 500 /* a start not connected by then is stopped and retried */
#define PARK_TIMEOUT_MS 1000

/* A flow's identity: the 5-tuple and the address family, zero-padded (it is hashed whole). */
struct flow_key {
	uint8_t src[16];
	uint8_t dst[16];
	uint16_t sport;         /* host order; 0 for fragments and protocols without ports */
	uint16_t dport;
	uint8_t proto;
	uint8_t family;         /* 4 or 6 */
	uint8_t pad[2];
};

struct flow_count {
	uint64_t packets;
	uint64_t bytes;
	bool bypass_asked;      /* --bypass-after: the request went */
};

/* A bypass request, as dpdk-rps reads it (docs/consumers.md#asking-for-a-bypass): an
 * Ethernet frame of EtherType 0x88B5 sent back on the ring, then this, in network order. */
#define CTL_ETHERTYPE 0x88B5
#define CTL_MAGIC 0x52505342u   /* "RPSB" */
struct __attribute__((packed)) ctl_bypass {
	uint32_t magic;
	uint8_t version;        /* 1 */
	uint8_t family;         /* 4 or 6 */
	uint8_t proto;
	uint8_t reserved;
	uint16_t sport, dport;
	uint32_t seconds;       /* 0: until the flow ends */
	uint8_t src[16], dst[16];
};

struct flow_entry {
	struct flow_key key;
	struct flow_count c;
};

struct options {
	const char *socket;
	const char *json;
	unsigned int seconds;
	unsigned int top;
	unsigned int max_flows;
	unsigned int bypass_after;  /* bytes of a flow before asking for its bypass, 0: never */
};

/* Everything the loop counts; the hash holds the flows, counts[] their counters by position. */
struct consumer {
	uint16_t port;
	struct rte_mempool *pool;
	struct rte_hash *flows;
	struct flow_count *counts;      /* indexed by the hash's key position */
	unsigned int max_flows;
	unsigned int nb_flows;
	uint64_t packets, bytes;
	uint64_t untracked_packets, untracked_bytes; /* flows beyond max_flows */
	uint64_t other_packets, other_bytes;         /* not IPv4/IPv6, or cut short */
	unsigned int bypass_after;
	uint64_t bypass_requests;  /* sent back to dpdk-rps */
	struct intr_park park;  /* EAL's interrupt thread, held while polling */
	bool started;           /* rte_eth_dev_start() done: connecting or connected */
	bool link_up;           /* connected, as last seen (polled only after a parked re-check) */
	uint64_t started_at;    /* TSC of the last start */
	unsigned int connects;
	unsigned int retries;   /* starts that had not connected within CONNECT_TIMEOUT_MS */
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* ---- options: one table drives getopt_long and --help ---- */

enum { OPT_SOCKET = 256, OPT_SECONDS, OPT_TOP, OPT_JSON, OPT_MAX_FLOWS, OPT_BYPASS_AFTER,
	OPT_HELP };

static const struct opt_desc {
	const char *name;
	const char *arg;
	int id;
	const char *help;
} opt_table[] = {
	{ "socket", "PATH", OPT_SOCKET, "the consumer socket of dpdk-rps (required)" },
	{ "seconds", "N", OPT_SECONDS, "exit after N seconds; 0 (default): at SIGINT/SIGTERM" },
	{ "top", "N", OPT_TOP, "print the N biggest flows at exit (default 10)" },
	{ "json", "FILE", OPT_JSON, "write every flow's counts to FILE as JSON at exit" },
	{ "max-flows", "N", OPT_MAX_FLOWS,
	  "flows tracked at most (default 65536); more are counted untracked" },
	{ "bypass-after", "BYTES", OPT_BYPASS_AFTER,
	  "once a flow counted BYTES here, ask dpdk-rps to bypass it (its later packets skip "
	  "the consumers); 0 (default): never" },
	{ "help", NULL, OPT_HELP, "this text" },
};
#define NB_OPTS (sizeof(opt_table) / sizeof(opt_table[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [EAL options] -- --socket PATH [options]\n");
	for (size_t i = 0; i < NB_OPTS; i++) {
		char lhs[40];

		snprintf(lhs, sizeof(lhs), "--%s%s%s", opt_table[i].name,
			 opt_table[i].arg ? " " : "", opt_table[i].arg ? opt_table[i].arg : "");
		fprintf(f, "  %-20s %s\n", lhs, opt_table[i].help);
	}
}

/* A decimal number in [lo, hi], all of the string; -1 otherwise. */
static int parse_uint(const char *s, unsigned int lo, unsigned int hi, unsigned int *out)
{
	char *end;
	unsigned long v;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

/* 0, 1 after --help, or -1 after a message naming the bad argument. */
static int parse_args(int argc, char **argv, struct options *o)
{
	struct option lopts[NB_OPTS + 1];
	int c;

	memset(lopts, 0, sizeof(lopts));
	for (size_t i = 0; i < NB_OPTS; i++) {
		lopts[i].name = opt_table[i].name;
		lopts[i].has_arg = opt_table[i].arg ? required_argument : no_argument;
		lopts[i].val = opt_table[i].id;
	}
	*o = (struct options){ .top = 10, .max_flows = DEFAULT_MAX_FLOWS };
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", lopts, NULL)) != -1) {
		switch (c) {
		case OPT_SOCKET:
			if (*optarg == '\0') {
				fprintf(stderr, PROG ": --socket: empty path\n");
				return -1;
			}
			o->socket = optarg;
			break;
		case OPT_JSON:
			if (*optarg == '\0') {
				fprintf(stderr, PROG ": --json: empty path\n");
				return -1;
			}
			o->json = optarg;
			break;
		case OPT_SECONDS:
			if (parse_uint(optarg, 0, 86400 * 365, &o->seconds) < 0) {
				fprintf(stderr, PROG ": --seconds: '%s' is not a number of seconds "
					"(0 to 31536000)\n", optarg);
				return -1;
			}
			break;
		case OPT_TOP:
			if (parse_uint(optarg, 0, 1000000, &o->top) < 0) {
				fprintf(stderr, PROG ": --top: '%s' is not a count (0 to 1000000)\n",
					optarg);
				return -1;
			}
			break;
		case OPT_MAX_FLOWS:
			if (parse_uint(optarg, 1, LIMIT_MAX_FLOWS, &o->max_flows) < 0) {
				fprintf(stderr, PROG ": --max-flows: '%s' is not a count (1 to %u)\n",
					optarg, LIMIT_MAX_FLOWS);
				return -1;
			}
			break;
		case OPT_BYPASS_AFTER:
			if (parse_uint(optarg, 0, UINT32_MAX, &o->bypass_after) < 0) {
				fprintf(stderr, PROG ": --bypass-after: '%s' is not a number of "
					"bytes (0 to %u)\n", optarg, UINT32_MAX);
				return -1;
			}
			break;
		case OPT_HELP:
			usage(stdout);
			return 1;
		case ':':
			fprintf(stderr, PROG ": %s: needs an argument\n", argv[optind - 1]);
			return -1;
		default:
			fprintf(stderr, PROG ": unknown option '%s'\n", argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (o->socket == NULL) {
		fprintf(stderr, PROG ": --socket: required (the consumer socket of dpdk-rps)\n");
		return -1;
	}
	if (strchr(o->socket, ',') != NULL) {
		fprintf(stderr, PROG ": --socket: '%s' contains ',' (a vdev argument "
			"separator)\n", o->socket);
		return -1;
	}
	return 0;
}

/* "--" splits EAL's arguments from the consumer's: its index, or argc when there is none
 * (then all are EAL's). */
static int find_separator(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			return i;
	return argc;
}

static bool want_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return true;
	return false;
}

/* ---- parsing: Ethernet, VLAN/QinQ, IPv4/IPv6, ports ---- */

static inline bool is_vlan_tpid(uint16_t t)
{
	return t == RTE_ETHER_TYPE_VLAN || t == RTE_ETHER_TYPE_QINQ || t == 0x9100;
}

static inline bool is_v6_ext(uint8_t nh)
{
	return nh == 0 || nh == 43 || nh == 44 || nh == 60;   /* hop-by-hop, routing, fragment, dst */
}

/*
 * Fill k from m (chained mbufs read with rte_pktmbuf_read). 0 for an IPv4/IPv6 packet,
 * -1 for anything else or one cut short before its addresses. Fragments and protocols other
 * than TCP/UDP get ports 0: a fragment may not carry them.
 */
static int flow_key_parse(const struct rte_mbuf *m, struct flow_key *k)
{
	uint8_t buf[40];
	const uint8_t *p;
	uint32_t off = 14, l3;
	uint16_t etype;
	bool frag = false;
	unsigned int tags = 0;

	memset(k, 0, sizeof(*k));
	p = rte_pktmbuf_read(m, 0, 14, buf);
	if (p == NULL)
		return -1;
	etype = (uint16_t)(p[12] << 8 | p[13]);
	while (is_vlan_tpid(etype)) {
		if (tags++ == MAX_VLAN)
			return -1;
		p = rte_pktmbuf_read(m, off, 4, buf);
		if (p == NULL)
			return -1;
		etype = (uint16_t)(p[2] << 8 | p[3]);
		off += 4;
	}
	if (etype == RTE_ETHER_TYPE_IPV4) {
		p = rte_pktmbuf_read(m, off, 20, buf);
		if (p == NULL || p[0] >> 4 != 4)
			return -1;
		l3 = (p[0] & 0x0fu) * 4;
		if (l3 < 20 || off + l3 > rte_pktmbuf_pkt_len(m))
			return -1;
		frag = ((p[6] << 8 | p[7]) & 0x3fff) != 0;      /* MF or an offset */
		k->family = 4;
		k->proto = p[9];
		memcpy(k->src, p + 12, 4);
		memcpy(k->dst, p + 16, 4);
	} else if (etype == RTE_ETHER_TYPE_IPV6) {
		uint8_t nh;

		p = rte_pktmbuf_read(m, off, 40, buf);
		if (p == NULL || p[0] >> 4 != 6)
			return -1;
		k->family = 6;
		memcpy(k->src, p + 8, 16);
		memcpy(k->dst, p + 24, 16);
		nh = p[6];
		l3 = 40;
		for (unsigned int i = 0; i < MAX_V6EXT && is_v6_ext(nh); i++) {
			p = rte_pktmbuf_read(m, off + l3, 8, buf);
			if (p == NULL)
				break;          /* chain cut short: addresses only */
			if (nh == 44) {
				if ((p[2] << 8 | p[3]) & 0xfff9)
					frag = true;
				l3 += 8;
			} else {
				l3 += (p[1] + 1u) * 8;
			}
			nh = p[0];
		}
		k->proto = nh;
	} else {
		return -1;
	}
	if (!frag && (k->proto == IPPROTO_TCP || k->proto == IPPROTO_UDP)) {
		p = rte_pktmbuf_read(m, off + l3, 4, buf);
		if (p != NULL) {
			k->sport = (uint16_t)(p[0] << 8 | p[1]);
			k->dport = (uint16_t)(p[2] << 8 | p[3]);
		}
	}
	return 0;
}

/* ---- counting: a burst at a time ---- */

/* Ask dpdk-rps to bypass the flow @p k: the request goes back on the ring (queue 0).
 * @return whether it went. */
static bool ask_bypass(struct consumer *cs, const struct flow_key *k)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(cs->pool);
	struct rte_ether_hdr *eh;
	struct ctl_bypass *b;

	if (m == NULL)
		return false;
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, sizeof(*eh) + sizeof(*b));
	if (eh == NULL) {
		rte_pktmbuf_free(m);
		return false;
	}
	memset(eh, 0, sizeof(*eh) + sizeof(*b));
	eh->ether_type = rte_cpu_to_be_16(CTL_ETHERTYPE);
	b = (struct ctl_bypass *)(eh + 1);
	b->magic = rte_cpu_to_be_32(CTL_MAGIC);
	b->version = 1;
	b->family = k->family;
	b->proto = k->proto;
	b->sport = rte_cpu_to_be_16(k->sport);
	b->dport = rte_cpu_to_be_16(k->dport);
	b->seconds = 0;
	memcpy(b->src, k->src, sizeof(b->src));
	memcpy(b->dst, k->dst, sizeof(b->dst));
	if (rte_eth_tx_burst(cs->port, 0, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		return false;
	}
	cs->bypass_requests++;
	return true;
}

static void count_burst(struct consumer *cs, struct rte_mbuf **pkts, uint16_t n)
{
	struct flow_key keys[BURST];
	const void *kp[BURST];
	uint32_t len[BURST];
	int32_t pos[BURST];
	unsigned int nk = 0;

	for (uint16_t i = 0; i < n; i++) {
		uint32_t l = rte_pktmbuf_pkt_len(pkts[i]);

		cs->packets++;
		cs->bytes += l;
		if (flow_key_parse(pkts[i], &keys[nk]) < 0) {
			cs->other_packets++;
			cs->other_bytes += l;
			continue;
		}
		kp[nk] = &keys[nk];
		len[nk++] = l;
	}
	if (nk == 0)
		return;
	if (rte_hash_lookup_bulk(cs->flows, kp, nk, pos) < 0) {
		for (unsigned int i = 0; i < nk; i++)
			pos[i] = rte_hash_lookup(cs->flows, kp[i]);
	}
	for (unsigned int i = 0; i < nk; i++) {
		int32_t p = pos[i];

		/* a new flow: added while there is room (a second packet of it in this
		 * burst finds it there: add returns the existing position) */
		if (p < 0 && cs->nb_flows < cs->max_flows) {
			p = rte_hash_lookup(cs->flows, kp[i]);
			if (p < 0) {
				p = rte_hash_add_key(cs->flows, kp[i]);
				if (p >= 0)
					cs->nb_flows++;
			}
		}
		if (p < 0 || (uint32_t)p >= cs->max_flows) {
			cs->untracked_packets++;
			cs->untracked_bytes += len[i];
			continue;
		}
		cs->counts[p].packets++;
		cs->counts[p].bytes += len[i];
		if (cs->bypass_after != 0 && !cs->counts[p].bypass_asked &&
		    cs->counts[p].bytes >= cs->bypass_after)
			cs->counts[p].bypass_asked = ask_bypass(cs, &keys[i]);
	}
}

/* ---- the connection: started, connected, polled only with the interrupt thread parked ---- */

/*
 * Start the port once the server's socket is there: a 22.11 memif client connects in
 * rte_eth_dev_start() and fails it when nobody listens, without retrying later. Parked: a
 * start or stop must not run beside memif's own handler of the same port.
 */
static void try_start(struct consumer *cs, const char *sock)
{
	int rc;

	if (access(sock, F_OK) != 0 || intr_park_hold(&cs->park, PARK_TIMEOUT_MS) != 0)
		return;
	rc = rte_eth_dev_start(cs->port);
	intr_park_release(&cs->park);
	if (rc == 0) {
		cs->started = true;
		cs->started_at = rte_get_timer_cycles();
	}
}

/* Stop the port (parked), so that the next try_start() connects afresh. */
static void restart(struct consumer *cs)
{
	bool held = cs->park.held;

	if (!held && intr_park_hold(&cs->park, PARK_TIMEOUT_MS) != 0)
		return;
	rte_eth_dev_stop(cs->port);
	if (!held)
		intr_park_release(&cs->park);
	cs->started = false;
}

/*
 * Not connected: start the port when the socket is there, and see whether the handshake
 * (run by memif on the interrupt thread, not parked now) brought the link up. A 22.11 client
 * that is refused or sent away (another client holds the socket, its handshake did not
 * finish in time, the server went away) has its link down for good: it does not try again.
 * (dpdk-rps itself does not refuse a client that connects while it starts: the client waits
 * in the socket's backlog.) So a start that has not connected within CONNECT_TIMEOUT_MS is
 * stopped and tried again.
 */
static void connect_step(struct consumer *cs, const char *sock)
{
	struct rte_eth_link link;
	const uint64_t hz = rte_get_timer_hz();

	if (!cs->started) {
		try_start(cs, sock);
		return;
	}
	if (rte_eth_link_get_nowait(cs->port, &link) == 0 &&
	    link.link_status == RTE_ETH_LINK_UP) {
		cs->link_up = true;
		cs->connects++;
		printf(PROG ": connected to %s\n", sock);
	} else if (rte_get_timer_cycles() - cs->started_at > hz * CONNECT_TIMEOUT_MS / 1000) {
		cs->retries++;
		restart(cs);
	}
}

/*
 * Connected as last seen: park the interrupt thread, read the link again (up, parked: the
 * regions are mapped and stay so), poll for a slice, let it go. Down: the server went away;
 * memif has unmapped everything already, nothing was polled since.
 */
static void poll_slice(struct consumer *cs, const char *sock, uint64_t until)
{
	struct rte_mbuf *pkts[BURST];
	struct rte_eth_link link;

	if (intr_park_hold(&cs->park, PARK_TIMEOUT_MS) != 0)
		return;
	if (rte_eth_link_get_nowait(cs->port, &link) != 0 ||
	    link.link_status != RTE_ETH_LINK_UP) {
		cs->link_up = false;
		printf(PROG ": disconnected from %s (waiting for the server)\n", sock);
		restart(cs);
		intr_park_release(&cs->park);
		return;
	}
	while (!stop_requested) {
		uint16_t n = rte_eth_rx_burst(cs->port, 0, pkts, BURST);

		if (n > 0) {
			count_burst(cs, pkts, n);
			rte_pktmbuf_free_bulk(pkts, n);
		} else if (rte_get_timer_cycles() >= until) {
			break;
		} else {
			rte_pause();
		}
	}
	intr_park_release(&cs->park);
}

static void poll_loop(struct consumer *cs, const struct options *o)
{
	const uint64_t hz = rte_get_timer_hz();
	const uint64_t slice = hz * SLICE_MS / 1000;
	const uint64_t deadline = o->seconds ? rte_get_timer_cycles() + hz * o->seconds
					     : UINT64_MAX;

	while (!stop_requested) {
		uint64_t now = rte_get_timer_cycles();

		if (now >= deadline)
			break;
		if (cs->link_up) {
			poll_slice(cs, o->socket, RTE_MIN(now + slice, deadline));
		} else {
			connect_step(cs, o->socket);
			if (!cs->link_up)
				rte_delay_us_sleep(CONNECT_CHECK_MS * 1000);
		}
	}
}

/* ---- the summary ---- */

static void addr_str(const struct flow_key *k, const uint8_t *a, char *out, size_t len)
{
	if (inet_ntop(k->family == 4 ? AF_INET : AF_INET6, a, out, (socklen_t)len) == NULL)
		snprintf(out, len, "?");
}

static int by_packets_desc(const void *a, const void *b)
{
	const struct flow_entry *x = a, *y = b;

	if (x->c.packets != y->c.packets)
		return x->c.packets < y->c.packets ? 1 : -1;
	if (x->c.bytes != y->c.bytes)
		return x->c.bytes < y->c.bytes ? 1 : -1;
	return memcmp(&x->key, &y->key, sizeof(x->key));
}

/* Every tracked flow, biggest first; *n its length. NULL (with *n 0) when there is none. */
static struct flow_entry *collect_flows(const struct consumer *cs, unsigned int *n)
{
	struct flow_entry *v;
	const void *key;
	void *data;
	uint32_t iter = 0;
	int32_t p;
	unsigned int i = 0;

	*n = 0;
	if (cs->nb_flows == 0)
		return NULL;
	v = calloc(cs->nb_flows, sizeof(*v));
	if (v == NULL)
		return NULL;
	while (i < cs->nb_flows &&
	       (p = rte_hash_iterate(cs->flows, &key, &data, &iter)) >= 0) {
		memcpy(&v[i].key, key, sizeof(v[i].key));
		v[i].c = cs->counts[p];
		i++;
	}
	qsort(v, i, sizeof(*v), by_packets_desc);
	*n = i;
	return v;
}

static void print_summary(const struct consumer *cs, const struct flow_entry *v, unsigned int n,
			  unsigned int top)
{
	printf(PROG ": %" PRIu64 " packets, %" PRIu64 " bytes, %u flows, untracked %" PRIu64
	       " packets (%" PRIu64 " bytes), not IP %" PRIu64 " packets, connected %u time%s, "
	       "bypass requests %" PRIu64 "\n",
	       cs->packets, cs->bytes, cs->nb_flows, cs->untracked_packets,
	       cs->untracked_bytes, cs->other_packets, cs->connects,
	       cs->connects == 1 ? "" : "s", cs->bypass_requests);
	if (top == 0 || n == 0)
		return;
	printf("%-40s %-40s %5s %5s %5s %10s %12s\n", "src", "dst", "proto", "sport", "dport",
	       "packets", "bytes");
	for (unsigned int i = 0; i < n && i < top; i++) {
		char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];

		addr_str(&v[i].key, v[i].key.src, s, sizeof(s));
		addr_str(&v[i].key, v[i].key.dst, d, sizeof(d));
		printf("%-40s %-40s %5u %5u %5u %10" PRIu64 " %12" PRIu64 "\n", s, d,
		       v[i].key.proto, v[i].key.sport, v[i].key.dport, v[i].c.packets,
		       v[i].c.bytes);
	}
}

static int write_json(const char *path, const struct consumer *cs, const struct flow_entry *v,
		      unsigned int n)
{
	FILE *f = fopen(path, "w");
	int rc;

	if (f == NULL)
		return -errno;
	fprintf(f, "{\"packets\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"flows\": %u, "
		"\"max_flows\": %u, \"untracked_packets\": %" PRIu64 ", \"untracked_bytes\": %"
		PRIu64 ", \"other_packets\": %" PRIu64 ", \"other_bytes\": %" PRIu64
		", \"connects\": %u, \"connect_retries\": %u, \"bypass_requests\": %" PRIu64
		", \"flow_list\": [",
		cs->packets, cs->bytes, cs->nb_flows, cs->max_flows, cs->untracked_packets,
		cs->untracked_bytes, cs->other_packets, cs->other_bytes, cs->connects,
		cs->retries, cs->bypass_requests);
	for (unsigned int i = 0; i < n; i++) {
		char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];

		addr_str(&v[i].key, v[i].key.src, s, sizeof(s));
		addr_str(&v[i].key, v[i].key.dst, d, sizeof(d));
		fprintf(f, "%s\n  {\"family\": %u, \"src\": \"%s\", \"dst\": \"%s\", "
			"\"proto\": %u, \"sport\": %u, \"dport\": %u, \"packets\": %" PRIu64
			", \"bytes\": %" PRIu64 "}", i ? "," : "", v[i].key.family, s, d,
			v[i].key.proto, v[i].key.sport, v[i].key.dport, v[i].c.packets,
			v[i].c.bytes);
	}
	fprintf(f, "\n]}\n");
	rc = ferror(f) ? -EIO : 0;
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	return rc;
}

/* ---- set-up ---- */

static int port_setup(struct consumer *cs, const char *sock)
{
	struct rte_eth_conf conf;
	char args[PATH_MAX + 64];
	int rc;

	if ((size_t)snprintf(args, sizeof(args), "role=client,socket=%s,id=0,socket-abstract=no",
			     sock) >= sizeof(args)) {
		fprintf(stderr, PROG ": --socket: path too long\n");
		return -ENAMETOOLONG;
	}
	rc = rte_vdev_init(VDEV_NAME, args);
	if (rc < 0) {
		fprintf(stderr, PROG ": cannot create %s,%s: %s\n", VDEV_NAME, args,
			rte_strerror(-rc));
		return rc;
	}
	rc = rte_eth_dev_get_port_by_name(VDEV_NAME, &cs->port);
	if (rc < 0)
		return rc;
	cs->pool = rte_pktmbuf_pool_create("consumer_pool", NB_MBUFS, 256, 0,
					   RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (cs->pool == NULL) {
		fprintf(stderr, PROG ": mbuf pool: %s\n", rte_strerror(rte_errno));
		return -rte_errno;
	}
	/* one RX queue, and the TX queue memif pairs with it (never used) */
	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_configure(cs->port, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(cs->port, 0, NB_DESC, (unsigned int)rte_socket_id(),
					    NULL, cs->pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(cs->port, 0, NB_DESC, (unsigned int)rte_socket_id(),
					    NULL);
	if (rc < 0)
		fprintf(stderr, PROG ": port %s: %s\n", VDEV_NAME, rte_strerror(-rc));
	return rc;
}

static int flows_setup(struct consumer *cs, unsigned int max_flows)
{
	struct rte_hash_parameters hp = {
		.name = "consumer_flows",
		.entries = max_flows,
		.key_len = sizeof(struct flow_key),
		.hash_func = rte_jhash,
		.socket_id = (int)rte_socket_id(),
		/* the table holds max_flows keys whatever their hashes */
		.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};

	cs->max_flows = max_flows;
	cs->flows = rte_hash_create(&hp);
	cs->counts = rte_zmalloc("consumer_counts", sizeof(*cs->counts) * max_flows, 0);
	if (cs->flows == NULL || cs->counts == NULL) {
		fprintf(stderr, PROG ": flow table of %u flows: %s\n", max_flows,
			rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct consumer cs = { 0 };
	struct options o;
	struct flow_entry *v;
	struct sigaction sa;
	unsigned int n;
	int rc, eal, sep;
	char *none[] = { argv[0], NULL };

	setvbuf(stdout, NULL, _IOLBF, 0);  /* the connection lines reach a log at once */
	/* the options first, without EAL: --help and a bad option cost nothing (no hugepages,
	 * no runtime directory); --help with no "--" too, before EAL takes it for its own */
	sep = find_separator(argc, argv);
	if (sep == argc && want_help(argc, argv)) {
		usage(stdout);
		return 0;
	}
	if (sep < argc) {
		argv[sep] = argv[0]; /* the consumer's argv[0]; EAL sees argv[0..sep) */
		rc = parse_args(argc - sep, argv + sep, &o);
	} else {
		rc = parse_args(1, none, &o);
	}
	if (rc != 0) {
		if (rc < 0)
			usage(stderr);
		return rc < 0 ? 2 : 0;
	}
	eal = rte_eal_init(sep, argv);
	if (eal < 0) {
		fprintf(stderr, PROG ": EAL: %s\n", rte_strerror(rte_errno));
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	cs.bypass_after = o.bypass_after;
	if (flows_setup(&cs, o.max_flows) < 0 || port_setup(&cs, o.socket) < 0) {
		rte_eal_cleanup();
		return 1;
	}
	rc = intr_park_init(&cs.park);
	if (rc < 0) {
		fprintf(stderr, PROG ": interrupt thread park: %s\n", rte_strerror(-rc));
		rte_eal_cleanup();
		return 1;
	}
	printf(PROG ": waiting for the server at %s\n", o.socket);
	poll_loop(&cs, &o);

	if (cs.started)
		restart(&cs);   /* the stop, parked */
	intr_park_fini(&cs.park);
	v = collect_flows(&cs, &n);
	print_summary(&cs, v, n, o.top);
	rc = 0;
	if (o.json != NULL) {
		int w = write_json(o.json, &cs, v, n);

		if (w < 0) {
			fprintf(stderr, PROG ": --json %s: %s\n", o.json, strerror(-w));
			rc = 1;
		}
	}
	free(v);
	rte_eth_dev_close(cs.port);
	rte_hash_free(cs.flows);
	rte_free(cs.counts);
	rte_mempool_free(cs.pool);
	rte_eal_cleanup();
	return rc;
}
