#!/usr/bin/env bash
# Region markers under record when things go wrong.  Misuse (end without
# begin, a mismatched end, 1000 distinct names, a fork inside a region, 40
# levels of nesting): the workload survives and the report header counts
# each anomaly.  A ring overflow (a million empty regions back to back,
# faster than any drain): markers recorded + dropped = exactly 2 per region,
# the drop is reported as loss in the header and warned about, and no
# region is left open by it.  The recorder killed (SIGKILL) mid-run: the
# workload runs to its end, and the trace is readable.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
wl=$WORKLOADS/regions
m=$TMPD/m.data
"$PMIPROF" record -o "$m" -- "$wl" misuse >"$TMPD/mout" 2>"$TMPD/mrec"; rc=$?
[ $rc -eq 0 ] && grep -q 'regions: misuse survived' "$TMPD/mout" && ok "misuse: workload survives, exit 0" ||
	not_ok "misuse run" "rc=$rc" "$(cat "$TMPD/mout" "$TMPD/mrec")"
"$PMIPROF" report -i "$m" --by region >"$TMPD/mrep" 2>&1
for a in 'end-without-begin 1' 'mismatched-end 1' 'fork-in-region 1' 'too-deep 8'; do
	grep -q "^# code regions; anomalies: .*$a" "$TMPD/mrep" && ok "anomaly counted: $a" || not_ok "anomaly $a" "$(grep '^#' "$TMPD/mrep")"
done
# 1000 names + never-begun, mm-outer, mm-inner, forking, in-child, deep (1006 slots, one reserved)
grep -Eq '^# code regions: 1005, [0-9]+ markers, lost 0 ' "$TMPD/mrep" && ok "a thousand names: every one defined" ||
	not_ok "1000 names" "$(grep '^# code' "$TMPD/mrep")"
[ "$("$PMIPROF" dump -i "$m" | grep -c 'region_def .*name="name-')" = 1000 ] && ok "dump: 1000 REGION_DEF records of the names" ||
	not_ok "1000 REGION_DEF"

b=$TMPD/b.data
"$PMIPROF" record -o "$b" -- "$wl" burst 1000000 2>"$TMPD/brec"
w=$(sed -n 's/.*code regions: \([0-9]*\) markers of 1 region(s) recorded, \([0-9]*\) dropped.*/\1 \2/p' "$TMPD/brec")
set -- $w
[ -n "$2" ] && [ "$2" -gt 0 ] && [ $(($1 + $2)) -eq 2000000 ] &&
	ok "overflow: $1 recorded + $2 dropped = 2 x 1000000 markers" || not_ok "overflow accounting" "$(cat "$TMPD/brec")"
"$PMIPROF" report -i "$b" --by region >"$TMPD/brep" 2>"$TMPD/bwarn"
grep -q "^# code regions: 1, $1 markers, lost $2 (marker ring full in the workload)" "$TMPD/brep" &&
	ok "report header: the dropped markers as loss" || not_ok "header loss" "$(grep '^#' "$TMPD/brep")"
grep -q "$2 code-region marker(s) were dropped in the workload" "$TMPD/bwarn" && ok "report warns about the drop" ||
	not_ok "warning" "$(cat "$TMPD/bwarn")"
! grep -q 'open at the end' "$TMPD/brep" && ! grep -q 'unmatched' "$TMPD/brep" &&
	ok "overflow leaves no region open and no END unmatched" || not_ok "overflow consistency" "$(grep '^#' "$TMPD/brep")"

k=$TMPD/k.data
"$PMIPROF" record -o "$k" -- "$wl" loop 3 >"$TMPD/kout" 2>/dev/null & rp=$!
for n in $(seq 100); do wp=$(pgrep -P $rp -x regions) && break; sleep 0.1; done
sleep 1.5
kill -KILL $rp; wait $rp 2>/dev/null
for n in $(seq 150); do kill -0 "$wp" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$wp" 2>/dev/null; then
	not_ok "workload still running 15 s after the recorder was killed"
	kill -KILL "$wp"
else
	ok "recorder killed: the workload ran to its end"
fi
for n in $(seq 50); do grep -q 'regions: done' "$TMPD/kout" && break; sleep 0.1; done
grep -q 'regions: done' "$TMPD/kout" && ok "the workload finished its loop (not stuck in a region call)" || not_ok "workload output" "$(cat "$TMPD/kout")"
"$PMIPROF" report -i "$k" --by region >"$TMPD/krep" 2>"$TMPD/kerr"; rc=$?
[ $rc -eq 0 ] && grep -Eq '^ +[0-9]+ .* tick$' "$TMPD/krep" && grep -q 'did not finish' "$TMPD/kerr" &&
	ok "the cut trace is readable: tick windows, 'did not finish' warning" || not_ok "killed trace" "rc=$rc" "$(cat "$TMPD/krep" "$TMPD/kerr")"
done_testing
