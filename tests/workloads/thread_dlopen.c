// SPDX-License-Identifier: GPL-2.0
/*
 * thread_dlopen [SECONDS]: starts a worker thread that waits for SIGUSR1,
 * then dlopen()s libpmwork.so (next to this binary) and spins in its
 * pmwork_lib_spin() for about SECONDS (default 1.0) while the main thread
 * sleeps in pthread_join().  Made for attaching with -p before the signal:
 * the library is mapped by a thread that already ran when the recorder
 * attached, and is not the main one, so only side-band opened on that very
 * thread tells where the library is.
 */
// LDLIBS: -ldl -lpthread
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef uint64_t (*spin_fn)(uint64_t);

static double secs = 1.0;
static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	sigset_t *set = arg;
	spin_fn spin;
	double end;
	void *h;
	int sig;

	printf("thread_dlopen: pid %d waiting for SIGUSR1\n", (int)getpid());
	fflush(stdout);
	if (sigwait(set, &sig) || n <= 0)
		return (void *)1;
	path[n] = '\0';
	strcpy(strrchr(path, '/') + 1, "libpmwork.so");
	h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "thread_dlopen: %s\n", dlerror());
		return (void *)1;
	}
	spin = (spin_fn)dlsym(h, "pmwork_lib_spin");
	if (!spin) {
		fprintf(stderr, "thread_dlopen: %s\n", dlerror());
		return (void *)1;
	}
	for (end = now() + secs; now() < end; )
		sink += spin(100000);
	return NULL;
}

int main(int argc, char **argv)
{
	sigset_t set;
	pthread_t t;
	void *res;

	if (argc > 1)
		secs = atof(argv[1]);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	/* Blocked in every thread: the worker takes it with sigwait(). */
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&t, NULL, worker, &set))
		return 1;
	pthread_join(t, &res);
	return res ? 1 : 0;
}
