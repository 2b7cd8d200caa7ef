// SPDX-License-Identifier: GPL-2.0
/*
 * Rewrites a trace with this tree's writer, record by record, for
 * tests/bench/b10_trace.sh: the same recording's bytes per sample before
 * and after an encoding change, and the writer's rate on real samples
 * rather than on the synthetic stream.
 *   trace_recode IN OUT [LEVEL [REPS [records2|records3]]]
 * prints: samples file_bytes bytes_per_sample write_msps (best of REPS, per
 * CPU-second, records decoded before the clock starts).  "records2" /
 * "records3": write the 1.4 RECORDS2 (no thread contexts) / RECORDS3 (not
 * columnar) chunks instead of the default.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmiprof/trace.h"

struct rec {
	struct trace_record r;
	char *str;			/* copy of the record's string, if any */
	uint64_t *ips;			/* copy of a STACK's or CALLCHAIN's frames */
	uint8_t *data;			/* copy of a USTACK's registers + bytes */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *dupstr(const char *s)
{
	return strdup(s ? s : "");
}

static int keep(struct rec *k, const struct trace_record *r)
{
	k->r = *r;
	switch (r->type) {
	case PMIPROF_REC_MMAP:
		k->r.mmap.path = k->str = dupstr(r->mmap.path);
		break;
	case PMIPROF_REC_COMM:
		k->r.comm.comm = k->str = dupstr(r->comm.comm);
		break;
	case PMIPROF_REC_MARK:
		k->r.mark.label = k->str = dupstr(r->mark.label);
		break;
	case PMIPROF_REC_REGION_DEF:
		k->r.region_def.name = k->str = dupstr(r->region_def.name);
		break;
	case PMIPROF_REC_STACK:
		k->ips = malloc((r->stack.nr + 1) * sizeof(uint64_t));
		if (k->ips)
			memcpy(k->ips, r->stack.ips, r->stack.nr * sizeof(uint64_t));
		k->r.stack.ips = k->ips;
		break;
	case PMIPROF_REC_CALLCHAIN:
		k->ips = malloc((r->callchain.nr + 1) * sizeof(uint64_t));
		if (k->ips)
			memcpy(k->ips, r->callchain.ips, r->callchain.nr * sizeof(uint64_t));
		k->r.callchain.ips = k->ips;
		break;
	case PMIPROF_REC_USTACK:
		k->data = malloc(r->ustack.nr_regs * 8 + r->ustack.size + 1);
		if (k->data) {
			memcpy(k->data, r->ustack.regs, r->ustack.nr_regs * 8);
			memcpy(k->data + r->ustack.nr_regs * 8, r->ustack.data, r->ustack.size);
		}
		k->r.ustack.regs = (const uint64_t *)k->data;
		k->r.ustack.data = k->data + r->ustack.nr_regs * 8;
		break;
	default:
		return 0;
	}
	return (k->str || k->ips || k->data) ? 0 : -ENOMEM;
}

/* The STACK records of one chunk, by id, for the samples that use them. */
static int write_all(const char *out, const struct trace_header *h, struct rec *v, size_t n,
		     const struct trace_writer_opts *o)
{
	struct trace_writer *w;
	const struct rec **stacks = calloc(n + 1, sizeof(*stacks));
	uint32_t seq = UINT32_MAX;
	size_t i;
	int err;

	if (!stacks)
		return -ENOMEM;
	err = trace_writer_open(&w, out, h, o);
	for (i = 0; i < n && !err; i++) {
		const struct trace_record *r = &v[i].r;

		if (r->chunk_seq != seq)
			seq = r->chunk_seq;	/* stack ids are chunk-local */
		switch (r->type) {
		case PMIPROF_REC_SAMPLE:
			if (r->sample.stack) {
				const struct rec *s = stacks[r->sample.stack - 1];

				err = trace_write_sample_stack(w, &r->sample, s->r.stack.ips,
							       s->r.stack.nr, s->r.stack.nr_kernel);
			} else {
				err = trace_write_sample(w, &r->sample);
			}
			break;
		case PMIPROF_REC_STACK:
			stacks[r->stack.id] = &v[i];
			break;
		case PMIPROF_REC_USTACK: err = trace_write_ustack(w, &r->ustack); break;
		case PMIPROF_REC_CALLCHAIN: err = trace_write_callchain(w, &r->callchain); break;
		case PMIPROF_REC_MMAP: err = trace_write_mmap(w, &r->mmap); break;
		case PMIPROF_REC_COMM: err = trace_write_comm(w, &r->comm); break;
		case PMIPROF_REC_FORK: err = trace_write_fork(w, &r->task); break;
		case PMIPROF_REC_EXIT: err = trace_write_exit(w, &r->task); break;
		case PMIPROF_REC_LOST: err = trace_write_lost(w, &r->lost); break;
		case PMIPROF_REC_MARK: err = trace_write_mark(w, &r->mark); break;
		case PMIPROF_REC_FINISH: err = trace_write_finish(w, &r->finish); break;
		case PMIPROF_REC_REGION_DEF: err = trace_write_region_def(w, &r->region_def); break;
		case PMIPROF_REC_REGION: err = trace_write_region(w, &r->region); break;
		case PMIPROF_REC_REGION_ANOMALY:
			err = trace_write_region_anomaly(w, &r->region_anomaly);
			break;
		default:
			break;
		}
	}
	if (!err)
		err = trace_writer_close(w);
	free(stacks);
	return err;
}

int main(int argc, char **argv)
{
	struct trace_writer_opts o = { .level = 1 };
	struct trace_reader *r;
	struct trace_record rec;
	struct trace_header h;
	struct rec *v = NULL;
	size_t n = 0, cap = 0, samples = 0, i;
	double best = 0, t0, t;
	int reps = 1, k, err;
	long size;
	FILE *f;

	if (argc < 3 || argc > 6) {
		fprintf(stderr, "usage: trace_recode IN OUT [LEVEL [REPS [records2|records3]]]\n");
		return 2;
	}
	if (argc > 3)
		o.level = atoi(argv[3]);
	if (argc > 4)
		reps = atoi(argv[4]);
	if (argc > 5) {
		o.records2 = !strcmp(argv[5], "records2");
		o.records3 = !strcmp(argv[5], "records3");
	}
	err = trace_reader_open(&r, argv[1], NULL, NULL);
	if (err) {
		fprintf(stderr, "trace_recode: %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	h = *trace_reader_header(r);
	while (trace_reader_next(r, &rec) == 1) {
		if (rec.type == PMIPROF_REC_LOST && rec.lost.cpu == PMIPROF_CPU_NONE)
			continue;	/* the reader's own damage records */
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				return 1;
		}
		memset(&v[n], 0, sizeof(v[n]));
		if (keep(&v[n], &rec))
			return 1;
		samples += rec.type == PMIPROF_REC_SAMPLE;
		n++;
	}
	trace_reader_close(r);
	for (k = 0; k < reps; k++) {
		t0 = now();
		err = write_all(argv[2], &h, v, n, &o);
		t = now() - t0;
		if (err) {
			fprintf(stderr, "trace_recode: %s: %s\n", argv[2], strerror(-err));
			return 1;
		}
		if (t > 0 && samples / t > best)
			best = samples / t;
	}
	f = fopen(argv[2], "rb");
	if (!f)
		return 1;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	printf("%zu %ld %.2f %.1f\n", samples, size, samples ? (double)size / samples : 0.0,
	       best / 1e6);
	for (i = 0; i < n; i++) {
		free(v[i].str);
		free(v[i].ips);
		free(v[i].data);
	}
	free(v);
	return 0;
}
