/* SPDX-License-Identifier: BSD-3-Clause */
/* hash.c: flow-key extraction for the software hash (bounds-checked, multi-segment safe). */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "rps_hash.h"

#define IP6_EXT_HOPOPTS 0
#define IP6_EXT_ROUTING 43
#define IP6_EXT_FRAGMENT 44
#define IP6_EXT_DSTOPTS 60

/* Skip Ethernet and any VLAN tags; returns the L3 offset and the inner ethertype (network
 * order), or -1 when the frame is cut short or carries too many tags. */
static int
skip_l2(const struct rte_mbuf *m, uint16_t *ethertype)
{
	struct rte_ether_hdr eh_buf;
	const struct rte_ether_hdr *eh;
	uint32_t off = sizeof(*eh);
	uint16_t type;

	eh = rte_pktmbuf_read(m, 0, sizeof(*eh), &eh_buf);
	if (eh == NULL)
		return -1;
	type = eh->ether_type;
	for (int tags = 0; type == RTE_BE16(RTE_ETHER_TYPE_VLAN) ||
	     type == RTE_BE16(RTE_ETHER_TYPE_QINQ) || type == RTE_BE16(RTE_ETHER_TYPE_QINQ1);
	     tags++) {
		struct rte_vlan_hdr vh_buf;
		const struct rte_vlan_hdr *vh;

		if (tags == RPS_HASH_MAX_VLAN)
			return -1;
		vh = rte_pktmbuf_read(m, off, sizeof(*vh), &vh_buf);
		if (vh == NULL)
			return -1;
		type = vh->eth_proto;
		off += sizeof(*vh);
	}
	*ethertype = type;
	return (int)off;
}

static int
extract_ipv4(const struct rte_mbuf *m, uint32_t off, struct rps_flow_key *k)
{
	struct rte_ipv4_hdr ip_buf;
	const struct rte_ipv4_hdr *ip;
	uint32_t ihl;

	ip = rte_pktmbuf_read(m, off, sizeof(*ip), &ip_buf);
	if (ip == NULL || (ip->version_ihl >> 4) != 4)
		return -1;
	ihl = (ip->version_ihl & 0x0f) * 4u;
	if (ihl < sizeof(*ip) || off + ihl > rte_pktmbuf_pkt_len(m))
		return -1;
	k->family = 4;
	k->proto = ip->next_proto_id;
	k->src[0] = ip->src_addr;
	k->dst[0] = ip->dst_addr;
	k->l3_len = (uint16_t)ihl;
	k->is_frag = (ip->fragment_offset &
		      RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) != 0;
	return 0;
}

static int
extract_ipv6(const struct rte_mbuf *m, uint32_t off, struct rps_flow_key *k)
{
	struct rte_ipv6_hdr ip_buf;
	const struct rte_ipv6_hdr *ip;
	uint32_t l3 = sizeof(*ip);
	uint8_t nh;

	ip = rte_pktmbuf_read(m, off, sizeof(*ip), &ip_buf);
	if (ip == NULL || (rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6)
		return -1;
	k->family = 6;
	memcpy(k->src, ip->src_addr, 16);
	memcpy(k->dst, ip->dst_addr, 16);
	nh = ip->proto;
	for (int i = 0; i < RPS_HASH_MAX_V6EXT; i++) {
		uint8_t ext_buf[8];
		const uint8_t *ext;

		if (nh != IP6_EXT_HOPOPTS && nh != IP6_EXT_ROUTING && nh != IP6_EXT_DSTOPTS &&
		    nh != IP6_EXT_FRAGMENT)
			break;
		ext = rte_pktmbuf_read(m, off + l3, 8, ext_buf);
		if (ext == NULL)
			break; /* chain cut short: hash on addresses alone */
		if (nh == IP6_EXT_FRAGMENT) {
			/* offset (13 bits) and M flag; an atomic fragment (both 0) is whole */
			if ((((uint16_t)ext[2] << 8 | ext[3]) & 0xfff9) != 0)
				k->is_frag = 1;
			l3 += 8;
		} else {
			l3 += ((uint32_t)ext[1] + 1) * 8;
		}
		nh = ext[0];
	}
	k->proto = nh;
	k->l3_len = (uint16_t)RTE_MIN(l3, (uint32_t)UINT16_MAX);
	return 0;
}

int
rps_flow_key_extract(const struct rte_mbuf *m, struct rps_flow_key *k)
{
	uint16_t type;
	int off, rc = -1;

	memset(k, 0, sizeof(*k));
	off = skip_l2(m, &type);
	if (off < 0)
		return -1;
	k->l2_len = (uint16_t)off;
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV4))
		rc = extract_ipv4(m, (uint32_t)off, k);
	else if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6))
		rc = extract_ipv6(m, (uint32_t)off, k);
	if (rc < 0) {
		k->family = 0;
		return -1;
	}
	if (!k->is_frag && rps_hash_proto_has_ports(k->proto)) {
		uint32_t p_buf;
		const uint32_t *p = rte_pktmbuf_read(m, (uint32_t)off + k->l3_len, 4, &p_buf);

		if (p != NULL) {
			memcpy(&k->ports, p, 4);
			k->has_ports = 1;
		}
	}
	return 0;
}

int
rps_hash_mode_parse(const char *s, enum rps_hash_mode *mode)
{
	if (strcasecmp(s, "auto") == 0)
		*mode = RPS_HASH_AUTO;
	else if (strcasecmp(s, "rss") == 0)
		*mode = RPS_HASH_RSS;
	else if (strcasecmp(s, "jhash") == 0)
		*mode = RPS_HASH_JHASH;
	else if (strcasecmp(s, "toeplitz") == 0)
		*mode = RPS_HASH_TOEPLITZ;
	else
		return -EINVAL;
	return 0;
}

const char *
rps_hash_mode_name(enum rps_hash_mode mode)
{
	switch (mode) {
	case RPS_HASH_AUTO: return "auto";
	case RPS_HASH_RSS: return "rss";
	case RPS_HASH_JHASH: return "jhash";
	case RPS_HASH_TOEPLITZ: return "toeplitz";
	}
	return "?";
}
