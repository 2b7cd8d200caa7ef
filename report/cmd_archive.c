// SPDX-License-Identifier: GPL-2.0
/*
 * `pmiprof archive`: packs what a report of a trace needs from the
 * recording machine (the mapped ELF files and their separate debug files,
 * keyed by build-id, and the recording boot's kallsyms) into a tar, like
 * `perf archive`.  Layout in archive.h and docs/report.md.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/archive.h"
#include "commands.h"
#include "pmiprof/trace.h"
#include "symbols/kallsyms_cache.h"
#include "kernel_id.h"
#include "strtab.h"
#include "symbols/symbols.h"
#include "util.h"

const char cmd_archive_summary[] = "Pack a trace's binaries, debug files and kallsyms by build-id";

const char cmd_archive_help[] =
"NAME\n"
"    pmiprof archive - pack what reporting a trace elsewhere needs, by build-id\n"
"\n"
"SYNOPSIS\n"
"    pmiprof archive [-i FILE] [-o OUT] [-q]\n"
"\n"
"DESCRIPTION\n"
"    Run on the machine that recorded FILE (as perf archive is): writes a tar\n"
"    with every ELF file the trace's executable MMAP records name (programs,\n"
"    shared libraries), stored as .build-id/xx/rest by build-id, their\n"
"    separate debug files (.build-id/xx/rest.debug) when installed, the\n"
"    recording boot's /proc/kallsyms (kallsyms/BOOT-ID) when the trace has\n"
"    kernel IPs, and a manifest (pmiprof-archive.txt).  Build-ids come from\n"
"    the MMAP records, or from the file when the records have none.  A file\n"
"    whose build-id differs from the recorded one changed since recording:\n"
"    it is left out with a warning.\n"
"\n"
"    Elsewhere, 'pmiprof report -i FILE --archive OUT' reads it directly; or\n"
"    extract it into the build-id cache that report always searches:\n"
"        mkdir -p ~/.pmiprof/debug && tar xf OUT -C ~/.pmiprof/debug\n"
"\n"
"    The kallsyms is packed when the archive runs during the recording boot\n"
"    (it needs real addresses: root, or kernel.kptr_restrict=0), or from\n"
"    report's kallsyms cache of that boot.  The [vdso] and JIT code are not\n"
"    packed.\n"
"\n"
"OPTIONS\n"
"    -i, --input FILE    trace to read (default: pmiprof.data)\n"
"    -o, --output OUT    archive to write (default: FILE.tar.gz); gzip-\n"
"                        compressed unless OUT ends in .tar\n"
"    -q, --quiet         no warnings about files left out\n"
"\n"
"EXIT STATUS\n"
"    0 written (files that could not be packed are warned about), 1 error\n"
"    (unreadable trace, cannot write OUT), 2 usage error.\n"
"\n"
"SEE ALSO\n"
"    pmiprof report (--archive, --buildid-dir, --symfs), docs/report.md\n";

static const struct option long_opts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

struct object {
	char *path;
	uint8_t build_id[20];
	uint32_t build_id_len;		/* 0: the trace has none */
};

struct packer {
	struct tar_out *tar;
	struct strtab seen;		/* "path\nhex" of MMAPs already listed */
	struct strtab packed;		/* tar member names written */
	struct object *objs;
	uint32_t nr_objs, cap_objs;
	char *manifest;
	size_t man_len, man_cap;
	uint64_t elfs, debugs, skipped;
};

static int man_add(struct packer *p, const char *fmt, ...) PM_PRINTF(2, 3);
static int man_add(struct packer *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = p->man_cap - p->man_len;

		va_start(ap, fmt);
		n = vsnprintf(p->manifest ? p->manifest + p->man_len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			return -EINVAL;
		if ((size_t)n < room) {
			p->man_len += (size_t)n;
			return 0;
		}
		{
			size_t cap = (p->man_cap + (size_t)n + 1) * 2;
			char *m = realloc(p->manifest, cap);

			if (!m)
				return -ENOMEM;
			p->manifest = m;
			p->man_cap = cap;
		}
	}
}

/* Distinct executable file mappings of the trace. */
static int collect(struct packer *p, const struct trace_mmap *m)
{
	char key[4096 + 48], hex[48];
	uint32_t before = p->seen.n;
	struct object *o;
	int64_t id;

	if ((m->prot && !(m->prot & PROT_EXEC)) || !m->path || m->path[0] != '/' ||
	    symbolizer_is_anon(m->path) || strchr(m->path, '\n'))
		return 0;
	build_id_hex(hex, m->build_id, m->build_id_len > 20 ? 20 : m->build_id_len);
	snprintf(key, sizeof(key), "%s\n%s", m->path, hex);
	id = strtab_intern(&p->seen, key);
	if (id < 0)
		return (int)id;
	if (p->seen.n == before)
		return 0;
	if (pm_grow(&p->objs, &p->cap_objs, (uint64_t)p->nr_objs + 1, 32, sizeof(*p->objs)))
		return -ENOMEM;
	o = &p->objs[p->nr_objs];
	o->path = strdup(m->path);
	if (!o->path)
		return -ENOMEM;
	o->build_id_len = m->build_id_len > 20 ? 20 : m->build_id_len;
	memcpy(o->build_id, m->build_id, o->build_id_len);
	p->nr_objs++;
	return 0;
}

/* Adds a tar member once (a build-id mapped under several paths is one file). */
static int pack_once(struct packer *p, const char *name, const char *src, bool *added)
{
	uint32_t before = p->packed.n;
	int64_t id = strtab_intern(&p->packed, name);

	*added = false;
	if (id < 0)
		return (int)id;
	if (p->packed.n == before)
		return 0;
	*added = true;
	return tar_out_file(p->tar, name, src);
}

static char *debuginfo_path_default;

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path_default,
};

/* Pack one object: returns 0 (packed or warned about) or an archive write error. */
static int pack_object(struct packer *p, const struct object *o, bool quiet)
{
	const unsigned char *bits;
	const char *mainfile = NULL, *debugfile = NULL;
	char hex[48], name[128];
	const uint8_t *bid = o->build_id;
	uint32_t bid_len = o->build_id_len;
	Dwfl_Module *mod = NULL;
	GElf_Addr vaddr, bias;
	Dwfl *dwfl = NULL;
	bool added, same = false;
	int len = 0, err = 0;

	if (!access(o->path, R_OK) && (dwfl = dwfl_begin(&callbacks))) {
		dwfl_report_begin(dwfl);
		mod = dwfl_report_elf(dwfl, "x", o->path, -1, 0, true);
		dwfl_report_end(dwfl, NULL, NULL);
	}
	if (mod)
		len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (!bid_len && len > 0) {
		bid = bits;
		bid_len = (uint32_t)(len > 20 ? 20 : len);
	}
	same = mod && len > 0 && (uint32_t)len == bid_len && !memcmp(bits, bid, bid_len);
	if (!bid_len) {
		if (!quiet)
			pm_warn("%s: %s: not archived", o->path, mod ? "no build-id in the file" :
				"cannot read it");
		p->skipped++;
		goto out;
	}
	build_id_hex(hex, bid, bid_len);
	if (same) {
		snprintf(name, sizeof(name), ".build-id/%.2s/%s", hex, hex + 2);
		err = pack_once(p, name, o->path, &added);
		if (err)
			goto out;
		p->elfs += added;
		/* Locates the separate debug file (build-id path or .gnu_debuglink). */
		dwfl_module_getdwarf(mod, &bias);
		dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &mainfile, &debugfile);
	} else {
		if (!quiet)
			pm_warn("%s: %s: only its debug file, if installed, is archived", o->path,
				mod ? "build-id differs from the recorded one (changed since "
				"recording)" : "cannot read it");
		p->skipped++;
	}
	if (!debugfile || (mainfile && !strcmp(debugfile, mainfile))) {
		static char sysdbg[96];

		/* The recorded build's debug file may be installed though the binary changed. */
		snprintf(sysdbg, sizeof(sysdbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex,
			 hex + 2);
		debugfile = access(sysdbg, R_OK) ? NULL : sysdbg;
	}
	if (debugfile) {
		snprintf(name, sizeof(name), ".build-id/%.2s/%s.debug", hex, hex + 2);
		err = pack_once(p, name, debugfile, &added);
		if (err)
			goto out;
		p->debugs += added;
	}
	err = man_add(p, "elf %s %s %s\n", hex, o->build_id_len ? "trace" : "file", o->path);
	if (!err && same && debugfile)
		err = man_add(p, "debug %s %s\n", hex, debugfile);
out:
	if (dwfl)
		dwfl_end(dwfl);
	return err;
}

/* The recording boot's kallsyms: 1 packed, 0 not (warned), or -errno. */
static int pack_kallsyms(struct packer *p, const struct trace_header *h, bool quiet)
{
	char boot[64], name[96];
	char *text = NULL;
	size_t len = 0;
	int err;

	if (!h->boot_id[0] || !kernel_boot_id_valid(h->boot_id)) {
		if (!quiet)
			pm_warn("the trace does not name its boot (format < 1.2): kallsyms not "
				"archived (report elsewhere with --kallsyms FILE)");
		return 0;
	}
	if (!kernel_boot_id(boot, sizeof(boot)) && !strcmp(boot, h->boot_id))
		text = kallsyms_read_cached(&len);
	else
		text = kallsyms_read_boot(h->boot_id, &len);
	if (text && !kallsyms_has_addresses(text)) {
		free(text);
		if (!quiet)
			pm_warn("/proc/kallsyms shows no addresses (kernel.kptr_restrict; run as "
				"root): kallsyms not archived");
		return 0;
	}
	if (!text) {
		if (!quiet)
			pm_warn("kallsyms of boot %s not found (archive during the recording "
				"boot): not archived", h->boot_id);
		return 0;
	}
	snprintf(name, sizeof(name), "kallsyms/%s", h->boot_id);
	err = tar_out_mem(p->tar, name, text, len);
	free(text);
	if (!err)
		err = man_add(p, "kallsyms %s %s\n", h->boot_id, h->kernel_release);
	return err ? err : 1;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

int cmd_archive(int argc, char **argv)
{
	const char *input = "pmiprof.data", *output = NULL;
	const struct trace_header *h;
	struct trace_reader *r = NULL;
	struct packer p = { 0 };
	struct trace_record rec;
	char *dflt_out = NULL;
	bool quiet = false;
	int c, err, status = 1, ks = 0;
	struct stat st;
	uint32_t i;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:o:qh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			fputs(cmd_archive_help, stdout);
			return 0;
		case ':':
			return pm_usage_error("archive", "option '%s' needs an argument",
					      argv[optind - 1]);
		default:
			return pm_usage_error("archive", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return pm_usage_error("archive", "unexpected argument '%s'", argv[optind]);
	if (!output) {
		if (asprintf(&dflt_out, "%s.tar.gz", input) < 0) {
			pm_err("out of memory");
			return 1;
		}
		output = dflt_out;
	}
	if (trace_reader_open(&r, input, NULL, NULL))
		goto out_free;		/* the reader said why */
	h = trace_reader_header(r);
	err = strtab_init(&p.seen);
	if (!err)
		err = strtab_init(&p.packed);
	while (!err && (err = trace_reader_next(r, &rec)) > 0)
		err = rec.type == PMIPROF_REC_MMAP ? collect(&p, &rec.mmap) : 0;
	if (err) {
		pm_err("%s: %s", input, err == -ENOMEM ? "out of memory" : strerror(-err));
		goto out;
	}
	err = tar_out_open(&p.tar, output, !ends_with(output, ".tar"));
	if (err) {
		pm_err("cannot create %s: %s", output, strerror(-err));
		goto out;
	}
	err = man_add(&p, "# pmiprof archive of %s (layout: docs/report.md)\n"
		      "trace %s %s\n", input, h->boot_id[0] ? h->boot_id : "-",
		      h->kernel_release[0] ? h->kernel_release : "-");
	for (i = 0; !err && i < p.nr_objs; i++)
		err = pack_object(&p, &p.objs[i], quiet);
	if (!err && (h->flags & PMIPROF_TRACE_F_KERNEL_IPS)) {
		ks = pack_kallsyms(&p, h, quiet);
		err = ks < 0 ? ks : 0;
	}
	if (!err)
		err = tar_out_mem(p.tar, ARCHIVE_MANIFEST, p.manifest, p.man_len);
	{
		int cerr = tar_out_close(p.tar);

		if (!err)
			err = cerr;
	}
	if (err) {
		pm_err("cannot write %s: %s", output, err == -ENOMEM ? "out of memory" :
		       strerror(-err));
		unlink(output);
		goto out;
	}
	if (!quiet) {
		pm_info("archived %" PRIu64 " ELF file(s), %" PRIu64 " debug file(s)%s of %u mapped "
			"file(s) in %s (%.1f kB)", p.elfs, p.debugs, ks > 0 ? " and kallsyms" : "",
			p.nr_objs, output, stat(output, &st) ? 0.0 : (double)st.st_size / 1e3);
		pm_info("elsewhere: pmiprof report -i %s --archive %s, or: mkdir -p "
			"~/.pmiprof/debug && tar xf %s -C ~/.pmiprof/debug", input, output, output);
	}
	status = 0;
out:
	trace_reader_close(r);
	for (i = 0; i < p.nr_objs; i++)
		free(p.objs[i].path);
	free(p.objs);
	free(p.manifest);
	if (p.seen.map.slots)
		strtab_free(&p.seen);
	if (p.packed.map.slots)
		strtab_free(&p.packed);
out_free:
	free(dflt_out);
	return status;
}
