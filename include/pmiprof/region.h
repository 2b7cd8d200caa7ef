/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmiprof code regions: mark a section of code so that `pmiprof stat
 * --regions -- CMD` reports per-call counter distributions for it.
 * Link with libpmiprof-region (pkg-config --cflags --libs pmiprof-region).
 *
 *   pmiprof_region_begin("solve");
 *   ...
 *   pmiprof_region_end("solve");
 *
 * Regions nest (up to 32 levels are measured) and every thread has its
 * own; the calls are thread-safe and never block on pmiprof.  A name is
 * registered at its first use and afterwards found by its POINTER: pass
 * string literals or strings that stay unchanged at the same address (a
 * reused buffer holding another name would be taken for the first one).
 * Names longer than 63 bytes are truncated; at most 1024 distinct names.
 *
 * Outside a pmiprof command (no PMIPROF_REGIONS_FD in the environment) the
 * functions return after one test of a global flag.  The macros compile to
 * nothing unless PMIPROF_REGIONS is defined (as LIKWID's markers do), and
 * when it is they test the flag inline, so a disabled region costs no call.
 * See docs/regions.md.
 */
#ifndef PMIPROF_REGION_H
#define PMIPROF_REGION_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PMIPROF_REGION_API __attribute__((visibility("default")))
#else
#define PMIPROF_REGION_API
#endif

PMIPROF_REGION_API void pmiprof_region_begin(const char *name);
PMIPROF_REGION_API void pmiprof_region_end(const char *name);

/* Nonzero when the process runs under pmiprof with regions enabled. */
PMIPROF_REGION_API extern int pmiprof_region_active;

#ifdef PMIPROF_REGIONS
#define PMIPROF_REGION_BEGIN(name) \
	(pmiprof_region_active ? pmiprof_region_begin(name) : (void)0)
#define PMIPROF_REGION_END(name) \
	(pmiprof_region_active ? pmiprof_region_end(name) : (void)0)
#else
#define PMIPROF_REGION_BEGIN(name) ((void)0)
#define PMIPROF_REGION_END(name) ((void)0)
#endif

#ifdef __cplusplus
}
#endif

#endif /* PMIPROF_REGION_H */
