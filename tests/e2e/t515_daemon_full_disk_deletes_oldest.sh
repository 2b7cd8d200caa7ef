#!/usr/bin/env bash
# pmiprof daemon on a full disk (a 4 MiB tmpfs as --dir, filled by the test while the
# daemon records, retention at 2 MiB): the segment being written ends at its last complete chunk
# with the loss recorded, the oldest segments are deleted to make room,
# recording goes on in new segments once there is room, /healthz says 503 while
# writing fails and 200 again after,
# the daemon never dies, and every closed segment stays readable.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "system-wide recording and mounting a tmpfs need root"
F=$TMPD/full
mkdir -p "$F"
mount -t tmpfs -o size=4m tmpfs "$F" 2>/dev/null || skip_all "cannot mount a tmpfs here"
dp=
trap '[ -n "$dp" ] && kill -9 $dp 2>/dev/null; umount "$F" 2>/dev/null; rm -rf "$TMPD"' EXIT

# The disk is filled by the test itself, not by the recording (how fast a
# recording fills it depends on the machine's load and how well its samples
# compress: a quiet machine's shares lasted the whole test in 1 MiB, one at
# load 8 wrote segments larger than the room left, and none survived): once
# two segments are closed, a filler file takes every free byte; the daemon
# then fails to write, deletes its oldest segments (the filler is not its
# own: the disk stays full), answers 503; the filler is then removed and
# recording goes on in new segments.
# --retain ...,2M: with room again, retention (not the disk) bounds the segments, so the
# disk does not fill up again while /healthz is watched
daemon_start "$TMPD/log" --dir "$F" --segment 1 --retain 1d,2M --listen 127.0.0.1:0 -F 10000
"$WORKLOADS/shares" 60 >/dev/null &
wp=$!
for _ in $(seq 1 100); do [ "$(ls "$F"/seg-*.pmiprof 2>/dev/null | wc -l)" -ge 2 ] && break; sleep 0.2; done
dd if=/dev/zero of="$F/filler" bs=4k 2>/dev/null
codes=
for _ in $(seq 10); do
	codes="$codes $(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$port/healthz")"
	sleep 0.5
done
rm -f "$F/filler"
# room again: wait for a segment closed after the removal (up to 20 s on a loaded machine)
touch "$TMPD/freed"
for _ in $(seq 1 100); do
	[ -n "$(find "$F" -name 'seg-*.pmiprof' -newer "$TMPD/freed" 2>/dev/null)" ] && break
	sleep 0.2
done
# /healthz stays 503 for 10 s after the last failed write (docs/daemon.md), then 200
for _ in $(seq 1 40); do
	last=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$port/healthz")
	[ "$last" = 200 ] && break
	sleep 0.5
done
codes="$codes |$last"
[ "$last" = 200 ] || echo "# /healthz: $(curl -s --max-time 5 "http://127.0.0.1:$port/healthz")"
kill $wp 2>/dev/null
wait $wp 2>/dev/null
kill -0 $dp && ok "daemon alive after filling the disk" || not_ok "daemon alive" "$(tail -5 "$TMPD/log")"
grep -q 'No space left on device' "$TMPD/log" && ok "the write error is reported" || not_ok "write error reported" "$(tail -5 "$TMPD/log")"
grep -q 'disk full in .*deleted the [1-9][0-9]* oldest' "$TMPD/log" && ok "oldest segments deleted to make room" || not_ok "oldest deleted" "$(grep -i 'disk\|retention' "$TMPD/log" | tail -3)"
case $codes in *503*\|200) ok "/healthz 503 while writing fails, 200 again with room ($codes)";;
	*) not_ok "/healthz 503 while writing fails, then 200" "$codes";; esac
curl -s "http://127.0.0.1:$port/metrics" >"$TMPD/m"
awk '/^pmiprof_daemon_segment_write_errors_total/ {exit !($2 > 0)}' "$TMPD/m" && ok "write errors in the self-metrics" || not_ok "write errors metric" "$(grep write_errors "$TMPD/m")"
kill -TERM $dp; wait $dp; rc=$?; dp=
[ $rc -eq 0 ] && ok "SIGTERM: exit 0" || not_ok "SIGTERM: exit 0" "rc $rc"
ls "$F" >"$TMPD/ls"
first_fail=$(grep -n 'No space left' "$TMPD/log" | head -1 | cut -d: -f1)
# recording went on: a segment that started after the first failure was closed fine
newest=$(ls "$F"/seg-*.pmiprof | tail -1)
"$PMIPROF" dump -i "$newest" 2>/dev/null | grep -q ' finish ' && ok "recording went on into new segments" || not_ok "new segments" "$(cat "$TMPD/ls")"
bad=0; lostw=0
for f in "$F"/seg-*.pmiprof; do
	"$PMIPROF" report -q -i "$f" >"$TMPD/r" 2>&1 || bad=$((bad + 1))
	grep -q 'write [1-9]' "$TMPD/r" && lostw=$((lostw + 1))
done
[ $bad -eq 0 ] && ok "every closed segment readable ($(wc -l <"$TMPD/ls") left)" || not_ok "closed segments readable" "$bad unreadable"
[ $lostw -ge 1 ] && ok "a failed segment records its loss (reason write) in $lostw segment(s)" || skip "loss record in the failed segment" "no room even for the small LOST chunk"
[ -n "$first_fail" ] || true
done_testing
