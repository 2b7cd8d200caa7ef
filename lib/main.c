// SPDX-License-Identifier: GPL-2.0
/*
 * pmiprof: the one user-facing binary.  Dispatches `pmiprof CMD ...` through
 * the single commands[] table below, answers --help/--version/help CMD, and
 * turns a failed write to stdout into a failing exit status (as perf does).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "util.h"

static int unknown_command(const char *name)
{
	const char *best = NULL;
	unsigned int best_d = 3;
	size_t i;

	for (i = 0; i < commands_count(); i++) {
		unsigned int d = pm_edit_distance(name, command_at(i)->name);

		if (d < best_d)
			best_d = d, best = command_at(i)->name;
	}
	fprintf(stderr, "pmiprof: '%s' is not a pmiprof command.", name);
	if (best)
		fprintf(stderr, " Did you mean '%s'?", best);
	fprintf(stderr, "\n\n");
	commands_print_help(stderr);
	return EXIT_USAGE;
}

static int finish_stdout(int status)
{
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE)
			pm_err("writing to standard output: %s", strerror(errno));
		return status ? status : 1;
	}
	return status;
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		commands_print_help(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		commands_print_help(stdout);
		return finish_stdout(0);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("pmiprof %s\n", PMIPROF_VERSION);
		return finish_stdout(0);
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			commands_print_help(stdout);
			return finish_stdout(0);
		}
		return finish_stdout(command_help(argv[2]));
	}
	if (argv[1][0] == '-') {
		fprintf(stderr, "pmiprof: unknown option '%s'\n\n", argv[1]);
		commands_print_help(stderr);
		return EXIT_USAGE;
	}
	c = command_find(argv[1]);
	if (!c)
		return unknown_command(argv[1]);
	return finish_stdout(c->run(argc - 1, argv + 1));
}
