// SPDX-License-Identifier: GPL-2.0
/*
 * pmiprof list: the events usable on this machine.  Generic perf names are
 * tried with perf_event_open so the list says which ones actually work
 * here; microarchitecture names come from libpfm4 for the PMUs it detects.
 */
#include <errno.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "commands.h"
#include "events.h"
#include "util.h"

const char cmd_list_summary[] = "List the events usable on this machine";

const char cmd_list_help[] =
"NAME\n"
"    pmiprof list - list events for -e\n"
"\n"
"SYNOPSIS\n"
"    pmiprof list [--all] [--pfm] [PATTERN]\n"
"\n"
"DESCRIPTION\n"
"    Prints perf's generic hardware, cache and software events, each tried with\n"
"    perf_event_open on this machine, then the microarchitecture events libpfm4\n"
"    knows for the PMUs it detects here.  By default only events that can be\n"
"    opened are listed; a machine without a hardware PMU (most VMs) shows the\n"
"    software events only.  PATTERN keeps names that contain it (case\n"
"    insensitive).\n"
"\n"
"    Event syntax for -e: NAME[:MODIFIERS]; modifiers u, k, h limit counting to\n"
"    user, kernel or hypervisor mode, T marks the trigger event.  Raw events are\n"
"    rNNNN (hexadecimal config).  libpfm4 names are PMU::EVENT:UMASK or EVENT:UMASK\n"
"    with libpfm4's own modifiers.\n"
"\n"
"OPTIONS\n"
"    --all    also list generic events that do not work here, with the reason\n"
"    --pfm    list only libpfm4 events\n"
"    -h, --help\n"
"        This text.\n"
"\n"
"EXAMPLES\n"
"    pmiprof list\n"
"    pmiprof list --all cache\n"
"    LIBPFM_FORCE_PMU=skl pmiprof list --pfm BR_MISP\n"
"\n"
"EXIT STATUS\n"
"    0 on success, 2 for usage errors.\n";

/* 0 usable, else -errno from perf_event_open. */
static int try_event(const struct pm_generic_event *g)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = g->type;
	a.config = g->config;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static bool matches(const char *name, const char *pat)
{
	return !pat || strcasestr(name, pat);
}

struct pfm_list {
	const char *pat;
	const char *last_pmu;
	unsigned long n;
};

static void print_pfm(void *arg, const char *pmu, const char *name, const char *desc)
{
	struct pfm_list *pl = arg;
	char full[256];

	snprintf(full, sizeof(full), "%s::%s", pmu, name);
	if (!matches(full, pl->pat))
		return;
	if (!pl->last_pmu || strcmp(pl->last_pmu, pmu)) {
		printf("\nlibpfm4 PMU %s:\n", pmu);
		pl->last_pmu = pmu;
	}
	printf("  %-40s %.70s\n", full, desc ? desc : "");
	pl->n++;
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'A' },
		{ "pfm", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *pat = NULL, *kind = NULL;
	bool all = false, pfm_only = false;
	struct pfm_list pl = { 0 };
	size_t i;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'A': all = true; break;
		case 'P': pfm_only = true; break;
		case 'h': return command_help("list");
		default: return pm_usage_error("list", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		pat = argv[optind++];
	if (optind < argc)
		return pm_usage_error("list", "unexpected argument '%s'", argv[optind]);

	for (i = 0; !pfm_only && i < pm_generic_events_count(); i++) {
		const struct pm_generic_event *g = pm_generic_event_at(i);
		char name[96];
		int r;

		if (!matches(g->name, pat) && !(g->alias && matches(g->alias, pat)))
			continue;
		r = try_event(g);
		if (r && !all)
			continue;
		if (!kind || strcmp(kind, g->kind)) {
			printf("%s%s events:\n", kind ? "\n" : "", g->kind);
			kind = g->kind;
		}
		snprintf(name, sizeof(name), "%s%s%s%s", g->name, g->alias ? " OR " : "",
			 g->alias ? g->alias : "", "");
		printf("  %-40s %-38s%s\n", name, g->desc,
		       !r ? "" : r == -EACCES || r == -EPERM ? " [not permitted]" :
		       " [not supported]");
	}
	pl.pat = pat;
	if (pm_pfm_for_each_event(print_pfm, &pl))
		printf("\n(libpfm4 could not be initialised: no microarchitecture events)\n");
	else if (!pl.n && !pat)
		printf("\nlibpfm4 detects no hardware PMU here (set LIBPFM_FORCE_PMU to "
		       "list another model's events)\n");
	printf("\nraw events: rNNNN (hex config); modifiers :u :k :h, :T = trigger\n");
	return 0;
}
