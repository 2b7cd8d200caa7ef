#!/usr/bin/env bash
# perf's tracepoint syntax: -e sched:sched_switch is counted by stat (ten
# sleeps switch at least ten times) and triggers record's windows (one per
# switch, with -c 1); an unknown tracepoint names where it was looked for.
# The did-you-mean proposes only names like the one typed: 'cyles' gets
# 'cycles', 'sched:sched_switch' on a system without it and 'foo' get none.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
trap 'rm -rf "$TMPD"' EXIT
sleeps='for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.01; done'
"$PMIPROF" stat -e cyles -- true >/dev/null 2>"$TMPD/err"
grep -q "did you mean 'cycles'" "$TMPD/err" && ok "'cyles': did you mean 'cycles'" || not_ok "'cyles' suggestion" "$(cat "$TMPD/err")"
for e in foo sched:no_such_tracepoint; do
	"$PMIPROF" stat -e $e -- true >/dev/null 2>"$TMPD/err"; rc=$?
	[ $rc -ne 0 ] && ! grep -q "did you mean" "$TMPD/err" \
		&& ok "'$e': no unlike name proposed" || not_ok "'$e': no unlike suggestion" "rc=$rc $(cat "$TMPD/err")"
done
tp=/sys/kernel/tracing
[ -r $tp/events/sched/sched_switch/id ] || tp=/sys/kernel/debug/tracing
[ -r $tp/events/sched/sched_switch/id ] || { skip "tracepoints" "no tracefs with sched:sched_switch"; done_testing; }
"$PMIPROF" stat -e sched:sched_switch -- sh -c "$sleeps" >/dev/null 2>"$TMPD/stat"; rc=$?
n=$(awk '$2 == "sched:sched_switch" { gsub(",", "", $1); print $1 }' "$TMPD/stat")
[ $rc -eq 0 ] && [ "${n:-0}" -ge 10 ] && ok "stat -e sched:sched_switch: $n switches for 10 sleeps" \
	|| not_ok "stat counts sched:sched_switch" "rc=$rc $(cat "$TMPD/stat")"
"$PMIPROF" record -q -e sched:sched_switch:T,task-clock -c 1 -o "$TMPD/t.data" -- sh -c "$sleeps" \
	>/dev/null 2>"$TMPD/err"; rc=$?
w=$("$PMIPROF" report -q -i "$TMPD/t.data" --format csv 2>>"$TMPD/err" | awk -F, 'NR > 1 { s += $1 } END { print s + 0 }')
[ $rc -eq 0 ] && [ "$w" -ge 10 ] && ok "record -e sched:sched_switch:T -c 1: $w windows" \
	|| not_ok "record with a tracepoint trigger" "rc=$rc windows=$w $(cat "$TMPD/err")"
done_testing
