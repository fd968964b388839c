/* SPDX-License-Identifier: BSD-3-Clause */
/* parse.c: the parse stage: packet layout into the mbuf, per-protocol counters. */
#include <rte_mbuf_ptype.h>

#include "rps_hash.h"
#include "rps_stage.h"

uint16_t
rps_stage_parse(struct rps_stage_ctx *c, struct rte_mbuf **pkts, uint16_t n)
{
	struct rps_lcore_stats *st = c->st;
	uint64_t v4 = 0, v6 = 0, tcp = 0, udp = 0, other = 0, non_ip = 0, frag = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct rps_flow_key k;
		uint32_t ptype = RTE_PTYPE_L2_ETHER;

		if (rps_flow_key_extract(m, &k) < 0) {
			non_ip++;
			m->packet_type = RTE_PTYPE_UNKNOWN;
			continue;
		}
		/* l3_len is a 9-bit field: a longer IPv6 chain is recorded as IP without layout */
		const int fits = k.l3_len < (1u << RTE_MBUF_L3_LEN_BITS);

		m->l2_len = k.l2_len;
		m->l3_len = fits ? k.l3_len : 0;
		if (k.family == 4) {
			v4++;
			ptype |= RTE_PTYPE_L3_IPV4_EXT_UNKNOWN;
		} else {
			v6++;
			ptype |= RTE_PTYPE_L3_IPV6_EXT_UNKNOWN;
		}
		if (k.is_frag) {
			frag++;
			ptype |= RTE_PTYPE_L4_FRAG;
		} else if (k.proto == IPPROTO_TCP) {
			tcp++;
			ptype |= RTE_PTYPE_L4_TCP;
		} else if (k.proto == IPPROTO_UDP) {
			udp++;
			ptype |= RTE_PTYPE_L4_UDP;
		} else {
			other++;
		}
		if (!fits)
			ptype &= ~RTE_PTYPE_L4_MASK;
		m->packet_type = ptype;
	}
	RPS_CTR_ADD(st->pkts_ipv4, v4);
	RPS_CTR_ADD(st->pkts_ipv6, v6);
	RPS_CTR_ADD(st->pkts_tcp, tcp);
	RPS_CTR_ADD(st->pkts_udp, udp);
	RPS_CTR_ADD(st->pkts_other_l4, other);
	RPS_CTR_ADD(st->pkts_non_ip, non_ip);
	RPS_CTR_ADD(st->pkts_fragment, frag);
	return n;
}
