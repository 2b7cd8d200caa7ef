#!/usr/bin/env bash
# A window that spans lost samples is flagged, not passed off as one period:
# with a one-page ring and the recorder stopped (SIGSTOP) for 0.5 s, the
# kernel drops samples; the delta of the next sample of each thread on that
# CPU absorbs every dropped period.  That sample must carry the after-loss
# flag, and no unflagged window may hold more than a few periods.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
"$PMIPROF" record -m 1 -o "$TMPD/t.data" -- "$WORKLOADS/threads2" 1.5 >/dev/null 2>"$TMPD/err" &
rp=$!
sleep 0.4; kill -STOP $rp; sleep 0.5; kill -CONT $rp
wait $rp; rc=$?
[ $rc -eq 0 ] && ok "record completes after being stopped" || not_ok "record completes" "rc=$rc" "$(cat "$TMPD/err")"
"$PMIPROF" dump -i "$TMPD/t.data" >"$TMPD/dump" 2>&1
nlost=$(awk '$2=="lost" && /ring-full/' "$TMPD/dump" | wc -l)
[ "$nlost" -gt 0 ] && ok "ring-full LOST records present ($nlost)" || not_ok "ring-full LOST records present" "$(tail -3 "$TMPD/dump")"
# After every LOST on a CPU, the next sample on that CPU is flagged when it
# spans lost periods (a thread's first window there counts from zero, and a
# window the kernel closed before the loss but timestamped with it holds one
# period: neither absorbs the loss, so unflagged is right when its cpu-clock
# is within 1.5 periods of 0.1 ms; check 4 covers the rest).
awk 'function cpuclk(l,   i, f, v) { n2 = split(l, f, " "); for (i = 1; i <= n2; i++) if (f[i] ~ /^cpu-clock=/) { split(f[i], v, "="); return v[2] + 0 } return 0 }
     $2=="lost" && /ring-full/ { split($3, c, "="); pend[c[2]] = 1; next }
     $2=="sample" && /first/ && !/after-loss/ { next }
     $2=="sample" { split($3, c, "="); if (pend[c[2]]) { pend[c[2]] = 0; n++; if ($0 !~ /after-loss/ && cpuclk($0) > 150000) bad++ } }
     END { printf "%d %d\n", n, bad + 0 }' "$TMPD/dump" >"$TMPD/chk"
read -r nafter bad <"$TMPD/chk"
[ "$nafter" -gt 0 ] && [ "$bad" -eq 0 ] && ok "the first sample after each loss is flagged after-loss or holds one period ($nafter)" ||
	not_ok "first sample after each loss flagged" "after=$nafter unflagged=$bad" "$(grep -A1 ring-full "$TMPD/dump" | head -6)"
# No unflagged window spans more than 50 ms of cpu-clock (the period is 0.1 ms).
big=$(awk '$2=="sample" && $0 !~ /after-loss/ && $0 !~ /first/ {
	for (i = 1; i <= NF; i++) if ($i ~ /^cpu-clock=/) { split($i, v, "="); if (v[2] > 50000000) print } }' "$TMPD/dump" | head -3)
[ -z "$big" ] && ok "no unflagged window absorbs the lost periods" || not_ok "no unflagged window absorbs the lost periods" "$big"
flagged=$(grep -c 'after-loss' "$TMPD/dump")
grep -q "after-loss\|after a loss" "$TMPD/err" && ok "the summary says how many windows follow a loss" ||
	not_ok "summary names the flagged windows ($flagged)" "$(cat "$TMPD/err")"
done_testing
