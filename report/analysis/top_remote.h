/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmiprof top --from URL: the samples of a running daemon's profile
 * (/debug/pprof/profile, read by input/pprof_reader.c) into top's live
 * window, as the tap of a local recording puts them there, so every view
 * of top_view.c is built from them the same way.  A sample's function is
 * its leaf location's physical one (the last of its inline lines, as the
 * flat profile attributes), its DSO the location's mapping, its command,
 * process and thread the comm/pid/tid labels the daemon writes, its source
 * line its leaf location's innermost line (a function's line rows), its
 * call stack its locations' functions (its callers where it has no lines).
 */
#ifndef PMIPROF_REPORT_TOP_REMOTE_H
#define PMIPROF_REPORT_TOP_REMOTE_H

#include <stdint.h>

#include "analysis/top_live.h"
#include "input/pprof_reader.h"

/* t opened with pprof_profile_header()'s header: marks it fed from profiles. */
void top_remote_open(struct top_live *t);
/*
 * Every sample of p into t's open interval, which spans from start_ns (the
 * profile's request) to its rotation; dropped: the samples of that range
 * the daemon's profile lacks (its X-Pmiprof-Samples-Dropped), counted as
 * lost.  0, -EBADMSG when p's events are not those t was opened with (the
 * daemon's configuration changed), -ENOMEM.
 */
int top_remote_add(struct top_live *t, const struct pprof_profile *p, uint64_t start_ns,
		   uint64_t dropped);

#endif /* PMIPROF_REPORT_TOP_REMOTE_H */
