/* SPDX-License-Identifier: BSD-3-Clause */
/* order.c: set-up of the reordering measurement (dynamic field, per-bucket tables). */
#include <errno.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "rps_order.h"

int
rps_order_init(struct rps_order *o, int socket)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "rps_order_stamp",
		.size = sizeof(uint64_t),
		.align = __alignof__(uint64_t),
	};
	size_t sz = sizeof(uint32_t) << RPS_ORDER_BITS;

	o->qbits = 0;
	o->dynfield = rte_mbuf_dynfield_register(&desc);
	if (o->dynfield < 0)
		return -rte_errno;
	o->rx_seq = rte_zmalloc_socket("rps_order_rx", sz, RTE_CACHE_LINE_SIZE, socket);
	o->done = rte_zmalloc_socket("rps_order_done", sz, RTE_CACHE_LINE_SIZE, socket);
	if (o->rx_seq == NULL || o->done == NULL) {
		rps_order_fini(o);
		return -ENOMEM;
	}
	return 0;
}

void
rps_order_set_queues(struct rps_order *o, unsigned int nb_queues)
{
	o->qbits = 0;
	while ((1u << o->qbits) < nb_queues && o->qbits < 8)
		o->qbits++;
}

void
rps_order_fini(struct rps_order *o)
{
	rte_free(o->rx_seq);
	rte_free(o->done);
	o->rx_seq = NULL;
	o->done = NULL;
}
