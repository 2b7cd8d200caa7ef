// SPDX-License-Identifier: GPL-2.0
/*
 * The build-id cache record fills at its end (buildid_cache.h): which files,
 * how they get there (hard link, else copy), and the size limit.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>

#include "buildid_cache.h"
#include "util.h"

int buildid_cache_dir(char *buf, size_t len)
{
	const char *env = getenv("PMIPROF_BUILDID_DIR"), *home = getenv("HOME");

	if (env && *env)
		return (size_t)snprintf(buf, len, "%s", env) < len ? 0 : -ENAMETOOLONG;
	if (!home || !*home)
		return -ENOENT;
	return (size_t)snprintf(buf, len, "%s/.pmiprof/debug", home) < len ? 0 : -ENAMETOOLONG;
}

int buildid_cache_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	uint64_t mul = 1;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': mul = 1ull << 10; end++; break;
	case 'm': case 'M': mul = 1ull << 20; end++; break;
	case 'g': case 'G': mul = 1ull << 30; end++; break;
	default: break;
	}
	if (*end == 'i' && mul > 1)
		end++;
	if ((*end == 'B' || *end == 'b') && end[-1] != 'b')
		end++;
	if (*end || !v || v > UINT64_MAX / mul)
		return -EINVAL;
	*out = v * mul;
	return 0;
}

int buildid_cache_limit(uint64_t *limit)
{
	const char *env = getenv("PMIPROF_BUILDID_CACHE_SIZE");

	*limit = BUILDID_CACHE_DEFAULT_LIMIT;
	if (!env || !*env)
		return 0;
	return buildid_cache_parse_size(env, limit);
}

static void hex_of(char *hex, const uint8_t *id, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	hex[2 * len] = 0;
}

void buildid_cache_note(struct buildid_cache_set *s, const char *path, uint32_t prot,
			const uint8_t *build_id, uint32_t build_id_len)
{
	char key[4096 + 48];
	struct buildid_cache_obj *o;
	uint32_t before;
	int64_t id;

	if (s->oom || (prot && !(prot & PROT_EXEC)) || !path || path[0] != '/' ||
	    !build_id_len || strstr(path, " (deleted)") || !strncmp(path, "/memfd:", 7) ||
	    !strncmp(path, "/dev/", 5) || !strncmp(path, "/tmp/perf-", 10))
		return;
	if (build_id_len > 20)
		build_id_len = 20;
	if (!s->seen.map.slots && strtab_init(&s->seen)) {
		s->oom = true;
		return;
	}
	if ((size_t)snprintf(key, sizeof(key), "%s\n", path) >= sizeof(key) - 41)
		return;
	hex_of(key + strlen(key), build_id, build_id_len);
	before = s->seen.n;
	id = strtab_intern(&s->seen, key);
	if (id < 0 || pm_grow(&s->objs, &s->cap, (uint64_t)s->nr + 1, 32, sizeof(*s->objs))) {
		s->oom = true;
		return;
	}
	if (s->seen.n == before)
		return;
	o = &s->objs[s->nr];
	o->path = strdup(path);
	if (!o->path) {
		s->oom = true;
		return;
	}
	memcpy(o->build_id, build_id, build_id_len);
	o->build_id_len = build_id_len;
	s->nr++;
}

void buildid_cache_set_free(struct buildid_cache_set *s)
{
	uint32_t i;

	for (i = 0; i < s->nr; i++)
		free(s->objs[i].path);
	free(s->objs);
	if (s->seen.map.slots)
		strtab_free(&s->seen);
	memset(s, 0, sizeof(*s));
}

uint32_t buildid_of_fd(int fd, uint8_t out[20])
{
	const void *bits = NULL;
	ssize_t len = 0;
	Elf *e;

	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e)
		return 0;
	if (elf_kind(e) == ELF_K_ELF)
		len = dwelf_elf_gnu_build_id(e, &bits);
	if (len > 20)
		len = 20;	/* the trace keeps 20 bytes (SHA-1), as perf does */
	if (len > 0)
		memcpy(out, bits, (size_t)len);
	elf_end(e);
	return len > 0 ? (uint32_t)len : 0;
}

static int mkdir_p(const char *dir)
{
	char p[4096];
	size_t i, n = pm_strlcpy(p, dir, sizeof(p));

	if (n >= sizeof(p))
		return -ENAMETOOLONG;
	for (i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i])
			continue;
		p[i] = 0;
		if (mkdir(p, 0755) && errno != EEXIST)
			return -errno;
		p[i] = i < n ? '/' : 0;
	}
	return 0;
}

/* Copies the file open on fd to dst (through dst's temporary name). */
static int copy_to(int fd, const char *dst, uint64_t *bytes)
{
	char tmp[4096 + 32], buf[1 << 16];
	struct stat st;
	ssize_t n;
	int out, err = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%d", dst, (int)getpid()) >= sizeof(tmp))
		return -ENAMETOOLONG;
	if (fstat(fd, &st))
		return -errno;
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (st.st_mode & 0111) ? 0755 : 0644);
	if (out < 0)
		return -errno;
	if (lseek(fd, 0, SEEK_SET) < 0)
		err = -errno;
	while (!err && (n = read(fd, buf, sizeof(buf))) != 0) {
		ssize_t off = 0;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		while (off < n) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				err = w < 0 ? -errno : -EIO;
				break;
			}
			off += w;
		}
		*bytes += (uint64_t)off;
	}
	if (close(out) && !err)
		err = -errno;
	if (!err && rename(tmp, dst))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/*
 * dst gets the file open on fd: a hard link to that very inode (through
 * /proc/self/fd, so not to another file renamed into its path since), else
 * a copy.  1 linked, 2 copied, or -errno.
 */
static int put_file(int fd, const char *dst, struct buildid_cache_result *res)
{
	char self[64];
	int err;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if (!linkat(AT_FDCWD, self, AT_FDCWD, dst, AT_SYMLINK_FOLLOW))
		return 1;
	if (errno == EEXIST)
		return 1;
	err = copy_to(fd, dst, &res->bytes_copied);
	return err ? err : 2;
}

static void failed(struct buildid_cache_result *res, int err, const char *path)
{
	if (!res->first_err) {
		res->first_err = err;
		pm_strlcpy(res->first_err_path, path, sizeof(res->first_err_path));
	}
}

/*
 * The separate debug file the .gnu_debuglink of the ELF file open on fd (at
 * path) names, where gdb and libdwfl look for it: next to the file, in its
 * .debug/, under /usr/lib/debug/DIR.  Only a file of the same build-id (the
 * recorded one) is taken, never the file itself.  Local files only: libdwfl's
 * standard lookup (pmiprof archive's) would also ask debuginfod servers when
 * DEBUGINFOD_URLS is set, and the end of a recording reaches no network.
 * Returns the opened file, or -1.
 */
static int open_debuglink_file(int fd, const char *path, const uint8_t *bid, uint32_t bid_len)
{
	char name[256], dir[4096], cand[4096 + 300];
	const char *link, *slash;
	struct stat mst, st;
	uint8_t got[20];
	GElf_Word crc;
	int i, dfd;
	Elf *e;

	if (fstat(fd, &mst))
		return -1;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e)
		return -1;
	link = elf_kind(e) == ELF_K_ELF ? dwelf_elf_gnu_debuglink(e, &crc) : NULL;
	if (!link || !*link || strchr(link, '/') || strlen(link) >= sizeof(name)) {
		elf_end(e);
		return -1;
	}
	pm_strlcpy(name, link, sizeof(name));
	elf_end(e);
	slash = strrchr(path, '/');
	if (!slash || (size_t)(slash - path) >= sizeof(dir))
		return -1;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	for (i = 0; i < 3; i++) {
		static const char *const fmt[] = { "%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s" };

		if ((size_t)snprintf(cand, sizeof(cand), fmt[i], dir, name) >= sizeof(cand))
			continue;
		dfd = open(cand, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (dfd < 0)
			continue;
		if (!fstat(dfd, &st) && S_ISREG(st.st_mode) &&
		    !(st.st_dev == mst.st_dev && st.st_ino == mst.st_ino) &&
		    buildid_of_fd(dfd, got) == bid_len && !memcmp(got, bid, bid_len))
			return dfd;
		close(dfd);
	}
	return -1;
}

static void save_one(const struct buildid_cache_obj *o, const char *dir,
		     struct buildid_cache_result *res)
{
	char hex[41], sub[4096], dst[4096 + 64], dbg[128];
	uint8_t now_id[20];
	struct stat st;
	int fd, mfd, r;

	hex_of(hex, o->build_id, o->build_id_len);
	if ((size_t)snprintf(sub, sizeof(sub), "%s/.build-id/%.2s", dir, hex) >= sizeof(sub)) {
		failed(res, -ENAMETOOLONG, dir);
		return;
	}
	snprintf(dst, sizeof(dst), "%s/%s", sub, hex + 2);
	if (!lstat(dst, &st)) {
		res->present++;
		/*
		 * Used again: younger for the eviction, when it is a copy of ours
		 * (one link); never touch the times of a linked original.
		 */
		if (st.st_nlink == 1)
			utimensat(AT_FDCWD, dst, NULL, 0);
		return;
	}
	mfd = open(o->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (mfd < 0) {
		res->changed++;		/* gone since: nothing of that build to keep */
		return;
	}
	if (fstat(mfd, &st) || !S_ISREG(st.st_mode) ||
	    buildid_of_fd(mfd, now_id) != o->build_id_len ||
	    memcmp(now_id, o->build_id, o->build_id_len)) {
		close(mfd);
		res->changed++;		/* rebuilt or upgraded during the recording */
		return;
	}
	r = mkdir_p(sub);
	if (!r)
		r = put_file(mfd, dst, res);
	if (r < 0) {
		close(mfd);
		res->failed++;
		failed(res, r, dst);
		return;
	}
	res->added++;
	if (r == 1)
		res->linked++;
	else
		res->copied++;
	/*
	 * Its separate debug file (Debian's -dbgsym), which upgrades along with
	 * it; else the one its .gnu_debuglink names (next to it, in .debug/,
	 * under /usr/lib/debug/PATH), found as `pmiprof archive` finds it: the
	 * report of the cached copy looks for rest.debug, never next to the
	 * original path.
	 */
	snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	snprintf(dst, sizeof(dst), "%s/%s.debug", sub, hex + 2);
	fd = -1;
	if (lstat(dst, &st)) {
		fd = open(dbg, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			fd = open_debuglink_file(mfd, o->path, o->build_id, o->build_id_len);
	}
	close(mfd);
	if (fd >= 0) {
		r = put_file(fd, dst, res);
		close(fd);
		if (r < 0) {
			res->failed++;
			failed(res, r, dst);
		} else {
			res->debugs++;
			if (r == 1)
				res->linked++;
			else
				res->copied++;
		}
	}
}

struct cached_file {
	char *path;
	int64_t age_ns;			/* when it entered the cache: ctime */
	uint64_t size;
};

static int by_age(const void *a, const void *b)
{
	const struct cached_file *x = a, *y = b;

	if (x->age_ns != y->age_ns)
		return x->age_ns < y->age_ns ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Removes the oldest files of DIR/.build-id until it holds at most limit bytes. */
static void evict(const char *dir, uint64_t limit, struct buildid_cache_result *res)
{
	struct cached_file *files = NULL;
	uint32_t nr = 0, cap = 0, i;
	char top[4096], sub[4096 + 8], path[4096 + 300];
	uint64_t total = 0;
	struct dirent *de, *fe;
	DIR *d, *sd;

	snprintf(top, sizeof(top), "%s/.build-id", dir);
	d = opendir(top);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strlen(de->d_name) != 2 || de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", top, de->d_name);
		sd = opendir(sub);
		if (!sd)
			continue;
		while ((fe = readdir(sd))) {
			struct stat st;

			if (fe->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", sub, fe->d_name);
			if (lstat(path, &st) || !S_ISREG(st.st_mode))
				continue;
			if (pm_grow(&files, &cap, (uint64_t)nr + 1, 256, sizeof(*files)) ||
			    !(files[nr].path = strdup(path))) {
				closedir(sd);
				goto out;
			}
			files[nr].age_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 +
					   st.st_ctim.tv_nsec;
			files[nr].size = (uint64_t)st.st_size;
			total += files[nr].size;
			nr++;
		}
		closedir(sd);
	}
	if (total > limit) {
		qsort(files, nr, sizeof(*files), by_age);
		for (i = 0; i < nr && total > limit; i++) {
			if (unlink(files[i].path))
				continue;
			total -= files[i].size;
			res->evicted++;
			res->evicted_bytes += files[i].size;
		}
	}
out:
	res->total_bytes = total;
	closedir(d);
	for (i = 0; i < nr; i++)
		free(files[i].path);
	free(files);
}

void buildid_cache_save(const struct buildid_cache_set *s, const char *dir, uint64_t limit,
			struct buildid_cache_result *res)
{
	uint32_t i;

	memset(res, 0, sizeof(*res));
	for (i = 0; i < s->nr; i++)
		save_one(&s->objs[i], dir, res);
	if (s->nr)
		evict(dir, limit, res);
}
