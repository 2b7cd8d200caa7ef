#!/usr/bin/env bash
# Every segment of one daemon run maps monotonic time to wall-clock time by
# the same offset (header: clock start / realtime), read as one instant
# (pm_clock_pair) and kept from segment to segment unless the wall clock is
# stepped.  A pair read with a preemption between its two clock reads gave
# each segment its own offset, so `report -i DIR --since/--until` (the first
# segment's offset) and the live profile (the open segment's) could select
# different samples at a range's ends.  Load on the machine meanwhile makes
# such preemptions likely.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "system-wide recording needs root or CAP_PERFMON"
dp=
trap '[ -n "$dp" ] && kill -9 $dp 2>/dev/null; rm -rf "$TMPD"' EXIT

"$PMIPROF" daemon --dir "$TMPD/segs" --segment 1 --no-listen -F 100 2>"$TMPD/log" &
dp=$!
# busy threads on every CPU, so the daemon is preempted now and then
for _ in $(seq "$(nproc)"); do "$WORKLOADS/shares" 5 >/dev/null & done
sleep 5
kill -TERM "$dp"; wait "$dp"; dp=
wait
n=0
for f in "$TMPD"/segs/seg-*; do
	read -r s r < <("$PMIPROF" dump -i "$f" 2>/dev/null | awk '/^clock:/ {
		for (i = 1; i < NF; i++) if ($i == "start") s = $(i + 1); else if ($i == "realtime") r = $(i + 1)
		print s, r }')
	echo $((r - s))	# 64-bit shell arithmetic: awk's doubles lose these digits
	n=$((n + 1))
done >"$TMPD/offsets"
distinct=$(sort -u "$TMPD/offsets" | wc -l)
echo "# $n segments, offsets: $(sort -u "$TMPD/offsets" | tr '\n' ' ')"
[ "$n" -ge 4 ] && ok "$n segments written" || not_ok "segments written" "$n: $(cat "$TMPD/log")"
[ "$distinct" -eq 1 ] && ok "every segment has the same monotonic-to-wall-clock offset" ||
	not_ok "one offset for the run" "$distinct distinct offsets over $n segments"
done_testing
