// SPDX-License-Identifier: GPL-2.0
/*
 * Build-ids for synthesized MMAP records (daemon/engine/mapped_build_id.c):
 * a mapped ELF file gets the build-id its note holds (checked against the
 * test helper's own note parser); each file is read once and re-read when it
 * changes; a file replaced at its path or deleted since it was mapped, and
 * a mapping that is not a file, get none (never the new file's); a file
 * without a note gets none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/mapped_build_id.h"
#include "self_maps.h"

struct maps_line {
	unsigned int maj, min;
	unsigned long long ino;
	char path[4096];
};

/* The /proc/self/maps line of the mapping that starts at addr: 0 or -1. */
static int maps_line_at(const void *addr, struct maps_line *l)
{
	char line[4352];
	FILE *f = fopen("/proc/self/maps", "re");
	int ret = -1;

	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char perms[8];

		l->path[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms, &off,
			   &l->maj, &l->min, &l->ino, l->path) >= 7 && start == (uintptr_t)addr)
			ret = 0;
	}
	fclose(f);
	return ret;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n = 0;

	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			n = -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return in < 0 || out < 0 || n < 0 ? -1 : 0;
}

/* Map path's first page read+exec, as a loader maps code. */
static void *map_exec(const char *path)
{
	int fd = open(path, O_RDONLY);
	void *p;

	assert_true(fd >= 0);
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	assert_true(p != MAP_FAILED);
	return p;
}

struct fixture {
	char dir[64], elf[96], other[96];
	uint8_t want[20];
	int want_len;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (!fx || n <= 0)
		return -1;
	exe[n] = 0;
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/pmiprof-bid.XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	snprintf(fx->elf, sizeof(fx->elf), "%s/lib.so", fx->dir);
	snprintf(fx->other, sizeof(fx->other), "%s/new.so", fx->dir);
	if (copy_file(exe, fx->elf))
		return -1;
	fx->want_len = file_build_id(fx->elf, fx->want, sizeof(fx->want));
	*state = fx;
	return fx->want_len > 0 ? 0 : -1;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	unlink(fx->elf);
	unlink(fx->other);
	rmdir(fx->dir);
	free(fx);
	return 0;
}

static void mapped_elf_gets_its_note_once(void **state)
{
	struct fixture *fx = *state;
	struct mapped_build_ids c = { 0 };
	struct maps_line l;
	uint8_t got[20];
	void *p = map_exec(fx->elf);
	struct timespec ts[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };

	assert_int_equal(maps_line_at(p, &l), 0);
	assert_string_equal(l.path, fx->elf);
	assert_int_equal(mapped_build_id(&c, getpid(), l.path, l.maj, l.min, l.ino, got), fx->want_len);
	assert_memory_equal(got, fx->want, (size_t)fx->want_len);
	memset(got, 0, sizeof(got));
	assert_int_equal(mapped_build_id(&c, getpid(), l.path, l.maj, l.min, l.ino, got), fx->want_len);
	assert_memory_equal(got, fx->want, (size_t)fx->want_len);
	assert_int_equal(c.reads, 1);
	assert_int_equal(c.hits, 1);
	/* changed in place (times): read again */
	usleep(10000);
	assert_int_equal(utimensat(AT_FDCWD, fx->elf, ts, 0), 0);
	assert_int_equal(mapped_build_id(&c, getpid(), l.path, l.maj, l.min, l.ino, got), fx->want_len);
	assert_int_equal(c.reads, 2);
	munmap(p, 4096);
	mapped_build_id_free(&c);
}

static void replaced_or_deleted_file_lends_nothing(void **state)
{
	struct fixture *fx = *state;
	struct mapped_build_ids c = { 0 };
	struct maps_line l;
	uint8_t got[20];
	void *p = map_exec(fx->elf);

	assert_int_equal(maps_line_at(p, &l), 0);
	/* another ELF file (with a build-id) renamed over the mapped one's path */
	assert_int_equal(copy_file(fx->elf, fx->other), 0);
	assert_int_equal(rename(fx->other, fx->elf), 0);
	assert_int_equal(mapped_build_id(&c, getpid(), l.path, l.maj, l.min, l.ino, got), 0);
	assert_int_equal(c.refused, 1);
	assert_int_equal(c.reads, 0);
	/* deleted: the maps line says so */
	munmap(p, 4096);
	p = map_exec(fx->elf);
	assert_int_equal(unlink(fx->elf), 0);
	assert_int_equal(maps_line_at(p, &l), 0);
	assert_non_null(strstr(l.path, " (deleted)"));
	assert_int_equal(mapped_build_id(&c, getpid(), l.path, l.maj, l.min, l.ino, got), 0);
	assert_int_equal(c.refused, 2);
	/* not a file, or no inode */
	assert_int_equal(mapped_build_id(&c, getpid(), "[vdso]", 0, 0, 0, got), 0);
	assert_int_equal(mapped_build_id(&c, getpid(), "/nonexistent/lib.so", l.maj, l.min, 12345, got), 0);
	assert_int_equal(c.refused, 4);
	munmap(p, 4096);
	mapped_build_id_free(&c);
	assert_int_equal(copy_file("/proc/self/exe", fx->elf), 0);
}

static void file_without_note_gets_none(void **state)
{
	struct fixture *fx = *state;
	struct mapped_build_ids c = { 0 };
	struct maps_line l;
	uint8_t got[20];
	FILE *f = fopen(fx->other, "w");
	void *p;

	assert_non_null(f);
	fputs("#!/bin/sh\necho not ELF\n", f);
	fclose(f);
	p = map_exec(fx->other);
	assert_int_equal(maps_line_at(p, &l), 0);
	assert_int_equal(mapped_build_id(&c, getpid(), l.path, l.maj, l.min, l.ino, got), 0);
	assert_int_equal(c.reads, 1);
	munmap(p, 4096);
	mapped_build_id_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mapped_elf_gets_its_note_once),
		cmocka_unit_test(replaced_or_deleted_file_lends_nothing),
		cmocka_unit_test(file_without_note_gets_none),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
