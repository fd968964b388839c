/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * intr_park: hold DPDK's interrupt thread still while an lcore polls a net_memif port.
 *
 * Why: a 22.11 memif client handles its control socket in EAL's interrupt thread. When the
 * server goes away (exits, crashes, disconnects) that thread runs memif_disconnect(), which
 * munmap()s the shared regions and frees their descriptors at once: no event first (the PMD
 * raises no RTE_ETH_EVENT_INTR_LSC), no quiescent state to wait for. An lcore inside
 * rte_eth_rx_burst() on that port at that moment reads unmapped memory and dies (SIGSEGV).
 * The PMD's "is it connected" check at the top of its RX function only narrows the window.
 *
 * What a correct client does, then, is make the two never overlap. The interrupt thread runs
 * one callback at a time; intr_park registers one of its own (on an eventfd) that, when the
 * lcore asks, acknowledges and blocks until the lcore lets it go. While it is parked, no
 * memif handler can run: the lcore reads the link (up means the regions are mapped), polls
 * for a slice, then releases it so that the control messages (connect, disconnect) are
 * handled between slices. Port stop and start, which touch the same state, are done parked too.
 *
 * Concurrency: intr_park_hold() and intr_park_release() are called by one thread (the
 * polling lcore), in pairs; the callback runs on EAL's interrupt thread. Everything the
 * interrupt thread wrote before it parked is visible to the holder after hold returns 0
 * (the acknowledgement is a store-release, read with acquire), and everything the holder
 * did before release is visible to the interrupt thread after it wakes (the eventfd write
 * and read are system calls; a release fence precedes the write).
 * Cost: two eventfd writes and reads per slice (a slice is milliseconds), none per packet.
 */
#ifndef INTR_PARK_H
#define INTR_PARK_H

#include <stdint.h>

#include <rte_interrupts.h>

struct intr_park {
	struct rte_intr_handle *ih;     /* the park eventfd, on EAL's interrupt thread */
	int park_fd;                    /* holder -> interrupt thread: park now */
	int ack_fd;                     /* interrupt thread -> holder: parked */
	int resume_fd;                  /* holder -> interrupt thread: go on */
	uint64_t parks;                 /* parks acknowledged (written by the callback) */
	uint64_t asked;                 /* parks asked for (holder only) */
	int held;                       /* holder only: 1 between hold and release */
};

/* Register the callback on EAL's interrupt thread. 0, or a negative errno. */
int intr_park_init(struct intr_park *p);

/*
 * Park the interrupt thread: returns 0 once it is parked (within timeout_ms), -ETIMEDOUT if
 * it did not acknowledge (the park is still pending: call again, it waits for the same one),
 * -EIO on an eventfd error.
 */
int intr_park_hold(struct intr_park *p, unsigned int timeout_ms);

/* Let the parked interrupt thread go on. A no-op when not held. */
void intr_park_release(struct intr_park *p);

/* Release if held, unregister the callback, close the eventfds. */
void intr_park_fini(struct intr_park *p);

#endif
