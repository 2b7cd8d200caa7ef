/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stack tree behind folded stacks and flame graphs: stacks merged by
 * frame name from the root down (as a flame graph draws them), each node
 * with its inclusive (total) and exclusive (self) sums of the value shown
 * (samples or an event), of samples, and of two auxiliary counters a flame
 * graph colours by (e.g. instructions and cycles for IPC).
 *
 * Folded output is Brendan Gregg's format, one line per distinct stack:
 * "root;caller;leaf VALUE", the stack's self value, children in name order.
 */
#ifndef PMIPROF_REPORT_FOLDED_H
#define PMIPROF_REPORT_FOLDED_H

#include <stdint.h>
#include <stdio.h>

#include "hashmap.h"
#include "strtab.h"

#define STREE_NONE UINT32_MAX
#define STREE_AUX 2

struct stree_sums {
	uint64_t value;			/* what widths show: samples or an event's sum */
	uint64_t samples;
	uint64_t aux[STREE_AUX];
};

struct stree_node {
	uint32_t name;			/* in stree.names */
	uint32_t parent, child, next;	/* node indexes; STREE_NONE = none */
	uint32_t depth;			/* root 0 */
	uint32_t tag;			/* the caller's per-frame tag (e.g. a DSO id) */
	struct stree_sums total, self;
};

struct stree {
	struct stree_node *nodes;	/* nodes[0] is the root ("all") */
	uint32_t nr, cap;
	uint32_t max_depth;
	struct strtab names;
	struct hashmap kids;		/* (parent, name) -> node */
};

int stree_init(struct stree *t);
void stree_free(struct stree *t);
/*
 * Adds one stack, root first: names[0] is the outermost frame, names[n-1]
 * the leaf; tags[i] (may be NULL) is kept with a frame's node when it is
 * created.  The sums go to every node on the path (total) and to the leaf
 * (self).  0 or -errno.
 */
int stree_add(struct stree *t, const char *const *names, const uint32_t *tags, uint32_t n,
	      const struct stree_sums *v);
/* Orders each node's children by name (flamegraph.pl's order). */
int stree_sort(struct stree *t);
static inline const char *stree_name(const struct stree *t, uint32_t node)
{
	return strtab_str(&t->names, t->nodes[node].name);
}

/* The folded lines of a sorted tree, nodes with a non-zero self value. */
int folded_write(FILE *f, const struct stree *t);
/* A frame name as a folded line can carry it: ';' and line breaks replaced. */
void folded_frame_name(char *buf, size_t size, const char *name);

#endif /* PMIPROF_REPORT_FOLDED_H */
