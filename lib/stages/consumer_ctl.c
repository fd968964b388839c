/* SPDX-License-Identifier: BSD-3-Clause */
/* consumer_ctl.c: a consumer's in-band requests (rps_consumer_ctl.h). */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>

#include "rps_consumer_ctl.h"

int
rps_ctl_parse(const struct rte_mbuf *m, struct rps_flow_tuple *q, uint32_t *seconds)
{
	struct rps_ctl_bypass b;
	const void *p;
	const struct rte_ether_hdr *eh;
	struct rte_ether_hdr eh_copy;

	if (rte_pktmbuf_pkt_len(m) < sizeof(*eh))
		return 0;
	eh = rte_pktmbuf_read(m, 0, sizeof(*eh), &eh_copy);
	if (eh == NULL || eh->ether_type != rte_cpu_to_be_16(RPS_CTL_ETHERTYPE))
		return 0;
	if (rte_pktmbuf_pkt_len(m) < sizeof(*eh) + sizeof(b))
		return -1;
	p = rte_pktmbuf_read(m, sizeof(*eh), sizeof(b), &b);
	if (p == NULL)
		return -1;
	if (p != &b) /* contiguous: a pointer into the mbuf */
		memcpy(&b, p, sizeof(b));
	if (rte_be_to_cpu_32(b.magic) != RPS_CTL_MAGIC || b.version != RPS_CTL_VERSION ||
	    (b.family != 4 && b.family != 6) || b.reserved != 0)
		return -1;
	memset(q, 0, sizeof(*q));
	q->family = b.family;
	q->proto = b.proto;
	q->sport = rte_be_to_cpu_16(b.sport);
	q->dport = rte_be_to_cpu_16(b.dport);
	memcpy(q->src, b.src, b.family == 4 ? 4 : 16);
	memcpy(q->dst, b.dst, b.family == 4 ? 4 : 16);
	*seconds = rte_be_to_cpu_32(b.seconds);
	return 1;
}
