// SPDX-License-Identifier: GPL-2.0
/* Unit-test helper: find this program's executable mappings (see self_maps.h). */
#include "self_maps.h"

#include <stdio.h>
#include <string.h>

int find_mapping(const void *addr, struct mapping *m)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4600], perms[8];
	unsigned long long s, e, off;
	int found = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		int pos = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &off, &pos) < 4)
			continue;
		if ((uintptr_t)addr < s || (uintptr_t)addr >= e || perms[2] != 'x')
			continue;
		m->start = s;
		m->end = e;
		m->pgoff = off;
		snprintf(m->path, sizeof(m->path), "%s", line + pos);
		m->path[strcspn(m->path, "\n")] = 0;
		found = 0;
		break;
	}
	fclose(f);
	return found;
}
