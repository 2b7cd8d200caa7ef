// SPDX-License-Identifier: GPL-2.0
/*
 * The unwinder against this very program: registers and stack captured
 * deep inside a call chain (through a qsort comparison callback, so through
 * libc's frames) are unwound with the CFI of the real files, and the chain
 * is checked against the return addresses glibc's backtrace() (libgcc's
 * unwinder) finds at the same place.  (libunwind.so exports a backtrace()
 * of its own, which would come first: glibc's is looked up in libc.)  The fp leaf fix-up is checked on
 * assembly functions whose frames are known exactly.  Damaged registers and
 * stack bytes must never crash and are counted.  The fast path (compiled CFI
 * rules) must give what libunwind alone gives (PMIPROF_UNWIND=libunwind) on
 * every stack here, including one through a signal frame, which it hands
 * over to libunwind; the fix-up's plan cache what the uncached fix-up
 * gives (PMIPROF_UNWIND=nocache), also after the maps change.
 */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "input/maps.h"
#include "symbols/symbols.h"
#include "stacks/unwind.h"
#include "engine/stack_tops.h"
#include "unwind_self.h"

#if defined(__clang__)
#define FRAMELESS __attribute__((noinline))	/* clang -O2 omits frame pointers on x86-64 */
#else
#define FRAMELESS __attribute__((noinline, optimize("omit-frame-pointer")))
#endif

#define MAX_FRAMES 128

static struct ut_sample sample;
static void *bt[MAX_FRAMES];
static int bt_n;
static int captured;
static volatile int sink;
static int (*glibc_backtrace)(void **, int);

FRAMELESS static int unw_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	if (!captured) {
		captured = 1;
		bt_n = glibc_backtrace(bt, MAX_FRAMES);
		ut_capture(&sample, PMIPROF_MAX_USTACK);
	}
	return (x > y) - (x < y);
}

FRAMELESS static int unw_chain_b(int n)
{
	int v[16], i;

	for (i = 0; i < 16; i++)
		v[i] = (i * 7 + n) % 16;
	qsort(v, 16, sizeof(v[0]), unw_cmp);
	sink = v[3];
	return v[0] + v[15] + 1;
}

FRAMELESS static int unw_chain_a(int n)
{
	return unw_chain_b(n + 1) * 3 + sink;
}

/* Takes a fresh sample inside unw_cmp, called by qsort from unw_chain_b. */
static void sample_in_qsort(void)
{
	captured = 0;
	sink = unw_chain_a(1);
	assert_true(captured);
	assert_true(bt_n > 3 && bt_n < MAX_FRAMES);
}

struct fixture {
	struct maps maps;
	struct symbolizer *sy;
	struct unwinder *u;
	uint32_t pid;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);

	glibc_backtrace = libc ? (int (*)(void **, int))dlsym(libc, "backtrace") : NULL;
	if (!f || !glibc_backtrace || maps_init(&f->maps) || symbolizer_new(&f->sy, NULL))
		return -1;
	f->pid = (uint32_t)getpid();
	if (ut_self_maps(&f->maps, f->sy, f->pid) || unwinder_new(&f->u, f->sy, &f->maps))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	unwinder_free(f->u);
	symbolizer_free(f->sy);
	maps_free(&f->maps);
	free(f);
	return 0;
}

/* The function name of a return address (or of the exact ip for leaf). */
static const char *name_of(struct fixture *f, uint64_t addr, bool leaf)
{
	uint32_t space = maps_space(&f->maps, f->pid);
	const struct map *m;
	int64_t id;

	if (!leaf)
		addr--;
	m = maps_find(&f->maps, space, addr);
	if (!m)
		return "(unmapped)";
	id = symbolizer_resolve(f->sy, m->dso, addr - m->start + m->pgoff);
	return id < 0 ? "(error)" : symbolizer_sym(f->sy, (uint32_t)id)->name;
}

static void dwarf_chain_through_qsort_matches_backtrace_and_completes(void **state)
{
	struct fixture *f = *state;
	uint64_t ips[MAX_FRAMES + 8];
	bool complete = false;
	int n, i, k, seen_a = -1, seen_b = -1, seen_qsort = -1, seen_main = -1;

	sample_in_qsort();
	n = unwind_user(f->u, f->pid, sample.regs[UT_REG_IP], &sample.us, ips, MAX_FRAMES + 8,
			&complete);
	assert_true(n > 3);
	assert_int_equal(ips[0], sample.regs[UT_REG_IP]);
	assert_string_equal(name_of(f, ips[0], true), "ut_capture_regs");
	assert_string_equal(name_of(f, ips[1], false), "ut_capture");
	assert_true(!strncmp(name_of(f, ips[2], false), "unw_cmp", 7));
	for (i = 3; i < n; i++) {
		const char *s = name_of(f, ips[i], false);

		if (getenv("UNW_DEBUG"))
			print_message("%d %#lx %s\n", i, (unsigned long)ips[i], s);

		if (seen_qsort < 0 && (strstr(s, "qsort") || strstr(s, "msort")))
			seen_qsort = i;
		if (!strncmp(s, "unw_chain_b", 11))
			seen_b = i;
		if (!strncmp(s, "unw_chain_a", 11))
			seen_a = i;
		if (!strcmp(s, "main"))
			seen_main = i;
	}
	assert_true(seen_qsort > 2 && seen_b > seen_qsort && seen_a > seen_b && seen_main > seen_a);
	/* Past unw_cmp, every return address is the one libgcc's unwinder found. */
	assert_int_equal(n, bt_n + 2);
	for (k = 1; k < bt_n; k++)
		assert_int_equal(ips[k + 2], (uint64_t)(uintptr_t)bt[k]);
	assert_true(complete);
	assert_true(unwinder_stats(f->u)->reached_root >= 1);
}

/*
 * The recorder stores a main thread's dwarf copy only up to exec's argc
 * (daemon/engine/stack_tops.h): cut there, this process's own sample unwinds to
 * the same complete chain as the whole copy.
 */
static void main_thread_copy_cut_at_exec_argc_unwinds_the_same(void **state)
{
	struct fixture *f = *state;
	uint64_t full[MAX_FRAMES + 8], cut[MAX_FRAMES + 8], top, keep;
	struct stack_tops tops = { 0 };
	struct trace_ustack us;
	bool complete;
	int n, m, i;

	sample_in_qsort();
	top = stack_tops_get(&tops, f->pid);
	stack_tops_free(&tops);
	assert_true(top != 0);
	keep = stack_tops_keep(top, sample.regs[UT_REG_SP], sample.us.data, sample.us.size);
	/* the copy reaches past argc (the test's stack is shallow) and is cut there */
	assert_int_equal(keep, top - sample.regs[UT_REG_SP]);
	assert_true(keep < sample.us.size);
	n = unwind_user(f->u, f->pid, sample.regs[UT_REG_IP], &sample.us, full, MAX_FRAMES + 8,
			&complete);
	assert_true(complete);
	us = sample.us;
	us.size = (uint32_t)keep;
	complete = false;
	m = unwind_user(f->u, f->pid, sample.regs[UT_REG_IP], &us, cut, MAX_FRAMES + 8, &complete);
	assert_true(complete);
	assert_int_equal(m, n);
	for (i = 0; i < m; i++)
		assert_int_equal(cut[i], full[i]);
	/* one word less is no longer exec's layout: the copy is kept whole */
	assert_int_equal(stack_tops_keep(top + 8, sample.regs[UT_REG_SP], sample.us.data,
					 sample.us.size), sample.us.size);
}

static void short_stack_copy_is_truncated_prefix(void **state)
{
	struct fixture *f = *state;
	uint64_t full[MAX_FRAMES + 8], part[MAX_FRAMES + 8];
	struct trace_ustack us;
	uint64_t truncated;
	bool complete;
	int n, m, i;

	sample_in_qsort();
	n = unwind_user(f->u, f->pid, sample.regs[UT_REG_IP], &sample.us, full, MAX_FRAMES + 8,
			&complete);
	assert_true(complete);
	us = sample.us;
	us.size = 256;
	truncated = unwinder_stats(f->u)->truncated;
	m = unwind_user(f->u, f->pid, sample.regs[UT_REG_IP], &us, part, MAX_FRAMES + 8, &complete);
	assert_false(complete);
	assert_int_equal(unwinder_stats(f->u)->truncated, truncated + 1);
	assert_true(m >= 3 && m < n);
	for (i = 0; i < m; i++)
		assert_int_equal(part[i], full[i]);
	/* max bounds the chain too (not complete: the root was not reached). */
	m = unwind_user(f->u, f->pid, sample.regs[UT_REG_IP], &sample.us, part, 4, &complete);
	assert_int_equal(m, 4);
	assert_false(complete);
}

/*
 * fp leaf fix-up on assembly with exact frames.  ut_outer(leaf, fn) sets up
 * a frame and calls fn(leaf); fn records BP, SP, an IP inside itself, the
 * fp chain's first return address [BP + 8] and 8 words at SP.
 */
struct ut_leaf {
	uint64_t bp, sp, ip, fp_first;
	uint64_t words[8];
};
void ut_outer(struct ut_leaf *l, void (*fn)(struct ut_leaf *));
void ut_leaf_noframe(struct ut_leaf *l);
void ut_leaf_prologue(struct ut_leaf *l);
void ut_leaf_framed(struct ut_leaf *l);
extern const char ut_outer_ret[];

#define LEAF_GRAB							\
	"	movq %rsp, 8(%rdi)\n"					\
	"	movq %rbp, 0(%rdi)\n"					\
	"	movq 8(%rbp), %rax\n"					\
	"	movq %rax, 24(%rdi)\n"					\
	"	leaq 0(%rip), %rax\n"					\
	"	movq %rax, 16(%rdi)\n"					\
	"	movq 0(%rsp), %rax\n	movq %rax, 32(%rdi)\n"		\
	"	movq 8(%rsp), %rax\n	movq %rax, 40(%rdi)\n"		\
	"	movq 16(%rsp), %rax\n	movq %rax, 48(%rdi)\n"		\
	"	movq 24(%rsp), %rax\n	movq %rax, 56(%rdi)\n"		\
	"	movq 32(%rsp), %rax\n	movq %rax, 64(%rdi)\n"		\
	"	movq 40(%rsp), %rax\n	movq %rax, 72(%rdi)\n"		\
	"	movq 48(%rsp), %rax\n	movq %rax, 80(%rdi)\n"		\
	"	movq 56(%rsp), %rax\n	movq %rax, 88(%rdi)\n"

__asm__(".text\n"
	".globl ut_outer\n.type ut_outer,@function\nut_outer:\n"
	".cfi_startproc\n"
	"	pushq %rbp\n.cfi_adjust_cfa_offset 8\n.cfi_offset %rbp, -16\n"
	"	movq %rsp, %rbp\n.cfi_def_cfa_register %rbp\n"
	"	call *%rsi\n"
	".globl ut_outer_ret\nut_outer_ret:\n"
	"	popq %rbp\n.cfi_def_cfa %rsp, 8\n"
	"	ret\n.cfi_endproc\n.size ut_outer, .-ut_outer\n"

	".globl ut_leaf_noframe\n.type ut_leaf_noframe,@function\nut_leaf_noframe:\n"
	".cfi_startproc\n" LEAF_GRAB
	"	ret\n.cfi_endproc\n.size ut_leaf_noframe, .-ut_leaf_noframe\n"

	".globl ut_leaf_prologue\n.type ut_leaf_prologue,@function\nut_leaf_prologue:\n"
	".cfi_startproc\n"
	"	pushq %rbp\n.cfi_adjust_cfa_offset 8\n.cfi_offset %rbp, -16\n" LEAF_GRAB
	"	popq %rbp\n.cfi_adjust_cfa_offset -8\n.cfi_restore %rbp\n"
	"	ret\n.cfi_endproc\n.size ut_leaf_prologue, .-ut_leaf_prologue\n"

	".globl ut_leaf_framed\n.type ut_leaf_framed,@function\nut_leaf_framed:\n"
	".cfi_startproc\n"
	"	pushq %rbp\n.cfi_adjust_cfa_offset 8\n.cfi_offset %rbp, -16\n"
	"	movq %rsp, %rbp\n.cfi_def_cfa_register %rbp\n" LEAF_GRAB
	"	popq %rbp\n.cfi_def_cfa %rsp, 8\n"
	"	ret\n.cfi_endproc\n.size ut_leaf_framed, .-ut_leaf_framed\n");

/* What fp mode records: BP, SP, IP and a few words at SP. */
static uint64_t leaf_caller_of(struct fixture *f, void (*fn)(struct ut_leaf *), uint64_t *fp_first)
{
	static struct ut_leaf l;
	static uint64_t regs[3];
	struct trace_ustack us;

	memset(&l, 0, sizeof(l));
	ut_outer(&l, fn);
	regs[0] = l.bp;
	regs[1] = l.sp;
	regs[2] = l.ip;
	us = (struct trace_ustack){ .abi = 2, .nr_regs = 3,
				    .regs_mask = (1ull << UT_REG_BP) | (1ull << UT_REG_SP) |
						 (1ull << UT_REG_IP),
				    .regs = regs, .size = sizeof(l.words),
				    .data = (const uint8_t *)l.words };
	*fp_first = l.fp_first;
	return unwind_leaf_caller(f->u, f->pid, l.ip, &us, l.fp_first);
}

static void leaf_fixup_restores_caller_fp_chain_skipped(void **state)
{
	struct fixture *f = *state;
	uint64_t before = unwinder_stats(f->u)->leaf_fixups, fp_first, got;

	got = leaf_caller_of(f, ut_leaf_noframe, &fp_first);
	/* The fp chain's first return address is ut_outer's caller's: ut_outer is missing. */
	assert_int_not_equal(fp_first, (uint64_t)(uintptr_t)ut_outer_ret);
	assert_int_equal(got, (uint64_t)(uintptr_t)ut_outer_ret);
	assert_string_equal(name_of(f, got, false), "ut_outer");
	/* In a prologue (after push rbp, before mov rsp, rbp) the same holds. */
	got = leaf_caller_of(f, ut_leaf_prologue, &fp_first);
	assert_int_not_equal(fp_first, (uint64_t)(uintptr_t)ut_outer_ret);
	assert_int_equal(got, (uint64_t)(uintptr_t)ut_outer_ret);
	assert_int_equal(unwinder_stats(f->u)->leaf_fixups, before + 2);
}

static void leaf_fixup_leaves_framed_function_alone(void **state)
{
	struct fixture *f = *state;
	uint64_t before = unwinder_stats(f->u)->leaf_fixups, fp_first;

	assert_int_equal(leaf_caller_of(f, ut_leaf_framed, &fp_first), 0);
	assert_int_equal(fp_first, (uint64_t)(uintptr_t)ut_outer_ret);
	assert_int_equal(unwinder_stats(f->u)->leaf_fixups, before);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void damaged_registers_and_stack_never_crash_and_are_counted(void **state)
{
	struct fixture *f = *state;
	static uint8_t stack[PMIPROF_MAX_USTACK];
	uint64_t ips[MAX_FRAMES], regs[UT_NR_REGS], seed = 0x9e3779b97f4a7c15ull;
	const struct unwind_stats *st = unwinder_stats(f->u);
	uint64_t samples, bad;
	struct trace_ustack us;
	bool complete;
	int i, j, n;

	sample_in_qsort();
	samples = st->samples;
	for (i = 0; i < 3000; i++) {
		uint64_t ip = sample.regs[UT_REG_IP];

		memcpy(regs, sample.regs, sizeof(regs));
		memcpy(stack, sample.stack, sample.size);
		us = sample.us;
		us.regs = regs;
		us.data = stack;
		switch (i % 4) {
		case 0:		/* random registers, ip among them */
			for (j = 0; j < UT_NR_REGS; j++)
				regs[j] = xorshift(&seed) >> (xorshift(&seed) & 63);
			ip = regs[UT_REG_IP];
			break;
		case 1:		/* bit flips in the stack copy */
			for (j = 0; j < 64; j++) {
				uint32_t bit = (uint32_t)(xorshift(&seed) % ((uint64_t)sample.size * 8));

				stack[bit / 8] ^= (uint8_t)(1u << (bit % 8));
			}
			break;
		case 2:		/* random words in the stack copy, random size */
			for (j = 0; j < 256; j++) {
				uint64_t w = xorshift(&seed);

				memcpy(stack + xorshift(&seed) % (sample.size - 8), &w, 8);
			}
			us.size = (uint32_t)(xorshift(&seed) % (sample.size + 1));
			break;
		case 3:		/* SP near the top of the address space, ip anywhere in a file */
			regs[UT_REG_SP] = UINT64_MAX - (xorshift(&seed) & 0xffff);
			ip = sample.regs[UT_REG_IP] + (xorshift(&seed) & 0xfffff);
			break;
		}
		n = unwind_user(f->u, f->pid, ip, &us, ips, MAX_FRAMES, &complete);
		assert_true(n >= 1 && n <= MAX_FRAMES);
		assert_int_equal(ips[0], ip);
		unwind_leaf_caller(f->u, f->pid, ip, &us, regs[UT_REG_BP]);
	}
	assert_int_equal(st->samples, samples + 3000);
	assert_int_equal(st->reached_root + st->truncated, st->samples);
	/* Shapes that cannot be right: counted as bad input, leaf only. */
	bad = st->bad_input;
	us = sample.us;
	us.nr_regs = 3;				/* disagrees with the mask */
	assert_int_equal(unwind_user(f->u, f->pid, 1, &us, ips, MAX_FRAMES, &complete), 1);
	us = sample.us;
	us.abi = 1;				/* 32-bit registers */
	assert_int_equal(unwind_user(f->u, f->pid, 1, &us, ips, MAX_FRAMES, &complete), 1);
	us = sample.us;
	us.regs_mask &= ~(1ull << UT_REG_SP);	/* no SP */
	us.nr_regs--;
	assert_int_equal(unwind_user(f->u, f->pid, 1, &us, ips, MAX_FRAMES, &complete), 1);
	assert_false(complete);
	assert_int_equal(st->bad_input, bad + 3);
	/* A process without maps: leaf only, truncated. */
	assert_int_equal(unwind_user(f->u, f->pid + 1, sample.regs[UT_REG_IP], &sample.us, ips,
				     MAX_FRAMES, &complete), 1);
	assert_false(complete);
}

/* A leaf sample in fn as fp mode records it: BP, SP, IP and 8 words at SP, in *l. */
static struct trace_ustack leaf_sample(void (*fn)(struct ut_leaf *), struct ut_leaf *l,
				       uint64_t regs[3])
{
	memset(l, 0, sizeof(*l));
	ut_outer(l, fn);
	regs[0] = l->bp;
	regs[1] = l->sp;
	regs[2] = l->ip;
	return (struct trace_ustack){ .abi = 2, .nr_regs = 3,
				      .regs_mask = (1ull << UT_REG_BP) | (1ull << UT_REG_SP) |
						   (1ull << UT_REG_IP),
				      .regs = regs, .size = sizeof(l->words),
				      .data = (const uint8_t *)l->words };
}

/* The cached and the uncached fix-up on one input: same caller, same counters. */
static void assert_same_leaf(struct unwinder *cached, struct unwinder *ref, uint32_t pid,
			     uint64_t ip, const struct trace_ustack *us, uint64_t fp_first)
{
	const struct unwind_stats *cs = unwinder_stats(cached), *rs = unwinder_stats(ref);
	uint64_t cf = cs->leaf_fixups, cb = cs->bad_input, rf = rs->leaf_fixups, rb = rs->bad_input;

	assert_int_equal(unwind_leaf_caller(cached, pid, ip, us, fp_first),
			 unwind_leaf_caller(ref, pid, ip, us, fp_first));
	assert_int_equal(cs->leaf_fixups - cf, rs->leaf_fixups - rf);
	assert_int_equal(cs->bad_input - cb, rs->bad_input - rb);
}

/*
 * The fix-up's per-(ip, maps tag) plan cache answers as the uncached path
 * (PMIPROF_UNWIND=nocache) on the assembly leaves (RA at SP, at SP + 8, a
 * framed function), the qsort sample, every stack copy length (the RA word
 * recorded or not) and damaged words and registers; and once the process's
 * maps change, the same ip is planned again: mapped so that it lies in the
 * framed function, it gets no caller, mapped back, its caller again.
 */
static void leaf_fixup_cache_answers_as_uncached_and_follows_maps_changes(void **state)
{
	struct fixture *f = *state;
	void (*const leaves[3])(struct ut_leaf *) = { ut_leaf_noframe, ut_leaf_prologue,
						       ut_leaf_framed };
	static struct ut_leaf l, l2;
	static uint8_t stack[PMIPROF_MAX_USTACK];
	uint64_t regs[3], dregs[UT_NR_REGS], seed = 0x9e3779b97f4a7c15ull, ret = (uintptr_t)ut_outer_ret;
	struct unwinder *cached, *ref;
	struct trace_ustack us, d;
	struct map m;
	struct maps maps;
	uint32_t space;
	int k, i, j;

	assert_int_equal(setenv("PMIPROF_UNWIND", "nocache", 1), 0);
	assert_int_equal(unwinder_new(&ref, f->sy, &f->maps), 0);
	unsetenv("PMIPROF_UNWIND");
	assert_int_equal(unwinder_new(&cached, f->sy, &f->maps), 0);
	for (k = 0; k < 3; k++) {
		us = leaf_sample(leaves[k], &l, regs);
		/* twice: planned, then from the plan */
		for (j = 0; j < 2; j++)
			for (us.size = 0; us.size <= sizeof(l.words); us.size += 4)
				assert_same_leaf(cached, ref, f->pid, l.ip, &us, l.fp_first);
		us.size = sizeof(l.words);
		assert_int_equal(unwind_leaf_caller(ref, f->pid, l.ip, &us, l.fp_first),
				 k < 2 ? ret : 0);
		assert_same_leaf(cached, ref, f->pid, l.ip, &us, l.fp_first);
		for (i = 0; i < 500; i++) {
			uint64_t words[8], r3[3];

			memcpy(words, l.words, sizeof(words));
			memcpy(r3, regs, sizeof(r3));
			words[xorshift(&seed) % 8] = i % 3 ? ret : xorshift(&seed);
			if (i % 2)
				r3[xorshift(&seed) % 2] ^= xorshift(&seed) >> (xorshift(&seed) & 63);
			d = us;
			d.regs = r3;
			d.data = (const uint8_t *)words;
			assert_same_leaf(cached, ref, f->pid, l.ip, &d, i % 4 ? l.fp_first : ret);
		}
	}
	/* A C function's leaf, all registers recorded: the qsort sample. */
	sample_in_qsort();
	for (j = 0; j < 2; j++)
		for (us = sample.us, us.size = 0; us.size <= 256; us.size += 8)
			assert_same_leaf(cached, ref, f->pid, sample.regs[UT_REG_IP], &us,
					 sample.regs[UT_REG_BP]);
	for (i = 0; i < 500; i++) {
		memcpy(dregs, sample.regs, sizeof(dregs));
		memcpy(stack, sample.stack, sample.size);
		d = sample.us;
		d.regs = dregs;
		d.data = stack;
		for (j = 0; j < 4; j++) {
			uint64_t w = xorshift(&seed);

			memcpy(stack + xorshift(&seed) % 64, &w, 8);
		}
		if (i % 2)
			dregs[xorshift(&seed) % UT_NR_REGS] ^= xorshift(&seed) >> (xorshift(&seed) & 63);
		assert_same_leaf(cached, ref, f->pid, sample.regs[UT_REG_IP], &d,
				 sample.regs[UT_REG_BP]);
	}
	unwinder_free(cached);
	unwinder_free(ref);

	/* Maps of our own: the executable moved so that l.ip is l2.ip's instruction. */
	assert_int_equal(maps_init(&maps), 0);
	assert_int_equal(ut_self_maps(&maps, f->sy, f->pid), 0);
	assert_int_equal(unwinder_new(&cached, f->sy, &maps), 0);
	us = leaf_sample(ut_leaf_noframe, &l, regs);
	assert_int_equal(unwind_leaf_caller(cached, f->pid, l.ip, &us, l.fp_first), ret);
	assert_int_equal(unwind_leaf_caller(cached, f->pid, l.ip, &us, l.fp_first), ret);
	leaf_sample(ut_leaf_framed, &l2, dregs);
	space = maps_space(&maps, f->pid);
	m = *maps_find(&maps, space, l.ip);
	assert_int_equal(maps_add(&maps, f->pid, m.start + (l.ip - l2.ip), m.end - m.start,
				  m.pgoff, m.dso), 0);
	assert_non_null(maps_find(&maps, maps_space(&maps, f->pid), ret));
	assert_int_equal(unwind_leaf_caller(cached, f->pid, l.ip, &us, l.fp_first), 0);
	/* and back where it was */
	assert_int_equal(maps_add(&maps, f->pid, m.start, m.end - m.start, m.pgoff, m.dso), 0);
	assert_int_equal(unwind_leaf_caller(cached, f->pid, l.ip, &us, l.fp_first), ret);
	unwinder_free(cached);
	maps_free(&maps);
}

/* A sample inside a signal handler: the chain crosses the kernel's signal frame. */
static struct ut_sample sig_sample;
static volatile sig_atomic_t sig_captured;

static void on_sigusr1(int sig)
{
	(void)sig;
	ut_capture(&sig_sample, PMIPROF_MAX_USTACK);
	sig_captured = 1;
}

FRAMELESS static int unw_raise(int n)
{
	raise(SIGUSR1);
	return n + sink;
}

/* Both unwinders on one input: same chain, same end, same leaf caller, same counters. */
static void assert_same_unwind(struct fixture *f, struct unwinder *ref, uint64_t ip,
			       const struct trace_ustack *us, uint32_t max)
{
	const struct unwind_stats *fs = unwinder_stats(f->u), *rs = unwinder_stats(ref);
	uint64_t a[MAX_FRAMES], b[MAX_FRAMES], bp = 0;
	bool ca, cb;
	int na, nb;

	na = unwind_user(f->u, f->pid, ip, us, a, max, &ca);
	nb = unwind_user(ref, f->pid, ip, us, b, max, &cb);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, (size_t)na * sizeof(a[0]));
	assert_int_equal(ca, cb);
	if (us->nr_regs == UT_NR_REGS && us->regs_mask == UT_REGS_MASK)
		bp = us->regs[UT_REG_BP];
	assert_int_equal(unwind_leaf_caller(f->u, f->pid, ip, us, bp),
			 unwind_leaf_caller(ref, f->pid, ip, us, bp));
	assert_int_equal(fs->reached_root, rs->reached_root);
	assert_int_equal(fs->truncated, rs->truncated);
	assert_int_equal(fs->bad_input, rs->bad_input);
	assert_int_equal(fs->leaf_fixups, rs->leaf_fixups);
}

static void fast_path_gives_libunwinds_chains_on_every_test_stack(void **state)
{
	struct fixture *f = *state;
	struct unwinder *ref;
	static uint8_t stack[PMIPROF_MAX_USTACK];
	const struct ut_sample *samples[2] = { &sample, &sig_sample };
	uint64_t ips[MAX_FRAMES], regs[UT_NR_REGS], seed = 0x2545f4914f6cdd1dull, fast, slow;
	struct sigaction sa = { .sa_handler = on_sigusr1 }, old;
	struct trace_ustack us;
	struct unwinder *mine;
	bool complete;
	int i, j, k, n, seen_raise = 0, seen_main = 0;

	/* The reference: libunwind only, as PMIPROF_UNWIND=libunwind asks. */
	assert_int_equal(setenv("PMIPROF_UNWIND", "libunwind", 1), 0);
	assert_int_equal(unwinder_new(&ref, f->sy, &f->maps), 0);
	unsetenv("PMIPROF_UNWIND");
	/* A fresh fast unwinder: its counters start where the reference's do. */
	mine = f->u;
	assert_int_equal(unwinder_new(&f->u, f->sy, &f->maps), 0);

	sample_in_qsort();
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	sig_captured = 0;
	sink = unw_raise(1);
	sigaction(SIGUSR1, &old, NULL);
	assert_true(sig_captured);

	/* The signal sample's chain crosses the signal frame to main, libunwind taking over. */
	fast = unwinder_stats(f->u)->fast_frames;
	slow = unwinder_stats(f->u)->libunwind_frames;
	n = unwind_user(f->u, f->pid, sig_sample.regs[UT_REG_IP], &sig_sample.us, ips, MAX_FRAMES,
			&complete);
	assert_true(complete);
	for (i = 1; i < n; i++) {
		seen_raise |= !strncmp(name_of(f, ips[i], false), "unw_raise", 9);
		seen_main |= !strcmp(name_of(f, ips[i], false), "main");
	}
	assert_true(seen_raise && seen_main);
	assert_true(unwinder_stats(f->u)->fast_frames > fast);
	assert_true(unwinder_stats(f->u)->libunwind_frames > slow);
	unwind_user(ref, f->pid, sig_sample.regs[UT_REG_IP], &sig_sample.us, ips, MAX_FRAMES,
		    &complete);

	/* The qsort sample goes through the fast path only. */
	slow = unwinder_stats(f->u)->libunwind_frames;
	assert_same_unwind(f, ref, sample.regs[UT_REG_IP], &sample.us, MAX_FRAMES);
	assert_int_equal(unwinder_stats(f->u)->libunwind_frames, slow);

	for (k = 0; k < 2; k++) {
		const struct ut_sample *s = samples[k];

		/* Every stack copy length (truncation at every word), every chain bound. */
		us = s->us;
		for (us.size = 0; us.size <= s->size; us.size += 8)
			assert_same_unwind(f, ref, s->regs[UT_REG_IP], &us, MAX_FRAMES);
		for (j = 1; j < MAX_FRAMES; j += 7)
			assert_same_unwind(f, ref, s->regs[UT_REG_IP], &s->us, (uint32_t)j);
		/* Damage: random words in the stack copy, random registers. */
		for (i = 0; i < 2000; i++) {
			uint64_t ip = s->regs[UT_REG_IP];

			memcpy(regs, s->regs, sizeof(regs));
			memcpy(stack, s->stack, s->size);
			us = s->us;
			us.regs = regs;
			us.data = stack;
			for (j = 0; j < 8; j++) {
				uint64_t w = xorshift(&seed);

				memcpy(stack + xorshift(&seed) % (s->size - 8), &w, 8);
			}
			if (i % 2)
				regs[xorshift(&seed) % UT_NR_REGS] ^= xorshift(&seed) >> (xorshift(&seed) & 63);
			assert_same_unwind(f, ref, ip, &us, MAX_FRAMES);
		}
	}
	unwinder_free(ref);
	unwinder_free(f->u);
	f->u = mine;
}

/*
 * A frame whose CIE names a personality routine through a pointer in
 * writable data (as every C++ function with cleanups has): the unwinder must
 * read through it (libunwind parses it with the CIE) and go on to main.
 */
void ut_eh_frame(void (*fn)(void));
__asm__(".text\n"
	".globl ut_eh_frame\n.type ut_eh_frame,@function\nut_eh_frame:\n"
	".cfi_startproc\n"
	".cfi_personality 0x9b, ut_pers_ref\n"
	"	subq $8, %rsp\n.cfi_adjust_cfa_offset 8\n"
	"	call *%rdi\n"
	"	addq $8, %rsp\n.cfi_adjust_cfa_offset -8\n"
	"	ret\n.cfi_endproc\n.size ut_eh_frame, .-ut_eh_frame\n"
	".type ut_personality,@function\nut_personality:\n	ret\n"
	".data\n.align 8\n.type ut_pers_ref,@object\nut_pers_ref:\n	.quad ut_personality\n"
	".size ut_pers_ref, 8\n.text\n");

static struct ut_sample eh_sample;

static void eh_capture(void)
{
	ut_capture(&eh_sample, PMIPROF_MAX_USTACK);
}

static void chain_through_frame_with_personality_routine_reaches_main(void **state)
{
	struct fixture *f = *state;
	struct unwinder *u[2];
	uint64_t ips[MAX_FRAMES];
	bool complete;
	int i, k, n, seen_eh, seen_main;

	ut_eh_frame(eh_capture);
	assert_int_equal(setenv("PMIPROF_UNWIND", "libunwind", 1), 0);
	assert_int_equal(unwinder_new(&u[0], f->sy, &f->maps), 0);
	unsetenv("PMIPROF_UNWIND");
	assert_int_equal(unwinder_new(&u[1], f->sy, &f->maps), 0);
	for (k = 0; k < 2; k++) {
		n = unwind_user(u[k], f->pid, eh_sample.regs[UT_REG_IP], &eh_sample.us, ips,
				MAX_FRAMES, &complete);
		seen_eh = seen_main = 0;
		for (i = 1; i < n; i++) {
			seen_eh |= !strcmp(name_of(f, ips[i], false), "ut_eh_frame");
			seen_main |= !strcmp(name_of(f, ips[i], false), "main");
		}
		assert_true(seen_eh);
		assert_true(seen_main);
		assert_true(complete);
		unwinder_free(u[k]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dwarf_chain_through_qsort_matches_backtrace_and_completes),
		cmocka_unit_test(short_stack_copy_is_truncated_prefix),
		cmocka_unit_test(main_thread_copy_cut_at_exec_argc_unwinds_the_same),
		cmocka_unit_test(leaf_fixup_restores_caller_fp_chain_skipped),
		cmocka_unit_test(leaf_fixup_leaves_framed_function_alone),
		cmocka_unit_test(damaged_registers_and_stack_never_crash_and_are_counted),
		cmocka_unit_test(chain_through_frame_with_personality_routine_reaches_main),
		cmocka_unit_test(fast_path_gives_libunwinds_chains_on_every_test_stack),
		cmocka_unit_test(leaf_fixup_cache_answers_as_uncached_and_follows_maps_changes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
