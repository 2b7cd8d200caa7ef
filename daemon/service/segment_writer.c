// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's segments: open under a ".open" name, written by the trace
 * writer, synced every second, closed with FINISH, fsync'd and renamed into
 * place (see segment_writer.h).
 */
#include "service/segment_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmiprof/trace.h"
#include "trace_dir.h"
#include "util.h"

/* As record's: a killed daemon loses at most about a second of samples. */
#define SEGMENT_SYNC_NS		1000000000ull

static void segment_failed(struct segment *sg, const char *dir, int err)
{
	if (sg->failed)
		return;
	sg->failed = true;
	sg->err = err;
	pm_err("writing %s/%s: %s; the segment ends at its last complete chunk, samples are "
	       "dropped (and counted) until the next segment", dir, sg->open_name, strerror(-err));
}

/* A change of the wall clock's offset larger than this is a step (settimeofday), not jitter. */
#define SEGMENT_CLOCK_STEP_NS	1000000

int segment_open(struct segment *sg, int dir_fd, const char *dir, struct record_session *s,
		 const struct backend_ops *b, const struct trace_writer_opts *wo,
		 const struct trace_writer_tap *tap)
{
	int ret;

	memset(sg, 0, sizeof(*sg));
	sg->dir_fd = dir_fd;
	pm_clock_pair(&sg->start_ns, &sg->start_real_ns);
	/*
	 * Every segment of a run maps monotonic to wall-clock time by the same
	 * offset unless the wall clock was stepped: --since/--until over a
	 * directory (the first segment's pair) and the live profile (the open
	 * segment's) then select the same samples.
	 */
	if (s->hdr.start_time && s->hdr.start_realtime_ns) {
		int64_t prev = (int64_t)(s->hdr.start_realtime_ns - s->hdr.start_time);
		int64_t now = (int64_t)(sg->start_real_ns - sg->start_ns);

		if (now - prev < SEGMENT_CLOCK_STEP_NS && prev - now < SEGMENT_CLOCK_STEP_NS)
			sg->start_real_ns = sg->start_ns + (uint64_t)prev;
	}
	s->hdr.start_time = sg->start_ns;
	s->hdr.start_realtime_ns = sg->start_real_ns;
	trace_seg_name(sg->open_name, sizeof(sg->open_name), sg->start_real_ns, true);
	trace_seg_name(sg->final_name, sizeof(sg->final_name), sg->start_real_ns, false);
	sg->samples0 = s->stats.samples;
	sg->lost0 = s->stats.lost;
	sg->last_sync = sg->start_ns;
	sg->fd = openat(dir_fd, sg->open_name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ret = sg->fd < 0 ? -errno : trace_writer_fdopen(&sg->w, sg->fd, &s->hdr, wo);
	if (ret) {
		pm_err("cannot create %s/%s: %s", dir, sg->open_name, strerror(-ret));
		if (sg->fd >= 0)	/* fdopen() closed it */
			unlinkat(dir_fd, sg->open_name, 0);
		sg->fd = -1;
		sg->w = NULL;
		return ret;
	}
	trace_writer_set_tap(sg->w, tap);
	if (b->synthesize) {
		ret = b->synthesize(s, sg->w);
		if (ret)
			segment_failed(sg, dir, ret);
	}
	return 0;
}

static int sync_segment(struct segment *sg)
{
	int ret = trace_writer_flush(sg->w);

	if (!ret && fdatasync(sg->fd))
		ret = -errno;
	return ret;
}

void segment_after_drain(struct segment *sg, const char *dir, int n)
{
	uint64_t now;

	if (sg->failed)
		return;
	if (n < 0) {
		segment_failed(sg, dir, n);
		return;
	}
	now = pm_now_ns();
	if (now - sg->last_sync >= SEGMENT_SYNC_NS) {
		sg->last_sync = now;
		n = sync_segment(sg);
		if (n)
			segment_failed(sg, dir, n);
	}
}

int segment_close(struct segment *sg, const char *dir, const struct record_session *s,
		  uint32_t finish_flags)
{
	struct trace_finish fin;
	int ret = 0;

	if (!sg->w)
		return 0;
	memset(&fin, 0, sizeof(fin));
	fin.time = pm_now_ns();
	fin.samples = s->stats.samples - sg->samples0;
	fin.lost = s->stats.lost - sg->lost0;
	fin.flags = finish_flags;
	if (!sg->failed) {
		ret = trace_write_finish(sg->w, &fin);
		if (!ret)
			ret = sync_segment(sg);
		if (ret)
			segment_failed(sg, dir, ret);
	}
	if (sg->failed) {
		/* what did not reach the file is counted in a last small chunk, if it fits */
		if (!trace_writer_end_failed(sg->w, &fin))
			sync_segment(sg);
	}
	/* closes fd; FINISH was synced above, a write error already reported */
	trace_writer_close(sg->w);
	sg->w = NULL;
	sg->fd = -1;
	/* a failed segment is still a readable trace: it moves into place too */
	if (renameat(sg->dir_fd, sg->open_name, sg->dir_fd, sg->final_name)) {
		int e = -errno;

		pm_err("cannot rename %s/%s to %s: %s", dir, sg->open_name, sg->final_name,
		       strerror(-e));
		return e;
	}
	fsync(sg->dir_fd);
	return sg->failed ? sg->err : ret;
}

int segment_recover_orphans(int dir_fd, const char *dir)
{
	struct trace_seg *v;
	size_t nr, i;
	int n = 0, err = trace_dir_list(dir, &v, &nr);

	if (err)
		return err;
	for (i = 0; i < nr && !err; i++) {
		char to[TRACE_SEG_NAME_MAX + 16];
		size_t l = strlen(v[i].name) - strlen(TRACE_SEG_OPEN_SUFFIX);

		if (!v[i].open)
			continue;
		snprintf(to, sizeof(to), "%.*s%s", (int)l, v[i].name, TRACE_SEG_UNFINISHED_SUFFIX);
		if (renameat(dir_fd, v[i].name, dir_fd, to)) {
			err = -errno;
			pm_err("cannot close %s/%s as unfinished: %s", dir, v[i].name, strerror(-err));
			break;
		}
		pm_warn("%s/%s: left open by a daemon that was killed (kill -9, power loss): "
			"closed as %s (no FINISH; read as far as it is complete)", dir, v[i].name, to);
		n++;
	}
	free(v);
	if (!err && n && fsync(dir_fd))
		err = -errno;
	return err ? err : n;
}
