/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86-64 disassembly for annotate, with capstone (Debian's libcapstone,
 * the library perf links for the same job): one instruction at a time,
 * its text in AT&T or Intel syntax, its length, and for direct jumps and
 * calls their target, so the caller can label branches.  Never objdump.
 */
#ifndef PMIPROF_REPORT_DISASM_H
#define PMIPROF_REPORT_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum disasm_syntax { DISASM_ATT, DISASM_INTEL };

struct disasm;

struct insn {
	uint64_t addr;
	uint32_t len;		/* 0: the bytes at addr do not decode */
	bool is_jump;		/* a jump (conditional or not) */
	bool is_call;
	bool is_ret;
	bool has_target;	/* a direct jump or call: target is its destination */
	uint64_t target;
	char mnemonic[32];
	char operands[160];
};

/* 0 or -errno (-ENOMEM, -EINVAL when the library refuses the mode). */
int disasm_open(struct disasm **out, enum disasm_syntax syntax);
void disasm_close(struct disasm *d);
/*
 * Decode the instruction at code[0..size) (link address addr) into *in:
 * true, or false when the bytes are no valid instruction (in->len 0).
 */
bool disasm_one(struct disasm *d, const uint8_t *code, size_t size, uint64_t addr,
		struct insn *in);
/* The library and its version, for the report's header ("capstone 4.0"). */
const char *disasm_library(char *buf, size_t size);

#endif /* PMIPROF_REPORT_DISASM_H */
