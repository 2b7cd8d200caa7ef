/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Side-band (MMAP/COMM/FORK/EXIT) for the module backend.  pmiprof.ko only
 * records samples, so the mappings the report needs to symbolize them come
 * from a perf "dummy" software event (no samples, just the task/mmap/comm
 * records), which works even on machines and guests without a PMU.  Its
 * timestamps use CLOCK_MONOTONIC (use_clockid), the trace's clock.
 *
 * Without perf_event_open (paranoid, seccomp, no CONFIG_PERF_EVENTS), the
 * side-band comes from /proc/PID/{comm,maps} of the targets (see below).
 *
 * The kernel refuses to mmap an inherited per-task event with cpu == -1, so
 * a task target gets one event per CPU (pid, cpu), all writing into that
 * CPU's ring through PERF_EVENT_IOC_SET_OUTPUT.
 *
 * When perf_event_open is refused, the side-band is synthesized from /proc:
 * once at start and again at every drain (new executable mappings only), so
 * libraries dlopen()ed later are picked up, but a process that maps and
 * exits between two drains is missed.  The recorder says which source it
 * used.
 */
#ifndef PMIPROF_DAEMON_MODULE_SIDEBAND_H
#define PMIPROF_DAEMON_MODULE_SIDEBAND_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/mapped_build_id.h"

struct trace_writer;
struct record_stats;

#define SIDEBAND_MAX_PIDS	64

struct sideband_ring {
	int fd;
	void *base;			/* perf_event_mmap_page + data */
	size_t data_size;
};

struct sideband_seen {
	pid_t pid;
	uint64_t start, pgoff;
};

struct sideband {
	struct sideband_ring *rings;	/* one mmapped ring per CPU */
	unsigned int nr_rings;
	int *fds;			/* every event; the rings' fds among them */
	unsigned int nr_fds;
	unsigned int nr_cpus;
	unsigned char *scratch;		/* one wrapped record */
	bool from_proc;			/* /proc fallback in use */
	pid_t pids[SIDEBAND_MAX_PIDS];	/* /proc fallback targets */
	unsigned int nr_pids;
	bool exec_seen;			/* fallback: child has exec()ed */
	pid_t child;
	struct sideband_seen *seen;	/* fallback: mappings already written */
	size_t nr_seen, cap_seen;
	uint64_t lost;			/* side-band records the kernel dropped */
	struct mapped_build_ids build_ids;	/* fallback: of files in MMAPs */
};

/*
 * Open the side-band for: a forked child blocked before exec (child > 0,
 * enabled at its exec and following its descendants), pids (-p), or every
 * CPU (system_wide).  Returns 0 (perf dummy events), 1 (falling back to
 * /proc, reason in why), or -errno (why filled).
 */
int sideband_open(struct sideband *sb, pid_t child, const pid_t *pids, unsigned int nr_pids,
		  bool system_wide, unsigned int nr_cpus, char *why, size_t why_len);
int sideband_enable(struct sideband *sb);
int sideband_disable(struct sideband *sb);
/* Append POLLIN fds; returns how many were added. */
int sideband_poll_fds(struct sideband *sb, struct pollfd *fds, int max);
/* Write what is available; returns records written or -errno. */
int sideband_drain(struct sideband *sb, struct trace_writer *w, struct record_stats *st);
/*
 * COMM + executable MMAPs of every thread of pid, from /proc, stamped with
 * the current CLOCK_MONOTONIC time.  A process that is gone or unreadable
 * adds nothing; only writer errors fail.
 */
int sideband_synthesize_pid(struct sideband *sb, pid_t pid, struct trace_writer *w,
			    struct record_stats *st);
void sideband_close(struct sideband *sb);

#endif /* PMIPROF_DAEMON_MODULE_SIDEBAND_H */
