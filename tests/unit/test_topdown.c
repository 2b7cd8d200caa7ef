// SPDX-License-Identifier: GPL-2.0
/*
 * Top-down level 1 (lib/topdown.c, report/analysis/metrics.c): both vendors'
 * formulas against hand-computed values; "-e topdown" expanded for forced
 * libpfm4 PMUs (LIBPFM_FORCE_PMU, one child process each: libpfm4 reads it
 * once) and its encodings compared with perf's event JSON constants; and
 * report / --windows / plot on a synthetic trace with Skylake topdown events
 * of known counts.  Expected values are this file's constants.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib.h>

#include "commands.h"
#include "event_list.h"
#include "events.h"
#include "topdown.h"
#include "util.h"
#include "pmiprof/trace.h"
#include "cmd_capture.h"
#include "analysis/metrics.h"
#include "self_maps.h"

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

/* Skylake: 4 slots a cycle; bad spec = issued - retired + 4 * recovery. */
static void intel_uops_formula_by_hand(void **state)
{
	const struct td_model *m = td_model_of_pmu("skl");
	/* cycles 1000 -> 4000 slots */
	uint64_t c[TD_MAX_EVENTS] = { 1000, 800, 2200, 2000, 50 };
	double f[TD_NR_PARTS];

	(void)state;
	assert_non_null(m);
	assert_int_equal(m->formula, TD_INTEL_UOPS);
	assert_true(td_fractions(m, c, f));
	NEAR(f[TD_FRONTEND], 800.0 / 4000);			/* 0.2 */
	NEAR(f[TD_BAD_SPEC], (2200.0 - 2000 + 200) / 4000);	/* 0.1 */
	NEAR(f[TD_RETIRING], 2000.0 / 4000);			/* 0.5 */
	NEAR(f[TD_BACKEND], 1 - 0.2 - 0.1 - 0.5);		/* 0.2 */
	NEAR(f[TD_SMT], 0);
	c[0] = 0;
	assert_false(td_fractions(m, c, f));
}

/* Ice Lake: each PERF_METRICS field over the sum of the four. */
static void intel_perf_metrics_formula_by_hand(void **state)
{
	const struct td_model *m = td_model_of_pmu("icl");
	/* slots, retiring, bad spec, fe bound, be bound */
	uint64_t c[TD_MAX_EVENTS] = { 5000, 2500, 500, 1000, 1000 };
	double f[TD_NR_PARTS];

	(void)state;
	assert_non_null(m);
	assert_true(td_fractions(m, c, f));
	NEAR(f[TD_RETIRING], 0.5);
	NEAR(f[TD_BAD_SPEC], 0.1);
	NEAR(f[TD_FRONTEND], 0.2);
	NEAR(f[TD_BACKEND], 0.2);
}

/* Zen 4: 6 slots a cycle, SMT contention its own part; Zen 5: 8. */
static void amd_zen4_formula_by_hand(void **state)
{
	const struct td_model *m = td_model_of_pmu("amd64_fam19h_zen4");
	const struct td_model *z5 = td_model_of_pmu("amd64_fam1ah_zen5");
	/* cycles 1000 -> 6000 slots; fe, be, smt, retired ops, dispatched ops */
	uint64_t c[TD_MAX_EVENTS] = { 1000, 1200, 1800, 600, 2100, 2400 };
	double f[TD_NR_PARTS];

	(void)state;
	assert_non_null(m);
	assert_true(td_fractions(m, c, f));
	NEAR(f[TD_FRONTEND], 0.2);
	NEAR(f[TD_BACKEND], 0.3);
	NEAR(f[TD_SMT], 0.1);
	NEAR(f[TD_RETIRING], 0.35);
	NEAR(f[TD_BAD_SPEC], 0.05);		/* (2400 - 2100) / 6000 */
	assert_non_null(z5);
	assert_true(td_fractions(z5, c, f));
	NEAR(f[TD_FRONTEND], 1200.0 / 8000);
	assert_true(td_formula_has(TD_AMD_ZEN4, TD_SMT));
	assert_false(td_formula_has(TD_INTEL_UOPS, TD_SMT));
}

/* ---- expansion, one child per forced PMU ---- */

struct want {
	const char *name;
	uint64_t config;	/* perf JSON EventCode/UMask, AMD's extended bits at 32 */
	bool lead;
};

static bool pfm_has_pmu(const char *name)
{
	pfm_pmu_t p;

	for (p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t info;

		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pm_pfm.get_pmu_info(p, &info) == PFM_SUCCESS && !strcmp(info.name, name))
			return true;
	}
	return false;
}

/*
 * The sysfs event-source folder the child sees (PMIPROF_SYSFS_EVENT_SOURCE):
 * a fake one with or without a core PMU, never the host's, so no check
 * depends on the machine the suite runs on.  Made by fake_sysfs().
 */
static char sysfs_dir[64];

static const char *fake_sysfs(bool with_pmu)
{
	char sub[96];

	snprintf(sysfs_dir, sizeof(sysfs_dir), "/tmp/pmiprof-td-sysfs-%d", (int)getpid());
	snprintf(sub, sizeof(sub), "%s/cpu", sysfs_dir);
	mkdir(sysfs_dir, 0700);
	if (with_pmu)
		mkdir(sub, 0700);
	else
		rmdir(sub);
	return sysfs_dir;
}

static void fake_sysfs_remove(void)
{
	char sub[96];

	snprintf(sub, sizeof(sub), "%s/cpu", sysfs_dir);
	rmdir(sub);
	rmdir(sysfs_dir);
}

/*
 * In a child: 0 when -e spec expands to want[], or is refused (-ENODEV:
 * the machine lacks it, exit 1) with a message that starts with refusal
 * and, when then is given, says then after it; else a message and 1.
 */
static int check_expansion(const char *pmu, const char *spec, const struct want *w,
			   unsigned int nw, const char *refusal, const char *then)
{
	struct pm_event_list l;
	char err[512] = "";
	unsigned int i;
	int ret;

	setenv("LIBPFM_FORCE_PMU", pmu, 1);
	if (sysfs_dir[0])
		setenv("PMIPROF_SYSFS_EVENT_SOURCE", sysfs_dir, 1);
	if (pm_pfm_init() || !pfm_has_pmu(pmu))
		return 77;
	ret = pm_events_parse(spec, &l, err, sizeof(err));
	if (refusal) {
		if (ret != -ENODEV || strncmp(err, refusal, strlen(refusal)) ||
		    (then && !strstr(err + strlen(refusal), then))) {
			fprintf(stderr, "%s: want refusal '%s' then '%s', got %d '%s'\n", pmu,
				refusal, then ? then : "", ret, err);
			return 1;
		}
		return 0;
	}
	if (ret) {
		fprintf(stderr, "%s: %s\n", pmu, err);
		return 1;
	}
	if (l.nr < nw || l.trigger != 0) {
		fprintf(stderr, "%s: %u events, trigger %u\n", pmu, l.nr, l.trigger);
		return 1;
	}
	for (i = 0; i < nw; i++) {
		const struct pm_event *e = &l.ev[i];

		if (strcmp(e->name, w[i].name) || e->type != PERF_TYPE_RAW ||
		    e->config != w[i].config || !e->topdown || e->group_lead != w[i].lead) {
			fprintf(stderr, "%s: event %u is %s type %u config %#llx, want %s %#llx\n",
				pmu, i, e->name, e->type, (unsigned long long)e->config,
				w[i].name, (unsigned long long)w[i].config);
			return 1;
		}
	}
	return 0;
}

static void expect_child_then(const char *pmu, const char *spec, const struct want *w,
			      unsigned int nw, const char *refusal, const char *then)
{
	int status;
	pid_t pid;

	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(check_expansion(pmu, spec, w, nw, refusal, then));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77) {
		printf("# SKIP %s: this libpfm4 has no PMU '%s'\n", spec, pmu);
		skip();
	}
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void expect_child(const char *pmu, const char *spec, const struct want *w,
			 unsigned int nw, const char *refusal)
{
	expect_child_then(pmu, spec, w, nw, refusal, NULL);
}

/* perf's skylake pipeline.json / frontend.json: EventCode | UMask << 8. */
static const struct want skl_want[] = {
	{ "cpu_clk_unhalted.thread", 0x003c, false },
	{ "idq_uops_not_delivered.core", 0x019c, false },
	{ "uops_issued.any", 0x010e, false },
	{ "uops_retired.retire_slots", 0x02c2, false },
	{ "int_misc.recovery_cycles", 0x010d, false },
};

static void expands_for_skylake(void **state)
{
	(void)state;
	expect_child("skl", "topdown,cache-misses", skl_want, 5, NULL);
}

/* arch/x86/events/intel/core.c: slots umask 0x04, topdown-* umask 0x80..0x83. */
static const struct want icl_want[] = {
	{ "slots", 0x0400, true },
	{ "topdown-retiring", 0x8000, false },
	{ "topdown-bad-spec", 0x8100, false },
	{ "topdown-fe-bound", 0x8200, false },
	{ "topdown-be-bound", 0x8300, false },
};

static void expands_for_ice_lake(void **state)
{
	(void)state;
	expect_child("icl", "topdown", icl_want, 5, NULL);
}

/* perf's amdzen4 core.json / other.json; EventCode bits 11:8 go to config 35:32. */
static const struct want zen4_want[] = {
	{ "ls_not_halted_cyc", 0x76, false },
	{ "de_no_dispatch_per_slot.no_ops_from_frontend", 0x1000001a0ULL, false },
	{ "de_no_dispatch_per_slot.backend_stalls", 0x100001ea0ULL, false },
	{ "de_no_dispatch_per_slot.smt_contention", 0x1000060a0ULL, false },
	{ "ex_ret_ops", 0xc1, false },
	{ "de_src_op_disp.all", 0x07aa, false },
};

static void expands_for_zen4(void **state)
{
	(void)state;
	expect_child("amd64_fam19h_zen4", "topdown", zen4_want, 6, NULL);
}

/* Pretends a machine with a PMU: the model's own lack is the refusal. */
static void refused_for_zen3_naming_why(void **state)
{
	(void)state;
	fake_sysfs(true);
	expect_child("amd64_fam19h_zen3", "topdown", NULL, 0,
		     "topdown: AMD Zen 3 (libpfm4 PMU 'amd64_fam19h_zen3') has no per-slot "
		     "dispatch events");
	fake_sysfs_remove();
}

/*
 * Pretends a machine without a PMU (a VM) on a Zen 3, and on a Haswell
 * (no formula): the missing PMU is said first, the model's lack after it.
 */
static void no_pmu_said_before_what_the_model_lacks(void **state)
{
	(void)state;
	fake_sysfs(false);
	expect_child_then("amd64_fam19h_zen3", "topdown", NULL, 0, "topdown: no hardware PMU",
			  "AMD Zen 3 (libpfm4 PMU 'amd64_fam19h_zen3') has no per-slot dispatch "
			  "events");
	expect_child_then("hsw", "topdown", NULL, 0, "topdown: no hardware PMU",
			  "no level-1 formula for this CPU (libpfm4 PMU 'hsw')");
	fake_sysfs_remove();
}

/* A model with a formula expands without a PMU: td_check_pmu() refuses later. */
static void expansion_does_not_need_a_pmu(void **state)
{
	(void)state;
	fake_sysfs(false);
	expect_child("skl", "topdown,cache-misses", skl_want, 5, NULL);
	fake_sysfs_remove();
}

static void topdown_takes_no_modifiers(void **state)
{
	struct pm_event_list l;
	char err[256];

	(void)state;
	assert_int_equal(pm_events_parse("topdown:u", &l, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "topdown takes no modifiers"));
}

static void hw_pmu_presence_from_sysfs(void **state)
{
	char dir[64], sub[96];

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pmiprof-td-%d", (int)getpid());
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_false(td_hw_pmu_present(dir));
	snprintf(sub, sizeof(sub), "%s/cpu_core", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_true(td_hw_pmu_present(dir));
	rmdir(sub);
	rmdir(dir);
}

/* ---- report, --windows, plot on a synthetic Skylake trace ---- */

#define SPIN(name)								\
	__attribute__((noinline)) uint64_t name(uint64_t n);			\
	__attribute__((noinline)) uint64_t name(uint64_t n)			\
	{									\
		uint64_t x = n;							\
		for (uint64_t i = 0; i < n; i++)				\
			x = x * 6364136223846793005ULL + i;			\
		return x;							\
	}
SPIN(td_work_a)
SPIN(td_work_b)

#define PID 200
#define START_NS 1000000000ULL
#define N_WIN 32	/* windows 0..31: even -> a (two count sets), odd -> b */

static char trace_path[64];

/*
 * Counts per window (cycles, not delivered, issued, retire slots, recovery):
 * a, i % 4 == 0:  1000, 800, 2200, 2000, 50  -> 20 / 10 / 50 / 20 %
 * a, i % 4 == 2:  3000,   0, 6000, 6000,  0  ->  0 /  0 / 50 / 50 %
 *   a's sums (8 windows of each): 32000, 6400, 65600, 64000, 400
 *                 -> 6400 / 128000 = 5 %, (1600 + 1600) / 128000 = 2.5 %,
 *                    64000 / 128000 = 50 %, 42.5 %
 * b (odd):        1000, 400, 1100, 1000, 100 -> 10 / 12.5 / 25 / 52.5 %
 */
static const uint64_t set_a1[5] = { 1000, 800, 2200, 2000, 50 };
static const uint64_t set_a2[5] = { 3000, 0, 6000, 6000, 0 };
static const uint64_t set_b[5] = { 1000, 400, 1100, 1000, 100 };

static int write_trace(const char *path)
{
	static const char *const names[] = { "cpu_clk_unhalted.thread",
					     "idq_uops_not_delivered.core", "uops_issued.any",
					     "uops_retired.retire_slots", "int_misc.recovery_cycles",
					     "cache-misses" };
	struct trace_writer_opts wo = { .level = 1, .chunk_size = 512 };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_sample s;
	struct trace_mmap m;
	struct trace_comm c;
	struct trace_finish fin;
	struct mapping mp;
	unsigned int i, k;
	int err;

	memset(&h, 0, sizeof(h));
	snprintf(h.hostname, sizeof(h.hostname), "testhost");
	h.nr_events = 6;
	for (i = 0; i < 6; i++)
		snprintf(h.events[i].name, sizeof(h.events[i].name), "%s", names[i]);
	h.events[0].flags = PMIPROF_EVENT_F_TRIGGER;
	h.events[0].type = h.events[1].type = PERF_TYPE_RAW;
	h.trigger_index = 0;
	h.period = 1000;
	h.mode = PMIPROF_MODE_PERF;
	h.backend = PMIPROF_BACKEND_PERF;
	h.clock_id = 1;
	h.clock_freq_hz = 1000000000ULL;
	h.start_time = START_NS;
	snprintf(h.clock_name, sizeof(h.clock_name), "monotonic");
	h.nr_cpus = 1;
	h.cmdline_argc = 1;
	snprintf(h.cmdline, sizeof(h.cmdline), "synthetic-topdown");
	err = trace_writer_open(&w, path, &h, &wo);
	if (err)
		return err;
	c = (struct trace_comm){ START_NS, PID, PID, PMIPROF_COMM_F_EXEC, "tdsynth" };
	trace_write_comm(w, &c);
	if (find_mapping((const void *)&td_work_a, &mp))
		return -ENOENT;
	memset(&m, 0, sizeof(m));
	m.time = START_NS;
	m.pid = m.tid = PID;
	m.start = mp.start;
	m.len = mp.end - mp.start;
	m.pgoff = mp.pgoff;
	m.prot = 5;
	m.path = mp.path;
	trace_write_mmap(w, &m);
	for (i = 0; i < N_WIN; i++) {
		const uint64_t *set = i & 1 ? set_b : i % 4 == 0 ? set_a1 : set_a2;

		memset(&s, 0, sizeof(s));
		s.time = START_NS + (uint64_t)(i + 1) * 1000000;
		s.pid = s.tid = PID;
		s.flags = PMIPROF_SAMPLE_F_USER;
		s.nr = 6;
		s.ip = (uintptr_t)(i & 1 ? &td_work_b : &td_work_a) + 1;
		for (k = 0; k < 5; k++)
			s.counts[k] = set[k];
		s.counts[5] = 7;
		trace_write_sample(w, &s);
	}
	fin = (struct trace_finish){ START_NS + 100000000ULL, 0, 0, N_WIN, 0 };
	trace_write_finish(w, &fin);
	return trace_writer_close(w);
}

static int setup(void **state)
{
	(void)state;
	snprintf(trace_path, sizeof(trace_path), "/tmp/pmiprof-td-%d.data", (int)getpid());
	return write_trace(trace_path) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(trace_path);
	return 0;
}

/* The CSV line of row name: its fields after "name," up to the line end. */
static const char *csv_row(const char *out, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), ",%s,", name);
	p = strstr(out, key);
	return p;
}

static void report_flat_shows_fractions_per_function(void **state)
{
	char *argv[] = { "report", "-i", trace_path, "--format", "csv", NULL };
	char *out, *hdr_end, *line;
	int rc;

	(void)state;
	out = cmd_capture(cmd_report, argv, &rc, NULL);
	assert_int_equal(rc, 0);
	hdr_end = strchr(out, '\n');
	assert_non_null(hdr_end);
	*hdr_end = 0;
	assert_non_null(strstr(out, ",frontend,bad-spec,retiring,backend"));
	assert_null(strstr(out, ",smt"));		/* Intel has none */
	line = (char *)csv_row(hdr_end + 1, "td_work_a");
	assert_non_null(line);
	/* a's sums: 5 / 2.5 / 50 / 42.5 % */
	assert_non_null(strstr(line, ",5,2.5,50,42.5"));
	line = (char *)csv_row(hdr_end + 1, "td_work_b");
	assert_non_null(line);
	*strchr(line, '\n') = 0;
	/* b: 10 / 12.5 / 25 / 52.5 % */
	assert_non_null(strstr(line, ",10,12.5,25,52.5"));
	free(out);
}

static void report_windows_show_fractions_per_window(void **state)
{
	char *argv[] = { "report", "-i", trace_path, "--windows", "--format", "csv", NULL };
	char *json[] = { "report", "-i", trace_path, "--windows", "--format", "json", NULL };
	char *out;
	int rc;

	(void)state;
	out = cmd_capture(cmd_report, argv, &rc, NULL);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, ",frontend,bad-spec,retiring,backend"));
	/* window 0 (a, set 1), 1 (b), 2 (a, set 2) */
	assert_non_null(strstr(out, "\n0,1000000,"));
	assert_non_null(strstr(out, ",1000,800,2200,2000,50,7,20,10,50,20"));
	assert_non_null(strstr(out, ",1000,400,1100,1000,100,7,10,12.5,25,52.5"));
	assert_non_null(strstr(out, ",3000,0,6000,6000,0,7,0,0,50,50"));
	free(out);
	out = cmd_capture(cmd_report, json, &rc, NULL);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\"frontend\""));
	free(out);
}

static void plot_stacks_the_fractions_in_one_panel(void **state)
{
	char script[96], png[96], series[96];
	char *argv[] = { "plot", "-i", trace_path, "-o", png, "--keep-script", NULL };
	char *out, *err, *gp;
	FILE *f;
	long n;
	int rc;

	(void)state;
	snprintf(png, sizeof(png), "/tmp/pmiprof-td-%d.png", (int)getpid());
	snprintf(script, sizeof(script), "/tmp/pmiprof-td-%d.gp", (int)getpid());
	snprintf(series, sizeof(series), "/tmp/pmiprof-td-%d.series.dat", (int)getpid());
	out = cmd_capture(cmd_plot, argv, &rc, &err);
	assert_int_equal(rc, 0);
	f = fopen(script, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	gp = calloc(1, (size_t)n + 1);
	assert_int_equal(fread(gp, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	/* one stacked panel: filled curves of the cumulative percentages */
	assert_non_null(strstr(gp, "top-down level 1"));
	assert_int_equal(count_str(gp, "filledcurves"), 4);
	assert_non_null(strstr(gp, "title \"frontend\""));
	assert_non_null(strstr(gp, "title \"backend\""));
	/* legend outside the data area, as the other panels */
	assert_non_null(strstr(gp, "set key outside"));
	free(gp);
	free(out);
	free(err);
	unlink(script);
	unlink(png);
	unlink(series);
	snprintf(series, sizeof(series), "/tmp/pmiprof-td-%d.hist.dat", (int)getpid());
	unlink(series);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(intel_uops_formula_by_hand),
		cmocka_unit_test(intel_perf_metrics_formula_by_hand),
		cmocka_unit_test(amd_zen4_formula_by_hand),
		cmocka_unit_test(expands_for_skylake),
		cmocka_unit_test(expands_for_ice_lake),
		cmocka_unit_test(expands_for_zen4),
		cmocka_unit_test(refused_for_zen3_naming_why),
		cmocka_unit_test(no_pmu_said_before_what_the_model_lacks),
		cmocka_unit_test(expansion_does_not_need_a_pmu),
		cmocka_unit_test(topdown_takes_no_modifiers),
		cmocka_unit_test(hw_pmu_presence_from_sysfs),
		cmocka_unit_test(report_flat_shows_fractions_per_function),
		cmocka_unit_test(report_windows_show_fractions_per_window),
		cmocka_unit_test(plot_stacks_the_fractions_in_one_panel),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
