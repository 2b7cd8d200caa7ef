// SPDX-License-Identifier: GPL-2.0
/*
 * The symbolizer's own address -> function table from an ELF's .symtab
 * or .dynsym: symbol bounds sorted by address (radix sort), and aliases
 * (one address, several names) named as perf names them.
 */
#include "symbols/symbols_internal.h"

#include "symbols/demangle.h"
#include "hashmap.h"
#include "symbols/kallsyms_cache.h"
#include "kernel_id.h"
#include "strtab.h"
#include "util.h"

/* ---- aliases: one address, several symbols, named as perf names them ---- */

static unsigned int leading_underscores(const char *s)
{
	unsigned int n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * perf's choose_best_symbol() and arch__choose_best_symbol()
 * (tools/perf/util/symbol.c), rule for rule: true when b wins over a, the
 * one kept so far.  a comes first in the symbol table (or won earlier
 * rounds), so on a full tie a stays, as perf keeps the first.
 */
bool sy_alias_prefers(const struct alias_cand *a, const struct alias_cand *b)
{
	unsigned int ua, ub;
	size_t la, lb;

	if (!a->size != !b->size)
		return !a->size;
	if (a->type != b->type && (a->type == STT_NOTYPE || b->type == STT_NOTYPE))
		return a->type == STT_NOTYPE;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return a->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return b->bind == STB_GLOBAL;
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ub < ua;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return lb > la;
	return !strncmp(a->name, "SyS", 3) || !strncmp(a->name, "compat_SyS", 10);
}

/*
 * The winner among cands[0..n) (sorted by table order).  perf compares
 * demangled names when it demangles, so do we.
 */
static const struct alias_cand *alias_choose(const struct symbolizer *sy,
					     struct alias_cand *cands, uint32_t n)
{
	char buf[2][1024];
	uint32_t best = 0, i;
	int b = 0;

	cands[0].name = sy->opts.no_demangle ? cands[0].raw :
			symbol_demangle(cands[0].raw, buf[b], sizeof(buf[b]));
	for (i = 1; i < n; i++) {
		cands[i].name = sy->opts.no_demangle ? cands[i].raw :
				symbol_demangle(cands[i].raw, buf[!b], sizeof(buf[!b]));
		if (sy_alias_prefers(&cands[best], &cands[i])) {
			best = i;
			b = !b;
		}
	}
	return &cands[best];
}

/*
 * A stable LSD radix sort of n (key, val) pairs by key, 8 bits a pass,
 * skipping the bytes all keys share: a DSO's symbol addresses differ in
 * their low 3-4 bytes only.  qsort's callback per comparison made the
 * sorts below most of a DSO's load time.  Returns 0 or -ENOMEM.
 */
int sy_radix_sort(struct kv *a, uint32_t n)
{
	struct kv *tmp, *src = a, *dst;
	uint32_t count[256], i, pass;
	uint64_t differ = 0;

	if (n < 2)
		return 0;
	for (i = 1; i < n; i++)
		differ |= a[i].key ^ a[0].key;
	if (!differ)
		return 0;
	tmp = malloc((size_t)n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	dst = tmp;
	for (pass = 0; pass < 8; pass++) {
		unsigned int sh = pass * 8;
		uint32_t sum = 0, c;
		struct kv *t;

		if (!((differ >> sh) & 0xff))
			continue;
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(src[i].key >> sh) & 0xff]++;
		for (i = 0; i < 256; i++) {
			c = count[i];
			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[(src[i].key >> sh) & 0xff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, (size_t)n * sizeof(*a));
	free(tmp);
	return 0;
}

/* Sort and deduplicate d->bounds (bounds[i].key), then the per-interval cache. */
static int sort_bounds(struct dso *d, struct kv *b, uint32_t nb)
{
	uint32_t i, n = 0;

	if (sy_radix_sort(b, nb))
		return -ENOMEM;
	d->bounds = malloc((nb ? nb : 1) * sizeof(*d->bounds));
	if (!d->bounds)
		return -ENOMEM;
	for (i = 0; i < nb; i++)
		if (!n || b[i].key != d->bounds[n - 1])
			d->bounds[n++] = b[i].key;
	d->nr_bounds = n;
	d->bound_fn = calloc(n ? n : 1, sizeof(*d->bound_fn));
	return d->bound_fn ? 0 : -ENOMEM;
}

/* The interval of bounds holding vaddr, or UINT32_MAX outside them all. */
uint32_t sy_interval_of(const struct dso *d, uint64_t vaddr)
{
	uint32_t lo = 0, hi = d->nr_bounds;

	if (!hi || vaddr < d->bounds[0] || vaddr >= d->bounds[hi - 1])
		return UINT32_MAX;
	while (hi - lo > 1) {		/* bounds[lo] <= vaddr < bounds[hi] */
		uint32_t mid = lo + (hi - lo) / 2;

		if (d->bounds[mid] <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static uint8_t binding_value(const GElf_Sym *s)
{
	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

/*
 * Whether the copy of the symbol table (d->fsyms) can stand in for
 * libdwfl's search: an ET_EXEC/ET_DYN module whose symbol values are the
 * addresses libdwfl compares (no bias, no function descriptors).
 */
static bool own_lookup_possible(const struct dso *d)
{
	GElf_Ehdr eh;
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(d->mod, &bias);

	return elf && !bias && gelf_getehdr(elf, &eh) && eh.e_type != ET_REL;
}

/*
 * One pass over the module's symbol table, once per DSO: the bounds of
 * every symbol (intervals with one answer), the symbols the lookup weighs
 * (d->fsyms), and perf's name for every address several function symbols
 * (or labels) share.  libdwfl names such an address after its own pick (it
 * prefers a weak "random" to the global "__random").
 */
int sy_load_aliases(const struct symbolizer *sy, struct dso *d)
{
	int n = dwfl_module_getsymtab(d->mod), i;
	int first_global = n > 1 ? dwfl_module_getsymtab_first_global(d->mod) : -1;
	int glob_from = first_global == 0 ? 1 : first_global;
	bool own = !sy->opts.dwfl_lookups && first_global >= 0 && own_lookup_possible(d);
	struct alias_cand *c = NULL, *sorted = NULL;
	struct kv *b = NULL, *order = NULL;
	uint32_t nc = 0, nb = 0, ng = 0, nl = 0, j, k;
	int err = -ENOMEM;

	if (n <= 1)
		return 0;
	c = malloc((size_t)n * sizeof(*c));
	b = malloc((size_t)n * 2 * sizeof(*b));
	if (own)
		d->fsyms = malloc((size_t)n * sizeof(*d->fsyms));
	if (!c || !b || (own && !d->fsyms))
		goto out;
	/* Globals first (libdwfl's search order), locals from the end down, reversed below. */
	for (i = 1; i < n; i++) {
		GElf_Word shndx;
		GElf_Addr addr;
		GElf_Sym sym;
		const char *name = dwfl_module_getsym_info(d->mod, i, &sym, &addr, &shndx,
							   NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		/* Every symbol: more bounds than libdwfl looks at only split intervals. */
		if (name) {
			b[nb++].key = addr;
			b[nb++].key = addr + sym.st_size;
		}
		/* What __libdwfl_addrsym's search_table() considers. */
		if (own && name && name[0] && sym.st_shndx != SHN_UNDEF && type != STT_SECTION &&
		    type != STT_FILE && type != STT_TLS) {
			struct fsym f = { addr, sym.st_size, name, binding_value(&sym) };

			if (addr != sym.st_value) {
				own = false;	/* a resolved (descriptor) or biased value */
			} else if (i >= glob_from) {
				d->fsyms[ng++] = f;
			} else {
				d->fsyms[n - 1 - ++nl] = f;
			}
		}
		/* What perf's dso__load_sym() keeps: defined functions and labels. */
		if (!name || !name[0] || shndx == SHN_UNDEF || shndx == SHN_ABS ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE))
			continue;
		c[nc++] = (struct alias_cand){ .addr = addr, .size = sym.st_size, .raw = name,
					       .order = (uint32_t)i,
					       .bind = (uint8_t)GELF_ST_BIND(sym.st_info),
					       .type = (uint8_t)type };
	}
	if (own) {
		/* the locals sit at fsyms[n-1-nl .. n-1) in reverse table order */
		struct fsym *l = d->fsyms + (n - 1 - nl), t;

		for (j = 0; j < nl / 2; j++) {
			t = l[j];
			l[j] = l[nl - 1 - j];
			l[nl - 1 - j] = t;
		}
		memmove(d->fsyms + ng, l, nl * sizeof(*l));
		d->nr_fsyms = ng + nl;
		d->nr_global_fsyms = ng;
	} else {
		free(d->fsyms);
		d->fsyms = NULL;
	}
	if (sort_bounds(d, b, nb))
		goto out;
	/* By address, ties in table order: a stable sort of the candidates' indexes. */
	order = malloc((nc ? nc : 1) * sizeof(*order));
	sorted = malloc((nc ? nc : 1) * sizeof(*sorted));
	if (!order || !sorted)
		goto out;
	for (j = 0; j < nc; j++)
		order[j] = (struct kv){ c[j].addr, j };
	if (sy_radix_sort(order, nc))
		goto out;
	for (j = 0; j < nc; j++)
		sorted[j] = c[order[j].val];
	/* At most one alias per two candidates. */
	d->aliases = malloc((nc / 2 + 1) * sizeof(*d->aliases));
	if (!d->aliases)
		goto out;
	for (j = 0; j < nc; j = k) {
		for (k = j + 1; k < nc && sorted[k].addr == sorted[j].addr; k++)
			;
		if (k - j < 2)
			continue;
		d->aliases[d->nr_aliases++] = (struct alias){ sorted[j].addr,
							      alias_choose(sy, sorted + j, k - j)->raw };
	}
	err = 0;
out:
	free(c);
	free(b);
	free(order);
	free(sorted);
	return err;
}

/* __libdwfl_addrsym()'s search state (elfutils libdwfl/dwfl_module_addrsym.c). */
struct addrsym_state {
	uint64_t addr, min_label;
	const struct fsym *closest;
};

/* Its try_sym_value(); false when it would weigh a sizeless symbol by section. */
static bool addrsym_try(struct addrsym_state *st, const struct fsym *s)
{
	const struct fsym *c = st->closest;

	if (s->value + s->size > st->min_label)
		st->min_label = s->value + s->size;
	if (s->size && st->addr - s->value >= s->size)
		return true;
	if (!c || c->value < s->value || c->bind < s->bind) {
		if (s->size)
			st->closest = s;
		else if (!c && s->value >= st->min_label)
			return false;	/* same_section(): libdwfl decides */
	} else if (s->size && c->value == s->value &&
		   ((c->size > s->size && c->bind <= s->bind) ||
		    (c->size >= s->size && c->bind < s->bind))) {
		st->closest = s;
	}
	return true;
}

static bool addrsym_search(struct addrsym_state *st, const struct fsym *f, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (f[i].value <= st->addr && !addrsym_try(st, &f[i]))
			return false;
	return true;
}

/*
 * dwfl_module_addrinfo(mod, addr, symoff, ...)'s name, from the copy of the
 * symbol table: its rules over the same symbols in the same order.  A
 * sizeless symbol (an assembly label) it would weigh by section sends the
 * lookup to libdwfl itself, as does a DSO without the copy.
 */
const char *sy_addrsym(struct dso *d, uint64_t addr, GElf_Off *symoff)
{
	struct addrsym_state st = { .addr = addr };
	GElf_Sym sym;

	if (d->fsyms && addrsym_search(&st, d->fsyms, d->nr_global_fsyms) &&
	    (st.closest || addrsym_search(&st, d->fsyms + d->nr_global_fsyms,
					  d->nr_fsyms - d->nr_global_fsyms))) {
		if (!st.closest)
			return NULL;
		*symoff = addr - st.closest->value;
		return st.closest->name;
	}
	return dwfl_module_addrinfo(d->mod, addr, symoff, &sym, NULL, NULL, NULL);
}

/* perf's name for the symbol starting at addr, or NULL when it has no alias. */
const char *sy_alias_of(const struct dso *d, uint64_t addr)
{
	uint32_t lo = 0, hi = d->nr_aliases;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (d->aliases[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nr_aliases && d->aliases[lo].addr == addr ? d->aliases[lo].name : NULL;
}
