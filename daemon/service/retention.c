// SPDX-License-Identifier: GPL-2.0
/*
 * Deleting the oldest closed segments by age and total size (retention.h).
 */
#include "service/retention.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_dir.h"
#include "util.h"

static int parse_one(const char *s, size_t len, struct retention *r)
{
	static const struct { char c; uint64_t mul; bool size; } units[] = {
		{ 's', 1000000000ull, false }, { 'm', 60000000000ull, false },
		{ 'h', 3600000000000ull, false }, { 'd', 86400000000000ull, false },
		{ 'B', 1, true }, { 'K', 1ull << 10, true }, { 'M', 1ull << 20, true },
		{ 'G', 1ull << 30, true }, { 'T', 1ull << 40, true },
	};
	char num[32], *end;
	unsigned long long v;
	uint64_t mul = 1000000000ull;
	bool size = false;
	size_t i;

	if (!len || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, len);
	num[len] = '\0';
	if (num[0] < '0' || num[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(num, &end, 10);
	if (errno || !v)
		return -EINVAL;
	if (*end) {
		for (i = 0; i < ARRAY_SIZE(units); i++)
			if (*end == units[i].c)
				break;
		/* "500MB", "2GiB" read as their binary units too */
		if (i == ARRAY_SIZE(units) || (end[1] && (!units[i].size ||
		    (strcmp(end + 1, "B") && strcmp(end + 1, "iB")))))
			return -EINVAL;
		mul = units[i].mul;
		size = units[i].size;
	}
	if (v > UINT64_MAX / mul)
		return -EINVAL;
	if (size) {
		if (r->max_bytes)
			return -EINVAL;
		r->max_bytes = v * mul;
	} else {
		if (r->max_age_ns)
			return -EINVAL;
		r->max_age_ns = v * mul;
	}
	return 0;
}

int retention_parse(const char *arg, struct retention *r, char *err, size_t err_len)
{
	const char *comma = strchr(arg, ',');

	memset(r, 0, sizeof(*r));
	if (parse_one(arg, comma ? (size_t)(comma - arg) : strlen(arg), r) ||
	    (comma && parse_one(comma + 1, strlen(comma + 1), r)))
		return pm_set_err(err, err_len, -EINVAL, "invalid --retain '%s': expected an age "
				  "(seconds, or with s/m/h/d), a size (with B/K/M/G/T) or both "
				  "separated by a comma, e.g. 1d,2G", arg);
	return 0;
}

int retention_apply(const char *dir, const struct retention *r, uint64_t now_ns,
		    struct retention_result *res)
{
	struct trace_seg *v;
	uint64_t total = 0;
	size_t nr, i;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = trace_dir_list(dir, &v, &nr);
	if (ret)
		return ret;
	for (i = 0; i < nr; i++)
		total += v[i].bytes;
	for (i = 0; i < nr; i++) {
		bool old = r->max_age_ns && v[i].mtime_ns + r->max_age_ns < now_ns;
		bool big = r->max_bytes && total > r->max_bytes;
		char path[4096];

		if (v[i].open || (!old && !big))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, v[i].name);
		if (unlink(path) && errno != ENOENT) {
			ret = -errno;
			pm_warn("retention: cannot delete %s: %s", path, strerror(errno));
			continue;
		}
		res->deleted++;
		res->deleted_bytes += v[i].bytes;
		total -= v[i].bytes;
		v[i].bytes = 0;
		v[i].name[0] = '\0';
	}
	for (i = 0; i < nr; i++)
		if (v[i].name[0]) {
			res->kept++;
			res->kept_bytes += v[i].bytes;
		}
	free(v);
	return ret;
}
