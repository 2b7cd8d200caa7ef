// SPDX-License-Identifier: GPL-2.0
/*
 * The stack tree merges stacks by name from the root, and folded output is
 * one "root;...;leaf VALUE" line per stack with a self value, in name order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/folded.h"

static void add(struct stree *t, const char *folded, uint64_t value, uint64_t samples)
{
	char *copy = strdup(folded), *tok, *save = NULL;
	const char *names[64];
	uint32_t n = 0;
	struct stree_sums v = { .value = value, .samples = samples };

	for (tok = strtok_r(copy, ";", &save); tok; tok = strtok_r(NULL, ";", &save))
		names[n++] = tok;
	assert_int_equal(stree_add(t, names, NULL, n, &v), 0);
	free(copy);
}

static char *folded_of(struct stree *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(stree_sort(t), 0);
	assert_int_equal(folded_write(f, t), 0);
	fclose(f);
	return buf;
}

static void stacks_merge_by_name_and_print_in_name_order(void **state)
{
	struct stree t;
	char *out;

	(void)state;
	assert_int_equal(stree_init(&t), 0);
	add(&t, "main;work;leaf", 2, 2);
	add(&t, "main;other", 2, 2);
	add(&t, "main;work;leaf", 1, 1);
	add(&t, "main", 1, 1);
	add(&t, "_start;main", 4, 4);	/* another root: its own line */
	out = folded_of(&t);
	assert_string_equal(out, "_start;main 4\nmain 1\nmain;other 2\nmain;work;leaf 3\n");
	/* Totals: the root holds everything, main (the root frame) its subtree. */
	assert_int_equal(t.nodes[0].total.value, 10);
	assert_int_equal(t.max_depth, 3);
	free(out);
	stree_free(&t);
}

static void value_differs_from_samples_and_zero_values_are_left_out(void **state)
{
	struct stree t;
	char *out;

	(void)state;
	assert_int_equal(stree_init(&t), 0);
	add(&t, "main;a", 5000, 1);
	add(&t, "main;b", 0, 7);	/* windows that counted no event */
	out = folded_of(&t);
	assert_string_equal(out, "main;a 5000\n");
	assert_int_equal(t.nodes[0].total.samples, 8);
	free(out);
	stree_free(&t);
}

static void separators_in_names_are_replaced_and_empty_names_named(void **state)
{
	struct stree t;
	const char *names[3] = { "main", "operator;weird\nname", "" };
	struct stree_sums v = { .value = 1, .samples = 1 };
	char *out;

	(void)state;
	assert_int_equal(stree_init(&t), 0);
	assert_int_equal(stree_add(&t, names, NULL, 3, &v), 0);
	out = folded_of(&t);
	assert_string_equal(out, "main;operator:weird name;[unknown] 1\n");
	free(out);
	stree_free(&t);
}

static void deep_stack_is_one_line(void **state)
{
	enum { DEPTH = 5000 };
	const char **names = malloc(DEPTH * sizeof(*names));
	struct stree_sums v = { .value = 3, .samples = 3 };
	struct stree t;
	char *out, *p;
	uint32_t i, semis = 0;

	(void)state;
	for (i = 0; i < DEPTH; i++)
		names[i] = (i & 1) ? "recurse" : "again";
	assert_int_equal(stree_init(&t), 0);
	assert_int_equal(stree_add(&t, names, NULL, DEPTH, &v), 0);
	out = folded_of(&t);
	for (p = out; *p; p++)
		semis += *p == ';';
	assert_int_equal(semis, DEPTH - 1);
	assert_string_equal(out + strlen(out) - 10, "recurse 3\n");
	assert_non_null(strchr(out, '\n'));
	assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);
	free(out);
	free(names);
	stree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stacks_merge_by_name_and_print_in_name_order),
		cmocka_unit_test(value_differs_from_samples_and_zero_values_are_left_out),
		cmocka_unit_test(separators_in_names_are_replaced_and_empty_names_named),
		cmocka_unit_test(deep_stack_is_one_line),
	};

	return cmocka_run_group_tests_name("folded", tests, NULL, NULL);
}
