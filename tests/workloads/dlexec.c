// SPDX-License-Identifier: GPL-2.0
/*
 * Code that appears after the start: spins in main_phase(), then dlopen()s
 * libz and spins in its crc32() (a library mapped late), then exec()s
 * itself as "dlexec --after-exec" which spins in after_exec_phase() (a new
 * image in the same pid).  SECONDS (default 0.3) per phase.
 */
// LDLIBS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void main_phase(double secs)
{
	double end = now() + secs;

	while (now() < end)
		for (int i = 0; i < 10000; i++)
			sink = sink * 6364136223846793005ull + 1;
}

__attribute__((noinline)) static void after_exec_phase(double secs)
{
	double end = now() + secs;

	while (now() < end)
		for (int i = 0; i < 10000; i++)
			sink = sink * 2862933555777941757ull + 3;
}

typedef unsigned long (*crc32_fn)(unsigned long, const unsigned char *, unsigned int);

int main(int argc, char **argv)
{
	static unsigned char buf[65536];
	double secs = 0.3, end;
	char arg[32];
	crc32_fn crc;
	void *h;

	if (argc > 2 && !strcmp(argv[1], "--after-exec")) {
		after_exec_phase(atof(argv[2]));
		printf("dlexec: after exec done\n");
		return 0;
	}
	if (argc > 1)
		secs = atof(argv[1]);
	main_phase(secs);
	h = dlopen("libz.so.1", RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlexec: %s\n", dlerror());
		return 1;
	}
	crc = (crc32_fn)dlsym(h, "crc32");
	if (!crc) {
		fprintf(stderr, "dlexec: %s\n", dlerror());
		return 1;
	}
	memset(buf, 0x5a, sizeof(buf));
	for (end = now() + secs; now() < end; )
		sink += crc(0, buf, sizeof(buf));
	snprintf(arg, sizeof(arg), "%g", secs);
	fflush(stdout);
	execl("/proc/self/exe", argv[0], "--after-exec", arg, (char *)NULL);
	perror("dlexec: exec");
	return 1;
}
