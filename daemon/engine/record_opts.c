// SPDX-License-Identifier: GPL-2.0
/*
 * Validation of record/stat options that do not need the kernel, and -p
 * targets resolved to processes through /proc (see record.h).
 */
#include "engine/record.h"

#include <errno.h>
#include <stdbool.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/proc_tasks.h"
#include "util.h"

#define HW_PERIOD_MAX	((1ull << 47) - 1)
#define SW_PERIOD_MAX	((1ull << 63) - 1)
#define CLOCK_PERIOD_MIN 10000ull	/* ns: perf's hrtimer events never fire faster */

uint64_t record_max_sample_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	unsigned long long v = 100000;

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 100000;
		fclose(f);
	}
	return v;
}

int record_check_rate(const struct record_opts *o, char *err, size_t err_len)
{
	const struct pm_event *t = &o->events.ev[o->events.trigger];

	if (o->freq_hz) {
		uint64_t max = record_max_sample_rate();

		if (o->freq_hz > max) {
			snprintf(err, err_len, "frequency %llu Hz is out of range: valid is 1..%llu "
				 "(kernel.perf_event_max_sample_rate)",
				 (unsigned long long)o->freq_hz, (unsigned long long)max);
			return -ERANGE;
		}
		return 0;
	}
	if (t->time_based && o->period < CLOCK_PERIOD_MIN) {
		snprintf(err, err_len, "period %llu ns is too short for '%s': valid is %llu..%llu ns",
			 (unsigned long long)o->period, t->name, CLOCK_PERIOD_MIN, SW_PERIOD_MAX);
		return -ERANGE;
	}
	if (!t->software && o->period > HW_PERIOD_MAX) {
		snprintf(err, err_len, "period %llu exceeds the counter limit for '%s': valid is "
			 "1..%llu", (unsigned long long)o->period, t->name, HW_PERIOD_MAX);
		return -ERANGE;
	}
	return 0;
}

/*
 * -p takes processes, as perf's -p does: a thread id stands for its whole
 * process (its Tgid), and a target named twice, directly or through one of
 * its threads, is recorded once -- every thread of a process is opened, so
 * a second copy would count each sample twice.
 */
static int add_pid(struct record_opts *o, pid_t pid, char *err, size_t err_len)
{
	pid_t tgid = proc_task_tgid(pid);
	unsigned int i;

	/* Not there (yet, or any more): the recorder reports "no such process". */
	if (tgid > 0 && tgid != pid) {
		pm_info("notice: -p %d is a thread of process %d: recording the whole process",
			(int)pid, (int)tgid);
		pid = tgid;
	}
	for (i = 0; i < o->nr_pids; i++)
		if (o->pids[i] == pid)
			return 0;
	if (o->nr_pids == RECORD_MAX_PIDS) {
		snprintf(err, err_len, "too many pids: at most %d", RECORD_MAX_PIDS);
		return -E2BIG;
	}
	o->pids[o->nr_pids++] = pid;
	return 0;
}

int record_parse_pids(struct record_opts *o, const char *list, char *err, size_t err_len)
{
	const char *p = list;

	if (!*p) {
		snprintf(err, err_len, "empty pid list");
		return -EINVAL;
	}
	while (*p) {
		char *end;
		long v;
		int ret;

		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || end == p || v <= 0 || v > 4194304 || (*end && *end != ',')) {
			snprintf(err, err_len, "invalid pid list '%s' (expected PID[,PID...])", list);
			return -EINVAL;
		}
		ret = add_pid(o, (pid_t)v, err, err_len);
		if (ret)
			return ret;
		p = *end ? end + 1 : end;
	}
	return 0;
}

/* "Uid:" or "Gid:" of /proc/PID/status: real, effective, saved, fs. */
static int status_ids(const char *status, const char *key, unsigned long id[4])
{
	const char *p = strstr(status, key);

	if (!p)
		return -ENOENT;
	return sscanf(p + strlen(key), "%lu %lu %lu %lu", &id[0], &id[1], &id[2], &id[3]) == 4 ?
	       0 : -EINVAL;
}

/* CAP_SYS_PTRACE (19) in our effective set: the ptrace check then passes. */
static bool have_cap_sys_ptrace(void)
{
	char *st = NULL;
	size_t len;
	unsigned long long eff = 0;
	const char *p;

	if (pm_read_file("/proc/self/status", &st, &len))
		return geteuid() == 0;
	p = strstr(st, "CapEff:");
	if (p)
		eff = strtoull(p + 7, NULL, 16);
	free(st);
	return eff & (1ull << 19);
}

static const char *user_name(unsigned long uid, char *buf, size_t size)
{
	struct passwd *pw = getpwuid((uid_t)uid);

	snprintf(buf, size, "%lu%s%s%s", uid, pw ? " (" : "", pw ? pw->pw_name : "", pw ? ")" : "");
	return buf;
}

int record_target_denied(pid_t pid, char *why, size_t len)
{
	char path[64], *st = NULL, comm[64] = "?", a[96], b[96];
	unsigned long uid[4], gid[4], me = (unsigned long)getuid(), mg = (unsigned long)getgid();
	const char *n;
	struct stat sb;
	size_t sl;
	int i, ret = 0;

	if (have_cap_sys_ptrace())
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (pm_read_file(path, &st, &sl))
		return 0;
	n = strstr(st, "Name:");
	if (n)
		sscanf(n + 5, " %63[^\n]", comm);
	if (status_ids(st, "Uid:", uid) || status_ids(st, "Gid:", gid))
		goto out;
	for (i = 0; i < 3; i++)
		if (uid[i] != me) {
			snprintf(why, len, "process %d (%s) belongs to user %s and pmiprof runs as "
				 "user %s: the kernel lets a process be profiled only by its owner, "
				 "root or a holder of CAP_SYS_PTRACE (the ptrace access check of "
				 "perf_event_open), whatever kernel.perf_event_paranoid says; run "
				 "pmiprof as that user or as root", (int)pid, comm,
				 user_name(uid[i], a, sizeof(a)), user_name(me, b, sizeof(b)));
			ret = 1;
			goto out;
		}
	for (i = 0; i < 3; i++)
		if (gid[i] != mg) {
			snprintf(why, len, "process %d (%s) runs with group %lu and pmiprof with group "
				 "%lu (a setgid program?): the kernel's ptrace access check of "
				 "perf_event_open needs the same groups, root or CAP_SYS_PTRACE",
				 (int)pid, comm, gid[i], mg);
			ret = 1;
			goto out;
		}
	/* The kernel gives a non-dumpable process's /proc entries to root. */
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (!stat(path, &sb) && sb.st_uid == 0 && me != 0) {
		snprintf(why, len, "process %d (%s) is not dumpable (a setuid or setgid program, "
			 "or prctl(PR_SET_DUMPABLE, 0)): the kernel's ptrace access check of "
			 "perf_event_open refuses it to anyone but root or CAP_SYS_PTRACE",
			 (int)pid, comm);
		ret = 1;
	}
out:
	free(st);
	return ret;
}

int record_targets_denied(const struct record_opts *o, char *why, size_t len)
{
	char r[768];
	unsigned int i;

	for (i = 0; i < o->nr_pids; i++)
		if (record_target_denied(o->pids[i], r, sizeof(r))) {
			snprintf(why, len, "-p %d: not permitted: %s", (int)o->pids[i], r);
			return 1;
		}
	return 0;
}

/* perf's wording (tools/perf/util/callchain.c), so habits and scripts carry over */
int record_parse_call_graph(struct record_opts *o, const char *arg, char *err, size_t err_len)
{
	const char *comma = strchr(arg, ',');
	size_t name_len = comma ? (size_t)(comma - arg) : strlen(arg);
	const char *tok = comma ? comma + 1 : NULL;
	char *end;

	if (tok && strchr(tok, ',')) {
		snprintf(err, err_len, "callchain: Unknown --call-graph option value: %s", arg);
		return -EINVAL;
	}
	if (name_len == 2 && !strncmp(arg, "fp", 2)) {
		o->call_graph = PMIPROF_CALL_GRAPH_FP;
		o->call_graph_dump_size = 0;
		if (tok) {
			unsigned long v;

			errno = 0;
			v = strtoul(tok, &end, 0);
			if (errno || *end || end == tok || !v || v > PMIPROF_MAX_STACK) {
				snprintf(err, err_len, "callchain: Incorrect max stack (1..%d): %s",
					 PMIPROF_MAX_STACK, tok);
				return -EINVAL;
			}
			o->max_stack = (uint32_t)v;
			o->max_stack_given = true;
		}
		return 0;
	}
	if (name_len == 5 && !strncmp(arg, "dwarf", 5)) {
		unsigned long v = RECORD_DEFAULT_DUMP_SIZE;

		if (tok) {
			errno = 0;
			v = strtoul(tok, &end, 0);
			if (errno || *end || end == tok || v > RECORD_MAX_DUMP_SIZE ||
			    !((v + 7) & ~7ul) || ((v + 7) & ~7ul) > RECORD_MAX_DUMP_SIZE) {
				snprintf(err, err_len, "callchain: Incorrect stack dump size (max %d): %s",
					 RECORD_MAX_DUMP_SIZE, tok);
				return -EINVAL;
			}
			v = (v + 7) & ~7ul;
		}
		o->call_graph = PMIPROF_CALL_GRAPH_DWARF;
		o->call_graph_dump_size = (uint32_t)v;
		return 0;
	}
	if (!tok && !strcmp(arg, "no")) {
		o->call_graph = PMIPROF_CALL_GRAPH_NONE;
		o->call_graph_dump_size = 0;
		return 0;
	}
	if (name_len == 3 && !strncmp(arg, "lbr", 3)) {
		snprintf(err, err_len, "callchain: lbr is not supported by pmiprof (use fp or dwarf)");
		return -EINVAL;
	}
	snprintf(err, err_len, "callchain: Unknown --call-graph option value: %s", arg);
	return -EINVAL;
}
