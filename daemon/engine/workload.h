/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Starting the profiled command the way perf does: resolve it first (so a
 * missing or non-executable command fails before anything starts), fork a
 * child that blocks until the counters are ready, then let it exec.  An
 * exec failure in the child is reported back through a close-on-exec pipe.
 *
 * Signals must reach the workload exactly once.  In the foreground of a
 * terminal the workload shares the recorder's process group, as under perf,
 * so it can read the terminal and gets Ctrl-C from the terminal itself; the
 * recorder then forwards only signals sent to it by kill().  Anywhere else
 * (no terminal, background job, setsid) nothing needs the terminal, and the
 * workload gets a process group of its own: a kill() of the recorder's group
 * then reaches the recorder alone, which forwards everything.
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
	bool own_group;			/* in a process group of its own */
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
/* Send a signal to the workload process (no-op once reaped). */
void workload_kill(struct workload *wl, int sig);
/*
 * Forward a signal the recorder received with this si_code (signalfd's
 * ssi_code), unless the workload received it too (from the terminal, in the
 * same process group).  To the workload's process group when it has its own.
 * Returns whether it was sent.
 */
bool workload_forward(struct workload *wl, int sig, int si_code);
/* Non-blocking reap: 1 reaped now or before, 0 still running, -errno. */
int workload_reap(struct workload *wl, bool block);
/* Exit status for the recorder: the child's code, or 128+signal. */
int workload_exit_code(const struct workload *wl);
/* Kill (SIGKILL) and reap a child that never got to exec; closes fds. */
void workload_abort(struct workload *wl);
void workload_close(struct workload *wl);

#endif /* PMIPROF_DAEMON_WORKLOAD_H */
