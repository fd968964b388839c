/* SPDX-License-Identifier: BSD-3-Clause */
/* test_safepath.c: rps_safepath_check(), sshd's StrictModes for the config file and every
 * folder and symlink hop on the way to it (lib/control/safepath.c). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "rps_safepath.h"
#include "test_common.h"

static char top[256]; /* a private folder (0700) of this test */
static char why[1024];

static const char *
at(const char *rel)
{
	static char p[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", top, rel);
	return p[i];
}

static void
make_file(const char *rel, mode_t mode)
{
	FILE *f = fopen(at(rel), "w");

	CU_ASSERT_FATAL(f != NULL);
	fputs("[dataplane]\n", f);
	fclose(f);
	CU_ASSERT_FATAL(chmod(at(rel), mode) == 0);
}

/* rps_safepath_check(@p rel) returns @p rc and its reasons contain @p want ("" for none) */
static void
expect(const char *rel, int rc, const char *want)
{
	int got = rps_safepath_check(at(rel), why, sizeof(why));

	CU_ASSERT_EQUAL(got, rc);
	if (*want == '\0') {
		CU_ASSERT_STRING_EQUAL(why, "");
	} else {
		CU_ASSERT_PTR_NOT_NULL(strstr(why, want));
	}
	if (got != rc || (*want == '\0' ? why[0] != '\0' : strstr(why, want) == NULL))
		printf("\n  %s: got %d '%s', expected %d '%s'\n", rel, got, why, rc, want);
}

static void
setup_tree(void)
{
	char t[] = "/tmp/rps-safepath-XXXXXX";

	CU_ASSERT_FATAL(mkdtemp(t) != NULL);
	snprintf(top, sizeof(top), "%s", t);
	CU_ASSERT_FATAL(mkdir(at("a"), 0755) == 0);
	CU_ASSERT_FATAL(mkdir(at("a/b"), 0755) == 0);
	make_file("a/b/rps.conf", 0644);
}

static void
remove_tree(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	CU_ASSERT(system(cmd) == 0);
}

/* every folder from / counts: a grandparent writable by others could rename b away */
static void
test_folders(void)
{
	char want[PATH_MAX + 64];

	setup_tree();
	expect("a/b/rps.conf", 0, "");
	CU_ASSERT_FATAL(chmod(at("a"), 0777) == 0);
	snprintf(want, sizeof(want), "folder %s is writable by others (mode 0777)", at("a"));
	expect("a/b/rps.conf", -EPERM, want);
	CU_ASSERT_FATAL(chmod(at("a"), 0775) == 0);
	snprintf(want, sizeof(want), "folder %s is writable by its group (mode 0775)", at("a"));
	expect("a/b/rps.conf", -EPERM, want);
	/* sticky, as /tmp: others may add names, not replace ours */
	CU_ASSERT_FATAL(chmod(at("a"), 01777) == 0);
	expect("a/b/rps.conf", 0, "");
	CU_ASSERT_FATAL(chmod(at("a"), 0755) == 0);
	/* the file itself */
	CU_ASSERT_FATAL(chmod(at("a/b/rps.conf"), 0666) == 0);
	snprintf(want, sizeof(want), "file %s is writable by others (mode 0666)",
		 at("a/b/rps.conf"));
	expect("a/b/rps.conf", -EPERM, want);
	CU_ASSERT_FATAL(chmod(at("a/b/rps.conf"), 0644) == 0);
	/* "." and ".." walk the real folders */
	expect("a/./b/../b/rps.conf", 0, "");
	CU_ASSERT_FATAL(chmod(at("a"), 0777) == 0);
	expect("a/b/../b/./rps.conf", -EPERM, "is writable by others (mode 0777)");
	CU_ASSERT_FATAL(chmod(at("a"), 0755) == 0);
	/* another user's folder or file (only root can make one) */
	if (geteuid() == 0) {
		CU_ASSERT_FATAL(chown(at("a"), 65534, 65534) == 0);
		snprintf(want, sizeof(want), "folder %s is owned by uid 65534, neither root nor us",
			 at("a"));
		expect("a/b/rps.conf", -EPERM, want);
		CU_ASSERT_FATAL(chown(at("a"), 0, 0) == 0);
	}
	remove_tree();
}

/* each symlink hop: where the link is, and where it leads */
static void
test_symlinks(void)
{
	char want[PATH_MAX + 64];

	setup_tree();
	CU_ASSERT_FATAL(mkdir(at("open"), 0777) == 0);
	CU_ASSERT_FATAL(chmod(at("open"), 0777) == 0);
	CU_ASSERT_FATAL(mkdir(at("safe"), 0755) == 0);
	/* a link in a private folder to a file in an open one */
	make_file("open/rps.conf", 0644);
	CU_ASSERT_FATAL(symlink("../open/rps.conf", at("safe/to-open.conf")) == 0);
	snprintf(want, sizeof(want), "folder %s is writable by others (mode 0777)", at("open"));
	expect("safe/to-open.conf", -EPERM, want);
	/* a link in an open folder to a private file: anyone can point it elsewhere */
	CU_ASSERT_FATAL(symlink(at("a/b/rps.conf"), at("open/to-safe.conf")) == 0);
	expect("open/to-safe.conf", -EPERM, want);
	/* two hops, the second relative, through a folder link, all private: safe */
	CU_ASSERT_FATAL(symlink("a/b", at("bdir")) == 0);
	CU_ASSERT_FATAL(symlink("bdir/rps.conf", at("hop1.conf")) == 0);
	CU_ASSERT_FATAL(symlink("hop1.conf", at("safe/../hop2.conf")) == 0);
	expect("hop2.conf", 0, "");
	/* ...and the folder the chain ends in opened: found through the hops */
	CU_ASSERT_FATAL(chmod(at("a/b"), 0757) == 0);
	snprintf(want, sizeof(want), "folder %s is writable by others (mode 0757)", at("a/b"));
	expect("hop2.conf", -EPERM, want);
	CU_ASSERT_FATAL(chmod(at("a/b"), 0755) == 0);
	/* the Kubernetes ConfigMap: FILE -> ..data/FILE, ..data -> ..TS */
	CU_ASSERT_FATAL(mkdir(at("cm"), 0755) == 0);
	CU_ASSERT_FATAL(mkdir(at("cm/..2026_12_05"), 0755) == 0);
	make_file("cm/..2026_12_05/rps.conf", 0644);
	CU_ASSERT_FATAL(symlink("..2026_12_05", at("cm/..data")) == 0);
	CU_ASSERT_FATAL(symlink("..data/rps.conf", at("cm/rps.conf")) == 0);
	expect("cm/rps.conf", 0, "");
	CU_ASSERT_FATAL(chmod(at("cm/..2026_12_05"), 0777) == 0);
	expect("cm/rps.conf", -EPERM, "..2026_12_05 is writable by others (mode 0777)");
	/* a folder reported once, though the walk passes it at every hop */
	CU_ASSERT_FATAL(chmod(at("a"), 0777) == 0);
	CU_ASSERT_EQUAL(rps_safepath_check(at("hop2.conf"), why, sizeof(why)), -EPERM);
	snprintf(want, sizeof(want), "folder %s is writable", at("a"));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, want));
	CU_ASSERT_PTR_NULL(strstr(strstr(why, want) + 1, want));
	CU_ASSERT_FATAL(chmod(at("a"), 0755) == 0);
	/* a loop */
	CU_ASSERT_FATAL(symlink("loop2", at("loop1")) == 0);
	CU_ASSERT_FATAL(symlink("loop1", at("loop2")) == 0);
	expect("loop1", -ELOOP, "Too many levels of symbolic links");
	remove_tree();
}

static void
test_errors(void)
{
	char cwd[PATH_MAX];

	setup_tree();
	expect("a/none.conf", -ENOENT, "none.conf: No such file or directory");
	expect("a/b/rps.conf/x", -ENOTDIR, "Not a directory");
	CU_ASSERT_EQUAL(rps_safepath_check("", why, sizeof(why)), -ENOENT);
	/* relative to the working directory */
	CU_ASSERT_FATAL(getcwd(cwd, sizeof(cwd)) != NULL);
	CU_ASSERT_FATAL(chdir(at("a")) == 0);
	CU_ASSERT_EQUAL(rps_safepath_check("b/rps.conf", why, sizeof(why)), 0);
	CU_ASSERT_FATAL(chmod(at("a"), 0777) == 0);
	CU_ASSERT_EQUAL(rps_safepath_check("b/rps.conf", why, sizeof(why)), -EPERM);
	CU_ASSERT_FATAL(chdir(cwd) == 0);
	/* a reason buffer too small truncates, never overflows */
	{
		char small[24];

		CU_ASSERT_EQUAL(rps_safepath_check(at("a/b/rps.conf"), small, sizeof(small)),
				-EPERM);
		CU_ASSERT_EQUAL(strlen(small), sizeof(small) - 1);
	}
	remove_tree();
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "folders", test_folders },
		{ "symlinks", test_symlinks },
		{ "errors", test_errors },
		CU_TEST_INFO_NULL,
	};

	return ut_main(argc, argv, "safepath", tests);
}
