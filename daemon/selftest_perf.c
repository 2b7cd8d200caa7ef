// SPDX-License-Identifier: GPL-2.0
/*
 * doctor --selftest, perf backend: the calibrated workloads counted with
 * perf_event_open (what `perf stat -e ... ` reads) against their counts by
 * construction, and the no-PMU fallback.  Without a hardware PMU the
 * hardware checks skip with the reason.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "selftest.h"

#define ST_PERF_ITERS	25000000ull	/* 100 M instructions, 25 M branches */

/* fd of a disabled user-space counter on ourselves, or -errno. */
static int st_perf_open(uint32_t type, uint64_t config)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int st_perf_read(int fd, uint64_t *val)
{
	return read(fd, val, sizeof(*val)) == (ssize_t)sizeof(*val) ? 0 : -EIO;
}

/*
 * Count the spin loop with one generic hardware event.  The counter is
 * enabled and disabled by ioctl around the call: the few hundred user
 * instructions of the ioctl wrappers and the call are counted too, well
 * inside 1 % of 10^8.
 */
static void check_spin(struct selftest *st, const char *name, uint64_t config,
		       uint64_t expected, const char *what)
{
	char meas[64], exp[64];
	uint64_t val = 0;
	int fd = st_perf_open(PERF_TYPE_HARDWARE, config);

	if (fd < 0) {
		st_add(st, name, ST_SKIP, NULL, NULL, "perf_event_open(%s): %s (no hardware PMU "
		       "here, or none exposed to this VM)", what, strerror(-fd));
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	st_spin(ST_PERF_ITERS);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (st_perf_read(fd, &val) < 0) {
		close(fd);
		st_add(st, name, ST_FAIL, NULL, NULL, "read of the %s counter failed", what);
		return;
	}
	close(fd);
	snprintf(meas, sizeof(meas), "%llu", (unsigned long long)val);
	snprintf(exp, sizeof(exp), "%llu +- 1 %%", (unsigned long long)expected);
	st_add(st, name, st_within((double)val, (double)expected, 1, 0) ? ST_PASS : ST_FAIL,
	       meas, exp, "%s of %llu iterations of a 4-instruction loop, counted by "
	       "perf_event_open as perf stat does", what, (unsigned long long)ST_PERF_ITERS);
}

/*
 * The pointer chase over four times the LLC: every step loads a line last
 * touched a whole cycle ago, so each should miss.  Page walks may add
 * misses and a victim cache may save a few: 80-130 % of the steps.
 */
static void check_misses(struct selftest *st)
{
	size_t llc = st_llc_bytes();
	uint64_t steps, val = 0;
	struct st_walk w;
	char meas[64], exp[64];
	int fd = st_perf_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES);

	if (fd < 0) {
		st_add(st, "perf.llc_misses", ST_SKIP, NULL, NULL, "perf_event_open(cache-misses): "
		       "%s (no hardware PMU)", strerror(-fd));
		return;
	}
	if (!llc || st_walk_init(&w, 4 * llc) < 0) {
		close(fd);
		st_add(st, "perf.llc_misses", ST_SKIP, NULL, NULL,
		       "LLC size unknown (no /sys/devices/system/cpu/cpu0/cache) or no memory");
		return;
	}
	st_walk_run(&w, w.lines);		/* fault the pages in */
	steps = 2 * w.lines;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	st_walk_run(&w, steps);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	st_perf_read(fd, &val);
	close(fd);
	st_walk_free(&w);
	snprintf(meas, sizeof(meas), "%llu", (unsigned long long)val);
	snprintf(exp, sizeof(exp), "%llu..%llu", (unsigned long long)(steps * 8 / 10),
		 (unsigned long long)(steps * 13 / 10));
	st_add(st, "perf.llc_misses", val >= steps * 8 / 10 && val <= steps * 13 / 10 ?
	       ST_PASS : ST_FAIL, meas, exp, "random cyclic walk of %zu KiB (4 x LLC), "
	       "one load per step", 4 * llc >> 10);
}

/* Without a PMU, record must fall back to cpu-clock and that must count. */
static void check_fallback(struct selftest *st)
{
	int hw = st_perf_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS), sw;
	char meas[128];
	uint64_t ns = 0;

	if (hw >= 0) {
		close(hw);
		st_add(st, "perf.no_pmu_fallback", ST_SKIP, NULL, NULL,
		       "a hardware PMU is present: record uses instructions, no fallback");
		return;
	}
	sw = st_perf_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	if (sw < 0) {
		st_add(st, "perf.no_pmu_fallback", ST_FAIL, NULL, "cpu-clock counts",
		       "neither instructions (%s) nor cpu-clock (%s) can be opened: record "
		       "cannot use the perf backend", strerror(-hw), strerror(-sw));
		return;
	}
	ioctl(sw, PERF_EVENT_IOC_ENABLE, 0);
	st_spin(ST_PERF_ITERS / 10);
	ioctl(sw, PERF_EVENT_IOC_DISABLE, 0);
	st_perf_read(sw, &ns);
	close(sw);
	snprintf(meas, sizeof(meas), "instructions: %s; cpu-clock: %llu ns", strerror(-hw),
		 (unsigned long long)ns);
	st_add(st, "perf.no_pmu_fallback", ns > 0 ? ST_PASS : ST_FAIL, meas,
	       "cpu-clock counts", "no hardware PMU: record's perf backend samples on cpu-clock "
	       "(time-based windows) and says so in its header and on stderr");
}

void st_perf_checks(struct selftest *st)
{
	check_fallback(st);
	check_spin(st, "perf.instructions", PERF_COUNT_HW_INSTRUCTIONS,
		   ST_PERF_ITERS * ST_SPIN_INSNS_PER_ITER, "instructions");
	check_spin(st, "perf.branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
		   ST_PERF_ITERS * ST_SPIN_BRANCHES_PER_ITER, "branch-instructions");
	check_misses(st);
	st_perf_window_checks(st);
}
