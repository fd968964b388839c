/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * control.c: live control, off the data path. The configuration file is merged under the
 * command line at start; afterwards a control thread reloads it on SIGHUP and whenever it
 * changes (inotify along its symlink chain, so editors that replace the file and Kubernetes
 * ConfigMap updates work; once the writer is done, see "Watching the file"), applies what
 * can change live (maps, reorder_safe, stats_interval) atomically, refuses a bad file with
 * its FILE:LINE error while the old configuration keeps running, and reports keys that need
 * a restart. The checks that need the port (check_file_maps) run at start too. It also
 * computes per-second rates for telemetry.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "app.h"

/*
 * Read @p path (its content's digest into *@p digest). A file that others could change
 * (rps_safepath.h) is refused, as sshd's StrictModes refuses authorized_keys, unless
 * --strict-modes off: then a warning per load.
 */
static int
load_file(const struct rps_options *o, const char *path, struct rps_config *c, const char *why,
	  uint64_t *digest, char *err, size_t err_len)
{
	struct rps_config_file info;
	int rc = rps_config_load_file(path, c, &info, err, err_len);

	*digest = info.digest;
	if (info.unsafe[0] == '\0')
		return rc;
	if (o->strict_modes) {
		snprintf(err, err_len, "%s: not applied: %s: whoever can write there could "
			 "control the steering (chmod go-w, chown to this user or root; or "
			 "--strict-modes off)", path, info.unsafe);
		return -EPERM;
	}
	RPS_LOG(WARNING, "config %s (%s): %s: whoever can write there controls the steering at "
		"the next reload (chmod go-w, chown to this user or root)", path, why, info.unsafe);
	return rc;
}

/*
 * The checks of a file's maps that need the port and the lcores: every queueN line names an
 * RX queue of the port, every map only enabled lcores other than the RX lcore. The same at
 * start and on each reload, so that a file accepted at start cannot fail every reload.
 */
static int
check_file_maps(const struct rps_app *app, const struct rps_config *c, char *err,
		size_t err_len)
{
	const char *path = app->opt.config_path;
	struct rps_lcoreset enabled;
	unsigned int bad;

	for (unsigned int q = RTE_MIN(app->io.nb_rxq, RPS_CONFIG_MAX_QUEUES);
	     q < RPS_CONFIG_MAX_QUEUES; q++)
		if (c->has_queue_map[q]) {
			snprintf(err, err_len, "%s:%d: queue%u: port %u has %u RX queue(s) "
				 "(queue0..queue%u)", path, c->queue_map_line[q], q,
				 app->opt.rx_port, app->io.nb_rxq, app->io.nb_rxq - 1u);
			return -EINVAL;
		}
	rps_app_enabled_lcores(&enabled);
	for (uint16_t q = 0; q < app->io.nb_rxq; q++) {
		const char *text = NULL;
		const struct rps_lcoreset *s = rps_config_queue_map(c, q, &text);
		int r;

		if (s == NULL)
			continue;
		r = rps_app_check_workers(app, s, &enabled, &bad);
		if (r < 0) {
			snprintf(err, err_len, "%s:%d: map of queue %u (%s): lcore %u %s", path,
				 q < RPS_CONFIG_MAX_QUEUES && c->has_queue_map[q] ?
				 c->queue_map_line[q] : c->default_map_line, q, text ? text : "?",
				 bad, r == -EBUSY ? "is an RX lcore" : "is not enabled in EAL");
			return -EINVAL;
		}
	}
	return 0;
}

int
rps_control_check_start_config(const struct rps_app *app, char *err, size_t err_len)
{
	return app->ctl.start_cfg != NULL ? check_file_maps(app, app->ctl.start_cfg, err, err_len) : 0;
}

int
rps_control_apply_start_config(struct rps_app *app, char *err, size_t err_len)
{
	struct rps_options *o = &app->opt;
	struct rps_config *c;
	char bad[64];

	if (o->config_path == NULL)
		return 0;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	if (load_file(o, o->config_path, c, "start", &app->ctl.applied_digest, err, err_len) < 0) {
		free(c);
		return -EINVAL;
	}
	app->ctl.applied_known = 1;
	app->ctl.applied_gen = 1; /* the start's (maps.c) */
	/* every number, boolean and enum the file set and the command line did not (the
	 * settings table's; symmetric, inner and the lists follow in apply_hash_options) */
	for (unsigned int i = 0; i < RPS_SET_NB; i++) {
		const struct rps_setting *s = &rps_settings[i];
		int64_t v;

		if (s->flag != NULL && !rps_options_given(o, s->flag) &&
		    rps_config_value(c, (enum rps_setting_id)i, &v) == 0)
			(void)rps_options_set_value(o, (enum rps_setting_id)i, v);
	}
	if (c->has_rx_port && !rps_options_given(o, "rx-port")) {
		/* the file's list (the loop above took its first into rx_port) */
		RTE_BUILD_BUG_ON(RPS_CONFIG_MAX_RX_PORTS != RPS_RX_PORTS_MAX);
		memcpy(o->rx_ports, c->rx_ports, sizeof(c->rx_ports[0]) * c->nb_rx_ports);
		o->nb_rx_ports = c->nb_rx_ports;
	}
	if (c->has_forward && !rps_options_given(o, "forward")) {
		o->nb_fwd = c->nb_fwd;
		memcpy(o->fwd, c->fwd, sizeof(c->fwd));
	}
	if (c->has_metrics && !rps_options_given(o, "metrics"))
		o->metrics = c->metrics;
	if (c->has_consumers && !rps_options_given(o, "consumers")) {
		o->consumers = c->consumers;
		o->consumer_groups = c->consumer_groups;
		memcpy(o->group_size, c->group_size, sizeof(o->group_size));
		snprintf(o->consumers_text, sizeof(o->consumers_text), "%s", c->consumers_text);
	}
	if (c->has_consumer_socket && !rps_options_given(o, "consumer-socket"))
		snprintf(o->consumer_socket, sizeof(o->consumer_socket), "%s", c->consumer_socket);
	if (c->has_consumer_group && !rps_options_given(o, "consumer-group"))
		snprintf(o->consumer_group, sizeof(o->consumer_group), "%s", c->consumer_group);
	if (c->has_consumer_secret) {
		o->nb_consumer_secrets = c->nb_consumer_secrets;
		memcpy(o->consumer_secret, c->consumer_secret, sizeof(o->consumer_secret));
	}
	if (c->has_rx_lcores && !rps_options_given(o, "rx-lcores")) {
		o->rx_lcores = c->rx_lcores;
		o->rx_lcores_given = 1;
		snprintf(o->rx_lcores_text, sizeof(o->rx_lcores_text), "%s", c->rx_lcores_text);
	}
	if (o->rebalance && !o->reorder_safe) {
		snprintf(err, err_len, "%s: rebalance = on needs reorder_safe = on (a bucket moved "
			 "without it may reorder its flows)", o->config_path);
		free(c);
		return -EINVAL;
	}
	if (c->has_hash_seed && !rps_options_given(o, "hash-seed"))
		o->seed_given = 1; /* o->seed: above */
	if (c->has_stages && !rps_options_given(o, "stages")) {
		struct rps_pipeline p;

		if (rps_pipeline_parse(c->stages, &p, bad, sizeof(bad)) < 0) {
			snprintf(err, err_len, "%s: stages: '%s' is unknown, repeated or out of order",
				 o->config_path, bad);
			free(c);
			return -EINVAL;
		}
		snprintf(o->stages_text, sizeof(o->stages_text), "%s", c->stages);
	}
	if (!rps_options_given(o, "map")) {
		/* The workers are every lcore of any queue's map. */
		int any = c->has_default_map;
		struct rps_lcoreset u = c->default_map;

		for (unsigned int q = 0; q < RPS_CONFIG_MAX_QUEUES; q++) {
			if (!c->has_queue_map[q])
				continue;
			any = 1;
			for (unsigned int i = 0; i < RPS_LCORESET_WORDS; i++)
				u.bits[i] |= c->queue_map[q].bits[i];
		}
		if (any) {
			o->map = u;
			o->map_given = 1;
			rps_lcoreset_format(&u, o->map_text, sizeof(o->map_text));
		}
	}
	app->ctl.start_cfg = c;
	return 0;
}

/* Keys the file changed that only a restart applies. */
static void
restart_keys(const struct rps_app *app, const struct rps_config *c, char *out, size_t len)
{
	const struct rps_options *o = &app->opt;
	size_t pos = 0;

	out[0] = '\0';
#define CHANGED(cond, name) \
	if (cond) pos += (size_t)snprintf(out + pos, pos < len ? len - pos : 0, "%s%s", \
					  pos ? ", " : "", name)
	/* the numbers, booleans and enums of the settings table that only a restart applies */
	for (unsigned int i = 0; i < RPS_SET_NB; i++) {
		const struct rps_setting *s = &rps_settings[i];
		int64_t fv, ov;

		if (s->key == NULL || s->when != RPS_SETTING_RESTART || i == RPS_SET_HASH_SEED ||
		    rps_config_value(c, (enum rps_setting_id)i, &fv) < 0 ||
		    rps_options_value(o, (enum rps_setting_id)i, &ov) < 0)
			continue;
		CHANGED(fv != ov, s->key);
	}
	/* and the others */
	CHANGED(c->has_hash_seed && c->hash_seed != app->io.seed, "hash_seed");
	CHANGED(c->has_symmetric && c->symmetric != o->symmetric, "symmetric");
	CHANGED(c->has_vxlan_port && memcmp(&c->tunnels, &o->tunnels, sizeof(c->tunnels)) != 0,
		"vxlan_port");
	CHANGED(c->has_forward && (c->nb_fwd != o->nb_fwd ||
				   memcmp(c->fwd, o->fwd, sizeof(c->fwd[0]) * c->nb_fwd) != 0),
		"forward");
	CHANGED(c->has_rss_key && (c->rss_key_len != o->rss_key_len ||
				   memcmp(c->rss_key, o->rss_key, c->rss_key_len) != 0), "rss_key");
	CHANGED(c->has_stages && strcmp(c->stages, o->stages_text) != 0, "stages");
	CHANGED(c->has_rx_lcores && memcmp(c->rx_lcores.bits, o->rx_lcores.bits,
					   sizeof(o->rx_lcores.bits)) != 0, "rx_lcores");
	CHANGED(c->has_rx_port && (c->nb_rx_ports != o->nb_rx_ports ||
				   memcmp(c->rx_ports, o->rx_ports,
					  sizeof(c->rx_ports[0]) * c->nb_rx_ports) != 0) &&
		c->rx_port == o->rx_port /* else the loop above said it */, "rx_port");
	CHANGED(c->has_metrics && (c->metrics.on != o->metrics.on ||
				   strcmp(c->metrics.text, o->metrics.text) != 0), "metrics");
	CHANGED(c->has_consumers && (c->consumer_groups != o->consumer_groups ||
				     memcmp(c->group_size, o->group_size,
					    sizeof(c->group_size[0]) * c->consumer_groups) != 0),
		"consumers");
	CHANGED(c->has_consumer_socket && strcmp(c->consumer_socket, o->consumer_socket) != 0,
		"consumer_socket");
	CHANGED(c->has_consumer_group && strcmp(c->consumer_group, o->consumer_group) != 0,
		"consumer_group");
	/* the secrets compared, never shown */
	CHANGED(c->has_consumer_secret != (o->nb_consumer_secrets > 0) ||
		(c->has_consumer_secret && (c->nb_consumer_secrets != o->nb_consumer_secrets ||
					    memcmp(c->consumer_secret, o->consumer_secret,
						   sizeof(c->consumer_secret)) != 0)),
		"consumer_secret");
#undef CHANGED
}

/* A stalled worker keeps none of the buckets of a map a reload builds (health.c): replace
 * *@p map by a copy without them. @return 0 or -ENOMEM. */
static int
failover_table(struct rps_app *app, uint16_t q, const struct rps_lcoreset *set,
	       struct rps_map **map, uint32_t gen, int fresh)
{
	uint16_t *t;
	struct rps_map *m;
	const uint32_t size = (*map)->mask + 1;

	if (app->ctl.taken_from == NULL || (*map)->nb_workers == 0)
		return 0;
	t = malloc(size * sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	memcpy(t, (*map)->table, size * sizeof(*t));
	rps_health_adjust(app, q, set, t, size, fresh);
	if (memcmp(t, (*map)->table, size * sizeof(*t)) == 0) {
		free(t);
		return 0;
	}
	m = rps_map_create_table(t, size, gen, RPS_APP_SELF(app)->socket);
	free(t);
	if (m == NULL)
		return -ENOMEM;
	rps_map_free(*map);
	*map = m;
	return 0;
}

int
rps_control_reload(struct rps_app *app, const char *why)
{
	struct rps_config *c = calloc(1, sizeof(*c));
	struct rps_map **maps = calloc(app->io.nb_rxq, sizeof(*maps));
	struct rps_lcoreset *sets = calloc(app->io.nb_rxq, sizeof(*sets));
	char err[256] = "", restart[160], when[64];
	uint32_t gen = app->ctl.generation + 1;
	uint32_t size = app->ctl.table_size;
	struct rps_rebalance_conf rb = app->ctl.rebal;
	int safe = __atomic_load_n(&app->steer.reorder_safe, __ATOMIC_RELAXED);
	struct rps_rules *rules = NULL;
	struct rps_filter_set *filters = NULL;
	uint64_t digest = 0;
	int rc = -EINVAL, fresh;

	if (c == NULL || maps == NULL || sets == NULL) {
		snprintf(err, sizeof(err), "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	if (app->opt.config_path == NULL) {
		snprintf(err, sizeof(err), "no --config file to reload: nothing changed");
		goto out;
	}
	if (load_file(&app->opt, app->opt.config_path, c, why, &digest, err, sizeof(err)) < 0)
		goto out;
	if (app->ctl.applied_known && digest == app->ctl.applied_digest) {
		/* the file as applied already (a save, then a SIGHUP for it): nothing to do, and
		 * no generation for nothing */
		pthread_mutex_lock(&app->ctl.lock);
		app->ctl.reloads_unchanged++;
		if (app->ctl.applied_restart[0] != '\0')
			snprintf(app->ctl.last_reload_result, sizeof(app->ctl.last_reload_result),
				 "ok; needs a restart for: %s (unchanged since generation %u)",
				 app->ctl.applied_restart, app->ctl.applied_gen);
		else
			snprintf(app->ctl.last_reload_result, sizeof(app->ctl.last_reload_result),
				 "ok (unchanged since generation %u)", app->ctl.applied_gen);
		pthread_mutex_unlock(&app->ctl.lock);
		RPS_LOG(INFO, "config %s (%s): unchanged since generation %u applied it: nothing "
			"to do", app->opt.config_path, why, app->ctl.applied_gen);
		rc = 0;
		goto out;
	}
	if (check_file_maps(app, c, err, sizeof(err)) < 0)
		goto out;
	if (c->has_table_size)
		size = c->table_size;
	if (c->has_reorder_safe)
		safe = c->reorder_safe;
	if (c->has_rebalance)
		rb.on = c->rebalance;
	if (c->has_rebalance_interval_ms)
		rb.interval_ms = c->rebalance_interval_ms;
	if (c->has_rebalance_threshold)
		rb.threshold_pct = c->rebalance_threshold;
	if (c->has_rebalance_moves)
		rb.moves = c->rebalance_moves;
	if (c->has_rebalance_holddown_ms)
		rb.holddown_ms = c->rebalance_holddown_ms;
	if (rb.on && !safe) {
		snprintf(err, sizeof(err), "%s: rebalance = on needs reorder_safe = on (a bucket "
			 "moved without it may reorder its flows)", app->opt.config_path);
		goto out;
	}
	for (uint16_t q = 0; q < app->io.nb_rxq; q++) {
		const char *text = NULL;
		const struct rps_lcoreset *s = rps_config_queue_map(c, q, &text);
		char merr[160];

		sets[q] = s != NULL ? *s : app->ctl.map_sets[q]; /* no line: the map stays */
		/* the same lcores and size: keep the running table (and what the rebalancer
		 * did to it); otherwise fill a new one */
		fresh = !(app->ctl.bview != NULL && app->ctl.bview[q] != NULL && size == app->ctl.table_size &&
			  memcmp(&sets[q], &app->ctl.map_sets[q], sizeof(sets[q])) == 0);
		if (!fresh)
			maps[q] = rps_map_create_table(app->ctl.bview[q]->owner, size, gen,
						       RPS_APP_SELF(app)->socket);
		else
			maps[q] = rps_app_map_build(app, &sets[q], size, gen, merr, sizeof(merr));
		if (maps[q] == NULL) {
			snprintf(err, sizeof(err), "%s: map of queue %u: %s", app->opt.config_path, q,
				 merr);
			goto out;
		}
		if (failover_table(app, q, &sets[q], &maps[q], gen, fresh) < 0) {
			snprintf(err, sizeof(err), "out of memory");
			rc = -ENOMEM;
			goto out;
		}
	}
	/* the steering rules: --rule, then the file's [rules] (NULL: unchanged) */
	rc = rps_app_rules_build(app, c, &rules, err, sizeof(err));
	if (rc < 0)
		goto out;
	/* the consumer groups' filters: --consumer-filter, then the file's (NULL: unchanged) */
	rc = rps_app_filters_build(app, c, &filters, err, sizeof(err));
	if (rc < 0)
		goto out;
	rc = -EINVAL;
	/* Everything checked: apply. */
	restart_keys(app, c, restart, sizeof(restart));
	rc = rps_app_maps_publish(app, maps, sets);
	if (rc < 0) {
		snprintf(err, sizeof(err), "cannot publish the new maps: %s", strerror(-rc));
		goto out;
	}
	memset(maps, 0, app->io.nb_rxq * sizeof(*maps)); /* owned by the app now */
	if (rules != NULL) {
		/* blocks until no RX lcore reads the old set; they take the new one
		 * reorder-safely (rx_loop.c) */
		rps_app_rules_publish(app, rules);
		RPS_LOG(INFO, "config %s (%s): %u steering rule(s), rules generation %u",
			app->opt.config_path, why, rules->nb_rules, rules->generation);
		rules = NULL;
	}
	if (filters != NULL) {
		const uint32_t fgen = filters->generation;

		/* blocks until no worker reads the old set */
		rps_app_filters_publish(app, filters, 1);
		filters = NULL;
		RPS_LOG(INFO, "config %s (%s): consumer filters generation %u", app->opt.config_path,
			why, fgen);
	}
	if (c->has_reorder_safe)
		__atomic_store_n(&app->steer.reorder_safe, c->reorder_safe, __ATOMIC_RELAXED);
	if (c->has_flow_limit)
		__atomic_store_n(&app->steer.flow_limit, c->flow_limit, __ATOMIC_RELAXED);
	if (c->has_stats_interval)
		__atomic_store_n(&app->opt.stats_interval, c->stats_interval, __ATOMIC_RELAXED);
	pthread_mutex_lock(&app->ctl.lock);
	app->ctl.table_size = size;
	app->ctl.rebal = rb;
	pthread_mutex_unlock(&app->ctl.lock);
	__atomic_store_n(&app->ctl.generation, gen, __ATOMIC_RELEASE);
	/* the result and its counters under ctl.lock: /rps/config reads them under it */
	pthread_mutex_lock(&app->ctl.lock);
	app->ctl.reloads_ok++;
	if (restart[0] != '\0')
		snprintf(app->ctl.last_reload_result, sizeof(app->ctl.last_reload_result),
			 "ok; needs a restart for: %s", restart);
	else
		snprintf(app->ctl.last_reload_result, sizeof(app->ctl.last_reload_result), "ok");
	app->ctl.applied_digest = digest;
	app->ctl.applied_known = 1;
	app->ctl.applied_gen = gen;
	memcpy(app->ctl.applied_restart, restart, sizeof(app->ctl.applied_restart));
	pthread_mutex_unlock(&app->ctl.lock);
	if (restart[0] != '\0') {
		RPS_LOG(WARNING, "config %s (%s): generation %u applied; these keys changed but "
			"need a restart: %s", app->opt.config_path, why, gen, restart);
	} else {
		RPS_LOG(INFO, "config %s (%s): generation %u applied", app->opt.config_path, why,
			gen);
	}
	snprintf(when, sizeof(when), "generation %u, %s", gen, why);
	rps_app_maps_check_numa(app, sets, when); /* the new maps may span sockets */
	rc = 0;
out:
	pthread_mutex_lock(&app->ctl.lock);
	if (rc < 0) {
		app->ctl.reloads_failed++;
		snprintf(app->ctl.last_reload_result, sizeof(app->ctl.last_reload_result),
			 "refused: %s", err);
	}
	app->ctl.last_reload_tsc = rte_rdtsc();
	pthread_mutex_unlock(&app->ctl.lock);
	if (rc < 0)
		RPS_LOG(ERR, "config reload (%s) refused, generation %u keeps running: %s", why,
			app->ctl.generation, err);
	for (uint16_t q = 0; maps != NULL && q < app->io.nb_rxq; q++)
		rps_map_free(maps[q]);
	rps_rules_free(rules);
	rps_filter_set_free(filters);
	free(maps);
	free(sets);
	free(c);
	return rc;
}

/* Per-second rates for telemetry: processed/s per worker, rx/s of the RX lcores. */
static void
update_rates(struct rps_app *app, uint64_t *prev, double dt)
{
	uint16_t nw = app->lc.nb_workers ? app->lc.nb_workers : 1;

	for (uint16_t i = 0; i <= nw; i++) {
		uint64_t v;

		if (i == nw) {
			v = 0;
			for (uint16_t r = 0; r < app->lc.nb_rx; r++)
				v += RPS_CTR_READ(app->lc.rx[r].self.stats.rx_packets);
		} else if (app->lc.nb_workers == 0) {
			v = RPS_CTR_READ(RPS_APP_SELF(app)->stats.processed);
		}
		else
			v = RPS_CTR_READ(app->lc.workers[i].stats.processed);
		__atomic_store_n(&app->ctl.pps[i], (uint64_t)((double)(v - prev[i]) / dt),
				 __ATOMIC_RELAXED);
		prev[i] = v;
	}
}

/*
 * Watching the file. inotify on a file's folder sees an editor's rename, but not a change
 * made further along a symlink chain: a Kubernetes ConfigMap mounts FILE -> ..data/FILE with
 * ..data -> ..TIMESTAMP, and an update renames a new ..data over the old one. So every hop of
 * the chain is watched: the folder of each link and of the file itself, for that name, and
 * the folder of each symlinked folder on the way (..data), for its name. After each change
 * the chain is walked again (it now leads elsewhere).
 *
 * An event only arms a reload when the name is complete: closed after writing, renamed into
 * place, or created as a symlink. Creating a regular file does not arm one (it is empty or
 * half-written until closed); any event on a watched name pushes an armed reload back, which
 * runs once nothing has happened for WATCH_QUIET_MS. rps_config_load() then reads the file
 * until two reads agree.
 *
 * One save and a SIGHUP for it make one reload, not two: a SIGHUP's reload reads the file
 * after every event seen so far, so it takes the place of an armed one; and a reload of the
 * file as last applied (its digest: the SIGHUP came after the watch's reload, however much
 * later) changes nothing and makes no generation (reloads_unchanged). The digest, not a
 * window of time: a user may send the SIGHUP seconds after saving.
 */
#define WATCH_QUIET_MS 100
#define WATCH_NAMES_MAX 32
#define WATCH_HOPS_MAX 16
#define WATCH_MASK (IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_MODIFY | IN_DELETE | \
		    IN_MOVED_FROM)

struct watch {
	int fd;                    /* inotify, -1 = none */
	unsigned int nb;
	struct {
		int wd;
		char dir[PATH_MAX];    /* to lstat a created name */
		char name[NAME_MAX + 1];
	} item[WATCH_NAMES_MAX];
	uint64_t deadline;         /* armed: reload when the TSC passes it; 0 = not armed */
};

/* Watch the folder of @p path for its last component. */
static void
watch_add(struct rps_app_ctl *ctl, struct watch *w, const char *path)
{
	char d[PATH_MAX], b[PATH_MAX];
	const char *dir, *base;
	int wd;

	snprintf(d, sizeof(d), "%s", path);
	snprintf(b, sizeof(b), "%s", path);
	dir = dirname(d);
	base = basename(b);
	for (unsigned int i = 0; i < w->nb; i++)
		if (strcmp(w->item[i].dir, dir) == 0 && strcmp(w->item[i].name, base) == 0)
			return;
	if (w->nb == WATCH_NAMES_MAX || strlen(base) > NAME_MAX)
		return;
	wd = inotify_add_watch(w->fd, dir, WATCH_MASK);
	if (wd < 0) {
		RPS_LOG(DEBUG, "config watch: %s: %s", dir, strerror(errno));
		return;
	}
	w->item[w->nb].wd = wd;
	snprintf(w->item[w->nb].dir, sizeof(w->item[w->nb].dir), "%s", dir);
	snprintf(w->item[w->nb].name, sizeof(w->item[w->nb].name), "%s", base);
	w->nb++;
	__atomic_store_n(&ctl->watch_names, w->nb, __ATOMIC_RELAXED);
}

/* Watch the symlinked folders on @p path's way (each in its parent, for its name). */
static void
watch_linked_dirs(struct rps_app *app, struct watch *w, const char *path)
{
	char pre[PATH_MAX];
	struct stat st;
	size_t n = strlen(path);

	for (size_t i = 1; i < n && i < sizeof(pre); i++) {
		if (path[i] != '/')
			continue;
		memcpy(pre, path, i);
		pre[i] = '\0';
		if (lstat(pre, &st) == 0 && S_ISLNK(st.st_mode))
			watch_add(&app->ctl, w, pre);
	}
}

/* Read and drop what the inotify queue holds. */
static void
watch_drain(struct watch *w)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

	while (read(w->fd, buf, sizeof(buf)) > 0)
		;
}

/*
 * (Re)build the watches along the config path's symlink chain, as it is now. One inotify
 * instance for the thread's life: the watches still on the chain stay (adding a folder
 * already watched returns its wd), those that left it are removed. Closing the instance
 * instead, once per reload, waited in close() for the kernel's mark reaper (an SRCU grace
 * period run by a kworker): 20 ms a reload on a loaded 2-CPU machine, and over a second
 * when polling lcores kept both CPUs busy. The queued events are dropped: the reload that
 * follows reads the file after them.
 */
static void
watch_arm(struct rps_app *app, struct watch *w)
{
	char p[PATH_MAX], t[PATH_MAX], d[PATH_MAX];
	int old[WATCH_NAMES_MAX];
	const unsigned int nb_old = w->nb;
	struct stat st;
	ssize_t n;

	for (unsigned int i = 0; i < nb_old; i++)
		old[i] = w->item[i].wd;
	w->nb = 0;
	__atomic_store_n(&app->ctl.watch_names, 0, __ATOMIC_RELAXED);
	if (w->fd < 0)
		w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	else
		watch_drain(w);
	if (w->fd < 0 || app->opt.config_path == NULL)
		return;
	snprintf(p, sizeof(p), "%s", app->opt.config_path);
	for (int hop = 0; hop < WATCH_HOPS_MAX; hop++) {
		watch_linked_dirs(app, w, p);
		watch_add(&app->ctl, w, p);
		if (lstat(p, &st) < 0 || !S_ISLNK(st.st_mode))
			break;
		n = readlink(p, t, sizeof(t) - 1);
		if (n <= 0)
			break;
		t[n] = '\0';
		if (t[0] == '/') {
			snprintf(p, sizeof(p), "%s", t);
		} else {
			snprintf(d, sizeof(d), "%s", p);
			if ((size_t)snprintf(p, sizeof(p), "%s/%s", dirname(d), t) >= sizeof(p))
				break;
		}
	}
	/* the folders no longer on the chain (a wd gone with its folder: EINVAL, ignored) */
	for (unsigned int i = 0; i < nb_old; i++) {
		unsigned int k;

		for (k = 0; k < w->nb && w->item[k].wd != old[i]; k++)
			;
		for (unsigned int j = 0; j < i && k == w->nb; j++)
			if (old[j] == old[i])
				k = 0; /* removed already */
		if (k == w->nb)
			(void)inotify_rm_watch(w->fd, old[i]);
	}
}

/* Read the waiting events: arm or push back the reload for those on watched names. */
static void
watch_read(struct rps_app_ctl *ctl, struct watch *w, uint64_t now)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const uint64_t quiet = WATCH_QUIET_MS * rte_get_tsc_hz() / 1000;
	ssize_t n;

	while ((n = read(w->fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			int arm = (ev->mask & IN_Q_OVERFLOW) != 0, hit = arm;

			p += sizeof(*ev) + ev->len;
			for (unsigned int i = 0; i < w->nb && !hit && ev->len > 0; i++) {
				char path[PATH_MAX + NAME_MAX + 2];
				struct stat st;

				if (w->item[i].wd != ev->wd || strcmp(w->item[i].name, ev->name) != 0)
					continue;
				hit = 1;
				if (ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) {
					arm = 1;
				} else if (ev->mask & IN_CREATE) {
					/* a symlink is complete once created; a file is not */
					snprintf(path, sizeof(path), "%s/%s", w->item[i].dir, ev->name);
					arm = lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
				}
			}
			if (!hit)
				continue;
			__atomic_fetch_add(&ctl->watch_events, 1, __ATOMIC_RELAXED);
			if (arm || w->deadline != 0)
				w->deadline = now + quiet;
		}
	}
	__atomic_store_n(&ctl->watch_armed, w->deadline != 0, __ATOMIC_RELAXED);
}

static void *
control_thread(void *arg)
{
	struct rps_app *app = arg;
	uint16_t nw = app->lc.nb_workers ? app->lc.nb_workers : 1;
	uint64_t *prev = calloc(nw + 1u, sizeof(*prev));
	uint64_t last = rte_rdtsc(), hz = rte_get_tsc_hz(), last_buckets = 0;
	struct watch w = { .fd = -1 };

	if (app->opt.config_path != NULL)
		watch_arm(app, &w);
	while (prev != NULL && !__atomic_load_n(&app->life.control_stop, __ATOMIC_ACQUIRE)) {
		/* the config file's watch and SIGHUP's eventfd (negative fds are ignored) */
		struct pollfd p[2] = { { .fd = w.fd, .events = POLLIN },
				       { .fd = app->ctl.wake_fd, .events = POLLIN } };
		uint32_t tick_ms = RTE_MIN(100u, app->ctl.rebal.interval_ms);
		uint64_t now = rte_rdtsc();

		if (w.deadline != 0) /* wake when the armed reload is due */
			tick_ms = RTE_MIN(tick_ms, w.deadline > now ?
					  (uint32_t)((w.deadline - now) * 1000 / hz) + 1 : 0u);
		if (w.fd >= 0 || app->ctl.wake_fd >= 0)
			(void)poll(p, 2, (int)tick_ms);
		else
			usleep(tick_ms * 1000);
		now = rte_rdtsc();
		if (w.fd >= 0 && (p[0].revents & POLLIN))
			watch_read(&app->ctl, &w, now);
		if (app->ctl.wake_fd >= 0 && (p[1].revents & POLLIN)) {
			uint64_t n;

			if (read(app->ctl.wake_fd, &n, sizeof(n)) < 0)
				n = 0; /* EAGAIN: another read took it */
		}
		if (__atomic_exchange_n(&app->life.reload_requested, 0, __ATOMIC_ACQ_REL)) {
			/* it reads the file after the events seen: an armed reload is its */
			w.deadline = 0;
			__atomic_store_n(&app->ctl.watch_armed, 0, __ATOMIC_RELAXED);
			watch_arm(app, &w); /* the chain may lead elsewhere now */
			rps_control_reload(app, "SIGHUP");
		}
		if (w.deadline != 0 && now >= w.deadline) {
			w.deadline = 0;
			__atomic_store_n(&app->ctl.watch_armed, 0, __ATOMIC_RELAXED);
			watch_arm(app, &w);
			rps_control_reload(app, "file changed");
		}
		now = rte_rdtsc();
		if (now - last >= hz) {
			update_rates(app, prev, (double)(now - last) / (double)hz);
			last = now;
		}
		rps_health_tick(app, now);
		if (now - last_buckets >= (uint64_t)app->ctl.rebal.interval_ms * hz / 1000) {
			rps_buckets_tick(app, now);
			last_buckets = now;
		}
	}
	if (w.fd >= 0)
		close(w.fd);
	free(prev);
	return NULL;
}

int
rps_control_start(struct rps_app *app)
{
	uint16_t nw = app->lc.nb_workers ? app->lc.nb_workers : 1;
	int rc;

	app->ctl.pps = calloc(nw + 1u, sizeof(*app->ctl.pps));
	if (app->ctl.pps == NULL)
		return -ENOMEM;
	snprintf(app->ctl.last_reload_result, sizeof(app->ctl.last_reload_result), "none");
	rc = rte_ctrl_thread_create(&app->ctl.control_thread, "rps-control", NULL, control_thread,
				    app);
	if (rc == 0)
		app->ctl.control_running = 1;
	return rc;
}

void
rps_control_stop(struct rps_app *app)
{
	if (app->ctl.control_running) {
		__atomic_store_n(&app->life.control_stop, 1, __ATOMIC_RELEASE);
		pthread_join(app->ctl.control_thread, NULL);
		app->ctl.control_running = 0;
	}
}
