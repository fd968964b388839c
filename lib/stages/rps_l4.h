/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_l4.h: internal helpers shared by the parse and validate stages: the IPv6
 * extension-header chain (which next-header values are walked and how long each header is)
 * and the limits the parser enforces. Not part of the public stage contract.
 */
#ifndef RPS_L4_H
#define RPS_L4_H

#include <stdint.h>

/* IPv6 next-header values the parser walks through, and those it stops at. */
#define RPS_IP6_HOPOPTS 0
#define RPS_IP6_ROUTING 43
#define RPS_IP6_FRAGMENT 44
#define RPS_IP6_ESP 50
#define RPS_IP6_AH 51
#define RPS_IP6_ICMP 58
#define RPS_IP6_NONXT 59
#define RPS_IP6_DSTOPTS 60

/* Every extension header is at least 8 bytes (AH with payload-length 0 is the shortest). */
#define RPS_IP6_EXT_MIN 8
/* VLAN tags (802.1Q, 802.1ad, 0x9100) accepted before the frame is refused as bad_header. */
#define RPS_PARSE_MAX_VLAN 4
/* IPv6 extension headers accepted before the packet is refused as bad_header. */
#define RPS_PARSE_MAX_V6EXT 8

/**
 * Length in bytes of the IPv6 extension header of type @p nh whose first two bytes are
 * @p h (next header, length field), or 0 when @p nh is not one the parser walks (upper-layer
 * protocol, ESP, no-next-header, or unknown: the chain ends there).
 */
static inline uint32_t
rps_ip6_ext_len(uint8_t nh, const uint8_t *h)
{
	switch (nh) {
	case RPS_IP6_HOPOPTS:
	case RPS_IP6_ROUTING:
	case RPS_IP6_DSTOPTS:
		return ((uint32_t)h[1] + 1) * 8;
	case RPS_IP6_FRAGMENT:
		return 8;
	case RPS_IP6_AH:
		return ((uint32_t)h[1] + 2) * 4;
	default:
		return 0;
	}
}

#endif /* RPS_L4_H */
