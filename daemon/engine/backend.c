// SPDX-License-Identifier: GPL-2.0
/*
 * Backend selection for record/stat (--backend auto|perf|module): the only
 * place that knows which backends exist.  auto prefers the module when its
 * device is present and its probe succeeds, and falls back to perf.
 */
#include "engine/backend.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "pmiprof/abi.h"
#include "util.h"

const struct backend_ops *backend_find(const char *name)
{
	if (!strcmp(name, "perf"))
		return &backend_perf_ops;
	if (!strcmp(name, "module"))
		return &backend_module_ops;
	return NULL;
}

const struct backend_ops *backend_select(const char *name, const struct record_opts *o)
{
	const struct backend_ops *b;
	char why[256] = "";

	if (!strcmp(name, "auto")) {
		b = backend_find("module");
		if (b && access(PMIPROF_DEVICE_PATH, F_OK) == 0) {
			if (!b->probe || b->probe(o, why, sizeof(why)) == 0)
				return b;
			pm_info("module backend not usable (%s); using perf_event_open", why);
		}
		return &backend_perf_ops;
	}
	if (strcmp(name, "perf") && strcmp(name, "module")) {
		pm_err("unknown backend '%s' (valid: auto, perf, module)", name);
		return NULL;
	}
	b = backend_find(name);
	if (!b) {
		pm_err("the %s backend is not built into this pmiprof", name);
		return NULL;
	}
	if (b->probe && b->probe(o, why, sizeof(why))) {
		pm_err("%s backend not usable: %s", name, why);
		return NULL;
	}
	return b;
}
