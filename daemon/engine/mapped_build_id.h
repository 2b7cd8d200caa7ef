/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build-ids for MMAP records synthesized from /proc/PID/maps (processes
 * running before the recording, and every process again at each of the
 * daemon's segments).  Without one, a report trusts whatever file is at the
 * path when it runs; a library upgraded since would then lend its function
 * names to the old code.  With one, the report checks the file it finds.
 */
#ifndef PMIPROF_DAEMON_MAPPED_BUILD_ID_H
#define PMIPROF_DAEMON_MAPPED_BUILD_ID_H

#include <stdint.h>
#include <sys/types.h>

#include "hashmap.h"

/* A file's identity when its build-id was read. */
struct mapped_file_id {
	uint64_t ino;
	uint32_t dev;			/* major << 20 | minor, as the maps line gives it */
	uint32_t build_id_len;		/* 0: the file has none */
	int64_t mtime_ns, ctime_ns;
	uint64_t size;
	uint8_t build_id[20];
};

/*
 * Files already read, keyed by (device, inode); each is re-read when its
 * size or times change.  Bounded: past MAPPED_BUILD_ID_MAX files it starts
 * over.  Zero-initialised is empty; mapped_build_id_free() releases it.
 */
#define MAPPED_BUILD_ID_MAX	16384
struct mapped_build_ids {
	struct hashmap by_file;		/* (ino, dev) -> index in files */
	struct mapped_file_id *files;
	uint32_t nr, cap;
	uint64_t reads, hits, refused;	/* files opened, cache hits, mappings left without */
};

/*
 * The build-id of the file pid maps at path, which /proc/PID/maps gives as
 * device maj:min, inode ino.  The file is opened through /proc/PID/root (the
 * process's own view: containers) and used only when it is still that inode
 * on that device (not replaced or deleted since it was mapped).  Copies up
 * to 20 bytes into out and returns the length; 0 when there is none to be
 * trusted (replaced, deleted, unreadable, not ELF, no note); -ENOMEM.
 */
int mapped_build_id(struct mapped_build_ids *c, pid_t pid, const char *path,
		    unsigned int maj, unsigned int min, uint64_t ino, uint8_t out[20]);

void mapped_build_id_free(struct mapped_build_ids *c);

#endif /* PMIPROF_DAEMON_MAPPED_BUILD_ID_H */
