// SPDX-License-Identifier: GPL-2.0
/*
 * Build-ids of the files behind /proc/PID/maps lines, read once per file
 * with lib/buildid_cache.c's buildid_of_fd() (libdwelf) and kept by device and
 * inode.  See mapped_build_id.h for why synthesized MMAP records need them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>


#include "buildid_cache.h"
#include "engine/mapped_build_id.h"
#include "util.h"

static uint32_t dev_key(unsigned int maj, unsigned int min)
{
	return (uint32_t)maj << 20 | (min & 0xfffff);
}

static bool same_file(const struct mapped_file_id *f, const struct stat *st)
{
	return f->size == (uint64_t)st->st_size &&
	       f->mtime_ns == (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec &&
	       f->ctime_ns == (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
}

static void forget_all(struct mapped_build_ids *c)
{
	hm_free(&c->by_file);
	memset(&c->by_file, 0, sizeof(c->by_file));
	c->nr = 0;
}

int mapped_build_id(struct mapped_build_ids *c, pid_t pid, const char *path,
		    unsigned int maj, unsigned int min, uint64_t ino, uint8_t out[20])
{
	char root_path[4096 + 32];
	struct mapped_file_id *f;
	struct stat st;
	uint32_t i, dev = dev_key(maj, min);
	int fd;

	/* Not a file, or one unlinked since it was mapped: nothing to read it from. */
	if (path[0] != '/' || !ino || strstr(path, " (deleted)"))
		goto refused;
	snprintf(root_path, sizeof(root_path), "/proc/%d/root%s", (int)pid, path);
	fd = open(root_path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 && pid != getpid())
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		goto refused;
	/* Only the very file that was mapped: another at that path lends nothing. */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_ino != ino ||
	    major(st.st_dev) != maj || minor(st.st_dev) != min) {
		close(fd);
		goto refused;
	}
	if (!c->by_file.slots && hm_init(&c->by_file, 256)) {
		close(fd);
		return -ENOMEM;
	}
	i = hm_get(&c->by_file, ino, dev);
	if (i != HM_EMPTY && same_file(&c->files[i], &st)) {
		close(fd);
		c->hits++;
		memcpy(out, c->files[i].build_id, c->files[i].build_id_len);
		return (int)c->files[i].build_id_len;
	}
	if (i == HM_EMPTY) {
		if (c->nr == MAPPED_BUILD_ID_MAX) {
			forget_all(c);
			if (hm_init(&c->by_file, 256)) {
				close(fd);
				return -ENOMEM;
			}
		}
		if (pm_grow(&c->files, &c->cap, c->nr + 1, 64, sizeof(*c->files)) ||
		    hm_put(&c->by_file, ino, dev, c->nr)) {
			close(fd);
			return -ENOMEM;
		}
		i = c->nr++;
	}
	f = &c->files[i];
	memset(f, 0, sizeof(*f));
	f->ino = ino;
	f->dev = dev;
	f->size = (uint64_t)st.st_size;
	f->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	f->ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
	f->build_id_len = buildid_of_fd(fd, f->build_id);
	close(fd);
	c->reads++;
	memcpy(out, f->build_id, f->build_id_len);
	return (int)f->build_id_len;
refused:
	c->refused++;
	return 0;
}

void mapped_build_id_free(struct mapped_build_ids *c)
{
	hm_free(&c->by_file);
	free(c->files);
	memset(c, 0, sizeof(*c));
}
