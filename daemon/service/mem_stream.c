// SPDX-License-Identifier: GPL-2.0
/*
 * A write-only FILE over a buffer reserved up front (mem_stream.h).
 */
#include "service/mem_stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "util.h"

static ssize_t ms_write(void *cookie, const char *s, size_t n)
{
	struct mem_stream *ms = cookie;

	if (pm_grow(&ms->buf, &ms->cap, (uint64_t)ms->len + n, 4096, 1)) {
		ms->err = -ENOMEM;
		errno = ENOMEM;
		return -1;
	}
	memcpy(ms->buf + ms->len, s, n);
	ms->len += n;
	return (ssize_t)n;
}

FILE *mem_stream_open(struct mem_stream *ms, size_t reserve)
{
	static const cookie_io_functions_t io = { .write = ms_write };
	FILE *f;

	memset(ms, 0, sizeof(*ms));
	ms->cap = reserve && reserve < UINT32_MAX ? (uint32_t)reserve : 4096;
	ms->buf = malloc(ms->cap);
	if (!ms->buf)
		return NULL;
	f = fopencookie(ms, "w", io);
	if (!f) {
		free(ms->buf);
		ms->buf = NULL;
		return NULL;
	}
	/* a large stdio buffer: fewer trips through ms_write */
	setvbuf(f, NULL, _IOFBF, 65536);
	return f;
}
