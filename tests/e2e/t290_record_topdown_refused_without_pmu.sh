#!/usr/bin/env bash
# "-e topdown" where the kernel exposes no core PMU (this VM): record
# refuses with one message naming what is missing and the CPU's level-1
# events, exit 1, and write no trace; in a list too.  A CPU without a
# level-1 formula (Zen 3, forced through libpfm4) is refused naming why.
# stat -e topdown refuses the same way.  A faked PMU on an Ice Lake
# (PERF_METRICS) gets past the topdown checks: -e topdown alone samples on
# cycles (slots cannot), which this machine does not have; with a software
# trigger the group itself is opened and the kernel refuses slots.
. "$(dirname "$0")/../lib.sh"
[ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ] &&
	skip_all "this machine has a hardware PMU: the refusal is for machines without one"
trap 'rm -rf "$TMPD"' EXIT
for spec in topdown topdown,cache-misses; do
	"$PMIPROF" record -q -o "$TMPD/td.data" -e "$spec" -- true 2>"$TMPD/err"; rc=$?
	[ $rc -eq 1 ] && ok "record -e $spec exits 1" || not_ok "record -e $spec exits 1" "rc=$rc"
	[ "$(wc -l <"$TMPD/err")" -eq 1 ] && grep -q '^pmiprof: error: topdown: no hardware PMU' "$TMPD/err" &&
		ok "one message: no hardware PMU" || not_ok "one message: no hardware PMU" "$(cat "$TMPD/err")"
	[ ! -e "$TMPD/td.data" ] && ok "no trace written" || not_ok "no trace written"
done
# The events named are the ones libpfm4's detected CPU needs (Zen 4 here: AMD EPYC).
if LIBPFM_FORCE_PMU=amd64_fam19h_zen4 "$PMIPROF" record -e topdown -- true 2>"$TMPD/z4"; then
	not_ok "forced Zen 4 refused"
else
	grep -q 'ls_not_halted_cyc, de_no_dispatch_per_slot.no_ops_from_frontend, de_no_dispatch_per_slot.backend_stalls, de_no_dispatch_per_slot.smt_contention, ex_ret_ops, de_src_op_disp.all' "$TMPD/z4" &&
		ok "Zen 4: names its six events" || not_ok "Zen 4: names its six events" "$(cat "$TMPD/z4")"
fi
LIBPFM_FORCE_PMU=skl "$PMIPROF" record -q -e topdown -- true 2>"$TMPD/skl"; rc=$?
[ $rc -eq 1 ] && grep -q 'no hardware PMU.*cpu_clk_unhalted.thread, idq_uops_not_delivered.core, uops_issued.any, uops_retired.retire_slots, int_misc.recovery_cycles' "$TMPD/skl" &&
	ok "Skylake: refused naming its five events" || not_ok "Skylake refused" "rc=$rc $(cat "$TMPD/skl")"
LIBPFM_FORCE_PMU=amd64_fam19h_zen3 "$PMIPROF" record -e topdown -- true 2>"$TMPD/z3"; rc=$?
[ $rc -ne 0 ] && grep -q 'AMD Zen 3 .* has no per-slot dispatch events' "$TMPD/z3" &&
	ok "Zen 3 refused: no per-slot dispatch events" || not_ok "Zen 3 refused" "rc=$rc $(cat "$TMPD/z3")"
for spec in topdown topdown,cpu-clock; do
	"$PMIPROF" stat -e "$spec" -- true 2>"$TMPD/serr"; rc=$?
	[ $rc -eq 1 ] && [ "$(wc -l <"$TMPD/serr")" -eq 1 ] &&
		grep -q '^pmiprof: error: topdown: no hardware PMU.*cannot be counted: ' "$TMPD/serr" &&
		ok "stat -e $spec: the same one message, exit 1" ||
		not_ok "stat -e $spec refused as record" "rc=$rc $(cat "$TMPD/serr")"
done
mkdir -p "$TMPD/sys/cpu"
icl() { LIBPFM_FORCE_PMU=icl PMIPROF_SYSFS_EVENT_SOURCE="$TMPD/sys" "$PMIPROF" record -q --backend perf \
	-o "$TMPD/icl.data" "$@"; }
icl -e topdown -- true 2>"$TMPD/icl"; rc=$?
[ $rc -eq 1 ] && ! grep -q 'topdown' "$TMPD/icl" &&
	grep -q "^pmiprof: error: event 'cycles' is not supported on this machine; no hardware PMU" "$TMPD/icl" &&
	ok "Ice Lake -e topdown: past the topdown checks, cycles (the trigger) not supported here" ||
	not_ok "Ice Lake -e topdown" "rc=$rc $(cat "$TMPD/icl")"
[ ! -e "$TMPD/icl.data" ] && ok "Ice Lake: no trace written" || not_ok "Ice Lake: no trace written"
icl -e topdown,cpu-clock -- true 2>"$TMPD/icl2"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$TMPD/icl2")" -eq 1 ] &&
	grep -q "^pmiprof: error: event 'slots' is not supported on this machine; no hardware PMU" "$TMPD/icl2" &&
	ok "Ice Lake -e topdown,cpu-clock: the group's leader slots refused by perf_event_open" ||
	not_ok "Ice Lake -e topdown,cpu-clock" "rc=$rc $(cat "$TMPD/icl2")"
done_testing
