/* SPDX-License-Identifier: GPL-2.0 */
/* Unit-test helper: run a command's entry point with its output captured. */
#ifndef PMIPROF_TEST_CMD_CAPTURE_H
#define PMIPROF_TEST_CMD_CAPTURE_H

/*
 * Runs fn(argc, argv) (argv NULL-terminated) with stdout, and stderr when
 * err is not NULL, going to buffers.  Returns stdout's text; *err gets
 * stderr's (caller frees both); *rc the command's return value.
 */
char *cmd_capture(int (*fn)(int, char **), char **argv, int *rc, char **err);
/* How many times needle occurs in hay (non-overlapping). */
unsigned int count_str(const char *hay, const char *needle);

#endif /* PMIPROF_TEST_CMD_CAPTURE_H */
