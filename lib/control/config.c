/* SPDX-License-Identifier: BSD-3-Clause */
/* config.c: parse the INI configuration file (libinih) into a struct rps_config. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <ini.h>

#include "rps_config.h"
#include "rps_listen.h"
#include "rps_number.h"
#include "rps_safepath.h"
#include "rps_siphash.h"
#include "rps_counters.h"
#include "rps_settings.h"

/* A configuration file larger than this is refused (it is a few hundred bytes normally). */
#define CONFIG_MAX_SIZE (1u << 20)

/* Every key: the settings (rps_settings.h) by id, then [map] queueN, so that a duplicate can
 * name the line that set it first. */
#define K_QUEUE0 RPS_SET_NB
#define K_NB (K_QUEUE0 + RPS_CONFIG_MAX_QUEUES)

struct parser {
	struct rps_config *cfg;
	const char *text;        /* the whole file */
	size_t len;
	size_t pos;              /* start of the next line */
	int line;                /* lines handed to inih so far: inih's own line number */
	int err_line;            /* line of the first error found here, 0 = none */
	char msg[512];           /* that error, without "FILE:LINE: " */
	int first_line[K_NB];    /* line that set each key, 0 = not set */
	int in_rules;            /* the last section header was [rules] */
	int in_consumers;        /* ... [consumers] */
};



/* Record the first error (at the current line); returns 0, which is inih's "failed". */
static int __attribute__((format(printf, 2, 3)))
fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	if (p->err_line != 0)
		return 0;
	p->err_line = p->line;
	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
	return 0;
}

static size_t secret_key_prefix(const char *s, size_t n);

/*
 * How much of @p s (@p n bytes of a line the parser refuses: a section's name, what follows
 * its ']', a line that is not "key = value", a setting under [rules]) a message may quote:
 * leading blanks and the first word (up to a blank, '=' or ':', the ':' shown), at most 64
 * characters, and of a word that starts with a secret's key ("hash_seed0x1234") only the
 * key. The rest may
 * be a secret's value (hash_seed, rss_key), which no message repeats: "[hash_seed = X]" is an
 * unknown section, "[map] rss_key: X" a section with something after it. Blanks alone after
 * the word are quoted too ("[ map ]"). *@p cut: 1 when something else is left out.
 */
static int
quotable(const char *s, size_t n, int *cut)
{
	size_t b = 0, w, k, r;

	while (b < n && (s[b] == ' ' || s[b] == '\t'))
		b++;
	w = b;
	while (w < n && s[w] != ' ' && s[w] != '\t' && s[w] != '=' && s[w] != ':')
		w++;
	k = secret_key_prefix(s + b, w - b);
	if (k != 0)
		w = b + k;
	else if (w < n && s[w] == ':')
		w++; /* "backlog: 5" shows its ':', the mistake */
	w = RTE_MIN(w, (size_t)64);
	for (r = w; r < n && (s[r] == ' ' || s[r] == '\t'); r++)
		;
	if (r == n)
		w = n <= 64 ? n : w;
	*cut = w < n;
	return (int)w;
}

/* A line of [rules]: one steering rule (rps_rules.h), kept with its line; inih gets an empty
 * line for it (it is not "key = value"). @return 0, or -1 after recording the error. */
static int
rule_line(struct parser *p, const char *s, size_t n)
{
	struct rps_config *c = p->cfg;
	char text[256], why[200];

	if (c->nb_rules >= RPS_RULES_MAX) {
		fail(p, "[rules]: more than %u rules (the most --rule and [rules] may hold "
		     "together)", RPS_RULES_MAX);
		return -1;
	}
	/* "key = value" (no rule has a '='): a setting in the wrong section; and any line that
	 * starts with a secret's key ("hash_seed: ..."; a rule's IPv6 prefix has ':'). Its first
	 * word only: the value may be a secret (hash_seed, rss_key), which no message repeats,
	 * and it may stand before the '=' ("hash_seed 0x1234 = 1", "rss_key: 6d5a... a=b") */
	if (memchr(s, '=', n) != NULL || secret_key_prefix(s, n) != 0) {
		int cut;

		fail(p, "[rules]: '%.*s ...' is a setting, not a rule: settings go in the "
		     "sections before [rules]", quotable(s, n, &cut), s);
		return -1;
	}
	snprintf(text, sizeof(text), "%.*s", (int)n, s);
	if (rps_rule_parse(text, &c->rules[c->nb_rules], why, sizeof(why)) < 0) {
		fail(p, "rule '%s': %s", text, why);
		return -1;
	}
	c->rule_line[c->nb_rules++] = p->line;
	return 0;
}

/* A line of [consumers]: "filter.G = EXPR", consumer group G's tcpdump expression, whole
 * (inih never sees it: an expression may hold '=', ':' or be longer than inih's lines).
 * @return 0, or -1 after recording the error. */
static int
consumers_line(struct parser *p, const char *s, size_t n)
{
	struct rps_config *c = p->cfg;
	const char *eq = memchr(s, '=', n), *v;
	size_t kn, vn;
	unsigned int g;
	int cut, q;

	if (eq == NULL) {
		q = quotable(s, n, &cut);
		fail(p, "[consumers]: '%.*s%s': expected 'filter.G = EXPR'", q, s,
		     cut ? " ..." : "");
		return -1;
	}
	for (kn = (size_t)(eq - s); kn > 0 && isspace((unsigned char)s[kn - 1]); kn--)
		;
	if (kn != 8 || memcmp(s, "filter.", 7) != 0 || s[7] < '0' ||
	    s[7] >= '0' + RPS_CONSUMER_GROUPS_MAX) {
		q = quotable(s, kn, &cut);
		fail(p, "[consumers]: unknown key '%.*s%s' (expected filter.0 .. filter.%u: a "
		     "consumer group's tcpdump expression)", q, s, cut ? " ..." : "",
		     RPS_CONSUMER_GROUPS_MAX - 1);
		return -1;
	}
	g = (unsigned int)(s[7] - '0');
	for (v = eq + 1; v < s + n && isspace((unsigned char)*v); v++)
		;
	vn = (size_t)(s + n - v);
	if (vn == 0) {
		fail(p, "filter.%u: an empty expression (a group without a filter receives every "
		     "packet: leave the line out)", g);
		return -1;
	}
	if (vn > RPS_FILTER_TEXT_MAX) {
		fail(p, "filter.%u: an expression of %zu characters (at most %u)", g, vn,
		     RPS_FILTER_TEXT_MAX);
		return -1;
	}
	if (c->filter_line[g] != 0) {
		fail(p, "filter.%u: set already at line %d (one per group: join expressions with "
		     "'or')", g, c->filter_line[g]);
		return -1;
	}
	memcpy(c->filter[g], v, vn);
	c->filter[g][vn] = '\0';
	c->filter_line[g] = p->line;
	return 0;
}

/* The length of the secret's key (RPS_SETTING_SECRET) that @p s (@p n bytes) starts with, or 0. */
static size_t
secret_key_prefix(const char *s, size_t n)
{
	for (unsigned int i = 0; i < RPS_SET_NB; i++) {
		const char *key = rps_settings[i].key;

		if (key != NULL && (rps_settings[i].flags & RPS_SETTING_SECRET) &&
		    strlen(key) <= n && memcmp(s, key, strlen(key)) == 0)
			return strlen(key);
	}
	return 0;
}

/*
 * What a message may quote of an unknown key: "hash_seed 0x1234" or "hash_seed0x1234" (the
 * value typed without its '=', then "= x" later on the line) becomes "hash_seed ...".
 */
static const char *
key_shown(const char *name, char *buf, size_t len)
{
	size_t k = secret_key_prefix(name, strlen(name));

	if (k == 0 || name[k] == '\0')
		return name;
	snprintf(buf, len, "%.*s ...", (int)k, name);
	return buf;
}

/*
 * An ini_reader over the text: hands inih one line at a time, cleaned so that inih's rules
 * cannot surprise: indentation removed (so there are no continuation lines), an inline
 * comment (';' or '#' after whitespace) and trailing whitespace (CR included) cut. It checks
 * what inih would accept silently or report without a reason: section lines (known name,
 * nothing after ']'), lines that are not "key = value", over-long lines, NUL bytes. It stops
 * the parse (NULL) at the first error, found here or by the handler.
 */
static char *
reader(char *str, int num, void *stream)
{
	struct parser *p = stream;
	const char *s, *e, *eol;
	size_t n;
	int cut;

	if (p->err_line != 0 || p->pos >= p->len)
		return NULL;
	s = p->text + p->pos;
	eol = memchr(s, '\n', p->len - p->pos);
	e = eol != NULL ? eol : p->text + p->len;
	p->pos = (size_t)(e - p->text) + (eol != NULL);
	p->line++;
	if (p->line == 1 && e - s >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3; /* UTF-8 byte order mark */
	if (memchr(s, '\0', (size_t)(e - s)) != NULL) {
		fail(p, "NUL character in the line");
		return NULL;
	}
	while (s < e && isspace((unsigned char)*s))
		s++;
	if (s < e && (*s == ';' || *s == '#')) {
		e = s; /* a comment line */
	} else {
		for (const char *c = s + 1; c < e; c++)
			if ((*c == ';' || *c == '#') && isspace((unsigned char)c[-1])) {
				e = c;
				break;
			}
	}
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	n = (size_t)(e - s);
	n = (size_t)(e - s);
	if (n > 0 && *s != '[' && p->in_consumers) {
		/* ours alone, at any length */
		if (consumers_line(p, s, n) < 0)
			return NULL;
		n = 0;
		memcpy(str, "\n", 2);
		return str;
	}
	/* n characters, '\n' and NUL must fit; the '\n' tells inih the line is complete. */
	if (num < 3 || n > (size_t)num - 2) {
		fail(p, "line too long (at most %d characters without indentation and comment)",
		     num - 2);
		return NULL;
	}
	if (n > 0 && *s == '[') {
		/* a header is quoted only as far as quotable() allows: "[hash_seed = X]" */
		const char *close = memchr(s, ']', n);
		size_t len = close != NULL ? (size_t)(close - s - 1) : n - 1;
		int q = quotable(s + 1, len, &cut), qa, cut_a;

		if (close == NULL) {
			fail(p, "'[%.*s%s': section header without ']'", q, s + 1, cut ? " ..." : "");
			return NULL;
		}
		if (close + 1 != e) {
			qa = quotable(close + 1, (size_t)(e - close - 1), &cut_a);
			fail(p, "unexpected '%.*s%s' after [%.*s%s]", qa, close + 1,
			     cut_a ? " ..." : "", q, s + 1, cut ? " ..." : "");
			return NULL;
		}
		p->in_rules = len == 5 && memcmp(s + 1, "rules", 5) == 0;
		p->in_consumers = len == 9 && memcmp(s + 1, "consumers", 9) == 0;
		if (p->in_rules || p->in_consumers) {
			if (p->in_rules)
				p->cfg->has_rules = 1;
			else
				p->cfg->has_consumers_section = 1;
			n = 0; /* inih needs no section of ours to know */
		} else if (!((len == 9 && memcmp(s + 1, "dataplane", 9) == 0) ||
		      (len == 3 && memcmp(s + 1, "map", 3) == 0))) {
			fail(p, "unknown section [%.*s%s] (expected [dataplane], [map], [rules] "
			     "or [consumers])", q, s + 1, cut ? " ..." : "");
			return NULL;
		}
	} else if (n > 0 && p->in_rules) {
		if (rule_line(p, s, n) < 0)
			return NULL;
		n = 0;
	} else if (n > 0) {
		/* inih takes the first '=' or ':' as the separator; only '=' is ours. */
		const char *sep = s;

		while (sep < e && *sep != '=' && *sep != ':')
			sep++;
		if (sep == e || *sep != '=') {
			/* its first word only: "rss_key: 6d5a...", "hash_seed0x1234", but also
			 * "x: hash_seed = 6d5a" may hold a secret */
			int q = quotable(s, n, &cut);

			fail(p, "'%.*s%s': expected 'key = value', a [section] or a comment", q, s,
			     cut ? " ..." : "");
			return NULL;
		}
	}
	memcpy(str, s, n);
	str[n] = '\n';
	str[n + 1] = '\0';
	return str;
}

/* rps_number.h's syntax, the command line's too. */
static int
parse_number(const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
	return rps_number_parse(v, lo, hi, out);
}

/*
 * The same rules as the application's --stages (rps_pipeline_parse), checked here by name so
 * that a mistake gets its FILE:LINE: known stages, in pipeline order, each at most once,
 * every one but output after parse, empty items ignored, at least one stage.
 */
static int
check_stages(struct parser *p, const char *name, const char *v)
{
	static const char *const stage[] = {
#define RPS_X_NAME(e, n) #n,
		RPS_STAGE_LIST(RPS_X_NAME)
#undef RPS_X_NAME
	};
	char buf[sizeof(p->cfg->stages)];
	char *save = NULL;
	int last = -1, nb = 0, has_parse = 0;

	if (strlen(v) >= sizeof(buf))
		return fail(p, "%s: longer than %zu characters", name, sizeof(buf) - 1);
	strcpy(buf, v);
	for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		int id = -1;

		for (int i = 0; i < (int)RTE_DIM(stage); i++)
			if (strcmp(t, stage[i]) == 0)
				id = i;
		if (id < 0)
			return fail(p, "%s: unknown stage '%s' (expected parse,validate,reassemble,"
				    "flow,respond,output: any of them, in this order)", name, t);
		if (id <= last)
			return fail(p, "%s: '%s' is repeated or out of order (order: parse,validate,"
				    "reassemble,flow,respond,output)", name, t);
		if (id != RPS_STAGE_PARSE && id != RPS_STAGE_OUTPUT && !has_parse)
			return fail(p, "%s: '%s' needs parse before it", name, t);
		has_parse |= id == RPS_STAGE_PARSE;
		last = id;
		nb++;
	}
	if (nb == 0)
		return fail(p, "%s: no stage in '%s'", name, v);
	return 1;
}

static int
map_value(struct parser *p, const char *name, const char *value, struct rps_lcoreset *set,
	  char *text, size_t text_len)
{
	unsigned int bad = 0;
	int rc = rps_lcoreset_parse(value, set, &bad);

	if (rc == -ERANGE)
		return fail(p, "%s: lcore %u out of range (lcores 0..%u)", name, bad,
			    RTE_MAX_LCORE - 1);
	if (rc < 0)
		return fail(p, "%s: expected a hex mask (fe, 0xfe, ff,ffffffff) or a list (1-3,5) "
			    "with optional weights 1..%u (1:2,2:1,3:1), not '%s'", name,
			    RPS_WEIGHT_MAX, value);
	if (strlen(value) >= text_len)
		return fail(p, "%s: longer than %zu characters", name, text_len - 1);
	snprintf(text, text_len, "%s", value);
	return 1;
}

/* A Toeplitz key in hex, as --rss-key. @return 1, or 0 after fail(). */
static int
rss_key_value(struct parser *p, const char *name, const char *value)
{
	struct rps_config *c = p->cfg;
	size_t len = 0;
	int rc = rps_toeplitz_key_parse(value, c->rss_key, &len);

	if (rc == -ERANGE)
		return fail(p, "%s: %zu bytes, expected %u or %u (%u or %u hex digits)", name, len,
			    RPS_TOEPLITZ_KEY_LEN, RPS_TOEPLITZ_KEY_MAX, 2 * RPS_TOEPLITZ_KEY_LEN,
			    2 * RPS_TOEPLITZ_KEY_MAX);
	if (rc < 0)
		return fail(p, "%s: expected a key in hex (6d5a56da... or 6d:5a:56:da:...), "
			    "40 or 52 bytes (the value is secret: not shown)", name);
	c->rss_key_len = (uint8_t)len;
	c->has_rss_key = 1;
	return 1;
}

/*
 * Where the value of each setting with a key goes in struct rps_config, for the settings the
 * table's own checks parse (BOOL, U32, POW2, ENUM); the others (size 0) have their own code
 * in set_value().
 */
#define FIELD(f, h) { offsetof(struct rps_config, f), sizeof(((struct rps_config *)0)->f), \
		      offsetof(struct rps_config, h) }
static const struct cfg_field {
	size_t off, size, has;
} fields[RPS_SET_NB] = {
	[RPS_SET_RX_PORT] = FIELD(rx_port, has_rx_port),
	[RPS_SET_TX_PORT] = FIELD(tx_port, has_tx_port),
	[RPS_SET_HASH] = FIELD(hash_mode, has_hash),
	[RPS_SET_HASH_SEED] = FIELD(hash_seed, has_hash_seed),
	[RPS_SET_SYMMETRIC] = FIELD(symmetric, has_symmetric),
	[RPS_SET_INNER] = FIELD(inner, has_inner),
	[RPS_SET_BACKLOG] = FIELD(backlog, has_backlog),
	[RPS_SET_BURST] = FIELD(burst, has_burst),
	[RPS_SET_FLOW_TABLE_SIZE] = FIELD(flow_table_size, has_flow_table_size),
	[RPS_SET_ELEPHANT_RATE] = FIELD(elephant_rate, has_elephant_rate),
	[RPS_SET_ELEPHANT_WINDOW] = FIELD(elephant_window, has_elephant_window),
	[RPS_SET_ELEPHANT_ACTION] = FIELD(elephant_action, has_elephant_action),
	[RPS_SET_REORDER_SAFE] = FIELD(reorder_safe, has_reorder_safe),
	[RPS_SET_FLOW_LIMIT] = FIELD(flow_limit, has_flow_limit),
	[RPS_SET_STATS_INTERVAL] = FIELD(stats_interval, has_stats_interval),
	[RPS_SET_IDLE_SLEEP] = FIELD(idle_sleep_us, has_idle_sleep_us),
	[RPS_SET_IDLE_SPIN] = FIELD(idle_spin_us, has_idle_spin_us),
	[RPS_SET_IDLE_WAIT] = FIELD(idle_wait, has_idle_wait),
	[RPS_SET_TABLE_SIZE] = FIELD(table_size, has_table_size),
	[RPS_SET_REBALANCE] = FIELD(rebalance, has_rebalance),
	[RPS_SET_REBALANCE_INTERVAL] = FIELD(rebalance_interval_ms, has_rebalance_interval_ms),
	[RPS_SET_REBALANCE_THRESHOLD] = FIELD(rebalance_threshold, has_rebalance_threshold),
	[RPS_SET_REBALANCE_MOVES] = FIELD(rebalance_moves, has_rebalance_moves),
	[RPS_SET_REBALANCE_HOLDDOWN] = FIELD(rebalance_holddown_ms, has_rebalance_holddown_ms),
	[RPS_SET_RESPOND_RATE] = FIELD(respond_rate, has_respond_rate),
	[RPS_SET_RESPOND_BURST] = FIELD(respond_burst, has_respond_burst),
	[RPS_SET_CONSUMER_WAIT] = FIELD(consumer_wait_ms, has_consumer_wait_ms),
	[RPS_SET_CONSUMER_MODE] = FIELD(consumer_inline, has_consumer_mode),
	[RPS_SET_CONSUMER_FAIL] = FIELD(consumer_fail_open, has_consumer_fail),
	[RPS_SET_BYPASS_AFTER] = FIELD(bypass_after, has_bypass_after),
};
#undef FIELD

int
rps_config_value(const struct rps_config *cfg, enum rps_setting_id id, int64_t *v)
{
	const struct cfg_field *f;
	int has;
	uint32_t u;

	if ((unsigned int)id >= RPS_SET_NB || fields[id].size == 0)
		return -ENOTSUP;
	f = &fields[id];
	memcpy(&has, (const char *)cfg + f->has, sizeof(has));
	if (!has)
		return -ENOENT;
	if (f->size == 1) {
		*v = *((const uint8_t *)cfg + f->off);
	} else if (f->size == 2) {
		uint16_t h;

		memcpy(&h, (const char *)cfg + f->off, sizeof(h));
		*v = h;
	} else {
		memcpy(&u, (const char *)cfg + f->off, sizeof(u));
		/* tx_port's none is -1; the others are below 2^31 or unsigned 32-bit */
		*v = id == RPS_SET_TX_PORT ? (int64_t)(int32_t)u : (int64_t)u;
	}
	return 0;
}


/* Edit distance (insertions, deletions, substitutions, adjacent swaps) between @p a and
 * @p b, each at most 31 characters considered; case-blind. */
static unsigned int
key_distance(const char *a, const char *b)
{
	unsigned int d[33][33];
	size_t la = strnlen(a, 31), lb = strnlen(b, 31);

	for (size_t i = 0; i <= la; i++)
		d[i][0] = (unsigned int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned int)j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			const unsigned int cost = tolower((unsigned char)a[i - 1]) !=
						  tolower((unsigned char)b[j - 1]);
			unsigned int v = RTE_MIN(d[i - 1][j] + 1, d[i][j - 1] + 1);

			v = RTE_MIN(v, d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
				v = RTE_MIN(v, d[i - 2][j - 2] + 1);
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

/* The key of @p section nearest to @p name (a typo of it: at most 2 edits, fewer than half
 * its length), or NULL. */
static const char *
key_near(const char *section, const char *name)
{
	const char *best = NULL;
	unsigned int best_d = 3;

	for (unsigned int k = 0; k < RPS_SET_NB; k++) {
		const struct rps_setting *s = &rps_settings[k];
		unsigned int d;

		if (s->key == NULL || strcmp(s->section, section) != 0)
			continue;
		d = key_distance(name, s->key);
		if (d < best_d && 2 * d < strlen(s->key)) {
			best = s->key;
			best_d = d;
		}
	}
	return best;
}

/* The key @p name of @p section, or -1 after recording the error. */
static int
key_lookup(struct parser *p, const char *section, const char *name)
{
	const struct rps_setting *s = rps_setting_by_key(section, name);
	char shown[32];
	uint64_t q;

	if (s != NULL)
		return (int)rps_setting_id(s);
	if (strcmp(section, "map") == 0) {
		/* queueN: N decimal without a leading zero, so that a queue has one spelling */
		if (strncmp(name, "queue", 5) == 0 && isdigit((unsigned char)name[5]) &&
		    name[6] != 'x' && name[6] != 'X' &&
		    parse_number(name + 5, 0, UINT32_MAX, &q) != -EINVAL) {
			if (parse_number(name + 5, 0, RPS_CONFIG_MAX_QUEUES - 1, &q) < 0) {
				fail(p, "%s: RX queue out of range (queue0..queue%u)", name,
				     RPS_CONFIG_MAX_QUEUES - 1);
				return -1;
			}
			return K_QUEUE0 + (int)q;
		}
		fail(p, "unknown key '%s' in [map] (expected default or queue0..queue%u)",
		     key_shown(name, shown, sizeof(shown)), RPS_CONFIG_MAX_QUEUES - 1);
		return -1;
	}
	if (strcmp(section, "dataplane") == 0) {
		const char *near = key_near("dataplane", name);

		/* (every key would not fit a message: dpdk-rps.conf(5) lists them) */
		if (near != NULL)
			fail(p, "unknown key '%s' in [dataplane] (did you mean %s? every key: "
			     "dpdk-rps.conf(5))", key_shown(name, shown, sizeof(shown)), near);
		else
			fail(p, "unknown key '%s' in [dataplane] (every key: dpdk-rps.conf(5))",
			     key_shown(name, shown, sizeof(shown)));
		return -1;
	}
	if (*section == '\0')
		fail(p, "key '%s' outside any section (put it under [dataplane] or [map])",
		     key_shown(name, shown, sizeof(shown)));
	else { /* the reader refuses unknown sections first */
		int cut, q = quotable(section, strlen(section), &cut);

		fail(p, "unknown section [%.*s%s] (expected [dataplane], [map], [rules] or "
		     "[consumers])", q,
		     section, cut ? " ..." : "");
	}
	return -1;
}

/* rx_port: one port or a comma-separated list of them, each as --rx-port checks it, none
 * twice, at most RPS_CONFIG_MAX_RX_PORTS. @return 1, or 0 after fail(). */
static int
rx_ports_value(struct parser *p, const struct rps_setting *s, const char *name,
	       const char *value)
{
	struct rps_config *c = p->cfg;
	char buf[256], why[192];
	char *save = NULL;
	uint16_t n = 0;

	if (strlen(value) >= sizeof(buf))
		return fail(p, "%s: too long", name);
	snprintf(buf, sizeof(buf), "%s", value);
	for (char *tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		int64_t x;

		while (isspace((unsigned char)*tok))
			tok++;
		for (char *e = tok + strlen(tok); e > tok && isspace((unsigned char)e[-1]); e--)
			e[-1] = '\0';
		if (rps_setting_parse(s, tok, 1, &x, why, sizeof(why)) < 0)
			return fail(p, "%s: %s, not '%s'", name, why, tok);
		for (uint16_t i = 0; i < n; i++)
			if (c->rx_ports[i] == (uint16_t)x)
				return fail(p, "%s: port %u given twice", name, (unsigned int)x);
		if (n == RPS_CONFIG_MAX_RX_PORTS)
			return fail(p, "%s: at most %u RX ports", name, RPS_CONFIG_MAX_RX_PORTS);
		c->rx_ports[n++] = (uint16_t)x;
	}
	if (n == 0 || value[strlen(value) - 1] == ',' || strstr(value, ",,") != NULL ||
	    value[0] == ',')
		return fail(p, "%s: expected a port or a list of ports (0 or 0,1), not '%s'", name,
			    value);
	c->nb_rx_ports = n;
	c->rx_port = c->rx_ports[0];
	c->has_rx_port = 1;
	return 1;
}

/* Parse @p value of key @p id into the configuration. @return 1, or 0 after fail(). */
static int
set_value(struct parser *p, int id, const char *name, const char *value)
{
	struct rps_config *c = p->cfg;
	const struct rps_setting *s;
	char why[192];
	int64_t x = 0;

	if (id >= K_QUEUE0) {
		unsigned int q = (unsigned int)(id - K_QUEUE0);

		if (!map_value(p, name, value, &c->queue_map[q], c->queue_map_text[q],
			       sizeof(c->queue_map_text[q])))
			return 0;
		c->has_queue_map[q] = 1;
		return 1;
	}
	s = &rps_settings[id];
	if (id == RPS_SET_RX_PORT)
		return rx_ports_value(p, s, name, value);
	if (fields[id].size != 0) {
		/* the table's checks, the command line's too (rps_setting_parse) */
		if (rps_setting_parse(s, value, 1, &x, why, sizeof(why)) < 0)
			return (s->flags & RPS_SETTING_SECRET) ?
			       fail(p, "%s: %s (the value is secret: not shown)", name, why) :
			       fail(p, "%s: %s, not '%s'", name, why, value);
		rps_setting_store((char *)c + fields[id].off, fields[id].size, x);
		rps_setting_store((char *)c + fields[id].has, sizeof(int), 1);
		return 1;
	}
	switch ((enum rps_setting_id)id) {
	case RPS_SET_STAGES:
		if (!check_stages(p, name, value))
			return 0;
		snprintf(c->stages, sizeof(c->stages), "%s", value);
		c->has_stages = 1;
		break;
	case RPS_SET_RX_LCORES: {
		unsigned int bad = 0;

		switch (rps_lcoreset_parse_list(value, &c->rx_lcores, &bad)) {
		case 0:
			break;
		case -ERANGE:
			return fail(p, "%s: lcore %u is out of range (max %u)", name, bad,
				    RTE_MAX_LCORE - 1);
		default:
			return fail(p, "%s: expected a list of lcores and ranges (0,1 or 0-1), not "
				    "'%s'", name, value);
		}
		snprintf(c->rx_lcores_text, sizeof(c->rx_lcores_text), "%s", value);
		c->has_rx_lcores = 1;
		break;
	}
	case RPS_SET_VXLAN_PORT:
		switch (rps_inner_vxlan_ports_parse(value, &c->tunnels)) {
		case 0:
			break;
		case -ENOSPC:
			return fail(p, "%s: at most %u ports, not '%s'", name,
				    RPS_INNER_VXLAN_PORTS_MAX, value);
		default:
			return fail(p, "%s: expected UDP ports 1..65535 other than 6081 (GENEVE) "
				    "and 2152 (GTP-U), decimal, comma-separated, not '%s'", name,
				    value);
		}
		c->has_vxlan_port = 1;
		break;
	case RPS_SET_RSS_KEY:
		if (!rss_key_value(p, name, value))
			return 0;
		break;
	case RPS_SET_FORWARD: {
		const char *w = NULL;

		c->nb_fwd = 0;
		if (rps_forward_parse(value, c->fwd, &c->nb_fwd, &w) < 0)
			return fail(p, "%s: %s, not '%s'", name, w, value);
		c->has_forward = 1;
		break;
	}
	case RPS_SET_CONSUMERS: {
		const char *w = NULL;

		/* as --consumers: K, or groups K,K... */
		if (strlen(value) >= sizeof(c->consumers_text) ||
		    rps_consumers_parse(value, c->group_size, &c->consumer_groups, &c->consumers,
					&w) < 0)
			return fail(p, "%s: %s, not '%s'", name,
				    w != NULL ? w : "too long", value);
		snprintf(c->consumers_text, sizeof(c->consumers_text), "%s", value);
		c->has_consumers = 1;
		break;
	}
	case RPS_SET_CONSUMER_SOCKET: {
		const char *w = NULL;

		/* as --consumer-socket; the longest path is checked against consumers at start */
		if (rps_consumer_socket_check(value, 1, &w) < 0)
			return fail(p, "%s: %s, not '%s'", name, w, value);
		snprintf(c->consumer_socket, sizeof(c->consumer_socket), "%s", value);
		c->has_consumer_socket = 1;
		break;
	}
	case RPS_SET_CONSUMER_GROUP:
		if (value[0] == '\0' || strlen(value) >= sizeof(c->consumer_group))
			return fail(p, "%s: expected a group's name or number, not '%s'", name,
				    value);
		snprintf(c->consumer_group, sizeof(c->consumer_group), "%s", value);
		c->has_consumer_group = 1;
		break;
	case RPS_SET_CONSUMER_SECRET: {
		const char *w = NULL;

		/* the value is never quoted */
		if (rps_consumer_secret_parse(value, c->consumer_secret, &c->nb_consumer_secrets,
					      &w) < 0)
			return fail(p, "%s: %s", name, w);
		c->has_consumer_secret = 1;
		break;
	}
	case RPS_SET_METRICS:
		if (rps_listen_parse(value, &c->metrics, why, sizeof(why)) < 0)
			return fail(p, "%s: %s, not '%s'", name, why, value);
		c->has_metrics = 1;
		break;
	case RPS_SET_MAP:
		if (!map_value(p, name, value, &c->default_map, c->default_map_text,
			       sizeof(c->default_map_text)))
			return 0;
		c->has_default_map = 1;
		break;
	default:
		return fail(p, "%s: internal error", name);
	}
	return 1;
}

#if INI_HANDLER_LINENO
static int
handler(void *user, const char *section, const char *name, const char *value, int lineno)
#else
static int
handler(void *user, const char *section, const char *name, const char *value)
#endif
{
	struct parser *p = user;
	int id;

#if INI_HANDLER_LINENO
	(void)lineno; /* the same as p->line */
#endif
	if (p->err_line != 0)
		return 0;
	if (*name == '\0')
		return fail(p, "missing key name before '='");
	id = key_lookup(p, section, name);
	if (id < 0)
		return 0;
	if (value == NULL || *value == '\0')
		return fail(p, "%s: empty value", name);
	if (p->first_line[id] != 0)
		return fail(p, "%s: set twice (first on line %d)", name, p->first_line[id]);
	if (!set_value(p, id, name, value))
		return 0;
	p->first_line[id] = p->line;
	if (id < RPS_SET_NB)
		p->cfg->line[id] = p->line;
	if (id >= K_QUEUE0)
		p->cfg->queue_map_line[id - K_QUEUE0] = p->line;
	else if (id == RPS_SET_MAP)
		p->cfg->default_map_line = p->line;
	if ((id == RPS_SET_SYMMETRIC || id == RPS_SET_RSS_KEY) && p->cfg->has_symmetric &&
	    p->cfg->symmetric == RPS_SYM_XOR && p->cfg->has_rss_key &&
	    !rps_toeplitz_key_is_symmetric(p->cfg->rss_key, p->cfg->rss_key_len))
		return fail(p, "rss_key (line %d) is not symmetric but symmetric = xor (line %d): "
			    "the key must repeat one 16-bit pattern (6d5a6d5a...), or leave rss_key "
			    "out to get 6d5a x 20, or use symmetric = on (any key)",
			    p->first_line[RPS_SET_RSS_KEY],
			    p->first_line[RPS_SET_SYMMETRIC]);
	return 1;
}

static int
parse_text(const char *text, size_t len, const char *name, struct rps_config *cfg, char *err,
	   size_t err_len)
{
	struct parser *p = calloc(1, sizeof(*p));
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	if (p == NULL) {
		if (err != NULL && err_len > 0)
			snprintf(err, err_len, "%s: out of memory", name);
		return -ENOMEM;
	}
	p->cfg = cfg;
	p->text = text;
	p->len = len;
	rc = ini_parse_stream(reader, p, handler, p);
	if (rc == 0 && p->err_line == 0) {
		free(p);
		return 0;
	}
	if (err != NULL && err_len > 0) {
		if (rc > 0 && (p->err_line == 0 || rc < p->err_line))
			/* inih refused a line the reader let through (should not happen) */
			snprintf(err, err_len, "%s:%d: syntax error", name, rc);
		else if (p->err_line != 0)
			snprintf(err, err_len, "%s:%d: %s", name, p->err_line, p->msg);
		else
			snprintf(err, err_len, "%s: inih failed (%d)", name, rc);
	}
	free(p);
	memset(cfg, 0, sizeof(*cfg));
	return -EINVAL;
}

/*
 * Reading the file. It is opened without blocking (a FIFO at the path would block open() and
 * read() until some writer came, a tty could become our controlling terminal) and must be a
 * regular file. It is read until two reads in a row agree (identity, size, mtime and every
 * byte): a file being rewritten in place while it is read is not parsed half-old, half-new.
 */

/* Reads of a file that keeps changing before it is refused, and the pause between them. */
#define CONFIG_READS_MAX 8
#define CONFIG_REREAD_PAUSE_NS (1000 * 1000)

struct file_read {
	char *buf;      /* CONFIG_MAX_SIZE + 1 bytes */
	size_t len;
	struct stat st; /* fstat() after the read */
};

static const char *
file_type_name(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	return "not a plain file";
}

/* One read of the whole file into @p r (its buffer allocated by the caller). */
static int
read_once(const char *path, struct file_read *r, char *err, size_t err_len)
{
	struct stat before;
	ssize_t n;
	int fd, rc = 0;

	/* not even opened when it is something else already (opening a device can act) */
	if (stat(path, &before) == 0 && !S_ISREG(before.st_mode))
		goto not_regular;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		rc = errno != 0 ? errno : ENOENT;
		if (err != NULL && err_len > 0)
			snprintf(err, err_len, "%s: cannot open: %s", path, strerror(rc));
		return -rc;
	}
	if (fstat(fd, &before) < 0) {
		rc = errno;
		if (err != NULL && err_len > 0)
			snprintf(err, err_len, "%s: cannot stat: %s", path, strerror(rc));
		close(fd);
		return -rc;
	}
	if (!S_ISREG(before.st_mode)) { /* replaced between stat() and open() */
		close(fd);
		goto not_regular;
	}
	r->len = 0;
	while (r->len <= CONFIG_MAX_SIZE) {
		n = read(fd, r->buf + r->len, CONFIG_MAX_SIZE + 1 - r->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = errno != 0 ? errno : EIO;
			if (err != NULL && err_len > 0)
				snprintf(err, err_len, "%s: cannot read: %s", path, strerror(rc));
			close(fd);
			return -rc;
		}
		if (n == 0)
			break;
		r->len += (size_t)n;
	}
	if (fstat(fd, &r->st) < 0)
		r->st = before;
	close(fd);
	if (r->len > CONFIG_MAX_SIZE) {
		if (err != NULL && err_len > 0)
			snprintf(err, err_len, "%s: larger than %u bytes", path, CONFIG_MAX_SIZE);
		return -EFBIG;
	}
	/* written to while we read it: not one version of the file */
	if (r->st.st_size != before.st_size || r->st.st_mtim.tv_sec != before.st_mtim.tv_sec ||
	    r->st.st_mtim.tv_nsec != before.st_mtim.tv_nsec || (off_t)r->len != r->st.st_size)
		r->st.st_size = -1;
	return 0;
not_regular:
	if (err != NULL && err_len > 0)
		snprintf(err, err_len, "%s: not a regular file (%s)", path,
			 file_type_name(before.st_mode));
	return S_ISDIR(before.st_mode) ? -EISDIR : -EINVAL;
}

/* Whether two reads saw the same version of the file. */
static int
same_read(const struct file_read *a, const struct file_read *b)
{
	return a->st.st_size >= 0 && b->st.st_size >= 0 && a->st.st_dev == b->st.st_dev &&
	       a->st.st_ino == b->st.st_ino && a->st.st_size == b->st.st_size &&
	       a->st.st_mtim.tv_sec == b->st.st_mtim.tv_sec &&
	       a->st.st_mtim.tv_nsec == b->st.st_mtim.tv_nsec && a->len == b->len &&
	       memcmp(a->buf, b->buf, a->len) == 0;
}

/*
 * Read @p path until two reads in a row agree; @p r[1] holds it. The two reads of a pair
 * follow each other at once; after a pair that disagreed (a writer was busy), a pause.
 */
static int
read_stable(const char *path, struct file_read r[2], char *err, size_t err_len)
{
	int rc = 0;

	for (int i = 0; i < CONFIG_READS_MAX / 2; i++) {
		if (i > 0) {
			struct timespec ts = { 0, CONFIG_REREAD_PAUSE_NS };

			nanosleep(&ts, NULL);
		}
		rc = read_once(path, &r[0], err, err_len);
		if (rc == 0)
			rc = read_once(path, &r[1], err, err_len);
		if (rc < 0)
			return rc;
		if (same_read(&r[0], &r[1]))
			return 0;
	}
	if (err != NULL && err_len > 0)
		snprintf(err, err_len, "%s: changed during each of %d reads; not applied", path,
			 CONFIG_READS_MAX);
	return -EAGAIN;
}

/*
 * Whether others could change the file: every folder and symlink hop to it, and the file as
 * read (@p st, the one parsed, not what the path names a moment later).
 */
static void
check_file_safety(const char *path, const struct stat *st, char *out, size_t len)
{
	int rc = rps_safepath_check(path, out, len);

	/* the walk judged the file the path names now; if it could not (renamed away since
	 * the read) or found it safe, the file that was read is judged too */
	if (rc != 0 && rc != -EPERM)
		out[0] = '\0';
	if (strstr(out, "file ") == NULL)
		rps_safepath_add_reason(out, len, "file", path, st);
}

int
rps_config_load_file(const char *path, struct rps_config *cfg, struct rps_config_file *info,
		     char *err, size_t err_len)
{
	struct file_read r[2] = { { 0 }, { 0 } };
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	if (info != NULL)
		memset(info, 0, sizeof(*info));
	r[0].buf = malloc(CONFIG_MAX_SIZE + 1);
	r[1].buf = malloc(CONFIG_MAX_SIZE + 1);
	if (r[0].buf == NULL || r[1].buf == NULL) {
		if (err != NULL && err_len > 0)
			snprintf(err, err_len, "%s: out of memory", path);
		rc = -ENOMEM;
		goto out;
	}
	rc = read_stable(path, r, err, err_len);
	if (rc < 0)
		goto out;
	if (info != NULL) {
		static const struct rps_siphash_key key = { { 0x6470646b2d727073ull, 0x636f6e666967ull } };

		check_file_safety(path, &r[1].st, info->unsafe, sizeof(info->unsafe));
		info->digest = rps_siphash24(&key, r[1].buf, r[1].len);
	}
	rc = parse_text(r[1].buf, r[1].len, path, cfg, err, err_len);
out:
	free(r[0].buf);
	free(r[1].buf);
	return rc;
}

int
rps_config_load(const char *path, struct rps_config *cfg, char *err, size_t err_len)
{
	return rps_config_load_file(path, cfg, NULL, err, err_len);
}

int
rps_config_parse_string(const char *text, const char *name, struct rps_config *cfg,
			char *err, size_t err_len)
{
	return parse_text(text, strlen(text), name, cfg, err, err_len);
}

const struct rps_lcoreset *
rps_config_queue_map(const struct rps_config *cfg, unsigned int q, const char **text)
{
	if (q < RPS_CONFIG_MAX_QUEUES && cfg->has_queue_map[q]) {
		if (text != NULL)
			*text = cfg->queue_map_text[q];
		return &cfg->queue_map[q];
	}
	if (cfg->has_default_map) {
		if (text != NULL)
			*text = cfg->default_map_text;
		return &cfg->default_map;
	}
	return NULL;
}
