#!/usr/bin/env bash
# "-e topdown" where the kernel exposes no core PMU: record refuses with one
# message that says first that there is no hardware PMU, whatever the CPU
# model, then what is missing (the model's level-1 events, or why the model
# has none), exit 1, and writes no trace; in a list too.  stat -e topdown
# refuses the same way.  A Zen 3 with a PMU is refused naming why.  A faked
# PMU on an Ice Lake (PERF_METRICS) gets past the topdown checks: -e topdown
# alone samples on cycles (slots cannot), which a machine without a PMU does
# not have; with a software trigger the group itself is opened and the
# kernel refuses slots.
#
# Nothing here depends on the host's CPU: every check pretends a model
# (LIBPFM_FORCE_PMU, named in the check) and a sysfs event-source folder
# with or without a core PMU (PMIPROF_SYSFS_EVENT_SOURCE).  Only the Ice Lake
# checks need the host itself to have no PMU (perf_event_open must refuse).
. "$(dirname "$0")/../lib.sh"
trap 'rm -rf "$TMPD"' EXIT
mkdir -p "$TMPD/nopmu" "$TMPD/pmu/cpu"
# pretend MODEL (libpfm4 PMU) on a machine without a core PMU
nopmu() { local m=$1; shift; LIBPFM_FORCE_PMU=$m PMIPROF_SYSFS_EVENT_SOURCE="$TMPD/nopmu" "$PMIPROF" "$@"; }
withpmu() { local m=$1; shift; LIBPFM_FORCE_PMU=$m PMIPROF_SYSFS_EVENT_SOURCE="$TMPD/pmu" "$PMIPROF" "$@"; }
NOPMU='^pmiprof: error: topdown: no hardware PMU'

# Every kind of model: with a formula (Skylake, Ice Lake, Zen 4), refused
# (Zen 3), without a formula (Haswell), unknown to libpfm4 ('perf' is no core PMU).
for m in skl icl amd64_fam19h_zen4 amd64_fam19h_zen3 hsw perf; do
	for spec in topdown topdown,cache-misses; do
		[ $m != skl ] && [ $spec != topdown ] && continue
		rm -f "$TMPD/td.data"
		nopmu $m record -q -o "$TMPD/td.data" -e "$spec" -- true 2>"$TMPD/err"; rc=$?
		[ $rc -eq 1 ] && ok "pretending $m, no PMU: record -e $spec exits 1" ||
			not_ok "pretending $m, no PMU: record -e $spec exits 1" "rc=$rc $(cat "$TMPD/err")"
		[ "$(wc -l <"$TMPD/err")" -eq 1 ] && grep -q "$NOPMU" "$TMPD/err" &&
			ok "pretending $m: one message, no hardware PMU first" ||
			not_ok "pretending $m: one message, no hardware PMU first" "$(cat "$TMPD/err")"
		[ ! -e "$TMPD/td.data" ] && ok "pretending $m: no trace written" ||
			not_ok "pretending $m: no trace written"
	done
done
# After "no hardware PMU": the events the model needs, or why it has none.
nopmu amd64_fam19h_zen4 record -e topdown -- true 2>"$TMPD/z4"
grep -q "$NOPMU.*: ls_not_halted_cyc, de_no_dispatch_per_slot.no_ops_from_frontend, de_no_dispatch_per_slot.backend_stalls, de_no_dispatch_per_slot.smt_contention, ex_ret_ops, de_src_op_disp.all" "$TMPD/z4" &&
	ok "pretending Zen 4, no PMU: names its six events" || not_ok "pretending Zen 4, no PMU: names its six events" "$(cat "$TMPD/z4")"
nopmu skl record -q -e topdown -- true 2>"$TMPD/skl"
grep -q "$NOPMU.*cpu_clk_unhalted.thread, idq_uops_not_delivered.core, uops_issued.any, uops_retired.retire_slots, int_misc.recovery_cycles" "$TMPD/skl" &&
	ok "pretending Skylake, no PMU: names its five events" || not_ok "pretending Skylake, no PMU: names its five events" "$(cat "$TMPD/skl")"
nopmu amd64_fam19h_zen3 record -e topdown -- true 2>"$TMPD/z3"
grep -q "$NOPMU.*AMD Zen 3 .* has no per-slot dispatch events" "$TMPD/z3" &&
	ok "pretending Zen 3, no PMU: no PMU, then no per-slot dispatch events" ||
	not_ok "pretending Zen 3, no PMU: no PMU, then no per-slot dispatch events" "$(cat "$TMPD/z3")"
nopmu hsw record -e topdown -- true 2>"$TMPD/hsw"
grep -q "$NOPMU.*no level-1 formula for this CPU (libpfm4 PMU 'hsw')" "$TMPD/hsw" &&
	ok "pretending Haswell, no PMU: no PMU, then no level-1 formula" ||
	not_ok "pretending Haswell, no PMU: no PMU, then no level-1 formula" "$(cat "$TMPD/hsw")"
# With a PMU the model's own lack is the refusal (exit 1: the machine's, not a usage error).
withpmu amd64_fam19h_zen3 record -q -o "$TMPD/z3.data" -e topdown -- true 2>"$TMPD/z3p"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$TMPD/z3p")" -eq 1 ] &&
	grep -q "^pmiprof: error: topdown: AMD Zen 3 (libpfm4 PMU 'amd64_fam19h_zen3') has no per-slot dispatch events" "$TMPD/z3p" &&
	[ ! -e "$TMPD/z3.data" ] &&
	ok "pretending Zen 3 with a PMU: refused, no per-slot dispatch events, exit 1" ||
	not_ok "pretending Zen 3 with a PMU: refused, no per-slot dispatch events, exit 1" "rc=$rc $(cat "$TMPD/z3p")"
for m in skl amd64_fam19h_zen3; do
	for spec in topdown topdown,cpu-clock; do
		nopmu $m stat -e "$spec" -- true 2>"$TMPD/serr"; rc=$?
		[ $rc -eq 1 ] && [ "$(wc -l <"$TMPD/serr")" -eq 1 ] && grep -q "$NOPMU" "$TMPD/serr" &&
			ok "pretending $m, no PMU: stat -e $spec: the same one message, exit 1" ||
			not_ok "pretending $m, no PMU: stat -e $spec refused as record" "rc=$rc $(cat "$TMPD/serr")"
	done
done
# Pretending Ice Lake with a PMU in sysfs: past the topdown checks, to perf_event_open,
# which must refuse: only a host without a PMU does.
if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
	for n in 1 2 3; do skip "pretending Ice Lake: perf_event_open's refusal" "this host has a hardware PMU"; done
	done_testing
fi
icl() { withpmu icl record -q --backend perf -o "$TMPD/icl.data" "$@"; }
icl -e topdown -- true 2>"$TMPD/icl"; rc=$?
[ $rc -eq 1 ] && ! grep -q 'topdown' "$TMPD/icl" &&
	grep -q "^pmiprof: error: event 'cycles' is not supported on this machine; no hardware PMU" "$TMPD/icl" &&
	ok "pretending Ice Lake -e topdown: past the topdown checks, cycles (the trigger) not supported here" ||
	not_ok "pretending Ice Lake -e topdown" "rc=$rc $(cat "$TMPD/icl")"
[ ! -e "$TMPD/icl.data" ] && ok "pretending Ice Lake: no trace written" || not_ok "pretending Ice Lake: no trace written"
icl -e topdown,cpu-clock -- true 2>"$TMPD/icl2"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$TMPD/icl2")" -eq 1 ] &&
	grep -q "^pmiprof: error: event 'slots' is not supported on this machine; no hardware PMU" "$TMPD/icl2" &&
	ok "pretending Ice Lake -e topdown,cpu-clock: the group's leader slots refused by perf_event_open" ||
	not_ok "pretending Ice Lake -e topdown,cpu-clock" "rc=$rc $(cat "$TMPD/icl2")"
done_testing
