// SPDX-License-Identifier: GPL-2.0
/*
 * versioned_calls [SECONDS]: locks and unlocks a mutex in a loop, so most
 * samples are in libc's pthread_mutex_lock, whose symbol table name is
 * versioned (pthread_mutex_lock@@GLIBC_2.2.5 in libc6-dbg's file): a report
 * must print the plain name.  Default 0.5 s.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.5, end;
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	unsigned long n = 0;

	if (secs <= 0) {
		fprintf(stderr, "usage: versioned_calls [SECONDS > 0]\n");
		return 2;
	}
	end = now() + secs;
	while (now() < end)
		for (int i = 0; i < 10000; i++, n++) {
			pthread_mutex_lock(&m);
			pthread_mutex_unlock(&m);
		}
	printf("%lu\n", n & 0xff);
	return 0;
}
