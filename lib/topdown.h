/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Top-down level 1 (frontend bound, bad speculation, retiring, backend
 * bound, and on AMD SMT contention) from one group of counters.
 *
 * One table (topdown.c) maps the PMU libpfm4 detects to the events of that
 * CPU's level-1 formula and to the formula; each row cites its source.  The
 * recorder expands "-e topdown" from it (pm_events_parse), the report finds
 * the same events again by name in a trace header and combines the per-window
 * (or per-function) counts with the row's formula.
 */
#ifndef PMIPROF_TOPDOWN_H
#define PMIPROF_TOPDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"

enum td_part {
	TD_FRONTEND,
	TD_BAD_SPEC,
	TD_RETIRING,
	TD_BACKEND,
	TD_SMT,			/* AMD only: slots given to the other SMT thread */
	TD_NR_PARTS,
};

enum td_formula {
	/*
	 * Intel before Ice Lake, from general counters; ev[] order:
	 * cycles, not delivered, issued, retire slots, recovery cycles.
	 */
	TD_INTEL_UOPS,
	/* Intel Ice Lake and later: slots + the four PERF_METRICS fields. */
	TD_INTEL_PERF_METRICS,
	/*
	 * AMD Zen 4 and later; ev[] order: cycles, no ops from frontend,
	 * backend stalls, SMT contention, retired ops, dispatched ops.
	 */
	TD_AMD_ZEN4,
};

#define TD_MAX_EVENTS	6

struct td_event {
	const char *pfm;	/* libpfm4 name (encoding), or NULL: raw config */
	const char *perf;	/* perf's name of the same event (recognised too) */
	uint64_t raw;		/* PERF_TYPE_RAW config when pfm is NULL */
};

struct td_model {
	const char *pmu;	/* libpfm4 PMU name */
	const char *cpu;	/* what to call it in messages */
	const char *refuse;	/* non-NULL: no level-1 formula here, and why */
	enum td_formula formula;
	unsigned int width;	/* slots per cycle */
	unsigned int nr;
	struct td_event ev[TD_MAX_EVENTS];
	const char *source;
};

/* The row of libpfm4 PMU pmu, or NULL. */
const struct td_model *td_model_of_pmu(const char *pmu);
/* Row i of the table (NULL past the end): for tests and docs. */
const struct td_model *td_model_at(size_t i);
/* Names of the parts, as the report shows them ("frontend", ...). */
const char *td_part_name(enum td_part p);
/* Whether formula f has part p (only AMD has TD_SMT). */
bool td_formula_has(enum td_formula f, enum td_part p);

/*
 * The events of this machine's level-1 formula (the first PMU libpfm4
 * detects that has a row), encoded, appended to out->ev[] from out->nr on.
 * 0, or -ENOENT (no row / refused row) / -E2BIG / -EINVAL with a complete
 * message in err.  The first event is the cycles (or slots) event.
 */
int td_expand(struct pm_event_list *out, char *err, size_t err_len);

/*
 * Find a model's events among names[0..nr): idx[k] = index of ev[k].
 * Returns the model, or NULL when no row has all its events there.
 */
const struct td_model *td_match(const char *const *names, unsigned int nr,
				int idx[TD_MAX_EVENTS]);

/*
 * Fractions (0..1, unclamped: counter skew can push one slightly out) of
 * model m from its event counts c[k] (ev[] order).  false when the slot
 * total is zero.  Parts a formula lacks are 0.
 */
bool td_fractions(const struct td_model *m, const uint64_t c[TD_MAX_EVENTS],
		  double out[TD_NR_PARTS]);

/*
 * Whether the kernel exposes a hardware core PMU under sysfs_devices
 * (normally /sys/bus/event_source/devices): "cpu", or "cpu_core" on hybrids.
 */
bool td_hw_pmu_present(const char *sysfs_devices);

/*
 * For record and stat: -ENODEV with the message in err when l holds topdown
 * events but the kernel exposes no core PMU under sysfs_devices (NULL: the
 * real /sys/bus/event_source/devices), naming the events; else 0.
 */
int td_check_pmu(const struct pm_event_list *l, const char *sysfs_devices, char *err,
		 size_t err_len);

#endif /* PMIPROF_TOPDOWN_H */
