/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_respond.h: what the respond stage answers, and how.
 *
 * rps_stage_respond() (declared in rps_stage.h) turns each request it recognises into its
 * answer IN PLACE (same mbuf, headers rewritten, VLAN tags kept) and hands it to
 * c->reply_txq with rps_txq_send(), which counts it as processed + tx_packets (or
 * dropped.tx_failed). An answered request is finished: it is not passed on. It counts one
 * of arp_replies, icmp_echo_replies, icmp6_echo_replies, nd_replies, udp_echo_replies.
 *
 * Answered (every reply's Ethernet source is @c mac):
 *  - ARP request (Ethernet/IPv4, op 1) whose target is @c ipv4 -> ARP reply to the sender
 *    (gratuitous requests, sender == @c ipv4, are not answered).
 *  - ICMP echo request (type 8, code 0, valid checksum, not a fragment) to @c ipv4 -> echo
 *    reply: MACs and addresses swapped, TTL 64, IP options echoed as received, header and
 *    ICMP checksums correct.
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
 *  - UDP datagram to @c ipv4 / @c ipv6 on @c udp_echo_port (when non-zero), source port
 *    neither 0 nor @c udp_echo_port (two echo servers would bounce forever), valid or (IPv4)
 *    absent checksum -> the same payload back, addresses and ports swapped, checksum correct
 *    (computed when the IPv4 request had none).
 *
 * Not answered, passed on unchanged: everything else, including IPv6 packets with extension
 * headers, fragments, requests with a bad checksum, a multicast/broadcast/unspecified
 * source, lengths that disagree with the frame, mbufs whose data is shared (refcnt > 1,
 * indirect, or a shared external buffer) and mbufs whose VLAN tag the NIC stripped.
 * Every read is bounds-checked (rte_pktmbuf_read); multi-segment packets are answered.
 * Replies are never fragmented: an echo of a reassembled datagram leaves as one frame.
 */
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
