// SPDX-License-Identifier: GPL-2.0
/*
 * pmiprof list: the events usable on this machine.  Generic perf names and
 * libpfm4's microarchitecture names (for the PMUs it detects) are tried with
 * perf_event_open, so the list shows only what works here (--all: all).
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
"    knows for the PMUs it detects here, each encoded and tried too.  By\n"
"    default only events that can be opened are listed, and the others are\n"
"    counted; a machine without a hardware PMU (most VMs, where libpfm4 may\n"
"    still detect the CPU model) shows the software events only.\n"
"    Descriptions are printed whole, wrapped at 100 columns.  PATTERN keeps\n"
"    names that contain it (case insensitive).\n"
"\n"
"    Event syntax for -e: NAME[:MODIFIERS]; modifiers u, k, h limit counting to\n"
"    user, kernel or hypervisor mode, T marks the trigger event.  Raw events are\n"
"    rNNNN (hexadecimal config).  libpfm4 names are PMU::EVENT:UMASK or EVENT:UMASK\n"
"    with libpfm4's own modifiers.\n"
"\n"
"OPTIONS\n"
"    --all    also list the events that cannot be opened here (generic and\n"
"             libpfm4 ones), marked [not supported] or [not permitted]\n"
"    --pfm    list only libpfm4 events\n"
"    -h, --help\n"
"        This text.\n"
"\n"
"EXAMPLES\n"
"    pmiprof list\n"
"    pmiprof list --all cache\n"
"    LIBPFM_FORCE_PMU=skl pmiprof list --all --pfm BR_MISP\n"
"\n"
"EXIT STATUS\n"
"    0 on success, 2 for usage errors.\n";

/* 0 usable, else -errno from perf_event_open (user space only, as unprivileged). */
static int try_open(uint32_t type, uint64_t config, uint64_t config1)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.config1 = config1;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static const char *open_mark(int r)
{
	return !r ? "" : r == -EACCES || r == -EPERM ? "[not permitted]" : "[not supported]";
}

static bool matches(const char *name, const char *pat)
{
	return !pat || strcasestr(name, pat);
}

/*
 * "  NAME  description": the description whole (never cut), wrapped at
 * spaces to LIST_WIDTH columns, continued under its first line.
 */
#define LIST_WIDTH	100
#define LIST_DESC_COL	43
static void print_entry(const char *name, const char *desc, const char *mark)
{
	char text[2048];
	const char *p = text;
	int room = LIST_WIDTH - LIST_DESC_COL, first = 1;

	snprintf(text, sizeof(text), "%s%s%s", mark, mark[0] ? " " : "", desc ? desc : "");
	if (strlen(name) > LIST_DESC_COL - 3)
		printf("  %s\n%*s", name, LIST_DESC_COL, "");
	else
		printf("  %-*s ", LIST_DESC_COL - 3, name);
	do {
		int len = (int)strlen(p), cut = len;

		if (len > room) {
			for (cut = room; cut > room / 2 && p[cut] != ' '; cut--)
				;
			if (p[cut] != ' ')
				cut = room;
		}
		printf("%*s%.*s\n", first ? 0 : LIST_DESC_COL, "", cut, p);
		p += cut;
		while (*p == ' ')
			p++;
		first = 0;
	} while (*p);
}

/*
 * libpfm4 knows events of every model of a PMU family it detects (or is
 * told to, LIBPFM_FORCE_PMU), also where no such counter can be opened (a
 * VM): each event is encoded and opened.  An event that needs a unit mask
 * to be encoded takes the result of its PMU's first encodable event.
 */
#define LIST_MAX_PMUS	32
struct pfm_list {
	const char *pat;
	const char *last_pmu;
	bool all;
	unsigned long n, hidden;
	unsigned int nr_pmus;
	struct { char name[64]; int result; } pmus[LIST_MAX_PMUS];
};

static int try_pfm(const char *full, int *r)
{
	struct pm_event ev;
	char err[256];
	bool trig;

	if (pm_event_parse_one(full, &ev, &trig, err, sizeof(err)))
		return -EINVAL;
	*r = try_open(ev.type, ev.config, ev.config1);
	return 0;
}

/* The PMU's entry; NULL when it has no encodable event (yet). */
static int *pmu_result(struct pfm_list *pl, const char *pmu)
{
	unsigned int i;

	for (i = 0; i < pl->nr_pmus; i++)
		if (!strcmp(pl->pmus[i].name, pmu))
			return &pl->pmus[i].result;
	return NULL;
}

static void probe_pfm(void *arg, const char *pmu, const char *name, const char *desc)
{
	struct pfm_list *pl = arg;
	char full[256];
	int r;

	(void)desc;
	if (pmu_result(pl, pmu) || pl->nr_pmus == LIST_MAX_PMUS)
		return;
	snprintf(full, sizeof(full), "%s::%s", pmu, name);
	if (try_pfm(full, &r))
		return;
	pm_strlcpy(pl->pmus[pl->nr_pmus].name, pmu, sizeof(pl->pmus[0].name));
	pl->pmus[pl->nr_pmus++].result = r;
}

static void print_pfm(void *arg, const char *pmu, const char *name, const char *desc)
{
	struct pfm_list *pl = arg;
	char full[256];
	int r, *pr;

	snprintf(full, sizeof(full), "%s::%s", pmu, name);
	if (!matches(full, pl->pat))
		return;
	if (try_pfm(full, &r))
		r = (pr = pmu_result(pl, pmu)) ? *pr : -ENOENT;
	if (r && !pl->all) {
		pl->hidden++;
		return;
	}
	if (!pl->last_pmu || strcmp(pl->last_pmu, pmu)) {
		printf("\nlibpfm4 PMU %s:\n", pmu);
		pl->last_pmu = pmu;
	}
	print_entry(full, desc, open_mark(r));
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
	unsigned long hidden = 0;
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
		r = try_open(g->type, g->config, 0);
		if (r && !all) {
			hidden++;
			continue;
		}
		if (!kind || strcmp(kind, g->kind)) {
			printf("%s%s events:\n", kind ? "\n" : "", g->kind);
			kind = g->kind;
		}
		snprintf(name, sizeof(name), "%s%s%s%s", g->name, g->alias ? " OR " : "",
			 g->alias ? g->alias : "", "");
		print_entry(name, g->desc, open_mark(r));
	}
	pl.pat = pat;
	pl.all = all;
	if (pm_pfm_init()) {
		printf("\n(libpfm4 could not be initialised: no microarchitecture events)\n");
	} else {
		pm_pfm_for_each_event(probe_pfm, &pl);
		pm_pfm_for_each_event(print_pfm, &pl);
		if (!pl.n && !pl.hidden && !pat)
			printf("\nlibpfm4 detects no hardware PMU here (set LIBPFM_FORCE_PMU to "
			       "list another model's events)\n");
	}
	if (pl.hidden + hidden)
		printf("\n%lu event(s) libpfm4 or perf know are not listed: they cannot be "
		       "opened here (no such PMU, or not permitted); 'pmiprof list --all' "
		       "shows them marked\n", pl.hidden + hidden);
	printf("\nraw events: rNNNN (hex config); modifiers :u :k :h, :T = trigger\n");
	return 0;
}
