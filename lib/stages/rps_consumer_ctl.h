/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_consumer_ctl.h: what a consumer may ask of dpdk-rps, in band: a frame it sends back
 * on its memif ring (docs/consumers.md#asking-for-a-bypass). Today one request: bypass this
 * flow, for a number of seconds or until it ends.
 *
 * The frame: an Ethernet header (addresses unread) with EtherType RPS_CTL_ETHERTYPE (IEEE
 * 802's Local Experimental EtherType 1), then struct rps_ctl_bypass, every field in network
 * order. Such a frame is never forwarded. The format is stable: a consumer builds it
 * without this header (examples/consumer does).
 */
#ifndef RPS_CONSUMER_CTL_H
#define RPS_CONSUMER_CTL_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "rps_flow.h"

#define RPS_CTL_ETHERTYPE 0x88B5
#define RPS_CTL_MAGIC 0x52505342u   /* "RPSB" */
#define RPS_CTL_VERSION 1

struct __attribute__((packed)) rps_ctl_bypass {
	uint32_t magic;         /* RPS_CTL_MAGIC */
	uint8_t version;        /* RPS_CTL_VERSION */
	uint8_t family;         /* 4 or 6 */
	uint8_t proto;          /* IPPROTO_TCP, IPPROTO_UDP, ... */
	uint8_t reserved;       /* 0 */
	uint16_t sport, dport;  /* either direction's: the flow is found both ways */
	uint32_t seconds;       /* how long; 0: until the flow ends */
	uint8_t src[16];        /* IPv4: the first 4 bytes */
	uint8_t dst[16];
};

/**
 * Read @p m as a control frame. @return 0: not one (another EtherType: a packet); 1: a
 * bypass request, @p q and @p seconds filled; -1: one of ours that is malformed (short, a
 * wrong magic, version, family or reserved byte).
 */
int rps_ctl_parse(const struct rte_mbuf *m, struct rps_flow_tuple *q, uint32_t *seconds);

#endif /* RPS_CONSUMER_CTL_H */
