/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rules.c: the steering rules of the application: every --rule, then the file's [rules],
 * resolved against the workers and consumers, built (librte_acl) on the control thread and
 * published under RCU like the maps; each rule's hits summed over the RX lcores.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>

#include "app.h"

/* Where rule @p i of the combined list came from, for a message: "--rule 'TEXT'" or
 * "FILE:LINE". */
static void
rule_origin(const struct rps_app *app, const struct rps_config *c, uint16_t i, char *buf,
	    size_t len)
{
	if (i < app->opt.nb_rules)
		snprintf(buf, len, "--rule '%s'", app->opt.rule_text[i]);
	else
		snprintf(buf, len, "%s:%d: rule", app->opt.config_path,
			 c->rule_line[i - app->opt.nb_rules]);
}

int
rps_app_rules_build(const struct rps_app *app, const struct rps_config *c,
		    struct rps_rules **out, char *err, size_t err_len)
{
	static struct rps_rule rules[RPS_RULES_MAX]; /* control thread, or start-up: one caller */
	static uint16_t targets[RPS_RULES_MAX];
	const uint16_t nb_file = c != NULL ? c->nb_rules : 0;
	const uint16_t n = (uint16_t)(app->opt.nb_rules + nb_file);
	struct rps_rules *rs;

	*out = NULL;
	if (n > RPS_RULES_MAX) {
		snprintf(err, err_len, "%s: %u rules in [rules] and %u --rule: at most %u in all",
			 app->opt.config_path, nb_file, app->opt.nb_rules, RPS_RULES_MAX);
		return -EINVAL;
	}
	memcpy(rules, app->opt.rules, sizeof(rules[0]) * app->opt.nb_rules);
	if (nb_file != 0)
		memcpy(&rules[app->opt.nb_rules], c->rules, sizeof(rules[0]) * nb_file);
	for (uint16_t i = 0; i < n; i++) {
		char why[160], where[200];

		if (rps_rule_resolve(&rules[i], app->nb_workers, app->group_size, app->nb_groups,
				     &targets[i], why, sizeof(why)) < 0) {
			rule_origin(app, c, i, where, sizeof(where));
			snprintf(err, err_len, "%s: %s", where, why);
			return -EINVAL;
		}
	}
	if (n == 0 && app->rules == NULL)
		return 0; /* none, as before: nothing to publish */
	/* the same rules as running: keep them (no swap, no drain) */
	if (app->rules != NULL && app->rules->nb_rules == n &&
	    memcmp(app->rules->rule, rules, sizeof(rules[0]) * n) == 0 &&
	    memcmp(app->rules->target, targets, sizeof(targets[0]) * n) == 0)
		return 0;
	rs = rps_rules_build(rules, targets, n, app->rules_gen + 1, RPS_APP_SELF(app)->socket);
	if (rs == NULL) {
		snprintf(err, err_len, "cannot build %u steering rules: %s", n,
			 rte_strerror(rte_errno));
		return -ENOMEM;
	}
	*out = rs;
	return 1;
}

void
rps_app_rules_publish(struct rps_app *app, struct rps_rules *rs)
{
	struct rps_rules *old;

	pthread_mutex_lock(&app->ctl_lock);
	old = app->rules;
	__atomic_store_n(&app->rules, rs, __ATOMIC_RELEASE);
	app->rules_gen = rs->generation;
	pthread_mutex_unlock(&app->ctl_lock);
	if (old == NULL)
		return;
	/* every RX lcore has finished the loop that may still read the old set */
	rte_rcu_qsbr_synchronize(app->qsbr, RTE_QSBR_THRID_INVALID);
	pthread_mutex_lock(&app->ctl_lock); /* /rps/rules reads the current set under it */
	rps_rules_free(old);
	pthread_mutex_unlock(&app->ctl_lock);
}

int
rps_app_rules_start(struct rps_app *app, char *err, size_t err_len)
{
	struct rps_rules *rs;
	int rc = rps_app_rules_build(app, app->start_cfg, &rs, err, err_len);

	if (rc <= 0)
		return rc;
	/* before the RX lcores run: no reader yet */
	app->rules = rs;
	app->rules_gen = rs->generation;
	return 0;
}

void
rps_app_rules_fini(struct rps_app *app)
{
	rps_rules_free(app->rules);
	app->rules = NULL;
}

uint64_t
rps_app_rule_hits(const struct rps_app *app, const struct rps_rules *rs, uint16_t i)
{
	uint64_t sum = 0;

	for (uint16_t r = 0; r < app->nb_rx; r++) {
		const struct rps_rx_lcore *rx = &app->rx[r];
		/* a sequence count: the RX lcore zeroes its hits between two stores of rules_gen
		 * (0 while it does); only counts read between two loads of this set's
		 * generation are this set's */
		uint32_t g1 = __atomic_load_n(&rx->rules_gen, __ATOMIC_ACQUIRE);
		uint64_t v;

		if (g1 != rs->generation)
			continue; /* it has not steered by this set yet */
		v = __atomic_load_n(&rx->rule_hits[i], __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&rx->rules_gen, __ATOMIC_RELAXED) == g1)
			sum += v;
	}
	return sum;
}

const char *
rps_app_rule_action(const struct rps_rules *rs, uint16_t i, char *buf, size_t len)
{
	const struct rps_rule *r = &rs->rule[i];

	if (r->action == RPS_RULE_ACT_DROP)
		snprintf(buf, len, "drop");
	else if (r->action == RPS_RULE_ACT_WORKER)
		snprintf(buf, len, "worker %u", rs->target[i]);
	else
		snprintf(buf, len, "consumer %u (worker %u)", r->target, rs->target[i]);
	return buf;
}
