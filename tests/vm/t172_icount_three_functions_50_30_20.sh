#!/usr/bin/env bash
# pmu=emul emul_clock=icount under tests/vm/run --icount: three functions
# doing 5:3:2 of the same asm loop come out 50/30/20 (within 1 point each)
# in report's flat profile of the workload.  Shares are taken among the
# three (kernel-mode windows, ~0.5 % at this period, belong to none of
# them); the raw report percentages are printed too.
. "$(dirname "$0")/lib.sh"
vm_require module
vm_static icount_work "$PMIPROF_TOP/tests/vm/icount_work.c" -pthread ||
	skip_all "cannot build a static program (libc.a missing?)"

# 10 x 10 units: 400 M instructions, ~780 windows of 512,000.
vm_run --icount --timeout 600 --insmod 'pmu=emul emul_clock=icount' --add "$TMPD/icount_work" -- sh -c '
	pmiprof record --backend module -o /export/t.data -- icount_work funcs 10 2>/export/record.err
	echo "record=$?"
	pmiprof report -i /export/t.data --comm icount_work >/export/report.txt 2>&1
	echo "report=$?"
	dmesg > /export/dmesg.txt'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
[ "$(sed -n 's/^record=//p' "$VM_STDOUT")" = 0 ] && ok "record --backend module exits 0" ||
	not_ok "record --backend module exits 0" "$(cat "$VM_OUT/record.err" 2>/dev/null)"

r=$VM_OUT/report.txt
samples_of() { awk -v f="$1" '/^ *samples /{t=1; next} t && $(NF-1) == f {print $1; exit}' "$r"; }
pct_of() { awk -v f="$1" '/^ *samples /{t=1; next} t && $(NF-1) == f {print $2; exit}' "$r"; }
s50=$(samples_of func_50) s30=$(samples_of func_30) s20=$(samples_of func_20)
if [ -n "$s50" ] && [ -n "$s30" ] && [ -n "$s20" ]; then
	echo "# windows func_50 $s50, func_30 $s30, func_20 $s20 (report %: $(pct_of func_50) / $(pct_of func_30) / $(pct_of func_20))"
	for f in 50:$s50 30:$s30 20:$s20; do
		want=${f%%:*} got=${f#*:}
		share=$(awk -v g="$got" -v t=$((s50 + s30 + s20)) 'BEGIN { printf "%.2f", 100 * g / t }')
		awk -v s="$share" -v w="$want" 'BEGIN { exit !(s >= w - 1 && s <= w + 1) }' &&
			ok "func_$want has $want % of the work's windows within 1 point ($share %)" ||
			not_ok "func_$want has $want % of the work's windows within 1 point ($share %)" "$(head -n 24 "$r")"
	done
else
	not_ok "func_50, func_30 and func_20 are in the report" "$(head -n 24 "$r" 2>/dev/null)"
fi
vm_dmesg_clean "$VM_OUT/dmesg.txt"
done_testing
