/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf's own perf.data (file or pipe mode, zstd-compressed or not) read as
 * a pmiprof trace: lib/trace_reader.c hands a buffer that starts with
 * "PERFILE2" here, and every trace_reader_next() then returns the records
 * this reader maps perf's into (docs/perf-data.md).
 */
#ifndef PMIPROF_PERF_DATA_H
#define PMIPROF_PERF_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmiprof/trace.h"

struct perf_data;

/* Whether buf starts like a perf.data of either byte order ("PERFILE2", "2ELIFREP"). */
bool perf_data_magic(const uint8_t *buf, size_t len);

/*
 * Parse the header of the perf.data in buf[0 .. size) (which must outlive
 * the reader) and fill *h with the pmiprof header describing it; stats are
 * kept in *st.  On failure returns -errno after one message to diag:
 * -EPROTONOSUPPORT (big-endian, AUX area data), -EBADMSG (damaged, with
 * the offset), -E2BIG (more events than a pmiprof header holds).
 */
int perf_data_open(struct perf_data **pp, const uint8_t *buf, size_t size, const char *name,
		   struct trace_header *h, struct trace_read_stats *st, trace_diag_fn diag,
		   void *diag_arg);
/* As trace_reader_next(): 1 = rec filled, 0 = end, <0 = -errno. */
int perf_data_next(struct perf_data *p, struct trace_record *rec);
void perf_data_close(struct perf_data *p);

#endif /* PMIPROF_PERF_DATA_H */
