#!/usr/bin/env bash
# pmiprof daemon --config FILE: 'key = value' lines mirroring the long
# options; an unknown key, a bad value, a key given twice, a line without
# '=' and count with freq are refused with FILE:LINE (exit 2); the command
# line wins over the file.  SIGHUP re-reads the file: an invalid one is
# refused with FILE:LINE and the running configuration kept; segment,
# retain and listen apply at once; a new freq closes the open segment and
# restarts recording in the same process with the new rate.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "system-wide recording needs root or CAP_PERFMON"
command -v curl >/dev/null || skip_all "curl not installed"
dp=
trap '[ -n "$dp" ] && kill -9 $dp 2>/dev/null; rm -rf "$TMPD"' EXIT
C=$TMPD/pmiprof.conf

refused() {	# name expected-FILE:LINE-and-text config-lines...
	local name=$1 want=$2 rc
	shift 2
	printf '%s\n' "$@" >"$C"
	"$PMIPROF" daemon --config "$C" --dir "$TMPD/never" >/dev/null 2>"$TMPD/err"; rc=$?
	[ $rc -eq 2 ] && grep -qF -- "$C:$want" "$TMPD/err" && ok "refused with FILE:LINE: $name" \
		|| not_ok "refused with FILE:LINE: $name" "rc $rc: $(cat "$TMPD/err")"
}
refused "unknown key" "3: unknown key 'colour'" "# a comment" "" "colour = blue"
refused "bad segment" "2: segment = 0: valid is 1..86400" "dir = $TMPD/never" "segment = 0"
refused "bad retain" "1: retain = 10Q" "retain = 10Q"
refused "bad listen" "1: listen = nonsense" "listen = nonsense"
refused "bad events" "1: events = no-such-event" "events = no-such-event"
refused "bad call-graph" "2: call-graph = sideways" "freq = 100" "call-graph = sideways"
refused "bad quiet" "1: quiet = maybe" "quiet = maybe"
refused "key twice" "3: 'freq' given twice (first at line 1)" "freq = 100" "segment = 5" "freq = 200"
refused "no =" "2: expected 'key = value'" "segment = 5" "listen 127.0.0.1:0"
refused "empty value" "1: segment: empty value" "segment ="
refused "count with freq" "2: count and freq (lines 1 and 2)" "count = 100000" "freq = 100"
"$PMIPROF" daemon --config "$TMPD/missing.conf" --dir "$TMPD/never" >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -ne 0 ] && grep -q "missing.conf: No such file" "$TMPD/err" && ok "a missing --config file is an error" || not_ok "missing config" "rc $rc: $(cat "$TMPD/err")"
[ ! -e "$TMPD/never" ] && ok "nothing created when the configuration is refused" || not_ok "nothing created"

# a valid file; --segment on the command line wins over the file's
D=$TMPD/segs
cat >"$C" <<EOF
# pmiprof daemon configuration
dir = $D
segment = 1
listen = 127.0.0.1:0
freq = 200
retain = 1d
EOF
daemon_start "$TMPD/log" --config "$C" --segment 2
grep -q "into $D (segments of 2 s" "$TMPD/log" && ok "file read; the command line's --segment 2 wins over segment = 1" || not_ok "file + command line" "$(cat "$TMPD/log")"
port=$(grep -o 'http://127.0.0.1:[0-9]*' "$TMPD/log" | sed 's/.*://')
[ -n "$port" ] && [ "$(curl -s "http://127.0.0.1:$port/healthz")" = ok ] && ok "listen from the file (port $port)" || not_ok "listen from the file" "$(cat "$TMPD/log")"
sleep 2.5
first=$(ls "$D"/seg-*.pmiprof | head -1)
"$PMIPROF" dump -i "$first" | grep -q 'freq 200 Hz' && ok "freq = 200 from the file" || not_ok "freq from the file" "$("$PMIPROF" dump -i "$first" | grep trigger)"

# SIGHUP with a bad file: refused with FILE:LINE, recording and serving go on
cp "$C" "$C.good"
echo "top-comms = 0" >>"$C"
: >"$TMPD/log.mark"; lines=$(wc -l <"$TMPD/log")
kill -HUP $dp
for _ in $(seq 30); do tail -n +"$((lines + 1))" "$TMPD/log" | grep -q 'refused' && break; sleep 0.1; done
tail -n +"$((lines + 1))" "$TMPD/log" >"$TMPD/hup1"
grep -qF "$C:7: top-comms = 0: valid is 1..1000" "$TMPD/hup1" && grep -q 'running configuration is kept' "$TMPD/hup1" \
	&& ok "SIGHUP: an invalid file is refused with FILE:LINE, the old one kept" || not_ok "SIGHUP invalid" "$(cat "$TMPD/hup1")"
kill -0 $dp 2>/dev/null && [ "$(curl -s "http://127.0.0.1:$port/healthz")" = ok ] && ok "still recording and serving after the refused reload" || not_ok "alive after refused reload"

# SIGHUP with live changes: retain, listen (another loopback address)
sed -e 's/^retain = .*/retain = 16K/' -e 's/^listen = .*/listen = 127.0.0.2:0/' "$C.good" >"$C"
lines=$(wc -l <"$TMPD/log")
kill -HUP $dp
for _ in $(seq 50); do tail -n +"$((lines + 1))" "$TMPD/log" | grep -q 'applied' && break; sleep 0.1; done
tail -n +"$((lines + 1))" "$TMPD/log" >"$TMPD/hup2"
grep -q 'applied: segment 2 s, retain 16K' "$TMPD/hup2" && ok "SIGHUP: live keys applied, said so" || not_ok "SIGHUP live" "$(cat "$TMPD/hup2")"
port2=$(grep -o 'http://127.0.0.2:[0-9]*' "$TMPD/hup2" | sed 's/.*://')
[ -n "$port2" ] && [ "$(curl -s "http://127.0.0.2:$port2/healthz")" = ok ] && ok "listen changed live: serving on 127.0.0.2:$port2" || not_ok "listen live" "$(cat "$TMPD/hup2")"
curl -s --max-time 2 "http://127.0.0.1:$port/healthz" >/dev/null && not_ok "the old address is closed" || ok "the old address is closed"
# retain 16K (less than the 3 closed segments of ~11 KB each on an idle machine, so
# retention must delete): after the next segment closes, the directory is back
# under 16 KiB plus the open segment
sleep 4.5
closed=$(find "$D" -name 'seg-*.pmiprof' -printf '%s\n' | awk '{s += $1} END {print s + 0}')
grep -q 'retention: deleted' "$TMPD/log" && [ "$closed" -le $((16 * 1024 + 600000)) ] && ok "retain = 16K applied live (closed segments $closed B)" || not_ok "retain live" "$closed B; $(tail -5 "$TMPD/log")"

# SIGHUP with a new freq: the open segment closed, recording restarted in the same process
sed -e 's/^freq = .*/freq = 300/' -e 's/^listen = .*/listen = 127.0.0.1:0/' "$C.good" >"$C"
# closed so far: those in the directory and those retention deleted (retain = 16K
# keeps one or two, by the machine: segments are larger where more runs)
closed_total() {
	echo $(($(ls "$D" | grep -c '\.pmiprof$') + $(sed -n 's/.*retention: deleted \([0-9]*\) old segment.*/\1/p' "$TMPD/log" | paste -sd+ - | sed 's/^$/0/' | bc)))
}
before=$(closed_total)
lines=$(wc -l <"$TMPD/log")
kill -HUP $dp
for _ in $(seq 80); do tail -n +"$((lines + 1))" "$TMPD/log" | grep -q 'serving http' && break; sleep 0.1; done
tail -n +"$((lines + 1))" "$TMPD/log" >"$TMPD/hup3"
grep -q "'freq' changed: closing the open segment and restarting" "$TMPD/hup3" && ok "SIGHUP: freq needs a restart of recording, said so" || not_ok "restart message" "$(cat "$TMPD/hup3")"
kill -0 $dp 2>/dev/null && ok "same process after the restart" || not_ok "same process" "$(cat "$TMPD/hup3")"
sleep 2.5
last=$(ls "$D"/seg-*.pmiprof | tail -1)
"$PMIPROF" dump -i "$last" | grep -q 'freq 300 Hz' && ok "segments after the restart use freq = 300" || not_ok "new freq" "$("$PMIPROF" dump -i "$last" | grep trigger)"
after=$(closed_total)
[ "$after" -gt "$before" ] && ok "the segment open at SIGHUP was closed cleanly ($before -> $after closed, retention's deletions included)" || not_ok "closed at restart" "$before -> $after"
bad=0
for f in "$D"/seg-*.pmiprof; do "$PMIPROF" dump -i "$f" 2>/dev/null | grep -q ' finish ' || bad=$((bad + 1)); done
[ $bad -eq 0 ] && ok "every closed segment has its FINISH" || not_ok "FINISH" "$bad without"
kill -TERM $dp; wait $dp; rc=$?; dp=
[ $rc -eq 0 ] && ok "SIGTERM after the restart: exit 0" || not_ok "SIGTERM after restart" "rc $rc: $(tail -3 "$TMPD/log")"

# SIGHUP without --config: said, nothing changes
"$PMIPROF" daemon --dir "$TMPD/noconf" --segment 5 --no-listen -F 100 2>"$TMPD/log2" &
dp=$!
for _ in $(seq 50); do grep -q 'recording every CPU' "$TMPD/log2" && break; sleep 0.1; done
kill -HUP $dp; sleep 0.5
grep -q 'SIGHUP: no --config FILE' "$TMPD/log2" && kill -0 $dp && ok "SIGHUP without --config: said, still recording" || not_ok "SIGHUP without config" "$(cat "$TMPD/log2")"
kill -TERM $dp; wait $dp; dp=
done_testing
