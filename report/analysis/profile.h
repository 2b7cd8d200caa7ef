/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flat profile aggregation: one row per group (symbol, DSO, pid, tid, comm
 * or code region) with its sample count and the sum of every event's window counts.
 * The attribution rule: a window's counts go to the group of the sample
 * that closes the window.  Rows live in arrays indexed by dense ids, so the
 * per-sample work is a few adds; nothing is allocated per sample.
 */
#ifndef PMIPROF_REPORT_PROFILE_H
#define PMIPROF_REPORT_PROFILE_H

#include <stdint.h>

#include <pmiprof/trace.h>

#include "hashmap.h"
#include "analysis/metrics.h"
#include "input/session.h"

enum group_by { BY_SYMBOL, BY_DSO, BY_PID, BY_TID, BY_COMM, BY_REGION };

struct prof_row {
	uint64_t samples;
	uint64_t counts[PMIPROF_MAX_EVENTS];
	uint32_t key;		/* sym id, dso id, pid, tid, comm id, region id + 1 */
	uint32_t pid;		/* for pid/tid rows: a comm to show */
	uint32_t comm;
};

struct profile {
	enum group_by by;
	uint32_t nr_events;
	struct session *s;
	struct prof_row *rows;	/* dense ids: rows[key]; pid/tid: via key2row */
	uint32_t nr_rows, cap_rows;
	struct hashmap key2row;
	uint64_t samples;
	/*
	 * Per-window metric values for histograms (only when wanted), of the
	 * kept windows that window_in_stats() admits; the others are counted.
	 */
	const struct metric *hist_metrics;
	uint32_t nr_hist;
	float *win_values;	/* nr_hist per window */
	uint32_t *win_rows;	/* row of each window */
	uint64_t nr_win, cap_win;
	uint64_t win_left_out;	/* kept windows not recorded here */
};

int profile_init(struct profile *p, struct session *s, enum group_by by,
		 const struct metric *hist_metrics, uint32_t nr_hist);
void profile_free(struct profile *p);
/* session_sample_fn that aggregates into the profile (arg = profile). */
int profile_add_sample(void *arg, const struct trace_sample *smp, uint64_t index,
		       uint32_t sym, uint32_t comm);

/* n samples of the same row at once, counts summed over them (parallel.c). */
int profile_add_aggregate(struct profile *p, const struct trace_sample *sum, uint64_t n,
			  uint32_t sym, uint32_t comm);

/* Sort keys: samples, a derived metric, an event, or name. */
struct sort_key {
	enum { SORT_SAMPLES, SORT_EVENT, SORT_METRIC, SORT_NAME } kind;
	int event;
	struct metric metric;
};

/* Rows with samples, ordered by key (descending; names ascending). */
uint32_t *profile_sorted(const struct profile *p, const struct sort_key *k, uint32_t *n);
/* Name of a row for its grouping ("main", "libc.so.6", "1234"...). */
const char *profile_row_name(const struct profile *p, const struct prof_row *r,
			     char *buf, size_t size);
/* Wilson score 95% interval for k of n, in percent. */
void wilson95(uint64_t k, uint64_t n, double *lo, double *hi);

#endif /* PMIPROF_REPORT_PROFILE_H */
