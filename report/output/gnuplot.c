/*
 * Running gnuplot: pmiprof draws through gnuplot (Debian's gnuplot-nox)
 * rather than its own renderer; `plot` and `diff --plot` share this.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "output/gnuplot.h"

bool gnuplot_found(void)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/gnuplot", (int)len, path);
		if (!access(buf, X_OK))
			return true;
		path += len;
		if (*path)
			path++;
	}
	return false;
}

int gnuplot_run(const char *script, const char *expr, char *err, size_t errlen)
{
	int fd[2], status;
	size_t have = 0;
	pid_t pid;

	if (err && errlen)
		err[0] = '\0';
	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		/* gnuplot's messages go to the caller, who shows them only on failure */
		close(fd[0]);
		if (dup2(fd[1], STDERR_FILENO) < 0)
			_exit(127);
		close(fd[1]);
		if (expr)
			execlp("gnuplot", "gnuplot", "-e", expr, (char *)NULL);
		else
			execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	for (;;) {
		char buf[4096];
		ssize_t n = read(fd[0], buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		/* the first errlen - 1 bytes kept: the first error is the one that matters */
		if (err && have + 1 < errlen) {
			size_t take = (size_t)n < errlen - 1 - have ? (size_t)n : errlen - 1 - have;

			memcpy(err + have, buf, take);
			have += take;
			err[have] = '\0';
		}
	}
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

void gnuplot_print_errors(const char *err)
{
	const char *p = err, *nl;

	/* indented under the command's own message, blank lines dropped */
	for (; p && *p; p = nl ? nl + 1 : p + strlen(p)) {
		nl = strchr(p, '\n');
		if (nl == p)
			continue;
		fprintf(stderr, "  gnuplot: %.*s\n", nl ? (int)(nl - p) : (int)strlen(p), p);
	}
}

const char *gnuplot_terminal(const char *out)
{
	const char *dot = strrchr(out, '.');

	if (!dot)
		return NULL;
	if (!strcmp(dot, ".png"))
		return gnuplot_run(NULL, "set terminal pngcairo", NULL, 0) ? "png" : "pngcairo";
	if (!strcmp(dot, ".svg"))
		return "svg";
	if (!strcmp(dot, ".pdf"))
		return "pdfcairo";
	return NULL;
}
