/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The source text annotate prints beside lines: a file named by the line
 * table found at its recorded path (made absolute with the CU's comp_dir),
 * under each --source-dir (DIR + the absolute path, DIR + the path as
 * recorded, DIR + its name), or from debuginfod's /source by build-id when
 * DEBUGINFOD_URLS is set.  Files are read once and kept; files that cannot
 * be found are remembered, so the caller says so once per file.
 */
#ifndef PMIPROF_REPORT_SOURCE_TEXT_H
#define PMIPROF_REPORT_SOURCE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct source_files;

/* dirs: --source-dir prefixes, searched in order (copied).  0 or -ENOMEM. */
int source_files_new(struct source_files **out, const char *const *dirs, uint32_t nr_dirs);
void source_files_free(struct source_files *sf);

/*
 * Line lineno (1-based) of file as the line table names it (comp_dir: its
 * CU's, or NULL; build_id: the DSO's, for debuginfod): its text without the
 * newline, *len bytes, or NULL when the file is not found or is shorter.
 * *path: the file read, or NULL.
 */
const char *source_line(struct source_files *sf, const char *file, const char *comp_dir,
			const uint8_t *build_id, uint32_t build_id_len, int lineno, size_t *len,
			const char **path);
/* The files that were asked for and not found: their number, and the i-th. */
uint32_t source_files_missing(const struct source_files *sf);
const char *source_files_missing_at(const struct source_files *sf, uint32_t i);

#endif /* PMIPROF_REPORT_SOURCE_TEXT_H */
