/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build-id archives, as `pmiprof archive` writes them and report reads
 * them (layout in docs/report.md "Reporting on another machine"): a tar,
 * gzip-compressed or not, of
 *   .build-id/xx/rest         the ELF file mapped with build-id xxrest
 *   .build-id/xx/rest.debug   its separate debug file, when there was one
 *   kallsyms/BOOT-ID          /proc/kallsyms of the boot that recorded
 *   pmiprof-archive.txt       manifest: what is in it, and the build-ids read
 *                             from files whose MMAP records had none
 * Extracted, it is a build-id cache directory (--buildid-dir); report
 * --archive extracts it into a private temporary directory.
 */
#ifndef PMIPROF_REPORT_ARCHIVE_H
#define PMIPROF_REPORT_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strtab.h"

#define ARCHIVE_MANIFEST	"pmiprof-archive.txt"

/* ---- writing a tar ---- */
struct tar_out;

/* Creates path; gzip-compressed when gzip.  0 or -errno. */
int tar_out_open(struct tar_out **t, const char *path, bool gzip);
/* A member with these bytes; directories of name are implied (tar -x makes them). */
int tar_out_mem(struct tar_out *t, const char *name, const void *buf, size_t len);
/* A member with the content of file src. */
int tar_out_file(struct tar_out *t, const char *name, const char *src);
/* Ends the archive and closes it: the first error of any call, or 0. */
int tar_out_close(struct tar_out *t);

/*
 * Extracts the regular files of a tar (gzip-compressed or not) under dir,
 * which exists.  Members with absolute names, "..", links or devices are
 * skipped.  0, or -errno (-EBADMSG: not a tar).
 */
int tar_extract(const char *tarfile, const char *dir);
/* Removes dir and everything under it (best effort). */
void rm_tree(const char *dir);

/* ---- the manifest's path -> build-id entries ---- */
struct archive_ids {
	struct strtab paths;
	struct { uint32_t len; uint8_t id[20]; } *ids;	/* by path id */
};

/* Reads DIR/pmiprof-archive.txt (absent: empty).  0 or -ENOMEM. */
int archive_ids_load(struct archive_ids *a, const char *dir);
/* The build-id the archive knows for path: its length, or 0. */
uint32_t archive_ids_find(const struct archive_ids *a, const char *path, const uint8_t **id);
void archive_ids_free(struct archive_ids *a);

#endif /* PMIPROF_REPORT_ARCHIVE_H */
