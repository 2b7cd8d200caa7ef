// SPDX-License-Identifier: GPL-2.0
/*
 * Trace writer: encodes records into a chunk buffer, compresses each full
 * chunk (zstd by default, or raw deflate) and writes it with its header in
 * one write(), followed in the same write by the chunk's flat-profile
 * SUMMARY chunk when every record in it is a sample (or belongs to one).
 * A file cut at any moment is therefore valid up to its last complete
 * chunk.  I/O errors are
 * sticky; on a failed chunk write the file is truncated back to the last
 * complete chunk when it is a regular file, which also gives back the room
 * the partial write took, so trace_writer_recover() can still end a trace
 * on a full disk with a small chunk saying why it ends there.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <libdeflate.h>
#include <zlib.h>
#define ZSTD_STATIC_LINKING_ONLY	/* ZSTD_c_stableInBuffer */
#include <zstd.h>

#include "pmiprof/trace.h"
#include "trace_codec.h"
#include "trace_header.h"
#include "varint.h"
#include "util.h"

#define DEFAULT_CHUNK_SIZE	(256u << 10)
#define HDR			sizeof(struct pmiprof_chunk_header)
/*
 * Room after chunk_size for what may cross it: one record of any size, or
 * (the chunk is not closed between them) a STACK, its SAMPLE and what
 * belongs to that sample (USTACK, CALLCHAIN).
 */
#define SLACK			(PMIPROF_MAX_RECORD_SIZE + TRACE_STACK_BODY_MAX + \
				 TRACE_SAMPLE_BODY_MAX + 4 * TRACE_RECORD_HEAD_MAX + 64)
_Static_assert(TRACE_USTACK_BODY_MAX + 10 * PMIPROF_MAX_CALLCHAIN <= PMIPROF_MAX_RECORD_SIZE,
	       "SLACK covers a USTACK and a CALLCHAIN after a sample");

/*
 * Stacks interned in the open chunk: an open-addressed table of ids (a slot
 * is empty unless its gen is the chunk's) over per-id entries whose frames
 * live in one arena.  Everything is dropped with the chunk, so ids restart
 * at 0 and every chunk decodes on its own.
 */
struct stack_ent {
	uint64_t hash;
	size_t off;			/* first frame in the arena */
	uint32_t nr, nr_kernel;
};

struct stack_slot {
	uint32_t gen;
	uint32_t id;
};

struct stack_table {
	struct stack_slot *slots;
	uint32_t mask;			/* slots - 1 (power of two), 0 before first use */
	uint32_t gen;			/* of the open chunk */
	struct stack_ent *ents;		/* by id */
	uint32_t cap_ents;
	uint64_t *frames;
	size_t nr_frames, cap_frames;
};

/*
 * The open chunk's flat-profile aggregates, one per (pid, tid, ip, flags):
 * an open-addressed table whose slots hold the key (a slot is empty unless
 * its gen is the chunk's) and, in a parallel array, a row of the sample
 * count and nr_events sums, so that a hit reads one slot and adds into the
 * row at the same index.  ents lists the used slots (the summary sorts
 * it by key).
 */
struct sum_slot {
	uint64_t ip;
	uint64_t pid_tid;		/* pid | tid << 32, as trace_sample holds them */
	uint32_t flags;
	uint32_t gen;
};

struct sum_table {
	struct sum_slot *slots;
	uint32_t mask;			/* slots - 1, 0 before first use */
	uint32_t gen;
	uint32_t *ents;			/* the used slots */
	uint64_t *counts;		/* per slot: samples, then nr_events sums */
	uint32_t nr, cap;
	uint64_t time_min;		/* (the latest is the chunk's chunk_last_time) */
	bool other;			/* a record that does not belong to a sample */
	uint8_t *buf;			/* encoded summary: HDR + payload */
	size_t buf_cap;
	uint8_t *out;			/* compressed summary: HDR + payload */
	size_t out_cap;
};

struct trace_writer {
	const struct trace_writer_tap *tap;	/* trace_writer_set_tap(), or NULL */
	int fd;
	int err;			/* sticky -errno */
	int first_err;			/* kept across trace_writer_recover() for close() */
	bool set_flags;			/* trace_writer_set_flags() called */
	uint32_t flags;			/* its value, written into the prologue at close */
	int level;			/* codec level; 0 = store */
	int compressor;			/* PMIPROF_TRACE_CODEC_ZSTD or _DEFLATE */
	bool summaries;
	bool records2;			/* RECORDS2 chunks (opts.records2) */
	bool cols;			/* RECORDS4 chunks (the default), else RECORDS3 */
	uint64_t step;			/* the header's TIME_STEP (RECORDS4) */
	uint32_t ncols, hi;		/* RECORDS4: streams, and which is HI */
	struct trace_wcols col;		/* RECORDS4: the streams but MAIN */
	uint8_t *colbase[TRACE_COLS_MAX];	/* where each starts */
	uint8_t col_mode[TRACE_COLS_MAX];	/* enum col_mode of each stream */
	uint8_t col_left[TRACE_COLS_MAX];	/* chunks until it is judged again */
	uint8_t *judge_buf;		/* a judged stream's literals-only form */
	size_t judge_cap;
	ZSTD_Sequence *seqs;		/* literals-only frames: one delimiter a block */
	size_t nr_seqs;
	uint64_t col_streams[3];	/* non-empty streams written, by enum col_mode */
	uint32_t col_chunk[3];		/* the same in the chunk being compressed */
	uint8_t *colbuf;		/* their memory */
	uint32_t nr_events;
	uint8_t predict[PMIPROF_MAX_EVENTS];	/* PMIPROF_PREDICT_* per event, as in the header */
	const uint8_t *pred;		/* predict, or NULL when all are PREV (a faster loop) */
	uint32_t chunk_size;
	uint32_t seq;
	uint32_t nr_records;		/* in the open chunk */
	size_t used;			/* payload bytes in the open chunk */
	uint8_t *raw;			/* HDR + payload being built */
	uint8_t *out;			/* HDR + deflated payload */
	size_t out_cap;
	uint64_t bytes;			/* file bytes written, all complete */
	uint32_t chunk_samples;		/* SAMPLE records in the open chunk */
	uint32_t fast_left;		/* samples that may take write_sample_fast() */
	uint32_t samples_since_side;	/* of them, after its last side-band record */
	uint64_t chunk_last_time;	/* their latest time */
	uint64_t samples;		/* SAMPLE records in complete chunks */
	uint64_t last_time;		/* their latest time */
	struct trace_codec codec;
	z_stream zs;
	bool zs_ready;
	ZSTD_CCtx *zc;
	struct sum_table sum;
	bool flush_due;			/* chunk full after a stack sample: close it at the next record */
	bool ustack_ok;			/* the last record was written by trace_write_sample_stack */
	struct stack_table st;
};

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENOSPC;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A failed write: drop the partial unit (best effort: pipes cannot be truncated), keep err. */
static int write_failed(struct trace_writer *w, int err)
{
	if (ftruncate(w->fd, (off_t)w->bytes) == 0)
		lseek(w->fd, (off_t)w->bytes, SEEK_SET);
	w->err = err;
	if (!w->first_err)
		w->first_err = err;
	return err;
}

/* Write one complete unit (prologue+header, or a chunk); keep the file whole on failure. */
static int emit(struct trace_writer *w, const uint8_t *p, size_t len)
{
	int err = write_all(w->fd, p, len);

	if (err)
		return write_failed(w, err);
	w->bytes += len;
	return 0;
}

static int sum_room(struct trace_writer *w);

static void free_writer(struct trace_writer *w)
{
	if (w->zs_ready)
		deflateEnd(&w->zs);
	ZSTD_freeCCtx(w->zc);
	free(w->judge_buf);
	free(w->seqs);
	free(w->sum.slots);
	free(w->sum.ents);
	free(w->sum.counts);
	free(w->sum.buf);
	free(w->sum.out);
	free(w->raw);
	free(w->colbuf);
	free(w->out);
	free(w->st.slots);
	free(w->st.ents);
	free(w->st.frames);
	free(w);
}

static int zlib_strategy(int s)
{
	switch (s) {
	case PMIPROF_TRACE_STRATEGY_DEFAULT:
	case PMIPROF_TRACE_STRATEGY_HUFFMAN: return Z_HUFFMAN_ONLY;
	case PMIPROF_TRACE_STRATEGY_LZ77: return Z_DEFAULT_STRATEGY;
	case PMIPROF_TRACE_STRATEGY_RLE: return Z_RLE;
	default: return -1;
	}
}

static bool time_event(const struct trace_event_desc *e)
{
	/* PERF_TYPE_SOFTWARE cpu-clock (0) and task-clock (1): nanoseconds of the window */
	return e->type == 1 && e->config <= 1;
}

/*
 * The nominal time step for RECORDS4 (header TIME_STEP) when the caller
 * gives none: windows closed by a timer or a time event (cpu-clock,
 * task-clock) at a fixed frequency or period are that far apart, give or
 * take jitter, so the step is stored against it rather than against the
 * previous step (whose own jitter would double the residual's).
 */
static void choose_time_step(struct trace_header *h)
{
	uint64_t clk = h->clock_freq_hz ? h->clock_freq_hz : 1000000000ull;

	if (h->time_step)
		return;
	if (!(h->flags & PMIPROF_TRACE_F_TIME_BASED) &&
	    !(h->trigger_index < h->nr_events && h->trigger_index < PMIPROF_MAX_EVENTS &&
	      time_event(&h->events[h->trigger_index])))
		return;
	if (h->trigger_flags & PMIPROF_TRIGGER_F_FREQ) {
		if (h->freq_hz)
			h->time_step = clk / h->freq_hz;
	} else if (h->period && h->period < UINT64_MAX / clk) {
		h->time_step = h->period * clk / 1000000000ull;	/* a period in ns */
	}
}

/*
 * Count predictors for a header that names none: a time event (cpu-clock,
 * task-clock) from an earlier one, which counted nearly the same time, or
 * else from the sample's time step; everything else from its previous
 * count.  On real time-based recordings this takes ~1.6 bytes a sample
 * less after compression (docs/trace-format.md).
 */
static void choose_predictors(struct trace_header *h)
{
	uint32_t i, j;

	if (h->nr_events > PMIPROF_MAX_EVENTS)
		return;		/* refused by the caller */
	for (i = 0; i < h->nr_events; i++)
		if (h->predict[i])
			return;		/* the caller's choice */
	for (i = 0; i < h->nr_events; i++) {
		if (!time_event(&h->events[i]))
			continue;
		h->predict[i] = PMIPROF_PREDICT_TIME;
		for (j = 0; j < i; j++)
			if (time_event(&h->events[j])) {
				h->predict[i] = PMIPROF_PREDICT_EVENT + j;
				break;
			}
	}
}

int trace_writer_fdopen(struct trace_writer **wp, int fd, const struct trace_header *hdr,
			const struct trace_writer_opts *opts)
{
	struct pmiprof_file_prologue pro = {
		.magic = PMIPROF_TRACE_MAGIC,
		.version_major = PMIPROF_TRACE_VERSION_MAJOR,
		.version_minor = PMIPROF_TRACE_VERSION_MINOR,
		.flags = hdr->flags,
	};
	struct trace_writer *w;
	struct trace_header *h = NULL;
	uint8_t *hbuf = NULL, *first = NULL;
	size_t hlen = 0;
	uint32_t i;
	int err, strategy;

	*wp = NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		close(fd);
		return -ENOMEM;
	}
	w->fd = fd;
	w->level = opts && opts->level >= 0 ? opts->level : 1;
	w->compressor = opts && opts->codec ? opts->codec : PMIPROF_TRACE_CODEC_ZSTD;
	w->summaries = !(opts && opts->no_summary);
	w->records2 = opts && opts->records2;
	w->cols = !w->records2 && !(opts && opts->records3);
	w->chunk_size = opts && opts->chunk_size ? opts->chunk_size : DEFAULT_CHUNK_SIZE;
	err = -ENOMEM;
	h = malloc(sizeof(*h));
	if (!h)
		goto fail;
	*h = *hdr;
	choose_predictors(h);
	if (w->cols)
		choose_time_step(h);
	w->step = h->time_step;
	w->nr_events = h->nr_events;
	w->st.gen = 1;		/* slot gen 0 = empty */
	w->sum.gen = 1;
	w->sum.time_min = UINT64_MAX;
	strategy = zlib_strategy(opts ? opts->strategy : PMIPROF_TRACE_STRATEGY_DEFAULT);
	err = -EINVAL;
	if (w->chunk_size < 64 || w->chunk_size > PMIPROF_MAX_CHUNK_SIZE - SLACK || strategy < 0 ||
	    (w->compressor != PMIPROF_TRACE_CODEC_ZSTD && w->compressor != PMIPROF_TRACE_CODEC_DEFLATE) ||
	    w->level > 9 ||
	    w->nr_events > PMIPROF_MAX_EVENTS)
		goto fail;
	for (i = 0; i < w->nr_events; i++) {
		if (h->predict[i] > PMIPROF_PREDICT_EVENT + i - 1)	/* an earlier event */
			goto fail;
		w->predict[i] = (uint8_t)h->predict[i];
		if (w->predict[i])
			w->pred = w->predict;
	}
	err = -ENOMEM;
	w->raw = malloc(HDR + TRACE_COL_TABLE(PMIPROF_MAX_EVENTS) + w->chunk_size + SLACK);
	if (!w->raw)
		goto fail;
	if (w->cols) {
		/* a stream closes the chunk when full, after at most one more sample */
		size_t room = w->chunk_size + 2 * TRACE_COL_SAMPLE_MAX;

		w->ncols = TRACE_COLS(w->nr_events);
		w->hi = TRACE_COL_HI(w->nr_events);
		w->colbuf = malloc(room * (w->ncols - 1));
		if (!w->colbuf)
			goto fail;
		for (i = 1; i < w->ncols; i++)
			w->col.lo[i] = w->colbase[i] = w->colbuf + room * (i - 1);
		w->col.ip = w->colbase[TRACE_COL_IP];
		w->col.hi = w->colbase[w->hi];
		w->used = TRACE_COL_TABLE(w->nr_events);	/* room for the stream table */
	}
	if (w->summaries && sum_room(w))	/* sum_add() probes without a test */
		goto fail;
	if (w->level > 0 && w->compressor == PMIPROF_TRACE_CODEC_ZSTD) {
		/* one frame per chunk, no frame checksum: the chunk has a CRC */
		w->zc = ZSTD_createCCtx();
		if (!w->zc || ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel,
								   w->level)))
			goto fail;
		/*
		 * RECORDS4 hands zstd the whole payload, stream by stream, in one
		 * growing buffer: no copy into its window (an experimental
		 * parameter; without it zstd copies, same output)
		 */
		ZSTD_CCtx_setParameter(w->zc, ZSTD_c_stableInBuffer, 1);
		/*
		 * + block headers where RECORDS4 ends a block at each stream's
		 * end, and frame headers where it starts a frame
		 */
		w->out_cap = HDR + ZSTD_compressBound(w->chunk_size + SLACK +
						      TRACE_COL_TABLE(PMIPROF_MAX_EVENTS)) +
			     32 * TRACE_COLS_MAX;
		w->out = malloc(w->out_cap);
		if (!w->out)
			goto fail;
		/* a stream is at most the chunk; a block at most ZSTD_BLOCKSIZE_MAX */
		w->judge_cap = w->out_cap;
		w->judge_buf = malloc(w->judge_cap);
		w->nr_seqs = TRACE_COLS_MAX * ((w->chunk_size + SLACK) / ZSTD_BLOCKSIZE_MAX + 2);
		w->seqs = calloc(w->nr_seqs, sizeof(*w->seqs));
		if (!w->judge_buf || !w->seqs ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_blockDelimiters,
							ZSTD_sf_explicitBlockDelimiters)))
			goto fail;
	} else if (w->level > 0) {
		if (deflateInit2(&w->zs, w->level, Z_DEFLATED, -15, 8, strategy) != Z_OK)
			goto fail;
		w->zs_ready = true;
		w->out_cap = HDR + deflateBound(&w->zs, w->chunk_size + SLACK +
						TRACE_COL_TABLE(PMIPROF_MAX_EVENTS));
		w->out = malloc(w->out_cap);
		if (!w->out)
			goto fail;
	}
	err = trace_header_encode(h, &hbuf, &hlen);
	if (err)
		goto fail;
	pro.header_size = (uint32_t)hlen;
	pro.header_crc = libdeflate_crc32(0, hbuf, hlen);
	err = -ENOMEM;
	first = malloc(sizeof(pro) + hlen);
	if (!first)
		goto fail;
	memcpy(first, &pro, sizeof(pro));
	memcpy(first + sizeof(pro), hbuf, hlen);
	err = emit(w, first, sizeof(pro) + hlen);
	if (err)
		goto fail;
	free(first);
	free(hbuf);
	free(h);
	*wp = w;
	return 0;
fail:
	free(first);
	free(hbuf);
	free(h);
	close(fd);
	free_writer(w);
	return err;
}

int trace_writer_open(struct trace_writer **wp, const char *path, const struct trace_header *h,
		      const struct trace_writer_opts *opts)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	*wp = NULL;
	if (fd < 0)
		return -errno;
	return trace_writer_fdopen(wp, fd, h, opts);
}

static void drop_open_chunk(struct trace_writer *w)
{
	w->nr_records = 0;
	w->used = w->cols ? TRACE_COL_TABLE(w->nr_events) : 0;
	w->col.n = 0;
	if (w->cols) {
		w->col.ip = w->colbase[TRACE_COL_IP];
		w->col.hi = w->colbase[w->hi];
	}
	w->chunk_samples = 0;
	w->samples_since_side = 0;
	w->chunk_last_time = 0;
	w->flush_due = false;
	w->ustack_ok = false;
	trace_codec_reset(&w->codec);
	/* a new generation empties the stack table; ids restart with codec.nr_stacks */
	if (++w->st.gen == 0) {
		if (w->st.slots)
			memset(w->st.slots, 0, (w->st.mask + 1) * sizeof(*w->st.slots));
		w->st.gen = 1;
	}
	w->st.nr_frames = 0;
	w->sum.nr = 0;
	w->sum.time_min = UINT64_MAX;
	w->sum.other = false;
	if (++w->sum.gen == 0) {
		if (w->sum.slots)
			memset(w->sum.slots, 0, (w->sum.mask + 1) * sizeof(*w->sum.slots));
		w->sum.gen = 1;
	}
}

/*
 * How each stream of a RECORDS4 chunk is compressed.  Every COL_JUDGE
 * chunks a stream is compressed with zstd level 1 and, on the side, as
 * literals only, and the sizes choose its form until it is judged again:
 * - COL_RAW when neither shrinks it below RAW_PERCENT: noise (time and
 *   counter jitter, high bytes) costs the Huffman coder about as much time
 *   as a stream that compresses well, for a few per cent of its bytes;
 * - COL_HUF (literals only: Huffman, no match search) when that comes
 *   within HUF_PERCENT of level 1: where matches save little (MAIN of a
 *   jittery stream: 16 % of its bytes) the match search and sequence
 *   coding were a fifth of the writer's time;
 * - else COL_LZ: runs of zeros and repeated patterns (rare events, one
 *   thread's MAIN) compress far below Huffman's bit a byte.
 * A stream compressed with level 1 that stops shrinking below RAW_PERCENT
 * goes raw at once.  Only streams of COL_MIN bytes or more are judged: the
 * small chunks of a recording's start (side-band records and the first
 * samples) say little, zstd's headers and tables weighing on them.  The
 * reader sees zstd frames whichever form (docs/trace-format.md).
 */
enum col_mode { COL_LZ, COL_HUF, COL_RAW };

#define COL_JUDGE	16	/* chunks between judgings of a stream */
#define COL_MIN		8192	/* bytes of a stream to judge it by */
#define RAW_PERCENT	88
#define HUF_PERCENT	125

/*
 * A zstd frame of raw blocks holding len bytes at in (RFC 8878: single
 * segment, 4-byte content size, no checksum): zstd has no call that stores
 * without trying to compress.  Returns its size, 0 when cap is too small.
 */
static size_t zstd_raw_frame(uint8_t *out, size_t cap, const uint8_t *in, size_t len)
{
	uint32_t magic = ZSTD_MAGICNUMBER, fcs = (uint32_t)len;
	size_t n = 9, b;

	if (cap < 9 + len + 3 * (len / ZSTD_BLOCKSIZE_MAX + 1))
		return 0;
	memcpy(out, &magic, 4);		/* the trace is little-endian, so is zstd */
	out[4] = 0xa0;			/* FCS field 4 bytes, single segment */
	memcpy(out + 5, &fcs, 4);
	do {
		b = len < ZSTD_BLOCKSIZE_MAX ? len : ZSTD_BLOCKSIZE_MAX;
		len -= b;
		/* block header: last flag, type 0 (raw), size */
		out[n] = (uint8_t)((b << 3) | !len);
		out[n + 1] = (uint8_t)(b >> 5);
		out[n + 2] = (uint8_t)(b >> 13);
		memcpy(out + n + 3, in, b);
		in += b;
		n += 3 + b;
	} while (len);
	return n;
}

/*
 * The streams [s, e) of a RECORDS4 payload (stream k is in[bound[k] ..
 * bound[k + 1])) as one zstd level 1 frame with a block boundary at every
 * stream's end, so that each stream gets its own entropy tables; csize[k]
 * gets the bytes stream k took.  Returns the frame's size, 0 on failure.
 */
static size_t zstd_lz_frame(struct trace_writer *w, uint8_t *out, size_t cap, const uint8_t *in,
			    const size_t *bound, uint32_t s, uint32_t e, size_t *csize)
{
	ZSTD_outBuffer o = { out, cap, 0 };
	ZSTD_inBuffer i = { in + bound[s], 0, 0 };
	size_t r, at;
	uint32_t k;

	if (ZSTD_isError(ZSTD_CCtx_reset(w->zc, ZSTD_reset_session_only)) ||
	    ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(w->zc, bound[e] - bound[s])))
		return 0;
	/* the input only grows (stable buffer: zstd need not copy it) */
	for (k = s; k < e; k++) {
		csize[k] = 0;
		if (bound[k + 1] == bound[k] && k + 1 < e)
			continue;
		at = o.pos;
		i.size = bound[k + 1] - bound[s];
		r = ZSTD_compressStream2(w->zc, &o, &i, k + 1 < e ? ZSTD_e_flush : ZSTD_e_end);
		if (ZSTD_isError(r) || r || i.pos != i.size) {
			ZSTD_CCtx_reset(w->zc, ZSTD_reset_session_only);
			return 0;	/* out of room */
		}
		csize[k] = o.pos - at;
	}
	return o.pos;
}

/*
 * The streams [s, e) as one zstd frame of literals only: each block is a
 * single "last literals" sequence, so zstd Huffman-codes it without a
 * match search; a block ends at every stream's end (own entropy tables).
 */
static size_t zstd_huf_frame(struct trace_writer *w, uint8_t *out, size_t cap, const uint8_t *in,
			     const size_t *bound, uint32_t s, uint32_t e)
{
	size_t ns = 0, len, b, r;
	uint32_t k;

	for (k = s; k < e; k++) {
		for (len = bound[k + 1] - bound[k]; len; len -= b) {
			b = len < ZSTD_BLOCKSIZE_MAX ? len : ZSTD_BLOCKSIZE_MAX;
			if (ns == w->nr_seqs)
				return 0;
			w->seqs[ns++] = (ZSTD_Sequence){ .litLength = (unsigned int)b };
		}
	}
	if (ZSTD_isError(ZSTD_CCtx_reset(w->zc, ZSTD_reset_session_only)))
		return 0;
	r = ZSTD_compressSequences(w->zc, out, cap, w->seqs, ns, in + bound[s], bound[e] - bound[s]);
	return ZSTD_isError(r) ? 0 : r;
}

/* Choose stream k's form from its level 1 size lz (see enum col_mode). */
static void judge_stream(struct trace_writer *w, const uint8_t *in, const size_t *bound,
			 uint32_t k, size_t lz)
{
	size_t raw = bound[k + 1] - bound[k];
	size_t huf = zstd_huf_frame(w, w->judge_buf, w->judge_cap, in, bound, k, k + 1);
	size_t best = huf && huf < lz ? huf : lz;

	w->col_left[k] = COL_JUDGE;
	if (best * 100 > raw * RAW_PERCENT)
		w->col_mode[k] = COL_RAW;
	else if (huf && huf * 100 <= lz * HUF_PERCENT)
		w->col_mode[k] = COL_HUF;
	else
		w->col_mode[k] = COL_LZ;
}

/*
 * RECORDS4 with zstd: each run of streams stored the same way as one zstd
 * frame (a stream being judged is compressed with level 1); the frames
 * follow each other and decode as one payload (RFC 8878 3.1;
 * ZSTD_decompressDCtx reads them all).  Returns the payload's compressed
 * size, 0 on failure.
 */
static size_t compress_cols(struct trace_writer *w, const uint8_t *in, size_t len, uint8_t *out,
			    size_t cap, const size_t *cuts, uint32_t nr_cuts)
{
	size_t bound[TRACE_COLS_MAX + 1], csize[TRACE_COLS_MAX], raw, n = 0, m;
	uint8_t mode[TRACE_COLS_MAX];
	bool judge[TRACE_COLS_MAX];
	uint32_t s, e, nr = nr_cuts + 1;

	memset(w->col_chunk, 0, sizeof(w->col_chunk));
	bound[0] = 0;
	for (s = 0; s < nr; s++) {
		bound[s + 1] = s < nr_cuts ? cuts[s] : len;
		judge[s] = !w->col_left[s] && bound[s + 1] - bound[s] >= COL_MIN;
		if (w->col_left[s])
			w->col_left[s]--;
		mode[s] = judge[s] ? COL_LZ : w->col_mode[s];
		if (s && bound[s + 1] == bound[s])
			mode[s] = mode[s - 1];	/* empty: joins the run before */
	}
	for (s = 0; s < nr; s = e) {
		for (e = s + 1; e < nr && mode[e] == mode[s]; e++)
			;
		if (bound[e] == bound[s])
			continue;
		if (mode[s] == COL_RAW)
			m = zstd_raw_frame(out + n, cap - n, in + bound[s], bound[e] - bound[s]);
		else if (mode[s] == COL_HUF)
			m = zstd_huf_frame(w, out + n, cap - n, in, bound, s, e);
		else
			m = zstd_lz_frame(w, out + n, cap - n, in, bound, s, e, csize);
		if (!m)
			return 0;
		n += m;
	}
	for (s = 0; s < nr; s++) {
		raw = bound[s + 1] - bound[s];
		if (judge[s])
			judge_stream(w, in, bound, s, csize[s]);
		else if (mode[s] == COL_LZ && raw >= COL_MIN && csize[s] * 100 > raw * RAW_PERCENT)
			w->col_mode[s] = COL_RAW;	/* stopped shrinking: raw at once */
		if (raw)
			w->col_chunk[mode[s]]++;
	}
	return n;
}

/*
 * Compress len bytes at in into out (room cap) with the writer's codec.
 * Returns the compressed size, or 0 when storing is as good (or the codec
 * failed: the chunk then goes out stored, which every reader reads).
 */
static size_t compress_payload(struct trace_writer *w, const uint8_t *in, size_t len,
			       uint8_t *out, size_t cap, uint16_t *flags, const size_t *cuts,
			       uint32_t nr_cuts)
{
	size_t n = 0;

	if (w->level <= 0)
		return 0;
	if (w->zc && nr_cuts) {
		*flags = PMIPROF_CHUNK_F_ZSTD;
		n = compress_cols(w, in, len, out, cap, cuts, nr_cuts);
	} else if (w->zc) {
		n = ZSTD_compress2(w->zc, out, cap, in, len);
		if (ZSTD_isError(n))
			n = 0;
		*flags = PMIPROF_CHUNK_F_ZSTD;
	} else {
		w->zs.next_in = (uint8_t *)in;
		w->zs.avail_in = (uInt)len;
		w->zs.next_out = out;
		w->zs.avail_out = (uInt)cap;
		if (deflate(&w->zs, Z_FINISH) == Z_STREAM_END)
			n = w->zs.total_out;
		deflateReset(&w->zs);
		*flags = PMIPROF_CHUNK_F_DEFLATE;
	}
	/* keep the compressed form only when it is smaller */
	return n < len ? n : 0;
}

static void seal_header(struct pmiprof_chunk_header *ch, uint8_t *unit, size_t stored)
{
	ch->csize = (uint32_t)stored;
	/* libdeflate's carry-less-multiply CRC: 5-10x zlib's crc32 here */
	ch->payload_crc = libdeflate_crc32(0, unit + HDR, stored);
	ch->header_crc = libdeflate_crc32(0, ch, offsetof(struct pmiprof_chunk_header, header_crc));
	memcpy(unit, ch, HDR);
}

static int sum_key_cmp(const void *x, const void *y, void *arg)
{
	const struct sum_slot *t = arg, *a = &t[*(const uint32_t *)x], *b = &t[*(const uint32_t *)y];
	uint32_t pa = (uint32_t)a->pid_tid, pb = (uint32_t)b->pid_tid;

	if (pa != pb)
		return pa < pb ? -1 : 1;
	if (a->pid_tid >> 32 != b->pid_tid >> 32)
		return a->pid_tid >> 32 < b->pid_tid >> 32 ? -1 : 1;
	if (a->ip != b->ip)
		return a->ip < b->ip ? -1 : 1;
	return a->flags < b->flags ? -1 : a->flags > b->flags;
}

/* Grow p (capacity *cap elements of size sz) to hold n; 0 or -ENOMEM. */
static int grow(void **p, size_t *cap, size_t n, size_t sz)
{
	void *q;

	if (n <= *cap)
		return 0;
	q = realloc(*p, n * sz);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/*
 * Encode (and compress) the open chunk's summary as a complete SUMMARY
 * chunk unit for the RECORDS chunk header rh.  Returns its length, 0 when
 * the chunk gets no summary (not all samples, out of memory: a summary is
 * an optimization, its absence is never an error).
 */
static size_t build_summary(struct trace_writer *w, const struct pmiprof_chunk_header *rh,
			    uint8_t **unit)
{
	struct sum_table *t = &w->sum;
	struct pmiprof_chunk_header ch = {
		.magic = PMIPROF_CHUNK_MAGIC,
		.type = PMIPROF_CHUNK_SUMMARY,
		.seq = rh->seq,
		.nr_records = t->nr,
	};
	size_t bound, cap, stored;
	uint64_t pid = 0, tid = 0, ip = 0;
	uint32_t i, e;
	uint8_t *p;

	if (!w->summaries || t->other || !t->nr)
		return 0;
	bound = HDR + 4 + 6 * 10 + (size_t)t->nr * (5 * 10 + 10 + 10 * w->nr_events);
	if (bound > PMIPROF_MAX_CHUNK_SIZE)
		return 0;
	cap = t->buf_cap;
	if (grow((void **)&t->buf, &cap, bound, 1))
		return 0;
	t->buf_cap = cap;
	qsort_r(t->ents, t->nr, sizeof(*t->ents), sum_key_cmp, t->slots);
	p = t->buf + HDR;
	memcpy(p, &rh->payload_crc, 4);
	p += 4;
	p = varint_put(p, rh->nr_records);
	p = varint_put(p, w->chunk_samples);
	p = varint_put(p, t->time_min);
	p = varint_put(p, w->chunk_last_time - t->time_min);
	p = varint_put(p, w->nr_events);
	for (i = 0; i < t->nr; i++) {
		const struct sum_slot *s = &t->slots[t->ents[i]];
		const uint64_t *c = t->counts + (size_t)t->ents[i] * (w->nr_events + 1);

		p = varint_put(p, (uint32_t)s->pid_tid - pid);
		p = varint_put(p, zigzag_enc((int64_t)((s->pid_tid >> 32) - tid)));
		p = varint_put(p, zigzag_enc((int64_t)(s->ip - ip)));
		p = varint_put(p, s->flags);
		for (e = 0; e <= w->nr_events; e++)	/* samples, then the sums */
			p = varint_put(p, c[e]);
		pid = (uint32_t)s->pid_tid;
		tid = s->pid_tid >> 32;
		ip = s->ip;
	}
	ch.usize = (uint32_t)(p - (t->buf + HDR));
	cap = t->out_cap;
	if (w->zc && grow((void **)&t->out, &cap, HDR + ZSTD_compressBound(ch.usize), 1))
		return 0;
	if (!w->zc && w->level > 0 &&
	    grow((void **)&t->out, &cap, HDR + deflateBound(&w->zs, ch.usize), 1))
		return 0;
	t->out_cap = cap;
	stored = t->out ? compress_payload(w, t->buf + HDR, ch.usize, t->out + HDR,
					  t->out_cap - HDR, &ch.flags, NULL, 0) : 0;
	if (stored) {
		*unit = t->out;
	} else {
		ch.flags = 0;
		stored = ch.usize;
		*unit = t->buf;
	}
	seal_header(&ch, *unit, stored);
	return HDR + stored;
}

/* Both units in one write, so a cut file never holds half a chunk pair. */
static int emit2(struct trace_writer *w, const uint8_t *a, size_t alen, const uint8_t *b,
		 size_t blen)
{
	struct iovec iov[2] = { { (void *)a, alen }, { (void *)b, blen } };
	ssize_t n;
	int err;

	if (!blen)
		return emit(w, a, alen);
	do
		n = writev(w->fd, iov, 2);
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)(alen + blen)) {
		w->bytes += alen + blen;
		return 0;
	}
	if (n < 0)
		return write_failed(w, -errno);
	/* short write: finish it the plain way (emit truncates on failure) */
	if ((size_t)n < alen) {
		err = write_all(w->fd, a + n, alen - (size_t)n);
		if (!err)
			err = write_all(w->fd, b, blen);
	} else {
		err = write_all(w->fd, b + (n - (ssize_t)alen), blen - ((size_t)n - alen));
	}
	if (err)
		return write_failed(w, err);
	w->bytes += alen + blen;
	return 0;
}

/*
 * RECORDS4: the stream table at the payload's start, the streams after
 * MAIN; *cuts gets where each stream ends.  Returns the payload size.
 */
static size_t assemble_cols(struct trace_writer *w, size_t *cuts)
{
	uint8_t *base = w->raw + HDR, *t = base;
	size_t at = w->used;
	uint32_t i, len;

	*t++ = (uint8_t)w->ncols;
	len = (uint32_t)(w->used - TRACE_COL_TABLE(w->nr_events));
	memcpy(t, &len, 4);
	cuts[0] = at;
	for (i = 1; i < w->ncols; i++) {
		len = (uint32_t)(i == TRACE_COL_IP ? (size_t)(w->col.ip - w->colbase[i]) :
				 i == w->hi ? (size_t)(w->col.hi - w->colbase[i]) : w->col.n);
		memcpy(t + 4 * i, &len, 4);
		memcpy(base + at, w->colbase[i], len);
		at += len;
		cuts[i] = at;
	}
	return at;
}

int trace_writer_flush(struct trace_writer *w)
{
	struct pmiprof_chunk_header ch = {
		.magic = PMIPROF_CHUNK_MAGIC,
		.type = w->cols ? PMIPROF_CHUNK_RECORDS4 : w->records2 ? PMIPROF_CHUNK_RECORDS2 :
			PMIPROF_CHUNK_RECORDS3,
		.seq = w->seq,
		.nr_records = w->nr_records,
		.usize = (uint32_t)w->used,
	};
	uint8_t *unit = w->raw, *sunit = NULL;
	size_t stored, slen, len = w->used, cuts[TRACE_COLS_MAX];
	uint16_t flags = 0;
	uint32_t k;
	int err;

	w->fast_left = 0;
	if (w->err)
		return w->err;
	if (!w->nr_records)
		return 0;
	if (w->cols)
		ch.usize = (uint32_t)(len = assemble_cols(w, cuts));
	stored = w->out ? compress_payload(w, w->raw + HDR, len, w->out + HDR, w->out_cap - HDR,
					  &flags, cuts, w->cols ? w->ncols - 1 : 0) : 0;
	if (stored) {
		unit = w->out;
		ch.flags = flags;
	} else {
		stored = len;
	}
	seal_header(&ch, unit, stored);
	slen = build_summary(w, &ch, &sunit);
	err = emit2(w, unit, HDR + stored, sunit, slen);
	if (err)
		return err;
	for (k = 0; w->cols && (ch.flags & PMIPROF_CHUNK_F_ZSTD) && k < 3; k++)
		w->col_streams[k] += w->col_chunk[k];
	w->seq++;
	w->samples += w->chunk_samples;
	if (w->chunk_last_time > w->last_time)
		w->last_time = w->chunk_last_time;
	drop_open_chunk(w);
	return 0;
}

static inline uint64_t sum_pid_tid(const struct trace_sample *s)
{
	uint64_t v;

	_Static_assert(offsetof(struct trace_sample, tid) == offsetof(struct trace_sample, pid) + 4,
		       "pid and tid are one 64-bit key");
	memcpy(&v, &s->pid, 8);	/* little-endian: pid | tid << 32 */
	return v;
}

static inline uint32_t sum_hash(uint64_t ip, uint64_t pid_tid, uint32_t flags)
{
	/* one multiply: the lookup's latency is on every sample's path */
	return (uint32_t)(((ip ^ pid_tid ^ (uint64_t)flags << 48) * 0x9e3779b97f4a7c15ull) >> 32);
}

/* Room for one more summary entry; 0 or -ENOMEM (then the chunk gets no summary). */
static int sum_room(struct trace_writer *w)
{
	struct sum_table *t = &w->sum;
	uint32_t i, row = w->nr_events + 1;

	if (t->nr == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 1024;
		uint32_t *e = realloc(t->ents, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		t->ents = e;
		t->cap = cap;
	}
	if (2 * (t->nr + 1) > t->mask) {
		uint32_t size = t->mask ? 2 * (t->mask + 1) : 2048;
		struct sum_slot *n = calloc(size, sizeof(*n));
		uint64_t *c = malloc((size_t)size * row * sizeof(*c));

		if (!n || !c) {
			free(n);
			free(c);
			return -ENOMEM;
		}
		for (i = 0; i < t->nr; i++) {
			const struct sum_slot *o = &t->slots[t->ents[i]];
			uint32_t k = sum_hash(o->ip, o->pid_tid, o->flags) & (size - 1);

			while (n[k].gen)
				k = (k + 1) & (size - 1);
			n[k] = *o;
			memcpy(c + (size_t)k * row, t->counts + (size_t)t->ents[i] * row,
			       row * sizeof(*c));
			t->ents[i] = k;
		}
		free(t->slots);
		free(t->counts);
		t->slots = n;
		t->counts = c;
		t->mask = size - 1;
	}
	return 0;
}

/*
 * Count a sample's n counts into the open chunk's summary (rows of row =
 * nr_events + 1).  Inlined (a call cost 16 of its ~100 instructions a
 * sample); where n and row are constants (the hot path) the additions are
 * straight-line code.
 */
static inline __attribute__((always_inline)) void sum_add(struct trace_writer *w,
							  const struct trace_sample *s, uint32_t n,
							  uint32_t row)
{
	struct sum_table *t = &w->sum;
	uint64_t ip = s->ip, pid_tid = sum_pid_tid(s), *c;
	uint32_t flags = s->flags, h = sum_hash(ip, pid_tid, flags), k, e;

	if (!w->summaries || t->other)
		return;
	if (s->time < t->time_min)
		t->time_min = s->time;
	for (k = h & t->mask; t->slots[k].gen == t->gen; k = (k + 1) & t->mask) {
		const struct sum_slot *x = &t->slots[k];

		if (x->ip == ip && x->pid_tid == pid_tid && x->flags == flags) {
			c = t->counts + (size_t)k * row;
			c[0]++;
#pragma GCC unroll 16
			for (e = 0; e < n; e++)
				c[1 + e] += s->counts[e];
			return;
		}
	}
	if (sum_room(w)) {
		t->other = true;	/* no memory: no summary for this chunk */
		w->fast_left = 0;
		return;
	}
	for (k = h & t->mask; t->slots[k].gen == t->gen; k = (k + 1) & t->mask)
		;
	t->slots[k] = (struct sum_slot){ ip, pid_tid, flags, t->gen };
	t->ents[t->nr++] = k;
	c = t->counts + (size_t)k * row;
	c[0] = 1;
	for (e = 0; e < w->nr_events; e++)
		c[1 + e] = e < n ? s->counts[e] : 0;
}

/* Start a record of this type: returns where its body goes. */
static inline uint8_t *rec_begin(struct trace_writer *w, uint8_t type)
{
	uint8_t *head = w->raw + HDR + w->used;

	/* the summary stands for the chunk only when it holds nothing else */
	if (type != PMIPROF_REC_SAMPLE && type != PMIPROF_REC_STACK &&
	    type != PMIPROF_REC_USTACK && type != PMIPROF_REC_CALLCHAIN) {
		w->sum.other = true;
		w->samples_since_side = 0;
	}
	head[0] = type;
	return head + 2;	/* one size byte assumed; rec_end fixes it up */
}

/* Payload bytes of the open chunk (RECORDS4: in every stream). */
static inline size_t chunk_bytes(const struct trace_writer *w)
{
	if (!w->cols)
		return w->used;
	/* TIME and every event stream: one byte per sample each */
	return w->used + (size_t)(w->col.ip - w->colbase[TRACE_COL_IP]) +
	       (size_t)(w->col.hi - w->colbase[w->hi]) + w->col.n * (1 + w->nr_events);
}

/* Close the record at body_end; returns whether the chunk is full now. */
static inline bool rec_close(struct trace_writer *w, uint8_t *body_end)
{
	uint8_t *head = w->raw + HDR + w->used;
	size_t size = (size_t)(body_end - (head + 2));

	if (size < 0x80) {
		head[1] = (uint8_t)size;
		w->used += 2 + size;
	} else {
		size_t n = varint_len(size);

		memmove(head + 1 + n, head + 2, size);
		varint_put(head + 1, size);
		w->used += 1 + n + size;
	}
	w->nr_records++;
	w->ustack_ok = false;
	w->fast_left = 0;
	return chunk_bytes(w) >= w->chunk_size;
}

/* End a packed SAMPLE (RECORDS2 and later): type byte and body, no size. */
static inline void sample_end(struct trace_writer *w, uint8_t *body_end)
{
	w->used = (size_t)(body_end - (w->raw + HDR));
	w->nr_records++;
	w->ustack_ok = false;
}

/* The same off the hot path: returns whether the chunk is full now. */
static inline bool sample_close(struct trace_writer *w, uint8_t *body_end)
{
	sample_end(w, body_end);
	w->fast_left = 0;
	return chunk_bytes(w) >= w->chunk_size;
}

/* A sample's part in the open chunk's counts, latest time and summary. */
static inline __attribute__((always_inline)) void count_sample(struct trace_writer *w,
							       const struct trace_sample *s,
							       uint32_t n, uint32_t row)
{
	w->chunk_samples++;
	if (s->time > w->chunk_last_time)
		w->chunk_last_time = s->time;
	sum_add(w, s, n, row);
}

static inline uint8_t *sample_begin(struct trace_writer *w)
{
	uint8_t *head = w->raw + HDR + w->used;

	head[0] = PMIPROF_REC_SAMPLE;
	return head + 1;
}

/* The packed SAMPLE of the chunk type being written; returns its end. */
static inline __attribute__((always_inline)) uint8_t *
enc_sample(struct trace_writer *w, const struct trace_sample *s, uint32_t stack)
{
	uint8_t *p = sample_begin(w);

	if (w->cols)
		return trace_enc_sample4(&w->codec, p, &w->col, s->nr, w->nr_events, s, stack,
					 w->pred, w->step);
	if (w->records2)
		return trace_enc_sample2(&w->codec, p, s, stack, w->pred);
	return trace_enc_sample3(&w->codec, p, s, stack, w->pred);
}

static inline int rec_end(struct trace_writer *w, uint8_t *body_end)
{
	if (rec_close(w, body_end))
		return trace_writer_flush(w);
	return 0;
}

/*
 * Before a record that does not belong to the sample before it: the sticky
 * error, and the chunk close a stack sample deferred.
 */
static inline int rec_ready(struct trace_writer *w)
{
	if (w->err)
		return w->err;
	if (__builtin_expect(w->flush_due, 0))
		return trace_writer_flush(w);
	return 0;
}

/*
 * Before a side-band record (not a sample's): a chunk of samples only that
 * is already a quarter full is closed first, so that its samples keep
 * their summary; a side-band record among them would cost it.  A quarter
 * keeps chunks large enough to compress well when such records are
 * frequent (losses, many short threads).
 */
static inline int side_ready(struct trace_writer *w)
{
	int err = rec_ready(w);

	if (!err && w->summaries && !w->sum.other && w->chunk_samples &&
	    chunk_bytes(w) >= w->chunk_size / 4)
		err = trace_writer_flush(w);
	return err;
}

/*
 * Before a sample: a chunk holding only side-band records (the mmaps and
 * comms at the start of a recording, a new thread's) is closed first, so
 * that the samples start a chunk that can have a summary.  At most one
 * such small chunk follows each full one.  A chunk that mixes them
 * (a recording's first sample comes before the exec's COMM and MMAPs) is
 * closed once SIDE_MIXED_SAMPLES samples followed its last side-band
 * record: left to fill, its tens of thousands of samples had no summary
 * and a flat profile decoded them all (12 % of each recording at 50 kHz).
 */
#define SIDE_MIXED_SAMPLES	1024

static inline int sample_ready(struct trace_writer *w)
{
	int err = rec_ready(w);

	if (!err && w->summaries && w->sum.other && w->nr_records &&
	    (!w->chunk_samples || w->samples_since_side >= SIDE_MIXED_SAMPLES))
		err = trace_writer_flush(w);
	return err;
}

/*
 * Most bytes one sample adds to chunk_bytes(): its MAIN part (type, mask,
 * MORE byte, flags, pid, tid, cpu, nr), its ip (a table marker and the
 * whole ip), and per number (time, counts) a byte in its stream and up to
 * 9 in HI.
 */
#define SAMPLE4_BYTES_MAX(nr)	(3 + 5 * 5 + 2 + 10 + 10 * (1 + (nr)))

/*
 * How many samples may take the hot path before the open chunk must be
 * measured again: as many as cannot fill it whatever they hold.  None
 * while a sample must look at more than the chunk's room (an error, a
 * deferred close, side-band records that a summary must not cover).
 */
static void fast_budget(struct trace_writer *w)
{
	size_t used = chunk_bytes(w);

	if (!w->cols || w->err || w->flush_due || (w->summaries && w->sum.other) ||
	    used >= w->chunk_size)
		return;
	w->fast_left = (uint32_t)((w->chunk_size - 1 - used) / SAMPLE4_BYTES_MAX(w->nr_events));
}

/*
 * The hot path: a RECORDS4 sample with the header's n counts into a chunk
 * that has room for it (fast_left), nothing else to decide.  n is a
 * constant in each copy, so the event loops are straight-line code
 * (~40 % fewer instructions than the general path at 4 events).
 */
static inline __attribute__((always_inline)) int write_sample_fast(struct trace_writer *w,
								   const struct trace_sample *s,
								   const uint32_t n)
{
	w->fast_left--;
	count_sample(w, s, n, n + 1);	/* n == nr_events here */
	sample_end(w, trace_enc_sample4(&w->codec, sample_begin(w), &w->col, n, n, s, 0, w->pred,
					w->step));
	return 0;
}

static int write_sample_slow(struct trace_writer *w, const struct trace_sample *s)
{
	int err = sample_ready(w);

	if (err)
		return err;
	if (s->nr > w->nr_events)
		return -EINVAL;
	w->samples_since_side++;
	count_sample(w, s, s->nr, w->nr_events + 1);
	if (sample_close(w, enc_sample(w, s, 0)))
		return trace_writer_flush(w);
	fast_budget(w);
	return 0;
}

/* Samples s[0 .. n) of a writer whose header has nr events (a constant in each copy). */
static inline __attribute__((always_inline)) int write_samples_nr(struct trace_writer *w,
								  const struct trace_sample *s,
								  size_t n, const uint32_t nr)
{
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		if (__builtin_expect(w->fast_left && s[i].nr == nr, 1)) {
			write_sample_fast(w, &s[i], nr);
		} else {
			err = write_sample_slow(w, &s[i]);
			if (err)
				return err;
		}
	}
	return 0;
}

static int write_samples(struct trace_writer *w, const struct trace_sample *s, size_t n)
{
	size_t i;
	int err;

	switch (w->nr_events) {
	case 1: return write_samples_nr(w, s, n, 1);
	case 2: return write_samples_nr(w, s, n, 2);
	case 3: return write_samples_nr(w, s, n, 3);
	case 4: return write_samples_nr(w, s, n, 4);
	case 5: return write_samples_nr(w, s, n, 5);
	case 6: return write_samples_nr(w, s, n, 6);
	case 7: return write_samples_nr(w, s, n, 7);
	case 8: return write_samples_nr(w, s, n, 8);
	default:
		for (i = 0; i < n; i++) {
			err = write_sample_slow(w, &s[i]);
			if (err)
				return err;
		}
		return 0;
	}
}

int trace_write_samples(struct trace_writer *w, const struct trace_sample *s, size_t n)
{
	int err = write_samples(w, s, n);

	if (!err && w->tap && w->tap->samples)
		w->tap->samples(w->tap->arg, s, n);
	return err;
}

void trace_writer_set_tap(struct trace_writer *w, const struct trace_writer_tap *tap)
{
	w->tap = tap;
}

int trace_write_sample(struct trace_writer *w, const struct trace_sample *s)
{
	return trace_write_samples(w, s, 1);
}

static uint64_t stack_hash(const uint64_t *ips, uint32_t nr, uint32_t nr_kernel)
{
	uint64_t h = 0x9e3779b97f4a7c15ull * (nr_kernel + 1);
	uint32_t i;

	for (i = 0; i < nr; i++) {
		h = (h ^ ips[i]) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h;
}

/* Room for one more stack of nr frames: 0 or -ENOMEM (not sticky: the trace is intact). */
static int stack_table_room(struct stack_table *t, uint32_t id, uint32_t nr)
{
	if (pm_grow(&t->ents, &t->cap_ents, (uint64_t)id + 1, 256, sizeof(*t->ents)))
		return -ENOMEM;
	if (t->nr_frames + nr > t->cap_frames) {
		size_t cap = (t->cap_frames ? t->cap_frames * 2 : 4096) + nr;
		uint64_t *n = realloc(t->frames, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->frames = n;
		t->cap_frames = cap;
	}
	/* keep the table at most half full */
	if (2 * (id + 1) > t->mask) {
		uint32_t size = t->mask ? 2 * (t->mask + 1) : 1024, i;
		struct stack_slot *n = calloc(size, sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (i = 0; i < id; i++) {
			uint32_t k = (uint32_t)t->ents[i].hash & (size - 1);

			while (n[k].gen)
				k = (k + 1) & (size - 1);
			n[k].gen = 1;
			n[k].id = i;
		}
		free(t->slots);
		t->slots = n;
		t->mask = size - 1;
		/* the new table holds this chunk's stacks under gen 1 */
		for (i = 0; i < size; i++)
			if (n[i].gen)
				n[i].gen = t->gen;
	}
	return 0;
}

/*
 * The chunk-local id of a stack, interning it (and writing its STACK
 * record) on first use.  *id is the id; returns 0 or -errno.
 */
static int stack_intern(struct trace_writer *w, const uint64_t *ips, uint32_t nr,
			uint32_t nr_kernel, uint32_t *id)
{
	struct stack_table *t = &w->st;
	uint64_t h = stack_hash(ips, nr, nr_kernel);
	uint32_t k, next = w->codec.nr_stacks;
	struct trace_stack rec;
	int err;

	if (t->mask) {
		for (k = (uint32_t)h & t->mask; t->slots[k].gen == t->gen; k = (k + 1) & t->mask) {
			const struct stack_ent *e = &t->ents[t->slots[k].id];

			if (e->hash == h && e->nr == nr && e->nr_kernel == nr_kernel &&
			    !memcmp(t->frames + e->off, ips, nr * sizeof(*ips))) {
				*id = t->slots[k].id;
				return 0;
			}
		}
	}
	err = stack_table_room(t, next, nr);
	if (err)
		return err;
	for (k = (uint32_t)h & t->mask; t->slots[k].gen == t->gen; k = (k + 1) & t->mask)
		;
	t->slots[k].gen = t->gen;
	t->slots[k].id = next;
	t->ents[next] = (struct stack_ent){ h, t->nr_frames, nr, nr_kernel };
	memcpy(t->frames + t->nr_frames, ips, nr * sizeof(*ips));
	t->nr_frames += nr;
	rec = (struct trace_stack){ next, nr, nr_kernel, ips };
	/* no chunk close here: the sample using the stack goes into this chunk */
	rec_close(w, trace_enc_stack(&w->codec, rec_begin(w, PMIPROF_REC_STACK), &rec));
	*id = next;
	return 0;
}

int trace_write_sample_stack(struct trace_writer *w, const struct trace_sample *s,
			     const uint64_t *ips, uint32_t nr, uint32_t nr_kernel)
{
	uint32_t id, stack = 0;
	int err = sample_ready(w);

	if (err)
		return err;
	if (s->nr > w->nr_events || nr > PMIPROF_MAX_STACK || nr_kernel > nr || (nr && !ips))
		return -EINVAL;
	if (nr) {
		err = stack_intern(w, ips, nr, nr_kernel, &id);
		if (err)
			return err;
		stack = id + 1;
	}
	w->samples_since_side++;
	count_sample(w, s, s->nr, w->nr_events + 1);
	/* a USTACK or CALLCHAIN of this sample may follow: close the chunk after them */
	if (sample_close(w, enc_sample(w, s, stack)))
		w->flush_due = true;
	w->ustack_ok = true;
	if (w->tap && w->tap->stack)
		w->tap->stack(w->tap->arg, s, ips, nr, nr_kernel);
	if (w->tap && w->tap->samples)
		w->tap->samples(w->tap->arg, s, 1);
	return 0;
}

int trace_write_ustack(struct trace_writer *w, const struct trace_ustack *u)
{
	if (w->err)
		return w->err;
	if (!w->ustack_ok || u->nr_regs > PMIPROF_MAX_UREGS ||
	    u->nr_regs != (uint32_t)__builtin_popcountll(u->regs_mask) ||
	    u->size > PMIPROF_MAX_USTACK || (u->nr_regs && !u->regs) || (u->size && !u->data))
		return -EINVAL;
	if (w->tap && w->tap->ustack)
		w->tap->ustack(w->tap->arg, u);
	if (rec_close(w, trace_enc_ustack(&w->codec, rec_begin(w, PMIPROF_REC_USTACK), u)))
		w->flush_due = true;
	return 0;
}

static int check_str(const char *s, size_t *len)
{
	*len = s ? strlen(s) : 0;
	return *len > PMIPROF_MAX_STRING ? -ENAMETOOLONG : 0;
}

int trace_write_mmap(struct trace_writer *w, const struct trace_mmap *m)
{
	size_t len;
	int err = side_ready(w);

	if (err)
		return err;
	if (check_str(m->path, &len))
		return -ENAMETOOLONG;
	if (m->build_id_len > sizeof(m->build_id))
		return -EINVAL;
	if (w->tap && w->tap->mmap)
		w->tap->mmap(w->tap->arg, m);
	return rec_end(w, trace_enc_mmap(&w->codec, rec_begin(w, PMIPROF_REC_MMAP), m, len));
}

int trace_write_comm(struct trace_writer *w, const struct trace_comm *c)
{
	size_t len;
	int err = side_ready(w);

	if (err)
		return err;
	if (check_str(c->comm, &len))
		return -ENAMETOOLONG;
	if (w->tap && w->tap->comm)
		w->tap->comm(w->tap->arg, c);
	return rec_end(w, trace_enc_comm(&w->codec, rec_begin(w, PMIPROF_REC_COMM), c, len));
}

int trace_write_fork(struct trace_writer *w, const struct trace_task *t)
{
	int err = side_ready(w);

	if (err)
		return err;
	if (w->tap && w->tap->task)
		w->tap->task(w->tap->arg, PMIPROF_REC_FORK, t);
	return rec_end(w, trace_enc_task(&w->codec, rec_begin(w, PMIPROF_REC_FORK), t));
}

int trace_write_exit(struct trace_writer *w, const struct trace_task *t)
{
	int err = side_ready(w);

	if (err)
		return err;
	if (w->tap && w->tap->task)
		w->tap->task(w->tap->arg, PMIPROF_REC_EXIT, t);
	return rec_end(w, trace_enc_task(&w->codec, rec_begin(w, PMIPROF_REC_EXIT), t));
}

int trace_write_lost(struct trace_writer *w, const struct trace_lost *l)
{
	int err = side_ready(w);

	if (err)
		return err;
	if (w->tap && w->tap->lost)
		w->tap->lost(w->tap->arg, l);
	return rec_end(w, trace_enc_lost(&w->codec, rec_begin(w, PMIPROF_REC_LOST), l));
}

int trace_write_mark(struct trace_writer *w, const struct trace_mark *m)
{
	size_t len;
	int err = side_ready(w);

	if (err)
		return err;
	if (check_str(m->label, &len))
		return -ENAMETOOLONG;
	return rec_end(w, trace_enc_mark(&w->codec, rec_begin(w, PMIPROF_REC_MARK), m, len));
}

int trace_write_callchain(struct trace_writer *w, const struct trace_callchain *c)
{
	if (w->err)
		return w->err;
	if (c->nr > PMIPROF_MAX_CALLCHAIN || (c->nr && !c->ips))
		return -EINVAL;
	return rec_end(w, trace_enc_callchain(&w->codec, rec_begin(w, PMIPROF_REC_CALLCHAIN), c));
}

int trace_write_finish(struct trace_writer *w, const struct trace_finish *f)
{
	int err = side_ready(w);

	if (err)
		return err;
	return rec_end(w, trace_enc_finish(&w->codec, rec_begin(w, PMIPROF_REC_FINISH), f));
}

int trace_write_region_def(struct trace_writer *w, const struct trace_region_def *d)
{
	size_t len;
	int err = rec_ready(w);

	if (err)
		return err;
	if (check_str(d->name, &len))
		return -ENAMETOOLONG;
	return rec_end(w, trace_enc_region_def(&w->codec, rec_begin(w, PMIPROF_REC_REGION_DEF),
					       d, len));
}

int trace_write_region(struct trace_writer *w, const struct trace_region *r)
{
	int err = rec_ready(w);

	if (err)
		return err;
	if ((r->kind != PMIPROF_REGION_BEGIN && r->kind != PMIPROF_REGION_END) ||
	    (w->nr_events < 32 && r->evmask >> w->nr_events))
		return -EINVAL;
	return rec_end(w, trace_enc_region(&w->codec, rec_begin(w, PMIPROF_REC_REGION), r));
}

int trace_write_region_anomaly(struct trace_writer *w, const struct trace_region_anomaly *a)
{
	int err = rec_ready(w);

	if (err)
		return err;
	if (!a->what || a->what >= PMIPROF_REGION_AN_MAX)
		return -EINVAL;
	return rec_end(w, trace_enc_region_anomaly(&w->codec,
						   rec_begin(w, PMIPROF_REC_REGION_ANOMALY), a));
}

int trace_write_raw(struct trace_writer *w, uint8_t type, const void *body, size_t len)
{
	uint8_t *p;
	int err = side_ready(w);

	if (err)
		return err;
	/* known types go through their encoders, which keep the delta state */
	if ((type >= PMIPROF_REC_SAMPLE && type < PMIPROF_REC_MAX) ||
	    len > PMIPROF_MAX_RECORD_SIZE || (len && !body))
		return -EINVAL;
	p = rec_begin(w, type);
	if (len)
		memcpy(p, body, len);
	return rec_end(w, p + len);
}

uint64_t trace_writer_bytes(const struct trace_writer *w)
{
	return w->bytes;
}

void trace_writer_stats(const struct trace_writer *w, struct trace_writer_stats *st)
{
	st->bytes = w->bytes;
	st->chunks = w->seq;
	st->samples = w->samples;
	st->last_time = w->last_time;
	st->pending_samples = w->chunk_samples;
	st->streams_lz = w->col_streams[COL_LZ];
	st->streams_huf = w->col_streams[COL_HUF];
	st->streams_raw = w->col_streams[COL_RAW];
}

int trace_writer_recover(struct trace_writer *w)
{
	if (!w->err)
		return 0;
	/* The open chunk is what failed to reach the file: it is gone. */
	drop_open_chunk(w);
	w->err = 0;
	return w->first_err;
}

int trace_writer_end_failed(struct trace_writer *w, struct trace_finish *fin)
{
	struct trace_writer_stats st;
	struct trace_lost lost;
	int ret;

	trace_writer_recover(w);
	trace_writer_stats(w, &st);
	memset(&lost, 0, sizeof(lost));
	lost.time = fin->time;
	lost.cpu = PMIPROF_CPU_NONE;
	lost.reason = PMIPROF_LOST_WRITE;
	lost.count = fin->samples > st.samples ? fin->samples - st.samples : 0;
	fin->flags |= PMIPROF_FINISH_F_ERROR;
	fin->samples = st.samples;
	fin->lost += lost.count;
	ret = trace_write_lost(w, &lost);
	return ret ? ret : trace_write_finish(w, fin);
}

/*
 * The prologue's flags are outside the header checksum, so a flag that is
 * only known at the end (were region markers recorded?) can be corrected in
 * place.  Pipes keep what was written at the start.
 */
static int rewrite_flags(struct trace_writer *w)
{
	uint32_t v = w->flags;		/* host order, as the prologue was written */
	struct stat st;

	if (fstat(w->fd, &st) || !S_ISREG(st.st_mode))
		return 0;
	if (pwrite(w->fd, &v, sizeof(v), offsetof(struct pmiprof_file_prologue, flags)) !=
	    (ssize_t)sizeof(v))
		return -errno ? -errno : -EIO;
	return 0;
}

int trace_writer_set_flags(struct trace_writer *w, uint32_t flags)
{
	if (!w)
		return -EINVAL;
	w->set_flags = true;
	w->flags = flags;
	return 0;
}

int trace_writer_close(struct trace_writer *w)
{
	int err;

	if (!w)
		return 0;
	err = trace_writer_flush(w);
	if (w->first_err)
		err = w->first_err;
	if (!err && w->set_flags)
		err = rewrite_flags(w);
	if (close(w->fd) && !err)
		err = -errno;
	free_writer(w);
	return err;
}
