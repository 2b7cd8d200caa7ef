#!/usr/bin/env bash
# Per-task START/STOP cycles (one CONFIGURE, 40 cycles of 20 ms, pmu=emul)
# on a process whose threads are born and gone all the time, while an
# unrelated process execs true in a loop (tests/vm/task_secure.c cycles):
# a followed thread that exits while its CPU is not started (between
# START's walk and its IPI, during STOP) must not leave an entry behind
# that a recycled task_struct inherits.  No record of any other pid; every
# STOP finds 0 entries of exited tasks; states allocated = freed.
#
# The 6.1 guest under TCG can hard-hang when sched tracepoints are toggled
# while threads churn, with ftrace alone and no pmiprof loaded (issue 22).
# A guest that times out is therefore run once more (said below); if it
# hangs again, the same churn with ftrace's sched events toggled instead
# of pmiprof tells the guest's own hang (skip, printed) from ours (fail).
. "$(dirname "$0")/lib.sh"
vm_require module
vm_static task_secure "$PMIPROF_TOP/tests/vm/task_secure.c" -pthread ||
	skip_all "cannot build a static program (libc.a missing?)"

CYCLES_CMD='
	task_secure cycles 40
	dmesg > /export/dmesg.txt
	rmmod pmiprof; echo "rmmod=$?"
	dmesg > /export/dmesg.txt'
run_cycles() { vm_run --timeout 600 --insmod pmu=emul --add "$TMPD/task_secure" -- sh -c "$CYCLES_CMD"; }

run_cycles
if [ $VM_RC -eq 124 ]; then
	echo "# guest timed out (watchdog 600 s): running it once more (6.1 TCG sched-tracepoint hang?)"
	run_cycles
	if [ $VM_RC -eq 124 ]; then
		echo "# timed out again: the same churn with ftrace's sched events toggled, no pmiprof"
		vm_run --timeout 600 --add "$TMPD/task_secure" -- sh -c '
			T=/sys/kernel/debug/tracing/events/sched
			task_secure churn 60 &
			i=0; while [ $i -lt 40 ]; do
				echo 1 > $T/sched_switch/enable; echo 1 > $T/sched_process_exit/enable
				echo 0 > $T/sched_switch/enable; echo 0 > $T/sched_process_exit/enable
				i=$((i + 1)); done; echo ftrace-done'
		if [ $VM_RC -eq 124 ]; then
			skip_all "the guest kernel hangs with ftrace alone too (6.1 under TCG): not pmiprof's"
		fi
		not_ok "guest run completed" "hung twice with pmiprof, not with ftrace alone"
		done_testing
		exit
	fi
fi
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
sed 's/^/# /' "$VM_STDOUT"
line=$(grep '^cycles starts=' "$VM_STDOUT")
val() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
[ "$(val "$line" starts)" = 40 ] && [ "$(val "$line" records)" -gt 0 ] 2>/dev/null &&
	ok "40 START/STOP cycles recorded the churning process" || not_ok "40 START/STOP cycles recorded" "${line:-no result}"
[ -n "$line" ] && [ "$(val "$line" other_pid)" = 0 ] && [ "$(val "$line" bad)" = 0 ] &&
	ok "no record of any other process (stale entries inherited by recycled tasks)" ||
	not_ok "no record of any other process" "$line"
nstop=$(grep -c 'per-task: .* exits unseen' "$VM_OUT/dmesg.txt")
nclean=$(grep -c 'per-task: .* 0 exits unseen' "$VM_OUT/dmesg.txt")
[ "$nstop" -ge 40 ] && [ "$nstop" = "$nclean" ] &&
	ok "every STOP found 0 entries of exited tasks ($nstop sessions)" ||
	not_ok "every STOP found 0 entries of exited tasks" "$nclean of $nstop: $(grep 'exits unseen' "$VM_OUT/dmesg.txt" | grep -v ' 0 exits' | head -n 3)"
bad=$(sed -n 's/.*per-task: .*states allocated \([0-9]*\) freed \([0-9]*\)$/\1 \2/p' "$VM_OUT/dmesg.txt" | awk '$1 != $2' | head -n 3)
[ -z "$bad" ] && ok "states allocated = freed at every STOP" || not_ok "states allocated = freed at every STOP" "$bad"
[ "$(sed -n 's/^rmmod=//p' "$VM_STDOUT")" = 0 ] && ok "rmmod" || not_ok "rmmod"
vm_dmesg_clean "$VM_OUT/dmesg.txt"
done_testing
