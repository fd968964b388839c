/* SPDX-License-Identifier: BSD-3-Clause */
/* backlog.c: creating and tearing down a worker's backlog ring. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mempool.h>

#include "rps_backlog.h"

/* An SP/SC ring of @p count slots of the backlog's layout. */
static struct rte_ring *
ring_create(const struct rps_backlog *b, const char *name, uint32_t count, int socket)
{
	return rte_ring_create_elem(name, b->slot_base != 0 ? sizeof(uint32_t) : sizeof(void *),
				    count, socket, RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
}

int
rps_backlog_init_slots(struct rps_backlog *b, const char *name, uint32_t capacity, int socket,
		       uintptr_t base)
{
	char rname[RTE_RING_NAMESIZE];

	memset(b, 0, sizeof(*b));
	/* RING_F_EXACT_SZ allocates capacity + 1 rounded up to a power of two slots, which must
	 * stay within RTE_RING_SZ_MASK: at most 2^30 - 1 packets. */
	if (capacity == 0 || capacity > RTE_RING_SZ_MASK / 2)
		return -EINVAL;
	b->slot_base = base;
	snprintf(rname, sizeof(rname), "rps_bl_%s", name);
	b->ring = ring_create(b, rname, capacity, socket);
	if (b->ring == NULL)
		return rte_errno == EEXIST ? -EEXIST : -ENOMEM;
	b->capacity = rte_ring_get_capacity(b->ring);
	return 0;
}

int
rps_backlog_init(struct rps_backlog *b, const char *name, uint32_t capacity, int socket)
{
	return rps_backlog_init_slots(b, name, capacity, socket, 0);
}

struct span {
	uintptr_t lo, hi;
	int misaligned;
};

static void
span_chunk(struct rte_mempool *mp __rte_unused, void *opaque, struct rte_mempool_memhdr *mh,
	   unsigned int idx __rte_unused)
{
	struct span *sp = opaque;

	sp->lo = RTE_MIN(sp->lo, (uintptr_t)mh->addr);
	sp->hi = RTE_MAX(sp->hi, (uintptr_t)mh->addr + mh->len);
}

static void
span_obj(struct rte_mempool *mp __rte_unused, void *opaque, void *obj,
	 unsigned int idx __rte_unused)
{
	struct span *sp = opaque;

	sp->misaligned |= ((uintptr_t)obj & (RTE_BIT64(RPS_SLOT_SHIFT) - 1)) != 0;
}

uintptr_t
rps_backlog_slot_base(struct rte_mempool *const *pools, unsigned int n)
{
	struct span sp = {.lo = UINTPTR_MAX, .hi = 0, .misaligned = 0};

	for (unsigned int i = 0; i < n; i++) {
		if (pools[i] == NULL)
			continue;
		rte_mempool_mem_iter(pools[i], span_chunk, &sp);
		rte_mempool_obj_iter(pools[i], span_obj, &sp);
	}
	if (sp.hi == 0 || sp.misaligned)
		return 0;
	sp.lo = RTE_ALIGN_FLOOR(sp.lo, RTE_BIT64(RPS_SLOT_SHIFT));
	/* 0 is "pointers": a base at address 0 cannot be, the page is never mapped */
	if (sp.lo == 0 || sp.hi - sp.lo > RTE_BIT64(32 + RPS_SLOT_SHIFT))
		return 0;
	return sp.lo;
}

int
rps_backlog_rebase(struct rps_backlog *b, uintptr_t base)
{
	if (b->slot_base == 0 || base == 0 || !rte_ring_empty(b->ring) ||
	    (b->ret != NULL && !rte_ring_empty(b->ret)))
		return -EINVAL;
	b->slot_base = base;
	return 0;
}

/* Free whatever @p r still holds (either layout). */
static void
ring_drain(struct rte_ring *r, uintptr_t base)
{
	struct rte_mbuf *m[64];
	unsigned int n;

	while ((n = rps_backlog_ring_get(r, base, m, RTE_DIM(m), NULL)) > 0)
		rte_pktmbuf_free_bulk(m, n);
}

void
rps_backlog_set_budget_cut(struct rps_backlog *b)
{
	b->budget_cut = 1;
}

void
rps_backlog_fini(struct rps_backlog *b)
{
	if (b->ring == NULL)
		return;
	ring_drain(b->ring, b->slot_base);
	rte_ring_free(b->ring);
	b->ring = NULL;
	if (b->ret != NULL)
		ring_drain(b->ret, b->slot_base);
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
	b->ret = ring_create(b, rname, size, socket);
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
	/* an rte_ring keeps its slots right after its header: pointers, or 32-bit slots */
	void *const *ptrs = (void *const *)(uintptr_t)&r[1];
	const uint32_t *slots = (const uint32_t *)(uintptr_t)&r[1];
	const uint32_t first = __atomic_load_n(&r->cons.tail, __ATOMIC_ACQUIRE);
	const uint32_t n = __atomic_load_n(&r->prod.tail, __ATOMIC_ACQUIRE) - first;

	for (uint32_t i = 0; i < n && i <= r->mask; i++) {
		const uint32_t at = (first + i) & r->mask;
		const struct rte_mbuf *m = b->slot_base == 0 ? ptrs[at] :
					   rps_backlog_slot_mbuf(b->slot_base, slots[at]);

		by_slot[rps_stats_slot(st, m->port)]++;
	}
	return RTE_MIN(n, r->mask + 1);
}
