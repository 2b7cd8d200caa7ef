#!/usr/bin/env bash
# record --backend module --call-graph dwarf on pmu=emul emul_clock=icount:
# the PMI handler copies the user registers (perf's x86-64 mask) and 8 KiB
# of user stack into each record, and the report unwinds them offline with
# libunwind: on callgraph_nofp (-O2 -fomit-frame-pointer, shipped by
# tests/vm/run) >= 97 % of the workload's stacks reach a root, the qsort
# callback cmp_u64 reaches main through libc, and caller_a : caller_b :
# leaf_heavy come out 2:1:2 within 2 points.  Kernel log clean.
. "$(dirname "$0")/lib.sh"
vm_require module
[ -x "$PMIPROF_BUILD/workloads/callgraph_nofp" ] || skip_all "workload callgraph_nofp not built"

vm_run --icount --timeout 900 --insmod 'pmu=emul emul_clock=icount' -- sh -c '
	pmiprof record --backend module --call-graph dwarf -o /export/t.data -- callgraph_nofp 1 2>/export/record.err
	echo "record=$?"
	pmiprof report -i /export/t.data --comm callgraph_nofp --children >/export/table.txt 2>/export/report.err
	echo "report=$?"
	pmiprof report -i /export/t.data --comm callgraph_nofp --children --format csv >/export/c.csv 2>>/export/report.err
	pmiprof report -i /export/t.data --comm callgraph_nofp --windows --format csv >/export/w.csv 2>>/export/report.err
	pmiprof dump -i /export/t.data >/export/dump.txt 2>&1
	rmmod pmiprof; echo "rmmod=$?"
	dmesg > /export/dmesg.txt'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
[ "$(sed -n 's/^record=//p' "$VM_STDOUT")" = 0 ] && ok "record --backend module --call-graph dwarf exits 0" ||
	not_ok "record --call-graph dwarf exits 0" "$(cat "$VM_OUT/record.err" 2>/dev/null)"
[ "$(sed -n 's/^report=//p' "$VM_STDOUT")" = 0 ] && ok "report --children exits 0" ||
	not_ok "report --children exits 0" "$(cat "$VM_OUT/report.err" 2>/dev/null)"
grep -Ei '^call.?graph' "$VM_OUT/dump.txt" | grep -q dwarf && ok "header: call graph dwarf" ||
	not_ok "header: call graph dwarf" "$(grep -i call "$VM_OUT/dump.txt" | head -3)"

pct=$(sed -n 's/.* \([0-9.]*\)% of those reached a root.*/\1/p' "$VM_OUT/table.txt")
awk -v p="${pct:-0}" 'BEGIN { exit !(p >= 97) }' && ok "$pct% of stacks reached a root (>= 97%)" ||
	not_ok ">= 97% of stacks reached a root" "$(grep -A2 'call stacks' "$VM_OUT/table.txt")"
col() { awk -F, -v f="$1" '$3 == f { s += $5 } END { printf "%.4f\n", s + 0 }' "$VM_OUT/c.csv"; }
near() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a - b <= 2 && b - a <= 2) }'; }
S=$(col sort_work)
awk -v s="$S" 'BEGIN { exit !(s > 3 && s < 60) }' && ok "sort_work takes $S%" || not_ok "sort_work share plausible" "$S"
for want in main:5/5:1 caller_a:2/5:0 caller_b:1/5:0 leaf_heavy:2/5:0 leaf_shared:3/5:0; do
	IFS=: read -r fn frac all <<<"$want"
	exp=$(awk -v s="$S" -v f="$frac" -v a="$all" 'BEGIN { split(f, q, "/"); print a ? 100 : (100 - s) * q[1] / q[2] }')
	got=$(col "$fn")
	near "$got" "$exp" && ok "$fn children $got% within 2 points of $exp%" ||
		not_ok "$fn children within 2 points of $exp%" "got $got" "$(head -14 "$VM_OUT/c.csv" | cut -d, -f3-6)"
done
read -r n m < <(awk -F, 'NR > 1 && $7 == "cmp_u64" { n++; if ($NF ~ /;main;sort_work;/) m++ } END { print n + 0, m + 0 }' "$VM_OUT/w.csv")
awk -v n="$n" -v m="$m" 'BEGIN { exit !(n >= 10 && m >= 0.97 * n) }' &&
	ok "$m of cmp_u64's $n samples reach main;sort_work through qsort" ||
	not_ok "cmp_u64's samples reach main through qsort" "$m of $n" "$(awk -F, '$7 == "cmp_u64"' "$VM_OUT/w.csv" | head -3)"
grep 'stack walk per PMI' "$VM_OUT/record.err" | sed 's/^/# /'
[ "$(sed -n 's/^rmmod=//p' "$VM_STDOUT")" = 0 ] && ok "rmmod succeeds" || not_ok "rmmod succeeds"
vm_dmesg_clean "$VM_OUT/dmesg.txt"
done_testing
