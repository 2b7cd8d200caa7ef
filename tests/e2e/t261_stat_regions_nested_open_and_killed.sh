#!/usr/bin/env bash
# Regions that are not closed normally are reported, not lost: nested
# regions (outer around inner) both counted with the inner one's depth; a
# region left open at exit named with its thread; a workload killed by a
# signal inside a region: the calls it completed are counted and the open
# region reported.  And when pmiprof stat itself is killed (SIGKILL) in
# the middle, the workload neither crashes nor hangs: it runs to its end.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
wl=$WORKLOADS/regions
"$PMIPROF" stat --regions -e task-clock -- "$wl" nested 50 2>"$TMPD/out"
grep -Eq '^  region outer: 50 calls' "$TMPD/out" && ok "outer: 50 calls" || not_ok "outer" "$(cat "$TMPD/out")"
grep -Eq '^  region inner: 50 calls, nested \(depth 1\)' "$TMPD/out" && ok "inner: 50 calls, depth 1" || not_ok "inner" "$(cat "$TMPD/out")"
o=$(awk '/^  region outer/ { f = 1 } f && $1 == "task-clock" { print $2; exit }' "$TMPD/out")
i=$(awk '/^  region inner/ { f = 1 } f && $1 == "task-clock" { print $2; exit }' "$TMPD/out")
awk -v o="$o" -v i="$i" 'BEGIN { r = o / i; exit !(r > 1.8 && r < 2.2) }' &&
	ok "outer includes inner: sum ratio ~2" || not_ok "outer/inner ratio" "outer=$o inner=$i"
grep -Eq 'region left-open: 0 calls, 1 left open at exit' "$TMPD/out" && grep -Eq '^  pid [0-9]+ tid [0-9]+: left-open$' "$TMPD/out" &&
	ok "a region left open at exit is reported with its thread" || not_ok "left open" "$(cat "$TMPD/out")"

# the workload killed inside its regions
"$PMIPROF" stat --regions -e task-clock -- "$wl" loop 30 2>"$TMPD/killed" >/dev/null & sp=$!
for n in $(seq 100); do wp=$(pgrep -P $sp -x regions) && break; sleep 0.1; done
sleep 0.5
kill -KILL "$wp" 2>/dev/null
wait $sp; rc=$?
[ $rc -eq 137 ] && ok "stat exits 128+9 for a killed workload" || not_ok "exit status of a killed workload" "rc=$rc"
grep -Eq '^  region tick: [1-9][0-9]* calls' "$TMPD/killed" && ok "killed workload: completed calls counted" ||
	not_ok "killed: calls" "$(cat "$TMPD/killed")"
grep -Eq '^  pid [0-9]+ tid [0-9]+: tick$' "$TMPD/killed" && ok "killed workload: its open region reported" ||
	not_ok "killed: open region" "$(cat "$TMPD/killed")"

# pmiprof stat killed: the workload goes on to its end
"$PMIPROF" stat --regions -e task-clock -- "$wl" loop 1.5 >"$TMPD/wlout" 2>/dev/null & sp=$!
for n in $(seq 100); do wp=$(pgrep -P $sp -x regions) && break; sleep 0.1; done
sleep 0.3
kill -KILL $sp
for n in $(seq 100); do kill -0 "$wp" 2>/dev/null || break; sleep 0.1; done
kill -0 "$wp" 2>/dev/null && { not_ok "workload still running 10 s after pmiprof was killed"; kill -KILL "$wp"; } ||
	ok "workload ended after pmiprof was killed"
grep -q '^regions: done' "$TMPD/wlout" && ok "it ran to its end (no crash, no hang)" || not_ok "workload output" "$(cat "$TMPD/wlout")"
done_testing
