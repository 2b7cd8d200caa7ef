// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the inputs that reach pmiprof from outside a trace:
 * a JIT's /tmp/perf-PID.map (written by the profiled process, so
 * untrusted), a build-id archive (`report --archive`, from another
 * machine), the -e event list, and --since/--until wall-clock times.
 * The first input byte picks the parser, the rest is its text.  Built and
 * run by tests/fuzz/run with -fsanitize=fuzzer,address,undefined.
 *
 * Besides surviving, each parser is held to what its callers rely on:
 * a perf map's symbols are looked up at every address the text names and
 * each answer lies inside its own symbol; a parsed event list has 1 to
 * PMIPROF_MAX_EVENTS events; an error always comes with a message; an
 * archive leaves nothing but directories and regular files under the
 * directory it is extracted into.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event_list.h"
#include "symbols/archive.h"
#include "symbols/symbols.h"
#include "trace_dir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char jit_dir[64];

static void remove_jit_dir(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/perf-1.map", jit_dir);
	unlink(path);
	rmdir(jit_dir);
}

/* The text as a NUL-terminated string (a NUL inside ends it, as argv would). */
static char *text_of(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

/* Every hex number in the text is a candidate address, and one past it. */
static void lookup_named_addresses(struct symbolizer *sy, const char *t)
{
	const char *p = t;
	unsigned int n = 0;

	while (*p && n < 64) {
		char *e;
		unsigned long long a = strtoull(p, &e, 16);
		int64_t id, id1;

		if (e == p) {
			p++;
			continue;
		}
		p = e;
		n++;
		id = symbolizer_resolve_jit(sy, 1, a);
		id1 = symbolizer_resolve_jit(sy, 1, a + 1);
		if ((id < 0 && id != -ENOENT) || (id1 < 0 && id1 != -ENOENT))
			abort();
		if (id >= 0 && !symbolizer_sym(sy, (uint32_t)id)->name)
			abort();
	}
}

static void fuzz_perf_map(const uint8_t *data, size_t size)
{
	struct symbolizer_opts o = { .jit_dir = jit_dir };
	struct symbolizer *sy;
	char path[128], *t;
	int fd;

	snprintf(path, sizeof(path), "%s/perf-1.map", jit_dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size || close(fd))
		abort();
	if (symbolizer_new(&sy, &o))
		abort();
	t = text_of(data, size);
	lookup_named_addresses(sy, t);
	free(t);
	symbolizer_free(sy);
}

static int only_files_and_dirs(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)path;
	(void)st;
	(void)f;
	if (flag != FTW_F && flag != FTW_D && flag != FTW_DP)
		abort();
	return 0;
}

static void fuzz_archive(const uint8_t *data, size_t size)
{
	char tar[128], dir[128];
	int fd;

	snprintf(tar, sizeof(tar), "%s/in.tar", jit_dir);
	snprintf(dir, sizeof(dir), "%s/x", jit_dir);
	fd = open(tar, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size || close(fd) || mkdir(dir, 0700))
		abort();
	tar_extract(tar, dir);
	nftw(dir, only_files_and_dirs, 16, FTW_PHYS);
	rm_tree(dir);
	unlink(tar);
}

static void fuzz_events(const uint8_t *data, size_t size)
{
	struct pm_event_list l;
	char err[512] = "", *t = text_of(data, size);
	int rc = pm_events_parse(t, &l, err, sizeof(err));

	if (rc == 0 && (l.nr < 1 || l.nr > PMIPROF_MAX_EVENTS))
		abort();
	if (rc != 0 && (rc > 0 || !err[0]))
		abort();
	free(t);
}

static void fuzz_walltime(const uint8_t *data, size_t size)
{
	uint64_t ns = 0, now = 1795000000ull * 1000000000ull;
	char *t = text_of(data, size);
	int rc = trace_parse_walltime(t, now, &ns);

	if (rc != 0 && rc != -EINVAL)
		abort();
	free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!jit_dir[0]) {
		snprintf(jit_dir, sizeof(jit_dir), "/tmp/pmiprof-fuzz-jit.XXXXXX");
		if (!mkdtemp(jit_dir))
			abort();
		atexit(remove_jit_dir);
	}
	if (!size)
		return 0;
	switch (data[0] % 4) {
	case 0:
		fuzz_perf_map(data + 1, size - 1);
		break;
	case 3:
		fuzz_archive(data + 1, size - 1);
		break;
	case 1:
		fuzz_events(data + 1, size - 1);
		break;
	default:
		fuzz_walltime(data + 1, size - 1);
		break;
	}
	return 0;
}
