/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Starting the profiled command the way perf does: resolve it first (so a
 * missing or non-executable command fails before anything starts), fork a
 * child that blocks until the counters are ready, then let it exec.  An
 * exec failure in the child is reported back through a close-on-exec pipe.
 */
#ifndef PMIPROF_DAEMON_WORKLOAD_H
#define PMIPROF_DAEMON_WORKLOAD_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct workload {
	pid_t pid;			/* 0 when not started */
	int go_fd;			/* write end: close it to let the child exec */
	int err_fd;			/* read end: errno of a failed exec, or EOF */
	bool reaped;
	int status;			/* waitpid() status once reaped */
};

/*
 * Check that argv[0] names an executable (PATH search as execvp does).
 * Returns 0, or -ENOENT/-EACCES after printing a specific error.
 */
int workload_resolve(const char *cmd);
/*
 * Fork the child, blocked before exec.  unblock is the signal mask the
 * child restores (the recorder blocks signals it reads through signalfd).
 */
int workload_fork(struct workload *wl, char **argv, const sigset_t *unblock);
/* Let the child exec; returns 0 or -errno of a failed exec (message printed). */
int workload_go(struct workload *wl, const char *cmd);
/* Forward a signal (no-op once reaped). */
void workload_kill(struct workload *wl, int sig);
/* Non-blocking reap: 1 reaped now or before, 0 still running, -errno. */
int workload_reap(struct workload *wl, bool block);
/* Exit status for the recorder: the child's code, or 128+signal. */
int workload_exit_code(const struct workload *wl);
/* Kill (SIGKILL) and reap a child that never got to exec; closes fds. */
void workload_abort(struct workload *wl);
void workload_close(struct workload *wl);
/* Thread ids of a running process (from /proc); count or -errno. */
int workload_list_threads(pid_t pid, pid_t *tids, unsigned int max);

#endif /* PMIPROF_DAEMON_WORKLOAD_H */
