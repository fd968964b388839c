/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * settings_doc.c: the settings table (rps_settings.h) as documentation: the README's option
 * table (markdown), dpdk-rps(8)'s option list and dpdk-rps.conf(5)'s key list (mdoc). The
 * README and the man pages hold this output between marker lines; tools/settings_docs.py
 * rewrites them, and tests/integration/test_docs.py and test_man.py check that they match.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rps_settings.h"

/* Markdown: a table cell, '|' escaped. */
static void
md_cell(FILE *out, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '|')
			fputc('\\', out);
		fputc(*s, out);
	}
}

static void
write_markdown(FILE *out)
{
	fputs("| option | config key | default | meaning |\n|---|---|---|---|\n", out);
	for (unsigned int i = 0; i < RPS_SET_NB; i++) {
		const struct rps_setting *s = &rps_settings[i];

		fputs("| ", out);
		if (s->flag != NULL) {
			fprintf(out, "`--%s%s", s->flag, s->metavar ? " " : "");
			md_cell(out, s->metavar ? s->metavar : "");
			fputs("`", out);
		}
		fputs(" | ", out);
		if (s->key != NULL)
			fprintf(out, "`%s%s` (%s)", strcmp(s->section, "dataplane") == 0 ? "" : "[map] ",
				s->key, rps_setting_when_name(s->when));
		fputs(" | ", out);
		md_cell(out, s->def);
		fputs(" | ", out);
		md_cell(out, s->doc);
		if (s->type == RPS_SETTING_U32 || s->type == RPS_SETTING_POW2) {
			char range[160];

			rps_setting_range(s, 0, range, sizeof(range));
			fprintf(out, " (%s)", range);
		}
		fputs(" |\n", out);
	}
}

/*
 * mdoc text from the table's markdown: `code` becomes a macro line (.Fl for an option,
 * .Ql otherwise) with the punctuation around it as delimiters, a link becomes its text (a
 * parenthesised link to the README is left out), and each sentence starts a line.
 */
struct mdoc {
	FILE *out;
	int col;   /* characters on the current text line, 0: at a line start */
	int space; /* a blank is due before the next character of this line */
	int upper; /* the next letter starts the text: a capital */
};

static void
mdoc_nl(struct mdoc *m)
{
	if (m->col > 0)
		fputc('\n', m->out);
	m->col = 0;
	m->space = 0;
}

/* Plain text, @p n bytes of @p s. */
static void
mdoc_text(struct mdoc *m, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == ' ') {
			size_t w = 0;

			while (i + 1 + w < n && s[i + 1 + w] != ' ')
				w++;
			m->space = m->col > 0;
			if (m->col + 1 + (int)w > 78) /* lines of at most 78 characters */
				mdoc_nl(m);
			continue;
		}
		if (m->space) {
			fputc(' ', m->out);
			m->col++;
		}
		m->space = 0;
		if (m->upper && isalpha((unsigned char)c))
			c = (char)toupper((unsigned char)c);
		m->upper = 0;
		if (m->col == 0 && (c == '.' || c == '\''))
			fputs("\\&", m->out);
		if (c == '\\')
			fputs("\\e", m->out);
		else
			fputc(c, m->out);
		m->col++;
		/* a new sentence on a new line */
		if (c == '.' && i + 1 < n && s[i + 1] == ' ')
			mdoc_nl(m);
	}
}

static int
is_delim(char c)
{
	return c == ',' || c == '.' || c == ';' || c == ':' || c == ')';
}

/* One argument of a macro line, quoted when it has blanks, escaped when it is punctuation. */
static void
mdoc_arg(FILE *out, const char *s, size_t n)
{
	if (n == 1 && (ispunct((unsigned char)*s)))
		fputs("\\&", out);
	if (memchr(s, ' ', n) != NULL)
		fprintf(out, " \"%.*s\"", (int)n, s);
	else
		fprintf(out, " %.*s", (int)n, s);
}

/* `code`: @p n bytes; @p open: an opening '(' before it; @p close: what follows it. */
static void
mdoc_code(struct mdoc *m, const char *s, size_t n, int open, const char *close, size_t nclose)
{
	mdoc_nl(m);
	m->upper = 0;
	if (n > 2 && s[0] == '-' && s[1] == '-') {
		const char *sp = memchr(s, ' ', n);
		size_t w = sp != NULL ? (size_t)(sp - s) : n;

		fprintf(m->out, ".Fl%s \\-%.*s", open ? " (" : "", (int)(w - 2), s + 2);
		if (sp != NULL) {
			fputs(" Cm", m->out);
			mdoc_arg(m->out, sp + 1, n - w - 1);
		}
	} else {
		fprintf(m->out, ".Ql%s", open ? " (" : "");
		fputs(" ", m->out);
		m->col = 0;
		if (n == 1 && ispunct((unsigned char)*s))
			fputs("\\&", m->out);
		if (memchr(s, ' ', n) != NULL)
			fprintf(m->out, "\"%.*s\"", (int)n, s);
		else
			fprintf(m->out, "%.*s", (int)n, s);
	}
	for (size_t i = 0; i < nclose; i++)
		fprintf(m->out, " %c", close[i]);
	fputc('\n', m->out);
	m->col = 0;
}

static void
mdoc_markdown(struct mdoc *m, const char *s)
{
	while (*s != '\0') {
		const char *tick = strchr(s, '`'), *link = strchr(s, '[');
		const char *next = tick;

		if (link != NULL && (next == NULL || link < next))
			next = link;
		if (next == NULL) {
			mdoc_text(m, s, strlen(s));
			break;
		}
		if (next == link) {
			const char *mid = strstr(link, "](");
			const char *end = mid != NULL ? strchr(mid, ')') : NULL;

			if (mid == NULL || end == NULL) {
				mdoc_text(m, s, (size_t)(link - s) + 1);
				s = link + 1;
				continue;
			}
			/* " ([text](#x))": a pointer into the README, not for the man page */
			if (link - s >= 2 && link[-1] == '(' && link[-2] == ' ' && end[1] == ')') {
				mdoc_text(m, s, (size_t)(link - s) - 2);
				s = end + 2;
				continue;
			}
			mdoc_text(m, s, (size_t)(link - s));
			mdoc_text(m, link + 1, (size_t)(mid - link) - 1);
			s = end + 1;
			continue;
		}
		{
			const char *end = strchr(tick + 1, '`');
			const char *after;
			size_t before = (size_t)(tick - s), nclose = 0;
			int open = 0;

			if (end == NULL) {
				mdoc_text(m, s, strlen(s));
				break;
			}
			if (before > 0 && tick[-1] == '(') {
				open = 1;
				before--;
			}
			mdoc_text(m, s, before);
			after = end + 1;
			while (is_delim(after[nclose]) &&
			       (after[nclose + 1] == '\0' || after[nclose + 1] == ' ' ||
				is_delim(after[nclose + 1])))
				nclose++;
			mdoc_code(m, tick + 1, (size_t)(end - tick - 1), open, after, nclose);
			s = after + nclose;
		}
	}
	mdoc_nl(m);
}

/* "on|off" as .Cm words, "N" or "A[/LEN]" as .Ar. */
static void
mdoc_syntax(FILE *out, const char *syntax)
{
	if (strchr(syntax, '|') != NULL && islower((unsigned char)syntax[0])) {
		fputs(" Cm ", out);
		for (const char *p = syntax; *p != '\0'; p++)
			if (*p == '|')
				fputs(" | ", out);
			else
				fputc(*p, out);
	} else if (strchr(syntax, '|') != NULL) { /* "P|none" */
		const char *bar = strchr(syntax, '|');

		fprintf(out, " Ar %.*s | Cm %s", (int)(bar - syntax), syntax, bar + 1);
	} else {
		fprintf(out, " Ar %s", syntax);
	}
}

static void
write_mdoc_options(FILE *out)
{
	struct mdoc m = { out, 0, 0, 0 };
	char doc[2048];

	for (unsigned int i = 0; i < RPS_SET_NB; i++) {
		const struct rps_setting *s = &rps_settings[i];

		if (s->flag == NULL)
			continue;
		fprintf(out, ".It Fl \\-%s", s->flag);
		if (s->metavar != NULL)
			mdoc_syntax(out, s->metavar);
		fputc('\n', out);
		if (s->type == RPS_SETTING_U32 || s->type == RPS_SETTING_POW2) {
			char range[160];

			rps_setting_range(s, 0, range, sizeof(range));
			snprintf(doc, sizeof(doc), "%s. Range: %s.", s->doc, range);
		} else {
			snprintf(doc, sizeof(doc), "%s.", s->doc);
		}
		m.upper = 1;
		mdoc_markdown(&m, doc);
		if (s->def[0] != '\0')
			fprintf(out, "Default: %s.\n", s->def);
		if (s->key != NULL)
			fprintf(out, "Configuration key\n.Cm %s\n.Pq %s .\n", s->key,
				rps_setting_when_name(s->when));
	}
}

static void
write_mdoc_keys(FILE *out)
{
	for (unsigned int i = 0; i < RPS_SET_NB; i++) {
		const struct rps_setting *s = &rps_settings[i];
		char range[160];

		if (s->key == NULL || strcmp(s->section, "dataplane") != 0)
			continue;
		fprintf(out, ".It Cm %s No =", s->key);
		mdoc_syntax(out, s->syntax);
		fprintf(out, "\n%s.\n", s->when == RPS_SETTING_LIVE ? "Live" : "Restart");
		rps_setting_range(s, 1, range, sizeof(range));
		fprintf(out, "As\n.Fl \\-%s%s\n", s->flag, range[0] != '\0' ? " :" : " .");
		if (range[0] != '\0')
			fprintf(out, "%s.\n", range);
		fprintf(out, "Default: %s.\n", s->def);
	}
}

int
rps_settings_write_doc(FILE *out, const char *format)
{
	if (strcmp(format, "markdown") == 0)
		write_markdown(out);
	else if (strcmp(format, "mdoc") == 0)
		write_mdoc_options(out);
	else if (strcmp(format, "mdoc-conf") == 0)
		write_mdoc_keys(out);
	else
		return -EINVAL;
	return 0;
}
