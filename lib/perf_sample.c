// SPDX-License-Identifier: GPL-2.0
/*
 * perf SAMPLE and sample_id decoding (see perf_sample.h).  The field order
 * is the kernel's (perf_output_sample()); every read is bounds-checked
 * against the record's size, so a damaged record names the field that ran
 * past its end instead of reading beyond it.
 */
#include "perf_sample.h"

#include <string.h>
#include <linux/perf_event.h>

#include "perf_data_format.h"

struct cur {
	const uint8_t *p, *end;
};

static inline int get64(struct cur *c, uint64_t *v)
{
	if (c->end - c->p < 8)
		return -1;
	memcpy(v, c->p, 8);
	c->p += 8;
	return 0;
}

/* n bytes of payload starting here: *out points at them. */
static inline int take(struct cur *c, uint64_t n, const uint8_t **out)
{
	if ((uint64_t)(c->end - c->p) < n)
		return -1;
	*out = c->p;
	c->p += n;
	return 0;
}

/* u64 items of n each 8 bytes, with an overflow-safe size check. */
static inline int take64(struct cur *c, uint64_t n, const uint8_t **out)
{
	if (n > (uint64_t)(c->end - c->p) / 8)
		return -1;
	return take(c, n * 8, out);
}

static const char *read_values(const struct perf_sample_layout *l, struct cur *c,
			       struct perf_sample *s)
{
	uint64_t rf = l->read_format, nr = 1, i, v;

	if (rf & PERF_FORMAT_GROUP) {
		if (get64(c, &nr))
			return "READ group size runs past the record";
		if (nr > PERF_SAMPLE_MAX_READ)
			return "READ group of more than 64 counters";
	} else {
		/* single: value first, then the times */
		if (get64(c, &s->read[0].value))
			return "READ value runs past the record";
	}
	if ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) && get64(c, &s->time_enabled))
		return "READ time_enabled runs past the record";
	if ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) && get64(c, &s->time_running))
		return "READ time_running runs past the record";
	for (i = 0; i < nr; i++) {
		struct perf_read_value *r = &s->read[i];

		if (rf & PERF_FORMAT_GROUP) {
			if (get64(c, &r->value))
				return "READ group value runs past the record";
		}
		r->id = r->lost = 0;
		if ((rf & PERF_FORMAT_ID) && get64(c, &r->id))
			return "READ id runs past the record";
		if ((rf & PERF_FORMAT_LOST) && get64(c, &v))
			return "READ lost runs past the record";
		if (rf & PERF_FORMAT_LOST)
			r->lost = v;
	}
	s->nr_read = (uint32_t)nr;
	return NULL;
}

/* abi, then one u64 per mask bit when abi is not PERF_SAMPLE_REGS_ABI_NONE. */
static int regs(struct cur *c, uint64_t mask, uint64_t *abi, uint32_t *nr, const uint8_t **out)
{
	if (get64(c, abi))
		return -1;
	*nr = 0;
	*out = NULL;
	if (!*abi)
		return 0;
	*nr = (uint32_t)__builtin_popcountll(mask);
	return take64(c, *nr, out);
}

const char *perf_sample_decode(const struct perf_sample_layout *l, const uint8_t *p, size_t len,
			       struct perf_sample *s)
{
	struct cur c = { p, p + len };
	uint64_t t = l->sample_type, v;
	uint64_t per_branch = 3;

	memset(s, 0, offsetof(struct perf_sample, read));
	s->nr_read = 0;
	memset(&s->callchain_nr, 0, sizeof(*s) - offsetof(struct perf_sample, callchain_nr));
	if ((t & PERF_SAMPLE_IDENTIFIER) && get64(&c, &s->id))
		return "IDENTIFIER runs past the record";
	if ((t & PERF_SAMPLE_IP) && get64(&c, &s->ip))
		return "IP runs past the record";
	if (t & PERF_SAMPLE_TID) {
		if (get64(&c, &v))
			return "TID runs past the record";
		s->pid = (uint32_t)v;
		s->tid = (uint32_t)(v >> 32);
	}
	if ((t & PERF_SAMPLE_TIME) && get64(&c, &s->time))
		return "TIME runs past the record";
	if ((t & PERF_SAMPLE_ADDR) && get64(&c, &s->addr))
		return "ADDR runs past the record";
	if ((t & PERF_SAMPLE_ID) && get64(&c, &s->id))
		return "ID runs past the record";
	if ((t & PERF_SAMPLE_STREAM_ID) && get64(&c, &s->stream_id))
		return "STREAM_ID runs past the record";
	if (t & PERF_SAMPLE_CPU) {
		if (get64(&c, &v))
			return "CPU runs past the record";
		s->cpu = (uint32_t)v;
	}
	if ((t & PERF_SAMPLE_PERIOD) && get64(&c, &s->period))
		return "PERIOD runs past the record";
	if (t & PERF_SAMPLE_READ) {
		const char *why = read_values(l, &c, s);

		if (why)
			return why;
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		if (get64(&c, &s->callchain_nr) || take64(&c, s->callchain_nr, &s->callchain))
			return "CALLCHAIN runs past the record";
	}
	if (t & PERF_SAMPLE_RAW) {
		uint32_t n;

		/* u32 size, then size bytes; the kernel pads the pair to 8 bytes */
		if (c.end - c.p < 4)
			return "RAW size runs past the record";
		memcpy(&n, c.p, 4);
		c.p += 4;
		if (take(&c, n, &s->raw))
			return "RAW data runs past the record";
		s->raw_size = n;
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		if (get64(&c, &s->branch_nr))
			return "BRANCH_STACK size runs past the record";
		if ((l->branch_sample_type & PERF_BRANCH_HW_INDEX_BIT) &&
		    get64(&c, &s->branch_hw_idx))
			return "BRANCH_STACK hw_idx runs past the record";
		if (s->branch_nr > (uint64_t)(c.end - c.p) / (8 * per_branch) ||
		    take(&c, s->branch_nr * 8 * per_branch, &s->branches))
			return "BRANCH_STACK entries run past the record";
		if ((l->branch_sample_type & PERF_BRANCH_COUNTERS_BIT) &&
		    take64(&c, s->branch_nr, &s->branch_counters))
			return "BRANCH_STACK counters run past the record";
	}
	if ((t & PERF_SAMPLE_REGS_USER) &&
	    regs(&c, l->regs_user_mask, &s->user_abi, &s->user_nr_regs, &s->user_regs))
		return "REGS_USER runs past the record";
	if (t & PERF_SAMPLE_STACK_USER) {
		if (get64(&c, &s->stack_size) || take(&c, s->stack_size, &s->stack))
			return "STACK_USER runs past the record";
		/* dyn_size only when something was copied */
		if (s->stack_size && get64(&c, &s->stack_dyn_size))
			return "STACK_USER dyn_size runs past the record";
		if (s->stack_dyn_size > s->stack_size)
			return "STACK_USER dyn_size larger than the stack copied";
	}
	if ((t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) && get64(&c, &s->weight))
		return "WEIGHT runs past the record";
	if ((t & PERF_SAMPLE_DATA_SRC) && get64(&c, &s->data_src))
		return "DATA_SRC runs past the record";
	if ((t & PERF_SAMPLE_TRANSACTION) && get64(&c, &s->transaction))
		return "TRANSACTION runs past the record";
	if ((t & PERF_SAMPLE_REGS_INTR) &&
	    regs(&c, l->regs_intr_mask, &s->intr_abi, &s->intr_nr_regs, &s->intr_regs))
		return "REGS_INTR runs past the record";
	if ((t & PERF_SAMPLE_PHYS_ADDR) && get64(&c, &s->phys_addr))
		return "PHYS_ADDR runs past the record";
	if ((t & PERF_SAMPLE_CGROUP) && get64(&c, &s->cgroup))
		return "CGROUP runs past the record";
	if ((t & PERF_SAMPLE_DATA_PAGE_SIZE) && get64(&c, &s->data_page_size))
		return "DATA_PAGE_SIZE runs past the record";
	if ((t & PERF_SAMPLE_CODE_PAGE_SIZE) && get64(&c, &s->code_page_size))
		return "CODE_PAGE_SIZE runs past the record";
	if (t & PERF_SAMPLE_AUX) {
		if (get64(&c, &s->aux_size) || take(&c, s->aux_size, &s->aux))
			return "AUX runs past the record";
	}
	return NULL;
}

size_t perf_sample_id_size(uint64_t t)
{
	return 8 * (size_t)(!!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) +
			    !!(t & PERF_SAMPLE_ID) + !!(t & PERF_SAMPLE_STREAM_ID) +
			    !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_IDENTIFIER));
}

const char *perf_sample_id_decode(uint64_t t, const uint8_t *p, size_t len,
				  struct perf_sample *s, size_t *trailer)
{
	size_t n = perf_sample_id_size(t);
	struct cur c;
	uint64_t v = 0;

	memset(s, 0, offsetof(struct perf_sample, read));
	s->nr_read = 0;
	*trailer = n;
	if (n > len)
		return "sample_id trailer larger than the record";
	c = (struct cur){ p + len - n, p + len };
	if (t & PERF_SAMPLE_TID) {
		get64(&c, &v);
		s->pid = (uint32_t)v;
		s->tid = (uint32_t)(v >> 32);
	}
	if (t & PERF_SAMPLE_TIME)
		get64(&c, &s->time);
	if (t & PERF_SAMPLE_ID)
		get64(&c, &s->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		get64(&c, &s->stream_id);
	if (t & PERF_SAMPLE_CPU) {
		get64(&c, &v);
		s->cpu = (uint32_t)v;
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		get64(&c, &s->id);
	return NULL;
}

int perf_sample_id_pos(uint64_t t)
{
	if (t & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(t & PERF_SAMPLE_ID))
		return -1;
	return !!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) +
	       !!(t & PERF_SAMPLE_ADDR);
}

int perf_sample_id_pos_from_end(uint64_t t)
{
	if (t & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(t & PERF_SAMPLE_ID))
		return -1;
	return 1 + !!(t & PERF_SAMPLE_STREAM_ID) + !!(t & PERF_SAMPLE_CPU);
}
