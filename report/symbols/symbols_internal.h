/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The symbolizer's private state, shared by the files of report/symbols/
 * that implement symbols.h: symbols.c (DSOs, address -> name), debug_lookup.c,
 * elf_symtab.c, elf_tables.c, dwarf_inline.c, kernel_symbols.c and
 * jit_symbols.c.  Not for use outside report/symbols/.
 */
#ifndef PMIPROF_REPORT_SYMBOLS_INTERNAL_H
#define PMIPROF_REPORT_SYMBOLS_INTERNAL_H

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/uio.h>
#include <unistd.h>

#include "symbols/symbols.h"
#include "hashmap.h"
#include "strtab.h"

struct seg {
	uint64_t off, vaddr, filesz, memsz;
};

enum dso_state { DSO_NEW, DSO_LOADED, DSO_MISSING };

/* Why a DSO has [unknown] rows: one warning line per kind (symbolizer_print_warnings). */
enum unk_kind {
	UNK_OTHER,		/* the note says (pseudo files, JIT, kernel) */
	UNK_STRIPPED,		/* loaded, but addresses outside every symbol */
	UNK_MISSING,		/* no file of the recorded build */
	UNK_MISMATCH,		/* files found, each of another build-id */
	UNK_UNPLACED,		/* only a debug file, and no recorded mapping places it */
	NR_UNK_KINDS
};

/* An executable mapping of the DSO as recorded: where its code sits in the file. */
struct map_hint {
	uint64_t pgoff, len;
};

/* A function symbol's start, for naming stripped code after its nearest predecessor. */
struct func_start {
	uint64_t addr;
	const char *name;
};

struct dso {
	struct dso_info info;
	char *path;
	uint8_t build_id[20];
	uint32_t build_id_len;
	enum dso_state state;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct alias *aliases;	/* the name chosen per shared address, sorted */
	uint32_t nr_aliases;
	struct seg *segs;
	uint32_t nr_segs;
	/*
	 * Every symbol's start and end, sorted and unique: between two
	 * neighbours every address has the same symbols covering it, so
	 * dwfl_module_addrinfo gives them the same answer (bound_fn caches
	 * it per interval; it scans the whole symbol table per call).
	 */
	uint64_t *bounds;
	struct bound_fn *bound_fn;	/* per interval [bounds[i], bounds[i+1]) */
	uint32_t nr_bounds;
	/*
	 * The symbols dwfl_module_addrinfo weighs, in its search order (the
	 * globals, then the locals): sy_addrsym() runs its rules over this
	 * compact copy instead of libdwfl decoding every ELF symbol again per
	 * lookup (~1 ms per lookup in libc).  NULL: libdwfl looks up.
	 */
	struct fsym *fsyms;
	uint32_t nr_fsyms, nr_global_fsyms;
	struct plt_range *plts;	/* .plt* sections, found on first need */
	uint32_t nr_plts;
	bool plts_known;
	int64_t unknown_sym;
	bool is_jit;		/* a perf-PID.map: "offsets" are IPs */
	struct jit_map *jit;
	/* The recorded executable mappings: they place a separate debug file's code. */
	struct map_hint hints[4];
	uint32_t nr_hints;
	bool debug_only;	/* the module is a separate debug file (code is NOBITS) */
	uint32_t mismatches;	/* candidate files skipped for another build-id */
	enum unk_kind kind;
	uint64_t nr_unknown;	/* distinct [unknown] rows */
	struct func_start *funcs;	/* sorted; built on the first address outside them */
	uint32_t nr_funcs;
	bool funcs_known;
	uint64_t *fdes;		/* the unwind table's function starts, sorted (load_fdes) */
	uint32_t nr_fdes;
	bool fdes_known;
	char note[320];
};

struct plt_range {
	uint64_t start, end;	/* module addresses, as dwfl_module_addrinfo takes */
};

/* A symbol as libdwfl's __libdwfl_addrsym() weighs it. */
struct fsym {
	uint64_t value, size;	/* value: the module address dwfl_module_getsym_info gives */
	const char *name;
	uint8_t bind;		/* binding_value(): global 3, weak 2, local 1, else 0 */
};

/* The function covering an interval of symbol bounds, as dwfl_module_addrinfo found it. */
struct bound_fn {
	uint64_t start;		/* the function's module address */
	const char *fn;		/* alias-chosen; NULL: not looked up yet; no_function: none */
};

extern const char no_function[];

/* The name perf would show for an address several function symbols share. */
struct alias {
	uint64_t addr;
	const char *name;	/* in the module's string table */
};

/* A function symbol as perf's choose_best_symbol() weighs it. */
struct alias_cand {
	uint64_t addr, size;
	const char *name;	/* demangled when the report demangles, as perf compares */
	const char *raw;
	uint32_t order;		/* position in the symbol table: a tie keeps the first */
	uint8_t bind, type;
};

struct ksym {
	uint64_t addr;
	uint32_t name;		/* offset into ktext */
	uint32_t mod;		/* 0 the kernel, else module mod - 1: kmod_dso[mod] */
};

struct jit_sym {
	uint64_t start, end;
	const char *name;	/* in jit_map.text */
};

/* A perf-PID.map file, parsed on first use. */
struct jit_map {
	char *text;		/* the file, names NUL-terminated in place */
	struct jit_sym *syms;	/* sorted by start, unique starts */
	uint32_t n;
	uint64_t malformed;	/* lines ignored */
};

struct inl_chain {
	uint32_t off, nr;	/* in symbolizer.chain_syms */
};

struct inl_level;
struct fn_inl;

struct symbolizer {
	struct symbolizer_opts opts;
	struct strtab ids;	/* symbol identity string -> sym id */
	struct sym *syms;
	uint32_t cap_syms;
	struct strtab dso_keys;	/* "path\nbuildid" -> dso id */
	struct dso **dsos;	/* each its own allocation: info.note points into it */
	uint32_t cap_dsos;
	struct strtab names;	/* names and srclines, shared storage */
	uint64_t lookups;
	/*
	 * (dso, offset) -> sym: the session caches per address space tag, which
	 * changes with every mmap after use and per process; a DSO's symbols
	 * do not.  dwfl_module_addrinfo scans the whole symbol table.
	 */
	struct hashmap resolved;
	/*
	 * name id (in names) -> the DSO of its first sym, or NAME_SHARED when
	 * DSOs of different file names carry a function of that name (python's
	 * _start and ld.so's): frames of stacks then say which (symbolizer_name_shared).
	 */
	struct hashmap name_dso;
	/* kernel */
	bool kernel_loaded;
	struct ksym *ksyms;
	uint32_t nr_ksyms;
	char *ktext;		/* the kallsyms file, names NUL-terminated in place */
	int64_t kernel_dso;
	uint32_t *kmod_dso;	/* dso of ksym.mod (0: kernel_dso) */
	uint32_t nr_kmods;
	const void *kmap;	/* the mapped index ksyms and ktext point into, or NULL */
	uint64_t kmap_names_len;	/* its names' bytes: a mapped ksym's name lies below */
	bool kidx_bad;		/* the index was found damaged: parse the text instead */
	size_t kmap_len;
	/* inline chains: (file offset, dso) -> chain id, chains interned by content */
	struct hashmap chain_at;
	struct strtab chain_keys;
	struct inl_chain *chains;
	uint32_t cap_chains;
	uint32_t *chain_syms;	/* every chain's sym ids, innermost first */
	uint32_t nr_chain_syms, cap_chain_syms;
	struct inl_level *levels;	/* scratch */
	/*
	 * symbolizer_src_function(): the inlined instances of one function,
	 * walked once, so annotate's per-instruction lookups do not walk the
	 * CU's DIE tree again for every address (dwarf_getscopes).
	 */
	struct {
		bool valid;
		uint32_t dso;
		uint64_t start, end;	/* the function's link addresses */
		struct fn_inl *r;	/* every range of every inlined instance in it */
		uint32_t n, cap;
	} fn_inl;
	/*
	 * The last address looked up, with its function and DWARF scopes: a
	 * sample's leaf is resolved flat (session) and then as an inline
	 * chain (call stacks), and libdwfl's lookups are the expensive part.
	 */
	struct {
		bool valid, have_scopes;
		uint32_t dso;
		uint64_t off;
		const char *fn;		/* NULL: *other stands for the address */
		uint64_t vaddr;
		GElf_Off symoff;
		int64_t other;
		Dwarf_Die *cu;
		Dwarf_Addr bias;
		Dwarf_Die *scopes;	/* dwarf_getscopes() at vaddr, n of them */
		int n;
	} last;
};

/* ---- shared between the files of report/symbols/ ---- */

/* A sort key and its payload (sy_radix_sort()). */
struct kv {
	uint64_t key;
	uint64_t val;
};

/* symbols.c */
/* The link address of file offset off of a loaded dso: false when no segment holds it. */
bool sy_offset_to_vaddr(const struct dso *d, uint64_t off, uint64_t *vaddr);
/* Load dso now if it was not yet (the symbolizer's one order of files): 0 or -ENOMEM. */
int sy_dso_ensure(struct symbolizer *sy, struct dso *d);
int64_t sy_get_sym(struct symbolizer *sy, const char *key, const char *name,
		const char *srcline, uint32_t dso, uint32_t flags);
bool sy_function_at(struct symbolizer *sy, uint32_t dso, uint64_t off, const char **fn_out,
		 uint64_t *vaddr_out, GElf_Off *symoff_out, int64_t *other);
int64_t sy_function_sym(struct symbolizer *sy, uint32_t dso, uint64_t start, const char *fn,
		     const char *name, const char *src);

/* debug_lookup.c */
void sy_set_debuginfo_path(const struct symbolizer_opts *o);
void sy_dso_missing(struct dso *d, const char *fmt, const char *arg);
bool sy_report_own_vdso(struct dso *d);
bool sy_build_id_differs(const struct dso *d);
bool sy_report_checked(struct dso *d, const char *file);
bool sy_report_by_build_id(const struct symbolizer *sy, struct dso *d, bool debug);

/* elf_symtab.c */
bool sy_alias_prefers(const struct alias_cand *a, const struct alias_cand *b);
int sy_radix_sort(struct kv *a, uint32_t n);
uint32_t sy_interval_of(const struct dso *d, uint64_t vaddr);
int sy_load_aliases(const struct symbolizer *sy, struct dso *d);
const char *sy_addrsym(struct dso *d, uint64_t addr, GElf_Off *symoff);
const char *sy_alias_of(const struct dso *d, uint64_t addr);

/* elf_tables.c */
int sy_in_plt(struct dso *d, uint64_t vaddr);
int sy_load_funcs(struct dso *d);
const struct func_start *sy_func_before(const struct dso *d, uint64_t addr);
int sy_fde_at(struct dso *d, uint64_t vaddr, uint64_t *start, bool *signal);

/* dwarf_inline.c */
const char *sy_srcline_of(Dwfl_Module *mod, uint64_t addr, char *buf, size_t size);
const char *sy_inline_name_of(struct symbolizer *sy, Dwfl_Module *mod, uint64_t addr);
/* The DWARF CU holding module address addr, *bias its bias, or NULL. */
Dwarf_Die *sy_cu_of(Dwfl_Module *mod, uint64_t addr, Dwarf_Addr *bias);
void sy_fn_inl_free(struct symbolizer *sy);

#endif /* PMIPROF_REPORT_SYMBOLS_INTERNAL_H */
