// SPDX-License-Identifier: GPL-2.0
/*
 * The module backend's side-band against the running kernel: a perf dummy
 * event on this process turns a comm change and an executable mmap into
 * COMM and MMAP trace records (with CLOCK_MONOTONIC times inside the
 * bracket of the actions), and the /proc synthesis writes this process's
 * comm and its executable mappings once (a second pass adds nothing).
 * Where perf_event_open is refused the perf test reports a skip.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <cmocka.h>

#include "pmiprof/trace.h"
#include "util.h"
#include "engine/backend.h"
#include "module/module_sideband.h"

struct found {
	unsigned int comms, mmaps, comm_named, mmap_of_self;
	uint64_t comm_time;
	char exe[4096];
	char comm_want[16];
};

static void scan_trace(const char *path, struct found *f)
{
	struct trace_reader *r;
	struct trace_record rec;

	assert_int_equal(trace_reader_open(&r, path, NULL, NULL), 0);
	while (trace_reader_next(r, &rec) == 1) {
		if (rec.type == PMIPROF_REC_COMM) {
			f->comms++;
			if (!strcmp(rec.comm.comm, f->comm_want)) {
				f->comm_named++;
				f->comm_time = rec.comm.time;
			}
		} else if (rec.type == PMIPROF_REC_MMAP) {
			f->mmaps++;
			if (!strcmp(rec.mmap.path, f->exe) && (uint32_t)getpid() == rec.mmap.pid)
				f->mmap_of_self++;
		}
	}
	trace_reader_close(r);
}

static void open_writer(struct trace_writer **w, char *path)
{
	struct trace_header h;
	int fd;

	strcpy(path, "/tmp/pmiprof-sb.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	memset(&h, 0, sizeof(h));
	h.version_major = PMIPROF_TRACE_VERSION_MAJOR;
	h.clock_freq_hz = 1000000000ull;
	assert_int_equal(trace_writer_open(w, path, &h, NULL), 0);
}

static void perf_dummy_turns_comm_and_mmap_into_records(void **state)
{
	struct sideband sb;
	struct record_stats st = { 0 };
	struct trace_writer *w;
	struct found f = { 0 };
	char path[64], why[256], old[17] = "";
	pid_t self = getpid();
	uint64_t t0, t1;
	void *p;
	int fd, ret;

	(void)state;
	ret = sideband_open(&sb, 0, &self, 1, false, (unsigned int)sysconf(_SC_NPROCESSORS_CONF),
			    why, sizeof(why));
	if (ret != 0) {
		if (ret == 1)
			sideband_close(&sb);
		skip();
	}
	assert_int_equal(sideband_enable(&sb), 0);
	prctl(PR_GET_NAME, old);
	t0 = pm_now_ns();
	prctl(PR_SET_NAME, "pmiprof-sbtest");
	t1 = pm_now_ns();
	/* An executable mapping of our own binary: an MMAP2 record. */
	assert_true(readlink("/proc/self/exe", f.exe, sizeof(f.exe) - 1) > 0);
	fd = open(f.exe, O_RDONLY);
	assert_true(fd >= 0);
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	assert_true(p != MAP_FAILED);
	close(fd);
	prctl(PR_SET_NAME, old);

	open_writer(&w, path);
	assert_true(sideband_drain(&sb, w, &st) >= 2);
	assert_int_equal(sideband_disable(&sb), 0);
	assert_int_equal(trace_writer_close(w), 0);
	sideband_close(&sb);
	munmap(p, 4096);

	strcpy(f.comm_want, "pmiprof-sbtest");
	scan_trace(path, &f);
	unlink(path);
	assert_int_equal(f.comm_named, 1);
	assert_true(f.mmap_of_self >= 1);
	/* CLOCK_MONOTONIC stamps, taken inside the prctl() bracket. */
	assert_true(f.comm_time >= t0 && f.comm_time <= t1);
	assert_int_equal(st.side_band, f.comms + f.mmaps);
}

static void proc_synthesis_writes_comm_and_exec_mappings_once(void **state)
{
	struct sideband sb;
	struct record_stats st = { 0 };
	struct trace_writer *w;
	struct found f = { 0 };
	char path[64];
	uint64_t after_first;

	(void)state;
	memset(&sb, 0, sizeof(sb));
	open_writer(&w, path);
	assert_int_equal(sideband_synthesize_pid(&sb, getpid(), w, &st), 0);
	after_first = st.side_band;
	assert_int_equal(sideband_synthesize_pid(&sb, getpid(), w, &st), 0);
	assert_int_equal(st.side_band, after_first);
	/* A process that is gone is not an error. */
	assert_int_equal(sideband_synthesize_pid(&sb, 0x3ffffff0, w, &st), 0);
	assert_int_equal(trace_writer_close(w), 0);
	sideband_close(&sb);

	assert_true(readlink("/proc/self/exe", f.exe, sizeof(f.exe) - 1) > 0);
	prctl(PR_GET_NAME, f.comm_want);
	scan_trace(path, &f);
	unlink(path);
	assert_int_equal(f.comm_named, 1);
	assert_int_equal(f.mmap_of_self, 1);	/* the one r-xp mapping of our binary */
	assert_true(f.mmaps >= 2);		/* plus libc, ld.so, vdso ... */
	assert_int_equal(st.side_band, f.comms + f.mmaps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(perf_dummy_turns_comm_and_mmap_into_records),
		cmocka_unit_test(proc_synthesis_writes_comm_and_exec_mappings_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
