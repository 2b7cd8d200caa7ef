#!/usr/bin/env bash
# The module holds perf's counter reservations only while a session runs
# (issue 9, item 5): not when merely loaded or configured, from START to
# STOP, again after a second START, and not after a close without STOP.
# GET_INFO's INFO_F_RESERVED says whether they are held; pmu=emul goes
# through the same glue (session.c, coexist.c) as a real PMU, its model
# standing in for reserve_evntsel_nmi()/reserve_perfctr_nmi().
. "$(dirname "$0")/lib.sh"
vm_require module
vm_static kclient_abi "$PMIPROF_TOP/tests/vm/kclient_abi.c" -O2 || skip_all "cannot build kclient_abi statically"

vm_run --timeout 300 --insmod pmu=emul --add "$TMPD/kclient_abi" -- sh -c '
	kclient_abi reservation; echo "rc=$?"
	rmmod pmiprof; echo "rmmod=$?"
	dmesg > /export/dmesg.txt'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
st() { sed -n "s/^$1=//p" "$VM_STDOUT"; }
[ "$(st rc)" = 0 ] && ok "kclient_abi reservation ran" || not_ok "kclient_abi reservation ran" "$(cat "$VM_STDOUT" "$VM_STDERR")"
for s in loaded:0 configured:0 running:1 stopped:0 restarted:1 closed:0; do
	name=${s%:*} want=${s#*:}
	[ "$(st "$name")" = "$want" ] && ok "reservation $name: $want" ||
		not_ok "reservation $name: $want" "got '$(st "$name")'" "$(cat "$VM_STDOUT")"
done
[ "$(st rmmod)" = 0 ] && ok "rmmod after the session" || not_ok "rmmod after the session" "$(st rmmod)"
vm_dmesg_clean "$VM_OUT/dmesg.txt"
done_testing
