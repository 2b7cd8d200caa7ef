/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A growable set of pids: the processes a filtered recording follows (the
 * kernel < 6.12 fallback keeps only their samples).  It grows without a cap
 * and a process leaves it when its last known thread exits, so a shell that
 * runs thousands of short commands before the real work never fills it.
 * The targets the user named are pinned: they never leave.
 */
#ifndef PMIPROF_DAEMON_PID_SET_H
#define PMIPROF_DAEMON_PID_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pid_set {
	uint32_t *slots;		/* pid + 1; 0 = empty */
	uint32_t *threads;		/* live threads seen, PID_SET_PINNED = never leaves */
	size_t cap;			/* power of two, or 0 before the first add */
	size_t used;
};

bool pid_set_contains(const struct pid_set *s, uint32_t pid);
#define PID_SET_PINNED	UINT32_MAX

/* 0 (added or already there) or -ENOMEM. */
int pid_set_add(struct pid_set *s, uint32_t pid);
int pid_set_add_pinned(struct pid_set *s, uint32_t pid);
/* A thread of member pid started (+1) or exited (-1); at 0 the pid leaves. */
void pid_set_thread(struct pid_set *s, uint32_t pid, int delta);
void pid_set_remove(struct pid_set *s, uint32_t pid);
void pid_set_free(struct pid_set *s);

#endif /* PMIPROF_DAEMON_PID_SET_H */
