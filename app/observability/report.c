/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report.c: what dpdk-rps tells its user: the live per-worker table (a control thread,
 * never the data path), the exit summary on stdout and the --summary-json file. All of them
 * read the same per-lcore counters through one snapshot, so they cannot disagree.
 */
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "app.h"
#include "outfile.h"

static double
elapsed_s(const struct rps_app_life *life)
{
	uint64_t end = life->stop_tsc ? life->stop_tsc : rte_rdtsc();

	return (double)(end - life->start_tsc) / (double)rte_get_tsc_hz();
}

int
rps_port_to(const struct rps_app *app, uint16_t port)
{
	for (uint16_t i = 0; i < app->opt.nb_fwd; i++) {
		if (app->opt.fwd[i].a == port)
			return app->opt.fwd[i].b;
		if (app->opt.fwd[i].b == port)
			return app->opt.fwd[i].a;
	}
	return app->opt.tx_port >= 0 && rps_pipeline_has(&app->pipeline, RPS_STAGE_OUTPUT) ?
	       app->opt.tx_port : -1;
}

int
rps_port_paired(const struct rps_app *app, uint16_t port)
{
	for (uint16_t i = 0; i < app->opt.nb_fwd; i++)
		if (app->opt.fwd[i].a == port || app->opt.fwd[i].b == port)
			return 1;
	return 0;
}

/* Whether anything was counted for a port of none of the RX ports (slot 0). */
static int
other_port_seen(const struct rps_port_stats *p)
{
	return (p->received | p->processed | p->forwarded | rps_port_dropped_total(p)) != 0;
}

/* Each ingress port, live, when there are several: what it brought and what became of it. */
static void
live_port_flows(const struct rps_app *app, const struct rps_snapshot *cur,
		const struct rps_snapshot *prev, double dt)
{
	if (app->opt.nb_rx_ports < 2)
		return;
	for (uint16_t i = 0; i < app->opt.nb_rx_ports; i++) {
		const uint16_t port = app->opt.rx_ports[i];
		const struct rps_port_stats *c = &cur->total.port[1 + i];
		const int to = rps_port_to(app, port);
		char dir[16] = "";

		if (to >= 0 && rps_port_paired(app, port))
			snprintf(dir, sizeof(dir), " -> %d", to);
		printf("  port %u%s: received %" PRIu64 " (%.3f Mpps)  processed %" PRIu64
		       "  forwarded %" PRIu64 "  dropped %" PRIu64 "\n", port, dir, c->received,
		       (double)(c->received - prev->total.port[1 + i].received) / dt / 1e6,
		       c->processed, c->forwarded, rps_port_dropped_total(c));
	}
}

/* Each consumer (--consumers), live: what it was delivered (totals, and the rate over the
 * interval), what was lost for it by reason, its link. @p prev: the delivered counts of the
 * last line, updated. */
static void
live_consumer_lines(const struct rps_app *app, uint64_t *prev, double dt)
{
	for (uint16_t i = 0; i < app->cons.nb_consumers; i++) {
		const struct rps_consumer *k = &app->cons.consumers[i];
		struct rps_consumer_stats st;
		uint64_t connects;

		rps_consumer_stats(app, i, &st);
		connects = st.link.connects;
		printf("  consumer %u (group %u): delivered %" PRIu64 " (%.3f Mpps)  dropped "
		       "consumer_absent %" PRIu64 "  consumer_full %" PRIu64 "  connected %s  "
		       "reconnects %" PRIu64 "\n", i, k->group, st.delivered,
		       st.delivered >= prev[i] ? (double)(st.delivered - prev[i]) / dt / 1e6 : 0.0,
		       st.absent, st.full, st.link.up ? "yes" : "no",
		       connects > 0 ? connects - 1 : 0);
		if (app->opt.consumer_inline && k->group == 0) /* in the path: its verdicts */
			printf("  consumer %u in the path: returned %" PRIu64 "  not returned %"
			       PRIu64 "  fail_open %" PRIu64 "\n", i, st.returned,
			       st.delivered - RTE_MIN(st.delivered, st.returned),
			       st.open_absent + st.open_full);
		prev[i] = st.delivered;
	}
}

/* What the RX ports could not receive (rx_nombuf, imissed), summed over them, live: the
 * packets that stand outside rx_packets = processed + dropped. */
static void
live_port_losses(const struct rps_app *app, struct rte_eth_stats *lost)
{
	struct rte_eth_stats ps;

	memset(lost, 0, sizeof(*lost));
	for (uint16_t p = 0; p < app->io.rx_started && p < app->opt.nb_rx_ports; p++)
		if (rte_eth_stats_get(app->opt.rx_ports[p], &ps) == 0) {
			lost->rx_nombuf += ps.rx_nombuf;
			lost->imissed += ps.imissed;
			lost->ierrors += ps.ierrors;
		}
}

/* Each RX port's losses before dpdk-rps saw a packet, and the pool's fill, when it has any. */
static void
live_port_lines(const struct rps_app *app)
{
	struct rte_eth_stats ps;

	if (!app->io.rx_started)
		return;
	for (uint16_t p = 0; p < app->opt.nb_rx_ports; p++) {
		const uint16_t port = app->opt.rx_ports[p];

		if (rte_eth_stats_get(port, &ps) != 0 ||
		    (ps.rx_nombuf | ps.imissed | ps.ierrors) == 0)
			continue;
		printf("  port %u: rx_nombuf %" PRIu64 "  imissed %" PRIu64 "  ierrors %" PRIu64
		       "  mempool in use %u of %u\n", port, ps.rx_nombuf, ps.imissed, ps.ierrors,
		       app->io.pool != NULL ? rte_mempool_in_use_count(app->io.pool) : 0,
		       app->io.pool != NULL ? app->io.pool->size : 0);
	}
}

static void *
report_thread(void *arg)
{
	struct rps_app *app = arg;
	struct rps_snapshot *prev = rps_snapshot_alloc(), *cur = rps_snapshot_alloc();
	uint64_t last = rte_rdtsc();
	struct rte_eth_stats lost;
	uint64_t prev_cpu[RTE_MAX_LCORE] = { 0 };
	uint64_t prev_delivered[RPS_CONSUMERS_MAX] = { 0 };

	if (prev == NULL || cur == NULL)
		goto out;
	rps_snapshot_take(app, prev);
	while (!__atomic_load_n(&app->life.report_stop, __ATOMIC_ACQUIRE)) {
		uint64_t now;
		double dt;

		unsigned int ival = __atomic_load_n(&app->opt.stats_interval, __ATOMIC_RELAXED);

		/* the interval can change on reload; 0 pauses the table */
		for (unsigned int i = 0; i < RTE_MAX(ival, 1u) * 10; i++) {
			if (__atomic_load_n(&app->life.report_stop, __ATOMIC_ACQUIRE))
				goto out;
			usleep(100 * 1000);
		}
		if (ival == 0)
			continue;
		rps_snapshot_take(app, cur);
		now = rte_rdtsc();
		dt = (double)(now - last) / (double)rte_get_tsc_hz();
		last = now;
		live_port_losses(app, &lost);
		printf("[%8.1fs] rx %" PRIu64 " (%.3f Mpps)  processed %" PRIu64 "  dropped %" PRIu64
		       " (backlog_full %" PRIu64 ", mbuf_budget %" PRIu64 ")  not received: "
		       "rx_nombuf %" PRIu64 "  imissed %" PRIu64 "\n", elapsed_s(&app->life),
		       cur->rx.rx_packets,
		       (double)(cur->rx.rx_packets - prev->rx.rx_packets) / dt / 1e6,
		       cur->total.processed, rps_stats_dropped_total(&cur->total),
		       cur->total.dropped[RPS_DROP_BACKLOG_FULL],
		       cur->total.dropped[RPS_DROP_MBUF_BUDGET], lost.rx_nombuf, lost.imissed);
		for (uint16_t r = 0; cur->nb_rx > 1 && r < cur->nb_rx; r++)
			printf("  rx lcore %u: rx %" PRIu64 " (%.3f Mpps)  enqueued %" PRIu64
			       "  backlog_full %" PRIu64 "\n", cur->rxl[r].lcore,
			       cur->rxl[r].st.rx_packets,
			       (double)(cur->rxl[r].st.rx_packets - prev->rxl[r].st.rx_packets) /
			       dt / 1e6, cur->rxl[r].st.enqueued,
			       cur->rxl[r].st.dropped[RPS_DROP_BACKLOG_FULL]);
		live_port_lines(app);
		live_port_flows(app, cur, prev, dt);
		live_consumer_lines(app, prev_delivered, dt);
		printf("  %5s %14s %10s %8s %8s %12s %12s %6s %s\n", "lcore", "processed", "Mpps",
		       "backlog", "hwm", "time_squeeze", "dropped", "cpu%", "state");
		for (uint16_t i = 0; i < cur->nb; i++) {
			/* the lcore's thread's CPU time over the interval, and what it does now */
			const struct rps_worker *w = app->lc.nb_workers ? &app->lc.workers[i] :
						     RPS_APP_SELF(app);
			const uint64_t cpu = rps_lcore_cpu_ms(w);
			const double pct = cpu >= prev_cpu[i] ?
				(double)(cpu - prev_cpu[i]) / 10.0 / dt : 0.0;

			prev_cpu[i] = cpu;
			printf("  %5u %14" PRIu64 " %10.3f %8" PRIu64 " %8" PRIu64 " %12" PRIu64
			       " %12" PRIu64 " %6.1f %s\n", cur->w[i].lcore, cur->w[i].st.processed,
			       (double)(cur->w[i].st.processed - prev->w[i].st.processed) / dt / 1e6,
			       cur->w[i].depth, cur->w[i].hwm, cur->w[i].st.time_squeeze,
			       rps_stats_dropped_total(&cur->w[i].st), pct,
			       app->lc.nb_workers ? rps_lcore_state_name(w) : "polling");
		}
		fflush(stdout);
		memcpy(prev, cur, sizeof(*cur));
	}
out:
	free(prev);
	free(cur);
	return NULL;
}

int
rps_report_start(struct rps_app *app)
{
	int rc;

	if (app->opt.stats_interval == 0 && app->opt.config_path == NULL)
		return 0;
	rc = rte_ctrl_thread_create(&app->obs.report_thread, "rps-report", NULL, report_thread, app);
	if (rc == 0)
		app->obs.report_running = 1;
	return rc;
}

void
rps_report_stop(struct rps_app *app)
{
	if (!app->obs.report_running)
		return;
	__atomic_store_n(&app->life.report_stop, 1, __ATOMIC_RELEASE);
	pthread_join(app->obs.report_thread, NULL);
	app->obs.report_running = 0;
}

/* One line of the per-port table, and its drops by reason below it when it has any. */
static void
summary_port_line(FILE *out, const char *name, const char *to, const struct rps_port_stats *p)
{
	fprintf(out, "  %6s %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %12" PRIu64 " %6s\n", name,
		p->received, p->processed, p->forwarded, rps_port_dropped_total(p), to);
	for (unsigned int r = 0; r < RPS_DROP_MAX; r++)
		if (p->dropped[r] != 0)
			fprintf(out, "           %-16s %" PRIu64 "\n", rps_drop_name(r), p->dropped[r]);
}

/* Every RX port: received = processed + dropped each, and where its packets went. */
static void
summary_ports(const struct rps_app *app, const struct rps_snapshot *s, FILE *out)
{
	int bad = 0;
	char name[16], to[16];

	fprintf(out, "  %6s %14s %14s %14s %12s %6s\n", "port", "received", "processed",
		"forwarded", "dropped", "to");
	for (uint16_t i = 0; i < app->opt.nb_rx_ports; i++) {
		const struct rps_port_stats *p = &s->total.port[1 + i];
		const int dst = rps_port_to(app, app->opt.rx_ports[i]);

		snprintf(name, sizeof(name), "%u", app->opt.rx_ports[i]);
		snprintf(to, sizeof(to), dst >= 0 ? "%d" : "-", dst);
		summary_port_line(out, name, to, p);
		bad |= p->received != p->processed + rps_port_dropped_total(p);
	}
	if (other_port_seen(&s->total.port[0]))
		summary_port_line(out, "other", "-", &s->total.port[0]);
	if (bad)
		fprintf(out, "  WARNING: a port's received != processed + dropped\n");
}

/* --consumers: a line per consumer. */
static void
summary_consumers(const struct rps_app *app, FILE *out)
{
	if (app->cons.nb_consumers == 0)
		return;
	fprintf(out, "  %8s %5s %14s %15s %13s %9s %10s %8s  %s\n", "consumer", "group",
		"delivered", "consumer_absent", "consumer_full", "connected", "reconnects",
		"refusals", "socket");
	for (uint16_t i = 0; i < app->cons.nb_consumers; i++) {
		const struct rps_consumer *k = &app->cons.consumers[i];
		struct rps_consumer_stats st;
		uint64_t connects;

		rps_consumer_stats(app, i, &st);
		connects = st.link.connects;
		fprintf(out, "  %8u %5u %14" PRIu64 " %15" PRIu64 " %13" PRIu64 " %9s %10" PRIu64
			" %8" PRIu64 "  %s\n", i, k->group, st.delivered, st.absent, st.full,
			st.link.up ? "yes" : "no", connects > 0 ? connects - 1 : 0,
			st.link.refused + st.link.aborted + st.link.timeouts + st.link.rejected +
			st.link.broken, k->path);
	}
	fprintf(out, "  (refusals: clients turned away, left or timed out in their handshake, "
		"or sent away: /rps/consumers has each count)\n");
	for (uint16_t g = 0; g < app->cons.nb_groups; g++) {
		char filter[RPS_FILTER_TEXT_MAX + 1];
		uint64_t filtered = 0;

		rps_app_filter_text(app, g, filter, sizeof(filter));
		for (uint16_t i = 0; i < app->cons.nb_consumers; i++) {
			struct rps_consumer_stats st;

			if (app->cons.consumers[i].group != g)
				continue;
			rps_consumer_stats(app, i, &st);
			filtered += st.filtered;
		}
		if (filter[0] != '\0' || filtered != 0)
			fprintf(out, "  group %u filter '%s': filtered %" PRIu64 "\n", g, filter,
				filtered);
	}
	for (uint16_t i = 0; app->opt.consumer_inline && i < app->cons.group_size[0]; i++) {
		struct rps_consumer_stats st;

		rps_consumer_stats(app, i, &st);
		fprintf(out, "  consumer %u in the path: returned %" PRIu64 ", dropped by its "
			"verdict %" PRIu64 ", fail_open consumer_absent %" PRIu64 " consumer_full %"
			PRIu64 "\n", i, st.returned, st.delivered - RTE_MIN(st.delivered, st.returned),
			st.open_absent, st.open_full);
	}
}

/* Steering rules: a line per rule, in match order (the control thread has stopped). */
static void
summary_rules(const struct rps_app *app, FILE *out)
{
	const struct rps_rules *rs = app->steer.rules;

	if (rs == NULL || rs->nb_rules == 0)
		return;
	/* hits: since the set was taken (the last reload that changed the rules); since
	 * start: every set that held the rule's text */
	fprintf(out, "  %4s %14s %14s  %-22s %s\n", "rule", "hits", "since start", "action",
		"match");
	for (uint16_t i = 0; i < rs->nb_rules; i++) {
		char act[48];
		const char *arrow = strstr(rs->text[i], " -> ");

		fprintf(out, "  %4u %14" PRIu64 " %14" PRIu64 "  %-22s %.*s\n", i,
			rps_app_rule_hits(&app->lc, rs, i), rps_app_rule_hits_total(app, rs, i),
			rps_app_rule_action(rs, i, act, sizeof(act)),
			arrow != NULL ? (int)(arrow - rs->text[i]) : 3,
			arrow != NULL ? rs->text[i] : "any"); /* "-> drop": every IP packet */
	}
}

/* The ports' forwarded summed: each packet that left by a TX queue or reached a consumer,
 * once however many fragments. */
static uint64_t
forwarded_total(const struct rps_lcore_stats *t)
{
	uint64_t sum = 0;

	for (unsigned int k = 0; k < RPS_PORT_SLOTS; k++)
		sum += t->port[k].forwarded;
	return sum;
}

/*
 * processed and tx_packets taken apart into counters shown beside them (docs/operations.md,
 * "What adds up"): a packet is processed once, as forwarded, consumed or a fragment absorbed
 * into its datagram; a forwarded packet is one frame, or tx_fragments frames for each of the
 * tx_fragmented ones. The respond stage's answers are forwarded packets.
 */
static void
summary_reconcile(const struct rps_lcore_stats *t, FILE *out)
{
	const uint64_t fwd = forwarded_total(t);
	const uint64_t answers = t->arp_replies + t->icmp_echo_replies + t->icmp6_echo_replies +
				 t->nd_replies + t->udp_echo_replies;

	fprintf(out, "  processed %" PRIu64 " = forwarded %" PRIu64 " + consumed %" PRIu64
		" + frags_absorbed %" PRIu64 ";  tx_packets %" PRIu64 " = forwarded %" PRIu64
		" - tx_fragmented %" PRIu64 " + tx_fragments %" PRIu64 ";  answers %" PRIu64
		" among forwarded\n", t->processed, fwd, t->consumed, t->frags_absorbed,
		t->tx_packets, fwd, t->tx_fragmented, t->tx_fragments, answers);
	if (t->processed != fwd + t->consumed + t->frags_absorbed ||
	    t->tx_packets + t->tx_fragmented != fwd + t->tx_fragments)
		fprintf(out, "  WARNING: processed or tx_packets does not add up\n");
}

void
rps_report_summary(const struct rps_app *app, FILE *out)
{
	struct rps_snapshot *s = rps_snapshot_alloc();
	double t = elapsed_s(&app->life);

	if (s == NULL)
		return;
	rps_snapshot_take(app, s);
	fprintf(out, "\ndpdk-rps summary after %.2f s (map %s, hash %s)\n", t, app->opt.map_text,
		rps_hash_mode_name(app->opt.hash_mode));
	fprintf(out, "  rx_packets %" PRIu64 "  processed %" PRIu64 "  tx_packets %" PRIu64
		"  dropped %" PRIu64 "\n", s->rx.rx_packets, s->total.processed,
		s->total.tx_packets, rps_stats_dropped_total(&s->total));
	summary_reconcile(&s->total, out);
	/* beside the invariant, what it cannot count: packets the ports never handed over */
	fprintf(out, "  not received (outside rx_packets): rx_nombuf %" PRIu64 "  imissed %"
		PRIu64 "\n", app->exit.port_stats.rx_nombuf, app->exit.port_stats.imissed);
	/* the reasons that happened; every one with --verbose (the JSON has them all) */
	for (unsigned int r = 0; r < RPS_DROP_MAX; r++)
		if (s->total.dropped[r] != 0 || app->opt.verbose)
			fprintf(out, "    %-16s %" PRIu64 "\n", rps_drop_name(r),
				s->total.dropped[r]);
	fprintf(out, "  %5s %14s %14s %8s %12s %12s\n", "lcore", "received_rps", "processed",
		"hwm", "time_squeeze", "dropped");
	for (uint16_t i = 0; i < s->nb; i++)
		fprintf(out, "  %5u %14" PRIu64 " %14" PRIu64 " %8" PRIu64 " %12" PRIu64 " %12" PRIu64
			"\n", s->w[i].lcore, s->w[i].st.received_rps, s->w[i].st.processed,
			s->w[i].hwm, s->w[i].st.time_squeeze, rps_stats_dropped_total(&s->w[i].st));
	if (s->nb_rx > 1) {
		fprintf(out, "  %8s %14s %14s %12s %10s\n", "rx lcore", "rx_packets", "enqueued",
			"backlog_full", "queues");
		for (uint16_t r = 0; r < s->nb_rx; r++)
			fprintf(out, "  %8u %14" PRIu64 " %14" PRIu64 " %12" PRIu64 " %10u\n",
				s->rxl[r].lcore, s->rxl[r].st.rx_packets, s->rxl[r].st.enqueued,
				s->rxl[r].st.dropped[RPS_DROP_BACKLOG_FULL],
				app->lc.rx[r].nb_queues);
	}
	for (uint16_t p = 0; p < app->io.rx_started && p < app->opt.nb_rx_ports; p++) {
		const struct rte_eth_stats *ps = &app->exit.rx_port_stats[p];

		if (ps->rx_nombuf || ps->imissed || ps->ierrors)
			fprintf(out, "  port %u lost before dpdk-rps saw them: rx_nombuf %" PRIu64
				"  imissed %" PRIu64 "  ierrors %" PRIu64
				" (see README: port counters)\n", app->opt.rx_ports[p],
				ps->rx_nombuf, ps->imissed, ps->ierrors);
	}
	summary_ports(app, s, out);
	summary_consumers(app, out);
	summary_rules(app, out);
	if (s->rx.rx_packets != s->total.processed + rps_stats_dropped_total(&s->total))
		fprintf(out, "  WARNING: rx_packets != processed + dropped\n");
	free(s);
}

static void
json_drops(FILE *f, const struct rps_lcore_stats *st)
{
	fprintf(f, "{");
	for (unsigned int r = 0; r < RPS_DROP_MAX; r++)
		fprintf(f, "%s\"%s\": %" PRIu64, r ? ", " : "", rps_drop_name(r), st->dropped[r]);
	fprintf(f, "}");
}

/* One port's object of "ports": its counters, drops by reason, where it forwards to. */
static void
json_port(FILE *f, const char *name, int to, int paired, const struct rps_port_stats *p)
{
	fprintf(f, "\"%s\": {", name);
#define RPS_X_PJSON(fld, d) fprintf(f, "\"" #fld "\": %" PRIu64 ", ", p->fld);
	RPS_PORT_COUNTERS(RPS_X_PJSON)
#undef RPS_X_PJSON
	fprintf(f, "\"dropped\": {");
	for (unsigned int r = 0; r < RPS_DROP_MAX; r++)
		fprintf(f, "%s\"%s\": %" PRIu64, r ? ", " : "", rps_drop_name(r), p->dropped[r]);
	fprintf(f, "}, \"dropped_total\": %" PRIu64, rps_port_dropped_total(p));
	if (to >= 0)
		fprintf(f, ", \"to\": %d, \"pair\": %s", to, paired ? "true" : "false");
	fprintf(f, "}");
}

/* "ports": each RX port by id, and "other" when a packet of no RX port was counted. */
static void
json_ports(FILE *f, const struct rps_app *app, const struct rps_snapshot *s)
{
	char name[16];

	fprintf(f, "\n  \"ports\": {");
	for (uint16_t i = 0; i < app->opt.nb_rx_ports; i++) {
		const uint16_t port = app->opt.rx_ports[i];

		snprintf(name, sizeof(name), "%u", port);
		fprintf(f, "%s\n    ", i ? "," : "");
		json_port(f, name, rps_port_to(app, port), rps_port_paired(app, port),
			  &s->total.port[1 + i]);
	}
	if (other_port_seen(&s->total.port[0])) {
		fprintf(f, ",\n    ");
		json_port(f, "other", -1, 0, &s->total.port[0]);
	}
	fprintf(f, "\n  },");
}

/* @p str as a JSON string (a path may hold quotes, backslashes or control characters). */
static void
json_str(FILE *f, const char *str)
{
	fputc('"', f);
	for (const unsigned char *c = (const unsigned char *)str; *c != '\0'; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if (*c < 0x20)
			fprintf(f, "\\u%04x", *c);
		else
			fputc(*c, f);
	}
	fputc('"', f);
}

/* "consumers" (--consumers): each one's socket, queues, link and counters; [] when off. */
static void
json_consumers(FILE *f, const struct rps_app *app)
{
	char filter[RPS_FILTER_TEXT_MAX + 1];

	fprintf(f, "\n  \"consumers\": [");
	for (uint16_t i = 0; i < app->cons.nb_consumers; i++) {
		const struct rps_consumer *k = &app->cons.consumers[i];
		struct rps_consumer_stats st;
		uint64_t connects;
		int inl;

		rps_consumer_stats(app, i, &st);
		connects = st.link.connects;
		fprintf(f, "%s\n    {\"consumer\": %u, \"group\": %u, \"socket\": ",
			i ? "," : "", i, k->group);
		json_str(f, k->path);
		inl = app->opt.consumer_inline && k->group == 0;
		/* a tap returns nothing and drops nothing by its verdict */
		fprintf(f, ", \"workers\": %u, \"connected\": %s, \"inline\": %s, "
			"\"returned\": %" PRIu64 ", \"verdict_dropped\": %" PRIu64 ", "
			"\"fail_open\": {\"consumer_absent\": %" PRIu64 ", \"consumer_full\": %"
			PRIu64 "}", k->feeders, st.link.up ? "true" : "false",
			inl ? "true" : "false", st.returned,
			inl ? st.delivered - RTE_MIN(st.delivered, st.returned) : 0, st.open_absent,
			st.open_full);
		rps_app_filter_text(app, k->group, filter, sizeof(filter));
		fprintf(f, ", \"filter\": ");
		json_str(f, filter);
		fprintf(f, ", \"filtered\": %" PRIu64, st.filtered);
		fprintf(f, ", \"reconnects\": %" PRIu64 ", \"delivered\": %" PRIu64 ", \"dropped\": "
			"{\"consumer_absent\": %" PRIu64 ", \"consumer_full\": %" PRIu64 "}, "
			"\"clients\": {\"accepted\": %" PRIu64 ", \"connects\": %" PRIu64
			", \"disconnects\": %" PRIu64 ", \"refused\": %" PRIu64 ", \"aborted\": %"
			PRIu64 ", \"timeouts\": %" PRIu64 ", \"rejected\": %" PRIu64 ", \"broken\": %"
			PRIu64 ", \"kicks_drained\": %" PRIu64 "}}",
			connects > 0 ? connects - 1 : 0, st.delivered, st.absent, st.full,
			st.link.accepted, st.link.connects, st.link.disconnects, st.link.refused,
			st.link.aborted, st.link.timeouts, st.link.rejected, st.link.broken,
			st.link.kicks_drained);
	}
	fprintf(f, "%s],", app->cons.nb_consumers ? "\n  " : "");
}

/* "rules": each steering rule in match order, its action and hits (since the set was taken,
 * since start); [] without rules. */
static void
json_rules(FILE *f, const struct rps_app *app)
{
	const struct rps_rules *rs = app->steer.rules; /* the control thread has stopped */
	const uint16_t n = rs != NULL ? rs->nb_rules : 0;

	fprintf(f, "\n  \"rules\": [");
	for (uint16_t i = 0; i < n; i++) {
		char act[48];

		fprintf(f, "%s\n    {\"rule\": ", i ? "," : "");
		json_str(f, rs->text[i]);
		fprintf(f, ", \"action\": \"%s\", \"hits\": %" PRIu64 ", \"hits_since_start\": %"
			PRIu64 "}", rps_app_rule_action(rs, i, act, sizeof(act)),
			rps_app_rule_hits(&app->lc, rs, i), rps_app_rule_hits_total(app, rs, i));
	}
	fprintf(f, "%s],", n ? "\n  " : "");
}

static void
json_counters(FILE *f, const struct rps_lcore_stats *st, const char *indent)
{
#define RPS_X_JSON(fld, d) fprintf(f, "%s\"" #fld "\": %" PRIu64 ",\n", indent, st->fld);
	RPS_LCORE_COUNTERS(RPS_X_JSON)
#undef RPS_X_JSON
}

int
rps_report_json(const struct rps_app *app, const char *path)
{
	struct rps_snapshot *s = rps_snapshot_alloc();
	struct rps_outfile of;
	FILE *f;
	int rc;

	if (s == NULL)
		return -ENOMEM;
	rc = rps_outfile_open(&of, path);
	if (rc < 0) {
		free(s);
		return rc;
	}
	f = of.f;
	rps_snapshot_take(app, s);
	fprintf(f, "{\n  \"version\": \"%s\",\n", RPS_VERSION);
	fprintf(f, "  \"duration_s\": %.3f,\n", elapsed_s(&app->life));
	fprintf(f, "  \"rx_packets\": %" PRIu64 ",\n", s->rx.rx_packets);
	fprintf(f, "  \"processed\": %" PRIu64 ",\n", s->total.processed);
	fprintf(f, "  \"tx_packets\": %" PRIu64 ",\n", s->total.tx_packets);
	fprintf(f, "  \"dropped\": ");
	json_drops(f, &s->total);
	fprintf(f, ",\n  \"dropped_total\": %" PRIu64 ",\n", rps_stats_dropped_total(&s->total));
	/* outside rx_packets = processed + dropped: what the RX ports could not receive */
	fprintf(f, "  \"rx_nombuf\": %" PRIu64 ",\n  \"imissed\": %" PRIu64 ",\n",
		app->exit.port_stats.rx_nombuf, app->exit.port_stats.imissed);
	fprintf(f, "  \"backpressure\": %s,\n  \"stall_timeout_ms\": %u,\n",
		app->lc.nb_workers && app->lc.rx[0].steer.backpressure ? "true" : "false",
		app->opt.stall_timeout_ms);
	fprintf(f, "  \"config\": {\"rx_port\": %u, \"rx_queues\": %u, \"driver\": \"%s\", "
		"\"tx_port\": %d, \"map\": \"%s\", \"rx_lcore\": %u, \"rx_lcores\": \"%s\", "
		"\"rx_ports\": %u, \"hash\": \"%s\", "
		"\"rss_hash_from_port\": %s, \"hash_seed\": \"%s\", \"rss_key\": \"%s\", "
		"\"backlog\": %u, \"burst\": %u, "
		"\"stages\": \"%s\", \"symmetric\": %s, \"symmetric_mode\": \"%s\", "
		"\"inner\": %s, \"reorder_safe\": %s, "
		"\"flow_limit\": %s, \"idle_sleep_us\": %u, \"idle_spin_us\": %u, "
		"\"idle_wait\": \"%s\"},\n",
		app->opt.rx_port, app->io.nb_rxq, app->io.rx_driver, app->opt.tx_port, app->opt.map_text,
		app->io.rx_lcore, app->opt.rx_lcores_text, app->opt.nb_rx_ports,
		rps_hash_mode_name(app->opt.hash_mode),
		/* the seed and key are secrets (docs/steering-keys.md): only where they came
		 * from; the owner reads them on the telemetry socket (/rps/config) */
		app->io.rss_hash ? "true" : "false", app->opt.seed_given ? "configured" : "random",
		app->opt.rss_key_random ? "random" : "configured", app->opt.backlog,
		app->opt.burst, app->opt.stages_text, app->opt.symmetric ? "true" : "false",
		rps_sym_mode_name((enum rps_sym_mode)app->opt.symmetric),
		app->opt.inner ? "true" : "false",
		__atomic_load_n(&app->steer.reorder_safe, __ATOMIC_RELAXED) ? "true" : "false",
		__atomic_load_n(&app->steer.flow_limit, __ATOMIC_RELAXED) ? "true" : "false",
		app->opt.idle_sleep_us, app->opt.idle_spin_us,
		app->opt.idle_wait ? "monitor" : "futex");
	fprintf(f, "  \"rx_lcore\": {\n");
	json_counters(f, &s->rx, "    ");
	fprintf(f, "    \"lcore\": %u\n  },\n", app->io.rx_lcore);
	/* each RX lcore: its counters, its (port, queue) pairs, its backlog to each worker */
	fprintf(f, "  \"rx_lcores\": [");
	for (uint16_t r = 0; r < s->nb_rx; r++) {
		const struct rps_rx_lcore *rx = &app->lc.rx[r];

		fprintf(f, "%s\n    {\n      \"lcore\": %u,\n      \"queues\": [", r ? "," : "",
			s->rxl[r].lcore);
		for (uint16_t k = 0; k < rx->nb_queues; k++)
			fprintf(f, "%s{\"port\": %u, \"queue\": %u, \"index\": %u}", k ? ", " : "",
				app->io.rxq_port[rx->queues[k]], app->io.rxq_queue[rx->queues[k]],
				rx->queues[k]);
		fprintf(f, "],\n");
		json_counters(f, &s->rxl[r].st, "      ");
		fprintf(f, "      \"backlogs\": [");
		for (uint16_t w = 0; w < app->lc.nb_workers; w++) {
			const struct rps_backlog *b = rps_app_backlog(&app->lc, r, w);

			fprintf(f, "%s{\"worker\": %u, \"enqueued\": %" PRIu64 ", \"done\": %"
				PRIu64 ", \"depth\": %" PRIu64 ", \"hwm\": %" PRIu64
				", \"backlog_full\": %" PRIu64 ", \"flow_limit\": %" PRIu64 "}",
				w ? ", " : "", app->lc.workers[w].lcore, RPS_CTR_READ(b->prod.tail),
				__atomic_load_n(&b->cons.head, __ATOMIC_ACQUIRE),
				rps_backlog_depth(b), RPS_CTR_READ(b->prod.hwm),
				RPS_CTR_READ(b->prod.full_drops), RPS_CTR_READ(b->prod.fl_drops));
		}
		fprintf(f, "]\n    }");
	}
	fprintf(f, "\n  ],\n");
	fprintf(f, "  \"workers\": [");
	for (uint16_t i = 0; i < s->nb; i++) {
		fprintf(f, "%s\n    {\n      \"lcore\": %u,\n", i ? "," : "", s->w[i].lcore);
		json_counters(f, &s->w[i].st, "      ");
		fprintf(f, "      \"stages\": {");
		for (unsigned int g = 0, k = 0; g < RPS_STAGE_MAX; g++) {
			if (!rps_pipeline_has(&app->pipeline, (enum rps_stage_id)g))
				continue;
			fprintf(f, "%s\"%s\": {\"in\": %" PRIu64 ", \"out\": %" PRIu64 "}",
				k++ ? ", " : "", rps_stage_name((enum rps_stage_id)g),
				s->w[i].st.stage_in[g], s->w[i].st.stage_out[g]);
		}
		fprintf(f, "},\n");
		if (app->lc.nb_workers != 0) {
			const struct rps_health *h = &app->lc.workers[i].health;

			fprintf(f, "      \"health\": \"%s\", \"stalls\": %" PRIu64
				", \"recoveries\": %" PRIu64 ",\n",
				rps_health_name(__atomic_load_n(&h->state, __ATOMIC_RELAXED)),
				__atomic_load_n(&h->stalls, __ATOMIC_RELAXED),
				__atomic_load_n(&h->recoveries, __ATOMIC_RELAXED));
		}
		fprintf(f, "      \"backlog_hwm\": %" PRIu64 ",\n      \"backlog_depth\": %" PRIu64
			",\n      \"dropped\": ", s->w[i].hwm, s->w[i].depth);
		json_drops(f, &s->w[i].st);
		fprintf(f, "\n    }");
	}
	fprintf(f, "\n  ],\n");
	rps_buckets_json(app, f);
	fprintf(f, "  \"port\": {\"ipackets\": %" PRIu64 ", \"imissed\": %" PRIu64
		", \"ierrors\": %" PRIu64 ", \"rx_nombuf\": %" PRIu64 "},", app->exit.port_stats.ipackets,
		app->exit.port_stats.imissed, app->exit.port_stats.ierrors, app->exit.port_stats.rx_nombuf);
	fprintf(f, "\n  \"rx_ports\": [");
	for (uint16_t p = 0; p < app->io.rx_started && p < app->opt.nb_rx_ports; p++)
		fprintf(f, "%s{\"port\": %u, \"ipackets\": %" PRIu64 ", \"imissed\": %" PRIu64
			", \"ierrors\": %" PRIu64 ", \"rx_nombuf\": %" PRIu64 "}", p ? ", " : "",
			app->opt.rx_ports[p], app->exit.rx_port_stats[p].ipackets,
			app->exit.rx_port_stats[p].imissed, app->exit.rx_port_stats[p].ierrors,
			app->exit.rx_port_stats[p].rx_nombuf);
	fprintf(f, "],");
	json_ports(f, app, s);
	json_consumers(f, app);
	json_rules(f, app);
	fprintf(f, "\n  \"mempool\": {\"size\": %u, \"in_use_at_exit\": %" PRId64
		", \"reserve\": %u, \"worker_share\": %" PRIu64 ", \"backlog_cap\": %u"
		", \"frag_budget\": %u}\n}\n", app->io.pool_size, app->exit.pool_in_use_at_exit,
		app->io.pool_reserve, app->io.worker_share, app->io.backlog_cap, app->io.frag_budget);
	free(s);
	return rps_outfile_commit(&of);
}
