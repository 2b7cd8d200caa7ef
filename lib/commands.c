// SPDX-License-Identifier: GPL-2.0
/*
 * The single table of pmiprof subcommands, and the help that is generated
 * from it.  Adding a command = one CMD() line here + its cmd_<name>.c file.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "util.h"

/* Keep in the order users meet them; `pmiprof --help` prints this order. */
static const struct command commands[] = {
#define CMD(n) { #n, cmd_##n, cmd_##n##_summary, cmd_##n##_help }
	/* COMMAND TABLE: one CMD(name) line per command */
	CMD(record),
	CMD(report),
	CMD(annotate),
	CMD(diff),
	CMD(plot),
	CMD(phases),
	CMD(flamegraph),
	CMD(list),
	CMD(stat),
	CMD(dump),
	CMD(archive),
	CMD(doctor),
	CMD(daemon),
#undef CMD
};

void commands_print_help(FILE *f)
{
	size_t i;

	fprintf(f,
		"usage: pmiprof [--version] [--help] COMMAND [ARGS]\n"
		"\n"
		"pmiprof samples a workload every N hardware (or software) events and records\n"
		"every counter for each window between samples, then symbolizes the windows\n"
		"into flat profiles, per-window tables, histograms and plots.\n"
		"\n"
		"Commands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "   %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"   %-10s %s\n"
		"\n"
		"See 'pmiprof help COMMAND' for the options of one command.\n",
		"help", "Show the manual of a command");
}

const struct command *command_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int command_help(const char *name)
{
	const struct command *c = command_find(name);

	if (!c) {
		pm_err("no such command: '%s' (see 'pmiprof --help')", name);
		return EXIT_USAGE;
	}
	fputs(c->help, stdout);
	return 0;
}


size_t commands_count(void)
{
	return ARRAY_SIZE(commands);
}

const struct command *command_at(size_t i)
{
	return i < ARRAY_SIZE(commands) ? &commands[i] : NULL;
}
