/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rx_intr.c: an idle RX lcore sleeps on its queues' RX interrupts, as l3fwd-power does,
 * where the PMD has them (net_tap, virtio-user, most NICs); elsewhere (net_pcap,
 * net_af_packet, net_ring) it keeps the backoff of rps_idle.h.
 *
 * Set-up, on the RX lcore itself (RTE_EPOLL_PER_THREAD is the calling thread's epoll): each
 * of its queues' interrupt event fd, and app->life.stop_fd (an eventfd that SIGINT, SIGTERM and
 * RX lcore 0's stop write, never read: once written it keeps every sleeper awake). A queue
 * without an interrupt leaves the lcore on the backoff.
 *
 * A sleep: the interrupts on, offline for both QSBRs (a reload's or a capture's
 * rte_rcu_qsbr_synchronize() does not wait for a sleeper), epoll until a packet, a stop, or
 * the timeout (the next deadline: --duration, the exit's idle check), then the interrupts
 * off and back online. The epoll is level-triggered on the queues' fds, so a packet that came
 * between the last empty poll and the wait ends the wait at once.
 */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <rte_epoll.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_rcu_qsbr.h>

#include "app.h"

int
rps_rx_intr_arm(struct rps_app *app, struct rps_rx_lcore *rx)
{
	if (app->opt.idle_sleep_us == 0 || app->life.stop_fd < 0 || rx->nb_queues == 0)
		return 0;
	/* ethdev logs an error for a PMD without them ("Rx Intr handle unset"): asking is how
	 * to know, so its log is quiet meanwhile */
	const int ethdev_log = rte_log_register("lib.ethdev");
	const int ethdev_level = ethdev_log >= 0 ? rte_log_get_level((uint32_t)ethdev_log) : -1;

	for (uint16_t k = 0; k < rx->nb_queues; k++) {
		const uint16_t q = rx->queues[k];
		int rc;

		if (ethdev_level >= 0)
			(void)rte_log_set_level((uint32_t)ethdev_log, RTE_LOG_EMERG);
		rc = rte_eth_dev_rx_intr_ctl_q(app->io.rxq_port[q], app->io.rxq_queue[q],
					       RTE_EPOLL_PER_THREAD, RTE_INTR_EVENT_ADD, NULL);
		if (ethdev_level >= 0)
			(void)rte_log_set_level((uint32_t)ethdev_log, (uint32_t)ethdev_level);

		if (rc != 0) {
			/* undo the ones that took: this lcore stays on the backoff */
			for (uint16_t j = 0; j < k; j++) {
				const uint16_t p = rx->queues[j];

				(void)rte_eth_dev_rx_intr_ctl_q(app->io.rxq_port[p], app->io.rxq_queue[p],
								RTE_EPOLL_PER_THREAD,
								RTE_INTR_EVENT_DEL, NULL);
			}
			RPS_LOG(INFO, "RX lcore %u: port %u queue %u has no RX interrupt (%s): "
				"idle polls back off up to --idle-sleep", rx->self.lcore,
				app->io.rxq_port[q], app->io.rxq_queue[q], rte_strerror(-rc));
			return 0;
		}
	}
	memset(&rx->stop_ev, 0, sizeof(rx->stop_ev));
	rx->stop_ev.epdata.event = EPOLLIN;
	if (rte_epoll_ctl(RTE_EPOLL_PER_THREAD, EPOLL_CTL_ADD, app->life.stop_fd, &rx->stop_ev) != 0) {
		RPS_LOG(WARNING, "RX lcore %u: cannot watch the stop eventfd: RX interrupts off",
			rx->self.lcore);
		return 0;
	}
	RPS_LOG(INFO, "RX lcore %u: sleeps on RX interrupts when idle (%u queues)",
		rx->self.lcore, rx->nb_queues);
	return 1;
}

int
rps_rx_intr_sleep(struct rps_app *app, struct rps_rx_lcore *rx, unsigned int tid, int timeout_ms)
{
	struct rte_epoll_event ev[RPS_RX_QUEUES_MAX + 1];
	int n;

	for (uint16_t k = 0; k < rx->nb_queues; k++)
		(void)rte_eth_dev_rx_intr_enable(app->io.rxq_port[rx->queues[k]],
						 app->io.rxq_queue[rx->queues[k]]);
	rte_rcu_qsbr_thread_offline(app->steer.qsbr, tid);
	rte_rcu_qsbr_thread_offline(app->io.cap_qsbr, tid);
	__atomic_store_n(&rx->sleeping, 1, __ATOMIC_RELAXED);
	/* a stop that came before the fd was written is seen here, not slept through */
	if (__atomic_load_n(&app->life.quit, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&app->life.rx_stop, __ATOMIC_RELAXED))
		n = 0;
	else
		n = rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, (int)RTE_DIM(ev), timeout_ms);
	__atomic_store_n(&rx->sleeping, 0, __ATOMIC_RELAXED);
	rte_rcu_qsbr_thread_online(app->steer.qsbr, tid);
	rte_rcu_qsbr_thread_online(app->io.cap_qsbr, tid);
	for (uint16_t k = 0; k < rx->nb_queues; k++)
		(void)rte_eth_dev_rx_intr_disable(app->io.rxq_port[rx->queues[k]],
						  app->io.rxq_queue[rx->queues[k]]);
	return n;
}

void
rps_rx_intr_stop(const struct rps_app_life *life)
{
	const uint64_t one = 1;

	if (life->stop_fd >= 0 && write(life->stop_fd, &one, sizeof(one)) < 0)
		return; /* a full counter is still readable: the sleepers wake anyway */
}
