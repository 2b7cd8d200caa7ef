#!/usr/bin/env bash
# /dev/pmiprof against bad requests, on the emulated PMU and without a PMU:
# kclient_abi's abuse run (K2's client: bad sizes, NULL pointers, unknown
# ioctls and events, period 0, huge and tiny periods, reserved fields, a
# second opener, writable/oversized/misaligned mmaps, bad CONSUME/GET_STATS,
# START/CONFIGURE while running) must see the expected error every time; an
# unprivileged process must not open the device; the kernel log must stay
# free of WARN/BUG/oops; the module must unload afterwards.
. "$(dirname "$0")/lib.sh"
vm_require module
kc=$PMIPROF_TOP/tests/vm/kclient_abi.c
[ -f "$kc" ] || skip_all "tests/vm/kclient_abi.c not present"
vm_static kclient_abi "$kc" -O2 || skip_all "cannot build kclient_abi statically"
vm_static unprivileged_open "$PMIPROF_TOP/tests/vm/unprivileged_open.c" || skip_all "cannot build unprivileged_open"

vm_run --timeout 300 --add "$TMPD/kclient_abi" --add "$TMPD/unprivileged_open" -- sh -c '
	for pmu in emul none; do
		insmod /lib/modules/pmiprof.ko pmu=$pmu || { echo "insmod-$pmu-failed"; continue; }
		kclient_abi abuse > /export/abuse-$pmu.tap 2>&1; echo "abuse-$pmu=$?"
		ls -l /dev/pmiprof | cut -c1-10 > /export/mode-$pmu.txt
		unprivileged_open > /export/unpriv-$pmu.txt 2>&1; echo "unpriv-$pmu=$?"
		rmmod pmiprof; echo "rmmod-$pmu=$?"
	done
	dmesg > /export/dmesg.txt'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"

for pmu in emul none; do
	f=$VM_OUT/abuse-$pmu.tap
	if [ ! -s "$f" ]; then
		not_ok "pmu=$pmu: kclient_abi abuse ran" "$(cat "$VM_STDOUT")"
		continue
	fi
	n=0
	while IFS= read -r line; do
		case "$line" in
		"ok "*) ok "pmu=$pmu: ${line#ok * - }"; n=$((n + 1)) ;;
		"not ok "*) not_ok "pmu=$pmu: ${line#not ok * - }"; n=$((n + 1)) ;;
		esac
	done <"$f"
	[ $n -ge 20 ] && ok "pmu=$pmu: $n invalid-request checks ran" || not_ok "pmu=$pmu: invalid-request checks ran" "only $n" "$(cat "$f")"
	[ "$(sed -n "s/^abuse-$pmu=//p" "$VM_STDOUT")" = 0 ] && ok "pmu=$pmu: abuse run exits 0" || not_ok "pmu=$pmu: abuse run exits 0"
	[ "$(cat "$VM_OUT/mode-$pmu.txt" 2>/dev/null)" = "crw-------" ] && ok "pmu=$pmu: /dev/pmiprof is mode 0600" ||
		not_ok "pmu=$pmu: /dev/pmiprof is mode 0600" "$(cat "$VM_OUT/mode-$pmu.txt" 2>/dev/null)"
	[ "$(sed -n "s/^unpriv-$pmu=//p" "$VM_STDOUT")" = 0 ] && ok "pmu=$pmu: unprivileged open refused ($(cat "$VM_OUT/unpriv-$pmu.txt"))" ||
		not_ok "pmu=$pmu: unprivileged open refused" "$(cat "$VM_OUT/unpriv-$pmu.txt" 2>/dev/null)"
	[ "$(sed -n "s/^rmmod-$pmu=//p" "$VM_STDOUT")" = 0 ] && ok "pmu=$pmu: rmmod after the abuse" || not_ok "pmu=$pmu: rmmod after the abuse"
done
vm_dmesg_clean "$VM_OUT/dmesg.txt"

done_testing
