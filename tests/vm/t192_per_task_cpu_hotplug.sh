#!/usr/bin/env bash
# Per-task recording (pmu=emul, --smp 2, no icount: it needs one vCPU)
# while CPU 1 goes offline and online every half second: the followed
# tasks migrate with their windows, nothing warns, every state is freed.
. "$(dirname "$0")/lib.sh"
vm_require module
vm_static task_churn "$PMIPROF_TOP/tests/vm/task_churn.c" -pthread ||
	skip_all "cannot build a static program (libc.a missing?)"

vm_run --smp 2 --timeout 900 --insmod 'pmu=emul' --add "$TMPD/task_churn" -- sh -c '
	( i=0; while [ $i -lt 16 ]; do echo 0 > /sys/devices/system/cpu/cpu1/online; sleep 0.3
	  echo 1 > /sys/devices/system/cpu/cpu1/online; sleep 0.3; i=$((i + 1)); done ) &
	hp=$!
	pmiprof record --backend module -c 100000 -o /export/h.data -- task_churn 400 200 400000 \
		>/dev/null 2>/export/record.err
	echo "record=$?"
	wait $hp
	echo 1 > /sys/devices/system/cpu/cpu1/online
	pmiprof dump -i /export/h.data >/export/dump.txt 2>&1
	rmmod pmiprof; echo "rmmod=$?"
	dmesg > /export/dmesg.txt'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
[ "$(sed -n 's/^record=//p' "$VM_STDOUT")" = 0 ] && ok "per-task record during CPU hotplug exits 0" ||
	not_ok "per-task record during CPU hotplug exits 0" "$(cat "$VM_OUT/record.err" 2>/dev/null)"
cpus=$(awk '/ sample / { for (i = 1; i <= NF; i++) if ($i ~ /^cpu=/) print $i }' "$VM_OUT/dump.txt" | sort -u | tr '\n' ' ')
echo "# windows on: $cpus"
case "$cpus" in *cpu=0*cpu=1*) ok "windows on both CPUs" ;; *) not_ok "windows on both CPUs" "$cpus" ;; esac
grep -q '^# lost records: 0$' "$VM_OUT/dump.txt" && ok "no window lost" || not_ok "no window lost"
line=$(grep -o 'per-task: [0-9]* tasks followed.*' "$VM_OUT/dmesg.txt" | head -n 1)
echo "# $line"
a=$(printf '%s' "$line" | sed -n 's/.*allocated \([0-9]*\) freed \([0-9]*\).*/\1 \2/p')
set -- $a
[ -n "${1:-}" ] && [ "$1" = "$2" ] && [ "$1" -ge 801 ] && ok "every state allocated was freed ($1)" ||
	not_ok "every state allocated was freed" "$line"
grep -c 'CPU 1 came online but will not be sampled' "$VM_OUT/dmesg.txt" | grep -qx 0 &&
	ok "CPU 1 sampled again after each online" || not_ok "CPU 1 sampled again after each online"
[ "$(sed -n 's/^rmmod=//p' "$VM_STDOUT")" = 0 ] && ok "rmmod succeeds" || not_ok "rmmod succeeds"
vm_dmesg_clean "$VM_OUT/dmesg.txt"
done_testing
