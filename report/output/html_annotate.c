// SPDX-License-Identifier: GPL-2.0
/*
 * html_annotate.h: the annotate pane's data.  The aggregation is
 * analysis/annotate.c's (the same per-address rule as `pmiprof annotate`);
 * this file keeps its cells per time bucket and writes the embedded
 * functions: "fns":[{"sym","start","note","lines":[[file,line,inline,text]],
 * "insns":[[address,offset,text,line]]}], "aid":[[fn,insn]] per address id
 * of the "ac" cells.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/format.h"
#include "output/html_annotate.h"
#include "symbols/disasm.h"
#include "symbols/source_text.h"
#include "util.h"

int html_ann_init(struct html_ann *h, struct session *s, uint32_t nev)
{
	int rc = annotate_init(&h->ann, s);

	return rc ? rc : cells_init(&h->cells, nev, 4096);
}

void html_ann_free(struct html_ann *h)
{
	annotate_free(&h->ann);
	cells_free(&h->cells);
}

int html_ann_add(struct html_ann *h, uint64_t bucket, const struct trace_sample *smp,
		 uint32_t sym, const uint64_t *c, bool sums)
{
	uint32_t idx;
	int rc = annotate_add(&h->ann, smp, sym, &idx);

	if (rc || idx == UINT32_MAX)
		return rc;
	return cells_add(&h->cells, bucket, idx, c, sums);
}

int html_ann_rebucket(struct html_ann *h, uint64_t div)
{
	return cells_rebucket(&h->cells, div);
}

static const char *base_name(const char *p)
{
	const char *b = p ? strrchr(p, '/') : NULL;

	return b ? b + 1 : p ? p : "";
}

static void write_fn(FILE *f, struct html_ann *h, const struct ann_view *v, uint32_t page_sym,
		     struct source_files *src)
{
	struct symbolizer *sy = h->ann.s->sy;
	uint32_t i, bid_len = 0;
	const uint8_t *bid = symbolizer_dso_build_id(sy, v->f->dso, &bid_len);
	char text[256];

	fprintf(f, "{\"sym\":%u,\"start\":\"0x%" PRIx64 "\",\"note\":", page_sym, v->code.start);
	json_str(f, v->why ? v->why : "");
	fputs(",\"lines\":[", f);
	for (i = 0; i < v->nr_lines; i++) {
		const struct ann_line *l = &v->lines[i];
		const char *path, *t = NULL;
		size_t len = 0;

		if (src)
			t = source_line(src, l->file, l->comp_dir, bid, bid_len, l->line, &len, &path);
		fputs(i ? ",[" : "[", f);
		json_str(f, base_name(l->file));
		fprintf(f, ",%d,", l->line);
		json_str(f, l->inl);
		fputc(',', f);
		snprintf(text, sizeof(text), "%.*s", (int)(len < HANN_TEXT_MAX ? len : HANN_TEXT_MAX),
			 t ? t : "");
		json_str(f, text);
		fputc(']', f);
	}
	fputs("],\"insns\":[", f);
	for (i = 0; i < v->nr_insns; i++) {
		const struct ann_insn *r = &v->insns[i];

		if (!r->in.len)
			snprintf(text, sizeof(text), "%s", v->code.bytes ? "(no instruction starts here)" : "");
		else if (r->target_inside)
			snprintf(text, sizeof(text), "%s %s -> +0x%" PRIx64 "%s", r->in.mnemonic,
				 r->in.operands, r->in.target - v->code.start,
				 r->back_edge ? " (back)" : "");
		else
			snprintf(text, sizeof(text), "%s%s%s", r->in.mnemonic,
				 r->in.operands[0] ? " " : "", r->in.operands);
		fprintf(f, "%s[\"0x%" PRIx64 "\",%" PRIu64 ",", i ? "," : "", r->in.addr,
			v->code.bytes ? r->in.addr - v->code.start : 0);
		json_str(f, text);
		fprintf(f, ",%d]", r->line == UINT32_MAX ? -1 : (int)r->line);
	}
	fputs("]}", f);
}

int html_ann_json(FILE *f, struct html_ann *h, const uint32_t *sym_remap)
{
	struct annotate *a = &h->ann;
	struct source_files *src = NULL;
	struct disasm *d = NULL;
	uint32_t *aid = NULL, *pairs = NULL, *counts = NULL, i, k, nf = 0, npairs = 0, insns = 0;
	uint64_t cells = 0;
	uint64_t shown = 0, goal = (a->samples * 95 + 99) / 100;
	int rc = annotate_group(a, -1);

	if (!rc)
		rc = disasm_open(&d, DISASM_ATT);
	if (!rc)
		rc = source_files_new(&src, NULL, 0);
	if (!rc) {
		aid = malloc((a->nr_addrs ? a->nr_addrs : 1) * sizeof(*aid));
		pairs = malloc((a->nr_addrs ? a->nr_addrs : 1) * 2 * sizeof(*pairs));
		counts = calloc(a->nr_addrs ? a->nr_addrs : 1, sizeof(*counts));
		if (!aid || !pairs || !counts)
			rc = -ENOMEM;
	}
	for (i = 0; !rc && i < a->nr_addrs; i++)
		aid[i] = UINT32_MAX;
	/* cells per address, so a function that would pass the page's cap is left out */
	if (!rc) {
		uint32_t stride = 3 + h->cells.nev;

		for (k = 0; k < h->cells.n; k++)
			counts[h->cells.v[(uint64_t)k * stride + 1]]++;
	}
	if (!rc)
		fputs(",\"ann\":{\"fns\":[", f);
	for (i = 0; !rc && i < a->nr_funcs && nf < HANN_MAX_FUNCS && shown < goal; i++) {
		const struct ann_func *fn = &a->funcs[i];
		struct ann_view v;
		uint64_t fcells = 0;

		if (sym_remap[fn->sym] == UINT32_MAX)
			continue;
		for (k = 0; k < fn->nr; k++)
			fcells += counts[a->order[fn->first + k]];
		if (cells + fcells > HANN_MAX_CELLS)
			break;
		cells += fcells;
		rc = annotate_view(a, i, d, &v);
		if (rc)
			break;
		if (insns + v.nr_insns > HANN_MAX_INSNS) {
			ann_view_free(&v);
			break;
		}
		fputs(nf ? "," : "", f);
		write_fn(f, h, &v, sym_remap[fn->sym], src);
		for (k = 0; k < fn->nr; k++) {
			if (v.addr_insn[k] == UINT32_MAX)
				continue;
			aid[a->order[fn->first + k]] = npairs;
			pairs[2 * npairs] = nf;
			pairs[2 * npairs + 1] = v.addr_insn[k];
			npairs++;
		}
		insns += v.nr_insns;
		shown += fn->c.samples;
		nf++;
		ann_view_free(&v);
	}
	if (!rc) {
		fprintf(f, "],\"functions\":%u,\"samples\":%" PRIu64 ",\"aid\":[", a->nr_funcs,
			a->samples);
		for (k = 0; k < npairs; k++)
			fprintf(f, "%s[%u,%u]", k ? "," : "", pairs[2 * k], pairs[2 * k + 1]);
		fputs("]},", f);
		cells_keep(&h->cells, aid);
		cells_json(f, "ac", &h->cells, NULL);
	}
	free(aid);
	free(pairs);
	free(counts);
	source_files_free(src);
	disasm_close(d);
	return rc;
}
