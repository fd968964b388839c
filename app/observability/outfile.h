/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * outfile.h: write an output file (--summary-json, --flows-json) whole or not at all,
 * without trusting the directory it goes to.
 *
 * The data goes to a temporary made by mkstemp() next to the target (PATH.XXXXXX: same file
 * system, a name no one can predict, created O_EXCL so a planted symlink is never followed),
 * then rename() puts it in place; rename() replaces a symlink at PATH rather than writing
 * through it. The file is 0600 (the summary names the steering set-up of this host), or the
 * mode of the regular file it replaces when the owner made one there (their choice).
 */
#ifndef RPS_OUTFILE_H
#define RPS_OUTFILE_H

#include <limits.h>
#include <stdio.h>

struct rps_outfile {
	FILE *f;                  /**< write here between open and commit */
	char tmp[PATH_MAX];       /**< the temporary's name */
	const char *path;         /**< the target */
};

/** Create the temporary for @p path. @return 0, or a negative errno (nothing left behind). */
int rps_outfile_open(struct rps_outfile *of, const char *path);

/** Close the temporary and rename it over the target; on any error it is removed.
 * @return 0, or a negative errno. */
int rps_outfile_commit(struct rps_outfile *of);

#endif /* RPS_OUTFILE_H */
