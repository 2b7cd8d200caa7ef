#!/usr/bin/env bash
# Nothing lost silently: with a one-page ring and the recorder stopped
# (SIGSTOP) while two threads are sampled at 10 kHz, the kernel drops
# samples; they come back as LOST records (reason ring-full), in the FINISH
# record and in the summary line.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
"$PMIPROF" record -m 1 -o "$TMPD/t.data" -- "$WORKLOADS/threads2" 1.2 >/dev/null 2>"$TMPD/err" &
rp=$!
sleep 0.3; kill -STOP $rp; sleep 0.5; kill -CONT $rp
wait $rp; rc=$?
[ $rc -eq 0 ] && ok "record completes after being stopped" || not_ok "record completes" "rc=$rc" "$(cat "$TMPD/err")"
"$PMIPROF" dump -i "$TMPD/t.data" >"$TMPD/dump" 2>&1
lost=$(awk '$1 ~ /^[0-9]/ && $2=="lost"' "$TMPD/dump" | grep 'ring' | grep -o 'count=[0-9]*' | cut -d= -f2 | paste -sd+ | bc)
[ "${lost:-0}" -gt 0 ] && ok "LOST records (ring full) count the drops ($lost)" || not_ok "LOST records" "$(awk '$1 ~ /^[0-9]/ && $2=="lost"' "$TMPD/dump" | head -3)"
grep -q "finish .*lost=${lost:-x}\$" "$TMPD/dump" && ok "FINISH lost = sum of LOST records" || not_ok "FINISH lost" "$(grep finish "$TMPD/dump")"
grep -q "recorded [0-9]* samples (${lost:-x} lost" "$TMPD/err" && ok "summary shows the loss" || not_ok "summary shows the loss" "$(cat "$TMPD/err")"
done_testing
