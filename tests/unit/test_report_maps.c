// SPDX-License-Identifier: GPL-2.0
/*
 * Address spaces in the report under load, on generated traces: thousands
 * of executable mappings with a sample after each must keep memory
 * O(mappings) (peak RSS growth bounded, and under an address-space limit
 * the old copy-per-version design exceeds) while every sample still
 * resolves to the mapping current at its place in the trace, sequentially
 * and in the parallel pass; hostile counts of mappings are capped and
 * counted; the idle task (pid 0, tid 0) is named swapper; symbol caches
 * keep one file in two processes and two builds of one path apart.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "pmiprof/trace.h"
#include "input/maps.h"
#include "analysis/parallel.h"
#include "analysis/profile.h"
#include "input/session.h"

#define PID		77
#define START_NS	1000000000ULL
#define N_MAPS		9000
#define MAP_BASE	0x10000000ULL
#define MAP_STEP	0x10000ULL
#define REMAP_ADDR	0x7f0000000000ULL	/* replaced every REMAP_EVERY mappings */
#define REMAP_EVERY	1000
#define GEN_TAG		100000			/* counts[0] of a REMAP_ADDR sample: GEN_TAG + gen */
#define RSS_LIMIT_KB	(50 * 1024)
#define AS_HEADROOM	(512ULL << 20)		/* the old design needed ~1.8 GB here */

static void header(struct trace_header *h, uint32_t flags)
{
	memset(h, 0, sizeof(*h));
	h->flags = flags;
	snprintf(h->hostname, sizeof(h->hostname), "testhost");
	h->nr_events = 1;
	snprintf(h->events[0].name, sizeof(h->events[0].name), "cpu-clock");
	h->events[0].flags = PMIPROF_EVENT_F_TRIGGER;
	h->period = 100000;
	h->mode = PMIPROF_MODE_PERF;
	h->backend = PMIPROF_BACKEND_PERF;
	h->clock_id = 1;
	h->clock_freq_hz = 1000000000ULL;
	h->start_time = START_NS;
	snprintf(h->clock_name, sizeof(h->clock_name), "monotonic");
	h->nr_cpus = 2;
	h->cmdline_argc = 1;
	snprintf(h->cmdline, sizeof(h->cmdline), "synthetic");
}

static void put_mmap(struct trace_writer *w, uint64_t t, uint64_t start, const char *path)
{
	struct trace_mmap m;

	memset(&m, 0, sizeof(m));
	m.time = t;
	m.pid = m.tid = PID;
	m.start = start;
	m.len = 0x1000;
	m.prot = 5;
	m.path = path;
	assert_int_equal(trace_write_mmap(w, &m), 0);
}

/* counts[0] carries which mapping the sample must resolve to. */
static void put_sample(struct trace_writer *w, uint64_t t, uint64_t ip, uint64_t expect)
{
	struct trace_sample s;

	memset(&s, 0, sizeof(s));
	s.time = t;
	s.pid = s.tid = PID;
	s.flags = PMIPROF_SAMPLE_F_USER;
	s.ip = ip;
	s.nr = 1;
	s.counts[0] = expect;
	assert_int_equal(trace_write_sample(w, &s), 0);
}

/*
 * N_MAPS mappings at distinct addresses, each followed by a sample in it;
 * every REMAP_EVERY of them, REMAP_ADDR is mapped by a new file and
 * sampled, so a later file must not claim an earlier sample or vice versa.
 */
static void write_many_maps(const char *path)
{
	struct trace_writer_opts wo = { .level = 1, .chunk_size = 16384 };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_comm c;
	uint64_t t = START_NS;
	char name[64];
	uint32_t i;

	header(&h, 0);
	assert_int_equal(trace_writer_open(&w, path, &h, &wo), 0);
	c = (struct trace_comm){ t, PID, PID, PMIPROF_COMM_F_EXEC, "manymaps" };
	assert_int_equal(trace_write_comm(w, &c), 0);
	for (i = 0; i < N_MAPS; i++) {
		snprintf(name, sizeof(name), "/nonexistent/pmiprof-maps/lib%u.so", i);
		put_mmap(w, ++t, MAP_BASE + i * MAP_STEP, name);
		put_sample(w, ++t, MAP_BASE + i * MAP_STEP + 0x10, i);
		if (i % REMAP_EVERY == 0) {
			snprintf(name, sizeof(name), "/nonexistent/pmiprof-maps/gen%u.so",
				 i / REMAP_EVERY);
			put_mmap(w, ++t, REMAP_ADDR, name);
			put_sample(w, ++t, REMAP_ADDR + 0x20, GEN_TAG + i / REMAP_EVERY);
		}
	}
	assert_int_equal(trace_writer_close(w), 0);
}

struct check {
	struct session *s;
	uint64_t seen, wrong;
};

static int check_sample(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
			uint32_t comm)
{
	struct check *c = arg;
	const struct sym *y = symbolizer_sym(c->s->sy, sym);
	const char *dso = symbolizer_dso_info(c->s->sy, y->dso)->short_name;
	char want[32];

	(void)index;
	(void)comm;
	if (smp->counts[0] >= GEN_TAG)
		snprintf(want, sizeof(want), "gen%u.so", (unsigned)(smp->counts[0] - GEN_TAG));
	else
		snprintf(want, sizeof(want), "lib%u.so", (unsigned)smp->counts[0]);
	c->seen++;
	if (strcmp(dso, want))
		c->wrong++;
	return 0;
}

static long max_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* Exit status of the child pass: 0 ok, 1 error, 2 wrong mappings, 3 too much memory. */
static int many_maps_pass(const char *path)
{
	struct session_opts o = { .input = path };
	struct session s;
	struct profile p;
	struct check c = { 0 };
	uint32_t i, gens = 0, libs = 0;
	long before = max_rss_kb();
	bool par;
	char name[64];

	if (session_open(&s, &o))
		return 1;
	c.s = &s;
	if (session_run(&s, check_sample, &c))
		return 1;
	if (c.seen != N_MAPS + N_MAPS / REMAP_EVERY || c.wrong || s.maps.dropped)
		return 2;
	session_close(&s);
	/* The parallel pass replays the side-band between its aggregates. */
	if (session_open(&s, &o) || profile_init(&p, &s, BY_DSO, NULL, 0))
		return 1;
	par = parallel_eligible(&s, &p);
	if (par ? parallel_profile(&s, &p) : session_run(&s, profile_add_sample, &p))
		return 1;
	for (i = 0; i < p.nr_rows; i++) {
		const char *n = profile_row_name(&p, &p.rows[i], name, sizeof(name));

		if (p.rows[i].samples == 1 && strstr(n, "/gen"))
			gens++;
		else if (p.rows[i].samples == 1 && strstr(n, "/lib"))
			libs++;
	}
	if (gens != N_MAPS / REMAP_EVERY || libs != N_MAPS)
		return 2;
	profile_free(&p);
	session_close(&s);
	printf("# %s pass ok; peak RSS growth %ld kB for %u mappings\n",
	       par ? "sequential and parallel" : "sequential (twice)", max_rss_kb() - before,
	       N_MAPS);
	fflush(stdout);
	return max_rss_kb() - before < RSS_LIMIT_KB ? 0 : 3;
}

static void many_mappings_stay_small_and_resolve_at_their_time(void **state)
{
	char path[64];
	int status;
	pid_t pid;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/pmiprof-maps-%d.data", (int)getpid());
	write_many_maps(path);
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* Bounded address space: a blow-up fails here instead of eating the machine. */
		struct rlimit rl;
		unsigned long long vm = 0;
		FILE *f = fopen("/proc/self/statm", "r");

		if (!f || fscanf(f, "%llu", &vm) != 1)
			_exit(1);
		fclose(f);
		rl.rlim_cur = rl.rlim_max = vm * (unsigned long long)sysconf(_SC_PAGESIZE) +
					    AS_HEADROOM;
		setrlimit(RLIMIT_AS, &rl);
		_exit(many_maps_pass(path));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	unlink(path);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void mappings_beyond_the_bound_are_dropped_and_counted(void **state)
{
	struct maps m;
	uint32_t i, sp;

	(void)state;
	assert_int_equal(maps_init(&m), 0);
	for (i = 0; i < MAPS_MAX_PER_SPACE + 10; i++)
		assert_int_equal(maps_add(&m, 1, 0x100000 + (uint64_t)i * 0x2000, 0x1000, 0, i), 0);
	sp = maps_space(&m, 1);
	assert_int_equal(m.as[sp].n, MAPS_MAX_PER_SPACE);
	assert_int_equal(m.dropped, 10);
	/* Replacing in place needs no room: still accepted at the bound. */
	assert_int_equal(maps_add(&m, 1, 0x100000, 0x1000, 0, 999999), 0);
	assert_int_equal(maps_find(&m, sp, 0x100010)->dso, 999999);
	assert_int_equal(m.dropped, 10);
	/* Forked children that each map one more page copy the space: bounded in all. */
	for (i = 0; i < 100; i++) {
		assert_int_equal(maps_fork(&m, 1, 1000 + i), 0);
		assert_int_equal(maps_add(&m, 1000 + i, 0x100000, 0x1000, 0, 7), 0);
		assert_true(m.total <= MAPS_MAX_TOTAL);
		/* Dropped or not, the child still sees the maps it inherited. */
		assert_non_null(maps_find(&m, maps_space(&m, 1000 + i), 0x100000 + 0x2000 * 5));
	}
	assert_true(m.dropped >= 10 + 100 - MAPS_MAX_TOTAL / MAPS_MAX_PER_SPACE);
	maps_free(&m);
}

struct comms {
	struct session *s;
	char comm[3][32];
	char sym[3][64];
	uint32_t n;
};

static int record_comm(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
		       uint32_t comm)
{
	struct comms *c = arg;

	(void)smp;
	(void)index;
	if (c->n < 3) {
		snprintf(c->comm[c->n], sizeof(c->comm[0]), "%s", session_comm(c->s, comm));
		snprintf(c->sym[c->n], sizeof(c->sym[0]), "%s", symbolizer_sym(c->s->sy, sym)->name);
	}
	c->n++;
	return 0;
}

static void idle_task_is_swapper(void **state)
{
	char path[64], ksyms[64];
	struct trace_writer_opts wo = { .level = 1 };
	struct session_opts o = { 0 };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_sample smp;
	struct trace_comm cm;
	struct comms c = { 0 };
	struct session s;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/pmiprof-idle-%d.data", (int)getpid());
	snprintf(ksyms, sizeof(ksyms), "/tmp/pmiprof-idle-%d.kallsyms", (int)getpid());
	f = fopen(ksyms, "w");
	assert_non_null(f);
	fprintf(f, "ffffffff81000000 T _stext\nffffffff81001000 t default_idle\n");
	fclose(f);
	header(&h, PMIPROF_TRACE_F_KERNEL_IPS | PMIPROF_TRACE_F_SYSTEM_WIDE);
	assert_int_equal(trace_writer_open(&w, path, &h, &wo), 0);
	memset(&smp, 0, sizeof(smp));
	smp.time = START_NS + 1;
	smp.ip = 0xffffffff81001010ULL;		/* idle: pid 0, tid 0, no COMM record */
	smp.nr = 1;
	smp.counts[0] = 1;
	assert_int_equal(trace_write_sample(w, &smp), 0);
	smp.pid = smp.tid = 55;			/* a task the trace never named */
	assert_int_equal(trace_write_sample(w, &smp), 0);
	cm = (struct trace_comm){ START_NS, 0, 0, 0, "idle0" };
	assert_int_equal(trace_write_comm(w, &cm), 0);
	smp.pid = smp.tid = 0;			/* a COMM record, when there is one, wins */
	assert_int_equal(trace_write_sample(w, &smp), 0);
	assert_int_equal(trace_writer_close(w), 0);

	o.input = path;
	o.sym.kallsyms = ksyms;
	assert_int_equal(session_open(&s, &o), 0);
	c.s = &s;
	assert_int_equal(session_run(&s, record_comm, &c), 0);
	assert_int_equal(c.n, 3);
	assert_string_equal(c.comm[0], "swapper");
	assert_string_equal(c.sym[0], "default_idle");
	assert_string_equal(c.comm[1], "[unknown]");
	assert_string_equal(c.comm[2], "idle0");
	session_close(&s);
	unlink(path);
	unlink(ksyms);
}

/* ---- one file in two processes; one path, two files ---- */

/* File offset of function name in ELF path (its .symtab), or 0. */
static uint64_t elf_func_off(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY);
	Elf *e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	uint64_t vaddr = 0, off = 0;
	size_t i, n;

	while (e && !vaddr && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *nm;

			if (gelf_getsym(d, (int)i, &sym) &&
			    (nm = elf_strptr(e, sh.sh_link, sym.st_name)) && !strcmp(nm, name)) {
				vaddr = sym.st_value;
				break;
			}
		}
	}
	if (e && vaddr && !elf_getphdrnum(e, &n))
		for (i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz)
				off = vaddr - ph.p_vaddr + ph.p_offset;
		}
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return off;
}

/* The GNU build-id of ELF path into bid (20 bytes at most): its length, or 0. */
static uint32_t elf_build_id(const char *path, uint8_t *bid)
{
	int fd = open(path, O_RDONLY);
	Elf *e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	uint32_t len = 0;

	while (e && !len && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *d;
		size_t o = 0, no, dofs;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		while ((o = gelf_getnote(d, o, &nh, &no, &dofs)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz <= 20 &&
			    !memcmp((char *)d->d_buf + no, "GNU", 4)) {
				memcpy(bid, (char *)d->d_buf + dofs, nh.n_descsz);
				len = nh.n_descsz;
				break;
			}
	}
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return len;
}

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n;

	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
}

#define XFER_REPEAT	3000	/* samples per case: the parallel pass gets several chunks */
#define XFER_CASES	7

struct xcase {
	uint32_t pid;
	uint64_t ip;
	const char *want;	/* the symbol, or with '!' one it must not be */
};

struct xcheck {
	struct session *s;
	const struct xcase *cases;
	uint64_t seen, wrong;
};

static bool xname_ok(const struct xcase *c, const char *name)
{
	return c->want[0] == '!' ? strcmp(name, c->want + 1) != 0 : !strcmp(name, c->want);
}

static int xcheck_sample(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
			 uint32_t comm)
{
	struct xcheck *x = arg;
	const struct xcase *c = &x->cases[smp->counts[0]];
	const char *name = symbolizer_sym(x->s->sy, sym)->name;

	(void)index;
	(void)comm;
	x->seen++;
	if (!xname_ok(c, name) && x->wrong++ < 3) {
		print_message("# pid %u ip 0x%" PRIx64 ": %s, want %s\n", smp->pid, smp->ip, name,
			      c->want);
	}
	return 0;
}

static void put_map(struct trace_writer *w, uint64_t *t, uint32_t pid, uint64_t start,
		    const char *path, const uint8_t *bid, uint32_t bid_len)
{
	struct trace_mmap m;

	memset(&m, 0, sizeof(m));
	m.time = ++*t;
	m.pid = m.tid = pid;
	m.start = start;
	m.len = 0x4000;
	m.prot = 5;
	m.path = path;
	m.build_id_len = bid_len;
	memcpy(m.build_id, bid, bid_len);
	assert_int_equal(trace_write_mmap(w, &m), 0);
}

/*
 * Symbols are cached per (DSO, file offset) across address spaces and per
 * (space, ip): one file mapped by two processes at different addresses
 * names each process's samples by its own mapping (and an address only
 * the other process maps stays unknown); a path whose file was replaced
 * between two mmaps (another build-id: the first build is found in the
 * build-id cache) names each mapping's samples from its own build, also
 * at the same file offset.  Sequential and parallel passes alike.
 */
static void one_file_two_spaces_and_a_replaced_file_resolve_apart(void **state)
{
	char exe[PATH_MAX], a[PATH_MAX + 32], b[PATH_MAX + 32], dir[64], path[96], cached[160];
	char data[128], hex[48];
	struct xcase cases[XFER_CASES];
	uint8_t bid_a[20], bid_b[20];
	uint32_t la, lb, i, k;
	uint64_t one_a, two_a, spin_b, t = START_NS;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const uint64_t x4 = 0x400000000ULL, x5 = 0x500000000ULL, y = 0x300000000ULL;
	struct trace_writer_opts wo = { .level = 1, .chunk_size = 16384 };
	struct session_opts o = { 0 };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_comm c;
	struct session s;
	struct profile p;
	struct xcheck x = { 0 };

	(void)state;
	assert_true(n > 0);
	exe[n] = 0;
	*strrchr(exe, '/') = 0;		/* BUILD/tests */
	snprintf(a, sizeof(a), "%s/../workloads/threads2", exe);
	snprintf(b, sizeof(b), "%s/../workloads/pie_libcall", exe);
	if (access(a, R_OK) || access(b, R_OK))
		skip();			/* workloads not built */
	elf_version(EV_CURRENT);
	one_a = elf_func_off(a, "busy_one");
	two_a = elf_func_off(a, "busy_two");
	spin_b = elf_func_off(b, "pie_local_spin");
	la = elf_build_id(a, bid_a);
	lb = elf_build_id(b, bid_b);
	assert_true(one_a && two_a && spin_b && la && lb && one_a < 0x4000 && spin_b < 0x4000);

	/* the path holds the second file; the build-id cache the first one */
	snprintf(dir, sizeof(dir), "/tmp/pmiprof-xfer-%d", (int)getpid());
	snprintf(path, sizeof(path), "%s/libx.so", dir);
	assert_int_equal(mkdir(dir, 0700), 0);
	copy_file(b, path);
	for (i = 0; i < la; i++)
		snprintf(hex + 2 * i, 3, "%02x", bid_a[i]);
	snprintf(cached, sizeof(cached), "%s/.build-id", dir);
	assert_int_equal(mkdir(cached, 0700), 0);
	snprintf(cached, sizeof(cached), "%s/.build-id/%.2s", dir, hex);
	assert_int_equal(mkdir(cached, 0700), 0);
	snprintf(cached, sizeof(cached), "%s/.build-id/%.2s/%s", dir, hex, hex + 2);
	copy_file(a, cached);

	cases[0] = (struct xcase){ 4, x4 + two_a, "busy_two" };
	cases[1] = (struct xcase){ 5, x5 + one_a, "busy_one" };
	cases[2] = (struct xcase){ 5, x4 + two_a, "!busy_two" };	/* pid 4's, unmapped in 5 */
	cases[3] = (struct xcase){ 4, x5 + one_a, "!busy_one" };
	cases[4] = (struct xcase){ 3, y + one_a, "busy_one" };		/* libx.so, first build */
	cases[5] = (struct xcase){ 3, y + spin_b, "pie_local_spin" };	/* after exec: rebuilt */
	cases[6] = (struct xcase){ 3, y + one_a, "!busy_one" };

	snprintf(data, sizeof(data), "%s/t.data", dir);
	header(&h, 0);
	assert_int_equal(trace_writer_open(&w, data, &h, &wo), 0);
	put_map(w, &t, 4, x4, a, bid_a, la);
	put_map(w, &t, 5, x5, a, bid_a, la);
	put_map(w, &t, 3, y, path, bid_a, la);
	for (i = 0; i < XFER_CASES; i++) {
		if (i == 5) {
			c = (struct trace_comm){ ++t, 3, 3, PMIPROF_COMM_F_EXEC, "rebuilt" };
			assert_int_equal(trace_write_comm(w, &c), 0);
			put_map(w, &t, 3, y, path, bid_b, lb);
		}
		for (k = 0; k < XFER_REPEAT; k++) {
			struct trace_sample smp;

			memset(&smp, 0, sizeof(smp));
			smp.time = ++t;
			smp.pid = smp.tid = cases[i].pid;
			smp.flags = PMIPROF_SAMPLE_F_USER;
			smp.ip = cases[i].ip;
			smp.nr = 1;
			smp.counts[0] = i;
			assert_int_equal(trace_write_sample(w, &smp), 0);
		}
	}
	assert_int_equal(trace_writer_close(w), 0);

	o.input = data;
	o.buildid_dir = dir;
	assert_int_equal(session_open(&s, &o), 0);
	x.s = &s;
	x.cases = cases;
	assert_int_equal(session_run(&s, xcheck_sample, &x), 0);
	assert_int_equal(x.seen, XFER_CASES * XFER_REPEAT);
	assert_int_equal(x.wrong, 0);
	session_close(&s);

	/* The parallel pass: the same rows (from chunk summaries where it can). */
	assert_int_equal(session_open(&s, &o), 0);
	assert_int_equal(profile_init(&p, &s, BY_SYMBOL, NULL, 0), 0);
	if (parallel_eligible(&s, &p))
		assert_int_equal(parallel_profile(&s, &p), 0);
	else
		assert_int_equal(session_run(&s, profile_add_sample, &p), 0);
	for (k = 0; k < 3; k++) {
		const char *fn = k == 0 ? "busy_one" : k == 1 ? "busy_two" : "pie_local_spin";
		uint64_t got = 0;

		for (i = 0; i < p.nr_rows; i++)
			if (p.rows[i].samples && !strcmp(symbolizer_sym(s.sy, i)->name, fn))
				got += p.rows[i].samples;
		assert_int_equal(got, (k == 0 ? 2 : 1) * XFER_REPEAT);
	}
	profile_free(&p);
	session_close(&s);
	unlink(data);
	unlink(cached);
	unlink(path);
	*strrchr(cached, '/') = 0;
	rmdir(cached);
	*strrchr(cached, '/') = 0;
	rmdir(cached);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(many_mappings_stay_small_and_resolve_at_their_time),
		cmocka_unit_test(mappings_beyond_the_bound_are_dropped_and_counted),
		cmocka_unit_test(idle_task_is_swapper),
		cmocka_unit_test(one_file_two_spaces_and_a_replaced_file_resolve_apart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
