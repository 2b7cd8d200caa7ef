// SPDX-License-Identifier: GPL-2.0
/*
 * pmiprof dump: print a trace file's header (every field) and every record,
 * one line per record, then the reader's statistics.  A debugging tool and
 * the backbone of golden tests, so the output is stable and exact: --raw
 * prints absolute clock values and numeric flags only.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "pmiprof/trace.h"
#include "kernel_id.h"
#include "util.h"

const char cmd_dump_summary[] = "Print the header and every record of a trace file";
const char cmd_dump_help[] =
"NAME\n"
"    pmiprof dump - print the header and every record of a trace file\n"
"\n"
"SYNOPSIS\n"
"    pmiprof dump [-i FILE] [--header-only] [--raw]\n"
"\n"
"DESCRIPTION\n"
"    Prints every field of the trace header, then one line per record in file\n"
"    order: time, record type and all fields (samples show each count with the\n"
"    name of its event), then the reader's statistics: chunks read and damaged,\n"
"    records, records lost, bytes skipped, whether the file was cut short and\n"
"    whether the recording ended with a FINISH record; and the sum of all\n"
"    losses announced by 'lost' records, by reason.\n"
"\n"
"    Call stacks (trace format 1.3, 'record -g'): a 'stack' line defines a\n"
"    chunk-local stack id with its frames, leaf first, k: kernel and u: user\n"
"    (the sampled ip is not repeated); a sample shows the id it uses as\n"
"    stack=ID; a 'ustack' line after a sample shows its user registers and the\n"
"    size of the user stack copy, and copies of up to 64 bytes (fp leaf words)\n"
"    word by word.\n"
"\n"
"    Damaged or truncated chunks are reported on standard error as\n"
"    \"FILE: offset N: chunk S: what\" and appear in the record stream as\n"
"    'lost' records with reason 'unreadable' or 'truncated'; the rest of the\n"
"    file is still dumped.  The format is described in docs/trace-format.md.\n"
"\n"
"    Times are shown in seconds since the start of the recording (header clock\n"
"    start and frequency); with --raw they are the absolute clock values.\n"
"\n"
"OPTIONS\n"
"    -i, --input FILE\n"
"        Trace to read (default: pmiprof.data).  '-' reads standard input.\n"
"    -H, --header-only\n"
"        Print the header only; do not read the records.\n"
"    -r, --raw\n"
"        Print absolute times in clock ticks and flags as numbers, with the\n"
"        chunk number of each record first: stable output for golden tests.\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
"EXAMPLES\n"
"    pmiprof dump | less\n"
"    pmiprof dump -i run1.data --header-only\n"
"    pmiprof dump --raw -i t.data | grep ' sample ' | wc -l\n"
"\n"
"EXIT STATUS\n"
"    0 when the trace was read (damage is reported but not fatal), 1 when the\n"
"    file cannot be opened or is not a readable pmiprof trace (bad magic,\n"
"    unsupported version, damaged header), 2 on a usage error.\n";

struct dump_ctx {
	bool opened;		/* diag messages after open are warnings */
	bool raw;
	const struct trace_header *h;
};

static void dump_diag(void *arg, const char *msg)
{
	const struct dump_ctx *d = arg;

	if (d->opened)
		pm_warn("%s", msg);
	else
		pm_err("%s", msg);
}

/* Strings from the file may hold anything: keep one record per line. */
static void put_escaped(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (isprint(c))
			putchar(c);
		else
			printf("\\x%02x", c);
	}
	putchar('"');
}

struct flag_name {
	uint32_t bit;
	const char *name;
};

static void put_flags(uint32_t flags, const struct flag_name *names, size_t n, bool raw)
{
	bool first = true;
	size_t i;

	printf("0x%x", flags);
	if (raw || !flags)
		return;
	putchar('(');
	for (i = 0; i < n; i++) {
		if (flags & names[i].bit) {
			printf("%s%s", first ? "" : ",", names[i].name);
			first = false;
			flags &= ~names[i].bit;
		}
	}
	if (flags)
		printf("%s0x%x", first ? "" : ",", flags);
	putchar(')');
}

static const struct flag_name trace_flags[] = {
	{ PMIPROF_TRACE_F_TIME_BASED, "time-based" },
	{ PMIPROF_TRACE_F_EMULATED, "emulated" },
	{ PMIPROF_TRACE_F_SYSTEM_WIDE, "system-wide" },
	{ PMIPROF_TRACE_F_INHERIT, "inherit" },
	{ PMIPROF_TRACE_F_NO_INHERIT_READ, "no-inherit-read" },
	{ PMIPROF_TRACE_F_KERNEL_IPS, "kernel-ips" },
	{ PMIPROF_TRACE_F_REGIONS, "regions" },
};

static const struct flag_name event_flags[] = {
	{ PMIPROF_EVENT_F_TRIGGER, "trigger" },
	{ PMIPROF_EVENT_F_EXCL_USER, "exclude-user" },
	{ PMIPROF_EVENT_F_EXCL_KERNEL, "exclude-kernel" },
	{ PMIPROF_EVENT_F_SOFTWARE, "software" },
};

static const struct flag_name sample_flags[] = {
	{ PMIPROF_SAMPLE_F_USER, "user" },
	{ PMIPROF_SAMPLE_F_KERNEL, "kernel" },
	{ PMIPROF_SAMPLE_F_IP_HIDDEN, "ip-hidden" },
	{ PMIPROF_SAMPLE_F_EMULATED, "emulated" },
	{ PMIPROF_SAMPLE_F_TIME_BASED, "time-based" },
	{ PMIPROF_SAMPLE_F_FIRST, "first" },
	{ PMIPROF_SAMPLE_F_THROTTLED, "throttled" },
	{ PMIPROF_SAMPLE_F_AFTER_LOSS, "after-loss" },
	{ PMIPROF_SAMPLE_F_PARTIAL, "partial" },
};

static const struct flag_name finish_flags[] = {
	{ PMIPROF_FINISH_F_SIGNALED, "signaled" },
	{ PMIPROF_FINISH_F_ERROR, "error" },
	{ PMIPROF_FINISH_F_INTERRUPTED, "interrupted" },
};

static const struct flag_name call_graph_flags[] = {
	{ PMIPROF_CALL_GRAPH_F_KERNEL, "kernel" },
	{ PMIPROF_CALL_GRAPH_F_LEAF_WORDS, "leaf-words" },
};

/* perf's x86 user register order (PERF_REG_X86_*), as USTACK stores them */
static const char *const x86_reg_names[] = {
	"ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "ip", "flags", "cs", "ss",
	"ds", "es", "fs", "gs", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

static const struct flag_name comm_flags[] = {
	{ PMIPROF_COMM_F_EXEC, "exec" },
};

static void print_header(const char *path, const struct trace_header *h, bool raw)
{
	uint32_t i;

	printf("# pmiprof trace: %s\n", path);
	printf("version:        %u.%u\n", h->version_major, h->version_minor);
	printf("flags:          ");
	put_flags(h->flags, trace_flags, ARRAY_SIZE(trace_flags), raw);
	printf("\nhostname:       ");
	put_escaped(h->hostname);
	printf("\nkernel:         ");
	put_escaped(h->kernel_release);
	if (h->boot_id[0]) {
		printf("\nboot id:        ");
		put_escaped(h->boot_id);
	}
	if (h->kernel_build_id_len) {
		char hex[2 * sizeof(h->kernel_build_id) + 1];

		build_id_hex(hex, h->kernel_build_id, h->kernel_build_id_len);
		printf("\nkernel build-id: %s", hex);
	}
	printf("\ncpu vendor:     ");
	put_escaped(h->cpu_vendor);
	printf("\ncpu:            family %u model %u stepping %u\n", h->cpu_family, h->cpu_model,
	       h->cpu_stepping);
	printf("cpu model name: ");
	put_escaped(h->cpu_model_name);
	printf("\nnr_cpus:        %u\n", h->nr_cpus);
	printf("pmu:            ");
	put_escaped(h->pmu);
	printf("\nevents:         %u\n", h->nr_events);
	for (i = 0; i < h->nr_events; i++) {
		const struct trace_event_desc *e = &h->events[i];

		printf("  event %-2u      ", i);
		put_escaped(e->name);
		printf(" type=0x%x config=0x%" PRIx64 " config1=0x%" PRIx64 " flags=", e->type,
		       e->config, e->config1);
		put_flags(e->flags, event_flags, ARRAY_SIZE(event_flags), raw);
		putchar('\n');
	}
	printf("trigger:        event %u", h->trigger_index);
	if (h->trigger_index < h->nr_events) {
		putchar(' ');
		put_escaped(h->events[h->trigger_index].name);
	}
	printf(" period %" PRIu64 " freq %" PRIu64 " Hz flags=0x%x%s\n", h->period, h->freq_hz,
	       h->trigger_flags,
	       !raw && (h->trigger_flags & PMIPROF_TRIGGER_F_FREQ) ? "(freq)" : "");
	printf("sampling:       mode %u (%s) backend %u (%s)\n", h->mode, trace_mode_name(h->mode),
	       h->backend, trace_backend_name(h->backend));
	printf("clock:          ");
	put_escaped(h->clock_name);
	printf(" id %u freq %" PRIu64 " Hz start %" PRIu64 " realtime %" PRIu64 " ns\n",
	       h->clock_id, h->clock_freq_hz, h->start_time, h->start_realtime_ns);
	printf("cmdline:        argc %u ", h->cmdline_argc);
	put_escaped(h->cmdline);
	printf("\nrecorder:       ");
	put_escaped(h->recorder);
	printf("\nnote:           ");
	put_escaped(h->note);
	putchar('\n');
	if (h->call_graph) {
		printf("call graph:     %s max-stack %u dump-size %u flags=",
		       trace_call_graph_name(h->call_graph), h->call_graph_max_stack,
		       h->call_graph_dump_size);
		put_flags(h->call_graph_flags, call_graph_flags, ARRAY_SIZE(call_graph_flags), raw);
		putchar('\n');
	}
	/* 1.4: how SAMPLE counts are predicted (docs/trace-format.md); shown when not all "previous" */
	for (i = 0; i < h->nr_events; i++)
		if (h->predict[i])
			break;
	if (i < h->nr_events) {
		printf("predict:       ");
		for (i = 0; i < h->nr_events; i++) {
			if (h->predict[i] == PMIPROF_PREDICT_PREV)
				printf(" %u:previous", i);
			else if (h->predict[i] == PMIPROF_PREDICT_TIME)
				printf(" %u:time-step", i);
			else
				printf(" %u:event-%u", i, h->predict[i] - PMIPROF_PREDICT_EVENT);
		}
		putchar('\n');
	}
	/* 1.4: the nominal sample interval RECORDS4 predicts time steps from */
	if (h->time_step)
		printf("time step:      %" PRIu64 " ticks\n", h->time_step);
}

static void print_time(const struct dump_ctx *d, uint64_t t)
{
	const struct trace_header *h = d->h;

	if (d->raw || !h->clock_freq_hz) {
		printf("%20" PRIu64, t);
	} else {
		/* side-band records may predate the start: show them negative */
		bool neg = t < h->start_time;
		uint64_t dt = neg ? h->start_time - t : t - h->start_time;
		uint64_t sec = dt / h->clock_freq_hz;
		uint64_t ns = (uint64_t)((unsigned __int128)(dt % h->clock_freq_hz) * 1000000000u /
					 h->clock_freq_hz);
		char s[32];

		snprintf(s, sizeof(s), "%s%" PRIu64, neg ? "-" : "", sec);
		printf("%10s.%09" PRIu64, s, ns);
	}
}

static void print_cpu(uint32_t cpu)
{
	if (cpu == PMIPROF_CPU_NONE)
		printf("cpu=none");
	else
		printf("cpu=%u", cpu);
}

static void print_record(const struct dump_ctx *d, const struct trace_record *rec)
{
	const struct trace_header *h = d->h;
	uint32_t i;

	if (d->raw)
		printf("%6d ", rec->chunk_seq == UINT32_MAX ? -1 : (int)rec->chunk_seq);
	switch (rec->type) {
	case PMIPROF_REC_SAMPLE: {
		const struct trace_sample *s = &rec->sample;

		print_time(d, s->time);
		printf(" sample    cpu=%u pid=%u tid=%u ip=0x%" PRIx64 " flags=", s->cpu, s->pid,
		       s->tid, s->ip);
		put_flags(s->flags, sample_flags, ARRAY_SIZE(sample_flags), d->raw);
		for (i = 0; i < s->nr; i++)
			printf(" %s=%" PRIu64, h->events[i].name, s->counts[i]);
		if (s->stack)
			printf(" stack=%u", s->stack - 1);
		break;
	}
	case PMIPROF_REC_STACK: {
		const struct trace_stack *st = &rec->stack;

		/* k: kernel frame, u: user frame; leaf first */
		printf("%20s stack     id=%u nr=%u kernel=%u", "", st->id, st->nr, st->nr_kernel);
		for (i = 0; i < st->nr; i++)
			printf("%s%c:0x%" PRIx64, i ? "," : " frames=", i < st->nr_kernel ? 'k' : 'u',
			       st->ips[i]);
		break;
	}
	case PMIPROF_REC_USTACK: {
		const struct trace_ustack *u = &rec->ustack;
		uint32_t bit, k = 0;

		printf("%20s ustack    abi=%u regs=0x%" PRIx64, "", u->abi, u->regs_mask);
		for (bit = 0; bit < 64 && k < u->nr_regs; bit++) {
			if (!(u->regs_mask & (1ull << bit)))
				continue;
			if (bit < ARRAY_SIZE(x86_reg_names))
				printf(" %s=0x%" PRIx64, x86_reg_names[bit], u->regs[k++]);
			else
				printf(" reg%u=0x%" PRIx64, bit, u->regs[k++]);
		}
		printf(" size=%u", u->size);
		/* fp leaf words (non-code words zeroed by the recorder) */
		if (u->size && u->size <= 64 && u->size % 8 == 0) {
			for (k = 0; k < u->size / 8; k++) {
				uint64_t w;

				memcpy(&w, u->data + 8 * k, 8);
				printf("%s0x%" PRIx64, k ? "," : " words=", w);
			}
		}
		break;
	}
	case PMIPROF_REC_MMAP: {
		const struct trace_mmap *m = &rec->mmap;

		print_time(d, m->time);
		printf(" mmap      pid=%u tid=%u start=0x%" PRIx64 " len=0x%" PRIx64
		       " pgoff=0x%" PRIx64 " prot=0x%x flags=0x%x build-id=", m->pid, m->tid,
		       m->start, m->len, m->pgoff, m->prot, m->flags);
		if (!m->build_id_len)
			printf("none");
		for (i = 0; i < m->build_id_len; i++)
			printf("%02x", m->build_id[i]);
		printf(" path=");
		put_escaped(m->path);
		break;
	}
	case PMIPROF_REC_COMM:
		print_time(d, rec->comm.time);
		printf(" comm      pid=%u tid=%u flags=", rec->comm.pid, rec->comm.tid);
		put_flags(rec->comm.flags, comm_flags, ARRAY_SIZE(comm_flags), d->raw);
		printf(" comm=");
		put_escaped(rec->comm.comm);
		break;
	case PMIPROF_REC_FORK:
	case PMIPROF_REC_EXIT:
		print_time(d, rec->task.time);
		printf(" %-9s pid=%u ppid=%u tid=%u ptid=%u", trace_record_name(rec->type),
		       rec->task.pid, rec->task.ppid, rec->task.tid, rec->task.ptid);
		break;
	case PMIPROF_REC_LOST:
		print_time(d, rec->lost.time);
		printf(" lost      ");
		print_cpu(rec->lost.cpu);
		printf(" reason=%u(%s) count=%" PRIu64, rec->lost.reason,
		       trace_lost_reason_name(rec->lost.reason), rec->lost.count);
		if (rec->lost.duration)
			printf(" duration=%" PRIu64 "ns", rec->lost.duration);
		break;
	case PMIPROF_REC_MARK:
		print_time(d, rec->mark.time);
		printf(" mark      ");
		print_cpu(rec->mark.cpu);
		printf(" pid=%u tid=%u id=%" PRIu64 " label=", rec->mark.pid, rec->mark.tid,
		       rec->mark.id);
		put_escaped(rec->mark.label);
		break;
	case PMIPROF_REC_REGION_DEF:
		printf("%20s region_def id=%u name=", "", rec->region_def.id);
		put_escaped(rec->region_def.name);
		break;
	case PMIPROF_REC_REGION: {
		const struct trace_region *r = &rec->region;

		print_time(d, r->time);
		printf(" region    %s pid=%u tid=%u id=%u depth=%u",
		       r->kind == PMIPROF_REGION_BEGIN ? "begin" : "end", r->pid, r->tid, r->id,
		       r->depth);
		for (i = 0; i < PMIPROF_MAX_EVENTS && i < h->nr_events; i++)
			if (r->evmask >> i & 1)
				printf(" %s=%" PRIu64, h->events[i].name, r->values[i]);
		break;
	}
	case PMIPROF_REC_REGION_ANOMALY:
		print_time(d, rec->region_anomaly.time);
		printf(" region_anomaly pid=%u tid=%u what=%u(%s) count=%" PRIu64,
		       rec->region_anomaly.pid, rec->region_anomaly.tid, rec->region_anomaly.what,
		       trace_region_anomaly_name(rec->region_anomaly.what),
		       rec->region_anomaly.count);
		break;
	case PMIPROF_REC_CALLCHAIN:
		printf("%20s callchain nr=%u", "", rec->callchain.nr);
		for (i = 0; i < rec->callchain.nr; i++)
			printf("%s0x%" PRIx64, i ? "," : " ips=", rec->callchain.ips[i]);
		break;
	case PMIPROF_REC_FINISH:
		print_time(d, rec->finish.time);
		printf(" finish    flags=");
		put_flags(rec->finish.flags, finish_flags, ARRAY_SIZE(finish_flags), d->raw);
		printf(" exit_code=%d samples=%" PRIu64 " lost=%" PRIu64, rec->finish.exit_code,
		       rec->finish.samples, rec->finish.lost);
		break;
	default:
		printf("%20s %s type=%u", "", trace_record_name(rec->type), rec->type);
		break;
	}
	putchar('\n');
}

/* Losses announced by LOST records (recorder's and reader's), by reason. */
struct loss_tally {
	uint64_t count[PMIPROF_LOST_CPU_OFFLINE + 2];	/* last slot: unknown reasons */
	uint64_t unknown_count;				/* LOST records with count 0 */
	uint64_t offline_ns;				/* cpu-offline: time, no count */
	uint64_t records;
};

static void tally_loss(struct loss_tally *t, const struct trace_lost *l)
{
	uint32_t reason = l->reason <= PMIPROF_LOST_CPU_OFFLINE ? l->reason
								    : PMIPROF_LOST_CPU_OFFLINE + 1;

	t->records++;
	t->count[reason] += l->count;
	if (reason == PMIPROF_LOST_CPU_OFFLINE)
		t->offline_ns += l->duration;
	else
		t->unknown_count += !l->count;
}

static void print_losses(const struct loss_tally *t)
{
	uint32_t i;

	printf("# lost records: %" PRIu64, t->records);
	for (i = 0; i < ARRAY_SIZE(t->count); i++)
		if (t->count[i])
			printf("; %s %" PRIu64, i <= PMIPROF_LOST_CPU_OFFLINE ?
			       trace_lost_reason_name(i) : "other", t->count[i]);
	if (t->unknown_count)
		printf("; %" PRIu64 " of unknown size", t->unknown_count);
	if (t->offline_ns)
		printf("; CPUs offline (not recorded) %.3f s", (double)t->offline_ns / 1e9);
	putchar('\n');
}

static void print_stats(const struct trace_read_stats *st)
{
	printf("# stats: chunks ok %" PRIu64 " bad %" PRIu64 "; records %" PRIu64
	       " (unknown types skipped %" PRIu64 "); records lost in bad chunks %" PRIu64
	       "; bytes skipped %" PRIu64 "; truncated %s; finished %s\n",
	       st->chunks_ok, st->chunks_bad, st->records, st->records_unknown, st->records_lost,
	       st->bytes_skipped, st->truncated ? "yes" : "no", st->finished ? "yes" : "no");
	if (st->second_trace_at)
		printf("# second trace at offset %" PRIu64 ": %" PRIu64 " bytes not read\n",
		       st->second_trace_at, st->second_trace_bytes);
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "header-only", no_argument, NULL, 'H' },
		{ "raw", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static char outbuf[1 << 16];
	struct dump_ctx d = { 0 };
	const char *input = "pmiprof.data";
	bool header_only = false;
	struct trace_reader *r;
	struct trace_record rec;
	int c, err;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:Hrh", opts, NULL)) != -1) {
		switch (c) {
		case 'i': input = optarg; break;
		case 'H': header_only = true; break;
		case 'r': d.raw = true; break;
		case 'h': return command_help("dump");
		case ':': return pm_usage_error("dump", "option '%s' needs an argument",
						argv[optind - 1]);
		default:
			if (optopt)
				return pm_usage_error("dump", "unknown option '-%c'", optopt);
			return pm_usage_error("dump", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return pm_usage_error("dump", "unexpected argument '%s' (use -i FILE)",
				      argv[optind]);
	err = trace_reader_open(&r, !strcmp(input, "-") ? "/dev/stdin" : input, dump_diag, &d);
	if (err)
		return 1;
	d.opened = true;
	d.h = trace_reader_header(r);
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	print_header(input, d.h, d.raw);
	if (!header_only) {
		struct loss_tally lt = { 0 };

		while ((err = trace_reader_next(r, &rec)) == 1) {
			print_record(&d, &rec);
			if (rec.type == PMIPROF_REC_LOST)
				tally_loss(&lt, &rec.lost);
		}
		print_stats(trace_reader_stats(r));
		print_losses(&lt);
	}
	trace_reader_close(r);
	if (err < 0) {
		pm_err("%s: %s", input, strerror(-err));
		return 1;
	}
	return 0;
}
