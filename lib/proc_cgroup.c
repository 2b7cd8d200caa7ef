// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/PID/cgroup for the daemon's cgroup label and top --by cgroup
 * (proc_cgroup.h).
 */
#include "proc_cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The path of line "ID:CONTROLLERS:PATH" (len bytes) into out; 0 or -EINVAL. */
static int take_path(const char *line, size_t l, char *out, size_t len)
{
	const char *c1 = memchr(line, ':', l), *c2;
	size_t n;

	if (!c1)
		return -EINVAL;
	c2 = memchr(c1 + 1, ':', l - (size_t)(c1 + 1 - line));
	if (!c2)
		return -EINVAL;
	n = l - (size_t)(c2 + 1 - line);
	if (!n || !len)
		return -EINVAL;
	if (n >= len)
		n = len - 1;
	memcpy(out, c2 + 1, n);
	out[n] = '\0';
	return 0;
}

int proc_cgroup_parse(const char *text, char *out, size_t len)
{
	const char *p = text, *v1 = NULL, *first = NULL;
	size_t v1_len = 0, first_len = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);

		if (l > 3 && !strncmp(p, "0::", 3))
			return take_path(p, l, out, len);
		if (!v1 && memmem(p, l, ":name=systemd:", 14)) {
			v1 = p;
			v1_len = l;
		}
		if (!first && l) {
			first = p;
			first_len = l;
		}
		p += l + (nl ? 1 : 0);
	}
	if (v1)
		return take_path(v1, v1_len, out, len);
	return first ? take_path(first, first_len, out, len) : -EINVAL;
}

int proc_cgroup_read(pid_t pid, char *out, size_t len)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return proc_cgroup_parse(buf, out, len);
}
