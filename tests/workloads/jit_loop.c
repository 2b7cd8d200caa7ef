// SPDX-License-Identifier: GPL-2.0
/*
 * A minimal "JIT" for the report's perf-map tests: copies a hand-assembled
 * x86-64 countdown loop into anonymous memory (RW, then mprotect RX, the
 * way W^X JITs do) or into a memfd mapped a second time executable, names
 * it jitted_loop in /tmp/perf-PID.map (perf's convention) and runs it for
 * about the given seconds.  Prints "pid N" so tests can find and remove
 * the map file.
 *   jit_loop [SECONDS] [--memfd]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* mov rax, rdi; 1: dec rax; jnz 1b; ret */
static const uint8_t loop_code[] = {
	0x48, 0x89, 0xf8,
	0x48, 0xff, 0xc8,
	0x75, 0xfb,
	0xc3,
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* RW anonymous memory made RX after the copy. */
static void *jit_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, loop_code, sizeof(loop_code));
	if (mprotect(p, len, PROT_READ | PROT_EXEC)) {
		munmap(p, len);
		return NULL;
	}
	return p;
}

/* A memfd written through one view and executed through another. */
static void *jit_memfd(size_t len)
{
	int fd = memfd_create("pmiprof-jit", MFD_CLOEXEC);
	void *w, *x;

	if (fd < 0 || ftruncate(fd, (off_t)len))
		return NULL;
	w = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	x = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	close(fd);
	if (w == MAP_FAILED || x == MAP_FAILED)
		return NULL;
	memcpy(w, loop_code, sizeof(loop_code));
	return x;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, t0;
	int memfd = argc > 2 && !strcmp(argv[2], "--memfd");
	size_t len = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t (*fn)(uint64_t);
	char path[64];
	void *code;
	FILE *f;

	code = memfd ? jit_memfd(len) : jit_anon(len);
	if (!code) {
		perror("jit_loop: cannot map code");
		return 1;
	}
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 1;
	}
	fprintf(f, "%lx %zx jitted_loop\n", (unsigned long)(uintptr_t)code, sizeof(loop_code));
	fclose(f);
	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	/* Object to function pointer: what every JIT does (POSIX allows it). */
	memcpy(&fn, &code, sizeof(fn));
	t0 = now_s();
	while (now_s() - t0 < secs)
		fn(20000000);
	return 0;
}
