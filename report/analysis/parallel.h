/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parallel flat profile.  Chunks decode independently (their delta state
 * is per chunk), so the file is cut at chunk boundaries into one range per
 * CPU; each worker decodes its range through the trace reader (over a
 * memory image: header + its chunks) and aggregates samples by (pid, tid,
 * ip, side-band position) - a few thousand keys, not millions of samples -
 * and keeps its side-band records in order.  The main thread then replays
 * the side-band records range by range and resolves each key with the
 * address spaces and thread names exactly as they were at that point of
 * the trace, so the result is identical to the sequential pass.  Loading
 * /proc/kallsyms overlaps with the decoding.
 *
 * Used for flat profiles whose filters do not need a sample's index in the
 * file (no --window) and for undamaged files; anything else takes the
 * sequential path in session.c.
 */
#ifndef PMIPROF_REPORT_PARALLEL_H
#define PMIPROF_REPORT_PARALLEL_H

#include <stdbool.h>

#include "analysis/profile.h"
#include "input/session.h"

/*
 * Whether report may use more than one thread: more than one CPU online and
 * PMIPROF_JOBS unset or > 1 (PMIPROF_JOBS=1 forces the one-thread paths).
 */
bool report_threads_allowed(void);
/* Whether the profile of s can be computed in parallel (opts permitting). */
bool parallel_eligible(const struct session *s, const struct profile *p);
/*
 * Fills p (and s's statistics) from s's trace.  Returns 0, -errno, or
 * -EAGAIN when the file turned out unsuitable (then nothing was changed
 * and the caller runs the sequential pass).
 */
int parallel_profile(struct session *s, struct profile *p);

#endif /* PMIPROF_REPORT_PARALLEL_H */
