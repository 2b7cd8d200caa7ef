// SPDX-License-Identifier: GPL-2.0
/* Unit-test helper: find this program's executable mappings (see self_maps.h). */
#include "self_maps.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/kernel_id.h"

int file_build_id(const char *path, uint8_t *id, size_t size)
{
	int fd = open(path, O_RDONLY), n = -ENOENT;
	Elf_Scn *scn = NULL;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && n < 0 && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE && (d = elf_getdata(scn, NULL)))
			n = elf_notes_build_id(d->d_buf, d->d_size, id, size);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return n;
}

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
