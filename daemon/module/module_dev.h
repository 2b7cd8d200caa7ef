/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/pmiprof from user space: opening it with a message that says what to
 * do, GET_INFO with the ABI-major check, a one-line description of the PMU
 * for the trace header and doctor, and the mapping from the event names
 * users type (perf's generic names) to the architectural event/umask codes
 * the module accepts.  Shared by the module backend and `pmiprof doctor`.
 */
#ifndef PMIPROF_DAEMON_MODULE_DEV_H
#define PMIPROF_DAEMON_MODULE_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmiprof/abi.h"

/*
 * Open path (NULL: PMIPROF_DEVICE_PATH) read-only and fetch its info.
 * Returns the fd, or -errno with a complete explanation in why:
 * -ENOENT module not loaded, -EACCES/-EPERM missing capability, -EBUSY
 * another recorder holds it, -EPROTO ABI major mismatch (fd closed).
 */
int module_dev_open(const char *path, struct pmiprof_info *info, char *why, size_t why_len);

/*
 * The checks GET_INFO's answer must pass: ABI major equal to ours, a sane
 * ring layout (power-of-two ring, record at least up to counts[]).
 * 0 or -EPROTO with why filled.
 */
int module_info_check(const struct pmiprof_info *info, char *why, size_t why_len);

/* GET_INFO on an open fd, checked by module_info_check().  0 or -errno (why filled). */
int module_dev_get_info(int fd, struct pmiprof_info *info, char *why, size_t why_len);

/* "intel", "amd", "none" */
const char *module_vendor_name(uint32_t vendor);

/* Human description: "emul-intel v2 (EMULATED), 4 GP x 48 bit, 3 fixed x 48 bit". */
void module_describe_pmu(const struct pmiprof_info *info, char *buf, size_t len);

/*
 * What the emulated PMU's counts are worth, as every description says it:
 * "" (real PMU), " (EMULATED PMU: counts are synthetic)", or under
 * emul_clock=icount " (EMULATED PMU (icount: instructions exact); ...)".
 */
const char *module_emulation_text(const struct pmiprof_info *info);

/* True when the module can sample on counter overflow (it found or emulates a PMU). */
bool module_has_pmi(const struct pmiprof_info *info);

struct module_event_code {
	const char *name;		/* perf generic name */
	uint16_t event;
	uint8_t umask;
};

/*
 * Map a generic event name to its code for the module's vendor/family.
 * 0, or -ENOENT (not a name the module backend knows; *code untouched).
 */
int module_event_lookup(const struct pmiprof_info *info, const char *name,
			struct module_event_code *code);
/* Comma-separated list of the names module_event_lookup() accepts. */
const char *module_event_names(void);

#endif /* PMIPROF_DAEMON_MODULE_DEV_H */
