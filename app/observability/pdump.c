/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pdump.c: capture by DPDK's own tools (dpdk-dumpcap, dpdk-pdump), and the grace period
 * librte_pdump 22.11 leaves out.
 *
 * rte_pdump_init() lets a secondary process ask, over EAL's multi-process channel, for
 * copies of a port's RX and TX: the primary adds ethdev callbacks that copy each packet into
 * the tool's ring and mempool. To stop, the tool asks the primary to remove them and, on the
 * reply, frees that ring and mempool. But rte_eth_remove_rx_callback() only unlinks a
 * callback ("the application must ensure the callback is no longer in use"), and librte_pdump
 * replies at once: an lcore still inside the callback then copies into a freed mempool (freed
 * memory is zeroed, ops index 0: dpdk-rps crashed in rte_pktmbuf_copy() within ten captures
 * on this box, one lcore per CPU or not).
 *
 * So dpdk-rps defines rte_eth_remove_rx_callback() and rte_eth_remove_tx_callback() itself:
 * librte_pdump's calls bind to these (the executable comes first in the dynamic linker's
 * search order), which call ethdev's own (dlsym(RTLD_NEXT)) and then wait until the RX lcore
 * and every worker have passed a quiescent point (rte_rcu_qsbr: each reports once per loop,
 * outside any burst call), so no callback can still be running when the tool hears back.
 * That needs DPDK as shared libraries (as Debian ships it; a static libdpdk would clash at
 * link time). A worker that does not report within RPS_PDUMP_GRACE_MS is given up on with a
 * warning (a stalled worker must not hang the tool, which waits 5 s for its reply).
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_pdump.h>
#include <rte_rcu_qsbr.h>

#include "app.h"

#define RPS_PDUMP_GRACE_MS 1000

typedef int (*remove_cb_fn)(uint16_t port_id, uint16_t queue_id,
			    const struct rte_eth_rxtx_callback *user_cb);

/* What the interposed functions need and cannot be passed: set by rps_pdump_init() before
 * capture is possible, cleared by rps_pdump_fini() after it no longer is. */
static struct rte_rcu_qsbr *grace_qsbr;
static remove_cb_fn real_remove_rx, real_remove_tx;

/* Every lcore that may run an ethdev callback has passed a quiescent point since now. */
static void
grace_period(const char *what, uint16_t port_id, uint16_t queue_id)
{
	struct rte_rcu_qsbr *q = __atomic_load_n(&grace_qsbr, __ATOMIC_ACQUIRE);
	const uint64_t hz = rte_get_timer_hz();
	uint64_t token, deadline, start;

	if (q == NULL)
		return;
	start = rte_get_timer_cycles();
	token = rte_rcu_qsbr_start(q);
	deadline = start + hz * RPS_PDUMP_GRACE_MS / 1000;
	while (rte_rcu_qsbr_check(q, token, false) == 0) {
		if (rte_get_timer_cycles() > deadline) {
			RPS_LOG(WARNING, "capture: %s callback of port %u queue %u removed, but an "
				"lcore has not passed a quiescent point in %u ms (stalled?): the "
				"capture tool may free what it still uses", what, port_id, queue_id,
				RPS_PDUMP_GRACE_MS);
			return;
		}
		usleep(10);
	}
	RPS_LOG(DEBUG, "capture: %s callback of port %u queue %u removed, grace period %" PRIu64
		" us", what, port_id, queue_id, (rte_get_timer_cycles() - start) * 1000000 / hz);
}

/* ethdev's own function of that name (the next definition after this executable's). */
static remove_cb_fn
ethdev_fn(remove_cb_fn *cache, const char *name)
{
	remove_cb_fn f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

	if (f == NULL) {
		f = (remove_cb_fn)dlsym(RTLD_NEXT, name);
		__atomic_store_n(cache, f, __ATOMIC_RELEASE);
	}
	return f;
}

int
rte_eth_remove_rx_callback(uint16_t port_id, uint16_t queue_id,
			   const struct rte_eth_rxtx_callback *user_cb)
{
	remove_cb_fn f = ethdev_fn(&real_remove_rx, "rte_eth_remove_rx_callback");
	int rc;

	if (f == NULL)
		return -ENOTSUP;
	rc = f(port_id, queue_id, user_cb);
	if (rc == 0)
		grace_period("RX", port_id, queue_id);
	return rc;
}

int
rte_eth_remove_tx_callback(uint16_t port_id, uint16_t queue_id,
			   const struct rte_eth_rxtx_callback *user_cb)
{
	remove_cb_fn f = ethdev_fn(&real_remove_tx, "rte_eth_remove_tx_callback");
	int rc;

	if (f == NULL)
		return -ENOTSUP;
	rc = f(port_id, queue_id, user_cb);
	if (rc == 0)
		grace_period("TX", port_id, queue_id);
	return rc;
}

int
rps_pdump_init(struct rps_app *app)
{
	/* threads 0..nb_rx - 1: the RX lcores; nb_rx + i: worker i */
	const uint32_t n = app->lc.nb_workers + (uint32_t)app->lc.nb_rx;

	/* always there: the loops report to it unconditionally */
	app->io.cap_qsbr = rte_zmalloc("rps_cap_qsbr", rte_rcu_qsbr_get_memsize(n),
				    RTE_CACHE_LINE_SIZE);
	if (app->io.cap_qsbr == NULL || rte_rcu_qsbr_init(app->io.cap_qsbr, n) != 0)
		return -ENOMEM;
	for (uint32_t t = 0; t < n; t++)
		if (rte_rcu_qsbr_thread_register(app->io.cap_qsbr, t) != 0)
			return -ENOMEM;
	if (ethdev_fn(&real_remove_rx, "rte_eth_remove_rx_callback") == NULL ||
	    ethdev_fn(&real_remove_tx, "rte_eth_remove_tx_callback") == NULL) {
		RPS_LOG(WARNING, "capture off: ethdev's rte_eth_remove_rx/tx_callback not found "
			"(is DPDK linked statically?)");
		return 0;
	}
	__atomic_store_n(&grace_qsbr, app->io.cap_qsbr, __ATOMIC_RELEASE);
	/* Without the multi-process channel (--in-memory, --no-shconf) it registers nothing
	 * and succeeds. A failure costs only capture. */
	if (rte_pdump_init() < 0) {
		RPS_LOG(WARNING, "rte_pdump_init: %s: dpdk-dumpcap and dpdk-pdump cannot capture "
			"from this process", rte_strerror(rte_errno));
		return 0;
	}
	app->io.pdump = 1;
	return 0;
}

/* After the lcores left their loops (offline: no grace period waits for them). The QSBR is
 * not freed: the multi-process thread may still be in grace_period(); EAL's clean-up
 * returns its memory. */
void
rps_pdump_fini(struct rps_app_io *io)
{
	/* no new requests; a tool still attached keeps its callbacks until the ports close */
	if (io->pdump)
		(void)rte_pdump_uninit();
	io->pdump = 0;
}
