/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pprof profile.proto reader: a gzip'd (or plain) Profile message, as a
 * `pmiprof daemon`'s /debug/pprof/profile answers it (output/pprof.c
 * writes it), into tables whose every cross-reference (string index,
 * location, function and mapping id) is checked once here, so readers
 * of the tables index them without checks.  Input from the network: no
 * length, count or id is trusted (tests/fuzz/fuzz_pprof_reader.c).
 */
#ifndef PMIPROF_REPORT_PPROF_READER_H
#define PMIPROF_REPORT_PPROF_READER_H

#include <stddef.h>
#include <stdint.h>

#include <pmiprof/trace.h>

/* Indices below are into the tables of struct pprof_profile; NONE: absent. */
#define PPROF_NONE UINT32_MAX

struct pprof_rd_label {
	uint32_t key, str;	/* strings; str 0 ("") for a numeric label */
	int64_t num;
};

struct pprof_rd_sample {
	uint32_t loc0, nr_locs;		/* in locs_of: location indices, leaf first */
	uint32_t val0;			/* in values: nr_types of them */
	uint32_t label0, nr_labels;	/* in labels */
};

struct pprof_rd_line {
	uint32_t function;		/* index into functions */
	int64_t line;
};

struct pprof_rd_location {
	uint32_t mapping;		/* index into mappings, or PPROF_NONE */
	uint64_t address;
	uint32_t line0, nr_lines;	/* in lines: innermost inlined first, the
					 * function they were inlined into last */
};

struct pprof_rd_function {
	uint32_t name, system_name, filename;	/* strings */
};

struct pprof_rd_mapping {
	uint32_t filename, build_id;	/* strings */
};

struct pprof_profile {
	char **strings;			/* string_table; [0] is "" */
	uint32_t nr_strings;
	uint32_t types[PMIPROF_MAX_EVENTS + 1][2];	/* sample_type: (type, unit) strings */
	uint32_t nr_types;
	uint32_t period_type[2];	/* (type, unit); 0, 0 when absent */
	int64_t period, time_nanos, duration_nanos;
	uint32_t *comments;		/* strings */
	uint32_t nr_comments;
	struct pprof_rd_sample *samples;
	uint32_t nr_samples;
	struct pprof_rd_location *locations;
	uint32_t nr_locations;
	struct pprof_rd_line *lines;
	uint32_t nr_lines;
	struct pprof_rd_function *functions;
	uint32_t nr_functions;
	struct pprof_rd_mapping *mappings;
	uint32_t nr_mappings;
	uint32_t *locs_of;		/* samples' location indices */
	int64_t *values;		/* samples' values */
	struct pprof_rd_label *labels;	/* samples' labels */
	uint32_t nr_values, nr_labels;
};

/*
 * Read the profile in data[0..len) (gzip'd or not; at most max_bytes once
 * inflated, 0: 1 GiB) into p.  0, or -errno: -EBADMSG not a profile (bad
 * wire format, an index or id that names nothing, a sample whose values
 * do not match its sample types), -E2BIG more sample types than an event
 * list holds or an answer above max_bytes, -ENOMEM.  p is freed with
 * pprof_profile_free() whatever this returns.
 */
int pprof_profile_read(struct pprof_profile *p, const void *data, size_t len, size_t max_bytes);
void pprof_profile_free(struct pprof_profile *p);

static inline const char *pprof_str(const struct pprof_profile *p, uint32_t s)
{
	return p->strings[s];
}
/*
 * A trace header for a pmiprof profile (output/pprof.c's: sample types
 * "samples" then one per event, the trigger as period type, a "pmiprof "
 * comment): its events, trigger and period, as a session of its samples
 * needs them, and call_graph FP when its samples have stacks (locations
 * beyond the leaf).  0, or -ENOMSG when the profile is not pmiprof's.
 */
int pprof_profile_header(const struct pprof_profile *p, struct trace_header *h);
/* The string value of sample i's label key (NULL: no such label). */
const char *pprof_sample_label(const struct pprof_profile *p, uint32_t i, const char *key);
/* Sample type index named name, or -1. */
int pprof_type_index(const struct pprof_profile *p, const char *name);

#endif /* PMIPROF_REPORT_PPROF_READER_H */
