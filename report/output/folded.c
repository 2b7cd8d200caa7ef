// SPDX-License-Identifier: GPL-2.0
/*
 * Stack tree and folded-stack output (see folded.h).  Walks are iterative:
 * a damaged or recursive stack may be a thousand frames deep.
 */
#include "output/folded.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int stree_init(struct stree *t)
{
	memset(t, 0, sizeof(*t));
	if (strtab_init(&t->names))
		return -ENOMEM;
	if (hm_init(&t->kids, 1024) || strtab_intern(&t->names, "all") != 0) {
		stree_free(t);
		return -ENOMEM;
	}
	t->nodes = calloc(64, sizeof(*t->nodes));
	if (!t->nodes) {
		stree_free(t);
		return -ENOMEM;
	}
	t->cap = 64;
	t->nr = 1;
	t->nodes[0] = (struct stree_node){ .name = 0, .parent = STREE_NONE,
					   .child = STREE_NONE, .next = STREE_NONE };
	return 0;
}

void stree_free(struct stree *t)
{
	free(t->nodes);
	strtab_free(&t->names);
	hm_free(&t->kids);
	memset(t, 0, sizeof(*t));
}

static void sums_add(struct stree_sums *a, const struct stree_sums *b)
{
	uint32_t k;

	a->value += b->value;
	a->samples += b->samples;
	for (k = 0; k < STREE_AUX; k++)
		a->aux[k] += b->aux[k];
}

static int64_t child_of(struct stree *t, uint32_t parent, const char *name, uint32_t tag)
{
	int64_t nm = strtab_intern(&t->names, name && *name ? name : "[unknown]");
	uint64_t key;
	uint32_t i;
	struct stree_node *c;

	if (nm < 0)
		return nm;
	key = (uint64_t)parent << 32 | (uint64_t)nm;
	i = hm_get(&t->kids, key, 0);
	if (i != HM_EMPTY)
		return i;
	if (t->nr == t->cap) {
		struct stree_node *nn;

		if (t->cap >= UINT32_MAX / 4)
			return -EOVERFLOW;
		nn = realloc(t->nodes, (size_t)t->cap * 2 * sizeof(*nn));
		if (!nn)
			return -ENOMEM;
		t->nodes = nn;
		t->cap *= 2;
	}
	i = t->nr;
	c = &t->nodes[i];
	memset(c, 0, sizeof(*c));
	c->name = (uint32_t)nm;
	c->parent = parent;
	c->child = STREE_NONE;
	c->next = t->nodes[parent].child;
	c->depth = t->nodes[parent].depth + 1;
	c->tag = tag;
	if (hm_put(&t->kids, key, 0, i))
		return -ENOMEM;
	t->nodes[parent].child = i;
	t->nr++;
	if (c->depth > t->max_depth)
		t->max_depth = c->depth;
	return i;
}

int stree_add(struct stree *t, const char *const *names, const uint32_t *tags, uint32_t n,
	      const struct stree_sums *v)
{
	uint32_t node = 0, i;

	sums_add(&t->nodes[0].total, v);
	for (i = 0; i < n; i++) {
		int64_t c = child_of(t, node, names[i], tags ? tags[i] : 0);

		if (c < 0)
			return (int)c;
		node = (uint32_t)c;
		sums_add(&t->nodes[node].total, v);
	}
	sums_add(&t->nodes[node].self, v);
	return 0;
}

static const struct stree *sort_tree;

static int by_name(const void *a, const void *b)
{
	return strcmp(stree_name(sort_tree, *(const uint32_t *)a),
		      stree_name(sort_tree, *(const uint32_t *)b));
}

int stree_sort(struct stree *t)
{
	uint32_t *kids = NULL, cap = 0, i;

	sort_tree = t;
	for (i = 0; i < t->nr; i++) {
		uint32_t n = 0, c, k;

		for (c = t->nodes[i].child; c != STREE_NONE; c = t->nodes[c].next) {
			if (n == cap) {
				uint32_t *nk = realloc(kids, (cap ? cap * 2 : 64) * sizeof(*nk));

				if (!nk) {
					free(kids);
					return -ENOMEM;
				}
				kids = nk;
				cap = cap ? cap * 2 : 64;
			}
			kids[n++] = c;
		}
		if (n < 2)
			continue;
		qsort(kids, n, sizeof(*kids), by_name);
		t->nodes[i].child = kids[0];
		for (k = 0; k + 1 < n; k++)
			t->nodes[kids[k]].next = kids[k + 1];
		t->nodes[kids[n - 1]].next = STREE_NONE;
	}
	free(kids);
	return 0;
}

void folded_frame_name(char *buf, size_t size, const char *name)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < size; i++) {
		char c = name[i];

		/* ';' separates frames; a line break would end the line. */
		buf[i] = c == ';' ? ':' : (c == '\n' || c == '\r') ? ' ' : c;
	}
	if (size)
		buf[i] = '\0';
}

int folded_write(FILE *f, const struct stree *t)
{
	uint32_t *path, node;
	char name[1024];

	path = malloc(((size_t)t->max_depth + 1) * sizeof(*path));
	if (!path)
		return -ENOMEM;
	/* Pre-order walk: down to the first child, else to the next sibling up the path. */
	node = t->nodes[0].child;
	while (node != STREE_NONE) {
		const struct stree_node *nd = &t->nodes[node];

		path[nd->depth] = node;
		if (nd->self.value) {
			uint32_t d;

			for (d = 1; d <= nd->depth; d++) {
				folded_frame_name(name, sizeof(name), stree_name(t, path[d]));
				if (d > 1)
					fputc(';', f);
				fputs(name, f);
			}
			fprintf(f, " %" PRIu64 "\n", nd->self.value);
		}
		if (nd->child != STREE_NONE) {
			node = nd->child;
			continue;
		}
		while (node != STREE_NONE && t->nodes[node].next == STREE_NONE)
			node = t->nodes[node].parent ? t->nodes[node].parent : STREE_NONE;
		if (node != STREE_NONE)
			node = t->nodes[node].next;
	}
	free(path);
	return ferror(f) ? -EIO : 0;
}
