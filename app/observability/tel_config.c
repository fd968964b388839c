/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tel_config.c: /rps/config (telemetry.c registers it): the active settings and the last
 * reload, read under the control thread's lock; and whether the steering secrets may go out
 * on the socket (the runtime directory's check). Telemetry thread, read-only.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_telemetry.h>

#include "app.h"
#include "tel.h"
#include <sys/stat.h>
#include <unistd.h>

#include "rps_number.h"

/* ---- /rps/config ---- */

/*
 * Whether the steering secrets (jhash seed, Toeplitz key) may go out on the telemetry socket.
 * The socket lives in EAL's runtime directory, which EAL creates 0700 (owner only: connecting
 * to a Unix socket needs search permission on its directory), and is owner-only itself
 * (main.c's umask around rte_eal_init()). EAL keeps a directory that already exists with
 * whatever mode it has (and --file-prefix or RUNTIME_DIRECTORY may point elsewhere): one
 * that others could write to is refused at start (rps_telemetry_check_dir()); one that they
 * can only read or search is accepted, but then the secrets are not shown: /rps/config says
 * "hidden", and only the owner's --rss-key knows.
 */
static int
secrets_visible(void)
{
	struct stat st;
	const char *dir = rte_eal_get_runtime_dir();

	return dir != NULL && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	       st.st_uid == geteuid() && (st.st_mode & (S_IRWXG | S_IRWXO)) == 0;
}

/* Say why directory @p dir (@p st, @p role) is refused: @p what, its owner and mode, and
 * @p todo. */
static int
dir_refused(char *err, size_t len, const char *role, const char *dir, const struct stat *st,
	    const char *what, const char *todo)
{
	snprintf(err, len, "%s %s (owner uid %u, mode %o) %s: whoever can change it can replace "
		 "the telemetry and multi-process sockets. %s", role, dir,
		 (unsigned int)st->st_uid, (unsigned int)(st->st_mode & 07777), what, todo);
	return -EPERM;
}

#define RUNDIR "EAL's runtime directory"
#define RUNDIR_UP "The folder holding EAL's runtime directory,"

int
rps_telemetry_check_dir(char *err, size_t len)
{
	const char *dir = rte_eal_get_runtime_dir();
	char parent[PATH_MAX];
	struct stat st;
	char *slash;

	if (dir == NULL || *dir == '\0')
		return 0;
	if (stat(dir, &st) != 0) {
		int e = errno;

		snprintf(err, len, "EAL's runtime directory %s: %s", dir, strerror(e));
		return -e;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, len, "EAL's runtime directory %s: not a directory", dir);
		return -ENOTDIR;
	}
	if (st.st_uid != geteuid()) {
		char what[64];

		snprintf(what, sizeof(what), "is not this user's (uid %u)",
			 (unsigned int)geteuid());
		return dir_refused(err, len, RUNDIR, dir, &st, what, "Remove it (EAL makes it again, "
				   "0700) or choose another --file-prefix.");
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
		return dir_refused(err, len, RUNDIR, dir, &st, "is writable by group or others",
				   "Remove it (EAL makes it again, 0700) or chmod go-w it.");
	/* its parent (EAL's dpdk/ folder): whoever may rename in it may swap the directory */
	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (slash == NULL || slash == parent)
		return 0;
	*slash = '\0';
	if (stat(parent, &st) != 0)
		return 0;   /* not ours to judge: EAL made the directory inside it */
	if (st.st_uid != geteuid() && st.st_uid != 0)
		return dir_refused(err, len, RUNDIR_UP, parent, &st, "is another user's",
				   "Remove it or set RUNTIME_DIRECTORY (or XDG_RUNTIME_DIR) to "
				   "a directory of this user's.");
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0)
		return dir_refused(err, len, RUNDIR_UP, parent, &st, "is writable by group or "
				   "others without the sticky bit", "chmod go-w (or +t) it.");
	return 0;
}

struct config_arg {
	const struct rps_app *app;
	int show_secrets;
};

/* The steering secrets and their provenance into /rps/config. */
static void
config_secrets(struct tel_out *o, const struct rps_app *app, int show)
{
	const struct rps_options *opt = &app->opt;
	char hex[2 * RPS_TOEPLITZ_KEY_MAX + 1];

	tel_str(o, "hash_seed_source", opt->seed_given ? "configured" : "random");
	tel_str(o, "rss_key_source", opt->rss_key_random ? "random" : "configured");
	tel_str(o, "symmetric", rps_sym_mode_name(opt->symmetric));
	if (show) {
		tel_u64(o, "hash_seed", app->io.seed);
		rps_toeplitz_key_format(opt->rss_key, opt->rss_key_len, hex, sizeof(hex));
		tel_str(o, "rss_key", hex);
	} else {
		tel_str(o, "hash_seed", "hidden");
		tel_str(o, "rss_key", "hidden");
	}
}

/* The running value of setting @p id: what a reload changed for the live ones, else what
 * the program started with (command line over file). Called under ctl.lock. */
static int
setting_value(const struct rps_app *app, enum rps_setting_id id, int64_t *v)
{
	switch (id) {
	case RPS_SET_REORDER_SAFE:
		*v = __atomic_load_n(&app->steer.reorder_safe, __ATOMIC_RELAXED);
		return 0;
	case RPS_SET_FLOW_LIMIT:
		*v = __atomic_load_n(&app->steer.flow_limit, __ATOMIC_RELAXED);
		return 0;
	case RPS_SET_STATS_INTERVAL:
		*v = __atomic_load_n(&app->opt.stats_interval, __ATOMIC_RELAXED);
		return 0;
	case RPS_SET_TABLE_SIZE:
		*v = app->ctl.table_size;
		return 0;
	case RPS_SET_REBALANCE:
		*v = app->ctl.rebal.on;
		return 0;
	case RPS_SET_REBALANCE_INTERVAL:
		*v = app->ctl.rebal.interval_ms;
		return 0;
	case RPS_SET_REBALANCE_THRESHOLD:
		*v = app->ctl.rebal.threshold_pct;
		return 0;
	case RPS_SET_REBALANCE_MOVES:
		*v = app->ctl.rebal.moves;
		return 0;
	case RPS_SET_REBALANCE_HOLDDOWN:
		*v = app->ctl.rebal.holddown_ms;
		return 0;
	default:
		return rps_options_value(&app->opt, id, v);
	}
}

/*
 * Every setting of the file (the settings table's keys), by key: its running value. The
 * secrets (hash_seed, rss_key) and symmetric come from config_secrets(); the maps from
 * /rps/map; lists as the text given.
 */
static void
config_settings(struct tel_out *o, const struct rps_app *app)
{
	const struct rps_options *opt = &app->opt;

	for (unsigned int i = 0; i < RPS_SET_NB; i++) {
		const struct rps_setting *s = &rps_settings[i];
		int64_t v;

		if (s->key == NULL || strcmp(s->section, "dataplane") != 0 ||
		    i == RPS_SET_HASH_SEED || i == RPS_SET_RSS_KEY || i == RPS_SET_SYMMETRIC)
			continue;
		if (i == RPS_SET_STAGES)
			tel_text(o, s->key, opt->stages_text);
		else if (i == RPS_SET_RX_LCORES)
			tel_text(o, s->key, opt->rx_lcores_text);
		else if (i == RPS_SET_METRICS)
			tel_text(o, s->key, opt->metrics.on ? opt->metrics.text : "off");
		else if (i == RPS_SET_HASH)
			tel_str(o, s->key, rps_hash_mode_name(opt->hash_mode));
		else if (i == RPS_SET_CONSUMERS) /* K, or the groups K,K... */
			tel_text(o, s->key, opt->consumers ? opt->consumers_text : "0");
		else if (setting_value(app, (enum rps_setting_id)i, &v) == 0) {
			if (v < 0 || s->type == RPS_SETTING_BOOL || v <= INT32_MAX)
				tel_int(o, s->key, (int)v);
			else
				tel_u64(o, s->key, (uint64_t)v);
		}
	}
}

/* ctl.lock held. */
static void
config_build(struct tel_out *o, const void *arg)
{
	const struct config_arg *a = arg;
	const struct rps_app *app = a->app;
	const struct rps_options *opt = &app->opt;

	tel_text(o, "config_file", opt->config_path ? opt->config_path : "");
	tel_u64(o, "generation", __atomic_load_n(&app->ctl.generation, __ATOMIC_ACQUIRE));
	tel_text(o, "last_reload_result", app->ctl.last_reload_result);
	tel_u64(o, "last_reload_age_s", app->ctl.last_reload_tsc == 0 ? 0 :
		(rte_rdtsc() - app->ctl.last_reload_tsc) / rte_get_tsc_hz());
	tel_u64(o, "reloads_ok", app->ctl.reloads_ok);
	tel_u64(o, "reloads_failed", app->ctl.reloads_failed);
	tel_u64(o, "reloads_unchanged", app->ctl.reloads_unchanged);
	tel_u64(o, "watch_events", __atomic_load_n(&app->ctl.watch_events, __ATOMIC_RELAXED));
	tel_u64(o, "watch_names", __atomic_load_n(&app->ctl.watch_names, __ATOMIC_RELAXED));
	tel_int(o, "watch_armed", __atomic_load_n(&app->ctl.watch_armed, __ATOMIC_RELAXED));
	config_settings(o, app);
	config_secrets(o, app, a->show_secrets);
	/* command line only, as the program resolved them */
	tel_str(o, "backpressure", app->lc.nb_workers && app->lc.rx[0].steer.backpressure ? "on" : "off");
	tel_u64(o, "stall_timeout_ms", opt->stall_timeout_ms);
}

int
tel_config(const struct rps_app *app, const char *params, struct rte_tel_data *d)
{
	struct config_arg a = { .app = app, .show_secrets = secrets_visible() };
	int rc;

	(void)params;
	rps_ctl_lock(&app->ctl);
	rc = tel_reply(d, config_build, &a);
	rps_ctl_unlock(&app->ctl);
	return rc;
}
