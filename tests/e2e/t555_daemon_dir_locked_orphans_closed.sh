#!/usr/bin/env bash
# One daemon per directory, and what a killed daemon left is closed: a
# second daemon on the same --dir exits 1 saying it is in use (the first
# one goes on); after kill -9 the next daemon renames the orphan ".open"
# segment to ".unfinished" with a warning naming it, `report -i DIR` warns
# that it has no FINISH (and still reads it), and retention counts and
# deletes it like any closed segment.  Before, a second daemon started
# without complaint and the orphan stayed ".open" for ever, read silently.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "system-wide recording needs root or CAP_PERFMON"
dp=; d2=
trap '[ -n "$dp" ] && kill -9 $dp 2>/dev/null; [ -n "$d2" ] && kill -9 $d2 2>/dev/null; rm -rf "$TMPD"' EXIT

D=$TMPD/segs
# --no-listen: no 'serving' line (daemon_start waits for one); the open segment says it records
"$PMIPROF" daemon --dir "$D" --segment 60 --no-listen -F 199 2>"$TMPD/log" &
dp=$!
for _ in $(seq 100); do ls "$D"/*.open >/dev/null 2>&1 && break; sleep 0.1; done
ls "$D"/*.open >/dev/null 2>&1 && ok "first daemon recording" || { not_ok "first daemon" "$(cat "$TMPD/log")"; done_testing; }
first=$dp
timeout 20 "$PMIPROF" daemon --dir "$D" --segment 60 --no-listen -F 199 2>"$TMPD/log2"; rc=$?
[ $rc = 1 ] && grep -q "in use by another pmiprof daemon" "$TMPD/log2" \
	&& ok "a second daemon on the same --dir exits 1: $(head -1 "$TMPD/log2" | cut -c1-90)" \
	|| not_ok "second daemon refused" "rc $rc: $(head -3 "$TMPD/log2")"
kill -0 $first 2>/dev/null && ok "the first one goes on" || not_ok "first daemon alive"
sleep 2
kill -9 $first; wait $first 2>/dev/null; dp=
orphan=$(basename "$(ls "$D"/*.open)")
[ -n "$orphan" ] && ok "kill -9 leaves $orphan" || not_ok "an orphan .open"

"$PMIPROF" daemon --dir "$D" --segment 1 --retain 3s --no-listen -F 199 2>"$TMPD/log3" &
d2=$!
unf=${orphan%.open}.unfinished
for _ in $(seq 100); do [ -e "$D/$unf" ] && break; sleep 0.1; done
[ -e "$D/$unf" ] && [ ! -e "$D/$orphan" ] && ok "the next daemon closes it as $unf" || not_ok "orphan renamed" "$(ls "$D")"
grep -q "$orphan: left open by a daemon that was killed" "$TMPD/log3" && ok "with a warning naming it" \
	|| not_ok "warning" "$(head -3 "$TMPD/log3")"
"$PMIPROF" report -q -i "$D" >"$TMPD/rep" 2>"$TMPD/rerr"; rc=$?
[ $rc = 0 ] && grep -q "$unf: a segment its daemon could not close" "$TMPD/rerr" \
	&& ok "report -i DIR reads it and warns it has no FINISH" || not_ok "report's warning" "rc $rc: $(head -3 "$TMPD/rerr")"
# retention: older than 3 s once a segment closes after that
for _ in $(seq 100); do [ ! -e "$D/$unf" ] && grep -q "retention: deleted" "$TMPD/log3" && break; sleep 0.1; done
[ ! -e "$D/$unf" ] && grep -q "retention: deleted" "$TMPD/log3" && ok "retention deleted it like a closed segment" \
	|| not_ok "retention of the unfinished segment" "$(ls "$D"; grep retention "$TMPD/log3" | tail -2)"
kill -TERM $d2; wait $d2; rc=$?; d2=
[ $rc = 0 ] && ok "SIGTERM: exit 0" || not_ok "SIGTERM" "rc $rc"
done_testing
