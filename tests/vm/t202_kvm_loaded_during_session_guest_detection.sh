#!/usr/bin/env bash
# Guest-mode detection takes KVM's running-vCPU hook (kvm_get_running_vcpu,
# symbol_get) when kvm.ko is loaded during a session, not only at START
# (issue 22 item 12): a session runs (pmu=emul), kvm.ko is inserted, and
# pmiprof holds it (kvm refcnt 1, dmesg says so) until STOP, after which
# kvm.ko is free again (refcnt 0, rmmod kvm succeeds).  Before, kvm.ko loaded
# after START was never looked up (refcnt 0): guest-mode PMIs of that
# session were attributed to KVM's host run loop.  What needs bare metal
# (or nested virtualisation): a PMI inside a running KVM guest, flagged
# GUEST; TCG has no VMX for kvm-intel, so only the wiring is shown here.
. "$(dirname "$0")/lib.sh"
vm_require module
kv=$(ls /boot/vmlinuz-*-amd64 | sort -V | tail -n 1 | sed 's|/boot/vmlinuz-||')
kvm=/lib/modules/$kv/kernel/arch/x86/kvm/kvm.ko
irq=/lib/modules/$kv/kernel/virt/lib/irqbypass.ko
[ -f "$kvm" ] && [ -f "$irq" ] || skip_all "no kvm.ko/irqbypass.ko for $kv under /lib/modules"

vm_run --timeout 600 --insmod pmu=emul --add "$kvm" --add "$irq" -- sh -c '
	pmiprof record --backend module -o /tmp/r.data -- \
		sh -c "i=0; while [ ! -e /tmp/kvm-done ] && [ \$i -lt 3000 ]; do sleep 0.1; i=\$((i + 1)); done" \
		2>/export/record.err &
	rec=$!
	vm-wait-for 240 /export/record.err "recording with" || echo "record-not-started"
	sleep 1
	insmod /root/bin/irqbypass.ko && insmod /root/bin/kvm.ko; echo "kvm_insmod=$?"
	echo "during=$(cat /sys/module/kvm/refcnt)"
	touch /tmp/kvm-done
	wait $rec; echo "record=$?"
	echo "after=$(cat /sys/module/kvm/refcnt)"
	rmmod kvm; echo "rmmod_kvm=$?"
	dmesg > /export/dmesg.txt
	rmmod pmiprof; echo "rmmod=$?"'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
sed 's/^/# /' "$VM_STDOUT"
v() { sed -n "s/^$1=//p" "$VM_STDOUT"; }
if [ "$(v kvm_insmod)" != 0 ]; then
	skip_all "kvm.ko does not load in this guest"
fi
[ "$(v record)" = 0 ] && ok "record exits 0" || not_ok "record exits 0" "$(cat "$VM_OUT/record.err" 2>/dev/null)"
[ "$(v during)" = 1 ] && ok "kvm.ko loaded during the session is held for detection (refcnt 1)" ||
	not_ok "kvm.ko loaded during the session is held for detection" "refcnt $(v during)"
grep -q 'pmiprof: kvm loaded during the session' "$VM_OUT/dmesg.txt" &&
	ok "dmesg says guest-mode samples are flagged from then on" ||
	not_ok "dmesg says guest-mode samples are flagged from then on" "$(grep pmiprof "$VM_OUT/dmesg.txt" | tail -n 5)"
[ "$(v after)" = 0 ] && [ "$(v rmmod_kvm)" = 0 ] && ok "STOP lets kvm.ko go (refcnt 0, rmmod kvm)" ||
	not_ok "STOP lets kvm.ko go" "refcnt $(v after), rmmod $(v rmmod_kvm)"
[ "$(v rmmod)" = 0 ] && ok "rmmod pmiprof" || not_ok "rmmod pmiprof"
vm_dmesg_clean "$VM_OUT/dmesg.txt"
done_testing
