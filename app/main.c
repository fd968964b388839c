/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * main.c: dpdk-rps, composed. Parse the options, start EAL, set up (setup/: lcores, ports by
 * role, the pool, workers), launch, run the RX loop on the main lcore, then stop in order
 * and print the summary. What each step does lives in its room: setup/, datapath/,
 * control/, observability/ (app/meson.build); policy and messages in app/, mechanism in lib/
 * and drivers/.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_random.h>

#include "app.h"
#include "rps_eal_args.h"
#include "rps_settings.h"
#include "setup.h"

RTE_LOG_REGISTER(rps_logtype, rps, INFO);

static struct rps_app app_storage;

/*
 * The signal handlers go in before main(), from the executable's .preinit_array: the
 * dynamic loader runs it once every library is mapped and relocated and before any
 * library's constructor, which shortens the window in which a signal still has its default
 * action to the loading of the libraries (a few milliseconds of DPDK's ~100 shared
 * objects). main() installs them again, for a loader that ignores .preinit_array.
 */
static void
preinit_signals(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	(void)envp;
	rps_signals_take(&app_storage);
}

__attribute__((section(".preinit_array"), used))
static void (*const rps_preinit)(int, char **, char **) = preinit_signals;

/* Split argv at "--": EAL gets what is before, we get what is after. Returns the index of
 * "--" or argc. */
static int
find_separator(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			return i;
	return argc;
}

static int
want_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return 1;
	return 0;
}

/* The options after "--", checked before EAL starts, so a bad command line costs nothing.
 * @return -1 to go on, else the exit status (--help, --help-table, a bad option). */
static int
parse_options(struct rps_app *app, int argc, char **argv, int sep)
{
	char **app_argv = calloc((size_t)argc + 1, sizeof(char *));
	int app_argc = 1, rc;

	if (app_argv == NULL)
		return RPS_EXIT_RUNTIME;
	app_argv[0] = argv[0];
	for (int i = sep + 1; i < argc; i++)
		app_argv[app_argc++] = argv[i];
	/* --help-table FORMAT (hidden): the settings table as the README's and the man pages'
	 * lists (tools/settings_docs.py) */
	if (argc == 3 && strcmp(argv[1], "--help-table") == 0) {
		free(app_argv);
		if (rps_settings_write_doc(stdout, argv[2]) < 0) {
			fprintf(stderr, "dpdk-rps: --help-table %s: expected markdown, mdoc or "
				"mdoc-conf\n", argv[2]);
			return RPS_EXIT_USAGE;
		}
		return 0;
	}
	if (want_help(app_argc, app_argv) || (sep == argc && want_help(argc, argv))) {
		rps_options_usage("dpdk-rps", stdout);
		free(app_argv);
		return 0;
	}
	rc = rps_options_parse(app_argc, app_argv, &app->opt, stderr);
	free(app_argv);
	return rc < 0 ? RPS_EXIT_USAGE : -1;
}

/* Lcores on CPUs the machine does not have: one line saying what works, not EAL's whole
 * usage. @return -1 to go on, else the exit status. */
static int
check_eal_lcores(int sep, char **argv)
{
	char msg[1024];
	cpu_set_t cpus;

	rps_eal_cpus_detected(&cpus);
	if (rps_eal_check_lcores(sep, argv, &cpus, msg, sizeof(msg)) == 0)
		return -1;
	fprintf(stderr, "dpdk-rps: %s\n", msg);
	return RPS_EXIT_USAGE;
}

/* EAL said no: for want of hugepages, what to do (EAL's errno alone reads "Permission
 * denied", even as root); else its reason. @return the exit status. */
static int
eal_failed(int sep, char **argv)
{
	const int err = rte_errno;
	struct rps_huge_facts f;
	char msg[PATH_MAX + 512];

	rps_eal_huge_facts_read(rps_eal_arg(sep, argv, "--huge-dir"), &f);
	if (rps_eal_huge_advice(sep, argv, err, &f, msg, sizeof(msg)))
		fprintf(stderr, "dpdk-rps: %s\n", msg);
	else
		fprintf(stderr, "dpdk-rps: EAL initialisation failed: %s\n",
			err ? rte_strerror(err) : "(EAL gave no reason: see its log above)");
	return err == EINVAL ? RPS_EXIT_USAGE : RPS_EXIT_RUNTIME;
}

/* EAL, with its sockets (dpdk_telemetry.v2, mp_socket) owner-only from birth: they are
 * bound with the umask's mode, so not after a chmod; the process gets its own umask back
 * for what it writes later. @return -1 to go on, else the exit status. */
static int
start_eal(struct rps_app *app, int sep, char **argv)
{
	mode_t um = umask(077);
	char err[512];
	int ret;

	umask(um | 077);
	ret = rte_eal_init(sep, argv);
	umask(um);
	if (ret < 0) {
		if (rps_stop_requested(&app->life, "EAL initialisation"))
			return RPS_EXIT_RUNTIME;
		return eal_failed(sep, argv);
	}
	ret = -1;
	if (rps_stop_requested(&app->life, "EAL initialisation")) {
		ret = 0;
	} else if (rps_telemetry_check_dir(err, sizeof(err)) < 0) {
		/* the sockets are only as safe as the directory they are in */
		fprintf(stderr, "dpdk-rps: %s\n", err);
		ret = RPS_EXIT_USAGE;
	}
	if (ret >= 0)
		rte_eal_cleanup();
	return ret;
}

/* What the options and the file ask, checked against EAL's lcores; the metrics socket bound
 * (before the ports: a port in use costs nothing). @return 0 or -1 (said; a usage error). */
static int
check_start(struct rps_app *app)
{
	char err[512];

	if (rps_control_apply_start_config(app, err, sizeof(err)) < 0) {
		fprintf(stderr, "dpdk-rps: --config: %s\n", err);
		return -1;
	}
	/* after the file: its hash_seed counts too */
	app->io.seed = app->opt.seed_given ? app->opt.seed : (uint32_t)rte_rand();
	if (rps_setup_hash_options(app) < 0 ||
	    rps_pipeline_parse(app->opt.stages_text, &app->pipeline, NULL, 0) < 0 ||
	    rps_setup_rx_lcores(app) < 0 || rps_setup_check_map(app) < 0 ||
	    rps_setup_check_respond(app) < 0 || rps_consumers_check(app) < 0 ||
	    rps_setup_check_elephants(app) < 0)
		return -1;
	if (rps_metrics_open(app, err, sizeof(err)) < 0) {
		if (rps_options_given(&app->opt, "metrics"))
			fprintf(stderr, "dpdk-rps: --metrics %s: %s\n", app->opt.metrics.text, err);
		else
			fprintf(stderr, "dpdk-rps: --config: %s: metrics = %s: %s\n",
				app->opt.config_path, app->opt.metrics.text, err);
		return -1;
	}
	return 0;
}

/* Ports, pool, workers and stages. @return 0 or the exit status, negated. */
static int
setup(struct rps_app *app)
{
	char err[512];
	int rc;

	app->lc.nb_workers = (uint16_t)rps_lcoreset_count(&app->opt.map);
	rc = rps_setup_ports_plan(app);
	if (rc == 0)
		rc = rps_setup_pool(app);
	if (rc == 0)
		rc = rps_setup_ports_start(app);
	if (rc == 0 && rps_control_check_start_config(app, err, sizeof(err)) < 0) {
		fprintf(stderr, "dpdk-rps: --config: %s\n", err);
		rc = -RPS_EXIT_USAGE;
	}
	if (rc < 0)
		return rc;
	rc = rps_setup_workers(app);
	if (rc == -EDOM)
		return -RPS_EXIT_USAGE; /* a map that cannot be built, said by maps.c */
	if (rc < 0) {
		fprintf(stderr, "dpdk-rps: cannot set up %u worker backlogs of %u packets: %s\n",
			app->lc.nb_workers, app->opt.backlog, rte_strerror(rte_errno));
		return -RPS_EXIT_RUNTIME;
	}
	/* the steering rules, now that the workers and consumers are known */
	rc = rps_app_rules_start(app, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "dpdk-rps: %s\n", err);
		return rc == -ENOMEM ? -RPS_EXIT_RUNTIME : -RPS_EXIT_USAGE;
	}
	/* the consumer groups' filters, now that EAL runs and the groups are known */
	rc = rps_app_filters_start(app, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "dpdk-rps: %s\n", err);
		return rc == -ENOMEM ? -RPS_EXIT_RUNTIME : -RPS_EXIT_USAGE;
	}
	if (rps_setup_stages(app) < 0) {
		fprintf(stderr, "dpdk-rps: cannot set up the stages' state (flow tables of %u "
			"flows, %u fragments): %s\n", app->opt.flow_table_size,
			app->opt.frag_max, rte_strerror(rte_errno));
		return -RPS_EXIT_RUNTIME;
	}
	rps_setup_report_numa(app);
	if (rps_health_init(app) < 0 || rps_pdump_init(app) < 0) {
		fprintf(stderr, "dpdk-rps: out of memory\n");
		return -RPS_EXIT_RUNTIME;
	}
	return rps_consumers_publish(app); /* clients are served from now on */
}

int
main(int argc, char **argv)
{
	struct rps_app *app = &app_storage;
	int sep, ret, rc;

	rps_signals_take(app);
	sep = find_separator(argc, argv);
	ret = parse_options(app, argc, argv, sep);
	if (ret >= 0)
		return ret;
	if (rps_stop_requested(&app->life, "option parsing"))
		return 0;
	ret = check_eal_lcores(sep, argv);
	if (ret < 0)
		ret = start_eal(app, sep, argv);
	if (ret >= 0)
		return ret;
	rps_test_start_pause();
	app->exit.pool_in_use_at_exit = -1;
	app->io.rx_lcore = rte_get_main_lcore();
	if (check_start(app) < 0) {
		rte_eal_cleanup();
		return RPS_EXIT_USAGE;
	}
	rc = setup(app);
	if (rc < 0) {
		rps_teardown(app);
		rps_release(app);
		rte_eal_cleanup();
		return -rc;
	}
	rps_test_hooks_init(app);
	RPS_LOG(INFO, "RX lcore(s) %s, %u worker(s), map %s, hash %s, backlog %u, burst %u",
		app->opt.rx_lcores_text, app->lc.nb_workers, app->opt.map_text,
		rps_hash_mode_name(app->opt.hash_mode), app->opt.backlog, app->opt.burst);
	app->life.start_tsc = rte_rdtsc();
	ret = rps_setup_launch(app);
	rps_consumers_wait(app); /* --consumer-wait: RX starts once they are there */
	/* A stop asked for during start-up: the RX loop ends at once, the workers drain and the
	 * summary follows as after any stop. */
	if (!rps_stop_requested(&app->life, "port and worker set-up")) {
		rps_ready(app);
		rps_metrics_start(app);
	}
	rps_rx_main(app);
	rps_notify("STOPPING=1");
	if (rps_health_wait_workers(app) < 0) {
		/* a worker still stalled: its backlog is counted, the process exits without it */
		RPS_CTR_ADD(RPS_APP_SELF(app)->stats.dropped[RPS_DROP_STRANDED], app->exit.stranded);
		for (unsigned int p = 0; p < RPS_PORT_SLOTS; p++)
			RPS_CTR_ADD(RPS_APP_SELF(app)->stats.port[p].dropped[RPS_DROP_STRANDED],
				    app->exit.stranded_port[p]);
		ret = RPS_EXIT_RUNTIME;
	}
	if (rps_telemetry_close() < 0) {
		/* a command still running may read anything teardown would free: keep it all */
		app->exit.tel_stuck = 1;
		ret = RPS_EXIT_RUNTIME;
	}
	rps_metrics_close(&app->obs);
	rps_pdump_fini(&app->io); /* before the ports close: no new capture requests */
	rps_teardown(app);
	rps_report_summary(app, stdout);
	if (app->opt.summary_json != NULL) {
		rc = rps_report_json(app, app->opt.summary_json);
		if (rc < 0) {
			fprintf(stderr, "dpdk-rps: --summary-json %s: %s\n", app->opt.summary_json,
				strerror(-rc));
			ret = RPS_EXIT_RUNTIME;
		}
	}
	rps_signals_release();
	/* a stuck lcore, or a telemetry command still running, may use what release() frees */
	if (app->exit.workers_stuck || app->exit.tel_stuck)
		return ret;
	rps_release(app);
	rte_eal_cleanup();
	return ret;
}
