/* SPDX-License-Identifier: BSD-3-Clause */
/* config.c: parse the INI configuration file (libinih) into a struct rps_config. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ini.h>

#include "rps_config.h"

struct parse_ctx {
	struct rps_config *cfg;
	char msg[200];      /* the first error, without "FILE:LINE: " */
	int failed;
};

static int
fail(struct parse_ctx *p, const char *fmt, const char *a, const char *b)
{
	if (!p->failed) {
		snprintf(p->msg, sizeof(p->msg), fmt, a, b);
		p->failed = 1;
	}
	return 0; /* inih: stop counting this line as good */
}

static int
parse_uint(const char *v, unsigned long long lo, unsigned long long hi, unsigned long long *out)
{
	char *end;

	if (*v < '0' || *v > '9')
		return -1;
	errno = 0;
	*out = strtoull(v, &end, 0);
	return (errno != 0 || *end != '\0' || *out < lo || *out > hi) ? -1 : 0;
}

static int
parse_bool(const char *v, int *out)
{
	static const char *const yes[] = { "on", "yes", "true", "1" };
	static const char *const no[] = { "off", "no", "false", "0" };

	for (unsigned int i = 0; i < 4; i++) {
		if (strcasecmp(v, yes[i]) == 0)
			return *out = 1, 0;
		if (strcasecmp(v, no[i]) == 0)
			return *out = 0, 0;
	}
	return -1;
}

static int
stages_ok(const char *v)
{
	static const char *const names[] = { "parse", "validate", "reassemble", "flow",
					     "respond", "output" };
	char buf[128];
	char *save = NULL;

	if (strlen(v) >= sizeof(buf))
		return 0;
	strcpy(buf, v);
	for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		int found = 0;

		for (unsigned int i = 0; i < 6; i++)
			found |= strcmp(t, names[i]) == 0;
		if (!found)
			return 0;
	}
	return 1;
}

#define UINT_KEY(key, field, type, lo, hi, what)                                         \
	if (strcmp(name, key) == 0) {                                                    \
		unsigned long long x;                                                    \
		if (c->has_##field)                                                      \
			return fail(p, "%s: set twice%s", key, "");                      \
		if (parse_uint(value, lo, hi, &x) < 0)                                   \
			return fail(p, "%s: expected %s", key, what);                    \
		c->field = (type)x;                                                      \
		c->has_##field = 1;                                                      \
		return 1;                                                                \
	}

static int
dataplane_key(struct parse_ctx *p, const char *name, const char *value)
{
	struct rps_config *c = p->cfg;

	UINT_KEY("rx_port", rx_port, uint16_t, 0, 31, "a port id 0..31")
	UINT_KEY("hash_seed", hash_seed, uint32_t, 0, UINT32_MAX, "a 32-bit number")
	UINT_KEY("backlog", backlog, uint32_t, 1, 1u << 24, "1..16777216 packets")
	UINT_KEY("burst", burst, uint16_t, 1, 512, "1..512 packets")
	UINT_KEY("flow_table_size", flow_table_size, uint32_t, 64, 1u << 24, "64..16777216 flows")
	UINT_KEY("stats_interval", stats_interval, unsigned int, 0, 86400, "0..86400 seconds")
	if (strcmp(name, "hash") == 0) {
		if (c->has_hash)
			return fail(p, "%s: set twice%s", name, "");
		if (rps_hash_mode_parse(value, &c->hash_mode) < 0)
			return fail(p, "%s: expected auto, rss or jhash, not '%s'", name, value);
		return c->has_hash = 1;
	}
	if (strcmp(name, "reorder_safe") == 0) {
		if (c->has_reorder_safe)
			return fail(p, "%s: set twice%s", name, "");
		if (parse_bool(value, &c->reorder_safe) < 0)
			return fail(p, "%s: expected on or off, not '%s'", name, value);
		return c->has_reorder_safe = 1;
	}
	if (strcmp(name, "stages") == 0) {
		if (c->has_stages)
			return fail(p, "%s: set twice%s", name, "");
		if (!stages_ok(value))
			return fail(p, "%s: '%s' is not a list of parse, validate, reassemble, flow, "
				    "respond, output", name, value);
		snprintf(c->stages, sizeof(c->stages), "%s", value);
		return c->has_stages = 1;
	}
	return fail(p, "unknown key '%s' in [%s]", name, "dataplane");
}

static int
map_value(struct parse_ctx *p, const char *name, const char *value, struct rps_lcoreset *set,
	  char *text, size_t text_len)
{
	unsigned int bad = 0;
	int rc = rps_lcoreset_parse(value, set, &bad);
	char tmp[32];

	if (rc == -ERANGE) {
		snprintf(tmp, sizeof(tmp), "%u", bad);
		return fail(p, "%s: lcore %s is out of range", name, tmp);
	}
	if (rc < 0)
		return fail(p, "%s: '%s' is not a hex mask (fe, 0xfe, ff,ffffffff) or a list (1-3,5)",
			    name, value);
	snprintf(text, text_len, "%s", value);
	return 1;
}

static int
map_key(struct parse_ctx *p, const char *name, const char *value)
{
	struct rps_config *c = p->cfg;
	unsigned long long q;

	if (strcmp(name, "default") == 0) {
		if (c->has_default_map)
			return fail(p, "%s: set twice%s", name, "");
		if (!map_value(p, name, value, &c->default_map, c->default_map_text,
			       sizeof(c->default_map_text)))
			return 0;
		return c->has_default_map = 1;
	}
	if (strncmp(name, "queue", 5) == 0 && parse_uint(name + 5, 0, RPS_CONFIG_MAX_QUEUES - 1,
							 &q) == 0 && name[5] != '\0') {
		if (c->has_queue_map[q])
			return fail(p, "%s: set twice%s", name, "");
		if (!map_value(p, name, value, &c->queue_map[q], c->queue_map_text[q],
			       sizeof(c->queue_map_text[q])))
			return 0;
		return c->has_queue_map[q] = 1;
	}
	return fail(p, "unknown key '%s' in [map] (default, queue0..queue63)%s", name, "");
}

static int
handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse_ctx *p = user;

	if (p->failed)
		return 0;
	if (value == NULL || *value == '\0')
		return fail(p, "%s: empty value%s", name, "");
	if (*section == '\0')
		return fail(p, "%s: key outside a section ([dataplane] or [map])%s", name, "");
	if (strcmp(section, "dataplane") == 0)
		return dataplane_key(p, name, value);
	if (strcmp(section, "map") == 0)
		return map_key(p, name, value);
	return fail(p, "unknown section [%s]%s", section, "");
}

static int
finish(int line, const char *name, struct parse_ctx *p, char *err, size_t err_len)
{
	if (line == 0 && !p->failed)
		return 0;
	if (line < 0) {
		snprintf(err, err_len, "%s: cannot open: %s", name, strerror(errno ? errno : ENOENT));
		return errno == EACCES ? -EACCES : -ENOENT;
	}
	snprintf(err, err_len, "%s:%d: %s", name, line, p->failed ? p->msg : "syntax error "
		 "(expected [section] or key = value)");
	return -EINVAL;
}

int
rps_config_load(const char *path, struct rps_config *cfg, char *err, size_t err_len)
{
	struct parse_ctx p = { .cfg = cfg };

	memset(cfg, 0, sizeof(*cfg));
	errno = 0;
	return finish(ini_parse(path, handler, &p), path, &p, err, err_len);
}

int
rps_config_parse_string(const char *text, const char *name, struct rps_config *cfg, char *err,
			size_t err_len)
{
	struct parse_ctx p = { .cfg = cfg };

	memset(cfg, 0, sizeof(*cfg));
	return finish(ini_parse_string(text, handler, &p), name, &p, err, err_len);
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
