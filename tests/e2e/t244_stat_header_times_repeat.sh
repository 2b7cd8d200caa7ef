#!/usr/bin/env bash
# pmiprof stat's text output, as perf stat's: the command with its arguments in
# the header, the user and sys CPU time of the command after the elapsed time,
# with -r the elapsed time's mean +- its standard error, and <not supported>
# without raw errno text beside it.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
"$PMIPROF" stat -e task-clock,page-faults,instructions -- "$WORKLOADS/crasher" 0.2 exit:0 2> "$TMPD/s"; rc=$?
[ $rc -eq 0 ] && ok "exit status 0" || not_ok "exit" "rc=$rc" "$(cat "$TMPD/s")"
grep -q "Performance counter stats for '$WORKLOADS/crasher 0.2 exit:0':" "$TMPD/s" &&
	ok "header: the command with its arguments" || not_ok "header" "$(cat "$TMPD/s")"
user=$(awk '$2 == "seconds" && $3 == "user" { print $1 }' "$TMPD/s")
sys=$(awk '$2 == "seconds" && $3 == "sys" { print $1 }' "$TMPD/s")
el=$(awk '$2 == "seconds" && $3 == "time" { print $1 }' "$TMPD/s")
tc=$(awk '$2 == "msec" && $3 == "task-clock" { print $1 }' "$TMPD/s")
# Same run: the command's CPU time from rusage and task-clock count the same time.
if [ -n "$user" ] && [ -n "$sys" ] && awk -v u="$user" -v s="$sys" -v t="$tc" -v e="$el" 'BEGIN {
	c = u + s; t /= 1000; exit !(c > 0.02 && c <= e + 0.02 && c > 0.6 * t - 0.02 && c < 1.4 * t + 0.02) }'; then
	ok "seconds user ($user) + sys ($sys) ~ task-clock ($tc msec), <= elapsed ($el s)"
else
	not_ok "user/sys" "user $user sys $sys task-clock $tc elapsed $el" "$(cat "$TMPD/s")"
fi
if ! have_perf_hw; then
	grep -Eq '^ +<not supported> +instructions$' "$TMPD/s" && ok "<not supported> without errno text" ||
		not_ok "<not supported> line" "$(grep 'not supported' "$TMPD/s")"
else
	skip "<not supported> without errno text" "instructions is supported here"
fi
! grep -Eq 'No such file|Operation not|Permission denied' "$TMPD/s" && ok "no raw errno text anywhere" ||
	not_ok "errno text" "$(cat "$TMPD/s")"

"$PMIPROF" stat -r 3 -e task-clock -- "$WORKLOADS/crasher" 0.1 exit:0 2> "$TMPD/r"; rc=$?
[ $rc -eq 0 ] && ok "-r 3: exit status 0" || not_ok "-r exit" "rc=$rc"
grep -q "Performance counter stats for '$WORKLOADS/crasher 0.1 exit:0' (3 runs):" "$TMPD/r" &&
	ok "-r 3: header with the arguments and the runs" || not_ok "-r header" "$(cat "$TMPD/r")"
l=$(grep 'seconds time elapsed' "$TMPD/r")
if echo "$l" | grep -Eq '^ +[0-9]+\.[0-9]+ \+- [0-9]+\.[0-9]+ seconds time elapsed  \( \+- +[0-9.]+% \)$' &&
	echo "$l" | awk '{ exit !($1 >= 0.1 && $1 < 2 && $3 < $1) }'; then
	ok "-r: elapsed mean +- stddev of the mean ($l)"
else
	not_ok "-r elapsed" "$(cat "$TMPD/r")"
fi
done_testing
