#!/usr/bin/env bash
# Per-task windows (record --backend module -- CMD) under tests/vm/run
# --icount with pmu=emul emul_clock=icount, a CPU-bound competitor sharing
# the one vCPU: the heavy:light instruction sums of icount_work's two
# threads are 2.00 +- 0.01, no window belongs to the competitor, and the
# windows plus the PARTIAL windows add up exactly to the instructions the
# module measured for the followed tasks on CPU (the icount clock summed
# from switch-in to switch-out).  The same workload recorded with -a
# (system-wide) shows the competitor: the contrast per-task removes.
. "$(dirname "$0")/lib.sh"
vm_require module
vm_static icount_work "$PMIPROF_TOP/tests/vm/icount_work.c" -pthread ||
	skip_all "cannot build a static program (libc.a missing?)"

vm_run --icount --timeout 900 --insmod 'pmu=emul emul_clock=icount' --add "$TMPD/icount_work" -- sh -c '
	(while :; do :; done) & comp=$!
	echo "comp=$comp"
	pmiprof record --backend module -o /export/t.data -- icount_work threads 8 2>/export/record.err
	echo "record=$?"
	pmiprof record --backend module -a -o /export/a.data -- icount_work threads 2 2>/export/record-a.err
	echo "record_a=$?"
	kill $comp
	pmiprof report -i /export/t.data --by tid >/export/report.txt 2>&1
	pmiprof dump -i /export/t.data >/export/dump.txt 2>&1
	pmiprof dump -i /export/a.data >/export/dump-a.txt 2>&1
	rmmod pmiprof; echo "rmmod=$?"
	dmesg > /export/dmesg.txt'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
[ "$(sed -n 's/^record=//p' "$VM_STDOUT")" = 0 ] && ok "per-task record exits 0" ||
	not_ok "per-task record exits 0" "$(cat "$VM_OUT/record.err" 2>/dev/null)"
[ "$(sed -n 's/^record_a=//p' "$VM_STDOUT")" = 0 ] && ok "system-wide record exits 0" ||
	not_ok "system-wide record exits 0" "$(cat "$VM_OUT/record-a.err" 2>/dev/null)"
comp=$(sed -n 's/^comp=//p' "$VM_STDOUT")
grep -q 'per-task sampling' "$VM_OUT/record.err" && ok "record says per-task" ||
	not_ok "record says per-task" "$(cat "$VM_OUT/record.err")"
grep -q 'children followed' "$VM_OUT/report.txt" && ! grep -q 'system-wide' "$VM_OUT/report.txt" &&
	ok "report header says children followed, not system-wide" ||
	not_ok "report header says children followed, not system-wide" "$(head -n 12 "$VM_OUT/report.txt")"

d=$VM_OUT/dump.txt
# Per tid: instructions of every window, PARTIAL ones included.
sums=$(awk '/ sample / { for (i = 1; i <= NF; i++) { if ($i ~ /^tid=/) t = substr($i, 5);
	if ($i ~ /^instructions=/) s[t] += substr($i, 14) } }
	END { for (t in s) print s[t], t }' "$d" | sort -rn)
echo "# instructions per tid (sum, tid):"; printf '%s\n' "$sums" | sed 's/^/#   /'
heavy=$(printf '%s\n' "$sums" | sed -n 1p | cut -d' ' -f1)
light=$(printf '%s\n' "$sums" | sed -n 2p | cut -d' ' -f1)
if [ -n "$light" ] && [ "$light" -gt 0 ]; then
	ratio=$(awk -v h="$heavy" -v l="$light" 'BEGIN { printf "%.4f", h / l }')
	awk -v r="$ratio" 'BEGIN { exit !(r >= 1.99 && r <= 2.01) }' &&
		ok "heavy:light instructions 2.00 +- 0.01 with a competitor ($ratio)" ||
		not_ok "heavy:light instructions 2.00 +- 0.01 with a competitor ($ratio)" "$sums"
else
	not_ok "heavy:light instructions 2.00 +- 0.01 with a competitor" "$(head -n 30 "$d")"
fi
n_comp=$(grep -c " sample .* pid=$comp " "$d")
[ -n "$comp" ] && [ "$n_comp" = 0 ] && ok "per-task: the competitor (pid $comp) is in no window" ||
	not_ok "per-task: the competitor (pid $comp) is in no window" "$n_comp windows"
n_comp_a=$(grep -c " sample .* pid=$comp " "$VM_OUT/dump-a.txt")
[ "$n_comp_a" -gt 0 ] && ok "system-wide (-a): the competitor has $n_comp_a windows (the mixing per-task avoids)" ||
	not_ok "system-wide (-a): the competitor has windows" "$(head -n 30 "$VM_OUT/dump-a.txt")"
npart=$(grep -c ' sample .*flags=[^ ]*partial' "$d")
[ "$npart" -ge 2 ] && ok "PARTIAL windows written ($npart)" || not_ok "PARTIAL windows written" "$npart"
full=$(awk '/ sample / && !/partial/ { for (i = 1; i <= NF; i++) if ($i ~ /^instructions=/) print substr($i, 14) }' "$d" | sort -u)
[ "$full" = 512000 ] && ok "every full window holds exactly 512000 instructions of the workload" ||
	not_ok "every full window holds exactly 512000 instructions" "$(printf '%s\n' "$full" | head)"
total=$(awk '/ sample / { for (i = 1; i <= NF; i++) if ($i ~ /^instructions=/) s += substr($i, 14) } END { printf "%d", s }' "$d")
icount=$(sed -n 's/.*per-task: \([0-9]*\) instructions of followed tasks on CPU (icount).*/\1/p' "$VM_OUT/dmesg.txt" | head -n 1)
echo "# windows + partial windows: $total instructions; module icount of the followed tasks: $icount"
[ -n "$icount" ] && [ "$total" = "$icount" ] &&
	ok "sum of window deltas + partial windows = the workload's instruction total ($total)" ||
	not_ok "sum of window deltas + partial windows = the workload's instruction total" "$total vs ${icount:-none}"
grep -q '^# lost records: 0$' "$d" && ok "no window lost" || not_ok "no window lost" "$(grep 'lost' "$d" | head)"
line=$(grep -o 'per-task: [0-9]* tasks followed.*' "$VM_OUT/dmesg.txt" | head -n 1)
echo "# $line"
a=$(printf '%s' "$line" | sed -n 's/.*allocated \([0-9]*\) freed \([0-9]*\).*/\1 \2/p')
set -- $a
[ -n "${1:-}" ] && [ "$1" = "$2" ] && ok "per-task states: allocated = freed at STOP ($1)" ||
	not_ok "per-task states: allocated = freed at STOP" "$line"
[ "$(sed -n 's/^rmmod=//p' "$VM_STDOUT")" = 0 ] && ok "rmmod succeeds" || not_ok "rmmod succeeds"
grep -q 'unload: per-task states allocated \([0-9]*\), freed \1$' "$VM_OUT/dmesg.txt" &&
	ok "unload: every per-task state allocated was freed" ||
	not_ok "unload: every per-task state allocated was freed" "$(grep 'unload: per-task' "$VM_OUT/dmesg.txt")"
vm_dmesg_clean "$VM_OUT/dmesg.txt"
done_testing
