#!/usr/bin/env bash
# stat --regions' text table says the unit of every row (ns for the clocks
# and wall-ns, count for other events) and of the subtracted empty-region
# cost; its CSV layout stays as it was (raw values, no unit column).
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
wl=$WORKLOADS/regions
"$PMIPROF" stat --regions -e task-clock,page-faults -- "$wl" shares 20 2> "$TMPD/t"; rc=$?
[ $rc -eq 0 ] && ok "exit status 0" || not_ok "rc" "rc=$rc" "$(cat "$TMPD/t")"
grep -Eq '^    event +sum +mean +min +median +mode +p99 +max  unit$' "$TMPD/t" &&
	ok "the heading has a unit column" || not_ok "heading" "$(cat "$TMPD/t")"
for row in "task-clock ns" "page-faults count" "wall-ns ns"; do
	set -- $row
	awk -v e="$1" -v u="$2" '/^  region heavy:/ { f = 1 } f && $1 == e { print ($9 == u) ? "yes" : "no"; exit }' "$TMPD/t" |
		grep -qx yes && ok "$1 row ends with its unit ($2)" || not_ok "$1 unit" "$(cat "$TMPD/t")"
done
grep -Eq 'empty-region cost subtracted .*task-clock [0-9]+ ns, page-faults [0-9]+, wall-ns [0-9]+ ns$' "$TMPD/t" &&
	ok "the subtracted cost has its units" || not_ok "cost units" "$(grep empty-region "$TMPD/t")"
"$PMIPROF" stat --regions --format csv -e task-clock -- "$wl" shares 20 2> "$TMPD/c"
head -1 "$TMPD/c" | grep -qx 'region,calls,event,sum,mean,min,median,mode,p99,max,modes' &&
	awk -F, '$1 == "heavy" && $3 == "task-clock" { exit !(NF == 11 && $4 ~ /^[0-9]+$/) }' "$TMPD/c" &&
	ok "csv: the same columns, raw values" || not_ok "csv" "$(cat "$TMPD/c")"
if ! have_perf_hw; then
	"$PMIPROF" stat --regions -e task-clock,instructions -- "$wl" shares 5 2> "$TMPD/n"
	grep -Eq '^   instructions +<not supported> in the workload.s threads$' "$TMPD/n" &&
		ok "an event the threads cannot open: <not supported>, no errno text" ||
		not_ok "<not supported> in the threads" "$(grep instructions "$TMPD/n")"
else
	skip "an event the threads cannot open" "instructions opens here"
fi
done_testing
