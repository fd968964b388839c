/* SPDX-License-Identifier: BSD-3-Clause */
/* backlog.c: creating and tearing down a worker's backlog ring. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "rps_backlog.h"

int
rps_backlog_init(struct rps_backlog *b, const char *name, uint32_t capacity, int socket)
{
	char rname[RTE_RING_NAMESIZE];

	memset(b, 0, sizeof(*b));
	/* RING_F_EXACT_SZ allocates capacity + 1 rounded up to a power of two slots, which must
	 * stay within RTE_RING_SZ_MASK: at most 2^30 - 1 packets. */
	if (capacity == 0 || capacity > RTE_RING_SZ_MASK / 2)
		return -EINVAL;
	snprintf(rname, sizeof(rname), "rps_bl_%s", name);
	b->ring = rte_ring_create(rname, capacity, socket,
				  RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
	if (b->ring == NULL)
		return rte_errno == EEXIST ? -EEXIST : -ENOMEM;
	b->capacity = rte_ring_get_capacity(b->ring);
	return 0;
}

void
rps_backlog_set_budget_cut(struct rps_backlog *b)
{
	b->budget_cut = 1;
}

void
rps_backlog_fini(struct rps_backlog *b)
{
	struct rte_mbuf *m[64];
	unsigned int n;

	if (b->ring == NULL)
		return;
	while ((n = rte_ring_dequeue_burst(b->ring, (void **)m, RTE_DIM(m), NULL)) > 0)
		rte_pktmbuf_free_bulk(m, n);
	rte_ring_free(b->ring);
	b->ring = NULL;
	while (b->ret != NULL &&
	       (n = rte_ring_dequeue_burst(b->ret, (void **)m, RTE_DIM(m), NULL)) > 0)
		rte_pktmbuf_free_bulk(m, n);
	rte_ring_free(b->ret);
	b->ret = NULL;
	rte_free(b->fl);
	b->fl = NULL;
}

int
rps_backlog_recycle_init(struct rps_backlog *b, const char *name, uint32_t size, int socket)
{
	char rname[RTE_RING_NAMESIZE];

	if (size == 0 || size > RTE_RING_SZ_MASK / 2)
		return -EINVAL;
	snprintf(rname, sizeof(rname), "rps_rt_%s", name);
	b->ret = rte_ring_create(rname, size, socket,
				 RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
	return b->ret != NULL ? 0 : rte_errno == EEXIST ? -EEXIST : -ENOMEM;
}

int
rps_backlog_flow_limit_init(struct rps_backlog *b, int socket)
{
	if (b->fl == NULL)
		b->fl = rte_zmalloc_socket("rps_flow_limit", sizeof(*b->fl), RTE_CACHE_LINE_SIZE,
					   socket);
	return b->fl != NULL ? 0 : -ENOMEM;
}

uint32_t
rps_backlog_count_ports(const struct rps_backlog *b, const struct rps_lcore_stats *st,
			uint64_t *by_slot)
{
	const struct rte_ring *r = b->ring;
	/* an rte_ring of pointers keeps them right after its header */
	void *const *slots = (void *const *)(uintptr_t)&r[1];
	const uint32_t first = __atomic_load_n(&r->cons.tail, __ATOMIC_ACQUIRE);
	const uint32_t n = __atomic_load_n(&r->prod.tail, __ATOMIC_ACQUIRE) - first;

	for (uint32_t i = 0; i < n && i <= r->mask; i++) {
		const struct rte_mbuf *m = slots[(first + i) & r->mask];

		by_slot[rps_stats_slot(st, m->port)]++;
	}
	return RTE_MIN(n, r->mask + 1);
}
