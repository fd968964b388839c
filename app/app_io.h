/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app_io.h: the ports and pools part of the application context: what setup/ made of the
 * ports, queues, mempools, CPUs and sockets. Written on the main thread during set-up (and
 * by teardown, once every lcore and thread that reads it has stopped); read-only in
 * between, so readers need no synchronisation beyond the launch that started them.
 */
#ifndef RPS_APP_IO_H
#define RPS_APP_IO_H

#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>

#include "app_lcores.h"
#include "options.h"
#include "rps_cpu.h"
#include "rps_memif.h"
#include "rps_port.h"
#include "rps_stage.h"

/* every --rx-port, the --tx-port and the consumers' ports */
#define RPS_APP_PORTS_MAX (RPS_RX_PORTS_MAX + 1 + RPS_CONSUMERS_MAX)

struct rps_app_io {
	unsigned int rx_lcore;         /* the main lcore: RX lcore 0 */
	uint16_t nb_rxq;               /* (port, queue) pairs over every RX port: "queue" q
					* below is one of them, ports in --rx-port order */
	uint16_t rxq_port[RPS_RX_QUEUES_MAX];  /* q's port */
	uint16_t rxq_queue[RPS_RX_QUEUES_MAX]; /* q's queue on its port */
	uint16_t rxq_lcore[RPS_RX_QUEUES_MAX]; /* q's RX lcore (index in app->lc.rx[]) */
	int rss_hash;                  /* the RX port delivers the NIC hash in mbufs */
	uint32_t seed;                 /* the hash seed (--hash-seed, else random) */
	struct rte_mempool *pool;
	struct rte_mempool *indirect;  /* re-fragmented output's data references, or NULL */
	uint16_t tx_mtu;               /* the output port's MTU (0: no output port) */
	int tx_multi_seg;              /* ... and whether it takes multi-segment mbufs */
	uint16_t fwd_mtu[2 * RPS_FORWARD_MAX]; /* --forward: each paired port's (a, b), */
	int fwd_multi_seg[2 * RPS_FORWARD_MAX]; /* as tx_mtu and tx_multi_seg */
	uint32_t pool_size;
	/* each worker's share of the pool (rps_budget.h, rps_setup_pool()) */
	uint32_t frag_budget;          /* mbufs each worker's reassembly may hold */
	uint32_t backlog_cap;          /* packets each backlog ring holds (<= --backlog) */
	uint64_t worker_share;         /* the most mbufs a worker holds: rings, reassembly,
					* TX ring, bursts, return rings */
	uint32_t pool_reserve;         /* the RX lcores' own: no worker's to take */
	char rx_driver[64];
	struct rps_cpu_paths cpu;      /* build baseline, CPU-specific paths taken (rps_cpu.h) */
	int rx_started, tx_started;     /* which RX ports (0..rx_started) and whether the
					 * --tx-port were started: read and closed at exit */
	/* Every port by role (drivers/rps_port.h, setup/ports.c): the --rx-port list in
	 * order (RX, or PAIR when the workers send on it), then the --tx-port when it is
	 * another port (TX). ports_started: the first ones started, to close at exit. */
	struct rps_port_use ports[RPS_APP_PORTS_MAX];
	struct rps_port_info port_info[RPS_APP_PORTS_MAX];
	struct rps_port_queues port_queues[RPS_APP_PORTS_MAX];
	uint16_t nb_ports, ports_started;
	int pdump;                      /* rte_pdump_init() done: rte_pdump_uninit() at exit */
	struct rte_rcu_qsbr *cap_qsbr;  /* RX lcores (their index) and workers (nb_rx + index)
					 * report once per loop: capture callbacks removed wait
					 * for it (pdump.c) */
	int lcore_socket[RTE_MAX_LCORE]; /* EAL's socket of each enabled lcore; SOCKET_ID_ANY
					  * for none, or for CPUs on several sockets */
	int rx_port_socket;            /* the RX port's socket, SOCKET_ID_ANY if unknown */
};

#endif /* RPS_APP_IO_H */
