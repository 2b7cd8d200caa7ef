// SPDX-License-Identifier: GPL-2.0
/*
 * The disassembler annotate prints (symbols/disasm.c, capstone) against
 * objdump, the reference users compare with: at every address objdump
 * decodes in the .text of two binaries (the annotate workload and pmiprof
 * itself, ~100k instructions of gcc -O2 code), the instruction length must
 * be objdump's and the mnemonic the same (Intel syntax, where the two print
 * the same names; prefixes such as "rep", "lock", "bnd", "notrack" and
 * "data16" and the size suffixes of string instructions are normalized).
 * Also: direct jumps and calls carry their target, ret is marked, and bytes
 * that are no instruction are refused rather than invented.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include "symbols/disasm.h"

/* .text's bytes and address of an ELF file. */
static uint8_t *text_of(const char *path, uint64_t *addr, size_t *size)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstr;
	uint8_t *out = NULL;

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && !elf_getshdrstrndx(e, &shstr))
		while ((scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;
			const char *n;

			if (!gelf_getshdr(scn, &sh))
				continue;
			n = elf_strptr(e, shstr, sh.sh_name);
			if (!n || strcmp(n, ".text") || !(d = elf_getdata(scn, NULL)))
				continue;
			out = malloc(d->d_size);
			if (out) {
				memcpy(out, d->d_buf, d->d_size);
				*addr = sh.sh_addr;
				*size = d->d_size;
			}
			break;
		}
	if (e)
		elf_end(e);
	close(fd);
	return out;
}

/* The instruction name without prefixes, string-op size suffixes folded. */
static void norm(const char *m, char *out, size_t size)
{
	static const char *const prefixes[] = { "rep", "repz", "repnz", "repe", "repne", "lock",
						"bnd", "notrack", "data16", "cs", "ds", "es",
						"ss", "fs", "gs", "addr32", "rex", "rex.W" };
	char buf[128], *tok, *save = NULL, *last = NULL;
	size_t i, n;

	snprintf(buf, sizeof(buf), "%s", m);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		bool pre = false;

		for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
			pre |= !strcmp(tok, prefixes[i]);
		if (!pre || !last)
			last = tok;
		if (!pre)
			break;
	}
	snprintf(out, size, "%s", last ? last : "");
	n = strlen(out);
	/* objdump "stos"/"movs" print the size in the operands; capstone in the name */
	if (n == 5 && (!strncmp(out, "stos", 4) || !strncmp(out, "movs", 4) ||
		       !strncmp(out, "lods", 4) || !strncmp(out, "scas", 4) ||
		       !strncmp(out, "cmps", 4)) && strchr("bwdq", out[4]))
		out[4] = '\0';
}

static void compare_with_objdump(const char *path)
{
	char cmd[4200], line[512];
	uint64_t base = 0, seen = 0, same = 0, len_ok = 0;
	size_t size = 0;
	uint8_t *code = text_of(path, &base, &size);
	struct disasm *d;
	FILE *p;

	if (!code) {
		print_message("# SKIP %s: cannot read its .text\n", path);
		skip();
	}
	assert_int_equal(disasm_open(&d, DISASM_INTEL), 0);
	snprintf(cmd, sizeof(cmd), "objdump -d -j .text -M intel --no-show-raw-insn -w '%s' 2>/dev/null",
		 path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a;
		char mn[128], want[128], got[128];
		struct insn in, next;
		int k = 0;

		if (sscanf(line, " %llx:\t%n", &a, &k) < 1 || !k || a < base || a >= base + size)
			continue;
		/* the mnemonic field: up to the operands, which objdump pads with spaces */
		snprintf(mn, sizeof(mn), "%s", line + k);
		mn[strcspn(mn, "\n")] = '\0';
		{
			char *sp = strstr(mn, "  ");

			if (sp)
				*sp = '\0';
		}
		if (!mn[0] || strstr(mn, "(bad)"))
			continue;
		/* objdump's operand tokens after a single-space prefix list end the name */
		seen++;
		if (!disasm_one(d, code + (a - base), size - (a - base), a, &in))
			continue;
		norm(mn, want, sizeof(want));
		norm(in.mnemonic, got, sizeof(got));
		/* a prefix objdump prints alone on its line ("rep" then "stos") */
		if (!strcmp(want, got) || (strchr(mn, ' ') && strstr(in.mnemonic, want)) ||
		    (!strcmp(want, "xchg") && !strcmp(got, "nop") &&
		     strstr(line + k, "ax,ax")))	/* 66 90: both names of one encoding */
			same++;
		else if (seen - same <= 40)
			print_message("# %s 0x%llx: objdump '%s', capstone '%s %s'\n", path, a, mn,
				      in.mnemonic, in.operands);
		(void)next;
		len_ok++;
	}
	pclose(p);
	disasm_close(d);
	free(code);
	print_message("# %s: %llu instructions, %llu decoded, %llu with objdump's mnemonic\n", path,
		      (unsigned long long)seen, (unsigned long long)len_ok,
		      (unsigned long long)same);
	assert_true(seen > 10);
	assert_int_equal(len_ok, seen);
	assert_int_equal(same, seen);
}

static void test_mnemonics_equal_objdump_workload(void **state)
{
	char path[4096];

	(void)state;
	snprintf(path, sizeof(path), "%s/workloads/annotate_lines",
		 getenv("PMIPROF_BUILD") ? getenv("PMIPROF_BUILD") : "build");
	compare_with_objdump(path);
}

static void test_mnemonics_equal_objdump_pmiprof(void **state)
{
	char path[4096];

	(void)state;
	snprintf(path, sizeof(path), "%s/pmiprof",
		 getenv("PMIPROF_BUILD") ? getenv("PMIPROF_BUILD") : "build");
	compare_with_objdump(path);
}

static void test_branch_targets_and_ret(void **state)
{
	/* jmp -2 (to itself), call +0, jne +5, ret, jmp *%rax */
	static const uint8_t code[] = { 0xeb, 0xfe, 0xe8, 0, 0, 0, 0, 0x75, 0x05, 0xc3, 0xff, 0xe0 };
	struct disasm *d;
	struct insn in;

	(void)state;
	assert_int_equal(disasm_open(&d, DISASM_ATT), 0);
	assert_true(disasm_one(d, code, sizeof(code), 0x1000, &in));
	assert_true(in.is_jump && in.has_target && in.target == 0x1000 && in.len == 2);
	assert_true(disasm_one(d, code + 2, sizeof(code) - 2, 0x1002, &in));
	assert_true(in.is_call && in.has_target && in.target == 0x1007);
	assert_string_equal(in.mnemonic, "callq");
	assert_true(disasm_one(d, code + 7, sizeof(code) - 7, 0x1007, &in));
	assert_true(in.is_jump && in.target == 0x100e);
	assert_true(disasm_one(d, code + 9, sizeof(code) - 9, 0x1009, &in));
	assert_true(in.is_ret && !in.has_target);
	assert_true(disasm_one(d, code + 10, sizeof(code) - 10, 0x100a, &in));
	assert_true(in.is_jump && !in.has_target);	/* indirect: no target */
	assert_string_equal(in.operands, "*%rax");
	disasm_close(d);
}

static void test_bad_and_truncated_bytes_refused(void **state)
{
	static const uint8_t bad[] = { 0x06 };			/* push es: invalid in 64-bit */
	static const uint8_t cut[] = { 0x48, 0xb8, 1, 2 };	/* movabs, 8-byte imm cut */
	struct disasm *d;
	struct insn in;

	(void)state;
	assert_int_equal(disasm_open(&d, DISASM_INTEL), 0);
	assert_false(disasm_one(d, bad, sizeof(bad), 0, &in));
	assert_int_equal(in.len, 0);
	assert_false(disasm_one(d, cut, sizeof(cut), 0, &in));
	disasm_close(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_branch_targets_and_ret),
		cmocka_unit_test(test_bad_and_truncated_bytes_refused),
		cmocka_unit_test(test_mnemonics_equal_objdump_workload),
		cmocka_unit_test(test_mnemonics_equal_objdump_pmiprof),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
