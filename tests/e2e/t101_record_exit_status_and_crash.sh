#!/usr/bin/env bash
# record exits with the workload's status, reports death by signal, and the
# trace of a crashed or killed workload keeps everything with the exit reason.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
"$PMIPROF" record -q -o "$TMPD/a.data" -- "$WORKLOADS/crasher" 0.1 exit:7 2>"$TMPD/err"; rc=$?
[ $rc -eq 7 ] && ok "exit status 7 passed through" || not_ok "exit status 7 passed through" "rc=$rc" "$(cat "$TMPD/err")"
"$PMIPROF" dump -i "$TMPD/a.data" | grep -q 'finish .*exit_code=7' && ok "FINISH has exit code 7" || not_ok "FINISH has exit code 7"

"$PMIPROF" record -o "$TMPD/s.data" -- "$WORKLOADS/crasher" 0.2 segv >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 139 ] && ok "SIGSEGV: exit status 128+11" || not_ok "SIGSEGV: exit status 128+11" "rc=$rc"
grep -q 'signal 11' "$TMPD/err" && ok "death by signal reported" || not_ok "death by signal reported" "$(cat "$TMPD/err")"
"$PMIPROF" dump -i "$TMPD/s.data" >"$TMPD/dump" 2>&1
grep -q 'finish .*signaled.*exit_code=11' "$TMPD/dump" && ok "FINISH says signaled, signal 11" || not_ok "FINISH says signaled" "$(grep finish "$TMPD/dump")"
n=$(grep -c ' sample ' "$TMPD/dump")
[ "$n" -ge 10 ] && ok "crashed workload's samples kept ($n)" || not_ok "crashed workload's samples kept" "$n"

"$PMIPROF" record -q -o "$TMPD/k.data" -- "$WORKLOADS/crasher" 0 wait 2>/dev/null &
rp=$!
sleep 0.5
cp=$(pgrep -P $rp -f crasher | head -1)
[ -n "$cp" ] && kill -KILL "$cp"
wait $rp; rc=$?
[ $rc -eq 137 ] && ok "killed workload: exit 128+9" || not_ok "killed workload: exit 128+9" "rc=$rc"
"$PMIPROF" dump -i "$TMPD/k.data" 2>&1 | grep -q 'finish .*signaled.*exit_code=9' && ok "trace of killed workload complete" || not_ok "trace of killed workload complete"
done_testing
