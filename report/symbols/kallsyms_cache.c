// SPDX-License-Identifier: GPL-2.0
/* Per-user cache of /proc/kallsyms (see kallsyms_cache.h for why and how it is keyed). */
#include "symbols/kallsyms_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "kernel_id.h"
#include "util.h"

static char *read_path(const char *path, size_t *len)
{
	char *buf;

	return pm_read_file(path, &buf, len) ? NULL : buf;
}

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
	while (n--)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

static int cache_dir(char *dir, size_t dsize)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg)
		snprintf(dir, dsize, "%s/pmiprof", xdg);
	else if (home && *home)
		snprintf(dir, dsize, "%s/.cache/pmiprof", home);
	else
		return -ENOENT;
	return 0;
}

/* "<dir>/kallsyms-<bootid>-<uid>-<modules hash>", or -ENOENT when no key. */
static int cache_path(char *out, size_t size, char *dir, size_t dsize)
{
	char boot[64] = "", *mods;
	size_t mlen = 0;
	uint64_t h = 0xcbf29ce484222325ull;

	if (kernel_boot_id(boot, sizeof(boot)))
		return -ENOENT;
	mods = read_path("/proc/modules", &mlen);	/* absent without module support */
	if (mods) {
		h = fnv1a(h, mods, mlen);
		free(mods);
	}
	if (cache_dir(dir, dsize))
		return -ENOENT;
	if ((size_t)snprintf(out, size, "%s/kallsyms-%s-%u-%016llx", dir, boot,
			     (unsigned int)geteuid(), (unsigned long long)h) >= size)
		return -ENAMETOOLONG;
	return 0;
}

/* Only a regular file of ours that nobody else may write is trusted. */
static char *read_trusted(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	char *buf = NULL;

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    !(st.st_mode & 022) && pm_read_fd(fd, &buf, len))
		buf = NULL;
	close(fd);
	return buf;
}

/*
 * True when the text shows real addresses (not zeroed by kptr_restrict).
 * The first lines can be per-CPU symbols at 0 (fixed_percpu_data): look on.
 */
bool kallsyms_has_addresses(const char *text)
{
	unsigned int lines;

	for (lines = 0; *text && lines < 4096; lines++) {
		const char *p = text;

		while (*p == '0')
			p++;
		if (*p && *p != ' ' && *p != '\n')
			return true;
		text = strchr(p, '\n');
		if (!text)
			break;
		text++;
	}
	return false;
}

static void store_iov(const char *dir, const char *path, const struct iovec *iov, int n)
{
	size_t len = 0;
	int i;

	char tmp[PATH_MAX + 16], parent[PATH_MAX];
	char *slash;
	int fd;

	pm_strlcpy(parent, dir, sizeof(parent));
	slash = strrchr(parent, '/');
	if (slash) {
		*slash = 0;
		mkdir(parent, 0700);		/* ~/.cache may not exist yet */
	}
	if (mkdir(dir, 0700) && errno != EEXIST)
		return;
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	for (i = 0; i < n; i++)
		len += iov[i].iov_len;
	/* below 2 GiB: one writev writes it all, or the file is not kept */
	if (writev(fd, iov, n) != (ssize_t)len || close(fd)) {
		unlink(tmp);
		return;
	}
	if (rename(tmp, path))
		unlink(tmp);
}

static void store(const char *dir, const char *path, const char *text, size_t len)
{
	struct iovec iov = { (void *)text, len };

	store_iov(dir, path, &iov, 1);
}

char *kallsyms_read_cached(size_t *len)
{
	const char *env = getenv("PMIPROF_KALLSYMS_CACHE");
	char path[PATH_MAX], dir[PATH_MAX];
	bool use = !(env && !strcmp(env, "0"));
	char *text;

	if (use && !cache_path(path, sizeof(path), dir, sizeof(dir))) {
		text = read_trusted(path, len);
		if (text && kallsyms_has_addresses(text))
			return text;
		free(text);
	} else {
		use = false;
	}
	text = read_path("/proc/kallsyms", len);
	if (text && use && kallsyms_has_addresses(text))
		store(dir, path, text, *len);
	return text;
}

char *kallsyms_read_boot(const char *boot_id, size_t *len)
{
	char dir[PATH_MAX], prefix[128], best[PATH_MAX + 256] = "", path[PATH_MAX + 256];
	const char *env = getenv("PMIPROF_KALLSYMS_CACHE");
	struct timespec newest = { 0, 0 };
	struct dirent *e;
	struct stat st;
	char *text;
	DIR *d;

	if ((env && !strcmp(env, "0")) || cache_dir(dir, sizeof(dir)))
		return NULL;
	snprintf(prefix, sizeof(prefix), "kallsyms-%s-%u-", boot_id, (unsigned int)geteuid());
	d = opendir(dir);
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, strlen(prefix)) || strstr(e->d_name, ".tmp"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) || (st.st_mtim.tv_sec < newest.tv_sec ||
					(st.st_mtim.tv_sec == newest.tv_sec &&
					 st.st_mtim.tv_nsec <= newest.tv_nsec)))
			continue;
		newest = st.st_mtim;
		pm_strlcpy(best, path, sizeof(best));
	}
	closedir(d);
	if (!best[0])
		return NULL;
	text = read_trusted(best, len);
	if (text && !kallsyms_has_addresses(text)) {
		free(text);
		text = NULL;
	}
	return text;
}

/* The index goes next to the text cache, under the same key. */
static int index_path(char *path, size_t size, char *dir, size_t dsize)
{
	const char *env = getenv("PMIPROF_KALLSYMS_CACHE");
	size_t n;

	if ((env && !strcmp(env, "0")) || cache_path(path, size, dir, dsize))
		return -ENOENT;
	n = strlen(path);
	if (n + sizeof(".idx") > size)
		return -ENAMETOOLONG;
	memcpy(path + n, ".idx", sizeof(".idx"));
	return 0;
}

const void *kallsyms_index_map(size_t *len)
{
	char path[PATH_MAX], dir[PATH_MAX];
	void *map = NULL;
	struct stat st;
	int fd;

	if (index_path(path, sizeof(path), dir, sizeof(dir)))
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return NULL;
	/* Trusted as the text cache is: a regular file of ours nobody else may write. */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    !(st.st_mode & 022) && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED)
			map = NULL;
		else
			*len = (size_t)st.st_size;
	}
	close(fd);
	return map;
}

void kallsyms_index_unmap(const void *map, size_t len)
{
	if (map)
		munmap((void *)map, len);
}

void kallsyms_index_store(const struct iovec *iov, int n)
{
	char path[PATH_MAX], dir[PATH_MAX];

	if (!index_path(path, sizeof(path), dir, sizeof(dir)))
		store_iov(dir, path, iov, n);
}
