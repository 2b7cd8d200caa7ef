// SPDX-License-Identifier: GPL-2.0
/*
 * Pieces of reporting on another machine: the build-id archive's tar
 * writer and reader (round trip, gzip or not, hostile member names), its
 * manifest's path -> build-id entries, the kallsyms "shows addresses" test
 * (per-CPU symbols at 0 come first on some kernels), the GNU build-id note
 * parser used on /sys/kernel/notes, and the 1.2 header items.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/kernel_id.h"
#include "../../lib/util.h"
#include "symbols/archive.h"
#include "symbols/kallsyms_cache.h"
#include "input/session.h"
#include "pmiprof/trace.h"
#include "self_maps.h"
#include "trace_gen.h"

/* A function of this program, to be named from the archived copy. */
__attribute__((noinline)) int archive_target_fn(int x);
__attribute__((noinline)) int archive_target_fn(int x)
{
	return x * 7 + 3;
}

static char dir[64];

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pmiprof-ut-archive.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int drop_dir(void **state)
{
	(void)state;
	rm_tree(dir);
	return 0;
}

static char *slurp(const char *rel, size_t *len)
{
	char path[256], *buf;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return pm_read_file(path, &buf, len) ? NULL : buf;
}

static void tar_round_trip(bool gzip)
{
	char tar[128], src[128], out[128], big[3000];
	struct tar_out *t;
	size_t len;
	char *got;
	FILE *f;

	snprintf(tar, sizeof(tar), "%s/a.tar%s", dir, gzip ? ".gz" : "");
	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	memset(big, 'b', sizeof(big));
	f = fopen(src, "w");
	assert_non_null(f);
	fwrite(big, 1, sizeof(big), f);
	fclose(f);
	assert_int_equal(tar_out_open(&t, tar, gzip), 0);
	assert_int_equal(tar_out_mem(t, ".build-id/ab/cdef", "elf", 3), 0);
	assert_int_equal(tar_out_file(t, ".build-id/ab/cdef.debug", src), 0);
	assert_int_equal(tar_out_mem(t, "empty", "", 0), 0);
	assert_int_equal(tar_out_mem(t, "../escape", "x", 1), 0);
	assert_int_equal(tar_out_mem(t, "/abs", "x", 1), 0);
	assert_int_equal(tar_out_mem(t, "a/../../up", "x", 1), 0);
	assert_int_equal(tar_out_close(t), 0);
	assert_int_equal(mkdir(out, 0700), 0);
	assert_int_equal(tar_extract(tar, out), 0);
	got = slurp("out/.build-id/ab/cdef", &len);
	assert_non_null(got);
	assert_int_equal(len, 3);
	assert_memory_equal(got, "elf", 3);
	free(got);
	got = slurp("out/.build-id/ab/cdef.debug", &len);
	assert_non_null(got);
	assert_int_equal(len, sizeof(big));
	assert_memory_equal(got, big, sizeof(big));
	free(got);
	got = slurp("out/empty", &len);
	assert_non_null(got);
	assert_int_equal(len, 0);
	free(got);
	/* Names that would leave the directory are not extracted anywhere. */
	assert_int_not_equal(access("/tmp/pmiprof-ut-archive-escape", F_OK), 0);
	got = slurp("escape", &len);
	assert_null(got);
	got = slurp("up", &len);
	assert_null(got);
	assert_int_not_equal(access("/abs", F_OK), 0);
}

static void tar_plain_round_trip(void **state)
{
	(void)state;
	tar_round_trip(false);
}

static void tar_gzip_round_trip(void **state)
{
	(void)state;
	tar_round_trip(true);
}

static void extract_refuses_what_is_not_a_tar(void **state)
{
	char path[128];
	FILE *f;
	int i;

	(void)state;
	snprintf(path, sizeof(path), "%s/junk", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	for (i = 0; i < 2000; i++)
		fputc('A' + i % 26, f);
	fclose(f);
	assert_int_equal(tar_extract(path, dir), -EBADMSG);
	snprintf(path, sizeof(path), "%s/nonexistent", dir);
	assert_int_equal(tar_extract(path, dir), -ENOENT);
}

static void manifest_maps_paths_to_build_ids(void **state)
{
	static const char text[] =
		"# pmiprof archive of x\n"
		"trace - 6.1.0\n"
		"elf 0102030405 file /usr/bin/a b\n"
		"elf zz trace /bad\n"
		"elf aabb trace /lib/c.so\n"
		"kallsyms 00000000-1111-2222-3333-444444444444 6.1.0\n";
	struct archive_ids a;
	const uint8_t *id = NULL;
	char path[128];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/%s", dir, ARCHIVE_MANIFEST);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(archive_ids_load(&a, dir), 0);
	assert_int_equal(archive_ids_find(&a, "/usr/bin/a b", &id), 5);
	assert_memory_equal(id, "\x01\x02\x03\x04\x05", 5);
	assert_int_equal(archive_ids_find(&a, "/lib/c.so", &id), 2);
	assert_int_equal(archive_ids_find(&a, "/bad", &id), 0);
	assert_int_equal(archive_ids_find(&a, "/usr/bin/a", &id), 0);
	archive_ids_free(&a);
}

static void kallsyms_addresses_found_past_percpu_symbols_at_zero(void **state)
{
	(void)state;
	/* Debian 6.1 as root: per-CPU symbols first, at 0 and small offsets. */
	assert_true(kallsyms_has_addresses("0000000000000000 A fixed_percpu_data\n"
					   "0000000000001000 A cpu_debug_store\n"
					   "ffffffff81000000 T _stext\n"));
	assert_true(kallsyms_has_addresses("0000000000000000 A fixed_percpu_data\n"
					   "ffffffff81000000 T _stext\n"));
	/* kptr_restrict: every address zeroed. */
	assert_false(kallsyms_has_addresses("0000000000000000 A fixed_percpu_data\n"
					    "0000000000000000 T _stext\n"
					    "0000000000000000 t foo\t[mod]\n"));
	assert_false(kallsyms_has_addresses(""));
}

static void build_id_note_parsed_among_other_notes(void **state)
{
	/* As /sys/kernel/notes: a Xen-style note first, then GNU build-id. */
	static const uint8_t notes[] = {
		6, 0, 0, 0, 4, 0, 0, 0, 0x10, 0, 0, 0, 'L', 'i', 'n', 'u', 'x', 0, 0, 0,
		1, 2, 3, 4,
		4, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0,
		0x4a, 0x5a, 0x9b, 0x0a, 0xff, 0xb6, 0x6c, 0x43, 0x7a, 0xbc,
		0xd4, 0x55, 0xd2, 0x73, 0x8a, 0xf8, 0x79, 0x98, 0x5f, 0xa9,
	};
	uint8_t id[20];
	char hex[41];

	(void)state;
	assert_int_equal(elf_notes_build_id(notes, sizeof(notes), id, sizeof(id)), 20);
	build_id_hex(hex, id, 20);
	assert_string_equal(hex, "4a5a9b0affb66c437abcd455d2738af879985fa9");
	/* Cut inside the build-id note: not found, no overread. */
	assert_int_equal(elf_notes_build_id(notes, sizeof(notes) - 1, id, sizeof(id)), -ENOENT);
	assert_int_equal(elf_notes_build_id(notes, 24, id, sizeof(id)), -ENOENT);
}

static void boot_id_validated(void **state)
{
	(void)state;
	assert_true(kernel_boot_id_valid("ef019eb8-5aa3-4a9a-9420-464419fea4e6"));
	assert_false(kernel_boot_id_valid("../../../etc/passwd-aaaa-bbbb-cccccc"));
	assert_false(kernel_boot_id_valid("ef019eb8-5aa3-4a9a-9420-464419fea4e"));
	assert_false(kernel_boot_id_valid(""));
}

static void header_boot_id_and_kernel_build_id_round_trip(void **state)
{
	struct trace_header h, want;
	struct trace_writer *w;
	struct trace_reader *r;
	char path[128];
	int i;

	(void)state;
	snprintf(path, sizeof(path), "%s/h.data", dir);
	memset(&h, 0, sizeof(h));
	pm_strlcpy(h.boot_id, "ef019eb8-5aa3-4a9a-9420-464419fea4e6", sizeof(h.boot_id));
	for (i = 0; i < 20; i++)
		h.kernel_build_id[i] = (uint8_t)(0xf0 + i);
	h.kernel_build_id_len = 20;
	want = h;
	want.version_major = PMIPROF_TRACE_VERSION_MAJOR;
	want.version_minor = PMIPROF_TRACE_VERSION_MINOR;
	assert_int_equal(PMIPROF_TRACE_VERSION_MINOR, 4);
	assert_int_equal(trace_writer_open(&w, path, &h, NULL), 0);
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(trace_reader_open(&r, path, NULL, NULL), 0);
	assert_memory_equal(trace_reader_header(r), &want, sizeof(want));
	trace_reader_close(r);
}

/* This program's build-id, from its SHT_NOTE sections. */
struct first_sym {
	struct session *s;
	const char *name;
};

static int take_sym(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
		    uint32_t comm)
{
	struct first_sym *f = arg;

	(void)smp;
	(void)index;
	(void)comm;
	f->name = symbolizer_sym(f->s->sy, sym)->name;
	return 0;
}

static const char *report_one(const char *trace, const char *archive)
{
	static char name[128];
	struct session_opts o = { .input = trace, .archive = archive };
	struct session s;
	struct first_sym f = { &s, NULL };

	assert_int_equal(session_open(&s, &o), 0);
	assert_int_equal(session_run(&s, take_sym, &f), 0);
	assert_non_null(f.name);
	pm_strlcpy(name, f.name, sizeof(name));
	session_close(&s);
	return name;
}

/*
 * An MMAP without build-id (module backend) of a path missing here: the
 * archive's manifest gives the build-id read from the file at archive time,
 * and the archived copy names the function.
 */
static void mmap_without_build_id_named_through_the_archive_manifest(void **state)
{
	static const char gone[] = "/nonexistent/pmiprof-ut/self";
	char trace[128], tar[128], member[96], manifest[256], hex[41];
	struct trace_header h;
	struct trace_writer *w;
	struct trace_mmap mm;
	struct trace_sample smp;
	struct mapping m;
	struct tar_out *t;
	uint8_t id[20];
	int n;

	(void)state;
	assert_int_equal(find_mapping((const void *)archive_target_fn, &m), 0);
	n = file_build_id("/proc/self/exe", id, sizeof(id));
	if (n <= 0)
		skip();		/* built without --build-id: nothing to key the archive by */
	build_id_hex(hex, id, (size_t)n);
	snprintf(trace, sizeof(trace), "%s/t.data", dir);
	snprintf(tar, sizeof(tar), "%s/a.tar.gz", dir);
	tgen_header(&h);
	h.flags = 0;
	memset(&mm, 0, sizeof(mm));
	mm.pid = mm.tid = 7;
	mm.start = m.start;
	mm.len = m.end - m.start;
	mm.pgoff = m.pgoff;
	mm.prot = 5;
	mm.path = gone;
	memset(&smp, 0, sizeof(smp));
	smp.time = h.start_time + 1000;
	smp.ip = (uint64_t)(uintptr_t)archive_target_fn + 2;
	smp.pid = smp.tid = 7;
	smp.flags = PMIPROF_SAMPLE_F_USER;
	smp.nr = h.nr_events;
	assert_int_equal(trace_writer_open(&w, trace, &h, NULL), 0);
	assert_int_equal(trace_write_mmap(w, &mm), 0);
	assert_int_equal(trace_write_sample(w, &smp), 0);
	assert_int_equal(trace_writer_close(w), 0);
	/* The file is gone: its file offset, never a name. */
	assert_true(!strncmp(report_one(trace, NULL), "[unknown] 0x", 12));

	snprintf(member, sizeof(member), ".build-id/%.2s/%s", hex, hex + 2);
	snprintf(manifest, sizeof(manifest), "elf %s file %s\n", hex, gone);
	assert_int_equal(tar_out_open(&t, tar, true), 0);
	assert_int_equal(tar_out_file(t, member, "/proc/self/exe"), 0);
	assert_int_equal(tar_out_mem(t, ARCHIVE_MANIFEST, manifest, strlen(manifest)), 0);
	assert_int_equal(tar_out_close(t), 0);
	assert_string_equal(report_one(trace, tar), "archive_target_fn");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(tar_plain_round_trip, make_dir, drop_dir),
		cmocka_unit_test_setup_teardown(tar_gzip_round_trip, make_dir, drop_dir),
		cmocka_unit_test_setup_teardown(extract_refuses_what_is_not_a_tar, make_dir, drop_dir),
		cmocka_unit_test_setup_teardown(manifest_maps_paths_to_build_ids, make_dir, drop_dir),
		cmocka_unit_test(kallsyms_addresses_found_past_percpu_symbols_at_zero),
		cmocka_unit_test(build_id_note_parsed_among_other_notes),
		cmocka_unit_test(boot_id_validated),
		cmocka_unit_test_setup_teardown(header_boot_id_and_kernel_build_id_round_trip,
						make_dir, drop_dir),
		cmocka_unit_test_setup_teardown(
			mmap_without_build_id_named_through_the_archive_manifest, make_dir, drop_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
