#!/usr/bin/env bash
# The PMI path end to end on the emulated PMU (pmu=emul): pmiprof record
# --backend module runs a workload whose profile is known (hot_function does
# 9 of every 10 units of work), pmiprof report in the guest puts
# hot_function on top, and the trace says EMULATED everywhere (header flag,
# PMU string, every sample).  `record -- CMD` follows the workload's tasks
# (per-task windows, header flag inherit, not system-wide); the report's
# --pid filter selects the workload.  Then rmmod succeeds and the kernel log
# is clean.
. "$(dirname "$0")/lib.sh"
vm_require module
vm_static hot_function "$PMIPROF_TOP/tests/vm/hot_function.c" || skip_all "cannot build a static program (libc.a missing?)"

vm_run --timeout 400 --insmod 'pmu=emul' --add "$TMPD/hot_function" -- sh -c '
	pmiprof record --backend module -o /export/emul.data -- hot_function 2 2>/export/record.err
	echo "record=$?"
	pmiprof report -i /export/emul.data --comm hot_function >/export/report.txt 2>/export/report.err
	echo "report=$?"
	pmiprof dump -i /export/emul.data >/export/dump.txt 2>&1
	pid=$(sed -n "s/.* comm .*pid=\([0-9]*\) .*comm=\"hot_function\".*/\1/p" /export/dump.txt | head -n 1)
	pmiprof report -i /export/emul.data --pid "$pid" >/export/report_pid.txt 2>&1
	echo "pid=$pid"
	rmmod pmiprof; echo "rmmod=$?"
	dmesg > /export/dmesg.txt'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"

[ "$(sed -n 's/^record=//p' "$VM_STDOUT")" = 0 ] && ok "record --backend module exits 0" ||
	not_ok "record --backend module exits 0" "$(cat "$VM_OUT/record.err" 2>/dev/null)"
grep -q "module backend" "$VM_OUT/record.err" && grep -q "EMULATED" "$VM_OUT/record.err" &&
	ok "record says it uses the module backend on an EMULATED PMU" ||
	not_ok "record says it uses the module backend on an EMULATED PMU" "$(cat "$VM_OUT/record.err" 2>/dev/null)"

# First row after the column header of the flat profile.
top_symbol() { awk '/^ *samples /{getline; print; exit}' "$1"; }
top=$(top_symbol "$VM_OUT/report.txt")
case "$top" in *hot_function*) ok "hot_function is on top of the report" ;;
*) not_ok "hot_function is on top of the report" "$(head -n 20 "$VM_OUT/report.txt" 2>/dev/null)" "$(cat "$VM_OUT/report.err" 2>/dev/null)" ;; esac
share=$(printf '%s\n' "$top" | awk '{print int($2)}')
[ -n "$share" ] && [ "$share" -ge 50 ] && ok "hot_function has most samples of the workload ($share %)" ||
	not_ok "hot_function has most samples of the workload" "$top"
grep -q "cold_function" "$VM_OUT/report.txt" && ok "cold_function is found too" || not_ok "cold_function is found too"
case "$(top_symbol "$VM_OUT/report_pid.txt")" in *hot_function*) ok "report --pid WORKLOAD selects it" ;;
*) not_ok "report --pid WORKLOAD selects it" "$(head -n 14 "$VM_OUT/report_pid.txt" 2>/dev/null)" ;; esac
grep -q "EMULATED" "$VM_OUT/report.txt" && ok "report says EMULATED" || not_ok "report says EMULATED"

d=$VM_OUT/dump.txt
grep -E '^flags:' "$d" | grep -q emulated && grep -E '^flags:' "$d" | grep -q inherit &&
	! grep -E '^flags:' "$d" | grep -q system-wide &&
	ok "header flags: emulated, per-task (inherit, not system-wide)" ||
	not_ok "header flags: emulated, per-task" "$(grep -E '^flags:' "$d")"
grep -E '^sampling:' "$d" | grep -q 'pmi.*module' && ok "header: pmi mode, module backend" ||
	not_ok "header: pmi mode, module backend" "$(grep -E '^sampling:' "$d")"
grep -E '^pmu:' "$d" | grep -q EMULATED && ok "header PMU string says EMULATED" || not_ok "header PMU string says EMULATED"
n=$(grep -c ' sample ' "$d")
noemul=$(grep ' sample ' "$d" | grep -vc 'emulated')
nopid=$(grep ' sample ' "$d" | grep -Evc ' pid=[0-9]+ tid=[0-9]+ ')
[ "$n" -gt 100 ] && ok "many samples recorded ($n)" || not_ok "many samples recorded ($n)"
[ "$noemul" = 0 ] && ok "every sample is flagged emulated" || not_ok "every sample is flagged emulated" "$noemul without"
[ "$nopid" = 0 ] && ok "every sample carries pid/tid" || not_ok "every sample carries pid/tid" "$nopid without" "$(grep ' sample ' "$d" | grep -Ev ' pid=[0-9]+ tid=[0-9]+ ' | head -n 3)"
grep -q 'mmap .*path="/root/bin/hot_function"' "$d" && grep -q 'comm .*exec.*hot_function' "$d" &&
	ok "side-band: exec comm and the workload's mmap" || not_ok "side-band: exec comm and the workload's mmap"
grep -q ' exit ' "$d" && ok "side-band: exit record" || not_ok "side-band: exit record"
grep -q 'finished yes' "$d" && ok "trace is complete (FINISH record)" || not_ok "trace is complete (FINISH record)"

[ "$(sed -n 's/^rmmod=//p' "$VM_STDOUT")" = 0 ] && ok "rmmod succeeds after recording" || not_ok "rmmod succeeds after recording" "$(cat "$VM_STDERR")"
vm_dmesg_clean "$VM_OUT/dmesg.txt"

done_testing
