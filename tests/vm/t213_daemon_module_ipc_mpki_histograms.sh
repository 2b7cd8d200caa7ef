#!/usr/bin/env bash
# pmiprof daemon on the module backend (pmu=emul in a guest: instructions,
# cycles, cache-misses and branch-misses counted per window, so windows are
# cut by events, not a clock).  The per-window histograms a PMU makes
# possible are served and agree with the report of the same segments:
# pmiprof_window_info says basis="events"; for the workload's comm,
# pmiprof_window_ipc and pmiprof_window_mpki{event=cache-misses|branch-misses}
# have as many windows as `report -i DIR --comm shares --windows` lists
# (without throttled or after-loss windows) and their _sum/_count equal the
# mean per-window IPC and MPKI computed from that CSV (within 0.5 %);
# buckets are cumulative and +Inf equals _count; no time-based histogram.
. "$(dirname "$0")/lib.sh"
vm_require module

vm_run --timeout 600 --insmod 'pmu=emul' -- sh -c '
	busybox ifconfig lo 127.0.0.1 up
	pmiprof daemon --backend module --dir /tmp/d --segment 2 -c 2000000 \
		--listen 127.0.0.1:10150 2>/export/daemon.err &
	dp=$!
	i=0
	while [ $i -lt 150 ] && ! grep -q "serving http" /export/daemon.err; do sleep 0.2; i=$((i + 1)); done
	shares 2 >/dev/null
	sleep 1
	busybox wget -q -O /export/metrics.txt http://127.0.0.1:10150/metrics; echo "wget=$?"
	kill -TERM $dp; wait $dp; echo "daemon=$?"
	pmiprof report -i /tmp/d --comm shares --windows --format csv >/export/w.csv 2>/export/report.err
	echo "report=$?"
	dmesg > /export/dmesg.txt'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
for s in wget daemon report; do
	[ "$(sed -n "s/^$s=//p" "$VM_STDOUT")" = 0 ] && ok "$s exits 0" ||
		not_ok "$s exits 0" "$(cat "$VM_OUT/daemon.err" "$VM_OUT/report.err" 2>/dev/null | tail -n 20)"
done
m=$VM_OUT/metrics.txt
grep -q '^pmiprof_window_info{basis="events",trigger="instructions"' "$m" &&
	ok "pmiprof_window_info: basis=events, trigger instructions" ||
	not_ok "window_info basis=events" "$(grep '^pmiprof_window_info' "$m")"
grep -q '^pmiprof_window_cpu_seconds' "$m" && not_ok "no time-based histogram with a PMU" "$(grep -m3 '^pmiprof_window_cpu_seconds' "$m")" ||
	ok "no time-based histogram with a PMU"

# per-window means from the report's CSV: IPC, cache-misses and branch-misses per kilo-instruction
read -r nwin ipc cmpki bmpki < <(awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["throttled"] == 0 && $col["after_loss"] == 0 && $col["cycles"] > 0 && $col["instructions"] > 0 {
		n++; ins = $col["instructions"]
		ipc += ins / $col["cycles"]
		c += 1000 * $col["cache-misses"] / ins; b += 1000 * $col["branch-misses"] / ins
	}
	END { if (n) printf "%d %.9g %.9g %.9g\n", n, ipc / n, c / n, b / n; else print "0 0 0 0" }' "$VM_OUT/w.csv")
echo "# report: $nwin windows of shares, mean IPC $ipc, cache-misses MPKI $cmpki, branch-misses MPKI $bmpki"
[ "$nwin" -ge 50 ] && ok "report lists shares' windows ($nwin)" || not_ok "report lists shares' windows" "$nwin; $(head -3 "$VM_OUT/w.csv")"

# value of one sample line: metric name, label filter (a regex over the labels)
val() { awk -v n="$1" -v f="$2" 'index($0, n "{") == 1 && $0 ~ f { s += $NF; k++ } END { if (k) print s; else print "none" }' "$m"; }
near() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(b != 0 && (a - b) / b < 0.005 && (b - a) / b < 0.005) }'; }
hist() {	# name label-regex expected-mean what
	local cnt sum inf mono
	cnt=$(val "$1_count" "$2") sum=$(val "$1_sum" "$2") inf=$(val "$1_bucket" "($2).*le=\"\\+Inf\"")
	echo "# $1 $4: count $cnt, sum $sum, +Inf $inf"
	[ "$cnt" = "$nwin" ] && ok "$1 $4: _count = the report's windows ($cnt)" || not_ok "$1 $4: _count" "$cnt vs $nwin"
	[ "$inf" = "$cnt" ] && ok "$1 $4: +Inf bucket = _count" || not_ok "$1 $4: +Inf bucket" "$inf vs $cnt"
	near "$(awk -v s="$sum" -v c="$cnt" 'BEGIN { print (c > 0) ? s / c : 0 }')" "$3" &&
		ok "$1 $4: _sum/_count = the report's mean ($3)" || not_ok "$1 $4: mean" "sum $sum / count $cnt vs $3"
	mono=$(awk -v n="$1_bucket{" -v f="$2" 'index($0, n) == 1 && $0 ~ f { if ($NF + 0 < last) bad = 1; last = $NF + 0; k++ }
		END { print (k > 2 && !bad) ? "yes" : "no" }' "$m")
	[ "$mono" = yes ] && ok "$1 $4: buckets cumulative" || not_ok "$1 $4: buckets cumulative" "$(grep "^$1_bucket" "$m" | head -20)"
}
hist pmiprof_window_ipc 'comm="shares"' "$ipc" "of shares"
hist pmiprof_window_mpki 'event="cache-misses".*comm="shares"|comm="shares".*event="cache-misses"' "$cmpki" "cache-misses of shares"
hist pmiprof_window_mpki 'event="branch-misses".*comm="shares"|comm="shares".*event="branch-misses"' "$bmpki" "branch-misses of shares"
vm_dmesg_clean "$VM_OUT/dmesg.txt"
done_testing
