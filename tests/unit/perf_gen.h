/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small perf.data writer for the perf.data reader's tests and the fuzzer's
 * seeds: file mode (header, attrs with id sections, data, feature sections)
 * and pipe mode (HEADER_ATTR, HEADER_FEATURE, records), laid out as
 * tools/perf/Documentation/perf.data-file-format.txt describes, with record
 * helpers for the side-band records.  Samples are composed by the caller,
 * field by field, so that each test states the layout it checks.
 */
#ifndef PMIPROF_TESTS_PERF_GEN_H
#define PMIPROF_TESTS_PERF_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct pgen {
	uint8_t *b;
	size_t len, cap;
};

void pg_free(struct pgen *g);
void pg_put(struct pgen *g, const void *p, size_t n);
void pg_u64(struct pgen *g, uint64_t v);
void pg_u32(struct pgen *g, uint32_t v);
void pg_pad8(struct pgen *g);
/* A record: pg_begin() writes its header, pg_end() pads it to 8 bytes and sets its size. */
size_t pg_begin(struct pgen *g, uint32_t type, uint16_t misc);
void pg_end(struct pgen *g, size_t start);

/* The sample_id trailer of the other records, as sample_type lays it out. */
struct pg_sid {
	uint32_t pid, tid;
	uint64_t time, id, stream_id;
	uint32_t cpu;
};
void pg_sid(struct pgen *g, uint64_t sample_type, const struct pg_sid *s);

void pg_comm(struct pgen *g, uint64_t st, uint32_t pid, uint32_t tid, const char *comm, int exec,
	     const struct pg_sid *s);
void pg_mmap(struct pgen *g, uint64_t st, uint32_t pid, uint64_t start, uint64_t len,
	     uint64_t pgoff, const char *path, const struct pg_sid *s);
/* MMAP2 in the build-id form (bid_len > 0) or the inode form. */
void pg_mmap2(struct pgen *g, uint64_t st, uint32_t pid, uint64_t start, uint64_t len,
	      uint64_t pgoff, uint32_t prot, const uint8_t *bid, uint8_t bid_len, const char *path,
	      const struct pg_sid *s);
void pg_task(struct pgen *g, uint64_t st, uint32_t type, uint32_t pid, uint32_t ppid,
	     uint32_t tid, uint32_t ptid, uint64_t time, const struct pg_sid *s);
void pg_lost(struct pgen *g, uint64_t st, uint64_t id, uint64_t lost, const struct pg_sid *s);
void pg_lost_samples(struct pgen *g, uint64_t st, uint64_t lost, const struct pg_sid *s);
void pg_throttle(struct pgen *g, uint64_t st, int unthrottle, uint64_t time, uint64_t id,
		 const struct pg_sid *s);
void pg_round(struct pgen *g);
/* A build_id_event (BUILD_ID feature, or HEADER_BUILD_ID in a pipe). */
void pg_build_id(struct pgen *g, uint32_t type, uint16_t cpumode, int32_t pid,
		 const uint8_t *bid, uint8_t bid_len, const char *path);

struct pg_attr {
	struct perf_event_attr attr;
	const uint64_t *ids;
	uint32_t nr_ids;
	const char *name;		/* EVENT_DESC name */
};

struct pg_feat {
	const char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
	const char *const *argv;
	uint32_t argc;
	uint32_t nr_cpus;
	const uint8_t *build_ids;	/* build_id_event records (pg_build_id), or NULL */
	size_t build_ids_len;
};

/* A whole file-mode perf.data around data[0 .. dlen). */
void pgen_file(struct pgen *out, const struct pg_attr *attrs, uint32_t nr_attrs,
	       const uint8_t *data, size_t dlen, const struct pg_feat *f);
/* The same with attrs of attr_size bytes (older perfs: 64 = PERF_ATTR_SIZE_VER0, 72, ...). */
void pgen_file_attr_size(struct pgen *out, const struct pg_attr *attrs, uint32_t nr_attrs,
			 const uint8_t *data, size_t dlen, const struct pg_feat *f,
			 uint32_t attr_size);
/* The same content as a pipe: header, attrs and features as records, data, build-ids. */
void pgen_pipe(struct pgen *out, const struct pg_attr *attrs, uint32_t nr_attrs,
	       const uint8_t *data, size_t dlen, const struct pg_feat *f);

#endif /* PMIPROF_TESTS_PERF_GEN_H */
