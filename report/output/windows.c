// SPDX-License-Identifier: GPL-2.0
/* Per-window rows as table, CSV or JSON, streamed (see windows.h). */
#include "output/windows.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stacks/callstack.h"
#include "analysis/parallel.h"
#include "util.h"

/* Returned by windows_row() to stop the pass once --limit rows are out. */
#define WINDOWS_LIMIT_REACHED 1

/*
 * The rows go out in 1 MiB writes: with stdio's default of one 4 KiB
 * write per block, the kernel's per-write and per-page costs of a 150 MB
 * CSV took as much CPU as making the rows (large writes get large page
 * cache folios).  Not for terminals, which want their lines as they come.
 */
static char out_buf[1 << 20];

void windows_buffer_output(FILE *f)
{
	if (!isatty(fileno(f)))
		setvbuf(f, out_buf, _IOFBF, sizeof(out_buf));
}

void windows_begin(struct windows_out *w)
{
	const struct trace_header *h = w->s->h;
	uint32_t e, k, nev = h->nr_events < PMIPROF_MAX_EVENTS ? h->nr_events : PMIPROF_MAX_EVENTS;
	char fb[64], cb[160];

	switch (w->format) {
	case FMT_CSV:
		fputs("index,time_ns,cpu,pid,tid,comm,symbol,dso", w->f);
		for (e = 0; e < nev; e++) {
			fputc(',', w->f);
			csv_str(w->f, h->events[e].name);
		}
		for (k = 0; k < w->metrics->n; k++) {
			fputc(',', w->f);
			csv_str(w->f, w->metrics->m[k].name);
		}
		fputs(",throttled,after_loss", w->f);
		/* 1.4: traces with code regions only, so older layouts stay as they were */
		if (w->s->h->flags & PMIPROF_TRACE_F_REGIONS)
			fputs(",region", w->f);
		/* Last, so scripts reading the columns before it are unaffected. */
		if (w->s->cs)
			fputs(",stack", w->f);
		fputc('\n', w->f);
		break;
	case FMT_JSON:
		fputs("{", w->f);
		/* The meta counts are only final at the end: JSON gets them last. */
		fputs("\"windows\": [", w->f);
		break;
	default:
		/*
		 * Rows stream as the trace is read: what the trace is comes first,
		 * what reading it found (duration, samples, losses) after the rows.
		 */
		print_meta_trace(w->f, w->s);
		if (w->limit)
			print_meta_line(w->f, "windows: one row per window in trace order, at most "
					"the first %" PRIu64 " after filters (--limit %" PRIu64 "); "
					"what reading found follows the rows", w->limit, w->limit);
		else
			print_meta_line(w->f, "windows: one row per window in trace order; the "
					"trace's counts (duration, samples, losses) follow the "
					"rows");
		print_meta_line(w->f, "attribution: %s", ATTRIBUTION_RULE);
		fprintf(w->f, "%8s %12s %3s %7s %7s", "index", "time_ms", "cpu", "pid", "tid");
		/* One unit per column, in its heading: ns clocks in ms, counts exact. */
		for (e = 0; e < nev; e++) {
			bool ns = event_counts_ns(h->events[e].name);

			if (ns)
				w->ns_events |= 1u << e;
			snprintf(fb, sizeof(fb), "%s%s", column_name(h->events[e].name, cb, sizeof(cb)),
				 ns ? "(ms)" : "");
			fprintf(w->f, " %10s", fb);
		}
		for (k = 0; k < w->metrics->n; k++)
			fprintf(w->f, " %8s", fit(fb, sizeof(fb), column_name(w->metrics->m[k].name,
				cb, sizeof(cb)), 8));
		if (w->s->h->flags & PMIPROF_TRACE_F_REGIONS)
			fprintf(w->f, "  %-12s", "region");
		fprintf(w->f, "  %s\n", "symbol [dso]");
		break;
	}
}

/* The folded stack ("root;...;leaf") of a window, "" when it has none. */
static const char *folded(struct windows_out *w, uint32_t stack)
{
	FILE *m;

	w->stack_buf[0] = 0;
	if (stack == CS_NONE)
		return w->stack_buf;
	m = fmemopen(w->stack_buf, sizeof(w->stack_buf), "w");
	if (!m)
		return w->stack_buf;
	/* A stack longer than the buffer is cut (fmemopen stops writing). */
	callstacks_print_folded(m, w->s->cs, w->s->sy, stack);
	fclose(m);
	w->stack_buf[sizeof(w->stack_buf) - 1] = 0;
	return w->stack_buf;
}

/* "00".."99": two digits per division (printf costs ~20x more per row). */
static const char digits2[201] =
	"0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849"
	"5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

/*
 * From the bit length: log10(2) ~ 1233 / 4096 gives the digits of the
 * smallest number of that length, one comparison the rest (v | 1: 0 has
 * one digit, and no power of ten past 1 is odd).
 */
static inline unsigned int decimal_digits32(uint32_t v)
{
	static const uint32_t pow10[10] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
					    100000000, 1000000000 };
	uint32_t u = v | 1;
	unsigned int t = ((32 - (unsigned int)__builtin_clz(u)) * 1233) >> 12;

	return t + (u >= pow10[t]);
}

/* The n digits of v ending at q (exclusive); 32-bit divisions are the cheap ones. */
static inline void digits32_before(char *q, uint32_t v)
{
	while (v >= 100) {
		unsigned int d = (v % 100) * 2;

		v /= 100;
		q -= 2;
		q[0] = digits2[d];
		q[1] = digits2[d + 1];
	}
	if (v >= 10) {
		q[-2] = digits2[v * 2];
		q[-1] = digits2[v * 2 + 1];
	} else {
		q[-1] = (char)('0' + v);
	}
}

/* v < 10^8 as exactly 8 digits at p (leading zeros). */
static inline void digits8(char *p, uint32_t v)
{
	int i;

	for (i = 6; i >= 0; i -= 2) {
		unsigned int d = (v % 100) * 2;

		v /= 100;
		p[i] = digits2[d];
		p[i + 1] = digits2[d + 1];
	}
}

/* Decimal v followed by sep at p, written in place; returns the end. */
static inline char *put_u64(char *p, uint64_t v, char sep)
{
	unsigned int n;

	if (v <= UINT32_MAX) {
		n = decimal_digits32((uint32_t)v);
		digits32_before(p + n, (uint32_t)v);
		p[n] = sep;
		return p + n + 1;
	}
	/* high part, then 8 digits per 10^8 below it (at most 3 parts) */
	if (v >= 10000000000000000ULL) {
		p = put_u64(p, v / 10000000000000000ULL, 0) - 1;
		v %= 10000000000000000ULL;
		digits8(p, (uint32_t)(v / 100000000));
		p += 8;
	} else {
		p = put_u64(p, v / 100000000, 0) - 1;
	}
	digits8(p, (uint32_t)(v % 100000000));
	p[8] = sep;
	return p + 9;
}

/* A pid or tid and sep: -1 for the kernel's "none" (session_task_id()). */
static inline char *put_task_id(char *p, uint32_t id, char sep)
{
	if (id != UINT32_MAX)
		return put_u64(p, id, sep);
	p[0] = '-';
	p[1] = '1';
	p[2] = sep;
	return p + 3;
}

/* s as one CSV field at p (room for 2 * strlen + 3 bytes); returns the end. */
static char *put_csv_str(char *p, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		size_t n = strlen(s);

		memcpy(p, s, n);
		return p + n;
	}
	*p++ = '"';
	for (; *s; s++) {
		if (*s == '"')
			*p++ = '"';
		*p++ = *s;
	}
	*p++ = '"';
	return p;
}

/*
 * "comm,symbol,dso" of a window, cached per (comm id, symbol id; the
 * symbol names its dso): consecutive windows mostly repeat a few of them.
 * NULL when too long for the cache (the caller then writes the fields).
 */
static const struct csv_mid *csv_mid(struct windows_out *w, uint32_t comm_id, uint32_t sym_id,
				     const char *comm, const char *sym, const char *dso)
{
	struct csv_mid *m = &w->mid[(sym_id * 0x9e3779b1u ^ comm_id) % WINDOWS_CSV_CACHE];
	size_t need;
	char *p;

	if (m->len && m->comm == comm_id && m->sym == sym_id)
		return m;
	need = 2 * (strlen(comm) + strlen(sym) + strlen(dso)) + 12;
	if (need > sizeof(m->text))
		return NULL;
	p = m->text;
	p = put_csv_str(p, comm);
	*p++ = ',';
	p = put_csv_str(p, sym);
	*p++ = ',';
	p = put_csv_str(p, dso);
	m->len = (size_t)(p - m->text);
	m->comm = comm_id;
	m->sym = sym_id;
	return m;
}

/*
 * One CSV row built in a buffer, numbers formatted by hand, written with
 * one fwrite: fprintf alone took ~5,000 instructions a row.
 */
static void csv_row(struct windows_out *w, const struct trace_sample *smp, uint64_t index,
		    uint64_t t, uint32_t comm_id, uint32_t sym_id, const char *comm, const char *sym,
		    const char *dso, uint32_t nev, bool last)
{
	char buf[64 * (8 + PMIPROF_MAX_EVENTS) + sizeof(w->mid[0].text)], *p = buf;
	const struct csv_mid *m = csv_mid(w, comm_id, sym_id, comm, sym, dso);
	uint32_t e, k;
	double v;

	p = put_u64(p, index, ',');
	p = put_u64(p, t, ',');
	p = put_u64(p, smp->cpu, ',');
	p = put_task_id(p, smp->pid, ',');
	p = put_task_id(p, smp->tid, ',');
	if (m) {
		memcpy(p, m->text, m->len);
		p += m->len;
	} else {
		fwrite_unlocked(buf, 1, (size_t)(p - buf), w->f);
		csv_str(w->f, comm);
		fputc_unlocked(',', w->f);
		csv_str(w->f, sym);
		fputc_unlocked(',', w->f);
		csv_str(w->f, dso);
		p = buf;
	}
	for (e = 0; e < nev; e++) {
		*p++ = ',';
		p = put_u64(p, smp->counts[e], 0) - 1;
	}
	if (w->metrics->n) {
		fwrite_unlocked(buf, 1, (size_t)(p - buf), w->f);
		p = buf;
	}
	for (k = 0; k < w->metrics->n; k++) {
		if (metric_value(&w->metrics->m[k], smp->counts, &v))
			fprintf(w->f, ",%.6g", v);
		else
			fputc_unlocked(',', w->f);
	}
	*p++ = ',';
	*p++ = (smp->flags & PMIPROF_SAMPLE_F_THROTTLED) ? '1' : '0';
	*p++ = ',';
	*p++ = (smp->flags & PMIPROF_SAMPLE_F_AFTER_LOSS) ? '1' : '0';
	if (last)
		*p++ = '\n';
	fwrite_unlocked(buf, 1, (size_t)(p - buf), w->f);
}

/*
 * CSV rows of large traces in two stages: this thread reads, filters and
 * symbolizes (the trace's state changes record by record, so that part
 * stays in order), writer threads format the numbers and write, batch by
 * batch in order.  Batches carry their own copies of the name texts, so
 * the writers never read the symbolizer or the session.  The bytes are
 * those of the one-thread path (csv_row()).
 */
#define PIPE_ROWS	8192		/* rows per batch: ~1 MiB of CSV, one write */
#define PIPE_BATCHES	4		/* slack for a thread being preempted */
#define PIPE_AFTER	8192		/* rows written directly before the writers start */
#define PIPE_WRITERS	2		/* at most (CPUs - 1) */

struct pipe_row {
	uint64_t index, t;
	uint32_t flags, nev;
	uint32_t mid, mid_len;		/* "cpu,pid,tid,comm,symbol,dso" in the batch's text */
	uint32_t extra, extra_len;	/* ",region" and ",stack" when present */
	uint32_t counts;		/* its counts in the batch's counts */
};

/* The batch's texts by (cpu, pid, tid, comm, symbol): rows mostly repeat a few. */
struct pipe_mid {
	uint32_t cpu, pid, tid, comm, sym, off, len;	/* len 0: empty */
};

struct pipe_batch {
	struct pipe_row *rows;
	uint32_t n;
	uint64_t *counts;		/* ncounts per row (untouched pages cost nothing) */
	uint32_t counts_len;
	char *text;
	uint32_t text_len, text_cap;
	struct pipe_mid mid[WINDOWS_CSV_CACHE];
	uint64_t seq;			/* order in the output */
	bool full;			/* handed to the writers, until written */
	char *out;			/* its CSV, made by a writer */
	size_t out_len, out_cap;
};

/*
 * Batches are numbered as this thread fills them; a writer takes the next
 * one (seq == taken), formats it into the batch's own buffer, and writes
 * it once every earlier batch is out (seq == written).
 */
struct windows_pipe {
	struct windows_out *w;
	pthread_t thread[PIPE_WRITERS];
	uint32_t nr_threads;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct pipe_batch b[PIPE_BATCHES];
	uint64_t filled, taken, written;	/* batches handed over, taken, written */
	bool done;			/* no more batches */
	int err;			/* a writer's: -ENOMEM */
	/* counts kept per row: the trace's events, which metrics may read */
	uint32_t ncounts;
};

/*
 * Straight to the file descriptor: stdio would copy each MiB once more (it
 * was flushed when the writers started, and nothing else writes until they
 * end).  What write() refuses goes through stdio, whose error flag main()
 * checks, so a full disk or closed pipe is reported as before.
 */
static void pipe_write(FILE *f, const char *buf, size_t len)
{
	size_t off = 0;
	ssize_t n;

	while (off < len) {
		n = write(fileno(f), buf + off, len - off);
		if (n > 0)
			off += (size_t)n;
		else if (n < 0 && errno == EINTR)
			continue;
		else
			break;
	}
	if (off < len)
		fwrite(buf + off, 1, len - off, f);
}

/* b's rows as CSV in b->out: 0 or -ENOMEM. */
static int pipe_format(const struct metric_set *ms, struct pipe_batch *b)
{
	uint32_t i, e, k;
	double v;

	b->out_len = 0;
	for (i = 0; i < b->n; i++) {
		const struct pipe_row *r = &b->rows[i];
		const uint64_t *c = b->counts + r->counts;
		size_t need = 8 + 21 * (2 + (size_t)r->nev) + 32 * (size_t)ms->n + r->mid_len +
			      r->extra_len;
		char *q;

		if (b->out_len + need > b->out_cap) {
			size_t cap = (b->out_cap ? b->out_cap : (size_t)PIPE_ROWS * 128) * 2;
			char *n;

			while (cap < b->out_len + need)
				cap *= 2;
			n = realloc(b->out, cap);
			if (!n)
				return -ENOMEM;
			b->out = n;
			b->out_cap = cap;
		}
		q = b->out + b->out_len;
		q = put_u64(q, r->index, ',');
		q = put_u64(q, r->t, ',');
		memcpy(q, b->text + r->mid, r->mid_len);
		q += r->mid_len;
		for (e = 0; e < r->nev; e++) {
			*q++ = ',';
			q = put_u64(q, c[e], 0) - 1;
		}
		for (k = 0; k < ms->n; k++) {
			*q++ = ',';
			if (metric_value(&ms->m[k], c, &v))
				q += snprintf(q, 31, "%.6g", v);
		}
		*q++ = ',';
		*q++ = (r->flags & PMIPROF_SAMPLE_F_THROTTLED) ? '1' : '0';
		*q++ = ',';
		*q++ = (r->flags & PMIPROF_SAMPLE_F_AFTER_LOSS) ? '1' : '0';
		if (r->extra_len) {
			memcpy(q, b->text + r->extra, r->extra_len);
			q += r->extra_len;
		}
		*q++ = '\n';
		b->out_len = (size_t)(q - b->out);
	}
	return 0;
}

static void *pipe_writer(void *arg)
{
	struct windows_pipe *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct pipe_batch *b;
		int err;

		while (p->taken == p->filled && !p->done)
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->taken == p->filled)	/* done, every batch taken */
			break;
		b = &p->b[p->taken++ % PIPE_BATCHES];
		pthread_mutex_unlock(&p->lock);
		err = p->err ? 0 : pipe_format(p->w->metrics, b);
		pthread_mutex_lock(&p->lock);
		if (err)
			p->err = err;
		while (p->written != b->seq)
			pthread_cond_wait(&p->cond, &p->lock);
		pthread_mutex_unlock(&p->lock);
		/* the only writer until written moves on */
		if (!p->err)
			pipe_write(p->w->f, b->out, b->out_len);
		pthread_mutex_lock(&p->lock);
		b->full = false;
		b->n = 0;
		b->counts_len = 0;
		b->text_len = 0;
		memset(b->mid, 0, sizeof(b->mid));
		p->written++;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void pipe_free(struct windows_pipe *p)
{
	uint32_t i;

	for (i = 0; i < PIPE_BATCHES; i++) {
		free(p->b[i].rows);
		free(p->b[i].counts);
		free(p->b[i].text);
		free(p->b[i].out);
	}
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p);
}

/* Waits for the writers to write every batch handed over, and ends them. */
static int pipe_stop(struct windows_pipe *p)
{
	uint32_t i;
	int err;

	pthread_mutex_lock(&p->lock);
	p->done = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < p->nr_threads; i++)
		pthread_join(p->thread[i], NULL);
	err = p->err;
	pipe_free(p);
	return err;
}

/* The writer threads, or NULL (then the rows go on in this thread). */
static struct windows_pipe *pipe_start(struct windows_out *w)
{
	struct windows_pipe *p = calloc(1, sizeof(*p));
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	/* the reading thread keeps a CPU: it is the slower stage */
	uint32_t i, n = ncpu - 1 > PIPE_WRITERS ? PIPE_WRITERS : ncpu > 2 ? (uint32_t)ncpu - 1 : 1;

	if (!p)
		return NULL;
	p->w = w;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->ncounts = w->s->h->nr_events < PMIPROF_MAX_EVENTS ? w->s->h->nr_events :
		     PMIPROF_MAX_EVENTS;
	for (i = 0; i < PIPE_BATCHES; i++) {
		p->b[i].rows = malloc(PIPE_ROWS * sizeof(*p->b[i].rows));
		p->b[i].counts = malloc(PIPE_ROWS * PMIPROF_MAX_EVENTS * sizeof(uint64_t));
		if (!p->b[i].rows || !p->b[i].counts) {
			pipe_free(p);
			return NULL;
		}
	}
	/* what this thread wrote so far goes out before the writers' rows */
	fflush(w->f);
	for (i = 0; i < n; i++)
		if (pthread_create(&p->thread[i], NULL, pipe_writer, p))
			break;
	p->nr_threads = i;
	if (!i) {
		pipe_free(p);
		return NULL;
	}
	return p;
}

/* Hands the filled batch over and waits for the next one to be free. */
static void pipe_hand_over(struct windows_pipe *p)
{
	pthread_mutex_lock(&p->lock);
	p->b[p->filled % PIPE_BATCHES].seq = p->filled;
	p->b[p->filled % PIPE_BATCHES].full = true;
	p->filled++;
	pthread_cond_broadcast(&p->cond);
	while (p->b[p->filled % PIPE_BATCHES].full)
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

/* Room for n more bytes of text in b. */
static int pipe_text_room(struct pipe_batch *b, size_t n)
{
	if ((uint64_t)b->text_len + n > UINT32_MAX / 2)
		return -ENOMEM;
	return pm_grow(&b->text, &b->text_cap, (uint64_t)b->text_len + n, 65536, 1);
}

static int pipe_row(struct windows_out *w, const struct trace_sample *smp, uint64_t index,
		    uint64_t t, uint32_t comm_id, uint32_t sym_id, uint32_t nev)
{
	struct windows_pipe *p = w->pipe;
	struct pipe_batch *b = &p->b[p->filled % PIPE_BATCHES];
	struct pipe_mid *m = &b->mid[(sym_id * 0x9e3779b1u ^ comm_id ^ smp->tid * 0x85ebca6bu ^
				      smp->cpu) % WINDOWS_CSV_CACHE];
	const struct session *s = w->s;
	struct pipe_row *r = &b->rows[b->n];
	uint32_t e, n;
	char *q;

	if (!m->len || m->comm != comm_id || m->sym != sym_id || m->tid != smp->tid ||
	    m->pid != smp->pid || m->cpu != smp->cpu) {
		const struct sym *y = symbolizer_sym(s->sy, sym_id);
		const char *dso = symbolizer_dso_info(s->sy, y->dso)->name;
		const char *comm = session_comm(s, comm_id);

		if (pipe_text_room(b, 2 * (strlen(comm) + strlen(y->name) + strlen(dso)) + 48))
			return -ENOMEM;
		q = b->text + b->text_len;
		q = put_u64(q, smp->cpu, ',');
		q = put_task_id(q, smp->pid, ',');
		q = put_task_id(q, smp->tid, ',');
		q = put_csv_str(q, comm);
		*q++ = ',';
		q = put_csv_str(q, y->name);
		*q++ = ',';
		q = put_csv_str(q, dso);
		m->cpu = smp->cpu;
		m->pid = smp->pid;
		m->tid = smp->tid;
		m->comm = comm_id;
		m->sym = sym_id;
		m->off = b->text_len;
		m->len = (uint32_t)(q - b->text) - b->text_len;
		b->text_len += m->len;
	}
	r->index = index;
	r->t = t;
	r->flags = smp->flags;
	r->nev = nev;
	/*
	 * The metrics read the trace's events, also past a short sample's own
	 * (as csv_row() does).  Fixed-size copies: a variable memcpy's rep
	 * movs costs more than the copy of a few counts.
	 */
	n = nev > p->ncounts ? nev : p->ncounts;
	r->counts = b->counts_len;
	if (n <= 4) {
		/* slots past n are the next row's; the buffer has 16 a row */
		memcpy(b->counts + b->counts_len, smp->counts, 4 * sizeof(uint64_t));
	} else {
		for (e = 0; e < n; e++)
			b->counts[b->counts_len + e] = smp->counts[e];
	}
	b->counts_len += n;
	r->mid = m->off;
	r->mid_len = m->len;
	r->extra = b->text_len;
	r->extra_len = 0;
	if (s->h->flags & PMIPROF_TRACE_F_REGIONS) {
		const char *rn = regions_name(&s->reg, s->region);

		if (pipe_text_room(b, 2 * strlen(rn) + 4))
			return -ENOMEM;
		q = b->text + b->text_len;
		*q++ = ',';
		q = put_csv_str(q, rn);
		b->text_len = (uint32_t)(q - b->text);
	}
	if (s->cs) {
		const char *st = folded(w, s->stack);

		if (pipe_text_room(b, 2 * strlen(st) + 4))
			return -ENOMEM;
		q = b->text + b->text_len;
		*q++ = ',';
		q = put_csv_str(q, st);
		b->text_len = (uint32_t)(q - b->text);
	}
	r->extra_len = b->text_len - r->extra;
	if (++b->n == PIPE_ROWS)
		pipe_hand_over(p);
	return 0;
}

int windows_flush(struct windows_out *w)
{
	struct windows_pipe *p = w->pipe;

	if (!p)
		return 0;
	w->pipe = NULL;
	if (p->b[p->filled % PIPE_BATCHES].n) {
		pthread_mutex_lock(&p->lock);
		p->b[p->filled % PIPE_BATCHES].seq = p->filled;
		p->b[p->filled % PIPE_BATCHES].full = true;
		p->filled++;
		pthread_mutex_unlock(&p->lock);
	}
	return pipe_stop(p);
}

/* CSV rows through the writer thread (once started): names only on a cache miss. */
static int windows_row_piped(struct windows_out *w, const struct trace_sample *smp,
			     uint64_t index, uint32_t sym, uint32_t comm)
{
	uint64_t t = smp->time > w->s->base_time ? smp->time - w->s->base_time : 0;
	uint32_t nev = smp->nr < PMIPROF_MAX_EVENTS ? smp->nr : PMIPROF_MAX_EVENTS;
	int rc;

	if (w->s->time_scale != 1.0)
		t = (uint64_t)((double)t * w->s->time_scale);
	rc = pipe_row(w, smp, index, t, comm, sym, nev);
	if (rc)
		return rc;
	w->rows++;
	return w->limit && w->rows >= w->limit ? WINDOWS_LIMIT_REACHED : 0;
}

/* One row in this thread, in any format. */
static int windows_row_one(struct windows_out *w, const struct trace_sample *smp, uint64_t index,
			   uint32_t sym, uint32_t comm)
{
	const struct session *s = w->s;
	const struct sym *y = symbolizer_sym(s->sy, sym);
	const struct dso_info *d = symbolizer_dso_info(s->sy, y->dso);
	uint64_t t = smp->time > s->base_time ? smp->time - s->base_time : 0;
	uint32_t e, k, nev = smp->nr < PMIPROF_MAX_EVENTS ? smp->nr : PMIPROF_MAX_EVENTS;
	int thr = (smp->flags & PMIPROF_SAMPLE_F_THROTTLED) != 0;
	int aft = (smp->flags & PMIPROF_SAMPLE_F_AFTER_LOSS) != 0, br;
	double v;

	if (s->time_scale != 1.0)
		t = (uint64_t)((double)t * s->time_scale);
	switch (w->format) {
	case FMT_CSV:
		br = (s->h->flags & PMIPROF_TRACE_F_REGIONS) || s->cs;
		csv_row(w, smp, index, t, comm, sym, session_comm(s, comm), y->name, d->name, nev,
			!br);
		if (!br)
			break;
		if (s->h->flags & PMIPROF_TRACE_F_REGIONS) {
			fputc(',', w->f);
			csv_str(w->f, regions_name(&s->reg, s->region));
		}
		if (s->cs) {
			fputc(',', w->f);
			csv_str(w->f, folded(w, s->stack));
		}
		fputc('\n', w->f);
		break;
	case FMT_JSON:
		fprintf(w->f, "%s\n {\"index\": %" PRIu64 ", \"time_ns\": %" PRIu64 ", \"cpu\": %u, "
			"\"pid\": %lld, \"tid\": %lld, \"comm\": ", w->rows ? "," : "", index, t,
			smp->cpu, session_task_id(smp->pid), session_task_id(smp->tid));
		json_str(w->f, session_comm(s, comm));
		fputs(", \"symbol\": ", w->f);
		json_str(w->f, y->name);
		fputs(", \"dso\": ", w->f);
		json_str(w->f, d->name);
		fputs(", \"counts\": [", w->f);
		for (e = 0; e < nev; e++)
			fprintf(w->f, "%s%" PRIu64, e ? ", " : "", smp->counts[e]);
		fputs("], \"metrics\": [", w->f);
		for (k = 0; k < w->metrics->n; k++) {
			if (metric_value(&w->metrics->m[k], smp->counts, &v))
				fprintf(w->f, "%s%.6g", k ? ", " : "", v);
			else
				fprintf(w->f, "%snull", k ? ", " : "");
		}
		fprintf(w->f, "], \"throttled\": %s, \"after_loss\": %s", thr ? "true" : "false",
			aft ? "true" : "false");
		if (s->h->flags & PMIPROF_TRACE_F_REGIONS) {
			fputs(", \"region\": ", w->f);
			json_str(w->f, regions_name(&s->reg, s->region));
		}
		if (s->cs) {
			fputs(", \"stack\": ", w->f);
			json_str(w->f, folded(w, s->stack));
		}
		fputc('}', w->f);
		break;
	default:
		fprintf(w->f, "%8" PRIu64 " %12.3f %3u %7lld %7lld", index, (double)t / 1e6, smp->cpu,
			session_task_id(smp->pid), session_task_id(smp->tid));
		for (e = 0; e < nev; e++)
			if (w->ns_events & (1u << e))
				fprintf(w->f, " %10.3f", (double)smp->counts[e] / 1e6);
			else
				fprintf(w->f, " %10" PRIu64, smp->counts[e]);
		for (k = 0; k < w->metrics->n; k++) {
			if (metric_value(&w->metrics->m[k], smp->counts, &v))
				fprintf(w->f, " %8.3f", v);
			else
				fprintf(w->f, " %8s", "-");
		}
		/*
		 * Listed like the others, but marked: per-window statistics leave
		 * them out.  Pseudo DSOs ([kernel.kallsyms], [vdso]) have brackets.
		 */
		if (s->h->flags & PMIPROF_TRACE_F_REGIONS)
			/* Whole: rows stream, so a cut could not be checked for uniqueness. */
			fprintf(w->f, "  %-12s", regions_name(&s->reg, s->region));
		br = d->short_name[0] != '[';
		fprintf(w->f, "  %s %s%s%s%s\n", y->name, br ? "[" : "", d->short_name, br ? "]" : "",
			thr && aft ? "  (after loss, throttled)" : thr ? "  (throttled)" :
			aft ? "  (after loss)" : "");
		break;
	}
	w->rows++;
	/* Stop reading at once: the counts then cover exactly what was shown. */
	return w->limit && w->rows >= w->limit ? WINDOWS_LIMIT_REACHED : 0;
}

int windows_row(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
		uint32_t comm)
{
	struct windows_out *w = arg;

	if (w->threads) {
		if (!w->pipe && w->rows == PIPE_AFTER) {
			w->pipe = pipe_start(w);
			w->threads = w->pipe != NULL;
		}
		if (w->pipe)
			return windows_row_piped(w, smp, index, sym, comm);
	}
	return windows_row_one(w, smp, index, sym, comm);
}

void windows_end(struct windows_out *w)
{
	const struct trace_header *h = w->s->h;
	uint32_t e, k, nev = h->nr_events < PMIPROF_MAX_EVENTS ? h->nr_events : PMIPROF_MAX_EVENTS;

	switch (w->format) {
	case FMT_CSV:
		break;
	case FMT_JSON:
		fputs("\n],\n\"columns\": {\"counts\": [", w->f);
		for (e = 0; e < nev; e++) {
			fputs(e ? ", " : "", w->f);
			json_str(w->f, h->events[e].name);
		}
		fputs("], \"metrics\": [", w->f);
		for (k = 0; k < w->metrics->n; k++) {
			fputs(k ? ", " : "", w->f);
			json_str(w->f, w->metrics->m[k].name);
		}
		fprintf(w->f, "]},\n\"rows\": %" PRIu64 ", \"limit_reached\": %s,\n", w->rows,
			w->s->read_all ? "false" : "true");
		print_meta_json(w->f, w->s);
		fputs("}\n", w->f);
		break;
	default:
		if (w->s->read_all) {
			print_meta_line(w->f, "%" PRIu64 " window(s) shown; the whole trace was read:",
					w->rows);
			print_meta_counts(w->f, w->s);
			break;
		}
		/* Stopped by --limit: only the start of the trace was read. */
		print_meta_line(w->f, "%" PRIu64 " window(s) shown (--limit %" PRIu64 "): reading "
				"stopped %.3f ms into the recording, after %" PRIu64 " of its "
				"samples; the trace's totals were not counted (the flat profile, "
				"without --windows, has them)", w->rows, w->limit,
				session_duration_s(w->s) * 1e3, w->s->samples);
		break;
	}
}
