/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk-rps-bench: how many packets one dispatcher lcore steers, and what each costs, for
 * dpdk-rps and its peers, side by side on the same traffic and lcores in one run; with
 * --dispatchers K, what K dispatchers (K RX queues) feeding the same workers each achieve.
 *
 *   dpdk-rps-bench [EAL options] -- [--modes LIST] [--flows LIST] [--frames LIST] [--runs N]
 *                  [--duration S] [--json FILE] ...      (--help lists every option)
 *
 * The first K EAL lcores dispatch (the main lcore first; K = 1 by default); every other EAL
 * lcore is a worker.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_version.h>

#include "bench.h"
#include "rps_flow.h"
#include "rps_reasm.h"

/* One dispatcher's figures in a cell: medians over the runs. */
struct row_disp {
	unsigned int lcore;
	double mpps[BENCH_MAX_RUNS];
	uint64_t rx[BENCH_MAX_RUNS], delivered[BENCH_MAX_RUNS], throttled[BENCH_MAX_RUNS];
	double median, cyc, steer_cyc, busy_cyc, busy_steer_cyc, throttled_pct, desched_pct;
};

struct row {
	enum bench_mode mode;
	uint32_t flows, frame;
	unsigned int nb;
	/* every run, in the order of the cell's runs (seq: its place among all the cell's
	 * runs, every mode's, as they interleave) */
	double mpps[BENCH_MAX_RUNS];
	uint64_t delivered[BENCH_MAX_RUNS], rx[BENCH_MAX_RUNS], throttled[BENCH_MAX_RUNS];
	double run_cyc[BENCH_MAX_RUNS], run_steer[BENCH_MAX_RUNS], seconds[BENCH_MAX_RUNS];
	unsigned int seq[BENCH_MAX_RUNS];
	double median, min, max;
	double cyc, steer_cyc, throttled_pct;
	/* this mode's median over io_limit's, distributor's, event_dsw's, event_sw's,
	 * event_dsw_jhash's of the same cell (< 0: n/a) */
	double ratio_io, ratio_dist, ratio_dsw, ratio_sw, ratio_dsw_jhash;
	unsigned int nb_disp;
	struct row_disp disp[BENCH_MAX_DISP];
	/* single_core: median cycles/pkt of each stage, in pipeline order (nb_stages 0: none) */
	unsigned int nb_stages;
	uint8_t stage_ids[RPS_STAGE_MAX];
	double stage_cyc[RPS_STAGE_MAX], stage_cyc_min[RPS_STAGE_MAX], stage_cyc_mean[RPS_STAGE_MAX];
	double pipe_cyc, pipe_cyc_min;
};

/* The handoff probe's figures: medians over the runs. */
struct handoff {
	double enq_cyc, deq_cyc;
	unsigned int runs;
};

static const struct option long_opts[] = {
	{"modes", required_argument, NULL, 'm'},
	{"flows", required_argument, NULL, 'f'},
	{"frames", required_argument, NULL, 's'},
	{"runs", required_argument, NULL, 'r'},
	{"duration", required_argument, NULL, 'd'},
	{"burst", required_argument, NULL, 'b'},
	{"backlog", required_argument, NULL, 'B'},
	{"pool", required_argument, NULL, 'p'},
	{"cold", required_argument, NULL, 'c'},
	{"latency", required_argument, NULL, 'L'},
	{"load", required_argument, NULL, 'l'},
	{"reorder-safe", required_argument, NULL, 'R'},
	{"recycle", required_argument, NULL, 'Y'},
	{"slots", required_argument, NULL, 'Z'},
	{"idle-sleep", required_argument, NULL, 'I'},
	{"json", required_argument, NULL, 'j'},
	{"quick", no_argument, NULL, 'q'},
	{"flow-hash", required_argument, NULL, 'H'},
	{"dispatchers", required_argument, NULL, 'K'},
	{"handoff", required_argument, NULL, 'O'},
	{"rx-cksum", required_argument, NULL, 'C'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: dpdk-rps-bench [EAL options] -- [options]\n"
		"Side-by-side benchmark of steering dispatchers: the first K lcores dispatch (the\n"
		"main lcore first), the other lcores are workers; same pre-built traffic and lcores\n"
		"for every mode.\n\n"
		"Options:\n"
		"  --modes LIST       modes to run (default all):");
	for (int m = 0; m < BENCH_MODE_MAX; m++)
		fprintf(f, "%s%s", m ? "," : " ", bench_mode_name((enum bench_mode)m));
	fprintf(f, "\n");
#define X(e, n, d) fprintf(f, "                       %-16s %s\n", #n, d);
	BENCH_MODES(X)
#undef X
	fprintf(f,
		"  --flows LIST       flow counts (default 1,64,1024,65536)\n"
		"  --frames LIST      frame sizes in bytes with FCS, 64..2048 (default 64,512)\n"
		"  --runs N           runs per cell, median and spread reported; the modes take\n"
		"                     turns run by run (default 5)\n"
		"  --duration S       seconds per run (default 0.5)\n"
		"  --burst N          RX / enqueue / dequeue burst, 1..%d (default 32)\n"
		"  --backlog N        packets each worker's backlog holds (default 1024)\n"
		"  --pool N           pre-built mbufs in the source pool (default 65536)\n"
		"  --cold MODE        what workers do to a header before freeing it: flush\n"
		"                     (clflushopt: the dispatcher reads it from DRAM), demote\n"
		"                     (cldemote: from the LLC, like DDIO), none (default flush)\n"
		"  --latency on|off   measure RX-to-worker latency at --load %% of the rss rate\n"
		"                     (1024 flows, 64-byte frames; default on)\n"
		"  --load PCT         load of the latency run, 0.0001..100 (default 50)\n"
		"  --idle-sleep US    workers sleep between polls once idle for 100 us, up to US\n"
		"                     (the binary's --idle-sleep; default 0 here = busy-poll)\n"
		"  --reorder-safe on|off  the dispatcher's reorder-safe bucket table (default on,\n"
		"                     as the binary)\n"
		"  --dispatchers K    K dispatcher lcores, 1..%d (default 1): the first K EAL lcores,\n"
		"                     each one RX queue with its own source, map, reorder-safe table\n"
		"                     and backlog to every worker; the others are the shared workers.\n"
		"                     Figures per dispatcher and in total (distributor and the\n"
		"                     event modes: K = 1 only).\n"
		"                     With real cores: --lcores 0-9 -- --dispatchers 2\n"
		"  --handoff on|off   also measure the ring handoff alone: enqueue and dequeue cycles\n"
		"                     per packet of whole bursts (default on; tools/bench_model.py)\n"
		"  --recycle on|off   e2e_stages: workers hand mbufs back to the dispatcher through\n"
		"                     a return ring (the binary's --recycle-mbufs; default on)\n"
		"  --slots 32|64      the rings' slots: 32-bit offsets of the mbufs in their pool,\n"
		"                     as the binary, or 64-bit pointers (default 32)\n"
		"  --rx-cksum hw|sw   hw: the mbufs come as from a NIC that verified the IP and\n"
		"                     TCP/UDP checksums (RX_IP_CKSUM_GOOD, RX_L4_CKSUM_GOOD: the\n"
		"                     validate stage trusts them); sw: with no verdict, as from\n"
		"                     net_pcap, and validate sums every packet (default sw)\n"
		"  --json FILE        also write every figure as JSON\n"
		"  --quick            a smoke run: 1 run of 0.05 s, 64 flows, 64-byte frames\n"
		"  --flow-hash N      instead: the flow table's hash costs and what N flows crafted\n"
		"                     to share one CRC32C cost the flow stage (docs/flow-hash.md)\n"
		"  --help             show this help\n", BENCH_BURST_MAX, BENCH_MAX_DISP);
}

static int
parse_list(const char *s, uint32_t *out, unsigned int *nb, uint32_t lo, uint32_t hi)
{
	char buf[256], *save = NULL;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	*nb = 0;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long v = strtoul(tok, &end, 10);

		if (*end != '\0' || v < lo || v > hi || *nb == BENCH_MAX_LIST)
			return -1;
		out[(*nb)++] = (uint32_t)v;
	}
	return *nb ? 0 : -1;
}

static int
parse_modes(const char *s, uint32_t *modes)
{
	char buf[256], *save = NULL;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	*modes = 0;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int found = 0;

		for (int m = 0; m < BENCH_MODE_MAX; m++)
			if (strcmp(tok, bench_mode_name((enum bench_mode)m)) == 0) {
				*modes |= 1u << m;
				found = 1;
			}
		if (!found)
			return -1;
	}
	return *modes ? 0 : -1;
}

static int
parse_uint(const char *s, unsigned int lo, unsigned int hi, unsigned int *v)
{
	char *end;
	unsigned long x = strtoul(s, &end, 10);

	if (*s == '\0' || *end != '\0' || x < lo || x > hi)
		return -1;
	*v = (unsigned int)x;
	return 0;
}

static int
parse_onoff(const char *s, int *v)
{
	if (strcmp(s, "on") == 0)
		*v = 1;
	else if (strcmp(s, "off") == 0)
		*v = 0;
	else
		return -1;
	return 0;
}

static int
parse_args(int argc, char **argv, struct bench_opts *o)
{
	static const uint32_t def_flows[] = {1, 64, 1024, 65536}, def_frames[] = {64, 512};
	int c, quick = 0;
	unsigned int need;

	memset(o, 0, sizeof(*o));
	o->modes = (1u << BENCH_MODE_MAX) - 1;
	memcpy(o->flows, def_flows, sizeof(def_flows));
	o->nb_flows = RTE_DIM(def_flows);
	memcpy(o->frames, def_frames, sizeof(def_frames));
	o->nb_frames = RTE_DIM(def_frames);
	o->runs = 5;
	o->duration = 0.5;
	o->burst = 64;
	o->backlog = 1024;
	o->pool = 65536;
	o->cold = BENCH_COLD_FLUSH;
	o->latency = 1;
	o->load_pct = 50;
	o->latency_flows = 1024;
	o->latency_frame = 64;
	o->reorder_safe = 1;
	o->dispatchers = 1;
	o->handoff = 1;
	o->recycle = 1;
	o->slots = 32;
	optind = 1;
	int idx = 0;

	while ((c = getopt_long(argc, argv, "", long_opts, &idx)) != -1) {
		int bad = 0;
		char *end;

		switch (c) {
		case 'm': bad = parse_modes(optarg, &o->modes); break;
		case 'f': bad = parse_list(optarg, o->flows, &o->nb_flows, 1, 1u << 24); break;
		case 's': bad = parse_list(optarg, o->frames, &o->nb_frames, 64, 2048); break;
		case 'r': bad = parse_uint(optarg, 1, BENCH_MAX_RUNS, &o->runs); break;
		case 'd':
			o->duration = strtod(optarg, &end);
			bad = *end != '\0' || !(o->duration > 0 && o->duration <= 60);
			break;
		case 'b': bad = parse_uint(optarg, 1, BENCH_BURST_MAX, &o->burst); break;
		case 'B': bad = parse_uint(optarg, 1, 1u << 24, &o->backlog); break;
		case 'p': bad = parse_uint(optarg, 4096, 1u << 26, &o->pool); break;
		case 'c':
			if (strcmp(optarg, "flush") == 0)
				o->cold = BENCH_COLD_FLUSH;
			else if (strcmp(optarg, "demote") == 0)
				o->cold = BENCH_COLD_DEMOTE;
			else if (strcmp(optarg, "none") == 0)
				o->cold = BENCH_COLD_NONE;
			else
				bad = 1;
			break;
		case 'L': bad = parse_onoff(optarg, &o->latency); break;
		case 'l':
			o->load_pct = strtod(optarg, &end);
			bad = *end != '\0' || !(o->load_pct >= 0.0001 && o->load_pct <= 100);
			break;
		case 'I': bad = parse_uint(optarg, 0, 100000, &o->idle_sleep_us); break;
		case 'R': bad = parse_onoff(optarg, &o->reorder_safe); break;
		case 'Y': bad = parse_onoff(optarg, &o->recycle); break;
		case 'Z':
			bad = strcmp(optarg, "32") != 0 && strcmp(optarg, "64") != 0;
			o->slots = bad ? 0 : (unsigned int)atoi(optarg);
			break;
		case 'j': o->json = optarg; break;
		case 'q': quick = 1; break;
		case 'H': bad = parse_uint(optarg, 64, 1u << 20, &o->flow_hash); break;
		case 'K': bad = parse_uint(optarg, 1, BENCH_MAX_DISP, &o->dispatchers); break;
		case 'O': bad = parse_onoff(optarg, &o->handoff); break;
		case 'C':
			if (strcmp(optarg, "hw") == 0 || strcmp(optarg, "sw") == 0)
				o->rx_cksum_hw = optarg[0] == 'h';
			else
				bad = 1;
			break;
		case 'h': usage(stdout); exit(0);
		default:
			usage(stderr);
			return -1;
		}
		if (bad) {
			fprintf(stderr, "dpdk-rps-bench: bad value '%s' for --%s (see --help)\n", optarg,
				long_opts[idx].name);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "dpdk-rps-bench: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (quick) {
		o->runs = 1;
		o->duration = 0.05;
		o->flows[0] = 64;
		o->nb_flows = 1;
		o->frames[0] = 64;
		o->nb_frames = 1;
		o->pool = 8192;
		o->latency_flows = 64;
	}
	if (o->flow_hash != 0) /* a micro-bench on this lcore alone */
		return 0;
	if (o->dispatchers >= rte_lcore_count()) {
		fprintf(stderr, "dpdk-rps-bench: --dispatchers %u leaves no worker: EAL has %u "
			"lcore(s), give it at least %u (--lcores / -l)\n", o->dispatchers,
			rte_lcore_count(), o->dispatchers + 1);
		return -1;
	}
	if (o->dispatchers > 1 && (o->modes & BENCH_ONE_DISP_MODES)) {
		/* rte_distributor has one distributor lcore: nothing to compare with K of them;
		 * the event modes here have one producer port (K of them: not written yet) */
		const uint32_t skipped = o->modes & BENCH_ONE_DISP_MODES;

		o->modes &= ~BENCH_ONE_DISP_MODES;
		if (o->modes == 0) {
			fprintf(stderr, "dpdk-rps-bench: --dispatchers %u: the distributor and event "
				"modes have one dispatcher lcore (--dispatchers 1)\n", o->dispatchers);
			return -1;
		}
		if (skipped & (1u << BENCH_DISTRIBUTOR))
			printf("# distributor skipped: rte_distributor has one distributor lcore "
			       "(--dispatchers 1 only)\n");
		for (int m = 0; m < BENCH_MODE_MAX; m++)
			if (m != BENCH_DISTRIBUTOR && (skipped & (1u << m)))
				printf("# %s skipped: one producer port (--dispatchers 1 only)\n",
				       bench_mode_name((enum bench_mode)m));
	}
	/* each dispatcher's source feeds every worker's backlog; --quick's small pool grows to
	 * what its workers need */
	need = 4 * (o->backlog + o->burst) * (rte_lcore_count() - o->dispatchers) + 2048;
	if (quick && o->pool < need)
		o->pool = need;
	if (o->pool < need) {
		fprintf(stderr, "dpdk-rps-bench: --pool %u is too small for --backlog %u on %u "
			"workers (the source must not run dry)\n", o->pool, o->backlog,
			rte_lcore_count() - o->dispatchers);
		return -1;
	}
	return 0;
}

/* Lcores share CPUs when their cpusets together hold fewer CPUs than there are lcores. */
static int
oversubscribed(void)
{
	rte_cpuset_t all;
	unsigned int lcore;

	CPU_ZERO(&all);
	RTE_LCORE_FOREACH(lcore) {
		rte_cpuset_t s = rte_lcore_cpuset(lcore);

		CPU_OR(&all, &all, &s);
	}
	return (unsigned int)CPU_COUNT(&all) < rte_lcore_count();
}

static void
cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(buf, len, "unknown");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) == 0 && colon != NULL) {
			snprintf(buf, len, "%s", colon + 2);
			buf[strcspn(buf, "\n")] = '\0';
			break;
		}
	}
	fclose(f);
}

static double
per_pkt(uint64_t cycles, uint64_t pkts)
{
	return pkts ? (double)cycles / (double)pkts : 0;
}

/* A cell's per-run figures until its medians are taken (bench_median() sorts them). */
struct cell_acc {
	double cyc[BENCH_MAX_RUNS], steer[BENCH_MAX_RUNS], thr[BENCH_MAX_RUNS];
	double dcyc[BENCH_MAX_DISP][BENCH_MAX_RUNS], dsteer[BENCH_MAX_DISP][BENCH_MAX_RUNS];
	double dbusy[BENCH_MAX_DISP][BENCH_MAX_RUNS], dbsteer[BENCH_MAX_DISP][BENCH_MAX_RUNS];
	double dthr[BENCH_MAX_DISP][BENCH_MAX_RUNS], ddes[BENCH_MAX_DISP][BENCH_MAX_RUNS];
	double stage[RPS_STAGE_MAX][BENCH_MAX_RUNS], mean[RPS_STAGE_MAX][BENCH_MAX_RUNS];
	double pipe[BENCH_MAX_RUNS];
};

static void
cell_start(const struct bench_ctx *c, enum bench_mode mode, const struct bench_traffic *t,
	   struct row *row)
{
	memset(row, 0, sizeof(*row));
	row->mode = mode;
	row->flows = t[0].flows;
	row->frame = t[0].frame;
	row->ratio_io = row->ratio_dist = row->ratio_dsw = row->ratio_sw = -1;
	row->ratio_dsw_jhash = -1;
	row->nb_disp = c->nb_disp;
}

/* Run @p i of the cell, the @p seq-th run of all the cell's modes (they interleave). */
static void
cell_add(const struct bench_ctx *c, struct row *row, struct cell_acc *a, unsigned int i,
	 unsigned int seq, const struct bench_run *r)
{
	row->mpps[i] = (double)r->delivered / r->seconds / 1e6;
	row->delivered[i] = r->delivered;
	row->rx[i] = r->rx;
	row->throttled[i] = r->throttled;
	row->seconds[i] = r->seconds;
	row->seq[i] = seq;
	a->cyc[i] = row->run_cyc[i] = per_pkt(r->cycles, r->rx);
	a->steer[i] = row->run_steer[i] = per_pkt(r->steer_cycles, r->rx);
	a->thr[i] = r->rx ? 100.0 * (double)r->throttled / (double)r->rx : 0;
	for (unsigned int d = 0; d < r->nb_disp; d++) {
		const struct bench_part *p = &r->disp[d];

		row->disp[d].mpps[i] = (double)p->delivered / p->seconds / 1e6;
		row->disp[d].rx[i] = p->rx;
		row->disp[d].delivered[i] = p->delivered;
		row->disp[d].throttled[i] = p->throttled;
		a->dcyc[d][i] = per_pkt(p->cycles, p->rx);
		a->dsteer[d][i] = per_pkt(p->steer_cycles, p->rx);
		a->dbusy[d][i] = per_pkt(p->busy_cycles, p->busy_rx);
		a->dbsteer[d][i] = per_pkt(p->busy_steer_cycles, p->busy_rx);
		a->dthr[d][i] = p->rx ? 100.0 * (double)p->throttled / (double)p->rx : 0;
		/* the share of its loop its CPU ran another thread */
		a->ddes[d][i] = p->cycles ? 100.0 * (double)p->desched_cycles /
					    (double)p->cycles : 0;
	}
	for (unsigned int s = 0; s < c->pipeline.nb; s++) {
		a->stage[s][i] = r->stage_burst_median[s];
		a->mean[s][i] = r->rx ? (double)r->stage_cycles[s] / (double)r->rx : 0;
	}
	a->pipe[i] = r->pipeline_burst_median;
	row->nb = i + 1;
}

/* The cell's medians over its @p runs runs. */
static void
cell_finish(const struct bench_ctx *c, struct row *row, struct cell_acc *a, unsigned int runs)
{
	double sorted[BENCH_MAX_RUNS];

	row->nb = runs;
	memcpy(sorted, row->mpps, sizeof(double) * runs);
	row->median = bench_median(sorted, runs);
	row->min = sorted[0];
	row->max = sorted[runs - 1];
	row->cyc = bench_median(a->cyc, runs);
	row->steer_cyc = bench_median(a->steer, runs);
	row->throttled_pct = bench_median(a->thr, runs);
	for (unsigned int d = 0; d < row->nb_disp; d++) {
		struct row_disp *rd = &row->disp[d];

		rd->lcore = c->disp[d].lcore;
		memcpy(sorted, rd->mpps, sizeof(double) * runs);
		rd->median = bench_median(sorted, runs);
		rd->cyc = bench_median(a->dcyc[d], runs);
		rd->steer_cyc = bench_median(a->dsteer[d], runs);
		rd->busy_cyc = bench_median(a->dbusy[d], runs);
		rd->busy_steer_cyc = bench_median(a->dbsteer[d], runs);
		rd->throttled_pct = bench_median(a->dthr[d], runs);
		rd->desched_pct = bench_median(a->ddes[d], runs);
	}
	if (row->mode == BENCH_SINGLE_CORE) {
		row->nb_stages = c->pipeline.nb;
		for (unsigned int s = 0; s < c->pipeline.nb; s++) {
			row->stage_ids[s] = c->pipeline.ids[s];
			row->stage_cyc[s] = bench_median(a->stage[s], runs);
			row->stage_cyc_min[s] = a->stage[s][0]; /* bench_median() sorted them */
			row->stage_cyc_mean[s] = bench_median(a->mean[s], runs);
		}
		row->pipe_cyc = bench_median(a->pipe, runs);
		row->pipe_cyc_min = a->pipe[0];
	}
}

/*
 * One cell of the matrix (a flow count and frame size), every mode of @p modes: the modes
 * take turns run by run (run 1 of each, then run 2 of each...), so that a slow spell of a
 * shared machine falls on every mode rather than on all the runs of one. Fills @p rows,
 * one per mode in enum order; @return how many, or -1.
 */
static int
measure_cells(struct bench_ctx *c, const struct bench_opts *o, uint32_t modes,
	      struct bench_traffic *t, struct row *rows)
{
	enum bench_mode list[BENCH_MODE_MAX];
	struct cell_acc *acc;
	unsigned int nb = 0, seq = 0;

	for (int m = 0; m < BENCH_MODE_MAX; m++)
		if (modes & (1u << m))
			list[nb++] = (enum bench_mode)m;
	acc = calloc(nb ? nb : 1, sizeof(*acc));
	if (acc == NULL)
		return -1;
	for (unsigned int k = 0; k < nb; k++)
		cell_start(c, list[k], t, &rows[k]);
	for (unsigned int i = 0; i < o->runs; i++)
		for (unsigned int k = 0; k < nb; k++) {
			struct bench_run r;

			if (bench_run_mode(c, list[k], t, &r) < 0) {
				free(acc);
				return -1;
			}
			cell_add(c, &rows[k], &acc[k], i, seq++, &r);
		}
	for (unsigned int k = 0; k < nb; k++)
		cell_finish(c, &rows[k], &acc[k], o->runs);
	free(acc);
	return (int)nb;
}

static void
print_row(const struct row *r, int over)
{
	char rio[16] = "-", rdist[16] = "-", rdsw[16] = "-", rsw[16] = "-";

	if (r->ratio_io >= 0)
		snprintf(rio, sizeof(rio), "%.2f", r->ratio_io);
	if (r->ratio_dist >= 0)
		snprintf(rdist, sizeof(rdist), "%.2f", r->ratio_dist);
	if (r->ratio_dsw >= 0)
		snprintf(rdsw, sizeof(rdsw), "%.2f", r->ratio_dsw);
	if (r->ratio_sw >= 0)
		snprintf(rsw, sizeof(rsw), "%.2f", r->ratio_sw);
	printf("%-15s %6u %5u %8.2f %8.2f-%-8.2f %7.1f %7.1f %6s %6s %6s %6s %8.3f%s\n",
	       bench_mode_name(r->mode), r->flows, r->frame, r->median, r->min, r->max, r->cyc,
	       r->steer_cyc, rio, rdist, rdsw, rsw, r->throttled_pct,
	       over ? "  (oversubscribed)" : "");
	if (r->ratio_dsw_jhash >= 0 && r->mode != BENCH_RSS)
		printf("#   %s / event_dsw_jhash (both hash in software): %.2f\n",
		       bench_mode_name(r->mode), r->ratio_dsw_jhash);
	/* with several dispatchers, each one's part (busy: iterations that kept their CPU) */
	for (unsigned int d = 0; r->nb_disp > 1 && d < r->nb_disp; d++) {
		const struct row_disp *rd = &r->disp[d];

		printf("  dispatcher %u (lcore %u): %.2f Mpps, %.1f cyc/pkt (steer %.1f), busy "
		       "%.1f cyc/pkt (steer %.1f), thrtl %.3f%%, descheduled %.1f%%\n", d, rd->lcore,
		       rd->median, rd->cyc, rd->steer_cyc, rd->busy_cyc, rd->busy_steer_cyc,
		       rd->throttled_pct, rd->desched_pct);
	}
	if (r->nb_stages > 0) {
		printf("#   cycles/pkt per stage, median burst: median of runs (min; mean of "
		       "bursts):");
		for (unsigned int s = 0; s < r->nb_stages; s++)
			printf(" %s %.1f (%.1f; %.1f)",
			       rps_stage_name((enum rps_stage_id)r->stage_ids[s]), r->stage_cyc[s],
			       r->stage_cyc_min[s], r->stage_cyc_mean[s]);
		printf("; all stages %.1f (%.1f)\n", r->pipe_cyc, r->pipe_cyc_min);
	}
	fflush(stdout);
}

/* Heap bytes a constructor takes on this socket. */
static int64_t
heap_used(void)
{
	struct rte_malloc_socket_stats s;

	if (rte_malloc_get_socket_stats((int)rte_socket_id(), &s) < 0)
		return 0;
	return (int64_t)s.heap_allocsz_bytes;
}

struct memory {
	int64_t ring, backlog, flow_table, reasm, scratch, buckets, per_flow, per_worker;
};

static void
measure_memory(const struct bench_opts *o, struct memory *m)
{
	struct rps_backlog b;
	struct rps_flow_conf fc = {.size = 65536, .idle_timeout_ms = 30000,
				   .closed_timeout_ms = 1000};
	struct rps_flow_table *ft;
	struct rps_reasm *ra;
	struct rps_buckets *bk;
	struct rps_lcore_stats st;
	int64_t before, small;

	memset(m, 0, sizeof(*m));
	memset(&st, 0, sizeof(st));
	before = heap_used();
	if (rps_backlog_init(&b, "bench_mem", o->backlog, (int)rte_socket_id()) == 0) {
		m->ring = heap_used() - before;
		rps_backlog_fini(&b);
	}
	m->backlog = (int64_t)sizeof(struct rps_backlog) + (int64_t)sizeof(struct rps_lcore_stats);
	before = heap_used();
	ft = rps_flow_table_create(&fc, "bench_mem_a", (int)rte_socket_id());
	small = heap_used() - before;
	m->flow_table = small;
	rps_flow_table_free(ft);
	fc.size = 131072;
	before = heap_used();
	ft = rps_flow_table_create(&fc, "bench_mem_b", (int)rte_socket_id());
	m->per_flow = (heap_used() - before - small) / 65536;
	rps_flow_table_free(ft);
	before = heap_used();
	ra = rps_reasm_create(4096, 2000, (int)rte_socket_id());
	m->reasm = heap_used() - before;
	rps_reasm_destroy(ra, &st);
	m->scratch = (int64_t)(sizeof(struct rte_mbuf *) * o->burst + 2 * sizeof(uint16_t));
	before = heap_used();
	bk = rps_buckets_create(4096, (int)rte_socket_id());
	m->buckets = heap_used() - before;
	rps_buckets_free(bk);
	m->per_worker = m->ring + m->backlog + m->flow_table + m->reasm + m->scratch;
}

static void
write_json_u64s(FILE *f, const char *name, const uint64_t *v, unsigned int n)
{
	fprintf(f, ", \"%s\": [", name);
	for (unsigned int k = 0; k < n; k++)
		fprintf(f, "%s%" PRIu64, k ? ", " : "", v[k]);
	fprintf(f, "]");
}

static void
write_json_ratio(FILE *f, const char *name, double v, const char *sep)
{
	if (v >= 0)
		fprintf(f, "\"%s\": %.3f%s", name, v, sep);
	else
		fprintf(f, "\"%s\": null%s", name, sep);
}

/* Every run of a result, in its order (seq: its place among all the runs of the cell's
 * modes, which take turns). */
static void
write_json_runs(FILE *f, const struct row *r)
{
	fprintf(f, ", \"runs\": [");
	for (unsigned int k = 0; k < r->nb; k++)
		fprintf(f, "%s{\"run\": %u, \"seq\": %u, \"mpps\": %.6f, \"rx\": %" PRIu64 ", "
			"\"delivered\": %" PRIu64 ", \"throttled\": %" PRIu64 ", \"seconds\": %.6f, "
			"\"cycles_per_pkt\": %.2f, \"steer_cycles_per_pkt\": %.2f}", k ? ", " : "",
			k, r->seq[k], r->mpps[k], r->rx[k], r->delivered[k], r->throttled[k],
			r->seconds[k], r->run_cyc[k], r->run_steer[k]);
	fprintf(f, "]");
}

/* One dispatcher's figures in a result (every result has them, one per dispatcher), and
 * the packet counts of each run: what the totals add up from. */
static void
write_json_disp(FILE *f, const struct row *r)
{
	write_json_u64s(f, "runs_delivered", r->delivered, r->nb);
	fprintf(f, ", \"dispatchers\": %u, \"per_dispatcher\": [", r->nb_disp);
	for (unsigned int d = 0; d < r->nb_disp; d++) {
		const struct row_disp *rd = &r->disp[d];

		fprintf(f, "%s{\"dispatcher\": %u, \"lcore\": %u, \"runs_mpps\": [", d ? ", " : "",
			d, rd->lcore);
		for (unsigned int k = 0; k < r->nb; k++)
			fprintf(f, "%s%.6f", k ? ", " : "", rd->mpps[k]);
		fprintf(f, "]");
		write_json_u64s(f, "runs_rx", rd->rx, r->nb);
		write_json_u64s(f, "runs_delivered", rd->delivered, r->nb);
		write_json_u64s(f, "runs_throttled", rd->throttled, r->nb);
		fprintf(f, ", \"median_mpps\": %.6f, \"cycles_per_pkt\": %.2f, "
			"\"steer_cycles_per_pkt\": %.2f, \"busy_cycles_per_pkt\": %.2f, "
			"\"busy_steer_cycles_per_pkt\": %.2f, \"throttled_pct\": %.4f, "
			"\"descheduled_pct\": %.2f}", rd->median, rd->cyc, rd->steer_cyc, rd->busy_cyc,
			rd->busy_steer_cyc, rd->throttled_pct, rd->desched_pct);
	}
	fprintf(f, "]");
}

static void
write_json(FILE *f, const char *cmd, const struct bench_opts *o, const struct row *rows,
	   unsigned int nb, int over, const struct bench_latency *lat, double lat_rate,
	   const uint64_t *hist, const struct memory *mem, const struct handoff *ho)
{
	const unsigned int workers = rte_lcore_count() - o->dispatchers;

	char cpu[128];
	char date[32];
	time_t now = time(NULL);

	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	cpu_model(cpu, sizeof(cpu));
	fprintf(f, "{\n \"command\": \"%s\",\n \"date\": \"%s\",\n", cmd, date);
	fprintf(f, " \"machine\": {\"cpu\": \"%s\", \"lcores\": %u, \"tsc_hz\": %" PRIu64 "},\n",
		cpu, rte_lcore_count(), rte_get_tsc_hz());
	fprintf(f, " \"dpdk\": \"%s\",\n", rte_version());
	fprintf(f, " \"config\": {\"runs\": %u, \"duration_s\": %g, \"workers\": %u, "
		"\"oversubscribed\": %s, \"burst\": %u, \"backlog\": %u, \"pool_mbufs\": %u, "
		"\"cold\": \"%s\", \"reorder_safe\": %s, \"dispatchers\": %u, \"recycle\": %s, "
		"\"rx_cksum\": \"%s\", \"slots\": %u, \"interleaved\": true},\n",
		o->runs, o->duration, workers, over ? "true" : "false", o->burst, o->backlog, o->pool,
		bench_cold_name(o->cold), o->reorder_safe ? "true" : "false", o->dispatchers,
		o->recycle ? "true" : "false", o->rx_cksum_hw ? "hw" : "sw", o->slots);
	fprintf(f, " \"results\": [\n");
	for (unsigned int i = 0; i < nb; i++) {
		const struct row *r = &rows[i];

		fprintf(f, "  {\"mode\": \"%s\", \"flows\": %u, \"frame\": %u, \"workers\": %u, "
			"\"oversubscribed\": %s, \"runs_mpps\": [", bench_mode_name(r->mode),
			r->flows, r->frame, workers, over ? "true" : "false");
		for (unsigned int k = 0; k < r->nb; k++)
			fprintf(f, "%s%.6f", k ? ", " : "", r->mpps[k]);
		fprintf(f, "], \"median_mpps\": %.6f, \"min_mpps\": %.6f, \"max_mpps\": %.6f, "
			"\"cycles_per_pkt\": %.2f, \"steer_cycles_per_pkt\": %.2f, "
			"\"throttled_pct\": %.4f, ", r->median, r->min, r->max, r->cyc, r->steer_cyc,
			r->throttled_pct);
		if (r->nb_stages > 0) {
			fprintf(f, "\"stage_cycles\": {");
			for (unsigned int s = 0; s < r->nb_stages; s++)
				fprintf(f, "%s\"%s\": %.2f", s ? ", " : "",
					rps_stage_name((enum rps_stage_id)r->stage_ids[s]),
					r->stage_cyc[s]);
			fprintf(f, "}, \"stage_cycles_min\": {");
			for (unsigned int s = 0; s < r->nb_stages; s++)
				fprintf(f, "%s\"%s\": %.2f", s ? ", " : "",
					rps_stage_name((enum rps_stage_id)r->stage_ids[s]),
					r->stage_cyc_min[s]);
			fprintf(f, "}, \"stage_cycles_mean\": {");
			for (unsigned int s = 0; s < r->nb_stages; s++)
				fprintf(f, "%s\"%s\": %.2f", s ? ", " : "",
					rps_stage_name((enum rps_stage_id)r->stage_ids[s]),
					r->stage_cyc_mean[s]);
			fprintf(f, "}, \"stages_cycles_per_pkt\": %.2f, "
				"\"stages_cycles_per_pkt_min\": %.2f, ", r->pipe_cyc, r->pipe_cyc_min);
		}
		if (r->ratio_io >= 0)
			fprintf(f, "\"ratio_io_limit\": %.3f, ", r->ratio_io);
		else
			fprintf(f, "\"ratio_io_limit\": null, ");
		write_json_ratio(f, "ratio_distributor", r->ratio_dist, ", ");
		write_json_ratio(f, "ratio_event_dsw", r->ratio_dsw, ", ");
		write_json_ratio(f, "ratio_event_sw", r->ratio_sw, ", ");
		write_json_ratio(f, "ratio_event_dsw_jhash", r->ratio_dsw_jhash, "");
		write_json_runs(f, r);
		write_json_disp(f, r);
		fprintf(f, "}");
		fprintf(f, "%s\n", i + 1 < nb ? "," : "");
	}
	fprintf(f, " ],\n");
	if (lat != NULL) {
		int first = 1;

		fprintf(f, " \"latency\": {\"mode\": \"rss\", \"flows\": %u, \"frame\": %u, "
			"\"load_pct\": %g, \"idle_sleep_us\": %u, \"rate_mpps\": %.3f, "
			"\"samples\": %" PRIu64 ", "
			"\"p50_ns\": %.0f, \"p99_ns\": %.0f, \"p999_ns\": %.0f, \"max_ns\": %.0f, "
			"\"bucket_ns\": %u, \"overflow_ns\": %u, \"histogram\": [", o->latency_flows,
			o->latency_frame, o->load_pct, o->idle_sleep_us, lat_rate, lat->samples,
			lat->p50_ns, lat->p99_ns,
			lat->p999_ns, lat->max_ns, 1u << BENCH_HIST_SHIFT,
			BENCH_HIST_BUCKETS << BENCH_HIST_SHIFT);
		for (unsigned int i = 0; i <= BENCH_HIST_BUCKETS; i++) {
			if (hist[i] == 0)
				continue;
			fprintf(f, "%s[%.0f, %" PRIu64 "]", first ? "" : ", ",
				i < BENCH_HIST_BUCKETS ? (double)((uint64_t)(i + 1) << BENCH_HIST_SHIFT) :
				lat->max_ns, hist[i]);
			first = 0;
		}
		fprintf(f, "]},\n");
	}
	if (ho != NULL)
		fprintf(f, " \"handoff\": {\"flows\": %u, \"frame\": %u, \"runs\": %u, "
			"\"burst\": %u, \"enqueue_cycles_per_pkt\": %.2f, "
			"\"dequeue_cycles_per_pkt\": %.2f, \"cycles_per_pkt\": %.2f},\n",
			o->latency_flows, o->latency_frame, ho->runs, o->burst, ho->enq_cyc,
			ho->deq_cyc, ho->enq_cyc + ho->deq_cyc);
	fprintf(f, " \"memory\": {\"bytes_per_worker\": %" PRId64 ", \"worker_detail\": "
		"{\"backlog_ring\": %" PRId64 ", \"backlog_and_counters\": %" PRId64 ", "
		"\"flow_table_65536\": %" PRId64 ", \"reassembly_4096\": %" PRId64 ", "
		"\"steer_scratch\": %" PRId64 "}, \"bytes_per_flow\": %" PRId64 ", "
		"\"bucket_table_per_rx_queue\": %" PRId64 "}\n}\n", mem->per_worker, mem->ring,
		mem->backlog, mem->flow_table, mem->reasm, mem->scratch, mem->per_flow,
		mem->buckets);
}

static void
join_args(int argc, char **argv, char *buf, size_t len)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (int i = 0; i < argc && pos + 1 < len; i++) {
		int n = snprintf(buf + pos, len - pos, "%s%s", i ? " " : "", argv[i]);

		if (n < 0)
			break;
		pos += (size_t)n;
	}
	for (char *p = buf; *p; p++)
		if (*p == '"' || *p == '\\')
			*p = '\'';
}

static struct row *
find_row(struct row *rows, unsigned int nb, enum bench_mode m, uint32_t flows, uint32_t frame)
{
	for (unsigned int i = 0; i < nb; i++)
		if (rows[i].mode == m && rows[i].flows == flows && rows[i].frame == frame)
			return &rows[i];
	return NULL;
}

/* The row of mode @p m among a cell's @p n rows, or NULL. */
static const struct row *
cell_mode(const struct row *cell, unsigned int n, enum bench_mode m)
{
	for (unsigned int i = 0; i < n; i++)
		if (cell[i].mode == m)
			return &cell[i];
	return NULL;
}

/* @p r's median over @p base's, or -1 where there is no base (or it is @p r). */
static double
ratio(const struct row *r, const struct row *base)
{
	return base != NULL && base != r && base->median > 0 ? r->median / base->median : -1;
}

/* One source per dispatcher, alike, each on its dispatcher's socket. @return 0 or -1. */
static int
sources_build(const struct bench_ctx *c, struct bench_traffic *t, unsigned int pool,
	      uint32_t flows, uint32_t frame)
{
	for (uint16_t d = 0; d < c->nb_disp; d++)
		if (bench_traffic_build(&t[d], pool, flows, frame,
					c->o->rx_cksum_hw ? RTE_MBUF_F_RX_IP_CKSUM_GOOD |
					RTE_MBUF_F_RX_L4_CKSUM_GOOD : 0,
					(int)rte_lcore_to_socket_id(c->disp[d].lcore)) < 0) {
			while (d-- > 0)
				bench_traffic_free(&t[d]);
			return -1;
		}
	return 0;
}

static void
sources_free(const struct bench_ctx *c, struct bench_traffic *t)
{
	for (uint16_t d = 0; d < c->nb_disp; d++)
		bench_traffic_free(&t[d]);
}

/* The handoff probe over the latency run's traffic: medians of --runs runs. */
static int
run_handoff(struct bench_ctx *c, const struct bench_opts *o, struct handoff *ho)
{
	struct bench_traffic t[BENCH_MAX_DISP];
	double enq[BENCH_MAX_RUNS], deq[BENCH_MAX_RUNS];
	int rc = 0;

	if (sources_build(c, t, o->pool, o->latency_flows, o->latency_frame) < 0)
		return -1;
	for (unsigned int i = 0; i < o->runs && rc == 0; i++) {
		struct bench_run r;

		rc = bench_run_handoff(c, t, &r);
		enq[i] = per_pkt(r.enq_cycles, r.enq_pkts);
		deq[i] = per_pkt(r.deq_cycles, r.deq_pkts);
	}
	ho->runs = o->runs;
	ho->enq_cyc = bench_median(enq, o->runs);
	ho->deq_cyc = bench_median(deq, o->runs);
	sources_free(c, t);
	return rc;
}

static int
run_latency(struct bench_ctx *c, const struct bench_opts *o, struct row *rows,
	    unsigned int nb, struct bench_latency *lat, double *rate, uint64_t *hist)
{
	struct bench_traffic t[BENCH_MAX_DISP];
	struct row *base, tmp;
	struct bench_run r;
	uint64_t max_ns = 0;
	int rc = -1;

	if (sources_build(c, t, o->pool, o->latency_flows, o->latency_frame) < 0)
		return -1;
	base = find_row(rows, nb, BENCH_RSS, o->latency_flows, o->latency_frame);
	if (base == NULL) {
		if (measure_cells(c, o, 1u << BENCH_RSS, t, &tmp) < 0)
			goto out;
		base = &tmp;
	}
	*rate = base->median * o->load_pct / 100.0;
	for (uint16_t i = 0; i < c->nb_workers; i++) {
		memset(c->workers[i].hist, 0, sizeof(uint64_t) * (BENCH_HIST_BUCKETS + 1));
		c->workers[i].hist_max = 0;
	}
	c->pace_mpps = *rate;
	rc = bench_run_mode(c, BENCH_RSS, t, &r);
	c->pace_mpps = 0;
	memset(hist, 0, sizeof(uint64_t) * (BENCH_HIST_BUCKETS + 1));
	for (uint16_t i = 0; i < c->nb_workers; i++) {
		bench_hist_merge(hist, c->workers[i].hist);
		max_ns = RTE_MAX(max_ns, c->workers[i].hist_max);
	}
	bench_latency_summary(hist, max_ns, lat);
out:
	sources_free(c, t);
	return rc;
}

int
main(int argc, char **argv)
{
	struct bench_opts o;
	struct bench_ctx c;
	struct row *rows;
	struct bench_latency lat;
	struct memory mem;
	struct handoff ho;
	uint64_t *hist = NULL;
	double lat_rate = 0;
	unsigned int nb = 0;
	char cmd[1024];
	int over, ret, cold, have_lat = 0, have_ho = 0;

	join_args(argc, argv, cmd, sizeof(cmd));
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "dpdk-rps-bench: EAL initialisation failed: %s\n",
			rte_strerror(rte_errno));
		return 2;
	}
	argc -= ret;
	argv += ret;
	if (parse_args(argc, argv, &o) < 0)
		return 2;
	if (o.flow_hash != 0)
		return bench_flow_hash(o.flow_hash) < 0 ? 1 : 0;
	cold = bench_cold_resolve(o.cold);
	if (cold < 0) {
		fprintf(stderr, "dpdk-rps-bench: --cold demote: this CPU has no CLDEMOTE "
			"(use --cold flush or none)\n");
		return 2;
	}
	o.cold = (enum bench_cold)cold;
	if (bench_ctx_init(&c, &o) < 0) {
		fprintf(stderr, "dpdk-rps-bench: set-up failed (give EAL more memory with -m?)\n");
		return 1;
	}
	over = oversubscribed();
	rows = calloc((size_t)BENCH_MODE_MAX * o.nb_flows * o.nb_frames, sizeof(*rows));
	hist = calloc(BENCH_HIST_BUCKETS + 1, sizeof(*hist));
	if (rows == NULL || hist == NULL)
		return 1;
	printf("# %s\n# %u dispatcher%s + %u worker(s)%s, %u run(s) x %.2f s, burst %u, backlog %u, "
	       "pool %u, cold %s, rx checksums %s\n", cmd, c.nb_disp, c.nb_disp > 1 ? "s" : "",
	       c.nb_workers, over ? " (oversubscribed: lcores share CPUs)" : "", o.runs, o.duration,
	       o.burst, o.backlog, o.pool, bench_cold_name(o.cold),
	       o.rx_cksum_hw ? "verified by the NIC" : "left to validate");
	printf("%-15s %6s %5s %8s %17s %7s %7s %6s %6s %6s %6s %8s\n", "mode", "flows", "frame",
	       "Mpps", "min-max", "cyc/pkt", "steer", "x_io", "x_dist", "x_dsw", "x_sw", "thrtl%");
	for (unsigned int fi = 0; fi < o.nb_frames; fi++) {
		for (unsigned int ni = 0; ni < o.nb_flows; ni++) {
			struct bench_traffic t[BENCH_MAX_DISP];
			unsigned int first = nb;

			if (sources_build(&c, t, o.pool, o.flows[ni], o.frames[fi]) < 0) {
				fprintf(stderr, "dpdk-rps-bench: cannot build %u pool(s) of %u mbufs "
					"(give EAL more memory with -m)\n", c.nb_disp, o.pool);
				return 1;
			}
			int k = measure_cells(&c, &o, o.modes, t, &rows[nb]);

			if (k < 0)
				return 1;
			nb += (unsigned int)k;
			for (unsigned int i = first; i < nb; i++) {
				const struct row *cell = rows + first;
				const unsigned int n = nb - first;
				enum bench_mode m = rows[i].mode;

				rows[i].ratio_io = ratio(&rows[i], cell_mode(cell, n, BENCH_IO_LIMIT));
				if (m == BENCH_RSS || m == BENCH_JHASH || m == BENCH_TOEPLITZ) {
					rows[i].ratio_dist = ratio(&rows[i],
								   cell_mode(cell, n, BENCH_DISTRIBUTOR));
					rows[i].ratio_dsw = ratio(&rows[i],
								  cell_mode(cell, n, BENCH_EVENT_DSW));
					rows[i].ratio_sw = ratio(&rows[i],
								 cell_mode(cell, n, BENCH_EVENT_SW));
					rows[i].ratio_dsw_jhash = ratio(&rows[i],
						cell_mode(cell, n, BENCH_EVENT_DSW_JHASH));
				}
				print_row(&rows[i], over);
			}
			sources_free(&c, t);
		}
	}
	if (o.latency) {
		if (run_latency(&c, &o, rows, nb, &lat, &lat_rate, hist) < 0)
			return 1;
		have_lat = 1;
		printf("# latency RX -> worker dequeue, rss, %u flows, %u-byte frames, %g%% load "
		       "(%.4f Mpps, idle-sleep %u us): p50 %.0f ns, p99 %.0f ns, p99.9 %.0f ns, max %.0f ns "
		       "(%" PRIu64 " samples)\n", o.latency_flows, o.latency_frame, o.load_pct,
		       lat_rate, o.idle_sleep_us, lat.p50_ns, lat.p99_ns, lat.p999_ns, lat.max_ns, lat.samples);
	}
	if (o.handoff) {
		if (run_handoff(&c, &o, &ho) < 0)
			return 1;
		have_ho = 1;
		printf("# handoff (SP/SC backlog ring, whole bursts of %u, %u flows, %u-byte frames): "
		       "enqueue %.1f + dequeue %.1f = %.1f cycles/pkt\n", o.burst, o.latency_flows,
		       o.latency_frame, ho.enq_cyc, ho.deq_cyc, ho.enq_cyc + ho.deq_cyc);
	}
	measure_memory(&o, &mem);
	printf("# memory: %" PRId64 " bytes per worker (backlog ring %" PRId64 ", flow table of "
	       "65536 %" PRId64 ", reassembly %" PRId64 "), %" PRId64 " bytes per tracked flow\n",
	       mem.per_worker, mem.ring, mem.flow_table, mem.reasm, mem.per_flow);
	if (o.json != NULL) {
		FILE *f = fopen(o.json, "w");

		if (f == NULL) {
			fprintf(stderr, "dpdk-rps-bench: --json %s: %s\n", o.json, strerror(errno));
			return 1;
		}
		write_json(f, cmd, &o, rows, nb, over, have_lat ? &lat : NULL, lat_rate, hist, &mem,
			   have_ho ? &ho : NULL);
		if (fclose(f) != 0) {
			fprintf(stderr, "dpdk-rps-bench: --json %s: %s\n", o.json, strerror(errno));
			return 1;
		}
	}
	bench_ctx_fini(&c);
	free(rows);
	free(hist);
	rte_eal_cleanup();
	return 0;
}
