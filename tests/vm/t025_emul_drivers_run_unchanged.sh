#!/usr/bin/env bash
# The Intel and AMD drivers run unchanged on every emulated PMU the model
# offers (pmu=emul with emul_vendor/emul_version/emul_full_width): Intel v4
# with full-width writes, Intel v2 with legacy sign-extended writes, AMD
# PerfMonV2, AMD core counters (sign-bit overflow, no status register).  Each
# records a workload in PMI mode at N = 512,000 through kclient_abi: windows
# average N events within 3 % (overshoot carried, late ticks stepped one
# period at a time), no stuck loop, no spurious or
# lost sample, every record flagged emulated, rmmod works.  The 2^31-1 limit
# holds without full-width writes; an impossible model is refused at insmod.
. "$(dirname "$0")/lib.sh"
vm_require module
vm_static kclient_abi "$PMIPROF_TOP/tests/vm/kclient_abi.c" || skip_all "cannot build a static program"
vm_static hot_function "$PMIPROF_TOP/tests/vm/hot_function.c" || skip_all "cannot build a static program"

vm_run --timeout 600 --add "$TMPD/kclient_abi" --add "$TMPD/hot_function" -- sh -c '
	run() {
		name=$1 params=$2 events=$3
		insmod /lib/modules/pmiprof.ko pmu=emul $params; echo "$name insmod=$?"
		kclient_abi record -m pmi -p 512000 $events -- hot_function 1 >/tmp/out 2>&1
		echo "$name record=$?"
		sed "s/^/$name /" /tmp/out
		rmmod pmiprof; echo "$name rmmod=$?"
	}
	run intel-v4 "" "-e 0xc0:0 -e 0x3c:0 -e 0xc4:0"
	run intel-v2 "emul_version=2 emul_full_width=0" "-e 0xc4:0 -e 0xc0:0 -e 0x3c:0"
	run amd-v2 "emul_vendor=amd" "-e 0xc0:0 -e 0x76:0 -e 0xc2:0"
	run amd-core "emul_vendor=amd emul_version=1" "-e 0xc0:0 -e 0x76:0 -e 0xc2:0"
	insmod /lib/modules/pmiprof.ko pmu=emul emul_version=2 emul_full_width=0
	kclient_abi record -m pmi -p 2147483648 -e 0xc0:0 -- true >/dev/null 2>&1; echo "p31=$?"
	kclient_abi record -m pmi -p 2147483647 -e 0xc0:0 -- true >/dev/null 2>&1; echo "p31m1=$?"
	rmmod pmiprof
	insmod /lib/modules/pmiprof.ko pmu=emul emul_version=7 2>/dev/null; echo "bad_version=$?"
	dmesg > /export/dmesg.txt'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"

for v in intel-v4 intel-v2 amd-v2 amd-core; do
	out=$(grep "^$v " "$VM_STDOUT")
	if ! grep -q "^$v insmod=0" "$VM_STDOUT" || ! grep -q "^$v record=0" "$VM_STDOUT"; then
		not_ok "$v: records a workload" "$out"
		continue
	fi
	records=$(sed -n "s/^$v records \([0-9]*\) .*/\1/p" "$VM_STDOUT")
	child=$(sed -n "s/^$v records [0-9]* child \([0-9]*\) .*/\1/p" "$VM_STDOUT")
	emul=$(sed -n "s/^$v records .* emulated \([0-9]*\) .*/\1/p" "$VM_STDOUT")
	# Instructions per window: the trigger is instructions (counts[0]) except on
	# intel-v2, where it is branches, instructions / 5 in the model (counts[1]).
	case $v in
	intel-v2) k=1; per=$((512000 * 5)) ;;
	*) k=0; per=512000 ;;
	esac
	instr=$(sed -n "s/^$v child count\[$k\] \([0-9]*\)$/\1/p" "$VM_STDOUT")
	stats=$(sed -n "s/^$v stats //p" "$VM_STDOUT")
	if [ "${child:-0}" -gt 100 ]; then ok "$v: records a workload ($child windows)"; else
		not_ok "$v: records a workload" "$out"; continue; fi
	[ "$emul" = "$records" ] && ok "$v: every record flagged emulated" ||
		not_ok "$v: every record flagged emulated" "$out"
	avg=$((instr / child)) lo=$((per * 97 / 100)) hi=$((per * 103 / 100))
	[ $avg -ge $lo ] && [ $avg -le $hi ] && ok "$v: windows average the period ($avg instructions)" ||
		not_ok "$v: windows average the period" "average $avg, expected $lo..$hi" "$out"
	case "$stats" in
	*"lost 0 "*"spurious 0 "*"stuck 0"*) ok "$v: no lost, spurious or stuck" ;;
	*) not_ok "$v: no lost, spurious or stuck" "$stats" ;;
	esac
	grep -q "^$v rmmod=0" "$VM_STDOUT" && ok "$v: rmmod" || not_ok "$v: rmmod" "$out"
done

[ "$(sed -n 's/^p31=//p' "$VM_STDOUT")" = 1 ] && ok "legacy writes: period 2^31 refused" ||
	not_ok "legacy writes: period 2^31 refused" "$(cat "$VM_STDOUT")"
[ "$(sed -n 's/^p31m1=//p' "$VM_STDOUT")" = 0 ] && ok "legacy writes: period 2^31-1 accepted" ||
	not_ok "legacy writes: period 2^31-1 accepted" "$(cat "$VM_STDOUT")"
[ "$(sed -n 's/^bad_version=//p' "$VM_STDOUT")" != 0 ] && ok "emul_version=7 refused at insmod" ||
	not_ok "emul_version=7 refused at insmod"
vm_dmesg_clean "$VM_OUT/dmesg.txt"
done_testing
