// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolizer and address-space tests against real binaries: this test
 * program's own functions (a PIE), a shared library's exported function
 * (checked against dladdr), a missing file, a build-id mismatch, perf's JIT
 * map convention (and malformed map files), a kallsyms file, and the
 * address-space bookkeeping (overlapping mmaps, fork sharing, exec, tags).
 * Functions with aliases (below) check that a shared address is named as
 * perf names it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "../../lib/kernel_id.h"
#include "hashmap.h"
#include "input/maps.h"
#include "strtab.h"
#include "symbols/symbols.h"
#include "self_maps.h"

/* A function with a known name in this PIE; noinline keeps it a symbol. */
__attribute__((noinline)) int symtest_target_function(int x);
__attribute__((noinline)) int symtest_target_function(int x)
{
	return x * 3 + 1;
}

/*
 * Aliases, one address each, named by perf's choose_best_symbol(): a local
 * over a weak alias even with more underscores (glibc's .symtab has a local
 * __random and a weak random: libdwfl alone says random), a global over a
 * weak one, a global over a local, fewer leading underscores, then the
 * longer name.
 */
#define ALIAS_BODY(k) { return x * (k) + 7; }
__attribute__((noinline, used)) static int __alias_hidden(int x) ALIAS_BODY(3)
__attribute__((weak, alias("__alias_hidden"))) int alias_weak_of_local(int x);
__attribute__((noinline, used)) int __alias_strong(int x);
__attribute__((noinline, used)) int __alias_strong(int x) ALIAS_BODY(5)
__attribute__((weak, alias("__alias_strong"))) int alias_weak(int x);
__attribute__((noinline, used)) static int alias_local(int x) ALIAS_BODY(11)
__attribute__((alias("alias_local"))) int __alias_global(int x);
__attribute__((noinline, used)) int __alias_two(int x);
__attribute__((noinline, used)) int __alias_two(int x) ALIAS_BODY(13)
__attribute__((alias("__alias_two"))) int _alias_one_underscore(int x);
__attribute__((noinline, used)) int alias_short(int x);
__attribute__((noinline, used)) int alias_short(int x) ALIAS_BODY(17)
__attribute__((alias("alias_short"))) int alias_short_longer(int x);

/* Sizeless labels (assembly): libdwfl weighs them by section, a path the copy hands back. */
__asm__(".text\n.globl symtest_sizeless_label\nsymtest_sizeless_label:\n\tnop\n\tnop\n"
	"symtest_local_label:\n\tnop\n\tret\n");

static struct symbolizer *new_sy(const struct symbolizer_opts *o)
{
	struct symbolizer *sy = NULL;

	assert_int_equal(symbolizer_new(&sy, o), 0);
	return sy;
}

static void resolves_own_pie_function(void **state)
{
	struct symbolizer *sy = new_sy(NULL);
	uintptr_t ip = (uintptr_t)&symtest_target_function + 1;	/* inside, not at entry */
	struct mapping m;
	const struct sym *s;
	int64_t dso, id, id2;

	(void)state;
	assert_int_equal(find_mapping((void *)ip, &m), 0);
	dso = symbolizer_dso(sy, m.path, NULL, 0);
	assert_true(dso >= 0);
	id = symbolizer_resolve(sy, (uint32_t)dso, ip - m.start + m.pgoff);
	assert_true(id >= 0);
	s = symbolizer_sym(sy, (uint32_t)id);
	assert_string_equal(s->name, "symtest_target_function");
	assert_int_equal(s->flags & SYM_F_UNKNOWN, 0);
	assert_string_equal(symbolizer_dso_info(sy, s->dso)->short_name, "test_symbols");
	/* Another address in the same function is the same symbol. */
	id2 = symbolizer_resolve(sy, (uint32_t)dso, ip + 2 - m.start + m.pgoff);
	assert_int_equal(id, id2);
	assert_int_equal(symbolizer_nr_syms(sy), 1);
	symbolizer_free(sy);
}

static void resolves_shared_library_function(void **state)
{
	struct symbolizer *sy = new_sy(NULL);
	uintptr_t ip = (uintptr_t)&crc32 + 3;
	struct mapping m;
	Dl_info info;
	const struct sym *s;
	int64_t dso, id;

	(void)state;
	assert_true(dladdr((void *)ip, &info) && info.dli_sname);
	assert_int_equal(find_mapping((void *)ip, &m), 0);
	dso = symbolizer_dso(sy, m.path, NULL, 0);
	id = symbolizer_resolve(sy, (uint32_t)dso, ip - m.start + m.pgoff);
	assert_true(id >= 0);
	s = symbolizer_sym(sy, (uint32_t)id);
	assert_string_equal(s->name, info.dli_sname);
	assert_non_null(strstr(symbolizer_dso_info(sy, s->dso)->short_name, "libz.so"));
	symbolizer_free(sy);
}

static void srcline_names_file_and_line(void **state)
{
	struct symbolizer_opts o = { .srcline = true };
	struct symbolizer *sy = new_sy(&o);
	uintptr_t ip = (uintptr_t)&symtest_target_function + 1;
	struct mapping m;
	const struct sym *s;
	int64_t dso, id;

	(void)state;
	assert_int_equal(find_mapping((void *)ip, &m), 0);
	dso = symbolizer_dso(sy, m.path, NULL, 0);
	id = symbolizer_resolve(sy, (uint32_t)dso, ip - m.start + m.pgoff);
	s = symbolizer_sym(sy, (uint32_t)id);
	assert_string_equal(s->name, "symtest_target_function");
	assert_non_null(s->srcline);
	assert_non_null(strstr(s->srcline, "test_symbols.c:"));
	symbolizer_free(sy);
}

static void missing_binary_is_unknown_with_note(void **state)
{
	struct symbolizer *sy = new_sy(NULL);
	int64_t dso = symbolizer_dso(sy, "/nonexistent/libgone.so", NULL, 0);
	int64_t a = symbolizer_resolve(sy, (uint32_t)dso, 0x1234);
	int64_t b = symbolizer_resolve(sy, (uint32_t)dso, 0x5678);
	const struct sym *s = symbolizer_sym(sy, (uint32_t)a);

	(void)state;
	assert_int_not_equal(a, b);	/* one [unknown] row per address, as perf */
	assert_string_equal(s->name, "[unknown] 0x1234");
	assert_string_equal(symbolizer_sym(sy, (uint32_t)b)->name, "[unknown] 0x5678");
	assert_int_equal(symbolizer_resolve(sy, (uint32_t)dso, 0x1234), a);
	assert_true(s->flags & SYM_F_UNKNOWN);
	assert_string_equal(symbolizer_dso_info(sy, s->dso)->name, "/nonexistent/libgone.so");
	assert_non_null(symbolizer_dso_info(sy, s->dso)->note);
	assert_non_null(strstr(symbolizer_dso_info(sy, s->dso)->note, "cannot read"));
	symbolizer_free(sy);
}

static void build_id_mismatch_is_noted(void **state)
{
	static const uint8_t wrong[20] = { 0xde, 0xad, 0xbe, 0xef };
	struct symbolizer *sy = new_sy(NULL);
	uintptr_t ip = (uintptr_t)&symtest_target_function + 1;
	struct mapping m;
	int64_t dso, id;

	(void)state;
	assert_int_equal(find_mapping((void *)ip, &m), 0);
	dso = symbolizer_dso(sy, m.path, wrong, sizeof(wrong));
	id = symbolizer_resolve(sy, (uint32_t)dso, ip - m.start + m.pgoff);
	assert_true(id >= 0);
	/* Never named from a file of another build: [unknown] with the file offset, and a note. */
	assert_true(symbolizer_sym(sy, (uint32_t)id)->flags & SYM_F_UNKNOWN);
	assert_true(!strncmp(symbolizer_sym(sy, (uint32_t)id)->name, "[unknown] 0x", 12));
	assert_non_null(strstr(symbolizer_dso_info(sy, (uint32_t)dso)->note, "another build-id"));
	/* The same path with another build-id is another DSO. */
	assert_true(symbolizer_dso(sy, m.path, NULL, 0) != dso);
	symbolizer_free(sy);
}

/*
 * libc's separate debug file alone (libc not under --symfs): its program
 * headers have the addresses but not the file offsets, so only the
 * recorded mapping places it; then it names libc's addresses exactly as
 * libc itself does.  Without a mapping, or one of another length, it
 * must give [unknown] rows (the bug: names shifted by the text segment's
 * offset, round_and_return for strlen).
 */
static void debug_file_placed_by_recorded_mapping(void **state)
{
	uintptr_t ips[] = { (uintptr_t)&fopen + 5, (uintptr_t)&abort + 9, (uintptr_t)&getenv + 3 };
	char empty[] = "/tmp/pmiprof-symfs.XXXXXX", hex[41], dbg[256];
	struct symbolizer *plain, *sy, *none, *wrong;
	struct symbolizer_opts o = { 0 };
	struct mapping m, m2;
	uint8_t id[20];
	int64_t dp, ds, dn, dw;
	size_t i;
	int n;

	(void)state;
	assert_int_equal(find_mapping((void *)ips[0], &m), 0);
	n = file_build_id(m.path, id, sizeof(id));
	if (n <= 0)
		skip();
	build_id_hex(hex, id, (size_t)n);
	snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	if (access(dbg, R_OK))
		skip();		/* libc6-dbg not installed */
	assert_non_null(mkdtemp(empty));
	o.symfs = empty;
	plain = new_sy(NULL);
	sy = new_sy(&o);
	none = new_sy(&o);
	wrong = new_sy(&o);
	dp = symbolizer_dso(plain, m.path, id, (uint32_t)n);
	ds = symbolizer_dso(sy, m.path, id, (uint32_t)n);
	dn = symbolizer_dso(none, m.path, id, (uint32_t)n);
	dw = symbolizer_dso(wrong, m.path, id, (uint32_t)n);
	symbolizer_dso_mapped(sy, (uint32_t)ds, m.pgoff, m.end - m.start);
	symbolizer_dso_mapped(wrong, (uint32_t)dw, m.pgoff, m.end - m.start + 16 * 4096);
	for (i = 0; i < sizeof(ips) / sizeof(ips[0]); i++) {
		uint64_t off;
		const struct sym *a, *b, *c;

		assert_int_equal(find_mapping((void *)ips[i], &m2), 0);
		assert_int_equal(m2.start, m.start);
		off = ips[i] - m.start + m.pgoff;
		a = symbolizer_sym(plain, (uint32_t)symbolizer_resolve(plain, (uint32_t)dp, off));
		b = symbolizer_sym(sy, (uint32_t)symbolizer_resolve(sy, (uint32_t)ds, off));
		assert_int_equal(a->flags & SYM_F_UNKNOWN, 0);
		assert_string_equal(b->name, a->name);
		c = symbolizer_sym(none, (uint32_t)symbolizer_resolve(none, (uint32_t)dn, off));
		assert_true(c->flags & SYM_F_UNKNOWN);
		assert_true(!strncmp(c->name, "[unknown] 0x", 12));
		c = symbolizer_sym(wrong, (uint32_t)symbolizer_resolve(wrong, (uint32_t)dw, off));
		assert_true(c->flags & SYM_F_UNKNOWN);
	}
	assert_non_null(strstr(symbolizer_dso_info(none, (uint32_t)dn)->note, "no recorded mapping"));
	symbolizer_free(plain);
	symbolizer_free(sy);
	symbolizer_free(none);
	symbolizer_free(wrong);
	rmdir(empty);
}

static void jit_map_resolves_perf_convention(void **state)
{
	char dir[] = "/tmp/pmiprof-jit.XXXXXX", path[256];
	struct symbolizer_opts o = { 0 };
	struct symbolizer *sy;
	const struct sym *s;
	int64_t id;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/perf-4242.map", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "7f0000001000 100 jitted_add\n7f0000002000 80 Interpreter::loop\n");
	fclose(f);
	o.jit_dir = dir;
	sy = new_sy(&o);
	id = symbolizer_resolve_jit(sy, 4242, 0x7f0000002010);
	assert_true(id >= 0);
	s = symbolizer_sym(sy, (uint32_t)id);
	assert_string_equal(s->name, "Interpreter::loop");
	assert_string_equal(symbolizer_dso_info(sy, s->dso)->short_name, "perf-4242.map");
	assert_int_equal(symbolizer_resolve_jit(sy, 4242, 0x7f0000001100), -ENOENT);
	assert_int_equal(symbolizer_resolve_jit(sy, 4243, 0x7f0000001010), -ENOENT);
	symbolizer_free(sy);
	unlink(path);
	rmdir(dir);
}

static void jit_map_parsing_survives_malformed_lines(void **state)
{
	char dir[] = "/tmp/pmiprof-jit.XXXXXX", path[256], longname[5000];
	struct symbolizer_opts o = { 0 };
	struct symbolizer *sy;
	int64_t id;
	FILE *f;

	(void)state;
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/perf-77.map", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "garbage\n\n-1 10 negative\n7f0000004000 10 first\n0x7f0000003000 0x10 "
		"with_prefix\r\n7f0000004000 10 replaced\nffffffffffffff00 1000 wraps\n"
		"7f0000006000 20 %s\n7f0000007000 10\n7f0000005000 8 last_no_newline", longname);
	fclose(f);
	o.jit_dir = dir;
	sy = new_sy(&o);
	id = symbolizer_resolve_jit(sy, 77, 0x7f0000003008);
	assert_true(id >= 0);
	assert_string_equal(symbolizer_sym(sy, (uint32_t)id)->name, "with_prefix");
	/* The same start written twice: the later line describes the code now there. */
	id = symbolizer_resolve_jit(sy, 77, 0x7f0000004000);
	assert_string_equal(symbolizer_sym(sy, (uint32_t)id)->name, "replaced");
	id = symbolizer_resolve_jit(sy, 77, 0x7f0000006010);
	assert_int_equal(strlen(symbolizer_sym(sy, (uint32_t)id)->name), strlen(longname));
	id = symbolizer_resolve_jit(sy, 77, 0x7f0000005007);
	assert_string_equal(symbolizer_sym(sy, (uint32_t)id)->name, "last_no_newline");
	assert_int_equal(symbolizer_resolve_jit(sy, 77, 0x7f0000005008), -ENOENT);
	assert_int_equal(symbolizer_resolve_jit(sy, 77, 0x7f0000007004), -ENOENT);
	assert_int_equal(symbolizer_resolve_jit(sy, 77, 0xffffffffffffff10), -ENOENT);
	symbolizer_free(sy);
	unlink(path);
	rmdir(dir);
}

static void anon_paths_are_jit_memory(void **state)
{
	(void)state;
	assert_true(symbolizer_is_anon("//anon"));
	assert_true(symbolizer_is_anon("[anon:v8 code]"));
	assert_true(symbolizer_is_anon("/memfd:jit (deleted)"));
	assert_true(symbolizer_is_anon("[heap]"));
	assert_true(symbolizer_is_anon("/anon_hugepage (deleted)"));
	assert_false(symbolizer_is_anon("/usr/lib/x86_64-linux-gnu/libc.so.6"));
	assert_false(symbolizer_is_anon("[vdso]"));
	assert_false(symbolizer_is_anon("/tmp/memfd:not-really"));
}

static void dso_notes_survive_table_growth(void **state)
{
	struct symbolizer *sy = new_sy(NULL);
	char path[64];
	int64_t dso;
	uint32_t i;

	(void)state;
	dso = symbolizer_dso(sy, "/nonexistent/first.so", NULL, 0);
	assert_true(dso >= 0);
	assert_true(symbolizer_resolve(sy, (uint32_t)dso, 0x1000) >= 0);
	/* Many more DSOs: the notes of the first must stay readable. */
	for (i = 0; i < 1000; i++) {
		snprintf(path, sizeof(path), "/nonexistent/more%u.so", i);
		assert_true(symbolizer_dso(sy, path, NULL, 0) >= 0);
	}
	assert_non_null(symbolizer_dso_info(sy, (uint32_t)dso)->note);
	assert_non_null(strstr(symbolizer_dso_info(sy, (uint32_t)dso)->note,
			       "cannot read /nonexistent/first.so"));
	symbolizer_free(sy);
}

/* A kernel-only symbolizer over a kallsyms file with this text (path: its name). */
static struct symbolizer *sy_with_kallsyms(char *path, const char *text)
{
	struct symbolizer_opts o = { .kernel = true };
	int fd = mkstemp(path);
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	o.kallsyms = path;
	return new_sy(&o);
}

static void kallsyms_file_resolves_kernel_addresses(void **state)
{
	char path[] = "/tmp/pmiprof-kallsyms.XXXXXX";
	struct symbolizer *sy;
	const struct sym *s;

	(void)state;
	sy = sy_with_kallsyms(path, "ffffffff81000000 T _stext\nffffffff81001000 t do_thing\n"
			      "ffffffff81002000 D some_data\nffffffffc0001000 t mod_fn\t[mymod]\n");
	s = symbolizer_sym(sy, (uint32_t)symbolizer_resolve_kernel(sy, 0xffffffff81001234));
	assert_string_equal(s->name, "do_thing");
	assert_string_equal(symbolizer_dso_info(sy, s->dso)->name, "[kernel.kallsyms]");
	s = symbolizer_sym(sy, (uint32_t)symbolizer_resolve_kernel(sy, 0xffffffffc0001010));
	assert_string_equal(s->name, "mod_fn");
	assert_string_equal(symbolizer_dso_info(sy, s->dso)->name, "[mymod]");
	/* Below the first symbol: [unknown] in the kernel. */
	s = symbolizer_sym(sy, (uint32_t)symbolizer_resolve_kernel(sy, 0xffffffff80000000));
	assert_true(s->flags & SYM_F_UNKNOWN);
	symbolizer_free(sy);
	unlink(path);
}

static void kallsyms_aliases_named_as_perf_chooses(void **state)
{
	char path[] = "/tmp/pmiprof-kallsyms.XXXXXX";
	struct symbolizer *sy;

	(void)state;
	/* Each group shares an address; the winner is never first nor last in the file. */
	sy = sy_with_kallsyms(path, "ffffffff81000000 W weak_fn\nffffffff81000000 T __strong_fn\n"
		"ffffffff81000000 W weak_other\n"
		"ffffffff81001000 t local_fn\nffffffff81001000 T __global_fn\n"
		"ffffffff81001000 t local_fn2\n"
		"ffffffff81002000 T __two\nffffffff81002000 T _one\nffffffff81002000 T __three\n"
		"ffffffff81003000 T short\nffffffff81003000 T longer\nffffffff81003000 T long\n"
		"ffffffff81004000 T SyS_read\nffffffff81004000 T sys_read\n");
#define KNAME(ip) symbolizer_sym(sy, (uint32_t)symbolizer_resolve_kernel(sy, ip))->name
	assert_string_equal(KNAME(0xffffffff81000010), "__strong_fn");
	assert_string_equal(KNAME(0xffffffff81001010), "__global_fn");
	assert_string_equal(KNAME(0xffffffff81002010), "_one");
	assert_string_equal(KNAME(0xffffffff81003010), "longer");
	assert_string_equal(KNAME(0xffffffff81004010), "sys_read");
#undef KNAME
	symbolizer_free(sy);
	unlink(path);
}

/*
 * kallsyms is one ascending run for the kernel and one per module, in load
 * order: the runs are merged, ties keep file order (then perf's alias rule),
 * and every address resolves to the symbol at or below it.
 */
static void kallsyms_module_runs_merge_in_address_order(void **state)
{
	char path[] = "/tmp/pmiprof-kallsyms.XXXXXX";
	struct symbolizer *sy;

	(void)state;
	sy = sy_with_kallsyms(path, "ffffffff81000000 T core_a\nffffffff81002000 T core_b\n"
		"ffffffff81004000 T core_c\n"
		/* module loaded first, at high addresses */
		"ffffffffc0200000 t mod2_x\t[mod2]\nffffffffc0201000 t mod2_y\t[mod2]\n"
		/* a second module below the first one, and a tie with it */
		"ffffffffc0100000 t mod1_x\t[mod1]\nffffffffc0201000 t mod1_z\t[mod1]\n"
		/* a third run, inside the core's range */
		"ffffffff81001000 T core_late\n");
#define KNAME(ip) symbolizer_sym(sy, (uint32_t)symbolizer_resolve_kernel(sy, ip))->name
	assert_string_equal(KNAME(0xffffffff81000010), "core_a");
	assert_string_equal(KNAME(0xffffffff81001010), "core_late");
	assert_string_equal(KNAME(0xffffffff81002010), "core_b");
	assert_string_equal(KNAME(0xffffffff81004010), "core_c");
	assert_string_equal(KNAME(0xffffffffc0100010), "mod1_x");
	assert_string_equal(KNAME(0xffffffffc0200010), "mod2_x");
	/* same address, binding and name length: perf keeps the first in the file */
	assert_string_equal(KNAME(0xffffffffc0201010), "mod2_y");
#undef KNAME
	symbolizer_free(sy);
	unlink(path);
}

static void maps_overlap_fork_exec_and_versions(void **state)
{
	struct maps m;
	const struct map *x;
	uint32_t sp, sp2, child, tag;

	(void)state;
	assert_int_equal(maps_init(&m), 0);
	assert_int_equal(maps_add(&m, 10, 0x1000, 0x3000, 0, 1), 0);
	/* Replaces the middle page: the old map is split around it. */
	assert_int_equal(maps_add(&m, 10, 0x2000, 0x1000, 0x9000, 2), 0);
	sp = maps_space(&m, 10);
	assert_int_not_equal(sp, HM_EMPTY);
	x = maps_find(&m, sp, 0x1800);
	assert_non_null(x);
	assert_int_equal(x->dso, 1);
	x = maps_find(&m, sp, 0x2800);
	assert_int_equal(x->dso, 2);
	assert_int_equal(x->pgoff, 0x9000);
	x = maps_find(&m, sp, 0x3800);
	assert_int_equal(x->dso, 1);
	assert_int_equal(x->pgoff, 0x2000);	/* tail keeps its file offset */
	assert_null(maps_find(&m, sp, 0x4000));
	/* Looked up: a change gives the space a new cache tag; not looked up, none. */
	tag = maps_tag(&m, sp);
	assert_int_equal(maps_add(&m, 10, 0x8000, 0x1000, 0, 3), 0);
	sp2 = maps_space(&m, 10);
	assert_int_equal(sp, sp2);
	assert_int_not_equal(maps_tag(&m, sp2), tag);
	tag = maps_tag(&m, sp2);
	assert_int_equal(maps_add(&m, 10, 0x9000, 0x1000, 0, 3), 0);
	assert_int_equal(maps_tag(&m, sp2), tag);
	assert_int_equal(maps_find(&m, sp2, 0x8000)->dso, 3);
	assert_int_equal(m.total, 5);
	/* A forked child sees the parent's maps; its own mmap does not leak back. */
	assert_int_equal(maps_fork(&m, 10, 11), 0);
	child = maps_space(&m, 11);
	assert_int_equal(maps_find(&m, child, 0x1800)->dso, 1);
	assert_int_equal(maps_add(&m, 11, 0x1000, 0x1000, 0, 4), 0);
	assert_int_not_equal(maps_space(&m, 11), child);
	assert_int_equal(maps_find(&m, maps_space(&m, 11), 0x1800)->dso, 4);
	assert_int_equal(maps_find(&m, maps_space(&m, 10), 0x1800)->dso, 1);
	assert_int_equal(m.total, 10);	/* the child's copy: 5 maps, one replaced in place */
	/* exec starts from nothing, and frees what no process uses any more. */
	tag = maps_tag(&m, maps_space(&m, 10));
	assert_int_equal(maps_exec(&m, 10), 0);
	assert_int_not_equal(maps_tag(&m, maps_space(&m, 10)), tag);
	assert_null(maps_find(&m, maps_space(&m, 10), 0x1800));
	assert_int_equal(m.total, 5);
	assert_int_equal(m.dropped, 0);
	maps_free(&m);
}

static void strtab_and_hashmap_grow_and_keep_ids(void **state)
{
	struct strtab t;
	struct hashmap h;
	char buf[32];
	uint32_t i;

	(void)state;
	assert_int_equal(strtab_init(&t), 0);
	assert_int_equal(hm_init(&h, 1), 0);
	for (i = 0; i < 20000; i++) {
		snprintf(buf, sizeof(buf), "s%u", i);
		assert_int_equal(strtab_intern(&t, buf), i);
		assert_int_equal(hm_put(&h, (uint64_t)i * 4096, i & 7, i), 0);
	}
	for (i = 0; i < 20000; i += 997) {
		snprintf(buf, sizeof(buf), "s%u", i);
		assert_int_equal(strtab_intern(&t, buf), i);
		assert_int_equal(strtab_find(&t, buf), i);
		assert_int_equal(hm_get(&h, (uint64_t)i * 4096, i & 7), i);
		assert_int_equal(hm_get(&h, (uint64_t)i * 4096, (i + 1) & 7), HM_EMPTY);
	}
	assert_int_equal(strtab_find(&t, "absent"), -1);
	strtab_free(&t);
	hm_free(&h);
}

/* A PLT stub has no symbol: it is named [plt], not [unknown] with a "stripped?" note. */
/* The name of this program's function at fn, found through the symbolizer. */
static const char *own_name(struct symbolizer *sy, int (*fn)(int))
{
	uintptr_t ip = (uintptr_t)fn + 1;
	struct mapping m;
	int64_t dso, id;

	assert_int_equal(find_mapping((void *)ip, &m), 0);
	dso = symbolizer_dso(sy, m.path, NULL, 0);
	assert_true(dso >= 0);
	id = symbolizer_resolve(sy, (uint32_t)dso, ip - m.start + m.pgoff);
	assert_true(id >= 0);
	return symbolizer_sym(sy, (uint32_t)id)->name;
}

static void aliases_named_as_perf_chooses(void **state)
{
	struct symbolizer *sy = new_sy(NULL);

	(void)state;
	assert_string_equal(own_name(sy, alias_weak_of_local), "__alias_hidden");
	assert_string_equal(own_name(sy, alias_weak), "__alias_strong");
	assert_string_equal(own_name(sy, alias_local), "__alias_global");
	assert_string_equal(own_name(sy, __alias_two), "_alias_one_underscore");
	assert_string_equal(own_name(sy, alias_short), "alias_short_longer");
	symbolizer_free(sy);
}

static void plt_stub_is_named_plt(void **state)
{
	struct symbolizer *sy = new_sy(NULL);
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	uint64_t plt_off = 0;
	const struct sym *s;
	int64_t dso, id;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	Elf *elf;
	int fd;

	(void)state;
	assert_true(n > 0);
	exe[n] = 0;
	elf_version(EV_CURRENT);
	fd = open(exe, O_RDONLY);
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strncmp(name, ".plt", 4) && sh.sh_size > 16) {
			plt_off = sh.sh_offset + 16;
			break;
		}
	}
	elf_end(elf);
	close(fd);
	if (!plt_off) {
		symbolizer_free(sy);
		skip();
	}
	dso = symbolizer_dso(sy, exe, NULL, 0);
	assert_true(dso >= 0);
	id = symbolizer_resolve(sy, (uint32_t)dso, plt_off);
	assert_true(id >= 0);
	s = symbolizer_sym(sy, (uint32_t)id);
	assert_string_equal(s->name, "[plt]");
	assert_null(symbolizer_dso_info(sy, s->dso)->note);
	symbolizer_free(sy);
}

/*
 * An offset of a DSO is looked up in libdwfl once, whatever address space
 * (session tag) asks for it again: dwfl_module_addrinfo scans the symbol table.
 */
/*
 * The symbolizer's copy of libdwfl's lookup rules names every byte of
 * every executable file this test maps (its own PIE with locals, aliases
 * and sizeless labels; libc and ld.so with only .dynsym; libdw, zlib...)
 * exactly as dwfl_module_addrinfo does (opts.dwfl_lookups), bounds,
 * aliases and [plt] alike.
 */
static void function_lookup_matches_libdwfl_everywhere(void **state)
{
	struct symbolizer_opts od = { .dwfl_lookups = true };
	struct symbolizer *own = new_sy(NULL), *dw = new_sy(&od);
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096 + 256], perm[8], path[4096];
	uint64_t start, end, pgoff, off, step, checked = 0;
	uint32_t files = 0;

	(void)state;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		int64_t d1, d2, a, b;

		path[0] = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %4095s", &start,
			   &end, perm, &pgoff, path) != 5 || perm[2] != 'x' || path[0] != '/')
			continue;
		d1 = symbolizer_dso(own, path, NULL, 0);
		d2 = symbolizer_dso(dw, path, NULL, 0);
		assert_true(d1 >= 0 && d2 >= 0);
		/* every byte of small files; of big ones (libc, libdw) every fifth (~3 s less) */
		step = end - start < (512u << 10) ? 1 : 5;
		for (off = pgoff; off < pgoff + (end - start); off += step, checked++) {
			a = symbolizer_resolve(own, (uint32_t)d1, off);
			b = symbolizer_resolve(dw, (uint32_t)d2, off);
			assert_true(a >= 0 && b >= 0);
			if (strcmp(symbolizer_sym(own, (uint32_t)a)->name,
				   symbolizer_sym(dw, (uint32_t)b)->name))
				fail_msg("%s+0x%" PRIx64 ": %s, libdwfl says %s", path, off,
					 symbolizer_sym(own, (uint32_t)a)->name,
					 symbolizer_sym(dw, (uint32_t)b)->name);
		}
		files++;
	}
	fclose(f);
	assert_true(files >= 3);
	assert_true(checked > 100000);
	symbolizer_free(own);
	symbolizer_free(dw);
}

static void dso_offset_looked_up_once(void **state)
{
	struct symbolizer *sy = new_sy(NULL);
	uintptr_t ip = (uintptr_t)alias_weak + 1;
	struct mapping m;
	int64_t dso, a, b;

	(void)state;
	assert_int_equal(find_mapping((void *)ip, &m), 0);
	dso = symbolizer_dso(sy, m.path, NULL, 0);
	assert_true(dso >= 0);
	a = symbolizer_resolve(sy, (uint32_t)dso, ip - m.start + m.pgoff);
	assert_true(a >= 0);
	assert_int_equal(symbolizer_lookups(sy), 1);
	b = symbolizer_resolve(sy, (uint32_t)dso, ip - m.start + m.pgoff);
	assert_int_equal(b, a);
	assert_int_equal(symbolizer_lookups(sy), 1);
	symbolizer_free(sy);
}

/*
 * Addresses between the same two symbol bounds (starts and ends of every
 * symbol) have the same covering symbols: one libdwfl lookup answers them
 * all, and an address in another function is looked up anew.
 */
static void addresses_within_one_symbol_looked_up_once(void **state)
{
	struct symbolizer *sy = new_sy(NULL);
	uintptr_t ip = (uintptr_t)alias_weak;
	struct mapping m;
	int64_t dso, a, b, c;

	(void)state;
	assert_int_equal(find_mapping((void *)ip, &m), 0);
	dso = symbolizer_dso(sy, m.path, NULL, 0);
	assert_true(dso >= 0);
	a = symbolizer_resolve(sy, (uint32_t)dso, ip + 1 - m.start + m.pgoff);
	b = symbolizer_resolve(sy, (uint32_t)dso, ip + 2 - m.start + m.pgoff);
	assert_true(a >= 0);
	assert_int_equal(b, a);
	assert_int_equal(symbolizer_lookups(sy), 1);
	c = symbolizer_resolve(sy, (uint32_t)dso, (uintptr_t)alias_local + 1 - m.start + m.pgoff);
	assert_true(c >= 0 && c != a);
	assert_int_equal(symbolizer_lookups(sy), 2);
	assert_string_equal(symbolizer_sym(sy, (uint32_t)b)->name, "__alias_strong");
	symbolizer_free(sy);
}

/*
 * The interval cache sits under the function lookup that --inline chains use
 * too: with inline frames on, flat and chain resolution of addresses in one
 * symbol make one libdwfl lookup between them.
 */
static void inline_chains_within_one_symbol_looked_up_once(void **state)
{
	struct symbolizer_opts o = { .inline_frames = true };
	struct symbolizer *sy = new_sy(&o);
	uintptr_t ip = (uintptr_t)alias_weak;
	const uint32_t *chain;
	struct mapping m;
	int64_t dso, a, c;
	uint32_t nr;

	(void)state;
	assert_int_equal(find_mapping((void *)ip, &m), 0);
	dso = symbolizer_dso(sy, m.path, NULL, 0);
	assert_true(dso >= 0);
	a = symbolizer_resolve(sy, (uint32_t)dso, ip + 1 - m.start + m.pgoff);
	assert_true(a >= 0);
	c = symbolizer_resolve_inline(sy, (uint32_t)dso, ip + 2 - m.start + m.pgoff);
	assert_true(c >= 0);
	chain = symbolizer_inline_chain(sy, (uint32_t)c, &nr);
	assert_true(nr >= 1);
	assert_string_equal(symbolizer_sym(sy, chain[nr - 1])->name, "__alias_strong");
	assert_int_equal(symbolizer_lookups(sy), 1);
	symbolizer_free(sy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(resolves_own_pie_function),
		cmocka_unit_test(plt_stub_is_named_plt),
		cmocka_unit_test(dso_offset_looked_up_once),
		cmocka_unit_test(function_lookup_matches_libdwfl_everywhere),
		cmocka_unit_test(addresses_within_one_symbol_looked_up_once),
		cmocka_unit_test(inline_chains_within_one_symbol_looked_up_once),
		cmocka_unit_test(resolves_shared_library_function),
		cmocka_unit_test(srcline_names_file_and_line),
		cmocka_unit_test(missing_binary_is_unknown_with_note),
		cmocka_unit_test(build_id_mismatch_is_noted),
		cmocka_unit_test(debug_file_placed_by_recorded_mapping),
		cmocka_unit_test(jit_map_resolves_perf_convention),
		cmocka_unit_test(jit_map_parsing_survives_malformed_lines),
		cmocka_unit_test(anon_paths_are_jit_memory),
		cmocka_unit_test(dso_notes_survive_table_growth),
		cmocka_unit_test(kallsyms_file_resolves_kernel_addresses),
		cmocka_unit_test(kallsyms_aliases_named_as_perf_chooses),
		cmocka_unit_test(kallsyms_module_runs_merge_in_address_order),
		cmocka_unit_test(aliases_named_as_perf_chooses),
		cmocka_unit_test(maps_overlap_fork_exec_and_versions),
		cmocka_unit_test(strtab_and_hashmap_grow_and_keep_ids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
