/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app_life.h: the lifecycle part of the application context: the flags that start and stop
 * the threads. Each is a single word with the writer its comment names, stored and loaded
 * atomically (set once, never cleared, except reload_requested, which the control thread
 * takes with an exchange); the eventfds only wake sleepers.
 */
#ifndef RPS_APP_LIFE_H
#define RPS_APP_LIFE_H

#include <stdint.h>

struct rps_app_life {
	int quit;                      /* stop RX: signals (signals.c), a failed launch or the
					* consumers' wait (relaxed) */
	int quit_signal;               /* the signal that set quit, 0 if none (signals) */
	int reload_requested;          /* SIGHUP sets, the control thread exchanges to 0 */
	int stop_fd;                   /* eventfd SIGINT/SIGTERM and rx_stop write, never read:
					* wakes RX lcores asleep on RX interrupts (rx_intr.c) */
	int ready;                     /* start-up done, RX loop about to run (notify.c,
					* release; readers acquire) */
	int rx_stop;                   /* RX lcore 0 tells the others to stop (idle, deadline) */
	int rx_done;                   /* set once every RX lcore stopped (RX lcore 0, release;
					* workers and telemetry acquire) */
	int consumers_stop;            /* set at exit a second after RX stopped (the exit's
					* wait, health.c): workers waiting for a full consumer
					* (backpressure) drop what is left */
	int control_stop;              /* the main thread tells the control thread to end */
	int report_stop;               /* the main thread tells the live-table thread to end */
	uint64_t start_tsc;            /* the main thread, before the RX loop */
	uint64_t stop_tsc;             /* RX lcore 0, as it stops (0: running) */
};

#endif /* RPS_APP_LIFE_H */
