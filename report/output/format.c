// SPDX-License-Identifier: GPL-2.0
/* Trace description headers, quoting and number formatting (see format.h). */
#include "output/format.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "stacks/callstack.h"
#include "util.h"

const char *window_kind(const struct session *s, char *buf, size_t size)
{
	const struct trace_header *h = s->h;
	const char *trig = h->trigger_index < h->nr_events ? h->events[h->trigger_index].name : "?";

	snprintf(buf, size, "%s%s windows (%s)%s",
		 (h->flags & PMIPROF_TRACE_F_TIME_BASED) ? "time-based" : "event-based",
		 "", trig,
		 (h->flags & PMIPROF_TRACE_F_EMULATED) ? ", EMULATED PMU" : "");
	return buf;
}

static void trigger_text(const struct session *s, char *buf, size_t size)
{
	const struct trace_header *h = s->h;
	const char *trig = h->trigger_index < h->nr_events ? h->events[h->trigger_index].name : "?";

	char per[32];

	if ((h->trigger_flags & PMIPROF_TRIGGER_F_FREQ) && h->freq_hz &&
	    (h->flags & PMIPROF_TRACE_F_TIME_BASED))
		snprintf(buf, size, "%s at %" PRIu64 " Hz (a window every %s)", trig, h->freq_hz,
			 fmt_ns(per, sizeof(per), 1e9 / (double)h->freq_hz));
	else if (h->trigger_flags & PMIPROF_TRIGGER_F_FREQ)
		snprintf(buf, size, "%s at %" PRIu64 " Hz", trig, h->freq_hz);
	else if (h->flags & PMIPROF_TRACE_F_TIME_BASED)
		snprintf(buf, size, "%s every %" PRIu64 " ns (%s)", trig, h->period,
			 fmt_ns(per, sizeof(per), (double)h->period));
	else
		snprintf(buf, size, "%s every %" PRIu64 " events", trig, h->period);
}

const char *fmt_ns(char *buf, size_t size, double ns)
{
	static const struct { double div; const char *unit; } u[] = {
		{ 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" }, { 1, "ns" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(u) - 1 && ns < u[i].div; i++)
		;
	snprintf(buf, size, "%.4g %s", ns / u[i].div, u[i].unit);
	return buf;
}

/* "# text" wrapped at spaces to fit META_WIDTH columns ("#   " continues). */
#define META_WIDTH 100
void PM_PRINTF(2, 3) print_meta_line(FILE *f, const char *fmt, ...)
{
	char buf[8192];
	const char *p = buf;
	va_list ap;
	int first = 1;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* a command line, path or comm may hold a newline: every line of it stays a "#" line */
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < ' ')
			*c = ' ';
	do {
		int room = META_WIDTH - (first ? 2 : 4), len = (int)strlen(p), cut = len;

		if (len > room) {
			for (cut = room; cut > room / 2 && p[cut] != ' '; cut--)
				;
			if (p[cut] != ' ')
				cut = room;
		}
		fprintf(f, "%s%.*s\n", first ? "# " : "#   ", cut, p);
		p += cut;
		while (*p == ' ')
			p++;
		first = 0;
	} while (*p);
}

/* "; throttled ..." for the duration line: events and time (1.1), or 1.0's estimate. */
static void throttle_text(const struct session *s, char *buf, size_t size)
{
	buf[0] = 0;
	if (s->throttle_events)
		snprintf(buf, size, "; throttled %" PRIu64 " time(s) for %.3f s%s",
			 s->throttle_events, (double)s->throttled_ns / 1e9,
			 s->throttle_no_duration ? " (some of unknown length)" : "");
	else if (s->throttle_est_windows)
		snprintf(buf, size, "; throttled (about %" PRIu64 " windows, estimated by the "
			 "recorder)", s->throttle_est_windows);
}

void print_meta_trace(FILE *f, const struct session *s)
{
	const struct trace_header *h = s->h;
	char buf[256], evs[PMIPROF_MAX_EVENTS * 130];
	size_t o = 0;
	uint32_t i;

	print_meta_line(f, "pmiprof report of %s%s%s", s->opts.input, h->cmdline[0] ? ": " : "",
		  h->cmdline);
	print_meta_line(f, "host %s, kernel %s, %s", h->hostname[0] ? h->hostname : "?",
		  h->kernel_release[0] ? h->kernel_release : "?",
		  h->cpu_model_name[0] ? h->cpu_model_name : "unknown cpu");
	trigger_text(s, buf, sizeof(buf));
	evs[0] = 0;
	for (i = 0; i < h->nr_events && i < PMIPROF_MAX_EVENTS; i++)
		o += (size_t)snprintf(evs + o, sizeof(evs) - o, "%s %s", i ? "," : "",
				      h->events[i].name);
	print_meta_line(f, "trigger: %s; events:%s", buf, evs);
	print_meta_line(f, "backend: %s (%s mode)%s%s%s%s", trace_backend_name(h->backend),
		  trace_mode_name(h->mode), h->pmu[0] ? ", PMU: " : "", h->pmu,
		  (h->flags & PMIPROF_TRACE_F_SYSTEM_WIDE) ? ", system-wide" : "",
		  (h->flags & PMIPROF_TRACE_F_INHERIT) ? ", children followed" : "");
	if (h->flags & PMIPROF_TRACE_F_TIME_BASED)
		print_meta_line(f, "TIME-BASED WINDOWS: no hardware PMU trigger; each window is a %s "
			  "tick, not N events", h->trigger_index < h->nr_events ?
			  h->events[h->trigger_index].name : "timer");
	if (h->flags & PMIPROF_TRACE_F_EMULATED)
		print_meta_line(f, "EMULATED PMU: counts come from the module's PMU model, not hardware");
	if (h->note[0])
		print_meta_line(f, "note: %s", h->note);
	if (h->call_graph == PMIPROF_CALL_GRAPH_FP || h->call_graph == PMIPROF_CALL_GRAPH_DWARF) {
		char dump[64] = "";

		if (h->call_graph == PMIPROF_CALL_GRAPH_DWARF)
			snprintf(dump, sizeof(dump), " (%u bytes of user stack)",
				 h->call_graph_dump_size);
		print_meta_line(f, "call graph: %s%s, max-stack %u%s%s",
				h->call_graph == PMIPROF_CALL_GRAPH_FP ? "fp" : "dwarf", dump,
				h->call_graph_max_stack,
				(h->call_graph_flags & PMIPROF_CALL_GRAPH_F_KERNEL) ?
				", kernel frames" : ", no kernel frames",
				(h->call_graph_flags & PMIPROF_CALL_GRAPH_F_LEAF_WORDS) ?
				(s->opts.no_leaf_fixup ? ", leaf words (fix-up off: --no-leaf-fixup)" :
				 ", leaf fix-up") : "");
	}
}

/* What resolving the stacks found (views that asked for stacks). */
static void print_meta_stacks(FILE *f, const struct session *s)
{
	const struct cs_stats *c;

	if (!s->cs)
		return;
	c = callstacks_stats(s->cs);
	print_meta_line(f, "call stacks: %" PRIu64 " of %" PRIu64 " shown samples have one; "
			"%.2f%% of those reached a root (_start, main, thread start), %" PRIu64
			" end in [truncated]; %" PRIu64 " leaf caller(s) restored by the fp leaf "
			"fix-up", c->samples, s->kept,
			c->samples ? 100.0 * (double)c->rooted / (double)c->samples : 0.0,
			c->truncated, c->fixups);
	if (c->dwarf)
		print_meta_line(f, "dwarf: %" PRIu64 " samples unwound from their stack copy",
				c->dwarf);
	if (c->damaged)
		print_meta_line(f, "DAMAGED STACKS: %" PRIu64 " bad or undefined STACK/USTACK "
				"reference(s), shown as [truncated]", c->damaged);
}

/* Code regions (1.4): markers read, what was lost or misused, what stayed open. */
static void print_meta_regions(FILE *f, const struct session *s)
{
	const struct regions *r = &s->reg;
	char an[512] = "", open[1024];
	size_t at = 0;
	uint64_t nopen;
	uint32_t i;

	if (!(s->h->flags & PMIPROF_TRACE_F_REGIONS))
		return;
	for (i = 1; i <= PMIPROF_REGION_AN_MAX && at < sizeof(an); i++) {
		int k;

		if (!r->anomalies[i])
			continue;
		k = snprintf(an + at, sizeof(an) - at, "%s%s %" PRIu64, at ? ", " : "; anomalies: ",
			     i < PMIPROF_REGION_AN_MAX ? trace_region_anomaly_name(i) : "other",
			     r->anomalies[i]);
		if (k > 0)
			at += (size_t)k;
	}
	/*
	 * The recorder clears the flag at the end when regions were not used;
	 * a killed recording kept it: no region lines for a trace without any.
	 */
	if (!regions_count(r) && !r->markers && !s->lost[PMIPROF_LOST_REGION_MARKERS] &&
	    !r->unmatched_ends && !an[0])
		return;
	print_meta_line(f, "code regions: %u, %" PRIu64 " markers, lost %" PRIu64 " (marker ring "
			"full in the workload)%s%s", regions_count(r), r->markers,
			s->lost[PMIPROF_LOST_REGION_MARKERS], r->unmatched_ends ? "; unmatched ends " : "",
			r->unmatched_ends ? "(a BEGIN lost)" : "");
	print_meta_line(f, "region attribution: a window belongs to the innermost region open on its "
			"thread when its sample was taken");
	if (an[0])
		print_meta_line(f, "code regions%s", an);
	nopen = regions_open_count(r);
	if (nopen && s->read_all) {
		regions_open_text(r, open, sizeof(open));
		print_meta_line(f, "code regions open at the end: %" PRIu64 " (%s)", nopen, open);
	}
	if (s->opts.filt.region)
		print_meta_line(f, "region filter: windows inside %s (nested regions included)",
				s->opts.filt.region);
}

void print_meta_counts(FILE *f, const struct session *s)
{
	const struct trace_read_stats *st = trace_reader_stats(s->r);
	const char *unfinished = session_unfinished(s);
	char lost[256] = "", dmg[128] = "", thr[128];

	if (s->lost_total)
		snprintf(lost, sizeof(lost), " (ring %" PRIu64 ", write %" PRIu64 ", unreadable %"
			 PRIu64 ", truncated %" PRIu64 ")", s->lost[PMIPROF_LOST_RING_FULL],
			 s->lost[PMIPROF_LOST_WRITE], s->lost[PMIPROF_LOST_UNREADABLE],
			 s->lost[PMIPROF_LOST_TRUNCATED]);
	throttle_text(s, thr, sizeof(thr));
	if (st->chunks_bad || st->truncated)
		snprintf(dmg, sizeof(dmg), "; DAMAGED FILE: %" PRIu64 " bad chunk(s)%s",
			 st->chunks_bad, st->truncated ? ", truncated" : "");
	print_meta_line(f, "duration %.3f s, %" PRIu64 " samples (windows), %" PRIu64 " shown after "
		  "filters, lost %" PRIu64 "%s%s%s", session_duration_s(s), s->samples, s->kept,
		  s->lost_total, lost, thr, dmg);
	if (unfinished)
		print_meta_line(f, "WARNING: %s", unfinished);
	if (st->second_trace_at)
		print_meta_line(f, "WARNING: a second recording follows at offset %" PRIu64 " (traces "
				"concatenated?): not read, this report covers the first only",
				st->second_trace_at);
	if (s->left_out) {
		char al[64] = "", th[64] = "";

		if (s->after_loss)
			snprintf(al, sizeof(al), "%" PRIu64 " window(s) after a loss", s->after_loss);
		if (s->throttled)
			snprintf(th, sizeof(th), "%" PRIu64 " window(s) stretched by throttling",
				 s->throttled);
		print_meta_line(f, "%s%s%s left out of per-window statistics (their counts span "
			  "more than one period; the profile counts them as samples%s)", al,
			  al[0] && th[0] ? " and " : "", th,
			  s->after_loss ? ", without the event counts of windows after a loss" : "");
	}
	if (s->have_finish && (s->finish.flags & PMIPROF_FINISH_F_SIGNALED))
		print_meta_line(f, "workload killed by signal %d", s->finish.exit_code);
	print_meta_regions(f, s);
	print_meta_stacks(f, s);
}

void print_meta_text(FILE *f, const struct session *s)
{
	print_meta_trace(f, s);
	print_meta_counts(f, s);
	print_meta_line(f, "attribution: %s", ATTRIBUTION_RULE);
}

void print_meta_json(FILE *f, const struct session *s)
{
	const struct trace_header *h = s->h;
	const struct trace_read_stats *st = trace_reader_stats(s->r);
	bool v10 = h->version_major == 1 && h->version_minor == 0;
	uint32_t i;

	fputs("\"meta\": {\"input\": ", f);
	json_str(f, s->opts.input);
	fputs(", \"cmdline\": ", f);
	json_str(f, h->cmdline);
	fputs(", \"hostname\": ", f);
	json_str(f, h->hostname);
	fputs(", \"trigger\": ", f);
	json_str(f, h->trigger_index < h->nr_events ? h->events[h->trigger_index].name : "");
	fprintf(f, ", \"period\": %" PRIu64 ", \"freq_hz\": %" PRIu64 ", \"events\": [",
		h->period, (h->trigger_flags & PMIPROF_TRIGGER_F_FREQ) ? h->freq_hz : 0);
	for (i = 0; i < h->nr_events && i < PMIPROF_MAX_EVENTS; i++) {
		if (i)
			fputs(", ", f);
		json_str(f, h->events[i].name);
	}
	fputs("], \"backend\": ", f);
	json_str(f, trace_backend_name(h->backend));
	fputs(", \"mode\": ", f);
	json_str(f, trace_mode_name(h->mode));
	fprintf(f, ", \"time_based\": %s, \"emulated\": %s, \"duration_s\": %.6f, "
		"\"samples\": %" PRIu64 ", \"samples_shown\": %" PRIu64 ", \"lost\": %" PRIu64
		", \"lost_ring_full\": %" PRIu64 ", \"lost_write\": %" PRIu64
		", \"lost_unreadable\": %" PRIu64,
		(h->flags & PMIPROF_TRACE_F_TIME_BASED) ? "true" : "false",
		(h->flags & PMIPROF_TRACE_F_EMULATED) ? "true" : "false",
		session_duration_s(s), s->samples, s->kept, s->lost_total,
		s->lost[PMIPROF_LOST_RING_FULL], s->lost[PMIPROF_LOST_WRITE],
		s->lost[PMIPROF_LOST_UNREADABLE] + s->lost[PMIPROF_LOST_TRUNCATED]);
	/* 1.0 traces counted throttling as estimated windows: events and time unknown. */
	if (v10)
		fprintf(f, ", \"throttle_events\": null, \"throttled_s\": null, "
			"\"throttle_windows_estimated\": %" PRIu64, s->throttle_est_windows);
	else
		fprintf(f, ", \"throttle_events\": %" PRIu64 ", \"throttled_s\": %.6f, "
			"\"throttle_windows_estimated\": null", s->throttle_events,
			(double)s->throttled_ns / 1e9);
	fprintf(f, ", \"throttled_windows\": %" PRIu64 ", \"after_loss_windows\": %" PRIu64
		", \"windows_left_out\": %" PRIu64 ", \"bad_chunks\": %" PRIu64
		", \"truncated\": %s", s->throttled, s->after_loss, s->left_out, st->chunks_bad,
		st->truncated ? "true" : "false");
	/* Unknown (null) when the pass stopped before the end of the trace. */
	if (s->read_all)
		fprintf(f, ", \"finished\": %s, \"interrupted\": %s, \"recorder_error\": %s",
			s->have_finish ? "true" : "false",
			s->have_finish && (s->finish.flags & PMIPROF_FINISH_F_INTERRUPTED) ?
			"true" : "false",
			s->have_finish && (s->finish.flags & PMIPROF_FINISH_F_ERROR) ?
			"true" : "false");
	else
		fputs(", \"finished\": null, \"interrupted\": null, \"recorder_error\": null",
		      f);
	if (h->call_graph == PMIPROF_CALL_GRAPH_FP || h->call_graph == PMIPROF_CALL_GRAPH_DWARF)
		fprintf(f, ", \"call_graph\": \"%s\"",
			h->call_graph == PMIPROF_CALL_GRAPH_FP ? "fp" : "dwarf");
	if (s->cs) {
		const struct cs_stats *c = callstacks_stats(s->cs);

		fprintf(f, ", \"stacks\": {\"samples\": %" PRIu64 ", \"rooted\": %" PRIu64
			", \"truncated\": %" PRIu64 ", \"leaf_fixups\": %" PRIu64
			", \"dwarf\": %" PRIu64 ", \"damaged\": %" PRIu64 "}", c->samples,
			c->rooted, c->truncated, c->fixups, c->dwarf, c->damaged);
	}
	fputs(", \"attribution\": ", f);
	json_str(f, ATTRIBUTION_RULE);
	fputc('}', f);
}

/* Length of the valid UTF-8 sequence at p, 0 when p does not start one. */
static size_t utf8_seq(const unsigned char *p)
{
	/* A NUL never continues a sequence, so reads stop at the terminator. */
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		return (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (p[0] >= 0xe0 && p[0] <= 0xef) {
		if ((p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
			return 0;
		/* No overlong forms, no UTF-16 surrogates. */
		if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0))
			return 0;
		return 3;
	}
	if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		if ((p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 || (p[3] & 0xc0) != 0x80)
			return 0;
		/* No overlong forms, nothing above U+10FFFF. */
		if ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

/*
 * Names come from the traced system (comm, paths, symbols) and may hold any
 * byte: each byte that is not part of valid UTF-8 becomes U+FFFD, so the
 * output always parses; control characters are escaped.
 */
void json_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t n;

	fputc('"', f);
	while (*s) {
		if (*s == '"' || *s == '\\') {
			fprintf(f, "\\%c", *s++);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(f, "\\u%04x", *s++);
		} else if ((n = utf8_seq(s)) == 0) {
			fputs("\\ufffd", f);
			s++;
		} else {
			fwrite(s, 1, n, f);
			s += n;
		}
	}
	fputc('"', f);
}

void json_event_counts(FILE *f, const struct session *s, const uint64_t *counts, uint32_t n)
{
	uint32_t e;

	fputc('{', f);
	for (e = 0; e < n; e++) {
		fputs(e ? ", " : "", f);
		json_str(f, s->h->events[e].name);
		fprintf(f, ": %" PRIu64, counts[e]);
	}
	fputc('}', f);
}

void csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

const char *fmt_count(char *buf, size_t size, uint64_t v, int width)
{
	static const char suffix[] = "kMGTPE";
	double d = (double)v;
	int i = -1;

	if (snprintf(buf, size, "%" PRIu64, v) <= width)
		return buf;
	do {
		d /= 1000.0;
		i++;
	} while (snprintf(buf, size, "%.1f%c", d, suffix[i]) > width && i < 5);
	return buf;
}

bool event_counts_ns(const char *name)
{
	size_t n = strcspn(name, ":");

	return (n == 9 && !strncmp(name, "cpu-clock", 9)) ||
	       (n == 10 && !strncmp(name, "task-clock", 10));
}

static int num_len(double v, int prec)
{
	char b[64];

	return snprintf(b, sizeof(b), "%.*f", prec, v);
}

/*
 * One scale per column, from its largest value: nanosecond clocks in ms
 * (s from 10 s up), three decimals or as many as fit; counts exact when the
 * largest fits in max_w, else all cells in the same k/M/G/T/P unit.
 */
void num_col_init(struct num_col *c, bool ns, uint64_t max, int max_w)
{
	static const char suffix[][2] = { "k", "M", "G", "T", "P", "E" };
	double d = (double)max;
	int i;

	memset(c, 0, sizeof(*c));
	c->div = 1;
	if (ns) {
		c->div = d < 1e10 ? 1e6 : 1e9;
		pm_strlcpy(c->unit, d < 1e10 ? "ms" : "s", sizeof(c->unit));
		for (c->prec = 3; c->prec > 0 && num_len(d / c->div, c->prec) > max_w; c->prec--)
			;
	} else if (num_len(d, 0) > max_w) {
		for (i = 0; i < 6; i++) {
			c->div *= 1000.0;
			pm_strlcpy(c->unit, suffix[i], sizeof(c->unit));
			c->prec = num_len(d / c->div, 1) <= max_w ? 1 : 0;
			if (num_len(d / c->div, c->prec) <= max_w)
				break;
		}
	}
	c->width = num_len(d / c->div, c->prec);
}

const char *num_col_head(const struct num_col *c, const char *name, char *buf, size_t size)
{
	if (c->unit[0])
		snprintf(buf, size, "%s(%s)", name, c->unit);
	else
		pm_strlcpy(buf, name, size);
	return buf;
}

const char *num_col_cell(const struct num_col *c, uint64_t v, char *buf, size_t size)
{
	if (c->div == 1)
		snprintf(buf, size, "%" PRIu64, v);
	else
		snprintf(buf, size, "%.*f", c->prec, (double)v / c->div);
	return buf;
}

int table_width(int forced)
{
	struct winsize ws;
	const char *env;
	long v;

	if (forced)
		return forced;
	if (!isatty(STDOUT_FILENO))
		return 0;
	env = getenv("COLUMNS");
	if (env && *env) {
		char *end;

		v = strtol(env, &end, 10);
		if (!*end && v >= 40 && v <= 10000)
			return (int)v;
	}
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || !ws.ws_col)
		return 80;
	return ws.ws_col < 40 ? 40 : ws.ws_col;
}

/* Longest common prefix of a and b. */
static size_t common_prefix(const char *a, const char *b)
{
	size_t i = 0;

	while (a[i] && a[i] == b[i])
		i++;
	return i;
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * A name longer than width is cut (its first width-1 characters and '+')
 * only where that prefix is its alone among names: a neighbour in sorted
 * order shares the longest prefix with it.  Else it stays whole.
 */
int cut_names_unique(const char **names, uint32_t n, int width, bool *cut)
{
	const char **sorted;
	uint32_t i;

	sorted = malloc((n ? n : 1) * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, names, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_str_ptr);
	for (i = 0; i < n; i++) {
		const char **at = bsearch(&names[i], sorted, n, sizeof(*sorted), cmp_str_ptr);
		size_t k = (size_t)(at - sorted), lcp = 0, l;
		size_t lo = k, hi = k;

		/* Equal names sit together: look past them to both sides. */
		while (lo > 0 && !strcmp(sorted[lo - 1], names[i]))
			lo--;
		while (hi + 1 < n && !strcmp(sorted[hi + 1], names[i]))
			hi++;
		if (lo > 0 && (l = common_prefix(sorted[lo - 1], names[i])) > lcp)
			lcp = l;
		if (hi + 1 < n && (l = common_prefix(sorted[hi + 1], names[i])) > lcp)
			lcp = l;
		cut[i] = width > 1 && strlen(names[i]) > (size_t)width && lcp < (size_t)width - 1;
	}
	free(sorted);
	return 0;
}

const char *fit(char *buf, size_t size, const char *s, int width)
{
	size_t len = strlen(s);

	if (width <= 0 || len <= (size_t)width) {
		pm_strlcpy(buf, s, size);
		return buf;
	}
	if ((size_t)width >= size)
		width = (int)size - 1;
	memcpy(buf, s, (size_t)width - 1);
	buf[width - 1] = '+';
	buf[width] = 0;
	return buf;
}

int parse_format(const char *arg, enum out_format *f)
{
	if (!strcmp(arg, "table"))
		*f = FMT_TABLE;
	else if (!strcmp(arg, "csv"))
		*f = FMT_CSV;
	else if (!strcmp(arg, "json"))
		*f = FMT_JSON;
	else
		return -EINVAL;
	return 0;
}

const char *column_name(const char *name, char *buf, size_t size)
{
	static const char *const abbrev[][2] = {
		{ "cpu-clock", "cpu-clk" }, { "task-clock", "task-clk" },
		{ "page-faults", "faults" }, { "context-switches", "ctx-sw" },
		{ "cpu-migrations", "migr" }, { "instructions", "instr" },
		{ "branch-instructions", "branches" }, { "branch-misses", "br-miss" },
		{ "cache-misses", "c-misses" }, { "cache-references", "c-refs" },
		{ "L1-dcache-load-misses", "L1d-miss" }, { "LLC-load-misses", "LLC-miss" },
		{ "L1-dcache-loads", "L1d-load" }, { "LLC-loads", "LLC-load" },
		{ "dTLB-load-misses", "dTLBmiss" }, { "iTLB-load-misses", "iTLBmiss" },
		{ "branch-miss-pct", "br-miss%" }, { "cache-misses-mpki", "cm-mpki" },
		{ "L1-dcache-load-misses-mpki", "L1d-mpki" }, { "LLC-load-misses-mpki", "LLC-mpki" },
		{ "branch-misses-mpki", "brm-mpki" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(abbrev); i++)
		if (!strcmp(name, abbrev[i][0]))
			return pm_strlcpy(buf, abbrev[i][1], size), buf;
	return pm_strlcpy(buf, name, size), buf;
}
