/* SPDX-License-Identifier: BSD-3-Clause */
/* budget.c: the planner that splits the mbuf pool into the RX reserve and the workers' shares. */
#include <rte_common.h>

#include "rps_budget.h"

void
rps_pool_budgets(struct rps_pool_budget *b)
{
	const uint64_t frag = b->frag_mbufs;
	const uint64_t rings = (uint64_t)b->backlogs * b->backlog;
	const uint64_t min_ring = b->backlogs ? RTE_MIN(b->burst, b->backlog) : 0;
	const uint64_t min_frag = frag ? RPS_BUDGET_MIN_FRAG : 0;
	const uint64_t workers = RTE_MAX(b->workers, 1u);
	/* what each share may hold beyond its fixed part */
	const uint64_t avail = b->pool > b->reserve ? (b->pool - b->reserve) / workers : 0;
	const uint64_t room = avail > b->fixed ? avail - b->fixed : 0;

	b->cut = 0;
	b->overcommit = 0;
	b->backlog_cap = b->backlog;
	b->frag_budget = b->frag_mbufs;
	if (rings + frag <= room) {
		/* as asked */
	} else if (b->backlogs * min_ring + min_frag > room) {
		b->overcommit = 1;
		if (frag) {
			uint64_t left = room > rings ? room - rings : 0;

			b->frag_budget = (uint32_t)RTE_MAX(RTE_MIN(frag, left), min_frag);
		}
	} else {
		/* one factor for both: room / (rings + frag), in integers, rings rounded down */
		uint64_t cap = b->backlogs ? (uint64_t)b->backlog * room / (rings + frag) : 0;

		cap = RTE_MAX(cap, min_ring);
		/* reassembly keeps its floor: the rings give it up */
		if (frag && b->backlogs * cap + min_frag > room)
			cap = (room - min_frag) / b->backlogs;
		b->backlog_cap = (uint32_t)cap;
		b->frag_budget = (uint32_t)RTE_MIN(frag, room - b->backlogs * cap);
		b->cut = 1;
	}
	b->share = b->fixed + (uint64_t)b->backlogs * b->backlog_cap + b->frag_budget;
}
