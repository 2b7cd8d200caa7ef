#!/usr/bin/env bash
# The TCG guest has no PMU (CPUID.0AH = 0, MSRs read 0, RDPMC #UDs).
# insmod pmiprof.ko with the default pmu=auto must refuse cleanly: a failing
# insmod, a kernel message that names the missing PMU and the way out
# (pmu=none / pmu=emul), no /dev/pmiprof, no module left loaded, no oops.
# An unknown pmu= value is refused the same way.  Both vendor paths are
# covered: TCG's default CPU (-cpu max) is AMD; -cpu Nehalem is Intel, where
# the refusal must name CPUID.0AH.
. "$(dirname "$0")/lib.sh"
vm_require module

vm_run -- sh -c '
	insmod /lib/modules/pmiprof.ko; echo "auto=$?"
	[ -e /dev/pmiprof ] && echo "device=present" || echo "device=absent"
	grep -q "^pmiprof " /proc/modules && echo "loaded=yes" || echo "loaded=no"
	insmod /lib/modules/pmiprof.ko pmu=bogus; echo "bogus=$?"
	grep -q "^pmiprof " /proc/modules && echo "loaded2=yes" || echo "loaded2=no"
	dmesg > /export/dmesg.txt'
[ $VM_RC -eq 0 ] || not_ok "guest command ran" "status $VM_RC" "$(cat "$VM_STDERR")"

a=$(sed -n 's/^auto=//p' "$VM_STDOUT")
[ -n "$a" ] && [ "$a" != 0 ] && ok "insmod pmu=auto fails without a PMU (status $a)" ||
	not_ok "insmod pmu=auto fails without a PMU" "$(cat "$VM_STDOUT" "$VM_STDERR")"
grep -qx "device=absent" "$VM_STDOUT" && ok "no /dev/pmiprof after the refusal" || not_ok "no /dev/pmiprof after the refusal"
grep -qx "loaded=no" "$VM_STDOUT" && ok "module not left loaded" || not_ok "module not left loaded"
msg=$(grep -i 'pmiprof:' "$VM_OUT/dmesg.txt" | grep -iv 'taint')
if printf '%s\n' "$msg" | grep -qiE 'no (usable )?.*PMU|PMU .*(not|absent|missing)'; then
	ok "kernel message names the missing PMU"
else
	not_ok "kernel message names the missing PMU" "$msg"
fi
printf '%s\n' "$msg" | grep -q 'pmu=none' && printf '%s\n' "$msg" | grep -q 'pmu=emul' &&
	ok "kernel message says what to load instead (pmu=none, pmu=emul)" ||
	not_ok "kernel message says what to load instead (pmu=none, pmu=emul)" "$msg"
b=$(sed -n 's/^bogus=//p' "$VM_STDOUT")
[ -n "$b" ] && [ "$b" != 0 ] && grep -qx "loaded2=no" "$VM_STDOUT" &&
	ok "insmod pmu=bogus is refused" || not_ok "insmod pmu=bogus is refused" "$(cat "$VM_STDOUT")"
grep -q 'pmu=bogus' "$VM_OUT/dmesg.txt" && ok "kernel message names the bad pmu= value" ||
	not_ok "kernel message names the bad pmu= value" "$msg"
vm_dmesg_clean "$VM_OUT/dmesg.txt"

# The Intel path: an Intel CPU model without architectural perfmon.
vm_run --cpu Nehalem -- sh -c '
	grep -m1 vendor_id /proc/cpuinfo
	insmod /lib/modules/pmiprof.ko; echo "auto=$?"
	[ -e /dev/pmiprof ] && echo "device=present" || echo "device=absent"
	dmesg > /export/dmesg.txt'
if ! grep -q GenuineIntel "$VM_STDOUT"; then
	skip "Intel guest refuses pmu=auto" "QEMU has no Intel Nehalem model here"
else
	a=$(sed -n 's/^auto=//p' "$VM_STDOUT")
	[ -n "$a" ] && [ "$a" != 0 ] && grep -qx "device=absent" "$VM_STDOUT" &&
		ok "Intel guest: insmod pmu=auto fails, no device" ||
		not_ok "Intel guest: insmod pmu=auto fails, no device" "$(cat "$VM_STDOUT" "$VM_STDERR")"
	grep 'pmiprof:' "$VM_OUT/dmesg.txt" | grep -qi 'intel.*CPUID.0AH' &&
		ok "Intel guest: kernel message names CPUID.0AH" ||
		not_ok "Intel guest: kernel message names CPUID.0AH" "$(grep 'pmiprof:' "$VM_OUT/dmesg.txt")"
	vm_dmesg_clean "$VM_OUT/dmesg.txt" "Intel guest: dmesg has no WARN, BUG, oops or unknown NMI"
fi

done_testing
