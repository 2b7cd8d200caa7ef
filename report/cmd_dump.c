// SPDX-License-Identifier: GPL-2.0
/*
 * pmiprof dump: print a trace file's header and every record, one line per
 * record, then the reader's statistics.  A debugging tool and the backbone
 * of golden tests.  (First version: option parsing only; the trace reader
 * lands next.)
 */
#include <getopt.h>
#include <stdio.h>

#include "commands.h"
#include "util.h"

const char cmd_dump_summary[] = "Print every header field and record of a trace file";
const char cmd_dump_help[] =
"NAME\n"
"    pmiprof dump - print the header and every record of a trace file\n"
"\n"
"SYNOPSIS\n"
"    pmiprof dump [-i FILE] [--header-only] [--raw]\n";

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "header-only", no_argument, NULL, 'H' },
		{ "raw", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "pmiprof.data";
	int c;

	while ((c = getopt_long(argc, argv, "i:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i': input = optarg; break;
		case 'H': case 'r': break;
		case 'h': return command_help("dump");
		default: return pm_usage_error("dump", "see 'pmiprof dump --help'");
		}
	}
	pm_err("%s: the trace reader is not built yet", input);
	return 1;
}
