#!/usr/bin/env bash
# SIGINT/SIGTERM sent to pmiprof record are forwarded to the workload, the
# recording finishes with a complete trace (FINISH: interrupted, signaled),
# and record exits with the workload's status (128+2 / 128+15).
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
for sig in INT TERM; do
	"$PMIPROF" record -q -o "$TMPD/$sig.data" -- "$WORKLOADS/crasher" 0 wait >/dev/null 2>"$TMPD/err" &
	rp=$!
	sleep 0.5
	kill -$sig $rp
	wait $rp; rc=$?
	num=$(kill -l $sig)
	[ $rc -eq $((128 + num)) ] && ok "SIG$sig: workload got it, exit 128+$num" || not_ok "SIG$sig: exit 128+$num" "rc=$rc" "$(cat "$TMPD/err")"
	"$PMIPROF" dump -i "$TMPD/$sig.data" >"$TMPD/dump" 2>&1
	grep -q "finish .*interrupted.*exit_code=$num" "$TMPD/dump" && ok "SIG$sig: FINISH interrupted, signal $num" || not_ok "SIG$sig: FINISH record" "$(grep finish "$TMPD/dump")"
	grep -q 'truncated no' "$TMPD/dump" && ok "SIG$sig: trace complete" || not_ok "SIG$sig: trace complete" "$(tail -2 "$TMPD/dump")"
	[ "$(grep -c ' sample ' "$TMPD/dump")" -ge 10 ] && ok "SIG$sig: samples kept" || not_ok "SIG$sig: samples kept"
done
# -p with no command: SIGINT ends the recording with status 0, target untouched.
"$WORKLOADS/crasher" 0 wait & tp=$!
"$PMIPROF" record -q -o "$TMPD/p.data" -p $tp 2>"$TMPD/err" & rp=$!
sleep 0.5; kill -INT $rp; wait $rp; rc=$?
kill -0 $tp 2>/dev/null && ok "-p target survives the recorder's SIGINT" || not_ok "-p target survives"
kill -KILL $tp; wait $tp 2>/dev/null
[ $rc -eq 0 ] && ok "-p: SIGINT ends recording with status 0" || not_ok "-p: SIGINT ends recording" "rc=$rc" "$(cat "$TMPD/err")"
done_testing
