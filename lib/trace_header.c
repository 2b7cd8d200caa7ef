// SPDX-License-Identifier: GPL-2.0
/*
 * Trace header section: struct trace_header <-> TLV items (see
 * trace_header.h).  Items the reader does not know are skipped, fixed-size
 * items may grow at their end in later minor versions, and every length is
 * checked against the section before it is used.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_header.h"
#include "util.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "the trace format is little-endian; on-disk structs are copied as-is");

struct tlv_buf {
	uint8_t *p;
	size_t len, cap;
	int err;
};

static void tlv_put2(struct tlv_buf *b, uint32_t tag, const void *v1, size_t l1,
		     const void *v2, size_t l2)
{
	struct pmiprof_tlv t = { .tag = tag, .len = (uint32_t)(l1 + l2) };
	size_t need = sizeof(t) + ((l1 + l2 + 3) & ~(size_t)3);

	if (b->err)
		return;
	if (b->len + need > b->cap) {
		size_t cap = (b->cap ? b->cap * 2 : 1024) + need;
		uint8_t *n = realloc(b->p, cap);

		if (!n) {
			b->err = -ENOMEM;
			return;
		}
		b->p = n;
		b->cap = cap;
	}
	memset(b->p + b->len, 0, need);
	memcpy(b->p + b->len, &t, sizeof(t));
	if (l1)
		memcpy(b->p + b->len + sizeof(t), v1, l1);
	if (l2)
		memcpy(b->p + b->len + sizeof(t) + l1, v2, l2);
	b->len += need;
}

static void tlv_str(struct tlv_buf *b, uint32_t tag, const char *s, size_t field_size)
{
	tlv_put2(b, tag, s, strnlen(s, field_size), NULL, 0);
}

int trace_header_encode(const struct trace_header *h, uint8_t **buf, size_t *len)
{
	struct tlv_buf b = { 0 };
	struct pmiprof_tlv_cpu_sig sig = {
		.family = h->cpu_family, .model = h->cpu_model, .stepping = h->cpu_stepping,
	};
	struct pmiprof_tlv_trigger trig = {
		.event_index = h->trigger_index, .flags = h->trigger_flags,
		.period = h->period, .freq_hz = h->freq_hz,
	};
	struct pmiprof_tlv_sampling smp = { .mode = h->mode, .backend = h->backend };
	struct pmiprof_tlv_clock clk = {
		.clock_id = h->clock_id, .freq_hz = h->clock_freq_hz,
		.start_time = h->start_time, .start_realtime_ns = h->start_realtime_ns,
	};
	uint32_t argc = h->cmdline_argc, ncpu = h->nr_cpus;
	uint32_t i;

	if (h->nr_events > PMIPROF_MAX_EVENTS)
		return -EINVAL;
	if (h->nr_events && h->trigger_index >= h->nr_events)
		return -EINVAL;
	tlv_str(&b, PMIPROF_TAG_HOSTNAME, h->hostname, sizeof(h->hostname));
	tlv_str(&b, PMIPROF_TAG_KERNEL_RELEASE, h->kernel_release, sizeof(h->kernel_release));
	tlv_str(&b, PMIPROF_TAG_CPU_VENDOR, h->cpu_vendor, sizeof(h->cpu_vendor));
	tlv_put2(&b, PMIPROF_TAG_CPU_SIG, &sig, sizeof(sig), NULL, 0);
	tlv_str(&b, PMIPROF_TAG_CPU_MODEL_NAME, h->cpu_model_name, sizeof(h->cpu_model_name));
	tlv_str(&b, PMIPROF_TAG_PMU, h->pmu, sizeof(h->pmu));
	for (i = 0; i < h->nr_events; i++) {
		const struct trace_event_desc *e = &h->events[i];
		struct pmiprof_tlv_event ev = {
			.type = e->type, .flags = e->flags, .config = e->config,
			.config1 = e->config1,
		};

		tlv_put2(&b, PMIPROF_TAG_EVENT, &ev, sizeof(ev), e->name,
			 strnlen(e->name, sizeof(e->name)));
	}
	tlv_put2(&b, PMIPROF_TAG_TRIGGER, &trig, sizeof(trig), NULL, 0);
	tlv_put2(&b, PMIPROF_TAG_SAMPLING, &smp, sizeof(smp), NULL, 0);
	tlv_put2(&b, PMIPROF_TAG_CLOCK, &clk, sizeof(clk), h->clock_name,
		 strnlen(h->clock_name, sizeof(h->clock_name)));
	tlv_put2(&b, PMIPROF_TAG_CMDLINE, &argc, sizeof(argc), h->cmdline,
		 strnlen(h->cmdline, sizeof(h->cmdline)));
	tlv_put2(&b, PMIPROF_TAG_NR_CPUS, &ncpu, sizeof(ncpu), NULL, 0);
	tlv_str(&b, PMIPROF_TAG_RECORDER, h->recorder, sizeof(h->recorder));
	if (h->note[0])
		tlv_str(&b, PMIPROF_TAG_NOTE, h->note, sizeof(h->note));
	if (h->boot_id[0])
		tlv_str(&b, PMIPROF_TAG_BOOT_ID, h->boot_id, sizeof(h->boot_id));
	if (h->kernel_build_id_len)
		tlv_put2(&b, PMIPROF_TAG_KERNEL_BUILD_ID, h->kernel_build_id,
			 h->kernel_build_id_len > sizeof(h->kernel_build_id) ?
			 sizeof(h->kernel_build_id) : h->kernel_build_id_len, NULL, 0);
	if (h->call_graph != PMIPROF_CALL_GRAPH_NONE) {
		struct pmiprof_tlv_call_graph cg = {
			.mode = h->call_graph, .dump_size = h->call_graph_dump_size,
			.max_stack = h->call_graph_max_stack, .flags = h->call_graph_flags,
		};

		tlv_put2(&b, PMIPROF_TAG_CALL_GRAPH, &cg, sizeof(cg), NULL, 0);
	}
	for (i = 0; i < h->nr_events && i < PMIPROF_MAX_EVENTS; i++)
		if (h->predict[i]) {
			tlv_put2(&b, PMIPROF_TAG_PREDICT, h->predict,
				 h->nr_events * sizeof(h->predict[0]), NULL, 0);
			break;
		}
	if (h->time_step)
		tlv_put2(&b, PMIPROF_TAG_TIME_STEP, &h->time_step, sizeof(h->time_step), NULL, 0);
	if (b.err) {
		free(b.p);
		return b.err;
	}
	if (b.len > PMIPROF_MAX_HEADER_SIZE) {
		free(b.p);
		return -E2BIG;
	}
	*buf = b.p;
	*len = b.len;
	return 0;
}

/* Copy a length-counted string into a fixed field, truncating, NUL-terminated. */
static void get_str(char *dst, size_t size, const uint8_t *v, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, v, len);
	dst[len] = '\0';
}

static const char *tag_name(uint32_t tag)
{
	static const char *const names[] = {
		[PMIPROF_TAG_HOSTNAME] = "hostname",
		[PMIPROF_TAG_KERNEL_RELEASE] = "kernel release",
		[PMIPROF_TAG_CPU_VENDOR] = "cpu vendor",
		[PMIPROF_TAG_CPU_SIG] = "cpu signature",
		[PMIPROF_TAG_CPU_MODEL_NAME] = "cpu model name",
		[PMIPROF_TAG_PMU] = "pmu",
		[PMIPROF_TAG_EVENT] = "event",
		[PMIPROF_TAG_TRIGGER] = "trigger",
		[PMIPROF_TAG_SAMPLING] = "sampling",
		[PMIPROF_TAG_CLOCK] = "clock",
		[PMIPROF_TAG_CMDLINE] = "cmdline",
		[PMIPROF_TAG_NR_CPUS] = "nr_cpus",
		[PMIPROF_TAG_RECORDER] = "recorder",
		[PMIPROF_TAG_NOTE] = "note",
		[PMIPROF_TAG_BOOT_ID] = "boot id",
		[PMIPROF_TAG_KERNEL_BUILD_ID] = "kernel build-id",
		[PMIPROF_TAG_CALL_GRAPH] = "call graph",
		[PMIPROF_TAG_PREDICT] = "predict",
		[PMIPROF_TAG_TIME_STEP] = "time step",
	};

	return tag < ARRAY_SIZE(names) && names[tag] ? names[tag] : "unknown";
}

/* Minimum value size of fixed-layout items; 0 for strings and unknown tags. */
static size_t tag_min_len(uint32_t tag)
{
	switch (tag) {
	case PMIPROF_TAG_CPU_SIG: return sizeof(struct pmiprof_tlv_cpu_sig);
	case PMIPROF_TAG_EVENT: return sizeof(struct pmiprof_tlv_event);
	case PMIPROF_TAG_TRIGGER: return sizeof(struct pmiprof_tlv_trigger);
	case PMIPROF_TAG_SAMPLING: return sizeof(struct pmiprof_tlv_sampling);
	case PMIPROF_TAG_CLOCK: return sizeof(struct pmiprof_tlv_clock);
	case PMIPROF_TAG_CMDLINE: return sizeof(uint32_t);
	case PMIPROF_TAG_NR_CPUS: return sizeof(uint32_t);
	case PMIPROF_TAG_CALL_GRAPH: return sizeof(struct pmiprof_tlv_call_graph);
	case PMIPROF_TAG_TIME_STEP: return sizeof(uint64_t);
	default: return 0;
	}
}

int trace_header_decode(const uint8_t *p, size_t len, struct trace_header *h,
			size_t *err_off, char *why, size_t why_len)
{
	size_t off = 0;
	bool have_trigger = false;
	uint32_t nr_predict = 0, i;

	memset(h, 0, sizeof(*h));
	while (off < len) {
		struct pmiprof_tlv t;
		const uint8_t *v;
		size_t padded;

		*err_off = off;
		if (len - off < sizeof(t)) {
			snprintf(why, why_len, "header item head cut by the end of the section "
				 "(%zu of 8 bytes)", len - off);
			return -EBADMSG;
		}
		memcpy(&t, p + off, sizeof(t));
		padded = ((size_t)t.len + 3) & ~(size_t)3;
		if (padded > len - off - sizeof(t)) {
			snprintf(why, why_len, "header item '%s' (tag %u) of %u bytes runs past "
				 "the end of the section", tag_name(t.tag), t.tag, t.len);
			return -EBADMSG;
		}
		if (t.len < tag_min_len(t.tag)) {
			snprintf(why, why_len, "header item '%s' too short (%u bytes, need %zu)",
				 tag_name(t.tag), t.len, tag_min_len(t.tag));
			return -EBADMSG;
		}
		v = p + off + sizeof(t);
		switch (t.tag) {
		case PMIPROF_TAG_HOSTNAME:
			get_str(h->hostname, sizeof(h->hostname), v, t.len);
			break;
		case PMIPROF_TAG_KERNEL_RELEASE:
			get_str(h->kernel_release, sizeof(h->kernel_release), v, t.len);
			break;
		case PMIPROF_TAG_CPU_VENDOR:
			get_str(h->cpu_vendor, sizeof(h->cpu_vendor), v, t.len);
			break;
		case PMIPROF_TAG_CPU_SIG: {
			struct pmiprof_tlv_cpu_sig s;

			memcpy(&s, v, sizeof(s));
			h->cpu_family = s.family;
			h->cpu_model = s.model;
			h->cpu_stepping = s.stepping;
			break;
		}
		case PMIPROF_TAG_CPU_MODEL_NAME:
			get_str(h->cpu_model_name, sizeof(h->cpu_model_name), v, t.len);
			break;
		case PMIPROF_TAG_PMU:
			get_str(h->pmu, sizeof(h->pmu), v, t.len);
			break;
		case PMIPROF_TAG_EVENT: {
			struct pmiprof_tlv_event e;
			struct trace_event_desc *d;

			if (h->nr_events >= PMIPROF_MAX_EVENTS) {
				snprintf(why, why_len, "more than %d events in the header",
					 PMIPROF_MAX_EVENTS);
				return -EBADMSG;
			}
			memcpy(&e, v, sizeof(e));
			d = &h->events[h->nr_events++];
			d->type = e.type;
			d->flags = e.flags;
			d->config = e.config;
			d->config1 = e.config1;
			get_str(d->name, sizeof(d->name), v + sizeof(e), t.len - sizeof(e));
			break;
		}
		case PMIPROF_TAG_TRIGGER: {
			struct pmiprof_tlv_trigger g;

			memcpy(&g, v, sizeof(g));
			h->trigger_index = g.event_index;
			h->trigger_flags = g.flags;
			h->period = g.period;
			h->freq_hz = g.freq_hz;
			have_trigger = true;
			break;
		}
		case PMIPROF_TAG_SAMPLING: {
			struct pmiprof_tlv_sampling s;

			memcpy(&s, v, sizeof(s));
			h->mode = s.mode;
			h->backend = s.backend;
			break;
		}
		case PMIPROF_TAG_CLOCK: {
			struct pmiprof_tlv_clock c;

			memcpy(&c, v, sizeof(c));
			h->clock_id = c.clock_id;
			h->clock_freq_hz = c.freq_hz;
			h->start_time = c.start_time;
			h->start_realtime_ns = c.start_realtime_ns;
			get_str(h->clock_name, sizeof(h->clock_name), v + sizeof(c),
				t.len - sizeof(c));
			break;
		}
		case PMIPROF_TAG_CMDLINE:
			memcpy(&h->cmdline_argc, v, sizeof(uint32_t));
			get_str(h->cmdline, sizeof(h->cmdline), v + 4, t.len - 4);
			break;
		case PMIPROF_TAG_NR_CPUS:
			memcpy(&h->nr_cpus, v, sizeof(uint32_t));
			break;
		case PMIPROF_TAG_RECORDER:
			get_str(h->recorder, sizeof(h->recorder), v, t.len);
			break;
		case PMIPROF_TAG_NOTE:
			get_str(h->note, sizeof(h->note), v, t.len);
			break;
		case PMIPROF_TAG_BOOT_ID:
			get_str(h->boot_id, sizeof(h->boot_id), v, t.len);
			break;
		case PMIPROF_TAG_KERNEL_BUILD_ID:
			/* Longer than any build-id we know: keep the first 20 bytes. */
			h->kernel_build_id_len = t.len > sizeof(h->kernel_build_id) ?
						 (uint32_t)sizeof(h->kernel_build_id) : t.len;
			memcpy(h->kernel_build_id, v, h->kernel_build_id_len);
			break;
		case PMIPROF_TAG_CALL_GRAPH: {
			struct pmiprof_tlv_call_graph cg;

			memcpy(&cg, v, sizeof(cg));
			h->call_graph = cg.mode;
			h->call_graph_dump_size = cg.dump_size;
			h->call_graph_max_stack = cg.max_stack;
			h->call_graph_flags = cg.flags;
			break;
		}
		case PMIPROF_TAG_PREDICT:
			/* one u32 per event; checked against the events after the loop */
			if (t.len % 4 || t.len / 4 > PMIPROF_MAX_EVENTS) {
				snprintf(why, why_len, "predict item of %u bytes (4 per event, at "
					 "most %u events)", t.len, PMIPROF_MAX_EVENTS);
				return -EBADMSG;
			}
			memcpy(h->predict, v, t.len);
			nr_predict = t.len / 4;
			break;
		case PMIPROF_TAG_TIME_STEP:
			memcpy(&h->time_step, v, sizeof(h->time_step));
			break;
		default:
			break;	/* a later minor version's item: skip it */
		}
		off += sizeof(t) + padded;
	}
	*err_off = len;
	if (nr_predict && nr_predict != h->nr_events) {
		snprintf(why, why_len, "predict item names %u events, but the header has %u",
			 nr_predict, h->nr_events);
		return -EBADMSG;
	}
	for (i = 0; i < nr_predict; i++)
		if (h->predict[i] > PMIPROF_PREDICT_EVENT + i - 1) {	/* event j < i */
			snprintf(why, why_len, "event %u predicted by %u: not the previous "
				 "count, the time step or an earlier event", i, h->predict[i]);
			return -EBADMSG;
		}
	if (have_trigger && h->nr_events && h->trigger_index >= h->nr_events) {
		snprintf(why, why_len, "trigger event index %u, but the header has %u events",
			 h->trigger_index, h->nr_events);
		return -EBADMSG;
	}
	return 0;
}
