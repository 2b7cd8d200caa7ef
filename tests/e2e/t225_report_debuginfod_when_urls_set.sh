#!/usr/bin/env bash
# debuginfod (issue 21): with DEBUGINFOD_URLS set, a stripped binary's
# debug info comes from the server (a local HTTP server serving
# /buildid/HEX/debuginfo here), with a progress line naming the file and
# the timeout; a server that never answers costs the timeout, not a hang
# (DEBUGINFOD_TIMEOUT, 10 s per attempt unless set); without
# DEBUGINFOD_URLS no server is asked (t222) and no line is printed.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/shares" ] || skip_all "workload shares not built"
ls /usr/lib/x86_64-linux-gnu/libdebuginfod.so.1 /lib*/*/libdebuginfod.so.1 >/dev/null 2>&1 || skip_all "libdebuginfod1 not installed"
command -v python3 >/dev/null && command -v curl >/dev/null || skip_all "python3 or curl not installed"
cp "$WORKLOADS/shares" "$TMPD/shares"
bid=$(readelf -n "$TMPD/shares" | awk '/Build ID/ { print $3 }')
mkdir -p "$TMPD/srv/buildid/$bid"
objcopy --only-keep-debug "$TMPD/shares" "$TMPD/srv/buildid/$bid/debuginfo" && strip "$TMPD/shares" || skip_all "objcopy/strip failed"
"$PMIPROF" record -q -o "$TMPD/t.data" -- "$TMPD/shares" 0.3 >/dev/null 2>"$TMPD/err" || { not_ok "record" "$(cat "$TMPD/err")"; done_testing; }
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$TMPD"' EXIT
port=$((20000 + RANDOM % 20000))
python3 -m http.server --bind 127.0.0.1 --directory "$TMPD/srv" "$port" >/dev/null 2>&1 & pids+=($!)
for _ in $(seq 1 50); do curl -sf -o /dev/null "http://127.0.0.1:$port/buildid/" && break; sleep 0.2; done
top3() { awk -F, 'NR > 1 && $4 == "shares" { print $3 }' "$1" | head -3 | sort | tr '\n' ' '; }
env -u DEBUGINFOD_TIMEOUT DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$TMPD/cache \
	"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/a.csv" 2>"$TMPD/a.err"
[ "$(top3 "$TMPD/a.csv")" = "work_a work_b work_c " ] && ok "the server's debug info names the stripped binary's functions" ||
	not_ok "the server's debug info names the stripped binary's functions" "$(head -4 "$TMPD/a.csv")" "$(cat "$TMPD/a.err")"
grep -q "asking debuginfod (http://127.0.0.1:$port) for the debug info of shares, build-id $bid (timeout 10 s)" "$TMPD/a.err" &&
	ok "a progress line names the server, the file, its build-id and the timeout" || not_ok "progress line" "$(cat "$TMPD/a.err")"
env -u DEBUGINFOD_URLS "$PMIPROF" report -i "$TMPD/t.data" >/dev/null 2>"$TMPD/n.err"
grep -q debuginfod "$TMPD/n.err" && not_ok "without DEBUGINFOD_URLS: no debuginfod line" "$(cat "$TMPD/n.err")" ||
	ok "without DEBUGINFOD_URLS: no debuginfod line"

# A server that accepts connections and never answers.
sport=$((port + 1))
python3 -c "import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $sport)); s.listen(16); open('$TMPD/silent.up', 'w').close(); time.sleep(120)" & pids+=($!)
for _ in $(seq 1 50); do [ -e "$TMPD/silent.up" ] && break; sleep 0.2; done
t0=$(date +%s)
DEBUGINFOD_TIMEOUT=1 DEBUGINFOD_URLS=http://127.0.0.1:$sport DEBUGINFOD_CACHE_PATH=$TMPD/cache2 \
	timeout 60 "$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/s.csv" 2>"$TMPD/s.err"; rc=$?
dt=$(( $(date +%s) - t0 ))
[ $rc -eq 0 ] && [ $dt -lt 30 ] && ok "a silent server: the report ends after the timeout (${dt} s, exit 0)" ||
	not_ok "a silent server: the report ends after the timeout (${dt} s, rc $rc)" "$(cat "$TMPD/s.err")"
grep -q '(timeout 1 s)' "$TMPD/s.err" && ok "the user's DEBUGINFOD_TIMEOUT is kept" || not_ok "the user's DEBUGINFOD_TIMEOUT is kept" "$(cat "$TMPD/s.err")"
awk -F, 'NR > 1 && $4 == "shares" { print $3 }' "$TMPD/s.csv" | grep -qv '^\[unknown\] 0x' &&
	not_ok "a silent server: [unknown] 0xADDR rows" "$(head -4 "$TMPD/s.csv")" || ok "a silent server: [unknown] 0xADDR rows"
done_testing
