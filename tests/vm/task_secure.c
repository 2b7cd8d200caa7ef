// SPDX-License-Identifier: GPL-2.0
/*
 * task_secure.c - what an unprivileged per-task session of pmiprof.ko
 * must never see, and what stale per-task state must never sample
 * (tests/vm/t196, t197).  Run as root in the guest; the follower drops to
 * UID itself and opens /dev/pmiprof (mode 0666 in the test) without
 * CAP_PERFMON.  Sessions are PMI-mode per-task with DWARF stack dumps.
 *
 *   task_secure victim SECONDS        spin with SECRET all over the stack;
 *                                     prints its euid (the setuid copy: 0)
 *   task_secure exec UID BIN          as UID, follow a child that execs BIN
 *                                     (BIN victim 2): records of the child,
 *                                     records with stacks, SECRET hits
 *   task_secure reuse UID             as UID, CONFIGURE with a child, kill it,
 *                                     root takes its pid (ns_last_pid) and
 *                                     spins with SECRET, then START: its
 *                                     result and the records of that pid
 *   task_secure cycles N              root: follow a thread-churning process
 *                                     while another execs true in a loop;
 *                                     N START/STOP cycles of one CONFIGURE;
 *                                     records of any other pid
 *   task_secure deputy UID            open as UID, become root again, CONFIGURE
 *                                     a root process: the opener decides (EPERM)
 *   task_secure churn SECONDS         the same churn and bystander, no device
 *   task_secure victimfork SECONDS    victim, in a child too
 *   task_secure sudo BIN HOW          as sudo/su do once setuid root: uid and
 *                                     gid 0, then exec BIN HOW 6 (HOW victim
 *                                     or victimfork; dumpable, since exec
 *                                     decides on the old ids)
 *   task_secure escalate UID SUIDBIN BIN HOW
 *                                     as UID, follow a child that execs
 *                                     SUIDBIN (a setuid copy) sudo BIN HOW
 *                                     once START's fork probe is in place,
 *                                     its walk held (start_walk_delay_ms,
 *                                     start_walk_add_delay_ms): records of
 *                                     the child and its children, SECRET hits
 *   task_secure forkwalk THREADS S    root: follow a process whose THREADS
 *                                     threads fork children before START and
 *                                     from when its fork probe is in place on
 *                                     (START's walk slowed by
 *                                     start_walk_delay_ms): children forked
 *                                     before, during and after the walk (the
 *                                     module's start_walk_*_ns), and how many
 *                                     of each have records
 *
 * One "key=value ..." line each; the shell scripts decide.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pmiprof/abi.h"

/* Built at run time: the needle is never a constant on anyone's stack by accident. */
static uint64_t secret(void)
{
	return 0x5ec7e75ec7e70000ull ^ (uint64_t)getpagesize() * 0x1000193ull;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile uint64_t sink;

static int victim(double secs)
{
	volatile uint64_t buf[512];
	double end = now_s() + secs;
	unsigned int i;

	for (i = 0; i < 512; i++)
		buf[i] = secret();
	printf("victim euid=%d\n", (int)geteuid());
	fflush(stdout);
	while (now_s() < end)
		for (i = 0; i < 100000; i++)
			sink += buf[i & 511] * 3 + i;
	return 0;
}

/* victim, in a child too (forked at once) */
static int victim_fork(double secs)
{
	pid_t p = fork();
	int ret = victim(secs);

	if (p > 0)
		waitpid(p, NULL, 0);
	return p == 0 ? 0 : ret;
}

/*
 * Set once this process acts for an opener without CAP_PERFMON: its
 * events count user mode only (ring 0 needs CAP_PERFMON, as perf's
 * paranoid 2).
 */
static bool unprivileged;

static void drop_to(uid_t uid)
{
	unprivileged = true;
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid)) {
		perror("task_secure: drop privileges");
		exit(2);
	}
	/* The uid change made it non-dumpable; a login shell's processes are dumpable. */
	prctl(PR_SET_DUMPABLE, 1);
}

struct session {
	int fd;
	struct pmiprof_info info;
	void **maps;
	uint64_t *tail;
};

struct tally {
	uint64_t records, partial, user, stacks, nouser, secret_hits, other_pid, other_windows, bad;
};

static int session_open(struct session *s)
{
	s->fd = open(PMIPROF_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (s->fd < 0)
		return -errno;
	memset(&s->info, 0, sizeof(s->info));
	s->info.size = sizeof(s->info);
	if (ioctl(s->fd, PMIPROF_IOC_GET_INFO, &s->info))
		return -errno;
	s->maps = calloc(s->info.nr_cpus, sizeof(*s->maps));
	s->tail = calloc(s->info.nr_cpus, sizeof(*s->tail));
	return 0;
}

static int session_configure(struct session *s, pid_t pid, uint64_t period)
{
	struct pmiprof_config cfg = { .size = sizeof(cfg), .mode = PMIPROF_SAMPLING_PMI };
	size_t ms = PMIPROF_RING_MAP_SIZE(&s->info);

	cfg.nr_events = 1;
	cfg.events[0].event = 0xc0;
	cfg.events[0].flags = PMIPROF_EV_USER | PMIPROF_EV_TRIGGER |
			      (unprivileged ? 0 : PMIPROF_EV_KERNEL);
	cfg.events[0].period = period;
	cfg.flags = PMIPROF_CFG_TASK;
	cfg.nr_tasks = 1;
	cfg.tasks[0] = (uint32_t)pid;
	cfg.stack_mode = PMIPROF_STACK_DWARF;
	cfg.stack_max = 16;
	cfg.stack_dump = 4096;
	if (ioctl(s->fd, PMIPROF_IOC_CONFIGURE, &cfg))
		return -errno;
	for (unsigned int cpu = 0; cpu < s->info.nr_cpus; cpu++) {
		void *m = s->maps[cpu] ? s->maps[cpu] :
			  mmap(NULL, ms, PROT_READ, MAP_SHARED, s->fd, (off_t)cpu * ms);

		s->maps[cpu] = m == MAP_FAILED ? NULL : m;
	}
	return 0;
}

static void ring_read(const struct pmiprof_ring_header *h, uint64_t pos, void *dst, uint32_t n)
{
	const unsigned char *data = (const unsigned char *)h + PMIPROF_RING_HEADER_BYTES;
	uint32_t off = pos & (h->data_bytes - 1);
	uint32_t first = h->data_bytes - off < n ? h->data_bytes - off : n;

	memcpy(dst, data + off, first);
	memcpy((unsigned char *)dst + first, data, n - first);
}

/* Called for every record drained (NULL: none). */
static void (*record_hook)(const struct pmiprof_sample_rec *rec);

/* Every record; @pid: the one pid expected (0: none), the rest is "other". */
static void drain(struct session *s, pid_t pid, struct tally *t)
{
	static unsigned char buf[1 << 17];
	uint64_t needle = secret();

	for (unsigned int cpu = 0; cpu < s->info.nr_cpus; cpu++) {
		const struct pmiprof_ring_header *h = s->maps[cpu];
		struct pmiprof_consume c = { .cpu = cpu };
		uint64_t head;

		if (!h)
			continue;
		head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
		while (s->tail[cpu] + sizeof(struct pmiprof_sample_rec) <= head) {
			struct pmiprof_sample_rec rec;
			uint32_t size;

			ring_read(h, s->tail[cpu], &rec, sizeof(rec));
			size = h->record_size ? h->record_size : rec.size;
			if (size < sizeof(rec) || size > sizeof(buf) || size > head - s->tail[cpu]) {
				fprintf(stderr, "task_secure: bad record size %u\n", size);
				t->bad++;
				s->tail[cpu] = head;
				break;
			}
			ring_read(h, s->tail[cpu], buf, size);
			s->tail[cpu] += size;
			t->records++;
			if (record_hook)
				record_hook(&rec);
			t->partial += !!(rec.flags & PMIPROF_REC_F_PARTIAL);
			t->user += !!(rec.flags & PMIPROF_REC_F_USER);
			if (rec.flags & PMIPROF_REC_F_STACK) {
				struct pmiprof_stack_rec sr;

				memcpy(&sr, buf + sizeof(rec), sizeof(sr));
				t->stacks += sr.dump_size > 0;
				t->nouser += !!(sr.flags & PMIPROF_STACK_F_NO_USER);
			}
			for (uint32_t o = sizeof(rec); o + 8 <= size; o += 8)
				if (!memcmp(buf + o, &needle, 8)) {
					t->secret_hits++;
					break;
				}
			if (pid && rec.pid != (uint32_t)pid) {
				if (t->other_pid < 5)
					fprintf(stderr, "task_secure: record of pid %u tid %u cpu %u flags %#x count %llu time %llu status %#llx\n",
						rec.pid, rec.tid, rec.cpu, rec.flags, (unsigned long long)rec.counts[0], (unsigned long long)rec.time_ns, (unsigned long long)rec.status);
				t->other_pid++;
				t->other_windows += !(rec.flags & PMIPROF_REC_F_PARTIAL);
			}
		}
		c.tail = s->tail[cpu];
		ioctl(s->fd, PMIPROF_IOC_CONSUME, &c);
	}
}

static void print_tally(const char *what, const struct tally *t)
{
	printf("%s records=%" PRIu64 " partial=%" PRIu64 " user=%" PRIu64 " stacks=%" PRIu64
	       " nouser=%" PRIu64 " secret=%" PRIu64 " other_pid=%" PRIu64 " other_windows=%" PRIu64
	       " bad=%" PRIu64 "\n", what, t->records, t->partial, t->user, t->stacks, t->nouser,
	       t->secret_hits, t->other_pid, t->other_windows, t->bad);
}

/* Drain until @child exits (or @secs pass), then STOP and drain again. */
static void follow(struct session *s, pid_t child, double secs, struct tally *t)
{
	double end = now_s() + secs;
	int status;

	while (now_s() < end) {
		struct pollfd p = { .fd = s->fd, .events = POLLIN };

		if (waitpid(child, &status, WNOHANG) == child)
			break;
		poll(&p, 1, 50);
		drain(s, child, t);
	}
	ioctl(s->fd, PMIPROF_IOC_STOP);
	drain(s, child, t);
}

/* A setuid exec by a followed task: no record of it may carry its stack. */
static int cmd_exec(uid_t uid, const char *bin)
{
	struct session s;
	struct tally t = { 0 };
	int go[2], ret;
	pid_t child;
	char c = 0;

	if (pipe(go))
		return 2;
	drop_to(uid);
	ret = session_open(&s);
	if (ret) {
		printf("exec open=%s\n", strerror(-ret));
		return 1;
	}
	child = fork();
	if (child == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(3);
		execl(bin, bin, "victim", "2", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	ret = session_configure(&s, child, 1000000);
	if (!ret && ioctl(s.fd, PMIPROF_IOC_START))
		ret = -errno;
	if (ret) {
		printf("exec configure_start=%s\n", strerror(-ret));
		kill(child, SIGKILL);
		return 1;
	}
	if (write(go[1], &c, 1) != 1)
		return 2;
	follow(&s, child, 30, &t);
	print_tally("exec", &t);
	return 0;
}

/* What sudo, su and pkexec do once running setuid root: become root entirely, exec. */
static int cmd_sudo(const char *bin, const char *how)
{
	if (setresgid(0, 0, 0) || setresuid(0, 0, 0)) {
		perror("task_secure: sudo");
		return 2;
	}
	execl(bin, bin, how, "6", (char *)NULL);
	perror("task_secure: sudo: exec");
	return 127;
}

/* A module parameter in seconds of CLOCK_MONOTONIC (0: none). */
static double module_param_ns_s(const char *name);

/*
 * The START race: START's walk has looked at the child (uid UID, blocked
 * on a pipe) when the child execs a setuid-root program that becomes root
 * and execs a dumpable program with SECRET on its stack.  Root (this
 * process) tells the child to go once START's fork probe is in place
 * (start_walk_begin_ns), while the walk waits between its steps.
 */
static int cmd_escalate(uid_t uid, const char *suidbin, const char *plainbin, const char *how)
{
	int go[2], ready[2], status;
	pid_t follower;
	char c = 0;

	if (pipe(go) || pipe(ready))
		return 2;
	follower = fork();
	if (follower == 0) {
		struct session s;
		struct tally t = { 0 };
		pid_t child;
		int ret;

		drop_to(uid);
		ret = session_open(&s);
		if (ret) {
			printf("escalate open=%s\n", strerror(-ret));
			_exit(1);
		}
		child = fork();
		if (child == 0) {
			close(go[1]);
			if (read(go[0], &c, 1) != 1)
				_exit(3);
			execl(suidbin, suidbin, "sudo", plainbin, how, (char *)NULL);
			_exit(127);
		}
		ret = session_configure(&s, child, 1000000);
		if (write(ready[1], &c, 1) != 1)
			_exit(2);
		if (!ret && ioctl(s.fd, PMIPROF_IOC_START))
			ret = -errno;
		if (ret) {
			printf("escalate configure_start=%s\n", strerror(-ret));
			kill(child, SIGKILL);
			_exit(1);
		}
		follow(&s, child, 30, &t);
		print_tally("escalate", &t);
		_exit(0);
	}
	if (read(ready[0], &c, 1) != 1)
		return 2;
	/* START is under way once its fork probe is in place; the walk then waits. */
	for (int i = 0; i < 3000 && !module_param_ns_s("start_walk_begin_ns"); i++)
		usleep(1000);
	usleep(300 * 1000);
	if (write(go[1], &c, 1) != 1)
		return 2;
	waitpid(follower, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, s, strlen(s)) < 0)
		fprintf(stderr, "task_secure: %s: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/*
 * CONFIGURE names a process, START follows that same process or none:
 * the unprivileged follower's child dies, root takes its pid, START.
 */
static int cmd_reuse(uid_t uid)
{
	int a2r[2], r2a[2], status;
	pid_t follower, reused = 0, victim_pid;

	if (pipe(a2r) || pipe(r2a))
		return 2;
	follower = fork();
	if (follower == 0) {
		struct session s;
		struct tally t = { 0 };
		pid_t child;
		int ret;

		drop_to(uid);
		ret = session_open(&s);
		if (ret) {
			printf("reuse open=%s\n", strerror(-ret));
			_exit(1);
		}
		child = fork();
		if (child == 0) {
			pause();
			_exit(0);
		}
		ret = session_configure(&s, child, 1000000);
		if (ret) {
			printf("reuse configure=%s\n", strerror(-ret));
			kill(child, SIGKILL);
			_exit(1);
		}
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		if (write(a2r[1], &child, sizeof(child)) != sizeof(child) ||
		    read(r2a[0], &reused, sizeof(reused)) != sizeof(reused))
			_exit(2);
		ret = ioctl(s.fd, PMIPROF_IOC_START) ? errno : 0;
		printf("reuse pid=%d reused=%d start=%s\n", (int)child, (int)reused,
		       ret ? (ret == ESRCH ? "ESRCH" : strerror(ret)) : "ok");
		fflush(stdout);
		if (!ret)
			follow(&s, child, 2, &t);
		/* records of the reused pid: the root process's */
		printf("reuse root_records=%" PRIu64 " secret=%" PRIu64 "\n",
		       t.records - t.other_pid, t.secret_hits);
		_exit(0);
	}
	if (read(a2r[0], &victim_pid, sizeof(victim_pid)) != sizeof(victim_pid))
		return 2;
	/* The next pid handed out is the dead child's (no other process starts meanwhile). */
	for (int tries = 0; tries < 5 && reused != victim_pid; tries++) {
		char buf[32];

		snprintf(buf, sizeof(buf), "%d", (int)victim_pid - 1);
		write_file("/proc/sys/kernel/ns_last_pid", buf);
		reused = fork();
		if (reused == 0) {
			victim(3);
			_exit(0);
		}
		if (reused != victim_pid) {
			kill(reused, SIGKILL);
			waitpid(reused, NULL, 0);
		}
	}
	if (write(r2a[1], &reused, sizeof(reused)) != sizeof(reused))
		return 2;
	waitpid(follower, &status, 0);
	kill(reused, SIGKILL);
	waitpid(reused, NULL, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/*
 * The opener's rights, not the caller's: opened as UID (no capability in
 * effect), then the process becomes root again (its saved uid) and asks
 * to follow a root process with the descriptor.  Must be EPERM.
 */
static int cmd_deputy(uid_t uid)
{
	struct session s;
	pid_t target;
	int ret;

	target = fork();
	if (target == 0) {
		pause();
		_exit(0);
	}
	if (setresgid(uid, uid, 0) || setresuid(uid, uid, 0)) {
		perror("task_secure: setresuid");
		return 2;
	}
	unprivileged = true;
	ret = session_open(&s);
	if (setresuid(0, 0, 0) || setresgid(0, 0, 0)) {
		perror("task_secure: back to root");
		return 2;
	}
	if (!ret)
		ret = session_configure(&s, target, 1000000);
	printf("deputy configure=%s\n", !ret ? "ok" : ret == -EPERM ? "EPERM" : strerror(-ret));
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);

	/* The same descriptor, the opener's own process, kernel RIPs asked by root: EACCES. */
	target = fork();
	if (target == 0) {
		drop_to(uid);
		pause();
		_exit(0);
	}
	usleep(100000);
	{
		struct pmiprof_config cfg = { .size = sizeof(cfg), .mode = PMIPROF_SAMPLING_TIMER,
					      .timer_ns = 1000000,
					      .flags = PMIPROF_CFG_TASK | PMIPROF_CFG_KERNEL_IPS,
					      .nr_tasks = 1, .tasks = { (uint32_t)target } };

		ret = ioctl(s.fd, PMIPROF_IOC_CONFIGURE, &cfg) ? errno : 0;
		printf("deputy kernel_ips=%s\n", !ret ? "ok" : ret == EACCES ? "EACCES" : strerror(ret));
		cfg.flags = PMIPROF_CFG_TASK;
		ret = ioctl(s.fd, PMIPROF_IOC_CONFIGURE, &cfg) ? errno : 0;
		printf("deputy own_process=%s\n", !ret ? "ok" : strerror(ret));
		/* perf_event_max_stack: 127 frames without CAP_PERFMON */
		cfg.stack_mode = PMIPROF_STACK_FP;
		cfg.stack_max = 128;
		ret = ioctl(s.fd, PMIPROF_IOC_CONFIGURE, &cfg) ? errno : 0;
		printf("deputy stack_128=%s\n", !ret ? "ok" : ret == EOVERFLOW ? "EOVERFLOW" : strerror(ret));
		cfg.stack_max = 127;
		ret = ioctl(s.fd, PMIPROF_IOC_CONFIGURE, &cfg) ? errno : 0;
		printf("deputy stack_127=%s\n", !ret ? "ok" : strerror(ret));
		/* Ring-0 counting: CAP_PERFMON (perf_allow_kernel()), whoever calls */
		cfg.stack_mode = PMIPROF_STACK_NONE;
		cfg.stack_max = 0;
		cfg.mode = PMIPROF_SAMPLING_PMI;
		cfg.timer_ns = 0;
		cfg.nr_events = 1;
		cfg.events[0].event = 0xc0;
		cfg.events[0].period = 1000000;
		cfg.events[0].flags = PMIPROF_EV_KERNEL | PMIPROF_EV_TRIGGER;
		ret = ioctl(s.fd, PMIPROF_IOC_CONFIGURE, &cfg) ? errno : 0;
		printf("deputy kernel_count=%s\n", !ret ? "ok" : ret == EACCES ? "EACCES" : strerror(ret));
		cfg.events[0].flags = PMIPROF_EV_USER | PMIPROF_EV_KERNEL | PMIPROF_EV_TRIGGER;
		ret = ioctl(s.fd, PMIPROF_IOC_CONFIGURE, &cfg) ? errno : 0;
		printf("deputy user_kernel_count=%s\n", !ret ? "ok" : ret == EACCES ? "EACCES" : strerror(ret));
		cfg.events[0].flags = PMIPROF_EV_USER | PMIPROF_EV_TRIGGER;
		ret = ioctl(s.fd, PMIPROF_IOC_CONFIGURE, &cfg) ? errno : 0;
		printf("deputy user_count=%s\n", !ret ? "ok" : strerror(ret));
		/* Every user's code: a system-wide session needs CAP_PERFMON */
		cfg.flags = 0;
		cfg.nr_tasks = 0;
		cfg.tasks[0] = 0;
		ret = ioctl(s.fd, PMIPROF_IOC_CONFIGURE, &cfg) ? errno : 0;
		printf("deputy system_wide=%s\n", !ret ? "ok" : ret == EPERM ? "EPERM" : strerror(ret));
	}
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);
	return 0;
}

static void *short_thread(void *arg)
{
	for (unsigned long i = 0; i < 20000; i++)
		sink += i;
	return arg;
}

/* Threads born and gone all the time: exits while a START or STOP is under way. */
static void churn(void)
{
	for (;;) {
		pthread_t th[8];

		for (int i = 0; i < 8; i++)
			pthread_create(&th[i], NULL, short_thread, NULL);
		for (int i = 0; i < 8; i++)
			pthread_join(th[i], NULL);
	}
}

/* Short unrelated processes, one after another. */
static void bystand(void)
{
	for (;;) {
		pid_t p = fork();

		if (p == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		waitpid(p, NULL, 0);
	}
}

static void start_churn(pid_t *churner, pid_t *bystander)
{
	*churner = fork();
	if (*churner == 0) {
		churn();
		_exit(0);
	}
	*bystander = fork();
	if (*bystander == 0) {
		bystand();
		_exit(0);
	}
}

/* The churn alone for @secs (the ftrace control of t197), no device. */
static int cmd_churn(double secs)
{
	struct timespec d = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };
	pid_t churner, bystander;

	start_churn(&churner, &bystander);
	nanosleep(&d, NULL);
	kill(churner, SIGKILL);
	kill(bystander, SIGKILL);
	waitpid(churner, NULL, 0);
	waitpid(bystander, NULL, 0);
	return 0;
}

/*
 * START/STOP cycles of one CONFIGURE on a churning process, while
 * unrelated short processes come and go: no record of any other pid.
 */
static int cmd_cycles(int n)
{
	struct session s;
	struct tally t = { 0 };
	pid_t churner, bystander;
	int ret, starts = 0;

	start_churn(&churner, &bystander);
	ret = session_open(&s);
	if (!ret)
		ret = session_configure(&s, churner, 100000);
	if (ret) {
		printf("cycles configure=%s\n", strerror(-ret));
		kill(churner, SIGKILL);
		kill(bystander, SIGKILL);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		struct timespec d = { 0, 20 * 1000 * 1000 };

		/* START empties the rings: head and tail back to 0 */
		memset(s.tail, 0, s.info.nr_cpus * sizeof(*s.tail));
		if (ioctl(s.fd, PMIPROF_IOC_START)) {
			printf("cycles start=%s\n", strerror(errno));
			break;
		}
		starts++;
		nanosleep(&d, NULL);
		ioctl(s.fd, PMIPROF_IOC_STOP);
		drain(&s, churner, &t);
	}
	kill(churner, SIGKILL);
	kill(bystander, SIGKILL);
	waitpid(churner, NULL, 0);
	waitpid(bystander, NULL, 0);
	fprintf(stderr, "task_secure: cycles: tracer %d churner %d bystander %d\n", (int)getpid(),
		(int)churner, (int)bystander);
	printf("cycles starts=%d ", starts);
	print_tally("cycles", &t);
	return 0;
}

/* forkwalk: who forked when (shared with the forking process), who has records. */
#define FORK_LOG_MAX	4096
#define PID_BITS	(1u << 22)	/* PID_MAX_LIMIT on 64-bit */
#define FORKS_PER_THREAD 12

struct fork_log {
	int go, done, n;
	struct {
		pid_t pid;
		double t, t_after;	/* before fork(), after it returned */
	} e[FORK_LOG_MAX];
};

static unsigned char pid_seen[PID_BITS / 8];

static void note_pid(const struct pmiprof_sample_rec *rec)
{
	if (rec->pid < PID_BITS)
		pid_seen[rec->pid / 8] |= 1u << (rec->pid % 8);
}

static int seen(pid_t pid)
{
	return (unsigned int)pid < PID_BITS && (pid_seen[pid / 8] & (1u << (pid % 8)));
}

/* A module parameter in seconds of CLOCK_MONOTONIC (0: none). */
static double module_param_ns_s(const char *name)
{
	char path[128];
	unsigned long long ns = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/pmiprof/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &ns) != 1)
		ns = 0;
	fclose(f);
	return ns / 1e9;
}

/* One child that spins until the end; its pid and times in the log. */
static void fork_one(struct fork_log *log)
{
	double t = now_s();
	pid_t p = fork();
	int i;

	if (p == 0) {
		/*
		 * Run until told (past START's return: the counters start
		 * after the walk); async-signal-safe calls only.
		 */
		while (!__atomic_load_n(&log->done, __ATOMIC_ACQUIRE))
			for (unsigned int k = 0; k < 10000; k++)
				sink += k;
		_exit(0);
	}
	i = __atomic_fetch_add(&log->n, 1, __ATOMIC_RELAXED);
	if (p > 0 && i < FORK_LOG_MAX) {
		log->e[i].t = t;
		log->e[i].t_after = now_s();
		__atomic_store_n(&log->e[i].pid, p, __ATOMIC_RELEASE);
	}
}

/*
 * One child before START (not followed: the control of the other side),
 * then, from when the module says its fork probe is in place (START
 * registering its probes took 9 s at load 12 under TCG: a fixed schedule
 * from the ioctl on forked every child before it), one every 250 ms:
 * through the walk, held 1.5 s, and after it.
 */
static void *forker_thread(void *arg)
{
	struct fork_log *log = arg;
	struct timespec d = { 0, 250 * 1000 * 1000 };

	fork_one(log);
	while (!__atomic_load_n(&log->go, __ATOMIC_ACQUIRE))
		usleep(1000);
	/* bounded: START fails, or never gets there */
	for (int w = 0; w < 60000 && !module_param_ns_s("start_walk_begin_ns"); w++)
		usleep(10 * 1000);
	for (int f = 0; f < FORKS_PER_THREAD; f++) {
		fork_one(log);
		nanosleep(&d, NULL);
	}
	for (;;)
		pause();
	return NULL;
}

static int cmd_forkwalk(int threads, double secs)
{
	struct fork_log *log = mmap(NULL, sizeof(*log), PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int during = 0, during_followed = 0, after = 0, after_followed = 0, ret, n;
	int before = 0, before_followed = 0, straddling = 0, late = 0;
	struct tally t = { 0 };
	unsigned long long lost = 0;
	struct session s;
	double t0, t1, end, walk_begin, walk_end;
	pid_t target;

	if (log == MAP_FAILED)
		return 2;
	target = fork();
	if (target == 0) {
		pthread_t th;

		signal(SIGCHLD, SIG_IGN);	/* children reaped by the kernel */
		for (int i = 0; i < threads; i++)
			pthread_create(&th, NULL, forker_thread, log);
		for (;;)
			pause();
	}
	ret = session_open(&s);
	if (!ret)
		ret = session_configure(&s, target, 50000000);
	if (ret) {
		printf("forkwalk configure=%s\n", strerror(-ret));
		kill(target, SIGKILL);
		return 1;
	}
	record_hook = note_pid;
	t0 = now_s();
	__atomic_store_n(&log->go, 1, __ATOMIC_RELEASE);
	if (ioctl(s.fd, PMIPROF_IOC_START)) {
		printf("forkwalk start=%s\n", strerror(errno));
		kill(target, SIGKILL);
		return 1;
	}
	t1 = now_s();
	/* the module's own record of when forks were seen and the walk ended */
	walk_begin = module_param_ns_s("start_walk_begin_ns");
	walk_end = module_param_ns_s("start_walk_end_ns");
	if (!walk_begin || !walk_end || walk_begin > walk_end || walk_begin < t0 ||
	    walk_end > t1) {
		printf("forkwalk walk_times=unknown begin=%.6f end=%.6f t0=%.6f t1=%.6f\n",
		       walk_begin, walk_end, t0, t1);
		kill(target, SIGKILL);
		return 1;
	}
	end = t1 + secs;
	while (now_s() < end) {
		struct pollfd p = { .fd = s.fd, .events = POLLIN };

		poll(&p, 1, 50);
		drain(&s, 0, &t);
	}
	kill(target, SIGSTOP);
	/* the children exit while followed: their PARTIAL records */
	__atomic_store_n(&log->done, 1, __ATOMIC_RELEASE);
	n = __atomic_load_n(&log->n, __ATOMIC_ACQUIRE);
	for (int i = 0; i < n && i < FORK_LOG_MAX; i++) {
		pid_t pid = __atomic_load_n(&log->e[i].pid, __ATOMIC_ACQUIRE);

		for (int w = 0; pid && w < 300 && kill(pid, 0) == 0; w++) {
			usleep(100 * 1000);
			drain(&s, 0, &t);
		}
	}
	ioctl(s.fd, PMIPROF_IOC_STOP);
	drain(&s, 0, &t);
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);
	n = __atomic_load_n(&log->n, __ATOMIC_ACQUIRE);
	for (int i = 0; i < n && i < FORK_LOG_MAX; i++) {
		pid_t pid = __atomic_load_n(&log->e[i].pid, __ATOMIC_ACQUIRE);
		double ft = log->e[i].t, ft_after = log->e[i].t_after;

		if (!pid)
			continue;
		/*
		 * The fork's sched_process_fork ran between ft and ft_after: after
		 * the fork probe was in place and before the walk ended, so by a
		 * thread the walk may not have reached (during); after the walk
		 * (after, the control); or before START followed anything.  A fork
		 * that straddles begin or end is counted in none.
		 */
		if (ft > walk_begin && ft_after < walk_end) {
			during++;
			if (seen(pid))
				during_followed++;
			else if (during - during_followed <= 5)
				fprintf(stderr, "task_secure: child %d forked %.3f s after the fork probe, %.3f s before the walk ended: no record\n",
					(int)pid, ft - walk_begin, walk_end - ft_after);
		} else if (ft > walk_end && ft_after < end) {
			after++;
			after_followed += seen(pid);
		} else if (ft > walk_end) {
			late++;		/* after the recording's seconds: not counted */
		} else if (ft_after < walk_begin) {
			before++;
			before_followed += seen(pid);
		} else {
			straddling++;
		}
	}
	for (unsigned int cpu = 0; cpu < s.info.nr_cpus; cpu++)
		if (s.maps[cpu])
			lost += ((const struct pmiprof_ring_header *)s.maps[cpu])->lost;
	printf("forkwalk start_s=%.2f probe_s=%.3f walk_s=%.3f forks=%d before=%d before_followed=%d during=%d during_followed=%d straddling=%d after=%d after_followed=%d late=%d lost=%llu ",
	       t1 - t0, walk_begin - t0, walk_end - walk_begin, n, before, before_followed,
	       during, during_followed, straddling, after, after_followed, late,
	       (unsigned long long)lost);
	print_tally("forkwalk", &t);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "victim"))
		return victim(atof(argv[2]));
	if (argc >= 4 && !strcmp(argv[1], "exec"))
		return cmd_exec((uid_t)atoi(argv[2]), argv[3]);
	if (argc >= 3 && !strcmp(argv[1], "reuse"))
		return cmd_reuse((uid_t)atoi(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "cycles"))
		return cmd_cycles(atoi(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "deputy"))
		return cmd_deputy((uid_t)atoi(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "churn"))
		return cmd_churn(atof(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "victimfork"))
		return victim_fork(atof(argv[2]));
	if (argc >= 4 && !strcmp(argv[1], "sudo"))
		return cmd_sudo(argv[2], argv[3]);
	if (argc >= 6 && !strcmp(argv[1], "escalate"))
		return cmd_escalate((uid_t)atoi(argv[2]), argv[3], argv[4], argv[5]);
	if (argc >= 4 && !strcmp(argv[1], "forkwalk"))
		return cmd_forkwalk(atoi(argv[2]), atof(argv[3]));
	fprintf(stderr, "usage: task_secure victim S | victimfork S | exec UID BIN | sudo BIN HOW | escalate UID SUIDBIN BIN HOW | reuse UID | deputy UID | cycles N | churn S | forkwalk THREADS S\n");
	return 2;
}
