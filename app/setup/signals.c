/* SPDX-License-Identifier: BSD-3-Clause */
/* signals.c: SIGINT, SIGTERM and SIGHUP, taken before anything else runs, only recorded. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_common.h>

#include "app.h"
#include "setup.h"

static struct rps_app *signal_app; /* the one thing the signal handler may touch */

/*
 * Signals are taken from the first line of main(), before EAL or anything else runs, so
 * that none arriving during start-up has its default action (SIGHUP's kills the process) or
 * is lost (a shell's background job inherits SIGINT ignored; installing the handler late
 * dropped a SIGINT that came first). The handler only records: SIGHUP sets
 * reload_requested, which the control thread takes up once it runs (a SIGHUP during start-up
 * is applied when ready); SIGINT and SIGTERM set quit, which every start-up step and the RX
 * loop check. SA_RESTART keeps EAL's system calls from failing with EINTR.
 */
static void
on_signal(int sig)
{
	if (signal_app == NULL)
		return;
	if (sig == SIGHUP) {
		int saved = errno;
		uint64_t one = 1;

		__atomic_store_n(&signal_app->life.reload_requested, 1, __ATOMIC_RELAXED);
		/* wake the control thread now rather than at its next tick */
		if (signal_app->ctl.wake_fd >= 0 && write(signal_app->ctl.wake_fd, &one, sizeof(one)) < 0)
			errno = saved;
		errno = saved;
	} else {
		int saved = errno;

		__atomic_store_n(&signal_app->life.quit_signal, sig, __ATOMIC_RELAXED);
		__atomic_store_n(&signal_app->life.quit, 1, __ATOMIC_RELAXED);
		rps_rx_intr_stop(&signal_app->life); /* RX lcores asleep on interrupts see it now */
		errno = saved;
	}
}

void
rps_signals_take(struct rps_app *app)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (!app->ctl.wake_made) {
		app->ctl.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		app->life.stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		app->ctl.wake_made = 1;
	}
	signal_app = app;
	for (unsigned int i = 0; i < RTE_DIM(sigs); i++)
		(void)sigaction(sigs[i], &sa, NULL);
}

void
rps_signals_release(void)
{
	signal_app = NULL;
}

/* A stop asked for during start-up: say so and by which signal (0: none asked). */
int
rps_stop_requested(const struct rps_app_life *life, const char *during)
{
	int sig = __atomic_load_n(&life->quit_signal, __ATOMIC_RELAXED);

	if (!__atomic_load_n(&life->quit, __ATOMIC_RELAXED))
		return 0;
	fprintf(stderr, "dpdk-rps: start-up interrupted by %s during %s: stopping\n",
		sig ? strsignal(sig) : "a stop request", during);
	return 1;
}
