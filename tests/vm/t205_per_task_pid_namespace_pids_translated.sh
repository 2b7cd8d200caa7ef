#!/usr/bin/env bash
# A restricted opener inside a pid namespace (issue 36 item 5): uid 1000,
# the init of a new pid namespace (pid 1 there; CLONE_NEWPID by root, then
# the drop: tests/vm/task_secure.c pidns), follows its child by the pid it
# sees (2).  As perf (perf_event_open() resolves the pid in the caller's
# namespace and writes each sample's pid/tid in event->ns), CONFIGURE
# resolves the pid in the opener's namespace and every record's pid and
# tid are the child's numbers there.  Before, the module looked 2 up in
# the initial namespace (kthreadd: EPERM) and wrote initial-namespace
# pids.  A control in the initial namespace (task_secure exec) keeps its
# usual pids.
. "$(dirname "$0")/lib.sh"
vm_require module
vm_static task_secure "$PMIPROF_TOP/tests/vm/task_secure.c" -pthread ||
	skip_all "cannot build a static program (libc.a missing?)"

vm_run --timeout 600 --insmod pmu=emul --add "$TMPD/task_secure" -- sh -c '
	chmod 666 /dev/pmiprof
	cp /root/bin/task_secure /tmp/victim_plain && chmod 755 /tmp/victim_plain
	task_secure pidns 1000
	task_secure exec 1000 /tmp/victim_plain
	dmesg > /export/dmesg.txt
	rmmod pmiprof; echo "rmmod=$?"'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
sed 's/^/# /' "$VM_STDOUT"
grep 'task_secure: pidns' "$VM_STDERR" | sed 's/^/# /'
val() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
ids=$(grep '^pidns opener_pid=' "$VM_STDOUT")
outer=$(sed -n 's/^pidns init_in_parent_ns=//p' "$VM_STDOUT")
[ "$(val "$ids" opener_pid)" = 1 ] && [ "$(val "$ids" child_pid)" = 2 ] && [ "${outer:-1}" -gt 2 ] &&
	ok "the opener is pid 1 of its namespace (pid $outer outside), its child pid 2" ||
	not_ok "the opener is pid 1 of its namespace, its child pid 2" "$ids outer=$outer"
cs=$(sed -n 's/^pidns configure_start=//p' "$VM_STDOUT")
[ "$cs" = ok ] && ok "CONFIGURE takes the child's pid as the opener sees it (2), START ok" ||
	not_ok "CONFIGURE takes the child's pid as the opener sees it (2), START ok" "configure_start=${cs:-no result}"
t=$(grep '^pidns records=' "$VM_STDOUT")
[ -n "$t" ] && [ "$(val "$t" user)" -gt 50 ] 2>/dev/null && [ "$(val "$t" other_pid)" = 0 ] &&
	[ "$(sed -n 's/^pidns other_tid=//p' "$VM_STDOUT")" = 0 ] &&
	ok "every record's pid and tid are the child's in the opener's namespace ($t)" ||
	not_ok "every record's pid and tid are the child's in the opener's namespace" \
		"${t:-no result} other_tid=$(sed -n 's/^pidns other_tid=//p' "$VM_STDOUT")"
c=$(grep '^exec ' "$VM_STDOUT")
[ -n "$c" ] && [ "$(val "$c" user)" -gt 50 ] 2>/dev/null && [ "$(val "$c" other_pid)" = 0 ] &&
	ok "control: an opener in the initial namespace gets its child's pids ($c)" ||
	not_ok "control: an opener in the initial namespace gets its child's pids" "${c:-no result}"
[ "$(sed -n 's/^rmmod=//p' "$VM_STDOUT")" = 0 ] && ok "rmmod (the namespace reference is dropped at close)" ||
	not_ok "rmmod"
vm_dmesg_clean "$VM_OUT/dmesg.txt"
done_testing
