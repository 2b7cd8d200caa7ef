/*
 * Running gnuplot: pmiprof draws through gnuplot (Debian's gnuplot-nox)
 * rather than its own renderer; `plot` and `diff --plot` share this.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gnuplot.h"

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

int gnuplot_run(const char *script, const char *expr, bool quiet)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (quiet) {
			FILE *f = freopen("/dev/null", "w", stderr);

			(void)f;
		}
		if (expr)
			execlp("gnuplot", "gnuplot", "-e", expr, (char *)NULL);
		else
			execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

const char *gnuplot_terminal(const char *out)
{
	const char *dot = strrchr(out, '.');

	if (!dot)
		return NULL;
	if (!strcmp(dot, ".png"))
		return gnuplot_run(NULL, "set terminal pngcairo", true) ? "png" : "pngcairo";
	if (!strcmp(dot, ".svg"))
		return "svg";
	if (!strcmp(dot, ".pdf"))
		return "pdfcairo";
	return NULL;
}
