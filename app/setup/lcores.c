/* SPDX-License-Identifier: BSD-3-Clause */
/* lcores.c: who does what, checked against the lcores EAL enabled: the RX lcores, the map's
 * workers, the respond stage's addresses. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_malloc.h>

#include "app.h"
#include "setup.h"

/* The RX lcores (--rx-lcores) and the RX ports (--rx-port), before the map: the main lcore
 * is RX lcore 0 (it runs rps_rx_main()), the others follow in lcore order. */
int
rps_setup_rx_lcores(struct rps_app *app)
{
	struct rps_options *o = &app->opt;
	struct rps_lcoreset enabled;
	uint16_t r = 1;

	if (rps_pairs_rx_ports(app) < 0)
		return -1;
	if (o->nb_rx_ports == 0) { /* none on the command line: the file's or the default */
		o->rx_ports[0] = o->rx_port;
		o->nb_rx_ports = 1;
	}
	o->rx_port = o->rx_ports[0];
	if (!o->rx_lcores_given) {
		memset(&o->rx_lcores, 0, sizeof(o->rx_lcores));
		o->rx_lcores.bits[app->io.rx_lcore / 64] |= UINT64_C(1) << (app->io.rx_lcore % 64);
		snprintf(o->rx_lcores_text, sizeof(o->rx_lcores_text), "%u", app->io.rx_lcore);
	}
	rps_app_enabled_lcores(&enabled);
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++)
		if (rps_lcoreset_has(&o->rx_lcores, l) && !rps_lcoreset_has(&enabled, l)) {
			fprintf(stderr, "dpdk-rps: --rx-lcores %s: lcore %u is not enabled in EAL "
				"(-l/--lcores)\n", o->rx_lcores_text, l);
			return -1;
		}
	if (!rps_lcoreset_has(&o->rx_lcores, app->io.rx_lcore)) {
		fprintf(stderr, "dpdk-rps: --rx-lcores %s: the RX lcores must include the EAL main "
			"lcore (%u)\n", o->rx_lcores_text, app->io.rx_lcore);
		return -1;
	}
	app->lc.nb_rx = (uint16_t)rps_lcoreset_count(&o->rx_lcores);
	app->lc.rx = rte_zmalloc("rps_rx_lcores", sizeof(*app->lc.rx) * app->lc.nb_rx,
			      RTE_CACHE_LINE_SIZE);
	if (app->lc.rx == NULL) {
		fprintf(stderr, "dpdk-rps: out of memory\n");
		return -1;
	}
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++) {
		struct rps_rx_lcore *rx;

		if (!rps_lcoreset_has(&o->rx_lcores, l))
			continue;
		rx = l == app->io.rx_lcore ? &app->lc.rx[0] : &app->lc.rx[r++];
		rx->index = (uint16_t)(rx - app->lc.rx);
		rx->self.app = app;
		rx->self.lcore = l;
		rx->self.txq = 0;
	}
	return 0;
}

/* The map against the lcores EAL actually enabled. */
int
rps_setup_check_map(struct rps_app *app)
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
	if (app->lc.nb_rx > 1 && rps_lcoreset_count(&o->map) == 0) {
		fprintf(stderr, "dpdk-rps: --rx-lcores %s: several RX lcores need workers (not "
			"--map 0, where the RX lcore processes)\n", o->rx_lcores_text);
		return -1;
	}
	return 0;
}

/* The respond stage needs an address to answer for. */
int
rps_setup_check_respond(struct rps_app *app)
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

int
rps_setup_check_elephants(const struct rps_app *app)
{
	const struct rps_options *o = &app->opt;

	if (o->elephant_rate == 0) {
		if (o->elephant_action != RPS_ELEPHANT_NONE) {
			fprintf(stderr, "dpdk-rps: --elephant-action: needs --elephant-rate "
				"(elephant_rate): nothing is marked an elephant without it\n");
			return -1;
		}
		return 0;
	}
	if (!rps_pipeline_has(&app->pipeline, RPS_STAGE_FLOW)) {
		fprintf(stderr, "dpdk-rps: --elephant-rate %u: --stages %s has no flow stage: "
			"nothing measures a flow's rate\n", o->elephant_rate, o->stages_text);
		return -1;
	}
	if (o->elephant_action == RPS_ELEPHANT_BYPASS && o->consumers == 0) {
		fprintf(stderr, "dpdk-rps: --elephant-action bypass: only with --consumers K "
			"(K > 0): an elephant bypasses the consumers\n");
		return -1;
	}
	if (o->elephant_action == RPS_ELEPHANT_ISOLATE && !o->reorder_safe) {
		fprintf(stderr, "dpdk-rps: --elephant-action isolate: needs --reorder-safe on "
			"(a bucket moved without it may reorder its flows)\n");
		return -1;
	}
	return 0;
}

/* Whether two EAL lcores may run on one CPU (--lcores '(1-4)@1', or more lcores than CPUs):
 * then one can be preempted by another in the middle of a ring update. */
int
rps_lcores_share_cpus(void)
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
