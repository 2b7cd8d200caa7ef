// SPDX-License-Identifier: GPL-2.0
/*
 * Flame graph SVG writer (see flamegraph.h).  The layout follows
 * flamegraph.pl (root at the bottom, children in name order, frames under
 * 0.1 px left out, 16 px rows, 12 px text) so the pictures read the same;
 * the script is ours.  Each frame is a <g class="f"> with its value offset,
 * width and depth as data-* attributes, so zooming is a rescale in the
 * browser and needs no second copy of the tree.
 */
#include "output/flamegraph.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FG_XPAD		10
#define FG_FRAME_H	16
#define FG_FONT		12
#define FG_TOP		84	/* title, subtitle, legend, buttons */
#define FG_BOTTOM	34	/* the details line */
#define FG_MIN_PX	0.1
#define FG_CHAR_W	(FG_FONT * 0.59)	/* Verdana's average glyph width */
/*
 * Thin towers (a few samples' deep stacks, e.g. stacks cut at the maximum
 * depth that end in [truncated]) set no height: the picture is as tall as
 * its frames of at least FG_TOWER_SHARE of the total, plus FG_FOLD_ROWS; a
 * thin tower above that is folded into one "[+N frames]" frame (its tooltip
 * names the deepest leaf).
 */
#define FG_TOWER_SHARE	0.01
#define FG_FOLD_ROWS	6

/* Text as XML character data: markup escaped, invalid UTF-8 and controls replaced. */
static void xml_put(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned int c = *p, len = 0, k;

		if (c < 0x80) {
			switch (c) {
			case '&': fputs("&amp;", f); break;
			case '<': fputs("&lt;", f); break;
			case '>': fputs("&gt;", f); break;
			case '"': fputs("&quot;", f); break;
			case '\'': fputs("&apos;", f); break;
			default:
				/* XML 1.0 allows no C0 control but tab and line breaks. */
				fputc(c < 0x20 && c != '\t' && c != '\n' ? '?' : (int)c, f);
			}
			p++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			len = 2;
		else if (c >= 0xe0 && c <= 0xef)
			len = 3;
		else if (c >= 0xf0 && c <= 0xf4)
			len = 4;
		for (k = 1; k < len; k++)
			if ((p[k] & 0xc0) != 0x80)
				break;
		/* Overlongs, surrogates and > U+10FFFF are invalid too. */
		if (len && k == len &&
		    !(len == 3 && c == 0xe0 && p[1] < 0xa0) &&
		    !(len == 3 && c == 0xed && p[1] >= 0xa0) &&
		    !(len == 4 && c == 0xf0 && p[1] < 0x90) &&
		    !(len == 4 && c == 0xf4 && p[1] >= 0x90)) {
			fwrite(p, 1, len, f);
			p += len;
		} else {
			fputs("\xef\xbf\xbd", f);	/* U+FFFD */
			p++;
		}
	}
}

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

struct rgb {
	int r, g, b;
};

static struct rgb hsl(double h, double s, double l)
{
	double c = (1 - fabs(2 * l - 1)) * s, hp = fmod(h, 360) / 60;
	double x = c * (1 - fabs(fmod(hp, 2) - 1)), m = l - c / 2, r = 0, g = 0, b = 0;

	if (hp < 1)
		r = c, g = x;
	else if (hp < 2)
		r = x, g = c;
	else if (hp < 3)
		g = c, b = x;
	else if (hp < 4)
		g = x, b = c;
	else if (hp < 5)
		r = x, b = c;
	else
		r = c, b = x;
	return (struct rgb){ (int)lround((r + m) * 255), (int)lround((g + m) * 255),
			     (int)lround((b + m) * 255) };
}

/* Bad (red) -> middling (yellow) -> good (blue), t in [0, 1]. */
static struct rgb ramp(double t)
{
	static const struct rgb stops[3] = { { 214, 47, 39 }, { 245, 200, 70 }, { 60, 140, 215 } };
	const struct rgb *a, *b;
	double u;

	t = t < 0 ? 0 : t > 1 ? 1 : t;
	a = &stops[t < 0.5 ? 0 : 1];
	b = a + 1;
	u = t < 0.5 ? t * 2 : (t - 0.5) * 2;
	return (struct rgb){ (int)lround(a->r + (b->r - a->r) * u),
			     (int)lround(a->g + (b->g - a->g) * u),
			     (int)lround(a->b + (b->b - a->b) * u) };
}

static const char *tag_name(const struct fg_opts *o, uint32_t tag)
{
	const char *n = o->tag_name ? o->tag_name(o->tag_arg, tag) : NULL;

	return n ? n : "";
}

/*
 * DSO hues: hashing names onto a colour wheel made two of three DSOs share a
 * colour in small graphs, so the DSOs are ranked by leaf samples and take
 * well-separated hues in that order; the kernel is always green, as in
 * flamegraph.pl's "kernel" palettes.  DSOs past the palette fall back to a hash.
 */
static const double fg_palette[] = { 20, 210, 290, 48, 180, 335, 255, 0, 85, 155 };
#define FG_KERNEL_HUE	120

static bool is_kernel_dso(const char *name)
{
	return !strncmp(name, "[kernel", 7) || !strncmp(name, "[guest.kernel", 13);
}

/*
 * Leaf samples per tag, each node counted with bias more (1: every tag that
 * has a node ranks, 0: only tags with samples); NULL on allocation failure.
 */
static uint64_t *leaf_by_tag(const struct stree *t, uint64_t bias, uint32_t *ntags_out)
{
	uint32_t ntags = 0, i;
	uint64_t *leaf;

	for (i = 1; i < t->nr; i++)
		if (t->nodes[i].tag >= ntags)
			ntags = t->nodes[i].tag + 1;
	*ntags_out = ntags;
	leaf = calloc(ntags ? ntags : 1, sizeof(*leaf));
	for (i = 1; leaf && i < t->nr; i++)
		leaf[t->nodes[i].tag] += t->nodes[i].self.samples + bias;
	return leaf;
}

/* The tag with the most leaf samples left, taken out of leaf; false when none is left. */
static bool take_top_tag(uint64_t *leaf, uint32_t ntags, uint32_t *tag)
{
	uint32_t best = 0, j;

	for (j = 1; j < ntags; j++)
		if (leaf[j] > leaf[best])
			best = j;
	if (!leaf[best])
		return false;
	leaf[best] = 0;
	*tag = best;
	return true;
}

/* Per tag hue of this graph (NULL on allocation failure: hashed hues). */
static double *dso_hues(const struct stree *t, const struct fg_opts *o, uint32_t *ntags_out)
{
	uint32_t ntags, rank = 0, best;
	uint64_t *leaf = leaf_by_tag(t, 1, &ntags);
	double *hue = calloc(ntags ? ntags : 1, sizeof(*hue));

	*ntags_out = ntags;
	if (!leaf || !hue) {
		free(leaf);
		free(hue);
		return NULL;
	}
	while (take_top_tag(leaf, ntags, &best)) {
		const char *nm = tag_name(o, best);

		if (is_kernel_dso(nm))
			hue[best] = FG_KERNEL_HUE;
		else if (rank < sizeof(fg_palette) / sizeof(fg_palette[0]))
			hue[best] = fg_palette[rank++];
		else
			hue[best] = (double)(hash_str(nm) % 36) * 10;
	}
	free(leaf);
	return hue;
}

struct fg_layout {
	const struct stree *t;
	const struct fg_opts *o;
	uint64_t *off;			/* value offset of each node */
	double scale;			/* px per value unit */
	double hi;			/* top of the colour scale */
	uint32_t height;
	uint32_t fold;			/* deepest row drawn; deeper frames folded */
	double *tag_hue;		/* FG_COLOR_DSO: hue of each tag, or NULL */
	uint32_t ntags;
};

static double dso_hue(const struct fg_layout *L, uint32_t tag)
{
	if (L->tag_hue && tag < L->ntags)
		return L->tag_hue[tag];
	return (double)(hash_str(tag_name(L->o, tag)) % 36) * 10;
}

static struct rgb dso_color(const struct fg_layout *L, uint32_t node)
{
	const struct fg_opts *o = L->o;
	const char *name = stree_name(L->t, node);
	uint32_t h = hash_str(name);

	if (!o->tag_name)	/* flamegraph.pl's "hot" palette, by name */
		return (struct rgb){ 205 + (int)(h % 50), (int)((h >> 8) % 230),
				     (int)((h >> 16) % 55) };
	/* Markers ([truncated], [unknown]) are not code: grey. */
	if (!strcmp(tag_name(o, L->t->nodes[node].tag), "[truncated]") ||
	    !strcmp(tag_name(o, L->t->nodes[node].tag), "[unknown]"))
		return (struct rgb){ 200, 200, 200 };
	return hsl(dso_hue(L, L->t->nodes[node].tag), 0.55, 0.62 + (double)(h % 16) / 100);
}

static bool ratio_of(const struct fg_opts *o, const struct stree_sums *s, double *r)
{
	if (!s->aux[1])
		return false;
	*r = (double)s->aux[0] / (double)s->aux[1] * o->metric_scale;
	return true;
}


static struct rgb frame_color(const struct fg_layout *L, uint32_t node)
{
	double r;

	if (!node)
		return (struct rgb){ 200, 200, 190 };	/* "all" */
	if (L->o->color == FG_COLOR_DSO)
		return dso_color(L, node);
	if (!ratio_of(L->o, &L->t->nodes[node].total, &r))
		return (struct rgb){ 190, 190, 190 };	/* no denominator: no colour */
	r /= L->hi;
	return ramp(L->o->high_is_good ? r : 1 - r);
}

/* The colour scale's top: the highest ratio of frames with >= 0.5% of samples. */
static double ratio_top(const struct stree *t, const struct fg_opts *o)
{
	uint64_t min = t->nodes[0].total.samples / 200;
	double hi = 0, r;
	uint32_t i;

	for (i = 0; i < t->nr; i++)
		if (t->nodes[i].total.samples > min && ratio_of(o, &t->nodes[i].total, &r) &&
		    r > hi)
			hi = r;
	if (hi <= 0)
		return 1;
	/* Up to the next half step of its leading digit: 3 -> 3, 3.2 -> 3.5, 0.37 -> 0.4. */
	{
		double p = pow(10, floor(log10(hi)));

		return ceil(hi / p * 2 - 1e-9) / 2 * p;
	}
}

static void fmt_num(char *buf, size_t size, double v)
{
	if (v >= 100 || v == floor(v))
		snprintf(buf, size, "%.0f", v);
	else if (v >= 10)
		snprintf(buf, size, "%.1f", v);
	else
		snprintf(buf, size, "%.2f", v);
}

static void write_legend(FILE *f, const struct fg_layout *L)
{
	const struct fg_opts *o = L->o;
	const struct stree *t = L->t;
	int y = 52, x = FG_XPAD, k;
	char a[32];

	if (o->color == FG_COLOR_RATIO) {
		fprintf(f, "<text x=\"%d\" y=\"%d\">colour: ", x, y + 12);
		xml_put(f, o->metric_name);
		fprintf(f, " of the windows through the frame</text>\n");
		x += 360;
		fprintf(f, "<defs><linearGradient id=\"ramp\">");
		for (k = 0; k <= 4; k++) {
			struct rgb c = ramp(o->high_is_good ? k / 4.0 : 1 - k / 4.0);

			fprintf(f, "<stop offset=\"%d%%\" stop-color=\"rgb(%d,%d,%d)\"/>", k * 25,
				c.r, c.g, c.b);
		}
		fprintf(f, "</linearGradient></defs>\n"
			"<rect x=\"%d\" y=\"%d\" width=\"200\" height=\"14\" fill=\"url(#ramp)\"/>\n",
			x + 20, y);
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n", x + 16, y + 12);
		fmt_num(a, sizeof(a), L->hi);
		fprintf(f, "<text x=\"%d\" y=\"%d\">%s%s</text>\n", x + 224, y + 12, a,
			o->high_is_good ? "+" : "+");
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" "
			"fill=\"rgb(190,190,190)\"/><text x=\"%d\" y=\"%d\">no %s</text>\n",
			x + 270, y, x + 288, y + 12,
			o->high_is_good ? "cycles" : "instructions");
		return;
	}
	if (!o->tag_name) {
		fprintf(f, "<text x=\"%d\" y=\"%d\">colour: by name (no meaning)</text>\n", x,
			y + 12);
		return;
	}
	/* The DSOs with the most leaf samples, each with its hue. */
	{
		uint32_t ntags, shown;
		uint64_t *leaf = leaf_by_tag(t, 0, &ntags);

		fprintf(f, "<text x=\"%d\" y=\"%d\">colour: DSO</text>\n", x, y + 12);
		x += 90;
		for (shown = 0; leaf && shown < 8 && x < (int)o->width - 150; shown++) {
			uint32_t best;
			const char *nm, *base;
			struct rgb c;

			if (!take_top_tag(leaf, ntags, &best))
				break;
			nm = tag_name(o, best);
			base = strrchr(nm, '/');
			base = base ? base + 1 : nm;
			c = hsl(dso_hue(L, best), 0.55, 0.68);
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" "
				"fill=\"rgb(%d,%d,%d)\"/><text x=\"%d\" y=\"%d\">", x, y, c.r, c.g,
				c.b, x + 18, y + 12);
			xml_put(f, *base ? base : "?");
			fputs("</text>\n", f);
			x += 18 + (int)((double)strlen(base) * FG_CHAR_W) + 16;
		}
		free(leaf);
	}
}

static const char fg_script[] =
"<script type=\"text/ecmascript\"><![CDATA[\n"
"'use strict';\n"
"var det, matched, unzoomBtn, frames, curSearch = null, zoomed = null;\n"
"function attr(g, a) { return +g.getAttribute('data-' + a); }\n"
"function fname(g) { return g.querySelector('title').textContent.split('\\n')[0]; }\n"
"function fit(g, w) {\n"
"  var t = g.querySelector('text'), n = fname(g), c = Math.floor((w - 6) / CW);\n"
"  t.textContent = c < 3 ? '' : (n.length <= c ? n : n.substr(0, c - 2) + '..');\n"
"}\n"
"function place(g, x, w) {\n"
"  var r = g.querySelector('rect');\n"
"  r.setAttribute('x', x.toFixed(1)); r.setAttribute('width', Math.max(w, 0).toFixed(1));\n"
"  g.querySelector('text').setAttribute('x', (x + 3).toFixed(1)); fit(g, w);\n"
"}\n"
"function setUrl() {\n"
"  var p = new URLSearchParams();\n"
"  if (zoomed) p.set('zoom', zoomed.id.substr(1));\n"
"  if (curSearch) p.set('s', curSearch);\n"
"  var q = p.toString();\n"
"  try { history.replaceState(null, '', q ? '?' + q : location.pathname); } catch (e) {}\n"
"}\n"
"function zoom(g) {\n"
"  var gx = attr(g, 'x'), gw = attr(g, 'w'), gd = attr(g, 'd'), s = (W - 2 * XP) / gw;\n"
"  frames.forEach(function (f) {\n"
"    var fx = attr(f, 'x'), fw = attr(f, 'w'), fd = attr(f, 'd');\n"
"    f.classList.remove('anc');\n"
"    if (fd < gd && fx <= gx && fx + fw >= gx + gw) {\n"
"      f.style.display = ''; f.classList.add('anc'); place(f, XP, W - 2 * XP);\n"
"    } else if (fd >= gd && fx >= gx && fx + fw <= gx + gw && fw * s >= 0.1) {\n"
"      f.style.display = ''; place(f, XP + (fx - gx) * s, fw * s);\n"
"    } else {\n"
"      f.style.display = 'none';\n"
"    }\n"
"  });\n"
"  zoomed = g; unzoomBtn.style.display = ''; setUrl();\n"
"}\n"
"function unzoom() {\n"
"  var s = (W - 2 * XP) / T;\n"
"  frames.forEach(function (f) {\n"
"    f.style.display = ''; f.classList.remove('anc');\n"
"    place(f, XP + attr(f, 'x') * s, attr(f, 'w') * s);\n"
"  });\n"
"  zoomed = null; unzoomBtn.style.display = 'none'; setUrl();\n"
"}\n"
"function resetSearch() {\n"
"  frames.forEach(function (f) {\n"
"    var r = f.querySelector('rect'); r.setAttribute('fill', r.getAttribute('data-c'));\n"
"  });\n"
"  matched.textContent = ''; curSearch = null; setUrl();\n"
"}\n"
"function search(term) {\n"
"  var re;\n"
"  try { re = new RegExp(term); } catch (e) { matched.textContent = 'bad regex'; return; }\n"
"  resetSearch();\n"
"  var spans = [];\n"
"  frames.forEach(function (f) {\n"
"    if (!re.test(fname(f))) return;\n"
"    f.querySelector('rect').setAttribute('fill', 'rgb(230,0,230)');\n"
"    spans.push([attr(f, 'x'), attr(f, 'x') + attr(f, 'w')]);\n"
"  });\n"
"  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
"  var sum = 0, end = -1;\n"
"  spans.forEach(function (s) {\n"
"    if (s[0] >= end) { sum += s[1] - s[0]; end = s[1]; }\n"
"    else if (s[1] > end) { sum += s[1] - end; end = s[1]; }\n"
"  });\n"
"  curSearch = term;\n"
"  matched.textContent = 'Matched: ' + (100 * sum / T).toFixed(1) + '%';\n"
"  matched.setAttribute('data-matched', sum);\n"
"  setUrl();\n"
"}\n"
"function ask() {\n"
"  if (curSearch) { resetSearch(); return; }\n"
"  var t = prompt('Search for (regular expression):', '');\n"
"  if (t) search(t);\n"
"}\n"
"function init() {\n"
"  det = document.getElementById('details');\n"
"  matched = document.getElementById('matched');\n"
"  unzoomBtn = document.getElementById('unzoom');\n"
"  frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
"  frames.forEach(function (f) {\n"
"    f.addEventListener('mouseover', function () {\n"
"      det.textContent = f.querySelector('title').textContent.split('\\n').join('  |  ');\n"
"    });\n"
"    f.addEventListener('mouseout', function () { det.textContent = ' '; });\n"
"    f.addEventListener('click', function () { zoom(f); });\n"
"  });\n"
"  unzoomBtn.addEventListener('click', unzoom);\n"
"  document.getElementById('search').addEventListener('click', ask);\n"
"  document.addEventListener('keydown', function (e) {\n"
"    if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); ask(); }\n"
"    else if (e.key === 'Escape') { if (curSearch) resetSearch(); if (zoomed) unzoom(); }\n"
"  });\n"
"  var p = new URLSearchParams(location.search), z = p.get('zoom');\n"
"  if (z !== null && document.getElementById('f' + z)) zoom(document.getElementById('f' + z));\n"
"  if (p.get('s')) search(p.get('s'));\n"
"  document.documentElement.setAttribute('data-ready', '1');\n"
"}\n"
"window.addEventListener('load', init);\n"
"]]></script>\n";

static void write_frame(FILE *f, const struct fg_layout *L, uint32_t node)
{
	const struct stree *t = L->t;
	const struct stree_node *nd = &t->nodes[node];
	const struct fg_opts *o = L->o;
	double x = FG_XPAD + (double)L->off[node] * L->scale;
	double w = (double)nd->total.value * L->scale;
	uint32_t y = L->height - FG_BOTTOM - (nd->depth + 1) * FG_FRAME_H;
	uint64_t all = t->nodes[0].total.value, alls = t->nodes[0].total.samples;
	struct rgb c = frame_color(L, node);
	const char *name = stree_name(t, node);
	size_t chars = w > 6 ? (size_t)((w - 6) / FG_CHAR_W) : 0, len = strlen(name);
	double r;

	fprintf(f, "<g class=\"f\" id=\"f%u\" data-x=\"%" PRIu64 "\" data-w=\"%" PRIu64
		"\" data-d=\"%u\"><title>", node, L->off[node], nd->total.value, nd->depth);
	xml_put(f, name);
	fprintf(f, "\n%" PRIu64 " %s (%.2f%%)", nd->total.value, o->value_name,
		all ? 100.0 * (double)nd->total.value / (double)all : 0.0);
	if (strcmp(o->value_name, "samples"))
		fprintf(f, ", %" PRIu64 " samples (%.2f%%)", nd->total.samples,
			alls ? 100.0 * (double)nd->total.samples / (double)alls : 0.0);
	if (nd->self.value && nd->total.value != nd->self.value)
		fprintf(f, ", self %" PRIu64, nd->self.value);
	if (o->color == FG_COLOR_RATIO && ratio_of(o, &nd->total, &r)) {
		fputs("\n", f);
		xml_put(f, o->metric_name);
		fprintf(f, " %.3g", r);
		if (ratio_of(o, &nd->self, &r) && nd->self.samples != nd->total.samples)
			fprintf(f, " (self %.3g)", r);
	}
	if (o->tag_name && node) {
		fputs("\nin ", f);
		xml_put(f, tag_name(o, nd->tag));
	}
	fprintf(f, "</title><rect x=\"%.1f\" y=\"%u\" width=\"%.1f\" height=\"%d\" "
		"fill=\"rgb(%d,%d,%d)\" data-c=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>"
		"<text x=\"%.1f\" y=\"%u\">", x, y, w, FG_FRAME_H - 1, c.r, c.g, c.b, c.r, c.g, c.b,
		x + 3, y + FG_FRAME_H - 4);
	if (chars >= 3) {
		if (len <= chars) {
			xml_put(f, name);
		} else {
			/* Cut on a character boundary, not inside a UTF-8 sequence. */
			char buf[1024];
			size_t n = chars - 2 < sizeof(buf) - 3 ? chars - 2 : sizeof(buf) - 3;

			while (n && ((unsigned char)name[n] & 0xc0) == 0x80)
				n--;
			memcpy(buf, name, n);
			strcpy(buf + n, "..");
			xml_put(f, buf);
		}
	}
	fputs("</text></g>\n", f);
}

/* The frames of node's subtree deeper than L->fold, as one frame above it. */
static void write_fold(FILE *f, const struct fg_layout *L, uint32_t node, uint32_t deepest,
		       uint32_t leaf)
{
	const struct stree_node *nd = &L->t->nodes[node];
	double x = FG_XPAD + (double)L->off[node] * L->scale;
	double w = (double)nd->total.value * L->scale;
	uint32_t y = L->height - FG_BOTTOM - (nd->depth + 2) * FG_FRAME_H;
	char label[48];

	snprintf(label, sizeof(label), "[+%u frames]", deepest - nd->depth);
	fprintf(f, "<g class=\"f\" id=\"z%u\" data-x=\"%" PRIu64 "\" data-w=\"%" PRIu64
		"\" data-d=\"%u\"><title>%s folded: a thin tower %u frames deeper, up to ", node,
		L->off[node], nd->total.value, nd->depth + 1, label, deepest - nd->depth);
	xml_put(f, stree_name(L->t, leaf));
	fprintf(f, "</title>"
		"<rect x=\"%.1f\" y=\"%u\" width=\"%.1f\" height=\"%d\" fill=\"rgb(200,200,200)\" "
		"data-c=\"rgb(200,200,200)\" rx=\"2\" ry=\"2\"/><text x=\"%.1f\" y=\"%u\">",
		x, y, w, FG_FRAME_H - 1, x + 3, y + FG_FRAME_H - 4);
	if (w > 6 + FG_CHAR_W * (double)strlen(label))
		fputs(label, f);
	fputs("</text></g>\n", f);
}

/*
 * The deepest row to draw: frames of FG_TOWER_SHARE or more set the height;
 * narrower ones (thin towers) may rise FG_FOLD_ROWS above them, the rest is
 * folded.  deep[i]: the deepest drawn frame of node i's subtree, its leaf.
 */
static uint32_t fold_row(const struct stree *t, const struct fg_layout *L, uint32_t *deep,
			 uint32_t *leaf)
{
	uint32_t i, wide = 0, drawn = 0;
	double thin = FG_TOWER_SHARE * (double)t->nodes[0].total.value * L->scale;

	for (i = 0; i < t->nr; i++) {
		double w = (double)t->nodes[i].total.value * L->scale;

		deep[i] = t->nodes[i].depth;
		leaf[i] = i;
		if (w >= thin && t->nodes[i].depth > wide)
			wide = t->nodes[i].depth;
		if (w >= FG_MIN_PX && t->nodes[i].depth > drawn)
			drawn = t->nodes[i].depth;
	}
	/* children come after their parents: a backward pass carries depths up */
	for (i = t->nr; i-- > 1;) {
		uint32_t p = t->nodes[i].parent;

		if ((double)t->nodes[i].total.value * L->scale < FG_MIN_PX || p == STREE_NONE)
			continue;
		if (deep[i] > deep[p]) {
			deep[p] = deep[i];
			leaf[p] = leaf[i];
		}
	}
	/* folding a single row would save nothing: the fold frame takes it */
	return drawn > wide + FG_FOLD_ROWS + 1 ? wide + FG_FOLD_ROWS : drawn;
}

int flamegraph_write(FILE *f, const struct stree *t, const struct fg_opts *o)
{
	struct fg_layout L = { .t = t, .o = o };
	uint32_t W = o->width, i, *deep, *leaf, folded = 0;
	uint64_t all = t->nodes[0].total.value;

	L.off = calloc(t->nr, sizeof(*L.off));
	if (!L.off)
		return -ENOMEM;
	/* Parents come before their children in node order: one forward pass. */
	for (i = 0; i < t->nr; i++) {
		uint64_t x = L.off[i];
		uint32_t c;

		for (c = t->nodes[i].child; c != STREE_NONE; c = t->nodes[c].next) {
			L.off[c] = x;
			x += t->nodes[c].total.value;
		}
	}
	L.scale = all ? (double)(W - 2 * FG_XPAD) / (double)all : 0;
	deep = malloc((t->nr ? t->nr : 1) * sizeof(*deep));
	leaf = malloc((t->nr ? t->nr : 1) * sizeof(*leaf));
	if (!deep || !leaf) {
		free(deep);
		free(leaf);
		free(L.off);
		return -ENOMEM;
	}
	L.fold = fold_row(t, &L, deep, leaf);
	/* the rows drawn, and one for the fold frames when there are any */
	for (i = 0; i < t->nr; i++)
		folded += t->nodes[i].depth == L.fold && deep[i] > L.fold &&
			  (double)t->nodes[i].total.value * L.scale >= FG_MIN_PX;
	L.height = FG_TOP + (L.fold + 1 + (folded ? 1 : 0)) * FG_FRAME_H + FG_BOTTOM;
	L.hi = o->color == FG_COLOR_RATIO ? ratio_top(t, o) : 1;
	if (o->color == FG_COLOR_DSO && o->tag_name)
		L.tag_hue = dso_hues(t, o, &L.ntags);

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<!-- Flame graph written by pmiprof (stacks merged by name, root at the bottom,"
		" width = %s). -->\n", W, L.height, W, L.height, o->value_name);
	fprintf(f, "<style type=\"text/css\">\n"
		"text { font-family: Verdana, 'DejaVu Sans', sans-serif; font-size: %dpx; fill: #000; }\n"
		"g.f text { pointer-events: none; }\n"
		"g.f:hover rect { stroke: #000; stroke-width: 0.5; cursor: pointer; }\n"
		"g.f.anc rect { opacity: 0.5; }\n"
		".title { font-size: 17px; text-anchor: middle; }\n"
		".btn { cursor: pointer; fill: #225; }\n"
		"</style>\n", FG_FONT);
	fprintf(f, "<script type=\"text/ecmascript\">var T = %" PRIu64 ", W = %u, XP = %d, "
		"CW = %.3f;</script>\n", all ? all : 1, W, FG_XPAD, FG_CHAR_W);
	fputs(fg_script, f);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f4\"/>\n"
		"<text class=\"title\" x=\"%u\" y=\"24\">", W / 2);
	xml_put(f, o->title ? o->title : "Flame Graph");
	fputs("</text>\n", f);
	if (o->subtitle) {
		fprintf(f, "<text x=\"%u\" y=\"42\" text-anchor=\"middle\" fill=\"#555\">", W / 2);
		xml_put(f, o->subtitle);
		fputs("</text>\n", f);
	}
	write_legend(f, &L);
	fprintf(f, "<text id=\"unzoom\" class=\"btn\" x=\"%d\" y=\"%d\" style=\"display:none\">"
		"Reset Zoom</text>\n"
		"<text id=\"search\" class=\"btn\" x=\"%u\" y=\"24\" text-anchor=\"end\">Search</text>\n"
		"<text id=\"matched\" x=\"%u\" y=\"%u\" text-anchor=\"end\"></text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n",
		FG_XPAD, 24, W - FG_XPAD, W - FG_XPAD, L.height - 12, FG_XPAD, L.height - 12);
	if (!all)
		fprintf(f, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">no samples</text>\n",
			W / 2, L.height / 2);
	else
		for (i = 0; i < t->nr; i++) {
			uint32_t d = t->nodes[i].depth;

			/*
			 * The row above the fold holds a fold frame, or the frames
			 * themselves where they are the tops of their towers.
			 */
			if ((double)t->nodes[i].total.value * L.scale < FG_MIN_PX || d > L.fold + 1 ||
			    (d == L.fold + 1 && deep[t->nodes[i].parent] > d))
				continue;
			write_frame(f, &L, i);
			if (d == L.fold && deep[i] > d + 1)
				write_fold(f, &L, i, deep[i], leaf[i]);
		}
	fputs("</svg>\n", f);
	free(deep);
	free(leaf);
	free(L.tag_hue);
	free(L.off);
	return ferror(f) ? -EIO : 0;
}
