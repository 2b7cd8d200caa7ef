// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel addresses: /proc/kallsyms (or a cached or archived copy)
 * parsed, sorted and indexed, module ranges, and the hidden-kernel symbol.
 */
#include "symbols/symbols_internal.h"

#include "symbols/demangle.h"
#include "hashmap.h"
#include "symbols/kallsyms_cache.h"
#include "kernel_id.h"
#include "strtab.h"
#include "util.h"

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

			if (sy_alias_prefers(&a, &b))
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
		sy_dso_missing(sy->dsos[sy->kernel_dso], "out of memory reading %s", path);
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
			sy_dso_missing(sy->dsos[sy->kernel_dso], "%s", sy->opts.kernel_note);
			return;
		}
	} else {
		sy->ktext = kallsyms_read_cached(&len);
	}
	if (!sy->ktext) {
		sy_dso_missing(sy->dsos[sy->kernel_dso], "cannot read %s", path);
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
		sy_dso_missing(sy->dsos[sy->kernel_dso], "%s shows no addresses (kptr_restrict)",
			    path);
		return;
	}
	sy->dsos[sy->kernel_dso]->info.note = NULL;
	if (sort_ksyms(sy->ksyms, sy->nr_ksyms)) {
		sy_dso_missing(sy->dsos[sy->kernel_dso], "out of memory sorting %s", path);
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
	return sy_get_sym(sy, key, sy->ktext + k->name, NULL, sy->kmod_dso[k->mod], 0);
}

int64_t symbolizer_marker(struct symbolizer *sy, const char *name)
{
	char key[256];
	int64_t d = symbolizer_dso(sy, name, NULL, 0);

	if (d < 0)
		return d;
	snprintf(key, sizeof(key), "m:%s", name);
	return sy_get_sym(sy, key, name, NULL, (uint32_t)d, SYM_F_UNKNOWN);
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
