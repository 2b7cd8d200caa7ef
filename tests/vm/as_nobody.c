// SPDX-License-Identifier: GPL-2.0
/*
 * VM-suite helper: run a command as uid/gid 65534 with no supplementary
 * groups and no capabilities (the guest has no setpriv or su):
 * as_nobody CMD ARGS...; exits 127 when the command cannot run.
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: as_nobody CMD ARGS...\n");
		return 2;
	}
	if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
		fprintf(stderr, "as_nobody: cannot drop privileges: %s\n", strerror(errno));
		return 127;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "as_nobody: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
