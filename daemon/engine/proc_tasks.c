// SPDX-License-Identifier: GPL-2.0
/* Thread and process ids from /proc (see proc_tasks.h). */
#include "engine/proc_tasks.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pid_t proc_task_tgid(pid_t tid)
{
	char path[64], line[128];
	long tgid = -1;
	FILE *f;

	/* /proc/TID exists for every thread, listed in /proc or not. */
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %ld", &tgid) == 1)
			break;
	fclose(f);
	return tgid > 0 ? (pid_t)tgid : -EINVAL;
}

int proc_task_threads(pid_t pid, pid_t **tids, unsigned int *nr, unsigned int *cap)
{
	char path[64];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (*nr == *cap) {
			unsigned int c = *cap ? *cap * 2 : 64;
			pid_t *t = realloc(*tids, c * sizeof(*t));

			if (!t) {
				closedir(d);
				return -ENOMEM;
			}
			*tids = t;
			*cap = c;
		}
		(*tids)[(*nr)++] = (pid_t)atoi(de->d_name);
		n++;
	}
	closedir(d);
	return n;
}
