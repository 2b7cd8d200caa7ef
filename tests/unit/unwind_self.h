/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unit-test and bench helper for the unwinder: this program's own registers
 * and stack, captured as perf would record them for --call-graph dwarf, and
 * its own executable mappings as MMAP records would place them.
 */
#ifndef PMIPROF_TEST_UNWIND_SELF_H
#define PMIPROF_TEST_UNWIND_SELF_H

#include <stddef.h>
#include <stdint.h>

#include <pmiprof/trace.h>

struct maps;
struct symbolizer;

/* perf's x86-64 user registers AX..IP (bits 0-8) and R8..R15 (bits 16-23). */
#define UT_REGS_MASK	(0x1ffull | (0xffull << 16))
#define UT_NR_REGS	17
#define UT_REG_BP	6
#define UT_REG_SP	7
#define UT_REG_IP	8

struct ut_sample {
	uint64_t regs[UT_NR_REGS];	/* in perf order, as UT_REGS_MASK selects */
	uint8_t stack[PMIPROF_MAX_USTACK];
	uint32_t size;
	struct trace_ustack us;
};

/*
 * Records the caller's registers as at ut_capture's first instruction (ip =
 * ut_capture) and copies min(want, bytes to the stack's end) bytes of stack
 * from SP up into s, then points s->us at them.
 */
void ut_capture(struct ut_sample *s, uint32_t want);
/* Adds every executable file mapping of /proc/self/maps to maps as pid's: 0 or -1. */
int ut_self_maps(struct maps *maps, struct symbolizer *sy, uint32_t pid);

#endif /* PMIPROF_TEST_UNWIND_SELF_H */
