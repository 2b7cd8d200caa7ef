// SPDX-License-Identifier: GPL-2.0
/* Parallel flat profile over chunk ranges (see parallel.h). */
#include "analysis/parallel.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define MAX_WORKERS 8
#define MIN_CHUNKS_PER_WORKER 2

/* One aggregate: every sample with the same (pid, tid, ip, flags, epoch). */
struct agg {
	uint64_t ip;
	uint32_t pid, tid;
	uint32_t epoch;			/* side-band records of the range before it */
	uint32_t flags;
	uint64_t samples;
	uint64_t counts[PMIPROF_MAX_EVENTS];
};

struct worker {
	const struct session *s;
	uint8_t *image;			/* header + this range's chunks */
	size_t image_len;
	bool image_owned;		/* image lies in its own mapping */
	void *map_base;
	size_t map_len;
	pthread_t thread;
	int err;
	/* aggregates: open addressing over indexes into aggs */
	struct agg *aggs;
	uint32_t nr_aggs, cap_aggs;
	uint32_t *slots, mask;
	/* side-band records in file order, strings copied */
	struct trace_record *side;
	uint32_t nr_side, cap_side;
	/*
	 * region records in file order, definitions' names copied: applied
	 * after the side-band (they place no sample, so they open no epoch)
	 */
	struct trace_record *regs;
	uint32_t nr_regs, cap_regs;
	/* statistics of the range */
	uint64_t samples, kept, first_ns, last_ns;
	bool any_sample;
	struct trace_lost *lost;
	uint32_t nr_lost, cap_lost;
	bool have_finish;
	struct trace_finish finish;
	uint64_t marks, unknown;
	uint64_t summarized, summaries_bad;
};

struct kallsyms_job {
	struct session *s;
	pthread_t thread;
};

bool report_threads_allowed(void)
{
	const char *e = getenv("PMIPROF_JOBS");

	if (e && *e && strtol(e, NULL, 10) <= 1)
		return false;
	return sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

bool parallel_eligible(const struct session *s, const struct profile *p)
{
	const struct filters *f = &s->opts.filt;

	/* Window indexes need every earlier sample counted in order. */
	if (f->have_window || p->nr_hist)
		return false;
	/* Regions open per thread follow the trace's markers in order. */
	if (f->region || p->by == BY_REGION)
		return false;
	/* Stack views resolve each sample's stack in trace order (serial pass). */
	if (s->cs)
		return false;
	/* Times count from the header's start; without one, from the first sample read. */
	if (!s->have_base)
		return false;
	return report_threads_allowed();
}

static inline uint32_t agg_hash(uint64_t ip, uint32_t pid, uint32_t tid, uint32_t epoch)
{
	uint64_t h = ip * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)pid << 32 | tid) * 0xc2b2ae3d27d4eb4fULL ^
		     (uint64_t)epoch * 0x165667b19e3779f9ULL;

	return (uint32_t)(h >> 29);
}

static int agg_grow(struct worker *w)
{
	uint32_t cap = w->mask ? (w->mask + 1) * 2 : 4096, i;
	uint32_t *slots = malloc(cap * sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	memset(slots, 0xff, cap * sizeof(*slots));
	for (i = 0; i < w->nr_aggs; i++) {
		const struct agg *a = &w->aggs[i];
		uint32_t j = agg_hash(a->ip, a->pid, a->tid, a->epoch) & (cap - 1);

		while (slots[j] != UINT32_MAX)
			j = (j + 1) & (cap - 1);
		slots[j] = i;
	}
	free(w->slots);
	w->slots = slots;
	w->mask = cap - 1;
	return 0;
}

/* The aggregate of (ip, pid, tid, flags) at the current epoch, created when new. */
static struct agg *agg_find(struct worker *w, uint64_t ip, uint32_t pid, uint32_t tid,
			    uint32_t flags)
{
	uint32_t epoch = w->nr_side, j, i;
	struct agg *a;

	if (!w->mask || (w->nr_aggs + 1) * 2 > w->mask + 1) {
		if (agg_grow(w))
			return NULL;
	}
	j = agg_hash(ip, pid, tid, epoch) & w->mask;
	for (;; j = (j + 1) & w->mask) {
		i = w->slots[j];
		if (i == UINT32_MAX)
			break;
		a = &w->aggs[i];
		if (a->ip == ip && a->pid == pid && a->tid == tid && a->epoch == epoch &&
		    a->flags == flags)
			return a;
	}
	if (pm_grow(&w->aggs, &w->cap_aggs, (uint64_t)w->nr_aggs + 1, 2048, sizeof(*w->aggs)))
		return NULL;
	i = w->nr_aggs++;
	a = &w->aggs[i];
	memset(a, 0, sizeof(*a));
	a->ip = ip;
	a->pid = pid;
	a->tid = tid;
	a->epoch = epoch;
	a->flags = flags;
	w->slots[j] = i;
	return a;
}

static int add_sample(struct worker *w, const struct trace_sample *smp)
{
	struct agg *a = agg_find(w, smp->ip, smp->pid, smp->tid, smp->flags);
	uint32_t i, n;

	if (!a)
		return -ENOMEM;
	a->samples++;
	n = smp->nr < PMIPROF_MAX_EVENTS ? smp->nr : PMIPROF_MAX_EVENTS;
	for (i = 0; i < n; i++)
		a->counts[i] += smp->counts[i];
	return 0;
}

static int keep_side(struct worker *w, const struct trace_record *rec)
{
	struct trace_record *r;
	const char *str = NULL;
	char *copy = NULL;

	if (pm_grow(&w->side, &w->cap_side, (uint64_t)w->nr_side + 1, 64, sizeof(*w->side)))
		return -ENOMEM;
	if (rec->type == PMIPROF_REC_MMAP)
		str = rec->mmap.path;
	else if (rec->type == PMIPROF_REC_COMM)
		str = rec->comm.comm;
	/* The reader's strings live until its next record: keep a copy. */
	if (str && !(copy = strdup(str)))
		return -ENOMEM;
	r = &w->side[w->nr_side++];
	*r = *rec;
	if (rec->type == PMIPROF_REC_MMAP)
		r->mmap.path = copy;
	else if (rec->type == PMIPROF_REC_COMM)
		r->comm.comm = copy;
	return 0;
}

static int keep_region(struct worker *w, const struct trace_record *rec)
{
	struct trace_record *r;
	char *copy = NULL;

	if (pm_grow(&w->regs, &w->cap_regs, (uint64_t)w->nr_regs + 1, 256, sizeof(*w->regs)))
		return -ENOMEM;
	if (rec->type == PMIPROF_REC_REGION_DEF && !(copy = strdup(rec->region_def.name)))
		return -ENOMEM;
	r = &w->regs[w->nr_regs++];
	*r = *rec;
	if (rec->type == PMIPROF_REC_REGION_DEF)
		r->region_def.name = copy;
	return 0;
}

static int keep_lost(struct worker *w, const struct trace_lost *l)
{
	if (pm_grow(&w->lost, &w->cap_lost, (uint64_t)w->nr_lost + 1, 16, sizeof(*w->lost)))
		return -ENOMEM;
	w->lost[w->nr_lost++] = *l;
	return 0;
}

static void note_times(struct worker *w, uint64_t first, uint64_t last)
{
	if (!w->any_sample || first < w->first_ns)
		w->first_ns = first;
	if (!w->any_sample || last > w->last_ns)
		w->last_ns = last;
	w->any_sample = true;
}

/*
 * A chunk's summary instead of its samples (trace_summary_fn): taken when
 * the chunk lies wholly inside or wholly outside --time, so the profile is
 * exactly what decoding gives; a chunk straddling a --time bound is decoded.
 * The other filters act on (pid, tid, ip), which an entry keeps.
 */
static bool take_summary(void *arg, const struct trace_chunk_summary *sum)
{
	struct worker *w = arg;
	const struct filters *f = &w->s->opts.filt;
	uint64_t t0 = session_time_ns(w->s, sum->time_min), t1 = session_time_ns(w->s, sum->time_max);
	uint32_t i, e, n = sum->nr_events < PMIPROF_MAX_EVENTS ? sum->nr_events : PMIPROF_MAX_EVENTS;
	bool outside = f->have_time && (t1 < f->time_from || t0 > f->time_to);

	if (w->err)
		return false;
	if (f->have_time && !outside && (t0 < f->time_from || t1 > f->time_to))
		return false;
	w->samples += sum->samples;
	note_times(w, t0, t1);
	w->summarized++;
	if (outside)
		return true;
	for (i = 0; i < sum->nr_entries; i++) {
		const struct trace_summary_entry *x = &sum->entries[i];
		struct agg *a = agg_find(w, x->ip, x->pid, x->tid, x->flags);

		if (!a) {
			w->err = -ENOMEM;	/* the worker stops at its next record */
			return true;
		}
		a->samples += x->samples;
		for (e = 0; e < n; e++)
			a->counts[e] += x->counts[e];
	}
	return true;
}

/* Damage is reported by the sequential pass that follows: stay quiet here. */
static void quiet_diag(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct filters *f = &w->s->opts.filt;
	struct trace_reader *r;
	struct trace_record rec;
	int rc;

	rc = trace_reader_open_mem(&r, w->image, w->image_len, w->s->opts.input, quiet_diag,
				   NULL);
	if (rc) {
		w->err = rc;
		return NULL;
	}
	if (!w->s->opts.no_summaries)
		trace_reader_set_summary_fn(r, take_summary, w);
	while (!w->err && (rc = trace_reader_next(r, &rec)) > 0) {
		rc = 0;
		switch (rec.type) {
		case PMIPROF_REC_SAMPLE: {
			uint64_t ns = session_time_ns(w->s, rec.sample.time);

			w->samples++;
			note_times(w, ns, ns);
			if (f->have_time && (ns < f->time_from || ns > f->time_to))
				break;
			rc = add_sample(w, &rec.sample);
			break;
		}
		case PMIPROF_REC_MMAP:
		case PMIPROF_REC_COMM:
		case PMIPROF_REC_FORK:
			rc = keep_side(w, &rec);
			break;
		case PMIPROF_REC_LOST:
			rc = keep_lost(w, &rec.lost);
			break;
		case PMIPROF_REC_REGION_DEF:
		case PMIPROF_REC_REGION:
		case PMIPROF_REC_REGION_ANOMALY:
			rc = keep_region(w, &rec);
			break;
		case PMIPROF_REC_FINISH:
			w->have_finish = true;
			w->finish = rec.finish;
			break;
		case PMIPROF_REC_MARK:
			w->marks++;
			break;
		case PMIPROF_REC_EXIT:
		case PMIPROF_REC_CALLCHAIN:
		case PMIPROF_REC_STACK:		/* flat profiles do not use stacks */
		case PMIPROF_REC_USTACK:
			break;
		default:
			w->unknown++;
			break;
		}
		if (rc)
			break;
	}
	if (rc < 0 && !w->err)
		w->err = rc;
	w->summaries_bad = trace_reader_stats(r)->summaries_bad;
	/* Any damage means the chunk scan missed something: sequential pass. */
	if (!w->err && (trace_reader_stats(r)->chunks_bad || trace_reader_stats(r)->truncated))
		w->err = -EAGAIN;
	trace_reader_close(r);
	return NULL;
}

static void *kallsyms_main(void *arg)
{
	struct kallsyms_job *k = arg;

	/* Reading /proc/kallsyms is slow (the kernel formats it): overlap it. */
	symbolizer_load_kernel(k->s->sy);
	return NULL;
}

/* Offsets of every chunk, or -EAGAIN when the file is not a clean sequence. */
static int scan_chunks(const uint8_t *map, size_t size, size_t *hdr_end, size_t **offs,
		       uint32_t *n)
{
	const struct pmiprof_file_prologue *pr = (const void *)map;
	size_t off, cap = 0;

	*offs = NULL;
	*n = 0;
	if (size < sizeof(*pr) || pr->magic != PMIPROF_TRACE_MAGIC)
		return -EAGAIN;
	off = sizeof(*pr) + pr->header_size;
	*hdr_end = off;
	while (off < size) {
		struct pmiprof_chunk_header ch;

		if (size - off < sizeof(ch))
			goto bad;
		memcpy(&ch, map + off, sizeof(ch));
		if (ch.magic != PMIPROF_CHUNK_MAGIC || ch.csize > PMIPROF_MAX_CHUNK_SIZE ||
		    size - off - sizeof(ch) < ch.csize)
			goto bad;
		if (*n == cap) {
			size_t *o;

			cap = cap ? cap * 2 : 256;
			o = realloc(*offs, cap * sizeof(*o));
			if (!o)
				goto bad;
			*offs = o;
		}
		/* a SUMMARY stays in the range of the chunk before it */
		if (ch.type != PMIPROF_CHUNK_SUMMARY || !*n)
			(*offs)[(*n)++] = off;
		off += sizeof(ch) + ch.csize;
	}
	return 0;
bad:
	free(*offs);
	*offs = NULL;
	return -EAGAIN;
}

/*
 * A worker's image without copying the chunks: a private, writable mapping
 * of the file from the page before the range, with the header written just
 * in front of the first chunk (copy-on-write touches one or two pages).
 */
static int map_range(struct worker *w, int fd, const uint8_t *map, size_t hdr_end, size_t start,
		     size_t end)
{
	size_t from = (start - hdr_end) & ~((size_t)sysconf(_SC_PAGESIZE) - 1);
	uint8_t *m;

	m = mmap(NULL, end - from, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, (off_t)from);
	if (m == MAP_FAILED)
		return -EAGAIN;
	w->map_base = m;
	w->map_len = end - from;
	w->image_owned = true;
	w->image = m + (start - hdr_end - from);
	w->image_len = hdr_end + (end - start);
	memcpy(w->image, map, hdr_end);
	return 0;
}

static void free_worker(struct worker *w)
{
	uint32_t i;

	for (i = 0; i < w->nr_side; i++) {
		if (w->side[i].type == PMIPROF_REC_MMAP)
			free((char *)w->side[i].mmap.path);
		else if (w->side[i].type == PMIPROF_REC_COMM)
			free((char *)w->side[i].comm.comm);
	}
	free(w->side);
	for (i = 0; i < w->nr_regs; i++)
		if (w->regs[i].type == PMIPROF_REC_REGION_DEF)
			free((char *)w->regs[i].region_def.name);
	free(w->regs);
	free(w->aggs);
	free(w->slots);
	free(w->lost);
	if (w->image_owned)
		munmap(w->map_base, w->map_len);
}

static int agg_epoch_cmp(const void *x, const void *y)
{
	const struct agg *a = x, *b = y;

	return a->epoch < b->epoch ? -1 : a->epoch > b->epoch;
}

static int merge_aggs(struct session *s, struct profile *p, struct worker *w, uint32_t from,
		      uint32_t to)
{
	struct trace_sample smp;
	uint32_t i, e, sym, comm;
	int rc;

	memset(&smp, 0, sizeof(smp));
	for (i = from; i < to; i++) {
		const struct agg *a = &w->aggs[i];

		smp.ip = a->ip;
		smp.pid = a->pid;
		smp.tid = a->tid;
		smp.flags = a->flags;
		smp.nr = p->nr_events;
		memcpy(smp.counts, a->counts, sizeof(smp.counts));
		rc = session_classify(s, &smp, &sym, &comm);
		if (rc < 0)
			return rc;
		if (!rc)
			continue;
		s->kept += a->samples;
		session_count_window(s, a->flags, a->samples);
		for (e = 0; window_counts_events(a->flags) && e < p->nr_events; e++)
			s->kept_totals[e] += a->counts[e];
		rc = profile_add_aggregate(p, &smp, a->samples, sym, comm);
		if (rc)
			return rc;
	}
	return 0;
}

/* Replays a worker's side-band records, resolving its aggregates in between. */
static int merge_worker(struct session *s, struct profile *p, struct worker *w)
{
	uint32_t i, a = 0, b;
	int rc;

	w->kept = 0;
	qsort(w->aggs, w->nr_aggs, sizeof(*w->aggs), agg_epoch_cmp);
	for (i = 0; i <= w->nr_side; i++) {
		for (b = a; b < w->nr_aggs && w->aggs[b].epoch == i; b++)
			;
		rc = merge_aggs(s, p, w, a, b);
		if (rc)
			return rc;
		a = b;
		if (i < w->nr_side) {
			rc = session_apply_sideband(s, &w->side[i]);
			if (rc)
				return rc;
		}
	}
	for (i = 0; i < w->nr_regs; i++) {
		rc = session_apply_region(s, &w->regs[i]);
		if (rc)
			return rc;
	}
	for (i = 0; i < w->nr_lost; i++) {
		rc = session_lost(s, &w->lost[i]);
		if (rc)
			return rc;
	}
	if (w->any_sample) {
		if (!s->samples || w->first_ns < s->first_ns)
			s->first_ns = w->first_ns;
		if (w->last_ns > s->last_ns)
			s->last_ns = w->last_ns;
	}
	s->samples += w->samples;
	s->marks += w->marks;
	s->chunks_summarized += w->summarized;
	s->summaries_bad += w->summaries_bad;
	s->unknown_records += w->unknown;
	if (w->have_finish) {
		s->have_finish = true;
		s->finish = w->finish;
	}
	return 0;
}

int parallel_profile(struct session *s, struct profile *p)
{
	struct worker ws[MAX_WORKERS];
	struct kallsyms_job kj = { .s = s };
	size_t *offs = NULL, hdr_end = 0, size;
	uint32_t nchunks, nw, i, k;
	bool kthread = false;
	struct stat st;
	uint8_t *map;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int fd, rc = 0;

	/*
	 * The reader's own descriptor, never the path again: a FIFO opened a
	 * second time waits for a writer forever, and a path may have been
	 * replaced since.  A streamed input (-1) takes the sequential pass.
	 */
	fd = trace_reader_fd(s->r);
	if (fd >= 0)
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || !st.st_size) {
		if (fd >= 0)
			close(fd);
		return -EAGAIN;
	}
	size = (size_t)st.st_size;
	map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		close(fd);
		return -EAGAIN;
	}
	if (scan_chunks(map, size, &hdr_end, &offs, &nchunks) ||
	    nchunks < 2 * MIN_CHUNKS_PER_WORKER) {
		free(offs);
		munmap(map, size);
		close(fd);
		return -EAGAIN;
	}
	nw = (uint32_t)(ncpu < MAX_WORKERS ? ncpu : MAX_WORKERS);
	if (nw > nchunks / MIN_CHUNKS_PER_WORKER)
		nw = nchunks / MIN_CHUNKS_PER_WORKER;
	memset(ws, 0, sizeof(ws));
	/* Ranges of about equal bytes, cut at chunk starts. */
	for (i = 0, k = 0; i < nw; i++) {
		size_t start = offs[k], end, want = hdr_end + (size - hdr_end) * (i + 1) / nw;
		uint32_t k2 = k + 1;

		while (i + 1 < nw && k2 < nchunks && offs[k2] < want)
			k2++;
		if (i + 1 == nw)
			k2 = nchunks;
		end = k2 < nchunks ? offs[k2] : size;
		ws[i].s = s;
		if (i == 0) {
			ws[i].image = map;
			ws[i].image_len = end;
		} else {
			rc = map_range(&ws[i], fd, map, hdr_end, start, end);
			if (rc) {
				nw = i;
				break;
			}
		}
		k = k2;
	}
	free(offs);
	close(fd);
	for (i = 0; i < nw && !rc; i++)
		if (pthread_create(&ws[i].thread, NULL, worker_main, &ws[i])) {
			rc = -EAGAIN;
			nw = i;
		}
	if (!rc && (s->h->flags & PMIPROF_TRACE_F_KERNEL_IPS))
		kthread = !pthread_create(&kj.thread, NULL, kallsyms_main, &kj);
	for (i = 0; i < nw; i++)
		pthread_join(ws[i].thread, NULL);
	if (kthread)
		pthread_join(kj.thread, NULL);
	for (i = 0; i < nw && !rc; i++)
		if (ws[i].err)
			rc = ws[i].err;
	/* Nothing was merged yet: the sequential pass can still start clean. */
	for (i = 0; i < nw && !rc; i++)
		rc = merge_worker(s, p, &ws[i]);
	for (i = 0; i < nw; i++)
		free_worker(&ws[i]);
	munmap(map, size);
	if (!rc)
		s->read_all = true;
	return rc;
}
