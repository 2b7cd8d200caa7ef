// SPDX-License-Identifier: GPL-2.0
/*
 * Folded stacks, pprof profiles and the data of flame graphs from a
 * session's call stacks (see stack_export.h).  The folded form and flame
 * graphs aggregate per distinct stack during the pass; pprof writes one
 * Sample per window (label "window" = its index) while reading, so its
 * memory is the tables, not the samples.
 */
#include "output/stack_export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/format.h"
#include "kernel_id.h"
#include "output/pprof.h"
#include "util.h"

int stack_agg_init(struct stack_agg *a, struct session *s)
{
	memset(a, 0, sizeof(*a));
	a->s = s;
	a->trunc_sym = -1;
	return 0;
}

void stack_agg_free(struct stack_agg *a)
{
	free(a->rows);
	a->rows = NULL;
	a->nr_rows = 0;
}

int stack_of_sample(struct session *s, uint32_t leaf_sym, int64_t *trunc_sym, uint32_t *id)
{
	struct cs_frame f[2];
	int64_t r;

	if (s->stack != CS_NONE) {
		*id = s->stack;
		return 0;
	}
	if (*trunc_sym < 0) {
		*trunc_sym = symbolizer_marker(s->sy, "[truncated]");
		if (*trunc_sym < 0)
			return (int)*trunc_sym;
	}
	f[0] = (struct cs_frame){ 0, leaf_sym, 0 };
	f[1] = (struct cs_frame){ 0, (uint32_t)*trunc_sym, CS_F_TRUNCATED };
	r = callstacks_intern(s->cs, f, 2);
	if (r < 0)
		return (int)r;
	*id = (uint32_t)r;
	return 0;
}

int stack_agg_sample(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
		     uint32_t comm)
{
	struct stack_agg *a = arg;
	struct sx_row *row;
	uint32_t id, e;
	int rc;

	(void)index;
	(void)comm;
	rc = stack_of_sample(a->s, sym, &a->trunc_sym, &id);
	if (rc)
		return rc;
	if (id >= a->nr_rows) {
		uint32_t n = a->nr_rows ? a->nr_rows : 1024;
		struct sx_row *nr;

		while (n <= id)
			n *= 2;
		nr = realloc(a->rows, (size_t)n * sizeof(*nr));
		if (!nr)
			return -ENOMEM;
		memset(nr + a->nr_rows, 0, (size_t)(n - a->nr_rows) * sizeof(*nr));
		a->rows = nr;
		a->nr_rows = n;
	}
	row = &a->rows[id];
	row->samples++;
	if (window_counts_events(smp->flags))
		for (e = 0; e < smp->nr && e < PMIPROF_MAX_EVENTS; e++)
			row->counts[e] += smp->counts[e];
	return 0;
}

/* A frame's name, qualified with its DSO when shared (a name two DSOs have). */
static const char *frame_name_as(const struct session *s, const struct cs_frame *f, bool shared,
				 char *buf, size_t size)
{
	const struct sym *y = symbolizer_sym(s->sy, f->sym);

	if (!(f->flags & CS_F_KERNEL) && !shared)
		return y->name;
	/* A frame is (function, DSO): a name two DSOs have says which, as --children does. */
	snprintf(buf, size, "%s%s%s%s%s", y->name, shared ? " [" : "",
		 shared ? symbolizer_dso_info(s->sy, y->dso)->short_name : "", shared ? "]" : "",
		 /* stackcollapse-perf's marker for kernel frames, as the --windows stack column */
		 f->flags & CS_F_KERNEL ? "_[k]" : "");
	return buf;
}

const char *stack_frame_name(const struct session *s, const struct cs_frame *f, char *buf,
			     size_t size)
{
	return frame_name_as(s, f, symbolizer_name_shared(s->sy, f->sym), buf, size);
}

int stack_agg_tree(const struct stack_agg *a, int value_event, const struct metric *m,
		   struct stree *t)
{
	const struct session *s = a->s;
	const char **names = NULL;
	uint32_t *tags = NULL, cap = 0, id;
	char (*bufs)[512] = NULL;
	int rc;

	rc = stree_init(t);
	if (rc)
		return rc;
	for (id = 0; id < a->nr_rows && !rc; id++) {
		const struct sx_row *r = &a->rows[id];
		const struct cs_stack *st;
		struct stree_sums v = { 0 };
		uint32_t i;

		if (!r->samples)
			continue;
		st = callstacks_get(s->cs, id);
		if (st->nr > cap) {
			cap = st->nr;
			free(names);
			free(tags);
			free(bufs);
			names = malloc(cap * sizeof(*names));
			tags = malloc(cap * sizeof(*tags));
			bufs = malloc(cap * sizeof(*bufs));
			if (!names || !tags || !bufs) {
				rc = -ENOMEM;
				break;
			}
		}
		/* Root first for the tree; the stack is leaf first. */
		for (i = 0; i < st->nr; i++) {
			const struct cs_frame *f = &st->frames[st->nr - 1 - i];

			names[i] = stack_frame_name(s, f, bufs[i], sizeof(bufs[i]));
			tags[i] = symbolizer_sym(s->sy, f->sym)->dso;
		}
		v.samples = r->samples;
		v.value = value_event < 0 ? r->samples : r->counts[value_event];
		if (m) {
			v.aux[0] = r->counts[m->a];
			v.aux[1] = m->b >= 0 ? r->counts[m->b] : 0;
		}
		rc = stree_add(t, names, tags, st->nr, &v);
	}
	free(names);
	free(tags);
	free(bufs);
	if (!rc)
		rc = stree_sort(t);
	if (rc)
		stree_free(t);
	return rc;
}

int stack_value_event(const struct session *s, const char *name, const char *cmd)
{
	uint32_t i;

	if (!name || !strcmp(name, "samples"))
		return -1;
	for (i = 0; i < s->h->nr_events && i < PMIPROF_MAX_EVENTS; i++)
		if (!strcmp(s->h->events[i].name, name))
			return (int)i;
	pm_usage_error(cmd, "--value '%s': no such event in this trace", name);
	fprintf(stderr, "  valid values: samples");
	for (i = 0; i < s->h->nr_events && i < PMIPROF_MAX_EVENTS; i++)
		fprintf(stderr, ", %s", s->h->events[i].name);
	fputc('\n', stderr);
	return -2;
}

int stack_require(const struct session *s, const char *cmd)
{
	if (s->cs)
		return 0;
	pm_err("%s: %s has no call stacks (record with 'pmiprof record -g' or "
	       "'--call-graph dwarf')", cmd, s->opts.input);
	return -ENOENT;
}

/* Opens the session with stacks and checks --value: 0, or an exit status. */
static int open_stacks(struct session *s, const struct session_opts *so, const char *value,
		       const char *cmd, int *value_event)
{
	struct session_opts o = *so;
	int rc;

	o.stacks = &callstack_hooks;
	rc = session_open(s, &o);
	if (rc)
		return rc == -ENOMEM ? (pm_err("out of memory"), 1) : 1;
	if (stack_require(s, cmd)) {
		session_close(s);
		return 1;
	}
	*value_event = stack_value_event(s, value, cmd);
	if (*value_event == -2) {
		session_close(s);
		return EXIT_USAGE;
	}
	return 0;
}

int report_folded(const struct session_opts *so, const char *value, const char *output)
{
	struct session s;
	struct stack_agg a;
	struct stree t;
	FILE *out = stdout;
	int ve, rc, status;

	status = open_stacks(&s, so, value, "report", &ve);
	if (status)
		return status;
	stack_agg_init(&a, &s);
	rc = session_run(&s, stack_agg_sample, &a);
	if (!rc)
		rc = stack_agg_tree(&a, ve, NULL, &t);
	if (!rc) {
		if (output && strcmp(output, "-")) {
			out = fopen(output, "w");
			if (!out) {
				rc = -errno;
				pm_err("%s: %s", output, strerror(errno));
				stree_free(&t);
				goto done;
			}
		}
		rc = folded_write(out, &t);
		if (out != stdout && fclose(out) && !rc)
			rc = -errno;
		else if (out == stdout && fflush(stdout) && !rc)
			rc = -EIO;
		stree_free(&t);
		if (rc)
			pm_err("%s: %s", output ? output : "stdout", strerror(-rc));
	} else {
		pm_err("%s: %s", s.opts.input, strerror(-rc));
	}
done:
	if (!rc)
		session_print_warnings(&s, pm_quiet);
	stack_agg_free(&a);
	session_close(&s);
	return rc ? 1 : 0;
}

/* ---- pprof ---- */

struct pp_pass {
	struct session *s;
	struct pprof *pp;
	int64_t trunc_sym;
	uint32_t nr_values;
	/* Per stack id: its location ids (off, n into locs), 0 n = not made yet, and
	 * the mapping that may be the program's binary (main_candidate()). */
	struct { uint32_t off, n, cand, nleaf; } *stacks;
	uint64_t *sample_locs;		/* one sample's location ids (its own leaf) */
	uint32_t cap_sample_locs;
	uint64_t *cand_samples;		/* per mapping id */
	uint32_t nr_cand;
	uint32_t nr_stacks;
	uint64_t *locs;
	uint32_t nr_locs, cap_locs;
	struct hashmap loc_ids;		/* (addr, innermost sym) -> location id */
	struct pprof_line *lines;
	uint32_t cap_lines;
	const char *label_key;		/* the samples' numeric label ("window"), or NULL */
	/* Per function id - 1: a frame of it, to name it at the end (fn_names()). */
	struct cs_frame *fn_frames;
	uint32_t *fn_gen;		/* the session's symbolizer generation of each */
	uint32_t cap_fn_frames, cap_fn_gen;
};

/* "file.c:42" -> file and line; no srcline -> "" and 0. */
static const char *srcline_split(const char *sl, char *buf, size_t size, int64_t *line)
{
	const char *colon = sl ? strrchr(sl, ':') : NULL;
	size_t n;

	*line = 0;
	if (!colon)
		return sl ? sl : "";
	n = (size_t)(colon - sl) < size - 1 ? (size_t)(colon - sl) : size - 1;
	memcpy(buf, sl, n);
	buf[n] = '\0';
	*line = strtoll(colon + 1, NULL, 10);
	return buf;
}

/*
 * The recorded mmap of pid holding the user frame f (of dso), or NULL.  A
 * return address may be the first byte after its call's mapping: also addr
 * - 1 for callers.
 */
static const struct map *frame_map(struct pp_pass *pp, uint32_t pid, const struct cs_frame *f,
				   uint32_t dso, bool caller)
{
	uint32_t space;
	const struct map *m;

	if (f->flags & (CS_F_KERNEL | CS_F_TRUNCATED))
		return NULL;
	space = maps_space(&pp->s->maps, pid);
	if (space == HM_EMPTY)
		return NULL;
	m = maps_find(&pp->s->maps, space, f->addr);
	if (!m && caller && f->addr)
		m = maps_find(&pp->s->maps, space, f->addr - 1);
	return m && (m->dso == dso || m->file_dso == dso) ? m : NULL;
}

/*
 * The pprof mapping of frame f of a sample of pid: its recorded mmap (one
 * Mapping per range and offset, shared by processes that map the object at
 * the same place), else one per DSO grown over its locations (the kernel).
 */
static int64_t pp_mapping(struct pp_pass *pp, uint32_t pid, const struct cs_frame *f,
			  bool caller)
{
	uint32_t dso = symbolizer_sym(pp->s->sy, f->sym)->dso;
	const struct dso_info *d = symbolizer_dso_info(pp->s->sy, dso);
	const struct map *m = frame_map(pp, pid, f, dso, caller);
	struct pprof_range range;
	const uint8_t *id;
	uint32_t len;
	char hex[41];

	id = symbolizer_dso_build_id(pp->s->sy, dso, &len);
	if (!len && !strcmp(d->name, "[kernel.kallsyms]")) {
		id = pp->s->h->kernel_build_id;	/* the recording kernel's, from the header */
		len = pp->s->h->kernel_build_id_len;
	}
	hex[0] = '\0';
	if (len)
		build_id_hex(hex, id, len > 20 ? 20 : len);
	if (!m)
		return pprof_mapping(pp->pp, 0, dso, d->name, hex, NULL);
	/* a JIT map's pgoff is its start (offsets are ips): no file offset */
	range = (struct pprof_range){ m->start, m->end, m->dso == m->file_dso ? m->pgoff : 0 };
	/* keyed by the whole range: a map split differently elsewhere is its own */
	return pprof_mapping(pp->pp, m->start ^ (m->end - m->start) * 0x9e3779b97f4a7c15ULL ^
			     range.offset * 0xc2b2ae3d27d4eb4fULL, dso, d->name, hex, &range);
}

/*
 * pprof calls the first mapping the profile's binary.  The program is the
 * outermost user-space object of a stack that is not a shared library (nor
 * a [pseudo] DSO): the mapping of the most samples by that rule goes first.
 */
static uint32_t main_candidate(struct pp_pass *pp, const struct cs_stack *st,
			       const uint64_t *locs)
{
	uint32_t i, j, k, cand = 0;

	/* the Locations' groups as pp_stack() made them; the outermost match wins */
	for (i = 0, k = 0; i < st->nr; i = j, k++) {
		const struct cs_frame *f;
		const struct dso_info *d;

		for (j = i; j + 1 < st->nr && (st->frames[j].flags & CS_F_INLINE); j++)
			;
		f = &st->frames[j++];
		if (f->flags & (CS_F_KERNEL | CS_F_TRUNCATED))
			continue;
		d = symbolizer_dso_info(pp->s->sy, symbolizer_sym(pp->s->sy, f->sym)->dso);
		if (d->name[0] != '[' && !strstr(d->short_name, ".so"))
			cand = (uint32_t)pprof_location_mapping(pp->pp, locs[k]);
	}
	return cand;
}

/*
 * Location of frames[0..n) at addr (the physical frame's address in the
 * sample of pid): inline frames first, the physical frame last.
 */
static int64_t pp_location(struct pp_pass *pp, const struct cs_frame *f, uint32_t n,
			   uint32_t pid, bool caller, uint64_t addr)
{
	struct cs_frame phys_at = f[n - 1];
	const struct cs_frame *phys = &phys_at;
	uint32_t v, k;
	int64_t mapping = 0, id;

	phys_at.addr = addr;
	v = hm_get(&pp->loc_ids, phys->addr, f[0].sym);
	if (v != HM_EMPTY)
		return v;
	if (n > pp->cap_lines) {
		struct pprof_line *nl = realloc(pp->lines, n * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		pp->lines = nl;
		pp->cap_lines = n;
	}
	for (k = 0; k < n; k++) {
		const struct sym *y = symbolizer_sym(pp->s->sy, f[k].sym);
		char file[1024], nb[512];
		const char *fn = srcline_split(y->srcline, file, sizeof(file), &pp->lines[k].line);
		const char *name = stack_frame_name(pp->s, &f[k], nb, sizeof(nb));
		int64_t fid = pprof_function(pp->pp, name, y->name, fn, y->dso);

		if (fid < 0)
			return fid;
		if (pm_grow(&pp->fn_frames, &pp->cap_fn_frames, (uint64_t)fid, 256,
			    sizeof(*pp->fn_frames)) ||
		    pm_grow(&pp->fn_gen, &pp->cap_fn_gen, (uint64_t)fid, 256, sizeof(*pp->fn_gen)))
			return -ENOMEM;
		pp->fn_frames[fid - 1] = f[k];
		pp->fn_gen[fid - 1] = pp->s->sy_gen;
		pp->lines[k].function = (uint64_t)fid;
	}
	if (!(phys->flags & CS_F_TRUNCATED)) {
		mapping = pp_mapping(pp, pid, phys, caller);
		if (mapping < 0)
			return mapping;
	}
	id = pprof_location(pp->pp, (uint64_t)mapping, phys->addr, pp->lines, n);
	if (id < 0)
		return id;
	if (hm_put(&pp->loc_ids, phys->addr, f[0].sym, (uint32_t)id))
		return -ENOMEM;
	return id;
}

/* The location ids of stack id, leaf first, made on first use. */
static int pp_stack(struct pp_pass *pp, uint32_t id, uint32_t pid, const uint64_t **locs,
		    uint32_t *n)
{
	const struct cs_stack *st;
	uint32_t i, j;

	if (id >= pp->nr_stacks) {
		uint32_t nn = pp->nr_stacks ? pp->nr_stacks : 1024;
		void *ns;

		while (nn <= id)
			nn *= 2;
		ns = realloc(pp->stacks, (size_t)nn * sizeof(*pp->stacks));
		if (!ns)
			return -ENOMEM;
		pp->stacks = ns;
		memset(pp->stacks + pp->nr_stacks, 0, (nn - pp->nr_stacks) * sizeof(*pp->stacks));
		pp->nr_stacks = nn;
	}
	if (!pp->stacks[id].n) {
		st = callstacks_get(pp->s->cs, id);
		if (pp->nr_locs + st->nr > pp->cap_locs) {
			uint32_t nc = pp->cap_locs ? pp->cap_locs : 4096;
			uint64_t *nl;

			while (nc < pp->nr_locs + st->nr)
				nc *= 2;
			nl = realloc(pp->locs, (size_t)nc * sizeof(*nl));
			if (!nl)
				return -ENOMEM;
			pp->locs = nl;
			pp->cap_locs = nc;
		}
		pp->stacks[id].off = pp->nr_locs;
		/* A run of inline frames and the frame they were inlined into: one Location. */
		for (i = 0; i < st->nr; i = j) {
			int64_t loc;

			for (j = i; j + 1 < st->nr && (st->frames[j].flags & CS_F_INLINE); j++)
				;
			j++;
			loc = pp_location(pp, &st->frames[i], j - i, pid, i > 0,
					  st->frames[j - 1].addr);
			if (loc < 0)
				return (int)loc;
			pp->locs[pp->nr_locs++] = (uint64_t)loc;
		}
		pp->stacks[id].n = pp->nr_locs - pp->stacks[id].off;
		for (j = 0; j + 1 < st->nr && (st->frames[j].flags & CS_F_INLINE); j++)
			;
		pp->stacks[id].nleaf = st->nr ? j + 1 : 0;
		pp->stacks[id].cand = main_candidate(pp, st, pp->locs + pp->stacks[id].off);
		if (pp->stacks[id].cand >= pp->nr_cand) {
			uint32_t nc = pp->stacks[id].cand + 16;
			uint64_t *ncs = realloc(pp->cand_samples, nc * sizeof(*ncs));

			if (!ncs)
				return -ENOMEM;
			memset(ncs + pp->nr_cand, 0, (nc - pp->nr_cand) * sizeof(*ncs));
			pp->cand_samples = ncs;
			pp->nr_cand = nc;
		}
	}
	pp->cand_samples[pp->stacks[id].cand]++;
	*locs = pp->locs + pp->stacks[id].off;
	*n = pp->stacks[id].n;
	return 0;
}

/*
 * A sample's labels: its window index (report's pprof), and the command,
 * process and thread it ran in as string labels (what Parca and Pyroscope
 * index; `go tool pprof -tags`, `-tagfocus pid=1234`).  Ids as perf prints
 * them: -1 for a task the kernel no longer names.
 */
static uint32_t sample_labels(const struct pp_pass *pp, const struct trace_sample *smp,
			      uint64_t index, uint32_t comm, struct pprof_label lb[4],
			      char ids[2][16])
{
	uint32_t n = 0;

	if (pp->label_key)
		lb[n++] = (struct pprof_label){ .key = pp->label_key, .num = (int64_t)index,
						.unit = "index" };
	snprintf(ids[0], sizeof(ids[0]), "%d", (int32_t)smp->pid);
	snprintf(ids[1], sizeof(ids[1]), "%d", (int32_t)smp->tid);
	lb[n++] = (struct pprof_label){ .key = "comm", .str = strtab_str(&pp->s->comms, comm) };
	lb[n++] = (struct pprof_label){ .key = "pid", .str = ids[0] };
	lb[n++] = (struct pprof_label){ .key = "tid", .str = ids[1] };
	return n;
}

static int pp_sample(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
		     uint32_t comm)
{
	struct pp_pass *pp = arg;
	int64_t values[1 + PMIPROF_MAX_EVENTS];
	struct pprof_label lb[4];
	char ids[2][16];
	const uint64_t *locs = NULL;
	uint32_t id, n = 0, e;
	int rc;

	rc = stack_of_sample(pp->s, sym, &pp->trunc_sym, &id);
	if (!rc)
		rc = pp_stack(pp, id, smp->pid, &locs, &n);
	if (rc)
		return rc;
	/*
	 * Stacks are interned by their functions, so their frames carry the
	 * addresses of the first sample that made them: the leaf's location
	 * is this sample's own ip, in this process's mapping (per-instruction
	 * views, pprof -disasm, and one mapping per load address).
	 */
	if (n && pp->stacks[id].nleaf) {
		const struct cs_stack *st = callstacks_get(pp->s->cs, id);
		uint32_t nl = pp->stacks[id].nleaf;
		int64_t leaf;

		if (st->frames[nl - 1].addr != smp->ip) {
			if (n > pp->cap_sample_locs) {
				uint64_t *nb = realloc(pp->sample_locs, n * sizeof(*nb));

				if (!nb)
					return -ENOMEM;
				pp->sample_locs = nb;
				pp->cap_sample_locs = n;
			}
			leaf = pp_location(pp, st->frames, nl, smp->pid, false, smp->ip);
			if (leaf < 0)
				return (int)leaf;
			memcpy(pp->sample_locs, locs, n * sizeof(*locs));
			pp->sample_locs[0] = (uint64_t)leaf;
			locs = pp->sample_locs;
		}
	}
	values[0] = 1;
	/* The flat report's rule: a window after a loss adds to no event sum. */
	for (e = 0; e + 1 < pp->nr_values; e++)
		values[e + 1] = window_counts_events(smp->flags) && e < smp->nr ?
				(int64_t)smp->counts[e] : 0;
	return pprof_sample(pp->pp, locs, n, values, lb, sample_labels(pp, smp, index, comm, lb, ids));
}

int pprof_pass_sample(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
		      uint32_t comm)
{
	return pp_sample(arg, smp, index, sym, comm);
}

/* perf's software clocks count nanoseconds; everything else counts events. */
static const char *event_unit(const struct session *s, uint32_t e)
{
	char b[160];
	const char *n = event_base_name(s->h->events[e].name, b, sizeof(b));

	return !strcmp(n, "cpu-clock") || !strcmp(n, "task-clock") ? "nanoseconds" : "count";
}

static int pp_header(struct pp_pass *pp, int value_event)
{
	const struct trace_header *h = pp->s->h;
	char comment[600];
	uint32_t e;
	int rc;

	rc = pprof_sample_type(pp->pp, "samples", "count");
	for (e = 0; e < h->nr_events && e < PMIPROF_MAX_EVENTS && !rc; e++)
		rc = pprof_sample_type(pp->pp, h->events[e].name, event_unit(pp->s, e));
	pp->nr_values = 1 + e;
	if (!rc && h->trigger_index < h->nr_events) {
		const char *unit = event_unit(pp->s, h->trigger_index);
		int64_t period = (int64_t)h->period;

		/* -F HZ on a clock: each window is 1e9 / HZ nanoseconds. */
		if (!period && h->freq_hz && !strcmp(unit, "nanoseconds"))
			period = (int64_t)(1000000000ULL / h->freq_hz);
		rc = pprof_period_type(pp->pp, h->events[h->trigger_index].name, unit, period);
	}
	pprof_default_type(pp->pp, value_event < 0 ? 0 : (uint32_t)value_event + 1);
	snprintf(comment, sizeof(comment), "pmiprof %s: %s", PMIPROF_VERSION,
		 ATTRIBUTION_RULE);
	if (!rc)
		rc = pprof_comment(pp->pp, comment);
	if (!rc && h->cmdline[0])
		rc = pprof_comment(pp->pp, h->cmdline);
	return rc;
}

struct fn_key {
	const char *name, *dso;		/* the function's name, its DSO's file name */
	uint32_t i;			/* pprof function id - 1 */
};

static int fn_key_cmp(const void *x, const void *y)
{
	const struct fn_key *a = x, *b = y;
	int c = strcmp(a->name, b->name);

	return c ? c : strcmp(a->dso, b->dso);
}

/*
 * Functions named at the end of the pass: a name that two DSOs of this
 * profile's functions share is qualified with its DSO in every sample, so
 * the same samples give the same names whatever else the symbolizer has
 * seen (a live profile's symbolizer outlives it; 0 or -errno).  A live
 * profile whose symbols were dropped at a segment boundary (the daemon's
 * memory bound) keeps the names its older functions were given: their sym
 * ids name nothing in the new symbolizer.
 */
static int fn_names(struct pp_pass *pp)
{
	const struct symbolizer *sy = pp->s->sy;
	uint32_t i, j, k, n = pprof_nr_functions(pp->pp), m = 0;
	struct fn_key *keys = malloc((n ? n : 1) * sizeof(*keys));
	char nb[512];
	int rc = 0;

	if (!keys)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct sym *y;

		if (pp->fn_gen[i] != pp->s->sy_gen)
			continue;
		y = symbolizer_sym(sy, pp->fn_frames[i].sym);
		if (!y->name || !y->name[0] || y->name[0] == '[')
			continue;
		keys[m++] = (struct fn_key){ y->name, symbolizer_dso_info(sy, y->dso)->short_name, i };
	}
	qsort(keys, m, sizeof(*keys), fn_key_cmp);
	for (i = 0; i < m && !rc; i = j) {
		bool shared;

		for (j = i + 1; j < m && !strcmp(keys[j].name, keys[i].name); j++)
			;
		/* one DSO (maybe under two paths): the plain name */
		shared = strcmp(keys[i].dso, keys[j - 1].dso) != 0;
		for (k = i; k < j && !rc; k++)
			rc = pprof_function_rename(pp->pp, (int64_t)keys[k].i + 1,
						   frame_name_as(pp->s, &pp->fn_frames[keys[k].i],
								 shared, nb, sizeof(nb)));
	}
	free(keys);
	return rc;
}

static void pp_free(struct pp_pass *pp)
{
	free(pp->fn_frames);
	free(pp->fn_gen);
	hm_free(&pp->loc_ids);
	free(pp->stacks);
	free(pp->locs);
	free(pp->lines);
	free(pp->sample_locs);
	free(pp->cand_samples);
}

int pprof_pass_open(struct pp_pass **out, struct session *s, const char *path,
		    int value_event, const char *label_key)
{
	struct pp_pass *pp = calloc(1, sizeof(*pp));
	int rc;

	*out = NULL;
	if (!pp)
		return -ENOMEM;
	pp->s = s;
	pp->trunc_sym = -1;
	pp->label_key = label_key;
	rc = hm_init(&pp->loc_ids, 4096);
	if (!rc)
		rc = pprof_open(&pp->pp, path);
	if (!rc)
		rc = pp_header(pp, value_event);
	if (rc) {
		if (pp->pp)
			pprof_close(pp->pp, false);
		pp_free(pp);
		free(pp);
		return rc;
	}
	*out = pp;
	return 0;
}

int pprof_pass_forget(struct pp_pass *pp)
{
	free(pp->stacks);
	pp->stacks = NULL;
	pp->nr_stacks = 0;
	pp->nr_locs = 0;
	pp->trunc_sym = -1;
	hm_free(&pp->loc_ids);
	return hm_init(&pp->loc_ids, 4096);
}

/* The mapping of the most samples' main candidate is the profile's binary. */
static void pp_main_mapping(struct pp_pass *pp)
{
	uint32_t m, best = 0;

	for (m = 1; m < pp->nr_cand; m++)
		if (pp->cand_samples[m] > pp->cand_samples[best])
			best = m;
	pprof_main_mapping(pp->pp, best);
}

int pprof_pass_close(struct pp_pass *pp, bool commit, int64_t time_ns, int64_t duration_ns)
{
	int rc;

	if (commit) {
		pprof_times(pp->pp, time_ns, duration_ns);
		pp_main_mapping(pp);
	}
	rc = commit ? fn_names(pp) : 0;
	if (rc)
		commit = false;
	rc = pprof_close(pp->pp, commit) ?: rc;
	pp_free(pp);
	free(pp);
	return rc;
}

int report_pprof(const struct session_opts *so, const char *value, const char *path)
{
	struct session s;
	struct pp_pass pp;
	struct session_opts o = *so;
	int ve, rc, status;

	if (!path)
		return pm_usage_error("report", "--format pprof writes a file: give it with "
				      "-o FILE.pb.gz");
	/* Lines and source files for pprof's -lines and -list views. */
	o.sym.srcline = true;
	status = open_stacks(&s, &o, value, "report", &ve);
	if (status)
		return status;
	memset(&pp, 0, sizeof(pp));
	pp.s = &s;
	pp.trunc_sym = -1;
	pp.label_key = "window";
	rc = hm_init(&pp.loc_ids, 4096);
	if (!rc) {
		rc = pprof_open(&pp.pp, path);
		if (rc)
			pm_err("%s: %s", path, strerror(-rc));
	}
	if (!rc && (rc = pp_header(&pp, ve)) == 0)
		rc = session_run(&s, pp_sample, &pp);
	if (pp.pp) {
		int crc;

		if (!rc) {
			pprof_times(pp.pp, (int64_t)s.h->start_realtime_ns,
				    (int64_t)(session_duration_s(&s) * 1e9));
			pp_main_mapping(&pp);
			rc = fn_names(&pp);
		}
		crc = pprof_close(pp.pp, rc == 0);
		if (!rc && crc) {
			rc = crc;
			pm_err("%s: %s", path, strerror(-rc));
		} else if (rc) {
			pm_err("%s: %s", s.opts.input, strerror(-rc));
		}
	}
	if (!rc)
		session_print_warnings(&s, pm_quiet);
	pp_free(&pp);
	session_close(&s);
	return rc ? 1 : 0;
}
