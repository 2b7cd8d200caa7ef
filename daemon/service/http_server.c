// SPDX-License-Identifier: GPL-2.0
/*
 * HTTP for the daemon on libmicrohttpd (http_server.h).  /metrics is kept
 * live by the writer's tap (window_metrics.c); a profile is built as its
 * N seconds' samples come (live_profile.c), so only its tables are left to
 * write when they end.  With a web config (web_config.h): TLS through
 * libmicrohttpd's GnuTLS, client certificates checked per request, basic
 * auth (basic_auth.h) and response headers from a policy that can be
 * swapped while requests run (each request holds a reference to the one
 * it started with).
 */
#include "service/http_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "service/basic_auth.h"
#include "service/daemon_state.h"
#include "service/live_profile.h"
#include "service/mem_stream.h"
#include "util.h"

#define MAX_CONNECTIONS		64
#define IDLE_TIMEOUT_S		10	/* a client that sends nothing is dropped */
#define PROFILE_MAX_SECONDS	600
/* The perf backend holds samples back 5 ms (PERF_RING_PUBLISH_SLACK_NS): wait that much more. */
#define PROFILE_SETTLE_MS	10
#define PROFILE_FLUSH_WAIT_MS	5000
/* The profile builder's backlog: it symbolizes as samples come, but a first
 * look at a big binary's DWARF can take seconds. */
#define PROFILE_BUILD_WAIT_MS	30000

/* Who may ask and what every answer carries: swapped whole (http_server_set_policy). */
struct web_policy {
	unsigned int refs;		/* under http_server.lock */
	struct basic_auth *auth;
	char *header_name[WEB_MAX_HEADERS], *header_value[WEB_MAX_HEADERS];
	unsigned int nr_headers;
};

struct http_server {
	struct MHD_Daemon *mhd;
	struct daemon_state *d;
	_Atomic size_t metrics_len;	/* the last /metrics answer's size: the next one's reserve */
	bool tls;
	enum web_client_auth client_auth;
	char *cert, *key, *ca, *prio;	/* what libmicrohttpd was started with (it keeps pointers) */
	pthread_mutex_t lock;		/* policy */
	struct web_policy *policy;
};

/* The policy of the request this thread answers: reply() adds its headers. */
static _Thread_local const struct web_policy *tl_policy;

static const char index_page[] =
"<!DOCTYPE html>\n<html><head><title>pmiprof daemon</title></head><body>\n"
"<h1>pmiprof daemon</h1>\n<ul>\n"
"<li><a href=\"/metrics\">/metrics</a>: Prometheus text format 0.0.4 (windows, event sums, "
"per-window histograms by command; losses; the daemon's own metrics)</li>\n"
"<li><a href=\"/debug/pprof/profile?seconds=10\">/debug/pprof/profile?seconds=N</a>: gzip'd "
"pprof of the next N seconds (1..600), every event a sample type; &amp;comm=NAME, "
"&amp;pid=PID filter</li>\n"
"<li><a href=\"/healthz\">/healthz</a>: 200 ok while recording works</li>\n"
"</ul>\n<p>Past ranges: <code>pmiprof report -i DIR --since T --until T --format pprof</code>."
"</p>\n</body></html>\n";

/* The web config's headers (http_server_config.headers) on an answer. */
static void add_policy_headers(struct MHD_Response *r)
{
	unsigned int i;

	for (i = 0; tl_policy && i < tl_policy->nr_headers; i++)
		MHD_add_response_header(r, tl_policy->header_name[i], tl_policy->header_value[i]);
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *type,
			     void *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	add_policy_headers(r);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned int status, const char *fmt,
				  ...) PM_PRINTF(3, 4);
static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned int status, const char *fmt,
				  ...)
{
	char *msg = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return MHD_NO;
	return reply(c, status, "text/plain; charset=utf-8", msg, (size_t)n, MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result serve_metrics(struct http_server *h, struct MHD_Connection *c)
{
	struct mem_stream ms;
	/* a little more than last time: one allocation, no doubling and copying */
	size_t last = h->metrics_len;
	FILE *f = mem_stream_open(&ms, last + last / 8 + 4096);
	int ret;

	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	/* what Prometheus asks for first, when the scraper prefers it */
	bool om = accept && strstr(accept, "application/openmetrics-text");

	if (!f)
		return reply_text(c, 500, "out of memory\n");
	ret = daemon_state_write_metrics(h->d, f, om);
	if (fclose(f) && !ret)
		ret = ms.err ? ms.err : -EIO;
	if (ret) {
		free(ms.buf);
		return reply_text(c, 500, "cannot compute the metrics: %s\n", strerror(-ret));
	}
	h->metrics_len = ms.len;
	return reply(c, 200, om ? "application/openmetrics-text; version=1.0.0; charset=utf-8" :
		     "text/plain; version=0.0.4; charset=utf-8", ms.buf, ms.len,
		     MHD_RESPMEM_MUST_FREE);
}

/*
 * The profile, with the range it covers in headers: `pmiprof report -i DIR
 * --since SINCE --until UNTIL --format pprof` gives the same profile.
 */
static enum MHD_Result reply_profile(struct MHD_Connection *c, char *buf, size_t len,
				     const char *since, const char *until, uint64_t dropped)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
	char nd[24];
	enum MHD_Result ret;

	if (!r) {
		free(buf);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/octet-stream");
	MHD_add_response_header(r, "X-Pmiprof-Since", since);
	MHD_add_response_header(r, "X-Pmiprof-Until", until);
	/* samples of the range the profile lacks: the builder fell too far behind */
	snprintf(nd, sizeof(nd), "%llu", (unsigned long long)dropped);
	MHD_add_response_header(r, "X-Pmiprof-Samples-Dropped", nd);
	add_policy_headers(r);
	ret = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return ret;
}

/* Query arguments this endpoint knows; anything else is a 400. */
struct args_check {
	const char *const *known;
	const char *bad;
};

static enum MHD_Result check_arg(void *cls, enum MHD_ValueKind kind, const char *key,
				 const char *value)
{
	struct args_check *a = cls;
	unsigned int i;

	(void)kind;
	(void)value;
	for (i = 0; a->known[i]; i++)
		if (!strcmp(key, a->known[i]))
			return MHD_YES;
	a->bad = key;
	return MHD_NO;
}

static void rfc3339(char *buf, size_t len, uint64_t ns)
{
	time_t t = (time_t)(ns / 1000000000ull);
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%09lluZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned long long)(ns % 1000000000ull));
}

static void sleep_until_real(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull),
			       .tv_nsec = (long)(ns % 1000000000ull) };

	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static enum MHD_Result serve_profile(struct http_server *h, struct MHD_Connection *c)
{
	static const char *const known[] = { "seconds", "comm", "pid", NULL };
	struct args_check ac = { .known = known };
	const char *sec = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "seconds");
	const char *comm = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "comm");
	const char *pid = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "pid");
	struct live_scrape *sc;
	char since[48], until[48];
	uint64_t seconds = 30, t0, t1, t2, v = 0, dropped;
	char *buf = NULL;
	size_t len = 0;
	int ret;

	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, check_arg, &ac);
	if (ac.bad)
		return reply_text(c, 400, "unknown query argument '%.64s' (known: seconds, comm, "
				  "pid)\n", ac.bad);
	/* Go's net/http/pprof: 30 s without ?seconds= */
	if (sec && pm_parse_u64(sec, 1, PROFILE_MAX_SECONDS, &seconds))
		return reply_text(c, 400, "seconds='%.64s': expected a whole number of seconds, "
				  "1..%d\n", sec, PROFILE_MAX_SECONDS);
	if (pid && pm_parse_u64(pid, 1, 4194304, &v))
		return reply_text(c, 400, "pid='%.64s': expected a process id\n", pid);
	if (comm && (!*comm || strlen(comm) > 255))
		return reply_text(c, 400, "comm: expected a command name of 1..255 bytes\n");
	if (!daemon_state_has_stacks(h->d) || !daemon_state_live(h->d))
		return reply_text(c, 501, "the daemon records without call stacks (--call-graph "
				  "no): no profiles\n");
	/* report --since/--until's range, both ends included: [t0, t0 + N s] */
	t0 = pm_realtime_ns();
	t1 = t0 + seconds * 1000000000ull;
	rfc3339(since, sizeof(since), t0);
	rfc3339(until, sizeof(until), t1);
	ret = live_profile_begin(daemon_state_live(h->d), t0, t1, comm, (uint32_t)v, &sc);
	if (ret)
		return reply_text(c, 500, "cannot start a profile: %s\n", strerror(-ret));
	/* the recorder holds back its last few ms to merge CPUs in time order */
	sleep_until_real(t1 + PROFILE_SETTLE_MS * 1000000ull);
	/* the recording loop drains the rings: every sample up to t1 goes through the tap */
	ret = daemon_state_flush(h->d, PROFILE_FLUSH_WAIT_MS);
	if (ret) {
		live_profile_end(daemon_state_live(h->d), sc, 0, &buf, &len, &dropped);
		free(buf);
		return reply_text(c, 503, "the recorder did not hand over its samples in time: "
				  "%s\n", strerror(-ret));
	}
	t2 = pm_realtime_ns();
	ret = live_profile_end(daemon_state_live(h->d), sc, PROFILE_BUILD_WAIT_MS, &buf, &len,
			       &dropped);
	if (getenv("PMIPROF_DEBUG_PROFILE"))
		pm_info("profile: flush %.1f ms, build %.1f ms after the end", (t2 - t1) / 1e6,
			(pm_realtime_ns() - t1) / 1e6);
	if (ret) {
		free(buf);
		return reply_text(c, 500, "no profile for %s .. %s: %s\n", since, until,
				  strerror(-ret));
	}
	return reply_profile(c, buf, len, since, until, dropped);
}

static void policy_put(struct http_server *h, struct web_policy *p)
{
	unsigned int i;
	bool last;

	if (!p)
		return;
	pthread_mutex_lock(&h->lock);
	last = !--p->refs;
	pthread_mutex_unlock(&h->lock);
	if (!last)
		return;
	basic_auth_free(p->auth);
	for (i = 0; i < p->nr_headers; i++) {
		free(p->header_name[i]);
		free(p->header_value[i]);
	}
	free(p);
}

static struct web_policy *policy_get(struct http_server *h)
{
	struct web_policy *p;

	pthread_mutex_lock(&h->lock);
	p = h->policy;
	if (p)
		p->refs++;
	pthread_mutex_unlock(&h->lock);
	return p;
}

static int policy_new(struct web_policy **out, const struct web_config *wc)
{
	struct web_policy *p = calloc(1, sizeof(*p));
	unsigned int i;
	int e;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->refs = 1;
	e = basic_auth_new(&p->auth, wc);
	for (i = 0; !e && i < wc->nr_headers; i++, p->nr_headers++) {
		p->header_name[i] = strdup(wc->header_name[i]);
		p->header_value[i] = strdup(wc->header_value[i]);
		if (!p->header_name[i] || !p->header_value[i])
			e = -ENOMEM;
	}
	if (e) {
		basic_auth_free(p->auth);
		for (i = 0; i < p->nr_headers; i++) {
			free(p->header_name[i]);
			free(p->header_value[i]);
		}
		free(p);
		return e;
	}
	*out = p;
	return 0;
}

int http_server_set_policy(struct http_server *h, const struct web_config *wc)
{
	struct web_policy *p, *old;
	int e = policy_new(&p, wc);

	if (e)
		return e;
	pthread_mutex_lock(&h->lock);
	old = h->policy;
	h->policy = p;
	pthread_mutex_unlock(&h->lock);
	policy_put(h, old);
	return 0;
}

/*
 * client_auth_type on a TLS connection.  libmicrohttpd asks GnuTLS to
 * request a certificate (when it has a CA list) but not to require or
 * verify one: that is done here, before anything is answered.  NULL when
 * the client may go on, else why not.
 */
static const char *client_cert_refused(const struct http_server *h, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci;
	gnutls_session_t s;
	unsigned int n = 0, status = 0;

	if (!h->tls || h->client_auth == WEB_NO_CLIENT_CERT ||
	    h->client_auth == WEB_REQUEST_CLIENT_CERT)
		return NULL;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!ci || !ci->tls_session)
		return "no TLS session";
	s = (gnutls_session_t)ci->tls_session;
	if (!gnutls_certificate_get_peers(s, &n) || !n)
		return h->client_auth == WEB_VERIFY_CLIENT_CERT_IF_GIVEN ? NULL :
		       "a client certificate is required";
	if (h->client_auth == WEB_REQUIRE_ANY_CLIENT_CERT)
		return NULL;
	if (gnutls_certificate_verify_peers2(s, &status) < 0 || status)
		return "the client certificate is not signed by client_ca_file (or expired)";
	return NULL;
}

static enum MHD_Result reply_unauthorized(struct MHD_Connection *c)
{
	static const char msg[] = "Unauthorized\n";
	struct MHD_Response *r = MHD_create_response_from_buffer(sizeof(msg) - 1, (void *)msg,
								 MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	add_policy_headers(r);
	/* 401 with WWW-Authenticate: Basic realm="pmiprof" */
	ret = MHD_queue_basic_auth_fail_response(c, "pmiprof", r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result serve(struct http_server *h, struct MHD_Connection *c, const char *url,
			     const char *method, size_t upload_size);

/*
 * A request with a body, or of another method than GET/HEAD, is answered
 * from its headers, before libmicrohttpd reads the body (no "100
 * Continue"), and the connection is closed after the answer: a client
 * sending 10 MB held its connection for ever, and a small body made
 * libmicrohttpd drop the connection without an answer.
 */
static enum MHD_Result refuse_early(struct MHD_Connection *c, const char *method)
{
	const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_CONTENT_LENGTH);
	const char *te = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_TRANSFER_ENCODING);
	bool body = (cl && strcmp(cl, "0")) || te;
	bool get = !strcmp(method, MHD_HTTP_METHOD_GET) || !strcmp(method, MHD_HTTP_METHOD_HEAD);
	static const char too_large[] = "no request body expected\n", only_get[] = "only GET\n";
	struct MHD_Response *r;
	enum MHD_Result ret;

	if (!body && get)
		return MHD_YES;
	r = MHD_create_response_from_buffer(get ? sizeof(too_large) - 1 : sizeof(only_get) - 1,
					    (void *)(get ? too_large : only_get),
					    MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	if (!get)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, get ? 413 : 405, r);
	MHD_destroy_response(r);
	return ret;
}

/*
 * Every request: the client certificate (client_auth_type), then basic
 * auth (basic_auth_users), with the policy current when the request came.
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct http_server *h = cls;
	struct web_policy *p;
	const char *refused;
	enum MHD_Result ret;

	(void)version;
	(void)upload;
	/* first call: headers only; answer on the second (nothing to upload for GET) */
	if (!*con_cls) {
		*con_cls = h;
		return refuse_early(c, method);
	}
	if (*upload_size) {
		/* a body after all (refuse_early() answered): take it, bounded by the close */
		*upload_size = 0;
		return MHD_YES;
	}
	p = policy_get(h);
	tl_policy = p;
	refused = client_cert_refused(h, c);
	if (refused) {
		ret = reply_text(c, 403, "%s\n", refused);
	} else if (p && basic_auth_required(p->auth)) {
		char *pass = NULL, *user = MHD_basic_auth_get_username_password(c, &pass);
		bool ok = basic_auth_check(p->auth, user, pass);

		if (pass)
			explicit_bzero(pass, strlen(pass));
		MHD_free(user);
		MHD_free(pass);
		ret = ok ? serve(h, c, url, method, *upload_size) : reply_unauthorized(c);
	} else {
		ret = serve(h, c, url, method, *upload_size);
	}
	tl_policy = NULL;
	policy_put(h, p);
	return ret;
}

static enum MHD_Result serve(struct http_server *h, struct MHD_Connection *c, const char *url,
			     const char *method, size_t upload_size)
{
	static const char *const none[] = { NULL };
	struct args_check ac = { .known = none };
	char why[256];

	if (upload_size)
		return reply_text(c, 413, "no request body expected\n");
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(c, 405, "only GET\n");
	if (!strcmp(url, "/debug/pprof/profile"))
		return serve_profile(h, c);
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, check_arg, &ac);
	if (ac.bad && strcmp(url, "/metrics"))
		return reply_text(c, 400, "%s takes no query arguments\n", url);
	if (!strcmp(url, "/metrics"))
		return serve_metrics(h, c);
	if (!strcmp(url, "/healthz")) {
		if (daemon_state_healthy(h->d, why, sizeof(why)))
			return reply_text(c, 503, "%s\n", why);
		return reply_text(c, 200, "ok\n");
	}
	if (!strcmp(url, "/"))
		return reply(c, 200, "text/html; charset=utf-8", (void *)index_page,
			     sizeof(index_page) - 1, MHD_RESPMEM_PERSISTENT);
	return reply_text(c, 404, "no such endpoint: see /\n");
}

int http_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[128];
	const char *colon = strrchr(s, ':');
	uint64_t port;
	size_t hl;

	if (!colon || pm_parse_u64(colon + 1, 0, 65535, &port))
		return -EINVAL;
	hl = (size_t)(colon - s);
	if (hl >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, hl);
	host[hl] = '\0';
	memset(ss, 0, sizeof(*ss));
	if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		host[hl - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) != 1)
			return -EINVAL;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		*len = sizeof(*a);
		return 0;
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return -EINVAL;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		*len = sizeof(*a);
		return 0;
	}
}

/* libmicrohttpd's own messages, through the daemon's log with its prefix. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
		msg[--n] = '\0';
	pm_info("http: %s", msg);
}

static void server_free(struct http_server *h)
{
	policy_put(h, h->policy);
	free(h->cert);
	if (h->key)
		explicit_bzero(h->key, strlen(h->key));
	free(h->key);
	free(h->ca);
	free(h->prio);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

/* What libmicrohttpd needs of wc's TLS side, copied into h.  0 or -errno. */
static int take_tls(struct http_server *h, const struct web_config *wc)
{
	if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		pm_err("%s: tls_server_config: this libmicrohttpd was built without TLS", wc->path);
		return -ENOTSUP;
	}
	h->tls = true;
	h->client_auth = wc->client_auth;
	h->cert = strdup(wc->cert_pem);
	h->key = strdup(wc->key_pem);
	h->prio = strdup(wc->priorities);
	h->ca = wc->ca_pem ? strdup(wc->ca_pem) : NULL;
	return h->cert && h->key && h->prio && (h->ca || !wc->ca_pem) ? 0 : -ENOMEM;
}

int http_server_start(struct http_server **out, const char *listen, struct daemon_state *d,
		      const struct web_config *wc)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	const union MHD_DaemonInfo *info;
	struct http_server *h;
	struct MHD_OptionItem ops[8];
	unsigned int flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
			     MHD_USE_ERROR_LOG;
	int n = 0, e = 0;

	*out = NULL;
	if (http_parse_listen(listen, &ss, &sl)) {
		pm_err("--listen '%s': expected ADDR:PORT (127.0.0.1:10150, [::1]:10150)", listen);
		return -EINVAL;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	pthread_mutex_init(&h->lock, NULL);
	h->d = d;
	if (wc)
		e = policy_new(&h->policy, wc);
	if (!e && wc && wc->tls)
		e = take_tls(h, wc);
	if (e) {
		if (e == -ENOMEM)
			pm_err("out of memory");
		server_free(h);
		return e;
	}
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0, &ss };
	ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, MAX_CONNECTIONS, NULL };
	ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, IDLE_TIMEOUT_S, NULL };
	if (h->tls) {
		flags |= MHD_USE_TLS;
		ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, h->key };
		ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, h->cert };
		ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0, h->prio };
		if (h->ca)	/* GnuTLS then requests a client certificate */
			ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_TRUST, 0, h->ca };
	}
	ops[n] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	h->mhd = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h,
				  MHD_OPTION_EXTERNAL_LOGGER, mhd_log, h,
				  MHD_OPTION_ARRAY, ops, MHD_OPTION_END);
	if (!h->mhd) {
		pm_err("cannot serve %s on %s (address in use, or not an address of this "
		       "machine?%s)", h->tls ? "HTTPS" : "HTTP", listen,
		       h->tls ? " or the certificate" : "");
		server_free(h);
		return -EADDRNOTAVAIL;
	}
	info = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_BIND_PORT);
	{
		char host[64];
		const char *colon = strrchr(listen, ':');

		snprintf(host, sizeof(host), "%.*s", (int)(colon - listen), listen);
		pm_info("serving %s://%s:%u/ (/metrics, /debug/pprof/profile, /healthz)%s%s%s",
			h->tls ? "https" : "http", host, info ? (unsigned int)info->port : 0,
			h->tls ? ", client certificates: " : "",
			h->tls ? web_client_auth_name(h->client_auth) : "",
			basic_auth_required(h->policy ? h->policy->auth : NULL) ?
			", basic auth" : "");
	}
	*out = h;
	return 0;
}

unsigned int http_server_port(const struct http_server *h)
{
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_BIND_PORT);

	return info ? info->port : 0;
}

void http_server_stop(struct http_server *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->mhd);
	server_free(h);
}
