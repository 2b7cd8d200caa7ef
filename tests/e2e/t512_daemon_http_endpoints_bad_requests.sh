#!/usr/bin/env bash
# pmiprof daemon's HTTP server (libmicrohttpd) on 127.0.0.1 with a free
# port: / lists the endpoints, /healthz says ok, /metrics is Prometheus text
# format 0.0.4 that promtool accepts, with the window metric marked
# time-based on a machine without a PMU and the daemon's own metrics, or
# OpenMetrics 1.0 when the scraper asks for it; bad
# requests get 4xx (unknown path, POST, seconds 0/-1/1e9/text/601, unknown
# arguments, a 10 kB query string), an idle client and concurrent scrapes
# stall nothing, and recording goes on throughout.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "system-wide recording needs root or CAP_PERFMON"
# a daemon left running by a failed check must not outlive the test
dp=
trap '[ -n "$dp" ] && kill -9 $dp 2>/dev/null; rm -rf "$TMPD"' EXIT
command -v curl >/dev/null || skip_all "curl not installed"

"$PMIPROF" daemon --dir "$TMPD/bad" --listen nonsense -F 100 >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -ne 0 ] && grep -q -- "--listen 'nonsense'" "$TMPD/err" && ok "--listen nonsense refused" || not_ok "--listen nonsense refused" "rc $rc: $(cat "$TMPD/err")"

D=$TMPD/segs
daemon_start "$TMPD/log" --dir "$D" --segment 2 --listen 127.0.0.1:0 -F 1000
[ -n "$port" ] && [ "$port" -gt 0 ] && ok "listening on a free port ($port), printed" || { not_ok "listening" "$(cat "$TMPD/log")"; kill $dp; done_testing; }
U=http://127.0.0.1:$port
code() { curl -s -o /dev/null -w '%{http_code}' --max-time 20 "$@"; }

[ "$(code "$U/")" = 200 ] && curl -s "$U/" | grep -q '/metrics' && ok "GET / lists the endpoints" || not_ok "GET /"
[ "$(curl -s "$U/healthz")" = ok ] && ok "/healthz: ok" || not_ok "/healthz"
sleep 1
curl -s -D "$TMPD/hdr" "$U/metrics" >"$TMPD/m1"
grep -qi '^content-type: text/plain; version=0.0.4' "$TMPD/hdr" && ok "/metrics: text format 0.0.4" || not_ok "/metrics content type" "$(cat "$TMPD/hdr")"
promtool check metrics <"$TMPD/m1" >"$TMPD/lint" 2>&1 && ok "promtool check metrics accepts it" || not_ok "promtool check metrics" "$(head -5 "$TMPD/lint")"
grep -q '^pmiprof_windows_total{comm="' "$TMPD/m1" && ok "pmiprof_windows_total{comm}" || not_ok "windows_total" "$(head -5 "$TMPD/m1")"
grep -q '^pmiprof_events_total{event="[^"]*",comm="' "$TMPD/m1" && ok "pmiprof_events_total{event,comm}" || not_ok "events_total"
grep -q '^pmiprof_lost_windows_total{reason="ring-full"}' "$TMPD/m1" && ok "pmiprof_lost_windows_total{reason}" || not_ok "lost_windows_total"
grep -q '^pmiprof_window_info{basis="time",trigger="cpu-clock"' "$TMPD/m1" && grep -q '^pmiprof_window_cpu_seconds_bucket{comm="[^"]*",cgroup="[^"]*",le="+Inf"}' "$TMPD/m1" \
	&& ok "time-based windows said so; their histogram" || not_ok "time-based window metric" "$(grep -m3 'window_' "$TMPD/m1")"
grep -q '^pmiprof_windows_total{comm="other",cgroup="other"}' "$TMPD/m1" && ok "comm=\"other\" for the rest" || not_ok "comm other"
miss=
for m in pmiprof_daemon_cpu_seconds_total pmiprof_daemon_resident_memory_bytes pmiprof_daemon_segments_closed_total pmiprof_daemon_disk_bytes pmiprof_daemon_last_scrape_duration_seconds; do
	grep -q "^$m " "$TMPD/m1" || miss="$miss $m"
done
[ -z "$miss" ] && ok "daemon self-metrics" || not_ok "daemon self-metrics" "missing:$miss"
# the standard process_* metrics of Prometheus client libraries, and build info
pm() { awk -v m="$1" '$1 == m { print $2 }' "$TMPD/m1"; }
fd_now=$(ls /proc/$dp/fd | wc -l)
python3 -c '
import sys, time
fds, real, start, cpu, rss = map(float, sys.argv[1:6])
sys.exit(not (abs(fds - real) <= 3 and 0 < time.time() - start < 600 and cpu > 0 and rss > 1e6))' \
	"$(pm process_open_fds)" "$fd_now" "$(pm process_start_time_seconds)" "$(pm process_cpu_seconds_total)" \
	"$(pm process_resident_memory_bytes)" 2>/dev/null \
	&& ok "process_* metrics: open fds $(pm process_open_fds) ($fd_now in /proc), start time, CPU, RSS, max fds $(pm process_max_fds)" \
	|| not_ok "process_* metrics" "$(grep '^process_' "$TMPD/m1")"
grep -q '^pmiprof_build_info{version="[0-9.]*"} 1$' "$TMPD/m1" && ok "pmiprof_build_info" || not_ok "pmiprof_build_info" "$(grep build_info "$TMPD/m1")"

# OpenMetrics when the scraper asks for it (Prometheus does, first)
curl -s -D "$TMPD/omhdr" -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' "$U/metrics" >"$TMPD/om"
grep -qi '^content-type: application/openmetrics-text; version=1.0.0' "$TMPD/omhdr" && [ "$(tail -1 "$TMPD/om")" = "# EOF" ] \
	&& grep -q '^# TYPE pmiprof_windows counter$' "$TMPD/om" && grep -q '^pmiprof_windows_total{' "$TMPD/om" \
	&& ok "OpenMetrics 1.0 on Accept: counter families without _total, # EOF" || not_ok "OpenMetrics" "$(cat "$TMPD/omhdr"; tail -2 "$TMPD/om")"
grep -q '^# EOF' "$TMPD/m1" && not_ok "no # EOF in text format 0.0.4" || ok "no # EOF in text format 0.0.4"
[ "$(code "$U/nope")" = 404 ] && ok "unknown path: 404" || not_ok "unknown path: 404" "$(code "$U/nope")"
[ "$(code -X POST "$U/metrics")" = 405 ] && ok "POST: 405" || not_ok "POST: 405"
# a body is refused from the headers, unread (no 100 Continue), and the connection closed:
# a 10 MB POST held its connection for ever, a small body got no answer at all
head -c 10000000 /dev/zero >"$TMPD/big"
r=$(timeout 20 curl -s -o /dev/null -w '%{http_code} %{size_upload} %{time_total}' -X POST --data-binary @"$TMPD/big" "$U/metrics")
set -- $r
[ "${1:-}" = 405 ] && [ "${2:-x}" = 0 ] && python3 -c "import sys; sys.exit(not float('${3:-99}') < 5)" \
	&& ok "a 10 MB POST: 405 at once, body not read ($3 s)" || not_ok "10 MB POST" "$r"
r=$(timeout 20 curl -s -o /dev/null -w '%{http_code} %{size_upload}' -X GET --data-binary @"$TMPD/big" "$U/metrics")
[ "$r" = "413 0" ] && ok "a GET with a 10 MB body: 413, body not read" || not_ok "GET with a body" "$r"
[ "$(code -X GET --data-binary abc "$U/metrics")" = 413 ] && ok "a GET with a 3-byte body: 413" || not_ok "small body" "$(code -X GET --data-binary abc "$U/metrics")"
curl -s -D - -o /dev/null -X PUT --data-binary x "$U/metrics" | grep -qi '^Connection: close' \
	&& ok "the refusal closes the connection (Connection: close)" || not_ok "Connection: close"
[ "$(code "$U/healthz")" = 200 ] && ok "serving as before after them" || not_ok "serving after bodies"
[ "$(code "$U/healthz?x=1")" = 400 ] && ok "/healthz?x=1: 400" || not_ok "/healthz?x=1"
for s in 0 -1 1e9 text 601 ''; do
	c=$(code "$U/debug/pprof/profile?seconds=$s")
	[ "$c" = 400 ] && ok "profile seconds='$s': 400" || not_ok "profile seconds='$s': 400" "$c"
done
[ "$(code "$U/debug/pprof/profile?seconds=1&bogus=1")" = 400 ] && ok "profile unknown argument: 400" || not_ok "profile unknown argument"
[ "$(code "$U/debug/pprof/profile?seconds=1&pid=x")" = 400 ] && ok "profile pid=x: 400" || not_ok "profile pid=x"
# /metrics ignores query arguments, as exporters do (docs/daemon.md: a scrape config's params)
[ "$(code "$U/metrics?x=1")" = 200 ] && ok "/metrics?x=1: 200 (ignored, as documented)" || not_ok "/metrics?x=1" "$(code "$U/metrics?x=1")"
[ "$(code "$U/healthz?x=1")" = 400 ] && ok "/healthz?x=1: 400" || not_ok "/healthz?x=1" "$(code "$U/healthz?x=1")"
long=$(head -c 10240 /dev/zero | tr '\0' a)
c=$(code "$U/debug/pprof/profile?seconds=1&comm=$long")
case $c in 4*) ok "10 kB query string: $c";; *) not_ok "10 kB query string" "$c";; esac
# a client that connects and sends nothing holds up nobody
exec 7<>"/dev/tcp/127.0.0.1/$port"
t0=$(date +%s%N)
c=$(code "$U/healthz")
t1=$(date +%s%N)
[ "$c" = 200 ] && [ $(((t1 - t0) / 1000000)) -lt 3000 ] && ok "idle client: /healthz still answers ($(((t1 - t0) / 1000000)) ms)" || not_ok "idle client" "$c"
exec 7>&-
# concurrent scrapes all answer
for k in 1 2 3 4; do curl -s -o "$TMPD/c$k" -w '%{http_code}\n' --max-time 30 "$U/metrics" >"$TMPD/code$k" & done
wait $(jobs -p | grep -v "^$dp$") 2>/dev/null
good=0
for k in 1 2 3 4; do [ "$(cat "$TMPD/code$k")" = 200 ] && grep -q pmiprof_windows_total "$TMPD/c$k" && good=$((good + 1)); done
[ $good -eq 4 ] && ok "4 concurrent scrapes answered" || not_ok "concurrent scrapes" "$good of 4"
# counters only grow
# (the daemon drains every 250 ms or at a quarter ring: the requests above
# may all fit between two drains, as they did here once; so ask again, up to 10 s)
w1=$(awk '/^pmiprof_windows_total/ {s += $2} END {print s + 0}' "$TMPD/m1")
for try in $(seq 40); do
	curl -s "$U/metrics" >"$TMPD/m2"
	w2=$(awk '/^pmiprof_windows_total/ {s += $2} END {print s + 0}' "$TMPD/m2")
	[ "$w2" -gt "$w1" ] && break
	sleep 0.25
done
[ "$w2" -gt "$w1" ] && ok "windows counted go on growing ($w1 -> $w2)" || not_ok "windows grow" "$w1 -> $w2 in 10 s"
kill -0 $dp && ok "daemon alive after the bad requests" || not_ok "daemon alive"
kill -TERM $dp; wait $dp; rc=$?
[ $rc -eq 0 ] && ok "SIGTERM with HTTP: exit 0" || not_ok "SIGTERM with HTTP" "rc $rc: $(tail -3 "$TMPD/log")"
done_testing
