/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Subcommand entry points.  Each command lives in its own file
 * (daemon/cmd_<name>.c or report/cmd_<name>.c), parses its own options and
 * returns the process exit status: 0 success, 1 failure, 2 usage error
 * (anything else only where documented, e.g. record returns the workload's
 * status).  The one table of commands is in lib/main.c.
 */
#ifndef PMIPROF_COMMANDS_H
#define PMIPROF_COMMANDS_H

#include <stddef.h>
#include <stdio.h>

struct command {
	const char *name;
	int (*run)(int argc, char **argv);	/* argv[0] is the command name */
	const char *summary;			/* one line for `pmiprof --help` */
	const char *help;			/* full manual text for `pmiprof help CMD` */
};

/* Print the full help of a command (used by each command's --help). */
int command_help(const char *name);
const struct command *command_find(const char *name);
void commands_print_help(FILE *f);
size_t commands_count(void);
const struct command *command_at(size_t i);

#define DECLARE_COMMAND(n) \
	int cmd_##n(int argc, char **argv); \
	extern const char cmd_##n##_summary[]; \
	extern const char cmd_##n##_help[]

DECLARE_COMMAND(record);
DECLARE_COMMAND(report);
DECLARE_COMMAND(annotate);
DECLARE_COMMAND(dump);
DECLARE_COMMAND(list);
DECLARE_COMMAND(plot);
DECLARE_COMMAND(stat);
DECLARE_COMMAND(doctor);
DECLARE_COMMAND(daemon);
DECLARE_COMMAND(archive);
DECLARE_COMMAND(flamegraph);
DECLARE_COMMAND(diff);
DECLARE_COMMAND(phases);

#endif /* PMIPROF_COMMANDS_H */
