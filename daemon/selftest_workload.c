// SPDX-License-Identifier: GPL-2.0
/*
 * The workloads of doctor --selftest, built into pmiprof so the self-test
 * runs without the test tree.  Their instruction, branch and miss counts
 * are known by construction (see selftest.h); tests/e2e/t531 checks the
 * spin loop against valgrind --tool=callgrind once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "selftest.h"

/* Not inlined, so callgrind --toggle-collect=st_spin can count it alone. */
__attribute__((noinline)) void st_spin(uint64_t iters)
{
	uint64_t x = 1;

	if (!iters)
		return;
	__asm__ volatile("1:\n\t"
			 "imul %[m], %[x]\n\t"
			 "add $12345, %[x]\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [x] "+r"(x), [n] "+r"(iters)
			 : [m] "r"(6364136223846793005ull));
}

size_t st_llc_bytes(void)
{
	size_t best = 0;
	int i;

	for (i = 0; i < 8; i++) {
		char path[96], *text = NULL;
		size_t len;
		unsigned long v;
		char unit = 0;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		if (pm_read_file(path, &text, &len) < 0)
			break;
		if (sscanf(text, "%lu%c", &v, &unit) >= 1) {
			if (unit == 'K')
				v <<= 10;
			else if (unit == 'M')
				v <<= 20;
			if (v > best)
				best = v;
		}
		free(text);
	}
	return best;
}

#define ST_LINE	64

/* Sattolo's shuffle: one cycle through every line, in random order. */
int st_walk_init(struct st_walk *w, size_t bytes)
{
	size_t i, stride = ST_LINE / sizeof(uint64_t);
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	w->lines = bytes / ST_LINE;
	if (w->lines < 2)
		return -EINVAL;
	w->buf = aligned_alloc(ST_LINE, w->lines * ST_LINE);
	if (!w->buf)
		return -ENOMEM;
	memset(w->buf, 0, w->lines * ST_LINE);
	for (i = 0; i < w->lines; i++)
		w->buf[i * stride] = i;
	for (i = w->lines - 1; i > 0; i--) {
		size_t j, t;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		j = seed % i;
		t = w->buf[i * stride];
		w->buf[i * stride] = w->buf[j * stride];
		w->buf[j * stride] = t;
	}
	return 0;
}

uint64_t st_walk_run(const struct st_walk *w, uint64_t steps)
{
	size_t stride = ST_LINE / sizeof(uint64_t);
	volatile const uint64_t *b = w->buf;
	uint64_t at = 0;

	while (steps--)
		at = b[at * stride];
	return at;
}

void st_walk_free(struct st_walk *w)
{
	free(w->buf);
	w->buf = NULL;
}

/*
 * Are high-resolution timers on (CPU 0's hres_active in /proc/timer_list)?
 * Right after boot a guest runs on tsc-early, not valid for high
 * resolution, until the TSC's refined calibration switches to "tsc" (about
 * a second); the kernel then switches at its next tick.  Polls up to 3 s;
 * true when unknowable (no /proc/timer_list): the bound then decides.
 */
bool st_hres_active(void)
{
	unsigned int i;

	for (i = 0; i < 30; i++) {
		char *text = NULL, *p;
		size_t len;
		int on;

		if (pm_read_file("/proc/timer_list", &text, &len) < 0)
			return true;
		p = strstr(text, ".hres_active");	/* ".hres_active    : 1" */
		p = p ? strchr(p, ':') : NULL;
		on = !p || atoi(p + 1) == 1;
		free(text);
		if (on)
			return true;
		usleep(100000);
	}
	return false;
}
