// SPDX-License-Identifier: GPL-2.0
/*
 * doctor --selftest, perf backend: the sampling path record relies on.
 * A sampling event on ourselves around the spin loop, its ring drained
 * between chunks: the windows (samples + lost) x period must equal the
 * event's counted total, and with a hardware PMU each window is one PMI
 * in /proc/interrupts.  The trigger is instructions when the PMU has it,
 * else task-clock (what record falls back to: time-based windows).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "selftest.h"

#define STW_CHUNK	1000000ull	/* spin iterations between ring drains */
#define STW_CHUNKS	50		/* 50 M iterations: ~90 ms at 4 cycles each */
#define STW_HW_PERIOD	1000000ull	/* instructions: 200 windows */
#define STW_SW_PERIOD	500000ull	/* ns of task-clock: ~180 windows natively */
#define STW_RING_PAGES	16
#define STW_TRIES	3

struct stw_run {
	uint64_t samples, lost, throttles, total, pmis;
	bool hw, user_only;
};

struct stw_ring {
	void *base;
	size_t len, page;
};

/* Count the records up to data_head and consume them. */
static void ring_drain(struct stw_ring *r, struct stw_run *run)
{
	struct perf_event_mmap_page *mp = r->base;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail, size = mp->data_size;
	const unsigned char *data = (const unsigned char *)r->base + r->page;

	while (tail < head) {
		struct perf_event_header h;
		uint64_t off = tail % size;
		unsigned char buf[sizeof(h) + sizeof(uint64_t) * 2];
		size_t i, want = sizeof(buf);

		for (i = 0; i < want; i++)	/* a record may wrap the ring's end */
			buf[i] = data[(off + i) % size];
		memcpy(&h, buf, sizeof(h));
		if (h.size < sizeof(h))
			break;
		if (h.type == PERF_RECORD_SAMPLE)
			run->samples++;
		else if (h.type == PERF_RECORD_LOST) {
			uint64_t lost;

			memcpy(&lost, buf + sizeof(h) + sizeof(uint64_t), sizeof(lost));
			run->lost += lost;	/* { header, id, lost } */
		} else if (h.type == PERF_RECORD_THROTTLE)
			run->throttles++;
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

/* One sampling session; 0 or -errno. */
static int stw_session(struct stw_run *run, bool want_hw, uint64_t period)
{
	struct perf_event_attr a;
	struct stw_ring r;
	long long pmi0;
	unsigned int i;
	int fd;

	memset(run, 0, sizeof(*run));
	run->hw = want_hw;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = want_hw ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
	a.config = want_hw ? PERF_COUNT_HW_INSTRUCTIONS : PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_IP;
	a.disabled = 1;
	a.exclude_hv = 1;
	/*
	 * User and kernel where permitted: a task-clock tick that lands in the
	 * kernel (a page fault, an interrupt) is dropped under exclude_kernel
	 * while the count runs on, a lost window.
	 */
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		a.exclude_kernel = 1;
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	run->user_only = a.exclude_kernel;
	r.page = (size_t)sysconf(_SC_PAGESIZE);
	r.len = r.page * (1 + STW_RING_PAGES);
	r.base = mmap(NULL, r.len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r.base == MAP_FAILED) {
		int err = -errno;

		close(fd);
		return err;
	}
	pmi0 = want_hw ? st_proc_pmis() : -1;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < STW_CHUNKS; i++) {
		st_spin(STW_CHUNK);
		ring_drain(&r, run);
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (pmi0 >= 0)
		run->pmis = (uint64_t)(st_proc_pmis() - pmi0);
	ring_drain(&r, run);
	if (read(fd, &run->total, sizeof(run->total)) != (ssize_t)sizeof(run->total))
		run->total = 0;
	munmap(r.base, r.len);
	close(fd);
	return 0;
}

void st_perf_window_checks(struct selftest *st)
{
	int probe = -1, ret = 0;
	struct perf_event_attr a;
	struct stw_run run;
	bool hw, ok = false;
	uint64_t period, windows = 0;
	double tol_pct;
	char meas[160], exp[96], tries[160] = "";
	unsigned int t;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.exclude_kernel = 1;
	probe = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	hw = probe >= 0;
	if (hw)
		close(probe);
	period = hw ? STW_HW_PERIOD : STW_SW_PERIOD;
	if (!hw && !st_hres_active()) {
		st_add(st, "perf.windows_x_period", ST_SKIP, NULL, NULL, "high-resolution timers "
		       "are not active (/proc/timer_list: hres_active 0): task-clock's hrtimer "
		       "fires on the tick, and perf forwards it past the periods it missed");
		st_add(st, "perf.pmi_interrupts", ST_SKIP, NULL, NULL, "no hardware PMU: "
		       "task-clock samples come from an hrtimer");
		return;
	}
	/*
	 * Instructions: the last window's remainder (< 1 period) and a few
	 * hundred instructions of ioctl wrappers, hence 1 % + 1 window.
	 * task-clock: its hrtimer is forwarded past whole periods it fired
	 * late by (a vCPU preempted by the host: steal time still counts as
	 * task time), so a loaded VM loses a window now and then: 2 % + 2.
	 */
	tol_pct = hw ? 1 : 2;
	for (t = 0; t < STW_TRIES && !ok; t++) {
		size_t l = strlen(tries);

		ret = stw_session(&run, hw, period);
		if (ret < 0)
			break;
		windows = run.samples + run.lost;
		ok = run.total && st_within((double)(windows * period), (double)run.total, tol_pct,
					    (double)(hw ? 1 : 2) * (double)period);
		snprintf(tries + l, sizeof(tries) - l, "%s%llu/%llu", l ? ", " : "",
			 (unsigned long long)(windows * period), (unsigned long long)run.total);
	}
	if (ret < 0) {
		st_add(st, "perf.windows_x_period", ret == -EACCES || ret == -EPERM ? ST_SKIP : ST_FAIL,
		       NULL, NULL, "perf_event_open(%s, sample_period %llu): %s",
		       hw ? "instructions" : "task-clock", (unsigned long long)period,
		       strerror(-ret));
		st_add(st, "perf.pmi_interrupts", ST_SKIP, NULL, NULL, "no sampling session");
		return;
	}
	snprintf(meas, sizeof(meas), "%llu windows (%llu lost) x %llu = %llu, counted %llu",
		 (unsigned long long)windows, (unsigned long long)run.lost,
		 (unsigned long long)period, (unsigned long long)(windows * period),
		 (unsigned long long)run.total);
	snprintf(exp, sizeof(exp), "the counted total +- %.0f %% + %d window%s", tol_pct,
		 hw ? 1 : 2, hw ? "" : "s");
	st_add(st, "perf.windows_x_period", ok ? ST_PASS : ST_FAIL, meas, exp,
	       "%s%s sampling every %llu %s on %llu x 4-instruction spin iterations, ring "
	       "drained every %llu; %llu throttle records; tries (windows x period / counted): "
	       "%s; fewer windows: samples dropped (throttling, perf_event_max_sample_rate, "
	       "lost PMIs)", hw ? "instructions" : "task-clock (no hardware PMU)",
	       run.user_only ? " (user only: perf_event_paranoid)" : "",
	       (unsigned long long)period, hw ? "instructions" : "ns",
	       (unsigned long long)(STW_CHUNK * STW_CHUNKS), (unsigned long long)STW_CHUNK,
	       (unsigned long long)run.throttles, tries);

	if (!hw) {
		st_add(st, "perf.pmi_interrupts", ST_SKIP, NULL, NULL, "no hardware PMU: "
		       "task-clock/cpu-clock samples come from an hrtimer, not the PMU's "
		       "interrupt (the PMI line of /proc/interrupts)");
		return;
	}
	if (st_proc_pmis() < 0) {
		st_add(st, "perf.pmi_interrupts", ST_SKIP, NULL, NULL,
		       "no PMI line in /proc/interrupts");
		return;
	}
	snprintf(meas, sizeof(meas), "%llu PMIs for %llu windows", (unsigned long long)run.pmis,
		 (unsigned long long)windows);
	st_add(st, "perf.pmi_interrupts",
	       st_within((double)run.pmis, (double)windows, 2, 5) ? ST_PASS : ST_FAIL, meas,
	       "the windows +- 2 % + 5", "the PMI line of /proc/interrupts (all CPUs) across "
	       "the last sampling session; the NMI watchdog or another perf user adds its own");
}
