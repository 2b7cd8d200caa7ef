// SPDX-License-Identifier: GPL-2.0
/*
 * Finding the file to read for a DSO: the build-id caches (pmiprof's; for
 * a perf.data, then perf's ~/.debug or $PERF_BUILDID_DIR), the recorded
 * path under --symfs, separate debug files (libdwfl's find_debuginfo with
 * build-id, .gnu_debuglink, debuginfod), each checked against the recorded
 * build-id; and the warnings when none is usable.
 */
#include "symbols/symbols_internal.h"

#include "symbols/demangle.h"
#include "hashmap.h"
#include "symbols/kallsyms_cache.h"
#include "kernel_id.h"
#include "strtab.h"
#include "util.h"

/*
 * libdwfl looks separate debug files up by build-id in every absolute
 * directory of this path (DIR/.build-id/xx/rest.debug), and by
 * .gnu_debuglink next to the file and under /usr/lib/debug: the build-id
 * caches and the symfs root join the default ":.debug:/usr/lib/debug".
 */
static char debuginfo_buf[3 * 4096 + 64];
static char *debuginfo_path;

/* dir + "/" + name exists (dir may be relative to nothing: "" is "/"). */
static bool file_in(const char *dir, const char *sub, const char *name)
{
	char path[3 * 4096];

	return (size_t)snprintf(path, sizeof(path), "%s%s/%s", dir, sub, name) < sizeof(path) &&
	       !access(path, F_OK);
}

/*
 * Whether libdwfl's standard search can find a local debug file for a
 * module: by build-id (DIR/.build-id/xx/rest.debug in each absolute
 * directory of the path) or by .gnu_debuglink (or FILE.debug) next to the
 * file, in its .debug/, or under each absolute directory, for the file's
 * directory and its symlink-resolved one, as find-debuginfo.c looks.  A
 * superset of where it looks: a false "yes" only costs the standard call.
 */
static bool local_debuginfo_may_exist(Dwfl_Module *mod, const char *file_name,
				      const char *debuglink)
{
	const char *path = debuginfo_path ? debuginfo_path : ":.debug:/usr/lib/debug";
	const unsigned char *bits;
	char hex[2 * 64 + 1], dirs[2][4096], link[512], entry[4096 + 64];
	const char *p, *q;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bits, &vaddr), i, nd = 0, k;

	if (len > 0 && len <= 64) {
		for (i = 0; i < len; i++)
			snprintf(hex + 2 * i, 3, "%02x", bits[i]);
		for (p = path; *p; p = *q ? q + 1 : q) {
			q = strchrnul(p, ':');
			if (*p == '/' && (size_t)(q - p) < sizeof(entry) - 64) {
				snprintf(entry, sizeof(entry), "%.*s/.build-id/%.2s", (int)(q - p), p,
					 hex);
				snprintf(link, sizeof(link), "%s.debug", hex + 2);
				if (file_in(entry, "", link))
					return true;
			}
		}
	}
	if (!file_name)
		return false;
	if (debuglink) {
		pm_strlcpy(link, debuglink, sizeof(link));
	} else {
		const char *base = strrchr(file_name, '/');

		snprintf(link, sizeof(link), "%s.debug", base ? base + 1 : file_name);
	}
	for (k = 0; k < 2; k++) {
		char *slash;

		if (k == 0)
			pm_strlcpy(dirs[nd], file_name, sizeof(dirs[nd]));
		else if (!realpath(file_name, dirs[nd]))
			break;
		slash = strrchr(dirs[nd], '/');
		if (slash)
			*slash = 0;
		else
			pm_strlcpy(dirs[nd], ".", sizeof(dirs[nd]));
		nd++;
	}
	for (k = 0; k < nd; k++) {
		if (file_in(dirs[k], "", link) || file_in(dirs[k], "/.debug", link))
			return true;
		for (p = path; *p; p = *q ? q + 1 : q) {
			q = strchrnul(p, ':');
			if (*p == '/' && (size_t)(q - p) < sizeof(entry)) {
				snprintf(entry, sizeof(entry), "%.*s", (int)(q - p), p);
				if (file_in(entry, dirs[k], link))
					return true;
			}
		}
	}
	return false;
}

/*
 * dwfl_standard_find_debuginfo, minus its last resort when nothing local
 * exists: asking debuginfod servers.  Without DEBUGINFOD_URLS that query
 * cannot answer, yet libdw dlopens libdebuginfod (and curl, gnutls,
 * kerberos, ldap: ~25 libraries, several ms) to find that out; every
 * module without a debug file (the vDSO, stripped binaries) triggered it.
 * With DEBUGINFOD_URLS set, the standard search runs as before.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	const unsigned char *bits;
	GElf_Addr vaddr;
	char hex[2 * 20 + 1] = "";
	int fd, len;

	if (local_debuginfo_may_exist(mod, file_name, debuglink_file))
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						    debuglink_file, debuglink_crc,
						    debuginfo_file_name);
	if (!urls || !*urls)
		return -1;
	/*
	 * A server may be slow or silent: libdebuginfod waits 90 s per
	 * connection by default.  Say what is asked, and wait 10 s unless the
	 * user set DEBUGINFOD_TIMEOUT.
	 */
	setenv("DEBUGINFOD_TIMEOUT", "10", 0);
	len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len > 0 && len <= 20)
		build_id_hex(hex, bits, (uint32_t)len);
	pm_info("asking debuginfod (%s) for the debug info of %s%s%s (timeout %s s)...", urls,
		modname, hex[0] ? ", build-id " : "", hex, getenv("DEBUGINFOD_TIMEOUT"));
	fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					  debuglink_crc, debuginfo_file_name);
	pm_info("debuginfod: %s: %s", modname, fd >= 0 ? "debug info found" : "none");
	return fd;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

void sy_set_debuginfo_path(const struct symbolizer_opts *o)
{
	size_t i, n;

	if (!o->symfs && !o->buildid_dirs[0] && !o->buildid_dirs[1]) {
		debuginfo_path = NULL;	/* libdwfl's default */
		return;
	}
	n = (size_t)snprintf(debuginfo_buf, sizeof(debuginfo_buf), ":.debug:/usr/lib/debug");
	for (i = 0; i < ARRAY_SIZE(o->buildid_dirs); i++)
		if (o->buildid_dirs[i] && o->buildid_dirs[i][0] == '/' && n < sizeof(debuginfo_buf))
			n += (size_t)snprintf(debuginfo_buf + n, sizeof(debuginfo_buf) - n, ":%s",
					      o->buildid_dirs[i]);
	if (o->symfs && o->symfs[0] == '/' && n < sizeof(debuginfo_buf))
		snprintf(debuginfo_buf + n, sizeof(debuginfo_buf) - n, ":%s/usr/lib/debug", o->symfs);
	debuginfo_path = debuginfo_buf;
}

void sy_dso_missing(struct dso *d, const char *fmt, const char *arg)
{
	d->state = DSO_MISSING;
	/* A long path is cut: the note stays a one-line hint. */
	if (snprintf(d->note, sizeof(d->note), fmt, arg) >= (int)sizeof(d->note))
		memcpy(d->note + sizeof(d->note) - 4, "...", 4);
	d->info.note = d->note;
}

static bool report_file(struct dso *d, const char *file)
{
	if (access(file, R_OK))
		return false;
	d->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!d->dwfl)
		return false;
	dwfl_report_begin(d->dwfl);
	d->mod = dwfl_report_elf(d->dwfl, d->info.short_name, file, -1, 0, true);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (!d->mod) {
		dwfl_end(d->dwfl);
		d->dwfl = NULL;
		return false;
	}
	return true;
}

/*
 * The vDSO is in no file: the kernel maps the same image into every
 * process, ours included, so a copy of ours symbolizes the trace's (when
 * the trace was recorded on this kernel).
 */
bool sy_report_own_vdso(struct dso *d)
{
	const void *img = (const void *)getauxval(AT_SYSINFO_EHDR);
	char tmp[] = "/tmp/pmiprof-vdso.XXXXXX";
	unsigned long long s, e;
	char line[512];
	size_t len = 0;
	bool ok = false;
	FILE *f;
	int fd;

	f = fopen("/proc/self/maps", "r");
	if (!img || !f)
		goto out;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &s, &e) == 2 &&
		    (uintptr_t)img == s)
			len = e - s;
	if (!len)
		goto out;
	fd = mkstemp(tmp);
	if (fd < 0)
		goto out;
	ok = write(fd, img, len) == (ssize_t)len && report_file(d, tmp);
	/* libdwfl holds the file open: the name is not needed any more. */
	unlink(tmp);
	close(fd);
out:
	if (f)
		fclose(f);
	return ok;
}

/*
 * The files that hold d's recorded build-id, in the order they are tried:
 * "" (the ELF) or ".debug" (its separate debug file) under each build-id
 * cache, then the debug file under SYMFS/usr/lib/debug and /usr/lib/debug.
 * Returns false when there is no candidate i.
 */
static bool by_build_id(const struct symbolizer *sy, const struct dso *d, bool debug, unsigned i,
			char *buf, size_t size)
{
	const char *dirs[ARRAY_SIZE(sy->opts.buildid_dirs) + 2];
	char sysdbg[4096 + 16];
	unsigned n = 0, k;
	char hex[48];

	if (d->build_id_len < 2)
		return false;
	for (k = 0; k < ARRAY_SIZE(sy->opts.buildid_dirs); k++)
		if (sy->opts.buildid_dirs[k])
			dirs[n++] = sy->opts.buildid_dirs[k];
	if (debug) {
		if (sy->opts.symfs) {
			snprintf(sysdbg, sizeof(sysdbg), "%s/usr/lib/debug", sy->opts.symfs);
			dirs[n++] = sysdbg;
		}
		dirs[n++] = "/usr/lib/debug";
	}
	build_id_hex(hex, d->build_id, d->build_id_len);
	if (i == n && sy->opts.perf_buildid_cache) {
		/*
		 * perf's build-id cache, last, for perf's files: .build-id/xx/rest
		 * is a directory (perf 4.x on: a link to it) holding the binary as
		 * "elf" and its debug file as "debug" (docs/perf-data.md).
		 */
		const char *perf_dir = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
		char cache[4096];

		if (perf_dir && *perf_dir)
			snprintf(cache, sizeof(cache), "%s", perf_dir);
		else if (home && *home)
			snprintf(cache, sizeof(cache), "%s/.debug", home);
		else
			return false;
		snprintf(buf, size, "%s/.build-id/%.2s/%s/%s", cache, hex, hex + 2,
			 debug ? "debug" : "elf");
		return true;
	}
	if (i >= n)
		return false;
	snprintf(buf, size, "%s/.build-id/%.2s/%s%s", dirs[i], hex, hex + 2, debug ? ".debug" : "");
	return true;
}

/*
 * Whether the module's build-id is not the recorded one: another, or none
 * when one was recorded (the recorder read it from the mapped file).
 */
bool sy_build_id_differs(const struct dso *d)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(d->mod, &bits, &vaddr);

	return d->build_id_len &&
	       (len <= 0 || (uint32_t)len != d->build_id_len || memcmp(bits, d->build_id, (size_t)len));
}

/* Report file when it is the recorded build (any file without a recorded build-id). */
bool sy_report_checked(struct dso *d, const char *file)
{
	if (!report_file(d, file))
		return false;
	if (!sy_build_id_differs(d))
		return true;
	dwfl_end(d->dwfl);
	d->dwfl = NULL;
	d->mod = NULL;
	d->mismatches++;
	return false;
}

/* Report the first file of the recorded build-id: true when there was one. */
bool sy_report_by_build_id(const struct symbolizer *sy, struct dso *d, bool debug)
{
	char file[4096 + 128];
	unsigned i;

	for (i = 0; by_build_id(sy, d, debug, i, file, sizeof(file)); i++)
		if (sy_report_checked(d, file))
			return true;
	return false;
}
