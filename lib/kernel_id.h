/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which kernel is running: its boot id (changes on every boot, so with KASLR
 * it names one set of kernel addresses) and the GNU build-id of its image.
 * The recorder stores both in the trace header; report compares them with
 * the running kernel's so it never symbolizes with another kernel's
 * kallsyms; archive keys the kallsyms it packs by boot id.
 */
#ifndef PMIPROF_KERNEL_ID_H
#define PMIPROF_KERNEL_ID_H

#include <stddef.h>
#include <stdint.h>

#define KERNEL_BOOT_ID_LEN	36	/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */

/* /proc/sys/kernel/random/boot_id without its newline: 0 or -errno. */
int kernel_boot_id(char *buf, size_t size);
/* Build-id of the running kernel from /sys/kernel/notes: its length, or -errno. */
int kernel_build_id(uint8_t *id, size_t size);
/* The NT_GNU_BUILD_ID note of an ELF note section: its length, or -ENOENT. */
int elf_notes_build_id(const uint8_t *notes, size_t len, uint8_t *id, size_t size);
/* Lower-case hex of id into buf (2 * len + 1 bytes). */
void build_id_hex(char *buf, const uint8_t *id, size_t len);
/* Whether s is a boot id as the kernel writes it (so it is safe in a path). */
int kernel_boot_id_valid(const char *s);

#endif /* PMIPROF_KERNEL_ID_H */
