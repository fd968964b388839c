/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_safepath.h: whether anyone but us can change what a path names, as sshd's StrictModes
 * asks of authorized_keys: the file and every folder on the way to it, from /, through every
 * symlink hop.
 *
 * A path is unsafe when one of them is writable by its group or by others, or is owned by a
 * user other than root and the caller's effective uid. A folder with the sticky bit (/tmp) is
 * not counted as writable: others may add names there but not replace ours, and a name that
 * another user owns fails the owner check itself. Symlinks are followed one hop at a time:
 * the folders that hold each link and those on the way to its target are all checked (a
 * Kubernetes ConfigMap, FILE -> ..data/FILE, ..data -> ..TIMESTAMP, is checked link by link).
 *
 * Thread-safe (no state); it reads the file system with lstat() and readlink() only, so it
 * never opens, and never acts on, what it checks.
 */
#ifndef RPS_SAFEPATH_H
#define RPS_SAFEPATH_H

#include <stddef.h>
#include <sys/stat.h>

/**
 * Check @p path (absolute or relative to the working directory).
 *
 * @param why  filled with the reasons when unsafe, "; "-separated, each naming the file or
 *             folder, who may write it and its mode or owner; "" when safe.
 * @return 0 when safe; -EPERM when unsafe (@p why says why); -ENOENT, -EACCES, -ELOOP (over
 *         40 symlink hops), -ENAMETOOLONG, -ENOTDIR when a component cannot be examined
 *         (@p why says which).
 */
int rps_safepath_check(const char *path, char *why, size_t why_len);

/**
 * Append why @p path, a @p what ("file", "folder") with @p st, is unsafe to @p why ("; "
 * between reasons), unless @p why says it already (a walk through symlinks passes some
 * folders twice). Nothing when it is safe.
 */
void rps_safepath_add_reason(char *why, size_t why_len, const char *what, const char *path,
			     const struct stat *st);

#endif /* RPS_SAFEPATH_H */
