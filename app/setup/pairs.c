/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pairs.c: what --forward A:B does at start, each step called where the set-up it changes
 * happens (hash_options.c, lcores.c, ports.c, worker_loop.c), in that order. An inline pair's
 * two ports both receive, and what one receives leaves by the other (rps_fwd_peer()) from
 * the worker's own TX queue there; sending stays in the output stage (rps_stage_output()).
 */
#include <errno.h>
#include <stdio.h>

#include <rte_cycles.h>

#include "app.h"
#include "setup.h"

/* An inline bump carries both directions of a connection: symmetric steering, unless the
 * command line or the file said, so that one worker's flow stage sees both halves and a
 * remap moves them together. */
void
rps_pairs_symmetric(struct rps_app *app, int sym_given)
{
	struct rps_options *o = &app->opt;
	const struct rps_config *c = app->ctl.start_cfg;

	if (o->nb_fwd > 0 && !sym_given && (c == NULL || !c->has_symmetric)) {
		/* inline pairs: both directions of a connection to one worker, by default keyed
		 * and in software (--symmetric); with --hash rss the NIC's, with a symmetric key */
		o->symmetric = o->hash_mode == RPS_HASH_RSS ? RPS_SYM_XOR : RPS_SYM_SORT;
		RPS_LOG(INFO, "--forward: symmetric steering (%s), both directions of a connection "
			"on one worker", rps_sym_mode_name((enum rps_sym_mode)o->symmetric));
	} else if (o->nb_fwd > 0 && o->symmetric == RPS_SYM_OFF) {
		RPS_LOG(WARNING, "--forward with symmetric = off: the two directions of a connection "
			"may reach different workers, so the flow stage sees each half apart (its TCP "
			"state, the flow table's entries) and a remap may reorder one direction "
			"against the other");
	}
}

/* Default stages for a bump in the wire, unless --stages or the file chose. */
void
rps_pairs_stages(struct rps_app *app)
{
	struct rps_options *o = &app->opt;
	const struct rps_config *c = app->ctl.start_cfg;

	if (o->nb_fwd > 0 && !rps_options_given(o, "stages") && (c == NULL || !c->has_stages)) {
		/* inline: what arrives leaves unchanged (no reassembly re-cutting fragments, no
		 * checksum verdict dropping what the two ends would accept) */
		snprintf(o->stages_text, sizeof(o->stages_text), "parse,flow,output");
		RPS_LOG(INFO, "--forward: stages parse,flow,output (packets leave as they came; "
			"--stages for more)");
	}
}

/* A pair's ports receive like any --rx-port (one list, one plan of RX queues); a pair's
 * port already sends what its peer receives, so it cannot be the --tx-port too. */
int
rps_pairs_rx_ports(struct rps_app *app)
{
	struct rps_options *o = &app->opt;

	/* the ports of the inline pairs (--forward) receive too; alone, they are the RX ports */
	for (uint16_t i = 0; i < o->nb_fwd; i++) {
		const uint16_t pp[2] = { o->fwd[i].a, o->fwd[i].b };

		for (int k = 0; k < 2; k++) {
			uint16_t j = 0;

			while (j < o->nb_rx_ports && o->rx_ports[j] != pp[k])
				j++;
			if (j < o->nb_rx_ports)
				continue;
			if (o->nb_rx_ports == RPS_RX_PORTS_MAX) {
				fprintf(stderr, "dpdk-rps: --forward: at most %u RX ports, the pairs' "
					"included\n", RPS_RX_PORTS_MAX);
				return -1;
			}
			o->rx_ports[o->nb_rx_ports++] = pp[k];
		}
		if (o->tx_port == (int)o->fwd[i].a || o->tx_port == (int)o->fwd[i].b) {
			fprintf(stderr, "dpdk-rps: --tx-port %d: a port of --forward %u:%u sends what "
				"its peer receives; --tx-port is for the RX ports in no pair\n",
				o->tx_port, o->fwd[i].a, o->fwd[i].b);
			return -1;
		}
	}
	return 0;
}

/* -ENOSPC from the plan: the count a pair needs, and the PMD's way to give it
 * (qpairs=N on net_af_packet, a tx_pcap= per queue on net_pcap). */
void
rps_pairs_report_txq_limit(uint16_t port, const struct rps_port_info *pi, uint16_t nb_txq)
{
	char hint[96];

	fprintf(stderr, "dpdk-rps: --forward: port %u (%s) has %u TX queues; an inline "
		"pair needs one per worker on each of its ports: %u%s\n", port, pi->driver,
		pi->max_txq, nb_txq, rps_port_txq_hint(pi->driver, nb_txq, hint, sizeof(hint)));
}

/* Read once the port is started (its MTU is final then): each worker's queue there
 * re-fragments or copies what the port cannot take (rps_txq_set_limits()). */
void
rps_pairs_port_started(struct rps_app *app, uint16_t i)
{
	const struct rps_options *o = &app->opt;

	for (uint16_t k = 0; k < 2 * o->nb_fwd; k++) {
		/* an inline pair's port: what its workers' TX queues must respect */
		const uint16_t port = k % 2 ? o->fwd[k / 2].b : o->fwd[k / 2].a;

		if (port == app->io.ports[i].port_id) {
			app->io.fwd_mtu[k] = app->io.port_info[i].mtu;
			app->io.fwd_multi_seg[k] = app->io.port_info[i].tx_multi_seg;
		}
	}
}

/* Inline pairs only: the pool for re-fragmenting to their MTU (consumers take any length:
 * memif chains it); with --tx-port, the output port's set-up (ports.c) makes it. */
int
rps_pairs_want_indirect(const struct rps_app *app)
{
	const struct rps_options *o = &app->opt;

	return o->nb_fwd > 0 && o->tx_port < 0 &&
	       rps_pipeline_has(&app->pipeline, RPS_STAGE_OUTPUT);
}

/* Each worker sends on its own TX queue (w->txq) on both ports of every pair, as on
 * --tx-port: no lock on the send. */
int
rps_pairs_worker_txqs(const struct rps_app *app, struct rps_worker *w, int socket)
{
	const struct rps_options *o = &app->opt;
	struct rps_stage_ctx *c = &w->ctx;

	if (o->nb_fwd == 0 || !rps_pipeline_has(&app->pipeline, RPS_STAGE_OUTPUT))
		return 0;
	/* inline pairs: its own TX queue on both ports of each; a packet leaves by the
	 * other port of its RX port's pair, from any other port by --tx-port if any */
	for (uint16_t p = 0; p < RTE_MAX_ETHPORTS; p++)
		w->port_txq[p] = c->out_txq;
	for (uint16_t i = 0; i < o->nb_fwd; i++) {
		struct rps_txq *ta = &w->fwd_txq[2 * i], *tb = &w->fwd_txq[2 * i + 1];

		if (rps_txq_init(ta, o->fwd[i].a, w->txq, o->burst, socket, &w->stats) < 0 ||
		    rps_txq_init(tb, o->fwd[i].b, w->txq, o->burst, socket, &w->stats) < 0)
			return -ENOMEM;
		rps_txq_set_limits(ta, app->io.fwd_mtu[2 * i], app->io.fwd_multi_seg[2 * i],
				   app->io.pool, app->io.indirect);
		rps_txq_set_limits(tb, app->io.fwd_mtu[2 * i + 1],
				   app->io.fwd_multi_seg[2 * i + 1], app->io.pool, app->io.indirect);
		w->port_txq[o->fwd[i].a] = tb;
		w->port_txq[o->fwd[i].b] = ta;
	}
	c->port_txq = w->port_txq;
	return 0;
}

/* How long a bucket's move may wait for a worker's inline consumer to return what it
 * holds (rps_backlog_drain_update(): a worker whose consumer has packets not yet read
 * publishes its head of this long ago). */
#define INLINE_HOLD_MS RPS_INLINE_HOLD_MS

/* Consumers in the path with --tx-port and no pair: one direction, the consumer's ring 0;
 * what it returns, what bypasses it and (fail open) what it refuses leave by the TX port
 * from this worker's queue there. Group 0's queue is the one to the consumer: output sends
 * it each packet (with groups, a reference each). */
static int
inline_tx_port(struct rps_app *app, struct rps_worker *w, const struct rps_consumer *k,
	       int socket)
{
	const struct rps_options *o = &app->opt;
	struct rps_txq *q = &w->inl_txq[0], *r = &w->ret_txq[0], *out = &w->out_txq;
	const uint16_t port = (uint16_t)o->tx_port;

	if (rps_txq_init(out, port, w->txq, o->burst, socket, &w->stats) < 0 ||
	    rps_txq_init(q, 0, 0, o->burst, socket, &w->stats) < 0 ||
	    rps_txq_init(r, port, w->txq, o->burst, socket, &w->stats) < 0)
		return -ENOMEM;
	rps_txq_set_limits(out, app->io.tx_mtu, app->io.tx_multi_seg, app->io.pool,
			   app->io.indirect);
	rps_txq_set_limits(r, app->io.tx_mtu, app->io.tx_multi_seg, app->io.pool,
			   app->io.indirect);
	rps_txq_set_returns(r);
	rps_txq_set_memif(q, k->memif);
	rps_txq_set_ring(q, 0);
	rps_txq_set_consumer(q, NULL, app->lc.rx[0].steer.backpressure, &app->life.consumers_stop);
	rps_txq_set_waiting(q, rps_worker_returns_waiting, w);
	if (o->consumer_fail_open && rps_txq_set_fail_open(q, out, socket) < 0)
		return -ENOMEM;
	w->inl_in_port[0] = o->rx_ports[0];
	w->inl_memif = k->memif;
	w->nb_inl = 1;
	w->group_txq[0] = q;
	w->ctx.out_txq = q;
	w->ctx.bypass_txq = out;
	for (uint16_t r2 = 0; r2 < w->in.nb; r2++)
		if (w->in.b[r2]->cons.hold < (uint64_t)INLINE_HOLD_MS * rte_get_tsc_hz() / 1000)
			rps_backlog_drain_init(w->in.b[r2], (uint64_t)INLINE_HOLD_MS *
					       rte_get_tsc_hz() / 1000);
	return 0;
}

int
rps_pairs_worker_inline(struct rps_app *app, struct rps_worker *w, int socket)
{
	const struct rps_options *o = &app->opt;
	const struct rps_consumer *k;

	w->inl_memif = NULL;
	w->nb_inl = 0;
	if (!o->consumer_inline || app->cons.nb_consumers == 0 ||
	    (o->nb_fwd == 0 && o->tx_port < 0) ||
	    !rps_pipeline_has(&app->pipeline, RPS_STAGE_OUTPUT))
		return 0;
	k = &app->cons.consumers[rps_consumer_of(&app->cons, 0, w->index)];
	if (o->nb_fwd == 0)
		return inline_tx_port(app, w, k, socket);
	for (uint16_t p = 0; p < RTE_MAX_ETHPORTS; p++)
		w->inl_port_txq[p] = NULL;
	for (uint16_t i = 0; i < o->nb_fwd; i++) {
		for (uint16_t side = 0; side < 2; side++) {
			/* d = 2i: in by a, out by b (fwd_txq[2i + 1]); d = 2i + 1: the other way */
			const uint16_t d = (uint16_t)(2 * i + side);
			struct rps_txq *out = &w->fwd_txq[2 * i + !side];
			struct rps_txq *q = &w->inl_txq[d], *r = &w->ret_txq[d];

			if (rps_txq_init(q, 0, 0, o->burst, socket, &w->stats) < 0 ||
			    rps_txq_init(r, out->port, w->txq, o->burst, socket, &w->stats) < 0)
				return -ENOMEM;
			rps_txq_set_memif(q, k->memif);
			rps_txq_set_ring(q, d);
			rps_txq_set_consumer(q, NULL, app->lc.rx[0].steer.backpressure,
					     &app->life.consumers_stop);
			/* waiting for room, it takes the consumer's returns */
			rps_txq_set_waiting(q, rps_worker_returns_waiting, w);
			if (o->consumer_fail_open && rps_txq_set_fail_open(q, out, socket) < 0)
				return -ENOMEM;
			rps_txq_set_limits(r, out->mtu, out->multi_seg, app->io.pool, app->io.indirect);
			rps_txq_set_returns(r);
			w->inl_in_port[d] = side ? o->fwd[i].b : o->fwd[i].a;
			w->inl_port_txq[w->inl_in_port[d]] = q;
		}
	}
	w->inl_memif = k->memif;
	w->nb_inl = (uint16_t)(2 * o->nb_fwd);
	w->ctx.inline_txq = w->inl_port_txq;
	/* a bucket moves off this worker once its consumer has taken what it was sent and
	 * returned it, or INLINE_HOLD_MS at most (the reassembly timeout where longer) */
	for (uint16_t r = 0; r < w->in.nb; r++)
		if (w->in.b[r]->cons.hold < (uint64_t)INLINE_HOLD_MS * rte_get_tsc_hz() / 1000)
			rps_backlog_drain_init(w->in.b[r], (uint64_t)INLINE_HOLD_MS *
					       rte_get_tsc_hz() / 1000);
	return 0;
}
