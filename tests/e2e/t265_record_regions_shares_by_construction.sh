#!/usr/bin/env bash
# record + report --by region on the regions workload: two threads, each
# 150 x "heavy" (3 units of work) and 150 x "light" (1 unit): the windows
# (cpu-clock ticks here) split 3:1 between the regions, within 5 points of
# 75 % / 25 % of the windows in either region.  Every marker is in the trace
# (4 per iteration, none dropped), the --windows CSV has a region column
# that agrees with --by region, and nested regions: --region outer counts
# the windows of outer and of inner nested in it, a region left open at
# exit is named in the header.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
wl=$WORKLOADS/regions
d=$TMPD/s.data
"$PMIPROF" record -o "$d" -- "$wl" shares 150 2>"$TMPD/rec"; rc=$?
[ $rc -eq 0 ] && ok "record exits 0" || not_ok "record" "rc=$rc" "$(cat "$TMPD/rec")"
grep -q 'code regions: 1200 markers of 2 region(s) recorded, 0 dropped' "$TMPD/rec" &&
	ok "1200 markers (2 threads x 150 x 2 regions x begin/end) recorded" || not_ok "marker count" "$(cat "$TMPD/rec")"
"$PMIPROF" dump -i "$d" | grep -c ' region  *\(begin\|end\) ' >"$TMPD/n"
[ "$(cat "$TMPD/n")" = 1200 ] && ok "dump shows 1200 REGION records" || not_ok "dump count" "$(cat "$TMPD/n")"
"$PMIPROF" report -i "$d" --by region --format csv >"$TMPD/csv" 2>"$TMPD/err"
h=$(awk -F, '$3 == "heavy" { print $1 }' "$TMPD/csv")
l=$(awk -F, '$3 == "light" { print $1 }' "$TMPD/csv")
awk -v h="${h:-0}" -v l="${l:-0}" 'BEGIN { s = h / (h + l + 1e-9); exit !(h + l > 200 && s > 0.70 && s < 0.80) }' &&
	ok "heavy:light windows 3:1 within 5 points (heavy $h, light $l)" || not_ok "3:1 share of windows" "$(cat "$TMPD/csv")"
grep -q '^[0-9]*,[0-9.]*,\[no region\],' "$TMPD/csv" && ok "a [no region] row" || not_ok "[no region] row" "$(cat "$TMPD/csv")"
"$PMIPROF" report -i "$d" --windows --format csv >"$TMPD/win" 2>/dev/null
head -1 "$TMPD/win" | grep -q ',after_loss,region$' && ok "--windows csv ends with a region column" || not_ok "region column" "$(head -1 "$TMPD/win")"
wh=$(awk -F, 'NR > 1 && $NF == "heavy"' "$TMPD/win" | wc -l)
[ "$wh" = "$h" ] && ok "--windows region column agrees with --by region ($wh heavy windows)" || not_ok "windows vs by region" "windows $wh by-region $h"
"$PMIPROF" report -i "$d" --windows 2>/dev/null | grep -Eq '^ +[0-9]+ .* (heavy|light) +work ' &&
	ok "--windows table shows the region before the symbol" || not_ok "windows table" "$("$PMIPROF" report -i "$d" --windows | sed -n 1,20p)"

# nested, and a region left open at exit
n=$TMPD/n.data
"$PMIPROF" record -q -o "$n" -- "$wl" nested 200 2>"$TMPD/nrec"
"$PMIPROF" report -i "$n" --by region --format csv >"$TMPD/ncsv" 2>/dev/null
o=$(awk -F, '$3 == "outer" { print $1 }' "$TMPD/ncsv"); i=$(awk -F, '$3 == "inner" { print $1 }' "$TMPD/ncsv")
awk -v o="${o:-0}" -v i="${i:-0}" 'BEGIN { exit !(o + i > 100 && o / (o + i) > 0.35 && o / (o + i) < 0.65) }' &&
	ok "nested: outer (innermost elsewhere) and inner split ~1:1 ($o, $i)" || not_ok "nested split" "$(cat "$TMPD/ncsv")"
"$PMIPROF" report -i "$n" --region outer --format csv >"$TMPD/fo" 2>/dev/null
fo=$(awk -F, 'NR > 1 { s += $1 } END { print s + 0 }' "$TMPD/fo")
[ "$fo" = $((o + i)) ] && ok "--region outer: the windows of outer and of inner nested in it ($fo)" ||
	not_ok "--region outer" "got $fo, outer $o + inner $i"
"$PMIPROF" report -i "$n" --by region >"$TMPD/nt" 2>/dev/null
grep -Eq '^# code regions open at the end: 1 \(tid [0-9]+: left-open\)' "$TMPD/nt" &&
	ok "a region left open at exit is named in the header" || not_ok "left open" "$(cat "$TMPD/nt")"
"$PMIPROF" report -i "$n" --region nope >/dev/null 2>"$TMPD/nope"; rc=$?
[ $rc -eq 1 ] && grep -q "no code region named 'nope' (3 region(s) in the trace: outer, inner, left-open)" "$TMPD/nope" &&
	ok "--region of an unknown name: one message naming the regions" || not_ok "unknown region" "rc=$rc" "$(cat "$TMPD/nope")"
"$PMIPROF" report -i tests/fixtures/v13-stacks.pmiprof --by region >/dev/null 2>"$TMPD/old"; rc=$?
[ $rc -eq 1 ] && grep -q 'has no code-region markers (trace format 1.3)' "$TMPD/old" &&
	ok "--by region on a trace without markers: clear error" || not_ok "old trace" "rc=$rc" "$(cat "$TMPD/old")"
# a workload that never uses regions: no regions flag, no region column
"$PMIPROF" record -q -o "$TMPD/plain.data" -- "$WORKLOADS/shares" >/dev/null 2>&1
"$PMIPROF" dump -i "$TMPD/plain.data" 2>/dev/null | grep -m1 '^flags:' >"$TMPD/pflags"
"$PMIPROF" report -i "$TMPD/plain.data" --windows --format csv 2>/dev/null | head -1 >"$TMPD/phead"
! grep -q regions "$TMPD/pflags" && ! grep -q ',region,' "$TMPD/phead" &&
	ok "no regions used: header flag cleared at close, no region column" ||
	not_ok "no regions used" "$(cat "$TMPD/pflags" "$TMPD/phead")"
done_testing
