/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * consumers.c: --consumers, set up. K net_memif ports in server role, one per consumer, at
 * the paths of --consumer-socket, each with one queue pair; worker w feeds consumer w mod K,
 * on that queue when it is the only one, through the consumer's share (a multi-producer ring
 * in front of the queue, rps_stage.h) when several workers feed it (docs/consumers.md). The checks name the option at fault; the control thread's look at
 * each consumer's client and the per-consumer sums are in control/consumers.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "app.h"
#include "setup.h"

#define ORIGIN_MAX (PATH_MAX + 64) /* "FILE:LINE: key =" */
#define WAIT_POLL_US 10000u
/* A memif server has no slot to send into until its client's first receive poll posts
 * buffers (the client's refill), which comes a moment after the connection: the wait holds
 * RX this much longer once every consumer is connected. */
#define WAIT_SETTLE_US 250000u

/* Where setting @p id came from, for a message: "--consumers", or "FILE:LINE: consumers ="
 * (@p eq, else "FILE:LINE: consumers") when the file set it and the command line did not. */
static const char *
origin(const struct rps_app *app, enum rps_setting_id id, int eq, char *buf, size_t len)
{
	const struct rps_setting *s = &rps_settings[id];

	if (app->start_cfg != NULL && app->start_cfg->line[id] != 0 &&
	    !rps_options_given(&app->opt, s->flag))
		snprintf(buf, len, "%s:%d: %s%s", app->opt.config_path,
			 app->start_cfg->line[id], s->key, eq ? " =" : "");
	else
		snprintf(buf, len, "--%s", s->flag);
	return buf;
}

/* Options that make no sense without --consumers. */
static int
check_off(const struct rps_app *app)
{
	static const enum rps_setting_id needs[] = {
		RPS_SET_CONSUMER_SOCKET, RPS_SET_CONSUMER_WAIT
	};
	char from[ORIGIN_MAX];

	for (size_t i = 0; i < RTE_DIM(needs); i++)
		if (rps_options_given(&app->opt, rps_settings[needs[i]].flag) ||
		    (app->start_cfg != NULL && app->start_cfg->line[needs[i]] != 0)) {
			fprintf(stderr, "dpdk-rps: %s: only with --consumers K or consumers = K "
				"(K > 0)\n", origin(app, needs[i], 0, from, sizeof(from)));
			return -1;
		}
	return 0;
}

int
rps_consumers_check(struct rps_app *app)
{
	struct rps_options *o = &app->opt;
	const unsigned int k = o->consumers;
	const unsigned int nw = rps_lcoreset_count(&o->map);
	const char *why, *kt = o->consumers_text;
	char from[ORIGIN_MAX], sfrom[ORIGIN_MAX];
	uint16_t base = 0;

	if (k == 0)
		return check_off(app);
	origin(app, RPS_SET_CONSUMERS, 1, from, sizeof(from));
	origin(app, RPS_SET_CONSUMER_SOCKET, 1, sfrom, sizeof(sfrom));
	if (nw == 0) {
		fprintf(stderr, "dpdk-rps: %s %s: the workers feed the consumers and "
			"--map %s has none\n", from, kt, o->map_text);
		return -1;
	}
	for (uint16_t g = 0; g < o->consumer_groups; g++) {
		const unsigned int kg = o->group_size[g];

		if (kg <= nw)
			continue;
		if (o->consumer_groups == 1)
			fprintf(stderr, "dpdk-rps: %s %s: more consumers than workers (%u): "
				"worker w feeds consumer w mod %u, so consumer %u would receive "
				"nothing; at most %u\n", from, kt, nw, kg, nw, nw);
		else
			fprintf(stderr, "dpdk-rps: %s %s: group %u has more consumers (%u) than "
				"workers (%u): worker w feeds consumer w mod %u of each group, so "
				"some would receive nothing; at most %u a group\n", from, kt, g, kg,
				nw, kg, nw);
		return -1;
	}
	if (o->tx_port >= 0) {
		fprintf(stderr, "dpdk-rps: %s %s: the consumers take what the workers "
			"processed in place of --tx-port %d: give one or the other\n", from, kt,
			o->tx_port);
		return -1;
	}
	if (!rps_pipeline_has(&app->pipeline, RPS_STAGE_OUTPUT)) {
		fprintf(stderr, "dpdk-rps: %s %s: --stages %s has no output stage: "
			"nothing would reach the consumers\n", from, kt, o->stages_text);
		return -1;
	}
	if (o->consumer_socket[0] == '\0') {
		snprintf(o->consumer_socket, sizeof(o->consumer_socket), "%s/consumer-%%u.sock",
			 rte_eal_get_runtime_dir());
		if (rps_consumer_socket_check(o->consumer_socket, k, &why) < 0) {
			fprintf(stderr, "dpdk-rps: %s %s: the default socket path in EAL's "
				"runtime directory (%s): %s; give --consumer-socket\n", from, kt,
				o->consumer_socket, why);
			return -1;
		}
	} else if (rps_consumer_socket_check(o->consumer_socket, k, &why) < 0) {
		fprintf(stderr, "dpdk-rps: %s %s: %s\n", sfrom, o->consumer_socket, why);
		return -1;
	}
	app->nb_consumers = (uint16_t)k;
	app->nb_groups = o->consumer_groups;
	for (uint16_t g = 0; g < o->consumer_groups; g++) {
		app->group_base[g] = base;
		app->group_size[g] = o->group_size[g];
		for (uint16_t j = 0; j < o->group_size[g]; j++) {
			app->consumers[base + j].group = g;
			app->consumers[base + j].member = j;
		}
		base = (uint16_t)(base + o->group_size[g]);
	}
	for (unsigned int c = 0; c < k; c++) {
		struct rps_consumer *cs = &app->consumers[c];
		const unsigned int kg = app->group_size[cs->group], j = cs->member;

		/* the template was checked: one %u, no other conversion */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(cs->path, sizeof(cs->path), o->consumer_socket, c);
#pragma GCC diagnostic pop
		snprintf(cs->name, sizeof(cs->name), "net_memif_rpsc%u", c);
		/* Workers c, c + K, c + 2K ... over ONE queue pair, shared when there are
		 * several: DPDK 22.11's memif server cannot see how many queues its client
		 * opened (a send on one it did not open goes through a queue never set up:
		 * region 0, offset 0, the client's own ring), while a client that opens more
		 * than the server has is disconnected ("Invalid ring index"). With one, a
		 * client opens exactly it or is refused. */
		cs->feeders = (uint16_t)((nw - j + kg - 1) / kg);
		cs->nb_queues = 1;
	}
	return 0;
}

int
rps_consumers_create(struct rps_app *app)
{
	for (uint16_t c = 0; c < app->nb_consumers; c++) {
		struct rps_consumer *cs = &app->consumers[c];
		char args[RPS_CONSUMER_PATH_MAX + 96];
		int rc;

		/* copies, not zero-copy (the client reads our pool otherwise); a socket file,
		 * not an abstract one (22.11's default), so that it is where the docs say */
		size_t len = strnlen(cs->path, sizeof(cs->path) - 2); /* checked: fits with "~" */

		memcpy(cs->bind_path, cs->path, len);
		memcpy(cs->bind_path + len, "~", 2);
		snprintf(args, sizeof(args), "id=0,role=server,socket=%s,socket-abstract=no,"
			 "zero-copy=no", cs->bind_path);
		rc = rte_vdev_init(cs->name, args);
		if (rc == 0)
			rc = rte_eth_dev_get_port_by_name(cs->name, &cs->port);
		if (rc < 0) {
			fprintf(stderr, "dpdk-rps: --consumers: consumer %u: cannot create its memif "
				"server at %s (%s): is the directory there and writable, the path "
				"not in use by another process (a stale socket left by one that "
				"crashed: remove it)? See memif's messages above\n", c,
				cs->bind_path, rte_strerror(-rc));
			return -RPS_EXIT_USAGE;
		}
		if (cs->feeders > 1) {
			char ring[RTE_RING_NAMESIZE];

			snprintf(ring, sizeof(ring), "rps_share_%u", c);
			rc = rps_share_init(&cs->share, ring, cs->port, 0, cs->feeders,
					    app->opt.burst, (int)rte_socket_id());
			if (rc < 0) {
				fprintf(stderr, "dpdk-rps: --consumers: consumer %u: cannot create "
					"its ring: %s\n", c, rte_strerror(-rc));
				return -RPS_EXIT_RUNTIME;
			}
		}
		RPS_LOG(INFO, "consumer %u: memif server at %s (port %u), fed by %u worker(s)%s: "
			"its client opens 1 RX queue", c, cs->path, cs->port, cs->feeders,
			cs->feeders > 1 ? " through one shared queue" : "");
	}
	return 0;
}

/*
 * A memif server's socket listens from its vdev's probe, but the server refuses every
 * client ("ID not found") until its port is started, and a 22.11 client that was refused
 * does not try again (dpdk-testpmd stays down for good): a consumer that connected between
 * the two would never get a packet. So memif binds the socket at PATH~ and it appears at
 * PATH, by one rename, only once every port is started. RENAME_NOREPLACE: a PATH that
 * exists (another dpdk-rps serving it, or a stale socket) is refused, as a bind would be.
 */
int
rps_consumers_publish(struct rps_app *app)
{
	for (uint16_t c = 0; c < app->nb_consumers; c++) {
		struct rps_consumer *cs = &app->consumers[c];

		if (renameat2(AT_FDCWD, cs->bind_path, AT_FDCWD, cs->path, RENAME_NOREPLACE) < 0) {
			fprintf(stderr, "dpdk-rps: --consumers: consumer %u: cannot put its socket "
				"at %s (%s)%s\n", c, cs->path, strerror(errno), errno == EEXIST ?
				": in use by another process, or a stale socket left by one that "
				"crashed (remove it)" : "");
			return -RPS_EXIT_USAGE;
		}
		cs->published = 1;
	}
	return 0;
}

/* At exit, after the ports closed: memif removed PATH~, which is gone; PATH is ours. */
void
rps_consumers_unpublish(struct rps_app *app)
{
	for (uint16_t c = 0; c < app->nb_consumers; c++) {
		struct rps_consumer *cs = &app->consumers[c];

		if (cs->published && unlink(cs->path) < 0 && errno != ENOENT)
			RPS_LOG(WARNING, "consumer %u: cannot remove its socket %s: %s", c,
				cs->path, strerror(errno));
		cs->published = 0;
	}
}

/* Whether consumer @p c has a client now. */
static int
consumer_up(const struct rps_consumer *c)
{
	struct rte_eth_link link;

	return rte_eth_link_get_nowait(c->port, &link) == 0 &&
	       link.link_status == RTE_ETH_LINK_UP;
}

void
rps_consumers_wait(struct rps_app *app)
{
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t end = rte_rdtsc() + (uint64_t)app->opt.consumer_wait_ms * hz / 1000;
	char missing[256];

	if (app->nb_consumers == 0 || app->opt.consumer_wait_ms == 0)
		return;
	for (;;) {
		size_t len = 0;
		unsigned int nb = 0;

		missing[0] = '\0';
		for (uint16_t c = 0; c < app->nb_consumers; c++)
			if (!consumer_up(&app->consumers[c])) {
				nb++;
				if (len < sizeof(missing))
					len += (size_t)snprintf(missing + len, sizeof(missing) - len,
								"%s%u", len ? "," : "", c);
			}
		if (nb == 0) {
			rte_delay_us_sleep(WAIT_SETTLE_US);
			RPS_LOG(INFO, "every consumer is connected");
			return;
		}
		if (rte_rdtsc() >= end || __atomic_load_n(&app->quit, __ATOMIC_RELAXED)) {
			RPS_LOG(WARNING, "--consumer-wait %u: consumer(s) %s still not connected: "
				"their packets are dropped (consumer_absent) until they are",
				app->opt.consumer_wait_ms, missing);
			return;
		}
		rte_delay_us_sleep(WAIT_POLL_US);
	}
}
