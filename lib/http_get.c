// SPDX-License-Identifier: GPL-2.0
/*
 * http_get() (http_get.h) on libcurl's multi interface: curl_multi_poll()
 * waits on the transfer and the caller's descriptor together, so a screen
 * stays answerable while a profile of several seconds is on its way.
 */
#include "http_get.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "util.h"

struct sink {
	struct http_reply *r;
	size_t cap, max;
	int err;
};

static size_t on_data(char *d, size_t size, size_t n, void *arg)
{
	struct sink *s = arg;
	size_t len = size * n;

	if (s->r->len + len > s->max) {
		s->err = -EFBIG;
		return 0;	/* curl stops with CURLE_WRITE_ERROR */
	}
	if (s->r->len + len + 1 > s->cap) {
		size_t nc = s->cap ? s->cap : 65536;
		char *nb;

		while (nc < s->r->len + len + 1)
			nc *= 2;
		nb = realloc(s->r->body, nc);
		if (!nb) {
			s->err = -ENOMEM;
			return 0;
		}
		s->r->body = nb;
		s->cap = nc;
	}
	memcpy(s->r->body + s->r->len, d, len);
	s->r->len += len;
	s->r->body[s->r->len] = '\0';
	return len;
}

static int curl_errno(CURLcode c, long os_errno)
{
	switch (c) {
	case CURLE_OK:
		return 0;
	case CURLE_URL_MALFORMAT:
	case CURLE_UNSUPPORTED_PROTOCOL:
		return -EINVAL;
	case CURLE_COULDNT_RESOLVE_HOST:
		return -EHOSTUNREACH;
	case CURLE_COULDNT_CONNECT:
		return os_errno ? -(int)os_errno : -ECONNREFUSED;
	case CURLE_OPERATION_TIMEDOUT:
		return -ETIMEDOUT;
	case CURLE_OUT_OF_MEMORY:
		return -ENOMEM;
	case CURLE_WEIRD_SERVER_REPLY:
	case CURLE_GOT_NOTHING:
		return -EPROTO;
	case CURLE_RECV_ERROR:
		return -ECONNRESET;
	default:
		return -EIO;
	}
}

/* The transfer to its end: its CURLcode, or idle()'s stop value in *stop. */
static CURLcode run(CURLM *m, const struct http_get_opts *o, int *stop)
{
	struct curl_waitfd w = { .fd = o->wait_fd, .events = CURL_WAIT_POLLIN };
	CURLcode res = CURLE_OK;
	CURLMsg *msg;
	int running = 1, left;

	*stop = 0;
	while (running) {
		if (curl_multi_perform(m, &running) != CURLM_OK)
			return CURLE_OUT_OF_MEMORY;
		if (!running)
			break;
		if (curl_multi_poll(m, o->wait_fd >= 0 ? &w : NULL, o->wait_fd >= 0 ? 1 : 0, 100,
				    NULL) != CURLM_OK)
			return CURLE_OUT_OF_MEMORY;
		if (o->idle && (*stop = o->idle(o->arg)) != 0)
			return CURLE_ABORTED_BY_CALLBACK;
	}
	while ((msg = curl_multi_info_read(m, &left)))
		if (msg->msg == CURLMSG_DONE)
			res = msg->data.result;
	return res;
}

int http_get(const char *url, const struct http_get_opts *o, struct http_reply *r)
{
	struct sink s = { .r = r, .max = o->max_bytes ? o->max_bytes : SIZE_MAX - 1 };
	CURL *e;
	CURLM *m = NULL;
	CURLcode res;
	long os_errno = 0;
	int stop = 0, err;

	memset(r, 0, sizeof(*r));
	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) {
		snprintf(r->error, sizeof(r->error), "not an http:// or https:// URL");
		return -EINVAL;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || !(e = curl_easy_init()))
		return -ENOMEM;
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->error);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)o->timeout_ms);
	/* a daemon on this machine answers at once or not at all */
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "pmiprof/" PMIPROF_VERSION);
	m = curl_multi_init();
	if (!m || curl_multi_add_handle(m, e) != CURLM_OK) {
		res = CURLE_OUT_OF_MEMORY;
	} else {
		res = run(m, o, &stop);
		curl_multi_remove_handle(m, e);
	}
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &r->status);
	curl_easy_getinfo(e, CURLINFO_OS_ERRNO, &os_errno);
	if (o->header && res == CURLE_OK) {
		struct curl_header *hd;

		if (curl_easy_header(e, o->header, 0, CURLH_HEADER, -1, &hd) == CURLHE_OK)
			pm_strlcpy(r->header, hd->value, sizeof(r->header));
	}
	if (m)
		curl_multi_cleanup(m);
	curl_easy_cleanup(e);
	if (stop)
		return stop;
	if (s.err) {
		snprintf(r->error, sizeof(r->error), "%s", s.err == -EFBIG ?
			 "the answer is larger than expected" : "out of memory");
		return s.err;
	}
	err = curl_errno(res, os_errno);
	if (err && !r->error[0])
		snprintf(r->error, sizeof(r->error), "%s", curl_easy_strerror(res));
	if (!err && !r->body) {
		r->body = calloc(1, 1);
		if (!r->body)
			return -ENOMEM;
	}
	return err;
}

void http_reply_free(struct http_reply *r)
{
	free(r->body);
	r->body = NULL;
	r->len = 0;
}
