/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A FILE writing into one malloc'd buffer reserved up front (the previous
 * scrape's size is a good guess): open_memstream() grows its buffer by
 * doubling, zeroing and copying, and a multi-megabyte /metrics answer
 * spent more time there (and in page faults) than in formatting.
 */
#ifndef PMIPROF_DAEMON_MEM_STREAM_H
#define PMIPROF_DAEMON_MEM_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct mem_stream {
	char *buf;			/* malloc'd; the caller's after close */
	size_t len;
	uint32_t cap;		/* a /metrics answer: far below 4 GiB */
	int err;			/* -ENOMEM once a write could not grow it */
};

/* A write-only FILE over ms with room for reserve bytes, or NULL (errno). */
FILE *mem_stream_open(struct mem_stream *ms, size_t reserve);

#endif /* PMIPROF_DAEMON_MEM_STREAM_H */
