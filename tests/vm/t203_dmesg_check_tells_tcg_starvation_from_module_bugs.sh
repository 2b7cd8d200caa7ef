#!/usr/bin/env bash
# vm_dmesg_clean (tests/vm/lib.sh, what every VM test ends with) tells a
# watchdog the emulator caused from a bug: a soft lockup or RCU stall whose
# CPU was in the kernel's delay loop with no pmiprof frame (t198's soft lockup
# in delay_tsc during suspend debug's 5 s wait, on a loaded host) is a note,
# not a failure; a soft lockup in the module, a delay loop called by the
# module, an RCU stall elsewhere, or a WARN after a starvation report fail.
# Guest logs in tests/fixtures/dmesg/.  Host only.
. "$(dirname "$0")/lib.sh"
fx=$PMIPROF_TOP/tests/fixtures/dmesg
# the kinds of reports, in order, and whether vm_dmesg_clean passes (its
# TAP output, numbered on its own, is kept in $TMPD/clean.out)
expect() {
	local f=$1 kinds=$2 verdict=$3 got
	got=$(vm_dmesg_reports "$fx/$f" | sed -n 's/^\(bad\|starvation\): .*/\1/p' | paste -sd, -)
	[ "$got" = "$kinds" ] && ok "$f: reports ${kinds:-none}" ||
		not_ok "$f: reports ${kinds:-none}" "got '${got}'" "$(vm_dmesg_reports "$fx/$f" | head -n 20)"
	(_tap_n=0; _tap_failed=0; vm_dmesg_clean "$fx/$f") >"$TMPD/clean.out"
	case $verdict in
	pass) grep -q '^ok 1 ' "$TMPD/clean.out" ;;
	fail) grep -q '^not ok 1 ' "$TMPD/clean.out" ;;
	esac && ok "$f: vm_dmesg_clean says $verdict" ||
		not_ok "$f: vm_dmesg_clean says $verdict" "$(cat "$TMPD/clean.out")"
}
expect clean.txt "" pass
expect starvation-suspend-debug.txt starvation pass
grep '^# TCG' "$TMPD/clean.out"
grep -q '^# TCG starvation (the emulator, not a bug): watchdog: BUG: soft lockup - CPU#1 stuck for 26s!' "$TMPD/clean.out" &&
	ok "the starvation report is named in a note" || not_ok "the starvation report is named in a note" "$(cat "$TMPD/clean.out")"
expect rcu-stall-in-delay.txt starvation pass
expect softlockup-in-module.txt bad fail
expect softlockup-delay-called-by-module.txt bad fail
expect rcu-stall-elsewhere.txt bad fail
expect starvation-then-module-warning.txt starvation,bad fail
grep -q 'tracepoint_probe_unregister' "$TMPD/clean.out" && ! grep -q 'delay_tsc' "$TMPD/clean.out" &&
	ok "a WARN after a starvation report: the failure shows the WARN, not the starvation" ||
	not_ok "a WARN after a starvation report: the failure shows the WARN" "$(cat "$TMPD/clean.out")"
done_testing
