// SPDX-License-Identifier: GPL-2.0
/* Host, CPU, clock and command-line fields of the trace header (see host_info.h). */
#include "engine/host_info.h"

#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "engine/cpu_set.h"
#include "kernel_id.h"
#include "util.h"

static void cpuinfo_fill(struct trace_header *h)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *val;
		size_t n;

		if (line[0] == '\n')
			break;		/* first processor only */
		if (!colon)
			continue;
		val = colon + 1 + (colon[1] == ' ');
		n = strlen(val);
		if (n && val[n - 1] == '\n')
			val[n - 1] = '\0';
		if (!strncmp(line, "vendor_id", 9))
			pm_strlcpy(h->cpu_vendor, val, sizeof(h->cpu_vendor));
		else if (!strncmp(line, "cpu family", 10))
			h->cpu_family = (uint32_t)strtoul(val, NULL, 10);
		else if (!strncmp(line, "model name", 10))
			pm_strlcpy(h->cpu_model_name, val, sizeof(h->cpu_model_name));
		else if (!strncmp(line, "model", 5) && (line[5] == '\t' || line[5] == ' '))
			h->cpu_model = (uint32_t)strtoul(val, NULL, 10);
		else if (!strncmp(line, "stepping", 8))
			h->cpu_stepping = (uint32_t)strtoul(val, NULL, 10);
	}
	fclose(f);
}

unsigned int host_kernel_version(void)
{
	struct utsname u;
	unsigned int maj = 0, min = 0;

	if (uname(&u) || sscanf(u.release, "%u.%u", &maj, &min) != 2)
		return 0;
	return maj * 1000 + min;
}

void host_note_append(struct trace_header *h, const char *text)
{
	size_t n = strlen(h->note);

	if (n && n + 2 < sizeof(h->note)) {
		memcpy(h->note + n, "; ", 3);
		n += 2;
	}
	pm_strlcpy(h->note + n, text, sizeof(h->note) - n);
}

void host_info_fill(struct trace_header *h, int argc, char **argv)
{
	struct cpu_set cpus = { 0 };
	struct utsname u;
	size_t off = 0;
	long n;
	int i;

	h->version_major = PMIPROF_TRACE_VERSION_MAJOR;
	h->version_minor = PMIPROF_TRACE_VERSION_MINOR;
	if (gethostname(h->hostname, sizeof(h->hostname) - 1))
		pm_strlcpy(h->hostname, "unknown", sizeof(h->hostname));
	if (!uname(&u))
		pm_strlcpy(h->kernel_release, u.release, sizeof(h->kernel_release));
	cpuinfo_fill(h);
	/* Best effort: a trace without them is reported as from an unknown boot. */
	if (kernel_boot_id(h->boot_id, sizeof(h->boot_id)))
		h->boot_id[0] = 0;
	n = kernel_build_id(h->kernel_build_id, sizeof(h->kernel_build_id));
	h->kernel_build_id_len = n > 0 ? (uint32_t)n : 0;
	/* Online, not configured: an offline CPU records nothing (backends may refine). */
	if (!cpu_set_online(&cpus))
		h->nr_cpus = cpus.nr;
	else
		h->nr_cpus = (n = sysconf(_SC_NPROCESSORS_ONLN)) > 0 ? (uint32_t)n : 1;
	cpu_set_free(&cpus);
	h->clock_id = CLOCK_MONOTONIC;
	h->clock_freq_hz = 1000000000ull;
	pm_strlcpy(h->clock_name, "monotonic", sizeof(h->clock_name));
	pm_clock_pair(&h->start_time, &h->start_realtime_ns);
	snprintf(h->recorder, sizeof(h->recorder), "pmiprof %s", PMIPROF_VERSION);
	h->cmdline_argc = (uint32_t)argc;
	for (i = 0; i < argc && off + 1 < sizeof(h->cmdline); i++) {
		int w = snprintf(h->cmdline + off, sizeof(h->cmdline) - off, "%s%s",
				 i ? " " : "", argv[i]);

		if (w < 0)
			break;
		off += (size_t)w;
	}
}

bool host_hypervisor(char *vendor, size_t len)
{
	unsigned int a, b, c, dx;
	char sig[13];

	vendor[0] = '\0';
	if (!__get_cpuid(1, &a, &b, &c, &dx) || !(c & (1u << 31)))
		return false;
	__cpuid(0x40000000, a, b, c, dx);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &dx, 4);
	sig[12] = '\0';
	if (!strcmp(sig, "KVMKVMKVM"))
		pm_strlcpy(vendor, "KVM", len);
	else if (!strcmp(sig, "TCGTCGTCGTCG"))
		pm_strlcpy(vendor, "QEMU TCG", len);
	else if (!strcmp(sig, "Microsoft Hv"))
		pm_strlcpy(vendor, "Hyper-V", len);
	else if (!strcmp(sig, "VMwareVMware"))
		pm_strlcpy(vendor, "VMware", len);
	else if (!strcmp(sig, "XenVMMXenVMM"))
		pm_strlcpy(vendor, "Xen", len);
	else
		snprintf(vendor, len, "'%s'", sig);
	return true;
}
