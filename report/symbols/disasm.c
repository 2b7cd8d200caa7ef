// SPDX-License-Identifier: GPL-2.0
/*
 * disasm.h over capstone: one handle per pass (cs_open is costly), one
 * reusable cs_insn (cs_disasm_iter), details on for the branch groups
 * and the immediate target of direct jumps and calls.
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/disasm.h"

struct disasm {
	csh h;
	cs_insn *ci;
};

int disasm_open(struct disasm **out, enum disasm_syntax syntax)
{
	struct disasm *d = calloc(1, sizeof(*d));

	*out = NULL;
	if (!d)
		return -ENOMEM;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->h) != CS_ERR_OK) {
		free(d);
		return -EINVAL;
	}
	cs_option(d->h, CS_OPT_DETAIL, CS_OPT_ON);
	if (syntax == DISASM_ATT)
		cs_option(d->h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	d->ci = cs_malloc(d->h);
	if (!d->ci) {
		cs_close(&d->h);
		free(d);
		return -ENOMEM;
	}
	*out = d;
	return 0;
}

void disasm_close(struct disasm *d)
{
	if (!d)
		return;
	cs_free(d->ci, 1);
	cs_close(&d->h);
	free(d);
}

static bool in_group(const cs_detail *det, uint8_t g)
{
	uint8_t i;

	for (i = 0; i < det->groups_count; i++)
		if (det->groups[i] == g)
			return true;
	return false;
}

bool disasm_one(struct disasm *d, const uint8_t *code, size_t size, uint64_t addr,
		struct insn *in)
{
	const uint8_t *p = code;
	uint64_t a = addr;
	const cs_detail *det;

	memset(in, 0, sizeof(*in));
	in->addr = addr;
	if (!cs_disasm_iter(d->h, &p, &size, &a, d->ci))
		return false;
	in->len = d->ci->size;
	snprintf(in->mnemonic, sizeof(in->mnemonic), "%s", d->ci->mnemonic);
	snprintf(in->operands, sizeof(in->operands), "%s", d->ci->op_str);
	det = d->ci->detail;
	if (!det)
		return true;
	in->is_jump = in_group(det, CS_GRP_JUMP);
	in->is_call = in_group(det, CS_GRP_CALL);
	in->is_ret = in_group(det, CS_GRP_RET) || in_group(det, CS_GRP_IRET);
	if ((in->is_jump || in->is_call) && det->x86.op_count == 1 &&
	    det->x86.operands[0].type == X86_OP_IMM) {
		in->has_target = true;
		in->target = (uint64_t)det->x86.operands[0].imm;
	}
	return true;
}

const char *disasm_library(char *buf, size_t size)
{
	int major = 0, minor = 0;

	cs_version(&major, &minor);
	snprintf(buf, size, "capstone %d.%d", major, minor);
	return buf;
}
