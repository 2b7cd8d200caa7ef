// SPDX-License-Identifier: GPL-2.0
/*
 * Start and stop of a service worker thread (worker_thread.h).
 */
#include "service/worker_thread.h"

int worker_thread_start(struct worker_thread *w, pthread_mutex_t *lock, pthread_cond_t *wake,
			void *(*fn)(void *), void *arg)
{
	int e;

	w->lock = lock;
	w->wake = wake;
	w->stopping = false;
	e = pthread_create(&w->thread, NULL, fn, arg);
	w->running = !e;
	return -e;
}

void worker_thread_stop(struct worker_thread *w)
{
	if (!w->running)
		return;
	pthread_mutex_lock(w->lock);
	w->stopping = true;
	pthread_cond_signal(w->wake);
	pthread_mutex_unlock(w->lock);
	pthread_join(w->thread, NULL);
	w->running = false;
}
