/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rules.c: the steering rules of the application: every --rule, then the file's [rules],
 * resolved against the workers and consumers, built (librte_acl) on the control thread and
 * published under RCU like the maps; each rule's hits summed over the RX lcores, since its
 * set was taken and since start.
 *
 * Since start: each RX lcore counts a rule's hits in the rule's slot (rps_rules.h), never
 * reset. A text keeps its slot in every set that holds it (rules_slots()), so its count goes
 * on across reloads; a slot goes to another text only once no RX lcore can count in it any
 * more, its count then the new text's zero (base).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The RX lcores' counts of slot @p k, summed. */
static uint64_t
slot_count(const struct rps_app_lcores *lc, uint16_t k)
{
	uint64_t sum = 0;

	for (uint16_t r = 0; r < lc->nb_rx; r++)
		sum += __atomic_load_n(&lc->rx[r].rule_hits[k], __ATOMIC_RELAXED);
	return sum;
}

/*
 * Give each rule of @p rs (generation G, not yet published) its hit slot: the slot of its
 * text where there is one (its count since start goes on), else one never used, else one
 * whose last set is older than every RX lcore's (none counts in it any more: an RX lcore
 * counts only in the slots of the set it steers by, and takes newer sets only). Control
 * thread. @return 0, or -ENOSPC with @p err: every slot is held by a set some RX lcore may
 * still steer by (thousands of distinct rules in reloads faster than the drains).
 */
static int
rules_slots(struct rps_app *app, struct rps_rules *rs, char *err, size_t err_len)
{
	struct rps_rule_slots *t = app->ctl.rule_slots;
	uint8_t mine[RPS_RULE_SLOTS] = { 0 };
	uint32_t oldest = UINT32_MAX;

	if (t == NULL) {
		t = calloc(1, sizeof(*t));
		if (t == NULL) {
			snprintf(err, err_len, "cannot count the steering rules' hits: out of "
				 "memory");
			return -ENOMEM;
		}
		pthread_mutex_lock(&app->ctl.lock);
		app->ctl.rule_slots = t;
		pthread_mutex_unlock(&app->ctl.lock);
	}
	for (uint16_t r = 0; r < app->lc.nb_rx; r++) /* 0: none yet, or taking one */
		oldest = RTE_MIN(oldest, __atomic_load_n(&app->lc.rx[r].rules_gen,
							 __ATOMIC_ACQUIRE));
	pthread_mutex_lock(&app->ctl.lock); /* readers of the slots' base */
	for (uint16_t i = 0; i < rs->nb_rules; i++) {
		unsigned int k, fresh = RPS_RULE_SLOTS, old = RPS_RULE_SLOTS;

		for (k = 0; k < RPS_RULE_SLOTS; k++) {
			if (mine[k])
				continue;
			if (t->text[k][0] == '\0') {
				fresh = RTE_MIN(fresh, k);
				continue;
			}
			if (strcmp(t->text[k], rs->text[i]) == 0)
				break;
			if (t->gen[k] < oldest && old == RPS_RULE_SLOTS)
				old = k;
		}
		if (k == RPS_RULE_SLOTS) {
			k = fresh != RPS_RULE_SLOTS ? fresh : old;
			if (k == RPS_RULE_SLOTS) {
				pthread_mutex_unlock(&app->ctl.lock);
				snprintf(err, err_len, "steering rules: no hit counter free for rule "
					 "'%s' (%u in use by sets not yet taken by every RX lcore): "
					 "reload again in a moment", rs->text[i], RPS_RULE_SLOTS);
				return -ENOSPC;
			}
			memcpy(t->text[k], rs->text[i], sizeof(t->text[k]));
			t->base[k] = slot_count(&app->lc, (uint16_t)k);
		}
		mine[k] = 1;
		t->gen[k] = rs->generation;
		rs->slot[i] = (uint16_t)k;
	}
	pthread_mutex_unlock(&app->ctl.lock);
	return 0;
}

int
rps_app_rules_build(struct rps_app *app, const struct rps_config *c,
		    struct rps_rules **out, char *err, size_t err_len)
{
	static struct rps_rule rules[RPS_RULES_MAX]; /* control thread, or start-up: one caller */
	static uint16_t targets[RPS_RULES_MAX];
	const uint16_t nb_file = c != NULL ? c->nb_rules : 0;
	const uint16_t n = (uint16_t)(app->opt.nb_rules + nb_file);
	struct rps_rules *rs;
	int rc;

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

		if (rps_rule_resolve(&rules[i], app->lc.nb_workers, app->cons.group_size, app->cons.nb_groups,
				     &targets[i], why, sizeof(why)) < 0) {
			rule_origin(app, c, i, where, sizeof(where));
			snprintf(err, err_len, "%s: %s", where, why);
			return -EINVAL;
		}
	}
	if (n == 0 && app->steer.rules == NULL)
		return 0; /* none, as before: nothing to publish */
	/* the same rules as running: keep them (no swap, no drain) */
	if (app->steer.rules != NULL && app->steer.rules->nb_rules == n &&
	    memcmp(app->steer.rules->rule, rules, sizeof(rules[0]) * n) == 0 &&
	    memcmp(app->steer.rules->target, targets, sizeof(targets[0]) * n) == 0)
		return 0;
	rs = rps_rules_build(rules, targets, n, app->ctl.rules_gen + 1, RPS_APP_SELF(app)->socket);
	if (rs == NULL) {
		snprintf(err, err_len, "cannot build %u steering rules: %s", n,
			 rte_strerror(rte_errno));
		return -ENOMEM;
	}
	rc = rules_slots(app, rs, err, err_len);
	if (rc < 0) {
		rps_rules_free(rs);
		return rc;
	}
	*out = rs;
	return 1;
}

void
rps_app_rules_publish(struct rps_app *app, struct rps_rules *rs)
{
	struct rps_rules *old;

	pthread_mutex_lock(&app->ctl.lock);
	old = app->steer.rules;
	__atomic_store_n(&app->steer.rules, rs, __ATOMIC_RELEASE);
	app->ctl.rules_gen = rs->generation;
	pthread_mutex_unlock(&app->ctl.lock);
	if (old == NULL)
		return;
	/* every RX lcore has finished the loop that may still read the old set */
	rte_rcu_qsbr_synchronize(app->steer.qsbr, RTE_QSBR_THRID_INVALID);
	pthread_mutex_lock(&app->ctl.lock); /* /rps/rules reads the current set under it */
	rps_rules_free(old);
	pthread_mutex_unlock(&app->ctl.lock);
}

int
rps_app_rules_start(struct rps_app *app, char *err, size_t err_len)
{
	struct rps_rules *rs;
	int rc = rps_app_rules_build(app, app->ctl.start_cfg, &rs, err, err_len);

	if (rc <= 0)
		return rc;
	/* before the RX lcores run: no reader yet */
	app->steer.rules = rs;
	app->ctl.rules_gen = rs->generation;
	return 0;
}

void
rps_app_rules_fini(struct rps_app *app)
{
	rps_rules_free(app->steer.rules);
	app->steer.rules = NULL;
	free(app->ctl.rule_slots);
	app->ctl.rule_slots = NULL;
}

uint64_t
rps_app_rule_hits(const struct rps_app_lcores *lc, const struct rps_rules *rs, uint16_t i)
{
	uint64_t sum = 0;

	for (uint16_t r = 0; r < lc->nb_rx; r++) {
		const struct rps_rx_lcore *rx = &lc->rx[r];
		/* a sequence count: the RX lcore sets the set's base between two stores of
		 * rules_gen (0 while it does); only a base read between two loads of this
		 * set's generation is this set's */
		uint32_t g1 = __atomic_load_n(&rx->rules_gen, __ATOMIC_ACQUIRE);
		uint64_t base, v;

		if (g1 != rs->generation)
			continue; /* it has not steered by this set yet */
		base = __atomic_load_n(&rx->rule_base[i], __ATOMIC_RELAXED);
		v = __atomic_load_n(&rx->rule_hits[rs->slot[i]], __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&rx->rules_gen, __ATOMIC_RELAXED) == g1)
			sum += v - base;
	}
	return sum;
}

uint64_t
rps_app_rule_hits_total(const struct rps_app *app, const struct rps_rules *rs, uint16_t i)
{
	const uint16_t k = rs->slot[i];

	return slot_count(&app->lc, k) - (app->ctl.rule_slots != NULL ? app->ctl.rule_slots->base[k] : 0);
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
