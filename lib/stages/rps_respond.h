/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_respond.h: what the respond stage answers, and how.
 *
 * rps_stage_respond() (declared in rps_stage.h) turns each request it recognises into its
 * answer IN PLACE (same mbuf, headers rewritten, VLAN tags kept) and hands it to the TX queue
 * of the port it came in on, c->reply_txq[m->port], with rps_txq_send(), which counts it as
 * processed + tx_packets (or dropped.tx_failed). An answered request is finished: it is not
 * passed on. It counts one of arp_replies, icmp_echo_replies, icmp6_echo_replies,
 * nd_replies, udp_echo_replies.
 *
 * One set of addresses (@c ipv4, @c ipv6) is answered on every port that has a reply queue;
 * each port answers with its own MAC, @c mac[m->port] ("@c mac" below). A request from a
 * port with no reply queue (c->reply_txq[m->port] NULL, or m->port not a port id) is not
 * looked at: it passes on unchanged and uncounted.
 *
 * Answered (every reply's Ethernet source is @c mac):
 *  - ARP request (Ethernet/IPv4, op 1) whose target is @c ipv4 -> ARP reply to the sender
 *    (a probe from 0.0.0.0 too, RFC 5227).
 *  - ICMP echo request (type 8, code 0, valid checksum, not a fragment) to @c ipv4 -> echo
 *    reply: MACs and addresses swapped, TTL 64, IP options as below, header and ICMP
 *    checksums correct.
 *  - ICMPv6 echo request (128, code 0, valid checksum) to @c ipv6 -> echo reply (129), hop
 *    limit 64.
 *  - ICMPv6 neighbour solicitation (135) for target @c ipv6, sent to @c ipv6 or to its
 *    solicited-node multicast group, hop limit 255, valid checksum and options (RFC 4861
 *    7.1.1) -> neighbour advertisement (136): Override set, Solicited set unless the
 *    solicitation came from :: (then sent to ff02::1), target @c ipv6, a target link-layer
 *    address option with @c mac, hop limit 255. Ethernet destination: the source link-layer
 *    address option if present, else the request's Ethernet source (33:33:00:00:00:01 for
 *    ff02::1). The reply has its own length: it is built in the request's first segment
 *    (the rest of a chain is freed), or, when that buffer is too small, in a new mbuf from
 *    the request's pool (the request is then freed; no new mbuf: not answered).
 *  - UDP datagram to @c ipv4 / @c ipv6 on @c udp_echo_port (when non-zero), from a client's
 *    port (see refused_udp_port below), valid or (IPv4) absent checksum -> the same payload
 *    back, addresses and ports swapped, checksum correct (computed when the IPv4 request
 *    had none).
 *
 * Refused (RFC 1122 3.2.2.6, 3.2.1.3, 4.1.3.6; RFC 4861 7.1.1), so that the stage never
 * reflects traffic at a third party: a request addressed to us is not answered, is passed on
 * unchanged and counts one refused_* counter of RPS_RESPOND_REFUSALS (rps_counters.h), when
 *  - its Ethernet source, the ARP sender hardware address or the NS source link-layer
 *    address option is broadcast, multicast or zero (refused_mac_src);
 *  - its source address is @c ipv4 / @c ipv6 itself (refused_src_self; for ARP: the
 *    gratuitous request);
 *  - its IPv4 source is in 0/8 (0.0.0.0 only allowed as the sender of an ARP probe), 127/8,
 *    224/4 or 240/4 (limited broadcast included), or the network or broadcast address of
 *    @c ipv4's /@c ipv4_prefix (prefixes up to /30); its IPv6 source is ::/96 (::, ::1,
 *    IPv4-compatible; :: only allowed for a duplicate address detection NS), ::ffff:0:0/96
 *    or ff00::/8 (refused_src_martian);
 *  - a UDP echo's source port is below 1024, @c udp_echo_port, or one of the UDP services
 *    known as reflectors above it (refused_udp_port);
 *  - an IPv4 request carries a loose or strict source route (refused_source_route) or
 *    malformed options (refused_ip_options). Other options do not refuse: Record Route gets
 *    @c ipv4 added where it has room (RFC 1122 3.2.2.6), every other option is overwritten
 *    with NOPs and whatever follows End of Options with zeros, so that a reply carries no
 *    option it does not mean;
 *  - an echo (ICMP, ICMPv6 or UDP) finds this lcore's token bucket empty (refused_rate_limit):
 *    at most @c rate echo replies a second with bursts of @c burst, per lcore, like Linux's
 *    icmp_msgs_per_sec / icmp_msgs_burst. ARP and neighbour advertisements are not limited
 *    (Linux does not limit them either): a flood of echo requests must not make the address
 *    unreachable, and they stay on the link and are never larger than their request.
 *
 * Not answered, passed on unchanged and not counted: everything else, including requests for
 * another address, IPv6 packets with extension headers, fragments, requests with a bad
 * checksum, lengths that disagree with the frame, mbufs whose data is shared (refcnt > 1,
 * indirect, or a shared external buffer) and mbufs whose VLAN tag the NIC stripped.
 * Every read is bounds-checked (rte_pktmbuf_read); multi-segment packets are answered.
 * The stage never fragments a reply: an echo of a reassembled datagram is one packet. Its
 * queue sends it as one frame, unless the queue is also output's (--tx-port, the ports of an
 * inline pair), whose MTU limit re-fragments what is above it (rps_txq_set_limits()).
 */
#ifndef RPS_RESPOND_H
#define RPS_RESPOND_H
#include <stdint.h>
#include <rte_ether.h>

/** Default echo replies a second per lcore (as Linux's icmp_msgs_per_sec). */
#define RPS_RESPOND_RATE_DEFAULT 1000
/** Default burst of echo replies per lcore (as Linux's icmp_msgs_burst). */
#define RPS_RESPOND_BURST_DEFAULT 50
/** Default prefix length of @c ipv4 when none is given (its /24's .0 and .255 refused). */
#define RPS_RESPOND_PREFIX_DEFAULT 24

struct rps_respond_conf {
	int has_ipv4;
	uint32_t ipv4;              /**< network order */
	uint8_t ipv4_prefix;        /**< 0..32: the subnet whose broadcast sources are refused */
	int has_ipv6;
	uint8_t ipv6[16];
	uint16_t udp_echo_port;     /**< host order, 0 = off */
	uint32_t rate;              /**< echo replies a second per lcore, 0 = no limit */
	uint32_t burst;             /**< the most echo replies one lcore sends back to back */
	/** each RX port's own MAC (rte_eth_macaddr_get() at start), by port id: the Ethernet
	 * source of a reply to a request that came in on that port */
	struct rte_ether_addr mac[RTE_MAX_ETHPORTS];
};

/**
 * One lcore's token bucket for echo replies, counted in TSC cycles (no division on the data
 * path): each elapsed cycle adds one cycle of credit, up to @c cap; a reply costs @c cost.
 * Owned by one lcore (it lives in its struct rps_stage_ctx): no atomics.
 */
struct rps_respond_limit {
	uint64_t cost;    /**< cycles per reply, hz / rate (at least 1); 0 = no limit */
	uint64_t cap;     /**< most credit: burst * cost */
	uint64_t credit;  /**< cycles of credit now */
	uint64_t last;    /**< TSC of the last refill */
};

/**
 * Set up @p l for @p rate replies a second (0: no limit) in bursts of at most @p burst
 * (0 is taken as 1) on a TSC of @p hz, full (a burst may be sent at once) at TSC @p now.
 */
void rps_respond_limit_init(struct rps_respond_limit *l, uint32_t rate, uint32_t burst,
			    uint64_t hz, uint64_t now);

/**
 * Take one reply's worth of credit at TSC @p now (never earlier than the last call's).
 * @return 1 when the reply may be sent, 0 when the bucket is empty (nothing taken).
 */
static inline int
rps_respond_limit_take(struct rps_respond_limit *l, uint64_t now)
{
	if (l->cost == 0)
		return 1;
	if (now > l->last) {
		uint64_t d = now - l->last;

		l->credit = d >= l->cap - l->credit ? l->cap : l->credit + d;
		l->last = now;
	}
	if (l->credit < l->cost)
		return 0;
	l->credit -= l->cost;
	return 1;
}

#endif
