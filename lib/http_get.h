/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One HTTP GET into memory (libcurl), for commands that read a running
 * `pmiprof daemon` instead of recording (`top --from URL`).  A transfer
 * can last as long as the profile it asks for (?seconds=N), so the caller
 * is called back about every 100 ms, and at once when wait_fd turns
 * readable (a terminal's keys), and can stop it.  Errors come back as
 * -errno with curl's own words in the reply; an HTTP error status is an
 * answer, not an error (the caller reads status and body).
 */
#ifndef PMIPROF_HTTP_GET_H
#define PMIPROF_HTTP_GET_H

#include <stddef.h>
#include <stdint.h>

struct http_reply {
	long status;		/* the HTTP status; 0 when no answer came */
	char *body;		/* malloc'd, NUL-terminated (len bytes before the NUL) */
	size_t len;
	char error[256];	/* why the transfer failed, "" */
	char header[128];	/* the value of the opts' header, "" without one */
};

struct http_get_opts {
	uint64_t timeout_ms;	/* the whole transfer; 0: none */
	size_t max_bytes;	/* a longer answer stops the transfer: -EFBIG */
	const char *header;	/* an answer header to keep in the reply, or NULL */
	int wait_fd;		/* -1: none */
	/* Called about every 100 ms and when wait_fd is readable; non-zero stops
	 * the transfer and is what http_get() returns (NULL: none). */
	int (*idle)(void *arg);
	void *arg;
};

/*
 * GET url (http:// or https:// only) into r.  0 with r->status set, or
 * -errno: -EINVAL a malformed URL or another scheme, -EHOSTUNREACH the
 * host does not resolve, -ECONNREFUSED nobody listens, -ETIMEDOUT,
 * -EFBIG, -EPROTO an answer that is not HTTP, -ENOMEM, -EIO otherwise;
 * or idle()'s value.  r is freed with http_reply_free() in every case.
 */
int http_get(const char *url, const struct http_get_opts *o, struct http_reply *r);
void http_reply_free(struct http_reply *r);

#endif /* PMIPROF_HTTP_GET_H */
