/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmiprof doctor --selftest: calibrated workloads run through each backend,
 * one pass/fail/skip verdict per check with the measured and the expected
 * figure (and on skip the reason), printed as text or JSON for a bug report.
 * selftest.c owns the options, the machine description and the output;
 * selftest_workload.c the workloads; selftest_module.c and selftest_perf.c
 * the checks of each backend.
 */
#ifndef PMIPROF_DAEMON_SELFTEST_H
#define PMIPROF_DAEMON_SELFTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

enum st_verdict { ST_PASS, ST_FAIL, ST_SKIP };

struct st_check {
	char name[48];			/* "module.windows_x_period" */
	enum st_verdict verdict;
	char measured[160];
	char expected[160];
	char detail[400];		/* the reason of a skip, what a failure means */
};

#define ST_MAX_CHECKS	32

struct selftest {
	const char *device;		/* /dev/pmiprof */
	struct st_check checks[ST_MAX_CHECKS];
	unsigned int n;
};

/* Record one check's verdict; detail is printf-style. */
void st_add(struct selftest *st, const char *name, enum st_verdict v, const char *measured,
	    const char *expected, const char *fmt, ...) PM_PRINTF(6, 7);

/* |measured - expected| <= tol_pct % of expected + abs_tol. */
bool st_within(double measured, double expected, double tol_pct, double abs_tol);

/*
 * The calibrated workloads (selftest_workload.c).  Counts are by
 * construction: fixed asm sequences, independent of the compiler.
 *   spin: 4 instructions per iteration (imul, add, dec, jnz), one of them a
 *         conditional branch, so iters x 4 instructions and iters branches.
 *   walk: a dependent pointer chase over a random cyclic permutation of the
 *         cache lines of a buffer larger than the LLC: one load per step,
 *         each to a line not touched for a whole cycle (an LLC miss, the
 *         prefetchers cannot guess the next address).
 */
#define ST_SPIN_INSNS_PER_ITER	4
#define ST_SPIN_BRANCHES_PER_ITER	1
void st_spin(uint64_t iters);

struct st_walk {
	uint64_t *buf;			/* one uint64_t "next index" per 64-byte line */
	size_t lines;
};
int st_walk_init(struct st_walk *w, size_t bytes);
uint64_t st_walk_run(const struct st_walk *w, uint64_t steps);
void st_walk_free(struct st_walk *w);
size_t st_llc_bytes(void);		/* from sysfs, 0 when unknown */
/*
 * Whether high-resolution timers are on, waiting up to 3 s for them (a
 * guest's first second runs on tsc-early, ticks only): hrtimer-driven
 * sampling (task-clock, the emulated PMU's PMIs) is otherwise tick-grained.
 */
bool st_hres_active(void);

/* The checks of each backend. */
void st_module_checks(struct selftest *st);
void st_perf_checks(struct selftest *st);
void st_perf_window_checks(struct selftest *st);	/* selftest_perf_windows.c */

/* The PMI line of /proc/interrupts, summed over CPUs; -1 if absent. */
long long st_proc_pmis(void);


int doctor_selftest(int argc, char **argv);
int doctor_workload(int argc, char **argv);	/* selftest_run.c */

#endif /* PMIPROF_DAEMON_SELFTEST_H */
