// SPDX-License-Identifier: GPL-2.0
/*
 * libdwfl-based symbolizer (see symbols.h).  Each DSO is loaded lazily into
 * its own Dwfl at its ELF link addresses (add_p_vaddr), so a file offset
 * from an MMAP record converts to an address through the PT_LOAD headers
 * whatever the load address was: PIE, non-PIE and shared libraries alike.
 *
 * This file keeps the DSO table and the address -> name lookup; finding
 * the file (debug_lookup.c), the ELF tables (elf_symtab.c, elf_tables.c),
 * DWARF inline chains (dwarf_inline.c), the kernel (kernel_symbols.c) and
 * JIT maps (jit_symbols.c) are beside it, sharing symbols_internal.h.
 */
#include "symbols/symbols.h"
#include "symbols/symbols_internal.h"

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

#include "symbols/demangle.h"
#include "hashmap.h"
#include "symbols/kallsyms_cache.h"
#include "kernel_id.h"
#include "strtab.h"
#include "util.h"

const char no_function[] = "";

int symbolizer_new(struct symbolizer **out, const struct symbolizer_opts *opts)
{
	struct symbolizer *sy = calloc(1, sizeof(*sy));

	if (!sy)
		return -ENOMEM;
	if (opts)
		sy->opts = *opts;
	sy->kernel_dso = -1;
	sy_set_debuginfo_path(&sy->opts);
	if (strtab_init(&sy->ids) || strtab_init(&sy->dso_keys) || strtab_init(&sy->names) ||
	    strtab_init(&sy->chain_keys) || hm_init(&sy->chain_at, 1024) ||
	    hm_init(&sy->resolved, 4096) || hm_init(&sy->name_dso, 4096)) {
		symbolizer_free(sy);
		return -ENOMEM;
	}
	*out = sy;
	return 0;
}

void symbolizer_free(struct symbolizer *sy)
{
	uint32_t i;

	if (!sy)
		return;
	for (i = 0; i < sy->dso_keys.n && i < sy->cap_dsos; i++) {
		struct dso *d = sy->dsos[i];

		if (!d)
			continue;
		if (d->dwfl)
			dwfl_end(d->dwfl);
		free(d->segs);
		free(d->bounds);
		free(d->bound_fn);
		free(d->fsyms);
		free(d->plts);
		free(d->aliases);
		free(d->funcs);
		free(d->fdes);
		free(d->path);
		if (d->jit) {
			free(d->jit->text);
			free(d->jit->syms);
			free(d->jit);
		}
		free(d);
	}
	free(sy->dsos);
	free(sy->syms);
	if (sy->kmap) {
		kallsyms_index_unmap(sy->kmap, sy->kmap_len);
	} else {
		free(sy->ksyms);
		free(sy->ktext);
	}
	free(sy->kmod_dso);
	strtab_free(&sy->ids);
	strtab_free(&sy->dso_keys);
	strtab_free(&sy->names);
	hm_free(&sy->resolved);
	hm_free(&sy->name_dso);
	strtab_free(&sy->chain_keys);
	hm_free(&sy->chain_at);
	free(sy->chains);
	free(sy->chain_syms);
	free(sy->levels);
	sy_fn_inl_free(sy);
	free(sy->last.scopes);
	free(sy);
}

uint32_t symbolizer_nr_syms(const struct symbolizer *sy)
{
	return sy->ids.n;
}

const struct sym *symbolizer_sym(const struct symbolizer *sy, uint32_t id)
{
	return &sy->syms[id];
}

uint32_t symbolizer_nr_dsos(const struct symbolizer *sy)
{
	return sy->dso_keys.n;
}

const struct dso_info *symbolizer_dso_info(const struct symbolizer *sy, uint32_t id)
{
	return &sy->dsos[id]->info;
}

const uint8_t *symbolizer_dso_build_id(const struct symbolizer *sy, uint32_t id, uint32_t *len)
{
	*len = sy->dsos[id]->build_id_len;
	return sy->dsos[id]->build_id;
}

uint64_t symbolizer_lookups(const struct symbolizer *sy)
{
	return sy->lookups;
}

static const char *intern_name(struct symbolizer *sy, const char *s)
{
	int64_t id = strtab_intern(&sy->names, s);

	return id < 0 ? NULL : strtab_str(&sy->names, (uint32_t)id);
}

#define NAME_SHARED (HM_EMPTY - 1)

/* Notes that DSO dso has a function called name (see name_dso); 0 or -ENOMEM. */
static int note_name_dso(struct symbolizer *sy, const char *name, uint32_t dso)
{
	int64_t nid = strtab_find(&sy->names, name);
	uint32_t first;

	/* pseudo-frames ([unknown], markers) are not functions of a DSO */
	if (nid < 0 || name[0] == '[' || !name[0])
		return 0;
	first = hm_get(&sy->name_dso, (uint64_t)nid, 0);
	if (first == HM_EMPTY)
		return hm_put(&sy->name_dso, (uint64_t)nid, 0, dso) ? -ENOMEM : 0;
	/* one library under two paths (/lib and /usr/lib) is one DSO to a reader */
	if (first != NAME_SHARED && first != dso &&
	    strcmp(sy->dsos[first]->info.short_name, sy->dsos[dso]->info.short_name))
		return hm_put(&sy->name_dso, (uint64_t)nid, 0, NAME_SHARED) ? -ENOMEM : 0;
	return 0;
}

bool symbolizer_name_shared(const struct symbolizer *sy, uint32_t id)
{
	int64_t nid = strtab_find(&sy->names, sy->syms[id].name);

	return nid >= 0 && hm_get(&sy->name_dso, (uint64_t)nid, 0) == NAME_SHARED;
}

/* The sym for identity key, created with name/srcline/dso when new. */
int64_t sy_get_sym(struct symbolizer *sy, const char *key, const char *name,
		       const char *srcline, uint32_t dso, uint32_t flags)
{
	uint32_t before = sy->ids.n;
	int64_t id = strtab_intern(&sy->ids, key);
	char demangled[1024], plain[1024];
	const char *at;
	struct sym *s;

	if (id < 0 || sy->ids.n == before)
		return id;
	if (pm_grow(&sy->syms, &sy->cap_syms, sy->ids.n, 256, sizeof(*sy->syms)))
		return -ENOMEM;
	s = &sy->syms[id];
	/*
	 * "name@@VERSION" is the default version, the one a plain reference
	 * binds: print the plain name.  A non-default "name@VERSION" keeps its
	 * version, which tells it apart from the default one beside it.
	 */
	at = strstr(name, "@@");
	if (at && at > name && (size_t)(at - name) < sizeof(plain)) {
		memcpy(plain, name, (size_t)(at - name));
		plain[at - name] = '\0';
		name = plain;
	}
	if (!sy->opts.no_demangle)
		name = symbol_demangle(name, demangled, sizeof(demangled));
	s->name = intern_name(sy, name);
	s->srcline = srcline ? intern_name(sy, srcline) : NULL;
	s->dso = dso;
	s->flags = flags;
	if (!s->name || (srcline && !s->srcline) || note_name_dso(sy, s->name, dso))
		return -ENOMEM;
	return id;
}

int64_t symbolizer_dso(struct symbolizer *sy, const char *path,
		       const uint8_t *build_id, uint32_t build_id_len)
{
	char key[4096 + 48];
	uint32_t before = sy->dso_keys.n;
	const char *base;
	struct dso *d;
	int64_t id;

	if (build_id_len > sizeof(d->build_id))
		build_id_len = sizeof(d->build_id);
	snprintf(key, sizeof(key) - 42, "%s\n", path);
	build_id_hex(key + strlen(key), build_id, build_id_len);
	id = strtab_intern(&sy->dso_keys, key);
	if (id < 0 || sy->dso_keys.n == before)
		return id;
	if (pm_grow_zero(&sy->dsos, &sy->cap_dsos, sy->dso_keys.n, 32, sizeof(*sy->dsos)))
		return -ENOMEM;
	d = sy->dsos[id] = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->unknown_sym = -1;
	d->path = strdup(path);
	if (!d->path)
		return -ENOMEM;
	if (build_id_len)	/* build_id may be NULL then (memcpy's arguments may not) */
		memcpy(d->build_id, build_id, build_id_len);
	d->build_id_len = build_id_len;
	base = strrchr(d->path, '/');
	d->info.name = d->path;
	d->info.short_name = base && base[1] ? base + 1 : d->path;
	/* Pseudo files ([heap], anon...) have nothing to load. */
	if (symbolizer_is_anon(path)) {
		d->state = DSO_MISSING;
		snprintf(d->note, sizeof(d->note), "anonymous executable memory that no %s/perf-PID.map "
			 "names (JIT code without a perf map?)",
			 sy->opts.jit_dir ? sy->opts.jit_dir : "/tmp");
		d->info.note = d->note;
	} else if (path[0] != '/' && !(sy->opts.own_vdso && !strcmp(path, "[vdso]"))) {
		d->state = DSO_MISSING;
		snprintf(d->note, sizeof(d->note), "%s", strcmp(path, "[vdso]") ?
			 "no file to read symbols from" : "the recording kernel's vDSO is in no "
			 "file, and this is another kernel");
		d->info.note = d->note;
	}
	return id;
}

#define PAGE 4096u

/*
 * Where a separate debug file's executable segment ph sits in the file
 * that was mapped: a debug file has the program headers' addresses but not
 * their offsets (objcopy --only-keep-debug rewrites them).  The loader maps
 * a segment from page(p_offset) over page-rounded [p_vaddr, p_vaddr +
 * p_filesz), and p_offset = p_vaddr modulo the page: a recorded mapping of
 * exactly that length gives p_offset = pgoff + p_vaddr % page.  true with
 * *off when exactly one recorded mapping fits.
 */
static bool hint_places(const struct dso *d, const GElf_Phdr *ph, uint64_t *off)
{
	uint64_t span = ((ph->p_vaddr + ph->p_memsz + PAGE - 1) & ~(uint64_t)(PAGE - 1)) -
			(ph->p_vaddr & ~(uint64_t)(PAGE - 1));
	uint32_t i, n = 0;

	for (i = 0; i < d->nr_hints; i++)
		if (d->hints[i].len == span) {
			*off = d->hints[i].pgoff + (ph->p_vaddr & (PAGE - 1));
			n++;
		}
	return n == 1;
}

/*
 * Read the PT_LOAD headers that turn file offsets into link addresses.  A
 * separate debug file's offsets are not the mapped file's: only its
 * executable segments that a recorded mapping places (hint_places) count,
 * and only when one executable segment has that length (else which one a
 * mapping holds is a guess).
 */
static int load_segments(struct dso *d, Elf *elf)
{
	size_t i, j, phnum;

	if (elf_getphdrnum(elf, &phnum))
		return -EINVAL;
	d->segs = calloc(phnum ? phnum : 1, sizeof(*d->segs));
	if (!d->segs)
		return -ENOMEM;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);
		uint64_t off;
		bool twin = false;

		if (!ph || ph->p_type != PT_LOAD)
			continue;
		if (!d->debug_only) {
			d->segs[d->nr_segs++] = (struct seg){ ph->p_offset, ph->p_vaddr,
							      ph->p_filesz, ph->p_memsz };
			continue;
		}
		if (!(ph->p_flags & PF_X) || !hint_places(d, ph, &off))
			continue;
		for (j = 0; j < phnum; j++) {
			GElf_Phdr m2, *o = gelf_getphdr(elf, (int)j, &m2);

			twin |= j != i && o && o->p_type == PT_LOAD && (o->p_flags & PF_X) &&
				o->p_memsz == ph->p_memsz &&
				(o->p_vaddr & (PAGE - 1)) == (ph->p_vaddr & (PAGE - 1));
		}
		if (!twin)
			d->segs[d->nr_segs++] = (struct seg){ off, ph->p_vaddr, ph->p_memsz,
							      ph->p_memsz };
	}
	return d->nr_segs ? 0 : -EINVAL;
}

bool symbolizer_elf_is_debug_only(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOBITS &&
		    (sh.sh_flags & SHF_EXECINSTR))
			return true;
	return false;
}

void symbolizer_dso_mapped(struct symbolizer *sy, uint32_t dso, uint64_t pgoff, uint64_t len)
{
	struct dso *d = sy->dsos[dso];
	uint32_t i;

	for (i = 0; i < d->nr_hints; i++)
		if (d->hints[i].pgoff == pgoff && d->hints[i].len == len)
			return;
	if (d->nr_hints < ARRAY_SIZE(d->hints))
		d->hints[d->nr_hints++] = (struct map_hint){ pgoff, len };
}

/*
 * Find d's module, in the one order every lookup follows: the file by
 * build-id in the build-id caches (an archive, --buildid-dir), the file at
 * its recorded path (under --symfs), then its separate debug file by
 * build-id, placed by the recorded mappings.  Every candidate must carry
 * the recorded build-id: a file of another build would name addresses
 * after whatever sits there now.  libdwfl adds the module's own debug file
 * (build-id, .gnu_debuglink with its CRC, MiniDebugInfo, debuginfod).
 */
static void dso_load(struct symbolizer *sy, struct dso *d)
{
	char where[4096 + 8];
	GElf_Addr bias;
	Elf *elf;

	d->state = DSO_MISSING;
	d->kind = UNK_MISSING;
	snprintf(where, sizeof(where), "%s%s", sy->opts.symfs ? sy->opts.symfs : "", d->path);
	if (!strcmp(d->path, "[vdso]")) {
		d->kind = UNK_OTHER;
		if (!sy_report_own_vdso(d)) {
			sy_dso_missing(d, "cannot copy this process's vDSO (%s)", "no AT_SYSINFO_EHDR");
			return;
		}
		if (sy_build_id_differs(d)) {
			sy_dso_missing(d, "%s", "this process's vDSO is not the recorded one (another "
				    "kernel?)");
			return;
		}
	} else if (sy_report_by_build_id(sy, d, false) || sy_report_checked(d, where)) {
		/* The very file that was mapped. */
	} else if (d->build_id_len < 2 || !sy_report_by_build_id(sy, d, true)) {
		if (d->mismatches) {
			d->kind = UNK_MISMATCH;
			sy_dso_missing(d, "%s has another build-id than the recorded one (changed "
				    "since recording?), and no file of the recorded build was found",
				    where);
		} else if (d->build_id_len < 2) {
			sy_dso_missing(d, "cannot read %s (and no build-id to find debug info)", where);
		} else if (sy->opts.buildid_dirs[0] || sy->opts.buildid_dirs[1]) {
			sy_dso_missing(d, "cannot read %s, nor a file of its build-id in the "
				    "build-id cache or debug info", where);
		} else {
			sy_dso_missing(d, "cannot read %s, nor its debug info by build-id "
				    "(recorded on another machine? see --symfs, --archive)", where);
		}
		return;
	}
	elf = dwfl_module_getelf(d->mod, &bias);
	d->debug_only = elf && symbolizer_elf_is_debug_only(elf);
	if (!elf || load_segments(d, elf)) {
		if (d->debug_only) {
			d->kind = UNK_UNPLACED;
			sy_dso_missing(d, "cannot read %s; its separate debug file has the symbols but "
				    "not the file layout, and no recorded mapping places its code",
				    where);
		} else {
			d->kind = UNK_OTHER;
			sy_dso_missing(d, "%s is not an ELF file with loadable segments", where);
		}
		return;
	}
	d->kind = UNK_STRIPPED;
	d->state = DSO_LOADED;
}

int sy_dso_ensure(struct symbolizer *sy, struct dso *d)
{
	if (d->state == DSO_NEW) {
		dso_load(sy, d);
		if (d->state == DSO_LOADED && sy_load_aliases(sy, d))
			return -ENOMEM;
	}
	return 0;
}

bool sy_offset_to_vaddr(const struct dso *d, uint64_t off, uint64_t *vaddr)
{
	uint32_t i;

	for (i = 0; i < d->nr_segs; i++) {
		const struct seg *s = &d->segs[i];

		if (off >= s->off && off - s->off < (s->filesz > s->memsz ? s->filesz : s->memsz)) {
			*vaddr = off - s->off + s->vaddr;
			return true;
		}
	}
	return false;
}

int64_t symbolizer_unknown(struct symbolizer *sy, int64_t dso)
{
	char key[32];

	if (dso < 0) {
		dso = symbolizer_dso(sy, "[unknown]", NULL, 0);
		if (dso < 0)
			return dso;
		sy->dsos[dso]->info.note = NULL;
	}
	sy->dsos[dso]->info.has_unknown = true;
	if (sy->dsos[dso]->unknown_sym >= 0)
		return sy->dsos[dso]->unknown_sym;
	snprintf(key, sizeof(key), "u%" PRId64, dso);
	sy->dsos[dso]->unknown_sym = sy_get_sym(sy, key, "[unknown]", NULL, (uint32_t)dso,
					    SYM_F_UNKNOWN);
	return sy->dsos[dso]->unknown_sym;
}

int64_t symbolizer_named(struct symbolizer *sy, uint32_t dso, const char *name)
{
	char key[640];

	snprintf(key, sizeof(key), "n%u:%.600s", dso, name);
	return sy_get_sym(sy, key, name, NULL, dso, 0);
}

/*
 * The [unknown] row of an address of dso: addr is a link address (file
 * true: the file is loaded, and addr starts the unwind entry holding the
 * sample, or is the sample's own address without one) or a file offset
 * (the file of the recorded build is missing).  A loaded file names the
 * nearest function symbol before addr, as objdump does: "<name+0xOFF>".
 */
static int64_t unknown_at(struct symbolizer *sy, uint32_t dso, uint64_t addr, bool file)
{
	struct dso *d = sy->dsos[dso];
	const struct func_start *near = NULL;
	char key[64], name[640], dm[512];
	uint32_t before = sy->ids.n;
	int64_t id;

	snprintf(key, sizeof(key), "d%u:%c%" PRIx64, dso, file ? 'u' : 'o', addr);
	d->info.has_unknown = true;
	id = strtab_find(&sy->ids, key);
	if (id >= 0)
		return id;
	if (file && !d->funcs_known && sy_load_funcs(d))
		return -ENOMEM;
	if (file)
		near = sy_func_before(d, addr);
	if (near)
		snprintf(name, sizeof(name), "[unknown] 0x%" PRIx64 " <%s+0x%" PRIx64 ">", addr,
			 sy->opts.no_demangle ? near->name :
			 symbol_demangle(near->name, dm, sizeof(dm)), addr - near->addr);
	else
		snprintf(name, sizeof(name), "[unknown] 0x%" PRIx64, addr);
	id = sy_get_sym(sy, key, name, NULL, dso, SYM_F_UNKNOWN);
	if (id >= 0 && sy->ids.n != before)
		d->nr_unknown++;
	if (!d->info.note) {
		snprintf(d->note, sizeof(d->note), "addresses outside every symbol it has "
			 "(stripped, and no debug info found)");
		d->info.note = d->note;
	}
	return id;
}

/* Whether DSOs a and b have [unknown] rows for the same reason. */
static bool same_unknown_kind(const struct dso *a, const struct dso *b)
{
	return a->kind == b->kind && (a->kind != UNK_OTHER || !strcmp(a->info.note, b->info.note));
}

static bool is_named(const struct dso *const *named, uint32_t n, const struct dso *d)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (named[i] == d)
			return true;
	return false;
}

void symbolizer_print_warnings(const struct symbolizer *sy)
{
	static const char *const why[NR_UNK_KINDS] = {
		[UNK_STRIPPED] = "addresses outside every symbol (stripped, and no debug info "
				 "found: install it, e.g. Debian's -dbgsym packages, or set "
				 "DEBUGINFOD_URLS); shown as [unknown] 0xADDR <nearest symbol+0xOFF>, "
				 "one row per function its unwind table delimits",
		[UNK_MISSING] = "no file of the recorded build found (recorded on another "
				"machine? see --symfs, --archive); shown as [unknown] 0xOFFSET "
				"(file offsets)",
		[UNK_MISMATCH] = "the files found have other build-ids than the recorded ones "
				 "(changed since recording?); shown as [unknown] 0xOFFSET (file "
				 "offsets), never named after the files there now",
		[UNK_UNPLACED] = "only separate debug files found, and no recorded mapping "
				 "places their code; shown as [unknown] 0xOFFSET (file offsets)",
	};
	uint32_t n = sy->dso_keys.n, i, j, k;

	for (i = 0; i < n; i++) {
		const struct dso *d = sy->dsos[i], *o, *named[4];
		char names[4 * 96];
		size_t len = 0;
		uint64_t rows = 0;
		uint32_t files = 0;
		bool seen = false;

		if (!d->info.has_unknown || !d->info.note)
			continue;
		for (j = 0; j < i && !seen; j++) {
			o = sy->dsos[j];
			seen = o->info.has_unknown && o->info.note && same_unknown_kind(o, d);
		}
		if (seen)
			continue;
		/* The files with the most [unknown] rows first, four of them named. */
		for (k = 0; k < 4; k++) {
			const struct dso *best = NULL;

			for (j = i; j < n; j++) {
				o = sy->dsos[j];
				if (!o->info.has_unknown || !o->info.note || !same_unknown_kind(o, d))
					continue;
				if (!k) {
					rows += o->nr_unknown;
					files++;
				}
				if (!is_named(named, k, o) && (!best || o->nr_unknown > best->nr_unknown))
					best = o;
			}
			if (!best)
				break;
			named[k] = best;
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
						k ? ", " : "", best->info.short_name);
		}
		if (files == 1 || d->kind == UNK_OTHER)
			pm_warn("%s: %s: %s", files == 1 ? d->info.name : names, d->info.note,
				d->kind == UNK_OTHER ? "its samples are shown as [unknown]" :
				"its samples are shown as [unknown] 0x... rows");
		else
			pm_warn("%u files (%s%s), %" PRIu64 " [unknown] row(s): %s", files, names,
				files > 4 ? ", ..." : "", rows, why[d->kind]);
	}
}

/* The function symbol of off in dso, uncached: FOUND with its name etc., else what stands for off. */
#define FOUND INT64_MAX
static int64_t function_at_slow(struct symbolizer *sy, uint32_t dso, uint64_t off,
				const char **fn_out, uint64_t *vaddr_out, GElf_Off *symoff_out)
{
	struct dso *d = sy->dsos[dso];
	struct bound_fn *b = NULL;
	char key[64];
	const char *fn;
	uint32_t iv;
	int plt;
	uint64_t vaddr;
	GElf_Off symoff;

	if (sy_dso_ensure(sy, d))
		return -ENOMEM;
	if (d->state != DSO_LOADED && d->kind == UNK_OTHER)
		return symbolizer_unknown(sy, dso);
	if (d->state != DSO_LOADED || !sy_offset_to_vaddr(d, off, &vaddr))
		return unknown_at(sy, dso, off, false);
	/*
	 * The function only: srcline and inline frames depend on the address
	 * itself and are looked up from vaddr by the callers.
	 */
	iv = sy_interval_of(d, vaddr);
	if (iv != UINT32_MAX)
		b = &d->bound_fn[iv];
	if (b && b->fn) {
		fn = b->fn == no_function ? NULL : b->fn;
		symoff = vaddr - b->start;
	} else {
		sy->lookups++;
		fn = sy_addrsym(d, vaddr, &symoff);
		if (fn) {
			const char *alias = sy_alias_of(d, vaddr - symoff);

			if (alias)
				fn = alias;
		}
		/* Same covering symbols in the whole interval: the same answer. */
		if (b)
			*b = (struct bound_fn){ .start = fn ? vaddr - symoff : 0,
						.fn = fn ? fn : no_function };
	}
	plt = fn ? 0 : sy_in_plt(d, vaddr);
	if (plt < 0)
		return plt;
	if (plt) {
		/* perf names each stub func@plt; one row per DSO is enough here. */
		snprintf(key, sizeof(key), "d%u:plt", dso);
		return sy_get_sym(sy, key, "[plt]", NULL, dso, 0);
	}
	if (!fn) {
		uint64_t start;
		bool signal;
		int fde = sy_fde_at(d, vaddr, &start, &signal);

		if (fde < 0)
			return fde;
		if (!fde)
			return unknown_at(sy, dso, vaddr, true);
		/*
		 * A signal handler returns to the trampoline (__restore_rt),
		 * whose unwind entry starts a byte early so that a return
		 * address - 1 finds it: it is no call site, the address + 1
		 * is the symbol's (perf names __restore_rt).
		 */
		if (signal && (fn = sy_addrsym(d, vaddr + 1, &symoff))) {
			const char *alias = sy_alias_of(d, vaddr + 1 - symoff);

			vaddr++;
			if (alias)
				fn = alias;
		} else {
			return unknown_at(sy, dso, start, true);
		}
	}
	*fn_out = fn;
	*vaddr_out = vaddr;
	*symoff_out = symoff;
	return FOUND;
}

/*
 * The function symbol of file offset off of dso: true with its name
 * (alias-chosen), link address and offset into it; false when there is
 * none, with *other the sym standing for the address ([plt], [unknown]) or
 * -ENOMEM.  The last address is remembered (sy->last).
 */
bool sy_function_at(struct symbolizer *sy, uint32_t dso, uint64_t off, const char **fn_out,
			uint64_t *vaddr_out, GElf_Off *symoff_out, int64_t *other)
{
	const char *fn = NULL;
	uint64_t vaddr = 0;
	GElf_Off symoff = 0;
	int64_t r;

	if (!sy->last.valid || sy->last.dso != dso || sy->last.off != off) {
		r = function_at_slow(sy, dso, off, &fn, &vaddr, &symoff);
		if (r < 0) {
			*other = r;
			return false;
		}
		sy->last.valid = true;
		sy->last.have_scopes = false;
		sy->last.dso = dso;
		sy->last.off = off;
		sy->last.fn = r == FOUND ? fn : NULL;
		sy->last.vaddr = vaddr;
		sy->last.symoff = symoff;
		sy->last.other = r;
	}
	*fn_out = sy->last.fn;
	*vaddr_out = sy->last.vaddr;
	*symoff_out = sy->last.symoff;
	*other = sy->last.other;
	return sy->last.fn != NULL;
}

/*
 * The sym of function fn (starting at start) of dso, named name (fn, or
 * "inner (inlined in fn)"), with source line src (NULL without --srcline).
 */
int64_t sy_function_sym(struct symbolizer *sy, uint32_t dso, uint64_t start, const char *fn,
			    const char *name, const char *src)
{
	char key[96];
	char *full;
	int64_t id;

	snprintf(key, sizeof(key), "d%u:%" PRIx64, dso, start);
	if (!src && name == fn)
		return sy_get_sym(sy, key, fn, NULL, dso, 0);
	/* Rows per line / inline frame: the identity carries them. */
	full = malloc(strlen(key) + strlen(name) + (src ? strlen(src) : 0) + 4);
	if (!full)
		return -ENOMEM;
	sprintf(full, "%s:%s:%s", key, name, src ? src : "");
	id = sy_get_sym(sy, full, name, src, dso, 0);
	free(full);
	return id;
}

/* The flat sym of off in dso (function, "inner (inlined in outer)", per line). */
static int64_t resolve_uncached(struct symbolizer *sy, uint32_t dso, uint64_t off)
{
	struct dso *d = sy->dsos[dso];
	char line[512], name[512];
	const char *fn = NULL, *src = NULL, *inl = NULL;
	uint64_t vaddr = 0;
	GElf_Off symoff = 0;
	int64_t other;

	if (!sy_function_at(sy, dso, off, &fn, &vaddr, &symoff, &other))
		return other;
	if (sy->opts.srcline)
		src = sy_srcline_of(d->mod, vaddr, line, sizeof(line));
	if (sy->opts.inline_frames)
		inl = sy_inline_name_of(sy, d->mod, vaddr);
	if (inl) {
		char dm[512];

		/* The whole name does not demangle: its mangled part must be demangled first. */
		snprintf(name, sizeof(name), "%s (inlined in %s)", inl,
			 sy->opts.no_demangle ? fn : symbol_demangle(fn, dm, sizeof(dm)));
		return sy_function_sym(sy, dso, vaddr - symoff, fn, name, src);
	}
	return sy_function_sym(sy, dso, vaddr - symoff, fn, fn, src);
}

int64_t symbolizer_resolve(struct symbolizer *sy, uint32_t dso, uint64_t off)
{
	uint32_t v = hm_get(&sy->resolved, off, dso);
	int64_t sym;

	if (v != HM_EMPTY)
		return v;
	sym = resolve_uncached(sy, dso, off);
	if (sym >= 0 && hm_put(&sy->resolved, off, dso, (uint32_t)sym))
		return -ENOMEM;
	return sym;
}

const char *symbolizer_dso_file(struct symbolizer *sy, uint32_t dso, Elf **elf)
{
	const char *main_file = NULL;
	struct dso *d;
	GElf_Addr bias;
	Elf *e;

	if (dso >= sy->dso_keys.n)
		return NULL;
	d = sy->dsos[dso];
	if (sy_dso_ensure(sy, d))
		return NULL;
	if (d->state != DSO_LOADED || d->is_jit)
		return NULL;
	e = dwfl_module_getelf(d->mod, &bias);
	dwfl_module_info(d->mod, NULL, NULL, NULL, NULL, NULL, &main_file, NULL);
	if (!e || !main_file)
		return NULL;
	if (elf)
		*elf = e;
	return main_file;
}
