#!/usr/bin/env bash
# report reads a trace from a FIFO, a pipe (-i -) or process substitution as
# from the file: the parallel flat profile never reopens the input (a FIFO
# reopened waits for a writer forever), anything that is not a trace
# (/dev/zero, `yes`) is refused after its first bytes instead of being read
# whole, and a streamed input is capped (PMIPROF_STREAM_MAX_MB) with a
# message; a command that reads its input twice (--phase) refuses a FIFO.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/shares" ] || skip_all "workloads not built"

# a trace of enough chunks for the parallel flat profile (>= 4; ~1 a second)
for secs in 3 5 8; do
	"$PMIPROF" record -q -F 20000 -o "$TMPD/t.data" -- "$WORKLOADS/shares" $secs >/dev/null 2>"$TMPD/rec" ||
		{ not_ok "record shares" "$(cat "$TMPD/rec")"; done_testing; }
	chunks=$("$PMIPROF" dump -i "$TMPD/t.data" | sed -n 's/^# stats: chunks ok \([0-9]*\) .*/\1/p')
	[ "${chunks:-0}" -ge 6 ] && break
	echo "# $chunks chunks in $secs s: recording longer"
done
"$PMIPROF" report -i "$TMPD/t.data" >"$TMPD/file.out" 2>"$TMPD/file.err" && grep -q work_a "$TMPD/file.out" &&
	ok "report of the file ($chunks chunks)" || not_ok "report of the file" "$(cat "$TMPD/file.err")"

# same A B: the same profile (the comment lines name the input)
same() { cmp -s <(grep -v "^#" "$1") <(grep -v "^#" "$2") && grep -q work_a "$2"; }

# FIFO: a writer that writes once
mkfifo "$TMPD/fifo"
cat "$TMPD/t.data" >"$TMPD/fifo" &
timeout 30 "$PMIPROF" report -i "$TMPD/fifo" >"$TMPD/fifo.out" 2>"$TMPD/fifo.err"; rc=$?
kill $! 2>/dev/null; wait $! 2>/dev/null
[ $rc -eq 0 ] && same "$TMPD/file.out" "$TMPD/fifo.out" &&
	ok "report -i FIFO: same profile as the file, no hang" ||
	not_ok "report -i FIFO: same profile as the file, no hang" "rc=$rc (124 = hung)" \
	"$(cat "$TMPD/fifo.err")" "$(diff "$TMPD/file.out" "$TMPD/fifo.out" | head -5)"

# stdin and process substitution
timeout 30 "$PMIPROF" report -i - <"$TMPD/t.data" >"$TMPD/in.out" 2>"$TMPD/in.err"; rc1=$?
cat "$TMPD/t.data" | timeout 30 "$PMIPROF" report -i - >"$TMPD/pipe.out" 2>"$TMPD/pipe.err"; rc2=$?
timeout 30 "$PMIPROF" report -i <(cat "$TMPD/t.data") >"$TMPD/ps.out" 2>"$TMPD/ps.err"; rc3=$?
[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ $rc3 -eq 0 ] && same "$TMPD/file.out" "$TMPD/in.out" &&
	same "$TMPD/file.out" "$TMPD/pipe.out" && same "$TMPD/file.out" "$TMPD/ps.out" &&
	ok "report -i - (redirect, pipe) and -i <(cat ...): same profile" ||
	not_ok "report -i - and <(...): same profile" "rc $rc1/$rc2/$rc3" "$(cat "$TMPD/in.err" "$TMPD/pipe.err" "$TMPD/ps.err")"

# not a trace: refused at once, without reading the stream (memory bounded)
refused() { # name cmd...
	local name=$1 rc kb; shift
	/usr/bin/time -f %M -o "$TMPD/rss" timeout 20 "$@" >"$TMPD/nt.out" 2>"$TMPD/nt.err"; rc=$?
	kb=$(tail -1 "$TMPD/rss")
	if [ $rc -eq 1 ] && grep -q 'not a pmiprof trace (magic' "$TMPD/nt.err" && [ "$kb" -lt 65536 ]; then
		ok "$name: refused after the magic (exit 1, max RSS $kb kB)"
	else
		not_ok "$name: refused after the magic" "rc=$rc (124 = still reading) max RSS $kb kB" "$(head -3 "$TMPD/nt.err")"
	fi
}
refused "report -i /dev/zero" "$PMIPROF" report -i /dev/zero
refused "report -i <(yes)" "$PMIPROF" report -i <(yes)

# a trace followed by an endless stream: capped, with the limit named
{ cat "$TMPD/t.data"; head -c 100M /dev/zero; } | PMIPROF_STREAM_MAX_MB=8 \
	/usr/bin/time -f %M -o "$TMPD/rss" timeout 30 "$PMIPROF" report -i - >"$TMPD/cap.out" 2>"$TMPD/cap.err"; rc=$?
kb=$(tail -1 "$TMPD/rss")
[ $rc -eq 1 ] && grep -q '/dev/stdin: not a regular file and more than 8 MiB.*save it to a file' "$TMPD/cap.err" &&
	[ "$kb" -lt 65536 ] && ok "streamed input over PMIPROF_STREAM_MAX_MB=8: refused at the cap (max RSS $kb kB)" ||
	not_ok "streamed input capped" "rc=$rc max RSS $kb kB" "$(cat "$TMPD/cap.err")"

# a command that reads the input twice: refuses a FIFO instead of waiting
cat "$TMPD/t.data" >"$TMPD/fifo" &
timeout 30 "$PMIPROF" report -i "$TMPD/fifo" --phase 1 >"$TMPD/ph.out" 2>"$TMPD/ph.err"; rc=$?
kill $! 2>/dev/null; wait $! 2>/dev/null
[ $rc -eq 1 ] && grep -q 'not a regular file and already read once.*save the trace to a file' "$TMPD/ph.err" &&
	ok "report --phase -i FIFO: refused by name, no hang" ||
	not_ok "report --phase -i FIFO: refused by name" "rc=$rc (124 = hung)" "$(cat "$TMPD/ph.err")"
done_testing
