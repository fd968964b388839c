/* SPDX-License-Identifier: BSD-3-Clause */
/* balance.c: the rebalancer's greedy plan (see rps_balance.h). */
#include <errno.h>
#include <stdlib.h>

#include "rps_balance.h"

double
rps_balance_ratio(const uint64_t *load, const uint32_t *weight, uint16_t nb_workers)
{
	double sum = 0, wsum = 0, peak = 0;

	for (uint16_t w = 0; w < nb_workers; w++) {
		if (weight[w] == 0)
			continue;
		sum += (double)load[w];
		wsum += weight[w];
		if ((double)load[w] / weight[w] > peak)
			peak = (double)load[w] / weight[w];
	}
	if (sum <= 0 || wsum <= 0)
		return 1.0;
	return peak / (sum / wsum);
}

/* The worker with the highest load / weight. */
static uint16_t
busiest(const uint64_t *load, const uint32_t *weight, uint16_t nb_workers)
{
	uint16_t top = UINT16_MAX;

	for (uint16_t w = 0; w < nb_workers; w++)
		if (weight[w] != 0 && (top == UINT16_MAX ||
				       (double)load[w] / weight[w] > (double)load[top] / weight[top]))
			top = w;
	return top;
}

int
rps_balance_plan(struct rps_balance_bucket *b, uint32_t nb, const uint32_t *weight,
		 uint16_t nb_workers, const uint8_t *allowed, uint16_t nb_groups,
		 const struct rps_balance_cfg *cfg, struct rps_balance_move *moves,
		 double *before, double *after)
{
	uint64_t *load, total = 0;
	double ratio, wsum = 0, min_gain;
	int n = 0;

	if (before != NULL)
		*before = 1.0;
	if (after != NULL)
		*after = 1.0;
	if ((nb > 0 && b == NULL) || weight == NULL || allowed == NULL || cfg == NULL ||
	    moves == NULL || nb_workers == 0)
		return -EINVAL;
	load = calloc(nb_workers, sizeof(*load));
	if (load == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < nb; i++) {
		if (b[i].owner >= nb_workers || b[i].group >= nb_groups) {
			free(load);
			return -EINVAL;
		}
		load[b[i].owner] += b[i].load;
		total += b[i].load;
	}
	for (uint16_t w = 0; w < nb_workers; w++)
		wsum += weight[w];
	/* a move must take at least this off the busiest worker's normalised load */
	min_gain = wsum > 0 ? RPS_BALANCE_MIN_GAIN * (double)total / wsum : 0;
	ratio = rps_balance_ratio(load, weight, nb_workers);
	if (before != NULL)
		*before = ratio;
	if (total < cfg->min_load || ratio <= 1.0 + cfg->threshold_pct / 100.0)
		goto done;
	while ((uint32_t)n < cfg->max_moves &&
	       ratio > 1.0 + cfg->threshold_pct / 200.0) {
		uint16_t src = busiest(load, weight, nb_workers), to = 0;
		const double src_norm = (double)load[src] / weight[src];
		double best = src_norm - min_gain, best_dst = 0;
		uint32_t pick = UINT32_MAX;

		for (uint32_t i = 0; i < nb; i++) {
			if (b[i].owner != src || !b[i].movable || b[i].load == 0)
				continue;
			for (uint16_t d = 0; d < nb_workers; d++) {
				double s_after, d_after, peak;

				if (d == src || weight[d] == 0 ||
				    !allowed[(uint32_t)b[i].group * nb_workers + d])
					continue;
				s_after = (double)(load[src] - b[i].load) / weight[src];
				d_after = (double)(load[d] + b[i].load) / weight[d];
				peak = s_after > d_after ? s_after : d_after;
				/* the lowest peak; among equal peaks (the source's load dominates) the
				 * destination left lightest, so moves spread over the idle workers */
				if (peak < best || (pick != UINT32_MAX && peak == best &&
						    d_after < best_dst)) {
					best = peak;
					best_dst = d_after;
					pick = i;
					to = d;
				}
			}
		}
		if (pick == UINT32_MAX)
			break; /* nothing the busiest worker holds can go anywhere better */
		moves[n].bucket = pick;
		moves[n].from = src;
		moves[n].to = to;
		n++;
		load[src] -= b[pick].load;
		load[to] += b[pick].load;
		b[pick].owner = to;
		b[pick].movable = 0; /* once per plan */
		ratio = rps_balance_ratio(load, weight, nb_workers);
	}
done:
	if (after != NULL)
		*after = ratio;
	free(load);
	return n;
}

int
rps_balance_isolate(struct rps_balance_bucket *b, uint32_t nb, uint16_t iso,
		    const uint32_t *weight, uint16_t nb_workers, const uint8_t *allowed,
		    uint16_t nb_groups, const uint8_t *excluded,
		    struct rps_balance_move *moves, uint32_t max_moves)
{
	uint64_t *load;
	uint32_t n = 0;

	if ((nb > 0 && b == NULL) || weight == NULL || allowed == NULL || excluded == NULL ||
	    (max_moves > 0 && moves == NULL) || iso >= nb_workers)
		return -EINVAL;
	load = calloc(nb_workers, sizeof(*load));
	if (load == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < nb; i++) {
		if (b[i].owner >= nb_workers || b[i].group >= nb_groups) {
			free(load);
			return -EINVAL;
		}
		load[b[i].owner] += b[i].load + 1;
	}
	for (uint32_t i = 0; i < nb && n < max_moves; i++) {
		uint16_t to = UINT16_MAX;
		double best = 0;

		if (b[i].owner != iso || !b[i].movable)
			continue;
		for (uint16_t d = 0; d < nb_workers; d++) {
			double after;

			if (d == iso || weight[d] == 0 || excluded[d] ||
			    !allowed[(uint32_t)b[i].group * nb_workers + d])
				continue;
			after = (double)(load[d] + b[i].load + 1) / weight[d];
			if (to == UINT16_MAX || after < best) {
				best = after;
				to = d;
			}
		}
		if (to == UINT16_MAX)
			continue; /* nowhere to go in its group: it stays */
		moves[n].bucket = i;
		moves[n].from = iso;
		moves[n].to = to;
		n++;
		load[iso] -= b[i].load + 1;
		load[to] += b[i].load + 1;
		b[i].owner = to;
		b[i].movable = 0;
	}
	free(load);
	return (int)n;
}
