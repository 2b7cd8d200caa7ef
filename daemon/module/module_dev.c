// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/pmiprof access shared by the module backend and doctor: open with an
 * actionable message, GET_INFO with the ABI check, PMU description, and the
 * generic-name -> event/umask tables (see module_dev.h).
 */
#include "module/module_dev.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util.h"

int module_info_check(const struct pmiprof_info *info, char *why, size_t why_len)
{
	if (info->abi_major != PMIPROF_ABI_MAJOR) {
		snprintf(why, why_len,
			 "pmiprof.ko speaks ABI %u.%u but this pmiprof needs ABI %u.x: "
			 "load the module built from the same source (make module; "
			 "rmmod pmiprof; insmod kernel/pmiprof.ko)",
			 info->abi_major, info->abi_minor, PMIPROF_ABI_MAJOR);
		return -EPROTO;
	}
	/* Never trust sizes we use for mmap and record parsing blindly. */
	if (info->record_size < offsetof(struct pmiprof_sample_rec, counts) ||
	    info->ring_bytes == 0 || (info->ring_bytes & (info->ring_bytes - 1)) ||
	    info->nr_cpus == 0 || info->nr_cpus > 65536) {
		snprintf(why, why_len,
			 "pmiprof.ko reported an implausible layout (record %u bytes, ring %u "
			 "bytes, %u CPUs)", info->record_size, info->ring_bytes, info->nr_cpus);
		return -EPROTO;
	}
	return 0;
}

int module_dev_get_info(int fd, struct pmiprof_info *info, char *why, size_t why_len)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	if (ioctl(fd, PMIPROF_IOC_GET_INFO, info) < 0) {
		int e = errno;

		snprintf(why, why_len, "GET_INFO on %s failed: %s", PMIPROF_DEVICE_PATH,
			 strerror(e));
		return -e;
	}
	return module_info_check(info, why, why_len);
}

int module_dev_open(const char *path, struct pmiprof_info *info, char *why, size_t why_len)
{
	int fd, e, ret;

	if (!path)
		path = PMIPROF_DEVICE_PATH;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		switch (e) {
		case ENOENT:
		case ENXIO:
		case ENODEV:
			snprintf(why, why_len,
				 "%s not present: the pmiprof module is not loaded "
				 "(make module && sudo insmod kernel/pmiprof.ko)", path);
			break;
		case EACCES:
		case EPERM:
			snprintf(why, why_len,
				 "%s: %s: the device needs root, CAP_PERFMON or CAP_SYS_ADMIN "
				 "(sudo, or setcap cap_perfmon+ep on the pmiprof binary)",
				 path, strerror(e));
			break;
		case EBUSY:
			snprintf(why, why_len,
				 "%s is busy: another pmiprof recorder holds it (one user at a "
				 "time)", path);
			break;
		default:
			snprintf(why, why_len, "cannot open %s: %s", path, strerror(e));
		}
		return -e;
	}
	ret = module_dev_get_info(fd, info, why, why_len);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

const char *module_vendor_name(uint32_t vendor)
{
	switch (vendor) {
	case PMIPROF_VENDOR_INTEL: return "intel";
	case PMIPROF_VENDOR_AMD: return "amd";
	default: return "none";
	}
}

bool module_has_pmi(const struct pmiprof_info *info)
{
	return (info->caps & PMIPROF_CAP_PMI) && info->vendor != PMIPROF_VENDOR_NONE &&
	       info->nr_gp + info->nr_fixed > 0;
}

const char *module_emulation_text(const struct pmiprof_info *info)
{
	if (!(info->flags & PMIPROF_INFO_F_EMULATED))
		return "";
	if (info->flags & PMIPROF_INFO_F_ICOUNT)
		return " (EMULATED PMU (icount: instructions exact); other events synthetic)";
	return " (EMULATED PMU: counts are synthetic)";
}

void module_describe_pmu(const struct pmiprof_info *info, char *buf, size_t len)
{
	char name[sizeof(info->pmu_name) + 1];

	memcpy(name, info->pmu_name, sizeof(info->pmu_name));
	name[sizeof(info->pmu_name)] = '\0';
	if (!module_has_pmi(info)) {
		snprintf(buf, len, "pmiprof.ko %s: no PMU, timer sampling only%s",
			 name[0] ? name : "none",
			 (info->flags & PMIPROF_INFO_F_HYPERVISOR) ? " (virtual machine)" : "");
		return;
	}
	snprintf(buf, len, "pmiprof.ko %s: %s perfmon v%u, %u GP x %u bit, %u fixed x %u bit%s%s",
		 name[0] ? name : "?", module_vendor_name(info->vendor), info->pmu_version,
		 info->nr_gp, info->gp_width, info->nr_fixed, info->fixed_width,
		 module_emulation_text(info),
		 (info->flags & PMIPROF_INFO_F_HYPERVISOR) ? " (virtual machine)" : "");
}

/*
 * Intel architectural events (SDM vol. 3 table 19-1); ref-cycles is the
 * fixed-counter-2 pseudo encoding 0x00/0x03 perf uses.
 */
static const struct module_event_code intel_events[] = {
	{ "instructions",	0xc0, 0x00 },
	{ "cycles",		0x3c, 0x00 },
	{ "ref-cycles",		0x00, 0x03 },
	{ "cache-references",	0x2e, 0x4f },
	{ "cache-misses",	0x2e, 0x41 },
	{ "branches",		0xc4, 0x00 },
	{ "branch-misses",	0xc5, 0x00 },
};

/* AMD: perf's amd_perfmon_event_map (pre-Zen) ... */
static const struct module_event_code amd_events[] = {
	{ "instructions",	0xc0, 0x00 },
	{ "cycles",		0x76, 0x00 },
	{ "cache-references",	0x7d, 0x07 },
	{ "cache-misses",	0x7e, 0x07 },
	{ "branches",		0xc2, 0x00 },
	{ "branch-misses",	0xc3, 0x00 },
};

/* ... and amd_zen1_perfmon_event_map (family 17h+) for the cache events. */
static const struct module_event_code amd_zen_events[] = {
	{ "instructions",	0xc0, 0x00 },
	{ "cycles",		0x76, 0x00 },
	{ "cache-references",	0x60, 0xff },
	{ "cache-misses",	0x64, 0x09 },
	{ "branches",		0xc2, 0x00 },
	{ "branch-misses",	0xc3, 0x00 },
};

static const struct {
	const char *alias, *name;
} event_aliases[] = {
	{ "cpu-cycles", "cycles" },
	{ "branch-instructions", "branches" },
};

const char *module_event_names(void)
{
	return "instructions, cycles (cpu-cycles), ref-cycles (Intel), cache-references, "
	       "cache-misses, branches (branch-instructions), branch-misses";
}

int module_event_lookup(const struct pmiprof_info *info, const char *name,
			struct module_event_code *code)
{
	const struct module_event_code *tab = intel_events;
	size_t n = ARRAY_SIZE(intel_events), i, blen;
	char base[64];

	/* Modifiers (":u", ":k") are carried by the event flags, not the name. */
	blen = strcspn(name, ":");
	if (blen >= sizeof(base))
		return -ENOENT;
	memcpy(base, name, blen);
	base[blen] = '\0';
	for (i = 0; i < ARRAY_SIZE(event_aliases); i++)
		if (!strcmp(base, event_aliases[i].alias))
			pm_strlcpy(base, event_aliases[i].name, sizeof(base));

	if (info->vendor == PMIPROF_VENDOR_AMD) {
		if (info->cpu_family >= 0x17) {
			tab = amd_zen_events;
			n = ARRAY_SIZE(amd_zen_events);
		} else {
			tab = amd_events;
			n = ARRAY_SIZE(amd_events);
		}
	}
	for (i = 0; i < n; i++) {
		if (!strcmp(base, tab[i].name)) {
			*code = tab[i];
			return 0;
		}
	}
	return -ENOENT;
}
