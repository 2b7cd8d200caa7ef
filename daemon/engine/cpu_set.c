// SPDX-License-Identifier: GPL-2.0
/* CPU range lists from sysfs into a growable sorted set (see cpu_set.h). */
#include "engine/cpu_set.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CPU_ID_MAX	(1 << 22)	/* far above the kernel's NR_CPUS limit (8192) */

static int push(struct cpu_set *s, int cpu)
{
	if (s->nr && s->cpus[s->nr - 1] >= cpu)
		return -EINVAL;		/* the kernel prints ranges ascending */
	if (s->nr == s->cap) {
		unsigned int cap = s->cap ? s->cap * 2 : 16;
		int *n = realloc(s->cpus, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->cpus = n;
		s->cap = cap;
	}
	s->cpus[s->nr++] = cpu;
	return 0;
}

static int parse_id(const char **p, long *out)
{
	char *end;

	if (**p < '0' || **p > '9')
		return -EINVAL;
	errno = 0;
	*out = strtol(*p, &end, 10);
	if (errno || *out > CPU_ID_MAX)
		return -EINVAL;
	*p = end;
	return 0;
}

int cpu_set_parse(struct cpu_set *s, const char *list)
{
	const char *p = list;
	int ret;

	s->nr = 0;
	if (*p == '\n' || !*p)
		return 0;		/* an empty list is valid (no CPU offline) */
	for (;;) {
		long lo, hi, c;

		ret = parse_id(&p, &lo);
		if (ret)
			return ret;
		hi = lo;
		if (*p == '-') {
			p++;
			ret = parse_id(&p, &hi);
			if (ret)
				return ret;
			if (hi < lo)
				return -EINVAL;
		}
		for (c = lo; c <= hi; c++) {
			ret = push(s, (int)c);
			if (ret)
				return ret;
		}
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == '\n')
			p++;
		return *p ? -EINVAL : 0;
	}
}

static int read_list(struct cpu_set *s, const char *path)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f = fopen(path, "r");
	int ret;

	if (!f)
		return -errno;
	/* One line; getline() grows for the longest lists of huge machines. */
	n = getline(&buf, &cap, f);
	ret = n < 0 ? (ferror(f) ? -EIO : -EINVAL) : cpu_set_parse(s, buf);
	free(buf);
	fclose(f);
	return ret;
}

int cpu_set_online(struct cpu_set *s)
{
	const char *path = getenv("PMIPROF_SYSFS_CPU_ONLINE");
	int ret = read_list(s, path && *path ? path : "/sys/devices/system/cpu/online");

	if (ret == -ENOENT && !(path && *path)) {
		/* No sysfs (some containers): assume CPUs 0..n-1. */
		long n = sysconf(_SC_NPROCESSORS_ONLN), c;

		s->nr = 0;
		for (c = 0, ret = 0; c < (n > 0 ? n : 1) && !ret; c++)
			ret = push(s, (int)c);
	}
	if (!ret && !s->nr)
		ret = -ENODEV;
	return ret;
}

int cpu_set_possible(struct cpu_set *s)
{
	int ret = read_list(s, "/sys/devices/system/cpu/possible");

	if (ret == -ENOENT) {
		long n = sysconf(_SC_NPROCESSORS_CONF), c;

		s->nr = 0;
		for (c = 0, ret = 0; c < (n > 0 ? n : 1) && !ret; c++)
			ret = push(s, (int)c);
	}
	return ret;
}

/* Index of the first id >= cpu. */
static unsigned int lower_bound(const struct cpu_set *s, int cpu)
{
	unsigned int lo = 0, hi = s->nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (s->cpus[mid] < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool cpu_set_has(const struct cpu_set *s, int cpu)
{
	unsigned int i = lower_bound(s, cpu);

	return i < s->nr && s->cpus[i] == cpu;
}

int cpu_set_add(struct cpu_set *s, int cpu)
{
	unsigned int i = lower_bound(s, cpu);
	int ret;

	if (i < s->nr && s->cpus[i] == cpu)
		return 0;
	if (i == s->nr)
		return push(s, cpu);
	ret = push(s, s->cpus[s->nr - 1] + 1);	/* grow by one slot */
	if (ret)
		return ret;
	memmove(&s->cpus[i + 1], &s->cpus[i], (s->nr - 1 - i) * sizeof(*s->cpus));
	s->cpus[i] = cpu;
	return 0;
}

void cpu_set_remove(struct cpu_set *s, int cpu)
{
	unsigned int i = lower_bound(s, cpu);

	if (i < s->nr && s->cpus[i] == cpu) {
		memmove(&s->cpus[i], &s->cpus[i + 1], (s->nr - 1 - i) * sizeof(*s->cpus));
		s->nr--;
	}
}

unsigned int cpu_set_slots(const struct cpu_set *s)
{
	return s->nr ? (unsigned int)s->cpus[s->nr - 1] + 1 : 0;
}

void cpu_set_free(struct cpu_set *s)
{
	free(s->cpus);
	s->cpus = NULL;
	s->nr = s->cap = 0;
}
