// SPDX-License-Identifier: GPL-2.0
/*
 * twin_dso [ROUNDS]: main() calls twin_spin() of the executable and
 * twin_spin() of libtwin.so (dlopen'ed beside the executable, called through
 * dlsym), both from main, so their frames have the same name and the same
 * caller.  The library's does twice the work: about 2/3 of the samples are
 * in libtwin.so's twin_spin and 1/3 in the executable's.  Default 600
 * rounds (about 0.6 s).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint64_t twin_spin(uint64_t n);

/* The executable's twin: the same loop as the library's, one round. */
uint64_t twin_spin(uint64_t n)
{
	volatile uint64_t sink = 0;
	uint64_t x = n | 1;

	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		sink += x >> 33;
	}
	return sink;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? strtol(argv[1], NULL, 0) : 600;
	char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 16);
	uint64_t (*lib_twin)(uint64_t), acc = 0;
	void *h;
	char *slash;

	if (rounds <= 0 || n <= 0) {
		fprintf(stderr, "usage: twin_dso [ROUNDS > 0]\n");
		return 2;
	}
	path[n] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "libtwin.so");
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	lib_twin = h ? (uint64_t (*)(uint64_t))dlsym(h, "twin_spin") : NULL;
	if (!lib_twin) {
		fprintf(stderr, "twin_dso: %s\n", dlerror());
		return 1;
	}
	for (long r = 0; r < rounds; r++) {
		acc += twin_spin(300000);
		acc += lib_twin(300000);
	}
	printf("%llu\n", (unsigned long long)(acc & 0xff));
	return 0;
}
