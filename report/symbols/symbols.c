// SPDX-License-Identifier: GPL-2.0
/*
 * libdwfl-based symbolizer (see symbols.h).  Each DSO is loaded lazily into
 * its own Dwfl at its ELF link addresses (add_p_vaddr), so a file offset
 * from an MMAP record converts to an address through the PT_LOAD headers
 * whatever the load address was: PIE, non-PIE and shared libraries alike.
 */
#include "symbols/symbols.h"

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
	 * globals, then the locals): addrsym() runs its rules over this
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

static const char no_function[] = "";

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

/*
 * libdwfl looks separate debug files up by build-id in every absolute
 * directory of this path (DIR/.build-id/xx/rest.debug), and by
 * .gnu_debuglink next to the file and under /usr/lib/debug: the build-id
 * caches and the symfs root join the default ":.debug:/usr/lib/debug".
 */
static char debuginfo_buf[3 * 4096 + 64];
static char *debuginfo_path;

/* dir + "/" + name exists (dir may be relative to nothing: "" is "/"). */
static bool file_in(const char *dir, const char *sub, const char *name)
{
	char path[3 * 4096];

	return (size_t)snprintf(path, sizeof(path), "%s%s/%s", dir, sub, name) < sizeof(path) &&
	       !access(path, F_OK);
}

/*
 * Whether libdwfl's standard search can find a local debug file for a
 * module: by build-id (DIR/.build-id/xx/rest.debug in each absolute
 * directory of the path) or by .gnu_debuglink (or FILE.debug) next to the
 * file, in its .debug/, or under each absolute directory, for the file's
 * directory and its symlink-resolved one, as find-debuginfo.c looks.  A
 * superset of where it looks: a false "yes" only costs the standard call.
 */
static bool local_debuginfo_may_exist(Dwfl_Module *mod, const char *file_name,
				      const char *debuglink)
{
	const char *path = debuginfo_path ? debuginfo_path : ":.debug:/usr/lib/debug";
	const unsigned char *bits;
	char hex[2 * 64 + 1], dirs[2][4096], link[512], entry[4096 + 64];
	const char *p, *q;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bits, &vaddr), i, nd = 0, k;

	if (len > 0 && len <= 64) {
		for (i = 0; i < len; i++)
			snprintf(hex + 2 * i, 3, "%02x", bits[i]);
		for (p = path; *p; p = *q ? q + 1 : q) {
			q = strchrnul(p, ':');
			if (*p == '/' && (size_t)(q - p) < sizeof(entry) - 64) {
				snprintf(entry, sizeof(entry), "%.*s/.build-id/%.2s", (int)(q - p), p,
					 hex);
				snprintf(link, sizeof(link), "%s.debug", hex + 2);
				if (file_in(entry, "", link))
					return true;
			}
		}
	}
	if (!file_name)
		return false;
	if (debuglink) {
		pm_strlcpy(link, debuglink, sizeof(link));
	} else {
		const char *base = strrchr(file_name, '/');

		snprintf(link, sizeof(link), "%s.debug", base ? base + 1 : file_name);
	}
	for (k = 0; k < 2; k++) {
		char *slash;

		if (k == 0)
			pm_strlcpy(dirs[nd], file_name, sizeof(dirs[nd]));
		else if (!realpath(file_name, dirs[nd]))
			break;
		slash = strrchr(dirs[nd], '/');
		if (slash)
			*slash = 0;
		else
			pm_strlcpy(dirs[nd], ".", sizeof(dirs[nd]));
		nd++;
	}
	for (k = 0; k < nd; k++) {
		if (file_in(dirs[k], "", link) || file_in(dirs[k], "/.debug", link))
			return true;
		for (p = path; *p; p = *q ? q + 1 : q) {
			q = strchrnul(p, ':');
			if (*p == '/' && (size_t)(q - p) < sizeof(entry)) {
				snprintf(entry, sizeof(entry), "%.*s", (int)(q - p), p);
				if (file_in(entry, dirs[k], link))
					return true;
			}
		}
	}
	return false;
}

/*
 * dwfl_standard_find_debuginfo, minus its last resort when nothing local
 * exists: asking debuginfod servers.  Without DEBUGINFOD_URLS that query
 * cannot answer, yet libdw dlopens libdebuginfod (and curl, gnutls,
 * kerberos, ldap: ~25 libraries, several ms) to find that out; every
 * module without a debug file (the vDSO, stripped binaries) triggered it.
 * With DEBUGINFOD_URLS set, the standard search runs as before.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	const unsigned char *bits;
	GElf_Addr vaddr;
	char hex[2 * 20 + 1] = "";
	int fd, len;

	if (local_debuginfo_may_exist(mod, file_name, debuglink_file))
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						    debuglink_file, debuglink_crc,
						    debuginfo_file_name);
	if (!urls || !*urls)
		return -1;
	/*
	 * A server may be slow or silent: libdebuginfod waits 90 s per
	 * connection by default.  Say what is asked, and wait 10 s unless the
	 * user set DEBUGINFOD_TIMEOUT.
	 */
	setenv("DEBUGINFOD_TIMEOUT", "10", 0);
	len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len > 0 && len <= 20)
		build_id_hex(hex, bits, (uint32_t)len);
	pm_info("asking debuginfod (%s) for the debug info of %s%s%s (timeout %s s)...", urls,
		modname, hex[0] ? ", build-id " : "", hex, getenv("DEBUGINFOD_TIMEOUT"));
	fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					  debuglink_crc, debuginfo_file_name);
	pm_info("debuginfod: %s: %s", modname, fd >= 0 ? "debug info found" : "none");
	return fd;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static void set_debuginfo_path(const struct symbolizer_opts *o)
{
	size_t i, n;

	if (!o->symfs && !o->buildid_dirs[0] && !o->buildid_dirs[1]) {
		debuginfo_path = NULL;	/* libdwfl's default */
		return;
	}
	n = (size_t)snprintf(debuginfo_buf, sizeof(debuginfo_buf), ":.debug:/usr/lib/debug");
	for (i = 0; i < ARRAY_SIZE(o->buildid_dirs); i++)
		if (o->buildid_dirs[i] && o->buildid_dirs[i][0] == '/' && n < sizeof(debuginfo_buf))
			n += (size_t)snprintf(debuginfo_buf + n, sizeof(debuginfo_buf) - n, ":%s",
					      o->buildid_dirs[i]);
	if (o->symfs && o->symfs[0] == '/' && n < sizeof(debuginfo_buf))
		snprintf(debuginfo_buf + n, sizeof(debuginfo_buf) - n, ":%s/usr/lib/debug", o->symfs);
	debuginfo_path = debuginfo_buf;
}

int symbolizer_new(struct symbolizer **out, const struct symbolizer_opts *opts)
{
	struct symbolizer *sy = calloc(1, sizeof(*sy));

	if (!sy)
		return -ENOMEM;
	if (opts)
		sy->opts = *opts;
	sy->kernel_dso = -1;
	set_debuginfo_path(&sy->opts);
	if (strtab_init(&sy->ids) || strtab_init(&sy->dso_keys) || strtab_init(&sy->names) ||
	    strtab_init(&sy->chain_keys) || hm_init(&sy->chain_at, 1024) ||
	    hm_init(&sy->resolved, 4096)) {
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
	strtab_free(&sy->chain_keys);
	hm_free(&sy->chain_at);
	free(sy->chains);
	free(sy->chain_syms);
	free(sy->levels);
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

/* The sym for identity key, created with name/srcline/dso when new. */
static int64_t get_sym(struct symbolizer *sy, const char *key, const char *name,
		       const char *srcline, uint32_t dso, uint32_t flags)
{
	uint32_t before = sy->ids.n;
	int64_t id = strtab_intern(&sy->ids, key);
	char demangled[1024];
	struct sym *s;

	if (id < 0 || sy->ids.n == before)
		return id;
	if (pm_grow(&sy->syms, &sy->cap_syms, sy->ids.n, 256, sizeof(*sy->syms)))
		return -ENOMEM;
	s = &sy->syms[id];
	if (!sy->opts.no_demangle)
		name = symbol_demangle(name, demangled, sizeof(demangled));
	s->name = intern_name(sy, name);
	s->srcline = srcline ? intern_name(sy, srcline) : NULL;
	s->dso = dso;
	s->flags = flags;
	if (!s->name || (srcline && !s->srcline))
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

static void dso_missing(struct dso *d, const char *fmt, const char *arg)
{
	d->state = DSO_MISSING;
	/* A long path is cut: the note stays a one-line hint. */
	if (snprintf(d->note, sizeof(d->note), fmt, arg) >= (int)sizeof(d->note))
		memcpy(d->note + sizeof(d->note) - 4, "...", 4);
	d->info.note = d->note;
}

static bool report_file(struct dso *d, const char *file)
{
	if (access(file, R_OK))
		return false;
	d->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!d->dwfl)
		return false;
	dwfl_report_begin(d->dwfl);
	d->mod = dwfl_report_elf(d->dwfl, d->info.short_name, file, -1, 0, true);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (!d->mod) {
		dwfl_end(d->dwfl);
		d->dwfl = NULL;
		return false;
	}
	return true;
}

/*
 * The vDSO is in no file: the kernel maps the same image into every
 * process, ours included, so a copy of ours symbolizes the trace's (when
 * the trace was recorded on this kernel).
 */
static bool report_own_vdso(struct dso *d)
{
	const void *img = (const void *)getauxval(AT_SYSINFO_EHDR);
	char tmp[] = "/tmp/pmiprof-vdso.XXXXXX";
	unsigned long long s, e;
	char line[512];
	size_t len = 0;
	bool ok = false;
	FILE *f;
	int fd;

	f = fopen("/proc/self/maps", "r");
	if (!img || !f)
		goto out;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &s, &e) == 2 &&
		    (uintptr_t)img == s)
			len = e - s;
	if (!len)
		goto out;
	fd = mkstemp(tmp);
	if (fd < 0)
		goto out;
	ok = write(fd, img, len) == (ssize_t)len && report_file(d, tmp);
	/* libdwfl holds the file open: the name is not needed any more. */
	unlink(tmp);
	close(fd);
out:
	if (f)
		fclose(f);
	return ok;
}

/*
 * The files that hold d's recorded build-id, in the order they are tried:
 * "" (the ELF) or ".debug" (its separate debug file) under each build-id
 * cache, then the debug file under SYMFS/usr/lib/debug and /usr/lib/debug.
 * Returns false when there is no candidate i.
 */
static bool by_build_id(const struct symbolizer *sy, const struct dso *d, bool debug, unsigned i,
			char *buf, size_t size)
{
	const char *dirs[ARRAY_SIZE(sy->opts.buildid_dirs) + 2];
	char sysdbg[4096 + 16];
	unsigned n = 0, k;
	char hex[48];

	if (d->build_id_len < 2)
		return false;
	for (k = 0; k < ARRAY_SIZE(sy->opts.buildid_dirs); k++)
		if (sy->opts.buildid_dirs[k])
			dirs[n++] = sy->opts.buildid_dirs[k];
	if (debug) {
		if (sy->opts.symfs) {
			snprintf(sysdbg, sizeof(sysdbg), "%s/usr/lib/debug", sy->opts.symfs);
			dirs[n++] = sysdbg;
		}
		dirs[n++] = "/usr/lib/debug";
	}
	if (i >= n)
		return false;
	build_id_hex(hex, d->build_id, d->build_id_len);
	snprintf(buf, size, "%s/.build-id/%.2s/%s%s", dirs[i], hex, hex + 2, debug ? ".debug" : "");
	return true;
}

/*
 * Whether the module's build-id is not the recorded one: another, or none
 * when one was recorded (the recorder read it from the mapped file).
 */
static bool build_id_differs(const struct dso *d)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(d->mod, &bits, &vaddr);

	return d->build_id_len &&
	       (len <= 0 || (uint32_t)len != d->build_id_len || memcmp(bits, d->build_id, (size_t)len));
}

/* Report file when it is the recorded build (any file without a recorded build-id). */
static bool report_checked(struct dso *d, const char *file)
{
	if (!report_file(d, file))
		return false;
	if (!build_id_differs(d))
		return true;
	dwfl_end(d->dwfl);
	d->dwfl = NULL;
	d->mod = NULL;
	d->mismatches++;
	return false;
}

/* Report the first file of the recorded build-id: true when there was one. */
static bool report_by_build_id(const struct symbolizer *sy, struct dso *d, bool debug)
{
	char file[4096 + 128];
	unsigned i;

	for (i = 0; by_build_id(sy, d, debug, i, file, sizeof(file)); i++)
		if (report_checked(d, file))
			return true;
	return false;
}

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
static bool alias_prefers(const struct alias_cand *a, const struct alias_cand *b)
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
		if (alias_prefers(&cands[best], &cands[i])) {
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
struct kv {
	uint64_t key;
	uint64_t val;
};

static int radix_sort(struct kv *a, uint32_t n)
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

	if (radix_sort(b, nb))
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
static uint32_t interval_of(const struct dso *d, uint64_t vaddr)
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
static int load_aliases(const struct symbolizer *sy, struct dso *d)
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
	if (radix_sort(order, nc))
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
static const char *addrsym(struct dso *d, uint64_t addr, GElf_Off *symoff)
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
static const char *alias_of(const struct dso *d, uint64_t addr)
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
		if (!report_own_vdso(d)) {
			dso_missing(d, "cannot copy this process's vDSO (%s)", "no AT_SYSINFO_EHDR");
			return;
		}
		if (build_id_differs(d)) {
			dso_missing(d, "%s", "this process's vDSO is not the recorded one (another "
				    "kernel?)");
			return;
		}
	} else if (report_by_build_id(sy, d, false) || report_checked(d, where)) {
		/* The very file that was mapped. */
	} else if (d->build_id_len < 2 || !report_by_build_id(sy, d, true)) {
		if (d->mismatches) {
			d->kind = UNK_MISMATCH;
			dso_missing(d, "%s has another build-id than the recorded one (changed "
				    "since recording?), and no file of the recorded build was found",
				    where);
		} else if (d->build_id_len < 2) {
			dso_missing(d, "cannot read %s (and no build-id to find debug info)", where);
		} else if (sy->opts.buildid_dirs[0] || sy->opts.buildid_dirs[1]) {
			dso_missing(d, "cannot read %s, nor a file of its build-id in the "
				    "build-id cache or debug info", where);
		} else {
			dso_missing(d, "cannot read %s, nor its debug info by build-id "
				    "(recorded on another machine? see --symfs, --archive)", where);
		}
		return;
	}
	elf = dwfl_module_getelf(d->mod, &bias);
	d->debug_only = elf && symbolizer_elf_is_debug_only(elf);
	if (!elf || load_segments(d, elf)) {
		if (d->debug_only) {
			d->kind = UNK_UNPLACED;
			dso_missing(d, "cannot read %s; its separate debug file has the symbols but "
				    "not the file layout, and no recorded mapping places its code",
				    where);
		} else {
			d->kind = UNK_OTHER;
			dso_missing(d, "%s is not an ELF file with loadable segments", where);
		}
		return;
	}
	d->kind = UNK_STRIPPED;
	d->state = DSO_LOADED;
}

static bool offset_to_vaddr(const struct dso *d, uint64_t off, uint64_t *vaddr)
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
	sy->dsos[dso]->unknown_sym = get_sym(sy, key, "[unknown]", NULL, (uint32_t)dso,
					    SYM_F_UNKNOWN);
	return sy->dsos[dso]->unknown_sym;
}

/*
 * The CU containing addr.  dwfl_module_addrdie() needs .debug_aranges,
 * which clang does not emit by default: then walk the CUs' ranges.
 */
static Dwarf_Die *cu_of(Dwfl_Module *mod, uint64_t addr, Dwarf_Addr *bias)
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
static const char *srcline_of(Dwfl_Module *mod, uint64_t addr, char *buf, size_t size)
{
	const char *file = NULL, *base;
	Dwfl_Line *line = dwfl_module_getsrc(mod, addr);
	int lineno = 0;

	if (line) {
		file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
	} else {
		Dwarf_Addr bias;
		Dwarf_Die *cu = cu_of(mod, addr, &bias);
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
 * The DWARF scopes at the last address function_at() looked up (vaddr in
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
		sy->last.cu = cu_of(mod, vaddr, &sy->last.bias);
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
static const char *inline_name_of(struct symbolizer *sy, Dwfl_Module *mod, uint64_t addr)
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

/*
 * The module's .plt, .plt.sec and .plt.got ranges, from the section headers
 * of its main file.  dwfl_module_address_section would answer per address,
 * but it loads the module's DWARF first (for libc with libc6-dbg: inflating
 * tens of MB of compressed debug sections), a third of a small report.
 */
static int load_plts(struct dso *d)
{
	Elf_Scn *scn = NULL;
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(d->mod, &bias);
	size_t shstrndx;

	d->plts_known = true;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *name;
		struct plt_range *n;

		if (!gelf_getshdr(scn, &shdr) || !(shdr.sh_flags & SHF_ALLOC) || !shdr.sh_size)
			continue;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (!name || strncmp(name, ".plt", 4))
			continue;
		n = realloc(d->plts, (d->nr_plts + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		d->plts = n;
		n[d->nr_plts++] = (struct plt_range){ shdr.sh_addr + bias,
						      shdr.sh_addr + bias + shdr.sh_size };
	}
	return 0;
}

/* 1 when vaddr lies in a PLT section (no symbol covers it), 0 if not, -ENOMEM. */
static int in_plt(struct dso *d, uint64_t vaddr)
{
	uint32_t i;

	if (!d->plts_known) {
		int err = load_plts(d);

		if (err)
			return err;
	}
	for (i = 0; i < d->nr_plts; i++)
		if (vaddr >= d->plts[i].start && vaddr < d->plts[i].end)
			return 1;
	return 0;
}

/*
 * d's function symbols by address (the .dynsym of a stripped file), built
 * on the first address no symbol covers: they name its neighbourhood.
 */
static int load_funcs(struct dso *d)
{
	int n = dwfl_module_getsymtab(d->mod), i;
	struct kv *kv;
	uint32_t k = 0, j;

	d->funcs_known = true;
	if (n <= 1)
		return 0;
	kv = malloc((size_t)n * sizeof(*kv));
	if (!kv)
		return -ENOMEM;
	for (i = 1; i < n; i++) {
		GElf_Word shndx;
		GElf_Addr addr;
		GElf_Sym sym;
		const char *name = dwfl_module_getsym_info(d->mod, i, &sym, &addr, &shndx,
							   NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (name && name[0] && shndx != SHN_UNDEF && shndx != SHN_ABS &&
		    (type == STT_FUNC || type == STT_GNU_IFUNC))
			kv[k++] = (struct kv){ addr, (uint64_t)i };
	}
	d->funcs = malloc((k ? k : 1) * sizeof(*d->funcs));
	if (!d->funcs || radix_sort(kv, k)) {
		free(kv);
		return -ENOMEM;
	}
	for (j = 0; j < k; j++) {
		GElf_Sym sym;
		GElf_Addr addr;

		d->funcs[j] = (struct func_start){ kv[j].key,
			dwfl_module_getsym_info(d->mod, (int)kv[j].val, &sym, &addr, NULL, NULL,
						NULL) };
	}
	d->nr_funcs = k;
	free(kv);
	return 0;
}

/* The last function symbol starting at or below addr, or NULL. */
static const struct func_start *func_before(const struct dso *d, uint64_t addr)
{
	uint32_t lo = 0, hi = d->nr_funcs;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (d->funcs[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &d->funcs[lo - 1] : NULL;
}

/*
 * The start of every function the unwind table knows, from the sorted
 * search table of .eh_frame_hdr (PT_GNU_EH_FRAME: version 1, a udata4
 * count, datarel sdata4 pairs), in module addresses.  Nothing for a
 * separate debug file (no bytes) or another table format.
 */
static int load_fdes(struct dso *d)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(d->mod, &bias);
	size_t size = 0, i, phnum, ps;
	const uint8_t *img = elf ? (const uint8_t *)elf_rawfile(elf, &size) : NULL;

	d->fdes_known = true;
	if (!img || d->debug_only || elf_getphdrnum(elf, &phnum))
		return 0;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);
		const uint8_t *h;
		uint32_t count, k;

		if (!ph || ph->p_type != PT_GNU_EH_FRAME || ph->p_offset > size ||
		    ph->p_filesz > size - ph->p_offset || ph->p_filesz < 16)
			continue;
		h = img + ph->p_offset;
		if (h[0] != 1 || h[2] != 0x03 || h[3] != 0x3b)
			return 0;
		switch (h[1] & 0x0f) {
		case 0x03: case 0x0b:
			ps = 4;
			break;
		case 0x00: case 0x04: case 0x0c:
			ps = 8;
			break;
		default:
			return 0;
		}
		memcpy(&count, h + 4 + ps, 4);
		if (!count || (uint64_t)count * 8 > ph->p_filesz - 8 - ps)
			return 0;
		d->fdes = malloc((size_t)count * sizeof(*d->fdes));
		if (!d->fdes)
			return -ENOMEM;
		for (k = 0; k < count; k++) {
			int32_t loc;

			memcpy(&loc, h + 8 + ps + (size_t)k * 8, 4);
			d->fdes[k] = ph->p_vaddr + (uint64_t)(int64_t)loc + bias;
		}
		d->nr_fdes = count;
		return 0;
	}
	return 0;
}

/*
 * The .eh_frame entry (FDE) covering vaddr: 1 with the function's start
 * (the table's last start at or below vaddr) and whether it describes a
 * signal frame (augmentation 'S'), 0 without one, -ENOMEM.  Every x86-64
 * function compiled with the default -fasynchronous-unwind-tables has one,
 * stripped or not: it delimits a function that has no symbol.
 */
static int fde_at(struct dso *d, uint64_t vaddr, uint64_t *start, bool *signal)
{
	Dwarf_Addr bias, s, e;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(d->mod, &bias);
	Dwarf_Frame *fr = NULL;
	uint32_t lo = 0, hi;

	if (!d->fdes_known && load_fdes(d))
		return -ENOMEM;
	if (!cfi || vaddr < bias || dwarf_cfi_addrframe(cfi, vaddr - bias, &fr) || !fr)
		return 0;
	*signal = false;
	dwarf_frame_info(fr, &s, &e, signal);
	free(fr);
	*start = vaddr;
	for (hi = d->nr_fdes; lo < hi;) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (d->fdes[mid] <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo)
		*start = d->fdes[lo - 1];
	return 1;
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
	if (file && !d->funcs_known && load_funcs(d))
		return -ENOMEM;
	if (file)
		near = func_before(d, addr);
	if (near)
		snprintf(name, sizeof(name), "[unknown] 0x%" PRIx64 " <%s+0x%" PRIx64 ">", addr,
			 sy->opts.no_demangle ? near->name :
			 symbol_demangle(near->name, dm, sizeof(dm)), addr - near->addr);
	else
		snprintf(name, sizeof(name), "[unknown] 0x%" PRIx64, addr);
	id = get_sym(sy, key, name, NULL, dso, SYM_F_UNKNOWN);
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

	if (d->state == DSO_NEW) {
		dso_load(sy, d);
		if (d->state == DSO_LOADED && load_aliases(sy, d))
			return -ENOMEM;
	}
	if (d->state != DSO_LOADED && d->kind == UNK_OTHER)
		return symbolizer_unknown(sy, dso);
	if (d->state != DSO_LOADED || !offset_to_vaddr(d, off, &vaddr))
		return unknown_at(sy, dso, off, false);
	/*
	 * The function only: srcline and inline frames depend on the address
	 * itself and are looked up from vaddr by the callers.
	 */
	iv = interval_of(d, vaddr);
	if (iv != UINT32_MAX)
		b = &d->bound_fn[iv];
	if (b && b->fn) {
		fn = b->fn == no_function ? NULL : b->fn;
		symoff = vaddr - b->start;
	} else {
		sy->lookups++;
		fn = addrsym(d, vaddr, &symoff);
		if (fn) {
			const char *alias = alias_of(d, vaddr - symoff);

			if (alias)
				fn = alias;
		}
		/* Same covering symbols in the whole interval: the same answer. */
		if (b)
			*b = (struct bound_fn){ .start = fn ? vaddr - symoff : 0,
						.fn = fn ? fn : no_function };
	}
	plt = fn ? 0 : in_plt(d, vaddr);
	if (plt < 0)
		return plt;
	if (plt) {
		/* perf names each stub func@plt; one row per DSO is enough here. */
		snprintf(key, sizeof(key), "d%u:plt", dso);
		return get_sym(sy, key, "[plt]", NULL, dso, 0);
	}
	if (!fn) {
		uint64_t start;
		bool signal;
		int fde = fde_at(d, vaddr, &start, &signal);

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
		if (signal && (fn = addrsym(d, vaddr + 1, &symoff))) {
			const char *alias = alias_of(d, vaddr + 1 - symoff);

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
static bool function_at(struct symbolizer *sy, uint32_t dso, uint64_t off, const char **fn_out,
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
static int64_t function_sym(struct symbolizer *sy, uint32_t dso, uint64_t start, const char *fn,
			    const char *name, const char *src)
{
	char key[96];
	char *full;
	int64_t id;

	snprintf(key, sizeof(key), "d%u:%" PRIx64, dso, start);
	if (!src && name == fn)
		return get_sym(sy, key, fn, NULL, dso, 0);
	/* Rows per line / inline frame: the identity carries them. */
	full = malloc(strlen(key) + strlen(name) + (src ? strlen(src) : 0) + 4);
	if (!full)
		return -ENOMEM;
	sprintf(full, "%s:%s:%s", key, name, src ? src : "");
	id = get_sym(sy, full, name, src, dso, 0);
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

	if (!function_at(sy, dso, off, &fn, &vaddr, &symoff, &other))
		return other;
	if (sy->opts.srcline)
		src = srcline_of(d->mod, vaddr, line, sizeof(line));
	if (sy->opts.inline_frames)
		inl = inline_name_of(sy, d->mod, vaddr);
	if (inl) {
		char dm[512];

		/* The whole name does not demangle: its mangled part must be demangled first. */
		snprintf(name, sizeof(name), "%s (inlined in %s)", inl,
			 sy->opts.no_demangle ? fn : symbol_demangle(fn, dm, sizeof(dm)));
		return function_sym(sy, dso, vaddr - symoff, fn, name, src);
	}
	return function_sym(sy, dso, vaddr - symoff, fn, fn, src);
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

/*
 * The inlined functions containing addr, innermost first (at most max): how
 * many.  dwarf_getscopes() continues from an inlined instance into its
 * abstract definition's scopes; the scopes of the innermost instance itself
 * (dwarf_getscopes_die()) are the concrete nesting, up to the physical
 * function, as elfutils' addr2line -i walks them.
 */
static int inline_levels(struct symbolizer *sy, Dwfl_Module *mod, uint64_t addr,
			 struct inl_level *lv, int max)
{
	Dwarf_Die *scopes, *cu, *chain = NULL;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	int i, n = last_scopes(sy, mod, addr, &scopes, &cu), k = 0;

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
		Dwarf_Attribute a;
		Dwarf_Word fidx = 0, line = 0;
		const char *file = NULL, *base;

		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		lv[k].name = inline_level_name(&chain[i]);
		lv[k].call[0] = '\0';
		if (files && !dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_file, &a), &fidx) &&
		    fidx < nfiles)
			file = dwarf_filesrc(files, fidx, NULL, NULL);
		if (file && !dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_line, &a), &line)) {
			base = strrchr(file, '/');
			snprintf(lv[k].call, sizeof(lv[k].call), "%s:%" PRIu64, base ? base + 1 : file,
				 (uint64_t)line);
		}
		k++;
	}
	free(chain);
	return k;
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
	if (!function_at(sy, dso, off, &fn, &vaddr, &symoff, &id)) {
		if (id < 0)
			return (int)id;
		syms[(*n)++] = (uint32_t)id;
		return 0;
	}
	if (sy->opts.srcline)
		src = srcline_of(d->mod, vaddr, line, sizeof(line));
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
		id = get_sym(sy, key, lv[j].name, at, dso, SYM_F_INLINE);
		if (id < 0)
			return (int)id;
		syms[(*n)++] = (uint32_t)id;
	}
	if (k && sy->opts.srcline)
		src = lv[k - 1].call[0] ? lv[k - 1].call : NULL;
	id = function_sym(sy, dso, vaddr - symoff, fn, fn, src);
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

const char *symbolizer_dso_file(struct symbolizer *sy, uint32_t dso, Elf **elf)
{
	const char *main_file = NULL;
	struct dso *d;
	GElf_Addr bias;
	Elf *e;

	if (dso >= sy->dso_keys.n)
		return NULL;
	d = sy->dsos[dso];
	if (d->state == DSO_NEW) {
		dso_load(sy, d);
		if (d->state == DSO_LOADED && load_aliases(sy, d))
			return NULL;
	}
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

/* ---- kernel: /proc/kallsyms ---- */

/*
 * Sort by address, ties in file order (perf keeps the first).  kallsyms is
 * one ascending run for the kernel and one per module, so a stable merge of
 * those runs (O(n log runs)) replaces a full sort (O(n log n)): that sort
 * was a fifth of a short report's instructions.  Returns 0 or -ENOMEM.
 */
static int sort_ksyms(struct ksym *k, uint32_t n)
{
	uint32_t *runs, nr = 0, i, width;
	struct ksym *tmp, *src = k, *dst;

	runs = malloc(((size_t)n + 1) * sizeof(*runs));
	if (!runs)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (!i || k[i].addr < k[i - 1].addr)
			runs[nr++] = i;
	runs[nr] = n;
	if (nr <= 1) {
		free(runs);
		return 0;
	}
	tmp = malloc((size_t)n * sizeof(*tmp));
	if (!tmp) {
		free(runs);
		return -ENOMEM;
	}
	dst = tmp;
	for (width = 1; width < nr; width *= 2) {
		uint32_t r;

		for (r = 0; r < nr; r += 2 * width) {
			uint32_t a = runs[r], am = runs[r + width < nr ? r + width : nr];
			uint32_t bm = runs[r + 2 * width < nr ? r + 2 * width : nr], b = am, o = a;

			while (a < am && b < bm)
				dst[o++] = src[b].addr < src[a].addr ? src[b++] : src[a++];
			while (a < am)
				dst[o++] = src[a++];
			while (b < bm)
				dst[o++] = src[b++];
		}
		src = dst;
		dst = src == k ? tmp : k;
	}
	if (src != k)
		memcpy(k, src, (size_t)n * sizeof(*k));
	free(tmp);
	free(runs);
	return 0;
}

/*
 * Keep one symbol per address, chosen as perf's symbols__fixup_duplicate()
 * does for kallsyms: every symbol sized 0 and a function, bound weak for
 * 'W', global for the other capital letters, local for the rest.
 */
static void dedup_kallsyms(struct symbolizer *sy)
{
	uint32_t i, o = 0;

	for (i = 0; i < sy->nr_ksyms; i++) {
		const struct ksym *k = &sy->ksyms[i];

		if (o && sy->ksyms[o - 1].addr == k->addr) {
			const struct ksym *kept = &sy->ksyms[o - 1];
			char ta = sy->ktext[kept->name - 2], tb = sy->ktext[k->name - 2];
			struct alias_cand a = {
				.addr = kept->addr, .name = sy->ktext + kept->name, .type = STT_FUNC,
				.bind = ta == 'W' ? STB_WEAK : isupper((unsigned char)ta) ? STB_GLOBAL :
										      STB_LOCAL,
			};
			struct alias_cand b = {
				.addr = k->addr, .name = sy->ktext + k->name, .type = STT_FUNC,
				.bind = tb == 'W' ? STB_WEAK : isupper((unsigned char)tb) ? STB_GLOBAL :
										      STB_LOCAL,
			};

			if (alias_prefers(&a, &b))
				sy->ksyms[o - 1] = *k;
			continue;
		}
		sy->ksyms[o++] = *k;
	}
	sy->nr_ksyms = o;
}


/*
 * The index of kallsyms_index_map(): the table load_kallsyms() parsed,
 * sorted and deduplicated from this boot's text, so the next report maps
 * it (a few pages touched by lookups) instead of parsing 5 MB (~10 ms, most
 * of a short report).  Bump the magic whenever parsing or deduplication
 * changes what the table holds.
 */
#define KIDX_MAGIC "PMKIDX\0\1"
struct kidx_hdr {
	char magic[8];
	uint32_t nr_syms, nr_mods;
	uint64_t names_len;		/* ktext, NUL-terminated */
	/* then u32 module name offsets (padded to 8 bytes), ksyms, names */
};

static size_t kidx_mods_size(uint32_t nr_mods)
{
	return ((size_t)nr_mods * sizeof(uint32_t) + 7) & ~(size_t)7;
}

/* Registers the index's DSOs as the parse would; false when it does not hold up. */
static bool kidx_load(struct symbolizer *sy)
{
	const struct kidx_hdr *h;
	const uint32_t *mods;
	const struct ksym *k;
	const char *names;
	size_t len = 0, need;
	const void *map = kallsyms_index_map(&len);
	uint32_t i;

	if (!map)
		return false;
	h = map;
	if (len < sizeof(*h) || memcmp(h->magic, KIDX_MAGIC, sizeof(h->magic)) || !h->nr_syms ||
	    !h->names_len || h->names_len > len || h->nr_mods >= UINT32_MAX)
		goto bad;
	need = sizeof(*h) + kidx_mods_size(h->nr_mods) + (size_t)h->nr_syms * sizeof(*k);
	if (need > len || len - need != h->names_len)
		goto bad;
	mods = (const uint32_t *)(h + 1);
	k = (const struct ksym *)((const char *)mods + kidx_mods_size(h->nr_mods));
	names = (const char *)map + need;
	if (names[h->names_len - 1])
		goto bad;
	for (i = 0; i < h->nr_mods; i++)
		if (mods[i] >= h->names_len)
			goto bad;
	/*
	 * The symbols are checked where a lookup lands (symbolizer_resolve_kernel),
	 * not all up front: that loop touched the whole index (2-4 MB) and was a
	 * quarter of a small report's instructions.  A binary search stays in
	 * bounds whatever the order, and ends between two entries that bracket
	 * the address, which is all a lookup relies on.
	 */
	sy->kmod_dso = malloc(((size_t)h->nr_mods + 1) * sizeof(*sy->kmod_dso));
	if (!sy->kmod_dso)
		goto bad;
	sy->kmod_dso[0] = (uint32_t)sy->kernel_dso;
	for (i = 0; i < h->nr_mods; i++) {
		int64_t did = symbolizer_dso(sy, names + mods[i], NULL, 0);

		if (did < 0)
			break;
		sy->dsos[did]->info.note = NULL;
		sy->kmod_dso[i + 1] = (uint32_t)did;
	}
	sy->nr_kmods = i;
	sy->dsos[sy->kernel_dso]->info.note = NULL;
	/* read only: the mapping is PROT_READ and nothing writes a loaded table */
	sy->ksyms = (struct ksym *)k;
	sy->nr_ksyms = i == h->nr_mods ? h->nr_syms : 0;
	sy->ktext = (char *)names;
	sy->kmap_names_len = h->names_len;
	sy->kmap = map;
	sy->kmap_len = len;
	return true;
bad:
	kallsyms_index_unmap(map, len);
	return false;
}

static void kidx_store(const struct symbolizer *sy, size_t text_len)
{
	struct kidx_hdr h = { .nr_syms = sy->nr_ksyms, .nr_mods = sy->nr_kmods };
	size_t mods_size = kidx_mods_size(sy->nr_kmods), names = 0, off = text_len + 1;
	uint32_t *mods = calloc(1, mods_size + 8), i;
	struct iovec iov[5];
	char *mnames;

	if (!mods)
		return;
	/* module names after the text (the text's own copies are cut by tabs) */
	for (i = 0; i < sy->nr_kmods; i++)
		names += strlen(sy->dsos[sy->kmod_dso[i + 1]]->path) + 1;
	mnames = malloc(names + 1);
	if (!mnames || off + names >= UINT32_MAX) {
		free(mnames);
		free(mods);
		return;
	}
	for (i = 0, names = 0; i < sy->nr_kmods; i++) {
		const char *m = sy->dsos[sy->kmod_dso[i + 1]]->path;
		size_t n = strlen(m) + 1;

		mods[i] = (uint32_t)(off + names);
		memcpy(mnames + names, m, n);
		names += n;
	}
	h.names_len = off + names;
	memcpy(h.magic, KIDX_MAGIC, sizeof(h.magic));
	iov[0] = (struct iovec){ &h, sizeof(h) };
	iov[1] = (struct iovec){ mods, mods_size };
	iov[2] = (struct iovec){ sy->ksyms, (size_t)sy->nr_ksyms * sizeof(*sy->ksyms) };
	iov[3] = (struct iovec){ sy->ktext, text_len + 1 };
	iov[4] = (struct iovec){ mnames, names };
	kallsyms_index_store(iov, 5);
	free(mnames);
	free(mods);
}

/* Module index (ksym.mod) of DSO did, added at the end when new. */
static int kmod_of(struct symbolizer *sy, uint32_t did, uint32_t *cap)
{
	uint32_t i;

	for (i = 1; i <= sy->nr_kmods; i++)
		if (sy->kmod_dso[i] == did)
			return (int)i;
	if (sy->nr_kmods + 1 >= *cap) {
		uint32_t *n = realloc(sy->kmod_dso, (size_t)*cap * 2 * sizeof(*n));

		if (!n)
			return -ENOMEM;
		sy->kmod_dso = n;
		*cap *= 2;
	}
	sy->kmod_dso[++sy->nr_kmods] = did;
	return (int)sy->nr_kmods;
}

/*
 * /proc/kallsyms has ~200k lines "ADDR TYPE NAME[\t[MODULE]]": parsed by hand
 * in place (names stay in the buffer), keeping only text symbols.
 */
static void load_kallsyms(struct symbolizer *sy)
{
	const char *path = sy->opts.kallsyms ? sy->opts.kallsyms : "/proc/kallsyms";
	uint32_t cap = 0, mod_cap = 16, last_did = UINT32_MAX;
	size_t len = 0;
	char *p, *end;
	int last_mod = 0;

	sy->kernel_loaded = true;
	sy->kernel_dso = symbolizer_dso(sy, "[kernel.kallsyms]", NULL, 0);
	if (sy->kernel_dso < 0)
		return;
	/* This boot's own kallsyms: the index parsed from it last time, if any. */
	if (!sy->opts.kallsyms && !sy->opts.kernel_note && !sy->kidx_bad && kidx_load(sy))
		return;
	sy->kmod_dso = malloc(mod_cap * sizeof(*sy->kmod_dso));
	if (!sy->kmod_dso) {
		dso_missing(sy->dsos[sy->kernel_dso], "out of memory reading %s", path);
		return;
	}
	sy->kmod_dso[0] = (uint32_t)sy->kernel_dso;
	if (sy->opts.kallsyms) {
		if (pm_read_file(path, &sy->ktext, &len))
			sy->ktext = NULL;
	} else if (sy->opts.kernel_note) {
		/*
		 * Another boot's trace (session.c sets the note whenever it sets
		 * kallsyms_boot): its cached kallsyms, never this kernel's names.
		 */
		path = "the kallsyms cached during the recording boot";
		if (sy->opts.kallsyms_boot)
			sy->ktext = kallsyms_read_boot(sy->opts.kallsyms_boot, &len);
		if (!sy->ktext) {
			dso_missing(sy->dsos[sy->kernel_dso], "%s", sy->opts.kernel_note);
			return;
		}
	} else {
		sy->ktext = kallsyms_read_cached(&len);
	}
	if (!sy->ktext) {
		dso_missing(sy->dsos[sy->kernel_dso], "cannot read %s", path);
		return;
	}
	for (p = sy->ktext, end = p + len; p < end; p++) {
		char *line = p, *name, *mod = NULL, type;
		uint64_t addr = 0;
		int64_t did;
		int h, mi = 0;

		p = memchr(p, '\n', (size_t)(end - p));
		if (!p)
			p = end;
		*p = 0;
		while ((h = pm_hexval((unsigned char)*line)) >= 0)
			addr = addr << 4 | (uint64_t)h, line++;
		if (*line != ' ' || !addr)
			continue;
		type = line[1];
		if ((type | 0x20) != 't' && (type | 0x20) != 'w')
			continue;
		name = line + 3;
		line = strchr(name, '\t');
		if (line) {
			*line = 0;
			mod = strchr(line + 1, '[');
		}
		if (mod) {
			char *close_br = strchr(mod, ']');

			if (close_br)
				close_br[1] = 0;
			did = symbolizer_dso(sy, mod, NULL, 0);
			if (did < 0)
				break;
			sy->dsos[did]->info.note = NULL;
			/* a module's symbols come together: one lookup per run */
			mi = (uint32_t)did == last_did ? last_mod : kmod_of(sy, (uint32_t)did, &mod_cap);
			if (mi < 0)
				break;
			last_did = (uint32_t)did;
			last_mod = mi;
		}
		if (sy->nr_ksyms == cap) {
			struct ksym *k;

			cap = cap ? cap * 2 : 65536;
			k = realloc(sy->ksyms, cap * sizeof(*k));
			if (!k)
				break;
			sy->ksyms = k;
		}
		sy->ksyms[sy->nr_ksyms++] = (struct ksym){ addr, (uint32_t)(name - sy->ktext),
							   (uint32_t)mi };
	}
	if (!sy->nr_ksyms) {
		dso_missing(sy->dsos[sy->kernel_dso], "%s shows no addresses (kptr_restrict)",
			    path);
		return;
	}
	sy->dsos[sy->kernel_dso]->info.note = NULL;
	if (sort_ksyms(sy->ksyms, sy->nr_ksyms)) {
		dso_missing(sy->dsos[sy->kernel_dso], "out of memory sorting %s", path);
		sy->nr_ksyms = 0;
		return;
	}
	dedup_kallsyms(sy);
	if (!sy->opts.kallsyms && !sy->opts.kernel_note)
		kidx_store(sy, len);
}

void symbolizer_load_kernel(struct symbolizer *sy)
{
	if (!sy->kernel_loaded)
		load_kallsyms(sy);
}

int64_t symbolizer_resolve_kernel(struct symbolizer *sy, uint64_t ip)
{
	uint32_t lo = 0, hi;
	const struct ksym *k;
	char key[64];

	if (!sy->kernel_loaded)
		load_kallsyms(sy);
	if (sy->kernel_dso < 0)
		return -ENOMEM;
	sy->lookups++;
	hi = sy->nr_ksyms;
	if (!sy->opts.kernel || !hi || ip < sy->ksyms[0].addr)
		return symbolizer_unknown(sy, sy->kernel_dso);
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sy->ksyms[mid].addr <= ip)
			lo = mid;
		else
			hi = mid;
	}
	k = &sy->ksyms[lo];
	/*
	 * A mapped index is checked here, entry by entry (kidx_load): a damaged
	 * one is dropped and the kallsyms text parsed (and the index rewritten),
	 * as when the damage shows at load time.  Symbols named so far keep
	 * their ids: the text gives the same (address, name) pairs.
	 */
	if (sy->kmap && (k->name >= sy->kmap_names_len || k->mod > sy->nr_kmods)) {
		kallsyms_index_unmap(sy->kmap, sy->kmap_len);
		sy->kmap = NULL;
		sy->ksyms = NULL;
		sy->ktext = NULL;
		sy->nr_ksyms = 0;
		free(sy->kmod_dso);
		sy->kmod_dso = NULL;
		sy->nr_kmods = 0;
		sy->kidx_bad = true;
		load_kallsyms(sy);
		return symbolizer_resolve_kernel(sy, ip);
	}
	snprintf(key, sizeof(key), "k:%" PRIx64, k->addr);
	return get_sym(sy, key, sy->ktext + k->name, NULL, sy->kmod_dso[k->mod], 0);
}

int64_t symbolizer_marker(struct symbolizer *sy, const char *name)
{
	char key[256];
	int64_t d = symbolizer_dso(sy, name, NULL, 0);

	if (d < 0)
		return d;
	snprintf(key, sizeof(key), "m:%s", name);
	return get_sym(sy, key, name, NULL, (uint32_t)d, SYM_F_UNKNOWN);
}

int64_t symbolizer_hidden_kernel(struct symbolizer *sy)
{
	int64_t d = symbolizer_dso(sy, "[kernel]", NULL, 0);

	if (d < 0)
		return d;
	snprintf(sy->dsos[d]->note, sizeof(sy->dsos[d]->note),
		 "kernel addresses withheld by the recorder (not privileged)");
	sy->dsos[d]->info.note = sy->dsos[d]->note;
	return symbolizer_unknown(sy, d);
}

/* ---- JIT: perf's /tmp/perf-PID.map ("START SIZE name", hex) ---- */

bool symbolizer_is_anon(const char *path)
{
	/* What perf's map__new sends to the perf map: anonymous and fileless memory. */
	static const char *const prefixes[] = { "/dev/zero", "/anon_hugepage", "[anon:",
						"[anon_shmem:", "/memfd:", "[stack", "/SYSV" };
	size_t i;

	if (!strcmp(path, "//anon") || !strcmp(path, "[heap]"))
		return true;
	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(path, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

int64_t symbolizer_jit_dso(struct symbolizer *sy, uint32_t pid)
{
	char path[4096];
	int64_t id;

	snprintf(path, sizeof(path), "%s/perf-%u.map", sy->opts.jit_dir ? sy->opts.jit_dir : "/tmp",
		 pid);
	id = symbolizer_dso(sy, path, NULL, 0);
	if (id >= 0 && !sy->dsos[id]->is_jit) {
		struct dso *d = sy->dsos[id];

		/* A relative --jit-dir looks like a pseudo file to symbolizer_dso(). */
		d->is_jit = true;
		if (!d->dwfl) {
			d->state = DSO_NEW;
			d->info.note = NULL;
		}
	}
	return id;
}

static int jit_cmp(const void *a, const void *b)
{
	const struct jit_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* Same start: file order (names lie in file order in text), last one wins. */
	return x->name < y->name ? -1 : x->name > y->name;
}

/* One "START SIZE NAME" line, hex numbers without or with 0x: false when malformed. */
static bool parse_jit_line(char *line, struct jit_sym *out)
{
	char *p = line, *e;
	uint64_t size;
	size_t len;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!isxdigit((unsigned char)*p))
		return false;
	errno = 0;
	out->start = strtoull(p, &e, 16);
	if (e == p || errno || (*e != ' ' && *e != '\t'))
		return false;
	p = e + strspn(e, " \t");
	if (!isxdigit((unsigned char)*p))
		return false;
	size = strtoull(p, &e, 16);
	if (e == p || errno || (*e != ' ' && *e != '\t') || !size || out->start + size < out->start)
		return false;
	p = e + strspn(e, " \t");
	len = strlen(p);
	while (len && (p[len - 1] == '\r' || p[len - 1] == ' ' || p[len - 1] == '\t'))
		p[--len] = 0;
	if (!len)
		return false;
	out->end = out->start + size;
	out->name = p;
	return true;
}

/* Parse d's map file once; a file that cannot be read leaves d missing. */
static void jit_load(struct dso *d)
{
	struct jit_map *m = calloc(1, sizeof(*m));
	uint32_t cap = 0, i, o;
	size_t len = 0;
	char *p, *end;
	int err;

	d->state = DSO_MISSING;
	if (!m) {
		dso_missing(d, "out of memory reading %s", d->path);
		return;
	}
	d->jit = m;
	err = pm_read_file(d->path, &m->text, &len);
	if (err) {
		snprintf(d->note, sizeof(d->note), "%s (anonymous executable memory, and no perf "
			 "map written by a JIT)", strerror(-err));
		d->info.note = d->note;
		return;
	}
	for (p = m->text, end = p + len; p < end; p++) {
		char *line = p;
		struct jit_sym js;

		p = memchr(p, '\n', (size_t)(end - p));
		if (!p)
			p = end;
		*p = 0;
		if (line == p)
			continue;
		/* A NUL inside the line ends it early: the rest is ignored with it. */
		if (!parse_jit_line(line, &js)) {
			m->malformed++;
			continue;
		}
		if (m->n == cap) {
			struct jit_sym *ns;

			cap = cap ? cap * 2 : 64;
			ns = realloc(m->syms, cap * sizeof(*ns));
			if (!ns) {
				dso_missing(d, "out of memory reading %s", d->path);
				return;
			}
			m->syms = ns;
		}
		m->syms[m->n++] = js;
	}
	qsort(m->syms, m->n, sizeof(*m->syms), jit_cmp);
	/* A start written again (code replaced at the same place): the later line wins. */
	for (i = 0, o = 0; i < m->n; i++) {
		if (o && m->syms[o - 1].start == m->syms[i].start)
			o--;
		m->syms[o++] = m->syms[i];
	}
	m->n = o;
	if (m->malformed)
		pm_warn("%s: %" PRIu64 " malformed line(s) ignored (expected 'START SIZE NAME', hex)",
			d->path, m->malformed);
	d->state = DSO_LOADED;
}

int64_t symbolizer_jit_lookup(struct symbolizer *sy, uint32_t dso, uint64_t ip)
{
	struct dso *d = sy->dsos[dso];
	const struct jit_map *m;
	uint32_t lo = 0, hi;
	char key[64];

	if (d->state == DSO_NEW)
		jit_load(d);
	m = d->jit;
	if (d->state != DSO_LOADED || !m->n)
		return -ENOENT;
	sy->lookups++;
	hi = m->n;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].start <= ip)
			lo = mid;
		else
			hi = mid;
	}
	if (ip < m->syms[lo].start || ip >= m->syms[lo].end)
		return -ENOENT;
	snprintf(key, sizeof(key), "j%u:%" PRIx64, dso, m->syms[lo].start);
	return get_sym(sy, key, m->syms[lo].name, NULL, dso, 0);
}

int64_t symbolizer_resolve_jit(struct symbolizer *sy, uint32_t pid, uint64_t ip)
{
	int64_t dso = symbolizer_jit_dso(sy, pid);

	if (dso < 0)
		return dso;
	return symbolizer_jit_lookup(sy, (uint32_t)dso, ip);
}
