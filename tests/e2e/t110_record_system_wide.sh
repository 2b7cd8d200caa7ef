#!/usr/bin/env bash
# -a records every CPU while the command runs: SYSTEM_WIDE header flag,
# samples from several CPUs and processes, COMM/MMAP synthesized for
# processes that were already running.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
"$PMIPROF" record -q -a -o "$TMPD/t.data" -- "$WORKLOADS/threads2" 0.5 >/dev/null 2>"$TMPD/err"; rc=$?
if [ $rc -ne 0 ] && grep -q 'not permitted' "$TMPD/err"; then skip_all "system-wide not permitted (needs root or CAP_PERFMON)"; fi
[ $rc -eq 0 ] && ok "record -a -- cmd" || not_ok "record -a -- cmd" "$(cat "$TMPD/err")"
"$PMIPROF" dump -i "$TMPD/t.data" >"$TMPD/dump" 2>&1
grep -q '^flags:.*system-wide' "$TMPD/dump" && ok "header flag SYSTEM_WIDE" || not_ok "header flag SYSTEM_WIDE" "$(grep ^flags "$TMPD/dump")"
ncpu=$(grep ' sample ' "$TMPD/dump" | grep -o 'cpu=[0-9]*' | sort -u | wc -l)
[ "$ncpu" -ge "$(nproc)" ] && ok "samples from every CPU ($ncpu)" || not_ok "samples from every CPU" "$ncpu"
grep -q ' comm .*pid=1 ' "$TMPD/dump" && ok "COMM synthesized for running processes (pid 1)" || not_ok "COMM synthesized for pid 1"
grep -q ' sample .*first' "$TMPD/dump" && ok "first window per CPU marked" || not_ok "first window per CPU marked"
done_testing
