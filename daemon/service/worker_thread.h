/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A service's worker thread and the one way it is stopped: the owner's
 * lock and condition variable wake it, w->stopping (read by the worker
 * under that lock) tells it to return, and stop joins it.  Used by the
 * accounting/retention worker (daemon_state.c) and the live-profile worker
 * (live_profile.c).
 */
#ifndef PMIPROF_DAEMON_WORKER_THREAD_H
#define PMIPROF_DAEMON_WORKER_THREAD_H

#include <pthread.h>
#include <stdbool.h>

struct worker_thread {
	pthread_t thread;
	pthread_mutex_t *lock;		/* the owner's: guards stopping */
	pthread_cond_t *wake;		/* the owner's: the worker waits on it */
	bool running;			/* started (stop joins it) */
	bool stopping;			/* under *lock: the worker returns */
};

/* Starts fn(arg); lock and wake are the owner's and outlive the thread.  0 or -errno. */
int worker_thread_start(struct worker_thread *w, pthread_mutex_t *lock, pthread_cond_t *wake,
			void *(*fn)(void *), void *arg);
/* Sets stopping under the lock, wakes the worker and joins it; nothing if it never started. */
void worker_thread_stop(struct worker_thread *w);

#endif /* PMIPROF_DAEMON_WORKER_THREAD_H */
