#!/usr/bin/env bash
# pmu=emul emul_clock=icount under tests/vm/run --icount: a heavy thread
# doing twice the work of a light one, both pinned to the one vCPU, comes
# out 2:1 (within 1 point) in record --backend module + report --by tid.
# The synthetic emulated PMU (emul_clock=tick) gave 71:26 for such a
# workload: TCG runs vCPUs at unequal speeds.  Also: every description of
# the PMU says "EMULATED PMU (icount: instructions exact)" (GET_INFO name,
# record's messages, the trace header, the report), and the kernel log
# states the measured overflow-to-handler distance.
. "$(dirname "$0")/lib.sh"
vm_require module
vm_static icount_work "$PMIPROF_TOP/tests/vm/icount_work.c" -pthread ||
	skip_all "cannot build a static program (libc.a missing?)"

# 2 x 40 + 40 units: 480 M instructions, ~940 windows of 512,000.
vm_run --icount --timeout 600 --insmod 'pmu=emul emul_clock=icount' --add "$TMPD/icount_work" -- sh -c '
	pmiprof record --backend module -o /export/t.data -- icount_work threads 40 2>/export/record.err
	echo "record=$?"
	pmiprof report -i /export/t.data --comm icount_work --by tid >/export/report.txt 2>&1
	echo "report=$?"
	pmiprof dump -i /export/t.data >/export/dump.txt 2>&1
	rmmod pmiprof; echo "rmmod=$?"
	dmesg > /export/dmesg.txt'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
[ "$(sed -n 's/^record=//p' "$VM_STDOUT")" = 0 ] && ok "record --backend module exits 0" ||
	not_ok "record --backend module exits 0" "$(cat "$VM_OUT/record.err" 2>/dev/null)"

r=$VM_OUT/report.txt
# Rows of the tid table: samples % ... tid comm, heaviest first.
rows=$(awk '/^ *samples /{t=1; next} t && NF > 3 {print $1, $(NF-1)}' "$r" 2>/dev/null)
heavy=$(printf '%s\n' "$rows" | sed -n 1p | cut -d' ' -f1)
light=$(printf '%s\n' "$rows" | sed -n 2p | cut -d' ' -f1)
if [ -n "$heavy" ] && [ -n "$light" ] && [ "$light" -gt 0 ]; then
	share=$(awk -v h="$heavy" -v l="$light" 'BEGIN { printf "%.2f", 100 * h / (h + l) }')
	echo "# heavy:light windows $heavy:$light, heavy share $share % (2:1 = 66.67 %)"
	awk -v s="$share" 'BEGIN { exit !(s >= 65.67 && s <= 67.67) }' &&
		ok "2:1 work is 2:1 in windows within 1 point ($share %)" ||
		not_ok "2:1 work is 2:1 in windows within 1 point ($share %)" "$(cat "$r")"
else
	not_ok "2:1 work is 2:1 in windows within 1 point" "$(cat "$r" 2>/dev/null)"
fi

grep -q 'EMULATED PMU (icount: instructions exact)' "$VM_OUT/record.err" &&
	ok "record says EMULATED PMU (icount: instructions exact)" ||
	not_ok "record says EMULATED PMU (icount: instructions exact)" "$(cat "$VM_OUT/record.err")"
grep -E '^pmu:' "$VM_OUT/dump.txt" | grep -q 'emul-intel-v4-icount.*EMULATED PMU (icount: instructions exact)' &&
	ok "trace header PMU: emul-intel-v4-icount, EMULATED PMU (icount: instructions exact)" ||
	not_ok "trace header PMU: emul-intel-v4-icount, EMULATED PMU (icount: instructions exact)" \
		"$(grep -E '^pmu:' "$VM_OUT/dump.txt")"
# Header lines wrap at spaces onto "#   " continuation lines: join them back.
awk '/^#   /{sub(/^# +/, ""); printf " %s", $0; next} {printf "\n%s", $0}' "$r" |
	grep -q 'EMULATED PMU (icount: instructions exact)' &&
	ok "report says EMULATED PMU (icount: instructions exact)" ||
	not_ok "report says EMULATED PMU (icount: instructions exact)" "$(head -n 12 "$r")"
skid=$(grep -o 'icount: [0-9]* PMIs, overflow to handler [0-9.]* instructions (mean [0-9]*)' "$VM_OUT/dmesg.txt")
[ -n "$skid" ] && ok "kernel log states the overflow-to-handler distance" && echo "# $skid" ||
	not_ok "kernel log states the overflow-to-handler distance" "$(grep pmiprof "$VM_OUT/dmesg.txt")"
[ "$(sed -n 's/^rmmod=//p' "$VM_STDOUT")" = 0 ] && ok "rmmod succeeds" || not_ok "rmmod succeeds"
vm_dmesg_clean "$VM_OUT/dmesg.txt"
done_testing
