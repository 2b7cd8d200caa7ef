// SPDX-License-Identifier: GPL-2.0
/* Unit-test helper: run a command's entry point with its output captured. */
#include "cmd_capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *slurp(int fd)
{
	struct stat st;
	char *buf;

	if (fstat(fd, &st))
		abort();
	buf = calloc(1, (size_t)st.st_size + 1);
	if (!buf || pread(fd, buf, (size_t)st.st_size, 0) != st.st_size)
		abort();
	return buf;
}

char *cmd_capture(int (*fn)(int, char **), char **argv, int *rc, char **err)
{
	char op[] = "/tmp/pmiprof-out.XXXXXX", ep[] = "/tmp/pmiprof-err.XXXXXX";
	int ofd = mkstemp(op), efd = err ? mkstemp(ep) : -1, so, se = -1, argc = 0;
	char *out;

	if (ofd < 0 || (err && efd < 0))
		abort();
	while (argv[argc])
		argc++;
	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	dup2(ofd, 1);
	if (err) {
		se = dup(2);
		dup2(efd, 2);
	}
	*rc = fn(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	close(so);
	if (err) {
		dup2(se, 2);
		close(se);
		*err = slurp(efd);
		close(efd);
		unlink(ep);
	}
	out = slurp(ofd);
	close(ofd);
	unlink(op);
	return out;
}

unsigned int count_str(const char *hay, const char *needle)
{
	unsigned int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}
