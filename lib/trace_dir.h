/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A directory of trace segments (what `pmiprof daemon` writes, docs/daemon.md)
 * read as one trace.  Segments are named after their start wall-clock time
 * in UTC, so that name order is time order:
 *
 *   seg-YYYYMMDDTHHMMSS.uuuuuuZ.pmiprof        closed: FINISH written, fsync'd
 *   seg-YYYYMMDDTHHMMSS.uuuuuuZ.pmiprof.open   being written (at most one)
 *   seg-YYYYMMDDTHHMMSS.uuuuuuZ.pmiprof.unfinished  closed by the next daemon:
 *                                  its own was killed before closing it (no FINISH)
 *
 * trace_dir_image() joins them into one trace image in memory: the first
 * selected segment's prologue and header, then every complete RECORDS chunk
 * of every segment in name order, renumbered 0, 1, 2 ... (a chunk's stack
 * and ip tables are its own, so chunks move between files unchanged).
 * SUMMARY chunks are left out (they name their chunk by number; the reader
 * then decodes every chunk).  Each segment's side-band (COMM, MMAP of every
 * process at its start) and FINISH come along, so the image reads as one
 * recording with several FINISH records; an open segment has none, and its
 * incomplete last chunk is not copied (its records are counted as lost).
 */
#ifndef PMIPROF_LIB_TRACE_DIR_H
#define PMIPROF_LIB_TRACE_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmiprof/trace.h"

#define TRACE_SEG_PREFIX	"seg-"
#define TRACE_SEG_SUFFIX	".pmiprof"
#define TRACE_SEG_OPEN_SUFFIX	".pmiprof.open"
#define TRACE_SEG_UNFINISHED_SUFFIX	".pmiprof.unfinished"
/* "seg-" + 8 + "T" + 6 + "." + 6 + "Z" + ".pmiprof.unfinished" + NUL */
#define TRACE_SEG_NAME_MAX	48

struct trace_seg {
	char name[TRACE_SEG_NAME_MAX];
	uint64_t start_ns;		/* wall clock (CLOCK_REALTIME ns), from the name */
	uint64_t bytes;
	uint64_t mtime_ns;		/* last write */
	bool open;			/* still being written */
	bool unfinished;		/* closed without FINISH (TRACE_SEG_UNFINISHED_SUFFIX) */
};

/* The segment name for a start time; open adds the ".open" suffix. */
void trace_seg_name(char *buf, size_t len, uint64_t realtime_ns, bool open);
/* Parse a segment file name (an unfinished one is not open): 0, or -EINVAL when name is not one. */
int trace_seg_parse(const char *name, uint64_t *realtime_ns, bool *open);
/*
 * The segments of dir sorted by start time (other files are ignored).
 * *out is malloc'd (NULL when there are none).  0 or -errno.
 */
int trace_dir_list(const char *dir, struct trace_seg **out, size_t *nr);

/*
 * Wall-clock bounds for directories read in this process (--since,
 * --until; 0 = unbounded): segments that end before since or start after
 * until are not read.  Sample-exact bounds are the session's time filter.
 */
void trace_dir_set_range(uint64_t since_ns, uint64_t until_ns);
void trace_dir_get_range(uint64_t *since_ns, uint64_t *until_ns);

/*
 * Join the segments of dir (see above) into *buf (malloc'd, *len bytes).
 * Segments whose events differ from the first one's (a daemon restarted
 * with other options) or whose clock goes backwards (a reboot) are left
 * out with a message; so are unreadable ones.  Messages go to diag (NULL:
 * stderr).  0, -ENOENT when no segment is selected, or -errno.
 */
int trace_dir_image(const char *dir, uint8_t **buf, size_t *len,
		    void (*diag)(void *arg, const char *msg), void *diag_arg);

/*
 * Parse a wall-clock time as --since/--until take it: RFC 3339
 * ("2026-11-28T10:36:11Z", "...T10:36:11.5+01:00", a space for T allowed)
 * or relative to now ("-10m", "-30s", "-2h", "-1d", "now").
 * 0 or -EINVAL.
 */
int trace_parse_walltime(const char *s, uint64_t now_ns, uint64_t *out_ns);

#endif /* PMIPROF_LIB_TRACE_DIR_H */
