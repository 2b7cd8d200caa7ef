// SPDX-License-Identifier: GPL-2.0
/*
 * JIT code: perf's /tmp/perf-PID.map files ("START SIZE name", hex)
 * loaded per process and looked up by address.
 */
#include "symbols/symbols_internal.h"

#include "symbols/demangle.h"
#include "hashmap.h"
#include "symbols/kallsyms_cache.h"
#include "kernel_id.h"
#include "strtab.h"
#include "util.h"

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
		sy_dso_missing(d, "out of memory reading %s", d->path);
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
				sy_dso_missing(d, "out of memory reading %s", d->path);
				return;
			}
			m->syms = ns;
		}
		m->syms[m->n++] = js;
	}
	if (m->n)	/* qsort(NULL, 0, ...) is undefined: a map of malformed lines only */
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
	return sy_get_sym(sy, key, m->syms[lo].name, NULL, dso, 0);
}

int64_t symbolizer_resolve_jit(struct symbolizer *sy, uint32_t pid, uint64_t ip)
{
	int64_t dso = symbolizer_jit_dso(sy, pid);

	if (dso < 0)
		return dso;
	return symbolizer_jit_lookup(sy, (uint32_t)dso, ip);
}
