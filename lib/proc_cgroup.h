/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cgroup a process runs in, for the daemon's `cgroup` metric label and
 * `top --by cgroup`: the systemd unit or container it belongs to is a
 * component of that path (/system.slice/nginx.service,
 * /system.slice/docker-ID.scope, /kubepods.slice/...).  Read from
 * /proc/PID/cgroup.  In the library, below both users: top's aggregation
 * (report/analysis/) may include nothing of the daemon's stages.
 */
#ifndef PMIPROF_PROC_CGROUP_H
#define PMIPROF_PROC_CGROUP_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The cgroup v2 path of pid ("0::PATH"), else the path of the v1
 * name=systemd hierarchy, else of the first hierarchy listed, into out.
 * 0, or -errno (-ENOENT: the process is gone).
 */
int proc_cgroup_read(pid_t pid, char *out, size_t len);
/* The same, parsed from the text of a /proc/PID/cgroup file (tests). */
int proc_cgroup_parse(const char *text, char *out, size_t len);

#endif /* PMIPROF_PROC_CGROUP_H */
