#!/usr/bin/env bash
# A recorder that dies without cleaning up (SIGKILL, power loss) leaves a
# trace readable up to its last complete chunk: chunks are flushed at least
# once a second, so a 2.5 s recording killed keeps its first seconds.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open of software events not permitted here"
"$PMIPROF" record -q -o "$TMPD/k.data" -- "$WORKLOADS/shares" 6 >/dev/null 2>&1 &
rec=$!
sleep 2.5
child=$(pgrep -P $rec | head -1)
kill -9 $rec
wait $rec 2>/dev/null
[ -n "$child" ] && kill -9 "$child" 2>/dev/null
"$PMIPROF" dump -i "$TMPD/k.data" >"$TMPD/dump" 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && ok "dump reads the trace of a killed recorder" || not_ok "dump reads the trace of a killed recorder" "rc=$rc" "$(cat "$TMPD/err")"
n=$(grep -c ' sample ' "$TMPD/dump")
[ "$n" -ge 3000 ] && ok "flushed chunks kept ($n samples of ~2.5 s)" || not_ok "flushed chunks kept" "samples: $n" "$(head -5 "$TMPD/dump")"
grep -q ' finish ' "$TMPD/dump" && not_ok "no FINISH record (the recorder never finished)" || ok "no FINISH record (the recorder never finished)"
done_testing
