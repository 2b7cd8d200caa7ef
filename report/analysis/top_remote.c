// SPDX-License-Identifier: GPL-2.0
/*
 * A daemon's profile into top's window (top_remote.h): functions and DSOs
 * become the session symbolizer's named symbols (symbolizer_named()),
 * commands its comm table's strings; each location is resolved once per
 * profile.
 */
#include "analysis/top_remote.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stacks/callstack.h"
#include "util.h"

void top_remote_open(struct top_live *t)
{
	t->remote = true;
}

/* The symbol of location l: its physical function in its mapping's DSO. */
static int64_t location_sym(struct top_live *t, const struct pprof_profile *p, uint32_t l)
{
	const struct pprof_rd_location *loc = &p->locations[l];
	const char *dso = loc->mapping == PPROF_NONE ? "" :
			  pprof_str(p, p->mappings[loc->mapping].filename);
	int64_t d = symbolizer_dso(t->s.sy, *dso ? dso : "[unknown]", NULL, 0);
	const struct pprof_rd_function *f;

	if (d < 0)
		return d;
	if (!loc->nr_lines)
		return symbolizer_unknown(t->s.sy, d);
	/* system_name is the symbolizer's own name (name may be decorated: "f_[k]") */
	f = &p->functions[p->lines[loc->line0 + loc->nr_lines - 1].function];
	return symbolizer_named(t->s.sy, (uint32_t)d, *pprof_str(p, f->system_name) ?
				pprof_str(p, f->system_name) : pprof_str(p, f->name));
}

/*
 * The source line of location l as a string id ("shares.c:38": the
 * innermost of its lines, as annotate's line rows are), or TOP_NO_LINE.
 */
static int64_t location_line(struct top_live *t, const struct pprof_profile *p, uint32_t l)
{
	const struct pprof_rd_location *loc = &p->locations[l];
	const struct pprof_rd_line *ln;
	const char *file, *base;
	char buf[300];

	if (!loc->nr_lines || p->lines[loc->line0].line <= 0)
		return TOP_NO_LINE;
	ln = &p->lines[loc->line0];
	file = pprof_str(p, p->functions[ln->function].filename);
	base = strrchr(file, '/');
	snprintf(buf, sizeof(buf), "%.240s:%lld", base ? base + 1 : *file ? file : "??",
		 (long long)ln->line);
	return strtab_intern(&t->s.comms, buf);
}

/* The events of p are the ones t counts, in its order. */
static bool same_events(const struct top_live *t, const struct pprof_profile *p)
{
	uint32_t e;

	if (p->nr_types != t->h.nr_events + 1)
		return false;
	for (e = 0; e < t->h.nr_events; e++)
		if (strcmp(pprof_str(p, p->types[e + 1][0]), t->h.events[e].name))
			return false;
	return true;
}

/*
 * Sample i's stack as the session's callstacks intern it (its locations'
 * physical functions, leaf first): its id, CS_NONE without stacks, -errno.
 */
static int64_t sample_stack(struct top_live *t, const struct pprof_profile *p, uint32_t i,
			    const int64_t *syms, struct cs_frame **buf, uint32_t *cap)
{
	const struct pprof_rd_sample *s = &p->samples[i];
	uint32_t k;

	if (!t->s.cs || !s->nr_locs)
		return CS_NONE;
	if (s->nr_locs > *cap) {
		struct cs_frame *nb = realloc(*buf, s->nr_locs * sizeof(*nb));

		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap = s->nr_locs;
	}
	for (k = 0; k < s->nr_locs; k++) {
		uint32_t l = p->locs_of[s->loc0 + k];

		(*buf)[k] = (struct cs_frame){ p->locations[l].address, (uint32_t)syms[l], 0 };
	}
	return callstacks_intern(t->s.cs, *buf, s->nr_locs);
}

static uint32_t label_id(const struct pprof_profile *p, uint32_t i, const char *key)
{
	const char *v = pprof_sample_label(p, i, key);

	/* as the writer prints them: "%d", -1 for a task the kernel no longer names */
	return v ? (uint32_t)strtol(v, NULL, 10) : 0;
}

int top_remote_add(struct top_live *t, const struct pprof_profile *p, uint64_t start_ns,
		   uint64_t dropped)
{
	struct top_interval *iv = &t->iv[t->cur];
	struct cs_frame *frames = NULL;
	int64_t *syms = NULL, *lines = NULL;
	uint32_t i, e, cap = 0;
	int err = 0;

	if (!same_events(t, p))
		return -EBADMSG;
	iv->start_ns = start_ns;
	iv->lost += dropped;
	t->total_lost += dropped;
	if (p->nr_locations && (!(syms = malloc(p->nr_locations * sizeof(*syms))) ||
				!(lines = malloc(p->nr_locations * sizeof(*lines))))) {
		free(syms);
		return -ENOMEM;
	}
	/* every location's function first: stacks name them all */
	for (i = 0; !err && i < p->nr_locations; i++)
		if ((syms[i] = location_sym(t, p, i)) < 0 || (lines[i] = location_line(t, p, i)) < 0)
			err = -ENOMEM;
	for (i = 0; !err && i < p->nr_samples; i++) {
		const struct pprof_rd_sample *s = &p->samples[i];
		const int64_t *v = &p->values[s->val0];
		const char *comm = pprof_sample_label(p, i, "comm");
		struct trace_sample smp = { .pid = label_id(p, i, "pid"),
					    .tid = label_id(p, i, "tid"),
					    .nr = t->h.nr_events };
		int64_t sym, c, st;

		if (v[0] <= 0)
			continue;
		for (e = 0; e < t->h.nr_events; e++)
			smp.counts[e] = v[e + 1] > 0 ? (uint64_t)v[e + 1] : 0;
		if (!s->nr_locs) {
			sym = symbolizer_unknown(t->s.sy, -1);
		} else {
			sym = syms[p->locs_of[s->loc0]];
		}
		c = strtab_intern(&t->s.comms, comm ? comm : "");
		st = sample_stack(t, p, i, syms, &frames, &cap);
		if (sym < 0 || c < 0 || st < 0)
			err = -ENOMEM;
		else
			err = top_live_store(t, &smp, (uint32_t)sym, (uint32_t)c,
					     v[0] > UINT32_MAX ? UINT32_MAX : (uint32_t)v[0],
					     (uint32_t)st);
		if (!err && s->nr_locs)
			iv->v[iv->n - 1].line = (uint32_t)lines[p->locs_of[s->loc0]];
		iv->seen += (uint64_t)v[0];
		t->total_seen += (uint64_t)v[0];
	}
	free(syms);
	free(lines);
	free(frames);
	return err;
}
