// SPDX-License-Identifier: GPL-2.0
/*
 * many_threads N SECONDS: starts N-1 threads that sleep, then one last
 * thread that spins in last_thread_spin() for SECONDS; prints
 * "ready TID" (the spinner's thread id) once all exist.  For attaching
 * with -p to a process with more threads than any fixed table: the
 * spinner, created last, must still be counted.
 */
// LDLIBS: -lpthread
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;
static double secs = 2.0;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

__attribute__((noinline)) static void last_thread_spin(void)
{
	double end = now() + secs;

	while (now() < end)
		for (int i = 0; i < 10000; i++)
			sink = sink * 6364136223846793005ull + 1;
}

static void *spinner(void *arg)
{
	(void)arg;
	printf("ready %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	last_thread_spin();
	exit(0);	/* ends the sleepers too */
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1100, i;
	pthread_attr_t a;
	pthread_t t;

	if (argc > 2)
		secs = atof(argv[2]);
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	for (i = 0; i < n - 1; i++)
		if (pthread_create(&t, &a, sleeper, NULL)) {
			perror("many_threads: pthread_create");
			return 1;
		}
	if (pthread_create(&t, &a, spinner, NULL))
		return 1;
	pthread_join(t, NULL);
	return 0;
}
