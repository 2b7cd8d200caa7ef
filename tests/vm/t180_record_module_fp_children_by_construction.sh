#!/usr/bin/env bash
# record --backend module -g on pmu=emul emul_clock=icount: the PMI handler walks the user
# frame-pointer chain and copies the leaf words, and report --children on
# tests/workloads/callgraph (the fp build of build/workloads, which
# tests/vm/run ships into the guest with its libraries) gives
# the shares of construction within 2 points (as tests/e2e/t233 does for the
# perf backend): caller_a = 2/3 and caller_b = 1/3 of leaf_shared (only
# through the leaf fix-up: without it they vanish), leaf_shared = 3/2
# leaf_heavy, leaf_heavy inclusive = self, main covers both leaves.  The
# trace header says fp with kernel frames and leaf words, kernel frames are
# recorded for kernel-mode samples, record prints the walk's cost per PMI,
# and the kernel log is clean.
. "$(dirname "$0")/lib.sh"
vm_require module
# Dynamic on purpose: the report's leaf fix-up finds no CFI in static
# non-PIE executables (the perf backend's -g shows the same).
[ -x "$PMIPROF_BUILD/workloads/callgraph" ] || skip_all "workload callgraph not built"

# icount: windows of exactly N instructions on one vCPU.  With the tick
# clock TCG's uneven vCPU speed skews shares of equal work (t170: 71:26).
vm_run --icount --timeout 900 --insmod 'pmu=emul emul_clock=icount' -- sh -c '
	pmiprof record --backend module -g -o /export/t.data -- callgraph 1 2>/export/record.err
	echo "record=$?"
	pmiprof report -i /export/t.data --comm callgraph --children --format csv >/export/fix.csv 2>/export/report.err
	echo "report=$?"
	pmiprof report -i /export/t.data --comm callgraph --children --format csv --no-leaf-fixup >/export/nofix.csv 2>>/export/report.err
	pmiprof report -i /export/t.data --comm callgraph --callers leaf_shared --format csv >/export/callers.csv 2>>/export/report.err
	pmiprof dump -i /export/t.data >/export/dump.txt 2>&1
	rmmod pmiprof; echo "rmmod=$?"
	dmesg > /export/dmesg.txt'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
[ "$(sed -n 's/^record=//p' "$VM_STDOUT")" = 0 ] && ok "record --backend module -g exits 0" ||
	not_ok "record --backend module -g exits 0" "$(cat "$VM_OUT/record.err" 2>/dev/null)"
[ "$(sed -n 's/^report=//p' "$VM_STDOUT")" = 0 ] && ok "report --children exits 0" ||
	not_ok "report --children exits 0" "$(cat "$VM_OUT/report.err" 2>/dev/null)"

col() { awk -F, -v f="$1" -v c="$3" '$3 == f { s += $c } END { printf "%.4f\n", s + 0 }' "$2"; }
near() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a - b <= 2 && b - a <= 2) }'; }
fix=$VM_OUT/fix.csv nofix=$VM_OUT/nofix.csv
L=$(col leaf_shared "$fix" 6) H=$(col leaf_heavy "$fix" 6)
echo "# leaf_shared self $L%, leaf_heavy self $H%"
awk -v l="$L" -v h="$H" 'BEGIN { exit !(l > 30 && h > 20) }' && ok "leaves' self shares: leaf_shared $L%, leaf_heavy $H%" ||
	not_ok "leaves' self shares" "leaf_shared $L, leaf_heavy $H" "$(head -12 "$fix")"
exp=$(awk -v h="$H" 'BEGIN { print 1.5 * h }')
near "$L" "$exp" && ok "leaf_shared $L% = 3/2 leaf_heavy ($exp%) within 2 points" || not_ok "leaf_shared = 3/2 leaf_heavy" "$L vs $exp"
for want in caller_a:2/3 caller_b:1/3; do
	fn=${want%%:*} frac=${want#*:}
	exp=$(awk -v l="$L" -v f="$frac" 'BEGIN { split(f, q, "/"); print l * q[1] / q[2] }')
	got=$(col "$fn" "$fix" 5)
	near "$got" "$exp" && ok "$fn children $got% within 2 points of $frac of leaf_shared ($exp%)" ||
		not_ok "$fn children within 2 points of $exp%" "got $got" "$(head -12 "$fix")"
	got=$(col "$fn" "$nofix" 5)
	awk -v a="$got" 'BEGIN { exit !(a < 2) }' && ok "without the leaf fix-up $fn is $got% (the fp walk skips it)" ||
		not_ok "without the leaf fix-up $fn is missing" "got $got%"
done
got=$(col leaf_heavy "$fix" 5)
near "$got" "$H" && ok "leaf_heavy children $got% = its self share" || not_ok "leaf_heavy children = self" "$got vs $H"
M=$(col main "$fix" 5) exp=$(awk -v l="$L" -v h="$H" 'BEGIN { print l + h }')
awk -v m="$M" -v e="$exp" 'BEGIN { exit !(m >= e - 2) }' && ok "main children $M% covers both leaves ($exp%)" ||
	not_ok "main children covers both leaves" "$M vs $exp"
a=$(awk -F, '$5 == "caller_a" { print $4 }' "$VM_OUT/callers.csv") b=$(awk -F, '$5 == "caller_b" { print $4 }' "$VM_OUT/callers.csv")
near "${a:-0}" 66.67 && near "${b:-0}" 33.33 && ok "--callers leaf_shared: caller_a $a%, caller_b $b% (2:1)" ||
	not_ok "--callers leaf_shared 2:1" "$(cat "$VM_OUT/callers.csv")"

d=$VM_OUT/dump.txt
grep -Ei '^call.?graph' "$d" | grep -q 'fp' && grep -Ei '^call.?graph' "$d" | grep -q 'kernel' &&
	grep -Ei '^call.?graph' "$d" | grep -q 'leaf-words' &&
	ok "header: call graph fp, kernel frames, leaf words" || not_ok "header: call graph fp, kernel, leaf words" "$(grep -i 'call' "$d" | head -3)"
grep -q ' ustack ' "$d" && ok "USTACK records (leaf words) are written" || not_ok "USTACK records are written" "$(grep -m3 -i stack "$d")"
grep -Eq ' stack .*kernel=[1-9]' "$d" && ok "kernel frames recorded for kernel-mode samples" ||
	not_ok "kernel frames recorded" "$(grep -m5 ' stack ' "$d")"
grep -q 'stack walk per PMI' "$VM_OUT/record.err" && ok "record reports the walk's cost per PMI" ||
	not_ok "record reports the walk's cost per PMI" "$(cat "$VM_OUT/record.err")"
grep 'stack walk per PMI' "$VM_OUT/record.err" | sed 's/^/# /'
[ "$(sed -n 's/^rmmod=//p' "$VM_STDOUT")" = 0 ] && ok "rmmod succeeds" || not_ok "rmmod succeeds"
vm_dmesg_clean "$VM_OUT/dmesg.txt"
done_testing
