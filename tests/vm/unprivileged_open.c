// SPDX-License-Identifier: GPL-2.0
/*
 * VM-suite helper: drop root to uid/gid 65534 (no capabilities) and try to
 * open /dev/pmiprof, which needs CAP_PERFMON or CAP_SYS_ADMIN.  Prints one
 * line, "open: <errno name>" or "open: succeeded", and exits 0 when the
 * open was refused with EACCES or EPERM.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	int fd;

	if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
		printf("cannot drop privileges: %s\n", strerror(errno));
		return 2;
	}
	fd = open("/dev/pmiprof", O_RDONLY);
	if (fd >= 0) {
		printf("open: succeeded\n");
		close(fd);
		return 1;
	}
	printf("open: %s\n",
	       errno == EACCES ? "EACCES" : errno == EPERM ? "EPERM" : strerror(errno));
	return errno == EACCES || errno == EPERM ? 0 : 1;
}
