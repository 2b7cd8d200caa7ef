#!/usr/bin/env bash
# Disk full mid-recording.  On a 256 KiB tmpfs: one clear error naming the
# problem and where the trace ends, the workload is stopped (long before it
# would end), record exits 1, the trace is readable up to its last complete
# chunk and ends with a small chunk holding LOST(write) and FINISH(error).
# On a 64 KiB tmpfs not even the first chunk fits: still the error, exit 1,
# and a readable trace that says it ended on an error (no silent 0 samples).
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "needs root to mount a small tmpfs"
mnt=$TMPD/small
mkdir -p "$mnt"
trap 'umount "$mnt" 2>/dev/null; rm -rf "$TMPD"' EXIT
for size in 256k 64k; do
	mount -t tmpfs -o size=$size tmpfs "$mnt" 2>/dev/null || skip_all "cannot mount tmpfs here"
	t0=$(date +%s)
	"$PMIPROF" record -q -o "$mnt/t.data" -- "$WORKLOADS/crasher" 30 exit:0 >/dev/null 2>"$TMPD/err"; rc=$?
	t1=$(date +%s)
	[ $rc -eq 1 ] && ok "$size: record exits 1 on a full disk" || not_ok "$size: record exits 1 on a full disk" "rc=$rc" "$(cat "$TMPD/err")"
	[ "$(grep -c 'error: writing .*t.data: No space left on device; the trace ends .*; stopping the workload' "$TMPD/err")" -eq 1 ] \
		&& ok "$size: one error: no space, where the trace ends, workload stopped" || not_ok "$size: one specific error" "$(cat "$TMPD/err")"
	[ $((t1 - t0)) -lt 25 ] && ok "$size: workload stopped early ($((t1 - t0)) s of 30)" || not_ok "$size: workload stopped early" "$((t1 - t0)) s"
	pgrep -f "$WORKLOADS/crasher 30" >/dev/null && not_ok "$size: no workload left running" || ok "$size: no workload left running"
	"$PMIPROF" dump -i "$mnt/t.data" >"$TMPD/dump" 2>"$TMPD/derr"; drc=$?
	n=$(grep -c ' sample ' "$TMPD/dump")
	if [ $size = 256k ]; then
		[ "$n" -gt 1000 ] && ok "$size: trace readable up to its last complete chunk ($n samples)" || not_ok "$size: trace readable" "$n" "$(cat "$TMPD/derr")"
		grep -q "the trace ends at [0-9.]* s ($n samples in " "$TMPD/err" \
			&& ok "$size: the error gives the samples the file holds" || not_ok "$size: error gives what the file holds ($n)" "$(cat "$TMPD/err")"
	else
		[ $drc -eq 0 ] && grep -q 'bad 0' "$TMPD/dump" && ok "$size: trace readable ($n samples)" || not_ok "$size: trace readable" "rc=$drc" "$(cat "$TMPD/derr")"
	fi
	# The room the truncated partial chunk gave back holds the last words.
	grep -q "finish .*flags=.*error.* samples=$n " "$TMPD/dump" && ok "$size: FINISH has the error flag and the samples kept" \
		|| not_ok "$size: FINISH with error flag" "$(tail -3 "$TMPD/dump")"
	lost=$(sed -n 's/.*lost .*reason=3(write) count=\([0-9]*\).*/\1/p' "$TMPD/dump")
	[ -n "$lost" ] && [ "$lost" -gt 0 ] && ok "$size: LOST(write) counts the $lost samples not written" \
		|| not_ok "$size: LOST(write) record" "$(tail -3 "$TMPD/dump")"
	umount "$mnt"
done
done_testing
