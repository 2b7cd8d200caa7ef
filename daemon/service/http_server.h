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

/* "ADDR:PORT" or "[V6ADDR]:PORT" into a socket address: 0 or -EINVAL. */
int http_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len);

/* listen: "ADDR:PORT" or "[V6ADDR]:PORT"; port 0 picks a free one (printed).  0 or -errno. */
int http_server_start(struct http_server **out, const char *listen, struct daemon_state *d);
/* Stops serving (waits for requests in progress); NULL is fine. */
void http_server_stop(struct http_server *h);

#endif /* PMIPROF_DAEMON_HTTP_SERVER_H */
