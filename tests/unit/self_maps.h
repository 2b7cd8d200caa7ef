/* SPDX-License-Identifier: GPL-2.0 */
/* Unit-test helper: where this test program itself is mapped (for real MMAP records). */
#ifndef PMIPROF_TEST_SELF_MAPS_H
#define PMIPROF_TEST_SELF_MAPS_H

#include <stdint.h>

struct mapping {
	uint64_t start, end, pgoff;
	char path[4096];
};

/* The executable mapping of /proc/self/maps that contains addr: 0, or -1. */
int find_mapping(const void *addr, struct mapping *m);

#endif /* PMIPROF_TEST_SELF_MAPS_H */
