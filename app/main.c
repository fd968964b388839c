/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * main.c: dpdk-rps. EAL and options, port and backlog set-up, launching the workers and the
 * RX loop, signals, and the exit summary. Policy and messages live here; mechanism in lib/.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <numa.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_random.h>
#include <rte_version.h>

#include "app.h"
#include "outfile.h"
#include "rps_flow.h"
#include "rps_numa.h"
#include "rps_port.h"
#include "rps_budget.h"
#include "rps_reasm.h"
#include "rps_settings.h"

RTE_LOG_REGISTER(rps_logtype, rps, INFO);

#define EXIT_USAGE 2
#define EXIT_RUNTIME 1
#define RX_DESC 1024
#define TX_DESC 1024
#define MIN_POOL 16384u
#define MAX_POOL (1u << 26) /* as --mbufs */
#define INDIRECT_POOL 8191u /* references of re-fragmented output in flight, all workers */

static struct rps_app *signal_app; /* the one thing the signal handler may touch */

/*
 * Signals are taken from the first line of main(), before EAL or anything else runs, so
 * that none arriving during start-up has its default action (SIGHUP's kills the process) or
 * is lost (a shell's background job inherits SIGINT ignored; installing the handler late
 * dropped a SIGINT that came first). The handler only records: SIGHUP sets
 * reload_requested, which the control thread takes up once it runs (a SIGHUP during start-up
 * is applied when ready); SIGINT and SIGTERM set quit, which every start-up step and the RX
 * loop check. SA_RESTART keeps EAL's system calls from failing with EINTR.
 */
static void
on_signal(int sig)
{
	if (signal_app == NULL)
		return;
	if (sig == SIGHUP) {
		int saved = errno;
		uint64_t one = 1;

		__atomic_store_n(&signal_app->reload_requested, 1, __ATOMIC_RELAXED);
		/* wake the control thread now rather than at its next tick */
		if (signal_app->wake_fd >= 0 && write(signal_app->wake_fd, &one, sizeof(one)) < 0)
			errno = saved;
		errno = saved;
	} else {
		__atomic_store_n(&signal_app->quit_signal, sig, __ATOMIC_RELAXED);
		__atomic_store_n(&signal_app->quit, 1, __ATOMIC_RELAXED);
	}
}

static void
take_signals(struct rps_app *app)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (!app->wake_made) {
		app->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		app->wake_made = 1;
	}
	signal_app = app;
	for (unsigned int i = 0; i < RTE_DIM(sigs); i++)
		(void)sigaction(sigs[i], &sa, NULL);
}

static struct rps_app app_storage;

/*
 * The handlers go in before main(), from the executable's .preinit_array: the dynamic loader
 * runs it once every library is mapped and relocated and before any library's constructor,
 * which shortens the window in which a signal still has its default action to the loading of
 * the libraries (a few milliseconds of DPDK's ~100 shared objects). main() installs them
 * again, for a loader that ignores .preinit_array.
 */
static void
preinit_signals(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	(void)envp;
	take_signals(&app_storage);
}

__attribute__((section(".preinit_array"), used))
static void (*const rps_preinit)(int, char **, char **) = preinit_signals;

/* A stop asked for during start-up: say so and by which signal (0: none asked). */
static int
stop_requested(const struct rps_app *app, const char *during)
{
	int sig = __atomic_load_n(&app->quit_signal, __ATOMIC_RELAXED);

	if (!__atomic_load_n(&app->quit, __ATOMIC_RELAXED))
		return 0;
	fprintf(stderr, "dpdk-rps: start-up interrupted by %s during %s: stopping\n",
		sig ? strsignal(sig) : "a stop request", during);
	return 1;
}

/* Split argv at "--": EAL gets what is before, we get what is after. Returns the index of
 * "--" or argc. */
static int
find_separator(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			return i;
	return argc;
}

static int
want_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return 1;
	return 0;
}

/* The hash options once the file is merged: its symmetric and rss_key where the command
 * line did not say, the pair checked (a key from the file against --symmetric-xor, and the
 * reverse), and the Toeplitz key completed: 6d5a x 20 with --symmetric-xor, else a random
 * key drawn now (netdev_rss_key_fill()'s policy: a key no one else knows cannot be aimed
 * at), for the NIC and --hash toeplitz alike. */
static int
apply_hash_options(struct rps_app *app)
{
	struct rps_options *o = &app->opt;
	const struct rps_config *c = app->start_cfg;
	const int sym_given = rps_options_given(o, "symmetric") ||
			      rps_options_given(o, "symmetric-xor");
	int key_from_file = 0;

	if (c != NULL && c->has_symmetric && !sym_given)
		o->symmetric = c->symmetric;
	if (c != NULL && c->has_inner && !rps_options_given(o, "inner"))
		o->inner = c->inner;
	if (c != NULL && c->has_vxlan_port && !rps_options_given(o, "vxlan-port"))
		o->tunnels = c->tunnels;
	if (c != NULL && c->has_rss_key && !rps_options_given(o, "rss-key")) {
		memcpy(o->rss_key, c->rss_key, c->rss_key_len);
		o->rss_key_len = c->rss_key_len;
		key_from_file = 1;
	}
	if (o->symmetric == RPS_SYM_SORT && o->hash_mode == RPS_HASH_RSS) {
		fprintf(stderr, "dpdk-rps: --hash rss with %s: the NIC's RSS hash is not symmetric "
			"under a secret key; use --hash auto (sorted tuple, jhash in software), "
			"--hash toeplitz, or --symmetric-xor (the NIC with a 6d5a key)\n",
			sym_given ? "--symmetric" : "symmetric = on");
		return -1;
	}
	if (o->rss_key_len == 0) {
		if (o->symmetric == RPS_SYM_XOR) {
			memcpy(o->rss_key, rps_toeplitz_symmetric_key, RPS_TOEPLITZ_KEY_LEN);
		} else {
			int rc = rps_toeplitz_key_random(o->rss_key, RPS_TOEPLITZ_KEY_LEN);

			if (rc < 0) {
				fprintf(stderr, "dpdk-rps: no random RSS key (getrandom: %s): give "
					"one with --rss-key\n", strerror(-rc));
				return -1;
			}
			o->rss_key_random = 1;
		}
		o->rss_key_len = RPS_TOEPLITZ_KEY_LEN;
	} else if (o->symmetric == RPS_SYM_XOR &&
		   !rps_toeplitz_key_is_symmetric(o->rss_key, o->rss_key_len)) {
		fprintf(stderr, "dpdk-rps: %s%s: the key is not symmetric but %s asks for a "
			"symmetric key: the key must repeat one 16-bit pattern (6d5a6d5a...), or "
			"leave it out to get 6d5a x 20, or use --symmetric (any key)\n",
			key_from_file ? "rss_key in " : "--rss-key", key_from_file ? o->config_path : "",
			rps_options_given(o, "symmetric-xor") ? "--symmetric-xor" : "symmetric = xor");
		return -1;
	}
	if (o->hash_mode == RPS_HASH_JHASH && (rps_options_given(o, "rss-key") || key_from_file))
		RPS_LOG(WARNING, "--rss-key/rss_key has no effect with --hash jhash (no RSS, no "
			"Toeplitz hash)");
	if (o->symmetric != RPS_SYM_XOR && o->hash_mode != RPS_HASH_JHASH &&
	    rps_toeplitz_key_is_symmetric(o->rss_key, o->rss_key_len))
		RPS_LOG(WARNING, "the RSS key repeats one 16-bit pattern: its Toeplitz hash "
			"depends only on the XOR of the tuple's 16-bit words, so anyone can send "
			"flows that all land on one worker; leave --rss-key out for a random key");
	if (o->symmetric == RPS_SYM_XOR)
		RPS_LOG(WARNING, "--symmetric-xor: the hash depends only on the XOR of the tuple's "
			"16-bit words: anyone can send flows that all land on one worker "
			"(docs/steering-keys.md); --symmetric does not collapse");
	return 0;
}

/* The RX lcores (--rx-lcores) and the RX ports (--rx-port), before the map: the main lcore
 * is RX lcore 0 (it runs rps_rx_main()), the others follow in lcore order. */
static int
setup_rx_lcores(struct rps_app *app)
{
	struct rps_options *o = &app->opt;
	struct rps_lcoreset enabled;
	uint16_t r = 1;

	if (o->nb_rx_ports == 0) { /* none on the command line: the file's or the default */
		o->rx_ports[0] = o->rx_port;
		o->nb_rx_ports = 1;
	}
	if (!o->rx_lcores_given) {
		memset(&o->rx_lcores, 0, sizeof(o->rx_lcores));
		o->rx_lcores.bits[app->rx_lcore / 64] |= UINT64_C(1) << (app->rx_lcore % 64);
		snprintf(o->rx_lcores_text, sizeof(o->rx_lcores_text), "%u", app->rx_lcore);
	}
	rps_app_enabled_lcores(&enabled);
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++)
		if (rps_lcoreset_has(&o->rx_lcores, l) && !rps_lcoreset_has(&enabled, l)) {
			fprintf(stderr, "dpdk-rps: --rx-lcores %s: lcore %u is not enabled in EAL "
				"(-l/--lcores)\n", o->rx_lcores_text, l);
			return -1;
		}
	if (!rps_lcoreset_has(&o->rx_lcores, app->rx_lcore)) {
		fprintf(stderr, "dpdk-rps: --rx-lcores %s: the RX lcores must include the EAL main "
			"lcore (%u)\n", o->rx_lcores_text, app->rx_lcore);
		return -1;
	}
	app->nb_rx = (uint16_t)rps_lcoreset_count(&o->rx_lcores);
	app->rx = rte_zmalloc("rps_rx_lcores", sizeof(*app->rx) * app->nb_rx,
			      RTE_CACHE_LINE_SIZE);
	if (app->rx == NULL) {
		fprintf(stderr, "dpdk-rps: out of memory\n");
		return -1;
	}
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++) {
		struct rps_rx_lcore *rx;

		if (!rps_lcoreset_has(&o->rx_lcores, l))
			continue;
		rx = l == app->rx_lcore ? &app->rx[0] : &app->rx[r++];
		rx->index = (uint16_t)(rx - app->rx);
		rx->self.app = app;
		rx->self.lcore = l;
		rx->self.txq = 0;
	}
	return 0;
}

/* The map against the lcores EAL actually enabled. */
static int
check_map(struct rps_app *app)
{
	struct rps_options *o = &app->opt;
	struct rps_lcoreset enabled;
	unsigned int bad = 0;
	int rc;

	rps_app_enabled_lcores(&enabled);
	if (!o->map_given) {
		/* Default: every enabled lcore but the RX lcores. */
		o->map = enabled;
		for (unsigned int i = 0; i < RPS_LCORESET_WORDS; i++)
			o->map.bits[i] &= ~o->rx_lcores.bits[i];
		rps_lcoreset_format(&o->map, o->map_text, sizeof(o->map_text));
	}
	rc = rps_app_check_workers(app, &o->map, &enabled, &bad);
	if (rc == -EBUSY) {
		fprintf(stderr, "dpdk-rps: --map %s: lcore %u is an RX lcore (the EAL main lcore or "
			"--rx-lcores); workers must be other lcores\n", o->map_text, bad);
		return -1;
	}
	if (rc == -ENODEV) {
		fprintf(stderr, "dpdk-rps: --map %s: lcore %u is not enabled in EAL (-l/--lcores)\n",
			o->map_text, bad);
		return -1;
	}
	if (app->nb_rx > 1 && rps_lcoreset_count(&o->map) == 0) {
		fprintf(stderr, "dpdk-rps: --rx-lcores %s: several RX lcores need workers (not "
			"--map 0, where the RX lcore processes)\n", o->rx_lcores_text);
		return -1;
	}
	if (o->nb_rx_ports > 1 && rps_pipeline_has(&app->pipeline, RPS_STAGE_RESPOND)) {
		fprintf(stderr, "dpdk-rps: --stages %s: the respond stage answers on one RX port; "
			"not with several --rx-port\n", o->stages_text);
		return -1;
	}
	return 0;
}

/* The respond stage needs an address to answer for. */
static int
check_respond(struct rps_app *app)
{
	const struct rps_options *o = &app->opt;
	struct rps_respond_conf *r = &app->respond;

	if (!rps_pipeline_has(&app->pipeline, RPS_STAGE_RESPOND)) {
		if (o->respond_has_ipv4 || o->respond_has_ipv6 || o->udp_echo_port ||
		    rps_options_given(o, "respond-rate") || rps_options_given(o, "respond-burst"))
			RPS_LOG(WARNING, "--respond-ip/--respond-ip6/--udp-echo-port/--respond-rate/"
				"--respond-burst have no effect without the respond stage in --stages");
		return 0;
	}
	if (!o->respond_has_ipv4 && !o->respond_has_ipv6) {
		fprintf(stderr, "dpdk-rps: --stages %s: the respond stage needs --respond-ip or "
			"--respond-ip6\n", o->stages_text);
		return -1;
	}
	r->has_ipv4 = o->respond_has_ipv4;
	r->ipv4 = o->respond_ipv4;
	r->has_ipv6 = o->respond_has_ipv6;
	memcpy(r->ipv6, o->respond_ipv6, 16);
	r->udp_echo_port = o->udp_echo_port;
	r->ipv4_prefix = o->respond_ipv4_prefix;
	r->rate = o->respond_rate;
	r->burst = o->respond_burst;
	return 0;
}

/* The socket most of the map's workers are on (all of them, when the map is sound), as an
 * allocation socket. */
static int
workers_socket(const struct rps_app *app)
{
	unsigned int count[RTE_MAX_NUMA_NODES] = { 0 };
	int best = SOCKET_ID_ANY;

	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++) {
		int s = app->lcore_socket[l];

		if (!rps_lcoreset_has(&app->opt.map, l) || s < 0 || s >= RTE_MAX_NUMA_NODES)
			continue;
		if (++count[s] > (best < 0 ? 0 : count[best]))
			best = s;
	}
	return rps_numa_mem_socket(best);
}

/* RX lcore @p rx's steering context: its row of backlogs, its counters. */
static int
setup_steer(struct rps_app *app, struct rps_rx_lcore *rx)
{
	const struct rps_options *o = &app->opt;
	struct rps_steer_ctx *st = &rx->steer;

	if (rps_steer_init(st, o->hash_mode, app->seed,
			   o->hash_mode == RPS_HASH_JHASH || o->hash_mode == RPS_HASH_TOEPLITZ ||
			   o->inner || !app->rss_hash || o->symmetric == RPS_SYM_SORT,
			   rps_app_backlog(app, rx->index, 0), app->nb_workers,
			   o->burst, &rx->self.stats, rx->self.socket) < 0)
		return -ENOMEM;
	st->symmetric = o->symmetric;
	st->inner = o->inner;
	st->backpressure = o->backpressure >= 0 ? o->backpressure :
		rps_port_is_replay(app->rx_driver);
	st->tunnels = o->tunnels;
	if (rps_toeplitz_init(&st->toeplitz, o->rss_key, o->rss_key_len,
			      RPS_TOEPLITZ_AUTO) < 0)
		return -EINVAL;
	if (o->check_order)
		st->order = &app->order;
	return 0;
}

static int
setup_workers(struct rps_app *app)
{
	const struct rps_options *o = &app->opt;
	uint16_t n = (uint16_t)rps_lcoreset_count(&o->map), i = 0;
	const uint16_t nb_rx = app->nb_rx;
	struct rps_worker *self = RPS_APP_SELF(app);
	unsigned int lcore;
	int rc;

	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++) {
		app->lcore_worker[l] = -1;
		app->lcore_socket[l] = SOCKET_ID_ANY;
	}
	RTE_LCORE_FOREACH(lcore)
		app->lcore_socket[lcore] = (int)rte_lcore_to_socket_id(lcore);
	for (uint16_t r = 0; r < nb_rx; r++)
		app->rx[r].self.socket =
			rps_numa_mem_socket(app->lcore_socket[app->rx[r].self.lcore]);
	app->nb_workers = n;
	if (n > 0) {
		/* One array, because the reports and telemetry index it. Each element is
		 * cache-line aligned and written by its worker only, so its lines stay in that
		 * worker's cache wherever the array is; the array goes where most workers are.
		 * What is large or read per packet (backlog ring, flow table, reassembly table,
		 * TX buffers, flow snapshot) is on each worker's own socket, w->socket. */
		app->workers = rte_zmalloc_socket("rps_workers", sizeof(*app->workers) * n,
						  RTE_CACHE_LINE_SIZE, workers_socket(app));
		/* One array, [nb_rx][n], because each RX lcore's steer context indexes its row
		 * (ctx->backlogs[w]). An RX lcore writes the producer side of every element of
		 * its row on every burst, a worker only its own consumer lines once per burst:
		 * the array is on RX lcore 0's socket, each ring on its worker's. */
		app->backlogs = rte_zmalloc_socket("rps_backlogs",
						   sizeof(*app->backlogs) * n * nb_rx,
						   RTE_CACHE_LINE_SIZE, self->socket);
		if (app->workers == NULL || app->backlogs == NULL)
			return -ENOMEM;
	}
	for (unsigned int l = 0; l < RTE_MAX_LCORE && n > 0; l++) {
		struct rps_worker *w;
		char name[16];

		if (!rps_lcoreset_has(&o->map, l))
			continue;
		w = &app->workers[i];
		w->app = app;
		w->lcore = l;
		w->index = i;
		w->txq = i;
		w->socket = rps_numa_mem_socket(app->lcore_socket[l]);
		w->in.nb = nb_rx;
		w->in.b = rte_zmalloc_socket("rps_worker_in", sizeof(*w->in.b) * nb_rx,
					     RTE_CACHE_LINE_SIZE, w->socket);
		if (w->in.b == NULL)
			return -ENOMEM;
		for (uint16_t r = 0; r < nb_rx; r++) {
			struct rps_backlog *b = rps_app_backlog(app, r, i);

			/* the single RX lcore's ring keeps its name; more: "<rx>_<worker>" */
			if (nb_rx == 1)
				snprintf(name, sizeof(name), "%u", l);
			else
				snprintf(name, sizeof(name), "%u_%u", app->rx[r].self.lcore, l);
			/* its share of the pool may hold fewer than --backlog (setup_ports) */
			rc = rps_backlog_init(b, name, app->backlog_cap, w->socket);
			if (rc == 0 && app->backlog_cap < o->backlog)
				rps_backlog_set_budget_cut(b);
			/* the RX lcore writes the flow-limit state: on its socket; always there,
			 * so that a reload can turn the limit on */
			if (rc == 0)
				rc = rps_backlog_flow_limit_init(b, app->rx[r].self.socket);
			/* the way back: the RX lcore frees from it into its own mempool cache */
			if (rc == 0 && o->recycle)
				rc = rps_backlog_recycle_init(b, name, RPS_RECYCLE_SIZE,
							      app->rx[r].self.socket);
			if (rc < 0)
				return rc;
			w->in.b[r] = b;
		}
		w->backlog = w->in.b[0];
		app->lcore_worker[l] = (int16_t)i;
		i++;
	}
	rc = rps_app_maps_init(app);
	if (rc < 0) /* -EDOM: a map that cannot be built (maps.c said why): a usage error */
		return rc == -EINVAL ? -EDOM : rc;
	/* both modes: /rps/info and the metrics report them, the RX lcore idles too */
	rps_cpu_paths_get(&app->cpu);
	RPS_LOG(INFO, "CPU paths: build %s; Toeplitz %s; idle wait %s; flow hash %s; CPU has: %s",
		app->cpu.build, app->cpu.toeplitz, app->cpu.idle_wait, app->cpu.flow_hash,
		app->cpu.cpu_flags[0] ? app->cpu.cpu_flags : "(none of the optional extensions)");
	if (n == 0)
		return 0; /* no steering: the RX lcore processes */
	if (o->check_order) {
		if (rps_order_init(&app->order, self->socket) < 0)
			return -ENOMEM;
		rps_order_set_queues(&app->order, app->nb_rxq);
		app->order_on = 1;
	}
	for (uint16_t r = 0; r < nb_rx; r++) {
		rc = setup_steer(app, &app->rx[r]);
		if (rc < 0)
			return rc;
	}
	RPS_LOG(INFO, "backpressure %s%s", app->rx[0].steer.backpressure ? "on" : "off",
		o->backpressure >= 0 ? "" : app->rx[0].steer.backpressure ?
		" (auto: a file or ring input)" : " (auto: a NIC: its queue takes the overflow)");
	if (o->inner)
		RPS_LOG(INFO, "--inner: tunnels hashed on their inner header, every hash in "
			"software (%u VXLAN port(s), first %u)", RTE_MAX(o->tunnels.nb_vxlan, 1),
			o->tunnels.nb_vxlan ? o->tunnels.vxlan_port[0] : RPS_INNER_VXLAN_PORT);
	if (o->hash_mode == RPS_HASH_TOEPLITZ)
		RPS_LOG(INFO, "Toeplitz hash in software (%s)%s",
			app->rx[0].steer.toeplitz.gfni ? "GFNI" : "rte_softrss_be",
			o->symmetric == RPS_SYM_XOR ? ", symmetric key" :
			o->symmetric == RPS_SYM_SORT ? ", sorted tuple" : "");
	return 0;
}

/* Where the Toeplitz key came from, for logs: never the key itself (a log may be read by
 * others; the owner reads it from the telemetry socket, /rps/config). */
static const char *
rss_key_source(const struct rps_options *o)
{
	if (o->rss_key_random)
		return "random (drawn at start, secret)";
	if (o->symmetric == RPS_SYM_XOR && !rps_options_given(o, "rss-key") &&
	    memcmp(o->rss_key, rps_toeplitz_symmetric_key, RPS_TOEPLITZ_KEY_LEN) == 0)
		return "6d5a x 20 (symmetric, public)";
	return "configured (--rss-key / rss_key)";
}

/* What the RX port's RSS got: the key and hash types of dpdk-rps's Toeplitz hash, or
 * nothing (a port without RSS, net_pcap: then only the software hash exists). */
static void
report_rss(const struct rps_app *app, uint16_t port, const struct rps_port_info *rxi)
{
	const struct rps_options *o = &app->opt;

	if (o->hash_mode == RPS_HASH_JHASH)
		return;
	if (rxi->rss_hf == 0) {
		RPS_LOG(DEBUG, "port %u (%s) has no RSS: no RSS key or hash types to program",
			port, rxi->driver);
		return;
	}
	if (rxi->rss_key_set) {
		RPS_LOG(INFO, "port %u (%s): RSS key %s (%u bytes) and hash types 0x%" PRIx64
			" programmed%s: the NIC hashes as --hash toeplitz does", port,
			rxi->driver, rss_key_source(o), rxi->rss_key_size, rxi->rss_hf,
			rxi->rss_key_read_back ? " and read back" :
			" (the PMD cannot read them back)");
		return;
	}
	/* the NIC keeps its own key: its hash is not dpdk-rps's Toeplitz hash */
	/* a random key the NIC refused leaves it hashing with its own, perhaps public, key:
	 * worth a warning where its hash steers (auto, rss; not with sorted --symmetric) */
	rte_log(o->symmetric == RPS_SYM_XOR || o->hash_mode == RPS_HASH_TOEPLITZ ||
		rps_options_given(o, "rss-key") ||
		(o->rss_key_random && rxi->rss_hash && o->symmetric != RPS_SYM_SORT) ?
		RTE_LOG_WARNING : RTE_LOG_DEBUG, rps_logtype,
		"RPS: port %u (%s) did not take the RSS key, %s (its key size: %u bytes): its "
		"RSS hash%s differs from dpdk-rps's Toeplitz hash%s\n", port, rxi->driver,
		rss_key_source(o), rxi->rss_key_size,
		o->symmetric == RPS_SYM_XOR ? " is not symmetric and" : "",
		o->rss_key_random ? " and may use a key others know" : "");
}

/* Whether two EAL lcores may run on one CPU (--lcores '(1-4)@1', or more lcores than CPUs):
 * then one can be preempted by another in the middle of a ring update. */
static int
lcores_share_cpus(void)
{
	rte_cpuset_t seen, set, both;
	unsigned int l;

	CPU_ZERO(&seen);
	RTE_LCORE_FOREACH(l) {
		set = rte_lcore_cpuset(l);
		CPU_AND(&both, &seen, &set);
		if (CPU_COUNT(&both) != 0)
			return 1;
		CPU_OR(&seen, &seen, &set);
	}
	return 0;
}

/* Whether the workers transmit on RX port number @p p (in --rx-port's list): --tx-port,
 * or the respond stage answering on the first port. */
static int
workers_send_on(const struct rps_app *app, uint16_t p)
{
	const struct rps_options *o = &app->opt;

	return p == 0 && (o->tx_port == (int)o->rx_ports[p] ||
			  rps_pipeline_has(&app->pipeline, RPS_STAGE_RESPOND));
}

/* The TX queues of RX port number @p p: one per worker when they transmit on it, else one
 * idle queue: dpdk-dumpcap asks for RX and TX capture together and the primary refuses a
 * port without TX queues ("number of tx queues cannot be 0"). */
static uint16_t
rx_port_txq(const struct rps_app *app, uint16_t p, const struct rps_port_info *pi,
	    uint16_t nb_tx)
{
	if (workers_send_on(app, p))
		return nb_tx;
	return pi->max_txq > 0 ? 1 : 0;
}

/* Queue counts the PMD of port @p port cannot start (rps_port_check_queues() said @p err),
 * named by option @p opt: what was asked, the most that works and the way out. @p wtx: the
 * TX queues are the workers' (one each), not one idle queue. */
static void
report_queue_limit(const char *opt, uint16_t port, const struct rps_port_info *pi,
		   uint16_t nq, uint16_t ntx, int wtx, int err)
{
	const char *why = wtx ? " (one TX queue per worker of --map)" : "";
	char name[RTE_ETH_NAME_MAX_LEN] = "";

	(void)rte_eth_dev_get_name_by_port(port, name);
	if (err == -E2BIG) {
		unsigned int most = pi->pair_queues ? pi->max_queues / 2u : pi->max_queues;

		fprintf(stderr, "dpdk-rps: %s %u (%s, PMD %s of %s): at most %u %s work (%u RX + "
			"TX queues; more overflow the PMD's file descriptor array at start and "
			"abort the process); asked: %u RX and %u TX queues%s\n", opt, port, name,
			pi->driver, rte_version(), most,
			pi->pair_queues ? "queue pairs" : "RX + TX queues", pi->max_queues, nq, ntx,
			why);
		if (wtx && ntx > most)
			fprintf(stderr, "dpdk-rps: transmit on it from at most %u workers (--map) "
				"with --rx-queues %u, or transmit on another port\n", most,
				pi->pair_queues ? most : 1u);
		else
			fprintf(stderr, "dpdk-rps: try --rx-queues %u\n",
				pi->pair_queues ? ntx : pi->max_queues - ntx);
	} else if (pi->pair_queues && nq == 0) {
		fprintf(stderr, "dpdk-rps: %s %u (%s, PMD %s): the PMD starts only as many RX "
			"queues as TX queues and a TX-only port has none: transmit on an --rx-port "
			"or another port\n", opt, port, name, pi->driver);
	} else if (pi->pair_queues) {
		fprintf(stderr, "dpdk-rps: %s %u (%s, PMD %s): the PMD starts only as many RX "
			"queues as TX queues; asked: %u RX and %u TX queues%s: try --rx-queues "
			"%u\n", opt, port, name, pi->driver, nq, ntx, why, ntx);
	} else {
		fprintf(stderr, "dpdk-rps: %s %u (%s, PMD %s): at most %u RX and %u TX queues; "
			"asked: %u and %u\n", opt, port, name, pi->driver, pi->max_rxq,
			pi->max_txq, nq, ntx);
	}
}

_Static_assert(RPS_BUDGET_MIN_FRAG == RPS_REASM_MIN_BUDGET, "the planner's reassembly floor");

/* The start-up line: the pool, the RX lcores' reserve and what each worker may hold; a
 * warning when the pool made the limits smaller than asked, or could not keep them at all. */
static void
report_budgets(const struct rps_app *app, const struct rps_pool_budget *b, uint64_t want)
{
	const struct rps_options *o = &app->opt;
	char bl[96] = "";

	if (b->backlogs != 0)
		snprintf(bl, sizeof(bl), "%u backlog ring(s) of %u packets, ", b->backlogs,
			 b->backlog_cap);
	RPS_LOG(INFO, "mbuf pool: %u mbufs%s; the RX lcores keep %u, each of %u %s may hold "
		"%" PRIu64 " (%sreassembly %u, TX ring, bursts and return rings %u)",
		app->pool_size, o->mbufs ? " (--mbufs)" : "", b->reserve, b->workers,
		app->nb_workers ? "workers" : "lcore (no map)", b->share, bl, b->frag_budget,
		b->fixed);
	if (b->overcommit)
		rte_log(RTE_LOG_WARNING, rps_logtype, "RPS: a pool of %u mbufs is below what the "
			"smallest budgets need (%u for the RX lcores, %u per worker and more): "
			"each worker may hold every mbuf, and a stalled or flooded one starve the "
			"RX lcores (rx_nombuf); raise --mbufs to %" PRIu64 "\n", app->pool_size,
			b->reserve, b->fixed, want);
	else if (b->cut)
		rte_log(RTE_LOG_WARNING, rps_logtype, "RPS: a pool of %u mbufs, not the %" PRIu64
			" that --backlog %u and --frag-mbufs %u ask for: each backlog ring cut to "
			"%u packets (what it refuses: mbuf_budget), reassembly to %u mbufs per "
			"worker (frag_evicted); raise --mbufs%s\n", app->pool_size, want,
			o->backlog, b->frag_mbufs, b->backlog_cap, b->frag_budget,
			o->mbufs ? "" : " or give EAL more memory (-m)");
}

static int
setup_ports(struct rps_app *app)
{
	const struct rps_options *o = &app->opt;
	uint16_t nb_tx = app->nb_workers ? app->nb_workers : 1;
	struct rps_port_info rxi, txi, rxi1;
	struct rps_port_req req;
	struct rps_pool_budget bud;
	uint64_t want;
	int rc, socket, shared;

	app->nb_rxq = 0;
	for (uint16_t p = 0; p < o->nb_rx_ports; p++) {
		const uint16_t port = o->rx_ports[p];
		uint16_t nq;

		rc = rps_port_query(port, p == 0 ? &rxi : &rxi1);
		if (rc < 0) {
			fprintf(stderr, "dpdk-rps: --rx-port %u: no such port (%u available; add one "
				"with --vdev or a PCI device)\n", port, rte_eth_dev_count_avail());
			return -EXIT_USAGE;
		}
		if (p > 0 && o->tx_port == (int)port) {
			fprintf(stderr, "dpdk-rps: --tx-port %d: an RX port other than the first; "
				"transmit on the first --rx-port or another port\n", o->tx_port);
			return -EXIT_USAGE;
		}
		if (o->rx_queues > (p == 0 ? &rxi : &rxi1)->max_rxq) {
			fprintf(stderr, "dpdk-rps: --rx-queues %u: port %u (%s) has at most %u RX "
				"queues\n", o->rx_queues, port, (p == 0 ? &rxi : &rxi1)->driver,
				(p == 0 ? &rxi : &rxi1)->max_rxq);
			return -EXIT_USAGE;
		}
		nq = o->rx_queues ? o->rx_queues :
			RTE_MIN((p == 0 ? &rxi : &rxi1)->max_rxq, (uint16_t)RPS_PORT_DEFAULT_MAX_RXQ);
		{
			const struct rps_port_info *pi = p == 0 ? &rxi : &rxi1;
			uint16_t ntx = rx_port_txq(app, p, pi, nb_tx);

			/* a PMD's own rules, before anything is configured: net_tap before
			 * DPDK 24.11 aborts at start past its limit (too many TX queues for
			 * the port: said below, with --tx-port or the respond stage) */
			rc = ntx <= pi->max_txq ? rps_port_check_queues(pi, nq, ntx) : 0;
			if (rc < 0) {
				report_queue_limit("--rx-port", port, pi, nq, ntx,
						   workers_send_on(app, p), rc);
				return -EXIT_USAGE;
			}
		}
		if (app->nb_rxq + nq > RPS_RX_QUEUES_MAX) {
			fprintf(stderr, "dpdk-rps: --rx-port: at most %u RX queues over every port\n",
				RPS_RX_QUEUES_MAX);
			return -EXIT_USAGE;
		}
		for (uint16_t q = 0; q < nq; q++) {
			app->rxq_port[app->nb_rxq] = port;
			app->rxq_queue[app->nb_rxq] = q;
			app->nb_rxq++;
		}
	}
	if (app->nb_rx > app->nb_rxq) {
		fprintf(stderr, "dpdk-rps: --rx-lcores %s: %u RX lcores for %u RX queue(s): each "
			"RX lcore needs a queue (more --rx-queues or fewer RX lcores)\n",
			o->rx_lcores_text, app->nb_rx, app->nb_rxq);
		return -EXIT_USAGE;
	}
	/* (port, queue) pair q to RX lcore q mod nb_rx: a port's queues spread over them */
	for (uint16_t q = 0; q < app->nb_rxq; q++) {
		struct rps_rx_lcore *rx = &app->rx[q % app->nb_rx];

		app->rxq_lcore[q] = rx->index;
		rx->queues[rx->nb_queues++] = q;
	}
	if (o->tx_port >= 0) {
		rc = rps_port_query((uint16_t)o->tx_port, &txi);
		if (rc < 0) {
			fprintf(stderr, "dpdk-rps: --tx-port %d: no such port (%u available)\n",
				o->tx_port, rte_eth_dev_count_avail());
			return -EXIT_USAGE;
		}
		if (txi.max_txq < nb_tx) {
			fprintf(stderr, "dpdk-rps: --tx-port %d: port (%s) has %u TX queues, "
				"one per worker needs %u\n", o->tx_port, txi.driver, txi.max_txq,
				nb_tx);
			return -EXIT_USAGE;
		}
		rc = o->tx_port == (int)o->rx_port ? 0 : rps_port_check_queues(&txi, 0, nb_tx);
		if (rc < 0) {
			report_queue_limit("--tx-port", (uint16_t)o->tx_port, &txi, 0, nb_tx, 1, rc);
			return -EXIT_USAGE;
		}
	}
	app->rx_port_socket = rxi.socket;
	socket = rxi.socket >= 0 ? rxi.socket : (int)rte_socket_id();
	/*
	 * The pool, and each worker's share of it (docs/reassembly-budget.md):
	 *   reserve = RX rings + the RX lcores' bursts (and what backpressure holds)
	 *             + a cache reserve for every lcore (384: a cache of 256 fills to 1.5x):
	 *             what keeps the RX lcores receiving, no worker's to take;
	 *   share   = fixed: the worker's TX ring, its bursts in flight, its return rings
	 *             + RX lcores x --backlog (its backlogs) + --frag-mbufs (reassembly);
	 *   pool    = max(MIN_POOL, reserve + workers x share) by default, or --mbufs.
	 * Without a map the RX lcore is the one "worker" (no backlog, no bursts in flight).
	 * A pool smaller than that (--mbufs, or the default halved for want of memory) cuts
	 * each worker's backlogs and reassembly budget by one factor until reserve + workers x
	 * share fits (rps_pool_budgets()): however slow or flooded, a worker then holds at most its
	 * share (its rings refuse the rest as mbuf_budget, reassembly evicts as frag_evicted)
	 * and the RX lcores always find mbufs.
	 */
	memset(&bud, 0, sizeof(bud));
	bud.workers = nb_tx;
	bud.backlogs = app->nb_workers ? app->nb_rx : 0;
	bud.backlog = o->backlog;
	bud.burst = o->burst;
	bud.frag_mbufs = rps_pipeline_has(&app->pipeline, RPS_STAGE_REASSEMBLE) ?
			 (o->frag_mbufs ? o->frag_mbufs : o->frag_max) : 0;
	bud.reserve = app->nb_rxq * RX_DESC + 2u * RPS_BURST_MAX * app->nb_rx +
		      384u * rte_lcore_count();
	bud.fixed = TX_DESC + (app->nb_workers ? 2u * RPS_BURST_MAX +
			       (o->recycle ? app->nb_rx * RPS_RECYCLE_SIZE : 0) : 0);
	want = bud.reserve + (uint64_t)bud.workers * (bud.fixed +
		(uint64_t)bud.backlogs * bud.backlog + bud.frag_mbufs);
	if (app->pool_size == 0)
		app->pool_size = o->mbufs ? o->mbufs :
				 (uint32_t)RTE_MIN(MAX_POOL, RTE_MAX(MIN_POOL, want));
	shared = lcores_share_cpus();
	if (shared)
		RPS_LOG(INFO, "some lcores share a CPU: the mbuf pool uses ring_mt_rts, which a "
			"preempted lcore cannot stall (one lcore per CPU is still what performs)");
	app->pool = rps_port_pool_create(app->pool_size, socket, shared);
	/* The computed default covers full backlogs; when memory is short, settle for less:
	 * the budgets shrink with it. */
	while (app->pool == NULL && o->mbufs == 0 && rte_errno == ENOMEM &&
	       app->pool_size / 2 >= MIN_POOL) {
		app->pool_size /= 2;
		app->pool = rps_port_pool_create(app->pool_size, socket, shared);
	}
	if (app->pool == NULL) {
		fprintf(stderr, "dpdk-rps: cannot create a pool of %u mbufs on socket %d: %s "
			"(use --mbufs or give EAL more memory with -m)\n", app->pool_size, socket,
			rte_strerror(rte_errno));
		return -EXIT_RUNTIME;
	}
	bud.pool = app->pool_size;
	rps_pool_budgets(&bud);
	app->backlog_cap = bud.backlog_cap;
	app->frag_budget = bud.frag_budget;
	app->worker_share = bud.share;
	app->pool_reserve = bud.reserve;
	report_budgets(app, &bud, want);
	for (uint16_t p = 0; p < o->nb_rx_ports; p++) {
		const uint16_t port = o->rx_ports[p];
		struct rps_port_info *pi = p == 0 ? &rxi : &rxi1;
		uint16_t nq = 0;

		if (p > 0 && rps_port_query(port, pi) < 0)
			return -EXIT_USAGE;
		for (uint16_t q = 0; q < app->nb_rxq; q++)
			nq += app->rxq_port[q] == port;
		memset(&req, 0, sizeof(req));
		req.port_id = port;
		req.nb_rxq = nq;
		req.nb_txq = rx_port_txq(app, p, pi, nb_tx);
		if (req.nb_txq > pi->max_txq) {
			fprintf(stderr, "dpdk-rps: --rx-port %u: port (%s) has %u TX queues; the "
				"respond stage needs one per worker (%u)\n", port, pi->driver,
				pi->max_txq, req.nb_txq);
			return -EXIT_USAGE;
		}
		req.nb_rxd = RX_DESC;
		req.nb_txd = TX_DESC;
		req.want_rss = o->hash_mode != RPS_HASH_JHASH;
		req.rss_key = o->rss_key;
		req.rss_key_len = o->rss_key_len;
		req.pool = app->pool;
		req.tx_mixed = rps_pipeline_has(&app->pipeline, RPS_STAGE_OUTPUT);
		req.mtu = o->mtu;
		rc = rps_port_setup(&req, pi);
		if (rc < 0) {
			fprintf(stderr, "dpdk-rps: --rx-port %u: set-up of %u RX queue(s) failed: "
				"%s\n", port, nq, rte_strerror(-rc));
			if (req.nb_txq > 0 && nq != req.nb_txq)
				fprintf(stderr, "dpdk-rps: some PMDs want as many RX queues as TX "
					"queues (%u here): try --rx-queues %u\n", req.nb_txq,
					req.nb_txq);
			return -EXIT_RUNTIME;
		}
		app->rx_started = p + 1; /* ports 0..p to stop and close */
		/* the NIC's hash is used only when every port delivers one */
		app->rss_hash = p == 0 ? pi->rss_hash : app->rss_hash && pi->rss_hash;
		if (o->hash_mode == RPS_HASH_RSS && !pi->rss_hash)
			RPS_LOG(WARNING, "--hash rss: port %u (%s) does not deliver an RSS hash; "
				"packets without one are hashed in software", port, pi->driver);
		report_rss(app, port, pi);
		RPS_LOG(INFO, "port %u (%s): %u RX queue(s), RSS hash in mbuf: %s, checksums "
			"verified by the port:%s%s%s%s", port, pi->driver, nq,
			pi->rss_hash ? "yes" : "no", pi->rx_cksum ? "" : " none",
			pi->rx_cksum & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM ? " ipv4" : "",
			pi->rx_cksum & RTE_ETH_RX_OFFLOAD_TCP_CKSUM ? " tcp" : "",
			pi->rx_cksum & RTE_ETH_RX_OFFLOAD_UDP_CKSUM ? " udp" : "");
	}
	(void)rte_eth_macaddr_get(o->rx_port, &app->respond.mac);
	snprintf(app->rx_driver, sizeof(app->rx_driver), "%s", rxi.driver);
	if (o->tx_port >= 0 && o->tx_port != (int)o->rx_port) {
		memset(&req, 0, sizeof(req));
		req.port_id = (uint16_t)o->tx_port;
		req.nb_txq = nb_tx;
		req.nb_txd = TX_DESC;
		req.tx_mixed = rps_pipeline_has(&app->pipeline, RPS_STAGE_OUTPUT);
		req.mtu = o->mtu;
		rc = rps_port_setup(&req, &txi);
		if (rc < 0) {
			fprintf(stderr, "dpdk-rps: --tx-port %d: set-up of %u TX queues failed: %s\n",
				o->tx_port, nb_tx, rte_strerror(-rc));
			return -EXIT_RUNTIME;
		}
		app->tx_started = 1;
	}
	if (o->tx_port >= 0 && rps_pipeline_has(&app->pipeline, RPS_STAGE_OUTPUT)) {
		const struct rps_port_info *ti = o->tx_port == (int)o->rx_port ? &rxi : &txi;

		/* what leaves must be sendable: re-fragmented to the MTU (output.c) */
		app->tx_mtu = ti->mtu;
		app->tx_multi_seg = ti->tx_multi_seg;
		app->indirect = rte_pktmbuf_pool_create("rps_indirect", INDIRECT_POOL, 32, 0, 0,
							socket);
		if (app->indirect == NULL)
			RPS_LOG(WARNING, "no pool for re-fragmentation (%s): packets above the "
				"MTU of port %d are dropped as tx_too_big", rte_strerror(rte_errno),
				o->tx_port);
		RPS_LOG(INFO, "port %d (%s) sends: MTU %u%s, multi-segment mbufs %s", o->tx_port,
			ti->driver, ti->mtu, ti->mtu_own ? " (--mtu: the PMD has no MTU to set, "
			"dpdk-rps enforces it on output)" : "",
			ti->tx_multi_seg ? "yes" : "no (copied into one)");
	}
	return 0;
}

/* One processing lcore as EAL and libnuma see it (debug), and what is wrong with it.
 * @p sample: a piece of its own state, to ask the kernel where that really is. */
static void
check_lcore_numa(const struct rps_app *app, const struct rps_worker *w, const char *role,
		 const void *sample)
{
	char cpus[64];
	int eal = app->lcore_socket[w->lcore];
	int node = rps_numa_lcore_node(w->lcore, cpus, sizeof(cpus));
	int mem = sample != NULL ? rps_numa_addr_node(sample) : -ENOENT;
	int here = node >= 0 ? node : eal;

	RPS_LOG(DEBUG, "NUMA: %s lcore %u: cpus %s, EAL socket %d, libnuma node %d; state "
		"asked on socket %d, is on node %d", role, w->lcore, cpus, eal, node, w->socket,
		mem);
	if (node == -EXDEV)
		RPS_LOG(WARNING, "NUMA: %s lcore %u runs on cpus %s of more than one node, so its "
			"memory cannot be local to it: give it the CPUs of one node (--lcores)",
			role, w->lcore, cpus);
	else if (node >= 0 && eal >= 0 && node != eal)
		RPS_LOG(WARNING, "NUMA: %s lcore %u: EAL puts it on socket %d but libnuma puts its "
			"cpus %s on node %d; its state follows EAL", role, w->lcore, eal, cpus,
			node);
	else if (eal >= 0 && w->socket < 0)
		RPS_LOG(WARNING, "NUMA: %s lcore %u is on socket %d, where EAL has no memory "
			"(see --socket-mem): its state lives on another socket", role, w->lcore,
			eal);
	else if (here >= 0 && mem >= 0 && mem != here)
		RPS_LOG(WARNING, "NUMA: %s lcore %u is on node %d but its state is on node %d%s",
			role, w->lcore, here, mem, rte_eal_has_hugepages() ? "" :
			" (without hugepages DPDK cannot place memory by socket: the first thread "
			"to touch a page decides)");
}

/* Where the RX lcore, the port and the workers are, once at start; warnings for every
 * placement that makes packets or backlogs cross sockets. */
static void
report_numa(const struct rps_app *app)
{
	char desc[256], where[32] = "an unknown socket";
	int rx = app->lcore_socket[app->rx_lcore], port = app->rx_port_socket;

	for (uint16_t r = 0; r < app->nb_rx; r++)
		check_lcore_numa(app, &app->rx[r].self, "RX", app->nb_workers > 0 ?
				 (const void *)app->rx[r].steer.groups :
				 (const void *)app->rx[r].self.ctx.flows);
	for (uint16_t i = 0; i < app->nb_workers; i++)
		check_lcore_numa(app, &app->workers[i], "worker", app->workers[i].backlog->ring);
	(void)rps_app_map_sockets(app, &app->opt.map, NULL, desc, sizeof(desc));
	if (port >= 0)
		snprintf(where, sizeof(where), "socket %d", port);
	RPS_LOG(INFO, "NUMA: %d node(s); RX lcore %u on socket %d, port %u on %s; workers: %s",
		numa_available() < 0 ? 1 : numa_num_configured_nodes(), app->rx_lcore, rx,
		app->opt.rx_port, where, app->nb_workers > 0 ? desc : "none");
	if (rx >= 0 && port >= 0 && rx != port)
		RPS_LOG(WARNING, "NUMA: RX lcore %u is on socket %d, its port %u on socket %d: "
			"every packet it steers crosses the interconnect; keep the RX lcore, its "
			"port and each map's workers on one socket", app->rx_lcore, rx,
			app->opt.rx_port, port);
	rps_app_maps_check_numa(app, app->map_sets, "start");
}

/* Stage state of every processing lcore, after the port is up (TX queues exist). */
static int
setup_stages(struct rps_app *app)
{
	/* The RX lcore processes only when there is no map; its TX queue 0 is a worker's
	 * otherwise. */
	int rc = app->nb_workers == 0 ? rps_worker_ctx_init(app, RPS_APP_SELF(app)) : 0;

	for (uint16_t i = 0; rc == 0 && i < app->nb_workers; i++)
		rc = rps_worker_ctx_init(app, &app->workers[i]);
	return rc;
}

/* The flow tables of every processing lcore, read after they stopped. */
static int
write_flows_json(const struct rps_app *app, const char *path)
{
	struct rps_outfile of;
	int n = 0, rc = rps_outfile_open(&of, path);
	FILE *f = of.f;

	if (rc < 0)
		return rc;
	fprintf(f, "{\"flows\": [");
	if (RPS_APP_SELF(app)->ctx.flows != NULL)
		n += rps_flow_table_dump_json(RPS_APP_SELF(app)->ctx.flows, f,
					      RPS_APP_SELF(app)->lcore, n > 0);
	for (uint16_t i = 0; i < app->nb_workers; i++)
		if (app->workers[i].ctx.flows != NULL)
			n += rps_flow_table_dump_json(app->workers[i].ctx.flows, f,
						      app->workers[i].lcore, n > 0);
	fprintf(f, "\n]}\n");
	return rps_outfile_commit(&of);
}

static void
teardown(struct rps_app *app)
{
	rps_metrics_close(app); /* before anything a request reads is freed */
	rps_report_stop(app);
	rps_control_stop(app);
	rps_test_hooks_fini();
	if (app->opt.flows_json != NULL) {
		int frc = write_flows_json(app, app->opt.flows_json);

		if (frc < 0)
			fprintf(stderr, "dpdk-rps: --flows-json %s: %s\n", app->opt.flows_json,
				strerror(-frc));
	}
	/* Flush TX, count fragments still held: before the ports close. A worker still stuck
	 * keeps its state: it may yet touch it. With a telemetry command still running
	 * (rps_telemetry_close() gave up on it) the flow snapshots, ports and backlogs stay:
	 * the command may read any of them. */
	if (app->rx != NULL)
		rps_worker_ctx_fini(RPS_APP_SELF(app), app->tel_stuck);
	for (uint16_t i = 0; app->workers != NULL && i < app->nb_workers; i++)
		if (!app->workers[i].stuck)
			rps_worker_ctx_fini(&app->workers[i], app->tel_stuck);
	/* a stuck worker may still be using the ports: leave them open then */
	/* the RX ports' own counters, summed */
	memset(&app->port_stats, 0, sizeof(app->port_stats));
	for (int p = 0; p < app->rx_started; p++) {
		struct rte_eth_stats ps;

		if (rte_eth_stats_get(app->opt.rx_ports[p], &ps) == 0) {
			app->rx_port_stats[p] = ps;
			app->port_stats.ipackets += ps.ipackets;
			app->port_stats.imissed += ps.imissed;
			app->port_stats.ierrors += ps.ierrors;
			app->port_stats.rx_nombuf += ps.rx_nombuf;
		}
		if (app->workers_stuck == 0 && !app->tel_stuck)
			rps_port_close(app->opt.rx_ports[p]);
	}
	if (app->tx_started && app->workers_stuck == 0 && !app->tel_stuck)
		rps_port_close((uint16_t)app->opt.tx_port);
	for (uint16_t i = 0; app->backlogs != NULL && !app->tel_stuck && i < app->nb_workers; i++)
		for (uint16_t r = 0; !app->workers[i].stuck && r < app->nb_rx; r++)
			rps_backlog_fini(rps_app_backlog(app, r, i));
	rps_health_fini(app);
	if (app->pool != NULL)
		app->pool_in_use_at_exit = (int64_t)rte_mempool_in_use_count(app->pool);
}

static void
release(struct rps_app *app)
{
	for (uint16_t r = 0; app->rx != NULL && r < app->nb_rx; r++)
		rps_steer_fini(&app->rx[r].steer);
	for (uint16_t i = 0; app->workers != NULL && i < app->nb_workers; i++)
		rte_free(app->workers[i].in.b);
	rps_app_maps_fini(app);
	rps_order_fini(&app->order);
	free(app->start_cfg);
	free(app->pps);
	rte_free(app->workers);
	rte_free(app->backlogs);
	rte_free(app->rx);
	rte_mempool_free(app->pool);
	rte_mempool_free(app->indirect);
}

int
main(int argc, char **argv)
{
	struct rps_app *app = &app_storage;
	int sep, ret, rc, app_argc = 1;
	char **app_argv;

	take_signals(app);
	sep = find_separator(argc, argv);
	/* Our options are checked before EAL starts, so a bad command line costs nothing. */
	app_argv = calloc((size_t)argc + 1, sizeof(char *));
	if (app_argv == NULL)
		return EXIT_RUNTIME;
	app_argv[0] = argv[0];
	for (int i = sep + 1; i < argc; i++)
		app_argv[app_argc++] = argv[i];
	/* --help-table FORMAT (hidden): the settings table as the README's and the man pages'
	 * lists (tools/settings_docs.py) */
	if (argc == 3 && strcmp(argv[1], "--help-table") == 0) {
		free(app_argv);
		if (rps_settings_write_doc(stdout, argv[2]) < 0) {
			fprintf(stderr, "dpdk-rps: --help-table %s: expected markdown, mdoc or "
				"mdoc-conf\n", argv[2]);
			return EXIT_USAGE;
		}
		return 0;
	}
	if (want_help(app_argc, app_argv) || (sep == argc && want_help(argc, argv))) {
		rps_options_usage("dpdk-rps", stdout);
		free(app_argv);
		return 0;
	}
	rc = rps_options_parse(app_argc, app_argv, &app->opt, stderr);
	free(app_argv);
	if (rc < 0)
		return EXIT_USAGE;

	if (stop_requested(app, "option parsing"))
		return 0;
	{
		/* EAL binds its sockets (dpdk_telemetry.v2, mp_socket) with the umask's mode:
		 * make them owner-only from birth, not after a chmod, and give the process its
		 * own umask back for what it writes later */
		mode_t um = umask(077);

		umask(um | 077);
		ret = rte_eal_init(sep, argv);
		umask(um);
	}
	if (ret < 0) {
		if (stop_requested(app, "EAL initialisation"))
			return EXIT_RUNTIME;
		fprintf(stderr, "dpdk-rps: EAL initialisation failed: %s\n",
			rte_errno ? rte_strerror(rte_errno) : "(EAL gave no reason: see its log above)");
		return rte_errno == EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	if (stop_requested(app, "EAL initialisation")) {
		rte_eal_cleanup();
		return 0;
	}
	{
		/* the sockets are only as safe as the directory they are in */
		char err[512];

		if (rps_telemetry_check_dir(err, sizeof(err)) < 0) {
			fprintf(stderr, "dpdk-rps: %s\n", err);
			rte_eal_cleanup();
			return EXIT_USAGE;
		}
	}
	rps_test_start_pause();
	app->pool_in_use_at_exit = -1;
	app->rx_lcore = rte_get_main_lcore();
	{
		char err[512];

		if (rps_control_apply_start_config(app, err, sizeof(err)) < 0) {
			fprintf(stderr, "dpdk-rps: --config: %s\n", err);
			rte_eal_cleanup();
			return EXIT_USAGE;
		}
	}
	/* after the file: its hash_seed counts too */
	app->seed = app->opt.seed_given ? app->opt.seed : (uint32_t)rte_rand();
	if (apply_hash_options(app) < 0 ||
	    rps_pipeline_parse(app->opt.stages_text, &app->pipeline, NULL, 0) < 0 ||
	    setup_rx_lcores(app) < 0 || check_map(app) < 0 || check_respond(app) < 0) {
		rte_eal_cleanup();
		return EXIT_USAGE;
	}
	{
		/* before the ports: a port in use costs nothing */
		char err[512];

		if (rps_metrics_open(app, err, sizeof(err)) < 0) {
			if (rps_options_given(&app->opt, "metrics"))
				fprintf(stderr, "dpdk-rps: --metrics %s: %s\n", app->opt.metrics.text,
					err);
			else
				fprintf(stderr, "dpdk-rps: --config: %s: metrics = %s: %s\n",
					app->opt.config_path, app->opt.metrics.text, err);
			rte_eal_cleanup();
			return EXIT_USAGE;
		}
	}

	ret = 0;
	app->nb_workers = (uint16_t)rps_lcoreset_count(&app->opt.map);
	rc = setup_ports(app);
	if (rc == 0) {
		char err[512];

		if (rps_control_check_start_config(app, err, sizeof(err)) < 0) {
			fprintf(stderr, "dpdk-rps: --config: %s\n", err);
			rc = -EXIT_USAGE;
		}
	}
	if (rc == 0) {
		int wrc = setup_workers(app);

		if (wrc == -EDOM) {
			rc = -EXIT_USAGE; /* a map that cannot be built, said by maps.c */
		} else if (wrc < 0) {
			fprintf(stderr, "dpdk-rps: cannot set up %u worker backlogs of %u packets: %s\n",
				app->nb_workers, app->opt.backlog, rte_strerror(rte_errno));
			rc = -EXIT_RUNTIME;
		} else if (setup_stages(app) < 0) {
			fprintf(stderr, "dpdk-rps: cannot set up the stages' state (flow tables of %u "
				"flows, %u fragments): %s\n", app->opt.flow_table_size,
				app->opt.frag_max, rte_strerror(rte_errno));
			rc = -EXIT_RUNTIME;
		}
	}
	if (rc < 0) {
		teardown(app);
		release(app);
		rte_eal_cleanup();
		return -rc;
	}
	report_numa(app);
	if (rps_health_init(app) < 0 || rps_pdump_init(app) < 0) {
		fprintf(stderr, "dpdk-rps: out of memory\n");
		teardown(app);
		release(app);
		rte_eal_cleanup();
		return EXIT_RUNTIME;
	}
	rps_test_hooks_init(app);
	RPS_LOG(INFO, "RX lcore(s) %s, %u worker(s), map %s, hash %s, backlog %u, burst %u",
		app->opt.rx_lcores_text, app->nb_workers, app->opt.map_text,
		rps_hash_mode_name(app->opt.hash_mode), app->opt.backlog, app->opt.burst);
	app->start_tsc = rte_rdtsc();
	for (uint16_t i = 0; i < app->nb_workers; i++) {
		rc = rte_eal_remote_launch(rps_worker_main, &app->workers[i], app->workers[i].lcore);
		if (rc != 0) {
			RPS_LOG(ERR, "cannot launch worker on lcore %u: %s", app->workers[i].lcore,
				rte_strerror(-rc));
			__atomic_store_n(&app->quit, 1, __ATOMIC_RELAXED);
			ret = EXIT_RUNTIME;
		}
	}
	for (uint16_t r = 1; r < app->nb_rx && ret == 0; r++) {
		rc = rte_eal_remote_launch(rps_rx_lcore_main, &app->rx[r], app->rx[r].self.lcore);
		if (rc != 0) {
			RPS_LOG(ERR, "cannot launch RX lcore %u: %s", app->rx[r].self.lcore,
				rte_strerror(-rc));
			__atomic_store_n(&app->quit, 1, __ATOMIC_RELAXED);
			ret = EXIT_RUNTIME;
		}
	}
	if (rps_report_start(app) != 0)
		RPS_LOG(WARNING, "cannot start the live table thread");
	if (rps_control_start(app) != 0)
		RPS_LOG(WARNING, "cannot start the control thread: no reloads, no rates");
	if (rps_telemetry_register(app) != 0)
		RPS_LOG(WARNING, "cannot register the /rps/ telemetry commands");

	/* A stop asked for during start-up: the RX loop ends at once, the workers drain and the
	 * summary follows as after any stop. */
	if (!stop_requested(app, "port and worker set-up")) {
		rps_ready(app);
		rps_metrics_start(app);
	}
	rps_rx_main(app);
	rps_notify("STOPPING=1");
	if (rps_health_wait_workers(app) < 0) {
		/* a worker still stalled: its backlog is counted, the process exits without it */
		RPS_CTR_ADD(RPS_APP_SELF(app)->stats.dropped[RPS_DROP_STRANDED], app->stranded);
		ret = EXIT_RUNTIME;
	}

	if (rps_telemetry_close() < 0) {
		/* a command still running may read anything teardown would free: keep it all */
		app->tel_stuck = 1;
		ret = EXIT_RUNTIME;
	}
	rps_metrics_close(app);
	rps_pdump_fini(app); /* before the ports close: no new capture requests */
	teardown(app);
	rps_report_summary(app, stdout);
	if (app->opt.summary_json != NULL) {
		rc = rps_report_json(app, app->opt.summary_json);
		if (rc < 0) {
			fprintf(stderr, "dpdk-rps: --summary-json %s: %s\n", app->opt.summary_json,
				strerror(-rc));
			ret = EXIT_RUNTIME;
		}
	}
	signal_app = NULL;
	/* a stuck lcore, or a telemetry command still running, may use what release() frees */
	if (app->workers_stuck || app->tel_stuck)
		return ret;
	release(app);
	rte_eal_cleanup();
	return ret;
}
