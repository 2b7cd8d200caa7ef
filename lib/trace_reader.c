// SPDX-License-Identifier: GPL-2.0
/*
 * Trace reader: validates the prologue and header, then walks the chunks.
 * A regular file is mapped, anything else (a pipe) is read into memory,
 * its prologue checked first and the rest capped; the same code then
 * decodes straight from the (inflated) chunk buffer with no per-record
 * allocation.  Damage never stops reading: a bad chunk becomes
 * one diag message plus a synthesized LOST record, and reading resumes at
 * the next chunk (after a resync on the chunk magic when its header is bad);
 * a second trace's prologue (files concatenated) ends the reading, said once.
 * Every allocation is bounded by the format limits in trace.h.  A caller
 * may take a chunk's SUMMARY (1.4) instead of its records: the records are
 * then neither inflated nor decoded.  A perf.data ("PERFILE2") is handed
 * to lib/perf_data.c at open, and every next() then comes from there.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libdeflate.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "pmiprof/trace.h"
#include "perf_data.h"
#include "trace_codec.h"
#include "trace_header.h"
#include "trace_dir.h"
#include "util.h"
#include "varint.h"

#define HDR sizeof(struct pmiprof_chunk_header)
/* readable bytes after an inflated payload: every record can take the fast path */
#define DECODE_SLACK (TRACE_RECORD_HEAD_MAX + TRACE_SAMPLE_READ_MAX)

#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
/* The fuzzer turns CRC checks off for half its runs to reach the decoders. */
bool trace_fuzz_ignore_crc;
#define CRC_BAD(a, b) ((a) != (b) && !trace_fuzz_ignore_crc)
#else
#define CRC_BAD(a, b) ((a) != (b))
#endif

/*
 * A streamed input (pipe, FIFO, device) is read into memory up to this
 * (PMIPROF_STREAM_MAX_MB overrides it; docs/report.md).
 */
#define TRACE_STREAM_INPUT_MAX ((size_t)2 << 30)

static size_t stream_input_max(void)
{
	const char *e = getenv("PMIPROF_STREAM_MAX_MB");
	char *end;
	unsigned long long mb;

	if (!e || !*e)
		return TRACE_STREAM_INPUT_MAX;
	mb = strtoull(e, &end, 10);
	if (*end || !mb || mb > (SIZE_MAX >> 21))
		return TRACE_STREAM_INPUT_MAX;
	return (size_t)mb << 20;
}

struct trace_reader {
	char *name;
	const uint8_t *buf;		/* whole file */
	size_t size;
	void *map;			/* owned mapping, or NULL */
	int fd;				/* the mapped file's descriptor, or -1 */
	uint8_t *owned;			/* owned copy (non-regular files), or NULL */
	trace_diag_fn diag;
	void *diag_arg;
	struct trace_header hdr;
	struct trace_read_stats stats;

	size_t pos;			/* file offset of the next chunk */
	bool eof;
	uint64_t last_time;		/* time of the last record returned */

	/* the chunk being decoded */
	bool in_chunk;
	size_t chunk_off;
	uint32_t chunk_seq, chunk_nr, chunk_done;
	const uint8_t *cbase, *cp, *cend;
	const uint8_t *limit;		/* readable memory after cend (decoder fast path) */
	/*
	 * A record starting below fast_end with a one-byte size ends inside the
	 * chunk, and a worst-case SAMPLE body is readable after its 2-byte head;
	 * NULL when no chunk is open.
	 */
	const uint8_t *fast_end;
	struct trace_codec codec;
	bool packed;			/* the open chunk is RECORDS2 or RECORDS3 (1.4) */
	bool ctxs;			/* RECORDS3: thread contexts */
	bool cols;			/* RECORDS4: RECORDS3 in columns */
	bool cols_fast;			/* RECORDS4, and a sample may over-read every stream */
	struct trace_cols col;		/* RECORDS4: the streams (MAIN is cp..cend) */
	uint8_t predict[PMIPROF_MAX_EVENTS];	/* header's PMIPROF_PREDICT_* per event */
	const uint8_t *pred;		/* predict, or NULL when all are PREV (a faster loop) */

	uint8_t *ubuf;			/* inflate target */
	size_t ucap;
	struct libdeflate_decompressor *inflater;
	ZSTD_DCtx *zd;			/* created at the first zstd chunk */
	/* chunk summaries (1.4) */
	trace_summary_fn sum_fn;
	void *sum_arg;
	uint8_t *sbuf;			/* decompressed summary */
	size_t scap;
	struct trace_summary_entry *sents;
	uint64_t *scounts;
	size_t sents_cap;
	char *str;			/* decoded strings */
	uint64_t *ips;			/* decoded callchains and stacks */
	uint64_t *regs;			/* decoded USTACK registers */
	uint8_t *words;			/* decoded USTACK stack words */
	struct perf_data *perf;		/* the input is perf's perf.data (lib/perf_data.c) */
};

static void default_diag(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "pmiprof: %s\n", msg);
}

/* One message: "NAME: offset N: what". */
static void PM_PRINTF(3, 4) diag(struct trace_reader *r, uint64_t off, const char *fmt, ...)
{
	char what[512], msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(msg, sizeof(msg), "%s: offset %llu: %s", r->name, (unsigned long long)off, what);
	r->diag(r->diag_arg, msg);
}

/* The first 8 bytes as text, non-printable bytes as \xNN. */
static const char *printable_magic(const uint8_t *p, char out[33])
{
	char *o = out;
	int i;

	for (i = 0; i < 8; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
			*o++ = (char)p[i];
		else
			o += sprintf(o, "\\x%02x", p[i]);
	}
	*o = '\0';
	return out;
}

static int check_prologue(struct trace_reader *r)
{
	char shown[33];
	struct pmiprof_file_prologue pro;
	uint64_t magic = 0;
	size_t err_off;
	char why[256];
	uint32_t crc, i;
	int err;

	memcpy(&magic, r->buf, r->size < 8 ? r->size : 8);
	if (r->size < 8) {
		diag(r, 0, "file too short for a pmiprof trace (%zu bytes; the prologue has 32)",
		     r->size);
		return -EBADMSG;
	}
	if (magic == PMIPROF_TRACE_MAGIC_SWAPPED) {
		diag(r, 0, "big-endian pmiprof trace: unsupported (this pmiprof reads little-endian "
		     "traces only)");
		return -EPROTONOSUPPORT;
	}
	if (perf_data_magic(r->buf, r->size))
		/* perf's own file: its records are mapped to ours (lib/perf_data.c) */
		return perf_data_open(&r->perf, r->buf, r->size, r->name, &r->hdr, &r->stats,
				      r->diag, r->diag_arg);
	if (magic != PMIPROF_TRACE_MAGIC) {
		diag(r, 0, "not a pmiprof trace (magic \"%s\", expected \"PMIPROF1\")",
		     printable_magic(r->buf, shown));
		return -EBADMSG;
	}
	if (r->size < sizeof(pro)) {
		diag(r, r->size, "file ends inside the prologue (%zu of 32 bytes)", r->size);
		return -EBADMSG;
	}
	memcpy(&pro, r->buf, sizeof(pro));
	if (pro.version_major < PMIPROF_TRACE_VERSION_MAJOR_MIN ||
	    pro.version_major > PMIPROF_TRACE_VERSION_MAJOR) {
		if (PMIPROF_TRACE_VERSION_MAJOR_MIN == PMIPROF_TRACE_VERSION_MAJOR)
			diag(r, 8, "unsupported trace version %u.%u (this pmiprof reads version %u.x)",
			     pro.version_major, pro.version_minor, PMIPROF_TRACE_VERSION_MAJOR);
		else
			diag(r, 8, "unsupported trace version %u.%u (this pmiprof reads versions "
			     "%u.x to %u.x)", pro.version_major, pro.version_minor,
			     PMIPROF_TRACE_VERSION_MAJOR_MIN, PMIPROF_TRACE_VERSION_MAJOR);
		return -EPROTONOSUPPORT;
	}
	if (pro.header_size > PMIPROF_MAX_HEADER_SIZE) {
		diag(r, 12, "header section of %u bytes exceeds the %u-byte limit",
		     pro.header_size, PMIPROF_MAX_HEADER_SIZE);
		return -EBADMSG;
	}
	if (pro.header_size > r->size - sizeof(pro)) {
		diag(r, r->size, "file ends inside the header section (%zu of %u bytes)",
		     r->size - sizeof(pro), pro.header_size);
		return -EBADMSG;
	}
	crc = (uint32_t)libdeflate_crc32(0, r->buf + sizeof(pro), pro.header_size);
	if (CRC_BAD(crc, pro.header_crc)) {
		diag(r, sizeof(pro), "header section CRC mismatch (stored %08x, computed %08x)",
		     pro.header_crc, crc);
		return -EBADMSG;
	}
	err = trace_header_decode(r->buf + sizeof(pro), pro.header_size, &r->hdr, &err_off,
				  why, sizeof(why));
	if (err) {
		diag(r, sizeof(pro) + err_off, "%s", why);
		return err;
	}
	r->hdr.version_major = pro.version_major;
	r->hdr.version_minor = pro.version_minor;
	r->hdr.flags = pro.flags;
	r->pos = sizeof(pro) + pro.header_size;
	/* trace_header_decode() checked each: PREV, TIME or an earlier event */
	for (i = 0; i < r->hdr.nr_events && i < PMIPROF_MAX_EVENTS; i++) {
		r->predict[i] = (uint8_t)r->hdr.predict[i];
		if (r->predict[i])
			r->pred = r->predict;
	}
	return 0;
}

static int setup(struct trace_reader *r, const char *name, trace_diag_fn fn, void *arg)
{
	r->fd = -1;
	r->diag = fn ? fn : default_diag;
	r->diag_arg = arg;
	r->name = strdup(name ? name : "(memory)");
	r->str = malloc(PMIPROF_MAX_STRING + 1);
	r->ips = malloc((PMIPROF_MAX_CALLCHAIN > PMIPROF_MAX_STACK ? PMIPROF_MAX_CALLCHAIN :
			 PMIPROF_MAX_STACK) * sizeof(*r->ips));
	r->regs = malloc(PMIPROF_MAX_UREGS * sizeof(*r->regs));
	r->words = malloc(TRACE_USTACK_WORDS_MAX);
	if (!r->name || !r->str || !r->ips || !r->regs || !r->words)
		return -ENOMEM;
	/*
	 * Raw deflate (chunks carry their own CRC), inflated in one call into a
	 * buffer of the known size: libdeflate does that about twice as fast
	 * as zlib's streaming inflate (docs/report.md), same bytes on disk.
	 */
	r->inflater = libdeflate_alloc_decompressor();
	if (!r->inflater)
		return -ENOMEM;
	return 0;
}

void trace_reader_close(struct trace_reader *r)
{
	if (!r)
		return;
	perf_data_close(r->perf);
	if (r->inflater)
		libdeflate_free_decompressor(r->inflater);
	ZSTD_freeDCtx(r->zd);
	free(r->sbuf);
	free(r->sents);
	free(r->scounts);
	if (r->map)
		munmap(r->map, r->size);
	if (r->fd >= 0)
		close(r->fd);
	free(r->owned);
	free(r->ubuf);
	free(r->str);
	free(r->ips);
	free(r->regs);
	free(r->words);
	free(r->name);
	free(r);
}

int trace_reader_open_mem(struct trace_reader **rp, const void *buf, size_t len, const char *name,
			  trace_diag_fn fn, void *arg)
{
	struct trace_reader *r = calloc(1, sizeof(*r));
	int err;

	*rp = NULL;
	if (!r)
		return -ENOMEM;
	err = setup(r, name, fn, arg);
	if (err) {
		if (r->diag)
			r->diag(r->diag_arg, "out of memory opening a trace");
		trace_reader_close(r);
		return err;
	}
	r->buf = buf;
	r->size = len;
	err = check_prologue(r);
	if (err) {
		trace_reader_close(r);
		return err;
	}
	*rp = r;
	return 0;
}

/* Read up to want bytes (fewer only at the end of the input) after len. */
static int read_more(int fd, uint8_t **buf, size_t *cap, size_t *len, size_t want)
{
	while (want) {
		ssize_t n;

		if (*cap - *len < 4096 && *cap - *len < want) {
			size_t ncap = *cap ? *cap * 2 : 1 << 16;
			uint8_t *nb;

			if (ncap > *len + want)
				ncap = *len + want;	/* the cap, not twice it */
			nb = realloc(*buf, ncap);
			if (!nb)
				return -ENOMEM;
			*buf = nb;
			*cap = ncap;
		}
		n = read(fd, *buf + *len, want < *cap - *len ? want : *cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		*len += (size_t)n;
		want -= (size_t)n;
	}
	return 0;
}

/*
 * Read a non-mappable input (pipe, FIFO, character device) into memory:
 * the prologue first, so that anything that is not a trace (/dev/zero,
 * `yes`) is refused after 32 bytes, then the rest up to max bytes
 * (-EFBIG beyond: save it to a file).
 */
static int slurp(struct trace_reader *r, int fd, size_t max)
{
	size_t cap = 0, len = 0;
	uint8_t *buf = NULL;
	uint64_t magic = 0;
	int err;

	err = read_more(fd, &buf, &cap, &len, sizeof(struct pmiprof_file_prologue));
	if (!err && len >= 8)
		memcpy(&magic, buf, 8);
	if (!err && (magic == PMIPROF_TRACE_MAGIC || perf_data_magic(buf, len)) &&
	    len == sizeof(struct pmiprof_file_prologue))
		err = read_more(fd, &buf, &cap, &len, max + 1 - len);
	if (!err && len > max)
		err = -EFBIG;
	if (err) {
		free(buf);
		return err;
	}
	r->owned = buf;
	r->buf = buf;
	r->size = len;
	return 0;
}

int trace_reader_open(struct trace_reader **rp, const char *path, trace_diag_fn fn, void *arg)
{
	struct trace_reader *r = calloc(1, sizeof(*r));
	struct stat st;
	char msg[512];
	int fd = -1, err;

	*rp = NULL;
	if (!r)
		return -ENOMEM;
	err = setup(r, path, fn, arg);
	if (err)
		goto fail_msg;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		err = -errno;
		goto fail_msg;
	}
	if (S_ISDIR(st.st_mode)) {
		/* a daemon's segments, read as one trace (lib/trace_dir.c) */
		err = trace_dir_image(path, &r->owned, &r->size, fn, arg);
		if (err)
			goto fail;
		r->buf = r->owned;
	} else if (S_ISREG(st.st_mode) && st.st_size > 0) {
		r->size = (size_t)st.st_size;
		r->map = mmap(NULL, r->size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (r->map == MAP_FAILED) {
			r->map = NULL;
			err = -errno;
			goto fail_msg;
		}
		madvise(r->map, r->size, MADV_SEQUENTIAL);
		r->buf = r->map;
		r->fd = fd;	/* kept: parallel readers map it again, never reopen the path */
		fd = -1;
	} else if (!S_ISREG(st.st_mode)) {
		size_t max = stream_input_max();

		err = slurp(r, fd, max);
		if (err == -EFBIG) {
			snprintf(msg, sizeof(msg), "%s: not a regular file and more than %llu MiB: "
				 "streamed input is read into memory up to that limit; save it to a "
				 "file first", path,
				 (unsigned long long)(max >> 20));
			(fn ? fn : default_diag)(arg, msg);
			goto fail;
		}
		if (err)
			goto fail_msg;
	}
	if (fd >= 0)
		close(fd);
	fd = -1;
	if (r->size == 0) {
		diag(r, 0, "empty file, not a pmiprof trace");
		err = -EBADMSG;
		goto fail;
	}
	err = check_prologue(r);
	if (err)
		goto fail;
	*rp = r;
	return 0;
fail_msg:
	snprintf(msg, sizeof(msg), "%s: cannot read: %s", path, strerror(-err));
	(fn ? fn : default_diag)(arg, msg);
fail:
	if (fd >= 0)
		close(fd);
	trace_reader_close(r);
	return err;
}

int trace_reader_fd(const struct trace_reader *r)
{
	/* a perf.data has no chunks for parallel readers to split */
	if (r->perf)
		return -1;
	return r->fd;
}

const struct trace_header *trace_reader_header(const struct trace_reader *r)
{
	return &r->hdr;
}

const struct trace_read_stats *trace_reader_stats(const struct trace_reader *r)
{
	return &r->stats;
}

void trace_reader_set_summary_fn(struct trace_reader *r, trace_summary_fn fn, void *arg)
{
	r->sum_fn = fn;
	r->sum_arg = arg;
}

static int synth_lost(struct trace_reader *r, struct trace_record *rec, uint32_t seq,
		      uint32_t reason, uint64_t count)
{
	memset(rec, 0, sizeof(*rec));
	rec->type = PMIPROF_REC_LOST;
	rec->chunk_seq = seq;
	rec->lost.time = r->last_time;
	rec->lost.cpu = PMIPROF_CPU_NONE;
	rec->lost.reason = reason;
	rec->lost.count = count;
	return 1;
}

/* The open chunk is unusable from here on: report, count, return its loss. */
static int chunk_failed(struct trace_reader *r, struct trace_record *rec, const char *what)
{
	uint64_t lost = r->chunk_nr > r->chunk_done ? r->chunk_nr - r->chunk_done : 0;

	diag(r, r->chunk_off, "chunk %u: record %u at payload byte %zu: %s; %llu of %u records "
	     "lost", r->chunk_seq, r->chunk_done, (size_t)(r->cp - r->cbase), what,
	     (unsigned long long)lost, r->chunk_nr);
	r->in_chunk = false;
	r->fast_end = NULL;
	r->stats.chunks_bad++;
	r->stats.records_lost += lost;
	return synth_lost(r, rec, r->chunk_seq, PMIPROF_LOST_UNREADABLE, lost);
}

/* A SAMPLE decoded at the chunk position, ending at end: account and return it. */
static inline int sample_done(struct trace_reader *r, struct trace_record *rec,
			      const uint8_t *end)
{
	rec->type = PMIPROF_REC_SAMPLE;
	rec->chunk_seq = r->chunk_seq;
	r->cp = end;
	r->chunk_done++;
	r->stats.records++;
	r->last_time = rec->sample.time;
	return 1;
}

static bool header_valid(const struct pmiprof_chunk_header *ch)
{
	return ch->magic == PMIPROF_CHUNK_MAGIC &&
	       !CRC_BAD((uint32_t)libdeflate_crc32(0, (const uint8_t *)ch,
					offsetof(struct pmiprof_chunk_header, header_crc)),
			ch->header_crc) &&
	       ch->usize <= PMIPROF_MAX_CHUNK_SIZE && ch->csize <= PMIPROF_MAX_CHUNK_SIZE;
}

/* Offset of the next plausible chunk header after a damaged one, or size. */
static size_t resync(const struct trace_reader *r, size_t from)
{
	static const uint8_t m[4] = { 'C', 'H', 'N', 'K' };
	size_t off = from;

	while (off + HDR <= r->size) {
		const uint8_t *hit = memmem(r->buf + off, r->size - off, m, sizeof(m));
		struct pmiprof_chunk_header ch;

		if (!hit)
			break;
		off = (size_t)(hit - r->buf);
		if (off + HDR > r->size)
			break;
		memcpy(&ch, hit, HDR);
		if (header_valid(&ch))
			return off;
		off++;
	}
	return r->size;
}

/*
 * Length of the prefix of a payload of usize bytes (readable bytes from its
 * start) where records take trace_reader_next()'s fast path: one starting
 * there with a FAST_HEAD-byte head ends inside the payload, and a worst-case
 * SAMPLE body after its head is readable.  The last bytes of every chunk and
 * of the file take the careful path.
 */
#define FAST_HEAD 2		/* type, one-byte size */
#define FAST_REC (FAST_HEAD + 127)
#define FAST_READ (FAST_HEAD + TRACE_SAMPLE_READ_MAX)
static size_t fast_len(size_t usize, size_t readable)
{
	size_t len = usize > FAST_REC ? usize - FAST_REC : 0;
	size_t room = readable > FAST_READ ? readable - FAST_READ : 0;

	return len < room ? len : room;
}

/*
 * Decompress a payload (flags: PMIPROF_CHUNK_F_*) of csize bytes into out,
 * exactly usize bytes.  Returns NULL or why it failed.
 */
static const char *decompress(struct trace_reader *r, uint16_t flags, const uint8_t *in,
			      size_t csize, uint8_t *out, size_t usize)
{
	if (flags & PMIPROF_CHUNK_F_DEFLATE) {
		enum libdeflate_result zr;
		size_t in_used = 0, out_len = 0;

		zr = libdeflate_deflate_decompress_ex(r->inflater, in, csize, out, usize, &in_used,
						      &out_len);
		if (zr != LIBDEFLATE_SUCCESS || out_len != usize || in_used != csize)
			return zr == LIBDEFLATE_SUCCESS ? "corrupt deflate payload (size differs "
			       "from the header)" : zr == LIBDEFLATE_INSUFFICIENT_SPACE ?
			       "corrupt deflate payload (inflates to more than the header says)" :
			       "corrupt deflate payload (invalid deflate data)";
		return NULL;
	}
	if (flags & PMIPROF_CHUNK_F_ZSTD) {
		size_t n;

		if (!r->zd && !(r->zd = ZSTD_createDCtx()))
			return "out of memory for the zstd decoder";
		/* one frame of exactly usize bytes; trailing bytes are an error */
		n = ZSTD_decompressDCtx(r->zd, out, usize, in, csize);
		if (ZSTD_isError(n))
			return ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall ?
			       "corrupt zstd payload (decompresses to more than the header says)" :
			       "corrupt zstd payload (invalid zstd data)";
		if (n != usize)
			return "corrupt zstd payload (size differs from the header)";
		return NULL;
	}
	if (csize != usize)
		return "stored payload size differs from the header's uncompressed size";
	if (usize)	/* an empty chunk has no buffer (memcpy wants non-NULL) */
		memcpy(out, in, usize);
	return NULL;
}

/* Why flags cannot be read, or NULL. */
static const char *bad_codec(uint16_t flags)
{
	if (flags & ~PMIPROF_CHUNK_F_KNOWN)
		return "compressed with a codec this pmiprof does not know (a later version's)";
	if ((flags & PMIPROF_CHUNK_F_DEFLATE) && (flags & PMIPROF_CHUNK_F_ZSTD))
		return "both deflate and zstd flags set";
	return NULL;
}

/* Decode a summary payload into r->sents; NULL or why it is damaged. */
static const char *parse_summary(struct trace_reader *r, const uint8_t *p, const uint8_t *end,
				 const struct pmiprof_chunk_header *rh, uint32_t nr_entries,
				 struct trace_chunk_summary *sum)
{
	uint64_t nrec, samples, tmin, span, nev, pid = 0, tid = 0, ip = 0, total = 0, v;
	uint32_t crc, i, e;
	size_t min_ent;

	if (end - p < 4)
		return "shorter than its fixed fields";
	memcpy(&crc, p, 4);
	p += 4;
	if (crc != rh->payload_crc)
		return "describes another chunk (payload CRC differs)";
	if (varint_get(&p, end, &nrec) || varint_get(&p, end, &samples) ||
	    varint_get(&p, end, &tmin) || varint_get(&p, end, &span) ||
	    varint_get(&p, end, &nev))
		return "fields run past its end";
	if (nrec != rh->nr_records)
		return "describes another chunk (record count differs)";
	if (samples > nrec || nr_entries > samples || (samples && !nr_entries))
		return "more samples or entries than the chunk has records";
	if (nev != r->hdr.nr_events)
		return "event count differs from the header";
	if (span > UINT64_MAX - tmin)
		return "time span overflows";
	min_ent = 5 + (size_t)nev;	/* each entry takes at least one byte per field */
	if ((size_t)(end - p) / min_ent < nr_entries)
		return "more entries than its bytes can hold";
	if (nr_entries > r->sents_cap) {
		struct trace_summary_entry *n = realloc(r->sents, nr_entries * sizeof(*n));
		uint64_t *c;

		if (!n)
			return "out of memory";
		r->sents = n;
		c = realloc(r->scounts, (size_t)nr_entries * (nev ? nev : 1) * sizeof(*c));
		if (!c)
			return "out of memory";
		r->scounts = c;
		r->sents_cap = nr_entries;
	}
	for (i = 0; i < nr_entries; i++) {
		struct trace_summary_entry *x = &r->sents[i];
		uint64_t *c = r->scounts + (size_t)i * nev, d, t, f, n;

		if (varint_get(&p, end, &d) || varint_get(&p, end, &t) ||
		    varint_get(&p, end, &v) || varint_get(&p, end, &f) ||
		    varint_get(&p, end, &n))
			return "entry runs past its end";
		pid += d;
		tid += (uint64_t)zigzag_dec(t);
		ip += (uint64_t)zigzag_dec(v);
		if (d > UINT32_MAX || pid > UINT32_MAX || tid > UINT32_MAX || f > UINT32_MAX)
			return "pid, tid or flags above 32 bits";
		if (!n || n > samples - total)
			return "entry sample counts do not add up to the chunk's";
		total += n;
		for (e = 0; e < nev; e++)
			if (varint_get(&p, end, &c[e]))
				return "entry runs past its end";
		*x = (struct trace_summary_entry){ ip, (uint32_t)pid, (uint32_t)tid, (uint32_t)f,
						   n, c };
	}
	if (total != samples)
		return "entry sample counts do not add up to the chunk's";
	sum->chunk_seq = rh->seq;
	sum->nr_records = rh->nr_records;
	sum->samples = samples;
	sum->time_min = tmin;
	sum->time_max = tmin + span;
	sum->nr_events = (uint32_t)nev;
	sum->nr_entries = nr_entries;
	sum->entries = r->sents;
	return NULL;
}

/*
 * The RECORDS chunk with header rh at off is complete in the file: when a
 * SUMMARY of it follows and the caller takes it, skip both and return true.
 * A damaged summary is reported and counted; the records are then decoded.
 */
static bool take_summary(struct trace_reader *r, size_t off, const struct pmiprof_chunk_header *rh)
{
	size_t soff = off + HDR + rh->csize;
	struct pmiprof_chunk_header sh;
	struct trace_chunk_summary sum;
	const char *why;
	const uint8_t *payload;

	if (r->size - soff < HDR)
		return false;
	memcpy(&sh, r->buf + soff, HDR);
	if (sh.magic != PMIPROF_CHUNK_MAGIC || sh.type != PMIPROF_CHUNK_SUMMARY)
		return false;
	if (!header_valid(&sh)) {
		why = "header CRC mismatch";
		goto bad;
	}
	if (sh.seq != rh->seq) {
		why = "its sequence number is not the chunk's";
		goto bad;
	}
	if (sh.csize > r->size - soff - HDR) {
		why = "the file ends inside it";
		goto bad;
	}
	payload = r->buf + soff + HDR;
	if (CRC_BAD((uint32_t)libdeflate_crc32(0, payload, sh.csize), sh.payload_crc)) {
		why = "payload CRC mismatch";
		goto bad;
	}
	why = bad_codec(sh.flags);
	if (why)
		goto bad;
	/* Never NULL, also for an empty summary (pointer arithmetic on it follows). */
	if (sh.usize > r->scap || !r->sbuf) {
		uint8_t *n = realloc(r->sbuf, sh.usize ? sh.usize : 1);

		if (!n) {
			why = "out of memory";
			goto bad;
		}
		r->sbuf = n;
		r->scap = sh.usize ? sh.usize : 1;
	}
	why = decompress(r, sh.flags, payload, sh.csize, r->sbuf, sh.usize);
	if (!why)
		why = parse_summary(r, r->sbuf, r->sbuf + sh.usize, rh, sh.nr_records, &sum);
	if (why)
		goto bad;
	/*
	 * The records stay checked: a damaged chunk is decoded (and reported)
	 * as it would be without summaries.  CRC-32 runs at several GB/s, a
	 * small part of what inflating and decoding the chunk costs.
	 */
	if (CRC_BAD((uint32_t)libdeflate_crc32(0, r->buf + off + HDR, rh->csize), rh->payload_crc))
		return false;
	if (!r->sum_fn(r->sum_arg, &sum))
		return false;
	r->pos = soff + HDR + sh.csize;
	r->stats.chunks_ok++;
	r->stats.chunks_summarized++;
	return true;
bad:
	diag(r, soff, "chunk %u: damaged summary (%s); the chunk's records are decoded instead",
	     rh->seq, why);
	r->stats.summaries_bad++;
	return false;
}

/*
 * The streams of a RECORDS4 payload: the table's sizes must add up to the
 * payload exactly.  MAIN becomes the records the usual loop walks.
 */
static const char *open_cols(struct trace_reader *r, const uint8_t *payload, uint32_t usize)
{
	uint32_t n = TRACE_COLS(r->hdr.nr_events), i, len;
	size_t at = TRACE_COL_TABLE(r->hdr.nr_events);

	if (usize < at || payload[0] != n)
		return "column table does not match the header's events";
	for (i = 0; i < n; i++) {
		memcpy(&len, payload + 1 + 4 * i, 4);
		if (len > usize - at)
			return "column streams larger than the payload";
		r->col.p[i] = payload + at;
		r->col.end[i] = payload + at + len;
		at += len;
	}
	if (at != usize)
		return "column streams smaller than the payload";
	/* TIME and the events: one byte per sample each */
	for (i = TRACE_COL_TIME; i < r->col.hi; i++)
		if (r->col.end[i] - r->col.p[i] != r->col.end[TRACE_COL_TIME] - r->col.p[TRACE_COL_TIME])
			return "column streams of different lengths";
	r->col.nr = (uint32_t)(r->col.end[TRACE_COL_TIME] - r->col.p[TRACE_COL_TIME]);
	r->col.j = 0;
	r->col.hi = TRACE_COL_HI(r->hdr.nr_events);
	r->cbase = r->cp = r->col.p[TRACE_COL_MAIN];
	r->cend = r->col.end[TRACE_COL_MAIN];
	/* MAIN is followed by the other streams: its fast path reaches as far */
	r->fast_end = r->cp + fast_len((size_t)(r->cend - r->cp), (size_t)(r->limit - r->cp));
	r->cols_fast = r->limit - (payload + usize) >= (ptrdiff_t)TRACE_SAMPLE_READ_MAX;
	if (!r->cols_fast)
		r->fast_end = NULL;	/* the careful path for every record */
	return NULL;
}

/*
 * A second trace's prologue in [from, to) (traces concatenated with cat):
 * reading stops there, said once, as perf reads only the first recording.
 * Its chunks would otherwise pass every check and be added to this
 * recording's samples under this header.  Returns whether one was found.
 */
static bool second_trace(struct trace_reader *r, size_t from, size_t to)
{
	static const uint8_t m[8] = { 'P', 'M', 'I', 'P', 'R', 'O', 'F', '1' };
	const uint8_t *hit;

	if (to > r->size)
		to = r->size;
	if (from >= to)
		return false;
	hit = memmem(r->buf + from, to - from, m, sizeof(m));
	if (!hit || (size_t)(hit - r->buf) + sizeof(struct pmiprof_file_prologue) > r->size)
		return false;
	r->stats.second_trace_at = (uint64_t)(hit - r->buf);
	r->stats.second_trace_bytes = r->size - (size_t)(hit - r->buf);
	diag(r, r->stats.second_trace_at, "a second pmiprof trace starts here (files "
	     "concatenated?): only the first recording is read; its %llu bytes are ignored "
	     "(split the file to read it)", (unsigned long long)r->stats.second_trace_bytes);
	r->pos = r->size;
	r->eof = true;
	return true;
}

/*
 * Open the chunk at r->pos.  Returns 0 when a chunk is ready to decode or was
 * skipped, 1 when rec holds a synthesized LOST for a damaged/cut chunk.
 */
static int open_chunk(struct trace_reader *r, struct trace_record *rec)
{
	struct pmiprof_chunk_header ch;
	size_t off = r->pos, left = r->size - off;
	const uint8_t *payload;
	const char *why;
	uint32_t crc;

	if (left < HDR) {
		diag(r, off, "file ends inside a chunk header (%zu of 32 bytes): the trace was cut "
		     "short; records in it are lost", left);
		r->stats.truncated = true;
		r->stats.bytes_skipped += left;
		r->stats.chunks_bad++;
		r->eof = true;
		return synth_lost(r, rec, UINT32_MAX, PMIPROF_LOST_TRUNCATED, 0);
	}
	memcpy(&ch, r->buf + off, HDR);
	if (!header_valid(&ch)) {
		size_t next = resync(r, off + 1);

		if (second_trace(r, off, next + 8)) {
			if (r->stats.second_trace_at == off)
				return 0;	/* this recording ended cleanly */
			r->stats.chunks_bad++;
			r->stats.bytes_skipped += r->stats.second_trace_at - off;
			return synth_lost(r, rec, UINT32_MAX, PMIPROF_LOST_UNREADABLE, 0);
		}
		if (next < r->size)
			diag(r, off, "damaged chunk header (%s); skipped %zu bytes to the next chunk "
			     "at offset %zu", ch.magic != PMIPROF_CHUNK_MAGIC ? "bad magic" :
			     "header CRC mismatch", next - off, next);
		else
			diag(r, off, "damaged chunk header (%s); no further chunk found, %zu bytes "
			     "skipped", ch.magic != PMIPROF_CHUNK_MAGIC ? "bad magic" :
			     "header CRC mismatch", next - off);
		r->stats.chunks_bad++;
		r->stats.bytes_skipped += next - off;
		r->pos = next;
		r->eof = next >= r->size;
		return synth_lost(r, rec, UINT32_MAX, PMIPROF_LOST_UNREADABLE, 0);
	}
	if (ch.csize > left - HDR) {
		diag(r, off, "chunk %u: file ends inside the chunk (%zu of %u payload bytes): the "
		     "trace was cut short; %u records lost", ch.seq, left - HDR, ch.csize,
		     ch.nr_records);
		r->stats.truncated = true;
		r->stats.chunks_bad++;
		r->stats.records_lost += ch.nr_records;
		r->stats.bytes_skipped += left;
		r->eof = true;
		return synth_lost(r, rec, ch.seq, PMIPROF_LOST_TRUNCATED, ch.nr_records);
	}
	r->pos = off + HDR + ch.csize;
	if (ch.type != PMIPROF_CHUNK_RECORDS && ch.type != PMIPROF_CHUNK_RECORDS2 &&
	    ch.type != PMIPROF_CHUNK_RECORDS3 && ch.type != PMIPROF_CHUNK_RECORDS4) {
		/* a summary not taken with its chunk is redundant, not lost data */
		if (ch.type != PMIPROF_CHUNK_SUMMARY)
			r->stats.bytes_skipped += HDR + ch.csize;	/* a later version's type */
		return 0;
	}
	if (r->sum_fn && take_summary(r, off, &ch))
		return 0;
	payload = r->buf + off + HDR;
	crc = (uint32_t)libdeflate_crc32(0, payload, ch.csize);
	if (CRC_BAD(crc, ch.payload_crc)) {
		diag(r, off, "chunk %u: payload CRC mismatch (stored %08x, computed %08x); %u "
		     "records lost", ch.seq, ch.payload_crc, crc, ch.nr_records);
		goto bad;
	}
	why = bad_codec(ch.flags);
	if (why) {
		diag(r, off, "chunk %u: %s (flags 0x%x); %u records lost", ch.seq, why, ch.flags,
		     ch.nr_records);
		goto bad;
	}
	if (ch.flags & (PMIPROF_CHUNK_F_DEFLATE | PMIPROF_CHUNK_F_ZSTD)) {
		if (r->ucap < ch.usize || !r->ubuf) {
			/*
			 * slack after the payload lets the decoder skip bounds
			 * checks; allocated for an empty chunk too (never NULL)
			 */
			uint8_t *n = realloc(r->ubuf, (size_t)ch.usize + DECODE_SLACK);

			if (!n) {
				diag(r, off, "chunk %u: out of memory for %u bytes; %u records lost",
				     ch.seq, ch.usize, ch.nr_records);
				goto bad;
			}
			r->ubuf = n;
			r->ucap = ch.usize;
			memset(n + ch.usize, 0, DECODE_SLACK);
		}
		why = decompress(r, ch.flags, payload, ch.csize, r->ubuf, ch.usize);
		if (why) {
			diag(r, off, "chunk %u: %s; %u records lost", ch.seq, why, ch.nr_records);
			goto bad;
		}
		payload = r->ubuf;
		r->limit = r->ubuf + r->ucap + DECODE_SLACK;
	} else if (ch.csize != ch.usize) {
		diag(r, off, "chunk %u: stored payload of %u bytes but header says %u uncompressed; "
		     "%u records lost", ch.seq, ch.csize, ch.usize, ch.nr_records);
		goto bad;
	} else {
		r->limit = r->buf + r->size;	/* stored: the rest of the file is readable */
	}
	r->in_chunk = true;
	r->chunk_off = off;
	r->chunk_seq = ch.seq;
	r->chunk_nr = ch.nr_records;
	r->chunk_done = 0;
	r->cbase = r->cp = payload;
	r->cend = payload + ch.usize;
	r->fast_end = payload + fast_len(ch.usize, (size_t)(r->limit - payload));
	r->packed = ch.type == PMIPROF_CHUNK_RECORDS2 || ch.type == PMIPROF_CHUNK_RECORDS3;
	r->ctxs = ch.type == PMIPROF_CHUNK_RECORDS3;
	r->cols = ch.type == PMIPROF_CHUNK_RECORDS4;
	r->cols_fast = false;		/* the hot path tests this alone */
	if (r->cols) {
		why = open_cols(r, payload, ch.usize);
		if (why) {
			diag(r, off, "chunk %u: %s; %u records lost", ch.seq, why, ch.nr_records);
			r->in_chunk = false;
			r->fast_end = NULL;
			goto bad;
		}
	}
	trace_codec_reset(&r->codec);
	return 0;
bad:
	r->stats.chunks_bad++;
	r->stats.records_lost += ch.nr_records;
	/* a cut last chunk whose stated size runs into a second trace */
	if (second_trace(r, off + 8, off + HDR + ch.csize))
		r->stats.bytes_skipped += r->stats.second_trace_at - off;
	else
		r->stats.bytes_skipped += HDR + ch.csize;
	return synth_lost(r, rec, ch.seq, PMIPROF_LOST_UNREADABLE, ch.nr_records);
}

static uint64_t record_time(const struct trace_record *rec)
{
	switch (rec->type) {
	case PMIPROF_REC_SAMPLE: return rec->sample.time;
	case PMIPROF_REC_MMAP: return rec->mmap.time;
	case PMIPROF_REC_COMM: return rec->comm.time;
	case PMIPROF_REC_FORK: case PMIPROF_REC_EXIT: return rec->task.time;
	case PMIPROF_REC_LOST: return rec->lost.time;
	case PMIPROF_REC_MARK: return rec->mark.time;
	case PMIPROF_REC_REGION: return rec->region.time;
	case PMIPROF_REC_REGION_ANOMALY: return rec->region_anomaly.time;
	case PMIPROF_REC_FINISH: return rec->finish.time;
	default: return 0;
	}
}

/* Everything but trace_reader_next()'s fast path: kept out of line so that it stays small. */
static __attribute__((noinline)) int reader_next_slow(struct trace_reader *r,
						      struct trace_record *rec)
{
	const struct trace_decode_scratch sc = { r->str, r->ips, r->regs, r->words, r->limit };

	if (r->perf)
		return perf_data_next(r->perf, rec);
	for (;;) {
		const uint8_t *body, *end;
		const char *why;
		uint64_t size;
		uint8_t type;

		if (!r->in_chunk) {
			if (r->eof || r->pos >= r->size)
				return 0;
			if (open_chunk(r, rec))
				return 1;
			continue;
		}
		if (r->cp >= r->cend) {
			r->in_chunk = false;
			r->fast_end = NULL;
			if (r->chunk_done != r->chunk_nr) {
				char what[96];

				snprintf(what, sizeof(what), "payload ends after %u records, header "
					 "says %u", r->chunk_done, r->chunk_nr);
				r->in_chunk = true;
				return chunk_failed(r, rec, what);
			}
			r->stats.chunks_ok++;
			continue;
		}
		if (r->chunk_done >= r->chunk_nr)
			return chunk_failed(r, rec, "more records than the chunk header says");
		body = r->cp + 1;
		type = r->cp[0];
		if (type == PMIPROF_REC_SAMPLE && r->cols) {
			why = r->cols_fast ?
			      trace_decode_sample4(&r->codec, body, r->cend, &r->col,
						   r->hdr.nr_events, r->pred, r->hdr.time_step,
						   &rec->sample, &end, true) :
			      trace_decode_sample4(&r->codec, body, r->cend, &r->col,
						   r->hdr.nr_events, r->pred, r->hdr.time_step,
						   &rec->sample, &end, false);
			if (why)
				return chunk_failed(r, rec, why);
			return sample_done(r, rec, end);
		}
		if (type == PMIPROF_REC_SAMPLE && r->packed) {
			why = r->ctxs ? trace_decode_sample3(&r->codec, body, r->cend, r->limit,
							     r->hdr.nr_events, r->pred, &rec->sample,
							     &end) :
					trace_decode_sample2(&r->codec, body, r->cend, r->limit,
							     r->hdr.nr_events, r->pred, &rec->sample,
							     &end);
			if (why)
				return chunk_failed(r, rec, why);
			return sample_done(r, rec, end);
		}
		if (varint_get(&body, r->cend, &size) || size > (uint64_t)(r->cend - body))
			return chunk_failed(r, rec, "record size runs past the end of the chunk");
		if (type == PMIPROF_REC_SAMPLE) {	/* the hot path, inlined */
			why = trace_decode_sample(&r->codec, body, body + size, r->limit,
						  r->hdr.nr_events, &rec->sample);
			if (why)
				return chunk_failed(r, rec, why);
			rec->type = PMIPROF_REC_SAMPLE;
			rec->chunk_seq = r->chunk_seq;
			r->cp = body + size;
			r->chunk_done++;
			r->stats.records++;
			r->last_time = rec->sample.time;
			return 1;
		}
		if (type < PMIPROF_REC_SAMPLE || type >= PMIPROF_REC_MAX) {
			/* a later version's record: skip it */
			r->stats.records_unknown++;
			r->chunk_done++;
			r->cp = body + size;
			continue;
		}
		if (trace_decode_body(&r->codec, type, body, body + size, r->hdr.nr_events, &sc,
				      rec, &why))
			return chunk_failed(r, rec, why);
		r->cp = body + size;
		r->chunk_done++;
		rec->chunk_seq = r->chunk_seq;
		r->stats.records++;
		if (type == PMIPROF_REC_FINISH)
			r->stats.finished = true;
		/* records that belong to a sample or define a stack carry no time */
		if (type != PMIPROF_REC_CALLCHAIN && type != PMIPROF_REC_STACK &&
		    type != PMIPROF_REC_USTACK && type != PMIPROF_REC_REGION_DEF)
			r->last_time = record_time(rec);
		return 1;
	}
}

/*
 * The hot path: a SAMPLE with a one-byte size (bodies are < 128 bytes) that
 * starts below fast_end, so it ends inside the chunk and the decoder needs
 * no per-number bounds checks.  The slow path makes the same checks.
 */
int trace_reader_next(struct trace_reader *r, struct trace_record *rec)
{
	const uint8_t *cp = r->cp, *end;
	const char *why;

	if (!(__builtin_expect((uintptr_t)cp < (uintptr_t)r->fast_end, 1) &&
	      cp[0] == PMIPROF_REC_SAMPLE && r->chunk_done < r->chunk_nr))
		return reader_next_slow(r, rec);
	if (r->cols_fast) {
		/* 1.4 RECORDS4 (what the writer writes): RECORDS3 in columns */
		why = trace_decode_sample4(&r->codec, cp + 1, r->cend, &r->col, r->hdr.nr_events,
					   r->pred, r->hdr.time_step, &rec->sample, &end, true);
	} else if (r->ctxs) {
		/* 1.4 RECORDS3 (on request): as RECORDS2, with thread contexts */
		why = trace_decode_sample3_fast(&r->codec, cp + 1, r->cend, r->hdr.nr_events,
						r->pred, &rec->sample, &end);
	} else if (r->packed) {
		/* 1.4 RECORDS2: no size; the decoder checks that it ends by cend */
		why = trace_decode_sample2_fast(&r->codec, cp + 1, r->cend, r->hdr.nr_events,
						r->pred, &rec->sample, &end);
	} else if (cp[1] < 0x80) {
		const uint8_t *body = cp + FAST_HEAD;

		end = body + cp[1];	/* < cend: cp < fast_end */
		why = trace_decode_sample_fast(&r->codec, body, end, r->hdr.nr_events,
					       &rec->sample);
	} else {
		return reader_next_slow(r, rec);
	}
	if (why)
		return chunk_failed(r, rec, why);
	return sample_done(r, rec, end);
}
