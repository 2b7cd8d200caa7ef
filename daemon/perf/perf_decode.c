// SPDX-License-Identifier: GPL-2.0
/* perf ring records -> trace records, with loss generations (perf_decode.h). */
#include "perf/perf_decode.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pmiprof/trace.h"

#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID	(1 << 14)
#endif
#ifndef PERF_REG_X86_SP
#define PERF_REG_X86_SP			7	/* asm/perf_regs.h: sp in perf's register order */
#endif
#ifndef PERF_RECORD_MISC_COMM_EXEC
#define PERF_RECORD_MISC_COMM_EXEC	(1 << 13)
#endif

struct sample_id {			/* sample_id_all trailer: TID, TIME, CPU */
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
};

int perf_decoder_init(struct perf_decoder *d, unsigned int nr_ev, unsigned int nr_cpu_slots,
		      struct record_stats *stats)
{
	int ret;

	d->nr_ev = nr_ev;
	d->stats = stats;
	d->nr_cpu_slots = nr_cpu_slots ? nr_cpu_slots : 1;
	d->cpus = calloc(d->nr_cpu_slots, sizeof(*d->cpus));
	if (!d->cpus)
		return -ENOMEM;
	ret = window_deltas_init(&d->deltas, nr_ev);
	return ret;
}

void perf_decoder_free(struct perf_decoder *d)
{
	window_deltas_free(&d->deltas);
	pid_set_free(&d->pids);
	free(d->cpus);
	d->cpus = NULL;
	free(d->exec.v);
	d->exec = (struct exec_ranges){ 0 };
	stack_tops_free(&d->tops);
}

/* First range whose end is >= addr (ranges are disjoint and sorted). */
static size_t exec_lower(const struct exec_ranges *x, uint64_t addr)
{
	size_t lo = 0, hi = x->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->v[mid].end < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int perf_decode_note_exec(struct perf_decoder *d, uint64_t start, uint64_t len)
{
	struct exec_ranges *x = &d->exec;
	uint64_t end = start + len < start ? UINT64_MAX : start + len;
	size_t lo, hi;

	if (!len)
		return 0;
	/* ranges overlapping or touching [start, end) become one */
	lo = exec_lower(x, start);
	for (hi = lo; hi < x->nr && x->v[hi].start <= end; hi++)
		;
	if (lo < hi) {
		if (x->v[lo].start < start)
			start = x->v[lo].start;
		if (x->v[hi - 1].end > end)
			end = x->v[hi - 1].end;
		x->v[lo] = (struct exec_range){ start, end };
		memmove(x->v + lo + 1, x->v + hi, (x->nr - hi) * sizeof(*x->v));
		x->nr -= hi - lo - 1;
		return 0;
	}
	if (x->nr == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 64;
		struct exec_range *n = realloc(x->v, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		x->v = n;
		x->cap = cap;
	}
	memmove(x->v + lo + 1, x->v + lo, (x->nr - lo) * sizeof(*x->v));
	x->v[lo] = (struct exec_range){ start, end };
	x->nr++;
	return 0;
}

bool perf_decode_is_exec(const struct perf_decoder *d, uint64_t addr)
{
	size_t i = exec_lower(&d->exec, addr);

	/* exec_lower finds end >= addr; end itself is outside */
	if (i < d->exec.nr && d->exec.v[i].end == addr)
		i++;
	return i < d->exec.nr && d->exec.v[i].start <= addr && addr < d->exec.v[i].end;
}

/*
 * fp leaf words: keep the words that can be return addresses (inside an
 * executable mapping) and zero the rest.  The report's leaf fix-up reads
 * only the leaf's return address slot, which always holds a code address;
 * the other words (saved registers, locals, stack addresses) are what made
 * fp samples cost ~60 bytes more than perf's, and zeros cost the compact
 * USTACK word form nothing (docs/trace-format.md).
 */
static void keep_code_words(const struct perf_decoder *d, uint8_t *words, uint64_t size)
{
	uint64_t i, v;

	for (i = 0; i + 8 <= size; i += 8) {
		memcpy(&v, words + i, 8);
		if (v && !perf_decode_is_exec(d, v)) {
			v = 0;
			memcpy(words + i, &v, 8);
		}
	}
}

static struct perf_cpu_loss *cpu_loss(struct perf_decoder *d, uint32_t cpu)
{
	static struct perf_cpu_loss none;

	if (cpu < d->nr_cpu_slots)
		return &d->cpus[cpu];
	none.gen++;	/* unknown CPU: every window after it is suspect */
	return &none;
}

static void trailer(const struct perf_event_header *h, struct sample_id *id)
{
	if (h->size >= sizeof(*h) + sizeof(*id))
		memcpy(id, (const char *)h + h->size - sizeof(*id), sizeof(*id));
	else
		memset(id, 0, sizeof(*id));
}

/* The frames of chain in context want, in chain order, at most room of them. */
static uint32_t callchain_part(const uint64_t *chain, uint64_t nr, uint64_t ip, uint64_t want,
			       uint64_t *out, uint32_t room)
{
	uint64_t ctx = PERF_CONTEXT_USER, i;
	uint32_t n = 0;
	bool first = true;

	for (i = 0; i < nr; i++) {
		uint64_t v = chain[i];

		if (v >= (uint64_t)PERF_CONTEXT_MAX) {
			ctx = v;
			continue;
		}
		if (first) {
			first = false;
			if (v == ip)
				continue;	/* the sample's own ip: the contract leaves it out */
		}
		if (ctx == want && n < room)
			out[n++] = v;
	}
	return n;
}

uint32_t perf_callchain_split(const uint64_t *chain, uint64_t nr, uint64_t ip, uint64_t *out,
			      uint32_t max, uint32_t *nr_kernel)
{
	/* two passes keep kernel frames ahead of user frames whatever the order */
	uint32_t nk = callchain_part(chain, nr, ip, PERF_CONTEXT_KERNEL, out, max);
	uint32_t nu = callchain_part(chain, nr, ip, PERF_CONTEXT_USER, out + nk, max - nk);

	/* guest and hypervisor contexts are left out */
	*nr_kernel = nk;
	return nk + nu;
}

/*
 * The call-graph part of a sample after READ: CALLCHAIN {nr, ips}, REGS_USER
 * {abi, regs}, STACK_USER {size, data, dyn_size}; p[0..n) is what is left of
 * the record.  Writes the SAMPLE with its stack and, when there is user
 * state, its USTACK.
 */
static int write_with_stack(struct perf_decoder *d, struct trace_writer *w,
			    const struct trace_sample *ts, const uint64_t *p, uint64_t n)
{
	uint64_t ips[PMIPROF_MAX_STACK], cnr, abi, size = 0, dyn = 0;
	struct trace_ustack u = { 0 };
	uint8_t leaf[PERF_DECODE_LEAF_WORDS_MAX];
	uint32_t nr, nr_kernel = 0, nregs = (uint32_t)__builtin_popcountll(d->regs_mask);
	const uint64_t *chain, *regs = NULL;
	const uint8_t *data = NULL;
	uint64_t q = 0;
	int ret;

	if (n < 1 || p[0] > n - 1)
		return 0;		/* malformed: skipped */
	cnr = p[0];
	chain = p + 1;
	q = 1 + cnr;
	if (q >= n)
		return 0;
	abi = p[q++];
	if (abi) {
		if (n - q < nregs)
			return 0;
		regs = p + q;
		q += nregs;
	}
	if (q >= n)
		return 0;
	size = p[q++];
	if (size) {
		if (size % 8 || (n - q) < size / 8 + 1)
			return 0;
		data = (const uint8_t *)(p + q);
		q += size / 8;
		dyn = p[q++];
		if (dyn > size)
			dyn = size;
	}
	nr = perf_callchain_split(chain, cnr, ts->ip, ips, PMIPROF_MAX_STACK, &nr_kernel);
	ret = trace_write_sample_stack(w, ts, ips, nr, nr_kernel);
	if (ret)
		return ret;
	d->stats->samples++;
	if (nr || abi || dyn)
		d->stats->stacks++;
	if (!abi && !dyn)
		return 0;		/* a kernel thread: no user state */
	u.abi = (uint32_t)abi;
	if (abi) {
		u.regs_mask = d->regs_mask;
		u.nr_regs = nregs;
		u.regs = regs;
	}
	/*
	 * dwarf: a main thread's copy ends where exec's argc/argv/envp/auxv
	 * start (stack_tops.h); other threads' stacks never reach that address.
	 */
	if (d->call_graph == PMIPROF_CALL_GRAPH_DWARF && abi && dyn &&
	    (d->regs_mask >> PERF_REG_X86_SP) & 1) {
		uint64_t sp = regs[__builtin_popcountll(d->regs_mask & ((1ull << PERF_REG_X86_SP) - 1))];
		uint64_t keep = stack_tops_keep(stack_tops_get(&d->tops, ts->pid), sp, data, dyn);

		d->stats->ustack_trimmed += dyn - keep;
		dyn = keep;
	}
	u.size = (uint32_t)dyn;
	u.data = data;
	/* fp: only return-address candidates; dwarf's copy is stored untouched */
	if (d->call_graph == PMIPROF_CALL_GRAPH_FP && dyn <= sizeof(leaf)) {
		memcpy(leaf, data, dyn);
		keep_code_words(d, leaf, dyn);
		u.data = leaf;
	}
	return trace_write_ustack(w, &u);
}

static int do_sample(struct perf_decoder *d, struct trace_writer *w,
		     const struct perf_event_header *h)
{
	const uint64_t *p = (const uint64_t *)(h + 1);
	struct trace_sample ts;
	uint64_t totals[PMIPROF_MAX_EVENTS], deltas[PMIPROF_MAX_EVENTS], nr;
	unsigned int g;
	uint64_t key;
	int win, ret;

	/*
	 * IP, (pid,tid), TIME, (cpu,res), READ{nr, enabled, running, values[nr]}:
	 * the times are read once at the end (backend_perf.c), not per window.
	 */
	if (h->size < sizeof(*h) + 5 * 8)
		return 0;
	memset(&ts, 0, sizeof(ts));
	ts.ip = p[0];
	ts.pid = (uint32_t)p[1];
	ts.tid = (uint32_t)(p[1] >> 32);
	ts.time = p[2];
	ts.cpu = (uint32_t)p[3];
	nr = p[4];
	if (nr != d->nr_ev || h->size < sizeof(*h) + (7 + nr) * 8)
		return 0;
	for (g = 0; g < nr; g++)
		totals[d->group_to_ev[g]] = p[7 + g];

	key = d->per_task ? window_key_task(ts.tid, ts.cpu) : window_key_cpu(ts.cpu);
	win = window_deltas_update_gen(&d->deltas, key, totals, deltas, cpu_loss(d, ts.cpu)->gen);
	if (win < 0)
		return win;
	if (d->filter && !pid_set_contains(&d->pids, ts.pid)) {
		d->stats->filtered++;
		return 0;
	}
	ts.nr = d->nr_ev;
	memcpy(ts.counts, deltas, d->nr_ev * sizeof(deltas[0]));
	switch (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) {
	case PERF_RECORD_MISC_KERNEL:
	case PERF_RECORD_MISC_GUEST_KERNEL:
		ts.flags |= PMIPROF_SAMPLE_F_KERNEL;
		break;
	default:
		ts.flags |= PMIPROF_SAMPLE_F_USER;
	}
	if (d->time_based)
		ts.flags |= PMIPROF_SAMPLE_F_TIME_BASED;
	if (win & WINDOW_FIRST)
		ts.flags |= PMIPROF_SAMPLE_F_FIRST;
	/*
	 * A first window counts from zero, so no generation tells whether its
	 * thread ran here while samples were lost: with a fixed period, a
	 * trigger count of several periods says it; else any earlier loss on
	 * this CPU makes it suspect.
	 */
	if ((win & WINDOW_FIRST) && cpu_loss(d, ts.cpu)->gen &&
	    (!d->trigger_period || deltas[d->trigger] > d->trigger_period * 3 / 2))
		win |= WINDOW_AFTER_LOSS;
	if (win & WINDOW_AFTER_LOSS) {
		ts.flags |= PMIPROF_SAMPLE_F_AFTER_LOSS;
		d->stats->after_loss++;
	}
	if (d->call_graph)
		return write_with_stack(d, w, &ts, p + 7 + nr,
					(h->size - sizeof(*h)) / 8 - (7 + nr));
	ret = trace_write_sample(w, &ts);
	if (!ret)
		d->stats->samples++;
	return ret;
}

static int do_mmap2(struct perf_decoder *d, struct trace_writer *w,
		    const struct perf_event_header *h)
{
	const char *body = (const char *)(h + 1);
	struct trace_mmap m;
	struct sample_id id;
	uint32_t v32[2];
	uint64_t v64[3];

	if (h->size < sizeof(*h) + 64 + sizeof(id))
		return 1;
	trailer(h, &id);
	memset(&m, 0, sizeof(m));
	memcpy(v32, body, 8);
	memcpy(v64, body + 8, 24);
	m.time = id.time;
	m.pid = v32[0];
	m.tid = v32[1];
	m.start = v64[0];
	m.len = v64[1];
	m.pgoff = v64[2];
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		uint8_t n = (uint8_t)body[32];

		m.build_id_len = n > 20 ? 20 : n;
		memcpy(m.build_id, body + 36, m.build_id_len);
	}
	memcpy(&m.prot, body + 56, 4);
	memcpy(&m.flags, body + 60, 4);
	m.path = body + 64;
	if (!memchr(m.path, '\0', h->size - sizeof(*h) - 64))
		return 1;
	if (d->call_graph == PMIPROF_CALL_GRAPH_FP && (m.prot & PROT_EXEC)) {
		int ret = perf_decode_note_exec(d, m.start, m.len);

		if (ret)
			return ret;
	}
	return trace_write_mmap(w, &m);
}

static int do_comm(struct perf_decoder *d, struct trace_writer *w,
		   const struct perf_event_header *h)
{
	const char *body = (const char *)(h + 1);
	struct trace_comm c;
	struct sample_id id;
	uint32_t v32[2];

	if (h->size < sizeof(*h) + 8 + sizeof(id))
		return 1;
	trailer(h, &id);
	memset(&c, 0, sizeof(c));
	memcpy(v32, body, 8);
	c.pid = v32[0];
	c.tid = v32[1];
	c.time = id.time;
	c.comm = body + 8;
	if (!memchr(c.comm, '\0', h->size - sizeof(*h) - 8))
		return 1;
	if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
		c.flags |= PMIPROF_COMM_F_EXEC;
		stack_tops_forget(&d->tops, c.pid);
	}
	return trace_write_comm(w, &c);
}

/* Every window of tid on any CPU starts afresh (new or gone thread). */
static void forget_thread(struct perf_decoder *d, uint32_t tid)
{
	unsigned int c;

	for (c = 0; d->per_task && c < d->nr_cpu_slots; c++)
		window_deltas_forget(&d->deltas, window_key_task(tid, c));
}

static int do_task(struct perf_decoder *d, struct trace_writer *w,
		   const struct perf_event_header *h)
{
	const char *body = (const char *)(h + 1);
	struct trace_task t;
	uint32_t v32[4];

	if (h->size < sizeof(*h) + 24)
		return 1;
	memcpy(v32, body, 16);
	memset(&t, 0, sizeof(t));
	t.pid = v32[0];
	t.ppid = v32[1];
	t.tid = v32[2];
	t.ptid = v32[3];
	memcpy(&t.time, body + 16, 8);
	if (h->type == PERF_RECORD_FORK) {
		if (d->filter && pid_set_contains(&d->pids, t.ppid)) {
			if (pid_set_add(&d->pids, t.pid))
				return -ENOMEM;
			pid_set_thread(&d->pids, t.pid, +1);
		}
		/* A fresh thread: a reused tid must not inherit old totals. */
		forget_thread(d, t.tid);
		return trace_write_fork(w, &t);
	}
	/*
	 * An exited thread's instances are gone: forget them so the map does
	 * not grow with every thread ever seen.  A process leaves the filter
	 * set when its last known thread exits.
	 */
	forget_thread(d, t.tid);
	if (t.tid == t.pid)
		stack_tops_forget(&d->tops, t.pid);
	if (d->filter)
		pid_set_thread(&d->pids, t.pid, -1);
	return trace_write_exit(w, &t);
}

static int write_throttle(struct perf_decoder *d, struct trace_writer *w, uint32_t cpu,
			  uint64_t start, uint64_t end)
{
	struct trace_lost l = {
		.time = end, .cpu = cpu, .reason = PMIPROF_LOST_THROTTLE, .count = 1,
		.duration = start && end > start ? end - start : 0,
	};

	d->stats->throttled++;
	d->stats->throttled_ns += l.duration;
	return trace_write_lost(w, &l);
}

static int do_loss(struct perf_decoder *d, int ring_cpu, struct trace_writer *w,
		   const struct perf_event_header *h)
{
	const char *body = (const char *)(h + 1);
	struct perf_cpu_loss *cl = cpu_loss(d, (uint32_t)ring_cpu);
	struct sample_id id;
	struct trace_lost l;
	uint64_t v[2], t;

	switch (h->type) {
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		if (h->size < sizeof(*h) + (h->type == PERF_RECORD_LOST ? 16 : 8))
			return 1;
		trailer(h, &id);
		memset(&l, 0, sizeof(l));
		if (h->type == PERF_RECORD_LOST) {
			memcpy(v, body, 16);	/* id, lost */
			l.count = v[1];
		} else {
			memcpy(&l.count, body, 8);
		}
		l.time = id.time;
		l.cpu = (uint32_t)ring_cpu;
		l.reason = PMIPROF_LOST_RING_FULL;
		d->stats->lost += l.count;
		cl->gen++;
		return trace_write_lost(w, &l);
	case PERF_RECORD_THROTTLE:
		if (h->size < sizeof(*h) + 8)
			return 1;
		memcpy(&t, body, 8);
		/*
		 * No gen bump here: the kernel logs THROTTLE before it writes
		 * the sample that hit the limit, whose window is complete.
		 */
		if (!cl->throttle_start)
			cl->throttle_start = t ? t : 1;
		return 0;
	case PERF_RECORD_UNTHROTTLE:
		if (h->size < sizeof(*h) + 8)
			return 1;
		memcpy(&t, body, 8);
		cl->gen++;
		t = cl->throttle_start;
		memcpy(&v[0], body, 8);
		cl->throttle_start = 0;
		return write_throttle(d, w, (uint32_t)ring_cpu, t, v[0]);
	}
	return 0;
}

int perf_decode_record(struct perf_decoder *d, int ring_cpu, struct trace_writer *w,
		       const struct perf_event_header *h)
{
	int ret;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		return do_sample(d, w, h);
	case PERF_RECORD_MMAP2:
		ret = do_mmap2(d, w, h);
		break;
	case PERF_RECORD_COMM:
		ret = do_comm(d, w, h);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		ret = do_task(d, w, h);
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		ret = do_loss(d, ring_cpu, w, h);
		return ret > 0 ? 0 : ret;
	default:
		return 0;		/* ITRACE, AUX, KSYMBOL ...: not requested */
	}
	if (ret > 0)
		return 0;		/* malformed: skipped */
	if (!ret)
		d->stats->side_band++;
	return ret;
}

void perf_decode_learn_fork(struct perf_decoder *d, uint32_t pid, uint32_t ppid)
{
	if (pid_set_contains(&d->pids, ppid))
		pid_set_add(&d->pids, pid);
}

int perf_decode_finish(struct perf_decoder *d, struct trace_writer *w, uint64_t end_time)
{
	unsigned int c;
	int ret;

	for (c = 0; c < d->nr_cpu_slots; c++) {
		if (!d->cpus[c].throttle_start)
			continue;
		ret = write_throttle(d, w, c, d->cpus[c].throttle_start, end_time);
		d->cpus[c].throttle_start = 0;
		if (ret)
			return ret;
	}
	return 0;
}
