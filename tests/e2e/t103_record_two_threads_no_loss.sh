#!/usr/bin/env bash
# Threads are followed (inherit) and nothing is lost at 10 kHz with two busy
# threads: both threads have samples at about the trigger rate, the trace
# has no LOST record and FORK/EXIT records for both threads.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
"$PMIPROF" record -q -e cpu-clock,task-clock,page-faults,context-switches -F 10000 \
	-o "$TMPD/t.data" -- "$WORKLOADS/threads2" -n 60000 >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && ok "record of two threads succeeds" || not_ok "record of two threads" "$(cat "$TMPD/err")"
"$PMIPROF" dump -i "$TMPD/t.data" >"$TMPD/dump" 2>&1
read -r nthreads minsamples < <(awk '$2=="sample" { for (i = 3; i <= NF; i++) if ($i ~ /^tid=/) n[$i]++ }
	END { m = -1; c = 0; for (k in n) { c++; if (n[k] > 100 && (m < 0 || n[k] < m)) m = n[k] } print c, m }' "$TMPD/dump")
[ "$nthreads" -ge 3 ] && ok "samples from main and both threads ($nthreads tids)" || not_ok "samples from both threads" "$nthreads"
# fixed work (-n): about 0.7 s of CPU per thread whatever the load, so at
# 10 kHz of CPU time each thread closes thousands of windows
[ "${minsamples:-0}" -ge 2000 ] && ok "each busy thread sampled ($minsamples+ windows)" || not_ok "each busy thread sampled" "$minsamples"
awk '$1 ~ /^[0-9]/ && $2=="lost"' "$TMPD/dump" | grep -q . && not_ok "no LOST records" "$(awk '$1 ~ /^[0-9]/ && $2=="lost"' "$TMPD/dump" | head)" || ok "no LOST records"
grep -q 'finish .*lost=0' "$TMPD/dump" && ok "FINISH says 0 lost" || not_ok "FINISH says 0 lost" "$(grep finish "$TMPD/dump")"
[ "$(grep -c ' fork ' "$TMPD/dump")" -ge 2 ] && ok "FORK records for the threads" || not_ok "FORK records for the threads"
[ "$(grep -c ' exit ' "$TMPD/dump")" -ge 3 ] && ok "EXIT records for threads and process" || not_ok "EXIT records"
# Window deltas: the median cpu-clock per window is the period (100 us);
# running totals would grow to ~1e9.  Single windows can be longer when the
# VM's vCPU was descheduled by the host (cpu-clock counts that time).
med=$(awk '$2=="sample" && !/first/' "$TMPD/dump" | grep -o 'cpu-clock=[0-9]*' | cut -d= -f2 | sort -n |
	awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] + 0 }')
[ "$med" -ge 80000 ] && [ "$med" -le 120000 ] && ok "counts are per-window deltas (median cpu-clock $med ns)" \
	|| not_ok "counts are per-window deltas" "median cpu-clock $med ns"
done_testing
