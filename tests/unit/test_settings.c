/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_settings.c: the settings table (lib/control/settings.c) is sound, and the command line
 * (app/options.c) and the configuration file (lib/control/config.c), both derived from it,
 * accept and refuse the same values of every setting they share, with the same result.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "rps_config.h"
#include "rps_number.h"
#include "rps_respond.h"
#include "rps_settings.h"
#include "test_common.h"

static int
is_number_type(const struct rps_setting *s)
{
	return s->type == RPS_SETTING_U32 || s->type == RPS_SETTING_POW2;
}

static void
test_table_entries(void)
{
	for (unsigned int i = 0; i < RPS_SET_NB; i++) {
		const struct rps_setting *s = &rps_settings[i];

		CU_ASSERT_PTR_NOT_NULL_FATAL(s->name);
		if (s->flag == NULL && s->key == NULL)
			CU_FAIL("a setting with neither flag nor key");
		/* its name is its flag, or its key when it has no flag */
		CU_ASSERT_STRING_EQUAL(s->name, s->flag != NULL ? s->flag : s->key);
		CU_ASSERT_PTR_NOT_NULL(s->help);
		CU_ASSERT_PTR_NOT_NULL(s->doc);
		CU_ASSERT_PTR_NOT_NULL(s->def);
		if (s->help != NULL && (strchr(s->help, '\n') != NULL || strlen(s->help) < 10))
			CU_FAIL("--help text: one line, not empty");
		for (const char *p = s->doc; p != NULL && *p != '\0'; p++)
			if ((unsigned char)*p >= 0x80 || *p == '\n')
				CU_FAIL("doc: ASCII on one line (the man page's mdoc is generated from it)");
		if (s->key != NULL) {
			CU_ASSERT_PTR_NOT_NULL_FATAL(s->section);
			CU_ASSERT(strcmp(s->section, "dataplane") == 0 || strcmp(s->section, "map") == 0);
			CU_ASSERT_PTR_NOT_NULL(s->syntax);
			CU_ASSERT(s->when == RPS_SETTING_LIVE || s->when == RPS_SETTING_RESTART);
			CU_ASSERT_PTR_EQUAL(rps_setting_by_key(s->section, s->key), s);
		} else {
			CU_ASSERT_EQUAL(s->when, RPS_SETTING_START); /* command line only */
		}
		if (s->flag != NULL)
			CU_ASSERT_PTR_EQUAL(rps_setting_by_flag(s->flag), s);
		/* a switch has no argument; only a switch has none but for inner and symmetric,
		 * a boolean and an enum in the file */
		if (s->type == RPS_SETTING_SWITCH) {
			CU_ASSERT_PTR_NULL(s->metavar);
			CU_ASSERT_PTR_NULL(s->key);
		} else if (s->flag != NULL && s->metavar == NULL) {
			CU_ASSERT(i == RPS_SET_INNER || i == RPS_SET_SYMMETRIC);
		}
		if (is_number_type(s)) {
			CU_ASSERT(s->lo <= s->hi);
			CU_ASSERT(s->hi < (UINT64_C(1) << 60)); /* rps_number_parse()'s limit */
			CU_ASSERT(s->hi <= UINT32_MAX);
			CU_ASSERT_PTR_NOT_NULL(s->what);
			CU_ASSERT_PTR_NOT_NULL(s->unit);
		}
		if (s->type == RPS_SETTING_POW2)
			CU_ASSERT((s->lo & (s->lo - 1)) == 0 && (s->hi & (s->hi - 1)) == 0);
		if (s->type == RPS_SETTING_ENUM)
			CU_ASSERT_PTR_NOT_NULL(s->values);
		if ((s->flags & RPS_SETTING_FILE_WORD) != 0)
			CU_ASSERT(s->word != NULL && s->key != NULL);
	}
}

static void
test_table_unique(void)
{
	for (unsigned int i = 0; i < RPS_SET_NB; i++)
		for (unsigned int j = i + 1; j < RPS_SET_NB; j++) {
			const struct rps_setting *a = &rps_settings[i], *b = &rps_settings[j];

			if (strcmp(a->name, b->name) == 0)
				CU_FAIL("two settings with one name");
			if (a->flag != NULL && b->flag != NULL && strcmp(a->flag, b->flag) == 0)
				CU_FAIL("two settings with one flag");
			if (a->key != NULL && b->key != NULL && strcmp(a->key, b->key) == 0 &&
			    strcmp(a->section, b->section) == 0)
				CU_FAIL("two settings with one key");
		}
}

/* A default that reads as a value ("1000", "0 (off)", "on", "auto") is one the setting
 * accepts, and it is the parser's default (rps_options_parse without arguments). */
static void
test_table_defaults(void)
{
	struct rps_options o;
	char *argv[] = { "dpdk-rps", NULL };
	unsigned int numeric = 0;

	CU_ASSERT_EQUAL_FATAL(rps_options_parse(1, argv, &o, stderr), 0);
	for (unsigned int i = 0; i < RPS_SET_NB; i++) {
		const struct rps_setting *s = &rps_settings[i];
		char word[32], why[160];
		int64_t v = 0, have = 0;

		snprintf(word, sizeof(word), "%.*s", (int)strcspn(s->def, " "), s->def);
		if (is_number_type(s) && word[0] >= '0' && word[0] <= '9') {
			numeric++;
			if (rps_setting_parse(s, word, 0, &v, why, sizeof(why)) != 0) {
				fprintf(stderr, "%s: default '%s' refused: %s\n", s->name, s->def, why);
				CU_FAIL("a default out of range");
				continue;
			}
		} else if (rps_setting_parse(s, word, s->key != NULL, &v, why, sizeof(why)) != 0) {
			continue; /* a description: "random", "the port's own" */
		}
		if (rps_options_value(&o, (enum rps_setting_id)i, &have) == 0 && have != v) {
			fprintf(stderr, "%s: table default %s, parser %" PRId64 "\n", s->name, s->def,
				have);
			CU_FAIL("the parser's default is not the table's");
		}
	}
	CU_ASSERT(numeric >= 15);
	CU_ASSERT_EQUAL(atoi(rps_settings[RPS_SET_RESPOND_RATE].def), RPS_RESPOND_RATE_DEFAULT);
	CU_ASSERT_EQUAL(atoi(rps_settings[RPS_SET_RESPOND_BURST].def), RPS_RESPOND_BURST_DEFAULT);
	CU_ASSERT_STRING_EQUAL(o.stages_text, rps_settings[RPS_SET_STAGES].def);
	CU_ASSERT_EQUAL(o.tx_port, -1);
	CU_ASSERT_EQUAL(o.backpressure, -1);
	CU_ASSERT_EQUAL(o.reorder_safe, 1);
	CU_ASSERT_EQUAL(o.flow_timeout_ms, 30000);
}

/* The messages come from the table, with the option or FILE:LINE: key in front. */
static void
test_messages(void)
{
	char why[160], err[512];
	struct rps_config c;
	int64_t v;

	CU_ASSERT_EQUAL(rps_setting_parse(&rps_settings[RPS_SET_BACKLOG], "0", 0, &v, why,
					  sizeof(why)), -ERANGE);
	CU_ASSERT_STRING_EQUAL(why, "expected 1..16777216 packets");
	CU_ASSERT_EQUAL(rps_setting_parse(&rps_settings[RPS_SET_BACKLOG], "065536", 0, &v, why,
					  sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "not a number (" RPS_NUMBER_SYNTAX ")");
	CU_ASSERT_EQUAL(rps_setting_parse(&rps_settings[RPS_SET_BACKLOG], "065536", 1, &v, why,
					  sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "expected 1..16777216 packets");
	CU_ASSERT_EQUAL(rps_setting_parse(&rps_settings[RPS_SET_TABLE_SIZE], "24", 0, &v, why,
					  sizeof(why)), -ERANGE);
	CU_ASSERT_STRING_EQUAL(why, "expected a power of two 1..4096 buckets");
	CU_ASSERT_EQUAL(rps_setting_parse(&rps_settings[RPS_SET_HASH], "crc", 0, &v, why,
					  sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "expected auto, rss, jhash or toeplitz");
	CU_ASSERT_EQUAL(rps_setting_parse(&rps_settings[RPS_SET_MBUFS], "1", 1, &v, why,
					  sizeof(why)), -ENOTSUP); /* no key */
	CU_ASSERT_EQUAL(rps_config_parse_string("[dataplane]\ntx_port = 32\n", "t.conf", &c, err,
						sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.conf:2: tx_port: expected a port id 0..31 or none, not '32'");
}

/* Whether the command line takes --flag @p val, and what it sets. */
static int
cli_value(const struct rps_setting *s, const char *val, int64_t *v)
{
	struct rps_options o;
	char flag[64];
	char *argv[] = { "dpdk-rps", flag, (char *)(uintptr_t)val, NULL };
	FILE *null = fopen("/dev/null", "w");
	int rc;

	snprintf(flag, sizeof(flag), "--%s", s->flag);
	rc = rps_options_parse(3, argv, &o, null != NULL ? null : stderr);
	if (null != NULL)
		fclose(null);
	if (rc < 0)
		return -1;
	return rps_options_value(&o, rps_setting_id(s), v) == 0 ? 0 : -2;
}

/* Whether the file takes "key = @p val", and what it sets. */
static int
file_value(const struct rps_setting *s, const char *val, int64_t *v)
{
	struct rps_config c;
	char text[256], err[512];

	snprintf(text, sizeof(text), "[%s]\n%s = %s\n", s->section, s->key, val);
	if (rps_config_parse_string(text, "t.conf", &c, err, sizeof(err)) < 0)
		return -1;
	return rps_config_value(&c, rps_setting_id(s), v) == 0 ? 0 : -2;
}

/*
 * Every setting of both sides with a value the table checks: each boundary, the number
 * syntax's corner cases and the words, fed to both. They must agree, but for what the table
 * says differs: a boolean's file synonyms (yes, TRUE, 1...), the file's word (tx_port = none).
 */
static void
test_cli_and_file_agree(void)
{
	static const char *const fixed[] = {
		"0", "1", "2", "0x10", "0X1f", "010", "065536", "00", "0x", "abc", "1a", "-1", "+1",
		"1.5", "4294967295", "4294967296", "18446744073709551616", "on", "off", "On", "OFF",
		"yes", "no", "true", "false", "auto", "AUTO", "rss", "jhash", "toeplitz", "xor",
		"sort", "none", "None",
	};
	unsigned int compared = 0;

	for (unsigned int i = 0; i < RPS_SET_NB; i++) {
		const struct rps_setting *s = &rps_settings[i];
		char vals[RTE_DIM(fixed) + 8][32];
		unsigned int nb = 0;

		if (s->flag == NULL || s->key == NULL || s->metavar == NULL ||
		    s->type == RPS_SETTING_TEXT)
			continue;
		for (unsigned int k = 0; k < RTE_DIM(fixed); k++)
			snprintf(vals[nb++], sizeof(vals[0]), "%s", fixed[k]);
		if (is_number_type(s)) {
			/* lo - 1 of 0 wraps to 2^64 - 1: out of range too */
			const uint64_t edge[] = { s->lo - 1, s->lo, s->lo + 1, s->hi - 1, s->hi,
						  s->hi + 1 };

			for (unsigned int k = 0; k < RTE_DIM(edge); k++)
				snprintf(vals[nb++], sizeof(vals[0]), "%" PRIu64, edge[k]);
			snprintf(vals[nb++], sizeof(vals[0]), "0x%" PRIx64, s->hi);
			snprintf(vals[nb++], sizeof(vals[0]), "0x%" PRIx64, s->hi + 1);
		}
		for (unsigned int k = 0; k < nb; k++) {
			const char *val = vals[k];
			int64_t cv = 0, fv = 0;
			int crc = cli_value(s, val, &cv), frc = file_value(s, val, &fv);
			int expect_file_only =
				(s->type == RPS_SETTING_BOOL &&
				 (strcasecmp(val, "yes") == 0 || strcasecmp(val, "no") == 0 ||
				  strcasecmp(val, "true") == 0 || strcasecmp(val, "false") == 0 ||
				  strcmp(val, "1") == 0 || strcmp(val, "0") == 0 ||
				  strcasecmp(val, "on") == 0 || strcasecmp(val, "off") == 0)) ||
				((s->flags & RPS_SETTING_FILE_WORD) && strcmp(val, s->word) == 0);

			compared++;
			if (crc == -2 || frc == -2) {
				fprintf(stderr, "%s = %s: accepted but no value to compare\n", s->name,
					val);
				CU_FAIL("a value without a field");
				continue;
			}
			if (crc == 0 && frc == 0 && cv != fv) {
				fprintf(stderr, "%s = %s: command line %" PRId64 ", file %" PRId64 "\n",
					s->name, val, cv, fv);
				CU_FAIL("the two sides read one value differently");
			} else if (crc != frc && !(expect_file_only && frc == 0)) {
				fprintf(stderr, "%s = %s: command line %s, file %s\n", s->name, val,
					crc == 0 ? "accepts" : "refuses", frc == 0 ? "accepts" : "refuses");
				CU_FAIL("the two sides disagree");
			}
		}
	}
	CU_ASSERT(compared > 500);
}

/* A switch on the command line (--inner, --symmetric) is "on" in the file. */
static void
test_switches(void)
{
	struct rps_options o;
	struct rps_config c;
	char err[256];
	char *argv[] = { "dpdk-rps", "--inner", "--symmetric", NULL };
	int64_t v = -1;

	CU_ASSERT_EQUAL_FATAL(rps_options_parse(3, argv, &o, stderr), 0);
	CU_ASSERT_EQUAL_FATAL(rps_config_parse_string("[dataplane]\ninner = on\nsymmetric = on\n",
						      "t.conf", &c, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(rps_config_value(&c, RPS_SET_INNER, &v), 0);
	CU_ASSERT_EQUAL(v, o.inner);
	CU_ASSERT_EQUAL(rps_config_value(&c, RPS_SET_SYMMETRIC, &v), 0);
	CU_ASSERT_EQUAL(v, o.symmetric);
	CU_ASSERT_EQUAL(rps_config_value(&c, RPS_SET_BACKLOG, &v), -ENOENT);
	CU_ASSERT_EQUAL(rps_config_value(&c, RPS_SET_STAGES, &v), -ENOTSUP);
}

/* The generated docs: every format is there, every setting in it. */
static void
test_docs(void)
{
	static const char *const formats[] = { "markdown", "mdoc", "mdoc-conf" };

	for (unsigned int f = 0; f < RTE_DIM(formats); f++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);

		CU_ASSERT_PTR_NOT_NULL_FATAL(out);
		CU_ASSERT_EQUAL(rps_settings_write_doc(out, formats[f]), 0);
		fclose(out);
		for (unsigned int i = 0; i < RPS_SET_NB; i++) {
			const struct rps_setting *s = &rps_settings[i];
			char want[80];

			if (f == 2 && (s->key == NULL || strcmp(s->section, "dataplane") != 0))
				continue;
			if (f != 2 && s->flag == NULL) /* file only: in the file's table */
				continue;
			if (f == 2)
				snprintf(want, sizeof(want), ".It Cm %s No =", s->key);
			else if (f == 1)
				snprintf(want, sizeof(want), ".It Fl \\-%s", s->flag);
			else
				snprintf(want, sizeof(want), "| `--%s", s->flag);
			if (strstr(buf, want) == NULL) {
				fprintf(stderr, "%s: no '%s'\n", formats[f], want);
				CU_FAIL("a setting missing from the docs");
			}
		}
		free(buf);
	}
	CU_ASSERT_EQUAL(rps_settings_write_doc(stdout, "html"), -EINVAL);
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "table_entries", test_table_entries },
		{ "table_unique", test_table_unique },
		{ "table_defaults", test_table_defaults },
		{ "messages", test_messages },
		{ "cli_and_file_agree", test_cli_and_file_agree },
		{ "switches", test_switches },
		{ "docs", test_docs },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "settings", tests);
}
