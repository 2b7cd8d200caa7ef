// SPDX-License-Identifier: GPL-2.0
/*
 * Offline unwinding of recorded user stacks (see unwind.h).  First version:
 * the chain is the sampled ip alone, reported as truncated.
 */
#include "unwind.h"

#include <errno.h>
#include <stdlib.h>

#include "maps.h"
#include "symbols.h"

struct unwinder {
	struct symbolizer *sy;
	struct maps *maps;
	struct unwind_stats stats;
};

int unwinder_new(struct unwinder **out, struct symbolizer *sy, struct maps *maps)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return -ENOMEM;
	u->sy = sy;
	u->maps = maps;
	*out = u;
	return 0;
}

void unwinder_free(struct unwinder *u)
{
	free(u);
}

int unwind_user(struct unwinder *u, uint32_t pid, uint64_t ip, const struct trace_ustack *us,
		uint64_t *ips, uint32_t max, bool *complete)
{
	(void)pid;
	(void)us;
	u->stats.samples++;
	u->stats.truncated++;
	*complete = false;
	if (!max)
		return -EINVAL;
	ips[0] = ip;
	return 1;
}

uint64_t unwind_leaf_caller(struct unwinder *u, uint32_t pid, uint64_t ip,
			    const struct trace_ustack *us, uint64_t fp_first)
{
	(void)u;
	(void)pid;
	(void)ip;
	(void)us;
	(void)fp_first;
	return 0;
}

const struct unwind_stats *unwinder_stats(const struct unwinder *u)
{
	return &u->stats;
}
