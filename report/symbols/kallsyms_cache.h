/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A per-user cache of /proc/kallsyms.  The kernel formats kallsyms anew on
 * every read (~60 ms for 200k symbols), which dominated short reports; perf
 * keeps a copy in its build-id cache for the same reason.  The cache is
 * keyed by boot id, effective uid and the content of /proc/modules, so a
 * reboot, another user or a module (un)load never reuses a stale copy.
 */
#ifndef PMIPROF_KALLSYMS_CACHE_H
#define PMIPROF_KALLSYMS_CACHE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The kallsyms text, NUL-terminated, in a malloc'd buffer (*len bytes
 * before the NUL): from the cache when valid, else read from /proc/kallsyms
 * and stored for next time when it shows real addresses.  NULL when
 * /proc/kallsyms cannot be read.  PMIPROF_KALLSYMS_CACHE=0 disables the
 * cache; its directory is $XDG_CACHE_HOME/pmiprof or ~/.cache/pmiprof.
 */
char *kallsyms_read_cached(size_t *len);

/* Whether a kallsyms text shows real addresses (kptr_restrict zeroes them). */
bool kallsyms_has_addresses(const char *text);

/*
 * The newest trusted cache file of an earlier boot of this machine (boot
 * id boot_id, our uid, any /proc/modules): a trace recorded then names that
 * boot's addresses.  NULL when there is none.
 */
char *kallsyms_read_boot(const char *boot_id, size_t *len);

/*
 * The parsed kallsyms of this boot (the symbolizer's sorted, deduplicated
 * table, symbols.c defines the layout) cached beside the text under the
 * same key, so a report maps it instead of parsing ~5 MB of text.  The
 * caller validates what it maps; NULL when absent, not trusted (as for the
 * text) or the cache is disabled.
 */
struct iovec;
const void *kallsyms_index_map(size_t *len);
void kallsyms_index_unmap(const void *map, size_t len);
void kallsyms_index_store(const struct iovec *iov, int n);

#endif /* PMIPROF_KALLSYMS_CACHE_H */
