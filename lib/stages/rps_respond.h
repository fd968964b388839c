/* SPDX-License-Identifier: BSD-3-Clause */
/* rps_respond.h: what the respond stage answers. */
#ifndef RPS_RESPOND_H
#define RPS_RESPOND_H
#include <stdint.h>
#include <rte_ether.h>

struct rps_respond_conf {
	int has_ipv4;
	uint32_t ipv4;              /**< network order */
	int has_ipv6;
	uint8_t ipv6[16];
	uint16_t udp_echo_port;     /**< host order, 0 = off */
	struct rte_ether_addr mac;  /**< the RX port's MAC: source of every reply */
};
#endif
