# Sourced by the VM tests (tests/vm/tNNN_*.sh): TAP helpers from tests/lib.sh
# plus the checks and helpers every guest test needs.
#   vm_require [module]     skip_all unless QEMU, busybox-static, a guest kernel,
#                           pmiprof (and, with "module", pmiprof.ko) are there
#   vm_run ARGS...          tests/vm/run with the build dir and a per-test
#                           export dir ($VM_OUT); output in $VM_STDOUT/$VM_STDERR,
#                           status in $VM_RC
#   vm_static NAME SRC      build a static helper program into $TMPD/NAME
#   vm_dmesg_clean FILE     ok/not_ok: no WARN/BUG/oops/unknown-NMI in a guest dmesg
#                           (a TCG-starvation watchdog report is a note, not a failure)
#   vm_dmesg_reports FILE   each kernel report in FILE, classified (see below)
# Guest commands save their kernel log with: dmesg > /export/dmesg.txt
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

VM_RUN=$PMIPROF_TOP/tests/vm/run
VM_OUT=$TMPD/out
VM_STDOUT=$TMPD/vm.stdout
VM_STDERR=$TMPD/vm.stderr
VM_RC=0

vm_module_path() {
	local m
	for m in "$PMIPROF_BUILD/kernel/pmiprof.ko" "$PMIPROF_TOP/kernel/pmiprof.ko"; do
		[ -f "$m" ] && { echo "$m"; return 0; }
	done
	return 1
}

vm_require() {
	command -v qemu-system-x86_64 >/dev/null || skip_all "qemu-system-x86_64 not installed (make deps)"
	command -v busybox >/dev/null && ldd "$(command -v busybox)" 2>&1 | grep -q 'not a dynamic' ||
		skip_all "busybox-static not installed (make deps)"
	ls /boot/vmlinuz-*-amd64 >/dev/null 2>&1 || skip_all "no guest kernel /boot/vmlinuz-*-amd64 (make deps)"
	[ -x "$PMIPROF" ] || skip_all "pmiprof not built"
	if [ "${1:-}" = module ]; then
		vm_module_path >/dev/null || skip_all "pmiprof.ko not built (make module)"
	fi
	return 0
}

vm_run() {
	rm -rf "$VM_OUT"
	mkdir -p "$VM_OUT"
	PMIPROF_BUILD=$PMIPROF_BUILD "$VM_RUN" --export "$VM_OUT" "$@" >"$VM_STDOUT" 2>"$VM_STDERR"
	VM_RC=$?
	# Harness failures (timeout, guest death) are never a pass: show why.
	if [ $VM_RC -ge 124 ] && [ $VM_RC -le 126 ]; then
		echo "# tests/vm/run failed with status $VM_RC:"
		sed 's/^/#   /' "$VM_STDERR" | tail -n 50
	fi
	return $VM_RC
}

# The newest guest kernel older than 6.12 (the perf backend's fallback
# tests need one: 6.12 accepts PERF_SAMPLE_READ with inherit), or nothing.
vm_kernel_pre612() {
	local k v
	for k in $(ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -V -r); do
		v=${k#/boot/vmlinuz-}
		v=$(printf '%s\n' "$v" | awk -F. '{ print $1 * 1000 + $2 }')
		[ "${v:-99999}" -lt 6012 ] && { echo "$k"; return 0; }
	done
	return 1
}

vm_static() {
	local name=$1 src=$2
	shift 2
	cc -static -O1 -g -fno-omit-frame-pointer -fno-inline -Wall -Wextra \
		-I"$PMIPROF_TOP/include" "$@" -o "$TMPD/$name" "$src"
}

# Kernel log lines that mean the module (or anything) misbehaved.
VM_DMESG_BAD='WARNING:|BUG:|Oops|general protection fault|NMI received for unknown reason|Call Trace:|kernel BUG|Kernel panic|unable to handle'

# The one place VM tests classify a guest's kernel reports.  A report starts
# at a line matching VM_DMESG_BAD (or an RCU stall) and ends at its stack's
# "</TASK>", "---[ end trace", or 80 lines.  It is the emulator's, not a bug,
# when it is a watchdog (soft lockup, RCU stall) whose CPU was interrupted in
# the kernel's own delay loop (RIP in delay_tsc, delay_halt, __const_udelay,
# ...) with no pmiprof frame anywhere in it: on a loaded host TCG's vCPU
# threads do not run for seconds while the guest clock (the host's) goes on,
# and a busy-wait such as `suspend debug`'s 5 s mdelay is then "stuck"
# (t198's soft lockup in delay_tsc, issue 38).  Everything else is bad: a
# soft lockup anywhere else, one with a pmiprof frame, any WARN/BUG/oops.
# Prints "starvation: HEADER" or "bad: HEADER" plus the report's lines
# (indented), per report.
vm_dmesg_reports() {
	awk -v bad="$VM_DMESG_BAD" '
	function flush(i) {
		if (n) {
			kind = (watchdog && delay && !module) ? "starvation" : "bad"
			print kind ": " b[1]
			for (i = 2; i <= n; i++)
				print "    " b[i]
		}
		n = 0; watchdog = 0; delay = 0; module = 0
	}
	{
		line = $0
		sub(/^<[0-9]>/, "", line)
		sub(/^\[ *[0-9]+\.[0-9]+\] /, "", line)
		stall = line ~ /self-detected stall|detected stalls on CPU/
		if (stall || (line ~ bad && !(n && line ~ /Call Trace:/)))
			flush()
		else if (!n)
			next
		b[++n] = line
		if (line ~ /BUG: soft lockup/ || stall)
			watchdog = 1
		if (line ~ /^RIP: 0010:(delay_tsc|delay_halt[a-z_]*|delay_loop|__const_udelay|__udelay|__ndelay)\+/)
			delay = 1
		if (line ~ /\[pmiprof\]|pmiprof_[a-z_0-9]*\+0x/)
			module = 1
		if (line ~ /<\/TASK>|---\[ end trace/ || n >= 80)
			flush()
	}
	END { flush() }' "$1"
}

vm_dmesg_clean() {
	local f=$1 name=${2:-"dmesg has no WARN, BUG, oops or unknown NMI"} r
	if [ ! -s "$f" ]; then
		not_ok "$name" "no dmesg captured from the guest"
		return
	fi
	r=$(vm_dmesg_reports "$f")
	if printf '%s\n' "$r" | grep -q '^bad: '; then
		not_ok "$name" "$(printf '%s\n' "$r" | awk '/^bad: /{p=1} /^starvation: /{p=0} p' | head -n 40)"
	else
		printf '%s\n' "$r" | sed -n 's/^starvation: /# TCG starvation (the emulator, not a bug): /p'
		ok "$name"
	fi
}
