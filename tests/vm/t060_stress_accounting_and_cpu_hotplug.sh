#!/usr/bin/env bash
# The module under load and CPU hotplug, through K2's client (kclient_abi
# stress -H): a busy process per CPU, a deliberately slow consumer, CPU 1
# taken offline and back while sampling.  Every PMI/tick must be a record or
# a counted drop, the ring and GET_STATS must agree, nothing may be written
# after STOP; on the emulated PMU (PMI mode) and without a PMU (timer mode).
# The kernel log must stay clean and the module must unload.
. "$(dirname "$0")/lib.sh"
vm_require module
kc=$PMIPROF_TOP/tests/vm/kclient_abi.c
[ -f "$kc" ] || skip_all "tests/vm/kclient_abi.c not present"
grep -q 'cmd_stress' "$kc" || skip_all "kclient_abi has no stress mode"
vm_static kclient_abi "$kc" -O2 || skip_all "cannot build kclient_abi statically"

vm_run --timeout 300 --add "$TMPD/kclient_abi" -- sh -c '
	insmod /lib/modules/pmiprof.ko pmu=emul && {
		kclient_abi stress -H -m pmi -e 0xc0:0x00 -e 0x3c:0x00 >/export/emul.tap 2>&1
		echo "stress-emul=$?"
		rmmod pmiprof; echo "rmmod-emul=$?"
	}
	insmod /lib/modules/pmiprof.ko pmu=none && {
		kclient_abi stress -H -m timer >/export/none.tap 2>&1
		echo "stress-none=$?"
		rmmod pmiprof; echo "rmmod-none=$?"
	}
	dmesg > /export/dmesg.txt'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"

for pmu in emul none; do
	f=$VM_OUT/$pmu.tap
	if [ ! -s "$f" ]; then
		not_ok "pmu=$pmu: stress ran" "$(cat "$VM_STDOUT")"
		continue
	fi
	if grep -q '^1\.\.0 # SKIP' "$f"; then
		skip "pmu=$pmu: stress" "$(sed -n 's/^1\.\.0 # SKIP //p' "$f")"
		continue
	fi
	while IFS= read -r line; do
		case "$line" in
		"ok "*) ok "pmu=$pmu: ${line#ok * - }" ;;
		"not ok "*) not_ok "pmu=$pmu: ${line#not ok * - }" "$(grep '^# ' "$f")" ;;
		esac
	done <"$f"
	[ "$(sed -n "s/^rmmod-$pmu=//p" "$VM_STDOUT")" = 0 ] && ok "pmu=$pmu: rmmod after the stress run" ||
		not_ok "pmu=$pmu: rmmod after the stress run"
done
vm_dmesg_clean "$VM_OUT/dmesg.txt"

done_testing
