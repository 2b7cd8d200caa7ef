// SPDX-License-Identifier: GPL-2.0
/*
 * pmiprof doctor --selftest: options, the machine description (CPU model
 * and stepping, microcode, kernel, PMU version and counters, hybrid,
 * hypervisor) and the output of every check as text or JSON.  The checks
 * themselves are in selftest_module.c and selftest_perf.c.
 */
#include <cpuid.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "commands.h"
#include "module/module_dev.h"
#include "engine/host_info.h"
#include "selftest.h"

/* report/output/format.c's JSON string writer (valid UTF-8, escaped controls). */
void json_str(FILE *f, const char *s);

void st_add(struct selftest *st, const char *name, enum st_verdict v, const char *measured,
	    const char *expected, const char *fmt, ...)
{
	struct st_check *c;
	va_list ap;

	if (st->n >= ST_MAX_CHECKS)
		return;
	c = &st->checks[st->n++];
	pm_strlcpy(c->name, name, sizeof(c->name));
	c->verdict = v;
	pm_strlcpy(c->measured, measured ? measured : "", sizeof(c->measured));
	pm_strlcpy(c->expected, expected ? expected : "", sizeof(c->expected));
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
}

bool st_within(double measured, double expected, double tol_pct, double abs_tol)
{
	double d = measured - expected;

	if (d < 0)
		d = -d;
	return d <= expected * tol_pct / 100.0 + abs_tol;
}

struct machine {
	char cpu_model[128], microcode[32], kernel[400], hypervisor[32];
	char vendor[16];
	unsigned int family, model, stepping;
	unsigned int pmu_version, nr_gp, gp_width, nr_fixed, fixed_width;
	bool hybrid, hv;
	bool mod_ok;
	struct pmiprof_info info;
};

static void cpuinfo_field(const char *text, const char *key, char *out, size_t len)
{
	const char *p = strstr(text, key), *e;

	out[0] = '\0';
	if (!p || !(p = strchr(p, ':')))
		return;
	p += 1 + (p[1] == ' ');
	e = strchr(p, '\n');
	snprintf(out, len, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
}

static void machine_fill(struct machine *m, const char *device)
{
	unsigned int a, b, c, d, max;
	char *text = NULL, buf[32], why[256];
	struct utsname u;
	size_t len;
	int fd;

	memset(m, 0, sizeof(*m));
	uname(&u);
	snprintf(m->kernel, sizeof(m->kernel), "%s %s %s", u.sysname, u.release, u.version);
	if (pm_read_file("/proc/cpuinfo", &text, &len) >= 0) {
		cpuinfo_field(text, "model name", m->cpu_model, sizeof(m->cpu_model));
		cpuinfo_field(text, "microcode", m->microcode, sizeof(m->microcode));
		cpuinfo_field(text, "stepping", buf, sizeof(buf));
		m->stepping = (unsigned int)strtoul(buf, NULL, 10);
		cpuinfo_field(text, "cpu family", buf, sizeof(buf));
		m->family = (unsigned int)strtoul(buf, NULL, 10);
		cpuinfo_field(text, "model\t", buf, sizeof(buf));
		m->model = (unsigned int)strtoul(buf, NULL, 10);
		cpuinfo_field(text, "vendor_id", m->vendor, sizeof(m->vendor));
		free(text);
	}
	max = __get_cpuid_max(0, NULL);
	if (max >= 7) {
		__cpuid_count(7, 0, a, b, c, d);
		m->hybrid = d & (1u << 15);
	}
	/* Intel architectural perfmon (leaf 0xA); AMD: PerfMonV2 leaf 0x80000022. */
	if (max >= 0xa && !strcmp(m->vendor, "GenuineIntel")) {
		__cpuid(0xa, a, b, c, d);
		m->pmu_version = a & 0xff;
		m->nr_gp = (a >> 8) & 0xff;
		m->gp_width = (a >> 16) & 0xff;
		m->nr_fixed = d & 0x1f;
		m->fixed_width = (d >> 5) & 0xff;
	} else if (!strcmp(m->vendor, "AuthenticAMD") &&
		   (unsigned int)__get_cpuid_max(0x80000000, NULL) >= 0x80000022u) {
		__cpuid(0x80000022, a, b, c, d);
		m->pmu_version = a & 1 ? 2 : 1;
		m->nr_gp = b & 0xf;
		m->gp_width = 48;
	}
	m->hv = host_hypervisor(m->hypervisor, sizeof(m->hypervisor));
	fd = module_dev_open(device, &m->info, why, sizeof(why));
	if (fd >= 0) {
		close(fd);
		m->mod_ok = true;
	}
}

static const char *const verdict_name[] = { "pass", "fail", "skip" };

static void print_text(FILE *f, const struct machine *m, const struct selftest *st)
{
	unsigned int i, n[3] = { 0 };

	fprintf(f, "pmiprof doctor --selftest\n\n");
	fprintf(f, "  cpu         %s (%s family %u model %u stepping %u), microcode %s\n",
		m->cpu_model[0] ? m->cpu_model : "?", m->vendor, m->family, m->model,
		m->stepping, m->microcode[0] ? m->microcode : "?");
	fprintf(f, "  kernel      %s\n", m->kernel);
	fprintf(f, "  pmu (cpuid) version %u, %u general-purpose x %u bits, %u fixed x %u bits%s\n",
		m->pmu_version, m->nr_gp, m->gp_width, m->nr_fixed, m->fixed_width,
		m->hybrid ? ", hybrid" : "");
	fprintf(f, "  hypervisor  %s\n", m->hv ? m->hypervisor : "none (bare metal)");
	if (m->mod_ok)
		fprintf(f, "  module      %s: ABI %u.%u, pmu %s version %u, %u gp + %u fixed%s\n",
			"/dev/pmiprof", m->info.abi_major, m->info.abi_minor, m->info.pmu_name,
			m->info.pmu_version, m->info.nr_gp, m->info.nr_fixed,
			m->info.flags & PMIPROF_INFO_F_EMULATED ? ", EMULATED" : "");
	fprintf(f, "\n");
	for (i = 0; i < st->n; i++) {
		const struct st_check *c = &st->checks[i];

		n[c->verdict]++;
		fprintf(f, "  %-4s  %-28s", c->verdict == ST_PASS ? "PASS" :
			c->verdict == ST_FAIL ? "FAIL" : "SKIP", c->name);
		if (c->measured[0] || c->expected[0])
			fprintf(f, " measured %s, expected %s", c->measured[0] ? c->measured : "-",
				c->expected[0] ? c->expected : "-");
		fprintf(f, "\n");
		if (c->detail[0])
			fprintf(f, "        %-28s %s: %s\n", "",
				c->verdict == ST_SKIP ? "reason" : "note", c->detail);
	}
	fprintf(f, "\nselftest: %u passed, %u failed, %u skipped\n", n[ST_PASS], n[ST_FAIL],
		n[ST_SKIP]);
}

static void json_kv(FILE *f, const char *key, const char *val, bool comma)
{
	fprintf(f, "\"%s\": ", key);
	json_str(f, val);
	if (comma)
		fputs(", ", f);
}

static void print_json(FILE *f, const struct machine *m, const struct selftest *st)
{
	unsigned int i, n[3] = { 0 };

	fprintf(f, "{\n  \"pmiprof_version\": ");
	json_str(f, PMIPROF_VERSION);
	fprintf(f, ",\n  \"machine\": {");
	json_kv(f, "cpu_model", m->cpu_model, true);
	json_kv(f, "cpu_vendor", m->vendor, true);
	fprintf(f, "\"family\": %u, \"model\": %u, \"stepping\": %u, ", m->family, m->model,
		m->stepping);
	json_kv(f, "microcode", m->microcode, true);
	json_kv(f, "kernel", m->kernel, true);
	fprintf(f, "\"pmu_version\": %u, \"gp_counters\": %u, \"gp_width\": %u, "
		"\"fixed_counters\": %u, \"fixed_width\": %u, \"hybrid\": %s, ",
		m->pmu_version, m->nr_gp, m->gp_width, m->nr_fixed, m->fixed_width,
		m->hybrid ? "true" : "false");
	fprintf(f, "\"hypervisor\": ");
	if (m->hv)
		json_str(f, m->hypervisor);
	else
		fputs("null", f);
	fprintf(f, ", \"module\": ");
	if (m->mod_ok) {
		fprintf(f, "{\"abi\": \"%u.%u\", ", m->info.abi_major, m->info.abi_minor);
		json_kv(f, "pmu", m->info.pmu_name, true);
		fprintf(f, "\"pmu_version\": %u, \"gp_counters\": %u, \"fixed_counters\": %u, "
			"\"emulated\": %s, \"icount\": %s}", m->info.pmu_version, m->info.nr_gp,
			m->info.nr_fixed,
			m->info.flags & PMIPROF_INFO_F_EMULATED ? "true" : "false",
			m->info.flags & PMIPROF_INFO_F_ICOUNT ? "true" : "false");
	} else {
		fputs("null", f);
	}
	fprintf(f, "},\n  \"checks\": [");
	for (i = 0; i < st->n; i++) {
		const struct st_check *c = &st->checks[i];

		n[c->verdict]++;
		fprintf(f, "%s\n    {", i ? "," : "");
		json_kv(f, "name", c->name, true);
		json_kv(f, "verdict", verdict_name[c->verdict], true);
		json_kv(f, "measured", c->measured, true);
		json_kv(f, "expected", c->expected, true);
		json_kv(f, c->verdict == ST_SKIP ? "reason" : "note", c->detail, false);
		fputc('}', f);
	}
	fprintf(f, "\n  ],\n  \"summary\": {\"pass\": %u, \"fail\": %u, \"skip\": %u}\n}\n",
		n[ST_PASS], n[ST_FAIL], n[ST_SKIP]);
}

/* argv as cmd_doctor got it; --selftest is one of its options. */
int doctor_selftest(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "selftest", no_argument, NULL, 'S' },
		{ "backend", required_argument, NULL, 'b' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "device", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct selftest st;
	const char *backend = "all", *format = "text", *out = NULL;
	struct machine m;
	unsigned int i;
	bool failed = false;
	FILE *f = stdout;
	int opt;

	memset(&st, 0, sizeof(st));
	st.device = PMIPROF_DEVICE_PATH;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'S': break;
		case 'b': backend = optarg; break;
		case 'f': format = optarg; break;
		case 'o': out = optarg; break;
		case 'D': st.device = optarg; break;
		case 'h': return command_help("doctor");
		case ':': return pm_usage_error("doctor", "option '%s' needs an argument",
						argv[optind - 1]);
		default: return pm_usage_error("doctor", "unknown option '%s' with --selftest",
					       argv[optind - 1]);
		}
	}
	if (optind < argc)
		return pm_usage_error("doctor", "unexpected argument '%s'", argv[optind]);
	if (strcmp(backend, "perf") && strcmp(backend, "module") && strcmp(backend, "all"))
		return pm_usage_error("doctor", "--backend '%s': expected perf, module or all",
				      backend);
	if (strcmp(format, "text") && strcmp(format, "json"))
		return pm_usage_error("doctor", "--format '%s': expected text or json", format);
	if (out) {
		f = fopen(out, "we");
		if (!f) {
			pm_err("doctor: cannot write %s: %s", out, strerror(errno));
			return 1;
		}
	}

	machine_fill(&m, st.device);
	if (strcmp(backend, "module"))
		st_perf_checks(&st);
	if (strcmp(backend, "perf"))
		st_module_checks(&st);

	if (!strcmp(format, "json"))
		print_json(f, &m, &st);
	else
		print_text(f, &m, &st);
	for (i = 0; i < st.n; i++)
		failed |= st.checks[i].verdict == ST_FAIL;
	if (f != stdout && fclose(f)) {
		pm_err("doctor: writing %s: %s", out, strerror(errno));
		return 1;
	}
	return failed ? 1 : 0;
}
