// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's configuration file (daemon_config.h).  Values are checked
 * here with the parsers the command line uses, so that a bad one is named
 * with its FILE:LINE before anything is applied; the checked file then
 * becomes "--key=value" options for the command line's own parsers.
 */
#include "service/daemon_config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/backend.h"
#include "event_list.h"
#include "service/http_server.h"
#include "engine/record.h"
#include "service/retention.h"
#include "util.h"

#define MAX_LINE	4096

/* 0, or -EINVAL with the reason in err. */
typedef int (*check_fn)(const char *v, char *err, size_t len);

struct key_def {
	const char *key;
	const char *option;		/* long option; "--option=value" */
	char shortopt;			/* its short form, or 0 */
	const char *also;		/* another option that overrides it too, or NULL */
	enum config_apply apply;
	check_fn check;
	uint64_t min, max;		/* for check_range */
	const char *what;		/* for check_range's message */
};

static int check_range(const char *v, uint64_t min, uint64_t max, const char *what, char *err,
		       size_t len)
{
	uint64_t x;

	if (pm_parse_u64(v, min, max, &x))
		return pm_set_err(err, len, -EINVAL, "valid is %llu..%llu %s",
				  (unsigned long long)min, (unsigned long long)max, what);
	return 0;
}

static int check_dir(const char *v, char *err, size_t len)
{
	return *v ? 0 : pm_set_err(err, len, -EINVAL, "empty path");
}

static int check_retain(const char *v, char *err, size_t len)
{
	struct retention r;

	return retention_parse(v, &r, err, len) ? -EINVAL : 0;
}

int daemon_parse_memory(const char *v, uint64_t *bytes, char *err, size_t len)
{
	struct retention r;

	if (retention_parse(v, &r, err, len) || r.max_age_ns || r.max_bytes < (16ull << 20) ||
	    r.max_bytes > (1ull << 40))
		return pm_set_err(err, len, -EINVAL, "'%s': expected a size from 16M to 1T "
				  "(B/K/M/G/T, binary units)", v);
	*bytes = r.max_bytes;
	return 0;
}

static int check_memory(const char *v, char *err, size_t len)
{
	uint64_t b;

	return daemon_parse_memory(v, &b, err, len);
}

static int check_listen(const char *v, char *err, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl;

	if (!strcmp(v, "none") || !http_parse_listen(v, &ss, &sl))
		return 0;
	return pm_set_err(err, len, -EINVAL, "expected ADDR:PORT (127.0.0.1:10150, [::1]:10150) "
			  "or none");
}

static int check_events(const char *v, char *err, size_t len)
{
	struct pm_event_list l;

	return pm_events_parse(v, &l, err, len) ? -EINVAL : 0;
}

static int check_call_graph(const char *v, char *err, size_t len)
{
	struct record_opts o;

	memset(&o, 0, sizeof(o));
	return record_parse_call_graph(&o, v, err, len) ? -EINVAL : 0;
}

static int check_backend(const char *v, char *err, size_t len)
{
	if (!strcmp(v, "auto") || !strcmp(v, "perf") || !strcmp(v, "module"))
		return 0;
	return pm_set_err(err, len, -EINVAL, "valid: auto, perf, module");
}

static int check_pages(const char *v, char *err, size_t len)
{
	uint64_t x;

	if (pm_parse_u64(v, 1, 1u << 20, &x) || (x & (x - 1)))
		return pm_set_err(err, len, -EINVAL, "a power of two in 1..1048576");
	return 0;
}

static int check_bool(const char *v, char *err, size_t len)
{
	if (!strcmp(v, "yes") || !strcmp(v, "no") || !strcmp(v, "true") || !strcmp(v, "false"))
		return 0;
	return pm_set_err(err, len, -EINVAL, "valid: yes, no, true, false");
}

static bool is_true(const char *v)
{
	return !strcmp(v, "yes") || !strcmp(v, "true");
}

/* The command line's ranges (cmd_daemon.c, cmd_record.c). */
static const struct key_def keys[] = {
	{ "dir", "dir", 0, NULL, CONFIG_RESTART, check_dir, 0, 0, NULL },
	{ "segment", "segment", 0, NULL, CONFIG_LIVE, NULL, 1, 86400, "seconds" },
	{ "retain", "retain", 0, NULL, CONFIG_LIVE, check_retain, 0, 0, NULL },
	{ "listen", "listen", 0, "no-listen", CONFIG_LIVE, check_listen, 0, 0, NULL },
	{ "top-comms", "top-comms", 0, NULL, CONFIG_LIVE, NULL, 1, 1000, "commands" },
	{ "events", "event", 'e', NULL, CONFIG_RESTART, check_events, 0, 0, NULL },
	{ "count", "count", 'c', "freq", CONFIG_RESTART, NULL, 1, (1ull << 63) - 1,
	  "events per window" },
	{ "freq", "freq", 'F', "count", CONFIG_RESTART, NULL, 1, 1000000000, "Hz" },
	{ "call-graph", "call-graph", 'g', NULL, CONFIG_RESTART, check_call_graph, 0, 0, NULL },
	{ "max-stack", "max-stack", 0, NULL, CONFIG_RESTART, NULL, 1, PMIPROF_MAX_STACK,
	  "frames" },
	{ "backend", "backend", 0, NULL, CONFIG_RESTART, check_backend, 0, 0, NULL },
	{ "mmap-pages", "mmap-pages", 'm', NULL, CONFIG_RESTART, check_pages, 0, 0, NULL },
	{ "compression-level", "compression-level", 'z', NULL, CONFIG_RESTART, NULL, 0, 9,
	  "(0 stored, 9 smallest)" },
	{ "quiet", "quiet", 'q', NULL, CONFIG_LIVE, check_bool, 0, 0, NULL },
	/* which file is a restart; its contents are re-read live when it changes */
	{ "web.config.file", "web.config.file", 0, NULL, CONFIG_RESTART, check_dir, 0, 0, NULL },
	{ "max-memory", "max-memory", 0, NULL, CONFIG_RESTART, check_memory, 0, 0, NULL },
};

static const struct key_def *key_find(const char *k)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (!strcmp(keys[i].key, k))
			return &keys[i];
	return NULL;
}

/* Does this command-line argument set long option name (or its short form)? */
static bool arg_sets(const char *arg, const char *name, char shortopt)
{
	size_t l = strlen(name);

	if (!strncmp(arg, "--", 2) && !strncmp(arg + 2, name, l) && (!arg[2 + l] || arg[2 + l] == '='))
		return true;
	/* a short option, alone or leading a cluster ("-F999", "-qg") */
	return shortopt && arg[0] == '-' && arg[1] != '-' && strchr(arg + 1, shortopt) &&
	       (arg[1] == shortopt || !strpbrk(arg + 1, "ecFmzo"));
}

static bool cmdline_sets(const struct key_def *k, int argc, char **argv)
{
	const struct key_def *also = k->also ? key_find(k->also) : NULL;
	int i;

	for (i = 0; i < argc && strcmp(argv[i], "--"); i++) {
		if (arg_sets(argv[i], k->option, k->shortopt))
			return true;
		if (also && arg_sets(argv[i], also->option, also->shortopt))
			return true;
		if (k->also && !also && arg_sets(argv[i], k->also, 0))
			return true;
	}
	return false;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* One line: 0, 1 for a blank or comment line, or -EINVAL with the reason in err. */
static int parse_line(struct daemon_config *c, char *buf, unsigned int line, char *err,
		      size_t len)
{
	const struct key_def *k;
	struct config_entry *e;
	char *key = trim(buf), *eq, *val, why[384];
	unsigned int i;

	if (!*key || *key == '#')
		return 1;
	eq = strchr(key, '=');
	if (!eq)
		return pm_set_err(err, len, -EINVAL, "expected 'key = value'");
	*eq = '\0';
	key = trim(key);
	val = trim(eq + 1);
	k = key_find(key);
	if (!k)
		return pm_set_err(err, len, -EINVAL, "unknown key '%.64s' (known: dir, segment, "
				  "retain, listen, top-comms, events, count, freq, call-graph, "
				  "max-stack, backend, mmap-pages, compression-level, quiet)", key);
	for (i = 0; i < c->n; i++)
		if (c->e[i].key == k->key)
			return pm_set_err(err, len, -EINVAL, "'%s' given twice (first at line %u)",
					  key, c->e[i].line);
	if (!*val)
		return pm_set_err(err, len, -EINVAL, "%s: empty value", key);
	why[0] = '\0';
	if (k->check ? k->check(val, why, sizeof(why)) :
	    check_range(val, k->min, k->max, k->what, why, sizeof(why)))
		return pm_set_err(err, len, -EINVAL, "%s = %.128s: %s", key, val, why);
	e = &c->e[c->n];
	memset(e, 0, sizeof(*e));
	e->key = k->key;
	e->line = line;
	e->apply = k->apply;
	e->value = strdup(val);
	if (!e->value)
		return -ENOMEM;
	c->n++;
	if (k == key_find("quiet"))
		e->opt = is_true(val) ? strdup("--quiet") : NULL;
	else if (k == key_find("listen") && !strcmp(val, "none"))
		e->opt = strdup("--no-listen");
	else if (asprintf(&e->opt, "--%s=%s", k->option, val) < 0)
		e->opt = NULL;
	if (!e->opt && (k != key_find("quiet") || is_true(val)))
		return -ENOMEM;
	return 0;
}

int daemon_config_load(const char *path, int argc, char **argv, struct daemon_config *c,
		       char *err, size_t err_len)
{
	char buf[MAX_LINE + 2], why[512];
	unsigned int line = 0, i;
	FILE *f;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	c->path = strdup(path);
	c->e = calloc(ARRAY_SIZE(keys), sizeof(*c->e));
	if (!c->path || !c->e) {
		daemon_config_free(c);
		return -ENOMEM;
	}
	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		daemon_config_free(c);
		return pm_set_err(err, err_len, ret, "--config %s: %s", path, strerror(-ret));
	}
	while (!ret && fgets(buf, sizeof(buf), f)) {
		line++;
		if (!strchr(buf, '\n') && !feof(f)) {
			ret = pm_set_err(why, sizeof(why), -EINVAL, "line longer than %d bytes",
					 MAX_LINE);
			break;
		}
		ret = parse_line(c, buf, line, why, sizeof(why));
		if (ret > 0)
			ret = 0;
	}
	if (!ret && ferror(f))
		ret = pm_set_err(why, sizeof(why), -EIO, "read error");
	fclose(f);
	if (!ret) {
		const struct config_entry *cnt = NULL, *frq = NULL;

		for (i = 0; i < c->n; i++) {
			if (!strcmp(c->e[i].key, "count"))
				cnt = &c->e[i];
			if (!strcmp(c->e[i].key, "freq"))
				frq = &c->e[i];
		}
		if (cnt && frq) {
			line = cnt->line > frq->line ? cnt->line : frq->line;
			ret = pm_set_err(why, sizeof(why), -EINVAL, "count and freq (lines %u and "
					 "%u) are mutually exclusive", cnt->line, frq->line);
		}
	}
	if (ret) {
		pm_set_err(err, err_len, ret, "%s:%u: %s", path, line, why);
		daemon_config_free(c);
		return ret;
	}
	for (i = 0; i < c->n; i++)
		c->e[i].overridden = cmdline_sets(key_find(c->e[i].key), argc, argv);
	return 0;
}

void daemon_config_free(struct daemon_config *c)
{
	unsigned int i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		free(c->e[i].value);
		free(c->e[i].opt);
	}
	free(c->e);
	free(c->path);
	memset(c, 0, sizeof(*c));
}

void daemon_config_args(struct daemon_config *c, char **av, int *ac)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		if (!c->e[i].overridden && c->e[i].opt)
			av[(*ac)++] = c->e[i].opt;
}

const struct config_entry *daemon_config_get(const struct daemon_config *c, const char *key)
{
	unsigned int i;

	for (i = 0; c && i < c->n; i++)
		if (!strcmp(c->e[i].key, key) && !c->e[i].overridden)
			return &c->e[i];
	return NULL;
}

const char *daemon_config_restart_key(const struct daemon_config *old,
				      const struct daemon_config *new)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		const struct config_entry *a = daemon_config_get(old, keys[i].key);
		const struct config_entry *b = daemon_config_get(new, keys[i].key);

		if (keys[i].apply != CONFIG_RESTART || (!a && !b))
			continue;
		if (!a || !b || strcmp(a->value, b->value))
			return keys[i].key;
	}
	return NULL;
}
