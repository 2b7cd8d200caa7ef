/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmiprof stat --regions: the side of the region shared memory that lives
 * in pmiprof (lib/region/region_shm.h, docs/regions.md).  Creates the memfd
 * the workload's libpmiprof-region maps, drains the per-thread rings while
 * the workload runs and once more after it exits, then prints per region
 * the per-call distributions with the empty-region cost subtracted, the
 * regions left open, and the anomalies.
 */
#ifndef PMIPROF_DAEMON_STAT_REGIONS_H
#define PMIPROF_DAEMON_STAT_REGIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "events.h"

struct stat_regions;

/*
 * read_mode: enum pmr_read_mode.  0 or -errno.  Regions accumulate over
 * every run (stat -r): call stat_regions_start before each.
 */
int stat_regions_new(struct stat_regions **out, const struct pm_event_list *list,
		     unsigned int read_mode);
/*
 * A fresh shared memory for the next run, its descriptor exported in
 * PMIPROF_REGIONS_FD (inherited across fork and exec).  0 or -errno.
 */
int stat_regions_start(struct stat_regions *sr);
/* Consume what the workload's threads have written so far. */
void stat_regions_drain(struct stat_regions *sr);
/*
 * The run is over (workload exited or was killed): last drain, regions
 * left open, anomalies; the shared memory is released.
 */
void stat_regions_stop(struct stat_regions *sr);
void stat_regions_print(struct stat_regions *sr, FILE *f, const char *cmd, bool csv);
void stat_regions_free(struct stat_regions *sr);

#endif /* PMIPROF_DAEMON_STAT_REGIONS_H */
