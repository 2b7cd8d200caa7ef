#!/usr/bin/env bash
# The VM harness itself: a command runs in a TCG guest booted from Debian's
# kernel, its stdout, stderr and exit status come back separately, --add
# ships files (ELF ones with their libraries), --export brings files back,
# the guest has no PMU (as the module tests assume), and a guest that dies
# is reported as a harness failure (125), never as the command's status.
. "$(dirname "$0")/lib.sh"
vm_require

vm_run --add "$PMIPROF_TOP/tests/vm/hot_function.c:/root/src.c" -- sh -c '
	echo "out: $(uname -r)"; echo "err: to stderr" >&2
	cmp /root/src.c /root/src.c && echo "added file present"
	pmiprof --version
	ls /sys/bus/event_source/devices/
	grep -c "^processor" /proc/cpuinfo
	echo exported > /export/hello.txt
	exit 7'
[ $VM_RC -eq 7 ] && ok "exit status of the guest command is returned" || not_ok "exit status of the guest command is returned" "status $VM_RC"
kver=$(sed -n 's/^out: //p' "$VM_STDOUT")
case "$kver" in *-amd64) ok "guest runs Debian's kernel ($kver)" ;; *) not_ok "guest runs Debian's kernel" "$(cat "$VM_STDOUT")" ;; esac
grep -qx "err: to stderr" "$VM_STDERR" && ! grep -q "err:" "$VM_STDOUT" &&
	ok "stderr comes back separately" || not_ok "stderr comes back separately" "$(cat "$VM_STDERR")"
grep -q "added file present" "$VM_STDOUT" && ok "--add copies files into the guest" || not_ok "--add copies files into the guest"
grep -q "^pmiprof " "$VM_STDOUT" && ok "pmiprof and its shared libraries run in the guest" ||
	not_ok "pmiprof and its shared libraries run in the guest" "$(cat "$VM_STDOUT" "$VM_STDERR")"
grep -qx "cpu" "$VM_STDOUT" && not_ok "guest has no hardware PMU (TCG)" "a 'cpu' PMU is registered" ||
	ok "guest has no hardware PMU (TCG)"
grep -qx "2" "$VM_STDOUT" && ok "guest has 2 CPUs" || not_ok "guest has 2 CPUs" "$(cat "$VM_STDOUT")"
[ "$(cat "$VM_OUT/hello.txt" 2>/dev/null)" = exported ] && ok "--export brings /export back" || not_ok "--export brings /export back"
if grep -q PMIPROF-VM-EXIT "$VM_STDOUT"; then not_ok "no harness sentinel in the output"; else ok "no harness sentinel in the output"; fi

PMIPROF_BUILD=$PMIPROF_BUILD "$VM_RUN" -- 'echo c > /proc/sysrq-trigger' >"$VM_STDOUT" 2>"$VM_STDERR"
VM_RC=$?
[ $VM_RC -eq 125 ] && grep -q "sysrq triggered crash" "$VM_STDERR" &&
	ok "a guest panic is a harness failure (125) with the console tail" ||
	not_ok "a guest panic is a harness failure (125) with the console tail" "status $VM_RC"

PMIPROF_BUILD=$PMIPROF_BUILD "$VM_RUN" --bogus -- true >/dev/null 2>&1
[ $? -eq 126 ] && ok "unknown harness option is status 126" || not_ok "unknown harness option is status 126"

done_testing
