// SPDX-License-Identifier: GPL-2.0
/*
 * A directory of daemon segments read as one trace (see trace_dir.h), and
 * the wall-clock times --since/--until take.
 */
#include "trace_dir.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static uint64_t range_since, range_until;

void trace_dir_set_range(uint64_t since_ns, uint64_t until_ns)
{
	range_since = since_ns;
	range_until = until_ns;
}

void trace_dir_get_range(uint64_t *since_ns, uint64_t *until_ns)
{
	*since_ns = range_since;
	*until_ns = range_until;
}

void trace_seg_name(char *buf, size_t len, uint64_t realtime_ns, bool open)
{
	time_t t = (time_t)(realtime_ns / 1000000000ull);
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(buf, len, TRACE_SEG_PREFIX "%04d%02d%02dT%02d%02d%02d.%06uZ%s",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned int)(realtime_ns % 1000000000ull / 1000),
		 open ? TRACE_SEG_OPEN_SUFFIX : TRACE_SEG_SUFFIX);
}

int trace_seg_parse(const char *name, uint64_t *realtime_ns, bool *open)
{
	struct tm tm;
	unsigned int us;
	int n = 0;
	const char *rest;

	memset(&tm, 0, sizeof(tm));
	if (strncmp(name, TRACE_SEG_PREFIX, strlen(TRACE_SEG_PREFIX)))
		return -EINVAL;
	name += strlen(TRACE_SEG_PREFIX);
	if (sscanf(name, "%4d%2d%2dT%2d%2d%2d.%6uZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &us, &n) != 7 || n != 23)
		return -EINVAL;
	rest = name + n;
	if (!strcmp(rest, TRACE_SEG_SUFFIX) || !strcmp(rest, TRACE_SEG_UNFINISHED_SUFFIX))
		*open = false;
	else if (!strcmp(rest, TRACE_SEG_OPEN_SUFFIX))
		*open = true;
	else
		return -EINVAL;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*realtime_ns = (uint64_t)timegm(&tm) * 1000000000ull + (uint64_t)us * 1000;
	return 0;
}

static int seg_cmp(const void *a, const void *b)
{
	return strcmp(((const struct trace_seg *)a)->name, ((const struct trace_seg *)b)->name);
}

int trace_dir_list(const char *dir, struct trace_seg **out, size_t *nr)
{
	struct trace_seg *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d = opendir(dir);
	int fd;

	*out = NULL;
	*nr = 0;
	if (!d)
		return -errno;
	fd = dirfd(d);
	while ((de = readdir(d))) {
		struct trace_seg sg;
		struct stat st;

		memset(&sg, 0, sizeof(sg));
		if (strlen(de->d_name) >= sizeof(sg.name) ||
		    trace_seg_parse(de->d_name, &sg.start_ns, &sg.open))
			continue;
		/* renamed or deleted since readdir(): not there any more */
		if (fstatat(fd, de->d_name, &st, 0) || !S_ISREG(st.st_mode))
			continue;
		strcpy(sg.name, de->d_name);
		sg.unfinished = strlen(sg.name) > strlen(TRACE_SEG_UNFINISHED_SUFFIX) &&
				!strcmp(sg.name + strlen(sg.name) - strlen(TRACE_SEG_UNFINISHED_SUFFIX),
					TRACE_SEG_UNFINISHED_SUFFIX);
		sg.bytes = (uint64_t)st.st_size;
		sg.mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull +
			      (uint64_t)st.st_mtim.tv_nsec;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			struct trace_seg *nv = realloc(v, nc * sizeof(*v));

			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
			cap = nc;
		}
		v[n++] = sg;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), seg_cmp);
	*out = v;
	*nr = n;
	return 0;
}

/* ---- joining ---- */

struct image {
	uint8_t *buf;
	size_t len, cap;
	uint32_t seq;
};

static int image_put(struct image *im, const void *p, size_t n)
{
	if (im->len + n > im->cap) {
		size_t nc = im->cap ? im->cap : 1 << 20;
		uint8_t *nb;

		while (nc < im->len + n)
			nc *= 2;
		nb = realloc(im->buf, nc);
		if (!nb)
			return -ENOMEM;
		im->buf = nb;
		im->cap = nc;
	}
	memcpy(im->buf + im->len, p, n);
	im->len += n;
	return 0;
}

static void say(void (*diag)(void *, const char *), void *arg, const char *fmt, ...)
	PM_PRINTF(3, 4);
static void say(void (*diag)(void *, const char *), void *arg, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (diag)
		diag(arg, msg);
	else
		fprintf(stderr, "pmiprof: %s\n", msg);
}

/* The events and sampling setup must match for segments to be one trace. */
static bool same_recording(const struct trace_header *a, const struct trace_header *b)
{
	uint32_t i;

	if (a->nr_events != b->nr_events || a->trigger_index != b->trigger_index ||
	    a->period != b->period || a->freq_hz != b->freq_hz || a->flags != b->flags ||
	    a->call_graph != b->call_graph || a->clock_freq_hz != b->clock_freq_hz ||
	    a->time_step != b->time_step)
		return false;
	for (i = 0; i < a->nr_events; i++)
		if (strcmp(a->events[i].name, b->events[i].name) ||
		    a->events[i].type != b->events[i].type ||
		    a->events[i].config != b->events[i].config)
			return false;
	return true;
}

struct seg_ctx {
	void (*diag)(void *, const char *);
	void *diag_arg;
	const char *dir;
	bool have_first;
	struct trace_header first;
	uint64_t last_start;		/* monotonic start of the previous segment */
	unsigned int left_out;
};

static void quiet_diag(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

/* Copy one segment's prologue (first one only) and complete RECORDS chunks. */
static int add_segment(struct seg_ctx *c, struct image *im, const char *name, const uint8_t *p,
		       size_t size)
{
	const struct pmiprof_file_prologue *pro = (const void *)p;
	struct trace_reader *r;
	const struct trace_header *h;
	size_t pos, body;
	uint64_t cut_records = 0;
	int err;

	err = trace_reader_open_mem(&r, p, size, name, quiet_diag, NULL);
	if (err) {
		say(c->diag, c->diag_arg, "%s/%s: not a readable trace segment (%s); left out",
		    c->dir, name, strerror(-err));
		c->left_out++;
		return 0;
	}
	h = trace_reader_header(r);
	if (c->have_first && !same_recording(&c->first, h)) {
		say(c->diag, c->diag_arg, "%s/%s: recorded with other events or sampling than "
		    "the first segment read; left out (read it with -i FILE)", c->dir, name);
		c->left_out++;
		trace_reader_close(r);
		return 0;
	}
	if (c->have_first && h->start_time < c->last_start) {
		say(c->diag, c->diag_arg, "%s/%s: its clock restarted (a reboot between the "
		    "segments); left out (read it with -i FILE)", c->dir, name);
		c->left_out++;
		trace_reader_close(r);
		return 0;
	}
	c->last_start = h->start_time;
	body = sizeof(*pro) + pro->header_size;
	if (!c->have_first) {
		c->first = *h;
		c->have_first = true;
		err = image_put(im, p, body);
		if (err) {
			trace_reader_close(r);
			return err;
		}
	}
	trace_reader_close(r);
	for (pos = body; pos + sizeof(struct pmiprof_chunk_header) <= size;) {
		struct pmiprof_chunk_header ch;

		memcpy(&ch, p + pos, sizeof(ch));
		if (ch.magic != PMIPROF_CHUNK_MAGIC ||
		    ch.header_crc != libdeflate_crc32(0, &ch, offsetof(struct pmiprof_chunk_header,
									header_crc)))
			break;
		if (ch.csize > size - pos - sizeof(ch)) {
			/* a cut SUMMARY costs nothing: its chunk is read without it */
			cut_records = ch.type == PMIPROF_CHUNK_SUMMARY ? 0 : ch.nr_records;
			break;
		}
		if (ch.type != PMIPROF_CHUNK_SUMMARY) {
			ch.seq = im->seq++;
			ch.header_crc = libdeflate_crc32(0, &ch, offsetof(struct pmiprof_chunk_header,
									   header_crc));
			err = image_put(im, &ch, sizeof(ch));
			if (!err)
				err = image_put(im, p + pos + sizeof(ch), ch.csize);
			if (err)
				return err;
		}
		pos += sizeof(ch) + ch.csize;
	}
	if (pos < size)
		say(c->diag, c->diag_arg, "%s/%s: its last %zu bytes are not a complete chunk "
		    "(%llu records of a segment still being written, or of a daemon that was "
		    "killed): not read", c->dir, name, size - pos, (unsigned long long)cut_records);
	return 0;
}

static int map_segment(struct seg_ctx *c, struct image *im, const struct trace_seg *sg)
{
	char path[4096];
	struct stat st;
	void *p;
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", c->dir, sg->name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && sg->open) {
		/* closed meanwhile: the same segment under its final name */
		size_t l = strlen(path) - strlen(".open");

		path[l] = '\0';
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0) {
		/* deleted by retention meanwhile */
		if (errno == ENOENT)
			return 0;
		err = -errno;
		say(c->diag, c->diag_arg, "%s: cannot read: %s", path, strerror(-err));
		return err;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (st.st_size < (off_t)sizeof(struct pmiprof_file_prologue)) {
		close(fd);
		say(c->diag, c->diag_arg, "%s: %lld bytes, too short for a trace; left out", path,
		    (long long)st.st_size);
		c->left_out++;
		return 0;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	err = add_segment(c, im, sg->name, p, (size_t)st.st_size);
	munmap(p, (size_t)st.st_size);
	return err;
}

int trace_dir_image(const char *dir, uint8_t **buf, size_t *len,
		    void (*diag)(void *arg, const char *msg), void *diag_arg)
{
	struct seg_ctx c = { .diag = diag, .diag_arg = diag_arg, .dir = dir };
	struct image im = { 0 };
	struct trace_seg *v;
	size_t nr, i;
	int err;

	*buf = NULL;
	*len = 0;
	err = trace_dir_list(dir, &v, &nr);
	if (err) {
		say(diag, diag_arg, "%s: cannot list: %s", dir, strerror(-err));
		return err;
	}
	for (i = 0; i < nr && !err; i++) {
		uint64_t end = i + 1 < nr ? v[i + 1].start_ns : UINT64_MAX;

		if ((range_since && end < range_since) || (range_until && v[i].start_ns > range_until))
			continue;
		/* a daemon killed while writing it: it has no FINISH, say so */
		if (v[i].unfinished)
			say(diag, diag_arg, "%s/%s: a segment its daemon could not close (killed, or "
			    "a power loss; closed by the next daemon): read as far as it is complete, "
			    "it has no FINISH", dir, v[i].name);
		else if (v[i].open && i + 1 < nr)
			say(diag, diag_arg, "%s/%s: an open segment that is not the newest (its "
			    "daemon was killed): read as far as it is complete, it has no FINISH",
			    dir, v[i].name);
		err = map_segment(&c, &im, &v[i]);
	}
	free(v);
	if (!err && !im.len) {
		say(diag, diag_arg, "%s: no trace segments%s (files named %sYYYYMMDDTHHMMSS.uuuuuuZ%s, "
		    "written by 'pmiprof daemon')", dir, range_since || range_until ?
		    " in the --since/--until range" : "", TRACE_SEG_PREFIX, TRACE_SEG_SUFFIX);
		err = -ENOENT;
	}
	if (err) {
		free(im.buf);
		return err;
	}
	*buf = im.buf;
	*len = im.len;
	return 0;
}

/* ---- wall-clock times ---- */

static int parse_relative(const char *s, uint64_t now_ns, uint64_t *out)
{
	static const struct { const char *u; uint64_t ns; } units[] = {
		{ "ms", 1000000ull }, { "s", 1000000000ull }, { "m", 60000000000ull },
		{ "h", 3600000000000ull }, { "d", 86400000000000ull },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s + 1, &end);
	if (errno || end == s + 1 || v < 0 || !isdigit((unsigned char)s[1]))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (!strcmp(end, units[i].u)) {
			double d = v * (double)units[i].ns;

			if (d > (double)now_ns)
				return -EINVAL;
			*out = now_ns - (uint64_t)d;
			return 0;
		}
	}
	return -EINVAL;
}

int trace_parse_walltime(const char *s, uint64_t now_ns, uint64_t *out_ns)
{
	struct tm tm;
	const char *p;
	char *end;
	uint64_t frac = 0, scale = 100000000ull;
	long off = 0;

	if (!strcmp(s, "now")) {
		*out_ns = now_ns;
		return 0;
	}
	if (s[0] == '-')
		return parse_relative(s, now_ns, out_ns);
	memset(&tm, 0, sizeof(tm));
	p = strptime(s, "%Y-%m-%d", &tm);
	if (!p || (*p != 'T' && *p != 't' && *p != ' '))
		return -EINVAL;
	p = strptime(p + 1, "%H:%M:%S", &tm);
	if (!p)
		return -EINVAL;
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++) {
			frac += (uint64_t)(*p - '0') * scale;
			scale /= 10;
		}
	}
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		long hh = strtol(p + 1, &end, 10), mm;

		if (end != p + 3 || *end != ':')
			return -EINVAL;
		mm = strtol(end + 1, &end, 10);
		if (end != p + 6 || hh > 23 || mm > 59)
			return -EINVAL;
		off = (hh * 3600 + mm * 60) * (*p == '+' ? 1 : -1);
		p = end;
	} else {
		return -EINVAL;		/* RFC 3339 needs the offset */
	}
	if (*p)
		return -EINVAL;
	*out_ns = (uint64_t)((int64_t)timegm(&tm) - off) * 1000000000ull + frac;
	return 0;
}
