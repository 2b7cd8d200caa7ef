#!/usr/bin/env bash
# pmiprof daemon: a directory of segments named by start time, each a
# complete trace that reads on its own (FINISH, side-band re-synthesized so a
# process that started before the segment symbolizes); SIGTERM closes the
# open segment (no .open left, exit 0); kill -9 leaves the open segment
# readable as an unfinished trace; --retain deletes the oldest closed
# segments by age and by size; bad options are usage errors.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "system-wide recording needs root or CAP_PERFMON"
# a daemon left running by a failed check must not outlive the test
dp=
trap '[ -n "$dp" ] && kill -9 $dp 2>/dev/null; rm -rf "$TMPD"' EXIT

# usage errors first (no recording)
for bad in "--segment 0" "--segment x" "--retain 10Q" "--retain 0" "--top-comms 0" "-p 1" "-o x"; do
	# shellcheck disable=SC2086
	"$PMIPROF" daemon --dir "$TMPD/never" --no-listen $bad >/dev/null 2>"$TMPD/err"; rc=$?
	[ $rc -eq 2 ] && ok "usage error: daemon $bad" || not_ok "usage error: daemon $bad" "rc $rc: $(cat "$TMPD/err")"
done
"$PMIPROF" daemon --dir "$TMPD/never" --no-listen -- true >/dev/null 2>"$TMPD/err"
[ $? -eq 2 ] && ok "usage error: a command" || not_ok "usage error: a command" "$(cat "$TMPD/err")"
[ ! -e "$TMPD/never" ] && ok "nothing created on usage errors" || not_ok "nothing created on usage errors"

# 1 s segments while the shares workload runs (it starts before the 2nd segment)
D=$TMPD/segs
"$PMIPROF" daemon --dir "$D" --segment 1 --no-listen -F 1000 2>"$TMPD/log" &
dp=$!
sleep 0.5
"$WORKLOADS/shares" 3.5 >/dev/null &
wp=$!
sleep 1.8
ls "$D" >"$TMPD/mid"
wait $wp
kill -TERM $dp
wait $dp; rc=$?
[ $rc -eq 0 ] && ok "SIGTERM: exit 0" || not_ok "SIGTERM: exit 0" "rc $rc: $(cat "$TMPD/log")"
grep -q '\.pmiprof\.open$' "$TMPD/mid" && ok "an open segment while recording" || not_ok "an open segment while recording" "$(cat "$TMPD/mid")"
ls "$D" >"$TMPD/end"
n=$(grep -c '^seg-[0-9]\{8\}T[0-9]\{6\}\.[0-9]\{6\}Z\.pmiprof$' "$TMPD/end")
[ "$n" -ge 4 ] && ok "closed segments named by start time ($n)" || not_ok "closed segments named by start time" "$(cat "$TMPD/end")"
grep -q '\.open' "$TMPD/end" && not_ok "no .open left after SIGTERM" "$(cat "$TMPD/end")" || ok "no .open left after SIGTERM"
# every segment: a complete trace with FINISH; the last but one read alone names work_a
bad=0
for f in "$D"/seg-*.pmiprof; do
	"$PMIPROF" dump -i "$f" >"$TMPD/dump" 2>&1 || bad=$((bad + 1))
	grep -q ' finish ' "$TMPD/dump" || bad=$((bad + 1))
	grep -q 'system-wide' "$TMPD/dump" || bad=$((bad + 1))
done
[ $bad -eq 0 ] && ok "every segment is a complete system-wide trace with FINISH" || not_ok "every segment is a complete trace" "$bad failures"
# a segment that started while shares already ran: its side-band came from /proc
mid=$(ls "$D"/seg-*.pmiprof | sed -n 3p)
"$PMIPROF" report -q -i "$mid" --comm shares >"$TMPD/rep" 2>&1
grep -q 'work_a' "$TMPD/rep" && ok "a segment read alone symbolizes a process started before it" || not_ok "segment symbolizes alone" "$(head -20 "$TMPD/rep")"
"$PMIPROF" dump -i "$mid" | grep -q ' mmap .*workloads/shares' && ok "segment re-synthesizes MMAP of running processes" || not_ok "segment re-synthesizes MMAP"
# name order is time order: the name is the header's wall-clock start, and
# the monotonic start times increase in name order
prev=0; order=1; names=1
for f in "$D"/seg-*.pmiprof; do
	line=$("$PMIPROF" dump -i "$f" 2>/dev/null | grep -m1 '^clock:')
	mono=$(echo "$line" | sed 's/.* start \([0-9]*\) realtime.*/\1/')
	real=$(echo "$line" | sed 's/.* realtime \([0-9]*\) ns.*/\1/')
	want=$(date -u -d "@$((real / 1000000000))" +seg-%Y%m%dT%H%M%S).$(printf %06d $((real % 1000000000 / 1000)))Z.pmiprof
	[ "$(basename "$f")" = "$want" ] || names=0
	[ -n "$mono" ] && [ "$mono" -gt "$prev" ] || order=0
	prev=${mono:-0}
done
[ $names -eq 1 ] && ok "segment names are their header's wall-clock start (UTC)" || not_ok "segment names are their header's wall-clock start" "$(basename "$f") vs $want"
[ $order -eq 1 ] && ok "segments in name order start in time order" || not_ok "segments in name order start in time order"

# kill -9: the open segment stays readable up to its last flushed chunk
K=$TMPD/killed
"$PMIPROF" daemon --dir "$K" --segment 60 --no-listen -F 1000 2>/dev/null &
dp=$!
sleep 2.5
kill -9 $dp; wait $dp 2>/dev/null
o=$(ls "$K"/*.pmiprof.open 2>/dev/null | head -1)
[ -n "$o" ] && ok "kill -9 leaves the open segment" || not_ok "kill -9 leaves the open segment" "$(ls "$K")"
"$PMIPROF" report -i "$o" >"$TMPD/krep" 2>&1; rc=$?
s=$(grep -o '[0-9]* samples (windows)' "$TMPD/krep" | grep -o '^[0-9]*')
[ $rc -eq 0 ] && [ "${s:-0}" -gt 100 ] && ok "killed segment readable ($s samples)" || not_ok "killed segment readable" "rc $rc: $(head -5 "$TMPD/krep")"
grep -qi 'did not finish\|not finish\|unfinished' "$TMPD/krep" && ok "killed segment reported unfinished" || not_ok "killed segment reported unfinished" "$(grep -i warn "$TMPD/krep" | head -3)"

# retention by age: 1 s segments kept 2 s
A=$TMPD/age
"$PMIPROF" daemon --dir "$A" --segment 1 --retain 2s --no-listen -F 200 2>"$TMPD/alog" &
dp=$!
sleep 6.5
kill -INT $dp; wait $dp
n=$(ls "$A" | wc -l)
[ "$n" -ge 1 ] && [ "$n" -le 5 ] && ok "--retain 2s keeps the last few segments ($n of ~6)" || not_ok "--retain 2s" "$n: $(ls "$A")"
grep -q 'retention: deleted' "$TMPD/alog" && ok "retention says what it deleted" || not_ok "retention says what it deleted" "$(cat "$TMPD/alog")"
# retention by size
S=$TMPD/size
"$PMIPROF" daemon --dir "$S" --segment 1 --retain 64K --no-listen -F 1000 2>/dev/null &
dp=$!
sleep 5.5
kill -TERM $dp; wait $dp
biggest=$(ls -l "$S" | awk 'NR > 1 && $5 > m {m = $5} END {print m + 0}')
total=$(ls -l "$S" | awk 'NR > 1 {t += $5} END {print t + 0}')
# the limit holds after each pass, except for the segment closed last (no pass after it)
[ "$total" -le $((65536 + biggest)) ] && ok "--retain 64K: $total bytes left (largest segment $biggest)" || not_ok "--retain 64K" "$total bytes: $(ls -l "$S")"
done_testing
