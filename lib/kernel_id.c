// SPDX-License-Identifier: GPL-2.0
/* Boot id and build-id of the running kernel (see kernel_id.h). */
#include "kernel_id.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define NT_GNU_BUILD_ID_TYPE	3

int kernel_boot_id_valid(const char *s)
{
	size_t i;

	if (strlen(s) != KERNEL_BOOT_ID_LEN)
		return 0;
	for (i = 0; i < KERNEL_BOOT_ID_LEN; i++)
		if (!(isxdigit((unsigned char)s[i]) || (s[i] == '-' && (i == 8 || i == 13 ||
									i == 18 || i == 23))))
			return 0;
	return 1;
}

int kernel_boot_id(char *buf, size_t size)
{
	char *text, *nl;
	size_t len;
	int err = pm_read_file("/proc/sys/kernel/random/boot_id", &text, &len);

	if (err)
		return err;
	nl = strchr(text, '\n');
	if (nl)
		*nl = 0;
	err = kernel_boot_id_valid(text) ? 0 : -EINVAL;
	if (!err)
		pm_strlcpy(buf, text, size);
	free(text);
	return err;
}

int elf_notes_build_id(const uint8_t *p, size_t len, uint8_t *id, size_t size)
{
	size_t off = 0;

	/* Elf{32,64}_Nhdr are the same: u32 namesz, descsz, type; name and desc 4-aligned. */
	while (len - off >= 12) {
		uint32_t nh[3];
		size_t name, desc;

		memcpy(nh, p + off, sizeof(nh));
		off += 12;
		name = ((size_t)nh[0] + 3) & ~(size_t)3;
		desc = ((size_t)nh[1] + 3) & ~(size_t)3;
		if (name > len - off || desc > len - off - name)
			break;
		if (nh[2] == NT_GNU_BUILD_ID_TYPE && nh[0] == 4 && !memcmp(p + off, "GNU", 4) &&
		    nh[1] && nh[1] <= size) {
			memcpy(id, p + off + name, nh[1]);
			return (int)nh[1];
		}
		off += name + desc;
	}
	return -ENOENT;
}

int kernel_build_id(uint8_t *id, size_t size)
{
	char *notes;
	size_t len;
	int err = pm_read_file("/sys/kernel/notes", &notes, &len);

	if (err)
		return err;
	err = elf_notes_build_id((const uint8_t *)notes, len, id, size);
	free(notes);
	return err;
}

void build_id_hex(char *buf, const uint8_t *id, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		buf[2 * i] = hex[id[i] >> 4];
		buf[2 * i + 1] = hex[id[i] & 15];
	}
	buf[2 * len] = 0;
}
