/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * filters.c: the consumer groups' filters (--consumer-filter G=EXPR, the file's [consumers]
 * filter.G): each group's expression, the command line's before the file's, compiled
 * (rps_filter.h) on the set-up thread at start and on the control thread at each reload
 * that changes one, and published to the workers under RCU: the set they may still read is
 * freed only after every worker has passed a quiescent state (cap_qsbr), as the maps are.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_rcu_qsbr.h>

#include "app.h"

/* Group @p g's expression ("" none): --consumer-filter's, else the file's (@p c, NULL:
 * none); where it came from into @p from ("--consumer-filter 1=" or "FILE:LINE: filter.1"). */
static const char *
group_text(const struct rps_app *app, const struct rps_config *c, uint16_t g, char *from,
	   size_t len)
{
	if (app->opt.consumer_filter[g][0] != '\0') {
		snprintf(from, len, "--consumer-filter %u='%s'", g, app->opt.consumer_filter[g]);
		return app->opt.consumer_filter[g];
	}
	if (c != NULL && c->filter[g][0] != '\0') {
		snprintf(from, len, "%s:%d: filter.%u", app->opt.config_path, c->filter_line[g], g);
		return c->filter[g];
	}
	from[0] = '\0';
	return "";
}

int
rps_app_filters_build(struct rps_app *app, const struct rps_config *c,
		      struct rps_filter_set **out, char *err, size_t err_len)
{
	/* read by this thread alone: the control thread (or set-up) is its writer */
	const struct rps_filter_set *cur = app->cons.filters;
	struct rps_filter_set *s;
	char from[RPS_FILTER_TEXT_MAX + 64], why[256];
	int same = 1, any = 0;

	*out = NULL;
	for (uint16_t g = 0; g < RPS_CONSUMER_GROUPS_MAX; g++) {
		const char *t = group_text(app, c, g, from, sizeof(from));
		const char *was = cur != NULL && cur->group[g] != NULL ? cur->group[g]->text : "";

		if (t[0] == '\0') {
			same &= was[0] == '\0';
			continue;
		}
		any = 1;
		same &= strcmp(t, was) == 0;
		if (g >= app->cons.nb_groups) {
			if (app->cons.nb_groups == 0)
				snprintf(err, err_len, "%s: only with --consumers K or consumers = K "
					 "(K > 0): a filter says what a consumer group receives", from);
			else
				snprintf(err, err_len, "%s: no consumer group %u (--consumers %s has "
					 "%u: 0..%u)", from, g, app->opt.consumers_text,
					 app->cons.nb_groups, app->cons.nb_groups - 1u);
			return -EINVAL;
		}
	}
	if (same)
		return 0;
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	s->generation = cur != NULL ? cur->generation + 1 : 1;
	s->nb_groups = app->cons.nb_groups;
	for (uint16_t g = 0; any && g < app->cons.nb_groups; g++) {
		const char *t = group_text(app, c, g, from, sizeof(from));
		int rc;

		if (t[0] == '\0')
			continue;
		rc = rps_filter_compile(t, 1, &s->group[g], why, sizeof(why));
		if (rc < 0) {
			snprintf(err, err_len, "%s: %s", from, why);
			rps_filter_set_free(s);
			return rc;
		}
		s->nb_filters++;
	}
	*out = s;
	return 1;
}

void
rps_app_filters_publish(struct rps_app *app, struct rps_filter_set *s, int running)
{
	struct rps_filter_set *old = app->cons.filters;

	/* a set without a filter is no set: the workers' one test per burst */
	if (s != NULL && s->nb_filters == 0) {
		rps_filter_set_free(s);
		s = NULL;
	}
	pthread_mutex_lock(&app->ctl.lock); /* telemetry and the summary read the texts */
	__atomic_store_n(&app->cons.filters, s, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&app->ctl.lock);
	/* no worker reads the old set once each has passed a quiescent state (or is
	 * offline, asleep) */
	if (old != NULL && running)
		rte_rcu_qsbr_synchronize(app->io.cap_qsbr, RTE_QSBR_THRID_INVALID);
	rps_filter_set_free(old);
}

int
rps_app_filters_start(struct rps_app *app, char *err, size_t err_len)
{
	struct rps_filter_set *s = NULL;
	int rc = rps_app_filters_build(app, app->ctl.start_cfg, &s, err, err_len);

	if (rc <= 0)
		return rc;
	for (uint16_t g = 0; g < s->nb_groups; g++)
		if (s->group[g] != NULL)
			RPS_LOG(INFO, "consumer group %u: filter '%s' (%u cBPF, %u eBPF "
				"instructions, %s)", g, s->group[g]->text, s->group[g]->cbpf_insns,
				s->group[g]->ebpf_insns,
				s->group[g]->jit != NULL ? "JIT" : "interpreted");
	rps_app_filters_publish(app, s, 0);
	return 0;
}

void
rps_app_filters_fini(struct rps_app *app)
{
	rps_filter_set_free(app->cons.filters);
	app->cons.filters = NULL;
}

void
rps_app_filter_text(const struct rps_app *app, uint16_t g, char *buf, size_t len)
{
	const struct rps_filter_set *s;

	pthread_mutex_lock((pthread_mutex_t *)&app->ctl.lock);
	s = app->cons.filters;
	snprintf(buf, len, "%s", s != NULL && g < RPS_FILTER_GROUPS_MAX && s->group[g] != NULL ?
		 s->group[g]->text : "");
	pthread_mutex_unlock((pthread_mutex_t *)&app->ctl.lock);
}
