#!/usr/bin/env bash
# stat -r N runs the command N times and prints per event the mean, the
# standard error as a share of it, and min/max (perf stat -r's layout);
# stat -I MS prints the counts of every interval while the command runs.
# Checked against the work done: crasher spins 0.3 s per run, so task-clock
# is at most ~300 msec per run (less when other jobs share the CPUs) and
# at most ~100 msec per 100 ms interval.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
"$PMIPROF" stat -r 3 -e task-clock,page-faults -- "$WORKLOADS/crasher" 0.3 exit:0 2>"$TMPD/r"; rc=$?
[ $rc -eq 0 ] && ok "-r 3: exit status 0" || not_ok "-r exit" "rc=$rc"
grep -q "Performance counter stats for '.*crasher 0.3 exit:0' (3 runs):" "$TMPD/r" && ok "-r 3: header says 3 runs" || not_ok "-r header" "$(cat "$TMPD/r")"
l=$(grep -E ' msec task-clock ' "$TMPD/r")
if printf '%s\n' "$l" | grep -Eq '\( \+- +[0-9.]+% \)  min [0-9.]+  max [0-9.]+' &&
	printf '%s\n' "$l" | awk '{ m = $1 } END { exit !(m > 30 && m < 450) }'; then
	ok "-r: task-clock mean (<= 300 msec of CPU) with +- and min/max ($l)"
else
	not_ok "-r task-clock line" "$(cat "$TMPD/r")"
fi
awk '/ msec task-clock / { for (i = 1; i <= NF; i++) { if ($i == "min") mn = $(i + 1); if ($i == "max") mx = $(i + 1) } m = $1 }
	END { exit !(mn <= m && m <= mx) }' "$TMPD/r" && ok "-r: min <= mean <= max" || not_ok "-r min/mean/max" "$(cat "$TMPD/r")"
"$PMIPROF" stat -r 2 -x, -e task-clock -- "$WORKLOADS/crasher" 0.1 exit:0 2>"$TMPD/rx"
grep -Eq '^[0-9.]+,task-clock,[0-9.]+,[0-9.]+,[0-9.]+$' "$TMPD/rx" && ok "-r -x,: mean,event,stddev%,min,max" || not_ok "-r -x" "$(cat "$TMPD/rx")"
"$PMIPROF" stat -r 0 -- true 2>/dev/null; [ $? -eq 2 ] && ok "-r 0: usage error" || not_ok "-r 0 usage error"
"$PMIPROF" stat -r 2 -I 100 -- true 2>/dev/null; [ $? -eq 2 ] && ok "-r with -I: usage error" || not_ok "-r -I usage error"

"$PMIPROF" stat -I 100 -x, -e task-clock -- "$WORKLOADS/crasher" 0.6 exit:0 2>"$TMPD/i"; rc=$?
[ $rc -eq 0 ] && ok "-I: exit status 0" || not_ok "-I exit" "rc=$rc"
n=$(grep -Ec '^[0-9]+\.[0-9]{9},[0-9]+,task-clock,' "$TMPD/i")
[ "$n" -ge 3 ] && ok "-I 100 over 0.6 s: $n interval lines" || not_ok "-I lines" "$(cat "$TMPD/i")"
awk -F, '/^[0-9]+\.[0-9]+,[0-9]+,task-clock,/ { if ($2 > 130e6) bad = 1; t[NR] = $1; if (NR > 1 && t[NR] <= t[NR - 1]) bad = 1 }
	END { exit bad }' "$TMPD/i" && ok "-I: times increase, no interval above its length of task-clock" ||
	not_ok "-I values" "$(cat "$TMPD/i")"
grep -Eq '^[0-9]+,task-clock,' "$TMPD/i" && ok "-I: the whole-run total follows" || not_ok "-I total" "$(cat "$TMPD/i")"
done_testing
