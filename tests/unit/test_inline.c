// SPDX-License-Identifier: GPL-2.0
/*
 * symbolizer_resolve_inline() on a binary built here (cc -O2 -g) with a
 * known inline chain: path_a -> inl_outer -> inl_mid -> inl_inner and
 * path_b -> inl_mid -> inl_inner, the inl_* functions always_inline.  Every
 * address of path_a and path_b is resolved; the chains must name the levels
 * innermost first with the physical function last, carry the call sites as
 * source lines, be cached and shared, and collapse to symbolizer_resolve()'s
 * symbol where there is no DWARF (the same binary with its debug info
 * stripped).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "symbols/symbols.h"

/* Each line that a chain must point at carries a marker comment. */
static const char src[] =
	"#include <stdint.h>\n"
	"volatile uint64_t sink;\n"
	"static inline __attribute__((always_inline)) uint64_t inl_inner(uint64_t n, uint64_t x)\n"
	"{\n"
	"	for (uint64_t i = 0; i < n; i++) {\n"
	"		x = x * 6364136223846793005ull + i; /* BODY */\n"
	"		__asm__ volatile(\"\" : \"+r\"(x));\n"
	"	}\n"
	"	return x;\n"
	"}\n"
	"static inline __attribute__((always_inline)) uint64_t inl_mid(uint64_t n, uint64_t x)\n"
	"{\n"
	"	return inl_inner(n, x ^ 0x3c3c) + 1; /* CALL_INNER */\n"
	"}\n"
	"static inline __attribute__((always_inline)) uint64_t inl_outer(uint64_t n, uint64_t x)\n"
	"{\n"
	"	return inl_mid(n, x * 7) * 3; /* CALL_MID */\n"
	"}\n"
	"__attribute__((noinline)) uint64_t path_a(uint64_t u)\n"
	"{\n"
	"	uint64_t acc = 0;\n"
	"	for (uint64_t k = 0; k < u; k++)\n"
	"		acc += inl_outer(1000, acc + k); /* CALL_OUTER */\n"
	"	return acc;\n"
	"}\n"
	"__attribute__((noinline)) uint64_t path_b(uint64_t u)\n"
	"{\n"
	"	uint64_t acc = 0;\n"
	"	for (uint64_t k = 0; k < u; k++)\n"
	"		acc += inl_mid(1000, acc ^ k); /* B_CALL_MID */\n"
	"	return acc;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	(void)argv;\n"
	"	sink = path_a((uint64_t)argc) + path_b((uint64_t)argc);\n"
	"	return 0;\n"
	"}\n";

static char dir[] = "/tmp/pmiprof-test-inline-XXXXXX";
static char bin[128], stripped[128];

/* "inl.c:N" for the line carrying marker. */
static void line_of(const char *marker, char *out, size_t size)
{
	const char *p = strstr(src, marker), *q;
	int line = 1;

	assert_non_null(p);
	for (q = src; q < p; q++)
		line += *q == '\n';
	snprintf(out, size, "inl.c:%d", line);
}

/* File offsets [*lo, *hi) of function name in path (symtab value/size through PT_LOAD). */
static void func_range(const char *path, const char *name, uint64_t *lo, uint64_t *hi)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	GElf_Phdr ph;
	size_t i, nph;
	bool found = false;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	while (!found && (scn = elf_nextscn(e, scn))) {
		Elf_Data *d;

		gelf_getshdr(scn, &sh);
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			gelf_getsym(d, (int)i, &sym);
			if (!strcmp(elf_strptr(e, sh.sh_link, sym.st_name), name)) {
				found = true;
				break;
			}
		}
	}
	assert_true(found);
	assert_int_equal(elf_getphdrnum(e, &nph), 0);
	found = false;
	for (i = 0; i < nph; i++) {
		gelf_getphdr(e, (int)i, &ph);
		if (ph.p_type == PT_LOAD && sym.st_value >= ph.p_vaddr &&
		    sym.st_value < ph.p_vaddr + ph.p_filesz) {
			*lo = sym.st_value - ph.p_vaddr + ph.p_offset;
			*hi = *lo + sym.st_size;
			found = true;
		}
	}
	assert_true(found);
	elf_end(e);
	close(fd);
}

static int setup(void **state)
{
	char cmd[512];
	FILE *f;

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(bin, sizeof(bin), "%s/inl", dir);
	snprintf(stripped, sizeof(stripped), "%s/inl.stripped", dir);
	snprintf(cmd, sizeof(cmd), "%s/inl.c", dir);
	f = fopen(cmd, "w");
	if (!f)
		return -1;
	fputs(src, f);
	fclose(f);
	/* Relative source path: the DWARF file names are "inl.c". */
	snprintf(cmd, sizeof(cmd), "cd %s && cc -O2 -g -fno-omit-frame-pointer -o inl inl.c "
		 ">/dev/null 2>&1 && strip --strip-debug -o inl.stripped inl", dir);
	if (system(cmd))
		bin[0] = '\0';
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? -1 : 0;
}

static struct symbolizer *new_sy(bool srcline)
{
	struct symbolizer_opts o = { .srcline = srcline, .inline_frames = true };
	struct symbolizer *sy;

	assert_int_equal(symbolizer_new(&sy, &o), 0);
	return sy;
}

static void need_bin(void)
{
	if (!bin[0])
		skip();
}

/* What scan() saw over a function's addresses. */
struct seen {
	uint32_t chains_of_len[8];
	bool full;		/* the expected chain was seen */
};

static void scan(struct symbolizer *sy, uint32_t dso, const char *fn, const char *const *want,
		 const char *const *want_src, uint32_t nwant, struct seen *s)
{
	uint64_t lo, hi, off;

	func_range(bin, fn, &lo, &hi);
	memset(s, 0, sizeof(*s));
	for (off = lo; off < hi; off++) {
		int64_t id = symbolizer_resolve_inline(sy, dso, off);
		const uint32_t *syms;
		uint32_t nr, i;

		assert_true(id >= 0);
		syms = symbolizer_inline_chain(sy, (uint32_t)id, &nr);
		assert_true(nr >= 1 && nr < 8);
		s->chains_of_len[nr]++;
		/* The physical frame is always fn, never marked inline; the rest are. */
		assert_string_equal(symbolizer_sym(sy, syms[nr - 1])->name, fn);
		assert_false(symbolizer_sym(sy, syms[nr - 1])->flags & SYM_F_INLINE);
		for (i = 0; i + 1 < nr; i++)
			assert_true(symbolizer_sym(sy, syms[i])->flags & SYM_F_INLINE);
		if (nr != nwant)
			continue;
		for (i = 0; i < nr; i++)
			if (strcmp(symbolizer_sym(sy, syms[i])->name, want[i]) ||
			    (want_src && want_src[i] && (!symbolizer_sym(sy, syms[i])->srcline ||
			     strcmp(symbolizer_sym(sy, syms[i])->srcline, want_src[i]))))
				break;
		if (i == nr)
			s->full = true;
	}
}

static void test_inline_chain_names_levels_innermost_first(void **state)
{
	static const char *const a[] = { "inl_inner", "inl_mid", "inl_outer", "path_a" };
	static const char *const b[] = { "inl_inner", "inl_mid", "path_b" };
	struct symbolizer *sy;
	struct seen s;
	int64_t dso;

	(void)state;
	need_bin();
	sy = new_sy(false);
	dso = symbolizer_dso(sy, bin, NULL, 0);
	assert_true(dso >= 0);
	scan(sy, (uint32_t)dso, "path_a", a, NULL, 4, &s);
	assert_true(s.full);
	assert_int_equal(s.chains_of_len[5] + s.chains_of_len[6] + s.chains_of_len[7], 0);
	scan(sy, (uint32_t)dso, "path_b", b, NULL, 3, &s);
	assert_true(s.full);
	/* path_b never inlines inl_outer: no chain of 4 there. */
	assert_int_equal(s.chains_of_len[4], 0);
	symbolizer_free(sy);
}

static void test_inline_chain_srclines_are_call_sites(void **state)
{
	char body[32], ci[32], cm[32], co[32], bcm[32];
	const char *a[] = { "inl_inner", "inl_mid", "inl_outer", "path_a" };
	const char *as[] = { body, ci, cm, co };
	const char *b[] = { "inl_inner", "inl_mid", "path_b" };
	const char *bs[] = { body, ci, bcm };
	struct symbolizer *sy;
	struct seen s;
	int64_t dso;

	(void)state;
	need_bin();
	line_of("/* BODY */", body, sizeof(body));
	line_of("/* CALL_INNER */", ci, sizeof(ci));
	line_of("/* CALL_MID */", cm, sizeof(cm));
	line_of("/* CALL_OUTER */", co, sizeof(co));
	line_of("/* B_CALL_MID */", bcm, sizeof(bcm));
	sy = new_sy(true);
	dso = symbolizer_dso(sy, bin, NULL, 0);
	assert_true(dso >= 0);
	scan(sy, (uint32_t)dso, "path_a", a, as, 4, &s);
	assert_true(s.full);
	scan(sy, (uint32_t)dso, "path_b", b, bs, 3, &s);
	assert_true(s.full);
	symbolizer_free(sy);
}

static void test_inline_chain_cached_shared_and_physical_is_plain_symbol(void **state)
{
	struct symbolizer *sy;
	uint64_t lo, hi, off, plain_off = 0, lookups;
	int64_t dso, id, id2, first_full = -1;
	uint32_t nr, nr_full = 0, ids_full = 0;
	const uint32_t *syms;
	uint32_t seen[4096] = { 0 };

	(void)state;
	need_bin();
	sy = new_sy(false);
	dso = symbolizer_dso(sy, bin, NULL, 0);
	func_range(bin, "path_a", &lo, &hi);
	for (off = lo; off < hi; off++) {
		id = symbolizer_resolve_inline(sy, (uint32_t)dso, off);
		assert_true(id >= 0 && id < 4096);
		syms = symbolizer_inline_chain(sy, (uint32_t)id, &nr);
		if (nr == 4) {
			nr_full++;
			if (!seen[id]++)
				ids_full++;
			if (first_full < 0)
				first_full = (int64_t)off;
		} else if (nr == 1) {
			plain_off = off;
		}
	}
	/* Many addresses, one chain: equal chains share their id. */
	assert_true(nr_full > 1);
	assert_int_equal(ids_full, 1);
	/* Cached per (dso, offset): no second lookup. */
	lookups = symbolizer_lookups(sy);
	id = symbolizer_resolve_inline(sy, (uint32_t)dso, (uint64_t)first_full);
	id2 = symbolizer_resolve_inline(sy, (uint32_t)dso, (uint64_t)first_full);
	assert_int_equal(id, id2);
	assert_int_equal(symbolizer_lookups(sy), lookups);
	/* The physical frame is the function's own symbol, as without --inline. */
	syms = symbolizer_inline_chain(sy, (uint32_t)id, &nr);
	assert_int_equal(nr, 4);
	assert_true(plain_off);
	assert_int_equal(syms[3], symbolizer_resolve(sy, (uint32_t)dso, plain_off));
	/* The flat report's name of the inlined address stays as it was. */
	assert_string_equal(symbolizer_sym(sy, (uint32_t)symbolizer_resolve(sy, (uint32_t)dso,
						(uint64_t)first_full))->name,
			    "inl_inner (inlined in path_a)");
	symbolizer_free(sy);
}

static void test_inline_chain_without_dwarf_is_the_symbol(void **state)
{
	struct symbolizer *sy;
	uint64_t lo, hi, off;
	int64_t dso;

	(void)state;
	need_bin();
	sy = new_sy(false);
	dso = symbolizer_dso(sy, stripped, NULL, 0);
	func_range(stripped, "path_a", &lo, &hi);
	for (off = lo; off < hi; off++) {
		int64_t id = symbolizer_resolve_inline(sy, (uint32_t)dso, off);
		const uint32_t *syms;
		uint32_t nr;

		assert_true(id >= 0);
		syms = symbolizer_inline_chain(sy, (uint32_t)id, &nr);
		assert_int_equal(nr, 1);
		assert_int_equal(syms[0], symbolizer_resolve(sy, (uint32_t)dso, off));
		assert_string_equal(symbolizer_sym(sy, syms[0])->name, "path_a");
	}
	symbolizer_free(sy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inline_chain_names_levels_innermost_first),
		cmocka_unit_test(test_inline_chain_srclines_are_call_sites),
		cmocka_unit_test(test_inline_chain_cached_shared_and_physical_is_plain_symbol),
		cmocka_unit_test(test_inline_chain_without_dwarf_is_the_symbol),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
