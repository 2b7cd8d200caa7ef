// SPDX-License-Identifier: GPL-2.0
/* Fork/exec handshake and signal forwarding for the profiled command (see workload.h). */
#include "engine/workload.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "util.h"

static int check_file(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (access(path, X_OK))
		return -errno;
	return 0;
}

int workload_resolve(const char *cmd)
{
	const char *path, *p;
	char buf[PATH_MAX];
	int ret, first_err = -ENOENT;

	if (strchr(cmd, '/')) {
		ret = check_file(cmd);
		if (ret)
			pm_err("cannot run '%s': %s", cmd,
			       ret == -EACCES ? "not executable (permission denied)" :
			       strerror(-ret));
		return ret;
	}
	path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; ) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? p : ".", cmd) <
		    (int)sizeof(buf)) {
			ret = check_file(buf);
			if (!ret)
				return 0;
			if (ret != -ENOENT && ret != -ENOTDIR)
				first_err = ret;
		}
		if (!end)
			break;
		p = end + 1;
	}
	pm_err("cannot run '%s': %s", cmd, first_err == -ENOENT ?
	       "command not found in PATH" : first_err == -EACCES ?
	       "not executable (permission denied)" : strerror(-first_err));
	return first_err;
}

/* Is this process in the foreground process group of its controlling terminal? */
static bool in_terminal_foreground(void)
{
	int fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);
	bool fg;

	if (fd < 0)
		return false;	/* no controlling terminal (setsid, daemons, CI) */
	fg = tcgetpgrp(fd) == getpgrp();
	close(fd);
	return fg;
}

int workload_fork(struct workload *wl, char **argv, const sigset_t *unblock)
{
	int go[2], err[2];

	memset(wl, 0, sizeof(*wl));
	wl->go_fd = wl->err_fd = -1;
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		int e = -errno;

		close(go[0]);
		close(go[1]);
		return e;
	}
	wl->own_group = !in_terminal_foreground();
	fflush(NULL);
	wl->pid = fork();
	if (wl->pid < 0) {
		int e = -errno;

		close(go[0]), close(go[1]), close(err[0]), close(err[1]);
		wl->pid = 0;
		return e;
	}
	if (wl->pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(err[0]);
		if (wl->own_group)
			setpgid(0, 0);
		sigprocmask(SIG_SETMASK, unblock, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);	/* the recorder ignores it (record_loop.c) */
		/* EOF on the go pipe: counters are ready (or the recorder died). */
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		if (getppid() == 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	/* Both sides set it, so it holds whichever runs first (as shells do). */
	if (wl->own_group)
		setpgid(wl->pid, wl->pid);
	close(go[0]);
	close(err[1]);
	wl->go_fd = go[1];
	wl->err_fd = err[0];
	return 0;
}

int workload_go(struct workload *wl, const char *cmd)
{
	ssize_t n;
	int e = 0;

	close(wl->go_fd);
	wl->go_fd = -1;
	do
		n = read(wl->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(wl->err_fd);
	wl->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		pm_err("cannot execute '%s': %s", cmd, strerror(e));
		workload_reap(wl, true);
		return -e;
	}
	return 0;
}

void workload_kill(struct workload *wl, int sig)
{
	if (wl->pid > 0 && !wl->reaped)
		kill(wl->pid, sig);
}

bool workload_forward(struct workload *wl, int sig, int si_code)
{
	pid_t pgid;

	if (wl->pid <= 0 || wl->reaped)
		return false;
	pgid = getpgid(wl->pid);
	/*
	 * The terminal signals its whole foreground process group: a workload
	 * still in ours got this one itself.  (A kill() aimed at our group by
	 * another process cannot be told apart from one aimed at us alone, so
	 * those are forwarded: see docs/record.md.)
	 */
	if (sig != SIGKILL && si_code == SI_KERNEL && pgid == getpgrp())
		return false;
	/* In a group of its own it stands for everything the terminal would reach. */
	if (pgid == wl->pid)
		return kill(-wl->pid, sig) == 0;
	return kill(wl->pid, sig) == 0;
}

int workload_reap(struct workload *wl, bool block)
{
	pid_t r;

	if (wl->pid <= 0 || wl->reaped)
		return 1;
	do
		r = waitpid(wl->pid, &wl->status, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r == 0)
		return 0;
	wl->reaped = true;
	return 1;
}

int workload_exit_code(const struct workload *wl)
{
	if (!wl->reaped)
		return 1;
	if (WIFEXITED(wl->status))
		return WEXITSTATUS(wl->status);
	if (WIFSIGNALED(wl->status))
		return 128 + WTERMSIG(wl->status);
	return 1;
}

void workload_close(struct workload *wl)
{
	if (wl->go_fd >= 0)
		close(wl->go_fd);
	if (wl->err_fd >= 0)
		close(wl->err_fd);
	wl->go_fd = wl->err_fd = -1;
}

void workload_abort(struct workload *wl)
{
	workload_kill(wl, SIGKILL);
	workload_close(wl);
	workload_reap(wl, true);
}
