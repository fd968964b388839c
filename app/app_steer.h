/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app_steer.h: the steering state the RX lcores read on every loop: each queue's map, the
 * rules, the reorder-safe buckets and their counters, and the two live switches. The
 * control thread publishes maps and rules by pointer (release) and frees what they replace
 * only after every RX lcore has reported a quiescent state on qsbr; the switches are single
 * words it stores and the RX lcores load, relaxed. Each RX lcore writes only its own
 * queues' buckets and bucket counters; the control thread reads the counters.
 */
#ifndef RPS_APP_STEER_H
#define RPS_APP_STEER_H

#include <stdint.h>

#include <rte_rcu_qsbr.h>

#include "rps_map.h"
#include "rps_rules.h"
#include "rps_steer.h"

struct rps_app_steer {
	struct rps_map **maps;         /* [nb_rxq], one per RX queue, read by its RX lcore,
					* replaced only by rps_app_maps_publish() */
	struct rps_rules *rules;       /* steering rules (rules.c), NULL: none; RX lcores read
					* it once per loop (RCU: qsbr), replaced only by
					* rps_app_rules_publish() */
	struct rps_buckets **buckets;  /* [nb_rxq], reorder-safe tables, the queue's RX lcore
					* only */
	struct rps_bucket_stats **bstats; /* [nb_rxq], per-bucket counters, the queue's RX
					* lcore writes, the control thread reads */
	int reorder_safe;              /* read by the RX lcores once per burst */
	int flow_limit;                /* --flow-limit, likewise */
	struct rte_rcu_qsbr *qsbr;     /* every RX lcore (thread = its index) reports once
					* per loop */
};

#endif /* RPS_APP_STEER_H */
