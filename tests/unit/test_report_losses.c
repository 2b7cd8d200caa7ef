// SPDX-License-Identifier: GPL-2.0
/*
 * Report tests of what a recording lost or could not finish, on synthetic
 * traces written with the trace writer: windows flagged after-loss or
 * throttled (counted in the profile, left out of histograms, plots and
 * per-window statistics, marked in --windows), THROTTLE LOST records
 * (throttling, not lost samples; 1.0 traces' estimate), recordings without
 * FINISH or with FINISH error/interrupted flags, and JSON strings from
 * names that are not valid UTF-8.  Expected values are this file's constants.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "commands.h"
#include "util.h"
#include "pmiprof/trace.h"
#include "cmd_capture.h"
#include "analysis/histogram.h"
#include "analysis/metrics.h"
#include "analysis/parallel.h"
#include "analysis/profile.h"
#include "input/session.h"

#define PID 200
#define START_NS 1000000000ULL
#define N_WIN 40
#define N_AFTER_LOSS 3		/* windows 5, 17, 30 */
#define N_THROTTLED 1		/* window 22 */
#define N_LEFT_OUT (N_AFTER_LOSS + N_THROTTLED)
#define RING_LOST 7

enum { EV_INS, EV_CYC, NR_EV };

/* What a test trace holds besides its samples. */
struct spec {
	bool flags;			/* after-loss/throttled windows */
	bool throttle;			/* THROTTLE LOST records */
	bool v10;			/* label the file 1.0 */
	bool no_finish;
	uint32_t finish_flags;
	const char *comm;		/* COMM of the process */
};

static uint32_t flags_of(unsigned int i)
{
	if (i == 5 || i == 17 || i == 30)
		return PMIPROF_SAMPLE_F_AFTER_LOSS;
	if (i == 22)
		return PMIPROF_SAMPLE_F_THROTTLED;
	return 0;
}

static int write_trace(const char *path, const struct spec *sp)
{
	struct trace_writer_opts wo = { .level = 1, .chunk_size = 64 };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_sample s;
	struct trace_comm c;
	struct trace_lost l;
	struct trace_finish fin;
	unsigned int i;
	int err, fd;

	memset(&h, 0, sizeof(h));
	h.nr_events = NR_EV;
	snprintf(h.events[EV_INS].name, sizeof(h.events[0].name), "instructions");
	snprintf(h.events[EV_CYC].name, sizeof(h.events[0].name), "cycles");
	h.events[EV_INS].flags = PMIPROF_EVENT_F_TRIGGER;
	h.period = 100000;
	h.mode = PMIPROF_MODE_PERF;
	h.backend = PMIPROF_BACKEND_PERF;
	h.clock_id = 1;
	h.clock_freq_hz = 1000000000ULL;
	h.start_time = START_NS;
	h.nr_cpus = 2;
	snprintf(h.cmdline, sizeof(h.cmdline), "synthetic");
	err = trace_writer_open(&w, path, &h, &wo);
	if (err)
		return err;
	c = (struct trace_comm){ START_NS, PID, PID, PMIPROF_COMM_F_EXEC,
				 sp->comm ? sp->comm : "synth" };
	trace_write_comm(w, &c);
	for (i = 0; i < N_WIN; i++) {
		memset(&s, 0, sizeof(s));
		s.time = START_NS + (uint64_t)(i + 1) * 1000000;
		s.cpu = i & 1;
		s.pid = s.tid = PID;
		s.ip = 0x1000 + (i % 4) * 0x10;		/* no map: [unknown] */
		s.flags = PMIPROF_SAMPLE_F_USER | (sp->flags ? flags_of(i) : 0);
		s.nr = NR_EV;
		s.counts[EV_INS] = 100000;
		/* ipc 1, except windows spanning unrecorded periods: 0.1 */
		s.counts[EV_CYC] = flags_of(i) ? 1000000 : 100000;
		trace_write_sample(w, &s);
		if (i == 10) {
			l = (struct trace_lost){ s.time, 0, PMIPROF_LOST_RING_FULL, RING_LOST, 0 };
			trace_write_lost(w, &l);
		}
		if (sp->throttle && (i == 15 || i == 25)) {
			/* 2 + 1 throttle events, 1.5 ms + 0.5 ms */
			l = (struct trace_lost){ s.time, 1, PMIPROF_LOST_THROTTLE, i == 15 ? 2 : 1,
						 i == 15 ? 1500000 : 500000 };
			trace_write_lost(w, &l);
		}
	}
	if (!sp->no_finish) {
		fin = (struct trace_finish){ START_NS + 50000000ULL, sp->finish_flags, 0, N_WIN,
					     RING_LOST };
		trace_write_finish(w, &fin);
	}
	err = trace_writer_close(w);
	if (err || !sp->v10)
		return err;
	/* version_minor (offset 10) is outside the header CRC. */
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	err = pwrite(fd, "\0\0", 2, 10) == 2 ? 0 : -EIO;
	close(fd);
	return err;
}

/* Header lines wrapped at 100 columns ("\n#   " continues) joined again, in place. */
static char *unwrap(char *s)
{
	char *r = s, *w = s;

	while (*r) {
		if (!strncmp(r, "\n#   ", 5)) {
			*w++ = ' ';
			r += 5;
		} else {
			*w++ = *r++;
		}
	}
	*w = 0;
	return s;
}

static void trace_name(char *buf, size_t size, const char *tag)
{
	snprintf(buf, size, "/tmp/pmiprof-loss-%d.%s", (int)getpid(), tag);
}

/* Windows spanning unrecorded periods: in the profile, not in per-window statistics. */
static void after_loss_windows_left_out_of_per_window_statistics(void **state)
{
	char path[64];
	char *hist[] = { "report", "-i", path, "--hist", "--by", "tid", NULL };
	char *hjson[] = { "report", "-i", path, "--hist", "--format", "json", NULL };
	char *wcsv[] = { "report", "-i", path, "--windows", "--format", "csv", NULL };
	char *wtab[] = { "report", "-i", path, "--windows", NULL };
	char *wjson[] = { "report", "-i", path, "--windows", "--format", "json", NULL };
	struct spec sp = { .flags = true };
	struct session_opts o = { 0 };
	struct metric_set ms;
	struct session s, par;
	struct profile p, pp;
	struct hist h;
	char *out, *err, *line, *next;
	unsigned int marked = 0;
	int rc;

	(void)state;
	trace_name(path, sizeof(path), "flags");
	assert_int_equal(write_trace(path, &sp), 0);

	/*
	 * Every window counts as a sample in the profile; the event sums leave
	 * out the counts of windows after a loss (they absorbed the lost
	 * periods), not those of throttled ones; the histogram leaves 4 out.
	 */
	o.input = path;
	assert_int_equal(session_open(&s, &o), 0);
	metrics_derived(s.h, &ms);
	assert_string_equal(ms.m[0].name, "ipc");
	assert_int_equal(profile_init(&p, &s, BY_TID, ms.m, 1), 0);
	assert_int_equal(session_run(&s, profile_add_sample, &p), 0);
	assert_int_equal(p.samples, N_WIN);
	assert_int_equal(p.rows[0].samples, N_WIN);
	assert_int_equal(p.rows[0].counts[EV_CYC], (N_WIN - N_LEFT_OUT) * 100000ULL +
			 N_THROTTLED * 1000000ULL);
	assert_int_equal(p.nr_win, N_WIN - N_LEFT_OUT);
	assert_int_equal(p.win_left_out, N_LEFT_OUT);
	assert_int_equal(s.after_loss, N_AFTER_LOSS);
	assert_int_equal(s.throttled, N_THROTTLED);
	assert_int_equal(s.left_out, N_LEFT_OUT);
	assert_int_equal(hist_build(&h, p.win_values, p.nr_hist, p.nr_win, NULL, 0, NULL), 0);
	assert_int_equal(h.n, N_WIN - N_LEFT_OUT);
	assert_true(fabs(h.min - 1.0) < 1e-6);	/* none of the 0.1 windows */
	profile_free(&p);
	session_close(&s);

	/* The parallel pass counts the same windows. */
	assert_int_equal(session_open(&par, &o), 0);
	assert_int_equal(profile_init(&pp, &par, BY_SYMBOL, NULL, 0), 0);
	if (parallel_eligible(&par, &pp)) {
		assert_int_equal(parallel_profile(&par, &pp), 0);
		assert_int_equal(par.after_loss, N_AFTER_LOSS);
		assert_int_equal(par.throttled, N_THROTTLED);
		assert_int_equal(par.left_out, N_LEFT_OUT);
	}
	profile_free(&pp);
	session_close(&par);

	/* Text: the header says how many and why; the histogram says it left them out. */
	out = unwrap(cmd_capture(cmd_report, hist, &rc, &err));
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "# 3 window(s) after a loss and 1 window(s) stretched by "
			       "throttling left out of per-window statistics"));
	assert_non_null(strstr(out, "# distribution of per-window ipc: 36 windows (4 after a "
			       "loss or throttling left out), min 1 "));
	assert_non_null(strstr(out, "40 samples (windows), 40 shown"));
	free(out);
	free(err);
	out = cmd_capture(cmd_report, hjson, &rc, &err);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\"after_loss_windows\": 3, \"windows_left_out\": 4,"));
	assert_non_null(strstr(out, "\"windows_left_out\": 4, \"all\": {\"n\": 36,"));
	free(out);
	free(err);

	/* --windows lists every window, marked. */
	out = cmd_capture(cmd_report, wcsv, &rc, &err);
	assert_int_equal(rc, 0);
	line = out;
	next = strchr(line, '\n');
	assert_non_null(next);
	*next = 0;
	assert_non_null(strstr(line, ",throttled,after_loss"));
	for (line = next + 1; *line; line = next + 1) {
		unsigned long idx = strtoul(line, NULL, 10);
		size_t len;

		next = strchr(line, '\n');
		assert_non_null(next);
		*next = 0;
		len = strlen(line);
		assert_true(len > 4);
		if (flags_of((unsigned int)idx) == PMIPROF_SAMPLE_F_AFTER_LOSS)
			assert_string_equal(line + len - 4, ",0,1");
		else if (flags_of((unsigned int)idx))
			assert_string_equal(line + len - 4, ",1,0");
		else
			assert_string_equal(line + len - 4, ",0,0");
		marked++;
	}
	assert_int_equal(marked, N_WIN);
	free(out);
	free(err);
	out = unwrap(cmd_capture(cmd_report, wtab, &rc, &err));
	assert_int_equal(rc, 0);
	assert_int_equal(count_str(out, "  (after loss)\n"), N_AFTER_LOSS);
	assert_int_equal(count_str(out, "  (throttled)\n"), N_THROTTLED);
	assert_non_null(strstr(out, "left out of per-window statistics"));
	free(out);
	free(err);
	out = cmd_capture(cmd_report, wjson, &rc, &err);
	assert_int_equal(rc, 0);
	assert_int_equal(count_str(out, "\"after_loss\": true}"), N_AFTER_LOSS);
	assert_int_equal(count_str(out, "\"after_loss\": false}"), N_WIN - N_AFTER_LOSS);
	free(out);
	free(err);
	unlink(path);
}

/*
 * plot: the series and histograms have no point of the flagged windows; a
 * ring-full loss is a red line, throttling an orange dashed one.
 */
static void after_loss_windows_left_out_of_plot_series(void **state)
{
	char path[64], png[80], gp[80], series[96], hists[96], line[512];
	char *argv[] = { "plot", "-i", path, "-o", png, "--metric", "ipc", "--keep-script", NULL };
	struct spec sp = { .flags = true, .throttle = true };
	char *out, *err;
	unsigned int points = 0, red = 0, orange = 0;
	FILE *f;
	int rc;

	(void)state;
	if (system("command -v gnuplot >/dev/null 2>&1"))
		skip();
	trace_name(path, sizeof(path), "plot");
	snprintf(png, sizeof(png), "%s.svg", path);
	snprintf(gp, sizeof(gp), "%s.gp", path);
	snprintf(series, sizeof(series), "%s.series.dat", path);
	snprintf(hists, sizeof(hists), "%s.hist.dat", path);
	assert_int_equal(write_trace(path, &sp), 0);
	out = cmd_capture(cmd_plot, argv, &rc, &err);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(err, "(36 windows (others after a loss or throttling left out)"));
	free(out);
	free(err);
	f = fopen(series, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		double t, ipc;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		assert_int_equal(sscanf(line, "%lf %lf", &t, &ipc), 2);
		assert_true(fabs(ipc - 1.0) < 1e-6);
		points++;
	}
	fclose(f);
	assert_int_equal(points, N_WIN - N_LEFT_OUT);
	f = fopen(gp, "r");
	assert_non_null(f);
	rc = 0;
	while (fgets(line, sizeof(line), f)) {
		rc |= strstr(line, "36 shown") && strstr(line, "4 after a loss or throttling "
							  "left out") && strstr(line, "7 lost, throttled 3 time(s)");
		red += strstr(line, "set arrow") && strstr(line, "\"red\"");
		orange += strstr(line, "set arrow") && strstr(line, "\"dark-orange\" lw 1.5 dt 2");
	}
	fclose(f);
	assert_true(rc);
	assert_int_equal(red, 1);	/* the ring-full LOST */
	assert_int_equal(orange, 2);	/* the two THROTTLE LOSTs */
	unlink(png);
	unlink(gp);
	unlink(series);
	unlink(hists);
	unlink(path);
}

/* THROTTLE LOST records: throttle events and time, never lost samples. */
static void throttling_reported_as_throttling_not_lost_samples(void **state)
{
	char path[64], old[64];
	char *text[] = { "report", "-i", path, NULL };
	char *json[] = { "report", "-i", path, "--format", "json", NULL };
	char *text10[] = { "report", "-i", old, NULL };
	char *json10[] = { "report", "-i", old, "--format", "json", NULL };
	struct spec sp = { .throttle = true };
	struct spec sp10 = { .throttle = true, .v10 = true };
	char *out, *err;
	int rc;

	(void)state;
	trace_name(path, sizeof(path), "thr");
	trace_name(old, sizeof(old), "thr10");
	assert_int_equal(write_trace(path, &sp), 0);
	assert_int_equal(write_trace(old, &sp10), 0);

	out = unwrap(cmd_capture(cmd_report, text, &rc, &err));
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "lost 7 (ring 7, write 0, unreadable 0, truncated 0); "
			       "throttled 3 time(s) for 0.002 s"));
	assert_null(strstr(out, "throttle 3"));
	assert_non_null(strstr(err, "warning: 7 sample(s) were lost during recording (ring full "
			       "7, write errors 0)"));
	assert_non_null(strstr(err, "warning: the kernel throttled sampling 3 time(s) for "
			       "0.002 s"));
	free(out);
	free(err);
	out = cmd_capture(cmd_report, json, &rc, &err);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\"lost\": 7, \"lost_ring_full\": 7,"));
	assert_non_null(strstr(out, "\"throttle_events\": 3, \"throttled_s\": 0.002000, "
			       "\"throttle_windows_estimated\": null"));
	free(out);
	free(err);

	/* 1.0: the count was the recorder's estimate of windows. */
	out = unwrap(cmd_capture(cmd_report, text10, &rc, &err));
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "lost 7 (ring 7, write 0, unreadable 0, truncated 0); "
			       "throttled (about 3 windows, estimated by the recorder)"));
	assert_non_null(strstr(err, "throttled sampling (about 3 windows, estimated by the "
			       "recorder)"));
	free(out);
	free(err);
	out = cmd_capture(cmd_report, json10, &rc, &err);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\"lost\": 7,"));
	assert_non_null(strstr(out, "\"throttle_events\": null, \"throttled_s\": null, "
			       "\"throttle_windows_estimated\": 3"));
	free(out);
	free(err);
	unlink(path);
	unlink(old);
}

static void expect_ending(const char *tag, const struct spec *sp, const char *what,
			  const char *json)
{
	char path[64];
	char *text[] = { "report", "-i", path, NULL };
	char *js[] = { "report", "-i", path, "--format", "json", NULL };
	char *csv[] = { "report", "-i", path, "--format", "csv", NULL };
	char *out, *err;
	int rc;

	trace_name(path, sizeof(path), tag);
	assert_int_equal(write_trace(path, sp), 0);
	out = unwrap(cmd_capture(cmd_report, text, &rc, &err));
	assert_int_equal(rc, 0);
	if (what) {
		char hdr[256];

		snprintf(hdr, sizeof(hdr), "# WARNING: %s", what);
		assert_non_null(strstr(out, hdr));
		assert_non_null(strstr(err, what));
		assert_non_null(strstr(err, "warning: "));
	} else {
		assert_null(strstr(out, "WARNING"));
		assert_null(strstr(err, "finish"));
		assert_null(strstr(err, "interrupted"));
		assert_null(strstr(err, "stopped on an error"));
	}
	free(out);
	free(err);
	out = cmd_capture(cmd_report, js, &rc, &err);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, json));
	free(out);
	free(err);
	/* CSV has no header: stderr says it. */
	out = cmd_capture(cmd_report, csv, &rc, &err);
	assert_int_equal(rc, 0);
	if (what)
		assert_non_null(strstr(err, what));
	free(out);
	free(err);
	unlink(path);
}

/* A trace without FINISH, or whose FINISH says error/interrupted, says so. */
static void unfinished_recording_is_warned_about(void **state)
{
	struct spec done = { 0 }, killed = { .no_finish = true };
	struct spec error = { .finish_flags = PMIPROF_FINISH_F_ERROR };
	struct spec intr = { .finish_flags = PMIPROF_FINISH_F_INTERRUPTED };
	char path[64];
	char *lim[] = { "report", "-i", path, "--windows", "--limit", "3", "--format", "json",
			NULL };
	char *out, *err;
	int rc;

	(void)state;
	expect_ending("done", &done, NULL,
		      "\"finished\": true, \"interrupted\": false, \"recorder_error\": false");
	expect_ending("killed", &killed, "the recording did not finish (no FINISH record: "
		      "recorder killed, crashed or out of disk space?); the trace may end early",
		      "\"finished\": false, \"interrupted\": false, \"recorder_error\": false");
	expect_ending("error", &error, "the recorder stopped on an error",
		      "\"finished\": true, \"interrupted\": false, \"recorder_error\": true");
	expect_ending("intr", &intr, "the recording was interrupted (SIGINT/SIGTERM/SIGHUP)",
		      "\"finished\": true, \"interrupted\": true, \"recorder_error\": false");

	/* --limit stops before the end: unknown, and no false alarm. */
	trace_name(path, sizeof(path), "lim");
	assert_int_equal(write_trace(path, &done), 0);
	out = cmd_capture(cmd_report, lim, &rc, &err);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\"finished\": null"));
	assert_null(strstr(err, "did not finish"));
	free(out);
	free(err);
	unlink(path);
}

/* Every byte of s is part of valid UTF-8. */
static bool valid_utf8(const unsigned char *s)
{
	while (*s) {
		unsigned int n = *s < 0x80 ? 0 : (*s & 0xe0) == 0xc0 ? 1 : (*s & 0xf0) == 0xe0 ? 2 :
				 (*s & 0xf8) == 0xf0 ? 3 : 9;

		if (n == 9 || (n && *s < 0xc2))
			return false;
		for (s++; n; n--, s++)
			if ((*s & 0xc0) != 0x80)
				return false;
	}
	return true;
}

/* Names with bytes that are not UTF-8: U+FFFD in JSON; control characters escaped. */
static void json_strings_are_valid_utf8(void **state)
{
	char path[64];
	char *by_comm[] = { "report", "-i", path, "--by", "comm", "--format", "json", NULL };
	char *win[] = { "report", "-i", path, "--windows", "--format", "json", NULL };
	/* 0xff, a cut 3-byte sequence, an overlong '/', a control byte, and valid UTF-8. */
	struct spec sp = { .comm = "a\xff" "b\xe2\x82" "c\xc0\xaf" "d\x01" "\xc3\xa9\xe2\x82\xac" };
	char *out, *err;
	int rc;

	(void)state;
	trace_name(path, sizeof(path), "utf8");
	assert_int_equal(write_trace(path, &sp), 0);
	out = cmd_capture(cmd_report, by_comm, &rc, &err);
	assert_int_equal(rc, 0);
	assert_true(valid_utf8((const unsigned char *)out));
	assert_non_null(strstr(out, "\"comm\": \"a\\ufffdb\\ufffd\\ufffdc\\ufffd\\ufffdd\\u0001"
			       "\xc3\xa9\xe2\x82\xac\""));
	free(out);
	free(err);
	out = cmd_capture(cmd_report, win, &rc, &err);
	assert_int_equal(rc, 0);
	assert_true(valid_utf8((const unsigned char *)out));
	assert_int_equal(count_str(out, "\"comm\": \"a\\ufffdb"), N_WIN);
	free(out);
	free(err);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(after_loss_windows_left_out_of_per_window_statistics),
		cmocka_unit_test(after_loss_windows_left_out_of_plot_series),
		cmocka_unit_test(throttling_reported_as_throttling_not_lost_samples),
		cmocka_unit_test(unfinished_recording_is_warned_about),
		cmocka_unit_test(json_strings_are_valid_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
