/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app_test.h: the test hooks' knobs (test_hooks.c, RPS_TEST_* variables). Only a build with
 * -Dtest_hooks=true (RPS_TEST_HOOKS) has them: in any other, struct rps_app and struct
 * rps_worker have no such member and nothing reads one.
 */
#ifndef RPS_APP_TEST_H
#define RPS_APP_TEST_H

#ifdef RPS_TEST_HOOKS
#include <stdint.h>

/** The application's knobs. Written by rps_test_hooks_init() on the main thread before any
 * lcore runs, read-only after, except: rx_hold (the hooks' thread stores, the RX lcores load,
 * both relaxed) and rx_gap_seen (RX lcore 0's own count). */
struct rps_app_test {
	uint64_t delay_tsc;            /* worker cycles per packet */
	uint64_t rx_delay_tsc;         /* RX lcore cycles per packet */
	uint64_t rx_gap_every;         /* packets between RX pauses (0: none) */
	uint64_t rx_gap_tsc;           /* length of an RX pause */
	uint64_t rx_gap_seen;          /* packets since the last RX pause */
	int rx_gap_random;             /* each pause 0..rx_gap_tsc, uniform */
	int rx_hold;                   /* the RX lcore polls nothing while set */
	uint32_t self_wake_us;         /* a sleeping worker's own wake-up instead of
					* RPS_WAKE_IDLE_US (0: that) */
};

/** A worker's knobs: written by rps_test_hooks_init() before the worker runs, then by that
 * worker alone (a stall once clears its length). */
struct rps_worker_test {
	uint64_t stall_after;          /* stall once received_rps reaches this... */
	uint64_t stall_tsc;            /* ...for this long (0: no stall hook) */
	uint64_t stall_every_tsc;      /* ...and again this long after each (0: once) */
	uint64_t stall_not_before;
	uint64_t snap_stall_tsc;       /* stop this long inside the next flow snapshot (0: no
					* hook) */
};
#endif /* RPS_TEST_HOOKS */

#endif /* RPS_APP_TEST_H */
