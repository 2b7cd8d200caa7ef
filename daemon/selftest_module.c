// SPDX-License-Identifier: GPL-2.0
/*
 * doctor --selftest, module backend: sessions on /dev/pmiprof driven
 * directly by ioctl around the calibrated spin loop, each checked against
 * its count by construction and against what the kernel log, GET_INFO and
 * GET_STATS say.  Under pmu=emul emul_clock=icount every check can run and
 * is exact; tests/vm/t211 breaks the emulation (emul_fault=) to show each
 * check fails when its property does.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/wait.h>
#include <unistd.h>

#include "module/module_dev.h"
#include "selftest.h"

#define ST_MOD_PERIOD		1000000ull	/* instructions per window */
#define ST_MOD_ITERS		25000000ull	/* 100 M instructions: 100 windows */
#define ST_MOD_CYCLES		100		/* START/STOP cycles */
/*
 * Mean instructions from overflow to handler.  Under emul icount with
 * high-resolution timers the path (timer interrupt entry, hrtimer core,
 * the emulation's fire) is ~450 instructions, a few thousand when another
 * interrupt is taken first; on hardware an NMI's entry is of the same
 * order.  2000 is 4 x the path: a mean over 20 PMIs reaches it only if
 * they are late as a rule, e.g. delivered ~5 us late (emul_fault=skid).
 */
#define ST_MOD_SKID_MAX		2000ull
#define ST_UNKNOWN_NMI		"NMI received for unknown reason"

struct st_mod {
	struct selftest *st;
	struct pmiprof_info info;
	bool icount, emulated;
};

static void stats_sum(int fd, struct pmiprof_cpu_stats *sum, uint32_t nr_cpus)
{
	struct pmiprof_cpu_stats *s = calloc(nr_cpus, sizeof(*s));
	struct pmiprof_stats_req req = { .size = sizeof(req), .nr_cpus = nr_cpus };
	uint32_t i;

	memset(sum, 0, sizeof(*sum));
	if (!s)
		return;
	req.buf = (uintptr_t)s;
	if (!ioctl(fd, PMIPROF_IOC_GET_STATS, &req))
		for (i = 0; i < req.nr_cpus; i++) {
			sum->samples += s[i].samples;
			sum->lost += s[i].lost;
			sum->pmis += s[i].pmis;
			sum->spurious += s[i].spurious;
			sum->throttles += s[i].throttles;
		}
	free(s);
}

static void config_init(struct pmiprof_config *cfg, uint64_t period, uint32_t max_rate)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->mode = PMIPROF_SAMPLING_PMI;
	cfg->nr_events = 1;
	cfg->max_rate = max_rate;
	cfg->events[0].event = 0xc0;	/* instructions retired */
	cfg->events[0].flags = PMIPROF_EV_TRIGGER | PMIPROF_EV_USER | PMIPROF_EV_KERNEL;
	cfg->events[0].period = period;
}

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* A child that spins iters (forever with 0) on CPU 0 once go_fd is readable. */
static pid_t spin_child(uint64_t iters, int *go_fd)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (!pid) {
		close(p[1]);
		pin_cpu0();
		if (read(p[0], &c, 1) < 0)
			_exit(1);
		if (!iters)
			for (;;)
				st_spin(1000000);
		st_spin(iters);
		_exit(0);
	}
	close(p[0]);
	*go_fd = p[1];
	return pid;
}

/*
 * One per-task session following a fresh child that spins @iters; its
 * stats in @sum, the child's run time (go to reaped) in @ns if not NULL.
 * 0 or -errno with @why.
 */
static int task_session_timed(struct st_mod *sm, uint64_t iters, uint64_t period,
			      uint32_t max_rate, struct pmiprof_cpu_stats *sum, uint64_t *ns,
			      char *why, size_t len)
{
	struct pmiprof_config cfg;
	struct pmiprof_info info;
	int fd, go = -1, status, ret = 0;
	uint64_t t0;
	pid_t pid;

	fd = module_dev_open(sm->st->device, &info, why, len);
	if (fd < 0)
		return fd;
	pid = spin_child(iters, &go);
	if (pid < 0) {
		close(fd);
		return pm_set_err(why, len, (int)pid, "fork: %s", strerror((int)-pid));
	}
	config_init(&cfg, period, max_rate);
	cfg.flags = PMIPROF_CFG_TASK;
	cfg.nr_tasks = 1;
	cfg.tasks[0] = (uint32_t)pid;
	if (ioctl(fd, PMIPROF_IOC_CONFIGURE, &cfg) || ioctl(fd, PMIPROF_IOC_START))
		ret = pm_set_err(why, len, -errno, "CONFIGURE/START: %s", strerror(errno));
	t0 = pm_now_ns();
	close(go);	/* EOF: the child runs (or, after an error, spins unmeasured) */
	waitpid(pid, &status, 0);
	if (ns)
		*ns = pm_now_ns() - t0;
	if (!ret) {
		ioctl(fd, PMIPROF_IOC_STOP);
		stats_sum(fd, sum, info.nr_cpus);
	}
	close(fd);
	return ret;
}

static int task_session(struct st_mod *sm, uint64_t iters, uint64_t period, uint32_t max_rate,
			struct pmiprof_cpu_stats *sum, char *why, size_t len)
{
	return task_session_timed(sm, iters, period, max_rate, sum, NULL, why, len);
}

/* How often @needle appears in the kernel log; -errno when unreadable. */
static long klog_count(const char *needle, char **text_out)
{
	int size = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */
	char *buf, *p;
	long n = 0;
	int len;

	if (size <= 0)
		size = 1 << 20;
	buf = malloc((size_t)size + 1);
	if (!buf)
		return -ENOMEM;
	len = klogctl(3, buf, size);		/* SYSLOG_ACTION_READ_ALL */
	if (len < 0) {
		free(buf);
		return -errno;
	}
	buf[len] = '\0';
	for (p = buf; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	if (text_out)
		*text_out = buf;
	else
		free(buf);
	return n;
}

static void check_windows(struct st_mod *sm, struct pmiprof_cpu_stats *run)
{
	struct selftest *st = sm->st;
	uint64_t expected = ST_MOD_ITERS * ST_SPIN_INSNS_PER_ITER;
	char why[256], meas[96], exp[96];
	int ret = task_session(sm, ST_MOD_ITERS, ST_MOD_PERIOD, 0, run, why, sizeof(why));

	if (ret < 0) {
		st_add(st, "module.windows_x_period", ST_FAIL, NULL, NULL, "%s", why);
		return;
	}
	snprintf(meas, sizeof(meas), "%llu windows x %llu = %llu",
		 (unsigned long long)run->pmis, (unsigned long long)ST_MOD_PERIOD,
		 (unsigned long long)(run->pmis * ST_MOD_PERIOD));
	snprintf(exp, sizeof(exp), "%llu instructions +- 1 %% + 1 window",
		 (unsigned long long)expected);
	st_add(st, "module.windows_x_period",
	       st_within((double)(run->pmis * ST_MOD_PERIOD), (double)expected, 1,
			 ST_MOD_PERIOD) ? ST_PASS : ST_FAIL, meas, exp,
	       "per-task session on a child spinning %llu x 4 instructions; the child's fork "
	       "return, exit and the handlers' own instructions add < 1 %%; spurious %llu, "
	       "lost %llu", (unsigned long long)ST_MOD_ITERS,
	       (unsigned long long)run->spurious, (unsigned long long)run->lost);
}

long long st_proc_pmis(void)
{
	char *text = NULL, *p;
	long long sum = 0;
	size_t len;

	if (pm_read_file("/proc/interrupts", &text, &len) < 0)
		return -1;
	p = strstr(text, "PMI:");
	if (!p) {
		free(text);
		return -1;
	}
	p += 4;
	for (;;) {
		char *e;
		long long v = strtoll(p, &e, 10);

		if (e == p)
			break;
		sum += v;
		p = e;
	}
	free(text);
	return sum;
}

static void check_proc_interrupts(struct st_mod *sm)
{
	struct pmiprof_cpu_stats run;
	long long before, after;
	char why[256], meas[64], exp[64];

	if (sm->emulated) {
		st_add(sm->st, "module.pmi_interrupts", ST_SKIP, NULL, NULL, "emulated PMU: its "
		       "PMIs come from an hrtimer, not the PMI vector /proc/interrupts counts");
		return;
	}
	before = st_proc_pmis();
	if (before < 0) {
		st_add(sm->st, "module.pmi_interrupts", ST_SKIP, NULL, NULL,
		       "no PMI line in /proc/interrupts");
		return;
	}
	if (task_session(sm, ST_MOD_ITERS, ST_MOD_PERIOD, 0, &run, why, sizeof(why)) < 0) {
		st_add(sm->st, "module.pmi_interrupts", ST_FAIL, NULL, NULL, "%s", why);
		return;
	}
	after = st_proc_pmis();
	snprintf(meas, sizeof(meas), "%lld PMIs", after - before);
	snprintf(exp, sizeof(exp), "%llu (windows) +- 2 %% + 5",
		 (unsigned long long)(run.pmis + run.spurious));
	st_add(sm->st, "module.pmi_interrupts",
	       st_within((double)(after - before), (double)(run.pmis + run.spurious), 2, 5) ?
	       ST_PASS : ST_FAIL, meas, exp, "PMI line of /proc/interrupts across a session; "
	       "the NMI watchdog or another perf user adds its own");
}

/*
 * emul icount logs, at STOP, the instructions from each overflow to its
 * handler.  A system-wide session: per-task switches freeze the counter
 * and would count frozen time as skid.
 */
static void check_skid(struct st_mod *sm)
{
	unsigned long long n = 0, lo = 0, hi = 0, mean = 0;
	char *text = NULL, *p, *last = NULL, meas[96], exp[64], why[256];
	struct pmiprof_config cfg;
	struct pmiprof_info info;
	long r;
	int fd;

	if (!sm->icount) {
		st_add(sm->st, "module.skid", ST_SKIP, NULL, NULL, "measurable only with an "
		       "instruction-exact clock (pmu=emul emul_clock=icount); on hardware the "
		       "recorded IP's skid needs PEBS/IBS, which pmiprof does not use");
		return;
	}
	if (!st_hres_active()) {
		st_add(sm->st, "module.skid", ST_SKIP, NULL, NULL, "high-resolution timers are "
		       "not active (/proc/timer_list: hres_active 0, e.g. still on the tsc-early "
		       "clocksource after boot): the emulated PMI's hrtimer fires on the next "
		       "tick, up to 1/HZ late, so its delay says nothing; rerun later");
		return;
	}
	fd = module_dev_open(sm->st->device, &info, why, sizeof(why));
	if (fd < 0) {
		st_add(sm->st, "module.skid", ST_FAIL, NULL, NULL, "%s", why);
		return;
	}
	config_init(&cfg, ST_MOD_PERIOD, 0);
	if (ioctl(fd, PMIPROF_IOC_CONFIGURE, &cfg) || ioctl(fd, PMIPROF_IOC_START)) {
		st_add(sm->st, "module.skid", ST_FAIL, NULL, NULL, "CONFIGURE/START: %s",
		       strerror(errno));
		close(fd);
		return;
	}
	st_spin(ST_MOD_ITERS / 5);
	ioctl(fd, PMIPROF_IOC_STOP);
	close(fd);
	r = klog_count("icount: ", &text);
	if (r < 0) {
		st_add(sm->st, "module.skid", ST_SKIP, NULL, NULL, "kernel log unreadable (%s): "
		       "run as root", strerror((int)-r));
		return;
	}
	for (p = text; (p = strstr(p, "icount: ")); p++)
		if (sscanf(p, "icount: %llu PMIs, overflow to handler %llu..%llu instructions "
			   "(mean %llu)", &n, &lo, &hi, &mean) == 4)
			last = p;
	free(text);
	if (!last) {
		st_add(sm->st, "module.skid", ST_FAIL, NULL, NULL,
		       "no skid line in the kernel log after a session with PMIs");
		return;
	}
	snprintf(meas, sizeof(meas), "mean %llu, %llu..%llu instructions over %llu PMIs",
		 mean, lo, hi, n);
	snprintf(exp, sizeof(exp), "mean <= %llu", ST_MOD_SKID_MAX);
	st_add(sm->st, "module.skid", mean <= ST_MOD_SKID_MAX ? ST_PASS : ST_FAIL, meas, exp,
	       "instructions from the counter's overflow to its handler (interrupt entry, "
	       "~450 under emulation); a higher mean: PMIs delivered late (interrupts held off, "
	       "a PMU that raises its interrupt late)");
}

static void check_competitor(struct st_mod *sm)
{
	struct pmiprof_cpu_stats heavy, light;
	uint64_t w = ST_MOD_ITERS / 2;
	char why[256], meas[96];
	int go = -1, status, r1, r2;
	pid_t comp = spin_child(0, &go);
	double ratio;
	bool ok;

	if (comp < 0) {
		st_add(sm->st, "module.per_task_competitor", ST_FAIL, NULL, NULL, "fork failed");
		return;
	}
	close(go);
	r1 = task_session(sm, 2 * w, ST_MOD_PERIOD, 0, &heavy, why, sizeof(why));
	r2 = r1 < 0 ? r1 : task_session(sm, w, ST_MOD_PERIOD, 0, &light, why, sizeof(why));
	kill(comp, SIGKILL);
	waitpid(comp, &status, 0);
	if (r1 < 0 || r2 < 0) {
		st_add(sm->st, "module.per_task_competitor", ST_FAIL, NULL, NULL, "%s", why);
		return;
	}
	ratio = light.pmis ? (double)heavy.pmis / (double)light.pmis : 0;
	snprintf(meas, sizeof(meas), "%llu:%llu windows (%.3f)",
		 (unsigned long long)heavy.pmis, (unsigned long long)light.pmis, ratio);
	ok = st_within((double)(heavy.pmis * ST_MOD_PERIOD), (double)(2 * w * 4), 1, ST_MOD_PERIOD) &&
	     st_within((double)(light.pmis * ST_MOD_PERIOD), (double)(w * 4), 1, ST_MOD_PERIOD);
	st_add(sm->st, "module.per_task_competitor", ok ? ST_PASS : ST_FAIL, meas,
	       "2:1, each within 1 % + 1 window of its own count",
	       "followed children of %llu and %llu x 4 instructions on CPU 0 with an unfollowed "
	       "spinning competitor there: the competitor's instructions must count for neither",
	       (unsigned long long)(2 * w), (unsigned long long)w);
}

/*
 * The cap engages: the throttle counts, and the windows stay near max_rate
 * over the child's run.  The kernel measures the rate per 10 ms slice and
 * stretches the period once a slice passes its budget (max_rate / 100
 * windows), rounding the stretch up to a power of two, so the rate stays
 * at or under the cap except for the slice in which it is first passed:
 * allowed are max_rate x run time x 1.5 (slices cut short by the run's end,
 * a halving that overshoots) + 2 slices' budget.  Uncapped, the run makes
 * 2000 windows; capped in a TCG guest ~30.
 */
#define ST_THROTTLE_PERIOD	10000ull
#define ST_THROTTLE_RATE	1000u

static void check_throttle(struct st_mod *sm)
{
	struct pmiprof_cpu_stats run;
	char why[256], meas[96], exp[96];
	uint64_t ns = 0;
	double allowed;

	if (task_session_timed(sm, ST_MOD_ITERS / 5, ST_THROTTLE_PERIOD, ST_THROTTLE_RATE, &run,
			       &ns, why, sizeof(why)) < 0) {
		st_add(sm->st, "module.throttle", ST_FAIL, NULL, NULL, "%s", why);
		return;
	}
	allowed = ST_THROTTLE_RATE * ((double)ns / 1e9) * 1.5 + 2 * (ST_THROTTLE_RATE / 100);
	snprintf(meas, sizeof(meas), "%llu throttles, %llu windows in %.1f ms",
		 (unsigned long long)run.throttles, (unsigned long long)run.pmis, (double)ns / 1e6);
	snprintf(exp, sizeof(exp), ">= 1 throttle, <= %.0f windows (%u/s x run time x 1.5 + 20)",
		 allowed, ST_THROTTLE_RATE);
	st_add(sm->st, "module.throttle",
	       run.throttles && (double)run.pmis <= allowed ? ST_PASS : ST_FAIL, meas, exp,
	       "period %llu instructions, max_rate %u windows/s, on a child of %llu "
	       "instructions: %llu windows uncapped; too many windows: the period is not "
	       "stretched (the counter re-armed at one period)", ST_THROTTLE_PERIOD,
	       ST_THROTTLE_RATE, ST_MOD_ITERS / 5 * 4,
	       ST_MOD_ITERS / 5 * 4 / ST_THROTTLE_PERIOD);
}

/*
 * START/STOP cycles, then a spin of 3 periods after the last STOP: no
 * counter may still be counting (an enabled counter overflows, and its
 * PMI reaches no handler: "NMI received for unknown reason").
 */
static void check_cycles(struct st_mod *sm)
{
	struct pmiprof_config cfg;
	struct pmiprof_info info;
	long before, mid, after;
	unsigned int i, reserved = 0;
	char why[256], meas[96];
	int fd;

	before = klog_count(ST_UNKNOWN_NMI, NULL);
	if (before < 0) {
		st_add(sm->st, "module.start_stop_cycles", ST_SKIP, NULL, NULL,
		       "kernel log unreadable (%s): run as root", strerror((int)-before));
		st_add(sm->st, "module.released_at_stop", ST_SKIP, NULL, NULL,
		       "kernel log unreadable (%s): run as root", strerror((int)-before));
		return;
	}
	fd = module_dev_open(sm->st->device, &info, why, sizeof(why));
	if (fd < 0) {
		st_add(sm->st, "module.start_stop_cycles", ST_FAIL, NULL, NULL, "%s", why);
		return;
	}
	config_init(&cfg, ST_MOD_PERIOD / 10, 0);
	if (ioctl(fd, PMIPROF_IOC_CONFIGURE, &cfg)) {
		st_add(sm->st, "module.start_stop_cycles", ST_FAIL, NULL, NULL,
		       "CONFIGURE: %s", strerror(errno));
		close(fd);
		return;
	}
	for (i = 0; i < ST_MOD_CYCLES; i++) {
		if (ioctl(fd, PMIPROF_IOC_START)) {
			int err = errno;

			st_add(sm->st, "module.start_stop_cycles", ST_FAIL, NULL, NULL,
			       "START %u: %s", i + 1, strerror(err));
			/* EBUSY: the counters an earlier STOP should have freed are in use. */
			st_add(sm->st, "module.released_at_stop", ST_FAIL, strerror(err),
			       "START works after STOP", "START refused: the counters are still "
			       "in use after an earlier session's STOP");
			close(fd);
			return;
		}
		st_spin(ST_MOD_PERIOD / 10);	/* ~4 windows */
		ioctl(fd, PMIPROF_IOC_STOP);
		ioctl(fd, PMIPROF_IOC_GET_INFO, &info);
		reserved += !!(info.flags & PMIPROF_INFO_F_RESERVED);
	}
	mid = klog_count(ST_UNKNOWN_NMI, NULL);
	snprintf(meas, sizeof(meas), "%ld unknown-reason NMIs, %u STOPs left counters reserved",
		 mid - before, reserved);
	st_add(sm->st, "module.start_stop_cycles", mid == before && !reserved ? ST_PASS : ST_FAIL,
	       meas, "0 and 0", "%u cycles of START, ~4 windows, STOP on one session",
	       ST_MOD_CYCLES);

	/* After the last STOP: 3 periods' worth of spinning must raise nothing. */
	st_spin(3 * ST_MOD_PERIOD);
	usleep(100000);
	after = klog_count(ST_UNKNOWN_NMI, NULL);
	close(fd);
	snprintf(meas, sizeof(meas), "%ld unknown-reason NMIs after STOP", after - mid);
	st_add(sm->st, "module.released_at_stop", after == mid ? ST_PASS : ST_FAIL, meas, "0",
	       "3 x %llu instructions spun after STOP; a counter left enabled overflows and "
	       "its PMI reaches no handler; with a hardware PMU, perf.instructions "
	       "(--backend all runs it after) shows perf can count again",
	       (unsigned long long)ST_MOD_PERIOD);
}

void st_module_checks(struct selftest *st)
{
	static const char *const names[] = {
		"module.windows_x_period", "module.pmi_interrupts", "module.skid",
		"module.per_task_competitor", "module.throttle", "module.start_stop_cycles",
		"module.released_at_stop",
	};
	struct st_mod sm = { .st = st };
	struct pmiprof_cpu_stats run;
	char why[256], desc[256], abi[32];
	unsigned int i;
	int fd;

	fd = module_dev_open(st->device, &sm.info, why, sizeof(why));
	if (fd < 0) {
		st_add(st, "module.device", ST_SKIP, NULL, NULL, "%s", why);
		for (i = 0; i < ARRAY_SIZE(names); i++)
			st_add(st, names[i], ST_SKIP, NULL, NULL, "no usable %s", st->device);
		return;
	}
	close(fd);
	module_describe_pmu(&sm.info, desc, sizeof(desc));
	snprintf(abi, sizeof(abi), "ABI %u.x", PMIPROF_ABI_MAJOR);
	st_add(st, "module.device", ST_PASS, desc, abi, "%s", st->device);
	if (!module_has_pmi(&sm.info) || !(sm.info.caps & PMIPROF_CAP_TASK)) {
		for (i = 0; i < ARRAY_SIZE(names); i++)
			st_add(st, names[i], ST_SKIP, NULL, NULL, "the module found no PMU (timer "
			       "mode only) or has no per-task mode: nothing to count with");
		return;
	}
	sm.emulated = sm.info.flags & PMIPROF_INFO_F_EMULATED;
	sm.icount = sm.info.flags & PMIPROF_INFO_F_ICOUNT;
	check_windows(&sm, &run);
	check_skid(&sm);
	check_proc_interrupts(&sm);
	check_competitor(&sm);
	check_throttle(&sm);
	check_cycles(&sm);
}
