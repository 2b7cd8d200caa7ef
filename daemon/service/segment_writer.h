/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One segment of the daemon's history (docs/daemon.md): a complete trace
 * written under its ".open" name (lib/trace_dir.h), with the side-band of
 * every running process re-synthesized from /proc at its start so that it
 * symbolizes on its own; closed with a FINISH record, fsync'd and renamed
 * to its final name.
 */
#ifndef PMIPROF_DAEMON_SEGMENT_WRITER_H
#define PMIPROF_DAEMON_SEGMENT_WRITER_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/backend.h"

struct trace_writer;
struct trace_writer_opts;
struct trace_writer_tap;

struct segment {
	struct trace_writer *w;		/* NULL when no segment is open */
	int fd;
	int dir_fd;			/* the directory, for renameat() and its fsync */
	char open_name[64], final_name[64];
	uint64_t start_ns;		/* CLOCK_MONOTONIC */
	uint64_t start_real_ns;		/* CLOCK_REALTIME, in the name */
	uint64_t samples0, lost0;	/* session counts when it started */
	uint64_t last_sync;
	bool failed;			/* a write failed: ends with LOST WRITE + FINISH ERROR */
	int err;
};

/*
 * Start a segment in dir_fd: header from s->hdr (its start times set here),
 * tap set on the writer (NULL: none), then b->synthesize() (COMM and MMAP
 * of every process).  0 or -errno (message printed).
 */
int segment_open(struct segment *sg, int dir_fd, const char *dir, struct record_session *s,
		 const struct backend_ops *b, const struct trace_writer_opts *wo,
		 const struct trace_writer_tap *tap);
/*
 * After a drain: the writer's result (n < 0 marks the segment failed), and
 * at least once a second the open chunk written and fdatasync'd.
 */
void segment_after_drain(struct segment *sg, const char *dir, int n);
/*
 * FINISH (samples and losses of this segment, flags), fsync, rename to the
 * final name, fsync the directory.  0 or -errno (message printed); the
 * segment is closed either way.
 */
int segment_close(struct segment *sg, const char *dir, const struct record_session *s,
		  uint32_t finish_flags);

/*
 * At start, with the directory locked: every ".open" segment is an orphan
 * of a daemon that was killed (kill -9, power loss) before closing it.  It
 * is renamed to its ".unfinished" name (readers warn that it has no
 * FINISH; retention counts and deletes it as a closed one), with a warning
 * each; the directory is fsync'd.  Returns how many, or -errno.
 */
int segment_recover_orphans(int dir_fd, const char *dir);

#endif /* PMIPROF_DAEMON_SEGMENT_WRITER_H */
