/* SPDX-License-Identifier: BSD-3-Clause */
/* hash_options.c: the hash options completed once the file is merged (symmetric, inner, the
 * Toeplitz key), and what each RX port's RSS got of them. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_log.h>

#include "app.h"
#include "setup.h"

/* The hash options once the file is merged: its symmetric and rss_key where the command
 * line did not say, the pair checked (a key from the file against --symmetric-xor, and the
 * reverse), and the Toeplitz key completed: 6d5a x 20 with --symmetric-xor, else a random
 * key drawn now (netdev_rss_key_fill()'s policy: a key no one else knows cannot be aimed
 * at), for the NIC and --hash toeplitz alike. */
int
rps_setup_hash_options(struct rps_app *app)
{
	struct rps_options *o = &app->opt;
	const struct rps_config *c = app->ctl.start_cfg;
	const int sym_given = rps_options_given(o, "symmetric") ||
			      rps_options_given(o, "symmetric-xor");
	int key_from_file = 0;

	if (c != NULL && c->has_symmetric && !sym_given)
		o->symmetric = c->symmetric;
	rps_pairs_symmetric(app, sym_given);
	rps_pairs_stages(app);
	if (c != NULL && c->has_inner && !rps_options_given(o, "inner"))
		o->inner = c->inner;
	if (c != NULL && c->has_vxlan_port && !rps_options_given(o, "vxlan-port"))
		o->tunnels = c->tunnels;
	if (c != NULL && c->has_rss_key && !rps_options_given(o, "rss-key")) {
		memcpy(o->rss_key, c->rss_key, c->rss_key_len);
		o->rss_key_len = c->rss_key_len;
		key_from_file = 1;
	}
	if (o->symmetric == RPS_SYM_SORT && o->hash_mode == RPS_HASH_RSS) {
		fprintf(stderr, "dpdk-rps: --hash rss with %s: the NIC's RSS hash is not symmetric "
			"under a secret key; use --hash auto (sorted tuple, jhash in software), "
			"--hash toeplitz, or --symmetric-xor (the NIC with a 6d5a key)\n",
			sym_given ? "--symmetric" : "symmetric = on");
		return -1;
	}
	if (o->rss_key_len == 0) {
		if (o->symmetric == RPS_SYM_XOR) {
			memcpy(o->rss_key, rps_toeplitz_symmetric_key, RPS_TOEPLITZ_KEY_LEN);
		} else {
			int rc = rps_toeplitz_key_random(o->rss_key, RPS_TOEPLITZ_KEY_LEN);

			if (rc < 0) {
				fprintf(stderr, "dpdk-rps: no random RSS key (getrandom: %s): give "
					"one with --rss-key\n", strerror(-rc));
				return -1;
			}
			o->rss_key_random = 1;
		}
		o->rss_key_len = RPS_TOEPLITZ_KEY_LEN;
	} else if (o->symmetric == RPS_SYM_XOR &&
		   !rps_toeplitz_key_is_symmetric(o->rss_key, o->rss_key_len)) {
		fprintf(stderr, "dpdk-rps: %s%s: the key is not symmetric but %s asks for a "
			"symmetric key: the key must repeat one 16-bit pattern (6d5a6d5a...), or "
			"leave it out to get 6d5a x 20, or use --symmetric (any key)\n",
			key_from_file ? "rss_key in " : "--rss-key", key_from_file ? o->config_path : "",
			rps_options_given(o, "symmetric-xor") ? "--symmetric-xor" : "symmetric = xor");
		return -1;
	}
	if (o->hash_mode == RPS_HASH_JHASH && (rps_options_given(o, "rss-key") || key_from_file))
		RPS_LOG(WARNING, "--rss-key/rss_key has no effect with --hash jhash (no RSS, no "
			"Toeplitz hash)");
	if (o->symmetric != RPS_SYM_XOR && o->hash_mode != RPS_HASH_JHASH &&
	    rps_toeplitz_key_is_symmetric(o->rss_key, o->rss_key_len))
		RPS_LOG(WARNING, "the RSS key repeats one 16-bit pattern: its Toeplitz hash "
			"depends only on the XOR of the tuple's 16-bit words, so anyone can send "
			"flows that all land on one worker; leave --rss-key out for a random key");
	if (o->symmetric == RPS_SYM_XOR)
		RPS_LOG(WARNING, "--symmetric-xor: the hash depends only on the XOR of the tuple's "
			"16-bit words: anyone can send flows that all land on one worker "
			"(docs/steering-keys.md); --symmetric does not collapse");
	return 0;
}

/* Where the Toeplitz key came from, for logs: never the key itself (a log may be read by
 * others; the owner reads it from the telemetry socket, /rps/config). */
static const char *
rss_key_source(const struct rps_options *o)
{
	if (o->rss_key_random)
		return "random (drawn at start, secret)";
	if (o->symmetric == RPS_SYM_XOR && !rps_options_given(o, "rss-key") &&
	    memcmp(o->rss_key, rps_toeplitz_symmetric_key, RPS_TOEPLITZ_KEY_LEN) == 0)
		return "6d5a x 20 (symmetric, public)";
	return "configured (--rss-key / rss_key)";
}

/* What the RX port's RSS got: the key and hash types of dpdk-rps's Toeplitz hash, or
 * nothing (a port without RSS, net_pcap: then only the software hash exists). */
void
rps_setup_report_rss(const struct rps_app *app, uint16_t port, const struct rps_port_info *rxi)
{
	const struct rps_options *o = &app->opt;

	if (o->hash_mode == RPS_HASH_JHASH)
		return;
	if (rxi->rss_hf == 0) {
		RPS_LOG(DEBUG, "port %u (%s) has no RSS: no RSS key or hash types to program",
			port, rxi->driver);
		return;
	}
	if (rxi->rss_key_set) {
		RPS_LOG(INFO, "port %u (%s): RSS key %s (%u bytes) and hash types 0x%" PRIx64
			" programmed%s: the NIC hashes as --hash toeplitz does", port,
			rxi->driver, rss_key_source(o), rxi->rss_key_size, rxi->rss_hf,
			rxi->rss_key_read_back ? " and read back" :
			" (the PMD cannot read them back)");
		return;
	}
	/* the NIC keeps its own key: its hash is not dpdk-rps's Toeplitz hash */
	/* a random key the NIC refused leaves it hashing with its own, perhaps public, key:
	 * worth a warning where its hash steers (auto, rss; not with sorted --symmetric) */
	rte_log(o->symmetric == RPS_SYM_XOR || o->hash_mode == RPS_HASH_TOEPLITZ ||
		rps_options_given(o, "rss-key") ||
		(o->rss_key_random && rxi->rss_hash && o->symmetric != RPS_SYM_SORT) ?
		RTE_LOG_WARNING : RTE_LOG_DEBUG, rps_logtype,
		"RPS: port %u (%s) did not take the RSS key, %s (its key size: %u bytes): its "
		"RSS hash%s differs from dpdk-rps's Toeplitz hash%s\n", port, rxi->driver,
		rss_key_source(o), rxi->rss_key_size,
		o->symmetric == RPS_SYM_XOR ? " is not symmetric and" : "",
		o->rss_key_random ? " and may use a key others know" : "");
}
