/* SPDX-License-Identifier: BSD-3-Clause */
/* eal_args.c: EAL's arguments read as far as a one-line message needs (rps_eal_args.h):
 * lcores on CPUs that are not there, hugepage memory that is not there. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rps_eal_args.h"

/* ---- the simple forms of -l, -c and --lcores; -1: not one of them (EAL judges) ---- */

static void
skip_blanks(const char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
}

static int
parse_num(const char **p, unsigned int *v)
{
	unsigned long n = 0;

	skip_blanks(p);
	if (**p < '0' || **p > '9')
		return -1;
	while (**p >= '0' && **p <= '9') {
		n = n * 10 + (unsigned long)(**p - '0');
		if (n >= CPU_SETSIZE)
			return -1;
		(*p)++;
	}
	skip_blanks(p);
	*v = (unsigned int)n;
	return 0;
}

/* N or N-M (either order, as EAL takes it) into @p s */
static int
parse_range(const char **p, cpu_set_t *s)
{
	unsigned int a, b;

	if (parse_num(p, &a) < 0)
		return -1;
	b = a;
	if (**p == '-') {
		(*p)++;
		if (parse_num(p, &b) < 0)
			return -1;
	}
	for (unsigned int i = a < b ? a : b; i <= (a < b ? b : a); i++)
		CPU_SET(i, s);
	return 0;
}

/* ranges separated by ',' up to @p end (not consumed) */
static int
parse_list(const char **p, char end, cpu_set_t *s)
{
	for (;;) {
		if (parse_range(p, s) < 0)
			return -1;
		if (**p == end)
			return 0;
		if (**p != ',')
			return -1;
		(*p)++;
	}
}

/* a number, or a list in brackets */
static int
parse_group(const char **p, cpu_set_t *s)
{
	unsigned int v;

	if (**p != '(') {
		if (parse_num(p, &v) < 0)
			return -1;
		CPU_SET(v, s);
		return 0;
	}
	(*p)++;
	if (parse_list(p, ')', s) < 0)
		return -1;
	(*p)++;
	return 0;
}

/* --lcores: elements LCORES[@CPUS], LCORES a number, a range or a list in brackets; without
 * '@' an lcore runs on the CPU of its number (EAL 22.11's eal_parse_lcores()) */
static int
parse_lcores_map(const char *p, cpu_set_t *lcores, cpu_set_t *want)
{
	while (*p != '\0') {
		cpu_set_t ls;

		CPU_ZERO(&ls);
		if (*p == '(' ? parse_group(&p, &ls) : parse_range(&p, &ls))
			return -1;
		CPU_OR(lcores, lcores, &ls);
		if (*p == '@') {
			p++;
			if (parse_group(&p, want) < 0)
				return -1;
		} else {
			CPU_OR(want, want, &ls);
		}
		if (*p == ',')
			p++;
		else if (*p != '\0')
			return -1;
	}
	return CPU_COUNT(lcores) > 0 ? 0 : -1;
}

static int
parse_coremask(const char *p, cpu_set_t *s)
{
	size_t n;

	skip_blanks(&p);
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	n = strlen(p);
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char c = p[n - 1 - i];
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned int)(c - 'A' + 10);
		else
			return -1;
		for (unsigned int b = 0; b < 4; b++) {
			if (!(d & (1u << b)))
				continue;
			if (4 * i + b >= CPU_SETSIZE)
				return -1;
			CPU_SET(4 * i + b, s);
		}
	}
	return CPU_COUNT(s) > 0 ? 0 : -1;
}

/* "0-1", "0,2-3" */
static void
format_set(char *buf, size_t len, const cpu_set_t *s)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < CPU_SETSIZE && off < len; i++) {
		unsigned int j = i;
		int n;

		if (!CPU_ISSET(i, s))
			continue;
		while (j + 1 < CPU_SETSIZE && CPU_ISSET(j + 1, s))
			j++;
		n = j == i ? snprintf(buf + off, len - off, "%s%u", off ? "," : "", i) :
			snprintf(buf + off, len - off, "%s%u-%u", off ? "," : "", i, j);
		if (n < 0)
			return;
		off += (size_t)n;
		i = j;
	}
}

/* @p s as EAL's --lcores writes a group: "3", or "(1-7)" */
static void
format_group(char *buf, size_t len, const cpu_set_t *s)
{
	char list[256];

	format_set(list, sizeof(list), s);
	snprintf(buf, len, CPU_COUNT(s) > 1 ? "(%s)" : "%s", list);
}

static unsigned int
first_of(const cpu_set_t *s)
{
	unsigned int i = 0;

	while (i < CPU_SETSIZE && !CPU_ISSET(i, s))
		i++;
	return i;
}

/* the --lcores that puts @p lcores on @p cpus: the first lcore (the main one, dpdk-rps's RX
 * lcore) alone on the first CPU, the others together on the rest */
static void
suggest(char *buf, size_t len, const cpu_set_t *lcores, const cpu_set_t *cpus)
{
	const unsigned int l0 = first_of(lcores), c0 = first_of(cpus);
	cpu_set_t lrest, crest;
	char lg[300], cg[300];

	lrest = *lcores;
	CPU_CLR(l0, &lrest);
	crest = *cpus;
	CPU_CLR(c0, &crest);
	if (CPU_COUNT(&lrest) == 0) {
		snprintf(buf, len, "%u@%u", l0, c0);
	} else if (CPU_COUNT(&crest) == 0) {
		format_group(lg, sizeof(lg), lcores);
		snprintf(buf, len, "%s@%u", lg, c0);
	} else {
		format_group(lg, sizeof(lg), &lrest);
		format_group(cg, sizeof(cg), &crest);
		snprintf(buf, len, "%u@%u,%s@%s", l0, c0, lg, cg);
	}
}

/* the value of option @p name at argv[*i] ("NAME V", "NAME=V" for a long one, "NAMEV" for
 * a short one), advancing *i past it; NULL when argv[*i] is not that option */
static const char *
option_value(int argc, char *const *argv, int *i, const char *name)
{
	const char *a = argv[*i];
	const size_t n = strlen(name);

	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '\0') {
		if (*i + 1 >= argc)
			return NULL;
		return argv[++*i];
	}
	if (name[1] == '-')
		return a[n] == '=' ? a + n + 1 : NULL;
	return a + n;
}

int
rps_eal_check_lcores(int argc, char *const *argv, const cpu_set_t *cpus, char *msg, size_t len)
{
	for (int i = 1; i < argc; i++) {
		static const char *const opts[] = { "-l", "-c", "--lcores" };
		cpu_set_t lcores, want, missing;
		char have[256], fix[700];
		const char *opt = NULL, *v = NULL, *val;
		int rc;

		for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]) && v == NULL; k++) {
			opt = opts[k];
			v = option_value(argc, argv, &i, opt);
		}
		if (v == NULL)
			continue;
		val = v;
		CPU_ZERO(&lcores);
		CPU_ZERO(&want);
		if (strcmp(opt, "--lcores") == 0) {
			rc = parse_lcores_map(v, &lcores, &want);
		} else {
			rc = strcmp(opt, "-l") == 0 ? parse_list(&v, '\0', &want) :
						      parse_coremask(v, &want);
			lcores = want;
		}
		if (rc < 0 || CPU_COUNT(cpus) == 0)
			continue; /* EAL judges */
		CPU_XOR(&missing, &want, cpus);
		CPU_AND(&missing, &missing, &want);
		if (CPU_COUNT(&missing) == 0)
			continue;
		format_set(have, sizeof(have), cpus);
		suggest(fix, sizeof(fix), &lcores, cpus);
		snprintf(msg, len, "%s %s: this machine has CPU%s %s; %s --lcores '%s'", opt, val,
			 CPU_COUNT(cpus) > 1 ? "s" : "", have,
			 CPU_COUNT(&lcores) > CPU_COUNT(cpus) ?
			 "on fewer CPUs than lcores use" : "to run the lcores on them use", fix);
		return -1;
	}
	return 0;
}

void
rps_eal_cpus_detected(cpu_set_t *cpus)
{
	CPU_ZERO(cpus);
	for (unsigned int i = 0; i < CPU_SETSIZE; i++) {
		char path[96];

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/topology/core_id", i);
		if (access(path, F_OK) == 0)
			CPU_SET(i, cpus);
	}
}

/* ---- hugepages ---- */

const char *
rps_eal_arg(int argc, char *const *argv, const char *name)
{
	const char *found = NULL;
	const size_t n = strlen(name);

	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], name, n) != 0)
			continue;
		if (argv[i][n] == '=')
			found = argv[i] + n + 1;
		else if (argv[i][n] == '\0')
			found = i + 1 < argc ? argv[i + 1] : argv[i];
	}
	return found;
}

static long
meminfo_value(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p != NULL ? strtol(p + strlen(key), NULL, 10) : -1;
}

void
rps_eal_huge_facts_read(const char *huge_dir, struct rps_huge_facts *f)
{
	char buf[8192], dev[256], mnt[PATH_MAX], type[64], real[PATH_MAX];
	FILE *fp = fopen("/proc/meminfo", "r");
	size_t n = 0;

	f->total = f->free = -1;
	f->mounted = 0;
	f->dir_mounted = huge_dir != NULL ? 0 : -1;
	if (fp != NULL) {
		n = fread(buf, 1, sizeof(buf) - 1, fp);
		fclose(fp);
		buf[n] = '\0';
		f->total = meminfo_value(buf, "HugePages_Total:");
		f->free = meminfo_value(buf, "HugePages_Free:");
	}
	if (huge_dir == NULL || realpath(huge_dir, real) == NULL)
		real[0] = '\0';
	fp = fopen("/proc/mounts", "r");
	if (fp == NULL)
		return;
	while (fgets(buf, sizeof(buf), fp) != NULL) {
		if (sscanf(buf, "%255s %4095s %63s", dev, mnt, type) != 3 ||
		    strcmp(type, "hugetlbfs") != 0)
			continue;
		f->mounted = 1;
		if (huge_dir != NULL && (strcmp(mnt, huge_dir) == 0 || strcmp(mnt, real) == 0))
			f->dir_mounted = 1;
	}
	fclose(fp);
}

int
rps_eal_huge_advice(int argc, char *const *argv, int eal_errno,
		    const struct rps_huge_facts *f, char *msg, size_t len)
{
	const char *dir = rps_eal_arg(argc, argv, "--huge-dir");
	char why[PATH_MAX + 64];
	int unmounted;

	if ((eal_errno != EACCES && eal_errno != ENOMEM) ||
	    rps_eal_arg(argc, argv, "--no-huge") != NULL)
		return 0;
	if (dir != NULL && f->dir_mounted == 0)
		snprintf(why, sizeof(why), "--huge-dir %s is not a hugetlbfs mount", dir);
	else if (f->total == 0)
		snprintf(why, sizeof(why), "none reserved: HugePages_Total 0");
	else if (f->free == 0)
		snprintf(why, sizeof(why), "none of the %ld reserved is free", f->total);
	else if (!f->mounted)
		snprintf(why, sizeof(why), "no hugetlbfs mounted");
	else if (eal_errno == ENOMEM)
		snprintf(why, sizeof(why), "%ld free, fewer than -m or --socket-mem asks", f->free);
	else
		snprintf(why, sizeof(why), "%s", strerror(eal_errno));
	/* EAL 22.11 uses the hugepages of a hugetlbfs mount (--huge-dir's, or any) */
	unmounted = dir != NULL ? f->dir_mounted == 0 : f->mounted == 0;
	snprintf(msg, len, "EAL found no hugepage memory to use (%s): run with --no-huge -m 512 "
		 "(EAL options, before --), or reserve 2 MiB hugepages: echo 512 > "
		 "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages%s%s", why,
		 unmounted ? " && mount -t hugetlbfs nodev " : "",
		 unmounted ? (dir != NULL ? dir : "/dev/hugepages") : "");
	return 1;
}
