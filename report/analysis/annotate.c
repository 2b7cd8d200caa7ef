// SPDX-License-Identifier: GPL-2.0
/*
 * annotate.h: per-address aggregation in the session's pass, grouping by
 * function, and one function's instruction and line rows.  Per sample the
 * work is one hash lookup and a few adds; disassembly and line lookups run
 * once per instruction of the functions shown.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/annotate.h"
#include "util.h"

#define KERNEL_TAG 0x80000000u

int annotate_init(struct annotate *a, struct session *s)
{
	memset(a, 0, sizeof(*a));
	a->s = s;
	metrics_derived(s->h, &a->ms);
	return hm_init(&a->at, 4096);
}

void annotate_free(struct annotate *a)
{
	hm_free(&a->at);
	free(a->addrs);
	free(a->funcs);
	free(a->order);
	memset(a, 0, sizeof(*a));
}

static bool moment_metric(const struct metric *m)
{
	return (m->kind == METRIC_RATIO || m->kind == METRIC_PER_KILO ||
		m->kind == METRIC_PERCENT) && m->b >= 0;
}

int annotate_add_sample(void *arg, const struct trace_sample *smp, uint64_t index,
			uint32_t sym, uint32_t comm)
{
	uint32_t idx;

	(void)index;
	(void)comm;
	return annotate_add(arg, smp, sym, &idx);
}

int annotate_add(struct annotate *a, const struct trace_sample *smp, uint32_t sym, uint32_t *at)
{
	struct ann_addr *ad;
	uint32_t dso, tag, idx, i, n = a->s->h->nr_events;
	uint64_t off;
	bool kernel = false;

	*at = UINT32_MAX;
	a->samples++;
	if (!session_locate_ip(a->s, smp->pid, smp->ip, &dso, &off)) {
		const struct sym *sy = symbolizer_sym(a->s->sy, sym);

		if (smp->ip < 0xffff800000000000ULL && !(smp->flags & PMIPROF_SAMPLE_F_IP_HIDDEN)) {
			a->unplaced++;
			return 0;
		}
		kernel = true;
		dso = sy->dso;
		off = smp->ip;
	}
	tag = dso | (kernel ? KERNEL_TAG : 0);
	idx = hm_get(&a->at, off, tag);
	if (idx == HM_EMPTY) {
		if (pm_grow_zero(&a->addrs, &a->cap_addrs, (uint64_t)a->nr_addrs + 1, 1024,
				 sizeof(*a->addrs)))
			return -ENOMEM;
		idx = a->nr_addrs++;
		a->addrs[idx].dso = dso;
		a->addrs[idx].sym = sym;
		a->addrs[idx].off = off;
		a->addrs[idx].kernel = kernel;
		if (hm_put(&a->at, off, tag, idx))
			return -ENOMEM;
	}
	*at = idx;
	ad = &a->addrs[idx];
	ad->c.samples++;
	for (i = 0; i < n && i < PMIPROF_MAX_EVENTS; i++)
		ad->c.counts[i] += smp->counts[i];
	for (i = 0; i < a->ms.n && i < ANN_MAX_MOM; i++) {
		const struct metric *m = &a->ms.m[i];
		double x, y;

		if (!moment_metric(m))
			continue;
		x = (double)smp->counts[m->a];
		y = (double)smp->counts[m->b];
		ad->c.mom[i][0] += x * x;
		ad->c.mom[i][1] += x * y;
		ad->c.mom[i][2] += y * y;
	}
	return 0;
}

void ann_counts_add(struct ann_counts *to, const struct ann_counts *from, uint32_t nr_events,
		    uint32_t nr_metrics)
{
	uint32_t i;

	to->samples += from->samples;
	for (i = 0; i < nr_events && i < PMIPROF_MAX_EVENTS; i++)
		to->counts[i] += from->counts[i];
	for (i = 0; i < nr_metrics && i < ANN_MAX_MOM; i++) {
		to->mom[i][0] += from->mom[i][0];
		to->mom[i][1] += from->mom[i][1];
		to->mom[i][2] += from->mom[i][2];
	}
}

bool ann_metric(const struct ann_counts *c, const struct metric *m, uint32_t mi, double *v,
		double *lo, double *hi)
{
	double A, B, r, n, ss, var, scale;

	if (!metric_value(m, c->counts, v))
		return false;
	*lo = *hi = NAN;
	if (mi >= ANN_MAX_MOM || !moment_metric(m) || c->samples < 2)
		return true;
	A = (double)c->counts[m->a];
	B = (double)c->counts[m->b];
	r = A / B;
	n = (double)c->samples;
	/* Ratio estimator over windows: var(R) ~ n / ((n-1) B^2) * sum (a_i - R b_i)^2. */
	ss = c->mom[mi][0] - 2 * r * c->mom[mi][1] + r * r * c->mom[mi][2];
	if (ss < 0)
		ss = 0;
	var = n / ((n - 1) * B * B) * ss;
	scale = m->kind == METRIC_PER_KILO ? 1000 : m->kind == METRIC_PERCENT ? 100 : 1;
	*lo = (r - 1.96 * sqrt(var)) * scale;
	*hi = (r + 1.96 * sqrt(var)) * scale;
	return true;
}

static int by_func_addr(const void *x, const void *y, void *arg)
{
	const struct annotate *an = arg;
	const struct ann_addr *a = &an->addrs[*(const uint32_t *)x];
	const struct ann_addr *b = &an->addrs[*(const uint32_t *)y];

	if (a->sym != b->sym)
		return a->sym < b->sym ? -1 : 1;
	if (a->kernel != b->kernel)
		return a->kernel ? 1 : -1;
	return a->off < b->off ? -1 : a->off > b->off;
}

static int by_heat(const void *x, const void *y, void *arg)
{
	const struct ann_func *a = x, *b = y;
	int event = *(const int *)arg;
	uint64_t va = event >= 0 ? a->c.counts[event] : a->c.samples;
	uint64_t vb = event >= 0 ? b->c.counts[event] : b->c.samples;

	if (va != vb)
		return va > vb ? -1 : 1;
	return a->sym < b->sym ? -1 : a->sym > b->sym;
}

int annotate_group(struct annotate *a, int event)
{
	uint32_t i, nf = 0, ne = a->s->h->nr_events, nm = a->ms.n;

	free(a->order);
	free(a->funcs);
	a->funcs = NULL;
	a->nr_funcs = 0;
	a->order = malloc((a->nr_addrs ? a->nr_addrs : 1) * sizeof(*a->order));
	a->funcs = calloc(a->nr_addrs ? a->nr_addrs : 1, sizeof(*a->funcs));
	if (!a->order || !a->funcs)
		return -ENOMEM;
	for (i = 0; i < a->nr_addrs; i++)
		a->order[i] = i;
	qsort_r(a->order, a->nr_addrs, sizeof(*a->order), by_func_addr, a);
	for (i = 0; i < a->nr_addrs; i++) {
		const struct ann_addr *ad = &a->addrs[a->order[i]];
		struct ann_func *f = nf ? &a->funcs[nf - 1] : NULL;

		if (!f || f->sym != ad->sym || f->kernel != ad->kernel) {
			f = &a->funcs[nf++];
			f->sym = ad->sym;
			f->dso = ad->dso;
			f->kernel = ad->kernel;
			f->first = i;
		}
		f->nr++;
		ann_counts_add(&f->c, &ad->c, ne, nm);
	}
	a->nr_funcs = nf;
	qsort_r(a->funcs, nf, sizeof(*a->funcs), by_heat, &event);
	return 0;
}

/* The instruction of v holding address addr (sorted by address), or UINT32_MAX. */
static uint32_t insn_at(const struct ann_view *v, uint64_t addr)
{
	uint32_t lo = 0, hi = v->nr_insns;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (v->insns[mid].in.addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return UINT32_MAX;
	lo--;
	if (addr < v->insns[lo].in.addr + (v->insns[lo].in.len ? v->insns[lo].in.len : 1))
		return lo;
	return UINT32_MAX;
}

static int add_insn(struct ann_view *v, uint32_t *cap, const struct insn *in, uint64_t off)
{
	struct ann_insn *r;

	if (pm_grow_zero(&v->insns, cap, (uint64_t)v->nr_insns + 1, 256, sizeof(*v->insns)))
		return -ENOMEM;
	r = &v->insns[v->nr_insns++];
	r->in = *in;
	r->off = off;
	r->line = UINT32_MAX;
	return 0;
}

static int disassemble(struct ann_view *v, uint32_t *cap, struct disasm *d, uint64_t off0,
		       uint64_t vaddr0)
{
	uint64_t a = v->code.start;

	while (a < v->code.end) {
		struct insn in;
		size_t at = (size_t)(a - v->code.start);
		uint64_t off = off0 + a - vaddr0;

		if (!disasm_one(d, v->code.bytes + at, (size_t)(v->code.end - a), a, &in)) {
			/* objdump prints such a byte as "(bad)" and goes on with the next */
			memset(&in, 0, sizeof(in));
			in.addr = a;
			in.len = 1;
			snprintf(in.mnemonic, sizeof(in.mnemonic), "(bad)");
		}
		if (add_insn(v, cap, &in, off))
			return -ENOMEM;
		a += in.len;
	}
	return 0;
}

/* Source lines of every instruction; lines in first-address order. */
static int attach_lines(struct annotate *a, struct ann_view *v)
{
	struct hashmap seen;
	uint32_t i, cap = 0, ne = a->s->h->nr_events, nm = a->ms.n;
	int err = hm_init(&seen, 64);

	if (err)
		return err;
	err = symbolizer_src_function(a->s->sy, v->f->dso, v->code.start, v->code.end);
	for (i = 0; !err && i < v->nr_insns; i++) {
		struct ann_insn *r = &v->insns[i];
		struct src_pos p;
		uint32_t li;
		int got;

		if (!r->in.len)
			continue;
		got = symbolizer_src_at(a->s->sy, v->f->dso, r->in.addr, &p);
		if (got < 0) {
			err = got;
			break;
		}
		if (!got)
			continue;
		v->have_lines = true;
		li = hm_get(&seen, (uint64_t)(uintptr_t)p.file, (uint32_t)p.line);
		if (li == HM_EMPTY) {
			if (pm_grow_zero(&v->lines, &cap, (uint64_t)v->nr_lines + 1, 64,
					 sizeof(*v->lines))) {
				err = -ENOMEM;
				break;
			}
			li = v->nr_lines++;
			v->lines[li].file = p.file;
			v->lines[li].comp_dir = p.comp_dir;
			v->lines[li].line = p.line;
			v->lines[li].depth = p.depth;
			memcpy(v->lines[li].inl, p.inl, sizeof(p.inl));
			v->lines[li].first_addr = r->in.addr;
			if (hm_put(&seen, (uint64_t)(uintptr_t)p.file, (uint32_t)p.line, li)) {
				err = -ENOMEM;
				break;
			}
		}
		r->line = li;
		v->lines[li].nr_insns++;
		ann_counts_add(&v->lines[li].c, &r->c, ne, nm);
	}
	hm_free(&seen);
	return err;
}

int annotate_view(struct annotate *a, uint32_t fi, struct disasm *d, struct ann_view *v)
{
	const struct ann_func *f = &a->funcs[fi];
	struct symbolizer *sy = a->s->sy;
	uint32_t i, cap = 0, ne = a->s->h->nr_events, nm = a->ms.n, best = UINT32_MAX;
	const struct ann_addr *first = &a->addrs[a->order[f->first]];
	uint64_t vaddr0 = 0;
	int err;

	memset(v, 0, sizeof(*v));
	v->f = f;
	v->name = symbolizer_sym(sy, f->sym)->name;
	v->dso_name = symbolizer_dso_info(sy, f->dso)->name;
	v->hottest_insn = v->hottest_line = UINT32_MAX;
	if (f->kernel) {
		v->why = "kernel code: pmiprof reads no vmlinux or /proc/kcore, so kernel "
			 "functions get per-address counts without instructions";
	} else {
		err = symbolizer_func_code(sy, f->dso, first->off, &v->code);
		if (err)
			return err;
		if (!symbolizer_vaddr(sy, f->dso, first->off, &vaddr0))
			v->code.bytes = NULL;
		if (v->code.bytes) {
			err = disassemble(v, &cap, d, first->off, vaddr0);
			if (err)
				return err;
		} else {
			v->why = v->code.why ? v->code.why : "its code was not found";
		}
	}
	v->addr_insn = malloc((f->nr ? f->nr : 1) * sizeof(*v->addr_insn));
	if (!v->addr_insn)
		return -ENOMEM;
	/* Sampled addresses into their instructions; the others as rows of their own. */
	for (i = 0; i < f->nr; i++) {
		const struct ann_addr *ad = &a->addrs[a->order[f->first + i]];
		uint64_t addr = ad->off;
		uint32_t k = UINT32_MAX;

		if (!ad->kernel && !symbolizer_vaddr(sy, ad->dso, ad->off, &addr))
			addr = ad->off;
		if (v->code.bytes)
			k = insn_at(v, addr);
		if (k == UINT32_MAX) {
			struct insn in = { .addr = addr };

			if (v->code.bytes)
				v->undecoded += ad->c.samples;
			err = add_insn(v, &cap, &in, ad->off);
			if (err)
				return err;
			k = v->nr_insns - 1;
		}
		ann_counts_add(&v->insns[k].c, &ad->c, ne, nm);
	}
	/* Rows of their own were appended: keep address order. */
	for (i = 1; i < v->nr_insns; i++) {
		struct ann_insn t = v->insns[i];
		uint32_t j = i;

		while (j && v->insns[j - 1].in.addr > t.in.addr) {
			v->insns[j] = v->insns[j - 1];
			j--;
		}
		v->insns[j] = t;
	}
	for (i = 0; i < f->nr; i++) {
		const struct ann_addr *ad = &a->addrs[a->order[f->first + i]];
		uint64_t addr = ad->off;

		if (!ad->kernel && !symbolizer_vaddr(sy, ad->dso, ad->off, &addr))
			addr = ad->off;
		v->addr_insn[i] = insn_at(v, addr);
	}
	for (i = 0; i < v->nr_insns; i++) {
		struct ann_insn *r = &v->insns[i];

		if (r->in.has_target && v->code.bytes && r->in.target >= v->code.start &&
		    r->in.target < v->code.end) {
			r->target_inside = true;
			r->back_edge = r->in.is_jump && r->in.target <= r->in.addr;
		}
		if (r->c.samples && (best == UINT32_MAX || r->c.samples > v->insns[best].c.samples))
			best = i;
	}
	v->hottest_insn = best;
	if (!f->kernel && v->code.bytes) {
		err = attach_lines(a, v);
		if (err)
			return err;
	}
	for (i = 0; i < v->nr_lines; i++)
		if (v->lines[i].c.samples && (v->hottest_line == UINT32_MAX ||
					      v->lines[i].c.samples >
					      v->lines[v->hottest_line].c.samples))
			v->hottest_line = i;
	return 0;
}

void ann_view_free(struct ann_view *v)
{
	free(v->addr_insn);
	free(v->insns);
	free(v->lines);
	memset(v, 0, sizeof(*v));
}
