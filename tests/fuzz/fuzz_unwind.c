// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the unwinder: a real sample of this program's own
 * stack (taken once, under a qsort callback) is the starting point; the
 * input is XORed over its registers and stack bytes and may cut the stack
 * short, so the empty input unwinds a valid chain and mutations reach every
 * kind of damage: registers pointing anywhere, return addresses into the
 * middle of code, saved registers and frame sizes that lie.  Both
 * unwind_user() and unwind_leaf_caller() run on every input.  Built and run
 * by tests/fuzz/run with -fsanitize=fuzzer,address,undefined.
 *
 * Input: UT_NR_REGS 8-byte register masks, one flags byte (bit 0: no ip
 * from the registers, use the sampled one), then stack XOR bytes; the stack
 * is as long as those bytes (at most the real copy).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input/maps.h"
#include "symbols/symbols.h"
#include "stacks/unwind.h"
#include "unwind_self.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ut_sample real;
static int taking;
static struct maps maps;
static struct symbolizer *sy;
static struct unwinder *u;
static uint32_t pid;

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	if (taking) {
		taking = 0;
		ut_capture(&real, 4096);
	}
	return (x > y) - (x < y);
}

static void setup(void)
{
	int v[8] = { 5, 3, 7, 1, 0, 6, 2, 4 };

	taking = 1;
	qsort(v, 8, sizeof(v[0]), cmp);
	pid = (uint32_t)getpid();
	if (maps_init(&maps) || symbolizer_new(&sy, NULL) || ut_self_maps(&maps, sy, pid) ||
	    unwinder_new(&u, sy, &maps))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t stack[sizeof(real.stack)];
	uint64_t regs[UT_NR_REGS], ips[256], ip;
	const size_t head = sizeof(regs) + 1;
	struct trace_ustack us;
	bool complete;
	size_t i, n;
	int r;

	if (!u)
		setup();
	memcpy(regs, real.regs, sizeof(regs));
	for (i = 0; i < sizeof(regs) && i < size; i++)
		((uint8_t *)regs)[i] ^= data[i];
	n = size > head ? size - head : real.size;
	if (n > real.size)
		n = real.size;
	memcpy(stack, real.stack, n);
	for (i = 0; i < n && head + i < size; i++)
		stack[i] ^= data[head + i];
	us = real.us;
	us.regs = regs;
	us.data = stack;
	us.size = (uint32_t)n;
	ip = size > sizeof(regs) && (data[sizeof(regs)] & 1) ? real.regs[UT_REG_IP] :
							     regs[UT_REG_IP];
	r = unwind_user(u, pid, ip, &us, ips, 256, &complete);
	if (r < 1 || r > 256 || ips[0] != ip)
		__builtin_trap();
	unwind_leaf_caller(u, pid, ip, &us, regs[UT_REG_BP] ^ ips[r - 1]);
	return 0;
}
