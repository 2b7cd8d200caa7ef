/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The daemon's retention: the oldest closed segments are deleted when they
 * ended longer ago than the age limit, or while all segments together take
 * more than the size limit.  The open segment is never deleted.
 */
#ifndef PMIPROF_DAEMON_RETENTION_H
#define PMIPROF_DAEMON_RETENTION_H

#include <stddef.h>
#include <stdint.h>

struct retention {
	uint64_t max_age_ns;		/* 0 = no age limit */
	uint64_t max_bytes;		/* 0 = no size limit */
};

/*
 * "--retain" values, one or both comma-separated: an age (a number of
 * seconds, or with s/m/h/d) or a size (with B/K/M/G/T: KiB, MiB ...),
 * e.g. "1d", "3600", "500M", "2h,1G".  0 or -EINVAL (message in err).
 */
int retention_parse(const char *arg, struct retention *r, char *err, size_t err_len);

struct retention_result {
	uint64_t deleted;		/* segments deleted */
	uint64_t deleted_bytes;
	uint64_t kept;			/* segments left (the open one included) */
	uint64_t kept_bytes;
};

/* Apply r to the segments of dir at wall-clock now_ns.  0 or -errno. */
int retention_apply(const char *dir, const struct retention *r, uint64_t now_ns,
		    struct retention_result *res);

#endif /* PMIPROF_DAEMON_RETENTION_H */
