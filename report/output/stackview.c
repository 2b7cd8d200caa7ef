// SPDX-License-Identifier: GPL-2.0
/* --children, --tree, --callers and --callees (see stackview.h). */
#include "output/stackview.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "stacks/callstack.h"
#include "util.h"

int stackview_init(struct stackview *v, struct session *s)
{
	memset(v, 0, sizeof(*v));
	v->s = s;
	v->nr_events = s->h->nr_events < PMIPROF_MAX_EVENTS ? s->h->nr_events : PMIPROF_MAX_EVENTS;
	return hm_init(&v->idx, 1024);
}

void stackview_free(struct stackview *v)
{
	free(v->aggs);
	free(v->rows);
	free(v->by_stack);
	hm_free(&v->idx);
	memset(v, 0, sizeof(*v));
}

/* A new aggregate for stack (or leaf sym when stack is CS_NONE): its index, or -ENOMEM. */
static int64_t agg_new(struct stackview *v, uint32_t stack, uint32_t sym)
{
	uint32_t a;

	if (pm_grow(&v->aggs, &v->cap_aggs, (uint64_t)v->nr_aggs + 1, 1024, sizeof(*v->aggs)))
		return -ENOMEM;
	a = v->nr_aggs++;
	memset(&v->aggs[a], 0, sizeof(v->aggs[a]));
	v->aggs[a].stack = stack;
	v->aggs[a].leaf = sym;
	return a;
}

int stackview_add(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
		  uint32_t comm)
{
	struct stackview *v = arg;
	uint32_t stack = v->s->stack, a, i, n;
	struct sv_agg *g;
	int64_t na;

	(void)index;
	(void)comm;
	if (stack != CS_NONE) {
		/* Stack ids are dense from 0: an array, no hashing per sample. */
		if (stack >= v->cap_by_stack) {
			uint32_t cap = v->cap_by_stack ? v->cap_by_stack : 1024;
			uint32_t *nb;

			while (cap <= stack)
				cap *= 2;
			nb = realloc(v->by_stack, cap * sizeof(*nb));
			if (!nb)
				return -ENOMEM;
			memset(nb + v->cap_by_stack, 0, (cap - v->cap_by_stack) * sizeof(*nb));
			v->by_stack = nb;
			v->cap_by_stack = cap;
		}
		a = v->by_stack[stack] - 1;
		if (!v->by_stack[stack]) {
			na = agg_new(v, stack, sym);
			if (na < 0)
				return (int)na;
			a = (uint32_t)na;
			v->by_stack[stack] = a + 1;
		}
	} else {
		a = hm_get(&v->idx, sym, 1);
		if (a == HM_EMPTY) {
			na = agg_new(v, stack, sym);
			if (na < 0)
				return (int)na;
			a = (uint32_t)na;
			if (hm_put(&v->idx, sym, 1, a))
				return -ENOMEM;
		}
	}
	g = &v->aggs[a];
	g->samples++;
	v->samples++;
	n = !window_counts_events(smp->flags) ? 0 : smp->nr < v->nr_events ? smp->nr : v->nr_events;
	for (i = 0; i < n; i++)
		g->counts[i] += smp->counts[i];
	return 0;
}

/* The frames of an aggregate: its stack, or its leaf alone. */
static const struct cs_frame *agg_frames(const struct stackview *v, const struct sv_agg *g,
					 struct cs_frame *one, uint32_t *nr)
{
	const struct cs_stack *st = g->stack != CS_NONE ? callstacks_get(v->s->cs, g->stack) : NULL;

	if (st && st->nr) {
		*nr = st->nr;
		return st->frames;
	}
	*one = (struct cs_frame){ 0, g->leaf, 0 };
	*nr = 1;
	return one;
}

int stackview_children(struct stackview *v)
{
	uint32_t nsyms = symbolizer_nr_syms(v->s->sy), i, k, e;
	uint32_t *stamp;

	free(v->rows);
	v->rows = calloc(nsyms ? nsyms : 1, sizeof(*v->rows));
	stamp = calloc(nsyms ? nsyms : 1, sizeof(*stamp));
	if (!v->rows || !stamp) {
		free(stamp);
		return -ENOMEM;
	}
	v->nr_rows = nsyms;
	for (i = 0; i < nsyms; i++)
		v->rows[i].sym = i;
	for (i = 0; i < v->nr_aggs; i++) {
		const struct sv_agg *g = &v->aggs[i];
		struct cs_frame one;
		uint32_t nr;
		const struct cs_frame *f = agg_frames(v, g, &one, &nr);
		struct sv_row *r;

		for (k = 0; k < nr; k++) {
			if (f[k].sym >= nsyms || stamp[f[k].sym] == i + 1)
				continue;	/* recursion: once per sample */
			stamp[f[k].sym] = i + 1;
			r = &v->rows[f[k].sym];
			r->children += g->samples;
			for (e = 0; e < v->nr_events; e++)
				r->incl[e] += g->counts[e];
		}
		if (f[0].sym < nsyms) {
			r = &v->rows[f[0].sym];
			r->self += g->samples;
			for (e = 0; e < v->nr_events; e++)
				r->excl[e] += g->counts[e];
		}
	}
	free(stamp);
	return 0;
}

static double pct(uint64_t k, uint64_t n)
{
	return n ? 100.0 * (double)k / (double)n : 0.0;
}

static const char *sym_name(const struct stackview *v, uint32_t sym)
{
	return symbolizer_sym(v->s->sy, sym)->name;
}

static const struct dso_info *sym_dso(const struct stackview *v, uint32_t sym)
{
	return symbolizer_dso_info(v->s->sy, symbolizer_sym(v->s->sy, sym)->dso);
}

/*
 * A pseudo-frame: a marker ([truncated], [kernel]) or an address outside every
 * known mapping ([unknown]), not a function.  It is in many stacks because
 * the walk stopped there, not because the program spent time in it, so the
 * inclusive views show it after the functions, never as their top answer.
 */
static bool sym_pseudo(const struct stackview *v, uint32_t sym)
{
	const struct sym *y = symbolizer_sym(v->s->sy, sym);

	return (y->flags & SYM_F_UNKNOWN) && y->name[0] == '[' && !strchr(y->name, ' ');
}

/* ---- --children ---- */

static const struct stackview *cmp_v;
static int cmp_event;			/* -1 children, -2 self, -3 name, else an event */

static int row_cmp(const void *a, const void *b)
{
	const struct sv_row *x = &cmp_v->rows[*(const uint32_t *)a];
	const struct sv_row *y = &cmp_v->rows[*(const uint32_t *)b];
	uint64_t vx, vy;
	int c = (int)sym_pseudo(cmp_v, x->sym) - (int)sym_pseudo(cmp_v, y->sym);

	if (c)
		return c;
	if (cmp_event == -3) {
		c = strcmp(sym_name(cmp_v, x->sym), sym_name(cmp_v, y->sym));
		if (c)
			return c;
	}
	vx = cmp_event >= 0 ? x->incl[cmp_event] : cmp_event == -2 ? x->self : x->children;
	vy = cmp_event >= 0 ? y->incl[cmp_event] : cmp_event == -2 ? y->self : y->children;
	if (vx != vy)
		return vx > vy ? -1 : 1;
	/* perf's tie order: children, then self, then a stable one. */
	if (x->children != y->children)
		return x->children > y->children ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return x->sym < y->sym ? -1 : x->sym > y->sym;
}

static int sort_of(const struct stackview *v, const char *sort)
{
	uint32_t e;

	if (!sort || !strcmp(sort, "children"))
		return -1;
	if (!strcmp(sort, "self") || !strcmp(sort, "samples"))
		return -2;
	if (!strcmp(sort, "name") || !strcmp(sort, "symbol"))
		return -3;
	for (e = 0; e < v->nr_events; e++)
		if (!strcmp(v->s->h->events[e].name, sort))
			return (int)e;
	return -4;
}

static void print_children(FILE *f, const struct stackview *v, const uint32_t *order, uint32_t n,
			   const struct sv_opts *o)
{
	const struct trace_header *h = v->s->h;
	const struct metric_set *ms = o->metrics;
	struct num_col col[PMIPROF_MAX_EVENTS];
	uint32_t k, e, i;
	char nb[32], fb[1024], lb[256];
	double x;

	if (o->format == FMT_CSV) {
		fputs("samples,percent,symbol,dso,children,self,children_samples", f);
		for (e = 0; e < v->nr_events; e++) {
			fputc(',', f);
			csv_str(f, h->events[e].name);
		}
		for (e = 0; e < v->nr_events; e++) {
			snprintf(fb, sizeof(fb), "self_%s", h->events[e].name);
			fputc(',', f);
			csv_str(f, fb);
		}
		for (i = 0; i < ms->n; i++) {
			fputc(',', f);
			csv_str(f, ms->m[i].name);
		}
		fputs(",dso_path\n", f);
		for (k = 0; k < n; k++) {
			const struct sv_row *r = &v->rows[order[k]];

			fprintf(f, "%" PRIu64 ",%.4f,", r->self, pct(r->self, v->samples));
			csv_str(f, sym_name(v, r->sym));
			fputc(',', f);
			csv_str(f, sym_dso(v, r->sym)->short_name);
			fprintf(f, ",%.4f,%.4f,%" PRIu64, pct(r->children, v->samples),
				pct(r->self, v->samples), r->children);
			for (e = 0; e < v->nr_events; e++)
				fprintf(f, ",%" PRIu64, r->incl[e]);
			for (e = 0; e < v->nr_events; e++)
				fprintf(f, ",%" PRIu64, r->excl[e]);
			for (i = 0; i < ms->n; i++) {
				if (metric_value(&ms->m[i], r->incl, &x))
					fprintf(f, ",%.6g", x);
				else
					fputc(',', f);
			}
			fputc(',', f);
			csv_str(f, sym_dso(v, r->sym)->name);
			fputc('\n', f);
		}
		return;
	}
	if (o->format == FMT_JSON) {
		fputs("{", f);
		print_meta_json(f, v->s);
		fputs(",\n\"view\": \"children\",\n\"rows\": [", f);
		for (k = 0; k < n; k++) {
			const struct sv_row *r = &v->rows[order[k]];

			fprintf(f, "%s\n {\"symbol\": ", k ? "," : "");
			json_str(f, sym_name(v, r->sym));
			fputs(", \"dso\": ", f);
			json_str(f, sym_dso(v, r->sym)->name);
			fprintf(f, ", \"children\": %.4f, \"self\": %.4f, \"children_samples\": %"
				PRIu64 ", \"self_samples\": %" PRIu64 ", \"events\": ",
				pct(r->children, v->samples), pct(r->self, v->samples), r->children,
				r->self);
			json_event_counts(f, v->s, r->incl, v->nr_events);
			fputs(", \"self_events\": ", f);
			json_event_counts(f, v->s, r->excl, v->nr_events);
			fputc('}', f);
		}
		fputs("\n]}\n", f);
		return;
	}
	print_meta_text(f, v->s);
	print_meta_line(f, "children: share of samples whose call stack contains the function "
			"(once per sample, also when it recurses), with the events of those "
			"windows summed; self: samples closed in the function");
	fputs("#\n", f);
	fprintf(f, "%8s %7s %8s", "children", "self", "samples");
	/* One scale per event column, from its largest value; the unit in the heading. */
	for (e = 0; e < v->nr_events; e++) {
		uint64_t max = 0;

		for (k = 0; k < n; k++)
			if (v->rows[order[k]].incl[e] > max)
				max = v->rows[order[k]].incl[e];
		num_col_init(&col[e], event_counts_ns(h->events[e].name), max, 10);
		num_col_head(&col[e], column_name(h->events[e].name, lb, sizeof(lb)), fb, sizeof(fb));
		col[e].width = strlen(fb) > 10 ? (int)strlen(fb) : 10;
		fprintf(f, " %*s", col[e].width, fb);
	}
	for (i = 0; i < ms->n; i++)
		fprintf(f, " %8s", fit(fb, sizeof(fb), column_name(ms->m[i].name, lb, sizeof(lb)),
				       8));
	fputs("  symbol [dso]\n", f);
	for (k = 0; k < n; k++) {
		const struct sv_row *r = &v->rows[order[k]];
		const struct dso_info *d = sym_dso(v, r->sym);
		int br = d->short_name[0] != '[';

		fprintf(f, "%7.2f%% %6.2f%% %8s", pct(r->children, v->samples),
			pct(r->self, v->samples), fmt_count(nb, sizeof(nb), r->children, 8));
		for (e = 0; e < v->nr_events; e++)
			fprintf(f, " %*s", col[e].width, num_col_cell(&col[e], r->incl[e], nb,
								      sizeof(nb)));
		for (i = 0; i < ms->n; i++) {
			if (metric_value(&ms->m[i], r->incl, &x))
				fprintf(f, " %8.3f", x);
			else
				fprintf(f, " %8s", "-");
		}
		fprintf(f, "  %s %s%s%s\n", sym_name(v, r->sym), br ? "[" : "", d->short_name,
			br ? "]" : "");
	}
}

static int view_children(FILE *f, struct stackview *v, const struct sv_opts *o)
{
	uint32_t *order, i, n = 0;
	int err = stackview_children(v);

	if (err)
		return err;
	cmp_event = sort_of(v, o->sort);
	if (cmp_event == -4) {
		pm_usage_error("report", "--sort '%s' with --children: expected children, self, "
			       "name or an event of the trace", o->sort);
		return -EINVAL;
	}
	order = malloc(((size_t)v->nr_rows + 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 0; i < v->nr_rows; i++)
		if (v->rows[i].children)
			order[n++] = i;
	cmp_v = v;
	qsort(order, n, sizeof(*order), row_cmp);
	print_children(f, v, order, o->limit && o->limit < n ? o->limit : n, o);
	if (o->format == FMT_TABLE && o->limit && o->limit < n)
		fprintf(f, "# %u more rows not shown (--limit %u)\n", n - o->limit, o->limit);
	free(order);
	return 0;
}

/* ---- --tree ---- */

struct tnode {
	uint32_t sym;
	uint32_t parent;
	uint64_t samples, self;
	uint32_t first, nkids;		/* children: kids[first .. first + nkids) */
};

struct tree {
	struct tnode *n;
	uint32_t nr, cap;
	uint32_t *kids;
	struct hashmap child;		/* (parent << 32 | sym) -> node */
};

static int64_t tree_child(struct tree *t, uint32_t parent, uint32_t sym)
{
	uint32_t id = hm_get(&t->child, (uint64_t)parent << 32 | sym, 0);

	if (id != HM_EMPTY)
		return id;
	if (t->nr == t->cap) {
		uint32_t cap = t->cap * 2;
		struct tnode *n = realloc(t->n, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->n = n;
		t->cap = cap;
	}
	id = t->nr++;
	t->n[id] = (struct tnode){ .sym = sym, .parent = parent };
	if (hm_put(&t->child, (uint64_t)parent << 32 | sym, 0, id))
		return -ENOMEM;
	return id;
}

static const struct tree *kid_t;
static const struct stackview *kid_v;

static int kid_cmp(const void *a, const void *b)
{
	const struct tnode *x = &kid_t->n[*(const uint32_t *)a];
	const struct tnode *y = &kid_t->n[*(const uint32_t *)b];

	int c;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	/* a path through a pseudo-frame after the functions' (sym_pseudo()) */
	c = (int)sym_pseudo(kid_v, x->sym) - (int)sym_pseudo(kid_v, y->sym);
	if (c)
		return c;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->sym < y->sym ? -1 : x->sym > y->sym;
}

static int tree_build(struct tree *t, const struct stackview *v)
{
	uint32_t i, k;
	int err;

	memset(t, 0, sizeof(*t));
	t->cap = 1024;
	t->n = malloc(t->cap * sizeof(*t->n));
	err = hm_init(&t->child, 1024);
	if (!t->n || err)
		return -ENOMEM;
	t->n[0] = (struct tnode){ .sym = UINT32_MAX, .parent = UINT32_MAX };
	t->nr = 1;
	for (i = 0; i < v->nr_aggs; i++) {
		const struct sv_agg *g = &v->aggs[i];
		struct cs_frame one;
		uint32_t nr, cur = 0;
		const struct cs_frame *f = agg_frames(v, g, &one, &nr);

		t->n[0].samples += g->samples;
		for (k = nr; k-- > 0;) {
			int64_t c = tree_child(t, cur, f[k].sym);

			if (c < 0)
				return (int)c;
			cur = (uint32_t)c;
			t->n[cur].samples += g->samples;
		}
		t->n[cur].self += g->samples;
	}
	/* Children of each node contiguous in kids[], heaviest first. */
	t->kids = malloc((size_t)t->nr * sizeof(*t->kids));
	if (!t->kids)
		return -ENOMEM;
	for (i = 1; i < t->nr; i++)
		t->kids[i - 1] = i;
	kid_t = t;
	kid_v = v;
	qsort(t->kids, t->nr - 1, sizeof(*t->kids), kid_cmp);
	for (i = 0; i + 1 < t->nr; i++) {
		struct tnode *p = &t->n[t->n[t->kids[i]].parent];

		if (!p->nkids)
			p->first = i;
		p->nkids++;
	}
	return 0;
}

static void tree_free(struct tree *t)
{
	free(t->n);
	free(t->kids);
	hm_free(&t->child);
}

struct tree_out {
	FILE *f;
	const struct stackview *v;
	const struct tree *t;
	const struct sv_opts *o;
	char prefix[512];
	char path[16384];
	uint64_t rows, hidden;
};

#define TREE_MAX_INDENT 450

static void tree_line(struct tree_out *w, uint32_t id, uint32_t depth, size_t plen, bool last)
{
	const struct tnode *n = &w->t->n[id];
	const struct dso_info *d = sym_dso(w->v, n->sym);
	const char *name = sym_name(w->v, n->sym);
	double p = pct(n->samples, w->v->samples), ps = pct(n->self, w->v->samples);
	int br = d->short_name[0] != '[';

	w->rows++;
	switch (w->o->format) {
	case FMT_CSV:
		fprintf(w->f, "%u,%.4f,%.4f,%" PRIu64 ",%" PRIu64 ",", depth, p, ps, n->samples,
			n->self);
		csv_str(w->f, name);
		fputc(',', w->f);
		csv_str(w->f, d->short_name);
		fputc(',', w->f);
		csv_str(w->f, w->path);
		fputc('\n', w->f);
		break;
	case FMT_JSON:
		fprintf(w->f, "%s\n {\"depth\": %u, \"percent\": %.4f, \"self_percent\": %.4f, "
			"\"samples\": %" PRIu64 ", \"self_samples\": %" PRIu64 ", \"symbol\": ",
			w->rows > 1 ? "," : "", depth, p, ps, n->samples, n->self);
		json_str(w->f, name);
		fputs(", \"dso\": ", w->f);
		json_str(w->f, d->name);
		fputs(", \"path\": ", w->f);
		json_str(w->f, w->path);
		fputc('}', w->f);
		break;
	default:
		fprintf(w->f, "%7.2f%%  %.*s%s%s %s%s%s", p, (int)plen, w->prefix,
			depth ? (last ? "`- " : "|- ") : "", name, br ? "[" : "", d->short_name,
			br ? "]" : "");
		if (n->self)
			fprintf(w->f, "  (self %.2f%%)", ps);
		fputc('\n', w->f);
		break;
	}
}

static void tree_walk(struct tree_out *w, uint32_t id, uint32_t depth, size_t plen,
		      size_t pathlen, bool last)
{
	const struct tnode *n = &w->t->n[id];
	const char *name = sym_name(w->v, n->sym);
	size_t l = strlen(name), nplen = plen, start = pathlen;
	uint32_t i, shown = 0;

	/* The folded path of this node for CSV/JSON ("root;...;node"). */
	if (pathlen + l + 2 < sizeof(w->path)) {
		if (pathlen)
			w->path[pathlen++] = ';';
		memcpy(w->path + pathlen, name, l + 1);
		pathlen += l;
	}
	tree_line(w, id, depth, plen, last);
	if (depth && plen + 3 < TREE_MAX_INDENT) {
		memcpy(w->prefix + plen, last ? "   " : "|  ", 3);
		nplen = plen + 3;
	}
	for (i = 0; i < n->nkids; i++) {
		uint32_t k = w->t->kids[n->first + i];

		if (pct(w->t->n[k].samples, w->v->samples) < w->o->percent_limit) {
			w->hidden++;
			continue;
		}
		shown++;
	}
	for (i = 0; i < n->nkids; i++) {
		uint32_t k = w->t->kids[n->first + i];

		if (pct(w->t->n[k].samples, w->v->samples) < w->o->percent_limit)
			continue;
		shown--;
		tree_walk(w, k, depth + 1, nplen, pathlen, shown == 0);
	}
	w->path[start] = 0;
}

static int view_tree(FILE *f, struct stackview *v, const struct sv_opts *o)
{
	struct tree t;
	struct tree_out *w;
	const struct tnode *root;
	uint32_t i;
	int err = tree_build(&t, v);

	if (err) {
		tree_free(&t);
		return err;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		tree_free(&t);
		return -ENOMEM;
	}
	w->f = f;
	w->v = v;
	w->t = &t;
	w->o = o;
	root = &t.n[0];
	switch (o->format) {
	case FMT_CSV:
		fputs("depth,percent,self_percent,samples,self_samples,symbol,dso,path\n", f);
		break;
	case FMT_JSON:
		fputs("{", f);
		print_meta_json(f, v->s);
		fprintf(f, ",\n\"view\": \"tree\", \"percent_limit\": %.4f,\n\"nodes\": [",
			o->percent_limit);
		break;
	default:
		print_meta_text(f, v->s);
		print_meta_line(f, "call tree, caller -> callee: each line is a call path from "
				"the outermost frame, with the share of all samples that went "
				"through it (and, when non-zero, of those closed in its last "
				"function); paths below %.2f%% are hidden (--percent-limit)",
				o->percent_limit);
		fputs("#\n", f);
		break;
	}
	for (i = 0; i < root->nkids; i++) {
		uint32_t k = t.kids[root->first + i];

		if (pct(t.n[k].samples, v->samples) < o->percent_limit) {
			w->hidden++;
			continue;
		}
		w->path[0] = 0;
		tree_walk(w, k, 0, 0, 0, true);
	}
	if (o->format == FMT_JSON)
		fprintf(f, "\n], \"hidden_paths\": %" PRIu64 "}\n", w->hidden);
	else if (o->format == FMT_TABLE && w->hidden)
		fprintf(f, "# %" PRIu64 " call path(s) below %.2f%% not shown\n", w->hidden,
			o->percent_limit);
	free(w);
	tree_free(&t);
	return 0;
}

/* ---- --callers / --callees ---- */

struct nb_row {
	uint32_t sym;			/* UINT32_MAX: [root] (callers) or [self] (callees) */
	uint64_t samples;
};

static int nb_cmp(const void *a, const void *b)
{
	const struct nb_row *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->sym < y->sym ? -1 : x->sym > y->sym;
}

static int view_neighbours(FILE *f, struct stackview *v, const struct sv_opts *o)
{
	bool callers = o->kind == SV_CALLERS;
	uint32_t nsyms = symbolizer_nr_syms(v->s->sy), i, k, n = 0;
	uint8_t *match = calloc(nsyms ? nsyms : 1, 1);
	uint32_t *stamp = calloc((size_t)nsyms + 1, sizeof(*stamp));
	uint64_t *by = calloc((size_t)nsyms + 1, sizeof(*by)), total = 0;
	struct nb_row *rows = NULL;
	uint32_t nmatch = 0;
	int err = 0;

	if (!match || !stamp || !by) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nsyms; i++)
		if (!fnmatch(o->sym, sym_name(v, i), 0)) {
			match[i] = 1;
			nmatch++;
		}
	for (i = 0; i < v->nr_aggs; i++) {
		const struct sv_agg *g = &v->aggs[i];
		struct cs_frame one;
		uint32_t nr;
		const struct cs_frame *fr = agg_frames(v, g, &one, &nr);
		bool has = false;

		for (k = 0; k < nr; k++) {
			uint32_t nb;

			if (fr[k].sym >= nsyms || !match[fr[k].sym])
				continue;
			has = true;
			/* The neighbour towards the root (callers) or the leaf (callees). */
			if (callers)
				nb = k + 1 < nr ? fr[k + 1].sym : nsyms;
			else
				nb = k > 0 ? fr[k - 1].sym : nsyms;
			/* Recursive calls fold into the function itself. */
			if (nb < nsyms && match[nb])
				continue;
			if (stamp[nb] == i + 1)
				continue;
			stamp[nb] = i + 1;
			by[nb] += g->samples;
		}
		if (has)
			total += g->samples;
	}
	if (!total) {
		err = -ENOENT;
		goto out;
	}
	rows = malloc(((size_t)nsyms + 1) * sizeof(*rows));
	if (!rows) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i <= nsyms; i++)
		if (by[i])
			rows[n++] = (struct nb_row){ i == nsyms ? UINT32_MAX : i, by[i] };
	qsort(rows, n, sizeof(*rows), nb_cmp);
	if (o->limit && o->limit < n)
		n = o->limit;
	switch (o->format) {
	case FMT_CSV:
		fputs("relation,samples,percent,share,symbol,dso\n", f);
		break;
	case FMT_JSON:
		fputs("{", f);
		print_meta_json(f, v->s);
		fprintf(f, ",\n\"view\": \"%s\", \"function\": ", callers ? "callers" : "callees");
		json_str(f, o->sym);
		fprintf(f, ", \"samples\": %" PRIu64 ", \"percent\": %.4f,\n\"rows\": [", total,
			pct(total, v->samples));
		break;
	default:
		print_meta_text(f, v->s);
		print_meta_line(f, "%s of %s (%u function(s) of that name): %" PRIu64 " samples, "
				"%.2f%% of all, have it in their call stack", callers ? "callers" :
				"callees", o->sym, nmatch, total, pct(total, v->samples));
		print_meta_line(f, "share: of those samples, the ones %s (once per sample; "
				"recursive calls fold into the function; a sample with two %s "
				"counts for both)", callers ? "called through the caller" :
				"in which it called the callee", callers ? "callers" : "callees");
		fputs("#\n", f);
		fprintf(f, "%7s %7s %8s  %s\n", "share", "% all", "samples",
			callers ? "caller [dso]" : "callee [dso]");
		break;
	}
	for (i = 0; i < n; i++) {
		const char *name = rows[i].sym == UINT32_MAX ? (callers ? "[root]" : "[self]") :
				   sym_name(v, rows[i].sym);
		const char *dso = rows[i].sym == UINT32_MAX ? "" : sym_dso(v, rows[i].sym)->short_name;

		switch (o->format) {
		case FMT_CSV:
			fprintf(f, "%s,%" PRIu64 ",%.4f,%.4f,", callers ? "caller" : "callee",
				rows[i].samples, pct(rows[i].samples, v->samples),
				pct(rows[i].samples, total));
			csv_str(f, name);
			fputc(',', f);
			csv_str(f, dso);
			fputc('\n', f);
			break;
		case FMT_JSON:
			fprintf(f, "%s\n {\"samples\": %" PRIu64 ", \"percent\": %.4f, \"share\": "
				"%.4f, \"symbol\": ", i ? "," : "", rows[i].samples,
				pct(rows[i].samples, v->samples), pct(rows[i].samples, total));
			json_str(f, name);
			fputs(", \"dso\": ", f);
			json_str(f, dso);
			fputc('}', f);
			break;
		default:
			fprintf(f, "%6.2f%% %6.2f%% %8" PRIu64 "  %s%s%s%s\n",
				pct(rows[i].samples, total), pct(rows[i].samples, v->samples),
				rows[i].samples, name, *dso ? " [" : "", dso, *dso ? "]" : "");
			break;
		}
	}
	if (o->format == FMT_JSON)
		fputs("\n]}\n", f);
out:
	free(rows);
	free(match);
	free(stamp);
	free(by);
	return err;
}

int stackview_print(FILE *f, struct stackview *v, const struct sv_opts *o)
{
	switch (o->kind) {
	case SV_CHILDREN:
		return view_children(f, v, o);
	case SV_TREE:
		return view_tree(f, v, o);
	default:
		return view_neighbours(f, v, o);
	}
}
