// SPDX-License-Identifier: GPL-2.0
/* Diagnostics, number parsing and small string/time helpers (see util.h). */
#include "util.h"

#include <errno.h>
#include <sys/signalfd.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

bool pm_quiet;

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "pmiprof: %s", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int pm_set_err(char *err, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return ret;
}

void pm_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error: ", fmt, ap);
	va_end(ap);
}

void pm_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void pm_info(const char *fmt, ...)
{
	va_list ap;

	if (pm_quiet)
		return;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

int pm_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "pmiprof %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'pmiprof help %s' for more information.\n", cmd);
	return EXIT_USAGE;
}

int pm_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		mul = 1000, end++;
	else if (*end == 'M')
		mul = 1000000, end++;
	else if (*end == 'G')
		mul = 1000000000, end++;
	if (*end)
		return -EINVAL;
	if (v > UINT64_MAX / mul)
		return -ERANGE;
	v *= mul;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

unsigned int pm_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned int row[128], i, j;

	if (lb >= ARRAY_SIZE(row))
		lb = ARRAY_SIZE(row) - 1;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		unsigned int diag = row[0];

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			unsigned int up = row[j];
			unsigned int cost = a[i - 1] != b[j - 1];
			unsigned int best = diag + cost;

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t pm_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t pm_thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

uint64_t pm_realtime_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

void pm_clock_pair(uint64_t *mono_ns, uint64_t *real_ns)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < 8; i++) {
		uint64_t m0 = pm_now_ns(), r = pm_realtime_ns(), m1 = pm_now_ns();

		if (m1 - m0 < best) {
			best = m1 - m0;
			*mono_ns = m0 + (m1 - m0) / 2;
			*real_ns = r;
		}
		if (best < 1000)
			break;
	}
}

static int grow(void *pp, uint32_t *cap, uint64_t need, uint32_t first, size_t elem,
		bool zero)
{
	uint64_t nc = *cap ? *cap : (first ? first : 1);
	void *old, *n;

	if (need <= *cap)
		return 0;
	if (need > UINT32_MAX)
		return -ENOMEM;
	while (nc < need)
		nc *= 2;
	if (nc > UINT32_MAX)
		nc = need;
	if (elem && nc > SIZE_MAX / elem)
		return -ENOMEM;
	/* pp points at a T *, whatever T is: copied, never accessed as void * */
	memcpy(&old, pp, sizeof(old));
	n = realloc(old, (size_t)nc * elem);
	if (!n)
		return -ENOMEM;
	if (zero)
		memset((char *)n + (size_t)*cap * elem, 0, (size_t)(nc - *cap) * elem);
	memcpy(pp, &n, sizeof(n));
	*cap = (uint32_t)nc;
	return 0;
}

int pm_grow(void *pp, uint32_t *cap, uint64_t need, uint32_t first, size_t elem)
{
	return grow(pp, cap, need, first, elem, false);
}

int pm_grow_zero(void *pp, uint32_t *cap, uint64_t need, uint32_t first, size_t elem)
{
	return grow(pp, cap, need, first, elem, true);
}

size_t pm_strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = strlen(src);

	if (size) {
		size_t c = n < size - 1 ? n : size - 1;

		memcpy(dst, src, c);
		dst[c] = '\0';
	}
	return n;
}

int pm_read_fd(int fd, char **out, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap), *nb;
	ssize_t r;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (cap - n < 4096) {
			nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = -errno;

			free(buf);
			return err;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	buf[n] = 0;
	*out = buf;
	*len = n;
	return 0;
}

uint64_t pm_rss_bytes(void)
{
	unsigned long long size, rss = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	if (f) {
		if (fscanf(f, "%llu %llu", &size, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	return rss * (uint64_t)sysconf(_SC_PAGESIZE);
}

int pm_read_file(const char *path, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = pm_read_fd(fd, out, len);
	close(fd);
	return err;
}

int pm_signalfd(const sigset_t *set, sigset_t *old)
{
	int fd;

	if (sigprocmask(SIG_BLOCK, set, old))
		return -errno;
	fd = signalfd(-1, set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0) {
		int e = -errno;

		sigprocmask(SIG_SETMASK, old, NULL);
		return e;
	}
	return fd;
}

int pm_take_opt(int *argc, char **argv, int i, const char *name, const char **val)
{
	size_t l = strlen(name);

	if (strncmp(argv[i], name, l))
		return 0;
	if (argv[i][l] == '=') {
		*val = argv[i] + l + 1;
		memmove(argv + i, argv + i + 1, (size_t)(*argc - i) * sizeof(*argv));
		(*argc)--;
		return 1;
	}
	if (argv[i][l])
		return 0;
	if (i + 1 >= *argc)
		return -1;
	*val = argv[i + 1];
	memmove(argv + i, argv + i + 2, (size_t)(*argc - i - 1) * sizeof(*argv));
	*argc -= 2;
	return 1;
}
