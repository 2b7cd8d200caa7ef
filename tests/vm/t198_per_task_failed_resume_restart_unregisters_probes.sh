#!/usr/bin/env bash
# A per-task recording (pmu=emul) across a suspend (pm_test=freezer: the
# PM notifiers run, nothing is powered down) whose restart after resume
# fails (forced: module parameter fail_next_resume, test only): the
# recording ends there, the sched tracepoint probes are unregistered at
# once, the recorder exits, rmmod succeeds and the guest keeps scheduling
# afterwards (before the fix the probes stayed registered and the first
# context switch after rmmod jumped into freed module text: a panic).
. "$(dirname "$0")/lib.sh"
vm_require module
vm_static task_churn "$PMIPROF_TOP/tests/vm/task_churn.c" -pthread ||
	skip_all "cannot build a static program (libc.a missing?)"

vm_run --timeout 600 --insmod pmu=emul --add "$TMPD/task_churn" -- sh -c '
	[ -w /sys/power/pm_test ] || { echo "no-pm-test"; exit 0; }
	pmiprof record --backend module -o /tmp/r.data -- task_churn spin 30 2>/export/record.err &
	rec=$!
	vm-wait-for 240 /export/record.err "recording with" || echo "record-not-started"
	sleep 1
	echo 1 > /sys/module/pmiprof/parameters/fail_next_resume
	echo freezer > /sys/power/pm_test
	echo freeze > /sys/power/state; echo "suspend=$?"
	sleep 1
	pkill task_churn; wait $rec; echo "record=$?"
	dmesg > /export/dmesg.txt
	rmmod pmiprof; echo "rmmod=$?"
	task_churn 100 20 20000 >/dev/null; echo "after=$?"
	dmesg > /export/dmesg.txt'
if grep -q '^no-pm-test' "$VM_STDOUT"; then
	skip_all "the guest kernel has no /sys/power/pm_test (CONFIG_PM_DEBUG)"
fi
[ $VM_RC -eq 0 ] && ok "guest run completed (no panic after rmmod)" ||
	not_ok "guest run completed (no panic after rmmod)" "status $VM_RC" "$(tail -n 30 "$VM_STDERR")"
sed 's/^/# /' "$VM_STDOUT"
grep -q 'sampling could not restart after resume' "$VM_OUT/dmesg.txt" &&
	ok "the forced restart failure happened" ||
	not_ok "the forced restart failure happened" "$(grep pmiprof "$VM_OUT/dmesg.txt" | tail -n 5)"
grep -q 'per-task: .*states allocated \([0-9]*\) freed \1$' "$VM_OUT/dmesg.txt" &&
	ok "the failed restart stopped per-task mode (probes off, states freed)" ||
	not_ok "the failed restart stopped per-task mode" "$(grep 'per-task' "$VM_OUT/dmesg.txt" | tail -n 3)"
[ "$(sed -n 's/^rmmod=//p' "$VM_STDOUT")" = 0 ] && ok "rmmod" || not_ok "rmmod"
[ "$(sed -n 's/^after=//p' "$VM_STDOUT")" = 0 ] && ok "threads and processes run after rmmod" ||
	not_ok "threads and processes run after rmmod"
vm_dmesg_clean "$VM_OUT/dmesg.txt"
done_testing
