// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's directory of segments (lib/trace_dir.c, daemon/service/retention.c):
 * segment names round-trip and sort in time order; --since/--until times
 * (RFC 3339, relative) parse or are refused; --retain values parse; a
 * directory of segments reads as one trace with every sample, chunks
 * renumbered, a cut last chunk left out and a segment of other events left
 * out; the range selects segments; retention deletes the oldest closed
 * segments by age and by size and never the open one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "service/retention.h"
#include "../../lib/trace_dir.h"
#include "../../lib/util.h"
#include "trace_gen.h"

#define S 1000000000ull

static void seg_names_round_trip_and_sort(void **state)
{
	char a[TRACE_SEG_NAME_MAX], b[TRACE_SEG_NAME_MAX];
	uint64_t t = 1795863281460376970ull, back;
	bool open;

	(void)state;
	trace_seg_name(a, sizeof(a), t, false);
	assert_string_equal(a, "seg-20261128T105441.460376Z.pmiprof");
	assert_int_equal(trace_seg_parse(a, &back, &open), 0);
	assert_int_equal(back, t / 1000 * 1000);	/* microseconds in the name */
	assert_false(open);
	trace_seg_name(b, sizeof(b), t + 1500000, true);
	assert_int_equal(trace_seg_parse(b, &back, &open), 0);
	assert_true(open);
	assert_true(strcmp(a, b) < 0);
	trace_seg_name(b, sizeof(b), t + 600 * S, false);
	assert_true(strcmp(a, b) < 0);
	assert_int_equal(trace_seg_parse("seg-20261128T103441.460376Z.data", &back, &open), -EINVAL);
	assert_int_equal(trace_seg_parse("pmiprof.data", &back, &open), -EINVAL);
	assert_int_equal(trace_seg_parse("seg-2026112T103441.460376Z.pmiprof", &back, &open), -EINVAL);
}

static void walltimes_parse_or_are_refused(void **state)
{
	uint64_t now = 1795863281000000000ull, v;

	(void)state;
	assert_int_equal(trace_parse_walltime("2026-11-28T10:54:41Z", now, &v), 0);
	assert_int_equal(v, 1795863281ull * S);
	assert_int_equal(trace_parse_walltime("2026-11-28 11:54:41.25+01:00", now, &v), 0);
	assert_int_equal(v, 1795863281ull * S + 250000000ull);
	assert_int_equal(trace_parse_walltime("2026-11-28T05:24:41-05:30", now, &v), 0);
	assert_int_equal(v, 1795863281ull * S);
	assert_int_equal(trace_parse_walltime("-10m", now, &v), 0);
	assert_int_equal(v, now - 600 * S);
	assert_int_equal(trace_parse_walltime("-1.5h", now, &v), 0);
	assert_int_equal(v, now - 5400 * S);
	assert_int_equal(trace_parse_walltime("now", now, &v), 0);
	assert_int_equal(v, now);
	assert_int_equal(trace_parse_walltime("2026-11-28T10:34:41", now, &v), -EINVAL);
	assert_int_equal(trace_parse_walltime("2026-11-28", now, &v), -EINVAL);
	assert_int_equal(trace_parse_walltime("-10", now, &v), -EINVAL);
	assert_int_equal(trace_parse_walltime("--5m", now, &v), -EINVAL);
	assert_int_equal(trace_parse_walltime("yesterday", now, &v), -EINVAL);
	assert_int_equal(trace_parse_walltime("2026-11-28T10:34:41Zjunk", now, &v), -EINVAL);
}

static void retain_values_parse(void **state)
{
	struct retention r;
	char err[256];

	(void)state;
	assert_int_equal(retention_parse("3600", &r, err, sizeof(err)), 0);
	assert_int_equal(r.max_age_ns, 3600 * S);
	assert_int_equal(r.max_bytes, 0);
	assert_int_equal(retention_parse("1d,1G", &r, err, sizeof(err)), 0);
	assert_int_equal(r.max_age_ns, 86400 * S);
	assert_int_equal(r.max_bytes, 1ull << 30);
	assert_int_equal(retention_parse("500MB,2h", &r, err, sizeof(err)), 0);
	assert_int_equal(r.max_bytes, 500ull << 20);
	assert_int_equal(r.max_age_ns, 7200 * S);
	assert_int_equal(retention_parse("2GiB", &r, err, sizeof(err)), 0);
	assert_int_equal(r.max_bytes, 2ull << 30);
	assert_int_equal(retention_parse("0", &r, err, sizeof(err)), -EINVAL);
	assert_int_equal(retention_parse("1h,2h", &r, err, sizeof(err)), -EINVAL);
	assert_int_equal(retention_parse("10Q", &r, err, sizeof(err)), -EINVAL);
	assert_int_equal(retention_parse("5sB", &r, err, sizeof(err)), -EINVAL);
	assert_int_equal(retention_parse("", &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--retain"));
}

static char dir[64];

static void path_of(char *p, size_t len, const char *name)
{
	snprintf(p, len, "%s/%s", dir, name);
}

/* A segment of n samples starting at mono t (ns), wall clock real. */
static void write_segment(uint64_t t, uint64_t real, unsigned int n, bool open,
			  const char *first_event)
{
	struct trace_writer_opts o = { .chunk_size = 4096 };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_sample s;
	struct trace_finish f;
	char name[TRACE_SEG_NAME_MAX], p[128];
	unsigned int i;

	/* the open one: no chunk summaries, so that cutting its end cuts samples */
	o.no_summary = open;
	tgen_header(&h);
	if (first_event)
		pm_strlcpy(h.events[0].name, first_event, sizeof(h.events[0].name));
	h.start_time = t;
	h.start_realtime_ns = real;
	trace_seg_name(name, sizeof(name), real, open);
	path_of(p, sizeof(p), name);
	assert_int_equal(trace_writer_open(&w, p, &h, &o), 0);
	memset(&s, 0, sizeof(s));
	s.nr = h.nr_events;
	for (i = 0; i < n; i++) {
		s.time = t + i * 1000;
		s.ip = 0x401000 + (i % 7) * 16;
		s.pid = s.tid = 100 + i % 3;
		s.counts[0] = 1000 + i;
		assert_int_equal(trace_write_sample(w, &s), 0);
	}
	if (!open) {
		memset(&f, 0, sizeof(f));
		f.time = t + n * 1000;
		f.samples = n;
		assert_int_equal(trace_write_finish(w, &f), 0);
	}
	assert_int_equal(trace_writer_close(w), 0);
}

static void read_all(uint64_t *samples, uint64_t *finishes, uint32_t *max_seq, bool *increasing)
{
	struct trace_reader *r;
	struct trace_record rec;
	uint8_t *buf;
	size_t len;
	uint32_t last = 0;
	int rc;

	*samples = *finishes = 0;
	*increasing = true;
	assert_int_equal(trace_dir_image(dir, &buf, &len, NULL, NULL), 0);
	assert_int_equal(trace_reader_open_mem(&r, buf, len, dir, NULL, NULL), 0);
	while ((rc = trace_reader_next(r, &rec)) > 0) {
		if (rec.chunk_seq < last)
			*increasing = false;
		last = rec.chunk_seq;
		*samples += rec.type == PMIPROF_REC_SAMPLE;
		*finishes += rec.type == PMIPROF_REC_FINISH;
	}
	assert_int_equal(rc, 0);
	*max_seq = last;
	trace_reader_close(r);
	free(buf);
}

static int make_dir(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/pmiprof-dir.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

static void dir_reads_as_one_trace(void **state)
{
	uint64_t real = 1795863281000000000ull, mono = 1000 * S, n, fin;
	uint32_t seq;
	bool inc;
	char p[128], name[TRACE_SEG_NAME_MAX];
	struct stat st;

	(void)state;
	/* 3 closed segments of several chunks each, then an open one cut mid-chunk */
	write_segment(mono, real, 3000, false, NULL);
	write_segment(mono + 10 * S, real + 10 * S, 2000, false, NULL);
	write_segment(mono + 20 * S, real + 20 * S, 1000, false, NULL);
	read_all(&n, &fin, &seq, &inc);
	assert_int_equal(n, 6000);
	assert_int_equal(fin, 3);
	assert_true(inc);
	assert_true(seq >= 3);
	write_segment(mono + 30 * S, real + 30 * S, 1000, true, NULL);
	trace_seg_name(name, sizeof(name), real + 30 * S, true);
	path_of(p, sizeof(p), name);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(truncate(p, st.st_size - 10), 0);
	read_all(&n, &fin, &seq, &inc);
	print_message("open segment cut: %llu samples read\n", (unsigned long long)n);
	assert_true(n > 6000 && n < 7000);	/* the cut chunk is not read */
	assert_int_equal(fin, 3);
	/* a segment of other events (another daemon's options) is left out */
	write_segment(mono + 40 * S, real + 40 * S, 500, false, "cpu-clock");
	read_all(&n, &fin, &seq, &inc);
	assert_int_equal(fin, 3);
	/* a range selects the segments that overlap it */
	trace_dir_set_range(real + 11 * S, real + 19 * S);
	read_all(&n, &fin, &seq, &inc);
	assert_int_equal(n, 2000);
	trace_dir_set_range(real + 9 * S, real + 21 * S);
	read_all(&n, &fin, &seq, &inc);
	assert_int_equal(n, 6000);
	trace_dir_set_range(1, real - S);
	{
		uint8_t *buf;
		size_t len;

		assert_int_equal(trace_dir_image(dir, &buf, &len, NULL, NULL), -ENOENT);
	}
	trace_dir_set_range(0, 0);
}

static void touch(const char *name, size_t bytes, uint64_t mtime_s)
{
	struct timespec ts[2] = { { (time_t)mtime_s, 0 }, { (time_t)mtime_s, 0 } };
	char p[128];
	int fd;

	path_of(p, sizeof(p), name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)bytes), 0);
	assert_int_equal(futimens(fd, ts), 0);
	close(fd);
}

static void retention_deletes_oldest_closed(void **state)
{
	struct retention r = { 0 };
	struct retention_result res;
	uint64_t now = 1795863281ull, i;
	char name[TRACE_SEG_NAME_MAX], p[128];
	struct trace_seg *v;
	size_t nr;

	(void)state;
	/* 10 closed segments of 1000 bytes, one a minute, then the open one (old mtime) */
	for (i = 0; i < 10; i++) {
		trace_seg_name(name, sizeof(name), (now - 600 + i * 60) * S, false);
		touch(name, 1000, now - 540 + i * 60);
	}
	trace_seg_name(name, sizeof(name), (now - 10) * S, true);
	touch(name, 5000, now - 3600);
	touch("notes.txt", 100000, now - 99999);	/* not a segment: never touched */
	r.max_age_ns = 299 * S;		/* ended in the last 5 minutes */
	assert_int_equal(retention_apply(dir, &r, now * S, &res), 0);
	assert_int_equal(res.deleted, 5);
	assert_int_equal(res.kept, 6);
	r.max_age_ns = 0;
	r.max_bytes = 7500;		/* 5000 open + 2 closed fit */
	assert_int_equal(retention_apply(dir, &r, now * S, &res), 0);
	assert_int_equal(res.deleted, 3);
	assert_int_equal(res.kept_bytes, 7000);
	r.max_bytes = 1;		/* the open one stays whatever its size */
	assert_int_equal(retention_apply(dir, &r, now * S, &res), 0);
	assert_int_equal(trace_dir_list(dir, &v, &nr), 0);
	assert_int_equal(nr, 1);
	assert_true(v[0].open);
	free(v);
	path_of(p, sizeof(p), "notes.txt");
	assert_int_equal(access(p, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(seg_names_round_trip_and_sort),
		cmocka_unit_test(walltimes_parse_or_are_refused),
		cmocka_unit_test(retain_values_parse),
		cmocka_unit_test_setup_teardown(dir_reads_as_one_trace, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(retention_deletes_oldest_closed, make_dir, remove_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
