/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_hooks.c: fault injection for the tests, so that no test depends on the speed of the
 * machine to create its condition. Compiled only with -Dtest_hooks=true (scripts/run-tests.sh's
 * trees; the default is false, so a build a user makes has none) and inert unless the
 * variable is set:
 *
 *   RPS_TEST_WORKER_DELAY_NS=N   every worker spends N ns per packet after its stages: a
 *                                worker slower than the RX lcore on any machine (overload,
 *                                backlog_full, flow_limit tests)
 *   RPS_TEST_RX_QUEUES=N         the RX lcore polls only the port's first N queues: the
 *                                others are queues that never receive (idle-queue tests)
 *   RPS_TEST_RX_DELAY_NS=N       the RX lcore spends N ns per packet received: a paced
 *                                source, so a finite capture lasts long enough for remaps
 *   RPS_TEST_WORKER_STALL=W:P:MS[:EVERY]  worker index W stops polling its backlog for MS ms
 *                                once it has dequeued P packets (again EVERY ms after each
 *                                stall ends, if given): a stalled worker (--stall-timeout)
 *   RPS_TEST_RX_GAP=P:MS[:random]  after every P packets received the RX lcore pauses MS ms
 *                                (random: 0 to MS ms, uniform, each time): a source with
 *                                silences long enough for every backlog to drain on any
 *                                machine (deferred moves then complete), or for every worker
 *                                to fall asleep (the wake-up's stress test)
 *   RPS_TEST_FLOW_HASH=crc32c    the flow tables hash with CRC32C, seed 0, as before issue
 *                                13: a flooding test shows its capture does collide
 *   RPS_TEST_RING_DRAIN=NAME:MS  the rings of the net_ring port NAME (ETH_RXTX<q>_NAME, what
 *                                its TX queues fill) are left alone for MS ms, then emptied
 *                                every 5 ms by a thread of the hook: a TX port that
 *                                is stuck (nobody drains it) and then recovers
 *   RPS_TEST_RX_HOLD=PATH        while the file PATH exists the RX lcore polls no queue (checked
 *                                every 10 ms): the offered load falls to zero and comes back
 *   RPS_TEST_START_PAUSE_MS=MS   start-up stops MS ms right after EAL's initialisation (before
 *                                the ports): the sockets EAL made can be looked at before
 *                                anything else of dpdk-rps runs
 *   RPS_TEST_SNAP_STALL=W:MS     worker index W stops for MS ms in the middle of writing its
 *                                first /rps/flows snapshot (sequence count odd): a worker
 *                                preempted or given up on while a reader wants its flows
 *   RPS_TEST_TEL_HOLD=CMD:MS     the telemetry command CMD (e.g. /rps/config) takes MS ms, each
 *                                time, counted in flight: a command still running at exit
 *   RPS_TEST_SELF_WAKE_MS=MS     a sleeping worker wakes by itself after MS ms instead of
 *                                RPS_WAKE_IDLE_US (10 ms): a kick the RX lcore fails to
 *                                make shows as packets held for seconds, not 10 ms
 *                                (integration-wake)
 *   RPS_TEST_EXIT_WAIT_S=S       the exit gives up on a worker still running (not stalled)
 *                                S s after the stop instead of 10 (1..10): the same give-up,
 *                                sooner (stuck-worker tests)
 *
 * Each hook says so in the log when its variable takes effect ("test hook: ..."). A build
 * without the hooks has none of this file: app.h's stubs stand in, no RPS_TEST_* variable is
 * read, and the binary holds no such name (unit-no-test-hooks checks it). A test that needs a
 * hook asks rpstest.hooks_built() first and exits 77 (skipped) without one.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_random.h>
#include <rte_ring.h>

#include "app.h"

#define DELAY_VAR "RPS_TEST_WORKER_DELAY_NS"
#define RXQ_VAR "RPS_TEST_RX_QUEUES"
#define RX_DELAY_VAR "RPS_TEST_RX_DELAY_NS"
#define RX_GAP_VAR "RPS_TEST_RX_GAP"
#define STALL_VAR "RPS_TEST_WORKER_STALL"
#define FLOW_HASH_VAR "RPS_TEST_FLOW_HASH"
#define RING_DRAIN_VAR "RPS_TEST_RING_DRAIN"
#define RX_HOLD_VAR "RPS_TEST_RX_HOLD"
#define START_PAUSE_VAR "RPS_TEST_START_PAUSE_MS"
#define SNAP_STALL_VAR "RPS_TEST_SNAP_STALL"
#define TEL_HOLD_VAR "RPS_TEST_TEL_HOLD"
#define EXIT_WAIT_VAR "RPS_TEST_EXIT_WAIT_S"
#define SELF_WAKE_VAR "RPS_TEST_SELF_WAKE_MS"

void
rps_test_spin(uint64_t tsc)
{
	const uint64_t end = rte_rdtsc() + tsc;

	while (rte_rdtsc() < end)
		rte_pause();
}

uint16_t
rps_test_rx_queues(const struct rps_app_io *io)
{
	const char *v = getenv(RXQ_VAR);

	if (v == NULL)
		return io->nb_rxq;
	char *end;
	unsigned long n = strtoul(v, &end, 10);

	if (*v != '\0' && *end == '\0' && n >= 1 && n <= io->nb_rxq) {
		RPS_LOG(WARNING, "test hook: polling %lu of %u RX queue(s) (%s)", n,
			io->nb_rxq, RXQ_VAR);
		return (uint16_t)n;
	}
	RPS_LOG(ERR, "test hook: %s=%s is not 1..%u: ignored", RXQ_VAR, v, io->nb_rxq);
	return io->nb_rxq;
}

/* A delay in ns from variable @p var, as TSC cycles (0: unset or invalid). */
static uint64_t
delay_var(const char *var, const char *who)
{
	const char *v = getenv(var);

	if (v == NULL)
		return 0;
	char *end;
	unsigned long long ns = strtoull(v, &end, 10);

	if (*v == '\0' || *end != '\0' || ns > 1000000000ull) {
		RPS_LOG(ERR, "test hook: %s=%s is not 0..1000000000 (ns): ignored", var, v);
		return 0;
	}
	RPS_LOG(WARNING, "test hook: %s spends %llu ns per packet (%s)", who, ns, var);
	return (uint64_t)((double)ns * (double)rte_get_tsc_hz() / 1e9);
}

void
rps_test_rx_gap(struct rps_app_test *test, uint16_t n)
{
	test->rx_gap_seen += n;
	if (test->rx_gap_seen >= test->rx_gap_every) {
		test->rx_gap_seen = 0;
		rps_test_spin(test->rx_gap_random ? rte_rand_max(test->rx_gap_tsc + 1) :
			      test->rx_gap_tsc);
	}
}

/* RPS_TEST_RX_GAP=P:MS[:random] into app->test.rx_gap_every / _tsc / _random. */
static void
rx_gap_var(struct rps_app *app)
{
	const char *v = getenv(RX_GAP_VAR);

	if (v == NULL)
		return;
	char *end, *end2;
	unsigned long every = strtoul(v, &end, 10);
	unsigned long ms = *end == ':' ? strtoul(end + 1, &end2, 10) : 0;
	int random = *end == ':' && strcmp(end2, ":random") == 0;

	if (*v == '\0' || *end != ':' || end[1] == '\0' || (*end2 != '\0' && !random) ||
	    every == 0 ||
	    every > 100000000ul || ms == 0 || ms > 10000) {
		RPS_LOG(ERR, "test hook: %s=%s is not PACKETS:MS[:random] (1..10000 ms): "
			"ignored",
			RX_GAP_VAR, v);
		return;
	}
	RPS_LOG(WARNING, "test hook: the RX lcore pauses %s%lu ms after every %lu packets "
		"(%s)", random ? "0 to " : "", ms, every, RX_GAP_VAR);
	app->test.rx_gap_random = random;
	app->test.rx_gap_every = every;
	app->test.rx_gap_tsc = (uint64_t)ms * rte_get_tsc_hz() / 1000;
}

int
rps_test_flow_crc(void)
{
	const char *v = getenv(FLOW_HASH_VAR);

	if (v == NULL)
		return 0;
	if (strcmp(v, "crc32c") == 0) {
		RPS_LOG(WARNING, "test hook: this flow table hashes with CRC32C, seed 0 (%s)",
			FLOW_HASH_VAR);
		return 1;
	}
	RPS_LOG(ERR, "test hook: %s=%s is not crc32c: ignored", FLOW_HASH_VAR, v);
	return 0;
}

void
rps_test_worker_stall(struct rps_worker *w)
{
	if (RPS_CTR_READ(w->stats.received_rps) < w->test.stall_after ||
	    rte_rdtsc() < w->test.stall_not_before)
		return;
	RPS_LOG(WARNING, "test hook: worker lcore %u stops for %.0f ms", w->lcore,
		(double)w->test.stall_tsc * 1e3 / (double)rte_get_tsc_hz());
	rps_test_spin(w->test.stall_tsc);
	if (w->test.stall_every_tsc == 0)
		w->test.stall_tsc = 0; /* once */
	else
		w->test.stall_not_before = rte_rdtsc() + w->test.stall_every_tsc;
}

/* RPS_TEST_WORKER_STALL=W:P:MS[:EVERY] into the worker's test.stall_* fields. */
static void
stall_var(struct rps_app *app)
{
	const char *v = getenv(STALL_VAR);

	if (v == NULL)
		return;
	unsigned long long f[4] = { 0, 0, 0, 0 };
	int nf = 0;
	const char *p = v;

	while (nf < 4) {
		char *end;

		if (*p < '0' || *p > '9')
			break;
		f[nf++] = strtoull(p, &end, 10);
		p = end;
		if (*p != ':')
			break;
		p++;
	}
	if (*p != '\0' || nf < 3 || f[0] >= app->lc.nb_workers || f[2] == 0 ||
	    f[2] > 3600000 || f[3] > 3600000) {
		RPS_LOG(ERR, "test hook: %s=%s is not W:PACKETS:MS[:EVERY_MS] with W < %u: "
			"ignored", STALL_VAR, v, app->lc.nb_workers);
		return;
	}
	struct rps_worker *w = &app->lc.workers[f[0]];

	w->test.stall_after = f[1];
	w->test.stall_tsc = f[2] * rte_get_tsc_hz() / 1000;
	w->test.stall_every_tsc = f[3] * rte_get_tsc_hz() / 1000;
	RPS_LOG(WARNING, "test hook: worker %llu (lcore %u) stops for %llu ms after %llu "
		"packets%s (%s)", f[0], w->lcore, f[2], f[1], f[3] ? ", repeatedly" : "",
		STALL_VAR);
}

/*
 * The hooks that act from outside the lcores (ring drain, RX hold) share one thread, started
 * at init when either is set and stopped by rps_test_hooks_fini() before the ports close.
 */
static struct {
	char name[RTE_RING_NAMESIZE];  /* RING_DRAIN: the net_ring port, "" if none */
	unsigned long ms;              /* RING_DRAIN: after this long */
	const char *hold;              /* RX_HOLD: the file, NULL if none */
	struct rps_app *app;
	int stop;
	int running;
	pthread_t thread;
} hk;

/* The rings of net_ring port hk.name, into @p r: how many. */
static unsigned int
drain_rings(struct rte_ring **r)
{
	unsigned int nr = 0;

	for (unsigned int q = 0; q < RTE_MAX_QUEUES_PER_PORT; q++) {
		char rn[RTE_RING_NAMESIZE + 16];

		snprintf(rn, sizeof(rn), "ETH_RXTX%u_%s", q, hk.name);
		r[nr] = rte_ring_lookup(rn);
		if (r[nr] == NULL)
			break;
		nr++;
	}
	RPS_LOG(WARNING, "test hook: draining %u ring(s) of %s from now on (%s)", nr, hk.name,
		RING_DRAIN_VAR);
	return nr;
}

/* Empty @p nr rings, freeing what they hold. */
static void
drain_all(struct rte_ring **r, unsigned int nr)
{
	struct rte_mbuf *m[64];

	for (unsigned int i = 0; i < nr; i++) {
		unsigned int n;

		while ((n = rte_ring_dequeue_burst(r[i], (void **)m, RTE_DIM(m), NULL)) > 0)
			rte_pktmbuf_free_bulk(m, n);
	}
}

static void *
hook_thread(void *arg)
{
	struct rte_ring *r[RTE_MAX_QUEUES_PER_PORT];
	unsigned int nr = 0;
	int draining = 0, held = 0;

	(void)arg;
	for (unsigned long t = 0; !__atomic_load_n(&hk.stop, __ATOMIC_ACQUIRE); t++) {
		if (hk.name[0] != '\0' && !draining && t * 5 >= hk.ms) {
			nr = drain_rings(r);
			draining = 1;
		}
		drain_all(r, nr);
		if (hk.hold != NULL && t % 2 == 0) {
			int h = access(hk.hold, F_OK) == 0;

			if (h != held)
				RPS_LOG(WARNING, "test hook: RX %s (%s)", h ? "held" : "resumed",
					RX_HOLD_VAR);
			held = h;
			__atomic_store_n(&hk.app->test.rx_hold, h, __ATOMIC_RELAXED);
		}
		usleep(5000);
	}
	drain_all(r, nr); /* what the workers sent last */
	return NULL;
}

/* RPS_TEST_RING_DRAIN=NAME:MS into hk.name / hk.ms. */
static void
ring_drain_var(void)
{
	const char *v = getenv(RING_DRAIN_VAR);

	if (v == NULL)
		return;
	const char *colon = strrchr(v, ':');
	char *end;
	unsigned long ms = colon != NULL ? strtoul(colon + 1, &end, 10) : 0;

	if (colon == NULL || colon == v || (size_t)(colon - v) >= sizeof(hk.name) ||
	    colon[1] == '\0' || *end != '\0' || ms > 3600000) {
		RPS_LOG(ERR, "test hook: %s=%s is not NAME:MS: ignored", RING_DRAIN_VAR, v);
		return;
	}
	memcpy(hk.name, v, (size_t)(colon - v));
	hk.name[colon - v] = '\0';
	hk.ms = ms;
	RPS_LOG(WARNING, "test hook: the rings of %s are drained after %lu ms (%s)",
		hk.name, ms, RING_DRAIN_VAR);
}

/* RPS_TEST_RX_HOLD=PATH into hk.hold. */
static void
rx_hold_var(void)
{
	const char *v = getenv(RX_HOLD_VAR);

	if (v == NULL)
		return;
	if (*v == '\0') {
		RPS_LOG(ERR, "test hook: %s is empty: ignored", RX_HOLD_VAR);
		return;
	}
	hk.hold = v;
	RPS_LOG(WARNING, "test hook: the RX lcore polls nothing while %s exists (%s)", v,
		RX_HOLD_VAR);
}

/* "NAME:MS" or "W:MS": the part before the last colon into @p name, MS (1..3600000) into
 * *@p ms. @return 0, or -1. */
static int
name_ms(const char *v, char *name, size_t len, unsigned long *ms)
{
	const char *colon = strrchr(v, ':');
	char *end;

	if (colon == NULL || colon == v || (size_t)(colon - v) >= len || colon[1] == '\0')
		return -1;
	*ms = strtoul(colon + 1, &end, 10);
	if (*end != '\0' || *ms == 0 || *ms > 3600000)
		return -1;
	memcpy(name, v, (size_t)(colon - v));
	name[colon - v] = '\0';
	return 0;
}

void
rps_test_start_pause(void)
{
	const char *v = getenv(START_PAUSE_VAR);

	if (v == NULL)
		return;
	char *end;
	unsigned long ms = strtoul(v, &end, 10);

	if (*v == '\0' || *end != '\0' || ms == 0 || ms > 600000) {
		RPS_LOG(ERR, "test hook: %s=%s is not 1..600000 (ms): ignored",
			START_PAUSE_VAR, v);
		return;
	}
	RPS_LOG(WARNING, "test hook: start-up paused for %lu ms after EAL's "
		"initialisation (%s)", ms, START_PAUSE_VAR);
	rte_delay_us_sleep((unsigned int)(ms * 1000));
	RPS_LOG(WARNING, "test hook: start-up resumed (%s)", START_PAUSE_VAR);
}

void
rps_test_snap_stall(struct rps_worker *w)
{
	RPS_LOG(WARNING, "test hook: worker lcore %u stops for %.0f ms inside its flow snapshot",
		w->lcore, (double)w->test.snap_stall_tsc * 1e3 / (double)rte_get_tsc_hz());
	rps_test_spin(w->test.snap_stall_tsc);
	w->test.snap_stall_tsc = 0; /* once */
}

/* RPS_TEST_SNAP_STALL=W:MS into worker W's test.snap_stall_tsc. */
static void
snap_stall_var(struct rps_app *app)
{
	const char *v = getenv(SNAP_STALL_VAR);

	if (v == NULL)
		return;
	char idx[16] = "", *end = idx;
	unsigned long ms = 0, wi = ULONG_MAX;

	if (name_ms(v, idx, sizeof(idx), &ms) == 0)
		wi = strtoul(idx, &end, 10);
	if (*end != '\0' || wi >= app->lc.nb_workers) {
		RPS_LOG(ERR, "test hook: %s=%s is not W:MS with W < %u: ignored",
			SNAP_STALL_VAR, v, app->lc.nb_workers);
		return;
	}
	app->lc.workers[wi].test.snap_stall_tsc = (uint64_t)ms * rte_get_tsc_hz() / 1000;
	RPS_LOG(WARNING, "test hook: worker %lu (lcore %u) stops for %lu ms inside its first "
		"flow snapshot (%s)", wi, app->lc.workers[wi].lcore, ms, SNAP_STALL_VAR);
}

/* RPS_TEST_TEL_HOLD: the command and how long (set once at init, before telemetry). */
static struct {
	char cmd[64];
	unsigned long ms;
} tel_hold;

void
rps_test_tel_hold(const char *cmd)
{
	if (tel_hold.ms == 0 || strcmp(cmd, tel_hold.cmd) != 0)
		return;
	RPS_LOG(WARNING, "test hook: telemetry command %s held for %lu ms (%s)", cmd,
		tel_hold.ms, TEL_HOLD_VAR);
	rte_delay_us_sleep((unsigned int)(tel_hold.ms * 1000));
}

/* RPS_TEST_TEL_HOLD=CMD:MS into tel_hold. */
static void
tel_hold_var(void)
{
	const char *v = getenv(TEL_HOLD_VAR);

	if (v == NULL)
		return;
	if (name_ms(v, tel_hold.cmd, sizeof(tel_hold.cmd), &tel_hold.ms) < 0) {
		tel_hold.ms = 0;
		RPS_LOG(ERR, "test hook: %s=%s is not COMMAND:MS: ignored", TEL_HOLD_VAR, v);
		return;
	}
	RPS_LOG(WARNING, "test hook: telemetry command %s takes %lu ms (%s)", tel_hold.cmd,
		tel_hold.ms, TEL_HOLD_VAR);
}

/* RPS_TEST_EXIT_WAIT_S: seconds (0: not set), read once at init. */
static unsigned long exit_wait_s;

unsigned int
rps_test_exit_wait_s(unsigned int dflt)
{
	return exit_wait_s != 0 && exit_wait_s < dflt ? (unsigned int)exit_wait_s : dflt;
}

/* RPS_TEST_EXIT_WAIT_S=S into exit_wait_s. */
static void
exit_wait_var(void)
{
	const char *v = getenv(EXIT_WAIT_VAR);

	if (v == NULL)
		return;
	char *end;
	unsigned long s = strtoul(v, &end, 10);

	if (*v == '\0' || *end != '\0' || s == 0 || s > 10) {
		RPS_LOG(ERR, "test hook: %s=%s is not 1..10 (s): ignored", EXIT_WAIT_VAR, v);
		return;
	}
	exit_wait_s = s;
	RPS_LOG(WARNING, "test hook: the exit gives up on a worker still running %lu s after "
		"the stop (%s)", s, EXIT_WAIT_VAR);
}

/* RPS_TEST_SELF_WAKE_MS=MS into app->test.self_wake_us. */
static void
self_wake_var(struct rps_app *app)
{
	const char *v = getenv(SELF_WAKE_VAR);

	if (v == NULL)
		return;
	char *end;
	unsigned long ms = strtoul(v, &end, 10);

	if (*v == '\0' || *end != '\0' || ms == 0 || ms > 60000) {
		RPS_LOG(ERR, "test hook: %s=%s is not 1..60000 (ms): ignored", SELF_WAKE_VAR, v);
		return;
	}
	app->test.self_wake_us = (uint32_t)(ms * 1000);
	RPS_LOG(WARNING, "test hook: a sleeping worker wakes by itself after %lu ms (%s)", ms,
		SELF_WAKE_VAR);
}

void
rps_test_hooks_fini(void)
{
	if (!hk.running)
		return;
	__atomic_store_n(&hk.stop, 1, __ATOMIC_RELEASE);
	pthread_join(hk.thread, NULL);
	hk.running = 0;
}

void
rps_test_hooks_init(struct rps_app *app)
{
	ring_drain_var();
	rx_hold_var();
	hk.app = app;
	if ((hk.name[0] != '\0' || hk.hold != NULL) &&
	    rte_ctrl_thread_create(&hk.thread, "rps-test-hook", NULL, hook_thread, NULL) == 0)
		hk.running = 1;
	stall_var(app);
	snap_stall_var(app);
	tel_hold_var();
	exit_wait_var();
	self_wake_var(app);
	rx_gap_var(app);
	app->test.delay_tsc = delay_var(DELAY_VAR, "every worker");
	app->test.rx_delay_tsc = delay_var(RX_DELAY_VAR, "the RX lcore");
}
