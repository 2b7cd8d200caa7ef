/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Processes and threads from /proc, for the targets of -p: a thread id's
 * process (Tgid), and every thread of a process without a fixed cap.
 */
#ifndef PMIPROF_DAEMON_PROC_TASKS_H
#define PMIPROF_DAEMON_PROC_TASKS_H

#include <sys/types.h>

/* The process (thread group) of task id tid; -errno when it is not there. */
pid_t proc_task_tgid(pid_t tid);

/*
 * Append the thread ids of process pid to *tids (grown with realloc; *nr
 * entries used, *cap allocated).  Returns how many were appended or -errno
 * (-ENOENT: no such process).
 */
int proc_task_threads(pid_t pid, pid_t **tids, unsigned int *nr, unsigned int *cap);

#endif /* PMIPROF_DAEMON_PROC_TASKS_H */
