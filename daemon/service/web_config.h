/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --web.config.file: the Prometheus exporter toolkit's web configuration
 * (YAML; the format node_exporter and every exporter built on
 * exporter-toolkit read), so an operator's TLS and basic-auth setup is the
 * one they know: tls_server_config (cert_file, key_file, client_auth_type,
 * client_ca_file, min_version, max_version), http_server_config (http2,
 * headers) and basic_auth_users (user: bcrypt hash).  Unknown keys are
 * refused, as the toolkit's strict parsing refuses them; keys of the format
 * this server cannot honour (cipher_suites, curve_preferences, ...) are
 * refused by name rather than ignored.  Paths are relative to the file's
 * directory.  docs/daemon.md, "TLS and basic auth".
 */
#ifndef PMIPROF_DAEMON_WEB_CONFIG_H
#define PMIPROF_DAEMON_WEB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum web_client_auth {
	WEB_NO_CLIENT_CERT,		/* the default */
	WEB_REQUEST_CLIENT_CERT,	/* asked for, not required, not verified */
	WEB_REQUIRE_ANY_CLIENT_CERT,	/* required, not verified */
	WEB_VERIFY_CLIENT_CERT_IF_GIVEN,	/* verified against client_ca_file when sent */
	WEB_REQUIRE_AND_VERIFY_CLIENT_CERT,
};

#define WEB_MAX_HEADERS	8

struct web_user {
	char *name;
	char *hash;			/* bcrypt: $2a$, $2b$ or $2y$ */
};

struct web_config {
	char *path;			/* the file read */
	bool tls;			/* tls_server_config with a certificate */
	char *cert_pem, *key_pem, *ca_pem;	/* file contents, NUL-terminated */
	size_t cert_len, key_len, ca_len;
	char cert_file[4096], key_file[4096], ca_file[4096];	/* resolved paths */
	enum web_client_auth client_auth;
	char priorities[160];		/* GnuTLS priority string for min/max_version */
	struct web_user *users;		/* basic_auth_users; none: no auth */
	unsigned int nr_users;
	char *header_name[WEB_MAX_HEADERS], *header_value[WEB_MAX_HEADERS];
	unsigned int nr_headers;
	/* what the files were when read: web_config_changed() compares */
	struct web_file_id { uint64_t dev, ino, size; int64_t mtime_ns; } ids[4];
};

/*
 * Read and check path into *c (overwritten: it holds nothing).  0, or
 * -errno with one message in err ("PATH:LINE: reason"), *c then empty.
 */
int web_config_load(const char *path, struct web_config *c, char *err, size_t err_len);
void web_config_free(struct web_config *c);
/* The file, or a certificate, key or CA file it names, changed since it was read. */
bool web_config_changed(const struct web_config *c);
/* Take the files' identities again (after a changed file was refused: said once). */
void web_config_refresh_ids(struct web_config *c);
/* The TLS side of a and b is the same (a server restart is needed otherwise). */
bool web_config_same_tls(const struct web_config *a, const struct web_config *b);
/* The client_auth_type's name, as the file spells it. */
const char *web_client_auth_name(enum web_client_auth a);

#endif /* PMIPROF_DAEMON_WEB_CONFIG_H */
