// SPDX-License-Identifier: GPL-2.0
/* One filtered, symbolized pass over a trace (see session.h). */
#include "input/session.h"
#include "trace_dir.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "symbols/kallsyms_cache.h"
#include "kernel_id.h"
#include "buildid_cache.h"
#include "util.h"

/* Cache tags for addresses that are not in a recorded address space. */
#define TAG_KERNEL	0xc0000000u
#define TAG_NOSPACE	0x80000000u	/* | pid: no MMAP seen for the process */
#define KERNEL_START	0xffff800000000000ULL
/* Comm ids interned first by session_open(). */
#define COMM_UNKNOWN	0
#define COMM_SWAPPER	1

/*
 * Whether the trace was recorded by the running kernel during this boot, so
 * /proc/kallsyms and our vDSO are its own.  1.2 traces name their boot;
 * older ones only their release and host name, which a reboot (KASLR) keeps.
 */
static bool same_kernel(const struct trace_header *h)
{
	char boot[64], host[256] = "";
	struct utsname u;

	if (h->boot_id[0])
		return !kernel_boot_id(boot, sizeof(boot)) && !strcmp(boot, h->boot_id);
	gethostname(host, sizeof(host) - 1);
	return !uname(&u) && !strcmp(u.release, h->kernel_release) &&
	       !strcmp(host, h->hostname);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* --archive FILE: extracted into a private directory that session_close() removes. */
static int open_archive(struct session *s, const char *file)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX];
	int err;

	snprintf(dir, sizeof(dir), "%s/pmiprof-archive.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		err = -errno;
		pm_err("--archive %s: cannot create a directory to extract it in %s: %s", file,
		       tmp && *tmp ? tmp : "/tmp", strerror(-err));
		return err;
	}
	s->archive_dir = strdup(dir);
	if (!s->archive_dir) {
		rmdir(dir);
		return -ENOMEM;
	}
	err = tar_extract(file, dir);
	if (err) {
		pm_err("--archive %s: %s", file, err == -EBADMSG ?
		       "not a tar archive (or a damaged one); make it with 'pmiprof archive'" :
		       strerror(-err));
		return err;
	}
	return archive_ids_load(&s->arch_ids, dir);
}

/* DIR/kallsyms/BOOT of the first build-id cache that has it, or NULL. */
static char *archived_kallsyms(const struct session *s, const char *boot)
{
	const char *dirs[] = { s->archive_dir, s->buildid_dir };
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		if (!dirs[i])
			continue;
		snprintf(path, sizeof(path), "%s/kallsyms/%s", dirs[i], boot);
		if (!access(path, R_OK))
			return strdup(path);
	}
	return NULL;
}

/*
 * Where binaries, debug files and kernel symbols come from: the build-id
 * caches (--archive, --buildid-dir or ~/.pmiprof/debug), --symfs, and for
 * the kernel either this boot's kallsyms or the trace's own boot's, never
 * another kernel's.
 */
static int lookup_setup(struct session *s)
{
	struct symbolizer_opts *so = &s->opts.sym;
	const struct trace_header *h = s->h;
	bool ours = same_kernel(h);
	char dflt[PATH_MAX];
	int err;

	if (s->opts.archive) {
		err = open_archive(s, s->opts.archive);
		if (err)
			return err;
	}
	dflt[0] = 0;
	if (s->opts.buildid_dir) {
		if (!is_dir(s->opts.buildid_dir)) {
			pm_err("--buildid-dir %s: not a directory", s->opts.buildid_dir);
			return -ENOTDIR;
		}
		pm_strlcpy(dflt, s->opts.buildid_dir, sizeof(dflt));
	} else if (!buildid_cache_dir(dflt, sizeof(dflt))) {
		/*
		 * The cache record fills ($PMIPROF_BUILDID_DIR, else
		 * ~/.pmiprof/debug), only when it exists: libdwfl's debug path
		 * takes absolute directories only.
		 */
		char abs[PATH_MAX];

		if (!is_dir(dflt) || !realpath(dflt, abs))
			dflt[0] = 0;
		else
			pm_strlcpy(dflt, abs, sizeof(dflt));
	}
	if (dflt[0] && !(s->buildid_dir = strdup(dflt)))
		return -ENOMEM;
	if (so->symfs && !is_dir(so->symfs)) {
		pm_err("--symfs %s: not a directory", so->symfs);
		return -ENOTDIR;
	}
	so->buildid_dirs[0] = s->archive_dir;
	so->buildid_dirs[1] = s->buildid_dir;
	so->perf_buildid_cache = h->input == PMIPROF_INPUT_PERF_DATA;
	so->own_vdso = ours;
	if (!so->kernel || so->kallsyms || ours)
		return 0;
	/* Another kernel's trace: its own kallsyms, or no kernel names at all. */
	if (h->boot_id[0] && kernel_boot_id_valid(h->boot_id)) {
		s->kallsyms_path = archived_kallsyms(s, h->boot_id);
		if (s->kallsyms_path) {
			so->kallsyms = s->kallsyms_path;
			return 0;
		}
		so->kallsyms_boot = h->boot_id;
	}
	if (asprintf(&s->kernel_note, "recorded by another kernel or boot (%s%s%s, boot %s) whose "
		     "kallsyms was not found; kernel addresses are not named with this "
		     "machine's (pass --kallsyms FILE, or --archive/--buildid-dir with an archive "
		     "made by 'pmiprof archive' on the recording machine)",
		     h->kernel_release[0] ? h->kernel_release : "release unknown",
		     h->hostname[0] ? " on " : "", h->hostname,
		     h->boot_id[0] ? h->boot_id : "unknown: trace format < 1.2") < 0) {
		s->kernel_note = NULL;
		return -ENOMEM;
	}
	so->kernel_note = s->kernel_note;
	return 0;
}

/*
 * A streamed input (pipe, FIFO) can be read once: a command that makes two
 * passes (phases, plot --phases) would wait forever on a FIFO's second
 * open, or read an empty pipe.  Refuse it by name instead.
 */
static int streamed_once(const char *input)
{
	static dev_t dev;
	static ino_t ino;
	static bool seen;
	struct stat st;

	if (stat(input, &st) || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
		return 0;
	if (seen && st.st_dev == dev && st.st_ino == ino) {
		pm_err("%s: not a regular file and already read once; this command reads its "
		       "input twice: save the trace to a file first", input);
		return -ESPIPE;
	}
	seen = true;
	dev = st.st_dev;
	ino = st.st_ino;
	return 0;
}

/*
 * --since/--until as the time filter: wall clock to the trace clock through
 * the header's pair of start times (both clocks read at the start); the
 * filter is in ns since the start, as --time's.
 */
static void session_walltime_filter(struct session *s)
{
	struct filters *f = &s->opts.filt;
	uint64_t r0 = s->h->start_realtime_ns, from = 0, to = UINT64_MAX;

	if (f->since_ns > r0)
		from = f->since_ns - r0;
	if (f->until_ns)
		to = f->until_ns > r0 ? f->until_ns - r0 : 0;
	if (f->have_time) {
		from = from > f->time_from ? from : f->time_from;
		to = to < f->time_to ? to : f->time_to;
	}
	f->time_from = from;
	f->time_to = to < from ? from : to;
	f->have_time = true;
}

static int session_tables_init(struct session *s);

/*
 * What session_open() and session_open_live() share once s->h is set: symbol
 * lookup, time scale, the wall-clock range (a file's --since/--until; a live
 * session has its own range), the symbolizer and the tables.  Closes the
 * session on error.  0 or -errno.
 */
static int session_setup(struct session *s, bool live)
{
	const struct trace_header *h = s->h;
	int err;

	s->hidden_sym = -1;
	/* Kernel symbols only when the trace has kernel IPs. */
	s->opts.sym.kernel = (h->flags & PMIPROF_TRACE_F_KERNEL_IPS) != 0;
	err = lookup_setup(s);
	s->time_scale = 1.0;
	if (h->clock_freq_hz && h->clock_freq_hz != 1000000000ULL)
		s->time_scale = 1e9 / (double)h->clock_freq_hz;
	if (h->start_time || live) {
		s->base_time = h->start_time;
		s->have_base = true;
	}
	if (!err && !live && (s->opts.filt.since_ns || s->opts.filt.until_ns))
		session_walltime_filter(s);
	if (!err)
		err = symbolizer_new(&s->sy, &s->opts.sym);
	if (!err)
		err = session_tables_init(s);
	if (err)
		session_close(s);
	return err;
}

int session_open(struct session *s, const struct session_opts *o)
{
	const char *input = o->input ? o->input : "pmiprof.data";
	int err;

	memset(s, 0, sizeof(*s));
	if (!strcmp(input, "-"))
		input = "/dev/stdin";	/* as dump -i - */
	s->opts = *o;
	s->opts.input = input;
	err = streamed_once(input);
	if (err)
		return err;
	err = trace_reader_open(&s->r, input, NULL, NULL);
	if (err)
		return err;
	s->h = trace_reader_header(s->r);
	return session_setup(s, false);
}

/* What a pass builds from the records (not the symbolizer): 0 or -errno. */
static int session_tables_init(struct session *s)
{
	int err = maps_init(&s->maps);

	s->memo_valid = false;
	if (!err)
		err = hm_init(&s->ipcache, 4096);
	if (!err)
		err = strtab_init(&s->comms);
	if (!err)
		err = hm_init(&s->tid2comm, 64);
	if (!err)
		err = regions_init(&s->reg);
	s->region = s->region_filter = REGIONS_NONE;
	if (!err && (strtab_intern(&s->comms, "[unknown]") != COMM_UNKNOWN ||
		     strtab_intern(&s->comms, "swapper") != COMM_SWAPPER))
		err = -ENOMEM;
	s->stack = SESSION_NO_STACK;
	if (!err && s->opts.stacks && s->h->call_graph != PMIPROF_CALL_GRAPH_NONE)
		err = s->opts.stacks->open(&s->cs, s, !s->opts.no_leaf_fixup);
	return err;
}

/* session_tables_init()'s undoing; the symbolizer stays. */
static void session_tables_free(struct session *s)
{
	/* The unwinder borrows the symbolizer and maps: it goes first. */
	if (s->cs)
		s->opts.stacks->close(s->cs);
	s->cs = NULL;
	if (s->maps.pid2as.slots)
		maps_free(&s->maps);
	hm_free(&s->ipcache);
	if (s->comms.map.slots)
		strtab_free(&s->comms);
	hm_free(&s->tid2comm);
	if (s->reg.names.map.slots)
		regions_free(&s->reg);
	memset(&s->maps, 0, sizeof(s->maps));
	memset(&s->comms, 0, sizeof(s->comms));
	memset(&s->reg, 0, sizeof(s->reg));
	free(s->sym_pass);
	s->sym_pass = NULL;
	s->cap_sym_pass = 0;
}

int session_open_live(struct session *s, const struct session_opts *o,
		      const struct trace_header *h)
{
	memset(s, 0, sizeof(*s));
	s->opts = *o;
	s->opts.input = "(live)";
	s->h = h;
	return session_setup(s, true);
}

int session_live_restart(struct session *s, bool new_symbolizer)
{
	int err = 0;

	session_tables_free(s);
	if (new_symbolizer) {
		symbolizer_free(s->sy);
		s->sy = NULL;
		s->sy_gen++;
		s->hidden_sym = -1;
		err = symbolizer_new(&s->sy, &s->opts.sym);
	}
	if (!err)
		err = session_tables_init(s);
	return err;
}

void session_close(struct session *s)
{
	if (s->r)
		trace_reader_close(s->r);
	session_tables_free(s);
	symbolizer_free(s->sy);
	free(s->lost_marks);
	if (s->archive_dir) {
		rm_tree(s->archive_dir);
		free(s->archive_dir);
		s->archive_dir = NULL;
	}
	free(s->buildid_dir);
	free(s->kallsyms_path);
	free(s->kernel_note);
	s->buildid_dir = s->kallsyms_path = s->kernel_note = NULL;
	archive_ids_free(&s->arch_ids);
	s->r = NULL;
	s->sy = NULL;
	s->sym_pass = NULL;
	s->lost_marks = NULL;
}

static inline uint64_t to_ns(const struct session *s, uint64_t t)
{
	if (t <= s->base_time)
		return 0;
	if (s->time_scale == 1.0)
		return t - s->base_time;
	return (uint64_t)((double)(t - s->base_time) * s->time_scale);
}

double session_duration_s(const struct session *s)
{
	uint64_t end = s->last_ns;

	if (s->have_finish && to_ns(s, s->finish.time) > end)
		end = to_ns(s, s->finish.time);
	return (double)end / 1e9;
}

/* Symbol for an address, slow path: not in the cache yet. */
static int64_t resolve_slow(struct session *s, uint32_t pid, uint64_t ip, uint32_t space,
			    uint32_t tag, bool cache)
{
	const struct map *m = NULL;
	int64_t sym;

	if (tag == TAG_KERNEL) {
		sym = symbolizer_resolve_kernel(s->sy, ip);
	} else if (space != HM_EMPTY && (m = maps_find(&s->maps, space, ip))) {
		if (m->dso == m->file_dso) {
			sym = symbolizer_resolve(s->sy, m->dso, ip - m->start + m->pgoff);
		} else {
			sym = symbolizer_jit_lookup(s->sy, m->dso, ip);
			if (sym == -ENOENT)
				sym = symbolizer_unknown(s->sy, m->file_dso);
		}
	} else {
		/* JIT code in anonymous memory the trace has no map for (e.g. synthesized). */
		sym = symbolizer_resolve_jit(s->sy, pid, ip);
		if (sym == -ENOENT)
			sym = symbolizer_unknown(s->sy, -1);
		/* The perf map is per process: not for the other users of a forked space. */
		if (space != HM_EMPTY && s->maps.as[space].refs > 1)
			cache = false;
	}
	if (sym >= 0 && cache && hm_put(&s->ipcache, ip, tag, (uint32_t)sym))
		return -ENOMEM;
	return sym;
}

static inline int64_t resolve_ip(struct session *s, uint32_t pid, uint64_t ip)
{
	uint32_t space, tag, v;
	bool cache = true;

	if (ip >= KERNEL_START) {
		space = HM_EMPTY;
		tag = TAG_KERNEL;
	} else if (s->memo_valid && s->memo_pid == pid) {
		/* most samples are of the same process as the one before */
		space = s->memo_space;
		tag = s->memo_tag;
		cache = space == HM_EMPTY || tag < TAG_NOSPACE;
	} else {
		space = maps_space(&s->maps, pid);
		tag = space != HM_EMPTY ? maps_tag(&s->maps, space) : TAG_NOSPACE | pid;
		s->memo_pid = pid;
		s->memo_space = space;
		s->memo_tag = tag;
		s->memo_tid = UINT32_MAX;
		s->memo_valid = true;
		/* 2^31 address-space changes: correct, only uncached from here on. */
		cache = space == HM_EMPTY || tag < TAG_NOSPACE;
	}
	if (cache) {
		v = hm_get(&s->ipcache, ip, tag);
		if (v != HM_EMPTY)
			return v;
	}
	return resolve_slow(s, pid, ip, space, tag, cache);
}

int session_locate_ip(struct session *s, uint32_t pid, uint64_t ip, uint32_t *dso,
		      uint64_t *off)
{
	uint32_t space;
	const struct map *m;

	if (ip >= KERNEL_START)
		return 0;
	space = maps_space(&s->maps, pid);
	if (space == HM_EMPTY || !(m = maps_find(&s->maps, space, ip)) || m->dso != m->file_dso)
		return 0;
	*dso = m->dso;
	*off = ip - m->start + m->pgoff;
	return 1;
}

int64_t session_resolve_ip(struct session *s, uint32_t pid, uint64_t ip)
{
	return resolve_ip(s, pid, ip);
}

static inline int64_t resolve(struct session *s, const struct trace_sample *smp)
{
	if (smp->flags & PMIPROF_SAMPLE_F_IP_HIDDEN) {
		if (s->hidden_sym < 0)
			s->hidden_sym = symbolizer_hidden_kernel(s->sy);
		return s->hidden_sym;
	}
	return resolve_ip(s, smp->pid, smp->ip);
}

static bool match_any(char **pats, uint32_t n, const char *a, const char *b)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (!fnmatch(pats[i], a, 0) || (b && !fnmatch(pats[i], b, 0)))
			return true;
	return false;
}

/*
 * A C++ name without its parameter list ("ns::f<int>(int) const" ->
 * "ns::f<int>") in buf, or NULL when it has none: --symbol NAME matches a
 * function by the name it was written with.
 */
static const char *without_params(const char *name, char *buf, size_t size)
{
	const char *close = strrchr(name, ')'), *p;
	int depth = 0;

	if (!close || close == name)
		return NULL;
	for (p = close; p > name; p--) {
		depth += *p == ')' ? 1 : *p == '(' ? -1 : 0;
		if (!depth)
			break;
	}
	if (depth || p == name || (size_t)(p - name) >= size)
		return NULL;
	memcpy(buf, name, (size_t)(p - name));
	buf[p - name] = 0;
	return buf;
}

/* Whether the --dso/--symbol filters keep sym (decided once per symbol). */
static int sym_kept(struct session *s, uint32_t sym)
{
	const struct filters *f = &s->opts.filt;

	if (sym >= s->cap_sym_pass) {
		uint32_t cap = s->cap_sym_pass ? s->cap_sym_pass : 256;
		uint8_t *n;

		while (cap <= sym)
			cap *= 2;
		n = realloc(s->sym_pass, cap);
		if (!n)
			return -ENOMEM;
		memset(n + s->cap_sym_pass, 0, cap - s->cap_sym_pass);
		s->sym_pass = n;
		s->cap_sym_pass = cap;
	}
	if (!s->sym_pass[sym]) {
		const struct sym *y = symbolizer_sym(s->sy, sym);
		const struct dso_info *d = symbolizer_dso_info(s->sy, y->dso);
		bool keep = true;

		if (f->nr_dsos && !match_any(f->dsos, f->nr_dsos, d->name, d->short_name))
			keep = false;
		char bare[1024];

		if (f->nr_symbols && !match_any(f->symbols, f->nr_symbols, y->name,
						without_params(y->name, bare, sizeof(bare))))
			keep = false;
		s->sym_pass[sym] = keep ? 1 : 2;
	}
	return s->sym_pass[sym] == 1;
}

static bool in_list(const uint32_t *v, uint32_t n, uint32_t x)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

uint32_t session_comm_of(const struct session *s, uint32_t pid, uint32_t tid)
{
	uint32_t c = hm_get(&s->tid2comm, tid, 0);

	if (c == HM_EMPTY)
		c = hm_get(&s->tid2comm, pid, 0);
	if (c == HM_EMPTY)
		/* The idle task has no COMM record; perf calls it swapper too. */
		return pid == 0 && tid == 0 ? COMM_SWAPPER : COMM_UNKNOWN;
	return c;
}

int session_classify(struct session *s, const struct trace_sample *smp, uint32_t *sym_out,
		     uint32_t *comm_out)
{
	const struct filters *f = &s->opts.filt;
	uint32_t comm;
	int64_t sym;
	int kept;

	if (f->nr_pids && !in_list(f->pids, f->nr_pids, smp->pid))
		return 0;
	if (f->nr_tids && !in_list(f->tids, f->nr_tids, smp->tid))
		return 0;
	sym = resolve(s, smp);
	if (sym < 0)
		return (int)sym;
	if (f->nr_dsos || f->nr_symbols) {
		kept = sym_kept(s, (uint32_t)sym);
		if (kept <= 0)
			return kept;
	}
	/* resolve() validated the memo for this pid, unless the IP was a kernel one */
	if (s->memo_valid && s->memo_pid == smp->pid && s->memo_tid == smp->tid) {
		comm = s->memo_comm;
	} else {
		comm = session_comm_of(s, smp->pid, smp->tid);
		if (s->memo_valid && s->memo_pid == smp->pid) {
			s->memo_tid = smp->tid;
			s->memo_comm = comm;
		}
	}
	if (f->nr_comms && !match_any(f->comms, f->nr_comms, session_comm(s, comm), NULL))
		return 0;
	*sym_out = (uint32_t)sym;
	*comm_out = comm;
	return 1;
}

static int on_sample(struct session *s, const struct trace_sample *smp, uint32_t chunk_seq,
		     const struct trace_ustack *us, session_sample_fn fn, void *arg)
{
	const struct filters *f = &s->opts.filt;
	uint64_t idx = s->samples++, ns;
	uint32_t sym, comm, i, n;
	int kept;

	if (!s->have_base) {
		s->base_time = smp->time;
		s->have_base = true;
	}
	ns = to_ns(s, smp->time);
	if (idx == 0 || ns < s->first_ns)
		s->first_ns = ns;
	if (ns > s->last_ns)
		s->last_ns = ns;
	if (f->have_window && (idx < f->win_from || idx > f->win_to))
		return 0;
	if (f->have_time && (ns < f->time_from || ns > f->time_to))
		return 0;
	/* the innermost region open on the thread when the window closed */
	s->region = (s->h->flags & PMIPROF_TRACE_F_REGIONS) ? regions_innermost(&s->reg, smp->tid) :
		    REGIONS_NONE;
	if (f->region && (s->region_filter == REGIONS_NONE ||
			  !regions_open_on(&s->reg, smp->tid, s->region_filter)))
		return 0;
	kept = session_classify(s, smp, &sym, &comm);
	if (kept <= 0)
		return kept;
	s->stack = SESSION_NO_STACK;
	if (s->cs) {
		int err = s->opts.stacks->resolve(s->cs, smp, chunk_seq, sym, us, &s->stack);

		if (err)
			return err;
	}
	s->kept++;
	session_count_window(s, smp->flags, 1);
	if (window_counts_events(smp->flags)) {
		n = smp->nr < PMIPROF_MAX_EVENTS ? smp->nr : PMIPROF_MAX_EVENTS;
		for (i = 0; i < n; i++)
			s->kept_totals[i] += smp->counts[i];
	}
	return fn ? fn(arg, smp, idx, sym, comm) : 0;
}

int session_sample(struct session *s, const struct trace_sample *smp, uint32_t chunk_seq,
		   const struct trace_ustack *us, session_sample_fn fn, void *arg)
{
	return on_sample(s, smp, chunk_seq, us, fn, arg);
}

int session_lost(struct session *s, const struct trace_lost *l)
{
	s->lost[l->reason < ARRAY_SIZE(s->lost) ? l->reason : 0] += l->count;
	/* markers, not samples: the region counts say so (print_meta_counts) */
	if (l->reason == PMIPROF_LOST_REGION_MARKERS)
		return 0;
	if (l->reason == PMIPROF_LOST_CPU_OFFLINE) {
		/* a time, not samples: nothing runs on an offline CPU */
		s->cpu_offline_ns += l->duration;
		s->cpu_offline_stretches++;
		return 0;
	}
	if (l->reason != PMIPROF_LOST_THROTTLE) {
		s->lost_total += l->count;
	} else if (s->h->version_minor == 0 && s->h->version_major == 1) {
		/* 1.0 recorders wrote an estimate of the windows a throttle cost. */
		s->throttle_est_windows += l->count;
	} else {
		/* Throttling loses no recorded sample: the sampler just stops. */
		s->throttle_events += l->count;
		s->throttled_ns += l->duration;
		if (!l->duration)
			s->throttle_no_duration += l->count;
	}
	if (s->nr_lost_marks < SESSION_LOST_MARKS) {
		if (!s->lost_marks) {
			s->lost_marks = malloc(SESSION_LOST_MARKS * sizeof(*s->lost_marks));
			if (!s->lost_marks)
				return -ENOMEM;
		}
		s->lost_marks[s->nr_lost_marks++] =
			(struct lost_mark){ l->time ? to_ns(s, l->time) : s->last_ns, l->count,
					    l->reason };
	}
	return 0;
}

static int on_mmap(struct session *s, const struct trace_mmap *m)
{
	const uint8_t *bid = m->build_id;
	uint32_t bid_len = m->build_id_len;
	int64_t dso, jit;

	s->mmaps++;
	/* Only code can hold a sampled IP. */
	if (m->prot && !(m->prot & PROT_EXEC))
		return 0;
	/* No build-id recorded: the archive read it from the file when it packed it. */
	if (!bid_len && m->path)
		bid_len = archive_ids_find(&s->arch_ids, m->path, &bid);
	dso = symbolizer_dso(s->sy, m->path ? m->path : "[unknown]", bid, bid_len);
	if (dso < 0)
		return (int)dso;
	if (m->path && symbolizer_is_anon(m->path)) {
		/*
		 * Code in anonymous memory (//anon, [anon:x], /memfd:x...) is JIT
		 * code: perf-PID.map names it by address.  The mapping process's
		 * map, as perf does, also for the children that inherit it.
		 */
		jit = symbolizer_jit_dso(s->sy, m->pid);
		if (jit < 0)
			return (int)jit;
		return maps_add_jit(&s->maps, m->pid, m->start, m->len, (uint32_t)jit,
				    (uint32_t)dso);
	}
	symbolizer_dso_mapped(s->sy, (uint32_t)dso, m->pgoff, m->len);
	return maps_add(&s->maps, m->pid, m->start, m->len, m->pgoff, (uint32_t)dso);
}

static int on_comm(struct session *s, const struct trace_comm *c)
{
	int64_t id = strtab_intern(&s->comms, c->comm ? c->comm : "");

	s->comm_records++;
	if (id < 0 || hm_put(&s->tid2comm, c->tid, 0, (uint32_t)id))
		return -ENOMEM;
	/* The new image's MMAP records follow the exec's COMM. */
	if ((c->flags & PMIPROF_COMM_F_EXEC) && c->pid == c->tid)
		return maps_exec(&s->maps, c->pid);
	return 0;
}

static int on_fork(struct session *s, const struct trace_task *t)
{
	uint32_t c = hm_get(&s->tid2comm, t->ptid, 0);

	s->forks++;
	if (c == HM_EMPTY)
		c = hm_get(&s->tid2comm, t->ppid, 0);
	if (c != HM_EMPTY && hm_put(&s->tid2comm, t->tid, 0, c))
		return -ENOMEM;
	return maps_fork(&s->maps, t->ppid, t->pid);
}

int session_apply_region(struct session *s, const struct trace_record *rec)
{
	int rc = 0;

	switch (rec->type) {
	case PMIPROF_REC_REGION_DEF:
		rc = regions_def(&s->reg, &rec->region_def);
		if (!rc && s->opts.filt.region && s->region_filter == REGIONS_NONE)
			s->region_filter = regions_find(&s->reg, s->opts.filt.region);
		break;
	case PMIPROF_REC_REGION:
		rc = regions_marker(&s->reg, &rec->region);
		break;
	case PMIPROF_REC_REGION_ANOMALY:
		regions_anomaly(&s->reg, &rec->region_anomaly);
		break;
	}
	return rc;
}

int session_apply_sideband(struct session *s, const struct trace_record *rec)
{
	/* address spaces and thread names may change */
	s->memo_valid = false;
	switch (rec->type) {
	case PMIPROF_REC_MMAP:
		return on_mmap(s, &rec->mmap);
	case PMIPROF_REC_COMM:
		return on_comm(s, &rec->comm);
	case PMIPROF_REC_FORK:
		return on_fork(s, &rec->task);
	default:
		return 0;
	}
}

int session_run(struct session *s, session_sample_fn fn, void *arg)
{
	struct trace_record rec;
	/*
	 * A USTACK belongs to the SAMPLE before it: when the stacks need one
	 * (dwarf, fp leaf words), a sample waits for the next record.
	 */
	bool wait_ustack = s->cs && (s->h->call_graph == PMIPROF_CALL_GRAPH_DWARF ||
				     (s->h->call_graph_flags & PMIPROF_CALL_GRAPH_F_LEAF_WORDS));
	struct trace_sample pending;
	uint32_t pending_seq = 0;
	bool have_pending = false;
	int rc;

	while ((rc = trace_reader_next(s->r, &rec)) > 0) {
		if (have_pending) {
			have_pending = false;
			rc = on_sample(s, &pending, pending_seq,
				       rec.type == PMIPROF_REC_USTACK ? &rec.ustack : NULL, fn, arg);
			if (rc)
				return rc;
			if (rec.type == PMIPROF_REC_USTACK)
				continue;
		}
		switch (rec.type) {
		case PMIPROF_REC_SAMPLE:
			if (wait_ustack) {
				pending = rec.sample;
				pending_seq = rec.chunk_seq;
				have_pending = true;
				rc = 0;
				break;
			}
			rc = on_sample(s, &rec.sample, rec.chunk_seq, NULL, fn, arg);
			break;
		case PMIPROF_REC_MMAP:
		case PMIPROF_REC_COMM:
		case PMIPROF_REC_FORK:
			rc = session_apply_sideband(s, &rec);
			break;
		case PMIPROF_REC_LOST:
			rc = session_lost(s, &rec.lost);
			break;
		case PMIPROF_REC_FINISH:
			s->have_finish = true;
			s->finish = rec.finish;
			rc = 0;
			break;
		case PMIPROF_REC_MARK:
			s->marks++;
			rc = 0;
			break;
		case PMIPROF_REC_STACK:
			rc = s->cs ? s->opts.stacks->define(s->cs, rec.chunk_seq, &rec.stack) : 0;
			break;
		case PMIPROF_REC_REGION_DEF:
		case PMIPROF_REC_REGION:
		case PMIPROF_REC_REGION_ANOMALY:
			rc = session_apply_region(s, &rec);
			break;
		case PMIPROF_REC_EXIT:
		case PMIPROF_REC_CALLCHAIN:
		case PMIPROF_REC_USTACK:	/* without a sample waiting: not needed */
			rc = 0;
			break;
		default:
			s->unknown_records++;
			rc = 0;
			break;
		}
		if (rc)
			return rc;
	}
	if (have_pending && rc >= 0) {
		int r2 = on_sample(s, &pending, pending_seq, NULL, fn, arg);

		if (r2)
			return r2;
	}
	if (!rc)
		s->read_all = true;
	return rc;
}

const char *session_unfinished(const struct session *s)
{
	const struct trace_read_stats *st = trace_reader_stats(s->r);

	if (!s->read_all)
		return NULL;	/* stopped early (--limit): the FINISH may lie ahead */
	if (!s->have_finish)
		return st->chunks_bad || st->truncated ?
		       "the recording did not finish or its end is damaged (no FINISH record); "
		       "the trace may end early" :
		       "the recording did not finish (no FINISH record: recorder killed, "
		       "crashed or out of disk space?); the trace may end early";
	if (s->finish.flags & PMIPROF_FINISH_F_ERROR)
		return "the recorder stopped on an error (FINISH flag error); the trace may end "
		       "early";
	if (s->finish.flags & PMIPROF_FINISH_F_INTERRUPTED)
		return "the recording was interrupted (SIGINT/SIGTERM/SIGHUP); the trace covers "
		       "the run up to then";
	return NULL;
}

/* --symbol kept no sample: name up to three symbols that contain a pattern's text. */
static void suggest_symbols(const struct session *s)
{
	const struct filters *f = &s->opts.filt;
	uint32_t n = symbolizer_nr_syms(s->sy), i, j, found = 0;
	char like[512], list[1024] = "";
	size_t len = 0;

	for (j = 0; j < f->nr_symbols && found < 3; j++) {
		snprintf(like, sizeof(like), "*%s*", f->symbols[j]);
		for (i = 0; i < n && found < 3; i++) {
			const char *name = symbolizer_sym(s->sy, i)->name;

			if (!fnmatch(like, name, 0) && len < sizeof(list))
				len += (size_t)snprintf(list + len, sizeof(list) - len, "%s'%s'",
							found++ ? ", " : "", name);
		}
	}
	pm_warn("--symbol matched no sample's function (a pattern matches the whole name, or "
		"the name without its parameter list)%s%s", found ? "; names containing it: " : "",
		list);
}

void session_print_warnings(const struct session *s, bool quiet)
{
	const struct trace_read_stats *st = trace_reader_stats(s->r);
	const char *unfinished = session_unfinished(s);
	uint64_t drop = s->lost_total - s->lost[PMIPROF_LOST_UNREADABLE] -
			s->lost[PMIPROF_LOST_TRUNCATED];

	if (st->chunks_bad || st->truncated || st->bytes_skipped)
		pm_warn("%s is damaged: %" PRIu64 " bad chunk(s), %" PRIu64 " record(s) lost, "
			"%" PRIu64 " byte(s) not decoded%s; the report covers the readable "
			"part (%" PRIu64 " samples)", s->opts.input, st->chunks_bad,
			st->records_lost, st->bytes_skipped,
			st->truncated ? ", file truncated" : "", s->samples);
	if (st->second_trace_at)
		pm_warn("%s holds a second recording from offset %" PRIu64 " (traces "
			"concatenated?): only the first was read, the %" PRIu64 " bytes of the "
			"second are ignored; split the file to read it", s->opts.input,
			st->second_trace_at, st->second_trace_bytes);
	if (s->summaries_bad)
		pm_warn("%s: %" PRIu64 " chunk summar%s damaged; those chunks were decoded "
			"sample by sample instead (the profile is complete)", s->opts.input,
			s->summaries_bad, s->summaries_bad == 1 ? "y is" : "ies are");
	if (unfinished)
		pm_warn("%s: %s", s->opts.input, unfinished);
	if (drop)
		pm_warn("%" PRIu64 " sample(s) were lost during recording (ring full %" PRIu64
			", write errors %" PRIu64 ")", drop, s->lost[PMIPROF_LOST_RING_FULL],
			s->lost[PMIPROF_LOST_WRITE]);
	if (s->lost[PMIPROF_LOST_REGION_MARKERS])
		pm_warn("%" PRIu64 " code-region marker(s) were dropped in the workload (marker ring "
			"full): windows inside those regions count for the enclosing region or "
			"[no region]", s->lost[PMIPROF_LOST_REGION_MARKERS]);
	if (s->cpu_offline_stretches)
		pm_warn("%" PRIu32 " time(s) a CPU went offline and was not recorded, %.3f s of "
			"CPU time in all (LOST cpu-offline): what ran on it just after it came "
			"back may be missing", s->cpu_offline_stretches,
			(double)s->cpu_offline_ns / 1e9);
	if (s->throttle_events)
		pm_warn("the kernel throttled sampling %" PRIu64 " time(s) for %.3f s%s: fewer "
			"samples in those stretches", s->throttle_events,
			(double)s->throttled_ns / 1e9,
			s->throttle_no_duration ? " (some of unknown length)" : "");
	if (s->throttle_est_windows)
		pm_warn("the kernel throttled sampling (about %" PRIu64 " windows, estimated by "
			"the recorder): fewer samples in those stretches", s->throttle_est_windows);
	if (s->maps.dropped)
		pm_warn("%" PRIu64 " executable mapping(s) ignored: more than %u per process or %u "
			"in all (a hostile or broken trace?); samples in them may show as [unknown]",
			s->maps.dropped, MAPS_MAX_PER_SPACE, MAPS_MAX_TOTAL);
	if (!quiet) {
		symbolizer_print_warnings(s->sy);
		if (s->cs)
			s->opts.stacks->print_warnings(s->cs);
	}
	if (!quiet && !s->kept && s->opts.filt.nr_symbols)
		suggest_symbols(s);
}

/* ---- shared filter options ---- */

static int add_u32_list(uint32_t **v, uint32_t *n, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t x = UINT32_MAX;
		uint32_t *nv;

		/* -1: the kernel's "no task" (samples on an exit path, -a) */
		if (strcmp(tok, "-1") && pm_parse_u64(tok, 0, UINT32_MAX, &x)) {
			err = -EINVAL;
			break;
		}
		nv = realloc(*v, (*n + 1) * sizeof(**v));
		if (!nv) {
			err = -ENOMEM;
			break;
		}
		*v = nv;
		(*v)[(*n)++] = (uint32_t)x;
	}
	free(copy);
	return err;
}

static int add_str_list(char ***v, uint32_t *n, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char **nv = realloc(*v, (*n + 1) * sizeof(**v));

		if (!nv || !((*v = nv)[*n] = strdup(tok))) {
			err = -ENOMEM;
			break;
		}
		(*n)++;
	}
	free(copy);
	return err;
}

/* Seconds with an optional unit (s, ms, us, ns) into ns; empty = default. */
static int parse_seconds(const char *s, size_t len, uint64_t dflt, uint64_t *out)
{
	char buf[64], *end;
	double v, mul = 1e9;

	if (!len) {
		*out = dflt;
		return 0;
	}
	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = 0;
	v = strtod(buf, &end);
	if (end == buf || v < 0)
		return -EINVAL;
	if (!strcmp(end, "ms"))
		mul = 1e6;
	else if (!strcmp(end, "us"))
		mul = 1e3;
	else if (!strcmp(end, "ns"))
		mul = 1;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	*out = (uint64_t)(v * mul + 0.5);
	return 0;
}

int session_filter_option(struct session_opts *o, int code, const char *arg, const char *cmd)
{
	struct filters *f = &o->filt;
	const char *sep;
	int err = 0;

	switch (code) {
	case 'i':
		o->input = arg;
		return 0;
	case 'q':
		pm_quiet = true;
		return 0;
	case OPT_FILTER_PID:
		err = add_u32_list(&f->pids, &f->nr_pids, arg);
		break;
	case OPT_FILTER_TID:
		err = add_u32_list(&f->tids, &f->nr_tids, arg);
		break;
	case OPT_FILTER_COMM:
		err = add_str_list(&f->comms, &f->nr_comms, arg);
		break;
	case OPT_FILTER_DSO:
		err = add_str_list(&f->dsos, &f->nr_dsos, arg);
		break;
	case OPT_FILTER_SYMBOL:
		err = add_str_list(&f->symbols, &f->nr_symbols, arg);
		break;
	case OPT_FILTER_SINCE:
	case OPT_FILTER_UNTIL:
		/* wall clock (lib/trace_dir.c); directories of segments are cut to it */
		if (trace_parse_walltime(arg, pm_realtime_ns(), code == OPT_FILTER_SINCE ?
					 &f->since_ns : &f->until_ns))
			return pm_usage_error(cmd, "--%s '%s': expected an RFC 3339 time "
					      "(2026-11-28T10:36:11Z) or one relative to now "
					      "(-10m, -30s, -2h, -1d)", code == OPT_FILTER_SINCE ?
					      "since" : "until", arg);
		trace_dir_set_range(f->since_ns, f->until_ns);
		return 0;
	case OPT_FILTER_TIME:
		sep = strchr(arg, ',');
		if (!sep ||
		    parse_seconds(arg, (size_t)(sep - arg), 0, &f->time_from) ||
		    parse_seconds(sep + 1, strlen(sep + 1), UINT64_MAX, &f->time_to) ||
		    f->time_from > f->time_to)
			return pm_usage_error(cmd, "--time '%s': expected START,END in seconds "
					      "since the start (e.g. 0.5,2 or 100ms,), START <= END",
					      arg);
		f->have_time = true;
		return 0;
	case OPT_FILTER_WINDOW:
		sep = strchr(arg, '-');
		{
			char a[32];
			size_t la = sep ? (size_t)(sep - arg) : strlen(arg);

			if (la >= sizeof(a))
				la = sizeof(a) - 1;
			memcpy(a, arg, la);
			a[la] = 0;
			f->win_from = 0;
			f->win_to = UINT64_MAX;
			if ((la && pm_parse_u64(a, 0, UINT64_MAX, &f->win_from)) ||
			    (!sep && pm_parse_u64(a, 0, UINT64_MAX, &f->win_to)) ||
			    (sep && sep[1] && pm_parse_u64(sep + 1, 0, UINT64_MAX, &f->win_to)) ||
			    (!la && !sep) || f->win_from > f->win_to)
				return pm_usage_error(cmd, "--window '%s': expected A-B (window "
						      "indexes, A <= B; A- or -B open-ended)", arg);
		}
		f->have_window = true;
		return 0;
	case OPT_FILTER_REGION:
		f->region = arg;
		return 0;
	case OPT_KALLSYMS:
		o->sym.kallsyms = arg;
		return 0;
	case OPT_JIT_DIR:
		o->sym.jit_dir = arg;
		return 0;
	case OPT_SYMFS:
		o->sym.symfs = arg;
		return 0;
	case OPT_BUILDID_DIR:
		o->buildid_dir = arg;
		return 0;
	case OPT_ARCHIVE:
		o->archive = arg;
		return 0;
	default:
		return pm_usage_error(cmd, "internal: unknown filter option");
	}
	if (err == -EINVAL)
		return pm_usage_error(cmd, "bad list '%s': expected numbers separated by commas",
				      arg);
	if (err) {
		pm_err("out of memory");
		return 1;
	}
	return 0;
}

void session_opts_free(struct session_opts *o)
{
	struct filters *f = &o->filt;
	uint32_t i;

	for (i = 0; i < f->nr_comms; i++)
		free(f->comms[i]);
	for (i = 0; i < f->nr_dsos; i++)
		free(f->dsos[i]);
	for (i = 0; i < f->nr_symbols; i++)
		free(f->symbols[i]);
	free(f->comms);
	free(f->dsos);
	free(f->symbols);
	free(f->pids);
	free(f->tids);
	memset(f, 0, sizeof(*f));
}
