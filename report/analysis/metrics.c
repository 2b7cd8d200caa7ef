// SPDX-License-Identifier: GPL-2.0
/* Event roles and derived metrics by event name (see metrics.h). */
#include "analysis/metrics.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "topdown.h"

const char *event_base_name(const char *name, char *buf, size_t size)
{
	size_t i, o = 0;
	const char *slash = strchr(name, '/');

	/* "cpu/instructions/u" style: the part between the slashes. */
	if (slash && strchr(slash + 1, '/'))
		name = slash + 1;
	for (i = 0; name[i] && name[i] != ':' && name[i] != '/' && o + 1 < size; i++)
		buf[o++] = (char)tolower((unsigned char)name[i]);
	buf[o] = 0;
	return buf;
}

static bool is_one_of(const char *n, const char *const *names)
{
	for (; *names; names++)
		if (!strcmp(n, *names))
			return true;
	return false;
}

static const char *const ins_names[] = {
	"instructions", "inst_retired.any", "inst_retired.any_p", "inst_retired",
	"instructions_retired", "ex_ret_instr", NULL
};
static const char *const cyc_names[] = {
	"cycles", "cpu-cycles", "cpu_clk_unhalted.thread", "cpu_clk_unhalted.core",
	"cpu_clk_unhalted.thread_p", "cpu_clk_unhalted", "ls_not_halted_cyc", NULL
};
static const char *const br_names[] = {
	"branches", "branch-instructions", "br_inst_retired.all_branches",
	"ex_ret_brn", NULL
};
static const char *const brm_names[] = {
	"branch-misses", "br_misp_retired.all_branches", "ex_ret_brn_misp", NULL
};
static const char *const clock_names[] = { "task-clock", "cpu-clock", NULL };

void event_roles_find(const struct trace_header *h, struct event_roles *r)
{
	uint32_t i;

	r->instructions = r->cycles = r->branches = r->branch_misses = r->clock = -1;
	for (i = 0; i < h->nr_events && i < PMIPROF_MAX_EVENTS; i++) {
		char b[128];
		const char *n = event_base_name(h->events[i].name, b, sizeof(b));

		if (r->instructions < 0 && is_one_of(n, ins_names))
			r->instructions = (int)i;
		else if (r->cycles < 0 && is_one_of(n, cyc_names))
			r->cycles = (int)i;
		else if (r->branches < 0 && is_one_of(n, br_names))
			r->branches = (int)i;
		else if (r->branch_misses < 0 && is_one_of(n, brm_names))
			r->branch_misses = (int)i;
		/* task-clock counts only while the task runs: prefer it. */
		else if (is_one_of(n, clock_names) && (r->clock < 0 || !strcmp(n, "task-clock")))
			r->clock = (int)i;
	}
}

static bool is_miss_event(const char *name)
{
	char b[128];

	return strstr(event_base_name(name, b, sizeof(b)), "miss") != NULL;
}

bool metric_topdown_value(const struct metric *m, const uint64_t *c, double *v)
{
	uint64_t tc[TD_MAX_EVENTS] = { 0 };
	double f[TD_NR_PARTS];
	unsigned int k;

	for (k = 0; k < m->td_model->nr; k++)
		tc[k] = c[m->td_ev[k]];
	if (!td_fractions(m->td_model, tc, f))
		return false;
	*v = f[m->td_part] * 100.0;
	return true;
}

/* The level-1 percentages when the header holds a topdown row's events. */
static void metrics_topdown(const struct trace_header *h, struct metric_set *out)
{
	const char *names[PMIPROF_MAX_EVENTS];
	int idx[TD_MAX_EVENTS];
	const struct td_model *td;
	uint32_t i, n = h->nr_events < PMIPROF_MAX_EVENTS ? h->nr_events : PMIPROF_MAX_EVENTS;
	int p;

	for (i = 0; i < n; i++)
		names[i] = h->events[i].name;
	td = td_match(names, n, idx);
	if (!td)
		return;
	for (p = 0; p < TD_NR_PARTS; p++) {
		struct metric *m;

		if (!td_formula_has(td->formula, (enum td_part)p))
			continue;
		m = &out->m[out->n++];
		memset(m, 0, sizeof(*m));
		snprintf(m->name, sizeof(m->name), "%s", td_part_name((enum td_part)p));
		m->kind = METRIC_TOPDOWN;
		m->a = idx[0];
		m->b = -1;
		m->td_model = td;
		m->td_part = p;
		memcpy(m->td_ev, idx, sizeof(m->td_ev));
	}
}

void metrics_derived(const struct trace_header *h, struct metric_set *out)
{
	struct event_roles r;
	uint32_t i;

	out->n = 0;
	event_roles_find(h, &r);
	if (r.instructions >= 0 && r.cycles >= 0)
		out->m[out->n++] = (struct metric){ "ipc", METRIC_RATIO, r.instructions, r.cycles };
	if (r.instructions >= 0) {
		for (i = 0; i < h->nr_events && i < PMIPROF_MAX_EVENTS; i++) {
			struct metric *m;

			if (!is_miss_event(h->events[i].name))
				continue;
			m = &out->m[out->n++];
			snprintf(m->name, sizeof(m->name), "%s-mpki", h->events[i].name);
			m->kind = METRIC_PER_KILO;
			m->a = (int)i;
			m->b = r.instructions;
		}
	}
	if (r.branches >= 0 && r.branch_misses >= 0)
		out->m[out->n++] = (struct metric){ "branch-miss-pct", METRIC_PERCENT,
						    r.branch_misses, r.branches };
	metrics_topdown(h, out);
}

static int find_event(const struct trace_header *h, const char *name, size_t len)
{
	uint32_t i;

	for (i = 0; i < h->nr_events && i < PMIPROF_MAX_EVENTS; i++)
		if (strlen(h->events[i].name) == len && !strncmp(h->events[i].name, name, len))
			return (int)i;
	return -1;
}

int metric_parse(const struct trace_header *h, const char *name, struct metric *m,
		 const char **why)
{
	struct metric_set d;
	struct event_roles r;
	size_t len = strlen(name);
	uint32_t i;
	int e;

	*why = NULL;
	metrics_derived(h, &d);
	for (i = 0; i < d.n; i++)
		if (!strcmp(d.m[i].name, name)) {
			*m = d.m[i];
			return 0;
		}
	event_roles_find(h, &r);
	if (!strcmp(name, "ipc")) {
		*why = "ipc needs the instructions and cycles events";
		return -EINVAL;
	}
	e = find_event(h, name, len);
	if (e >= 0) {
		*m = (struct metric){ "", METRIC_EVENT, e, -1 };
		snprintf(m->name, sizeof(m->name), "%s", name);
		return 0;
	}
	if (len > 5 && !strcmp(name + len - 5, "-rate")) {
		e = find_event(h, name, len - 5);
		if (e < 0)
			return -ENOENT;
		snprintf(m->name, sizeof(m->name), "%s", name);
		m->a = e;
		if (r.instructions >= 0 && r.instructions != e) {
			m->kind = METRIC_PER_KILO;
			m->b = r.instructions;
		} else if (r.clock >= 0 && r.clock != e) {
			m->kind = METRIC_PER_SECOND;
			m->b = r.clock;
		} else {
			*why = "a rate needs the instructions event, or task-clock/cpu-clock";
			return -EINVAL;
		}
		return 0;
	}
	return -ENOENT;
}
