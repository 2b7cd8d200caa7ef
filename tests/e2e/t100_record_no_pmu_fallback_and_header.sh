#!/usr/bin/env bash
# pmiprof record with default events: on a machine without a hardware PMU it
# falls back to cpu-clock (10 kHz) + task-clock, page-faults, context-switches
# with exactly one notice line and a TIME_BASED header; with a PMU it keeps
# instructions,cycles,cache-misses,branch-misses.  Either way the header is
# complete and dump reads the trace to its FINISH record.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
out=$TMPD/t.data
"$PMIPROF" record -o "$out" -- "$WORKLOADS/shares" -n 200 >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && ok "record exits 0 for a successful workload" || not_ok "record exits 0" "rc=$rc" "$(cat "$TMPD/err")"
"$PMIPROF" dump -i "$out" >"$TMPD/dump" 2>"$TMPD/derr"; rc=$?
[ $rc -eq 0 ] && ok "dump reads the trace" || not_ok "dump reads the trace" "$(cat "$TMPD/derr")"
if have_perf_hw; then
	grep -q 'notice' "$TMPD/err" && not_ok "no fallback notice with a PMU" "$(cat "$TMPD/err")" || ok "no fallback notice with a PMU"
	grep -q '"instructions".*trigger' "$TMPD/dump" && ok "instructions is the trigger" || not_ok "instructions is the trigger"
	grep -q '^flags:.*time-based' "$TMPD/dump" && not_ok "not time-based with a PMU" || ok "not time-based with a PMU"
else
	n=$(grep -c 'notice' "$TMPD/err")
	[ "$n" -eq 1 ] && grep -q 'time-based' "$TMPD/err" && ok "exactly one notice line saying windows are time-based" \
		|| not_ok "exactly one notice line saying windows are time-based" "$(cat "$TMPD/err")"
	grep -q '^flags:.*time-based' "$TMPD/dump" && ok "header flag TIME_BASED" || not_ok "header flag TIME_BASED" "$(head -20 "$TMPD/dump")"
	grep -q '"cpu-clock".*trigger' "$TMPD/dump" && ok "cpu-clock is the trigger" || not_ok "cpu-clock is the trigger"
	for e in task-clock page-faults context-switches; do
		grep -q "^  event [0-9].*\"$e\"" "$TMPD/dump" && ok "sibling $e recorded" || not_ok "sibling $e recorded"
	done
	grep -q '^trigger:.*freq 10000 Hz' "$TMPD/dump" && ok "default rate 10 kHz" || not_ok "default rate 10 kHz" "$(grep '^trigger' "$TMPD/dump")"
	grep -q '^note:.*no hardware PMU' "$TMPD/dump" && ok "header note explains the fallback" || not_ok "header note explains the fallback"
	# 10 kHz cpu-clock: RECORDS4 predicts time steps from the nominal 100 us
	grep -q '^time step: *100000 ticks$' "$TMPD/dump" && ok "header TIME_STEP: the nominal 100000 ns interval, shown by dump" ||
		not_ok "header TIME_STEP shown by dump" "$(grep -e '^time step' -e '^predict' "$TMPD/dump")"
fi
for f in hostname kernel 'cpu vendor' 'cpu model name' pmu recorder cmdline clock nr_cpus; do
	v=$(grep "^$f:" "$TMPD/dump" | head -1 | sed 's/^[^:]*: *//')
	[ -n "$v" ] && [ "$v" != '""' ] && ok "header field '$f' filled" || not_ok "header field '$f' filled" "$v"
done
grep -q '^clock:.*"monotonic"' "$TMPD/dump" && ok "clock is CLOCK_MONOTONIC" || not_ok "clock is CLOCK_MONOTONIC"
grep -q '^sampling:.*perf' "$TMPD/dump" && ok "mode/backend perf" || not_ok "mode/backend perf"
ns=$(grep -c ' sample ' "$TMPD/dump")
[ "$ns" -gt 100 ] && ok "samples recorded ($ns)" || not_ok "samples recorded" "$ns"
grep -q ' finish .*exit_code=0' "$TMPD/dump" && ok "FINISH record with exit code" || not_ok "FINISH record with exit code"
grep -q ' sample .*first' "$TMPD/dump" && ok "first window of a thread marked FIRST" || not_ok "first window marked FIRST"
grep -q 'recorded [0-9]* samples.*backend perf.*trigger' "$TMPD/err" && ok "one-line summary" || not_ok "one-line summary" "$(cat "$TMPD/err")"
done_testing
