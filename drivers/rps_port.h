/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_port.h: ethdev glue. The only place that knows which PMD dpdk-rps is talking to:
 * queue counts, descriptor rings, RSS set-up and whether the PMD delivers an RSS hash in
 * the mbuf (RTE_ETH_RX_OFFLOAD_RSS_HASH), mbuf pools on the port's NUMA socket.
 *
 * Slow path only; call from the main lcore before launching workers and after they stop.
 */
#ifndef RPS_PORT_H
#define RPS_PORT_H

#include <stdint.h>
#include <rte_mempool.h>

/** Cap on the RX queues polled when the user does not say (--rx-queues). */
#define RPS_PORT_DEFAULT_MAX_RXQ 16

/** What the caller asks of a port. A count of 0 means "none" (TX) or "all" (RX, capped). */
struct rps_port_req {
	uint16_t port_id;
	uint16_t nb_rxq;       /**< 0 = every RX queue the PMD reports, up to the cap */
	uint16_t nb_txq;       /**< TX queues to set up (0 = none) */
	uint16_t nb_rxd;       /**< RX descriptors per queue (adjusted to the PMD's limits) */
	uint16_t nb_txd;
	int want_rss;          /**< ask for RSS and for the hash in the mbuf when supported */
	struct rte_mempool *pool; /**< RX mbufs (required when nb_rxq > 0) */
};

/** What the port turned out to be. */
struct rps_port_info {
	uint16_t nb_rxq;
	uint16_t nb_txq;
	int rss_hash;          /**< the PMD was asked to deliver the RSS hash in mbufs */
	int socket;            /**< NUMA socket of the port, or SOCKET_ID_ANY */
	uint16_t max_rxq;
	uint16_t max_txq;
	char driver[64];
};

/**
 * Read a port's limits without configuring it.
 * @return 0, or -ENODEV when @p port_id is not a valid port.
 */
int rps_port_query(uint16_t port_id, struct rps_port_info *info);

/**
 * Configure, set up queues and start a port.
 * @return 0, -ENODEV, -EINVAL (more queues asked than the PMD has), or the ethdev error.
 */
int rps_port_setup(const struct rps_port_req *req, struct rps_port_info *info);

/** Stop and close a port (errors ignored: used at exit). */
void rps_port_close(uint16_t port_id);

/**
 * Create the mbuf pool for a port's socket ("rps_pool_<socket>").
 * @return the pool or NULL with rte_errno set.
 */
struct rte_mempool *rps_port_pool_create(uint32_t nb_mbufs, int socket);

#endif /* RPS_PORT_H */
