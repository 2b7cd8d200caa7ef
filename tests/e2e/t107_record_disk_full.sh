#!/usr/bin/env bash
# Disk full mid-recording (a 256 KiB tmpfs): a clear error naming the
# problem, the workload is stopped (long before it would end), record exits
# 1, and the trace is readable up to its last complete chunk.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "needs root to mount a small tmpfs"
mnt=$TMPD/small
mkdir -p "$mnt"
mount -t tmpfs -o size=256k tmpfs "$mnt" 2>/dev/null || skip_all "cannot mount tmpfs here"
trap 'umount "$mnt" 2>/dev/null; rm -rf "$TMPD"' EXIT
t0=$(date +%s)
"$PMIPROF" record -q -o "$mnt/t.data" -- "$WORKLOADS/crasher" 30 exit:0 >/dev/null 2>"$TMPD/err"; rc=$?
t1=$(date +%s)
[ $rc -eq 1 ] && ok "record exits 1 on a full disk" || not_ok "record exits 1 on a full disk" "rc=$rc" "$(cat "$TMPD/err")"
grep -q 'No space left on device' "$TMPD/err" && grep -q 'stopping the workload' "$TMPD/err" \
	&& ok "clear error: no space, workload stopped" || not_ok "clear error message" "$(cat "$TMPD/err")"
[ $((t1 - t0)) -lt 25 ] && ok "workload stopped early ($((t1 - t0)) s of 30)" || not_ok "workload stopped early" "$((t1 - t0)) s"
pgrep -f "$WORKLOADS/crasher 30" >/dev/null && not_ok "no workload left running" || ok "no workload left running"
"$PMIPROF" dump -i "$mnt/t.data" >"$TMPD/dump" 2>"$TMPD/derr"
n=$(grep -c ' sample ' "$TMPD/dump")
[ "$n" -gt 1000 ] && ok "trace readable up to its last complete chunk ($n samples)" || not_ok "trace readable" "$n" "$(cat "$TMPD/derr")"
done_testing
