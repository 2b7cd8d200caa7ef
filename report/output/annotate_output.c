// SPDX-License-Identifier: GPL-2.0
/*
 * annotate_output.h: the table, CSV and JSON of annotate.  The table
 * follows perf annotate --stdio (percent on the left, source lines above
 * the instructions they own, branch targets as offsets) with a column per
 * recorded event and derived metric; the hottest row is marked '>'.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/annotate_output.h"
#include "util.h"

#define RED "\033[31m"
#define GREEN "\033[32m"
#define RESET "\033[m"

const char *annotate_skid_note(const struct session *s)
{
	const struct trace_header *h = s->h;

	if (h->flags & PMIPROF_TRACE_F_EMULATED)
		return "windows come from an EMULATED PMU: a sample's address is where the "
		       "emulator's timer interrupt found the program, so the cost of an "
		       "instruction shows on the one after it, or a few after";
	if (h->flags & PMIPROF_TRACE_F_TIME_BASED)
		return "windows are time-based (no hardware PMU): a sample's address is where "
		       "the timer interrupt found the program, so the cost of an instruction "
		       "shows on the one after it (skid), or a few after; read lines and "
		       "loops, not single instructions";
	return "the counter-overflow interrupt arrives some instructions after the event "
	       "(skid; non-precise events): the cost of an instruction shows on the one "
	       "after it, or a few after";
}

static double pct(const struct annotate *a, const struct ann_view *v, uint64_t n,
		  const struct ann_out *o)
{
	uint64_t base = o->percent_global ? a->samples : v->f->c.samples;

	return base ? 100.0 * (double)n / (double)base : 0;
}

static const char *base_name(const char *p)
{
	const char *b = p ? strrchr(p, '/') : NULL;

	return b ? b + 1 : p ? p : "";
}

/* The source file's full name as the line table gives it (comp_dir prepended). */
static const char *full_path(const struct ann_line *l, char *buf, size_t size)
{
	if (!l->file)
		return "";
	if (l->file[0] == '/' || !l->comp_dir)
		return l->file;
	snprintf(buf, size, "%s/%s", l->comp_dir, l->file);
	return buf;
}

static const char *src_text(const struct annotate *a, const struct ann_view *v,
			    const struct ann_out *o, const struct ann_line *l, size_t *len)
{
	const uint8_t *bid;
	uint32_t bid_len = 0;
	const char *path;

	*len = 0;
	if (o->no_source || !o->src)
		return NULL;
	bid = symbolizer_dso_build_id(a->s->sy, v->f->dso, &bid_len);
	return source_line(o->src, l->file, l->comp_dir, bid, bid_len, l->line, len, &path);
}

/* ---- CSV and JSON ---- */

static void csv_heading(FILE *f, const struct annotate *a, const struct ann_out *o)
{
	uint32_t i;

	fputs(o->by_line ? "function,dso,source_file,source_line,inline,samples,percent" :
	      "function,dso,address,offset,samples,percent", f);
	for (i = 0; i < a->s->h->nr_events; i++) {
		fputc(',', f);
		csv_str(f, a->s->h->events[i].name);
	}
	for (i = 0; i < a->ms.n; i++) {
		fprintf(f, ",%s,%s_ci95_low,%s_ci95_high", a->ms.m[i].name, a->ms.m[i].name,
			a->ms.m[i].name);
	}
	fputs(o->by_line ? ",source\n" : ",source_file,source_line,inline,instruction\n", f);
}

static void csv_metrics(FILE *f, const struct annotate *a, const struct ann_counts *c)
{
	uint32_t i;

	for (i = 0; i < a->ms.n; i++) {
		double v, lo, hi;

		if (!ann_metric(c, &a->ms.m[i], i, &v, &lo, &hi)) {
			fputs(",,,", f);
			continue;
		}
		fprintf(f, ",%.6g", v);
		if (isnan(lo))
			fputs(",,", f);
		else
			fprintf(f, ",%.6g,%.6g", lo, hi);
	}
}

static void json_metrics(FILE *f, const struct annotate *a, const struct ann_counts *c)
{
	uint32_t i;
	bool first = true;

	fputs(", \"metrics\": {", f);
	for (i = 0; i < a->ms.n; i++) {
		double v, lo, hi;

		if (!ann_metric(c, &a->ms.m[i], i, &v, &lo, &hi))
			continue;
		fputs(first ? "" : ", ", f);
		first = false;
		json_str(f, a->ms.m[i].name);
		if (isnan(lo))
			fprintf(f, ": {\"value\": %.6g}", v);
		else
			fprintf(f, ": {\"value\": %.6g, \"ci95\": [%.6g, %.6g]}", v, lo, hi);
	}
	fputc('}', f);
}

static void insn_text(const struct ann_view *v, const struct ann_insn *r, char *buf, size_t size)
{
	if (!r->in.len) {
		snprintf(buf, size, "%s", v->code.bytes ? "(no instruction starts here)" : "");
		return;
	}
	if (r->target_inside)
		snprintf(buf, size, "%s %s -> +0x%" PRIx64 "%s", r->in.mnemonic, r->in.operands,
			 r->in.target - v->code.start, r->back_edge ? " (back)" : "");
	else
		snprintf(buf, size, "%s%s%s", r->in.mnemonic, r->in.operands[0] ? " " : "",
			 r->in.operands);
}

static void print_csv(FILE *f, const struct annotate *a, const struct ann_view *v,
		      const struct ann_out *o)
{
	char path[4096], text[512];
	uint32_t i, e, ne = a->s->h->nr_events;

	if (o->by_line) {
		for (i = 0; i < v->nr_lines; i++) {
			const struct ann_line *l = &v->lines[i];
			size_t len;
			const char *src = src_text(a, v, o, l, &len);
			char *s;

			if (pct(a, v, l->c.samples, o) < o->min_percent)
				continue;
			csv_str(f, v->name);
			fputc(',', f);
			csv_str(f, v->dso_name);
			fputc(',', f);
			csv_str(f, full_path(l, path, sizeof(path)));
			fprintf(f, ",%d,", l->line);
			csv_str(f, l->inl);
			fprintf(f, ",%" PRIu64 ",%.4f", l->c.samples, pct(a, v, l->c.samples, o));
			for (e = 0; e < ne; e++)
				fprintf(f, ",%" PRIu64, l->c.counts[e]);
			csv_metrics(f, a, &l->c);
			fputc(',', f);
			s = src ? strndup(src, len) : NULL;
			csv_str(f, s ? s : "");
			free(s);
			fputc('\n', f);
		}
		return;
	}
	for (i = 0; i < v->nr_insns; i++) {
		const struct ann_insn *r = &v->insns[i];
		const struct ann_line *l = r->line != UINT32_MAX ? &v->lines[r->line] : NULL;

		if (pct(a, v, r->c.samples, o) < o->min_percent)
			continue;
		csv_str(f, v->name);
		fputc(',', f);
		csv_str(f, v->dso_name);
		fprintf(f, ",0x%" PRIx64 ",", r->in.addr);
		if (v->code.bytes)
			fprintf(f, "0x%" PRIx64, r->in.addr - v->code.start);
		fprintf(f, ",%" PRIu64 ",%.4f", r->c.samples, pct(a, v, r->c.samples, o));
		for (e = 0; e < ne; e++)
			fprintf(f, ",%" PRIu64, r->c.counts[e]);
		csv_metrics(f, a, &r->c);
		fputc(',', f);
		csv_str(f, l ? full_path(l, path, sizeof(path)) : "");
		fputc(',', f);
		if (l)
			fprintf(f, "%d", l->line);
		fputc(',', f);
		csv_str(f, l ? l->inl : "");
		fputc(',', f);
		insn_text(v, r, text, sizeof(text));
		csv_str(f, text);
		fputc('\n', f);
	}
}

static void print_json(FILE *f, const struct annotate *a, const struct ann_view *v,
		       const struct ann_out *o, uint32_t nth)
{
	char path[4096], text[512];
	uint32_t i, n = 0;

	fprintf(f, "%s\n  {\"function\": ", nth ? "," : "");
	json_str(f, v->name);
	fputs(", \"dso\": ", f);
	json_str(f, v->dso_name);
	fprintf(f, ", \"samples\": %" PRIu64 ", \"percent\": %.4f", v->f->c.samples,
		a->samples ? 100.0 * (double)v->f->c.samples / (double)a->samples : 0);
	if (v->code.bytes)
		fprintf(f, ", \"start\": \"0x%" PRIx64 "\", \"end\": \"0x%" PRIx64 "\"",
			v->code.start, v->code.end);
	fputs(", \"events\": ", f);
	json_event_counts(f, a->s, v->f->c.counts, a->s->h->nr_events);
	json_metrics(f, a, &v->f->c);
	if (v->why) {
		fputs(", \"note\": ", f);
		json_str(f, v->why);
	}
	fprintf(f, ", \"%s\": [", o->by_line ? "lines" : "instructions");
	for (i = 0; i < (o->by_line ? v->nr_lines : v->nr_insns); i++) {
		const struct ann_counts *c = o->by_line ? &v->lines[i].c : &v->insns[i].c;
		const struct ann_insn *r = o->by_line ? NULL : &v->insns[i];
		const struct ann_line *l = o->by_line ? &v->lines[i] :
					   r->line != UINT32_MAX ? &v->lines[r->line] : NULL;

		if (pct(a, v, c->samples, o) < o->min_percent)
			continue;
		fprintf(f, "%s\n    {", n++ ? "," : "");
		if (r) {
			fprintf(f, "\"address\": \"0x%" PRIx64 "\", ", r->in.addr);
			if (v->code.bytes)
				fprintf(f, "\"offset\": \"0x%" PRIx64 "\", ",
					r->in.addr - v->code.start);
		}
		fprintf(f, "\"samples\": %" PRIu64 ", \"percent\": %.4f, \"events\": ", c->samples,
			pct(a, v, c->samples, o));
		json_event_counts(f, a->s, c->counts, a->s->h->nr_events);
		json_metrics(f, a, c);
		if (l) {
			fputs(", \"source_file\": ", f);
			json_str(f, full_path(l, path, sizeof(path)));
			fprintf(f, ", \"source_line\": %d, \"inline\": ", l->line);
			json_str(f, l->inl);
		}
		if (r) {
			insn_text(v, r, text, sizeof(text));
			fputs(", \"instruction\": ", f);
			json_str(f, text);
			if (r->in.has_target)
				fprintf(f, ", \"target\": \"0x%" PRIx64 "\"", r->in.target);
		} else {
			size_t len;
			const char *src = src_text(a, v, o, l, &len);

			if (src) {
				char *s = strndup(src, len);

				fputs(", \"source\": ", f);
				json_str(f, s ? s : "");
				free(s);
			}
		}
		fputc('}', f);
	}
	fputs("]}", f);
}

/* ---- the table ---- */

struct cols {
	struct num_col ev[PMIPROF_MAX_EVENTS];
	int samples_w;
	int metric_w[MAX_METRICS * 2];
};

static void metric_cell(const struct annotate *a, const struct ann_counts *c, uint32_t i,
			char *buf, size_t size)
{
	double v, lo, hi;

	if (!c->samples || !ann_metric(c, &a->ms.m[i], i, &v, &lo, &hi)) {
		buf[0] = '\0';
		return;
	}
	if (isnan(lo))
		snprintf(buf, size, "%.2f", v);
	else
		snprintf(buf, size, "%.2f±%.2f", v, (hi - lo) / 2);
}

/* Number of columns a UTF-8 string takes (the ± sign is two bytes, one column). */
static int cols_of(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void cols_init(struct cols *k, const struct annotate *a, const struct ann_view *v,
		      const struct ann_out *o)
{
	uint32_t e, i, n = o->by_line ? v->nr_lines : v->nr_insns;
	char buf[64];

	memset(k, 0, sizeof(*k));
	k->samples_w = 7;
	for (e = 0; e < a->s->h->nr_events; e++) {
		uint64_t mx = 0;
		char nb[64];

		for (i = 0; i < n; i++) {
			const struct ann_counts *c = o->by_line ? &v->lines[i].c : &v->insns[i].c;

			if (c->counts[e] > mx)
				mx = c->counts[e];
		}
		num_col_init(&k->ev[e], event_counts_ns(a->s->h->events[e].name), mx, 9);
		column_name(a->s->h->events[e].name, nb, sizeof(nb));
		num_col_head(&k->ev[e], nb, buf, sizeof(buf));
		if ((int)strlen(buf) > k->ev[e].width)
			k->ev[e].width = (int)strlen(buf);
	}
	for (i = 0; i < a->ms.n; i++) {
		uint32_t j;

		column_name(a->ms.m[i].name, buf, sizeof(buf));
		k->metric_w[i] = (int)strlen(buf);
		for (j = 0; j < n; j++) {
			char cell[64];

			metric_cell(a, o->by_line ? &v->lines[j].c : &v->insns[j].c, i, cell,
				    sizeof(cell));
			if (cols_of(cell) > k->metric_w[i])
				k->metric_w[i] = cols_of(cell);
		}
	}
}

static void heading(FILE *f, const struct annotate *a, const struct cols *k,
		    const struct ann_out *o)
{
	char buf[64], nb[64];
	uint32_t e;

	fprintf(f, "  %7s %*s", "Percent", k->samples_w, "Samples");
	for (e = 0; e < a->s->h->nr_events; e++) {
		column_name(a->s->h->events[e].name, nb, sizeof(nb));
		fprintf(f, " %*s", k->ev[e].width, num_col_head(&k->ev[e], nb, buf, sizeof(buf)));
	}
	for (e = 0; e < a->ms.n; e++)
		fprintf(f, " %*s", k->metric_w[e],
			column_name(a->ms.m[e].name, buf, sizeof(buf)));
	fputs(o->by_line ? "   Line                 Source\n" :
	      "   Address     Offset  Instruction\n", f);
}

/* The counts part of a row: blank when the row has no samples, as perf does. */
static int counts_cells(FILE *f, const struct annotate *a, const struct ann_view *v,
			const struct cols *k, const struct ann_counts *c,
			const struct ann_out *o, bool hottest)
{
	char buf[64];
	uint32_t e;
	int n = 0;
	double p = pct(a, v, c->samples, o);
	const char *col = !o->color || !c->samples ? NULL : p >= 5 ? RED : p >= 0.5 ? GREEN : NULL;

	n += fprintf(f, "%c ", hottest ? '>' : ' ');
	if (col)
		fputs(col, f);
	if (c->samples)
		n += fprintf(f, "%7.2f %*" PRIu64, p, k->samples_w, c->samples);
	else
		n += fprintf(f, "%7s %*s", "", k->samples_w, "");
	for (e = 0; e < a->s->h->nr_events; e++)
		n += fprintf(f, " %*s", k->ev[e].width,
			     c->samples ? num_col_cell(&k->ev[e], c->counts[e], buf, sizeof(buf)) :
			     "");
	for (e = 0; e < a->ms.n; e++) {
		char cell[64];

		metric_cell(a, c, e, cell, sizeof(cell));
		n += fprintf(f, " %*s", k->metric_w[e] + (int)strlen(cell) - cols_of(cell), cell);
	}
	if (col)
		fputs(RESET, f);
	return n;
}

/* Text cut to the columns left (0: no limit), marking the cut with '+'. */
static void put_fit(FILE *f, const char *s, size_t len, int left)
{
	if (left > 0 && len > (size_t)left) {
		fprintf(f, "%.*s+", left > 1 ? left - 1 : 0, s);
		return;
	}
	fwrite(s, 1, len, f);
}

static void print_source_row(FILE *f, const struct annotate *a, const struct ann_view *v,
			     const struct ann_out *o, const struct ann_line *l, int indent)
{
	char loc[600];
	size_t len;
	const char *src = src_text(a, v, o, l, &len);
	int n;

	snprintf(loc, sizeof(loc), "%s:%d", base_name(l->file), l->line);
	n = fprintf(f, "%*s%-20s ", indent, "", loc);
	if (src) {
		while (len && (*src == ' ' || *src == '\t')) {
			src++;
			len--;
		}
		put_fit(f, src, len, o->width ? o->width - n : 0);
		n += (int)len;
	}
	if (l->inl[0] && (!o->width || n + 12 < o->width)) {
		fputs("  [inlined: ", f);
		put_fit(f, l->inl, strlen(l->inl), o->width ? o->width - n - 14 : 0);
		fputc(']', f);
	}
	fputc('\n', f);
}

static void print_table(FILE *f, const struct annotate *a, const struct ann_view *v,
			const struct ann_out *o, uint32_t nth)
{
	struct cols k;
	uint32_t i, prev_line = UINT32_MAX, hidden = 0;
	int indent;
	char buf[64];

	cols_init(&k, a, v, o);
	fprintf(f, "%s## %s  [%s]", nth ? "\n" : "", v->name, base_name(v->dso_name));
	if (v->code.bytes)
		fprintf(f, "  0x%" PRIx64 "-0x%" PRIx64 " (%" PRIu64 " bytes, %u instructions)",
			v->code.start, v->code.end, v->code.end - v->code.start, v->nr_insns);
	fprintf(f, "\n## %" PRIu64 " samples, %.2f %% of all", v->f->c.samples,
		a->samples ? 100.0 * (double)v->f->c.samples / (double)a->samples : 0);
	for (i = 0; i < a->ms.n; i++) {
		char cell[64];

		metric_cell(a, &v->f->c, i, cell, sizeof(cell));
		if (cell[0])
			fprintf(f, ", %s %s", a->ms.m[i].name, cell);
	}
	if (!o->by_line && v->hottest_insn != UINT32_MAX && v->code.bytes) {
		const struct ann_insn *h = &v->insns[v->hottest_insn];

		fprintf(f, "; hottest (>) +0x%" PRIx64 " %.2f %%", h->in.addr - v->code.start,
			pct(a, v, h->c.samples, o));
		if (h->line != UINT32_MAX)
			fprintf(f, " at %s:%d", base_name(v->lines[h->line].file),
				v->lines[h->line].line);
	} else if (o->by_line && v->hottest_line != UINT32_MAX) {
		fprintf(f, "; hottest line (>) %s:%d %.2f %%",
			base_name(v->lines[v->hottest_line].file), v->lines[v->hottest_line].line,
			pct(a, v, v->lines[v->hottest_line].c.samples, o));
	}
	fputc('\n', f);
	if (v->why)
		fprintf(f, "## %s\n", v->why);
	else if (!v->have_lines)
		fputs("## no source lines: the file has no DWARF line table (stripped, or built "
		      "without -g)\n", f);
	if (v->undecoded)
		fprintf(f, "## %" PRIu64 " samples at addresses where no decoded instruction "
			"starts (data in code, or a wrong disassembly start)\n", v->undecoded);
	if (o->by_line && !v->nr_lines) {
		fputs("## no lines to show\n", f);
		return;
	}
	heading(f, a, &k, o);
	if (o->by_line) {
		for (i = 0; i < v->nr_lines; i++) {
			const struct ann_line *l = &v->lines[i];

			if (pct(a, v, l->c.samples, o) < o->min_percent) {
				hidden++;
				continue;
			}
			indent = counts_cells(f, a, v, &k, &l->c, o, i == v->hottest_line);
			print_source_row(f, a, v, o, l, 3);
			(void)indent;
		}
	} else {
		indent = 2 + 7 + 1 + k.samples_w;
		for (i = 0; i < a->s->h->nr_events; i++)
			indent += 1 + k.ev[i].width;
		for (i = 0; i < a->ms.n; i++)
			indent += 1 + k.metric_w[i];
		for (i = 0; i < v->nr_insns; i++) {
			const struct ann_insn *r = &v->insns[i];
			char text[512];
			int n;

			if (pct(a, v, r->c.samples, o) < o->min_percent ||
			    (o->min_percent > 0 && !r->c.samples)) {
				hidden++;
				continue;
			}
			/* a line above the first instruction shown of it */
			if (r->line != UINT32_MAX && r->line != prev_line && !o->no_source) {
				print_source_row(f, a, v, o, &v->lines[r->line], indent + 3);
				prev_line = r->line;
			}
			n = counts_cells(f, a, v, &k, &r->c, o, i == v->hottest_insn);
			n += fprintf(f, "   %10" PRIx64 "  ", r->in.addr);
			if (v->code.bytes)
				n += fprintf(f, "%7s  ", (snprintf(buf, sizeof(buf), "+0x%" PRIx64,
								 r->in.addr - v->code.start), buf));
			else
				n += fprintf(f, "%7s  ", "");
			insn_text(v, r, text, sizeof(text));
			put_fit(f, text, strlen(text), o->width ? o->width - n : 0);
			fputc('\n', f);
		}
	}
	if (hidden)
		fprintf(f, "## %u %s below %.2f %% not shown (--min-percent)\n", hidden,
			o->by_line ? "lines" : "instructions", o->min_percent);
}

void annotate_print_begin(FILE *f, const struct annotate *a, const struct ann_out *o)
{
	char lib[64];

	switch (o->format) {
	case FMT_TABLE:
		print_meta_text(f, a->s);
		print_meta_line(f, "annotate: %s, %s syntax; percent of the %s's samples",
				disasm_library(lib, sizeof(lib)), o->syntax,
				o->percent_global ? "whole trace" : "function");
		print_meta_line(f, "skid: %s", annotate_skid_note(a->s));
		break;
	case FMT_CSV:
		csv_heading(f, a, o);
		break;
	case FMT_JSON:
		fputc('{', f);
		print_meta_json(f, a->s);
		fputs(", \"skid\": ", f);
		json_str(f, annotate_skid_note(a->s));
		fputs(", \"disassembler\": ", f);
		json_str(f, disasm_library(lib, sizeof(lib)));
		fputs(", \"syntax\": ", f);
		json_str(f, o->syntax);
		fprintf(f, ", \"by\": \"%s\", \"percent\": \"%s\", \"functions\": [",
			o->by_line ? "line" : "insn", o->percent_global ? "global" : "local");
		break;
	}
}

void annotate_print_view(FILE *f, const struct annotate *a, const struct ann_view *v,
			 const struct ann_out *o, uint32_t nth)
{
	switch (o->format) {
	case FMT_TABLE:
		print_table(f, a, v, o, nth);
		break;
	case FMT_CSV:
		print_csv(f, a, v, o);
		break;
	case FMT_JSON:
		print_json(f, a, v, o, nth);
		break;
	}
}

void annotate_print_end(FILE *f, const struct annotate *a, const struct ann_out *o,
			uint32_t shown, uint64_t shown_samples)
{
	if (o->format == FMT_JSON) {
		fprintf(f, "\n], \"functions_shown\": %u, \"samples_shown\": %" PRIu64
			", \"samples_without_address\": %" PRIu64 "}\n", shown, shown_samples,
			a->unplaced);
		return;
	}
	if (o->format == FMT_TABLE)
		fprintf(f, "\n# %u of %u functions shown: %" PRIu64 " of %" PRIu64 " samples "
			"(%.1f %%)%s\n", shown, a->nr_funcs, shown_samples, a->samples,
			a->samples ? 100.0 * (double)shown_samples / (double)a->samples : 0,
			a->unplaced ? "; JIT or unmapped addresses are not annotated" : "");
}
