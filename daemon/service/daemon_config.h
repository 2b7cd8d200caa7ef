/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The daemon's --config FILE (docs/daemon.md): lines "key = value" whose
 * keys are the daemon's long options without "--" (dir, segment, retain,
 * listen, top-comms, events, count, freq, call-graph, max-stack, backend,
 * mmap-pages, compression-level, quiet), '#' comment lines and blank
 * lines.  Each value is checked as the command line checks it; an unknown
 * key, a bad value or a key given twice is refused with FILE:LINE.  The
 * file becomes options placed before the command line's, so an option
 * given on the command line wins over the file.
 */
#ifndef PMIPROF_DAEMON_DAEMON_CONFIG_H
#define PMIPROF_DAEMON_DAEMON_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* When a key's new value takes effect on SIGHUP. */
enum config_apply {
	CONFIG_LIVE,		/* at once */
	CONFIG_RESTART,		/* the daemon restarts recording (re-exec) at a segment boundary */
};

struct config_entry {
	const char *key;	/* the table's name */
	char *value;
	char *opt;		/* the option it stands for ("--key=value"), or NULL (quiet = no) */
	unsigned int line;
	enum config_apply apply;
	bool overridden;	/* the command line gives this option: the file's value is unused */
};

struct daemon_config {
	char *path;
	struct config_entry *e;
	unsigned int n;
};

/*
 * Read and check path.  0, or -errno / -EINVAL with the message
 * ("FILE:LINE: ...") in err.  cmdline (argc/argv without argv[0]) marks
 * the entries the command line overrides.
 */
int daemon_config_load(const char *path, int argc, char **argv, struct daemon_config *c,
		       char *err, size_t err_len);
void daemon_config_free(struct daemon_config *c);
/*
 * The options the file stands for, "--key=value" each (overridden entries
 * left out), appended to av from *ac on: av needs room for c->n entries.
 * The strings belong to c.
 */
void daemon_config_args(struct daemon_config *c, char **av, int *ac);
/* The entry for key, or NULL when the file does not set it (or the command line overrides it). */
const struct config_entry *daemon_config_get(const struct daemon_config *c, const char *key);
/*
 * The first key whose effective value differs between old and new and
 * that needs a restart (CONFIG_RESTART), or NULL.
 */
const char *daemon_config_restart_key(const struct daemon_config *old,
				      const struct daemon_config *new);

/*
 * --max-memory: a size 16M..1T (retention's units: B/K/M/G/T, binary).
 * 0 or -EINVAL (message in err).
 */
int daemon_parse_memory(const char *v, uint64_t *bytes, char *err, size_t len);

#endif /* PMIPROF_DAEMON_DAEMON_CONFIG_H */
