/* SPDX-License-Identifier: GPL-2.0 */
/* Unit-test helper: where this test program itself is mapped (for real MMAP records). */
#ifndef PMIPROF_TEST_SELF_MAPS_H
#define PMIPROF_TEST_SELF_MAPS_H

#include <stddef.h>
#include <stdint.h>

struct mapping {
	uint64_t start, end, pgoff;
	char path[4096];
};

/* The executable mapping of /proc/self/maps that contains addr: 0, or -1. */
int find_mapping(const void *addr, struct mapping *m);
/* The build-id of the ELF file at path into id: its length, or -errno. */
int file_build_id(const char *path, uint8_t *id, size_t size);

#endif /* PMIPROF_TEST_SELF_MAPS_H */
