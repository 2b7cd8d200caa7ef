#!/usr/bin/env bash
# Children forked while START walks the targets' threads are followed
# (issue 22 item 11): the target's 3 threads each fork a child before
# START, then one every 250 ms (12 each; every child spins until the end)
# from when the module says its fork probe is in place
# (start_walk_begin_ns); START's walk is held 1.5 s after that (module
# parameter start_walk_delay_ms, test only), so the forks of that time come
# from threads not yet walked.  Every child forked during START must have
# records, as every child forked after START does (the control).  Before
# the fix the fork probe followed only children of tasks already in the
# hash: the children forked during the walk had none (0 of 17 followed).
# Children are sorted by the module's own record of the walk
# (start_walk_begin_ns: the fork probe in place; start_walk_end_ns: the walk
# over) against CLOCK_MONOTONIC taken before and after each fork(), not by
# guesses of how long START takes: under load TCG took more than 0.2 s to
# register the probes, and forks of that time were wrongly counted as
# "during" (21 of 24, 26 of 32 followed in issue 38); at load 12 it took 9 s.
. "$(dirname "$0")/lib.sh"
vm_require module
vm_static task_secure "$PMIPROF_TOP/tests/vm/task_secure.c" -pthread ||
	skip_all "cannot build a static program (libc.a missing?)"

vm_run --timeout 600 --insmod pmu=emul --add "$TMPD/task_secure" -- sh -c '
	echo 1500 > /sys/module/pmiprof/parameters/start_walk_delay_ms
	task_secure forkwalk 3 3
	dmesg > /export/dmesg.txt
	rmmod pmiprof; echo "rmmod=$?"'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
sed 's/^/# /' "$VM_STDOUT"
grep 'task_secure:' "$VM_STDERR" | head -n 8 | sed 's/^/# /'
val() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
fw=$(grep '^forkwalk start_s=' "$VM_STDOUT")
during=$(val "$fw" during)
[ "${during:-0}" -ge 4 ] 2>/dev/null &&
	ok "children forked while START walked the threads: $during" ||
	not_ok "children forked while START walked the threads (4 or more)" "${fw:-no result}"
[ -n "$during" ] && [ "$(val "$fw" during_followed)" = "$during" ] &&
	ok "every child forked during START is followed ($(val "$fw" during_followed) of $during)" ||
	not_ok "every child forked during START is followed" "${fw:-no result}"
before=$(val "$fw" before)
if [ "${before:-0}" -gt 0 ] 2>/dev/null; then
	[ "$(val "$fw" before_followed)" = 0 ] &&
		ok "children forked before START's fork probe are not followed (0 of $before)" ||
		not_ok "children forked before START's fork probe are not followed" "$fw"
else
	skip "children forked before START's fork probe are not followed" "none forked before it (${fw:-no result})"
fi
after=$(val "$fw" after)
[ "${after:-0}" -gt 0 ] 2>/dev/null && [ "$(val "$fw" after_followed)" = "$after" ] &&
	ok "control: every child forked after START is followed ($(val "$fw" after_followed) of $after)" ||
	not_ok "control: every child forked after START is followed" "${fw:-no result}"
[ "$(val "$fw" bad)" = 0 ] && [ "$(val "$fw" lost)" = 0 ] &&
	ok "no malformed or lost record (a lost PARTIAL would hide a child)" ||
	not_ok "no malformed or lost record" "$fw"
[ "$(sed -n 's/^rmmod=//p' "$VM_STDOUT")" = 0 ] && ok "rmmod" || not_ok "rmmod"
vm_dmesg_clean "$VM_OUT/dmesg.txt"
done_testing
