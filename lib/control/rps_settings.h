/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_settings.h: the one table of dpdk-rps's settings. Each entry says what a setting is
 * called on the command line (--flag) and in the configuration file (key and section), its
 * type, range, default, whether a reload applies it (live) or only a restart, and its help.
 *
 * Everything else is derived from it: the command-line parser (app/setup/options.c: getopt_long's
 * options, the number and range checks and their messages, --help), the configuration-file
 * parser (config.c: the known keys, the same checks with "FILE:LINE: key: ..." messages),
 * /rps/config's list of settings, and the README's option table and the man pages' option and
 * key lists (dpdk-rps --help-table markdown|mdoc|mdoc-conf; tests/integration/test_docs.py
 * and test_man.py check them against it). A setting only one side knows has a NULL flag or
 * key: it stays one-sided.
 *
 * Both sides read numbers with rps_number_parse() (decimal without a leading zero, or 0x hex)
 * and check the same range. Where they differ on purpose it is in the table: a boolean's file
 * value may also be yes/no, true/false, 1/0 in any case (the command line takes on or off);
 * RPS_SETTING_FILE_WORD gives a word the file takes in place of a number (tx_port = none); a
 * switch (no metavar) on the command line may be a boolean or an enum in the file (--inner,
 * inner = on|off).
 *
 * Pure, read-only data: thread-safe.
 */
#ifndef RPS_SETTINGS_H
#define RPS_SETTINGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Every setting, in --help order. */
enum rps_setting_id {
	RPS_SET_RX_PORT, RPS_SET_RX_QUEUES, RPS_SET_RX_LCORES, RPS_SET_MAP, RPS_SET_TABLE_SIZE, RPS_SET_HASH,
	RPS_SET_HASH_SEED, RPS_SET_SYMMETRIC, RPS_SET_SYMMETRIC_XOR, RPS_SET_INNER,
	RPS_SET_VXLAN_PORT, RPS_SET_RSS_KEY, RPS_SET_BACKLOG, RPS_SET_BURST, RPS_SET_RECYCLE,
	RPS_SET_TX_PORT, RPS_SET_MBUFS, RPS_SET_MTU, RPS_SET_STATS_INTERVAL, RPS_SET_DURATION,
	RPS_SET_EXIT_WHEN_IDLE, RPS_SET_SUMMARY_JSON, RPS_SET_VERBOSE, RPS_SET_STAGES, RPS_SET_FLOW_TABLE_SIZE,
	RPS_SET_FLOW_TIMEOUT,
	RPS_SET_ELEPHANT_RATE, RPS_SET_ELEPHANT_WINDOW, RPS_SET_ELEPHANT_ACTION,
	RPS_SET_FRAG_MAX, RPS_SET_FRAG_MBUFS, RPS_SET_FRAG_TIMEOUT,
	RPS_SET_RESPOND_IP, RPS_SET_RESPOND_IP6, RPS_SET_UDP_ECHO_PORT, RPS_SET_RESPOND_RATE,
	RPS_SET_RESPOND_BURST, RPS_SET_FLOWS_JSON, RPS_SET_CONFIG, RPS_SET_STRICT_MODES,
	RPS_SET_REORDER_SAFE,
	RPS_SET_CHECK_ORDER, RPS_SET_FLOW_LIMIT, RPS_SET_REBALANCE, RPS_SET_REBALANCE_INTERVAL,
	RPS_SET_REBALANCE_THRESHOLD, RPS_SET_REBALANCE_MOVES, RPS_SET_REBALANCE_HOLDDOWN,
	RPS_SET_BACKPRESSURE, RPS_SET_STALL_TIMEOUT, RPS_SET_IDLE_SLEEP, RPS_SET_IDLE_SPIN,
	RPS_SET_IDLE_WAIT, RPS_SET_FORWARD, RPS_SET_CONSUMERS, RPS_SET_CONSUMER_SOCKET,
	RPS_SET_CONSUMER_WAIT, RPS_SET_CONSUMER_GROUP, RPS_SET_CONSUMER_SECRET,
	RPS_SET_CONSUMER_MODE, RPS_SET_CONSUMER_FAIL, RPS_SET_BYPASS_AFTER, RPS_SET_CONSUMER_FILTER,
	RPS_SET_RULE,
	RPS_SET_METRICS, RPS_SET_HELP,
	RPS_SET_NB
};

enum rps_setting_type {
	RPS_SETTING_SWITCH, /* a command-line switch without a value (--check-order), no key */
	RPS_SETTING_BOOL,   /* on or off (the file: also yes/no, true/false, 1/0, any case) */
	RPS_SETTING_U32,    /* a number in [lo, hi] */
	RPS_SETTING_POW2,   /* a power of two in [lo, hi] */
	RPS_SETTING_ENUM,   /* one of the words of .values */
	RPS_SETTING_TEXT,   /* a list, a map, a key, an address, a file: its own parser */
};

enum rps_setting_when {
	RPS_SETTING_START,   /* command line only: read once at start */
	RPS_SETTING_RESTART, /* in the file too; a reload that changes it needs a restart */
	RPS_SETTING_LIVE,    /* a reload applies it */
};

/* .flags */
#define RPS_SETTING_FILE_WORD 1u /* the file takes .word in place of a number (-1) */
#define RPS_SETTING_BYTES 4u     /* U32: a size, also with a K, M or G suffix (x 1024) */
#define RPS_SETTING_RATE 8u      /* U32: bits a second, also with a K, M or G suffix
				  * (x 1000), or off (0) */
#define RPS_SETTING_SECRET 2u    /* a key: no message or log ever shows its value; the only
				  * reply that may is /rps/config, the seed and the key to the
				  * owner (telemetry.c secrets_visible()) */

struct rps_setting {
	const char *name;      /* its name everywhere: the flag, or the key when file only */
	const char *flag;      /* command-line option without "--", NULL: file only */
	const char *metavar;   /* the option's argument, NULL: a switch (it sets "on") */
	const char *key;       /* configuration-file key, NULL: command line only */
	const char *section;   /* the key's section ("dataplane", "map") */
	const char *syntax;    /* the key's value in the docs ("N", "on|off|xor") */
	enum rps_setting_type type;
	enum rps_setting_when when;
	uint64_t lo, hi;       /* U32, POW2: the range */
	const char *what;      /* U32, POW2: "expected <what>lo..hi<unit>" */
	const char *unit;
	const char *values;    /* ENUM: the words, '|'-separated ("auto|rss|jhash|toeplitz") */
	unsigned int flags;
	const char *word;      /* RPS_SETTING_FILE_WORD: the word ("none") */
	const char *def;       /* the default, as the docs say it ("1000", "random") */
	const char *help;      /* --help: one sentence */
	const char *doc;       /* README and dpdk-rps(8): markdown (`code`, [text](#anchor)) */
};

/** The table, RPS_SET_NB entries indexed by enum rps_setting_id. */
extern const struct rps_setting rps_settings[RPS_SET_NB];

/** The setting of command-line option @p flag ("backlog", no "--"), or NULL. */
const struct rps_setting *rps_setting_by_flag(const char *flag);

/** The setting of key @p key in [@p section], or NULL. */
const struct rps_setting *rps_setting_by_key(const char *section, const char *key);

/** The id of @p s (an entry of rps_settings). */
static inline enum rps_setting_id
rps_setting_id(const struct rps_setting *s)
{
	return (enum rps_setting_id)(s - rps_settings);
}

/**
 * Parse @p text as the value of a BOOL, U32, POW2 or ENUM setting, as the command line
 * (@p file 0) or the configuration file (@p file 1) reads it.
 * @param out receives the value: a number; a boolean 1 or 0; an ENUM's value (enum
 *   rps_hash_mode for hash, enum rps_sym_mode for symmetric, enum rps_elephant_action, 1/0/-1 for backpressure
 *   on/off/auto); -1 for RPS_SETTING_FILE_WORD's word.
 * @param why receives what was expected ("expected 1..16777216 packets", "expected on or
 *   off"); on the command line a text that is no number at all gets "not a number (...)".
 *   The caller adds the option or FILE:LINE: key.
 * @return 0, -EINVAL (not in the syntax), -ERANGE (a number out of range), -ENOTSUP (a
 *   TEXT or SWITCH setting, or a side the setting lacks).
 */
int rps_setting_parse(const struct rps_setting *s, const char *text, int file, int64_t *out,
		      char *why, size_t why_len);

/**
 * Store @p v into an integer field of @p size bytes (1, 2 or 4: a uint8_t, uint16_t, an
 * int, unsigned or enum) at @p dst, the way the option and config tables describe their
 * fields (offsetof and sizeof), truncating as a C conversion does.
 */
void rps_setting_store(void *dst, size_t size, int64_t v);

/** --elephant-action's values (rps_setting_parse()'s value for elephant_action). */
enum rps_elephant_action { RPS_ELEPHANT_NONE, RPS_ELEPHANT_BYPASS, RPS_ELEPHANT_ISOLATE };

/** --consumers: at most this many memif consumers. */
#define RPS_CONSUMERS_MAX 16
/** --consumers K,K...: at most this many groups (every packet goes to one consumer of each). */
#define RPS_CONSUMER_GROUPS_MAX 4

/**
 * Parse --consumers / consumers: "0" (off), "K" (one group of K consumers) or "K,K..." (one
 * group each, PF_RING zbalance_ipc's -n 4,1): each K 1..RPS_CONSUMERS_MAX, at most
 * RPS_CONSUMER_GROUPS_MAX groups and RPS_CONSUMERS_MAX consumers in all. Fills @p sizes
 * (group g's K), *@p nb_groups (0: off) and *@p total.
 * @return 0, or -EINVAL with @p why saying what (the outputs untouched).
 */
int rps_consumers_parse(const char *text, uint16_t *sizes, uint16_t *nb_groups,
			uint32_t *total, const char **why);

/** Room for one consumer's socket path (struct sockaddr_un's sun_path, with its NUL). */
#define RPS_CONSUMER_PATH_MAX 108
#define RPS_CONSUMER_SECRET_MAX 24  /* a memif secret's bytes */
#define RPS_CONSUMER_GROUP_MAX 64   /* a group's name */

/**
 * Check consumer_secret's value: SECRET, or SECRET,SECRET,... one per consumer in order,
 * each 1..24 printable bytes without ',', '=' or spaces (a DPDK memif client takes it in
 * vdev arguments). @p why never quotes the value. On success, each secret into @p out
 * (NUL-terminated, RPS_CONSUMERS_MAX of them) and their count into @p nb.
 * @return 0, or -EINVAL.
 */
int rps_consumer_secret_parse(const char *text, char out[][RPS_CONSUMER_SECRET_MAX + 1],
			      unsigned int *nb, const char **why);

/**
 * Check a --consumer-socket template: exactly one "%u" (the consumer index) and no other
 * '%', and the path of consumer @p nb - 1 (the longest) within RPS_CONSUMER_PATH_MAX - 1
 * characters. @return 0, or -EINVAL / -ENAMETOOLONG with *@p why.
 */
int rps_consumer_socket_check(const char *tmpl, unsigned int nb, const char **why);

/** Port pairs of --forward / forward: what arrives on a leaves on b and the other way. */
#define RPS_FORWARD_MAX 4
struct rps_fwd_pair {
	uint16_t a, b;
};

/**
 * Add the pairs of @p text ("A:B", or a list "A:B,C:D") to @p pairs[*n..]: ports decimal
 * below RTE_MAX_ETHPORTS, A != B, no port in two pairs (those already in @p pairs included),
 * at most RPS_FORWARD_MAX pairs in all. On error *n is unchanged and @p why says what.
 * @return 0 or -EINVAL.
 */
int rps_forward_parse(const char *text, struct rps_fwd_pair *pairs, uint16_t *n,
		      const char **why);

/**
 * What @p s accepts, for messages and docs: "1..16777216 packets", "a power of two 1..4096
 * buckets", "on or off", "auto, rss, jhash or toeplitz"; "" for TEXT and SWITCH.
 */
void rps_setting_range(const struct rps_setting *s, int file, char *buf, size_t len);

/**
 * Write the table as documentation to @p out: @p format "markdown" (the README's option
 * table), "mdoc" (dpdk-rps(8)'s OPTIONS items) or "mdoc-conf" (dpdk-rps.conf(5)'s
 * [dataplane] items). @return 0 or -EINVAL (another format).
 */
int rps_settings_write_doc(FILE *out, const char *format);

/** "live", "restart" or "start" (command line only). */
const char *rps_setting_when_name(enum rps_setting_when when);

#endif /* RPS_SETTINGS_H */
