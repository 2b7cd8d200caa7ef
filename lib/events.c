// SPDX-License-Identifier: GPL-2.0
/*
 * Event name parsing (see events.h): perf's generic names from a small table
 * (they are kernel ABI, not microarchitecture data), everything else through
 * libpfm4, which knows every microarchitecture's event list.  Also the
 * "did you mean" suggestions over both name spaces.
 */
#include "events.h"

#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <dlfcn.h>
#include <perfmon/pfmlib.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#define CACHE(id, op, res) \
	(PERF_COUNT_HW_CACHE_##id | (PERF_COUNT_HW_CACHE_OP_##op << 8) | \
	 (PERF_COUNT_HW_CACHE_RESULT_##res << 16))

static const struct pm_generic_event generic_events[] = {
	{ "cycles", "cpu-cycles", "hardware", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
	  "core clock cycles" },
	{ "instructions", NULL, "hardware", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
	  "retired instructions" },
	{ "cache-references", NULL, "hardware", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES, "last-level cache accesses" },
	{ "cache-misses", NULL, "hardware", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,
	  "last-level cache misses" },
	{ "branches", "branch-instructions", "hardware", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "retired branch instructions" },
	{ "branch-misses", NULL, "hardware", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES,
	  "mispredicted branches" },
	{ "bus-cycles", NULL, "hardware", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES,
	  "bus cycles" },
	{ "stalled-cycles-frontend", "idle-cycles-frontend", "hardware", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "cycles stalled in the front end" },
	{ "stalled-cycles-backend", "idle-cycles-backend", "hardware", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "cycles stalled in the back end" },
	{ "ref-cycles", NULL, "hardware", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES,
	  "reference (TSC-rate) cycles" },

	{ "L1-dcache-loads", NULL, "cache", PERF_TYPE_HW_CACHE, CACHE(L1D, READ, ACCESS),
	  "L1 data cache loads" },
	{ "L1-dcache-load-misses", NULL, "cache", PERF_TYPE_HW_CACHE, CACHE(L1D, READ, MISS),
	  "L1 data cache load misses" },
	{ "L1-dcache-stores", NULL, "cache", PERF_TYPE_HW_CACHE, CACHE(L1D, WRITE, ACCESS),
	  "L1 data cache stores" },
	{ "L1-icache-load-misses", NULL, "cache", PERF_TYPE_HW_CACHE, CACHE(L1I, READ, MISS),
	  "L1 instruction cache misses" },
	{ "LLC-loads", NULL, "cache", PERF_TYPE_HW_CACHE, CACHE(LL, READ, ACCESS),
	  "last-level cache loads" },
	{ "LLC-load-misses", NULL, "cache", PERF_TYPE_HW_CACHE, CACHE(LL, READ, MISS),
	  "last-level cache load misses" },
	{ "LLC-stores", NULL, "cache", PERF_TYPE_HW_CACHE, CACHE(LL, WRITE, ACCESS),
	  "last-level cache stores" },
	{ "LLC-store-misses", NULL, "cache", PERF_TYPE_HW_CACHE, CACHE(LL, WRITE, MISS),
	  "last-level cache store misses" },
	{ "dTLB-loads", NULL, "cache", PERF_TYPE_HW_CACHE, CACHE(DTLB, READ, ACCESS),
	  "data TLB loads" },
	{ "dTLB-load-misses", NULL, "cache", PERF_TYPE_HW_CACHE, CACHE(DTLB, READ, MISS),
	  "data TLB load misses" },
	{ "iTLB-load-misses", NULL, "cache", PERF_TYPE_HW_CACHE, CACHE(ITLB, READ, MISS),
	  "instruction TLB misses" },
	{ "branch-loads", NULL, "cache", PERF_TYPE_HW_CACHE, CACHE(BPU, READ, ACCESS),
	  "branch predictor lookups" },
	{ "branch-load-misses", NULL, "cache", PERF_TYPE_HW_CACHE, CACHE(BPU, READ, MISS),
	  "branch predictor misses" },

	{ "cpu-clock", NULL, "software", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
	  "CPU time, ns (high-resolution timer)" },
	{ "task-clock", NULL, "software", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
	  "task running time, ns" },
	{ "page-faults", "faults", "software", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
	  "page faults" },
	{ "minor-faults", NULL, "software", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN,
	  "minor page faults" },
	{ "major-faults", NULL, "software", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ,
	  "major page faults (I/O)" },
	{ "context-switches", "cs", "software", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES, "context switches" },
	{ "cpu-migrations", "migrations", "software", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CPU_MIGRATIONS, "migrations to another CPU" },
	{ "alignment-faults", NULL, "software", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_ALIGNMENT_FAULTS, "alignment faults" },
	{ "emulation-faults", NULL, "software", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_EMULATION_FAULTS, "emulated instructions" },
	{ "dummy", NULL, "software", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY,
	  "counts nothing (side-band only)" },
};

size_t pm_generic_events_count(void)
{
	return ARRAY_SIZE(generic_events);
}

const struct pm_generic_event *pm_generic_event_at(size_t i)
{
	return i < ARRAY_SIZE(generic_events) ? &generic_events[i] : NULL;
}

static int pfm_state;			/* 0 not tried, 1 ok, -errno failed */
struct pm_pfm_api pm_pfm;

/* The soname of Debian's libpfm4 (the ABI pfmlib.h describes). */
#define PFM_SONAME "libpfm.so.4"

static int pfm_load(void)
{
	void *h = dlopen(PFM_SONAME, RTLD_NOW | RTLD_LOCAL);
	pfm_err_t (*init)(void);

	if (!h)
		return -ENOSYS;
	*(void **)&init = dlsym(h, "pfm_initialize");
	*(void **)&pm_pfm.get_pmu_info = dlsym(h, "pfm_get_pmu_info");
	*(void **)&pm_pfm.get_event_next = dlsym(h, "pfm_get_event_next");
	*(void **)&pm_pfm.get_event_info = dlsym(h, "pfm_get_event_info");
	*(void **)&pm_pfm.get_os_event_encoding = dlsym(h, "pfm_get_os_event_encoding");
	if (!init || !pm_pfm.get_pmu_info || !pm_pfm.get_event_next || !pm_pfm.get_event_info ||
	    !pm_pfm.get_os_event_encoding || init() != PFM_SUCCESS) {
		memset(&pm_pfm, 0, sizeof(pm_pfm));
		dlclose(h);
		return -ENOSYS;
	}
	return 1;	/* the handle stays open for the process's life */
}

int pm_pfm_init(void)
{
	if (!pfm_state)
		pfm_state = pfm_load();
	return pfm_state < 0 ? pfm_state : 0;
}

int pm_pfm_for_each_event(pm_pfm_event_fn fn, void *arg)
{
	pfm_pmu_t pmu;
	int ret = pm_pfm_init();

	if (ret)
		return ret;
	for (pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX; pmu++) {
		pfm_pmu_info_t pinfo;
		int i;

		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pm_pfm.get_pmu_info(pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
			continue;
		/* libpfm4's "perf"/"perf_raw" pseudo-PMUs repeat the generic table */
		if (!strcmp(pinfo.name, "perf") || !strcmp(pinfo.name, "perf_raw"))
			continue;
		for (i = pinfo.first_event; i != -1; i = pm_pfm.get_event_next(i)) {
			pfm_event_info_t info;

			memset(&info, 0, sizeof(info));
			info.size = sizeof(info);
			if (pm_pfm.get_event_info(i, PFM_OS_NONE, &info) != PFM_SUCCESS)
				continue;
			fn(arg, pinfo.name, info.name, info.desc);
		}
	}
	return 0;
}

/* ---- suggestions ---- */

#define MAX_SUGGEST 3

struct suggest_state {
	const char *name;
	const char *best[MAX_SUGGEST];
	unsigned int dist[MAX_SUGGEST];
	unsigned int nr;
	char pool[MAX_SUGGEST][160];	/* pfm names are built, keep copies */
};

static void suggest_consider(struct suggest_state *st, const char *cand, bool copy)
{
	unsigned int d = pm_edit_distance(st->name, cand), i, j;

	/* Case-insensitive match counts as almost exact (pfm names are upper case). */
	if (!strcasecmp(st->name, cand))
		d = 0;
	/* a real similarity: at most a third of the typed name's letters differ */
	if (d > strlen(st->name) / 3)
		return;
	for (i = 0; i < st->nr; i++)
		if (!strcmp(st->best[i], cand))
			return;
	for (i = 0; i < st->nr && st->dist[i] <= d; i++)
		;
	if (i >= MAX_SUGGEST)
		return;
	if (st->nr < MAX_SUGGEST)
		st->nr++;
	for (j = st->nr - 1; j > i; j--) {
		st->best[j] = st->best[j - 1];
		st->dist[j] = st->dist[j - 1];
		memcpy(st->pool[j], st->pool[j - 1], sizeof(st->pool[j]));
		if (st->best[j] == st->pool[j - 1])
			st->best[j] = st->pool[j];
	}
	st->dist[i] = d;
	if (copy) {
		pm_strlcpy(st->pool[i], cand, sizeof(st->pool[i]));
		st->best[i] = st->pool[i];
	} else {
		st->best[i] = cand;
	}
}

static void suggest_pfm(void *arg, const char *pmu, const char *name, const char *desc)
{
	(void)pmu;
	(void)desc;
	suggest_consider(arg, name, true);
}

static struct suggest_state last_suggest;	/* backs the returned pointers */

unsigned int pm_events_suggest(const char *name, const char **out, unsigned int max)
{
	struct suggest_state *st = &last_suggest;
	unsigned int i;
	size_t k;

	memset(st, 0, sizeof(*st));
	st->name = name;
	for (k = 0; k < ARRAY_SIZE(generic_events); k++) {
		suggest_consider(st, generic_events[k].name, false);
		if (generic_events[k].alias)
			suggest_consider(st, generic_events[k].alias, false);
	}
	pm_pfm_for_each_event(suggest_pfm, st);
	for (i = 0; i < st->nr && i < max; i++)
		out[i] = st->best[i];
	return i;
}

/* ---- parsing ---- */

/*
 * perf's tracepoint syntax SYS:NAME (sched:sched_switch): the id from tracefs
 * (PMIPROF_TRACEFS, else /sys/kernel/tracing, else /sys/kernel/debug/tracing).
 * 1 when spec is not of that form, 0 found, -ENOENT with err set.
 */
static int parse_tracepoint(const char *spec, struct pm_event *ev, char *err, size_t err_len)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
	const char *dirs[3] = { getenv("PMIPROF_TRACEFS"), "/sys/kernel/tracing",
				"/sys/kernel/debug/tracing" };
	const char *colon = strchr(spec, ':');
	size_t ns = colon ? (size_t)(colon - spec) : 0;
	unsigned long long id;
	char path[512];
	unsigned int i;
	FILE *f;

	if (!ns || strspn(spec, ok) != ns || !colon[1] ||
	    strspn(colon + 1, ok) != strlen(colon + 1))
		return 1;
	for (i = 0; i < 3; i++) {
		if (!dirs[i])
			continue;
		snprintf(path, sizeof(path), "%s/events/%.*s/%s/id", dirs[i], (int)ns, spec,
			 colon + 1);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &id) != 1) {
			fclose(f);
			continue;
		}
		fclose(f);
		ev->type = PERF_TYPE_TRACEPOINT;
		ev->config = id;
		ev->software = true;	/* no PMU needed */
		return 0;
	}
	/* SYS unknown too: not a tracepoint (INST_RETIRD:ANY_P gets suggestions) */
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/events/%.*s", dirs[i] ? dirs[i] : "/nonexistent",
			 (int)ns, spec);
		if (!access(path, F_OK))
			break;
	}
	if (i == 3)
		return 1;
	snprintf(path, sizeof(path), "%s/events", dirs[i]);
	return pm_set_err(err, err_len, -ENOENT, "unknown event '%s': no tracepoint %.*s:%s in "
			  "%s (see 'ls /sys/kernel/tracing/events'; tracefs mounted? 'mount -t "
			  "tracefs nodev /sys/kernel/tracing', as root)", spec, (int)ns, spec,
			  colon + 1, path);
}

static const struct pm_generic_event *find_generic(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(generic_events); i++)
		if (!strcmp(generic_events[i].name, name) ||
		    (generic_events[i].alias && !strcmp(generic_events[i].alias, name)))
			return &generic_events[i];
	return NULL;
}

/* u/k/h modifiers as perf applies them: listed levels are kept, others excluded. */
static int apply_plm(struct pm_event *ev, const char *mods, char *err, size_t err_len)
{
	bool u = false, k = false, h = false;
	const char *p;

	for (p = mods; *p; p++) {
		switch (*p) {
		case 'u': u = true; break;
		case 'k': k = true; break;
		case 'h': h = true; break;
		default:
			return pm_set_err(err, err_len, -EINVAL,
				       "event '%s': unknown modifier '%c' in ':%s' (valid: u, k, h, T)",
				       ev->name, *p, mods);
		}
	}
	if (u || k || h) {
		ev->exclude_user = !u;
		ev->exclude_kernel = !k;
		ev->exclude_hv = !h;
	}
	return 0;
}

static int parse_raw(const char *base, struct pm_event *ev)
{
	char *end;
	unsigned long long v;

	if (base[0] != 'r' || !isxdigit((unsigned char)base[1]))
		return -ENOENT;
	errno = 0;
	v = strtoull(base + 1, &end, 16);
	if (errno || *end)
		return -ENOENT;
	ev->type = PERF_TYPE_RAW;
	ev->config = v;
	return 0;
}

static int parse_pfm(const char *spec, struct pm_event *ev)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	int ret;

	if (pm_pfm_init())
		return -ENOENT;
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	ret = pm_pfm.get_os_event_encoding(spec, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS)
		return ret == PFM_ERR_NOTFOUND ? -ENOENT : -EINVAL;
	ev->type = attr.type;
	ev->config = attr.config;
	ev->config1 = attr.config1;
	ev->config2 = attr.config2;
	ev->exclude_user = attr.exclude_user;
	ev->exclude_kernel = attr.exclude_kernel;
	ev->exclude_hv = attr.exclude_hv;
	ev->from_pfm = true;
	ev->software = attr.type == PERF_TYPE_SOFTWARE;
	ev->time_based = ev->software && (attr.config == PERF_COUNT_SW_CPU_CLOCK ||
					  attr.config == PERF_COUNT_SW_TASK_CLOCK);
	return 0;
}

int pm_event_parse_one(const char *spec, struct pm_event *ev, bool *trigger,
		       char *err, size_t err_len)
{
	char buf[sizeof(ev->name)], *colon, *mods = NULL;
	const struct pm_generic_event *g;
	size_t n;
	int ret;

	memset(ev, 0, sizeof(*ev));
	*trigger = false;
	if (!*spec)
		return pm_set_err(err, err_len, -EINVAL, "empty event name");
	if (strlen(spec) >= sizeof(buf))
		return pm_set_err(err, err_len, -EINVAL, "event name too long: '%.40s...'", spec);
	pm_strlcpy(buf, spec, sizeof(buf));

	/* Our trigger marker is the last modifier, ":T" (upper case only). */
	n = strlen(buf);
	if (n > 2 && !strcmp(buf + n - 2, ":T")) {
		*trigger = true;
		buf[n - 2] = '\0';
	} else if ((colon = strrchr(buf, ':')) && colon[1] && strchr(colon + 1, 'T') &&
		   strspn(colon + 1, "ukhT") == strlen(colon + 1)) {
		/* ":uT" style: T combined with perf modifiers */
		char *t = strchr(colon + 1, 'T');

		*trigger = true;
		memmove(t, t + 1, strlen(t));
		if (!colon[1])
			*colon = '\0';
	}
	pm_strlcpy(ev->name, buf, sizeof(ev->name));

	/* Generic and raw names take perf's u/k/h modifiers. */
	colon = strchr(buf, ':');
	if (colon && colon[1] != ':') {
		struct pm_event tmp;

		*colon = '\0';
		if (find_generic(buf) || !parse_raw(buf, &tmp))
			mods = colon + 1;
		else
			*colon = ':';
	}
	g = find_generic(buf);
	if (g) {
		ev->type = g->type;
		ev->config = g->config;
		ev->software = g->type == PERF_TYPE_SOFTWARE;
		ev->time_based = ev->software && (g->config == PERF_COUNT_SW_CPU_CLOCK ||
						  g->config == PERF_COUNT_SW_TASK_CLOCK);
		return mods ? apply_plm(ev, mods, err, err_len) : 0;
	}
	if (!parse_raw(buf, ev))
		return mods ? apply_plm(ev, mods, err, err_len) : 0;
	if (mods)
		mods[-1] = ':';		/* hand libpfm4 the full string */

	ret = parse_pfm(buf, ev);
	if (!ret)
		return 0;
	if (ret == -EINVAL)
		return pm_set_err(err, err_len, -EINVAL,
			       "event '%s': libpfm4 knows the event but not these attributes "
			       "(see 'pmiprof list' and libpfm4's modifiers)", ev->name);
	ret = parse_tracepoint(buf, ev, err, err_len);
	if (ret <= 0)
		return ret;
	{
		const char *sug[MAX_SUGGEST];
		char base[sizeof(buf)], *c;
		unsigned int nr, i;
		size_t off;

		pm_strlcpy(base, buf, sizeof(base));
		c = strchr(base, ':');
		if (c && c[1] != ':')
			*c = '\0';
		nr = pm_events_suggest(base, sug, MAX_SUGGEST);
		off = (size_t)snprintf(err, err_len, "unknown event '%s'", ev->name);
		for (i = 0; i < nr && off < err_len; i++)
			off += (size_t)snprintf(err + off, err_len - off, "%s'%s'",
						i == 0 ? "; did you mean " :
						i == nr - 1 ? " or " : ", ", sug[i]);
		if (off < err_len)
			snprintf(err + off, err_len - off, "%s (see 'pmiprof list')",
				 nr ? "?" : "");
		return -ENOENT;
	}
}

uint32_t pm_event_trace_flags(const struct pm_event *ev)
{
	uint32_t f = 0;

	if (ev->exclude_user)
		f |= PMIPROF_EVENT_F_EXCL_USER;
	if (ev->exclude_kernel)
		f |= PMIPROF_EVENT_F_EXCL_KERNEL;
	if (ev->software)
		f |= PMIPROF_EVENT_F_SOFTWARE;
	return f;
}

void pm_event_to_desc(const struct pm_event *ev, bool trigger, struct trace_event_desc *d)
{
	memset(d, 0, sizeof(*d));
	pm_strlcpy(d->name, ev->name, sizeof(d->name));
	d->type = ev->type;
	d->config = ev->config;
	d->config1 = ev->config1;
	d->flags = pm_event_trace_flags(ev) | (trigger ? PMIPROF_EVENT_F_TRIGGER : 0);
}
