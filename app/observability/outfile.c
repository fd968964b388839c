/* SPDX-License-Identifier: BSD-3-Clause */
/* outfile.c: output files through mkstemp() + rename() (outfile.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

int
rps_outfile_open(struct rps_outfile *of, const char *path)
{
	struct stat st;
	mode_t mode = S_IRUSR | S_IWUSR;
	int fd, n;

	memset(of, 0, sizeof(*of));
	n = snprintf(of->tmp, sizeof(of->tmp), "%s.XXXXXX", path);
	if (n < 0 || (size_t)n >= sizeof(of->tmp))
		return -ENAMETOOLONG;
	/* the owner's own regular file at PATH (not a link: lstat) keeps its mode */
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
		mode = st.st_mode & (S_IRWXU | S_IRWXG | S_IRWXO);
	fd = mkstemp(of->tmp); /* 0600, O_EXCL */
	if (fd < 0)
		return -errno;
	if (fchmod(fd, mode) != 0) {
		int e = errno;

		close(fd);
		unlink(of->tmp);
		return -e;
	}
	of->f = fdopen(fd, "w");
	if (of->f == NULL) {
		int e = errno;

		close(fd);
		unlink(of->tmp);
		return -e;
	}
	of->path = path;
	return 0;
}

int
rps_outfile_commit(struct rps_outfile *of)
{
	int bad = ferror(of->f);
	int rc = fclose(of->f);

	of->f = NULL;
	if (bad || rc != 0 || rename(of->tmp, of->path) != 0) {
		int e = bad && errno == 0 ? EIO : errno;

		unlink(of->tmp);
		return -(e ? e : EIO);
	}
	return 0;
}
