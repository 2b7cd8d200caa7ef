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
	int64_t *syms = NULL;
	uint32_t i, e;
	int err = 0;

	if (!same_events(t, p))
		return -EBADMSG;
	iv->start_ns = start_ns;
	iv->lost += dropped;
	t->total_lost += dropped;
	if (p->nr_locations && !(syms = malloc(p->nr_locations * sizeof(*syms))))
		return -ENOMEM;
	for (i = 0; i < p->nr_locations; i++)
		syms[i] = -1;
	for (i = 0; !err && i < p->nr_samples; i++) {
		const struct pprof_rd_sample *s = &p->samples[i];
		const int64_t *v = &p->values[s->val0];
		const char *comm = pprof_sample_label(p, i, "comm");
		struct trace_sample smp = { .pid = label_id(p, i, "pid"),
					    .tid = label_id(p, i, "tid"),
					    .nr = t->h.nr_events };
		int64_t sym, c;

		if (v[0] <= 0)
			continue;
		for (e = 0; e < t->h.nr_events; e++)
			smp.counts[e] = v[e + 1] > 0 ? (uint64_t)v[e + 1] : 0;
		if (!s->nr_locs) {
			sym = symbolizer_unknown(t->s.sy, -1);
		} else {
			uint32_t l = p->locs_of[s->loc0];

			if (syms[l] < 0)
				syms[l] = location_sym(t, p, l);
			sym = syms[l];
		}
		c = strtab_intern(&t->s.comms, comm ? comm : "");
		if (sym < 0 || c < 0)
			err = -ENOMEM;
		else
			err = top_live_store(t, &smp, (uint32_t)sym, (uint32_t)c,
					     v[0] > UINT32_MAX ? UINT32_MAX : (uint32_t)v[0]);
		iv->seen += (uint64_t)v[0];
		t->total_seen += (uint64_t)v[0];
	}
	free(syms);
	return err;
}
