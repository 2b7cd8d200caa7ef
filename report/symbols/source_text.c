// SPDX-License-Identifier: GPL-2.0
/*
 * source_text.h: a small cache of source files by the name the line table
 * gives, each read whole and split into lines once.  debuginfod is reached
 * through libdebuginfod loaded on first need (dlopen), so a report that
 * finds every file locally, or runs without DEBUGINFOD_URLS, never loads it
 * and its ~25 dependencies.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/source_text.h"
#include "util.h"

#define SOURCE_MAX_BYTES (64u << 20)	/* a "source file" larger than this is not one */

struct src_file {
	char *key;		/* comp_dir "\n" file as asked */
	char *path;		/* the file read, NULL when not found */
	char *text;
	uint32_t *line_at;	/* offset of each line's start, nr_lines + 1 entries */
	uint32_t nr_lines;
};

struct source_files {
	char **dirs;
	uint32_t nr_dirs;
	struct src_file *files;
	uint32_t nr, cap;
	uint32_t *missing;	/* indexes into files */
	uint32_t nr_missing, cap_missing;
	/* libdebuginfod, when DEBUGINFOD_URLS is set and a file is not local */
	void *dfd_lib;
	void *dfd_client;
	bool dfd_tried;
	void *(*dfd_begin)(void);
	int (*dfd_find_source)(void *, const unsigned char *, int, const char *, char **);
	void (*dfd_end)(void *);
};

int source_files_new(struct source_files **out, const char *const *dirs, uint32_t nr_dirs)
{
	struct source_files *sf = calloc(1, sizeof(*sf));
	uint32_t i;

	*out = NULL;
	if (!sf)
		return -ENOMEM;
	if (nr_dirs) {
		sf->dirs = calloc(nr_dirs, sizeof(*sf->dirs));
		if (!sf->dirs) {
			free(sf);
			return -ENOMEM;
		}
	}
	for (i = 0; i < nr_dirs; i++) {
		sf->dirs[i] = strdup(dirs[i]);
		if (!sf->dirs[i]) {
			sf->nr_dirs = i;
			source_files_free(sf);
			return -ENOMEM;
		}
	}
	sf->nr_dirs = nr_dirs;
	*out = sf;
	return 0;
}

void source_files_free(struct source_files *sf)
{
	uint32_t i;

	if (!sf)
		return;
	for (i = 0; i < sf->nr_dirs; i++)
		free(sf->dirs[i]);
	free(sf->dirs);
	for (i = 0; i < sf->nr; i++) {
		free(sf->files[i].key);
		free(sf->files[i].path);
		free(sf->files[i].text);
		free(sf->files[i].line_at);
	}
	free(sf->files);
	free(sf->missing);
	if (sf->dfd_client)
		sf->dfd_end(sf->dfd_client);
	if (sf->dfd_lib)
		dlclose(sf->dfd_lib);
	free(sf);
}

/* Read fd whole into f (text split into lines): 0, or -errno. */
static int load_fd(struct src_file *f, int fd)
{
	struct stat st;
	uint32_t n = 0, i, cap = 0;
	size_t got = 0;
	ssize_t r;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > SOURCE_MAX_BYTES)
		return -EINVAL;
	f->text = malloc((size_t)st.st_size + 1);
	if (!f->text)
		return -ENOMEM;
	while (got < (size_t)st.st_size &&
	       (r = read(fd, f->text + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)r;
	f->text[got] = '\0';
	if (pm_grow(&f->line_at, &cap, 2, 256, sizeof(*f->line_at)))
		return -ENOMEM;
	f->line_at[n++] = 0;
	for (i = 0; i < got; i++)
		if (f->text[i] == '\n') {
			if (pm_grow(&f->line_at, &cap, (uint64_t)n + 2, 256, sizeof(*f->line_at)))
				return -ENOMEM;
			f->line_at[n++] = i + 1;
		}
	if (got && f->text[got - 1] != '\n') {
		if (pm_grow(&f->line_at, &cap, (uint64_t)n + 1, 256, sizeof(*f->line_at)))
			return -ENOMEM;
		f->line_at[n++] = (uint32_t)got + 1;
	}
	f->nr_lines = n - 1;
	return 0;
}

static int try_path(struct src_file *f, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = load_fd(f, fd);
	close(fd);
	if (err) {
		free(f->text);
		f->text = NULL;
		free(f->line_at);
		f->line_at = NULL;
		return err;
	}
	f->path = strdup(path);
	return f->path ? 0 : -ENOMEM;
}

/* debuginfod's copy of file (its absolute name) for build_id: 0, or -errno. */
static int try_debuginfod(struct source_files *sf, struct src_file *f, const char *abs,
			  const uint8_t *build_id, uint32_t build_id_len)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	char *got = NULL;
	int fd, err;

	if (!urls || !*urls || build_id_len < 2)
		return -ENOENT;
	if (!sf->dfd_tried) {
		sf->dfd_tried = true;
		sf->dfd_lib = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
		if (sf->dfd_lib) {
			*(void **)&sf->dfd_begin = dlsym(sf->dfd_lib, "debuginfod_begin");
			*(void **)&sf->dfd_find_source = dlsym(sf->dfd_lib, "debuginfod_find_source");
			*(void **)&sf->dfd_end = dlsym(sf->dfd_lib, "debuginfod_end");
			if (sf->dfd_begin && sf->dfd_find_source && sf->dfd_end) {
				setenv("DEBUGINFOD_TIMEOUT", "10", 0);
				sf->dfd_client = sf->dfd_begin();
			}
		}
		if (!sf->dfd_client)
			pm_warn("DEBUGINFOD_URLS is set but libdebuginfod cannot be used: source "
				"files are looked up locally only");
	}
	if (!sf->dfd_client)
		return -ENOENT;
	pm_info("asking debuginfod (%s) for the source %s...", urls, abs);
	fd = sf->dfd_find_source(sf->dfd_client, build_id, (int)build_id_len, abs, &got);
	if (fd < 0) {
		free(got);
		return -ENOENT;
	}
	err = load_fd(f, fd);
	close(fd);
	f->path = got;
	return err;
}

/* Find the file: f->path set, or not found (f->path NULL). */
static int find_file(struct source_files *sf, struct src_file *f, const char *file,
		     const char *comp_dir, const uint8_t *build_id, uint32_t build_id_len)
{
	char abs[4096], p[8192];
	const char *base = strrchr(file, '/');
	uint32_t i;
	int err;

	if (file[0] == '/' || !comp_dir)
		snprintf(abs, sizeof(abs), "%s", file);
	else
		snprintf(abs, sizeof(abs), "%s/%s", comp_dir, file);
	err = try_path(f, abs);
	if (err != -ENOENT && err != -ENOTDIR && err != -EACCES && err != -EINVAL)
		return err;
	for (i = 0; i < sf->nr_dirs && !f->path; i++) {
		snprintf(p, sizeof(p), "%s/%s", sf->dirs[i], abs);
		err = try_path(f, p);
		if (err == -ENOMEM)
			return err;
		if (!f->path && file[0] != '/') {
			snprintf(p, sizeof(p), "%s/%s", sf->dirs[i], file);
			if (try_path(f, p) == -ENOMEM)
				return -ENOMEM;
		}
		if (!f->path && base) {
			snprintf(p, sizeof(p), "%s/%s", sf->dirs[i], base + 1);
			if (try_path(f, p) == -ENOMEM)
				return -ENOMEM;
		}
	}
	if (!f->path && try_debuginfod(sf, f, abs, build_id, build_id_len) == -ENOMEM)
		return -ENOMEM;
	return 0;
}

const char *source_line(struct source_files *sf, const char *file, const char *comp_dir,
			const uint8_t *build_id, uint32_t build_id_len, int lineno, size_t *len,
			const char **path)
{
	char key[8192];
	struct src_file *f = NULL;
	uint32_t i, a, b;

	*len = 0;
	*path = NULL;
	if (!file)
		return NULL;
	snprintf(key, sizeof(key), "%s\n%s", comp_dir ? comp_dir : "", file);
	for (i = 0; i < sf->nr; i++)
		if (!strcmp(sf->files[i].key, key)) {
			f = &sf->files[i];
			break;
		}
	if (!f) {
		if (pm_grow(&sf->files, &sf->cap, (uint64_t)sf->nr + 1, 16, sizeof(*sf->files)))
			return NULL;
		f = &sf->files[sf->nr];
		memset(f, 0, sizeof(*f));
		f->key = strdup(key);
		if (!f->key)
			return NULL;
		sf->nr++;
		if (find_file(sf, f, file, comp_dir, build_id, build_id_len))
			return NULL;
		if (!f->path && !pm_grow(&sf->missing, &sf->cap_missing,
					 (uint64_t)sf->nr_missing + 1, 8, sizeof(*sf->missing)))
			sf->missing[sf->nr_missing++] = sf->nr - 1;
	}
	*path = f->path;
	if (!f->text || lineno < 1 || (uint32_t)lineno > f->nr_lines)
		return NULL;
	a = f->line_at[lineno - 1];
	b = f->line_at[lineno] - 1;	/* the newline */
	while (b > a && f->text[b - 1] == '\r')
		b--;
	*len = b - a;
	return f->text + a;
}

uint32_t source_files_missing(const struct source_files *sf)
{
	return sf->nr_missing;
}

const char *source_files_missing_at(const struct source_files *sf, uint32_t i)
{
	const char *k = sf->files[sf->missing[i]].key;
	const char *nl = strchr(k, '\n');

	return nl ? nl + 1 : k;
}
