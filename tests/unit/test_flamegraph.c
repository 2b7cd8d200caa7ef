// SPDX-License-Identifier: GPL-2.0
/*
 * The flame graph SVG: names escaped for XML (markup, invalid UTF-8,
 * controls), frames under 0.1 px left out, IPC colours on the legend's
 * ramp (high IPC blue, low red), a well-formed document (xmllint, when
 * installed), and a thin deep tower folded instead of doubling the height.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/flamegraph.h"

static void add(struct stree *t, const char *a, const char *b, uint64_t samples, uint64_t ins,
		uint64_t cyc)
{
	const char *names[2] = { a, b };
	uint32_t tags[2] = { 0, 1 };
	struct stree_sums v = { .value = samples, .samples = samples, .aux = { ins, cyc } };

	assert_int_equal(stree_add(t, names, tags, b ? 2 : 1, &v), 0);
}

static const char *tag_name(void *arg, uint32_t tag)
{
	(void)arg;
	return tag ? "/lib/libwork.so" : "/usr/bin/app";
}

static char *svg_of(struct stree *t, const struct fg_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(stree_sort(t), 0);
	assert_int_equal(flamegraph_write(f, t, o), 0);
	fclose(f);
	return buf;
}

static const struct fg_opts ipc_opts = {
	.title = "t & <t>", .width = 1200, .value_name = "samples", .color = FG_COLOR_RATIO,
	.metric_name = "ipc", .metric_scale = 1, .high_is_good = true, .tag_name = tag_name,
};

/* The fill of the frame whose title starts with name. */
static void fill_of(const char *svg, const char *name, int *r, int *g, int *b)
{
	char key[128];
	const char *p;

	snprintf(key, sizeof(key), "<title>%s\n", name);
	p = strstr(svg, key);
	assert_non_null(p);
	p = strstr(p, "fill=\"rgb(");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "fill=\"rgb(%d,%d,%d)", r, g, b), 3);
}

static void ipc_colours_follow_the_ramp(void **state)
{
	struct stree t;
	char *svg;
	int r, g, b;

	(void)state;
	assert_int_equal(stree_init(&t), 0);
	add(&t, "main", "fast", 50, 4000, 1000);	/* ipc 4 */
	add(&t, "main", "slow", 50, 500, 1000);		/* ipc 0.5 */
	add(&t, "main", "nocycles", 10, 100, 0);
	svg = svg_of(&t, &ipc_opts);
	fill_of(svg, "fast", &r, &g, &b);
	assert_true(b > r);
	fill_of(svg, "slow", &r, &g, &b);
	assert_true(r > b);
	fill_of(svg, "nocycles", &r, &g, &b);
	assert_true(r == g && g == b);			/* grey: no ratio */
	/* The tooltip gives the ratio; main is the inclusive ipc of both. */
	assert_non_null(strstr(svg, "ipc 4"));
	assert_non_null(strstr(svg, "ipc 2.3\nin /usr/bin/app"));	/* 4600 / 2000 */
	assert_non_null(strstr(svg, "linearGradient"));	/* the legend */
	free(svg);
	stree_free(&t);
}

static void names_are_escaped_for_xml(void **state)
{
	struct stree t;
	char *svg;

	(void)state;
	assert_int_equal(stree_init(&t), 0);
	add(&t, "main", "a<b>&\"c\"'d'", 10, 0, 0);
	add(&t, "main", "bad\xff\xfeutf8\x01", 10, 0, 0);
	add(&t, "main", "caf\xc3\xa9", 10, 0, 0);
	svg = svg_of(&t, &ipc_opts);
	assert_non_null(strstr(svg, "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;"));
	assert_non_null(strstr(svg, "bad\xef\xbf\xbd\xef\xbf\xbdutf8?"));
	assert_null(strchr(svg, '\xff'));
	assert_non_null(strstr(svg, "caf\xc3\xa9"));	/* valid UTF-8 kept */
	assert_non_null(strstr(svg, "t &amp; &lt;t&gt;"));	/* the title too */
	free(svg);
	stree_free(&t);
}

static void narrow_frames_are_left_out(void **state)
{
	struct stree t;
	struct fg_opts o = ipc_opts;
	char *svg, *p;
	unsigned int frames = 0;

	(void)state;
	o.color = FG_COLOR_DSO;
	assert_int_equal(stree_init(&t), 0);
	add(&t, "main", "big", 10000000, 0, 0);
	add(&t, "main", "tiny", 1, 0, 0);		/* 1e-4 px at 1200 px */
	svg = svg_of(&t, &o);
	for (p = svg; (p = strstr(p, "<g class=\"f\"")); p++)
		frames++;
	assert_int_equal(frames, 3);			/* all, main, big */
	assert_null(strstr(svg, "tiny"));
	assert_non_null(strstr(svg, "libwork.so"));	/* DSO legend */
	free(svg);
	stree_free(&t);
}

static const char *three_dsos(void *arg, uint32_t tag)
{
	static const char *const n[] = { "/usr/bin/app", "/lib/ld-linux-x86-64.so.2",
					 "[kernel.kallsyms]", "[truncated]" };

	(void)arg;
	return n[tag < 4 ? tag : 0];
}

/* Each DSO its own hue (a hash put app and ld.so on the same pink), the kernel green. */
static void dso_colours_are_distinct_kernel_green(void **state)
{
	const char *names[2];
	uint32_t tags[2];
	struct stree_sums v = { .value = 10, .samples = 10 };
	struct fg_opts o = ipc_opts;
	struct stree t;
	int rgb[4][3], i, j;
	char *svg;

	(void)state;
	o.color = FG_COLOR_DSO;
	o.tag_name = three_dsos;
	assert_int_equal(stree_init(&t), 0);
	names[0] = "main", tags[0] = 0;
	names[1] = "work", tags[1] = 0;
	assert_int_equal(stree_add(&t, names, tags, 2, &v), 0);
	names[1] = "_dl_start", tags[1] = 1;
	assert_int_equal(stree_add(&t, names, tags, 2, &v), 0);
	names[1] = "do_syscall_64", tags[1] = 2;
	assert_int_equal(stree_add(&t, names, tags, 2, &v), 0);
	names[0] = "[truncated]", tags[0] = 3;
	names[1] = "memcpy", tags[1] = 1;
	assert_int_equal(stree_add(&t, names, tags, 2, &v), 0);
	svg = svg_of(&t, &o);
	fill_of(svg, "work", &rgb[0][0], &rgb[0][1], &rgb[0][2]);
	fill_of(svg, "_dl_start", &rgb[1][0], &rgb[1][1], &rgb[1][2]);
	fill_of(svg, "do_syscall_64", &rgb[2][0], &rgb[2][1], &rgb[2][2]);
	fill_of(svg, "[truncated]", &rgb[3][0], &rgb[3][1], &rgb[3][2]);
	for (i = 0; i < 3; i++)
		for (j = i + 1; j < 3; j++)
			assert_true(abs(rgb[i][0] - rgb[j][0]) + abs(rgb[i][1] - rgb[j][1]) +
				    abs(rgb[i][2] - rgb[j][2]) > 60);
	assert_true(rgb[2][1] > rgb[2][0] && rgb[2][1] > rgb[2][2]);	/* kernel green */
	assert_true(rgb[3][0] == rgb[3][1] && rgb[3][1] == rgb[3][2]);	/* marker grey */
	free(svg);
	stree_free(&t);
}

static void deep_stack_draws_every_level(void **state)
{
	enum { DEPTH = 3000 };
	const char **names = malloc(DEPTH * sizeof(*names));
	struct stree_sums v = { .value = 5, .samples = 5 };
	struct fg_opts o = ipc_opts;
	struct stree t;
	unsigned int frames = 0, height = 0;
	char *svg, *p;
	uint32_t i;

	(void)state;
	o.color = FG_COLOR_DSO;
	o.tag_name = NULL;			/* flamegraph.pl's palette */
	for (i = 0; i < DEPTH; i++)
		names[i] = "recurse";
	assert_int_equal(stree_init(&t), 0);
	assert_int_equal(stree_add(&t, names, NULL, DEPTH, &v), 0);
	svg = svg_of(&t, &o);
	for (p = svg; (p = strstr(p, "<g class=\"f\"")); p++)
		frames++;
	assert_int_equal(frames, DEPTH + 1);
	assert_int_equal(sscanf(strstr(svg, "height=\""), "height=\"%u\"", &height), 1);
	assert_true(height >= (DEPTH + 1) * 16);
	assert_non_null(strstr(svg, "colour: by name"));
	free(svg);
	free(names);
	stree_free(&t);
}

/*
 * A thin [truncated] tower (1 sample in 1000, 120 frames deep, as a stack
 * cut at the maximum depth gives) beside a 3-deep program: the picture is
 * as tall as the program plus a few rows, the tower folded into one
 * "[+N frames]" frame that names its deepest leaf.  A 4-row tower of the
 * same width is drawn whole.
 */
static void thin_tower_is_folded(void **state)
{
	enum { DEPTH = 120 };
	const char *names[DEPTH], *prog[3] = { "main", "work", "leaf" };
	const char *shallow[4] = { "[truncated]", "a", "b", "c" };
	struct stree_sums big = { .value = 999, .samples = 999 }, one = { .value = 1, .samples = 1 };
	struct fg_opts o = ipc_opts;
	struct stree t;
	unsigned int height = 0, frames = 0;
	char *svg, *p;
	uint32_t i;

	(void)state;
	o.color = FG_COLOR_DSO;
	o.tag_name = NULL;
	names[0] = "[truncated]";
	for (i = 1; i < DEPTH; i++)
		names[i] = i == DEPTH - 1 ? "deepest_leaf" : "recurse";
	assert_int_equal(stree_init(&t), 0);
	assert_int_equal(stree_add(&t, prog, NULL, 3, &big), 0);
	assert_int_equal(stree_add(&t, names, NULL, DEPTH, &one), 0);
	svg = svg_of(&t, &o);
	assert_int_equal(sscanf(strstr(svg, "height=\""), "height=\"%u\"", &height), 1);
	/* title band 84 + rows (root, 3 program rows, 6 above, the fold row) + 34 */
	assert_true(height <= 84 + (1 + 3 + 6 + 1) * 16 + 34);
	assert_non_null(strstr(svg, "[+"));
	assert_non_null(strstr(svg, "deepest_leaf"));
	for (p = svg; (p = strstr(p, "<g class=\"f\"")); p++)
		frames++;
	assert_true(frames < 20);
	free(svg);
	stree_free(&t);

	/* a short tower of the same width: nothing to fold */
	assert_int_equal(stree_init(&t), 0);
	assert_int_equal(stree_add(&t, prog, NULL, 3, &big), 0);
	assert_int_equal(stree_add(&t, shallow, NULL, 4, &one), 0);
	svg = svg_of(&t, &o);
	assert_null(strstr(svg, "[+"));
	frames = 0;
	for (p = svg; (p = strstr(p, "<g class=\"f\"")); p++)
		frames++;
	assert_int_equal(frames, 1 + 3 + 4);
	free(svg);
	stree_free(&t);
}

static void svg_is_well_formed_xml(void **state)
{
	char path[] = "/tmp/test_flamegraph.XXXXXX", cmd[128];
	struct stree t;
	char *svg;
	FILE *f;
	int fd, rc;

	(void)state;
	if (system("xmllint --version >/dev/null 2>&1"))
		skip();		/* libxml2-utils not installed */
	assert_int_equal(stree_init(&t), 0);
	add(&t, "main", "a<b>&\"c\"'d' ]]> --", 10, 5, 7);
	add(&t, "main", "bad\xff\xfe\x01", 10, 5, 7);
	svg = svg_of(&t, &ipc_opts);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs(svg, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s", path);
	rc = system(cmd);
	unlink(path);
	assert_int_equal(rc, 0);
	free(svg);
	stree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ipc_colours_follow_the_ramp),
		cmocka_unit_test(names_are_escaped_for_xml),
		cmocka_unit_test(narrow_frames_are_left_out),
		cmocka_unit_test(dso_colours_are_distinct_kernel_green),
		cmocka_unit_test(deep_stack_draws_every_level),
		cmocka_unit_test(svg_is_well_formed_xml),
		cmocka_unit_test(thin_tower_is_folded),
	};

	return cmocka_run_group_tests_name("flamegraph", tests, NULL, NULL);
}
