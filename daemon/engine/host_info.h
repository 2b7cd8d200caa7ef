/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine-describing fields of a trace header: hostname, kernel
 * release, CPU vendor/family/model/stepping/model name, online CPUs, clock
 * (CLOCK_MONOTONIC in ns, start time), recorder version and command line.
 * Backends add the PMU, events and trigger.
 */
#ifndef PMIPROF_DAEMON_HOST_INFO_H
#define PMIPROF_DAEMON_HOST_INFO_H

#include <stdbool.h>
#include <stddef.h>

#include "pmiprof/trace.h"

void host_info_fill(struct trace_header *h, int argc, char **argv);
/* Kernel release as major*1000+minor (6.12 -> 6012), 0 if unknown. */
unsigned int host_kernel_version(void);
/* Append text to h->note, separated by "; ". */
void host_note_append(struct trace_header *h, const char *text);
/* The CPUID hypervisor vendor ("KVM", "QEMU TCG", ...) into vendor; false on bare metal. */
bool host_hypervisor(char *vendor, size_t len);

#endif /* PMIPROF_DAEMON_HOST_INFO_H */
