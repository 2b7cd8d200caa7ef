/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small shared helpers for every command: diagnostics with one consistent
 * prefix, checked allocation that returns NULL (never exits), string and
 * number parsing with range checks, and time.  Library code reports errors
 * by returning -errno; only command entry points decide the exit status.
 */
#ifndef PMIPROF_UTIL_H
#define PMIPROF_UTIL_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Exit statuses shared by all commands. */
#define EXIT_USAGE 2

#if defined(__GNUC__)
#define PM_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PM_PRINTF(a, b)
#endif

/* "pmiprof: error: ..." / "pmiprof: warning: ..." / "pmiprof: ..." on stderr. */
void pm_err(const char *fmt, ...) PM_PRINTF(1, 2);
void pm_warn(const char *fmt, ...) PM_PRINTF(1, 2);
void pm_info(const char *fmt, ...) PM_PRINTF(1, 2);
/* Print a usage error for command cmd and return EXIT_USAGE. */
int pm_usage_error(const char *cmd, const char *fmt, ...) PM_PRINTF(2, 3);
/* Format an error message into err[len] (when err is not NULL); returns ret. */
int pm_set_err(char *err, size_t len, int ret, const char *fmt, ...) PM_PRINTF(4, 5);
/* Set by -q / --quiet handling: silences pm_info(). */
extern bool pm_quiet;

/* Parse a non-negative integer with optional k/M/G suffix (x1000), in [min,max]. */
int pm_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/*
 * argv[i] is option name ("--name VALUE" or "--name=VALUE"): take it and its
 * value out of argv (the rest moves down, *argc shrinks), *val pointing at
 * the value.  1 taken, 0 argv[i] is not it, -1 its value is missing.  For
 * commands that take their own options out before record's parser sees argv.
 */
int pm_take_opt(int *argc, char **argv, int i, const char *name, const char **val);
/* Levenshtein distance, for "did you mean" suggestions. */
unsigned int pm_edit_distance(const char *a, const char *b);

uint64_t pm_now_ns(void);		/* CLOCK_MONOTONIC */
/*
 * Block the signals of set (the old mask in *old) and return a non-blocking,
 * close-on-exec signalfd that reads them, or -errno with the mask restored.
 */
int pm_signalfd(const sigset_t *set, sigset_t *old);
uint64_t pm_realtime_ns(void);		/* CLOCK_REALTIME */
uint64_t pm_thread_cpu_ns(void);	/* CLOCK_THREAD_CPUTIME_ID: the calling thread's CPU time */
/*
 * CLOCK_MONOTONIC and CLOCK_REALTIME read as one instant: the tightest of a
 * few monotonic-realtime-monotonic reads (a thread preempted between two
 * reads would otherwise shift every wall-clock time derived from the pair).
 */
void pm_clock_pair(uint64_t *mono_ns, uint64_t *real_ns);

/*
 * Read fd (or path) until EOF into a malloc'd buffer with a NUL after the
 * *len bytes read (procfs files and pipes have no size).  0 or -errno.
 */
int pm_read_fd(int fd, char **out, size_t *len);
int pm_read_file(const char *path, char **out, size_t *len);
/* This process's resident set size in bytes (/proc/self/statm), 0 when unknown. */
uint64_t pm_rss_bytes(void);

/*
 * Make room for need elements of elem bytes in the array at *pp (a pointer
 * to any object pointer) of capacity *cap: from first, doubling, realloc'd.
 * On failure *pp and *cap are untouched, still owned by the caller.
 * pm_grow_zero also zeroes the new elements.  0 or -ENOMEM (also when the
 * capacity would pass UINT32_MAX or the size SIZE_MAX).
 */
int pm_grow(void *pp, uint32_t *cap, uint64_t need, uint32_t first, size_t elem);
int pm_grow_zero(void *pp, uint32_t *cap, uint64_t need, uint32_t first, size_t elem);

/* Copy with truncation; always NUL-terminates when size > 0. */
size_t pm_strlcpy(char *dst, const char *src, size_t size);

/* Value of hex digit c, or -1. */
static inline int pm_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

#endif /* PMIPROF_UTIL_H */
