// SPDX-License-Identifier: GPL-2.0
/*
 * DWARF lookups: the CU of an address, source lines (--srcline) and
 * inline chains (--inline), interned as chains of symbol ids.
 */
#include "symbols/symbols_internal.h"

#include "symbols/demangle.h"
#include "hashmap.h"
#include "symbols/kallsyms_cache.h"
#include "kernel_id.h"
#include "strtab.h"
#include "util.h"

/*
 * The CU containing addr.  dwfl_module_addrdie() needs .debug_aranges,
 * which clang does not emit by default: then walk the CUs' ranges.
 */
Dwarf_Die *sy_cu_of(Dwfl_Module *mod, uint64_t addr, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, bias);

	if (cu)
		return cu;
	while ((cu = dwfl_module_nextcu(mod, cu, bias)))
		if (dwarf_haspc(cu, addr - *bias) > 0)
			return cu;
	return NULL;
}

/* "file.c:42" for addr, or NULL. */
const char *sy_srcline_of(Dwfl_Module *mod, uint64_t addr, char *buf, size_t size)
{
	const char *file = NULL, *base;
	Dwfl_Line *line = dwfl_module_getsrc(mod, addr);
	int lineno = 0;

	if (line) {
		file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
	} else {
		Dwarf_Addr bias;
		Dwarf_Die *cu = sy_cu_of(mod, addr, &bias);
		Dwarf_Line *l = cu ? dwarf_getsrc_die(cu, addr - bias) : NULL;

		if (l) {
			file = dwarf_linesrc(l, NULL, NULL);
			dwarf_lineno(l, &lineno);
		}
	}
	if (!file)
		return NULL;
	base = strrchr(file, '/');
	snprintf(buf, size, "%s:%d", base ? base + 1 : file, lineno);
	return buf;
}

/*
 * The DWARF scopes at the last address sy_function_at() looked up (vaddr in
 * mod), innermost first: their number (0 without DWARF); *cu its CU.
 */
static int last_scopes(struct symbolizer *sy, Dwfl_Module *mod, uint64_t vaddr,
		       Dwarf_Die **scopes, Dwarf_Die **cu)
{
	if (!sy->last.have_scopes) {
		sy->last.have_scopes = true;
		free(sy->last.scopes);
		sy->last.scopes = NULL;
		sy->last.n = 0;
		sy->last.cu = sy_cu_of(mod, vaddr, &sy->last.bias);
		if (sy->last.cu)
			sy->last.n = dwarf_getscopes(sy->last.cu, vaddr - sy->last.bias,
						     &sy->last.scopes);
		if (sy->last.n < 0)
			sy->last.n = 0;
	}
	*scopes = sy->last.scopes;
	*cu = sy->last.cu;
	return sy->last.n;
}

/* Name of the innermost inlined function containing the last address looked up, or NULL. */
const char *sy_inline_name_of(struct symbolizer *sy, Dwfl_Module *mod, uint64_t addr)
{
	Dwarf_Die *scopes, *cu;
	const char *name = NULL;
	int i, n = last_scopes(sy, mod, addr, &scopes, &cu);

	for (i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine) {
			name = dwarf_diename(&scopes[i]);
			break;
		}
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			break;
	}
	return name;
}

/* ---- inline chains (--inline call stacks) ---- */

#define MAX_INLINE_DEPTH 64

struct inl_level {
	const char *name;	/* linkage name when there is one (demangled later), else DW_AT_name */
	char call[256];		/* "file.c:42": where it was inlined into the next level out */
};

/* Name of an inlined_subroutine: its abstract origin's, mangled for C++ so it demangles fully. */
static const char *inline_level_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));

	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	if (!n)
		n = dwarf_diename(die);
	return n ? n : "[inlined]";
}

/* "file.c:42": where inlined instance die was inlined (DW_AT_call_file/line), or "". */
static void call_site(Dwarf_Die *die, Dwarf_Files *files, size_t nfiles, char *buf, size_t size)
{
	Dwarf_Attribute a;
	Dwarf_Word fidx = 0, line = 0;
	const char *file = NULL, *base;

	buf[0] = '\0';
	if (files && !dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &fidx) && fidx < nfiles)
		file = dwarf_filesrc(files, fidx, NULL, NULL);
	if (file && !dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &line)) {
		base = strrchr(file, '/');
		snprintf(buf, size, "%s:%" PRIu64, base ? base + 1 : file, (uint64_t)line);
	}
}

/*
 * The inlined functions containing addr, innermost first (at most max): how
 * many.  dwarf_getscopes() continues from an inlined instance into its
 * abstract definition's scopes; the scopes of the innermost instance itself
 * (dwarf_getscopes_die()) are the concrete nesting, up to the physical
 * function, as elfutils' addr2line -i walks them.
 */
static int inline_levels_in(Dwarf_Die *scopes, int n, Dwarf_Die *cu, struct inl_level *lv,
			    int max)
{
	Dwarf_Die *chain = NULL;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	int i, k = 0;

	for (i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram)
			break;
		if (tag == DW_TAG_inlined_subroutine) {
			n = dwarf_getscopes_die(&scopes[i], &chain);
			break;
		}
	}
	if (!chain)
		return 0;
	if (n > 0 && dwarf_getsrcfiles(cu, &files, &nfiles))
		files = NULL;
	/* Scopes run innermost out; the concrete function ends the inline part. */
	for (i = 0; i < n && k < max; i++) {
		int tag = dwarf_tag(&chain[i]);

		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		lv[k].name = inline_level_name(&chain[i]);
		call_site(&chain[i], files, nfiles, lv[k].call, sizeof(lv[k].call));
		k++;
	}
	free(chain);
	return k;
}

static int inline_levels(struct symbolizer *sy, Dwfl_Module *mod, uint64_t addr,
			 struct inl_level *lv, int max)
{
	Dwarf_Die *scopes, *cu;
	int n = last_scopes(sy, mod, addr, &scopes, &cu);

	return inline_levels_in(scopes, n, cu, lv, max);
}

/* ---- one function's inlined instances, walked once (annotate) ---- */

struct fn_inl {
	uint64_t lo, hi;	/* link addresses of one range of the instance */
	uint32_t depth;		/* 1: inlined into the function itself, 2: into that, ... */
	const char *name;
	char call[256];
};

void sy_fn_inl_free(struct symbolizer *sy)
{
	free(sy->fn_inl.r);
	memset(&sy->fn_inl, 0, sizeof(sy->fn_inl));
}

static int fn_inl_walk(struct symbolizer *sy, Dwarf_Die *die, uint32_t depth, Dwarf_Addr bias,
		       Dwarf_Files *files, size_t nfiles)
{
	Dwarf_Die child;
	int tag, err;

	if (dwarf_child(die, &child) != 0)
		return 0;
	do {
		tag = dwarf_tag(&child);
		if (tag == DW_TAG_subprogram)
			continue;	/* a nested function is code of its own */
		if (tag == DW_TAG_inlined_subroutine) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;
			char call[256];
			const char *name = inline_level_name(&child);

			call_site(&child, files, nfiles, call, sizeof(call));
			while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
				struct fn_inl *r;

				if (pm_grow(&sy->fn_inl.r, &sy->fn_inl.cap, (uint64_t)sy->fn_inl.n + 1,
					    64, sizeof(*sy->fn_inl.r)))
					return -ENOMEM;
				r = &sy->fn_inl.r[sy->fn_inl.n++];
				r->lo = lo + bias;
				r->hi = hi + bias;
				r->depth = depth + 1;
				r->name = name;
				memcpy(r->call, call, sizeof(call));
			}
			err = fn_inl_walk(sy, &child, depth + 1, bias, files, nfiles);
		} else {
			/* lexical blocks and the like hold inlined code of the same depth */
			err = fn_inl_walk(sy, &child, depth, bias, files, nfiles);
		}
		if (err)
			return err;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

int symbolizer_src_function(struct symbolizer *sy, uint32_t dso, uint64_t start, uint64_t end)
{
	Dwarf_Die *scopes = NULL, *cu, *fn = NULL, concrete;
	Dwarf_Files *files = NULL;
	Dwarf_Addr bias;
	size_t nfiles = 0;
	struct dso *d;
	int n = 0, i, err = 0;

	sy->fn_inl.valid = false;
	sy->fn_inl.n = 0;
	if (dso >= sy->dso_keys.n)
		return 0;
	d = sy->dsos[dso];
	if (sy_dso_ensure(sy, d))
		return -ENOMEM;
	if (d->state != DSO_LOADED || d->is_jit)
		return 0;
	cu = sy_cu_of(d->mod, start, &bias);
	if (cu)
		n = dwarf_getscopes(cu, start - bias, &scopes);
	/*
	 * The concrete function holding start: the first subprogram scope, or,
	 * when start is inlined code, the one its instance's own nesting ends
	 * at (dwarf_getscopes() goes on into the inlined function's abstract
	 * definition, a subprogram without code).
	 */
	for (i = 0; i < n && !fn; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram) {
			fn = &scopes[i];
		} else if (tag == DW_TAG_inlined_subroutine) {
			Dwarf_Die *chain = NULL;
			int m = dwarf_getscopes_die(&scopes[i], &chain), j;

			for (j = 0; j < m && !fn; j++)
				if (dwarf_tag(&chain[j]) == DW_TAG_subprogram) {
					concrete = chain[j];
					fn = &concrete;
				}
			free(chain);
			break;
		}
	}
	if (fn) {
		if (dwarf_getsrcfiles(cu, &files, &nfiles))
			files = NULL;
		err = fn_inl_walk(sy, fn, 0, bias, files, nfiles);
	}
	/* No DWARF for it: nothing inlined, and nothing to look up per address. */
	if (!err && (fn || !cu)) {
		sy->fn_inl.valid = true;
		sy->fn_inl.dso = dso;
		sy->fn_inl.start = start;
		sy->fn_inl.end = end;
	}
	free(scopes);
	return err;
}

/* The inline levels at vaddr from the walked function: innermost first, as inline_levels(). */
static int fn_inl_levels(struct symbolizer *sy, uint64_t vaddr, struct inl_level *lv, int max)
{
	uint32_t i, depth_seen = 0;
	int k = 0;

	/* each depth holds at most one instance at an address: take them deepest first */
	for (;;) {
		const struct fn_inl *best = NULL;

		for (i = 0; i < sy->fn_inl.n; i++) {
			const struct fn_inl *r = &sy->fn_inl.r[i];

			if (vaddr < r->lo || vaddr >= r->hi || (depth_seen && r->depth >= depth_seen))
				continue;
			if (!best || r->depth > best->depth)
				best = r;
		}
		if (!best || k == max)
			break;
		lv[k].name = best->name;
		memcpy(lv[k].call, best->call, sizeof(lv[k].call));
		k++;
		depth_seen = best->depth;
	}
	return k;
}

int symbolizer_src_at(struct symbolizer *sy, uint32_t dso, uint64_t vaddr, struct src_pos *p)
{
	struct inl_level lv[MAX_INLINE_DEPTH];
	Dwarf_Die *scopes = NULL, *cu;
	Dwarf_Addr bias;
	Dwfl_Line *line;
	struct dso *d;
	size_t len = 0;
	int lineno = 0, n = 0, k, j;

	memset(p, 0, sizeof(*p));
	if (dso >= sy->dso_keys.n)
		return 0;
	d = sy->dsos[dso];
	if (sy_dso_ensure(sy, d))
		return -ENOMEM;
	if (d->state != DSO_LOADED || d->is_jit)
		return 0;
	line = dwfl_module_getsrc(d->mod, vaddr);
	if (!line)
		return 0;
	p->file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
	if (!p->file)
		return 0;
	p->comp_dir = dwfl_line_comp_dir(line);
	p->line = lineno;
	if (sy->fn_inl.valid && sy->fn_inl.dso == dso && vaddr >= sy->fn_inl.start &&
	    vaddr < sy->fn_inl.end) {
		k = fn_inl_levels(sy, vaddr, lv, MAX_INLINE_DEPTH);
	} else {
		cu = sy_cu_of(d->mod, vaddr, &bias);
		if (cu)
			n = dwarf_getscopes(cu, vaddr - bias, &scopes);
		k = n > 0 ? inline_levels_in(scopes, n, cu, lv, MAX_INLINE_DEPTH) : 0;
		free(scopes);
	}
	/* Innermost first: each inlined function and where it was inlined. */
	for (j = 0; j < k && len + 2 < sizeof(p->inl); j++) {
		char dm[512];
		const char *name = sy->opts.no_demangle ? lv[j].name :
				   symbol_demangle(lv[j].name, dm, sizeof(dm));

		len += (size_t)snprintf(p->inl + len, sizeof(p->inl) - len, "%s%s%s%s%s",
					j ? " <- " : "", name, lv[j].call[0] ? " (" : "",
					lv[j].call, lv[j].call[0] ? ")" : "");
		if (len >= sizeof(p->inl))
			len = sizeof(p->inl) - 1;
	}
	p->depth = (uint32_t)k;
	return 1;
}

/* The id of the chain syms[0..n) (added when new), or -ENOMEM. */
static int64_t chain_intern(struct symbolizer *sy, const uint32_t *syms, uint32_t n)
{
	char key[(MAX_INLINE_DEPTH + 1) * 11 + 1];
	uint32_t before = sy->chain_keys.n, i;
	size_t len = 0;
	int64_t id;

	for (i = 0; i < n; i++)
		len += (size_t)snprintf(key + len, sizeof(key) - len, "%x,", syms[i]);
	id = strtab_intern(&sy->chain_keys, key);
	if (id < 0 || sy->chain_keys.n == before)
		return id;
	if (pm_grow(&sy->chain_syms, &sy->cap_chain_syms, (uint64_t)sy->nr_chain_syms + n, 1024,
		    sizeof(*sy->chain_syms)) ||
	    pm_grow(&sy->chains, &sy->cap_chains, (uint64_t)id + 1, 256, sizeof(*sy->chains)))
		return -ENOMEM;
	sy->chains[id].off = sy->nr_chain_syms;
	sy->chains[id].nr = n;
	memcpy(sy->chain_syms + sy->nr_chain_syms, syms, n * sizeof(*syms));
	sy->nr_chain_syms += n;
	return id;
}

/* The chain of off in dso, not cached yet: 0 with syms/n set, or -ENOMEM. */
static int inline_chain_syms(struct symbolizer *sy, uint32_t dso, uint64_t off, uint32_t *syms,
			     uint32_t *n)
{
	struct dso *d = sy->dsos[dso];
	struct inl_level *lv = sy->levels;
	char line[512], key[600];
	const char *fn = NULL, *src = NULL;
	uint64_t vaddr = 0;
	GElf_Off symoff = 0;
	int64_t id;
	int k, j;

	*n = 0;
	if (!sy_function_at(sy, dso, off, &fn, &vaddr, &symoff, &id)) {
		if (id < 0)
			return (int)id;
		syms[(*n)++] = (uint32_t)id;
		return 0;
	}
	if (sy->opts.srcline)
		src = sy_srcline_of(d->mod, vaddr, line, sizeof(line));
	k = inline_levels(sy, d->mod, vaddr, lv, MAX_INLINE_DEPTH);
	/*
	 * Each inlined function is one sym per DSO (per source line with
	 * --srcline: the innermost at the address's line, each outer level at
	 * the line its callee was inlined at), so views add its instances up.
	 */
	for (j = 0; j < k; j++) {
		const char *at = j ? (lv[j - 1].call[0] ? lv[j - 1].call : NULL) : src;

		if (!sy->opts.srcline)
			at = NULL;
		snprintf(key, sizeof(key), "d%u:i:%s:%s", dso, lv[j].name, at ? at : "");
		id = sy_get_sym(sy, key, lv[j].name, at, dso, SYM_F_INLINE);
		if (id < 0)
			return (int)id;
		syms[(*n)++] = (uint32_t)id;
	}
	if (k && sy->opts.srcline)
		src = lv[k - 1].call[0] ? lv[k - 1].call : NULL;
	id = sy_function_sym(sy, dso, vaddr - symoff, fn, fn, src);
	if (id < 0)
		return (int)id;
	syms[(*n)++] = (uint32_t)id;
	return 0;
}

int64_t symbolizer_resolve_inline(struct symbolizer *sy, uint32_t dso, uint64_t off)
{
	uint32_t syms[MAX_INLINE_DEPTH + 1], n, v = hm_get(&sy->chain_at, off, dso);
	int64_t id;
	int err;

	if (v != HM_EMPTY)
		return v;
	if (!sy->levels) {
		sy->levels = malloc(MAX_INLINE_DEPTH * sizeof(*sy->levels));
		if (!sy->levels)
			return -ENOMEM;
	}
	err = inline_chain_syms(sy, dso, off, syms, &n);
	if (err)
		return err;
	id = chain_intern(sy, syms, n);
	if (id >= 0 && hm_put(&sy->chain_at, off, dso, (uint32_t)id))
		return -ENOMEM;
	return id;
}

const uint32_t *symbolizer_inline_chain(const struct symbolizer *sy, uint32_t id, uint32_t *nr)
{
	*nr = sy->chains[id].nr;
	return sy->chain_syms + sy->chains[id].off;
}
