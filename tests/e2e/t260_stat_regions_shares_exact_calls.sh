#!/usr/bin/env bash
# stat --regions on two threads each calling "heavy" (3 units of work) and
# "light" (1 unit) 150 times: exact call counts per region and per thread,
# and a 3.0 +- 0.1 ratio of task-clock sums (the empty-region cost
# subtracted), in both the text and the csv layout.  Other jobs' CPU time
# (a VM's steal time counts as the task's) lands in one region or the other
# as ms-long outliers, so the ratio may take up to 3 runs on a loaded machine.  Also: without pmiprof
# the same binary runs and says nothing (the library stays disabled).
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
wl=$WORKLOADS/regions
"$wl" shares 5 > "$TMPD/plain" 2>&1 && [ ! -s "$TMPD/plain" ] && ok "outside pmiprof: runs, prints nothing" ||
	not_ok "outside pmiprof" "$(cat "$TMPD/plain")"
"$PMIPROF" stat --regions -e task-clock -- "$wl" shares 150 2>"$TMPD/out"; rc=$?
[ $rc -eq 0 ] && ok "exit status 0" || not_ok "exit status" "rc=$rc" "$(cat "$TMPD/out")"
for r in heavy light; do
	grep -Eq "^  region $r: 300 calls \(tid [0-9]+: 150, tid [0-9]+: 150\)" "$TMPD/out" &&
		ok "$r: 300 calls, 150 per thread" || not_ok "$r calls" "$(cat "$TMPD/out")"
done
grep -q 'task-clock  *read with read()' "$TMPD/out" && ok "the read path is stated" || not_ok "read path" "$(cat "$TMPD/out")"
grep -Eq 'empty-region cost subtracted .*task-clock [0-9]+' "$TMPD/out" && ok "the subtracted cost is stated" ||
	not_ok "empty cost stated" "$(cat "$TMPD/out")"
ratios=
for attempt in 1 2 3; do
	"$PMIPROF" stat --regions --format csv -e task-clock -- "$wl" shares 150 2>"$TMPD/csv"
	h=$(awk -F, '$1 == "heavy" && $3 == "task-clock" { print $4 }' "$TMPD/csv")
	l=$(awk -F, '$1 == "light" && $3 == "task-clock" { print $4 }' "$TMPD/csv")
	r=$(awk -v h="${h:-0}" -v l="${l:-0}" 'BEGIN { printf "%.3f", l ? h / l : 0 }')
	ratios="$ratios $r"
	awk -v r="$r" 'BEGIN { exit !(r > 2.9 && r < 3.1) }' && break
done
head -1 "$TMPD/csv" | grep -qx 'region,calls,event,sum,mean,min,median,mode,p99,max,modes' && ok "csv header" ||
	not_ok "csv header" "$(cat "$TMPD/csv")"
c=$(awk -F, '$1 == "heavy" && $3 == "task-clock" { print $2 }' "$TMPD/csv")
[ "$c" = 300 ] && ok "csv: heavy calls 300" || not_ok "csv calls" "$(cat "$TMPD/csv")"
awk -v r="$r" 'BEGIN { exit !(r > 2.9 && r < 3.1) }' && ok "heavy/light task-clock sum ratio 3.0 +- 0.1 (runs:$ratios)" ||
	not_ok "ratio 3.0 +- 0.1" "runs:$ratios" "$(cat "$TMPD/csv")"
done_testing
