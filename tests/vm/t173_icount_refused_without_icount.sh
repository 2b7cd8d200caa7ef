#!/usr/bin/env bash
# emul_clock=icount checks at load that the TSC counts instructions (two
# loop lengths between RDTSCs differ by exactly their instruction count):
# in a guest without -icount the module refuses to load, dmesg says why and
# how to boot QEMU, and nothing stays loaded; emul_clock=bogus is refused
# too; plain pmu=emul (emul_clock=tick) still loads there.  Under --icount
# the same module loads, GET_INFO names the PMU emul-intel-v4-icount, and
# doctor says EMULATED PMU (icount: instructions exact).
. "$(dirname "$0")/lib.sh"
vm_require module

vm_run --timeout 300 --smp 1 -- sh -c '
	insmod /lib/modules/pmiprof.ko pmu=emul emul_clock=icount 2>/dev/null; echo "icount=$?"
	[ -e /dev/pmiprof ] && echo "dev=yes" || echo "dev=no"
	insmod /lib/modules/pmiprof.ko pmu=emul emul_clock=bogus 2>/dev/null; echo "bogus=$?"
	insmod /lib/modules/pmiprof.ko pmu=emul; echo "tick=$?"
	rmmod pmiprof
	dmesg > /export/dmesg.txt'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
[ "$(sed -n 's/^icount=//p' "$VM_STDOUT")" != 0 ] && [ "$(sed -n 's/^dev=//p' "$VM_STDOUT")" = no ] &&
	ok "emul_clock=icount refused without QEMU -icount, no device" ||
	not_ok "emul_clock=icount refused without QEMU -icount, no device" "$(cat "$VM_STDOUT")"
grep -q 'emul_clock=icount: the TSC does not count instructions.*-icount shift=0,sleep=off' "$VM_OUT/dmesg.txt" &&
	ok "dmesg says the TSC does not count instructions and how to boot QEMU" ||
	not_ok "dmesg says the TSC does not count instructions and how to boot QEMU" "$(grep pmiprof "$VM_OUT/dmesg.txt")"
[ "$(sed -n 's/^bogus=//p' "$VM_STDOUT")" != 0 ] && grep -q 'emul_clock=bogus: expected tick or icount' "$VM_OUT/dmesg.txt" &&
	ok "emul_clock=bogus refused, naming the values" || not_ok "emul_clock=bogus refused, naming the values" "$(grep pmiprof "$VM_OUT/dmesg.txt")"
[ "$(sed -n 's/^tick=//p' "$VM_STDOUT")" = 0 ] && ok "pmu=emul (emul_clock=tick) loads in the same guest" ||
	not_ok "pmu=emul (emul_clock=tick) loads in the same guest" "$(grep pmiprof "$VM_OUT/dmesg.txt")"
vm_dmesg_clean "$VM_OUT/dmesg.txt"

vm_run --icount --timeout 300 --insmod 'pmu=emul emul_clock=icount' -- sh -c '
	pmiprof doctor >/export/doctor.txt 2>&1
	pmiprof record --backend module -e instructions:u -o /tmp/u.data -- true 2>/export/u.err
	echo "user_only=$?"
	dmesg > /export/dmesg.txt'
[ $VM_RC -eq 0 ] && ok "icount guest run completed" || not_ok "icount guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
grep -q 'emul-intel-v4-icount' "$VM_OUT/doctor.txt" && grep -q 'EMULATED PMU (icount: instructions exact)' "$VM_OUT/doctor.txt" &&
	ok "doctor: emul-intel-v4-icount, EMULATED PMU (icount: instructions exact)" ||
	not_ok "doctor: emul-intel-v4-icount, EMULATED PMU (icount: instructions exact)" "$(cat "$VM_OUT/doctor.txt")"
[ "$(sed -n 's/^user_only=//p' "$VM_STDOUT")" != 0 ] && grep -q 'no :u or :k' "$VM_OUT/dmesg.txt" &&
	ok "instructions:u refused: icount counts user + kernel as one" ||
	not_ok "instructions:u refused: icount counts user + kernel as one" "$(cat "$VM_OUT/u.err")" "$(grep pmiprof "$VM_OUT/dmesg.txt")"
grep -q 'emul_clock=icount: the TSC counts instructions exactly' "$VM_OUT/dmesg.txt" &&
	ok "dmesg: the load-time check found the TSC counting instructions" ||
	not_ok "dmesg: the load-time check found the TSC counting instructions" "$(grep pmiprof "$VM_OUT/dmesg.txt")"
done_testing
