/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The build-id cache `pmiprof record` fills (as perf fills ~/.debug) and
 * report searches first: DIR/.build-id/xx/rest (the very ELF file that was
 * mapped with build-id xxrest) and DIR/.build-id/xx/rest.debug (its
 * separate debug file), the layout `pmiprof archive` packs.  A trace keeps
 * its names after the files it recorded are upgraded or rebuilt.
 * docs/record.md "Build-id cache".
 */
#ifndef PMIPROF_LIB_BUILDID_CACHE_H
#define PMIPROF_LIB_BUILDID_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strtab.h"

#define BUILDID_CACHE_DEFAULT_LIMIT	(2ull << 30)	/* 2 GiB */

/*
 * The cache directory: $PMIPROF_BUILDID_DIR when set and non-empty, else
 * $HOME/.pmiprof/debug.  0, or -ENOENT (no HOME) / -ENAMETOOLONG.
 */
/* The GNU build-id note of the ELF file open on fd: its length (<= 20) into out, or 0. */
uint32_t buildid_of_fd(int fd, uint8_t out[20]);
int buildid_cache_dir(char *buf, size_t len);

/*
 * The size limit: $PMIPROF_BUILDID_CACHE_SIZE (bytes, suffix K, M or G:
 * powers of 1024), else BUILDID_CACHE_DEFAULT_LIMIT.  0 or -EINVAL (and
 * *limit is the default).
 */
int buildid_cache_limit(uint64_t *limit);
/* "2G", "512M", "4096": bytes (K/M/G powers of 1024), >= 1.  0 or -EINVAL. */
int buildid_cache_parse_size(const char *s, uint64_t *out);

struct buildid_cache_obj {
	char *path;
	uint8_t build_id[20];
	uint32_t build_id_len;
};

/* The distinct (path, build-id) pairs of a recording's executable mappings. */
struct buildid_cache_set {
	struct strtab seen;		/* "path\nhex" */
	struct buildid_cache_obj *objs;
	uint32_t nr, cap;
	bool oom;
};

/*
 * Notes an MMAP record: executable (or of unknown protection), of an
 * absolute path, with a build-id.  Cheap for a pair already noted (one
 * hash look-up); MMAP records are rare next to samples.
 */
void buildid_cache_note(struct buildid_cache_set *s, const char *path, uint32_t prot,
			const uint8_t *build_id, uint32_t build_id_len);
void buildid_cache_set_free(struct buildid_cache_set *s);

struct buildid_cache_result {
	uint32_t added, present, changed, failed;	/* objects */
	uint32_t linked, copied, debugs;		/* files written */
	uint64_t bytes_copied;
	uint32_t evicted;
	uint64_t evicted_bytes, total_bytes;		/* after eviction */
	int first_err;					/* -errno of the first failure */
	char first_err_path[512];
};

/*
 * Puts every noted object into dir that is not already there: a hard link
 * to the mapped file when the file system allows (same file system, and
 * fs.protected_hardlinks lets us), else a copy (written under a temporary
 * name, then renamed); the file must still carry the recorded build-id
 * (one rebuilt or upgraded during the recording is left out).  Its debug
 * file from /usr/lib/debug/.build-id comes along when installed.  Then
 * files of the cache are removed, the oldest (by the time they entered it)
 * first, until it holds at most limit bytes.  Never fails: what went wrong
 * is counted in res for the caller to warn about.
 */
void buildid_cache_save(const struct buildid_cache_set *s, const char *dir, uint64_t limit,
			struct buildid_cache_result *res);

#endif /* PMIPROF_LIB_BUILDID_CACHE_H */
