// SPDX-License-Identifier: GPL-2.0
/*
 * Offline unwinding of recorded user stacks (see unwind.h) with libunwind's
 * remote interface: our accessors serve registers from the USTACK record,
 * memory from its stack copy and from the mapped ELF files (read-only
 * segments, as the process had them mapped), and unwind tables from each
 * file's .eh_frame_hdr search table (.debug_frame where the libunwind build
 * exports dwarf_find_debug_frame; Debian's does not).
 *
 * Speed comes from caching everything that does not depend on the sample:
 * a file's segments and table location once per DSO (path + build-id), and
 * one libunwind address space per process address space, so libunwind's own
 * register-state cache (keyed by IP) makes most steps a hash lookup.  That
 * cache is flushed when the process's maps change (maps_tag).  perf and
 * hotspot redo much of this per sample.
 *
 * In front of libunwind sits a fast path: CFI rows that are plain register
 * + offset rules, compiled once per address range from libdw's view of the
 * file's .eh_frame and kept sorted per file, stepped in plain C with
 * libunwind's semantics.  Anything else is libunwind's (it takes over
 * mid-chain); PMIPROF_UNWIND=libunwind disables the fast path.  Debian's
 * libunwind makes two sigprocmask() calls per step, which the fast path saves.
 *
 * Hostile input (registers pointing anywhere, random stack bytes) only ever
 * reaches libunwind as values our accessors bounds-check; the CFI comes from
 * the files.  A chain stops on an undefined return address (complete), or on
 * a missing CFI, a read outside the stack copy and the files, an address in
 * no mapping, a loop or the step limit (truncated).
 */
#include "stacks/unwind.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <libunwind.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "input/maps.h"
#include "symbols/symbols.h"

/* Never exported in a header: perf declares them the same way. */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);
/* Only in libunwind builds with --enable-debug-frame that export it: weak. */
extern int UNW_OBJ(dwarf_find_debug_frame)(int found, unw_dyn_info_t *di, unw_word_t ip,
					   unw_word_t segbase, const char *obj_name,
					   unw_word_t start, unw_word_t end) __attribute__((weak));

#define UNWIND_MAX_STEPS	2048	/* a chain longer than this is a loop */
#define UNWIND_MAX_SPACES	256	/* live libunwind address spaces (LRU beyond) */
#define UNWIND_RS_CACHE		1024	/* libunwind register states per address space */
#define UNWIND_MAX_RULES	(1u << 20)	/* compiled rules cached per file */
#define UNWIND_MAX_PLANS	(1u << 20)	/* leaf fix-up plans cached (then no more) */

/* perf's x86-64 user register order (asm/perf_regs.h), by libunwind number. */
static const int8_t perf_reg_of[UNW_X86_64_RIP + 1] = {
	[UNW_X86_64_RAX] = 0, [UNW_X86_64_RDX] = 3, [UNW_X86_64_RCX] = 2,
	[UNW_X86_64_RBX] = 1, [UNW_X86_64_RSI] = 4, [UNW_X86_64_RDI] = 5,
	[UNW_X86_64_RBP] = 6, [UNW_X86_64_RSP] = 7, [UNW_X86_64_R8] = 16,
	[UNW_X86_64_R9] = 17, [UNW_X86_64_R10] = 18, [UNW_X86_64_R11] = 19,
	[UNW_X86_64_R12] = 20, [UNW_X86_64_R13] = 21, [UNW_X86_64_R14] = 22,
	[UNW_X86_64_R15] = 23, [UNW_X86_64_RIP] = 8,
};
#define PERF_REG_BP	6
#define PERF_REG_SP	7
#define PERF_REGS_ABI_64 2	/* PERF_SAMPLE_REGS_ABI_64 */

struct useg {
	uint64_t vaddr, off, filesz;
};

enum ufile_state { UF_NEW, UF_OK, UF_NONE };

/* Callee-saved registers the fast path carries (DWARF = libunwind numbers). */
enum { T_RBP, T_RBX, T_R12, T_R13, T_R14, T_R15, NR_TRACKED };
static const uint8_t tracked_reg[NR_TRACKED] = {
	UNW_X86_64_RBP, UNW_X86_64_RBX, UNW_X86_64_R12, UNW_X86_64_R13, UNW_X86_64_R14,
	UNW_X86_64_R15,
};
#define DW_REG_RSP	7
#define DW_REG_RA	16
#define RULE_SAME	INT32_MIN	/* register unchanged by the frame */
#define RULE_UNDEF	(INT32_MIN + 1)	/* value lost (the RA: end of the chain) */

/*
 * One CFI row compiled for the fast path: CFA = RSP or RBP + cfa_off; the
 * return address and each tracked register at CFA + offset, RULE_SAME or
 * RULE_UNDEF.  Rows needing more (expressions, register copies, signal
 * frames, a CFA in another register) are kept as slow: libunwind steps them.
 */
struct urule {
	uint64_t start, end;	/* link addresses, [start, end) */
	bool simple;
	bool cfa_rbp;
	int32_t cfa_off;
	int32_t ra;
	int32_t reg[NR_TRACKED];
};

/* A mapped file's unwind data, once per symbolizer DSO (path + build-id). */
struct ufile {
	enum ufile_state state;
	const uint8_t *image;	/* the file, owned by the symbolizer's libelf */
	size_t size;
	struct useg *segs;	/* read-only PT_LOADs whose bytes are in the file */
	uint32_t nr_segs;
	struct useg *loads;	/* all PT_LOADs: file offset -> link address */
	uint32_t nr_loads;
	uint64_t lo, hi;	/* link address range of the PT_LOADs */
	uint64_t hdr_vaddr, table_vaddr;	/* .eh_frame_hdr and its search table */
	uint32_t fde_count;	/* 0: no usable table */
	bool is_exec;		/* ET_EXEC: .debug_frame addresses are absolute */
	const char *path;
	Elf *elf;		/* the symbolizer's */
	Dwarf_CFI *cfi;		/* libdw's view of .eh_frame, for compiling rules */
	bool cfi_tried;
	struct urule *rules;	/* sorted by start, disjoint */
	uint32_t nr_rules, cap_rules;
};

/* A file placed in a process: link address + bias = process address. */
struct region {
	uint64_t start, end;
	uint64_t bias;
	uint32_t dso;
};

/* A process address space (maps.h space id) and its libunwind twin. */
struct uspace {
	uint32_t space;		/* UINT32_MAX: slot free */
	uint32_t tag;		/* maps_tag the caches were built under */
	uint64_t last_use;
	unw_addr_space_t as;
	struct region *regions;
	uint32_t nr_regions, cap_regions;
	uint32_t last;		/* region of the last hit */
};

struct unwinder {
	struct symbolizer *sy;
	struct maps *maps;
	struct unwind_stats stats;
	unw_accessors_t acc;
	struct ufile *files;	/* by dso id */
	uint32_t nr_files;
	struct uspace spaces[UNWIND_MAX_SPACES];
	struct hashmap space_slot;	/* space id -> slot (checked: slots are reused) */
	uint64_t clock;
	uint32_t last_slot;	/* of the last space_get() */
	/* ustack_usable()'s register layout of shape_mask */
	bool shape_valid;
	uint64_t shape_mask;
	uint32_t shape_nr;
	int32_t shape_sp, shape_bp;
	struct hashmap root_cache;	/* (file offset, dso) -> 1 root function, 0 not */
	struct hashmap leaf_plan;	/* (sampled ip, maps tag) -> LEAF_* (fix-up plan) */
	bool fast;		/* compiled rules first (PMIPROF_UNWIND=libunwind: off) */
	bool leaf_cache;	/* leaf_plan in use (PMIPROF_UNWIND=nocache: off) */
};

/*
 * What the leaf fix-up of a sampled ip comes to, from its CFI row alone:
 * LEAF_NONE never a caller (no CFI without a table, RA or RBP undefined, a
 * frame already set up: RA at RBP + 8), LEAF_FULL the whole computation
 * (libunwind's rows, other RBP offsets, a zero CFA offset), else LEAF_SLOT
 * + n: the RA is the stack word at SP + n.
 */
#define LEAF_NONE	0u
#define LEAF_FULL	1u
#define LEAF_SLOT	2u
#define LEAF_MAX_SLOT	(1u << 24)

/* Where the fast path keeps a callee-saved register: lazily, as libunwind does. */
enum { L_VAL, L_MEM, L_NULL, L_BAD };	/* value, saved at address, undefined, not recorded */
struct floc {
	uint8_t kind;
	uint64_t v;
};

/* The registers of the frame the fast path has reached. */
struct fstate {
	uint64_t ip, sp;	/* sp = the callee's CFA */
	struct floc reg[NR_TRACKED];
};

/* What the accessors of one unwind_user() / unwind_leaf_caller() call see. */
struct uctx {
	struct unwinder *u;
	struct uspace *s;
	const struct trace_ustack *us;
	uint64_t ip, sp;
	bool no_cfi;		/* find_proc_info found nothing for the current frame */
	const struct fstate *over;	/* registers after the fast path's frames */
};

/* ---- files ---- */

static int file_load_segments(struct ufile *f, Elf *elf)
{
	size_t i, phnum;
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &phnum) || !phnum || phnum > 4096)
		return -EINVAL;
	f->is_exec = eh.e_type == ET_EXEC;
	f->segs = calloc(phnum, sizeof(*f->segs));
	f->loads = calloc(phnum, sizeof(*f->loads));
	if (!f->segs || !f->loads)
		return -ENOMEM;
	f->lo = UINT64_MAX;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);

		if (!ph || ph->p_type != PT_LOAD)
			continue;
		if (ph->p_offset > f->size || ph->p_filesz > f->size - ph->p_offset ||
		    ph->p_vaddr > UINT64_MAX - ph->p_memsz)
			continue;
		f->loads[f->nr_loads++] = (struct useg){ ph->p_vaddr, ph->p_offset, ph->p_filesz };
		if (ph->p_vaddr < f->lo)
			f->lo = ph->p_vaddr;
		if (ph->p_vaddr + ph->p_memsz > f->hi)
			f->hi = ph->p_vaddr + ph->p_memsz;
		/* Writable data is relocated at run time: the file's bytes are not the process's. */
		if (!(ph->p_flags & PF_W))
			f->segs[f->nr_segs++] = (struct useg){ ph->p_vaddr, ph->p_offset,
							       ph->p_filesz };
	}
	return f->nr_loads ? 0 : -EINVAL;
}

static bool segs_bytes(const struct ufile *f, const struct useg *segs, uint32_t nr,
		       uint64_t vaddr, void *buf, size_t len)
{
	uint32_t i;

	for (i = 0; i < nr; i++) {
		const struct useg *s = &segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr <= s->filesz &&
		    len <= s->filesz - (vaddr - s->vaddr)) {
			memcpy(buf, f->image + s->off + (vaddr - s->vaddr), len);
			return true;
		}
	}
	return false;
}

static bool file_bytes(const struct ufile *f, uint64_t vaddr, void *buf, size_t len)
{
	return segs_bytes(f, f->segs, f->nr_segs, vaddr, buf, len);
}

/* .eh_frame_hdr (PT_GNU_EH_FRAME): version 1 with the sorted sdata4 search table. */
static void file_find_table(struct ufile *f, Elf *elf)
{
	uint8_t hdr[12];
	size_t i, phnum;
	int32_t count;

	if (elf_getphdrnum(elf, &phnum))
		return;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);

		if (!ph || ph->p_type != PT_GNU_EH_FRAME || ph->p_filesz < sizeof(hdr))
			continue;
		if (!file_bytes(f, ph->p_vaddr, hdr, sizeof(hdr)))
			return;
		/* version 1, fde_count udata4 (0x03), table datarel|sdata4 (0x3b) */
		if (hdr[0] != 1 || hdr[2] != 0x03 || hdr[3] != 0x3b)
			return;
		/* The eh_frame_ptr's size places the count and the table. */
		switch (hdr[1] & 0x0f) {
		case 0x03: case 0x0b:		/* udata4, sdata4 */
			memcpy(&count, hdr + 8, 4);
			f->table_vaddr = ph->p_vaddr + 12;
			break;
		case 0x00: case 0x04: case 0x0c: {	/* absptr, udata8, sdata8 */
			uint8_t c4[4];

			if (!file_bytes(f, ph->p_vaddr + 12, c4, 4))
				return;
			memcpy(&count, c4, 4);
			f->table_vaddr = ph->p_vaddr + 16;
			break;
		}
		default:
			return;
		}
		/* The whole table must be in the file. */
		if (count <= 0 || (uint64_t)count * 8 > ph->p_filesz ||
		    !file_bytes(f, f->table_vaddr, hdr, 1) ||
		    !file_bytes(f, f->table_vaddr + (uint64_t)count * 8 - 8, hdr, 8))
			return;
		f->hdr_vaddr = ph->p_vaddr;
		f->fde_count = (uint32_t)count;
		return;
	}
}

static void file_load(struct unwinder *u, struct ufile *f, uint32_t dso)
{
	Elf *elf = NULL;
	const char *path = symbolizer_dso_file(u->sy, dso, &elf);
	char *image;

	f->state = UF_NONE;
	if (!path || !elf || elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS64)
		return;
	image = elf_rawfile(elf, &f->size);
	if (!image)
		return;
	f->image = (const uint8_t *)image;
	f->path = path;
	f->elf = elf;
	if (file_load_segments(f, elf))
		return;
	if (symbolizer_elf_is_debug_only(elf)) {
		/* Nothing to read but .debug_frame through the path. */
		f->nr_segs = 0;
	} else {
		file_find_table(f, elf);
	}
	f->state = UF_OK;
}

static struct ufile *file_get(struct unwinder *u, uint32_t dso)
{
	struct ufile *f;

	if (dso >= u->nr_files) {
		uint32_t n = symbolizer_nr_dsos(u->sy), cap = u->nr_files ? u->nr_files : 64;
		struct ufile *nf;

		if (dso >= n)
			return NULL;
		while (cap < n)
			cap *= 2;
		nf = realloc(u->files, cap * sizeof(*nf));
		if (!nf)
			return NULL;
		memset(nf + u->nr_files, 0, (cap - u->nr_files) * sizeof(*nf));
		u->files = nf;
		u->nr_files = cap;
	}
	f = &u->files[dso];
	if (f->state == UF_NEW)
		file_load(u, f, dso);
	return f->state == UF_OK ? f : NULL;
}

/* ---- compiled rules (the fast path) ---- */

/*
 * A register's rule as libdw states it: RULE_SAME, RULE_UNDEF or an offset
 * from the CFA (*is_val: the value is CFA + offset rather than saved there).
 * false for anything else (register copies, expressions).
 */
static bool reg_rule(Dwarf_Frame *fr, int regno, int32_t *off, bool *is_val)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	int64_t o = 0;

	*is_val = false;
	if (dwarf_frame_register(fr, regno, mem, &ops, &nops))
		return false;
	if (!nops) {
		*off = ops ? RULE_UNDEF : RULE_SAME;
		return true;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (nops > 1 && ops[1].atom == DW_OP_plus_uconst) {
		o = (int64_t)ops[1].number;
		ops++;
		nops--;
	}
	if (nops == 2 && ops[1].atom == DW_OP_stack_value) {
		*is_val = true;
		nops--;
	}
	if (nops != 1 || o <= RULE_UNDEF || o > INT32_MAX)
		return false;
	*off = (int32_t)o;
	return true;
}

/*
 * The CFI row of link address addr compiled into *r (simple or not), or
 * false when libdw has no row for it.  Registers libunwind would treat
 * differently from "same value" or a CFA offset make the row slow, so the
 * two paths agree on every simple row.
 */
static bool rule_compile(struct ufile *f, uint64_t addr, struct urule *r)
{
	Dwarf_Addr start, end;
	Dwarf_Frame *fr;
	Dwarf_Op *ops;
	size_t nops;
	int32_t off;
	bool signal, is_val;
	int i, reg;

	if (!f->cfi_tried) {
		f->cfi_tried = true;
		f->cfi = dwarf_getcfi_elf(f->elf);
	}
	if (!f->cfi || dwarf_cfi_addrframe(f->cfi, addr, &fr))
		return false;
	memset(r, 0, sizeof(*r));
	if (dwarf_frame_info(fr, &start, &end, &signal) != DW_REG_RA || addr < start ||
	    addr >= end) {
		free(fr);
		return false;
	}
	/*
	 * After DW_CFA_restore_state, libdw (0.188) reports the row as starting
	 * where the state was remembered, over rows that differ: trust a start
	 * below addr only if the row there is this same range.
	 */
	if (start < addr) {
		Dwarf_Frame *at;
		Dwarf_Addr s2, e2;
		bool sig2;

		if (dwarf_cfi_addrframe(f->cfi, start, &at)) {
			start = addr;
		} else {
			if (dwarf_frame_info(at, &s2, &e2, &sig2) != DW_REG_RA || s2 != start ||
			    e2 != end || sig2 != signal)
				start = addr;
			free(at);
		}
	}
	r->start = start;
	r->end = end;
	if (signal || dwarf_frame_cfa(fr, &ops, &nops) || nops != 1)
		goto out;
	if (ops[0].atom == DW_OP_bregx) {
		reg = ops[0].number > 31 ? -1 : (int)ops[0].number;
		off = (int32_t)(int64_t)ops[0].number2;
		if ((int64_t)ops[0].number2 != off)
			goto out;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		off = (int32_t)(int64_t)ops[0].number;
		if ((int64_t)ops[0].number != off)
			goto out;
	} else {
		goto out;
	}
	if (reg != DW_REG_RSP && reg != UNW_X86_64_RBP)
		goto out;
	r->cfa_rbp = reg == UNW_X86_64_RBP;
	r->cfa_off = off;
	/* The RA saved at CFA + n, or undefined (outermost frame). */
	if (!reg_rule(fr, DW_REG_RA, &r->ra, &is_val) || is_val || r->ra == RULE_SAME)
		goto out;
	/* RSP: the CFA (libdw's x86-64 default) or unchanged, as libunwind assumes. */
	if (!reg_rule(fr, DW_REG_RSP, &off, &is_val) || (off != RULE_SAME && !(is_val && !off)))
		goto out;
	for (i = 0; i < NR_TRACKED; i++)
		if (!reg_rule(fr, tracked_reg[i], &r->reg[i], &is_val) || is_val)
			goto out;
	/* Caller-saved registers must not be restored: the handover serves them as sampled. */
	for (reg = 0; reg < DW_REG_RA; reg++) {
		if (reg == DW_REG_RSP || reg == UNW_X86_64_RBP || reg == UNW_X86_64_RBX ||
		    (reg >= UNW_X86_64_R12 && reg <= UNW_X86_64_R15))
			continue;
		if (!reg_rule(fr, reg, &off, &is_val) || (off != RULE_SAME && off != RULE_UNDEF))
			goto out;
	}
	r->simple = true;
out:
	free(fr);
	return true;
}

/*
 * The rule for link address addr: from the file's sorted rule array, else
 * compiled and inserted (*tmp holds it when it cannot be: overlapping rows of
 * a damaged file, or the cap).  NULL: no CFI row.
 */
static const struct urule *rule_get(struct ufile *f, uint64_t addr, struct urule *tmp)
{
	uint32_t lo = 0, hi = f->nr_rules, mid;

	while (lo < hi) {		/* first rule starting above addr */
		mid = lo + (hi - lo) / 2;
		if (f->rules[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < f->rules[lo - 1].end)
		return &f->rules[lo - 1];
	if (!rule_compile(f, addr, tmp))
		return NULL;
	/*
	 * tmp covers addr, the rules around it do not: its place is lo, clipped
	 * to its neighbours (a row found again from another address, or
	 * overlapping rows of a damaged file).
	 */
	if (lo && f->rules[lo - 1].end > tmp->start)
		tmp->start = f->rules[lo - 1].end;
	if (lo < f->nr_rules && tmp->end > f->rules[lo].start)
		tmp->end = f->rules[lo].start;
	if (f->nr_rules >= UNWIND_MAX_RULES)
		return tmp;
	if (f->nr_rules == f->cap_rules) {
		uint32_t cap = f->cap_rules ? f->cap_rules * 2 : 64;
		struct urule *nr = realloc(f->rules, cap * sizeof(*nr));

		if (!nr)
			return tmp;
		f->rules = nr;
		f->cap_rules = cap;
	}
	memmove(f->rules + lo + 1, f->rules + lo, (f->nr_rules - lo) * sizeof(*f->rules));
	f->rules[lo] = *tmp;
	f->nr_rules++;
	return &f->rules[lo];
}

/* ---- regions: where each file sits in a process ---- */

/* The region of the file mapped at addr by an MMAP, registered on first use. */
static struct region *region_from_map(struct uctx *c, uint64_t addr)
{
	struct uspace *s = c->s;
	const struct map *m = maps_find(c->u->maps, s->space, addr);
	struct region *r;
	struct ufile *f;
	uint64_t off;
	uint32_t i, j;

	if (!m || m->dso != m->file_dso || !(f = file_get(c->u, m->dso)))
		return NULL;
	off = addr - m->start + m->pgoff;
	for (i = 0; i < f->nr_loads; i++) {
		const struct useg *l = &f->loads[i];
		uint64_t bias;

		if (off < l->off || off - l->off >= l->filesz)
			continue;
		bias = addr - (l->vaddr + (off - l->off));
		if (f->hi - f->lo > UINT64_MAX - (f->lo + bias))
			return NULL;
		for (j = 0; j < s->nr_regions; j++)
			if (s->regions[j].dso == m->dso && s->regions[j].bias == bias)
				return &s->regions[s->last = j];
		if (s->nr_regions == s->cap_regions) {
			uint32_t cap = s->cap_regions ? s->cap_regions * 2 : 16;
			struct region *nr = realloc(s->regions, cap * sizeof(*nr));

			if (!nr)
				return NULL;
			s->regions = nr;
			s->cap_regions = cap;
		}
		r = &s->regions[s->last = s->nr_regions++];
		*r = (struct region){ f->lo + bias, f->hi + bias, bias, m->dso };
		return r;
	}
	return NULL;
}

/* The region covering addr: the file's read-only segments need not be mapped executable. */
static struct region *region_of(struct uctx *c, uint64_t addr)
{
	struct uspace *s = c->s;
	uint32_t i;

	if (s->last < s->nr_regions && addr >= s->regions[s->last].start &&
	    addr < s->regions[s->last].end)
		return &s->regions[s->last];
	for (i = 0; i < s->nr_regions; i++)
		if (addr >= s->regions[i].start && addr < s->regions[i].end)
			return &s->regions[s->last = i];
	return region_from_map(c, addr);
}

/* ---- libunwind accessors ---- */

static int acc_find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			      int need_unwind_info, void *arg)
{
	struct uctx *c = arg;
	struct region *r = region_of(c, ip);
	struct ufile *f = r ? file_get(c->u, r->dso) : NULL;
	unw_dyn_info_t di;

	if (f && f->fde_count) {
		memset(&di, 0, sizeof(di));
		di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
		di.start_ip = r->start;
		di.end_ip = r->end;
		di.u.rti.segbase = f->hdr_vaddr + r->bias;
		di.u.rti.table_data = f->table_vaddr + r->bias;
		/* Entries are two int32 (8 bytes); the length is in unw_word_t. */
		di.u.rti.table_len = f->fde_count * 8 / sizeof(unw_word_t);
		if (UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg) >= 0)
			return 0;
	}
	if (f && UNW_OBJ(dwarf_find_debug_frame)) {
		memset(&di, 0, sizeof(di));
		if (UNW_OBJ(dwarf_find_debug_frame)(0, &di, ip, f->is_exec ? 0 : r->bias, f->path,
						    r->start, r->end) &&
		    UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg) >= 0)
			return 0;
	}
	c->no_cfi = true;
	return -UNW_ENOINFO;
}

static void acc_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	(void)as;
	(void)pi;
	(void)arg;
}

static int acc_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	(void)as;
	(void)addr;
	(void)arg;
	return -UNW_ENOINFO;
}

/* A word of the process: the stack copy, else a file's read-only bytes. */
static bool mem_read(struct uctx *c, uint64_t addr, uint64_t *val)
{
	struct region *r;
	struct ufile *f;

	if (addr >= c->sp && addr - c->sp < c->us->size && c->us->size - (addr - c->sp) >= 8) {
		memcpy(val, c->us->data + (addr - c->sp), 8);
		return true;
	}
	r = region_of(c, addr);
	f = r ? file_get(c->u, r->dso) : NULL;
	if (!f)
		return false;
	if (file_bytes(f, addr - r->bias, val, 8))
		return true;
	/*
	 * Writable segments as the file has them (unrelocated): libunwind reads
	 * a CIE's personality pointer, in .data.rel.ro or the GOT, when it
	 * parses the CIE and drops the frame if it cannot, though the value is
	 * never used for unwinding (every C++ function with cleanups).
	 */
	return f->nr_segs && segs_bytes(f, f->loads, f->nr_loads, addr - r->bias, val, 8);
}

static int acc_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write,
			  void *arg)
{
	uint64_t v;

	(void)as;
	if (write)
		return -UNW_EREADONLYREG;
	if (!mem_read(arg, addr, &v))
		return -UNW_EINVAL;
	*val = v;
	return 0;
}

/* A tracked register's value: read where the frame saved it, only when needed. */
static bool loc_get(struct uctx *c, const struct floc *l, uint64_t *val)
{
	if (l->kind == L_VAL) {
		*val = l->v;
		return true;
	}
	return l->kind == L_MEM && mem_read(c, l->v, val);
}

/*
 * Bits set in x: without -mpopcnt, __builtin_popcountll is a libgcc call,
 * and the fix-up asks for registers several times per sample.
 */
static inline uint32_t popc64(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (uint32_t)((x * 0x0101010101010101ull) >> 56);
}

/* The value of perf register i from the USTACK record. */
static bool ustack_reg(const struct trace_ustack *us, unsigned int i, uint64_t *val)
{
	if (!(us->regs_mask & (1ull << i)))
		return false;
	*val = us->regs[popc64(us->regs_mask & ((1ull << i) - 1))];
	return true;
}

static int acc_access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val, int write,
			  void *arg)
{
	struct uctx *c = arg;
	uint64_t v;

	(void)as;
	if (write)
		return -UNW_EREADONLYREG;
	if (reg < 0 || reg > UNW_X86_64_RIP)
		return -UNW_EBADREG;
	if (c->over) {
		/* Handed over mid-chain: the fast path's frame; others as sampled (same value). */
		int i;

		if (reg == UNW_X86_64_RIP || reg == UNW_X86_64_RSP) {
			*val = reg == UNW_X86_64_RIP ? c->over->ip : c->over->sp;
			return 0;
		}
		for (i = 0; i < NR_TRACKED; i++) {
			if (reg != tracked_reg[i])
				continue;
			if (!loc_get(c, &c->over->reg[i], &v))
				return -UNW_EBADREG;
			*val = v;
			return 0;
		}
	}
	if (reg == UNW_X86_64_RIP) {
		*val = c->ip;
		return 0;
	}
	if (!ustack_reg(c->us, (unsigned int)perf_reg_of[reg], &v))
		return -UNW_EBADREG;
	*val = v;
	return 0;
}

static int acc_access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write,
			    void *arg)
{
	(void)as;
	(void)reg;
	(void)val;
	(void)write;
	(void)arg;
	return -UNW_EBADREG;
}

static int acc_resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg)
{
	(void)as;
	(void)cu;
	(void)arg;
	return -UNW_EINVAL;
}

static int acc_get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
			     unw_word_t *offp, void *arg)
{
	(void)as;
	(void)addr;
	(void)buf;
	(void)len;
	(void)offp;
	(void)arg;
	return -UNW_ENOINFO;
}

/* ---- address spaces ---- */

int unwinder_new(struct unwinder **out, struct symbolizer *sy, struct maps *maps)
{
	struct unwinder *u = calloc(1, sizeof(*u));
	const char *env;
	uint32_t i;

	if (!u)
		return -ENOMEM;
	u->sy = sy;
	u->maps = maps;
	u->acc = (unw_accessors_t){
		.find_proc_info = acc_find_proc_info,
		.put_unwind_info = acc_put_unwind_info,
		.get_dyn_info_list_addr = acc_get_dyn_info_list_addr,
		.access_mem = acc_access_mem,
		.access_reg = acc_access_reg,
		.access_fpreg = acc_access_fpreg,
		.resume = acc_resume,
		.get_proc_name = acc_get_proc_name,
	};
	for (i = 0; i < UNWIND_MAX_SPACES; i++)
		u->spaces[i].space = UINT32_MAX;
	env = getenv("PMIPROF_UNWIND");
	u->fast = !env || strcmp(env, "libunwind");
	u->leaf_cache = u->fast && (!env || strcmp(env, "nocache"));
	if (hm_init(&u->space_slot, 64) || hm_init(&u->root_cache, 64) ||
	    hm_init(&u->leaf_plan, 256)) {
		unwinder_free(u);
		return -ENOMEM;
	}
	*out = u;
	return 0;
}

void unwinder_free(struct unwinder *u)
{
	uint32_t i;

	if (!u)
		return;
	for (i = 0; i < UNWIND_MAX_SPACES; i++) {
		if (u->spaces[i].as)
			unw_destroy_addr_space(u->spaces[i].as);
		free(u->spaces[i].regions);
	}
	for (i = 0; i < u->nr_files; i++) {
		free(u->files[i].segs);
		free(u->files[i].loads);
		free(u->files[i].rules);
		if (u->files[i].cfi)
			dwarf_cfi_end(u->files[i].cfi);
	}
	free(u->files);
	hm_free(&u->space_slot);
	hm_free(&u->root_cache);
	hm_free(&u->leaf_plan);
	free(u);
}

/* pid's address space with caches valid for its current maps, or NULL. */
static struct uspace *space_get(struct unwinder *u, uint32_t pid, uint64_t ip)
{
	uint32_t space = maps_space(u->maps, pid), slot, tag, i;
	struct uspace *s;

	if (space == HM_EMPTY)
		return NULL;
	/*
	 * The last space again under the tag its caches were built for: that
	 * tag was looked up (below), so the maps are as they were.
	 */
	s = &u->spaces[u->last_slot];
	if (s->space == space && s->tag == maps_tag(u->maps, space) && s->tag != UINT32_MAX) {
		s->last_use = ++u->clock;
		return s;
	}
	/* A lookup first: maps only retag a space that was looked up. */
	maps_find(u->maps, space, ip);
	tag = maps_tag(u->maps, space);
	slot = hm_get(&u->space_slot, space, 0);
	if (slot == HM_EMPTY || u->spaces[slot].space != space) {
		slot = 0;
		for (i = 1; i < UNWIND_MAX_SPACES; i++)
			if (u->spaces[i].last_use < u->spaces[slot].last_use)
				slot = i;
		if (hm_put(&u->space_slot, space, 0, slot))
			return NULL;
		s = &u->spaces[slot];
		if (!s->as) {
			s->as = unw_create_addr_space(&u->acc, 0);
			if (!s->as)
				return NULL;
			/*
			 * Debian's libunwind has no per-thread cache (it falls back
			 * to this one) and takes every cache lock with sigprocmask():
			 * two system calls per step, most of the time spent here.
			 */
			unw_set_caching_policy(s->as, UNW_CACHE_GLOBAL);
			unw_set_cache_size(s->as, UNWIND_RS_CACHE, 0);
		}
		s->space = space;
		s->tag = ~tag;
	}
	s = &u->spaces[slot];
	if (s->tag != tag || tag == UINT32_MAX) {
		unw_flush_cache(s->as, 0, 0);
		s->nr_regions = 0;
		s->last = 0;
		s->tag = tag;
	}
	s->last_use = ++u->clock;
	u->last_slot = slot;
	return s;
}

/*
 * Registers and stack bytes a walk can trust the shape of (the values may be
 * anything); *sp and *bp (0 when absent) from the registers.  The register
 * layout of the last mask is kept: a recording has one mask for all samples.
 */
static bool ustack_usable(struct unwinder *u, const struct trace_ustack *us, uint64_t *sp,
			  uint64_t *bp)
{
	if (!us || us->abi != PERF_REGS_ABI_64 || !us->regs || us->size > PMIPROF_MAX_USTACK ||
	    (us->size && !us->data))
		return false;
	if (!u->shape_valid || us->regs_mask != u->shape_mask) {
		uint64_t m = us->regs_mask;

		u->shape_mask = m;
		u->shape_nr = popc64(m);
		u->shape_sp = m >> PERF_REG_SP & 1 ? (int32_t)popc64(m & ((1ull << PERF_REG_SP) - 1)) : -1;
		u->shape_bp = m >> PERF_REG_BP & 1 ? (int32_t)popc64(m & ((1ull << PERF_REG_BP) - 1)) : -1;
		u->shape_valid = true;
	}
	if (us->nr_regs != u->shape_nr || u->shape_sp < 0)
		return false;
	*sp = us->regs[u->shape_sp];
	*bp = u->shape_bp >= 0 ? us->regs[u->shape_bp] : 0;
	return *sp <= UINT64_MAX - us->size;
}

/* ---- roots ---- */

static const char *const root_names[] = {
	"_start", "__libc_start_call_main", "__libc_start_main", "__libc_start_main_impl",
	"start_thread", "clone", "__clone", "clone3", "__clone3",
};

static bool is_root_name(const char *name)
{
	size_t i, n;

	for (i = 0; i < sizeof(root_names) / sizeof(root_names[0]); i++) {
		n = strlen(root_names[i]);
		/* "name@@VERSION", "name.part.0", "name (inlined in ...)" count as name. */
		if (!strncmp(name, root_names[i], n) && (!name[n] || strchr(" @.", name[n])))
			return true;
	}
	return false;
}

/* Whether the function containing addr starts threads or processes (symbols, cached). */
static bool is_root_addr(struct uctx *c, uint64_t addr)
{
	const struct map *m = maps_find(c->u->maps, c->s->space, addr);
	uint64_t off;
	uint32_t v;
	int64_t id;

	if (!m || m->dso != m->file_dso)
		return false;
	off = addr - m->start + m->pgoff;
	v = hm_get(&c->u->root_cache, off, m->dso);
	if (v != HM_EMPTY)
		return v;
	id = symbolizer_resolve(c->u->sy, m->dso, off);
	v = id >= 0 && is_root_name(symbolizer_sym(c->u->sy, (uint32_t)id)->name);
	hm_put(&c->u->root_cache, off, m->dso, v);
	return v;
}

/* ---- unwinding ---- */

enum { FS_OK, FS_DONE, FS_STOP, FS_SLOW, FS_RESTART };

/* The sampled registers as the fast path's first frame. */
static void fast_init(struct uctx *c, struct fstate *st)
{
	int i;

	st->ip = c->ip;
	st->sp = c->sp;
	for (i = 0; i < NR_TRACKED; i++)
		st->reg[i].kind = ustack_reg(c->us, (unsigned int)perf_reg_of[tracked_reg[i]],
					     &st->reg[i].v) ? L_VAL : L_BAD;
}

/*
 * One step with a compiled rule, in libunwind's order and with its outcomes
 * (dwarf_step + x86-64 unw_step): FS_OK to the caller's frame, FS_DONE at an
 * undefined RA or RBP, FS_STOP where libunwind fails (no CFI, unreadable
 * word, ip and CFA unchanged), FS_SLOW when the row is not simple: st is left
 * as it was, for libunwind to continue from.  A cursor libunwind starts looks
 * its row up at ip itself, not at ip - 1 as it does past the first frame (and
 * CFI expressions read that ip), so it can take over only where both are in
 * one row; elsewhere FS_RESTART: libunwind redoes the sample.  *ra_at: where
 * the RA was read.
 */
static int fast_step(struct uctx *c, struct fstate *st, bool first, uint64_t *ra_at)
{
	uint64_t addr = first ? st->ip : st->ip - 1, cfa, ip = 0;
	struct floc regs[NR_TRACKED];
	const struct urule *ru;
	struct region *r;
	struct urule tmp;
	struct ufile *f;
	int i, ret = FS_DONE;

	r = region_of(c, addr);
	f = r ? file_get(c->u, r->dso) : NULL;
	if (!f)
		return FS_STOP;		/* find_proc_info would find nothing */
	/*
	 * A file without .eh_frame_hdr (gcc links static executables without
	 * --eh-frame-hdr) has no table for libunwind's remote lookup, but libdw
	 * finds its FDEs in .eh_frame itself: its simple rows are unwound here,
	 * the others end the chain, as libunwind would end it at once.
	 */
	if (!(ru = rule_get(f, addr - r->bias, &tmp)))
		return !f->fde_count ? FS_STOP : first ? FS_SLOW : FS_RESTART;
	if (!ru->simple)
		return !f->fde_count ? FS_STOP :
		       first || addr - r->bias + 1 < ru->end ? FS_SLOW : FS_RESTART;
	if (!ru->cfa_rbp)
		cfa = st->sp;
	else if (!loc_get(c, &st->reg[T_RBP], &cfa))
		return FS_STOP;
	cfa += (uint64_t)(int64_t)ru->cfa_off;
	for (i = 0; i < NR_TRACKED; i++) {
		if (ru->reg[i] == RULE_SAME)
			regs[i] = st->reg[i];
		else if (ru->reg[i] == RULE_UNDEF)
			regs[i] = (struct floc){ L_NULL, 0 };
		else
			regs[i] = (struct floc){ L_MEM, cfa + (uint64_t)(int64_t)ru->reg[i] };
	}
	if (ru->ra != RULE_UNDEF) {
		*ra_at = cfa + (uint64_t)(int64_t)ru->ra;
		if (!mem_read(c, *ra_at, &ip))
			return FS_STOP;
		ret = FS_OK;
	}
	if (ip == st->ip && cfa == st->sp)
		return FS_STOP;
	st->ip = ip;
	st->sp = cfa;
	memcpy(st->reg, regs, sizeof(regs));
	/* x86-64 ABI: an undefined RBP ends the chain too. */
	return st->reg[T_RBP].kind == L_NULL ? FS_DONE : ret;
}

/*
 * A found frame (pc, its CFA rsp) as both paths check it: false ends the
 * chain, *done when at a zero return address.
 */
static bool frame_ok(struct uctx *c, uint64_t pc, uint64_t rsp, uint64_t prev_ip, uint64_t prev_sp,
		     bool *done)
{
	if (!pc) {
		*done = true;
		return false;
	}
	/* The stack grows down: a caller's frame is never below its callee's. */
	if (rsp < prev_sp || (pc == prev_ip && rsp == prev_sp)) {
		c->u->stats.bad_input++;
		return false;
	}
	if (!maps_find(c->u->maps, c->s->space, pc)) {
		c->u->stats.bad_input++;
		return false;
	}
	return true;
}

int unwind_user(struct unwinder *u, uint32_t pid, uint64_t ip, const struct trace_ustack *us,
		uint64_t *ips, uint32_t max, bool *complete)
{
	struct uctx c = { .u = u, .us = us, .ip = ip };
	struct fstate st;
	uint64_t prev_sp, ra_at, bp;
	unw_cursor_t cursor;
	uint32_t n = 1, steps = 0;
	bool done = false, slow = !u->fast;
	int ret;

	u->stats.samples++;
	*complete = false;
	if (!max)
		return -EINVAL;
	ips[0] = ip;
	if (!ustack_usable(u, us, &c.sp, &bp)) {
		u->stats.bad_input++;
		u->stats.truncated++;
		return 1;
	}
	c.s = space_get(u, pid, ip);
	if (!c.s) {
		u->stats.truncated++;
		return 1;
	}
	prev_sp = c.sp;
	if (u->fast) {
		fast_init(&c, &st);
		for (; n < max && steps < UNWIND_MAX_STEPS; steps++) {
			ret = fast_step(&c, &st, n == 1, &ra_at);
			if (ret == FS_SLOW || ret == FS_RESTART) {
				/* libunwind takes over from this frame, its registers as we have them */
				c.over = &st;
				slow = true;
				if (ret == FS_RESTART) {
					u->stats.fast_frames -= n - 1;
					c.over = NULL;
					n = 1;
					prev_sp = c.sp;
					steps = 0;
				}
				break;
			}
			if (ret != FS_OK) {
				done = ret == FS_DONE;
				break;
			}
			if (!frame_ok(&c, st.ip, st.sp, ips[n - 1], prev_sp, &done))
				break;
			prev_sp = st.sp;
			ips[n++] = st.ip;
			u->stats.fast_frames++;
		}
	}
	if (slow && n < max && steps < UNWIND_MAX_STEPS) {
		if (unw_init_remote(&cursor, c.s->as, &c))
			goto out;
		for (; n < max && steps < UNWIND_MAX_STEPS; steps++) {
			unw_word_t pc, rsp;

			c.no_cfi = false;
			ret = unw_step(&cursor);
			if (c.no_cfi)
				break;		/* libunwind guessed a frame from RBP: not ours to show */
			if (ret == 0) {
				done = true;	/* undefined return address: _start, clone */
				break;
			}
			if (ret < 0 || unw_get_reg(&cursor, UNW_REG_IP, &pc) ||
			    unw_get_reg(&cursor, UNW_REG_SP, &rsp))
				break;
			if (!frame_ok(&c, pc, rsp, ips[n - 1], prev_sp, &done))
				break;
			prev_sp = rsp;
			ips[n++] = pc;
			u->stats.libunwind_frames++;
		}
	}
out:
	/* Cut short right at the root (stack copy ends there): complete all the same. */
	if (!done && n > 1 && is_root_addr(&c, ips[n - 1] - 1))
		done = true;
	if (done)
		u->stats.reached_root++;
	else
		u->stats.truncated++;
	*complete = done;
	return (int)n;
}

/*
 * The leaf fix-up's plan for ip (see LEAF_NONE), mirroring fast_step() on
 * the first frame and unwind_leaf_caller()'s checks: every outcome but
 * LEAF_FULL holds for any registers and stack words.
 */
static uint32_t leaf_plan(struct uctx *c, uint64_t ip)
{
	struct region *r = region_of(c, ip);
	struct ufile *f = r ? file_get(c->u, r->dso) : NULL;
	const struct urule *ru;
	struct urule tmp;
	int64_t off;

	if (!f)
		return LEAF_NONE;
	ru = rule_get(f, ip - r->bias, &tmp);
	if (!ru || !ru->simple)
		return !f->fde_count ? LEAF_NONE : LEAF_FULL;
	/* Undefined RA or RBP: the chain ends (or stops earlier), no caller. */
	if (ru->ra == RULE_UNDEF || ru->reg[T_RBP] == RULE_UNDEF)
		return LEAF_NONE;
	off = (int64_t)ru->cfa_off + ru->ra;
	if (ru->cfa_rbp)
		return off == 8 ? LEAF_NONE : LEAF_FULL;
	/* A zero CFA offset may meet fast_step()'s "nothing moved" stop. */
	if (!ru->cfa_off || off < 0 || off >= LEAF_MAX_SLOT)
		return LEAF_FULL;
	return LEAF_SLOT + (uint32_t)off;
}

/*
 * The fix-up's checks on the RA found at ra_at: not the frame the fp chain
 * starts from (read through RBP, CFA = RBP + 16), not its first return
 * address, and mapped.
 */
static uint64_t leaf_accept(struct unwinder *u, uint32_t space, uint64_t bp, uint64_t ra,
			    uint64_t ra_at, uint64_t fp_first)
{
	if (ra_at == bp + 8 || ra == fp_first || !ra)
		return 0;
	if (!maps_find(u->maps, space, ra))
		return 0;
	u->stats.leaf_fixups++;
	return ra;
}

/*
 * The fix-up without a usable plan: one step of the fast path or
 * libunwind from the sampled registers (out of line: libunwind's cursor
 * makes a large frame the planned samples need not set up).
 */
static __attribute__((noinline)) uint64_t leaf_caller_step(struct uctx *c, uint32_t pid,
							  uint64_t bp, uint64_t fp_first,
							  uint32_t tag, bool planned)
{
	struct unwinder *u = c->u;
	unw_cursor_t cursor;
	unw_save_loc_t loc;
	unw_word_t ra = 0;
	uint64_t ra_at = 0;
	struct fstate st;
	int ret = FS_SLOW;

	c->s = space_get(u, pid, c->ip);
	if (!c->s)
		return 0;
	/* Without memory for the plan, the next sample computes it again. */
	if (!planned && tag != UINT32_MAX && u->leaf_plan.used < UNWIND_MAX_PLANS)
		(void)hm_put(&u->leaf_plan, c->ip, tag, leaf_plan(c, c->ip));
	if (u->fast) {
		fast_init(c, &st);
		ret = fast_step(c, &st, true, &ra_at);
		if (ret != FS_OK && ret != FS_SLOW && ret != FS_RESTART)
			return 0;
		ra = st.ip;
	}
	if (ret == FS_SLOW || ret == FS_RESTART) {
		if (unw_init_remote(&cursor, c->s->as, c) || unw_step(&cursor) <= 0 ||
		    c->no_cfi || unw_get_reg(&cursor, UNW_REG_IP, &ra) ||
		    unw_get_save_loc(&cursor, UNW_X86_64_RIP, &loc) || loc.type != UNW_SLT_MEMORY)
			return 0;
		ra_at = loc.u.addr;
	}
	return leaf_accept(u, c->s->space, bp, ra, ra_at, fp_first);
}

/* The caller of the function at ip found by one step, 0 if none (see unwind.h). */
uint64_t unwind_leaf_caller(struct unwinder *u, uint32_t pid, uint64_t ip,
			    const struct trace_ustack *us, uint64_t fp_first)
{
	struct uctx c = { .u = u, .us = us, .ip = ip };
	uint32_t space = HM_EMPTY, tag = UINT32_MAX, plan = HM_EMPTY;
	uint64_t bp;

	if (!ustack_usable(u, us, &c.sp, &bp)) {
		u->stats.bad_input++;
		return 0;
	}
	/*
	 * Most samples' answer follows from the ip's CFI row and at most one
	 * stack word: the plan is cached per (ip, maps tag), which changes with
	 * the process's maps once they were looked up (space_get() did).
	 */
	if (u->leaf_cache) {
		space = maps_space(u->maps, pid);
		if (space != HM_EMPTY)
			tag = maps_tag(u->maps, space);
		if (tag != UINT32_MAX)
			plan = hm_get(&u->leaf_plan, ip, tag);
		if (plan == LEAF_NONE)
			return 0;
		if (plan != HM_EMPTY && plan >= LEAF_SLOT) {
			uint64_t w, at = c.sp + (plan - LEAF_SLOT);

			if (us->size >= 8 && plan - LEAF_SLOT <= us->size - 8) {
				memcpy(&w, us->data + (plan - LEAF_SLOT), 8);
			} else {
				/* Beyond the words recorded: the files, as fast_step() reads. */
				c.s = space_get(u, pid, ip);
				if (!c.s || !mem_read(&c, at, &w))
					return 0;
			}
			return leaf_accept(u, space, bp, w, at, fp_first);
		}
	}
	return leaf_caller_step(&c, pid, bp, fp_first, tag, plan != HM_EMPTY);
}

const struct unwind_stats *unwinder_stats(const struct unwinder *u)
{
	return &u->stats;
}
