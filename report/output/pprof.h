/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A gzip'd pprof profile (github.com/google/pprof proto/profile.proto)
 * written by a small protobuf encoder: no protobuf library, the format is
 * varints and length-delimited fields.  Samples stream into the gzip file
 * as they are added (a top-level message has no length prefix, so its
 * repeated fields may come in any order); the tables they refer to
 * (mappings, locations, functions, strings) are kept in memory and written
 * by pprof_close(); strings, functions and mappings are deduplicated here.  Ids are the proto's: 1-based, 0 = none.
 */
#ifndef PMIPROF_REPORT_PPROF_H
#define PMIPROF_REPORT_PPROF_H

#include <stdbool.h>
#include <stdint.h>

struct pprof;

/* One Line of a Location: innermost (inlined) first, the caller last. */
struct pprof_line {
	uint64_t function;		/* pprof_function() id */
	int64_t line;			/* source line, 0 = unknown */
};

/* Creates path (gzip level 6).  0 or -errno. */
int pprof_open(struct pprof **out, const char *path);
/*
 * Finishes the profile (commit) and closes the file: 0 or -errno (a write
 * error of any earlier call included).  Without commit, or on an error, the
 * file is removed.  Frees p.
 */
int pprof_close(struct pprof *p, bool commit);

/* The string table index of s ("" is 0), or -ENOMEM. */
int64_t pprof_string(struct pprof *p, const char *s);
/* Sample values, in order: each pprof_sample() gives one value per type. */
int pprof_sample_type(struct pprof *p, const char *type, const char *unit);
int pprof_period_type(struct pprof *p, const char *type, const char *unit, int64_t period);
/* The type go tool pprof shows by default (a sample_type index). */
void pprof_default_type(struct pprof *p, uint32_t index);
void pprof_times(struct pprof *p, int64_t time_nanos, int64_t duration_nanos);
int pprof_comment(struct pprof *p, const char *s);

/* A mapping's place in memory: [start, limit) holds file offset offset at start. */
struct pprof_range {
	uint64_t start, limit, offset;
};

/*
 * The mapping of the object (key, tag) (the caller's ids for it: a DSO and
 * where it is mapped), created on first use with its file name, build-id
 * (hex, may be NULL) and range: the recorded mmap, so that tools can map
 * an address back to its file offset.  With range NULL (no mmap recorded:
 * the kernel) it grows to cover every location added in it, offset 0.
 */
int64_t pprof_mapping(struct pprof *p, uint64_t key, uint32_t tag, const char *file,
		      const char *build_id, const struct pprof_range *range);
/* The mapping id of location id (0: none or no such location). */
uint64_t pprof_location_mapping(const struct pprof *p, uint64_t location);
/* The mapping pprof shows as the profile's binary ("File:"): it is written first. */
void pprof_main_mapping(struct pprof *p, uint64_t mapping);
/*
 * A function, deduplicated by (name, file, tag): tag is the caller's say in
 * what else tells two functions apart (a DSO id: python's _start is not
 * ld.so's); system_name must follow from the three.
 */
int64_t pprof_function(struct pprof *p, const char *name, const char *system_name,
		       const char *file, uint32_t tag);
/* Functions so far: ids 1..n. */
uint32_t pprof_nr_functions(const struct pprof *p);
/* Function id's name, changed before the tables are written: 0 or -errno. */
int pprof_function_rename(struct pprof *p, int64_t id, const char *name);
/*
 * A new location: addr in mapping (0 = none) with its lines.  Callers
 * deduplicate (they know which addresses name the same frame: a return
 * address and a sampled ip equal in value may belong to two functions).
 * Returns its id or -errno.
 */
int64_t pprof_location(struct pprof *p, uint64_t mapping, uint64_t addr,
		       const struct pprof_line *lines, uint32_t nr_lines);
/* A sample's label: a string when str is set, else the number num in unit. */
struct pprof_label {
	const char *key;
	const char *str;
	int64_t num;
	const char *unit;	/* may be NULL; pprof drops a 0 without a unit */
};

/* One sample: locations leaf first, one value per sample type, its labels. */
int pprof_sample(struct pprof *p, const uint64_t *locs, uint32_t nr_locs,
		 const int64_t *values, const struct pprof_label *labels, uint32_t nr_labels);

/* Sizes so far, for tests and statistics. */
uint64_t pprof_nr_samples(const struct pprof *p);
uint32_t pprof_nr_locations(const struct pprof *p);

#endif /* PMIPROF_REPORT_PPROF_H */
