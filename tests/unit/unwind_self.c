// SPDX-License-Identifier: GPL-2.0
/*
 * Captures this program's registers and stack as a dwarf-mode sample would
 * (see unwind_self.h).  The register grab is assembly with its own CFI so the
 * sampled ip is an exact instruction whose unwind rule is known: CFA = RSP + 8.
 */
#include "unwind_self.h"

#include <stdio.h>
#include <string.h>

#include "input/maps.h"
#include "symbols/symbols.h"

void ut_capture_regs(uint64_t *regs);
void ut_capture_copy(struct ut_sample *s, uint32_t want);

/* rdi = regs: store every register in perf order, IP = ut_capture_regs itself. */
__asm__(".text\n"
	".globl ut_capture_regs\n"
	".type ut_capture_regs,@function\n"
	"ut_capture_regs:\n"
	".cfi_startproc\n"
	"	movq %rax, 0(%rdi)\n"
	"	movq %rbx, 8(%rdi)\n"
	"	movq %rcx, 16(%rdi)\n"
	"	movq %rdx, 24(%rdi)\n"
	"	movq %rsi, 32(%rdi)\n"
	"	movq %rdi, 40(%rdi)\n"
	"	movq %rbp, 48(%rdi)\n"
	"	movq %rsp, 56(%rdi)\n"
	"	leaq ut_capture_regs(%rip), %rax\n"
	"	movq %rax, 64(%rdi)\n"
	"	movq %r8, 72(%rdi)\n"
	"	movq %r9, 80(%rdi)\n"
	"	movq %r10, 88(%rdi)\n"
	"	movq %r11, 96(%rdi)\n"
	"	movq %r12, 104(%rdi)\n"
	"	movq %r13, 112(%rdi)\n"
	"	movq %r14, 120(%rdi)\n"
	"	movq %r15, 128(%rdi)\n"
	"	ret\n"
	".cfi_endproc\n"
	".size ut_capture_regs, .-ut_capture_regs\n");

/* The end of the [stack] mapping containing sp, or 0 (not inlined: its buffer stays out of the sample). */
__attribute__((noinline)) static uint64_t stack_end(uint64_t sp)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long long s, e;
	char line[4600];
	uint64_t end = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx", &s, &e) == 2 && sp >= s && sp < e)
			end = e;
	fclose(f);
	return end;
}

/*
 * A word loop, not memcpy: under ASan the stack has poisoned redzones that
 * a sample copies as the kernel would, and memcpy is intercepted.
 */
__attribute__((no_sanitize_address, noinline)) static void copy_stack(uint8_t *dst, uint64_t sp,
								       uint32_t len)
{
	const volatile uint8_t *src = (const volatile uint8_t *)(uintptr_t)sp;
	uint32_t i;

	for (i = 0; i < len; i++)
		dst[i] = src[i];
}

/*
 * The sample is taken in ut_capture_regs called from here, so its stack is
 * ours from the SP it recorded: that SP (its return address slot) and
 * everything above are not touched by the copy, which runs below it.
 * Tail-calling this from ut_capture would move the frame: keep it a call.
 */
__attribute__((noinline)) void ut_capture(struct ut_sample *s, uint32_t want)
{
	uint64_t sp, end;

	ut_capture_regs(s->regs);
	sp = s->regs[UT_REG_SP];
	end = stack_end(sp);
	if (want > sizeof(s->stack))
		want = sizeof(s->stack);
	s->size = end > sp && end - sp < want ? (uint32_t)(end - sp) : want;
	copy_stack(s->stack, sp, s->size);
	s->us = (struct trace_ustack){ .abi = 2, .nr_regs = UT_NR_REGS, .regs_mask = UT_REGS_MASK,
				       .regs = s->regs, .size = s->size, .data = s->stack };
	__asm__ volatile("" ::: "memory");
}

int ut_self_maps(struct maps *maps, struct symbolizer *sy, uint32_t pid)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long long s, e, off;
	char line[4600], perms[8];
	int ret = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		int64_t dso;
		int pos = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &off, &pos) < 4 ||
		    perms[2] != 'x' || line[pos] != '/')
			continue;
		line[pos + strcspn(line + pos, "\n")] = 0;
		dso = symbolizer_dso(sy, line + pos, NULL, 0);
		if (dso < 0 || maps_add(maps, pid, s, e - s, off, (uint32_t)dso))
			ret = -1;
	}
	fclose(f);
	return ret;
}
