/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_hooks.c: fault injection for the tests, so that no test depends on the speed of the
 * machine to create its condition. Compiled in with -Dtest_hooks=true (scripts/run-tests.sh
 * builds its trees so) and inert unless the variable is set:
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
 *   RPS_TEST_RX_GAP=P:MS         after every P packets received the RX lcore pauses MS ms: a
 *                                source with silences long enough for every backlog to
 *                                drain on any machine (deferred moves then complete)
 *   RPS_TEST_FLOW_HASH=crc32c    the flow tables hash with CRC32C, seed 0, as before issue
 *                                13: a flooding test shows its capture does collide
 *
 * A build without the hooks warns when such a variable is set, so a test can tell that it
 * cannot set up its condition (and skip) instead of passing or failing by chance.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include "app.h"

#define DELAY_VAR "RPS_TEST_WORKER_DELAY_NS"
#define RXQ_VAR "RPS_TEST_RX_QUEUES"
#define RX_DELAY_VAR "RPS_TEST_RX_DELAY_NS"
#define RX_GAP_VAR "RPS_TEST_RX_GAP"
#define STALL_VAR "RPS_TEST_WORKER_STALL"
#define FLOW_HASH_VAR "RPS_TEST_FLOW_HASH"

void
rps_test_spin(uint64_t tsc)
{
	const uint64_t end = rte_rdtsc() + tsc;

	while (rte_rdtsc() < end)
		rte_pause();
}

uint16_t
rps_test_rx_queues(const struct rps_app *app)
{
	const char *v = getenv(RXQ_VAR);

	if (v == NULL)
		return app->nb_rxq;
#ifdef RPS_TEST_HOOKS
	{
		char *end;
		unsigned long n = strtoul(v, &end, 10);

		if (*v != '\0' && *end == '\0' && n >= 1 && n <= app->nb_rxq) {
			RPS_LOG(WARNING, "test hook: polling %lu of %u RX queue(s) (%s)", n,
				app->nb_rxq, RXQ_VAR);
			return (uint16_t)n;
		}
		RPS_LOG(ERR, "test hook: %s=%s is not 1..%u: ignored", RXQ_VAR, v, app->nb_rxq);
	}
#else
	RPS_LOG(WARNING, "test hook: %s is ignored: built without -Dtest_hooks=true", RXQ_VAR);
#endif
	return app->nb_rxq;
}

/* A delay in ns from variable @p var, as TSC cycles (0: unset or invalid). */
static uint64_t
delay_var(const char *var, const char *who)
{
	const char *v = getenv(var);

	if (v == NULL)
		return 0;
#ifdef RPS_TEST_HOOKS
	{
		char *end;
		unsigned long long ns = strtoull(v, &end, 10);

		if (*v == '\0' || *end != '\0' || ns > 1000000000ull) {
			RPS_LOG(ERR, "test hook: %s=%s is not 0..1000000000 (ns): ignored", var, v);
			return 0;
		}
		RPS_LOG(WARNING, "test hook: %s spends %llu ns per packet (%s)", who, ns, var);
		return (uint64_t)((double)ns * (double)rte_get_tsc_hz() / 1e9);
	}
#else
	(void)who;
	RPS_LOG(WARNING, "test hook: %s is ignored: built without -Dtest_hooks=true", var);
	return 0;
#endif
}

void
rps_test_rx_gap(struct rps_app *app, uint16_t n)
{
	app->test_rx_gap_seen += n;
	if (app->test_rx_gap_seen >= app->test_rx_gap_every) {
		app->test_rx_gap_seen = 0;
		rps_test_spin(app->test_rx_gap_tsc);
	}
}

/* RPS_TEST_RX_GAP=P:MS into app->test_rx_gap_every / test_rx_gap_tsc. */
static void
rx_gap_var(struct rps_app *app)
{
	const char *v = getenv(RX_GAP_VAR);

	if (v == NULL)
		return;
#ifdef RPS_TEST_HOOKS
	{
		char *end, *end2;
		unsigned long every = strtoul(v, &end, 10);
		unsigned long ms = *end == ':' ? strtoul(end + 1, &end2, 10) : 0;

		if (*v == '\0' || *end != ':' || end[1] == '\0' || *end2 != '\0' || every == 0 ||
		    every > 100000000ul || ms == 0 || ms > 10000) {
			RPS_LOG(ERR, "test hook: %s=%s is not PACKETS:MS (1..10000 ms): ignored",
				RX_GAP_VAR, v);
			return;
		}
		RPS_LOG(WARNING, "test hook: the RX lcore pauses %lu ms after every %lu packets (%s)",
			ms, every, RX_GAP_VAR);
		app->test_rx_gap_every = every;
		app->test_rx_gap_tsc = (uint64_t)ms * rte_get_tsc_hz() / 1000;
	}
#else
	(void)app;
	RPS_LOG(WARNING, "test hook: %s is ignored: built without -Dtest_hooks=true", RX_GAP_VAR);
#endif
}

int
rps_test_flow_crc(void)
{
	const char *v = getenv(FLOW_HASH_VAR);

	if (v == NULL)
		return 0;
#ifdef RPS_TEST_HOOKS
	if (strcmp(v, "crc32c") == 0) {
		RPS_LOG(WARNING, "test hook: this flow table hashes with CRC32C, seed 0 (%s)",
			FLOW_HASH_VAR);
		return 1;
	}
	RPS_LOG(ERR, "test hook: %s=%s is not crc32c: ignored", FLOW_HASH_VAR, v);
#else
	RPS_LOG(WARNING, "test hook: %s is ignored: built without -Dtest_hooks=true",
		FLOW_HASH_VAR);
#endif
	return 0;
}

void
rps_test_worker_stall(struct rps_worker *w)
{
	if (RPS_CTR_READ(w->stats.received_rps) < w->test_stall_after ||
	    rte_rdtsc() < w->test_stall_not_before)
		return;
	RPS_LOG(WARNING, "test hook: worker lcore %u stops for %.0f ms", w->lcore,
		(double)w->test_stall_tsc * 1e3 / (double)rte_get_tsc_hz());
	rps_test_spin(w->test_stall_tsc);
	if (w->test_stall_every_tsc == 0)
		w->test_stall_tsc = 0; /* once */
	else
		w->test_stall_not_before = rte_rdtsc() + w->test_stall_every_tsc;
}

/* RPS_TEST_WORKER_STALL=W:P:MS[:EVERY] into the worker's test_stall_* fields. */
static void
stall_var(struct rps_app *app)
{
	const char *v = getenv(STALL_VAR);

	if (v == NULL)
		return;
#ifdef RPS_TEST_HOOKS
	{
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
		if (*p != '\0' || nf < 3 || f[0] >= app->nb_workers || f[2] == 0 ||
		    f[2] > 3600000 || f[3] > 3600000) {
			RPS_LOG(ERR, "test hook: %s=%s is not W:PACKETS:MS[:EVERY_MS] with W < %u: "
				"ignored", STALL_VAR, v, app->nb_workers);
			return;
		}
		struct rps_worker *w = &app->workers[f[0]];

		w->test_stall_after = f[1];
		w->test_stall_tsc = f[2] * rte_get_tsc_hz() / 1000;
		w->test_stall_every_tsc = f[3] * rte_get_tsc_hz() / 1000;
		RPS_LOG(WARNING, "test hook: worker %llu (lcore %u) stops for %llu ms after %llu "
			"packets%s (%s)", f[0], w->lcore, f[2], f[1], f[3] ? ", repeatedly" : "",
			STALL_VAR);
	}
#else
	(void)app;
	RPS_LOG(WARNING, "test hook: %s is ignored: built without -Dtest_hooks=true", STALL_VAR);
#endif
}

void
rps_test_hooks_init(struct rps_app *app)
{
	stall_var(app);
	rx_gap_var(app);
	app->test_delay_tsc = delay_var(DELAY_VAR, "every worker");
	app->test_rx_delay_tsc = delay_var(RX_DELAY_VAR, "the RX lcore");
}
