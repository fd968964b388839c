/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ports.c: dpdk-rps's ports by role (drivers/rps_port.h). The --rx-port list receives (RX;
 * PAIR when the workers send back on it: --tx-port the same port, an inline pair's port, or
 * every RX port with the respond stage, which answers on the port a request came in on),
 * the --tx-port, when another port, sends (TX). Planned before the pool (its size follows
 * the RX queues), started after it; the messages name the option at fault.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_version.h>

#include "app.h"
#include "setup.h"

#define INDIRECT_POOL 8191u /* references of re-fragmented output in flight, all workers */

/* Whether the workers transmit on RX port number @p p (in --rx-port's list): --tx-port, an
 * inline pair's port (any worker may get a packet that entered by its peer: a TX queue per
 * worker), or any RX port with the respond stage (it answers on the port a request came in
 * on). */
static int
workers_send_on(const struct rps_app *app, uint16_t p)
{
	const struct rps_options *o = &app->opt;

	if (rps_fwd_peer(o, o->rx_ports[p]) >= 0)
		return 1;
	return (p == 0 && o->tx_port == (int)o->rx_ports[p]) ||
	       rps_pipeline_has(&app->pipeline, RPS_STAGE_RESPOND);
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

/* Add port @p port with @p role to the list and plan its queues; say what is wrong, named
 * by @p opt, when the port cannot have them. */
static int
plan_port(struct rps_app *app, const char *opt, uint16_t port, enum rps_port_role role,
	  uint16_t nb_senders)
{
	const struct rps_options *o = &app->opt;
	const struct rps_port_plan_conf conf = {
		.rx_queues = o->rx_queues,
		.nb_workers = app->lc.nb_workers ? app->lc.nb_workers : 1,
	};
	struct rps_port_use *u = &app->io.ports[app->io.nb_ports];
	struct rps_port_info *pi = &app->io.port_info[app->io.nb_ports];
	struct rps_port_queues *q = &app->io.port_queues[app->io.nb_ports];
	char hint[96];
	int rc;

	if (rps_port_query(port, pi) < 0) {
		if (rps_port_role_rx(role))
			fprintf(stderr, "dpdk-rps: --rx-port %u: no such port (%u available; add "
				"one with --vdev or a PCI device)\n", port,
				rte_eth_dev_count_avail());
		else
			fprintf(stderr, "dpdk-rps: --tx-port %d: no such port (%u available)\n",
				o->tx_port, rte_eth_dev_count_avail());
		return -RPS_EXIT_USAGE;
	}
	u->port_id = port;
	u->role = role;
	u->nb_senders = nb_senders; /* 0: every worker */
	rc = rps_port_plan(u, pi, &conf, q);
	if (rc == -ERANGE) {
		fprintf(stderr, "dpdk-rps: --rx-queues %u: port %u (%s) has at most %u RX "
			"queues\n", o->rx_queues, port, pi->driver, pi->max_rxq);
	} else if (rc == -ENOSPC && o->tx_port == (int)port) {
		fprintf(stderr, "dpdk-rps: --tx-port %d: port (%s) has %u TX queues, one per "
			"worker needs %u%s\n", o->tx_port, pi->driver, pi->max_txq, q->nb_txq,
			rps_port_txq_hint(pi->driver, q->nb_txq, hint, sizeof(hint)));
	} else if (rc == -ENOSPC && rps_fwd_peer(o, port) >= 0) {
		rps_pairs_report_txq_limit(port, pi, q->nb_txq);
	} else if (rc == -ENOSPC) {
		fprintf(stderr, "dpdk-rps: --rx-port %u: port (%s) has %u TX queues; the respond "
			"stage (--stages %s) answers on every RX port from each worker's own TX "
			"queue there: it needs %u%s; take respond out of --stages, this port out "
			"of --rx-port, or workers out of --map\n", port, pi->driver, pi->max_txq,
			o->stages_text, q->nb_txq,
			rps_port_txq_hint(pi->driver, q->nb_txq, hint, sizeof(hint)));
	} else if (rc < 0) {
		/* a PMD's own rules, before anything is configured: net_tap before DPDK
		 * 24.11 aborts at start past its limit */
		report_queue_limit(opt, port, pi, q->nb_rxq, q->nb_txq, q->workers_tx, rc);
	}
	if (rc < 0)
		return -RPS_EXIT_USAGE;
	app->io.nb_ports++;
	return 0;
}

int
rps_setup_ports_plan(struct rps_app *app)
{
	const struct rps_options *o = &app->opt;
	int rc;

	app->io.nb_rxq = 0;
	app->io.nb_ports = 0;
	for (uint16_t p = 0; p < o->nb_rx_ports; p++) {
		const uint16_t port = o->rx_ports[p];
		const struct rps_port_queues *q = &app->io.port_queues[p];

		if (p > 0 && o->tx_port == (int)port) {
			fprintf(stderr, "dpdk-rps: --tx-port %d: an RX port other than the first; "
				"transmit on the first --rx-port or another port\n", o->tx_port);
			return -RPS_EXIT_USAGE;
		}
		rc = plan_port(app, "--rx-port", port,
			       workers_send_on(app, p) ? RPS_PORT_PAIR : RPS_PORT_RX, 0);
		if (rc < 0)
			return rc;
		if (app->io.nb_rxq + q->nb_rxq > RPS_RX_QUEUES_MAX) {
			fprintf(stderr, "dpdk-rps: --rx-port: at most %u RX queues over every port\n",
				RPS_RX_QUEUES_MAX);
			return -RPS_EXIT_USAGE;
		}
		for (uint16_t i = 0; i < q->nb_rxq; i++) {
			app->io.rxq_port[app->io.nb_rxq] = port;
			app->io.rxq_queue[app->io.nb_rxq] = i;
			app->io.nb_rxq++;
		}
	}
	if (app->lc.nb_rx > app->io.nb_rxq) {
		fprintf(stderr, "dpdk-rps: --rx-lcores %s: %u RX lcores for %u RX queue(s): each "
			"RX lcore needs a queue (more --rx-queues or fewer RX lcores)\n",
			o->rx_lcores_text, app->lc.nb_rx, app->io.nb_rxq);
		return -RPS_EXIT_USAGE;
	}
	/* (port, queue) pair q to RX lcore q mod nb_rx: a port's queues spread over them */
	for (uint16_t q = 0; q < app->io.nb_rxq; q++) {
		struct rps_rx_lcore *rx = &app->lc.rx[q % app->lc.nb_rx];

		app->io.rxq_lcore[q] = rx->index;
		rx->queues[rx->nb_queues++] = q;
	}
	if (o->tx_port >= 0 && o->tx_port != (int)o->rx_port) {
		rc = plan_port(app, "--tx-port", (uint16_t)o->tx_port, RPS_PORT_TX, 0);
		if (rc < 0)
			return rc;
	}
	/* --consumers: an endpoint each of dpdk-rps's memif server (no ethdev port) */
	rc = rps_consumers_create(app);
	if (rc < 0)
		return rc;
	app->io.rx_port_socket = app->io.port_info[0].socket;
	return 0;
}

/* What receiving port @p pi turned out to be, once started. */
static void
report_rx_port(struct rps_app *app, uint16_t i)
{
	const struct rps_options *o = &app->opt;
	const struct rps_port_info *pi = &app->io.port_info[i];
	const uint16_t port = app->io.ports[i].port_id, nq = app->io.port_queues[i].nb_rxq;

	/* the NIC's hash is used only when every port delivers one */
	app->io.rss_hash = i == 0 ? pi->rss_hash : app->io.rss_hash && pi->rss_hash;
	if (o->hash_mode == RPS_HASH_RSS && !pi->rss_hash)
		RPS_LOG(WARNING, "--hash rss: port %u (%s) does not deliver an RSS hash; "
			"packets without one are hashed in software", port, pi->driver);
	rps_setup_report_rss(app, port, pi);
	RPS_LOG(INFO, "port %u (%s): %u RX queue(s), RSS hash in mbuf: %s, checksums "
		"verified by the port:%s%s%s%s", port, pi->driver, nq,
		pi->rss_hash ? "yes" : "no", pi->rx_cksum ? "" : " none",
		pi->rx_cksum & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM ? " ipv4" : "",
		pi->rx_cksum & RTE_ETH_RX_OFFLOAD_TCP_CKSUM ? " tcp" : "",
		pi->rx_cksum & RTE_ETH_RX_OFFLOAD_UDP_CKSUM ? " udp" : "");
}

/* The port the output stage sends on: its MTU, and a pool for re-fragmenting to it. */
static void
setup_output(struct rps_app *app, const struct rps_port_info *ti, int socket)
{
	const struct rps_options *o = &app->opt;

	/* what leaves must be sendable: re-fragmented to the MTU (output.c) */
	app->io.tx_mtu = ti->mtu;
	app->io.tx_multi_seg = ti->tx_multi_seg;
	app->io.indirect = rte_pktmbuf_pool_create("rps_indirect", INDIRECT_POOL, 32, 0, 0, socket);
	if (app->io.indirect == NULL)
		RPS_LOG(WARNING, "no pool for re-fragmentation (%s): packets above the "
			"MTU of port %d are dropped as tx_too_big", rte_strerror(rte_errno),
			o->tx_port);
	RPS_LOG(INFO, "port %d (%s) sends: MTU %u%s, multi-segment mbufs %s", o->tx_port,
		ti->driver, ti->mtu, ti->mtu_own ? " (--mtu: the PMD has no MTU to set, "
		"dpdk-rps enforces it on output)" : "",
		ti->tx_multi_seg ? "yes" : "no (copied into one)");
}

int
rps_setup_ports_start(struct rps_app *app)
{
	const struct rps_options *o = &app->opt;
	const struct rps_port_conf conf = {
		.nb_rxd = RPS_RX_DESC,
		.nb_txd = RPS_TX_DESC,
		.want_rss = o->hash_mode != RPS_HASH_JHASH,
		.rss_key = o->rss_key,
		.rss_key_len = o->rss_key_len,
		.pool = app->io.pool,
		.mtu = o->mtu,
		.tx_mixed = rps_pipeline_has(&app->pipeline, RPS_STAGE_OUTPUT),
		/* an idle RX lcore sleeps on them where the PMD has them (rx_intr.c) */
		.rx_intr = o->idle_sleep_us != 0,
	};
	const int socket = app->io.rx_port_socket >= 0 ? app->io.rx_port_socket : (int)rte_socket_id();

	for (uint16_t i = 0; i < app->io.nb_ports; i++) {
		const struct rps_port_use *u = &app->io.ports[i];
		const struct rps_port_queues *q = &app->io.port_queues[i];
		int rc = rps_port_start(u, q, &conf, &app->io.port_info[i]);

		if (rc < 0 && rps_port_role_rx(u->role)) {
			fprintf(stderr, "dpdk-rps: --rx-port %u: set-up of %u RX queue(s) failed: "
				"%s\n", u->port_id, q->nb_rxq, rte_strerror(-rc));
			if (q->nb_txq > 0 && q->nb_rxq != q->nb_txq)
				fprintf(stderr, "dpdk-rps: some PMDs want as many RX queues as TX "
					"queues (%u here): try --rx-queues %u\n", q->nb_txq,
					q->nb_txq);
		} else if (rc < 0) {
			fprintf(stderr, "dpdk-rps: --tx-port %d: set-up of %u TX queues failed: %s\n",
				o->tx_port, q->nb_txq, rte_strerror(-rc));
		}
		if (rc < 0)
			return -RPS_EXIT_RUNTIME;
		app->io.ports_started = i + 1; /* ports 0..i to stop and close */
		rps_pairs_port_started(app, i);
		if (rps_port_role_rx(u->role)) {
			app->io.rx_started = i + 1;
			report_rx_port(app, i);
		} else {
			app->io.tx_started = 1;
		}
	}
	/* respond answers from the MAC of the port a request came in on: each RX port's own,
	 * read once here, not per packet */
	for (uint16_t i = 0; i < app->io.nb_ports; i++) {
		const uint16_t port = app->io.ports[i].port_id;
		char mac[RTE_ETHER_ADDR_FMT_SIZE];

		if (!rps_port_role_rx(app->io.ports[i].role))
			continue;
		(void)rte_eth_macaddr_get(port, &app->respond.mac[port]);
		if (rps_pipeline_has(&app->pipeline, RPS_STAGE_RESPOND)) {
			rte_ether_format_addr(mac, sizeof(mac), &app->respond.mac[port]);
			RPS_LOG(INFO, "respond: port %u answers from its MAC %s", port, mac);
		}
	}
	snprintf(app->io.rx_driver, sizeof(app->io.rx_driver), "%s", app->io.port_info[0].driver);
	if (rps_pairs_want_indirect(app))
		app->io.indirect = rte_pktmbuf_pool_create("rps_indirect", INDIRECT_POOL, 32, 0, 0,
							socket);
	if (o->tx_port >= 0 && rps_pipeline_has(&app->pipeline, RPS_STAGE_OUTPUT))
		setup_output(app, o->tx_port == (int)o->rx_port ? &app->io.port_info[0] :
			     &app->io.port_info[app->io.nb_ports - 1], socket);
	return 0;
}
