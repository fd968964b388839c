/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_port.h: ethdev glue. The only place that knows which PMD dpdk-rps is talking to:
 * queue counts, descriptor rings, RSS set-up and whether the PMD delivers an RSS hash in
 * the mbuf (RTE_ETH_RX_OFFLOAD_RSS_HASH), RX checksum offload (the IPv4, TCP and UDP
 * checksums the port can verify: its verdict in each mbuf, which validate trusts), mbuf
 * pools on the port's NUMA socket.
 *
 * RSS, when the port has it: the hash types RPS_PORT_RSS_HF (what dpdk-rps's software
 * Toeplitz hash computes: 4-tuple for TCP and UDP, addresses for other IP packets and
 * fragments) and the caller's Toeplitz key, repeated to the port's key size, so that the
 * NIC's hash of a packet is the one --hash toeplitz computes. A port without RSS (net_pcap,
 * net_ring, net_null) gets neither: rps_port_info says what was programmed.
 *
 * Slow path only; call from the main lcore before launching workers and after they stop.
 */
#ifndef RPS_PORT_H
#define RPS_PORT_H

#include <stdint.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>

/** Cap on the RX queues polled when the user does not say (--rx-queues). */
#define RPS_PORT_DEFAULT_MAX_RXQ 16

/** RSS hash types asked of a port (masked by what it offers). SCTP is left out: a NIC
 * would hash its ports, dpdk-rps's software hashes do not. */
#define RPS_PORT_RSS_HF (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP)

/** Key sizes programmed: at least what a Toeplitz hash of an IPv6 4-tuple reads (a port
 * with a shorter key, or one that does not say, keeps its own); at most this buffer. */
#define RPS_PORT_RSS_KEY_MIN 40
#define RPS_PORT_RSS_KEY_MAX 128

/** What the caller asks of a port. A count of 0 means "none" (TX) or "all" (RX, capped). */
struct rps_port_req {
	uint16_t port_id;
	uint16_t nb_rxq;       /**< 0 = every RX queue the PMD reports, up to the cap */
	uint16_t nb_txq;       /**< TX queues to set up (0 = none) */
	uint16_t nb_rxd;       /**< RX descriptors per queue (adjusted to the PMD's limits) */
	uint16_t nb_txd;
	int want_rss;          /**< ask for RSS and for the hash in the mbuf when supported */
	const uint8_t *rss_key; /**< Toeplitz key to program with RSS, or NULL (the PMD's) */
	uint8_t rss_key_len;   /**< its length (repeated or cut to the port's key size) */
	struct rte_mempool *pool; /**< RX mbufs (required when nb_rxq > 0) */
	uint16_t mtu;          /**< MTU to set (rte_eth_dev_set_mtu), 0 = keep the PMD's */
	int tx_mixed;          /**< TX may carry mbufs of several pools or shared ones
				*   (re-fragmented output): no MBUF_FAST_FREE */
	int rx_intr;           /**< ask for RX queue interrupts (an idle RX lcore sleeps on
				*   them); a PMD that refuses them at configure or start gets
				*   the port without (rps_port_info.rx_intr) */
};

/** What the port turned out to be. */
struct rps_port_info {
	uint16_t nb_rxq;
	uint16_t nb_txq;
	int rss_hash;          /**< the PMD was asked to deliver the RSS hash in mbufs */
	uint64_t rss_hf;       /**< RSS hash types programmed; 0 = no RSS (the port has none) */
	int rss_key_set;       /**< the port took the caller's key (configure accepted it, and
				* reading it back did not show another) */
	int rss_key_read_back; /**< ... and reading it back showed it (the PMD can say) */
	uint8_t rss_key_size;  /**< the port's key size in bytes (0 = it does not say) */
	int socket;            /**< NUMA socket of the port, or SOCKET_ID_ANY */
	uint16_t max_rxq;
	uint16_t max_txq;
	uint16_t mtu;          /**< the port's MTU (largest L3 packet it sends) */
	int rx_intr;           /**< configured with RX interrupts (they may still not work:
				*   rte_eth_dev_rx_intr_ctl_q() says) */
	int mtu_own;           /**< the PMD cannot set one: mtu is the requested value, which
				*   only dpdk-rps's output enforces */
	int tx_multi_seg;      /**< TX takes multi-segment mbufs (MULTI_SEGS enabled) */
	uint64_t rx_cksum;     /**< RX checksum offloads enabled (RTE_ETH_RX_OFFLOAD_IPV4_CKSUM,
				*   _TCP_CKSUM, _UDP_CKSUM: the ones the port has): the PMD then
				*   gives each mbuf its verdict, which validate trusts */
	int pair_queues;       /**< the PMD starts only as many RX queues as TX queues (net_tap) */
	uint16_t max_queues;   /**< the most RX + TX queues the PMD starts without failing, below
				*   max_rxq + max_txq (rps_port_pmd_limits()); 0 = no such limit */
	char driver[64];
};

/**
 * Queue rules of a PMD beyond its max_rx_queues and max_tx_queues, for the DPDK release
 * @p year.@p month it runs on (rte_version_year(), rte_version_month()): pure, so the
 * table can be tested.
 *
 * net_tap wants as many RX queues as TX queues (since DPDK 22.03). Before 24.11 it also
 * passes its queues' file descriptors to secondary processes at start (tap_mp_req_on_rxtx)
 * in an array of RTE_MP_MAX_FD_NUM (8): one per RX and one per TX queue before 24.07, one
 * per queue pair (RX and TX share it) in 24.07; more overflow the array on the stack and the
 * process aborts ("stack smashing detected"). Hence at most 8 RX + TX queues (4 pairs)
 * before 24.07 and 16 (8 pairs) in 24.07. 24.11 raised the array to 253 (SCM_MAX_FD).
 *
 * @param[out] pair_queues 1 when RX and TX queue counts must be equal, else 0
 * @param[out] max_queues the most RX + TX queues, or 0 when only max_rx/tx_queues limit them
 */
void rps_port_pmd_limits(const char *driver, unsigned int year, unsigned int month,
			 int *pair_queues, uint16_t *max_queues);

/**
 * How a port of driver @p driver gets more TX queues, for a message that says it has too
 * few: the PMD's own argument, where the queue count is one.
 * @param nb_txq the TX queues needed
 * @param[out] buf " (net_af_packet: add qpairs=3 to its --vdev)", " (net_pcap: one tx_pcap=
 *   or tx_iface= per queue)", or "" for a PMD whose queues are not a vdev argument
 * @return @p buf
 */
const char *rps_port_txq_hint(const char *driver, uint16_t nb_txq, char *buf, size_t len);

/**
 * Check queue counts against the port's rules (rps_port_info.pair_queues, .max_queues,
 * .max_rxq, .max_txq) before anything is configured.
 * @return 0 when the PMD can start them; -EINVAL when the RX and TX counts must be equal
 *   and are not, or one exceeds max_rxq/max_txq; -E2BIG when their sum exceeds max_queues.
 */
int rps_port_check_queues(const struct rps_port_info *info, uint16_t nb_rxq, uint16_t nb_txq);

/**
 * Read a port's limits without configuring it: its queue counts, and the PMD's own rules
 * (rps_port_pmd_limits()) for the DPDK release running.
 * @return 0, or -ENODEV when @p port_id is not a valid port.
 */
int rps_port_query(uint16_t port_id, struct rps_port_info *info);

/**
 * Configure, set up queues and start a port.
 * The queue counts are checked first (rps_port_check_queues()): a PMD is never configured
 * with counts it cannot start.
 * @return 0, -ENODEV, -EINVAL (more queues asked than the PMD has, or RX and TX counts that
 *   must be equal and are not), -E2BIG (more RX + TX queues than the PMD starts), or the
 *   ethdev error.
 */
int rps_port_setup(const struct rps_port_req *req, struct rps_port_info *info);

/*
 * Ports by role. dpdk-rps takes a list of (port, role); each role says which queues a port
 * gets, the same for every PMD, before the PMD's own rules (rps_port_check_queues()):
 *
 *   role      RX queues                          TX queues
 *   RX        the RX lcores' (rx_queues, or the  one idle queue, when the port has TX
 *             PMD's up to RPS_PORT_DEFAULT_      (dpdk-dumpcap captures RX and TX together
 *             MAX_RXQ)                           and refuses a port without TX queues)
 *   TX        none                               one per worker sending on it
 *   PAIR      as RX                              one per worker sending on it (an inline
 *                                                pair: the workers send back out the port
 *                                                the packet came in on, or its peer)
 *   CONSUMER  as many as TX queues, never       one per worker feeding it (a memif server
 *             polled (a memif client opens its   whose client consumes what they send)
 *             rings in pairs; the server drops
 *             a client that adds a ring it has
 *             no queue for)
 *
 * Receiving roles (RX, PAIR) get the mbuf pool, RSS with the caller's key and the RX
 * offloads (a CONSUMER's RX queues only the pool); sending roles (TX, PAIR, CONSUMER) the TX
 * offloads and the MTU.
 * rps_port_plan() is pure (no ethdev call), so the table above is unit-tested without a NIC;
 * rps_port_start() applies a plan.
 */
enum rps_port_role {
	RPS_PORT_RX,
	RPS_PORT_TX,
	RPS_PORT_PAIR,
	RPS_PORT_CONSUMER,
};

/** One entry of the list of ports. */
struct rps_port_use {
	uint16_t port_id;
	enum rps_port_role role;
	uint16_t nb_senders;   /**< sending roles: workers that send on it, one TX queue each
				*   (0 = every worker: rps_port_plan_conf.nb_workers) */
};

/** What every port of the list shares. */
struct rps_port_plan_conf {
	uint16_t rx_queues;    /**< RX queues of each receiving port; 0 = the PMD's, capped */
	uint16_t nb_workers;   /**< lcores that transmit (at least 1: without workers the RX
				*   lcore processes and sends) */
};

/** The queues a port gets. */
struct rps_port_queues {
	uint16_t nb_rxq;
	uint16_t nb_txq;
	int workers_tx;        /**< the TX queues are the workers' (one each), not an idle one */
};

/** The role's name ("rx", "tx", "pair", "consumer"), for messages. */
const char *rps_port_role_name(enum rps_port_role role);

/** Whether a port of @p role receives (RX, PAIR) / sends for the workers (TX, PAIR,
 * CONSUMER). */
int rps_port_role_rx(enum rps_port_role role);
int rps_port_role_tx(enum rps_port_role role);

/**
 * Plan the queues of one port of the list from its role and its limits (rps_port_query()):
 * pure, no ethdev call. @p q is filled even on error, with what was asked.
 * @return 0; -ERANGE when conf->rx_queues exceeds the port's max_rxq; -ENOSPC when the
 *   workers need more TX queues than the port's max_txq; else rps_port_check_queues()'s
 *   -EINVAL or -E2BIG (the PMD's own rules).
 */
int rps_port_plan(const struct rps_port_use *use, const struct rps_port_info *info,
		  const struct rps_port_plan_conf *conf, struct rps_port_queues *q);

/**
 * Plan every port of a list (rps_port_plan() on each, in order): pure.
 * @param[out] bad the index of the first port that failed
 * @return 0 or the first port's error.
 */
int rps_ports_plan(const struct rps_port_use *use, unsigned int n,
		   const struct rps_port_info *info, const struct rps_port_plan_conf *conf,
		   struct rps_port_queues *q, unsigned int *bad);

/** What rps_port_start() programs besides the queues. */
struct rps_port_conf {
	uint16_t nb_rxd, nb_txd;  /**< descriptors per queue (adjusted to the PMD's limits) */
	int want_rss;             /**< receiving roles: RSS and the hash in the mbuf */
	const uint8_t *rss_key;   /**< receiving roles: the Toeplitz key, or NULL */
	uint8_t rss_key_len;
	struct rte_mempool *pool; /**< receiving roles: RX mbufs */
	uint16_t mtu;             /**< sending roles: MTU to set, 0 = the PMD's */
	int tx_mixed;             /**< sending roles: no MBUF_FAST_FREE (rps_port_req) */
	int rx_intr;              /**< receiving roles: ask for RX interrupts (rps_port_req) */
};

/**
 * Configure and start one port of the list with its planned queues (rps_port_setup()):
 * RSS, the pool and the RX offloads only for a receiving role.
 * @return as rps_port_setup().
 */
int rps_port_start(const struct rps_port_use *use, const struct rps_port_queues *q,
		   const struct rps_port_conf *conf, struct rps_port_info *info);

/** Stop and close a port (errors ignored: used at exit). */
void rps_port_close(uint16_t port_id);

/**
 * Whether a port of driver @p driver (rte_eth_dev_info.driver_name) replays or relays
 * packets that can wait (a capture file, an rte_ring, a memif peer) rather than receiving
 * from a wire whose queue must be drained: --backpressure auto turns it on for these.
 */
int rps_port_is_replay(const char *driver);

/**
 * Create the mbuf pool for a port's socket ("rps_pool_<socket>").
 * @param preemptible the lcores using it may be preempted by one another (they share CPUs):
 *   the pool's ring then uses "ring_mt_rts" (relaxed tail sync), whose producers and
 *   consumers never spin waiting for a preempted one to finish its update; the default
 *   MP/MC ring ("ring_mp_mc") would have them spin away whole scheduler time slices.
 * @return the pool or NULL with rte_errno set.
 */
struct rte_mempool *rps_port_pool_create(uint32_t nb_mbufs, int socket, int preemptible);

#endif /* RPS_PORT_H */
