// SPDX-License-Identifier: GPL-2.0
/*
 * pmiprof doctor: the pre-flight check a user runs first.  It looks at what
 * decides whether and how `pmiprof record` can work here (privileges,
 * perf_event_paranoid, software and hardware perf events, hypervisor, NMI
 * watchdog, /dev/pmiprof and its GET_INFO, kernel version features), prints
 * one OK/WARN/FAIL line per item with the command that fixes it, says which
 * backend and trigger record would use and why, and exits 0 when record can
 * work, 1 when it cannot.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "commands.h"
#include "engine/host_info.h"
#include "module/module_dev.h"
#include "selftest.h"
#include "util.h"

const char cmd_doctor_summary[] = "Check whether and how record can sample on this machine";

const char cmd_doctor_help[] =
	"NAME\n"
	"    pmiprof doctor - pre-flight check: can pmiprof record here, and how?\n"
	"\n"
	"SYNOPSIS\n"
	"    pmiprof doctor [-q] [--device PATH]\n"
	"    pmiprof doctor --selftest [--backend perf|module|all] [--format text|json]\n"
	"                   [-o FILE] [--device PATH]\n"
	"    pmiprof doctor --workload spin ITERS | walk BYTES STEPS\n"
	"\n"
	"DESCRIPTION\n"
	"    Checks everything that decides whether pmiprof record can run on this\n"
	"    machine and which backend and trigger it would use, one line per item:\n"
	"\n"
	"      kernel        release; PERF_SAMPLE_READ with inherit needs 6.12+ (older\n"
	"                    kernels make the perf backend use per-CPU groups filtered\n"
	"                    to the workload)\n"
	"      privileges    uid, CAP_PERFMON, CAP_SYS_ADMIN\n"
	"      paranoid      kernel.perf_event_paranoid and what it permits you\n"
	"      sw events     perf_event_open of cpu-clock (the perf backend's fallback)\n"
	"      hw PMU        perf_event_open of instructions (event-based windows)\n"
	"      hypervisor    CPUID hypervisor bit and vendor (VMs often have no PMU)\n"
	"      nmi watchdog  kernel.nmi_watchdog (holds a counter; pmiprof.ko refuses\n"
	"                    PMI mode while it runs)\n"
	"      module        /dev/pmiprof: presence, access, ABI version, GET_INFO\n"
	"                    (vendor, PMU version, counters, emulated)\n"
	"      record        the backend `record --backend auto` picks, and why\n"
	"\n"
	"    Each line starts with OK, WARN (works, with a limitation) or FAIL (blocks\n"
	"    recording), followed by 'fix:' lines saying what to run.\n"
	"\n"
	"    --selftest runs calibrated workloads (a spin loop of known instruction\n"
	"    and branch counts, a pointer chase over 4 x the LLC) through each backend\n"
	"    and prints one PASS/FAIL/SKIP line per check with the measured and the\n"
	"    expected figure, and the reason of each skip (docs/doctor.md):\n"
	"      perf.no_pmu_fallback, perf.instructions, perf.branches, perf.llc_misses,\n"
	"      perf.windows_x_period, perf.pmi_interrupts,\n"
	"      module.device, module.windows_x_period, module.skid,\n"
	"      module.pmi_interrupts, module.per_task_competitor, module.throttle,\n"
	"      module.start_stop_cycles, module.released_at_stop\n"
	"    The module checks need root (the kernel log) and a loaded pmiprof.ko.\n"
	"\n"
	"OPTIONS\n"
	"    -q, --quiet        print only WARN and FAIL lines and the verdict\n"
	"    --device PATH      check this device node instead of /dev/pmiprof\n"
	"    --selftest         run the self-test instead of the pre-flight check\n"
	"    --backend B        selftest: perf, module or all (default all)\n"
	"    --format F         selftest: text (default) or json (machine + every check)\n"
	"    -o, --output FILE  selftest: write the result to FILE\n"
	"    --workload W ...   run one self-test workload alone, to count it with\n"
	"                       perf stat or valgrind: spin ITERS (ITERS x 4\n"
	"                       instructions, ITERS branches) or walk BYTES STEPS (one\n"
	"                       warm-up cycle, then STEPS loads, each an LLC miss when\n"
	"                       BYTES is over the LLC)\n"
	"    -h, --help         show this help\n"
	"\n"
	"EXAMPLES\n"
	"    pmiprof doctor\n"
	"    sudo pmiprof doctor          # what root would get (the module needs it)\n"
	"\n"
	"EXIT STATUS\n"
	"    0  record can work (some backend is usable), 1  it cannot, 2  usage error.\n"
	"    --selftest: 0  no check failed (skips allowed), 1  a check failed, 2  usage.\n";

#define CAP_SYS_ADMIN_BIT	21
#define CAP_PERFMON_BIT		38

enum verdict { V_OK, V_WARN, V_FAIL };

struct doctor {
	bool quiet;
	unsigned int warns, fails;
};

static void line(struct doctor *d, enum verdict v, const char *what, const char *fix,
		 const char *fmt, ...) PM_PRINTF(5, 6);

static void line(struct doctor *d, enum verdict v, const char *what, const char *fix,
		 const char *fmt, ...)
{
	static const char *const tag[] = { "OK  ", "WARN", "FAIL" };
	va_list ap;

	if (v == V_WARN)
		d->warns++;
	if (v == V_FAIL)
		d->fails++;
	if (d->quiet && v == V_OK)
		return;
	printf("  %s  %-13s ", tag[v], what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (fix && v != V_OK)
		printf("        %-13s fix: %s\n", "", fix);
}

static int read_int_file(const char *path, long *val)
{
	char buf[64];
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -errno;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	*val = strtol(buf, NULL, 10);
	return 0;
}

static uint64_t cap_eff(void)
{
	char buf[256];
	uint64_t caps = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f))
		if (!strncmp(buf, "CapEff:", 7))
			caps = strtoull(buf + 7, NULL, 16);
	fclose(f);
	return caps;
}

/* perf_event_open on ourselves; 0 or -errno. */
static int try_perf(uint32_t type, uint64_t config, bool exclude_kernel)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.disabled = 1;
	a.exclude_kernel = exclude_kernel;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static const char *paranoid_meaning(long p)
{
	if (p <= -1)
		return "no restrictions";
	if (p == 0)
		return "unprivileged users may profile user+kernel and system-wide (-a)";
	if (p == 1)
		return "unprivileged users may profile user+kernel of their own processes, no -a";
	if (p == 2)
		return "unprivileged users may profile user space of their own processes only";
	return "perf_event_open is denied to unprivileged users (Debian/Ubuntu level 3+)";
}

/* Is @gid one of ours (primary or supplementary)? */
static bool in_group(gid_t gid)
{
	gid_t groups[256];
	int i, n = getgroups(256, groups);

	if (getegid() == gid)
		return true;
	for (i = 0; i < n; i++)
		if (groups[i] == gid)
			return true;
	return false;
}

/*
 * The installed pieces of the module (docs/kernel-module.md, "Installing"):
 * DKMS source and a build for this kernel, the udev rule, the pmiprof group
 * and whether we are in it, the device node's group and mode.
 */
static void doctor_install(struct doctor *d, const char *device, const char *release)
{
	static const char *const rules[] = { "/etc/udev/rules.d/60-pmiprof.rules",
					     "/usr/lib/udev/rules.d/60-pmiprof.rules",
					     "/lib/udev/rules.d/60-pmiprof.rules" };
	static const char *const kos[] = { "updates/dkms/pmiprof.ko", "updates/dkms/pmiprof.ko.xz",
					   "updates/dkms/pmiprof.ko.zst", "extra/pmiprof.ko" };
	const char *rule = NULL;
	char path[512];
	struct group *g;
	struct stat st;
	size_t i;
	bool built = false;

	snprintf(path, sizeof(path), "/usr/src/pmiprof-%s/dkms.conf", PMIPROF_VERSION);
	for (i = 0; i < ARRAY_SIZE(kos) && !built; i++) {
		char ko[512];

		snprintf(ko, sizeof(ko), "/lib/modules/%s/%s", release, kos[i]);
		built = !access(ko, F_OK);
	}
	if (built)
		line(d, V_OK, "install", NULL, "pmiprof.ko installed for %s (DKMS)", release);
	else if (!access(path, F_OK))
		line(d, V_WARN, "install", "sudo dkms install pmiprof/" PMIPROF_VERSION,
		     "DKMS source %s present, no pmiprof.ko installed for %s", path, release);
	else
		line(d, V_WARN, "install", "sudo make install (then dkms install pmiprof/"
		     PMIPROF_VERSION "), or the pmiprof-dkms package (make deb)",
		     "no DKMS source (%s) and no installed pmiprof.ko", path);
	for (i = 0; i < ARRAY_SIZE(rules) && !rule; i++)
		if (!access(rules[i], F_OK))
			rule = rules[i];
	g = getgrnam("pmiprof");
	if (!rule)
		line(d, V_WARN, "install", "sudo make install (installs 60-pmiprof.rules), or the "
		     "pmiprof package (make deb)",
		     "no udev rule: /dev/pmiprof stays root-only (0600)");
	else if (!g)
		line(d, V_WARN, "install", "sudo groupadd --system pmiprof && sudo udevadm trigger",
		     "udev rule %s present, but no group pmiprof", rule);
	else if (!in_group(g->gr_gid))
		line(d, V_WARN, "install", "sudo usermod -aG pmiprof $USER (then log in again)",
		     "udev rule %s and group pmiprof present; you are not in the group", rule);
	else
		line(d, V_OK, "install", NULL, "udev rule %s, group pmiprof (you are a member: "
		     "per-task recording of your own processes)", rule);
	if (!stat(device, &st))
		line(d, V_OK, "install", NULL, "%s: mode %04o, group %s", device,
		     (unsigned int)(st.st_mode & 07777),
		     g && st.st_gid == g->gr_gid ? "pmiprof" : "not pmiprof (root only)");
}

int cmd_doctor(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "device", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct doctor d = { 0 };
	const char *device = PMIPROF_DEVICE_PATH;
	struct utsname u;
	unsigned int kver;
	uint64_t caps;
	bool priv, perfmon, sysadmin, sw_ok, hw_ok, hv, mod_ok = false, mod_pmi = false;
	long paranoid = 2, wd = 0;
	int opt, ret, sw_err, hw_err;
	char hv_vendor[32], why[512];
	struct pmiprof_info info;

	for (opt = 1; opt < argc && strcmp(argv[opt], "--"); opt++)
		if (!strcmp(argv[opt], "--selftest"))
			return doctor_selftest(argc, argv);
		else if (!strcmp(argv[opt], "--workload"))
			return doctor_workload(argc, argv);
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:qh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'q': d.quiet = true; break;
		case 'D': device = optarg; break;
		case 'h': return command_help("doctor");
		case ':': return pm_usage_error("doctor", "option '%s' needs an argument",
						argv[optind - 1]);
		default: return pm_usage_error("doctor", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return pm_usage_error("doctor", "unexpected argument '%s'", argv[optind]);

	printf("pmiprof doctor: can pmiprof record sample on this machine?\n\n");

	/* Kernel */
	uname(&u);
	kver = host_kernel_version();
	if (kver && kver < 6012)
		line(&d, V_WARN, "kernel", "none needed; a 6.12+ kernel lowers the overhead",
		     "%s %s: no PERF_SAMPLE_READ with inherit (needs 6.12+): the perf backend "
		     "records per-CPU groups filtered to the workload", u.release, u.machine);
	else
		line(&d, V_OK, "kernel", NULL, "%s %s: PERF_SAMPLE_READ with inherit supported",
		     u.release, u.machine);

	/* Privileges */
	caps = cap_eff();
	perfmon = caps & (1ull << CAP_PERFMON_BIT);
	sysadmin = caps & (1ull << CAP_SYS_ADMIN_BIT);
	priv = perfmon || sysadmin;
	line(&d, V_OK, "privileges", NULL, "uid %u, CAP_PERFMON %s, CAP_SYS_ADMIN %s%s",
	     (unsigned int)geteuid(), perfmon ? "yes" : "no", sysadmin ? "yes" : "no",
	     priv ? "" : " (system-wide recording and /dev/pmiprof need one of them)");

	/* perf_event_paranoid */
	if (read_int_file("/proc/sys/kernel/perf_event_paranoid", &paranoid) < 0)
		line(&d, V_FAIL, "paranoid", "mount /proc; a kernel with CONFIG_PERF_EVENTS",
		     "/proc/sys/kernel/perf_event_paranoid unreadable: perf events unsupported?");
	else if (priv)
		line(&d, V_OK, "paranoid", NULL, "%ld (%s); does not apply to you (privileged)",
		     paranoid, paranoid_meaning(paranoid));
	else if (paranoid >= 3)
		line(&d, V_FAIL, "paranoid",
		     "sudo sysctl kernel.perf_event_paranoid=2, or run as root, or "
		     "sudo setcap cap_perfmon+ep $(command -v pmiprof)",
		     "%ld: %s", paranoid, paranoid_meaning(paranoid));
	else if (paranoid == 2)
		line(&d, V_WARN, "paranoid", "sudo sysctl kernel.perf_event_paranoid=1 (kernel "
		     "samples) or 0 (also -a)", "%ld: %s; kernel samples are excluded",
		     paranoid, paranoid_meaning(paranoid));
	else
		line(&d, V_OK, "paranoid", NULL, "%ld: %s", paranoid, paranoid_meaning(paranoid));

	/* Software events: the perf backend's floor. */
	sw_err = try_perf(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, !priv);
	sw_ok = sw_err == 0;
	if (sw_ok)
		line(&d, V_OK, "sw events", NULL, "perf_event_open(cpu-clock) works");
	else
		line(&d, V_FAIL, "sw events",
		     sw_err == -EACCES || sw_err == -EPERM ?
			"sudo sysctl kernel.perf_event_paranoid=2, or run as root" :
			"a kernel with CONFIG_PERF_EVENTS; outside containers, check seccomp",
		     "perf_event_open(cpu-clock) failed: %s", strerror(-sw_err));

	/* Hardware PMU */
	hw_err = try_perf(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, !priv);
	hw_ok = hw_err == 0;
	hv = host_hypervisor(hv_vendor, sizeof(hv_vendor));
	if (hw_ok)
		line(&d, V_OK, "hw PMU", NULL, "perf_event_open(instructions) works: event-based "
		     "windows available");
	else if (hw_err == -ENOENT || hw_err == -EOPNOTSUPP || hw_err == -ENODEV)
		line(&d, V_WARN, "hw PMU",
		     hv ? "enable the virtual PMU (KVM: -cpu host,pmu=on; VMware: virtualize "
			  "CPU performance counters) or use bare metal; pmiprof.ko pmu=emul "
			  "tests the PMI path without one" :
			  "check dmesg for 'Performance Events'; the BIOS may disable the PMU",
		     "none (perf_event_open(instructions): %s): windows will be time-based "
		     "(cpu-clock)", strerror(-hw_err));
	else if (hw_err == -EBUSY)
		line(&d, V_WARN, "hw PMU", "stop other profilers (perf, likwid, the NMI watchdog)",
		     "present but busy: %s", strerror(-hw_err));
	else
		line(&d, V_WARN, "hw PMU", "run as root or lower kernel.perf_event_paranoid",
		     "cannot tell: perf_event_open(instructions): %s", strerror(-hw_err));

	/* Hypervisor */
	if (hv)
		line(&d, V_OK, "hypervisor", NULL, "running under %s%s", hv_vendor,
		     hw_ok ? " with a virtual PMU (expect higher PMI cost and v2 at most)" :
			     " without a virtual PMU");
	else
		line(&d, V_OK, "hypervisor", NULL, "bare metal (no CPUID hypervisor bit)");

	/* NMI watchdog */
	if (read_int_file("/proc/sys/kernel/nmi_watchdog", &wd) < 0)
		line(&d, V_OK, "nmi watchdog", NULL, "not configured in this kernel");
	else if (wd && hw_ok)
		line(&d, V_WARN, "nmi watchdog", "sudo sysctl kernel.nmi_watchdog=0 (before "
		     "insmod pmiprof.ko; restore with =1)",
		     "on: it holds one counter and pmiprof.ko refuses PMI mode while it runs");
	else
		line(&d, V_OK, "nmi watchdog", NULL, "%s", wd ? "on, but there is no PMU for it "
		     "to hold" : "off");

	/* The module */
	ret = module_dev_open(device, &info, why, sizeof(why));
	if (ret >= 0) {
		char desc[256];

		close(ret);
		mod_ok = true;
		mod_pmi = module_has_pmi(&info);
		module_describe_pmu(&info, desc, sizeof(desc));
		line(&d, V_OK, "module", NULL, "%s: ABI %u.%u, %s", device, info.abi_major,
		     info.abi_minor, desc);
		if (info.flags & PMIPROF_INFO_F_ICOUNT)
			line(&d, V_WARN, "module", "reload without pmu=emul for real measurements",
			     "EMULATED PMU (icount: instructions exact) loaded: other events synthetic");
		else if (info.flags & PMIPROF_INFO_F_EMULATED)
			line(&d, V_WARN, "module", "reload without pmu=emul for real measurements",
			     "EMULATED PMU loaded (pmu=emul): counts are synthetic, for testing");
	} else if (ret == -ENOENT || ret == -ENXIO || ret == -ENODEV) {
		char kdir[300];
		struct stat st;

		snprintf(kdir, sizeof(kdir), "/lib/modules/%s/build", u.release);
		if (stat(kdir, &st) == 0)
			line(&d, V_WARN, "module", "make module && sudo insmod kernel/pmiprof.ko",
			     "%s absent: pmiprof.ko not loaded (optional; perf is used instead)",
			     device);
		else
			line(&d, V_WARN, "module", "install the headers of this kernel "
			     "(linux-headers-$(uname -r)), then make module && sudo insmod "
			     "kernel/pmiprof.ko",
			     "%s absent, and no headers for %s to build pmiprof.ko against "
			     "(optional; perf is used instead)", device, u.release);
	} else if (ret == -EPROTO) {
		line(&d, V_WARN, "module", "make module; sudo rmmod pmiprof; sudo insmod "
		     "kernel/pmiprof.ko", "%s", why);
	} else {
		line(&d, V_WARN, "module", ret == -EBUSY ? "wait for the other recording to end" :
		     "run as root (sudo pmiprof ...) or give pmiprof CAP_PERFMON", "%s", why);
	}

	doctor_install(&d, device, u.release);

	/* What record --backend auto would do */
	if (mod_ok) {
		if (mod_pmi)
			line(&d, V_OK, "record", NULL, "module backend: PMI sampling every N %s "
			     "(per-task for -- CMD and -p, system-wide with -a)",
			     "instructions");
		else
			line(&d, V_OK, "record", NULL, "module backend: timer sampling, time-based "
			     "windows (pmiprof.ko found no PMU)");
	} else if (sw_ok) {
		line(&d, V_OK, "record", NULL, "perf backend (%s): trigger %s",
		     access(device, F_OK) ? "no /dev/pmiprof" : "/dev/pmiprof not usable",
		     hw_ok ? "instructions, event-based windows" :
			     "cpu-clock, time-based windows (no hardware PMU)");
	} else {
		line(&d, V_FAIL, "record", "see the FAIL lines above",
		     "no usable backend: perf_event_open refused and no usable /dev/pmiprof");
	}

	printf("\n%s: %u warning%s, %u failure%s\n",
	       mod_ok || sw_ok ? "record can work" : "record cannot work", d.warns,
	       d.warns == 1 ? "" : "s", d.fails, d.fails == 1 ? "" : "s");
	return mod_ok || sw_ok ? 0 : 1;
}
