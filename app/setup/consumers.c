/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * consumers.c: --consumers, set up. K endpoints of dpdk-rps's own memif server (rps_memif.h),
 * one per consumer, at the paths of --consumer-socket; worker w feeds consumer w mod K,
 * directly when it is the only one, through the consumer's share (a multi-producer ring in
 * front of the endpoint, rps_stage.h) when several workers feed it (docs/consumers.md). The
 * checks name the option at fault; the per-consumer sums are in control/consumers.c.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ring.h>

#include "app.h"
#include "rps_memif.h"
#include "rps_safepath.h"
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

	if (app->ctl.start_cfg != NULL && app->ctl.start_cfg->line[id] != 0 &&
	    (s->flag == NULL || !rps_options_given(&app->opt, s->flag)))
		snprintf(buf, len, "%s:%d: %s%s", app->opt.config_path,
			 app->ctl.start_cfg->line[id], s->key, eq ? " =" : "");
	else
		snprintf(buf, len, "--%s", s->flag);
	return buf;
}

/* The group @p name (or number) names. */
static int
consumer_gid(const char *name, gid_t *gid)
{
	const struct group *g = getgrnam(name);
	char *end;
	unsigned long n;

	if (g != NULL) {
		*gid = g->gr_gid;
		return 0;
	}
	errno = 0;
	n = strtoul(name, &end, 10);
	if (errno != 0 || *end != '\0' || end == name || n >= (gid_t)-1)
		return -1;
	*gid = (gid_t)n;
	return 0;
}

/* Options that make no sense without --consumers. */
static int
check_off(const struct rps_app *app)
{
	static const enum rps_setting_id needs[] = {
		RPS_SET_CONSUMER_SOCKET, RPS_SET_CONSUMER_WAIT, RPS_SET_CONSUMER_GROUP,
		RPS_SET_CONSUMER_SECRET, RPS_SET_CONSUMER_MODE, RPS_SET_CONSUMER_FAIL,
		RPS_SET_BYPASS_AFTER, RPS_SET_CONSUMER_FILTER
	};
	char from[ORIGIN_MAX];

	for (size_t i = 0; i < RTE_DIM(needs); i++)
		if ((rps_settings[needs[i]].flag != NULL &&
		     rps_options_given(&app->opt, rps_settings[needs[i]].flag)) ||
		    (app->ctl.start_cfg != NULL && app->ctl.start_cfg->line[needs[i]] != 0)) {
			fprintf(stderr, "dpdk-rps: %s: only with --consumers K or consumers = K "
				"(K > 0)\n", origin(app, needs[i], 0, from, sizeof(from)));
			return -1;
		}
	return 0;
}

/* --consumer-mode inline: group 0's consumers in the path of inline pairs, one per worker
 * (each worker sends to and takes the returns of its own: a consumer several workers fed
 * would return one flow's packets to whichever of them polled). --consumer-fail without
 * it says nothing. */
static int
inline_check(const struct rps_app *app, const char *from)
{
	const struct rps_options *o = &app->opt;
	const unsigned int nw = rps_lcoreset_count(&o->map);
	char mfrom[ORIGIN_MAX];

	origin(app, RPS_SET_CONSUMER_MODE, 1, mfrom, sizeof(mfrom));
	if (!o->consumer_inline) {
		if ((rps_options_given(o, "consumer-fail") ||
		     (app->ctl.start_cfg != NULL && app->ctl.start_cfg->line[RPS_SET_CONSUMER_FAIL] != 0))) {
			fprintf(stderr, "dpdk-rps: %s: only with --consumer-mode inline (the "
				"consumers are taps: nothing waits for them)\n",
				origin(app, RPS_SET_CONSUMER_FAIL, 0, mfrom, sizeof(mfrom)));
			return -1;
		}
		return 0;
	}
	if (o->nb_fwd == 0 && o->tx_port < 0) {
		fprintf(stderr, "dpdk-rps: %s inline: needs --forward A:B or --tx-port PORT: what "
			"a consumer returns leaves by the pair's other port, or by the TX port\n",
			mfrom);
		return -1;
	}
	for (uint16_t i = 0; o->nb_fwd > 0 && i < o->nb_rx_ports; i++) {
		int paired = 0;

		for (uint16_t k = 0; k < o->nb_fwd; k++)
			paired |= o->rx_ports[i] == o->fwd[k].a || o->rx_ports[i] == o->fwd[k].b;
		if (!paired) {
			fprintf(stderr, "dpdk-rps: %s inline: RX port %u is in no --forward pair: "
				"what its consumer returned would have nowhere to go\n", mfrom,
				o->rx_ports[i]);
			return -1;
		}
	}
	if (o->group_size[0] != nw) {
		fprintf(stderr, "dpdk-rps: %s inline: group 0 has %u consumer(s) for %u workers: "
			"in the path each worker has its own consumer (%s %u%s)\n", mfrom,
			o->group_size[0], nw, from, nw, o->consumer_groups > 1 ? ",..." : "");
		return -1;
	}
	RTE_BUILD_BUG_ON(2 * RPS_FORWARD_MAX > RPS_MEMIF_RINGS_MAX);
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
	if (o->tx_port >= 0 && !(o->consumer_inline && o->nb_fwd == 0)) {
		fprintf(stderr, "dpdk-rps: %s %s: the consumers take what the workers "
			"processed in place of --tx-port %d: give one or the other (or put them in "
			"the path: --consumer-mode inline)\n", from, kt, o->tx_port);
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
	if (inline_check(app, from) < 0)
		return -1;
	if (o->bypass_after != 0 && !rps_pipeline_has(&app->pipeline, RPS_STAGE_FLOW)) {
		fprintf(stderr, "dpdk-rps: %s %u: --stages %s has no flow stage: nothing counts "
			"a flow's bytes\n", origin(app, RPS_SET_BYPASS_AFTER, 1, sfrom, sizeof(sfrom)),
			o->bypass_after, o->stages_text);
		return -1;
	}
	if (o->nb_consumer_secrets > 1 && o->nb_consumer_secrets != k) {
		fprintf(stderr, "dpdk-rps: %s: %u secrets for %u consumers: give one for all, or "
			"one per consumer\n", origin(app, RPS_SET_CONSUMER_SECRET, 0, sfrom,
						     sizeof(sfrom)), o->nb_consumer_secrets, k);
		return -1;
	}
	if (o->consumer_group[0] != '\0' && consumer_gid(o->consumer_group, &app->cons.consumer_gid) < 0) {
		fprintf(stderr, "dpdk-rps: %s %s: no such group\n",
			origin(app, RPS_SET_CONSUMER_GROUP, 1, sfrom, sizeof(sfrom)),
			o->consumer_group);
		return -1;
	}
	app->cons.nb_consumers = (uint16_t)k;
	app->cons.nb_groups = o->consumer_groups;
	for (uint16_t g = 0; g < o->consumer_groups; g++) {
		app->cons.group_base[g] = base;
		app->cons.group_size[g] = o->group_size[g];
		for (uint16_t j = 0; j < o->group_size[g]; j++) {
			app->cons.consumers[base + j].group = g;
			app->cons.consumers[base + j].member = j;
		}
		base = (uint16_t)(base + o->group_size[g]);
	}
	for (unsigned int c = 0; c < k; c++) {
		struct rps_consumer *cs = &app->cons.consumers[c];
		const unsigned int kg = app->cons.group_size[cs->group], j = cs->member;

		/* the template was checked: one %u, no other conversion */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(cs->path, sizeof(cs->path), o->consumer_socket, c);
#pragma GCC diagnostic pop
		/* workers c, c + K, c + 2K ... over the one ring the server offers (HELLO:
		 * one each way), through the consumer's share when there are several */
		cs->feeders = (uint16_t)((nw - j + kg - 1) / kg);
	}
	return 0;
}

/* The folder of @p path is safe: only its owner (root or us) may change what is in it, as
 * the runtime directory. Else why, in @p why. */
static int
folder_safe(const char *path, char *why, size_t len)
{
	char dir[RPS_CONSUMER_PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	return rps_safepath_check(dir, why, len);
}

int
rps_consumers_create(struct rps_app *app)
{
	char why[512];

	if (app->cons.nb_consumers == 0)
		return 0;
	app->cons.memif_hub = rps_memif_hub_create(rps_logtype, "RPS: consumer ");
	if (app->cons.memif_hub == NULL) {
		fprintf(stderr, "dpdk-rps: --consumers: cannot start the memif server: %s\n",
			rte_strerror(rte_errno));
		return -RPS_EXIT_RUNTIME;
	}
	for (uint16_t c = 0; c < app->cons.nb_consumers; c++) {
		struct rps_consumer *cs = &app->cons.consumers[c];
		const struct rps_options *o = &app->opt;
		const int grp = o->consumer_group[0] != '\0';
		const struct rps_memif_conf conf = {
			.path = cs->path, .id = 0,
			.secret = o->nb_consumer_secrets == 0 ? NULL :
				  o->consumer_secret[o->nb_consumer_secrets > 1 ? c : 0],
			.mode = grp ? 0660 : 0600, .gid = grp ? app->cons.consumer_gid : (gid_t)-1,
			.handshake_ms = RPS_MEMIF_HANDSHAKE_MS, .name = "dpdk-rps",
			/* inline, group 0: a ring each way per direction of each pair */
			.rings = o->consumer_inline && cs->group == 0 && o->nb_fwd > 0 ?
				 2 * o->nb_fwd : 1,
			.returns = o->consumer_inline && cs->group == 0,
		};
		int rc;

		/* who may replace the socket may take the consumer's traffic */
		rc = folder_safe(cs->path, why, sizeof(why));
		if (rc < 0) {
			fprintf(stderr, "dpdk-rps: --consumers: consumer %u: its socket %s: %s\n", c,
				cs->path, why[0] ? why : strerror(-rc));
			return -RPS_EXIT_USAGE;
		}
		rc = rps_memif_add(app->cons.memif_hub, &conf, &cs->memif);
		if (rc < 0) {
			fprintf(stderr, "dpdk-rps: --consumers: consumer %u: cannot listen at %s (%s)%s\n",
				c, cs->path, strerror(-rc), rc == -EADDRINUSE ?
				": in use by another process, or a stale socket left by one that "
				"crashed (remove it)" : "");
			return -RPS_EXIT_USAGE;
		}
		if (cs->feeders > 1) {
			char ring[RTE_RING_NAMESIZE];

			snprintf(ring, sizeof(ring), "rps_share_%u", c);
			rc = rps_share_init(&cs->share, ring, 0, 0, cs->feeders, app->opt.burst,
					    (int)rte_socket_id());
			if (rc < 0) {
				fprintf(stderr, "dpdk-rps: --consumers: consumer %u: cannot create "
					"its ring: %s\n", c, rte_strerror(-rc));
				return -RPS_EXIT_RUNTIME;
			}
			cs->share.memif = cs->memif;
		}
		RPS_LOG(INFO, "consumer %u: memif server at %s (mode %s%s%s), fed by %u worker(s)%s%s",
			c, cs->path, grp ? "0660, group " : "0600", grp ? o->consumer_group : "",
			conf.secret != NULL ? ", a secret" : "", cs->feeders,
			cs->feeders > 1 ? " through one shared ring" : "",
			!conf.returns ? "" : o->nb_fwd > 0 ?
			"; in the path: a ring each way per direction of each pair" :
			"; in the path: its returns leave by --tx-port");
	}
	if (app->opt.consumer_inline)
		RPS_LOG(NOTICE, "consumers in the path (--consumer-mode inline): a packet whose "
			"consumer is absent or full is %s", app->opt.consumer_fail_open ?
			"forwarded directly (--consumer-fail open)" :
			"dropped (--consumer-fail closed)");
	return 0;
}

/* Clients are served from here on (they may connect from rps_consumers_create() on, and
 * wait in the socket's backlog till now). After the lcores' QSBR exists: a departed
 * client's memory is unmapped only once every worker has passed a quiescent state. */
int
rps_consumers_publish(struct rps_app *app)
{
	int rc;

	if (app->cons.memif_hub == NULL)
		return 0;
	rc = rps_memif_hub_start(app->cons.memif_hub, app->io.cap_qsbr);
	if (rc < 0) {
		fprintf(stderr, "dpdk-rps: --consumers: cannot start the memif server's thread: "
			"%s\n", strerror(-rc));
		return -RPS_EXIT_RUNTIME;
	}
	return 0;
}

/* At exit, once the workers stopped and before their last flush: no client's memory is
 * unmapped from now on. */
void
rps_consumers_freeze(struct rps_app_consumers *cons)
{
	rps_memif_hub_stop(cons->memif_hub);
}

/* At exit, after the last flush: every client told, unmapped, the sockets removed. */
void
rps_consumers_close(struct rps_app_consumers *cons)
{
	int up[RPS_CONSUMERS_MAX] = { 0 };

	/* the summary says who was connected at the end, and counts those clients gone */
	for (uint16_t c = 0; c < cons->nb_consumers; c++)
		up[c] = cons->consumers[c].memif != NULL && rps_memif_up(cons->consumers[c].memif);
	rps_memif_hub_shutdown(cons->memif_hub);
	for (uint16_t c = 0; c < cons->nb_consumers; c++) {
		struct rps_consumer *cs = &cons->consumers[c];

		if (cs->memif != NULL)
			rps_memif_stats_get(cs->memif, &cs->last);
		cs->last.up = up[c];
		cs->memif = NULL;
	}
	rps_memif_hub_destroy(cons->memif_hub);
	cons->memif_hub = NULL;
}

/* Whether consumer @p c has a client now. */
static int
consumer_up(const struct rps_consumer *c)
{
	return rps_memif_up(c->memif);
}

void
rps_consumers_wait(struct rps_app *app)
{
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t end = rte_rdtsc() + (uint64_t)app->opt.consumer_wait_ms * hz / 1000;
	char missing[256];

	if (app->cons.nb_consumers == 0 || app->opt.consumer_wait_ms == 0)
		return;
	for (;;) {
		size_t len = 0;
		unsigned int nb = 0;

		missing[0] = '\0';
		for (uint16_t c = 0; c < app->cons.nb_consumers; c++)
			if (!consumer_up(&app->cons.consumers[c])) {
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
		if (rte_rdtsc() >= end || __atomic_load_n(&app->life.quit, __ATOMIC_RELAXED)) {
			RPS_LOG(WARNING, "--consumer-wait %u: consumer(s) %s still not connected: "
				"their packets are dropped (consumer_absent) until they are",
				app->opt.consumer_wait_ms, missing);
			return;
		}
		rte_delay_us_sleep(WAIT_POLL_US);
	}
}
