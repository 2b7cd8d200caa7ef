#!/usr/bin/env bash
# -p attaches to running processes (every thread): COMM and MMAP records are
# synthesized from /proc, samples carry the target pid, and recording stops
# by itself when every target has exited.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
"$WORKLOADS/threads2" 1.5 >/dev/null & tp=$!
sleep 0.2
"$PMIPROF" record -o "$TMPD/t.data" -p $tp 2>"$TMPD/err"; rc=$?
wait $tp
[ $rc -eq 0 ] && ok "-p recording ends when the target exits, status 0" || not_ok "-p recording ends" "rc=$rc" "$(cat "$TMPD/err")"
grep -q 'all target processes exited' "$TMPD/err" && ok "says the targets exited" || not_ok "says the targets exited" "$(cat "$TMPD/err")"
"$PMIPROF" dump -i "$TMPD/t.data" >"$TMPD/dump" 2>&1
grep -q " comm .*pid=$tp .*threads2" "$TMPD/dump" && ok "COMM synthesized for the target" || not_ok "COMM synthesized"
grep -q " mmap .*pid=$tp .*workloads/threads2" "$TMPD/dump" && ok "MMAP of the executable synthesized" || not_ok "MMAP synthesized"
grep -q " mmap .*pid=$tp .*libc" "$TMPD/dump" && ok "MMAP of libc synthesized" || not_ok "MMAP of libc synthesized"
n=$(grep -c " sample .*pid=$tp " "$TMPD/dump")
o=$(grep ' sample ' "$TMPD/dump" | grep -vc "pid=$tp ")
[ "$n" -gt 100 ] && ok "samples of the target ($n)" || not_ok "samples of the target" "$n"
[ "$o" -eq 0 ] && ok "no samples of other processes" || not_ok "no samples of other processes" "$o"
ntid=$(grep " sample .*pid=$tp " "$TMPD/dump" | grep -o 'tid=[0-9]*' | sort -u | wc -l)
[ "$ntid" -ge 2 ] && ok "both running threads sampled ($ntid tids)" || not_ok "threads sampled" "$ntid"
done_testing
