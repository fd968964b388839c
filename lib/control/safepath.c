/* SPDX-License-Identifier: BSD-3-Clause */
/* safepath.c: who else could change what a path names (the file, its folders, each symlink hop). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rps_safepath.h"

#define SAFEPATH_HOPS_MAX 40 /* as Linux's MAXSYMLINKS */

void
rps_safepath_add_reason(char *why, size_t len, const char *what, const char *path,
			const struct stat *st)
{
	char r[PATH_MAX + 96];
	size_t pos = strlen(why);
	uid_t me = geteuid();

	if ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0 &&
	    !(S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX)))
		snprintf(r, sizeof(r), "%s %s is writable by %s (mode %04o)", what, path,
			 (st->st_mode & S_IWOTH) ? "others" : "its group",
			 (unsigned int)(st->st_mode & 07777));
	else if (st->st_uid != me && st->st_uid != 0)
		snprintf(r, sizeof(r), "%s %s is owned by uid %u, neither root nor us (uid %u)",
			 what, path, (unsigned int)st->st_uid, (unsigned int)me);
	else
		return;
	if (strstr(why, r) == NULL && pos + 1 < len)
		snprintf(why + pos, len - pos, "%s%s", pos > 0 ? "; " : "", r);
}

static int
fail(char *why, size_t len, int err, const char *path)
{
	snprintf(why, len, "%s: %s", path, strerror(err));
	return -err;
}

int
rps_safepath_check(const char *path, char *why, size_t why_len)
{
	char todo[PATH_MAX], next[PATH_MAX], cur[PATH_MAX];
	struct stat st;
	int hops = 0;

	why[0] = '\0';
	if (path == NULL || *path == '\0')
		return fail(why, why_len, ENOENT, "(empty path)");
	if (path[0] == '/') {
		if (snprintf(todo, sizeof(todo), "%s", path) >= (int)sizeof(todo))
			return fail(why, why_len, ENAMETOOLONG, path);
	} else {
		if (getcwd(cur, sizeof(cur)) == NULL)
			return fail(why, why_len, errno, ".");
		if (snprintf(todo, sizeof(todo), "%s/%s", cur, path) >= (int)sizeof(todo))
			return fail(why, why_len, ENAMETOOLONG, path);
	}
restart:
	/* cur: the folders walked so far, every symlink in it resolved ("" is /) */
	cur[0] = '\0';
	if (lstat("/", &st) < 0)
		return fail(why, why_len, errno, "/");
	rps_safepath_add_reason(why, why_len, "folder", "/", &st);
	for (const char *p = todo; *p != '\0';) {
		const char *end;
		size_t n, clen = strlen(cur);

		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		end = strchr(p, '/');
		n = end != NULL ? (size_t)(end - p) : strlen(p);
		if (n == 1 && p[0] == '.') {
			p += n;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') { /* cur has no symlink: lexical is right */
			char *slash = strrchr(cur, '/');

			if (slash != NULL)
				*slash = '\0';
			p += n;
			continue;
		}
		if (clen + 1 + n >= sizeof(cur))
			return fail(why, why_len, ENAMETOOLONG, todo);
		memcpy(next, cur, clen);
		next[clen] = '/';
		memcpy(next + clen + 1, p, n);
		next[clen + 1 + n] = '\0';
		p += n;
		if (lstat(next, &st) < 0)
			return fail(why, why_len, errno, next);
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t tl;

			if (++hops > SAFEPATH_HOPS_MAX)
				return fail(why, why_len, ELOOP, path);
			tl = readlink(next, target, sizeof(target) - 1);
			if (tl < 0)
				return fail(why, why_len, errno, next);
			target[tl] = '\0';
			/* the target, then what was left after the link; from / again */
			if (target[0] == '/')
				n = (size_t)snprintf(next, sizeof(next), "%s%s", target, p);
			else
				n = (size_t)snprintf(next, sizeof(next), "%s/%s%s", cur, target, p);
			if (n >= sizeof(next))
				return fail(why, why_len, ENAMETOOLONG, path);
			memcpy(todo, next, n + 1);
			goto restart;
		}
		if (S_ISDIR(st.st_mode)) {
			rps_safepath_add_reason(why, why_len, "folder", next, &st);
			memcpy(cur, next, strlen(next) + 1);
			continue;
		}
		while (*p == '/')
			p++;
		if (*p != '\0') /* a file in the middle of the path */
			return fail(why, why_len, ENOTDIR, next);
		rps_safepath_add_reason(why, why_len, "file", next, &st);
	}
	return why[0] != '\0' ? -EPERM : 0;
}
