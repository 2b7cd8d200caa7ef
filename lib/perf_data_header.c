// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data metadata (see perf_data_header.h): attrs and their ids, the
 * feature sections this reader uses (BUILD_ID, HOSTNAME, OSRELEASE,
 * VERSION, ARCH, NRCPUS, CPUDESC, CPUID, CMDLINE, EVENT_DESC, AUXTRACE),
 * and the pmiprof trace header made from them.  Every length read from the
 * file is checked against the bytes that hold it.
 */
#include "perf_data_header.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "events.h"
#include "perf_data_format.h"
#include "util.h"

int perf_meta_init(struct perf_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->attrs = calloc(PERF_META_MAX_ATTRS, sizeof(*m->attrs));
	if (!m->attrs)
		return -ENOMEM;
	return hm_init(&m->ids, 64);
}

void perf_meta_free(struct perf_meta *m)
{
	uint32_t i;

	for (i = 0; i < m->nr_bids; i++)
		free(m->bids[i].path);
	free(m->bids);
	free(m->attrs);
	hm_free(&m->ids);
	memset(m, 0, sizeof(*m));
}

int perf_meta_add_id(struct perf_meta *m, uint64_t id, uint32_t idx)
{
	return hm_put(&m->ids, id, 0, idx);
}

int perf_meta_add_attr(struct perf_meta *m, const uint8_t *attr, size_t attr_len,
		       const uint8_t *ids, uint64_t nr_ids, const char **why)
{
	struct perf_attr_info *a;
	uint64_t i, id;
	uint32_t idx = m->nr_attrs;

	if (m->nr_attrs >= PERF_META_MAX_ATTRS) {
		*why = "more than 256 attrs";
		return -E2BIG;
	}
	a = &m->attrs[idx];
	memset(a, 0, sizeof(*a));
	memcpy(&a->attr, attr, attr_len < sizeof(a->attr) ? attr_len : sizeof(a->attr));
	a->layout = (struct perf_sample_layout){ a->attr.sample_type, a->attr.read_format,
						 a->attr.branch_sample_type,
						 a->attr.sample_regs_user, a->attr.sample_regs_intr };
	a->event = -1;
	m->nr_attrs++;
	for (i = 0; i < nr_ids; i++) {
		memcpy(&id, ids + 8 * i, 8);
		if (perf_meta_add_id(m, id, idx)) {
			*why = "out of memory";
			return -ENOMEM;
		}
	}
	return 0;
}

const struct perf_attr_info *perf_meta_attr_of(const struct perf_meta *m, uint64_t id)
{
	uint32_t i = hm_get(&m->ids, id, 0);

	return i == HM_EMPTY || i >= m->nr_attrs ? NULL : &m->attrs[i];
}

struct cur {
	const uint8_t *p, *end;
};

static int get32(struct cur *c, uint32_t *v)
{
	if (c->end - c->p < 4)
		return -1;
	memcpy(v, c->p, 4);
	c->p += 4;
	return 0;
}

/* perf_header_string: u32 len (padding and NUL included), then the bytes. */
static int get_string(struct cur *c, char *out, size_t cap)
{
	uint32_t len;
	size_t n;

	if (get32(c, &len) || (uint64_t)len > (uint64_t)(c->end - c->p))
		return -1;
	n = strnlen((const char *)c->p, len);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, c->p, n);
	out[n] = '\0';
	c->p += len;
	return 0;
}

static const char *event_desc(struct perf_meta *m, struct cur *c)
{
	uint32_t nr, attr_size, i, nr_ids;
	char name[128];

	if (get32(c, &nr) || get32(c, &attr_size))
		return "EVENT_DESC: counts run past the section";
	for (i = 0; i < nr; i++) {
		if ((uint64_t)attr_size > (uint64_t)(c->end - c->p))
			return "EVENT_DESC: attr runs past the section";
		c->p += attr_size;
		if (get32(c, &nr_ids) || get_string(c, name, sizeof(name)))
			return "EVENT_DESC: name runs past the section";
		if ((uint64_t)nr_ids > (uint64_t)(c->end - c->p) / 8)
			return "EVENT_DESC: ids run past the section";
		/* the descriptions come in the attrs' order */
		if (i < m->nr_attrs)
			pm_strlcpy(m->attrs[i].name, name, sizeof(m->attrs[i].name));
		c->p += 8 * (size_t)nr_ids;
	}
	return NULL;
}

static const char *cmdline(struct perf_meta *m, struct cur *c)
{
	uint32_t nr, i;
	char arg[4096];
	size_t at = 0;

	if (get32(c, &nr))
		return "CMDLINE: count runs past the section";
	m->cmdline[0] = '\0';
	for (i = 0; i < nr; i++) {
		if (get_string(c, arg, sizeof(arg)))
			return "CMDLINE: argument runs past the section";
		at += (size_t)snprintf(m->cmdline + at, sizeof(m->cmdline) - at, "%s%s",
				       i ? " " : "", arg);
		if (at >= sizeof(m->cmdline))
			at = sizeof(m->cmdline) - 1;
	}
	m->cmdline_argc = nr;
	return NULL;
}

const char *perf_meta_build_id(struct perf_meta *m, const uint8_t *rec, size_t len)
{
	struct perf_event_header eh;
	struct perf_build_id *b;
	size_t n;

	/* header, pid, build_id[24] (20 bytes, u8 size, 3 reserved), filename */
	if (len < 8 + 4 + 24)
		return "build-id record shorter than its fixed fields";
	memcpy(&eh, rec, sizeof(eh));
	if (m->nr_bids == m->cap_bids) {
		uint32_t cap = m->cap_bids ? m->cap_bids * 2 : 64;
		void *nb = realloc(m->bids, cap * sizeof(*m->bids));

		if (!nb)
			return "out of memory";
		m->bids = nb;
		m->cap_bids = cap;
	}
	b = &m->bids[m->nr_bids];
	memset(b, 0, sizeof(*b));
	memcpy(b->id, rec + 12, 20);
	b->len = 20;
	if (eh.misc & PERF_MISC_BUILD_ID_SIZE)
		b->len = rec[32] <= 20 ? rec[32] : 20;
	b->kernel = (eh.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL ||
		    (eh.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_GUEST_KERNEL;
	n = strnlen((const char *)rec + 36, len - 36);
	b->path = strndup((const char *)rec + 36, n);
	if (!b->path)
		return "out of memory";
	m->nr_bids++;
	return NULL;
}

static const char *build_ids(struct perf_meta *m, struct cur *c)
{
	while (c->p < c->end) {
		struct perf_event_header eh;
		const char *why;

		if (c->end - c->p < (ptrdiff_t)sizeof(eh))
			return "BUILD_ID: record header runs past the section";
		memcpy(&eh, c->p, sizeof(eh));
		if (eh.size < sizeof(eh) || eh.size > c->end - c->p)
			return "BUILD_ID: record size runs past the section";
		why = perf_meta_build_id(m, c->p, eh.size);
		if (why)
			return why;
		c->p += eh.size;
	}
	return NULL;
}

const char *perf_meta_feature(struct perf_meta *m, uint32_t feat, const uint8_t *p, size_t len)
{
	struct cur c = { p, p + len };

	switch (feat) {
	case PERF_FEAT_BUILD_ID:
		return build_ids(m, &c);
	case PERF_FEAT_HOSTNAME:
		return get_string(&c, m->hostname, sizeof(m->hostname)) ? "HOSTNAME: damaged" : NULL;
	case PERF_FEAT_OSRELEASE:
		return get_string(&c, m->osrelease, sizeof(m->osrelease)) ? "OSRELEASE: damaged" :
		       NULL;
	case PERF_FEAT_VERSION:
		return get_string(&c, m->version, sizeof(m->version)) ? "VERSION: damaged" : NULL;
	case PERF_FEAT_ARCH:
		return get_string(&c, m->arch, sizeof(m->arch)) ? "ARCH: damaged" : NULL;
	case PERF_FEAT_CPUDESC:
		return get_string(&c, m->cpudesc, sizeof(m->cpudesc)) ? "CPUDESC: damaged" : NULL;
	case PERF_FEAT_CPUID:
		return get_string(&c, m->cpuid, sizeof(m->cpuid)) ? "CPUID: damaged" : NULL;
	case PERF_FEAT_NRCPUS:
		return get32(&c, &m->nr_cpus_avail) || get32(&c, &m->nr_cpus_online) ?
		       "NRCPUS: damaged" : NULL;
	case PERF_FEAT_CMDLINE:
		return cmdline(m, &c);
	case PERF_FEAT_EVENT_DESC:
		return event_desc(m, &c);
	case PERF_FEAT_AUXTRACE:
		m->auxtrace = true;
		return NULL;
	default:
		return NULL;	/* topology, caches, memory, BPF...: nothing a report shows */
	}
}

void perf_meta_event_update(struct perf_meta *m, const uint8_t *p, size_t len)
{
	uint64_t type, id;
	uint32_t i;

	/* u64 type, u64 id, then the payload; type 2 = PERF_EVENT_UPDATE__NAME */
	if (len < 16)
		return;
	memcpy(&type, p, 8);
	memcpy(&id, p + 8, 8);
	i = hm_get(&m->ids, id, 0);
	if (type != 2 || i == HM_EMPTY || i >= m->nr_attrs)
		return;
	len -= 16;
	if (len >= sizeof(m->attrs[i].name))
		len = sizeof(m->attrs[i].name) - 1;
	memcpy(m->attrs[i].name, p + 16, len);
	m->attrs[i].name[len] = '\0';
}

const struct perf_build_id *perf_meta_find_build_id(const struct perf_meta *m, const char *path)
{
	uint32_t i;

	for (i = m->nr_bids; i-- > 0;)
		if (!strcmp(m->bids[i].path, path))
			return &m->bids[i];
	return NULL;
}

/* perf's name for an attr that has none recorded. */
static void attr_name(const struct perf_event_attr *a, char *out, size_t cap)
{
	size_t i, n = pm_generic_events_count();

	for (i = 0; i < n; i++) {
		const struct pm_generic_event *g = pm_generic_event_at(i);

		if (g->type == a->type && g->config == a->config) {
			pm_strlcpy(out, g->name, cap);
			return;
		}
	}
	if (a->type == PERF_TYPE_RAW)
		snprintf(out, cap, "r%llx", (unsigned long long)a->config);
	else
		snprintf(out, cap, "%u/0x%llx/", a->type, (unsigned long long)a->config);
}

static bool is_dummy(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY;
}

static bool is_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE && (a->config == PERF_COUNT_SW_CPU_CLOCK ||
						 a->config == PERF_COUNT_SW_TASK_CLOCK);
}

/* "GenuineIntel,6,167,1" (x86 CPUID feature) -> vendor, family, model, stepping. */
static void cpuid(const char *s, struct trace_header *h)
{
	const char *comma = strchr(s, ',');
	unsigned int f, mo, st;

	if (!comma)
		return;
	snprintf(h->cpu_vendor, sizeof(h->cpu_vendor), "%.*s", (int)(comma - s), s);
	if (sscanf(comma + 1, "%u,%u,%u", &f, &mo, &st) == 3) {
		h->cpu_family = f;
		h->cpu_model = mo;
		h->cpu_stepping = st;
	}
}

int perf_meta_header(struct perf_meta *m, bool pipe, struct trace_header *h, const char **why)
{
	int trigger_attr = -1;
	uint32_t i;

	memset(h, 0, sizeof(*h));
	h->version_major = PMIPROF_TRACE_VERSION_MAJOR;
	h->version_minor = PMIPROF_TRACE_VERSION_MINOR;
	h->input = PMIPROF_INPUT_PERF_DATA;
	pm_strlcpy(h->hostname, m->hostname, sizeof(h->hostname));
	pm_strlcpy(h->kernel_release, m->osrelease, sizeof(h->kernel_release));
	pm_strlcpy(h->cpu_model_name, m->cpudesc, sizeof(h->cpu_model_name));
	cpuid(m->cpuid, h);
	for (i = 0; i < m->nr_attrs; i++) {
		struct perf_attr_info *a = &m->attrs[i];
		struct trace_event_desc *d;

		if (is_dummy(&a->attr))
			continue;
		if (h->nr_events >= PMIPROF_MAX_EVENTS) {
			*why = "more than 16 events (pmiprof reads at most 16)";
			return -E2BIG;
		}
		a->event = (int)h->nr_events;
		d = &h->events[h->nr_events++];
		if (a->name[0])
			pm_strlcpy(d->name, a->name, sizeof(d->name));
		else
			attr_name(&a->attr, d->name, sizeof(d->name));
		d->type = a->attr.type;
		d->config = a->attr.config;
		d->config1 = a->attr.config1;
		if (a->attr.type == PERF_TYPE_SOFTWARE)
			d->flags |= PMIPROF_EVENT_F_SOFTWARE;
		if (a->attr.exclude_user)
			d->flags |= PMIPROF_EVENT_F_EXCL_USER;
		if (a->attr.exclude_kernel)
			d->flags |= PMIPROF_EVENT_F_EXCL_KERNEL;
		if (trigger_attr < 0 && a->attr.sample_period)
			trigger_attr = (int)i;
	}
	if (!h->nr_events) {
		*why = "no events described (no attrs)";
		return -EBADMSG;
	}
	if (trigger_attr < 0)
		trigger_attr = 0;
	while (m->attrs[trigger_attr].event < 0)
		trigger_attr++;
	{
		const struct perf_event_attr *t = &m->attrs[trigger_attr].attr;

		h->trigger_index = (uint32_t)m->attrs[trigger_attr].event;
		h->events[h->trigger_index].flags |= PMIPROF_EVENT_F_TRIGGER;
		if (t->freq) {
			h->trigger_flags |= PMIPROF_TRIGGER_F_FREQ;
			h->freq_hz = t->sample_freq;
		} else {
			h->period = t->sample_period;
		}
		if (is_clock(t))
			h->flags |= PMIPROF_TRACE_F_TIME_BASED;
		if (!t->exclude_kernel)
			h->flags |= PMIPROF_TRACE_F_KERNEL_IPS;
		if (t->inherit)
			h->flags |= PMIPROF_TRACE_F_INHERIT;
		h->clock_id = t->use_clockid ? (uint32_t)t->clockid : CLOCK_MONOTONIC;
	}
	h->mode = PMIPROF_MODE_PERF;
	h->backend = PMIPROF_BACKEND_PERF;
	h->clock_freq_hz = 1000000000ULL;
	pm_strlcpy(h->clock_name, "perf", sizeof(h->clock_name));
	h->nr_cpus = m->nr_cpus_online ? m->nr_cpus_online : m->nr_cpus_avail;
	snprintf(h->recorder, sizeof(h->recorder), "perf %.58s", m->version);
	snprintf(h->pmu, sizeof(h->pmu), "perf.data (%s mode)", pipe ? "pipe" : "file");
	snprintf(h->note, sizeof(h->note), "read from a perf.data file (%s mode%s%s%s%s)",
		 pipe ? "pipe" : "file", m->version[0] ? ", perf " : "", m->version,
		 m->arch[0] ? ", " : "", m->arch);
	pm_strlcpy(h->cmdline, m->cmdline, sizeof(h->cmdline));
	h->cmdline_argc = m->cmdline_argc;
	for (i = 0; i < m->nr_bids; i++) {
		const struct perf_build_id *b = &m->bids[i];

		if (b->kernel && !strcmp(b->path, "[kernel.kallsyms]")) {
			memcpy(h->kernel_build_id, b->id, b->len);
			h->kernel_build_id_len = b->len;
		}
	}
	return 0;
}
