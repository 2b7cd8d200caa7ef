#!/usr/bin/env bash
# The live profile's queue is bounded: a sample the builder is too far
# behind to take is dropped, never silently.  With the queue cut to nothing
# (PMIPROF_TEST_PROFILE_QUEUE_MAX=0) a profile answers with
# X-Pmiprof-Samples-Dropped > 0, /metrics' pmiprof_daemon_profile_samples_
# dropped_total holds at least as many, and the profile is still whole
# gzip; at the default size the header is there too (a number).
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "system-wide recording needs root or CAP_PERFMON"
dp=; wp=
trap '[ -n "$dp" ] && kill -9 $dp 2>/dev/null; [ -n "$wp" ] && kill -9 $wp 2>/dev/null; rm -rf "$TMPD"' EXIT

start() {
	daemon_start "$TMPD/$1.log" --dir "$TMPD/$1" --segment 5 --listen 127.0.0.1:0 -F 1000
}

"$WORKLOADS/shares" 30 >/dev/null &
wp=$!

PMIPROF_TEST_PROFILE_QUEUE_MAX=0 start tiny
[ -n "$port" ] || { not_ok "daemon serving" "$(cat "$TMPD/tiny.log")"; done_testing; }
curl -s -D "$TMPD/h" -o "$TMPD/p.pb.gz" --max-time 60 "http://127.0.0.1:$port/debug/pprof/profile?seconds=1"
n=$(tr -d '\r' <"$TMPD/h" | awk -F': ' 'tolower($1) == "x-pmiprof-samples-dropped" { print $2 }')
[ "${n:-0}" -gt 0 ] && ok "a queue cut to nothing: X-Pmiprof-Samples-Dropped: $n" ||
	not_ok "X-Pmiprof-Samples-Dropped > 0" "$(cat "$TMPD/h")"
m=$(curl -s --max-time 30 "http://127.0.0.1:$port/metrics" |
	awk '$1 == "pmiprof_daemon_profile_samples_dropped_total" { print $2 }')
[ -n "$m" ] && [ -n "$n" ] && awk -v m="$m" -v n="$n" 'BEGIN { exit !(m >= n) }' &&
	ok "pmiprof_daemon_profile_samples_dropped_total $m >= the profile's $n" ||
	not_ok "the self-metric counts them" "metric '$m', header '$n'"
gzip -t "$TMPD/p.pb.gz" && ok "the profile is whole gzip all the same" || not_ok "profile gzip"
kill -TERM $dp; wait $dp; dp=

start normal
curl -s -D "$TMPD/h2" -o /dev/null --max-time 60 "http://127.0.0.1:$port/debug/pprof/profile?seconds=1"
n=$(tr -d '\r' <"$TMPD/h2" | awk -F': ' 'tolower($1) == "x-pmiprof-samples-dropped" { print $2 }')
case $n in ''|*[!0-9]*) not_ok "default queue: the header is a number" "$(cat "$TMPD/h2")";;
	*) ok "default queue: X-Pmiprof-Samples-Dropped: $n";; esac
kill -TERM $dp; wait $dp; dp=
done_testing
