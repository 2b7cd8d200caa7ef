#!/usr/bin/env bash
# Timer mode, the honest mode for a VM without a PMU: with pmu=none, plain
# `pmiprof record` (backend auto) picks the module because /dev/pmiprof is
# there, samples on the per-CPU hrtimer, labels the windows time-based, and
# the report still puts hot_function on top.  With pmu=emul, -e cpu-clock
# as trigger gives timer windows that also carry the counters the module
# reads.  rmmod works after both; the kernel log stays clean.
. "$(dirname "$0")/lib.sh"
vm_require module
vm_static hot_function "$PMIPROF_TOP/tests/vm/hot_function.c" || skip_all "cannot build a static program (libc.a missing?)"

vm_run --timeout 400 --insmod 'pmu=none' --add "$TMPD/hot_function" -- sh -c '
	pmiprof record -o /export/timer.data -- hot_function 2 2>/export/record.err
	echo "record=$?"
	pmiprof report -i /export/timer.data --comm hot_function >/export/report.txt 2>&1
	pmiprof dump -i /export/timer.data >/export/dump.txt 2>&1
	rmmod pmiprof; echo "rmmod=$?"
	insmod /lib/modules/pmiprof.ko pmu=emul; echo "insmod_emul=$?"
	pmiprof record --backend module -e cpu-clock,instructions -c 1000000 -o /export/tc.data \
		-- hot_function 1 2>/export/record2.err
	echo "record2=$?"
	pmiprof dump -i /export/tc.data >/export/dump2.txt 2>&1
	rmmod pmiprof; echo "rmmod2=$?"
	dmesg > /export/dmesg.txt'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"

[ "$(sed -n 's/^record=//p' "$VM_STDOUT")" = 0 ] && ok "record exits 0 in timer mode" ||
	not_ok "record exits 0 in timer mode" "$(cat "$VM_OUT/record.err" 2>/dev/null)"
grep -q "recording with the module backend" "$VM_OUT/record.err" &&
	ok "backend auto picks the module when /dev/pmiprof exists" ||
	not_ok "backend auto picks the module when /dev/pmiprof exists" "$(cat "$VM_OUT/record.err" 2>/dev/null)"
grep -qi "time-based" "$VM_OUT/record.err" && ok "record says the windows are time-based" ||
	not_ok "record says the windows are time-based" "$(cat "$VM_OUT/record.err" 2>/dev/null)"
top=$(awk '/^ *samples /{getline; print; exit}' "$VM_OUT/report.txt")
case "$top" in *hot_function*) ok "hot_function is on top of the timer-mode report" ;;
*) not_ok "hot_function is on top of the timer-mode report" "$(head -n 20 "$VM_OUT/report.txt" 2>/dev/null)" ;; esac
grep -qi "time-based" "$VM_OUT/report.txt" && ok "report labels the windows time-based" || not_ok "report labels the windows time-based"
d=$VM_OUT/dump.txt
grep -E '^flags:' "$d" | grep -q time-based && ok "header flag time-based" || not_ok "header flag time-based" "$(grep -E '^flags:' "$d")"
grep -E '^sampling:' "$d" | grep -q 'timer.*module' && ok "header: timer mode, module backend" ||
	not_ok "header: timer mode, module backend" "$(grep -E '^sampling:' "$d")"
n=$(grep -c ' sample ' "$d")
nt=$(grep ' sample ' "$d" | grep -vc 'time-based')
[ "$n" -gt 100 ] && [ "$nt" = 0 ] && ok "$n samples, all flagged time-based" || not_ok "samples flagged time-based" "$n samples, $nt not time-based"
# Window length (event 0, cpu-clock ns) of steady windows is about the 1 ms default tick.
med=$(grep ' sample ' "$d" | grep -v first | sed -n 's/.*cpu-clock=\([0-9]*\).*/\1/p' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
[ -n "$med" ] && [ "$med" -ge 500000 ] && [ "$med" -le 2000000 ] && ok "median window is about 1 ms ($med ns)" ||
	not_ok "median window is about 1 ms" "median ${med:-none} ns"
[ "$(sed -n 's/^rmmod=//p' "$VM_STDOUT")" = 0 ] && ok "rmmod succeeds after timer recording" || not_ok "rmmod succeeds after timer recording"

# Timer trigger with counters read on the emulated PMU.
if [ "$(sed -n 's/^record2=//p' "$VM_STDOUT")" = 0 ]; then
	ok "emul: record -e cpu-clock,instructions (timer trigger) exits 0"
	d2=$VM_OUT/dump2.txt
	grep -E '^sampling:' "$d2" | grep -q timer && ok "emul: cpu-clock trigger selects timer mode" || not_ok "emul: cpu-clock trigger selects timer mode"
	withinst=$(grep ' sample ' "$d2" | grep -c 'instructions=[1-9]')
	[ "$withinst" -gt 10 ] && ok "emul: timer windows carry instruction counts ($withinst)" ||
		not_ok "emul: timer windows carry instruction counts" "$(grep ' sample ' "$d2" | head -n 3)"
elif grep -q "cannot read counters in timer mode" "$VM_OUT/record2.err"; then
	skip "emul: timer trigger with counters" "module cannot read counters in timer mode"
else
	not_ok "emul: record -e cpu-clock,instructions (timer trigger) exits 0" "$(cat "$VM_OUT/record2.err" 2>/dev/null)"
fi
[ "$(sed -n 's/^rmmod2=//p' "$VM_STDOUT")" = 0 ] && ok "rmmod succeeds after emulated timer recording" || not_ok "rmmod succeeds after emulated timer recording"
vm_dmesg_clean "$VM_OUT/dmesg.txt"

done_testing
