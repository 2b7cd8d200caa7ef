/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbolization for the report: DSOs (executables, shared libraries, the
 * kernel, JIT maps) and the symbols found in them, each with a dense id.
 *
 * Callers resolve a (DSO, file offset) pair once per distinct address and
 * cache the symbol id themselves (session.c); this module does the slow
 * part with elfutils libdwfl: .symtab, else .dynsym, else separate debug
 * info found by build-id under /usr/lib/debug/.build-id/; build-ids from
 * the trace's MMAP records are checked against the file's.  A trace from
 * another machine finds its files in a build-id cache (an extracted
 * `pmiprof archive`: DIR/.build-id/xx/rest and rest.debug) or under a
 * --symfs root (DIR + the recorded path), as perf does.  Addresses that
 * cannot be resolved are still counted: "[unknown] 0xADDR" rows (one per
 * function the unwind table delimits in a stripped file, per file offset
 * when the recorded build's file is missing; one "[unknown]" for pseudo
 * files), and the DSO carries a note that says why.  No address is ever
 * named from a file of another build-id.
 */
#ifndef PMIPROF_REPORT_SYMBOLS_H
#define PMIPROF_REPORT_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>

struct Elf;

#define SYM_F_UNKNOWN	(1u << 0)	/* address not resolved to a function */
#define SYM_F_INLINE	(1u << 1)	/* an inlined function (symbolizer_resolve_inline) */

struct sym {
	const char *name;	/* function, or "[unknown]" */
	const char *srcline;	/* "file.c:42" with --srcline, else NULL */
	uint32_t dso;		/* dso id */
	uint32_t flags;		/* SYM_F_* */
};

struct dso_info {
	const char *name;	/* path as recorded, or "[kernel.kallsyms]" etc. */
	const char *short_name;	/* basename */
	const char *note;	/* why symbols are missing, NULL when fine */
	bool has_unknown;	/* some address in it was not resolved */
};

struct symbolizer_opts {
	bool srcline;		/* one row per source line: sym.srcline set */
	/* Name the innermost inlined function ("inner (inlined in outer)") in
	 * symbolizer_resolve(); call stacks use symbolizer_resolve_inline(). */
	bool inline_frames;
	bool no_demangle;	/* keep C++ names mangled (--no-demangle) */
	bool kernel;		/* resolve kernel IPs through /proc/kallsyms */
	bool own_vdso;		/* the trace's kernel is ours: [vdso] is our vdso */
	/* Look every function up with dwfl_module_addrinfo itself, not with
	 * the symbolizer's copy of its rules (tests compare the two). */
	bool dwfl_lookups;
	const char *kallsyms;	/* path, default /proc/kallsyms (tests) */
	const char *jit_dir;	/* where perf-PID.map lives, default /tmp */
	const char *symfs;	/* look files up as SYMFS + recorded path (--symfs) */
	/* Build-id caches, searched in order before the recorded path: the
	 * extracted --archive, then --buildid-dir (default ~/.pmiprof/debug). */
	const char *buildid_dirs[2];
	/* Then perf's build-id cache ($PERF_BUILDID_DIR, else ~/.debug): for
	 * perf's perf.data, whose recording filled it. */
	bool perf_buildid_cache;
	/* Without kallsyms: an earlier boot of this machine whose cached copy
	 * (kallsyms_cache.c) serves, or NULL. */
	const char *kallsyms_boot;
	/* Without kallsyms nor kallsyms_boot: why kernel addresses must not be
	 * resolved with this machine's /proc/kallsyms (the trace's kernel is
	 * another one), NULL when they may. */
	const char *kernel_note;
};

struct symbolizer;

int symbolizer_new(struct symbolizer **out, const struct symbolizer_opts *opts);
void symbolizer_free(struct symbolizer *sy);

/* The id of the DSO at path with this build-id (len 0 = unknown), or -errno. */
int64_t symbolizer_dso(struct symbolizer *sy, const char *path,
		       const uint8_t *build_id, uint32_t build_id_len);
/*
 * An executable mapping of dso as recorded (file offset pgoff, len bytes):
 * it places the code of a separate debug file, whose program headers have
 * the addresses but not the file offsets, when the file itself is gone.
 */
void symbolizer_dso_mapped(struct symbolizer *sy, uint32_t dso, uint64_t pgoff, uint64_t len);
/* Whether elf is a separate debug file: code sections without their bytes (NOBITS). */
bool symbolizer_elf_is_debug_only(struct Elf *elf);
/*
 * Warn (pm_warn) why DSOs have [unknown] rows: one line per reason, with
 * the files and the number of distinct addresses when several share it.
 */
void symbolizer_print_warnings(const struct symbolizer *sy);
/* Symbol id of file offset off of a DSO mapping, or -ENOMEM. */
int64_t symbolizer_resolve(struct symbolizer *sy, uint32_t dso, uint64_t off);
/*
 * The inline chain at file offset off of dso (its DWARF scopes), as an id
 * for symbolizer_inline_chain(), or -ENOMEM; cached per (dso, offset), and
 * equal chains share an id.  The chain's sym ids run innermost first: each
 * inlined function (one sym per name and DSO, SYM_F_INLINE), then the
 * physical function, the sym symbolizer_resolve() gives without
 * inline_frames.  With srcline, an inlined function's srcline is the
 * address's line for the innermost, else the line its callee was inlined
 * at (DW_AT_call_file/line), and the physical function's is the line the
 * outermost inlined call is at.  An address without inlining, or without
 * DWARF, is a chain of one: symbolizer_resolve()'s sym.
 */
int64_t symbolizer_resolve_inline(struct symbolizer *sy, uint32_t dso, uint64_t off);
/* Sym ids of chain id, innermost first, *nr of them; valid until the next resolve. */
const uint32_t *symbolizer_inline_chain(const struct symbolizer *sy, uint32_t id, uint32_t *nr);
/*
 * The local ELF file dso's addresses are read from (the recorded path under
 * --symfs, a build-id cache's copy, ...; its separate debug file when only
 * that is left), loaded now if it was not yet: its path, and in *elf (when
 * elf is not NULL) its libelf handle, owned by the symbolizer.  NULL when
 * there is none.  The unwinder reads the file's code and unwind tables.
 */
const char *symbolizer_dso_file(struct symbolizer *sy, uint32_t dso, struct Elf **elf);
/* Load the kernel symbols now (they are loaded on first use otherwise). */
void symbolizer_load_kernel(struct symbolizer *sy);
/* Symbol id of a kernel address (kallsyms), or -ENOMEM. */
int64_t symbolizer_resolve_kernel(struct symbolizer *sy, uint64_t ip);
/*
 * JIT code: perf's map files, JIT_DIR/perf-PID.map (default /tmp), one
 * "START SIZE NAME" line (hex) per function, parsed once per file, sorted.
 * Malformed lines are counted and ignored (one warning per file).
 */
/* Whether an MMAP path is memory perf looks up in perf-PID.map when executable:
 * //anon, [anon:*], /memfd:*, [heap], [stack], /dev/zero, ... */
bool symbolizer_is_anon(const char *path);
/* The DSO of pid's perf-PID.map, looked up by IP with symbolizer_jit_lookup(). */
int64_t symbolizer_jit_dso(struct symbolizer *sy, uint32_t pid);
/* Symbol id of ip in JIT DSO dso, or -ENOENT when its map lacks it. */
int64_t symbolizer_jit_lookup(struct symbolizer *sy, uint32_t dso, uint64_t ip);
/* Symbol id of ip in pid's perf-PID.map, or -ENOENT when the map lacks it. */
int64_t symbolizer_resolve_jit(struct symbolizer *sy, uint32_t pid, uint64_t ip);
/* The "[unknown]" symbol of a DSO, or of "[unknown]" itself for dso < 0. */
int64_t symbolizer_unknown(struct symbolizer *sy, int64_t dso);
/* A pseudo symbol such as "[truncated]" (call stacks), in a pseudo DSO of that name. */
int64_t symbolizer_marker(struct symbolizer *sy, const char *name);
/*
 * A function known by its name only, in DSO dso: a profile symbolized
 * elsewhere (a daemon's pprof, read by `top --from`).  Its id, or -ENOMEM.
 */
int64_t symbolizer_named(struct symbolizer *sy, uint32_t dso, const char *name);
/* The "[kernel]" symbol for kernel IPs the recorder withheld. */
int64_t symbolizer_hidden_kernel(struct symbolizer *sy);

/* ---- annotate: a function's code, source lines and inline scopes ---- */
struct func_code {
	uint64_t start, end;	/* link addresses [start, end), as objdump prints them */
	const uint8_t *bytes;	/* end - start bytes, owned by the symbolizer; NULL: why */
	const char *why;	/* why there are no bounds or no bytes, else NULL */
};
/*
 * The function holding file offset off of dso: 0 with *fc filled (bounds
 * 0 when unknown), or -errno.  Bytes come from the file names came from.
 */
int symbolizer_func_code(struct symbolizer *sy, uint32_t dso, uint64_t off, struct func_code *fc);
/* The link address of file offset off of dso: false when its file is not loaded. */
bool symbolizer_vaddr(struct symbolizer *sy, uint32_t dso, uint64_t off, uint64_t *vaddr);
/* The function symbol at link address vaddr of dso and the offset into it, or NULL. */
const char *symbolizer_name_at(struct symbolizer *sy, uint32_t dso, uint64_t vaddr,
			       uint64_t *symoff);
struct src_pos {
	const char *file;	/* as the line table has it: absolute, or relative to comp_dir */
	const char *comp_dir;	/* the CU's build directory, or NULL */
	int line;
	uint32_t depth;		/* inline levels holding the address */
	char inl[512];		/* "inner (f.c:12) <- outer (f.c:40)": where each was inlined */
};
/* Source position of link address vaddr of dso: 1 found, 0 none (no DWARF), -errno. */
int symbolizer_src_at(struct symbolizer *sy, uint32_t dso, uint64_t vaddr, struct src_pos *p);
/*
 * Before many symbolizer_src_at() calls inside one function [start, end) of
 * dso: its inlined instances are read once (the same chains, without a
 * walk of the CU per address).  0 or -ENOMEM; nothing is cached without DWARF.
 */
int symbolizer_src_function(struct symbolizer *sy, uint32_t dso, uint64_t start, uint64_t end);

uint32_t symbolizer_nr_syms(const struct symbolizer *sy);
const struct sym *symbolizer_sym(const struct symbolizer *sy, uint32_t id);
/*
 * Whether sym id's function name is also a function of another DSO (by file
 * name) among the syms so far: views that merge frames by name must then
 * qualify it with its DSO, as a frame's identity is (function, DSO).
 */
bool symbolizer_name_shared(const struct symbolizer *sy, uint32_t id);
uint32_t symbolizer_nr_dsos(const struct symbolizer *sy);
const struct dso_info *symbolizer_dso_info(const struct symbolizer *sy, uint32_t id);
/* The build-id of DSO id as recorded (*len 0 when unknown), for exports (pprof). */
const uint8_t *symbolizer_dso_build_id(const struct symbolizer *sy, uint32_t id, uint32_t *len);
/* Distinct addresses resolved through libdwfl / kallsyms so far (for stats). */
uint64_t symbolizer_lookups(const struct symbolizer *sy);

#endif /* PMIPROF_REPORT_SYMBOLS_H */
