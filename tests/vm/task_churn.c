// SPDX-License-Identifier: GPL-2.0
/*
 * Task churn for the per-task stress tests (tests/vm/t191, t192):
 *
 *   task_churn THREADS FORKS SPIN   THREADS short-lived threads (16 at a
 *                                   time) and FORKS short-lived child
 *                                   processes (each forking a grandchild),
 *                                   every task spinning SPIN iterations
 *   task_churn spin SECONDS         one CPU-bound loop (a workload to kill)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;
static unsigned long spin_iters;

static void spin(unsigned long n)
{
	while (n--)
		sink = sink * 6364136223846793005ull + 1;
}

static void *thread_fn(void *arg)
{
	(void)arg;
	spin(spin_iters);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long threads, forks, i, j;

	if (argc == 3 && !strcmp(argv[1], "spin")) {
		time_t end = time(NULL) + atol(argv[2]);

		while (time(NULL) < end)
			spin(100000);
		return 0;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: task_churn THREADS FORKS SPIN | spin SECONDS\n");
		return 2;
	}
	threads = strtoul(argv[1], NULL, 10);
	forks = strtoul(argv[2], NULL, 10);
	spin_iters = strtoul(argv[3], NULL, 10);
	for (i = 0; i < threads; i += 16) {
		pthread_t t[16];
		unsigned long n = threads - i < 16 ? threads - i : 16;

		for (j = 0; j < n; j++)
			if (pthread_create(&t[j], NULL, thread_fn, NULL))
				return 1;
		for (j = 0; j < n; j++)
			pthread_join(t[j], NULL);
	}
	for (i = 0; i < forks; i++) {
		pid_t p = fork();

		if (p < 0)
			return 1;
		if (!p) {
			pid_t g = fork();

			spin(spin_iters);
			if (g > 0)
				waitpid(g, NULL, 0);
			_exit(0);
		}
		waitpid(p, NULL, 0);
	}
	printf("churn done\n");
	return 0;
}
