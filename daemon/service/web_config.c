// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter toolkit's web configuration (web_config.h): YAML through
 * libyaml's document API, certificates checked with GnuTLS (the library
 * libmicrohttpd serves TLS with) so that a bad key is refused with its
 * reason when the file is read, not as a server that does not start.
 */
#include "service/web_config.h"

#include <crypt.h>
#include <errno.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "util.h"

#define MAX_FILE_BYTES	(1u << 20)	/* a config, certificate or key file */

/* The parse in progress: the document and where messages go. */
struct ctx {
	yaml_document_t doc;
	const char *path;
	char dir[4096];			/* the file's directory, for relative paths */
	char *err;
	size_t err_len;
	struct web_config *c;
};

static int fail(struct ctx *x, const yaml_node_t *n, const char *fmt, ...) PM_PRINTF(3, 4);
static int fail(struct ctx *x, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n)
		snprintf(x->err, x->err_len, "%s:%zu: %s", x->path, n->start_mark.line + 1, msg);
	else
		snprintf(x->err, x->err_len, "%s: %s", x->path, msg);
	return -EINVAL;
}

const char *web_client_auth_name(enum web_client_auth a)
{
	static const char *const names[] = {
		"NoClientCert", "RequestClientCert", "RequireAnyClientCert",
		"VerifyClientCertIfGiven", "RequireAndVerifyClientCert",
	};

	return (unsigned int)a < ARRAY_SIZE(names) ? names[a] : "?";
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A YAML null (nothing after "key:"), which the toolkit reads as not given. */
static bool is_null(const yaml_node_t *n)
{
	const char *s = scalar(n);

	return n && n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null"));
}

static void file_id(const struct stat *st, struct web_file_id *id)
{
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	id->size = (uint64_t)st->st_size;
	id->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* Whole file into a NUL-terminated buffer; its identity into id.  0 or -errno. */
static int read_file(const char *path, char **out, size_t *len, struct web_file_id *id)
{
	FILE *f = fopen(path, "re");
	struct stat st;
	char *buf;
	size_t n;

	if (!f)
		return -errno;
	if (fstat(fileno(f), &st) || st.st_size > MAX_FILE_BYTES) {
		int e = st.st_size > MAX_FILE_BYTES ? -EFBIG : -errno;

		fclose(f);
		return e;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, (size_t)st.st_size, f);
	fclose(f);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	if (id)
		file_id(&st, id);
	return 0;
}

/* A file named in the config: relative to the config's directory, as the toolkit does. */
static int load_named(struct ctx *x, const yaml_node_t *n, const char *what, char *path,
		      size_t path_len, char **buf, size_t *len, struct web_file_id *id)
{
	const char *v = scalar(n);
	int e;

	if (!v || !*v)
		return fail(x, n, "%s: expected a file name", what);
	if ((size_t)(v[0] == '/' ? snprintf(path, path_len, "%s", v) :
		     snprintf(path, path_len, "%s/%s", x->dir, v)) >= path_len)
		return fail(x, n, "%s: path too long", what);
	e = read_file(path, buf, len, id);
	if (e)
		return fail(x, n, "%s %s: %s", what, path, strerror(-e));
	return 0;
}

static int tls_version(struct ctx *x, const yaml_node_t *n, const char *key, int *v)
{
	static const char *const names[] = { "TLS10", "TLS11", "TLS12", "TLS13" };
	const char *s = scalar(n);
	unsigned int i;

	for (i = 0; s && i < ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i])) {
			*v = (int)i;
			return 0;
		}
	return fail(x, n, "%s '%s': valid are TLS10, TLS11, TLS12, TLS13", key, s ? s : "");
}

static int parse_tls(struct ctx *x, const yaml_node_t *m)
{
	struct web_config *c = x->c;
	const yaml_node_t *cert = NULL, *key = NULL, *ca = NULL;
	int minv = 2, maxv = 3, e, i;
	yaml_node_pair_t *p;

	if (is_null(m))
		return 0;
	if (m->type != YAML_MAPPING_NODE)
		return fail(x, m, "tls_server_config: expected a mapping");
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const yaml_node_t *kn = yaml_document_get_node(&x->doc, p->key);
		const yaml_node_t *vn = yaml_document_get_node(&x->doc, p->value);
		const char *k = scalar(kn), *v = scalar(vn);

		if (!k)
			return fail(x, kn, "tls_server_config: expected key: value");
		if (is_null(vn))
			continue;
		if (!strcmp(k, "cert_file")) {
			cert = vn;
		} else if (!strcmp(k, "key_file")) {
			key = vn;
		} else if (!strcmp(k, "client_ca_file")) {
			ca = vn;
		} else if (!strcmp(k, "client_auth_type")) {
			for (i = 0; i <= WEB_REQUIRE_AND_VERIFY_CLIENT_CERT; i++)
				if (v && !strcmp(v, web_client_auth_name((enum web_client_auth)i)))
					break;
			if (i > WEB_REQUIRE_AND_VERIFY_CLIENT_CERT)
				return fail(x, vn, "client_auth_type '%s': valid are NoClientCert, "
					    "RequestClientCert, RequireAnyClientCert, "
					    "VerifyClientCertIfGiven, RequireAndVerifyClientCert",
					    v ? v : "");
			c->client_auth = (enum web_client_auth)i;
		} else if (!strcmp(k, "min_version")) {
			if ((e = tls_version(x, vn, k, &minv)))
				return e;
		} else if (!strcmp(k, "max_version")) {
			if ((e = tls_version(x, vn, k, &maxv)))
				return e;
		} else if (!strcmp(k, "cipher_suites") || !strcmp(k, "curve_preferences") ||
			   !strcmp(k, "prefer_server_cipher_suites") || !strcmp(k, "cert") ||
			   !strcmp(k, "key") || !strcmp(k, "client_allowed_sans")) {
			return fail(x, kn, "tls_server_config: '%s' is not supported by pmiprof "
				    "(GnuTLS's defaults for the allowed TLS versions are used; "
				    "certificates come from cert_file/key_file)", k);
		} else {
			return fail(x, kn, "tls_server_config: unknown key '%s'", k);
		}
	}
	if (!cert && !key && !ca && c->client_auth == WEB_NO_CLIENT_CERT)
		return 0;	/* an empty section: plain HTTP, as the toolkit serves it */
	if (!cert)
		return fail(x, m, "tls_server_config: missing cert_file");
	if (!key)
		return fail(x, m, "tls_server_config: missing key_file");
	if (minv > maxv)
		return fail(x, m, "tls_server_config: min_version is above max_version");
	if (ca && c->client_auth == WEB_NO_CLIENT_CERT)
		return fail(x, ca, "client_ca_file given with client_auth_type NoClientCert "
			    "(the default): say which client_auth_type it is for");
	/* libmicrohttpd asks for client certificates only with a CA list to send */
	if (!ca && c->client_auth != WEB_NO_CLIENT_CERT)
		return fail(x, m, "client_auth_type %s needs client_ca_file here (libmicrohttpd "
			    "requests client certificates only with a CA list)",
			    web_client_auth_name(c->client_auth));
	if ((e = load_named(x, cert, "cert_file", c->cert_file, sizeof(c->cert_file),
			    &c->cert_pem, &c->cert_len, &c->ids[1])) ||
	    (e = load_named(x, key, "key_file", c->key_file, sizeof(c->key_file),
			    &c->key_pem, &c->key_len, &c->ids[2])) ||
	    (ca && (e = load_named(x, ca, "client_ca_file", c->ca_file, sizeof(c->ca_file),
				   &c->ca_pem, &c->ca_len, &c->ids[3]))))
		return e;
	{
		static const char *const vers[] = { "+VERS-TLS1.0", "+VERS-TLS1.1",
						    "+VERS-TLS1.2", "+VERS-TLS1.3" };
		size_t n = (size_t)snprintf(c->priorities, sizeof(c->priorities),
					    "NORMAL:-VERS-ALL");

		for (i = minv; i <= maxv; i++)
			n += (size_t)snprintf(c->priorities + n, sizeof(c->priorities) - n, ":%s",
					      vers[i]);
	}
	{
		/* the key and certificate as libmicrohttpd will hand them to GnuTLS */
		gnutls_certificate_credentials_t cr;
		gnutls_datum_t cd = { (unsigned char *)c->cert_pem, (unsigned int)c->cert_len };
		gnutls_datum_t kd = { (unsigned char *)c->key_pem, (unsigned int)c->key_len };
		gnutls_priority_t pc;
		const char *where = NULL;

		if (gnutls_certificate_allocate_credentials(&cr))
			return -ENOMEM;
		e = gnutls_certificate_set_x509_key_mem(cr, &cd, &kd, GNUTLS_X509_FMT_PEM);
		if (e < 0) {
			gnutls_certificate_free_credentials(cr);
			return fail(x, cert, "cert_file %s / key_file %s: %s (PEM certificate and "
				    "unencrypted PEM key that belong together expected)",
				    c->cert_file, c->key_file, gnutls_strerror(e));
		}
		if (c->ca_pem) {
			gnutls_datum_t ad = { (unsigned char *)c->ca_pem, (unsigned int)c->ca_len };

			e = gnutls_certificate_set_x509_trust_mem(cr, &ad, GNUTLS_X509_FMT_PEM);
			if (e <= 0) {
				gnutls_certificate_free_credentials(cr);
				return fail(x, ca, "client_ca_file %s: %s", c->ca_file,
					    e < 0 ? gnutls_strerror(e) : "no PEM certificate in it");
			}
		}
		gnutls_certificate_free_credentials(cr);
		e = gnutls_priority_init(&pc, c->priorities, &where);
		if (e < 0)
			return fail(x, m, "min_version/max_version: GnuTLS refuses '%s': %s",
				    c->priorities, gnutls_strerror(e));
		gnutls_priority_deinit(pc);
	}
	c->tls = true;
	return 0;
}

static int parse_users(struct ctx *x, const yaml_node_t *m)
{
	struct web_config *c = x->c;
	yaml_node_pair_t *p;
	size_t n;

	if (is_null(m))
		return 0;
	if (m->type != YAML_MAPPING_NODE)
		return fail(x, m, "basic_auth_users: expected a mapping of user: bcrypt hash");
	n = (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start);
	c->users = calloc(n ? n : 1, sizeof(*c->users));
	if (!c->users)
		return -ENOMEM;
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const yaml_node_t *kn = yaml_document_get_node(&x->doc, p->key);
		const yaml_node_t *vn = yaml_document_get_node(&x->doc, p->value);
		const char *k = scalar(kn), *v = scalar(vn);
		struct crypt_data cd;
		const char *h;
		unsigned int i;

		if (!k || !*k || strchr(k, ':'))
			return fail(x, kn, "basic_auth_users: a user name (without ':') expected");
		for (i = 0; i < c->nr_users; i++)
			if (!strcmp(c->users[i].name, k))
				return fail(x, kn, "basic_auth_users: user '%s' twice", k);
		/* bcrypt only, as the toolkit: $2a$, $2b$, $2y$ and a cost */
		if (!v || strncmp(v, "$2", 2) || !strchr("aby", v[2]) || v[3] != '$')
			return fail(x, vn, "basic_auth_users: %s: expected a bcrypt hash ($2y$...; "
				    "htpasswd -nBC 10 \"\" | tr -d ':\\n')", k);
		memset(&cd, 0, sizeof(cd));
		h = crypt_r("", v, &cd);
		if (!h || h[0] == '*')
			return fail(x, vn, "basic_auth_users: %s: libcrypt cannot read this bcrypt "
				    "hash", k);
		c->users[c->nr_users].name = strdup(k);
		c->users[c->nr_users].hash = strdup(v);
		if (!c->users[c->nr_users].name || !c->users[c->nr_users].hash) {
			free(c->users[c->nr_users].name);
			free(c->users[c->nr_users].hash);
			return -ENOMEM;
		}
		c->nr_users++;
	}
	return 0;
}

/* exporter-toolkit's http_server_config: http2 (HTTP/1.1 is served either way) and headers. */
static int parse_http(struct ctx *x, const yaml_node_t *m)
{
	static const char *const allowed[] = {
		"Strict-Transport-Security", "X-Content-Type-Options", "X-Frame-Options",
		"X-XSS-Protection", "Content-Security-Policy",
	};
	struct web_config *c = x->c;
	yaml_node_pair_t *p;

	if (is_null(m))
		return 0;
	if (m->type != YAML_MAPPING_NODE)
		return fail(x, m, "http_server_config: expected a mapping");
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const yaml_node_t *kn = yaml_document_get_node(&x->doc, p->key);
		const yaml_node_t *vn = yaml_document_get_node(&x->doc, p->value);
		const char *k = scalar(kn), *v = scalar(vn);
		yaml_node_pair_t *h;

		if (k && !strcmp(k, "http2")) {
			if (!v || (strcmp(v, "true") && strcmp(v, "false")))
				return fail(x, vn, "http2: true or false expected");
			continue;
		}
		if (!k || strcmp(k, "headers"))
			return fail(x, kn, "http_server_config: unknown key '%s'", k ? k : "");
		if (is_null(vn))
			continue;
		if (vn->type != YAML_MAPPING_NODE)
			return fail(x, vn, "headers: expected a mapping of header: value");
		for (h = vn->data.mapping.pairs.start; h < vn->data.mapping.pairs.top; h++) {
			const yaml_node_t *hk = yaml_document_get_node(&x->doc, h->key);
			const char *name = scalar(hk);
			const char *val = scalar(yaml_document_get_node(&x->doc, h->value));
			unsigned int i;

			for (i = 0; name && i < ARRAY_SIZE(allowed); i++)
				if (!strcasecmp(name, allowed[i]))
					break;
			if (!name || i == ARRAY_SIZE(allowed))
				return fail(x, hk, "headers: '%s' may not be set (allowed: "
					    "Strict-Transport-Security, X-Content-Type-Options, "
					    "X-Frame-Options, X-XSS-Protection, "
					    "Content-Security-Policy)", name ? name : "");
			if (!val || strpbrk(val, "\r\n") || c->nr_headers == WEB_MAX_HEADERS)
				return fail(x, hk, "headers: %s: one line of text expected", name);
			c->header_name[c->nr_headers] = strdup(allowed[i]);
			c->header_value[c->nr_headers] = strdup(val);
			if (!c->header_name[c->nr_headers] || !c->header_value[c->nr_headers]) {
				free(c->header_name[c->nr_headers]);
				free(c->header_value[c->nr_headers]);
				return -ENOMEM;
			}
			c->nr_headers++;
		}
	}
	return 0;
}

static int parse_root(struct ctx *x)
{
	const yaml_node_t *root = yaml_document_get_root_node(&x->doc);
	yaml_node_pair_t *p;
	int e;

	if (!root || is_null(root))
		return 0;	/* an empty file: plain HTTP, no auth */
	if (root->type != YAML_MAPPING_NODE)
		return fail(x, root, "expected a mapping (tls_server_config, http_server_config, "
			    "basic_auth_users)");
	for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		const yaml_node_t *kn = yaml_document_get_node(&x->doc, p->key);
		const yaml_node_t *vn = yaml_document_get_node(&x->doc, p->value);
		const char *k = scalar(kn);

		if (k && !strcmp(k, "tls_server_config"))
			e = parse_tls(x, vn);
		else if (k && !strcmp(k, "basic_auth_users"))
			e = parse_users(x, vn);
		else if (k && !strcmp(k, "http_server_config"))
			e = parse_http(x, vn);
		else
			e = fail(x, kn, "unknown key '%s' (known: tls_server_config, "
				 "http_server_config, basic_auth_users)", k ? k : "");
		if (e)
			return e;
	}
	return 0;
}

void web_config_free(struct web_config *c)
{
	unsigned int i;

	free(c->path);
	free(c->cert_pem);
	if (c->key_pem)
		explicit_bzero(c->key_pem, c->key_len);
	free(c->key_pem);
	free(c->ca_pem);
	for (i = 0; i < c->nr_users; i++) {
		free(c->users[i].name);
		free(c->users[i].hash);
	}
	free(c->users);
	for (i = 0; i < c->nr_headers; i++) {
		free(c->header_name[i]);
		free(c->header_value[i]);
	}
	memset(c, 0, sizeof(*c));
}

int web_config_load(const char *path, struct web_config *c, char *err, size_t err_len)
{
	struct ctx x = { .path = path, .err = err, .err_len = err_len, .c = c };
	yaml_parser_t parser;
	char *text = NULL;
	size_t len = 0;
	const char *slash;
	int e;

	memset(c, 0, sizeof(*c));
	e = read_file(path, &text, &len, &c->ids[0]);
	if (e)
		return pm_set_err(err, err_len, e, "%s: %s", path, strerror(-e));
	slash = strrchr(path, '/');
	if (slash)
		snprintf(x.dir, sizeof(x.dir), "%.*s", (int)(slash == path ? 1 : slash - path),
			 path);
	else
		snprintf(x.dir, sizeof(x.dir), ".");
	c->path = strdup(path);
	if (!c->path || !yaml_parser_initialize(&parser)) {
		free(text);
		web_config_free(c);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &x.doc)) {
		e = pm_set_err(err, err_len, -EINVAL, "%s:%zu: not YAML: %s", path,
			       parser.problem_mark.line + 1,
			       parser.problem ? parser.problem : "parse error");
		yaml_parser_delete(&parser);
		free(text);
		web_config_free(c);
		return e;
	}
	e = parse_root(&x);
	yaml_document_delete(&x.doc);
	yaml_parser_delete(&parser);
	free(text);
	if (e) {
		if (e == -ENOMEM)
			pm_set_err(err, err_len, e, "%s: out of memory", path);
		web_config_free(c);
	}
	return e;
}

static bool id_changed(const char *path, const struct web_file_id *id)
{
	struct web_file_id now;
	struct stat st;

	static const struct web_file_id gone;

	if (!path[0])
		return false;
	if (stat(path, &st))	/* gone: a change, once (refresh_id() notes it gone) */
		return memcmp(id, &gone, sizeof(gone)) != 0;
	file_id(&st, &now);
	return memcmp(&now, id, sizeof(now)) != 0;
}

static void refresh_id(const char *path, struct web_file_id *id)
{
	struct stat st;

	if (path[0] && !stat(path, &st))
		file_id(&st, id);
	else if (path[0])
		memset(id, 0, sizeof(*id));
}

void web_config_refresh_ids(struct web_config *c)
{
	refresh_id(c->path, &c->ids[0]);
	refresh_id(c->cert_file, &c->ids[1]);
	refresh_id(c->key_file, &c->ids[2]);
	refresh_id(c->ca_file, &c->ids[3]);
}

bool web_config_changed(const struct web_config *c)
{
	return id_changed(c->path, &c->ids[0]) || id_changed(c->cert_file, &c->ids[1]) ||
	       id_changed(c->key_file, &c->ids[2]) || id_changed(c->ca_file, &c->ids[3]);
}

static bool same_buf(const char *a, size_t al, const char *b, size_t bl)
{
	return al == bl && (!al || !memcmp(a, b, al));
}

bool web_config_same_tls(const struct web_config *a, const struct web_config *b)
{
	return a->tls == b->tls && a->client_auth == b->client_auth &&
	       !strcmp(a->priorities, b->priorities) &&
	       same_buf(a->cert_pem, a->cert_len, b->cert_pem, b->cert_len) &&
	       same_buf(a->key_pem, a->key_len, b->key_pem, b->key_len) &&
	       same_buf(a->ca_pem, a->ca_len, b->ca_pem, b->ca_len);
}
