// SPDX-License-Identifier: GPL-2.0
/*
 * pmiprof stat --regions (see stat_regions.h).  Regions are merged by name
 * across threads, processes and runs (ids are per shared memory); the
 * records of the reserved name 0 are the empty regions each thread times
 * at its start, and their median per event is subtracted from every call.
 * Threads timing with the TSC write ticks; they are converted here with
 * the slope between an anchor taken at start and one taken at each drain.
 */
#include "stat_regions.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "region/region_clock.h"
#include "region/region_shm.h"
#include "stat_format.h"
#include "util.h"

#define SR_EMPTY_NAME	"pmiprof:empty-region"
#define SR_MAX_TIDS	64	/* per region, for the per-thread call counts shown */

/* One value column of a region: an event, the wall time, or IPC. */
struct sr_col {
	struct dist d;
};

struct sr_region {
	char name[PMR_NAME_LEN];
	uint64_t calls;
	uint64_t counted;		/* calls with counter values (not clock-only) */
	uint64_t left_open;
	unsigned int min_depth;
	struct dist ev[PMR_MAX_EVENTS];
	struct dist wall;
	struct dist ipc;
	unsigned int nr_tids;
	struct {
		int32_t tid;
		uint64_t calls;
	} tids[SR_MAX_TIDS];
	bool more_tids;
};

struct stat_regions {
	unsigned int read_mode, sample_shift;
	struct pmr_anchor anc0;		/* this run's start */
	uint64_t mult;			/* 32.32 ns per tick, at the last drain */
	unsigned int clocks;		/* bit per pmr_clock seen */
	unsigned int nr_ev;
	struct pmr_event ev[PMR_MAX_EVENTS];
	int ipc_ins, ipc_cyc;		/* event indexes for IPC, or -1 */
	int fd;
	struct pmr_shm *shm;
	int32_t id_map[PMR_MAX_NAMES];	/* this run's name id -> regions[] (or -1) */
	struct sr_region *regions;
	unsigned int nr_regions, cap_regions;
	struct dist empty[PMR_MAX_EVENTS], empty_wall;
	/* over all runs */
	unsigned int runs, threads;
	uint64_t anom[PMR_AN_NR], lost, threads_overflow, names_overflow;
	unsigned int paths[PMR_MAX_EVENTS];	/* bit per pmr_path seen */
	int32_t err[PMR_MAX_EVENTS];
	char open_lines[2048];		/* "tid N: a > b" of regions open at exit */
	size_t open_len;
};

int stat_regions_new(struct stat_regions **out, const struct pm_event_list *list,
		     unsigned int read_mode)
{
	struct stat_regions *sr = calloc(1, sizeof(*sr));
	unsigned int i;

	if (!sr)
		return -ENOMEM;
	sr->fd = -1;
	sr->read_mode = read_mode & 0xff;
	sr->sample_shift = read_mode >> 8;
	sr->ipc_ins = sr->ipc_cyc = -1;
	sr->nr_ev = list->nr < PMR_MAX_EVENTS ? list->nr : PMR_MAX_EVENTS;
	for (i = 0; i < sr->nr_ev; i++) {
		const struct pm_event *e = &list->ev[i];
		struct pmr_event *p = &sr->ev[i];

		p->type = e->type;
		p->config = e->config;
		p->config1 = e->config1;
		p->config2 = e->config2;
		p->flags = (e->exclude_user ? PMR_EV_EXCLUDE_USER : 0) |
			   (e->exclude_kernel ? PMR_EV_EXCLUDE_KERNEL : 0) |
			   (e->exclude_hv ? PMR_EV_EXCLUDE_HV : 0) |
			   (e->time_based ? PMR_EV_TIME_BASED : 0);
		pm_strlcpy(p->name, e->name, sizeof(p->name));
		if (e->type == 0 /* PERF_TYPE_HARDWARE */ && e->config == 1)
			sr->ipc_ins = (int)i;
		if (e->type == 0 && e->config == 0)
			sr->ipc_cyc = (int)i;
	}
	*out = sr;
	return 0;
}

int stat_regions_start(struct stat_regions *sr)
{
	char num[16];
	unsigned int i;

	/* not close-on-exec: the workload inherits it */
	sr->fd = memfd_create("pmiprof-regions", 0);
	if (sr->fd < 0)
		return -errno;
	if (ftruncate(sr->fd, (off_t)PMR_SHM_SIZE))
		goto fail;
	sr->shm = mmap(NULL, PMR_SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, sr->fd, 0);
	if (sr->shm == MAP_FAILED) {
		sr->shm = NULL;
		goto fail;
	}
	sr->shm->size = PMR_SHM_SIZE;
	sr->shm->version = PMR_VERSION;
	sr->shm->mode = PMR_MODE_STAT;
	sr->shm->read_mode = sr->read_mode;
	sr->shm->sample_shift = sr->sample_shift;
	pmr_anchor_take(&sr->anc0);
	sr->mult = 0;
	sr->shm->nr_events = sr->nr_ev;
	memcpy(sr->shm->ev, sr->ev, sizeof(sr->ev));
	pm_strlcpy(sr->shm->names[0].name, SR_EMPTY_NAME, PMR_NAME_LEN);
	sr->shm->names[0].ready = 1;
	sr->shm->nr_names = 1;
	__atomic_store_n(&sr->shm->magic, PMR_MAGIC, __ATOMIC_RELEASE);
	for (i = 0; i < PMR_MAX_NAMES; i++)
		sr->id_map[i] = -1;
	snprintf(num, sizeof(num), "%d", sr->fd);
	if (setenv(PMR_ENV, num, 1))
		goto fail;
	sr->runs++;
	return 0;
fail:
	{
		int err = -errno;

		stat_regions_stop(sr);
		return err;
	}
}

static struct sr_region *sr_region(struct stat_regions *sr, uint32_t id)
{
	const char *name;
	unsigned int i;

	if (id >= PMR_MAX_NAMES)
		return NULL;
	if (sr->id_map[id] >= 0)
		return &sr->regions[sr->id_map[id]];
	if (!__atomic_load_n(&sr->shm->names[id].ready, __ATOMIC_ACQUIRE))
		return NULL;
	name = sr->shm->names[id].name;
	for (i = 0; i < sr->nr_regions; i++)
		if (!strncmp(sr->regions[i].name, name, PMR_NAME_LEN))
			break;
	if (i == sr->nr_regions) {
		if (i == sr->cap_regions) {
			unsigned int cap = sr->cap_regions ? sr->cap_regions * 2 : 16;
			struct sr_region *n = realloc(sr->regions, cap * sizeof(*n));

			if (!n)
				return NULL;
			sr->regions = n;
			sr->cap_regions = cap;
		}
		memset(&sr->regions[i], 0, sizeof(sr->regions[i]));
		/* the workload may write junk: always terminated here */
		memcpy(sr->regions[i].name, name, PMR_NAME_LEN - 1);
		sr->regions[i].name[PMR_NAME_LEN - 1] = '\0';
		sr->regions[i].min_depth = UINT32_MAX;
		sr->nr_regions++;
	}
	sr->id_map[id] = (int32_t)i;
	return &sr->regions[i];
}

static void sr_count_tid(struct sr_region *r, int32_t tid)
{
	unsigned int i;

	for (i = 0; i < r->nr_tids; i++)
		if (r->tids[i].tid == tid) {
			r->tids[i].calls++;
			return;
		}
	if (r->nr_tids == SR_MAX_TIDS) {
		r->more_tids = true;
		return;
	}
	r->tids[r->nr_tids].tid = tid;
	r->tids[r->nr_tids++].calls = 1;
}

/*
 * The slope for ticks at this drain; a run shorter than the slope's
 * minimum span waits for it (at most ~1 ms, once).
 */
static void sr_slope(struct stat_regions *sr)
{
	struct pmr_anchor now;
	unsigned int tries;

	for (tries = 0; tries < 100; tries++) {
		pmr_anchor_take(&now);
		sr->mult = pmr_slope(&sr->anc0, &now);
		if (sr->mult)
			return;
		usleep(200);
	}
}

static void sr_add(struct stat_regions *sr, const struct pmr_thread *t, const struct pmr_rec *rec)
{
	struct sr_region *r;
	unsigned int i;
	double wall = (double)rec->wall_ns;

	if (rec->kind != PMR_REC_CALL && rec->kind != PMR_REC_CALL_WALL)
		return;
	if (t->clock == PMR_CLOCK_TSC)
		wall = wall * (double)sr->mult / 4294967296.0;
	if (rec->region == 0) {
		for (i = 0; i < sr->nr_ev && rec->kind == PMR_REC_CALL; i++)
			dist_add(&sr->empty[i], (double)rec->val[i]);
		dist_add(&sr->empty_wall, wall);
		return;
	}
	r = sr_region(sr, rec->region);
	if (!r)
		return;
	r->calls++;
	sr_count_tid(r, t->tid);
	if (rec->depth < r->min_depth)
		r->min_depth = rec->depth;
	dist_add(&r->wall, wall);
	if (rec->kind != PMR_REC_CALL)
		return;
	r->counted++;
	for (i = 0; i < sr->nr_ev; i++)
		if (t->path[i] == PMR_PATH_RDPMC || t->path[i] == PMR_PATH_READ)
			dist_add(&r->ev[i], (double)rec->val[i]);
	if (sr->ipc_ins >= 0 && sr->ipc_cyc >= 0 && rec->val[sr->ipc_cyc])
		dist_add(&r->ipc, (double)rec->val[sr->ipc_ins] / (double)rec->val[sr->ipc_cyc]);
}

void stat_regions_drain(struct stat_regions *sr)
{
	uint32_t n, i;

	if (!sr || !sr->shm)
		return;
	n = __atomic_load_n(&sr->shm->nr_threads, __ATOMIC_ACQUIRE);
	sr->mult = 0;
	for (i = 0; i < n && i < PMR_MAX_THREADS; i++) {
		struct pmr_thread *t = &sr->shm->threads[i];
		uint64_t head, tail = t->tail;

		if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == PMR_SLOT_FREE)
			continue;
		head = __atomic_load_n(&t->head, __ATOMIC_ACQUIRE);
		if (head != tail && t->clock == PMR_CLOCK_TSC && !sr->mult)
			sr_slope(sr);
		/* a head the ring cannot hold is junk from a broken workload */
		if (head - tail > PMR_RING_RECS)
			tail = head - PMR_RING_RECS;
		for (; tail != head; tail++) {
			struct pmr_rec rec;

			memcpy(&rec, &t->ring[tail & (PMR_RING_RECS - 1)], sizeof(rec));
			sr_add(sr, t, &rec);
		}
		__atomic_store_n(&t->tail, tail, __ATOMIC_RELEASE);
	}
}

void stat_regions_stop(struct stat_regions *sr)
{
	uint32_t n, i, a, d;

	if (sr->shm) {
		stat_regions_drain(sr);
		n = __atomic_load_n(&sr->shm->nr_threads, __ATOMIC_ACQUIRE);
		for (i = 0; i < n && i < PMR_MAX_THREADS; i++) {
			struct pmr_thread *t = &sr->shm->threads[i];
			int len;

			if (t->state == PMR_SLOT_FREE)
				continue;
			sr->threads++;
			sr->lost += t->lost;
			for (a = 0; a < PMR_AN_NR; a++)
				sr->anom[a] += t->anom[a];
			for (a = 0; a < sr->nr_ev; a++) {
				if (t->path[a] < 32)
					sr->paths[a] |= 1u << t->path[a];
				if (t->path[a] == PMR_PATH_FAILED)
					sr->err[a] = t->err[a];
			}
			sr->clocks |= 1u << (t->clock & 1);
			if (!t->depth)
				continue;
			/* open when the thread or the whole workload ended */
			len = snprintf(sr->open_lines + sr->open_len,
				       sizeof(sr->open_lines) - sr->open_len,
				       "  pid %d tid %d:", (int)t->pid, (int)t->tid);
			for (d = 0; d < t->depth && d < PMR_MAX_DEPTH && len > 0; d++) {
				struct sr_region *r = sr_region(sr, t->open[d]);
				size_t at = sr->open_len + (size_t)len;
				int k;

				if (r)
					r->left_open++;
				if (at >= sizeof(sr->open_lines))
					break;
				k = snprintf(sr->open_lines + at, sizeof(sr->open_lines) - at,
					     "%s%s", d ? " > " : " ", r ? r->name : "?");
				len = k > 0 ? len + k : len;
			}
			if (t->depth > PMR_MAX_DEPTH && len > 0)
				len += snprintf(sr->open_lines + sr->open_len + len,
						sizeof(sr->open_lines) - sr->open_len - (size_t)len,
						" > (%u more)", t->depth - PMR_MAX_DEPTH);
			if (len > 0 && sr->open_len + (size_t)len + 1 < sizeof(sr->open_lines)) {
				sr->open_len += (size_t)len;
				sr->open_lines[sr->open_len++] = '\n';
				sr->open_lines[sr->open_len] = '\0';
			} else if (sr->open_len < sizeof(sr->open_lines)) {
				sr->open_lines[sr->open_len] = '\0';
			}
		}
		sr->threads_overflow += sr->shm->threads_overflow;
		sr->names_overflow += sr->shm->names_overflow;
		munmap(sr->shm, PMR_SHM_SIZE);
		sr->shm = NULL;
	}
	if (sr->fd >= 0)
		close(sr->fd);
	sr->fd = -1;
	unsetenv(PMR_ENV);
}

static const char *sr_path_name(unsigned int bits)
{
	bool rd = bits & (1u << PMR_PATH_RDPMC), sys = bits & (1u << PMR_PATH_READ);

	if (rd && sys)
		return "rdpmc on some threads, read() on others";
	if (rd)
		return "rdpmc (user space)";
	if (sys)
		return "read() (a system call per begin and end)";
	return NULL;
}

/* CSV field: quoted when it holds a separator, quote or newline. */
static void sr_csv_name(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/*
 * One row.  Calls with no value for the column (SAMPLED, OUTER) make its
 * sum the mean times every call in SAMPLED mode (an estimate, said so).
 */
static void sr_print_col(const struct stat_regions *sr, FILE *f, bool csv,
			 const struct sr_region *r, const char *name, const char *unit,
			 struct dist *d, double cost, bool ratio)
{
	bool estimated;
	struct dist_summary s;
	const char *fmt = ratio ? "%.3f" : "%.0f";
	double v[7];
	unsigned int i;

	dist_summarize(d, &s);
	if (!s.n)
		return;
	estimated = !ratio && sr->read_mode == PMR_READ_SAMPLED && s.n != r->calls;
	v[0] = estimated ? (s.mean - cost) * (double)r->calls : s.sum - cost * (double)s.n;
	v[1] = s.mean - cost;
	v[2] = s.min - cost;
	v[3] = s.median - cost;
	v[4] = s.mode - cost;
	v[5] = s.p99 - cost;
	v[6] = s.max - cost;
	if (csv) {
		sr_csv_name(f, r->name);
		fprintf(f, ",%" PRIu64 ",", r->calls);
		sr_csv_name(f, name);
		for (i = 0; i < 7; i++) {
			fputc(',', f);
			fprintf(f, fmt, v[i]);
		}
		/* every peak, ';'-separated, highest first (the mode alone if one) */
		fputc(',', f);
		if (!s.nr_modes)
			fprintf(f, fmt, v[4]);
		for (i = 0; i < s.nr_modes; i++) {
			if (i)
				fputc(';', f);
			fprintf(f, fmt, s.modes[i] - cost);
		}
		fputc('\n', f);
		return;
	}
	fprintf(f, "    %-22s", name);
	for (i = 0; i < 7; i++) {
		char num[32];

		snprintf(num, sizeof(num), fmt, v[i]);
		fprintf(f, " %14s", num);
	}
	fprintf(f, "  %s", unit);
	if (s.n != r->calls)
		fprintf(f, "  (%" PRIu64 " calls%s)", s.n, estimated ? ", sum estimated" : "");
	fputc('\n', f);
	if (s.nr_modes > 1) {
		fprintf(f, "    %-22s", "");
		fprintf(f, " modes:");
		for (i = 0; i < s.nr_modes; i++) {
			fprintf(f, i ? ", " : " ");
			fprintf(f, fmt, s.modes[i] - cost);
			fprintf(f, " (%.0f%% of calls)", 100 * s.mode_share[i]);
		}
		fputc('\n', f);
	}
	if (!s.exact)
		fprintf(f, "    %-22s  (over %d calls: quantiles and mode from a histogram, "
			"within 1%%)\n", "", DIST_EXACT_MAX);
}

/* The unit of an event's values: ns for the clocks, else a count. */
static const char *sr_unit(const struct pmr_event *ev)
{
	return (ev->flags & PMR_EV_TIME_BASED) ? "ns" : "count";
}

static const char *const sr_anom_names[PMR_AN_NR] = {
	[PMR_AN_END_WITHOUT_BEGIN] = "end of a region that was not open (ignored)",
	[PMR_AN_MISMATCHED] = ("end of an outer region while inner ones were open "
			       "(inner ones closed unmeasured)"),
	[PMR_AN_TOO_DEEP] = "begin nested deeper than 32 (not measured)",
	[PMR_AN_FORK_IN_REGION] = "fork inside a region (the child's copy not measured)",
	[PMR_AN_TOO_MANY_NAMES] = "begin of a name beyond the 1024-name table (not measured)",
};

void stat_regions_print(struct stat_regions *sr, FILE *f, const char *cmd, bool csv)
{
	double cost[PMR_MAX_EVENTS] = { 0 }, cost_wall = 0;
	struct dist_summary s;
	unsigned int i, k, a;
	bool any = false;

	for (i = 0; i < sr->nr_ev; i++) {
		dist_summarize(&sr->empty[i], &s);
		cost[i] = s.median;
	}
	dist_summarize(&sr->empty_wall, &s);
	cost_wall = s.median;
	if (csv) {
		fprintf(f, "region,calls,event,sum,mean,min,median,mode,p99,max,modes\n");
	} else {
		fprintf(f, "\n Regions of '%s' (%u thread%s%s):\n", cmd, sr->threads,
			sr->threads == 1 ? "" : "s",
			sr->runs > 1 ? ", all runs" : "");
		for (i = 0; i < sr->nr_ev; i++) {
			const char *p = sr_path_name(sr->paths[i]);

			if (p && sr->read_mode == PMR_READ_SAMPLED)
				fprintf(f, "   %-22s read with %s, at the sampled calls only\n",
					sr->ev[i].name, p);
			else if (p)
				fprintf(f, "   %-22s read with %s\n", sr->ev[i].name, p);
			else if (sr->paths[i] & (1u << PMR_PATH_FAILED))
				fprintf(f, "   %-22s %s in the workload's threads\n", sr->ev[i].name,
					sr->err[i] == EACCES || sr->err[i] == EPERM ?
					"<not permitted>" : "<not supported>");
		}
		if (sr->read_mode == PMR_READ_SAMPLED)
			fprintf(f, "   counters read at 1 call in %llu per thread, chosen at random\n",
				1ull << sr->sample_shift);
		fprintf(f, "   %-22s %s\n", "wall-ns",
			sr->clocks == 1u << PMR_CLOCK_TSC ?
			"read with rdtsc, converted to CLOCK_MONOTONIC ns" :
			sr->clocks & (1u << PMR_CLOCK_TSC) ?
			"read with rdtsc on some threads, clock_gettime (vDSO) on others" :
			"read with clock_gettime(CLOCK_MONOTONIC) (vDSO)");
		fprintf(f, "   empty-region cost subtracted from every call (median of %" PRIu64
			" empty regions timed at thread start):", sr->empty_wall.n);
		for (i = 0; i < sr->nr_ev; i++)
			if (sr->empty[i].n && sr_path_name(sr->paths[i]))
				fprintf(f, " %s %.0f%s,", sr->ev[i].name, cost[i],
					(sr->ev[i].flags & PMR_EV_TIME_BASED) ? " ns" : "");
		fprintf(f, " wall-ns %.0f ns\n", cost_wall);
	}
	for (k = 0; k < sr->nr_regions; k++) {
		struct sr_region *r = &sr->regions[k];

		any = true;
		if (!csv) {
			fprintf(f, "\n  region %s: %" PRIu64 " call%s", r->name, r->calls,
				r->calls == 1 ? "" : "s");
			if (r->min_depth != UINT32_MAX && r->min_depth)
				fprintf(f, ", nested (depth %u)", r->min_depth);
			if (r->left_open)
				fprintf(f, ", %" PRIu64 " left open at exit (not counted)", r->left_open);
			if (r->nr_tids) {
				fprintf(f, " (");
				for (i = 0; i < r->nr_tids; i++)
					fprintf(f, "%stid %d: %" PRIu64, i ? ", " : "",
						(int)r->tids[i].tid, r->tids[i].calls);
				fprintf(f, "%s)", r->more_tids ? ", ..." : "");
			}
			fputc('\n', f);
			if (!r->calls)
				continue;
			fprintf(f, "    %-22s %14s %14s %14s %14s %14s %14s %14s  %s\n", "event", "sum",
				"mean", "min", "median", "mode", "p99", "max", "unit");
		}
		for (i = 0; i < sr->nr_ev; i++)
			sr_print_col(sr, f, csv, r, sr->ev[i].name, sr_unit(&sr->ev[i]), &r->ev[i],
				     cost[i], false);
		sr_print_col(sr, f, csv, r, "wall-ns", "ns", &r->wall, cost_wall, false);
		sr_print_col(sr, f, csv, r, "IPC", "instructions/cycle", &r->ipc, 0, true);
	}
	if (csv) {
		/* what does not fit the columns: comment lines after the table */
		for (a = 0; a < PMR_AN_NR; a++)
			if (sr->anom[a])
				fprintf(f, "# anomaly,%s,%" PRIu64 "\n", sr_anom_names[a], sr->anom[a]);
		if (sr->open_len)
			fprintf(f, "# left open at exit:\n%s", sr->open_lines);
		if (sr->lost)
			fprintf(f, "# records lost (ring full),%" PRIu64 "\n", sr->lost);
		return;
	}
	if (!any)
		fprintf(f, "\n  no region was entered (is the program linked with "
			"libpmiprof-region and built with -DPMIPROF_REGIONS for the macros?)\n");
	if (sr->open_len)
		fprintf(f, "\n  regions left open at exit (thread or process ended, or was killed):\n%s",
			sr->open_lines);
	for (a = 0; a < PMR_AN_NR; a++)
		if (sr->anom[a])
			fprintf(f, "  anomaly: %" PRIu64 " x %s\n", sr->anom[a], sr_anom_names[a]);
	if (sr->lost)
		fprintf(f, "  %" PRIu64 " calls lost: a thread's ring was full\n", sr->lost);
	if (sr->threads_overflow)
		fprintf(f, "  %" PRIu64 " threads not measured: more than %d\n",
			sr->threads_overflow, PMR_MAX_THREADS);
	if (sr->names_overflow)
		fprintf(f, "  %" PRIu64 " names refused: more than %d distinct names\n",
			sr->names_overflow, PMR_MAX_NAMES - 1);
	fputc('\n', f);
}

void stat_regions_free(struct stat_regions *sr)
{
	unsigned int i, k;

	if (!sr)
		return;
	stat_regions_stop(sr);
	for (k = 0; k < sr->nr_regions; k++) {
		for (i = 0; i < PMR_MAX_EVENTS; i++)
			dist_free(&sr->regions[k].ev[i]);
		dist_free(&sr->regions[k].wall);
		dist_free(&sr->regions[k].ipc);
	}
	for (i = 0; i < PMR_MAX_EVENTS; i++)
		dist_free(&sr->empty[i]);
	dist_free(&sr->empty_wall);
	free(sr->regions);
	free(sr);
}
