/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The daemon's HTTP endpoints (libmicrohttpd, a thread per connection so a
 * profile that waits N seconds holds up nobody): /metrics, /healthz,
 * /debug/pprof/profile and an index at /.  docs/daemon.md.
 */
#ifndef PMIPROF_DAEMON_HTTP_SERVER_H
#define PMIPROF_DAEMON_HTTP_SERVER_H

#include <sys/socket.h>

struct http_server;
struct daemon_state;
struct web_config;

/* "ADDR:PORT" or "[V6ADDR]:PORT" into a socket address: 0 or -EINVAL. */
int http_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len);

/*
 * listen: "ADDR:PORT" or "[V6ADDR]:PORT"; port 0 picks a free one
 * (printed).  wc: the web config (TLS, client certificates, basic auth,
 * headers; web_config.h), or NULL for plain HTTP; what is needed of it is
 * copied.  0 or -errno.
 */
int http_server_start(struct http_server **out, const char *listen, struct daemon_state *d,
		      const struct web_config *wc);
/* New basic_auth_users and headers of wc, for the requests from now on.  0 or -ENOMEM. */
int http_server_set_policy(struct http_server *h, const struct web_config *wc);
/* The port it listens on (the one picked for port 0). */
unsigned int http_server_port(const struct http_server *h);
/* Stops serving (waits for requests in progress); NULL is fine. */
void http_server_stop(struct http_server *h);

#endif /* PMIPROF_DAEMON_HTTP_SERVER_H */
