// SPDX-License-Identifier: GPL-2.0
/*
 * Build-id archives (see archive.h): a minimal ustar writer and reader on
 * top of zlib's gz* functions, which read plain and gzip files alike, so
 * no external tar is needed on either machine.
 */
#include "symbols/archive.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "util.h"

#define BLOCK 512

struct tar_out {
	gzFile gz;
	int err;
};

int tar_out_open(struct tar_out **tp, const char *path, bool gzip)
{
	struct tar_out *t = calloc(1, sizeof(*t));
	int fd;

	if (!t)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(t);
		return -errno;
	}
	/* "T": zlib writes the bytes as they are (a plain tar). */
	t->gz = gzdopen(fd, gzip ? "wb6" : "wbT");
	if (!t->gz) {
		close(fd);
		free(t);
		return -ENOMEM;
	}
	*tp = t;
	return 0;
}

static void put_octal(char *field, size_t size, uint64_t v)
{
	snprintf(field, size, "%0*llo", (int)size - 1, (unsigned long long)v);
}

static void t_write(struct tar_out *t, const void *buf, size_t len)
{
	if (!t->err && len && gzwrite(t->gz, buf, (unsigned int)len) != (int)len) {
		int zerr;

		gzerror(t->gz, &zerr);
		t->err = zerr == Z_ERRNO && errno ? -errno : -EIO;
	}
}

static int put_header(struct tar_out *t, const char *name, uint64_t size)
{
	unsigned char h[BLOCK];
	unsigned int sum = 0, i;
	size_t n = strlen(name);
	const char *cut = NULL;

	memset(h, 0, sizeof(h));
	if (n > 100) {
		/* ustar: the directory part goes to the 155-byte prefix. */
		for (cut = name + n - 101; cut > name && *cut != '/'; cut--)
			;
		if (*cut != '/' || (size_t)(cut - name) > 155 || n - (size_t)(cut - name) - 1 > 100)
			return -ENAMETOOLONG;
		memcpy(h + 345, name, (size_t)(cut - name));
		name = cut + 1;
		n = strlen(name);
	}
	if (size >= 1ULL << 33)
		return -EFBIG;
	memcpy(h, name, n);
	put_octal((char *)h + 100, 8, 0644);
	put_octal((char *)h + 108, 8, 0);
	put_octal((char *)h + 116, 8, 0);
	put_octal((char *)h + 124, 12, size);
	put_octal((char *)h + 136, 12, 0);
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	for (i = 0; i < BLOCK; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
	t_write(t, h, sizeof(h));
	return t->err;
}

static void pad(struct tar_out *t, uint64_t size)
{
	static const char zero[BLOCK];

	if (size % BLOCK)
		t_write(t, zero, BLOCK - size % BLOCK);
}

int tar_out_mem(struct tar_out *t, const char *name, const void *buf, size_t len)
{
	int err;

	if (t->err)
		return t->err;
	err = put_header(t, name, len);
	if (err)
		return err;
	t_write(t, buf, len);
	pad(t, len);
	return t->err;
}

int tar_out_file(struct tar_out *t, const char *name, const char *src)
{
	int fd = open(src, O_RDONLY | O_CLOEXEC);
	uint64_t size, done = 0;
	char buf[65536];
	struct stat st;
	int err;

	if (t->err)
		return t->err;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	size = (uint64_t)st.st_size;
	err = put_header(t, name, size);
	while (!err && done < size) {
		ssize_t r = read(fd, buf, size - done < sizeof(buf) ? size - done : sizeof(buf));

		if (r <= 0) {
			/* The file shrank under us: the header's size is a promise, so fail. */
			t->err = r < 0 ? -errno : -EIO;
			break;
		}
		t_write(t, buf, (size_t)r);
		done += (uint64_t)r;
		err = t->err;
	}
	close(fd);
	pad(t, size);
	return t->err;
}

int tar_out_close(struct tar_out *t)
{
	static const char zero[2 * BLOCK];
	int err, zerr;

	t_write(t, zero, sizeof(zero));
	err = t->err;
	zerr = gzclose(t->gz);
	if (!err && zerr != Z_OK)
		err = -EIO;
	free(t);
	return err;
}

/* ---- reading ---- */

static int read_full(gzFile gz, void *buf, size_t len)
{
	int r = gzread(gz, buf, (unsigned int)len);

	if (r < 0)
		return -EIO;
	return (size_t)r == len ? 0 : -EBADMSG;
}

static int skip_bytes(gzFile gz, uint64_t n)
{
	char buf[BLOCK];

	while (n) {
		size_t k = n < sizeof(buf) ? (size_t)n : sizeof(buf);
		int err = read_full(gz, buf, k);

		if (err)
			return err;
		n -= k;
	}
	return 0;
}

static bool octal(const unsigned char *f, size_t size, uint64_t *out)
{
	size_t i = 0;
	uint64_t v = 0;

	while (i < size && f[i] == ' ')
		i++;
	for (; i < size && f[i] >= '0' && f[i] <= '7'; i++)
		v = v << 3 | (uint64_t)(f[i] - '0');
	if (i < size && f[i] && f[i] != ' ')
		return false;
	*out = v;
	return true;
}

/* Names that stay under the extraction directory. */
static bool safe_name(const char *n)
{
	const char *p = n;

	if (!*n || *n == '/')
		return false;
	while (*p) {
		size_t len = strcspn(p, "/");

		if (len == 2 && !strncmp(p, "..", 2))
			return false;
		p += len;
		while (*p == '/')
			p++;
	}
	return true;
}

static int mkdirs(char *path)
{
	char *s;

	for (s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = 0;
		if (mkdir(path, 0700) && errno != EEXIST) {
			int err = -errno;

			*s = '/';
			return err;
		}
		*s = '/';
	}
	return 0;
}

static int extract_one(gzFile gz, const char *dir, const char *name, uint64_t size)
{
	char path[PATH_MAX], buf[65536];
	int fd, err = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return skip_bytes(gz, (size + BLOCK - 1) / BLOCK * BLOCK);
	err = mkdirs(path);
	if (err)
		return err;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	while (!err && size) {
		size_t k = size < sizeof(buf) ? (size_t)size : sizeof(buf);

		err = read_full(gz, buf, k);
		if (!err && write(fd, buf, k) != (ssize_t)k)
			err = -EIO;
		size -= k;
	}
	if (close(fd) && !err)
		err = -EIO;
	return err;
}

int tar_extract(const char *tarfile, const char *dir)
{
	char longname[PATH_MAX] = "", name[PATH_MAX];
	unsigned char h[BLOCK];
	gzFile gz;
	int err = 0, fd = open(tarfile, O_RDONLY | O_CLOEXEC);
	bool any = false;

	if (fd < 0)
		return -errno;
	gz = gzdopen(fd, "rb");
	if (!gz) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		unsigned int sum = 0, i;
		uint64_t size, want;
		char type;

		int r = gzread(gz, h, sizeof(h));

		if (r == 0 && any)
			break;		/* no end-of-archive blocks: some writers omit them */
		if (r != (int)sizeof(h)) {
			err = r < 0 ? -EIO : -EBADMSG;
			break;
		}
		for (i = 0; i < BLOCK && !h[i]; i++)
			;
		if (i == BLOCK)
			break;		/* the end-of-archive block */
		for (i = 0; i < BLOCK; i++)
			sum += i >= 148 && i < 156 ? ' ' : h[i];
		if (!octal(h + 148, 8, &want) || want != sum || !octal(h + 124, 12, &size)) {
			err = -EBADMSG;
			break;
		}
		any = true;
		type = (char)h[156];
		if (longname[0]) {
			pm_strlcpy(name, longname, sizeof(name));
			longname[0] = 0;
		} else if (h[345] && !memcmp(h + 257, "ustar", 5)) {
			snprintf(name, sizeof(name), "%.155s/%.100s", (const char *)h + 345,
				 (const char *)h);
		} else {
			snprintf(name, sizeof(name), "%.100s", (const char *)h);
		}
		if (type == 'L' && size < sizeof(longname)) {
			/* GNU long name: the next member's name is the data. */
			err = read_full(gz, longname, (size_t)size);
			longname[size] = 0;
			if (!err)
				err = skip_bytes(gz, (BLOCK - size % BLOCK) % BLOCK);
		} else if ((type == '0' || type == 0) && safe_name(name)) {
			err = extract_one(gz, dir, name, size);
			if (!err)
				err = skip_bytes(gz, (BLOCK - size % BLOCK) % BLOCK);
		} else {
			/* Directories (made as needed), links, pax headers: nothing to keep. */
			err = skip_bytes(gz, (size + BLOCK - 1) / BLOCK * BLOCK);
		}
		if (err)
			break;
	}
	gzclose(gz);
	return err;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void rm_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- manifest ---- */

int archive_ids_load(struct archive_ids *a, const char *dir)
{
	char path[PATH_MAX], *text, *line, *save = NULL;
	size_t len;
	int err;

	memset(a, 0, sizeof(*a));
	err = strtab_init(&a->paths);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/%s", dir, ARCHIVE_MANIFEST);
	if (pm_read_file(path, &text, &len))
		return 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *hex, *p;
		uint32_t n = 0;
		uint8_t id[20];
		int64_t k;

		/* "elf HEX SOURCE PATH" */
		if (strncmp(line, "elf ", 4))
			continue;
		hex = line + 4;
		for (p = hex; pm_hexval(p[0]) >= 0 && pm_hexval(p[1]) >= 0 && n < sizeof(id); p += 2)
			id[n++] = (uint8_t)(pm_hexval(p[0]) << 4 | pm_hexval(p[1]));
		if (!n || *p != ' ' || !(p = strchr(p + 1, ' ')))
			continue;
		k = strtab_intern(&a->paths, p + 1);
		if (k < 0) {
			err = -ENOMEM;
			break;
		}
		if ((uint32_t)k + 1 == a->paths.n) {
			void *nids = realloc(a->ids, a->paths.n * sizeof(*a->ids));

			if (!nids) {
				err = -ENOMEM;
				break;
			}
			a->ids = nids;
		}
		a->ids[k].len = n;
		memcpy(a->ids[k].id, id, n);
	}
	free(text);
	return err;
}

uint32_t archive_ids_find(const struct archive_ids *a, const char *path, const uint8_t **id)
{
	int64_t k;

	if (!a->ids)
		return 0;
	k = strtab_find(&a->paths, path);
	if (k < 0)
		return 0;
	*id = a->ids[k].id;
	return a->ids[k].len;
}

void archive_ids_free(struct archive_ids *a)
{
	if (a->paths.map.slots)
		strtab_free(&a->paths);
	free(a->ids);
	memset(a, 0, sizeof(*a));
}
