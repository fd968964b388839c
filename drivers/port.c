/* SPDX-License-Identifier: BSD-3-Clause */
/* port.c: ethdev configuration for dpdk-rps (queues, RSS, hash delivery, mempools). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_version.h>

#include "rps_port.h"

/* DPDK releases as one comparable number: 22.11 -> 2211 */
#define DPDK_REL(year, month) ((year) * 100u + (month))
/* RTE_MP_MAX_FD_NUM before 24.11 (rte_eal.h), the fds one IPC message carries */
#define MP_FDS_BEFORE_24_11 8u

void
rps_port_pmd_limits(const char *driver, unsigned int year, unsigned int month,
		    int *pair_queues, uint16_t *max_queues)
{
	const unsigned int rel = DPDK_REL(year, month);

	*pair_queues = 0;
	*max_queues = 0;
	if (strcmp(driver, "net_tap") != 0)
		return;
	*pair_queues = rel >= DPDK_REL(22, 3);
	if (rel < DPDK_REL(24, 7))
		*max_queues = MP_FDS_BEFORE_24_11;      /* a descriptor per RX and per TX queue */
	else if (rel < DPDK_REL(24, 11))
		*max_queues = 2 * MP_FDS_BEFORE_24_11;  /* one per pair */
}

const char *
rps_port_txq_hint(const char *driver, uint16_t nb_txq, char *buf, size_t len)
{
	if (strcmp(driver, "net_pcap") == 0)
		snprintf(buf, len, " (net_pcap: one tx_pcap= or tx_iface= per queue)");
	else if (strcmp(driver, "net_af_packet") == 0)
		snprintf(buf, len, " (net_af_packet: add qpairs=%u to its --vdev)", nb_txq);
	else if (len > 0)
		buf[0] = '\0';
	return buf;
}

int
rps_port_check_queues(const struct rps_port_info *info, uint16_t nb_rxq, uint16_t nb_txq)
{
	if (nb_rxq > info->max_rxq || nb_txq > info->max_txq)
		return -EINVAL;
	if (info->max_queues != 0 && (unsigned int)nb_rxq + nb_txq > info->max_queues)
		return -E2BIG;
	if (info->pair_queues && nb_rxq != nb_txq)
		return -EINVAL;
	return 0;
}

int
rps_port_query(uint16_t port_id, struct rps_port_info *info)
{
	struct rte_eth_dev_info dev;
	int rc;

	memset(info, 0, sizeof(*info));
	if (!rte_eth_dev_is_valid_port(port_id))
		return -ENODEV;
	rc = rte_eth_dev_info_get(port_id, &dev);
	if (rc != 0)
		return rc;
	info->max_rxq = dev.max_rx_queues;
	info->max_txq = dev.max_tx_queues;
	info->socket = rte_eth_dev_socket_id(port_id);
	snprintf(info->driver, sizeof(info->driver), "%s", dev.driver_name);
	/* the release running, not the one built against: the PMD is its code */
	rps_port_pmd_limits(info->driver, rte_version_year(), rte_version_month(),
			    &info->pair_queues, &info->max_queues);
	return 0;
}

/* RSS with the caller's key in @p key (RPS_PORT_RSS_KEY_MAX bytes, filled here) when the
 * port has RSS; nothing for a port without (net_pcap...). */
static void
rss_conf(const struct rps_port_req *req, const struct rte_eth_dev_info *dev,
	 struct rte_eth_conf *conf, uint8_t *key, struct rps_port_info *info)
{
	uint64_t hf = dev->flow_type_rss_offloads & RPS_PORT_RSS_HF;

	info->rss_key_size = dev->hash_key_size;
	if (hf == 0)
		return;
	/* RSS spreads over the queues; with one queue it still computes the hash. */
	conf->rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
	conf->rx_adv_conf.rss_conf.rss_key = NULL; /* the PMD's default key */
	conf->rx_adv_conf.rss_conf.rss_hf = hf;
	info->rss_hf = hf;
	/* The key at the port's size: a Toeplitz hash of n bytes reads the first n + 4 bytes
	 * of the key, so repeating it (a 16-bit pattern stays one) or cutting it past the
	 * 40 bytes an IPv6 4-tuple reads changes no hash. */
	if (req->rss_key != NULL && req->rss_key_len > 0 && dev->hash_key_size >= RPS_PORT_RSS_KEY_MIN &&
	    dev->hash_key_size <= RPS_PORT_RSS_KEY_MAX) {
		for (unsigned int i = 0; i < dev->hash_key_size; i++)
			key[i] = req->rss_key[i % req->rss_key_len];
		conf->rx_adv_conf.rss_conf.rss_key = key;
		conf->rx_adv_conf.rss_conf.rss_key_len = dev->hash_key_size;
		info->rss_key_set = 1;
	}
	if (dev->rx_offload_capa & RTE_ETH_RX_OFFLOAD_RSS_HASH) {
		conf->rxmode.offloads |= RTE_ETH_RX_OFFLOAD_RSS_HASH;
		info->rss_hash = 1;
	}
}

/* Whether the started port holds @p key: 1 yes, 0 no, -1 it cannot say. */
static int
rss_key_check(uint16_t port_id, const uint8_t *key, uint8_t len)
{
	uint8_t got[RPS_PORT_RSS_KEY_MAX];
	struct rte_eth_rss_conf rc = { .rss_key = got, .rss_key_len = len };

	if (rte_eth_dev_rss_hash_conf_get(port_id, &rc) != 0)
		return -1;
	return memcmp(got, key, len) == 0;
}

int
rps_port_setup(const struct rps_port_req *req, struct rps_port_info *info)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info dev;
	uint8_t key[RPS_PORT_RSS_KEY_MAX];
	uint16_t nb_rxd = req->nb_rxd, nb_txd = req->nb_txd;
	uint16_t nb_rxq;
	int rc;

	rc = rps_port_query(req->port_id, info);
	if (rc != 0)
		return rc;
	rc = rte_eth_dev_info_get(req->port_id, &dev);
	if (rc != 0)
		return rc;
	nb_rxq = req->nb_rxq;
	if (req->pool != NULL && nb_rxq == 0)
		nb_rxq = RTE_MIN(dev.max_rx_queues, (uint16_t)RPS_PORT_DEFAULT_MAX_RXQ);
	/* before rte_eth_dev_configure(): counts the PMD cannot start may abort the process */
	rc = rps_port_check_queues(info, nb_rxq, req->nb_txq);
	if (rc != 0)
		return rc;

	memset(&conf, 0, sizeof(conf));
	if (req->want_rss && nb_rxq > 0)
		rss_conf(req, &dev, &conf, key, info);
	if ((dev.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE) && !req->tx_mixed)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
	/* reassembled datagrams and re-fragmented output are chains of segments; without this
	 * offload a PMD may pick a single-segment TX path that truncates them */
	info->tx_multi_seg = req->nb_txq > 0 &&
			     (dev.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) != 0;
	if (info->tx_multi_seg)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	if (nb_rxq > 0 && (dev.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER))
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	/* the NIC verifies checksums for free: validate then reads its verdict
	 * (RTE_MBUF_F_RX_*_CKSUM_GOOD/BAD) instead of summing every packet */
	info->rx_cksum = nb_rxq > 0 ? dev.rx_offload_capa & RTE_ETH_RX_OFFLOAD_CHECKSUM : 0;
	conf.rxmode.offloads |= info->rx_cksum;

	info->rx_intr = req->rx_intr && nb_rxq > 0;
	conf.intr_conf.rxq = info->rx_intr;
	rc = rte_eth_dev_configure(req->port_id, nb_rxq, req->nb_txq, &conf);
	if (rc != 0 && info->rx_intr) {
		/* a PMD that refuses RX interrupts: the RX lcore backs off instead */
		conf.intr_conf.rxq = 0;
		info->rx_intr = 0;
		rc = rte_eth_dev_configure(req->port_id, nb_rxq, req->nb_txq, &conf);
	}
	if (rc != 0 && info->rss_key_set) {
		/* a PMD that refuses the key keeps its own: RSS still spreads the queues */
		conf.rx_adv_conf.rss_conf.rss_key = NULL;
		conf.rx_adv_conf.rss_conf.rss_key_len = 0;
		info->rss_key_set = 0;
		rc = rte_eth_dev_configure(req->port_id, nb_rxq, req->nb_txq, &conf);
	}
	if (rc != 0)
		return rc;
	if (req->mtu != 0) {
		/* a PMD without an MTU to set (net_pcap, net_ring) sends any size: the MTU is
		 * then only what the output stage enforces (info->mtu_own) */
		rc = rte_eth_dev_set_mtu(req->port_id, req->mtu);
		if (rc == -ENOTSUP)
			info->mtu_own = 1;
		else if (rc != 0)
			return rc;
	}
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(req->port_id, &nb_rxd, &nb_txd);
	if (rc != 0)
		return rc;
	for (uint16_t q = 0; q < nb_rxq; q++) {
		rc = rte_eth_rx_queue_setup(req->port_id, q, nb_rxd, info->socket, NULL, req->pool);
		if (rc != 0)
			return rc;
	}
	for (uint16_t q = 0; q < req->nb_txq; q++) {
		rc = rte_eth_tx_queue_setup(req->port_id, q, nb_txd, info->socket, NULL);
		if (rc != 0)
			return rc;
	}
	rc = rte_eth_dev_start(req->port_id);
	if (rc != 0 && info->rx_intr) {
		/* one that takes them at configure but cannot start with them: again without */
		struct rps_port_req plain = *req;

		plain.rx_intr = 0;
		return rps_port_setup(&plain, info);
	}
	if (rc != 0)
		return rc;
	if (info->rss_key_set) {
		rc = rss_key_check(req->port_id, key, dev.hash_key_size);
		info->rss_key_set = rc != 0;
		info->rss_key_read_back = rc == 1;
		rc = 0;
	}
	if (nb_rxq > 0)
		(void)rte_eth_promiscuous_enable(req->port_id); /* not every PMD has it */
	info->nb_rxq = nb_rxq;
	info->nb_txq = req->nb_txq;
	if (info->mtu_own)
		info->mtu = req->mtu;
	else if (rte_eth_dev_get_mtu(req->port_id, &info->mtu) != 0)
		info->mtu = RTE_ETHER_MTU;
	return 0;
}

const char *
rps_port_role_name(enum rps_port_role role)
{
	switch (role) {
	case RPS_PORT_RX: return "rx";
	case RPS_PORT_TX: return "tx";
	case RPS_PORT_PAIR: return "pair";
	case RPS_PORT_CONSUMER: return "consumer";
	}
	return "?";
}

int
rps_port_role_rx(enum rps_port_role role)
{
	return role == RPS_PORT_RX || role == RPS_PORT_PAIR;
}

int
rps_port_role_tx(enum rps_port_role role)
{
	return role == RPS_PORT_TX || role == RPS_PORT_PAIR || role == RPS_PORT_CONSUMER;
}

int
rps_port_plan(const struct rps_port_use *use, const struct rps_port_info *info,
	      const struct rps_port_plan_conf *conf, struct rps_port_queues *q)
{
	memset(q, 0, sizeof(*q));
	if (rps_port_role_rx(use->role))
		q->nb_rxq = conf->rx_queues ? conf->rx_queues :
			    RTE_MIN(info->max_rxq, (uint16_t)RPS_PORT_DEFAULT_MAX_RXQ);
	if (rps_port_role_tx(use->role)) {
		q->workers_tx = 1;
		q->nb_txq = use->nb_senders ? use->nb_senders : RTE_MAX(conf->nb_workers, 1);
		/* a memif client opens its rings in pairs; the server disconnects one that adds
		 * a ring it has no queue for: as many RX queues, never polled */
		if (use->role == RPS_PORT_CONSUMER)
			q->nb_rxq = q->nb_txq;
	} else {
		/* an idle TX queue: dpdk-dumpcap asks for RX and TX capture together and the
		 * primary refuses a port without TX queues ("number of tx queues cannot be 0") */
		q->nb_txq = info->max_txq > 0 ? 1 : 0;
	}
	if (q->nb_rxq > info->max_rxq)
		return -ERANGE;
	if (q->nb_txq > info->max_txq)
		return -ENOSPC;
	/* before anything is configured: counts the PMD cannot start may abort the process */
	return rps_port_check_queues(info, q->nb_rxq, q->nb_txq);
}

int
rps_ports_plan(const struct rps_port_use *use, unsigned int n, const struct rps_port_info *info,
	       const struct rps_port_plan_conf *conf, struct rps_port_queues *q, unsigned int *bad)
{
	for (unsigned int i = 0; i < n; i++) {
		int rc = rps_port_plan(&use[i], &info[i], conf, &q[i]);

		if (rc < 0) {
			*bad = i;
			return rc;
		}
	}
	return 0;
}

int
rps_port_start(const struct rps_port_use *use, const struct rps_port_queues *q,
	       const struct rps_port_conf *conf, struct rps_port_info *info)
{
	struct rps_port_req req;

	memset(&req, 0, sizeof(req));
	req.port_id = use->port_id;
	req.nb_rxq = q->nb_rxq;
	req.nb_txq = q->nb_txq;
	req.nb_rxd = conf->nb_rxd;
	req.nb_txd = conf->nb_txd;
	if (rps_port_role_rx(use->role)) {
		req.want_rss = conf->want_rss;
		req.rss_key = conf->rss_key;
		req.rss_key_len = conf->rss_key_len;
	}
	if (req.nb_rxq > 0)
		req.pool = conf->pool; /* a consumer's unpolled RX queues need one too */
	req.tx_mixed = conf->tx_mixed;
	req.mtu = conf->mtu;
	req.rx_intr = rps_port_role_rx(use->role) && conf->rx_intr;
	return rps_port_setup(&req, info);
}

void
rps_port_close(uint16_t port_id)
{
	if (!rte_eth_dev_is_valid_port(port_id))
		return;
	(void)rte_eth_dev_stop(port_id);
	(void)rte_eth_dev_close(port_id);
}

struct rte_mempool *
rps_port_pool_create(uint32_t nb_mbufs, int socket, int preemptible)
{
	char name[RTE_MEMPOOL_NAMESIZE];

	if (socket < 0)
		socket = (int)rte_socket_id();
	unsigned int cache;

	/* Per-lcore caches hold mbufs no one else can use: keep them a small share of the
	 * pool so a small pool still serves the RX lcore. */
	cache = RTE_MIN(256u, nb_mbufs / (8u * rte_lcore_count()));
	snprintf(name, sizeof(name), "rps_pool_%d", socket);
	return rte_pktmbuf_pool_create_by_ops(name, nb_mbufs, cache, 0,
					      RTE_MBUF_DEFAULT_BUF_SIZE, socket,
					      preemptible ? "ring_mt_rts" : "ring_mp_mc");
}

int
rps_port_is_replay(const char *driver)
{
	static const char *const replay[] = { "net_pcap", "net_ring", "net_memif" };

	for (size_t i = 0; i < RTE_DIM(replay); i++)
		if (strcmp(driver, replay[i]) == 0)
			return 1;
	return 0;
}
