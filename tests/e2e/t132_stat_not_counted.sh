#!/usr/bin/env bash
# A counter that never ran is <not counted>, not 0, as in perf stat: a -p
# target that sleeps the whole time never schedules its per-task counters
# (time_running stays 0).  Both layouts; perf stat agrees when installed.
# (Multiplexed scaling needs a PMU: tests/unit/test_stat_format.c.)
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
sleep 60 & sp=$!
trap 'kill $sp 2>/dev/null; rm -rf "$TMPD"' EXIT
# Attach only once it sleeps: a target still starting up (exec, page faults)
# runs for a moment and its counters count.
for i in $(seq 50); do
	[ "$(readlink /proc/$sp/exe 2>/dev/null)" = "$(command -v sleep)" ] &&
		[ "$(awk '{ print $3 }' /proc/$sp/stat 2>/dev/null)" = S ] && break
	sleep 0.1
done
sleep 0.2
for sep in "" ","; do
	"$PMIPROF" stat ${sep:+-x "$sep"} -e task-clock,page-faults -p $sp 2>"$TMPD/out" & rp=$!
	sleep 1
	kill -INT $rp; wait $rp; rc=$?
	[ $rc -eq 0 ] || not_ok "stat -p ${sep:+-x$sep }ends on SIGINT" "rc=$rc" "$(cat "$TMPD/out")"
	if [ -n "$sep" ]; then
		grep -qx '<not counted>,task-clock,0.00' "$TMPD/out" && grep -qx '<not counted>,page-faults,0.00' "$TMPD/out" \
			&& ok "-x,: <not counted> for counters that never ran" || not_ok "-x,: <not counted>" "$(cat "$TMPD/out")"
	else
		grep -Eq '<not counted> +msec +task-clock' "$TMPD/out" && grep -Eq '<not counted> +page-faults' "$TMPD/out" \
			&& ok "<not counted> for counters that never ran" || not_ok "<not counted>" "$(cat "$TMPD/out")"
		grep -Eq '^ +0(\.00)? ' "$TMPD/out" && not_ok "no 0 shown for them" "$(cat "$TMPD/out")" || ok "no 0 shown for them"
	fi
done
if command -v perf >/dev/null; then
	perf stat -x, -e task-clock -p $sp -- sleep 0.5 2>"$TMPD/perf" >/dev/null
	grep -q '^<not counted>' "$TMPD/perf" && ok "perf stat says <not counted> too" || skip "perf stat agrees" "perf stat counted: $(cat "$TMPD/perf")"
fi
# A counter that ran is still a number.
"$PMIPROF" stat -x, -e task-clock -- "$WORKLOADS/crasher" 0.2 exit:0 2>"$TMPD/ran"
grep -Eq '^[0-9]+,task-clock,100\.00$' "$TMPD/ran" && ok "a counter that ran all the time: value, 100.00" || not_ok "counted value" "$(cat "$TMPD/ran")"
done_testing
