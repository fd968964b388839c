/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tel_flows.c: /rps/flows (telemetry.c registers it): the top flows across the workers,
 * from the snapshots each worker publishes while asked (struct rps_flow_snap). Telemetry
 * thread; it writes one thing, the time of the last ask (app->obs.flows_wanted_tsc), which
 * the workers load.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_telemetry.h>

#include "app.h"
#include "tel.h"

/* ---- /rps/flows ---- */

/*
 * Flows in a page of /rps/flows. At its widest (with "elephant", 15 bytes a flow more: 14,762
 * of the 16,320 below) (IPv6 addresses of 39 characters, every
 * number 20 or 11 digits, "SYN,SYN-ACK,FIN,RST" both ways) a flow is 538 bytes: 24 and the
 * rest make 12,969 bytes of the 16,320 (32 made 10,843 before the orig and reply dicts,
 * 17,273 with them); the 64 that /rps/flows,64 used to put in one reply could be 34,400. The
 * "stale" and "unavailable" lists name each worker once at most: 127 lcores of 11 characters
 * add 1,433 bytes (14,402 in all).
 */
#define TEL_FLOWS_PAGE 24
#define TEL_FLOWS_MAX 64

/* How long a /rps/flows waits for the workers' snapshots, at most; and how long it retries
 * reading one that its worker is writing. A worker stopped (preempted, stalled, given up on
 * at exit) must cost a reply little and never hold it: its flows are left out and named. */
#define TEL_FLOWS_WAIT_MS 100u
#define TEL_SNAP_READ_US 1000u

/* Worker snapshot @p s copied consistently into @p out: how many flows (its top flows, or
 * with @p elephants its elephants), or -EBUSY when its worker is still writing it after
 * TEL_SNAP_READ_US (stopped inside the write). */
static int
read_snap(const struct rps_flow_snap *s, struct rps_flow_summary *out, int elephants)
{
	const uint64_t end = rte_rdtsc() + rte_get_tsc_hz() * TEL_SNAP_READ_US / 1000000;

	do {
		uint32_t sn = rte_seqcount_read_begin(&s->sc);
		uint32_t n = elephants ? RTE_MIN(s->nb_elephants, (uint32_t)RPS_FLOW_ELEPHANTS) :
			     RTE_MIN(s->n, (uint32_t)RPS_TOP_FLOWS);

		if ((sn & 1) == 0) {
			memcpy(out, elephants ? s->elephants : s->f, n * sizeof(*out));
			if (!rte_seqcount_read_retry(&s->sc, sn))
				return (int)n;
		}
		rte_pause();
	} while (rte_rdtsc() < end);
	return -EBUSY;
}

struct tel_flow {
	struct rps_flow_summary f;
	unsigned int lcore;
};

static int
cmp_flow(const void *a, const void *b)
{
	const struct tel_flow *x = a, *y = b;

	return x->f.packets < y->f.packets ? 1 : x->f.packets > y->f.packets ? -1 : 0;
}

struct flows_arg {
	const struct tel_flow *all;
	uint32_t first, end, want;  /* ranks [first, end) of the top want */
	/* workers whose snapshot is over a second old (they did not answer in time), and
	 * those left out (stopped inside their write, or given up on at exit) */
	uint16_t nb_stale, nb_unavailable;
	unsigned int stale[RTE_MAX_LCORE], unavailable[RTE_MAX_LCORE];
};

/* One direction of a flow: {"packets", "bytes", "flags"}. */
static void
tel_flow_dir(struct tel_out *o, const char *name, const struct rps_flow_dir_stats *d)
{
	char flags[RPS_FLOW_FLAGS_LEN];
	struct tel_out c;

	tel_open(o, &c, RTE_TEL_CONTAINER);
	tel_u64(&c, "packets", d->packets);
	tel_u64(&c, "bytes", d->bytes);
	tel_str(&c, "flags", rps_flow_flags_format(d->flags, flags, sizeof(flags)));
	tel_close(o, name, &c);
}

static void
flows_build(struct tel_out *o, const void *arg)
{
	const struct flows_arg *a = arg;
	struct tel_out l;

	tel_page(o, a->first, TEL_FLOWS_PAGE, a->want);
	tel_open(o, &l, RTE_TEL_INT_VAL);
	for (uint16_t i = 0; i < a->nb_stale; i++)
		tel_arr_int(&l, (int)a->stale[i]);
	tel_close(o, "stale", &l);
	tel_open(o, &l, RTE_TEL_INT_VAL);
	for (uint16_t i = 0; i < a->nb_unavailable; i++)
		tel_arr_int(&l, (int)a->unavailable[i]);
	tel_close(o, "unavailable", &l);
	for (uint32_t k = a->first; k < a->end; k++) {
		const struct rps_flow_summary *f = &a->all[k].f;
		char name[16], src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
		int af = f->family == 6 ? AF_INET6 : AF_INET;
		struct tel_out c;

		inet_ntop(af, f->src, src, sizeof(src));
		inet_ntop(af, f->dst, dst, sizeof(dst));
		tel_open(o, &c, RTE_TEL_CONTAINER);
		tel_int(&c, "lcore", (int)a->all[k].lcore);
		tel_str(&c, "src", src);
		tel_str(&c, "dst", dst);
		tel_int(&c, "sport", f->sport);
		tel_int(&c, "dport", f->dport);
		tel_int(&c, "proto", f->proto);
		tel_u64(&c, "packets", f->packets);
		tel_u64(&c, "bytes", f->bytes);
		tel_flow_dir(&c, "orig", &f->dir[RPS_FLOW_ORIG]);
		tel_flow_dir(&c, "reply", &f->dir[RPS_FLOW_REPLY]);
		tel_str(&c, "state", rps_flow_state_name(f->state));
		tel_u64(&c, "out_of_order", f->out_of_order);
		tel_u64(&c, "retransmit", f->retransmit);
		tel_int(&c, "bypassed", f->bypassed);
		tel_int(&c, "elephant", f->elephant);
		snprintf(name, sizeof(name), "%u", k);
		tel_close(o, name, &c);
	}
}

/* Whether worker @p w will not answer: declared stalled, or given up on at exit. */
static int
worker_gone(const struct rps_worker *w)
{
	return __atomic_load_n(&w->health.state, __ATOMIC_RELAXED) == RPS_HEALTH_STALLED ||
	       __atomic_load_n(&w->stuck, __ATOMIC_RELAXED);
}

/* Whether snapshot @p s was taken at most a second before @p t0. */
static int
snap_fresh(const struct rps_flow_snap *s, uint64_t t0, uint64_t hz)
{
	return __atomic_load_n(&s->tsc, __ATOMIC_RELAXED) + hz >= t0;
}

/*
 * Ask the workers for snapshots (they take one a second while asked in the last
 * RPS_FLOWS_ASKED_S seconds, worker_loop.c) and wait (this thread only) until each has one
 * at most a second old, for TEL_FLOWS_WAIT_MS at most: then the reply goes with what there
 * is, naming the workers that did not answer ("stale"). An idle worker answers within its
 * sleep (--idle-sleep, 50 us by default), a busy one within a burst.
 */
static void
flows_wait_fresh(const struct rps_app_life *life, uint64_t *wanted, const struct rps_worker *ws,
		 uint16_t nw, uint64_t t0)
{
	const uint64_t hz = rte_get_tsc_hz(), wait = hz * TEL_FLOWS_WAIT_MS / 1000;

	__atomic_store_n(wanted, t0, __ATOMIC_RELAXED);
	for (;;) {
		int fresh = 1;

		for (uint16_t i = 0; i < nw; i++) {
			const struct rps_flow_snap *s = ws[i].flow_snap;

			if (s != NULL && !worker_gone(&ws[i]) && !snap_fresh(s, t0, hz))
				fresh = 0;
		}
		if (fresh || rte_rdtsc() - t0 >= wait ||
		    __atomic_load_n(&life->rx_done, __ATOMIC_ACQUIRE))
			return;
		rte_delay_us_sleep(1000);
	}
}

int
rps_tel_flows(const struct rps_app *app, uint64_t *wanted, const char *params,
	      struct rte_tel_data *d)
{
	const struct rps_worker *ws = app->lc.nb_workers ? app->lc.workers : RPS_APP_SELF(app);
	uint16_t nw = app->lc.nb_workers ? app->lc.nb_workers : 1;
	const uint64_t t0 = rte_rdtsc(), hz = rte_get_tsc_hz();
	struct tel_flow *all;
	struct flows_arg *a;
	uint64_t p[2] = { 10, 0 };
	uint32_t total = 0;
	int n = tel_params(params, p, 2), rc;

	/* N must be 1..64, FIRST below N */
	if (n < 0 || p[0] == 0 || p[0] > TEL_FLOWS_MAX || p[1] >= p[0])
		return -EINVAL;
	all = calloc((size_t)nw * RPS_TOP_FLOWS, sizeof(*all));
	a = calloc(1, sizeof(*a));
	if (all == NULL || a == NULL) {
		free(all);
		free(a);
		return -ENOMEM;
	}
	flows_wait_fresh(&app->life, wanted, ws, nw, t0);
	for (uint16_t i = 0; i < nw; i++) {
		const struct rps_flow_snap *s = ws[i].flow_snap;
		struct rps_flow_summary tmp[RPS_TOP_FLOWS];
		int m;

		if (s == NULL)
			continue;
		/* a worker given up on at exit is not even tried */
		m = __atomic_load_n(&ws[i].stuck, __ATOMIC_RELAXED) ? -EBUSY : read_snap(s, tmp, 0);
		if (m < 0) {
			a->unavailable[a->nb_unavailable++] = ws[i].lcore;
			continue;
		}
		if (!snap_fresh(s, t0, hz))
			a->stale[a->nb_stale++] = ws[i].lcore;
		for (int k = 0; k < m; k++) {
			all[total].f = tmp[k];
			all[total++].lcore = ws[i].lcore;
		}
	}
	qsort(all, total, sizeof(*all), cmp_flow);
	a->all = all;
	a->first = (uint32_t)p[1];
	a->want = RTE_MIN((uint32_t)p[0], total);
	a->end = RTE_MIN(a->first + TEL_FLOWS_PAGE, a->want);
	if (a->end < a->first)
		a->end = a->first;
	rc = tel_reply(d, flows_build, a);
	free(a);
	free(all);
	return rc;
}

/* ---- /rps/elephants ---- */

/* Elephants in one reply: at its widest (IPv6, every number 20 digits) one is about 300
 * bytes, 32 of them 9,600 of the 16,320 with the stale and unavailable lists' 2,866. */
#define TEL_ELEPHANTS_MAX 32

static int
cmp_rate(const void *a, const void *b)
{
	const struct tel_flow *x = a, *y = b;

	return x->f.rate_bps < y->f.rate_bps ? 1 : x->f.rate_bps > y->f.rate_bps ? -1 : 0;
}

struct elephants_arg {
	struct flows_arg l;      /* all, end: the elephants listed; stale, unavailable */
	uint64_t marked;         /* marked now, every worker (the elephants_active gauges) */
	uint64_t isolations;     /* workers isolated so far (--elephant-action isolate) */
	uint16_t nb_isolated;    /* the workers isolated now, by lcore */
	unsigned int isolated[RTE_MAX_LCORE];
};

static void
elephants_build(struct tel_out *o, const void *arg)
{
	const struct elephants_arg *e = arg;
	const struct flows_arg *a = &e->l;
	struct tel_out l;

	tel_u64(o, "elephants", e->marked);
	tel_u64(o, "listed", a->end);
	tel_u64(o, "isolations", e->isolations);
	tel_open(o, &l, RTE_TEL_INT_VAL);
	for (uint16_t i = 0; i < e->nb_isolated; i++)
		tel_arr_int(&l, (int)e->isolated[i]);
	tel_close(o, "isolated", &l);
	tel_open(o, &l, RTE_TEL_INT_VAL);
	for (uint16_t i = 0; i < a->nb_stale; i++)
		tel_arr_int(&l, (int)a->stale[i]);
	tel_close(o, "stale", &l);
	tel_open(o, &l, RTE_TEL_INT_VAL);
	for (uint16_t i = 0; i < a->nb_unavailable; i++)
		tel_arr_int(&l, (int)a->unavailable[i]);
	tel_close(o, "unavailable", &l);
	for (uint32_t k = 0; k < a->end; k++) {
		const struct rps_flow_summary *f = &a->all[k].f;
		char name[16], src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
		int af = f->family == 6 ? AF_INET6 : AF_INET;
		struct tel_out c;

		inet_ntop(af, f->src, src, sizeof(src));
		inet_ntop(af, f->dst, dst, sizeof(dst));
		tel_open(o, &c, RTE_TEL_CONTAINER);
		tel_int(&c, "lcore", (int)a->all[k].lcore);
		tel_str(&c, "src", src);
		tel_str(&c, "dst", dst);
		tel_int(&c, "sport", f->sport);
		tel_int(&c, "dport", f->dport);
		tel_int(&c, "proto", f->proto);
		tel_u64(&c, "rate_bps", f->rate_bps);
		tel_u64(&c, "packets", f->packets);
		tel_u64(&c, "bytes", f->bytes);
		tel_int(&c, "bypassed", f->bypassed);
		snprintf(name, sizeof(name), "%u", k);
		tel_close(o, name, &c);
	}
}

int
rps_tel_elephants(const struct rps_app *app, uint64_t *wanted, const char *params,
		  struct rte_tel_data *d)
{
	const struct rps_worker *ws = app->lc.nb_workers ? app->lc.workers : RPS_APP_SELF(app);
	uint16_t nw = app->lc.nb_workers ? app->lc.nb_workers : 1;
	const uint64_t t0 = rte_rdtsc(), hz = rte_get_tsc_hz();
	struct elephants_arg *e;
	struct tel_flow *all;
	uint32_t total = 0;
	int rc;

	if (params != NULL && *params != '\0')
		return -EINVAL;
	all = calloc((size_t)nw * RPS_FLOW_ELEPHANTS, sizeof(*all));
	e = calloc(1, sizeof(*e));
	if (all == NULL || e == NULL) {
		free(all);
		free(e);
		return -ENOMEM;
	}
	flows_wait_fresh(&app->life, wanted, ws, nw, t0);
	for (uint16_t i = 0; i < nw; i++) {
		const struct rps_flow_snap *s = ws[i].flow_snap;
		struct rps_flow_summary tmp[RPS_FLOW_ELEPHANTS];
		int m;

		e->marked += RPS_CTR_READ(ws[i].stats.elephants_active);
		if (app->lc.nb_workers && app->ctl.isolated != NULL &&
		    __atomic_load_n(&app->ctl.isolated[i], __ATOMIC_RELAXED))
			e->isolated[e->nb_isolated++] = ws[i].lcore;
		if (s == NULL)
			continue;
		m = __atomic_load_n(&ws[i].stuck, __ATOMIC_RELAXED) ? -EBUSY :
		    read_snap(s, tmp, 1);
		if (m < 0) {
			e->l.unavailable[e->l.nb_unavailable++] = ws[i].lcore;
			continue;
		}
		if (!snap_fresh(s, t0, hz))
			e->l.stale[e->l.nb_stale++] = ws[i].lcore;
		for (int k = 0; k < m; k++) {
			all[total].f = tmp[k];
			all[total++].lcore = ws[i].lcore;
		}
	}
	e->isolations = __atomic_load_n(&app->ctl.isolations, __ATOMIC_RELAXED);
	qsort(all, total, sizeof(*all), cmp_rate);
	e->l.all = all;
	e->l.end = RTE_MIN(total, (uint32_t)TEL_ELEPHANTS_MAX);
	rc = tel_reply(d, elephants_build, e);
	free(e);
	free(all);
	return rc;
}
