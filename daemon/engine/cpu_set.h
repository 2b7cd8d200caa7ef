/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CPUs a recording opens its per-CPU groups on.  Linux numbers CPUs
 * sparsely once some are offline (SMT off leaves "0,2,4-7"), and ids can
 * exceed any fixed table size, so the set is the parsed kernel range list
 * (/sys/devices/system/cpu/online), kept sorted in a growable array.
 */
#ifndef PMIPROF_DAEMON_CPU_SET_H
#define PMIPROF_DAEMON_CPU_SET_H

#include <stdbool.h>

struct cpu_set {
	int *cpus;			/* ascending, no duplicates */
	unsigned int nr, cap;
};

/*
 * Parse a kernel CPU range list ("0-3,5,7-9", optional trailing newline)
 * into s (emptied first).  0, -EINVAL (malformed, descending range, id above
 * 2^22) or -ENOMEM.
 */
int cpu_set_parse(struct cpu_set *s, const char *list);

/*
 * The online CPUs: PMIPROF_SYSFS_CPU_ONLINE (a file, for tests) or
 * /sys/devices/system/cpu/online; without sysfs, 0..sysconf(ONLN)-1.
 * 0 or -errno.
 */
int cpu_set_online(struct cpu_set *s);
/*
 * The possible CPUs (/sys/devices/system/cpu/possible, fixed at boot): the
 * ids a CPU coming online later can have.  0 or -errno.
 */
int cpu_set_possible(struct cpu_set *s);

/* Insert / remove one id, keeping the order.  0 or -ENOMEM. */
int cpu_set_add(struct cpu_set *s, int cpu);
void cpu_set_remove(struct cpu_set *s, int cpu);
bool cpu_set_has(const struct cpu_set *s, int cpu);
/* Highest id + 1 (0 when empty): the size of tables indexed by CPU id. */
unsigned int cpu_set_slots(const struct cpu_set *s);
void cpu_set_free(struct cpu_set *s);

#endif /* PMIPROF_DAEMON_CPU_SET_H */
