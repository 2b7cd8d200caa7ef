#!/usr/bin/env bash
# Misuse of the region API is counted, never fatal: end without begin,
# the end of an outer region while an inner one is open, a thousand
# distinct names, a fork inside a region, 40 nested levels (32 measured).
# The workload runs to its end with status 0 and the same output as
# without pmiprof; the counts appear in the text and as csv '#' lines.
# Misuse of the command: --regions without a command, bad modes.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
wl=$WORKLOADS/regions
timeout 60 "$PMIPROF" stat --regions -e task-clock -- "$wl" misuse >"$TMPD/stdout" 2>"$TMPD/out"; rc=$?
[ $rc -eq 0 ] && grep -qx 'regions: misuse survived' "$TMPD/stdout" && ok "workload ends normally (status 0)" ||
	not_ok "workload survived" "rc=$rc" "$(cat "$TMPD/stdout")" "$(tail -20 "$TMPD/out")"
for a in '1 x end of a region that was not open' '1 x end of an outer region while inner ones were open' \
	'8 x begin nested deeper than 32' '1 x fork inside a region'; do
	grep -q "anomaly: $a" "$TMPD/out" && ok "counted: $a" || not_ok "counted: $a" "$(grep -v '^    ' "$TMPD/out" | tail -20)"
done
n=$(grep -c '^  region name-[0-9]*: 1 call ' "$TMPD/out")
[ "$n" = 1000 ] && ok "a thousand distinct names, each reported" || not_ok "1000 names" "found $n"
grep -Eq '^  region in-child: 1 call \(tid [0-9]+: 1\)' "$TMPD/out" && ok "the forked child's own region counted" ||
	not_ok "child region" "$(grep -v '^    ' "$TMPD/out" | tail -20)"
grep -Eq '^  region forking: 1 call ' "$TMPD/out" && ok "the parent's region across the fork counted once" ||
	not_ok "parent region" "$(grep forking "$TMPD/out")"
grep -Eq '^  region deep: 32 calls' "$TMPD/out" && ok "32 nested levels measured" || not_ok "deep" "$(grep deep "$TMPD/out")"
"$PMIPROF" stat --regions --format csv -e task-clock -- "$wl" misuse >/dev/null 2>"$TMPD/csv"
grep -q '^# anomaly,fork inside a region.*,1$' "$TMPD/csv" && ok "csv: anomalies as # lines" || not_ok "csv anomalies" "$(grep '^#' "$TMPD/csv")"
"$PMIPROF" stat --regions -p 1 2>"$TMPD/e1"; rc=$?
[ $rc -eq 2 ] && grep -q 'needs a command' "$TMPD/e1" && ok "--regions -p: usage error" || not_ok "--regions -p" "rc=$rc $(cat "$TMPD/e1")"
"$PMIPROF" stat --regions --region-read fast -- true 2>"$TMPD/e2"; rc=$?
[ $rc -eq 2 ] && grep -q "auto, outer, sampled\[:N\] (N a power of two) or clock" "$TMPD/e2" && ok "bad --region-read: usage error" || not_ok "--region-read" "rc=$rc $(cat "$TMPD/e2")"
"$PMIPROF" stat --regions -- true 2>"$TMPD/e3"; rc=$?
[ $rc -eq 0 ] && grep -q 'no region was entered' "$TMPD/e3" && ok "a command without regions: says so" || not_ok "no regions" "$(cat "$TMPD/e3")"
done_testing
