/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a perf.data says about itself, gathered from wherever the mode puts
 * it (file mode: the attr section and feature sections; pipe mode:
 * HEADER_ATTR, HEADER_FEATURE, EVENT_UPDATE, HEADER_BUILD_ID records), and
 * the pmiprof trace header synthesized from it.  Used by perf_data.c only.
 */
#ifndef PMIPROF_PERF_DATA_HEADER_H
#define PMIPROF_PERF_DATA_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "hashmap.h"
#include "perf_sample.h"
#include "pmiprof/trace.h"

#define PERF_META_MAX_ATTRS 256		/* attrs in one file (perf opens far fewer) */

struct perf_attr_info {
	struct perf_event_attr attr;	/* zero-extended from the file's attr size */
	struct perf_sample_layout layout;
	int event;			/* index in the trace header's events; -1: none (dummy) */
	char name[128];			/* from EVENT_DESC / EVENT_UPDATE, else "" */
};

struct perf_build_id {
	char *path;
	uint8_t id[20];
	uint8_t len;
	bool kernel;			/* cpumode kernel: [kernel.kallsyms] or a module */
};

struct perf_meta {
	struct perf_attr_info *attrs;
	uint32_t nr_attrs;
	struct hashmap ids;		/* event id -> attr index */
	struct perf_build_id *bids;
	uint32_t nr_bids, cap_bids;
	char hostname[256], osrelease[128], version[64], arch[32], cpudesc[128], cpuid[128];
	char cmdline[4096];
	uint32_t cmdline_argc;
	uint32_t nr_cpus_online, nr_cpus_avail;
	bool auxtrace;			/* AUXTRACE feature or AUXTRACE_INFO record */
};

int perf_meta_init(struct perf_meta *m);
void perf_meta_free(struct perf_meta *m);

/*
 * An attr of attr_len bytes (any size perf ever wrote: shorter ones are
 * zero-extended) with nr_ids u64 ids at ids (unaligned).  0, -E2BIG (too
 * many attrs) or -ENOMEM; *why says which.
 */
int perf_meta_add_attr(struct perf_meta *m, const uint8_t *attr, size_t attr_len,
		       const uint8_t *ids, uint64_t nr_ids, const char **why);
/* One more id of attr idx (ID_INDEX). 0 or -errno. */
int perf_meta_add_id(struct perf_meta *m, uint64_t id, uint32_t idx);
/* The attr of event id, or NULL. */
const struct perf_attr_info *perf_meta_attr_of(const struct perf_meta *m, uint64_t id);

/*
 * A feature section's bytes (file mode) or a HEADER_FEATURE record's payload
 * (pipe mode).  NULL, or why it is damaged; unknown features are ignored.
 * -ENOMEM comes back as "out of memory".
 */
const char *perf_meta_feature(struct perf_meta *m, uint32_t feat, const uint8_t *p, size_t len);
/* A build_id_event record (header included) of len bytes.  NULL or why. */
const char *perf_meta_build_id(struct perf_meta *m, const uint8_t *rec, size_t len);
/* An EVENT_UPDATE record's body (after the 8-byte header): names only. */
void perf_meta_event_update(struct perf_meta *m, const uint8_t *p, size_t len);
/* The build-id recorded for path, or NULL. */
const struct perf_build_id *perf_meta_find_build_id(const struct perf_meta *m, const char *path);

/*
 * The pmiprof header describing the file: one event per attr that is not a
 * dummy (at most PMIPROF_MAX_EVENTS, else -E2BIG with *why), the first
 * sampling one the trigger.  Sets each attr's event index.  0 or -errno.
 */
int perf_meta_header(struct perf_meta *m, bool pipe, struct trace_header *h, const char **why);

#endif /* PMIPROF_PERF_DATA_HEADER_H */
