#!/usr/bin/env bash
# Memory and open files stay bounded with profile requests: while clang
# (which maps libLLVM, about 105 MB) compiles in a loop, profiles are taken
# from /debug/pprof/profile; the symbols they loaded are dropped once a
# segment passes without a profile asked for, so a few segments after the
# last one the daemon's RSS and open fds are back near where they started
# (before: 12.9 -> 118 MB and 19 -> 52 fds, kept for good).  Under a small
# --max-memory a long profile drops its symbols at every segment boundary
# and is still answered.
# --max-memory out of range is a usage error.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "system-wide recording needs root or CAP_PERFMON"
command -v curl >/dev/null || skip_all "curl not installed"
command -v clang >/dev/null || skip_all "clang not installed (make deps): the big binary profiled"
dp=; cl=
trap '[ -n "$dp" ] && kill -9 $dp 2>/dev/null; [ -n "$cl" ] && kill $cl 2>/dev/null; rm -rf "$TMPD"' EXIT

"$PMIPROF" daemon --dir "$TMPD/never" --max-memory 1M 2>"$TMPD/err"; rc=$?
[ $rc = 2 ] && grep -q 'max-memory' "$TMPD/err" && [ ! -e "$TMPD/never" ] \
	&& ok "--max-memory 1M: usage error (exit 2), nothing created" || not_ok "--max-memory 1M" "rc $rc $(cat "$TMPD/err")"

printf 'int f(int x) { return x * 3; }\n' >"$TMPD/f.c"
compile() { while :; do clang -O2 -c "$TMPD/f.c" -o "$TMPD/f.o"; done; }
rss() { awk '/VmRSS/ { print $2 }' /proc/$dp/status; }
fds() { ls /proc/$dp/fd | wc -l; }

daemon_start "$TMPD/log" --dir "$TMPD/segs" --segment 2 --listen 127.0.0.1:0
[ -n "$port" ] || { not_ok "daemon serving" "$(cat "$TMPD/log")"; done_testing; }
sleep 3
r0=$(rss); f0=$(fds)
compile & cl=$!
peak=0; fpeak=0
for i in 1 2 3; do
	curl -s -o "$TMPD/p$i.pb.gz" --max-time 30 "http://127.0.0.1:$port/debug/pprof/profile?seconds=2"
	r=$(rss); f=$(fds)
	[ "$r" -gt $peak ] && peak=$r
	[ "$f" -gt $fpeak ] && fpeak=$f
done
kill $cl; wait $cl 2>/dev/null; cl=
[ -s "$TMPD/p3.pb.gz" ] && ok "three profiles answered while clang ran (peak RSS $((peak / 1024)) MiB, $fpeak fds; $((r0 / 1024)) MiB, $f0 fds before)" \
	|| not_ok "profiles answered"
# a segment with no profile asked for, then the next boundary drops them
for _ in $(seq 40); do
	[ "$(rss)" -le $((r0 + 16384)) ] && [ "$(fds)" -le $((f0 + 4)) ] && break
	sleep 0.25
done
r1=$(rss); f1=$(fds)
[ "$r1" -le $((r0 + 16384)) ] && ok "RSS back near its start without profiles: $((r1 / 1024)) MiB (started at $((r0 / 1024)), peak $((peak / 1024)))" \
	|| not_ok "RSS after the profiles" "$((r0 / 1024)) -> peak $((peak / 1024)) -> $((r1 / 1024)) MiB"
[ "$f1" -le $((f0 + 4)) ] && ok "open fds back near their start: $f1 (started at $f0, peak $fpeak)" \
	|| not_ok "fds after the profiles" "$f0 -> peak $fpeak -> $f1: $(ls -l /proc/$dp/fd | awk '{print $NF}' | sort | uniq -c | sort -rn | head -5 | tr '\n' ' ')"
v=$(curl -s "http://127.0.0.1:$port/metrics" | awk '$1 == "pmiprof_daemon_symbol_reloads_total" { print $2 }')
[ "${v:-0}" -ge 1 ] && ok "counted in pmiprof_daemon_symbol_reloads_total ($v)" || not_ok "symbol reloads counted" "$v"
kill -TERM $dp; wait $dp; dp=

# one long profile across segments: past 3/4 of --max-memory the symbols
# are dropped at every segment boundary, and the profile is still answered
long_run() {
	daemon_start "$TMPD/log$1" --dir "$TMPD/segs$1" --segment 2 --listen 127.0.0.1:0 --max-memory "$1"
	[ -n "$port" ] || { echo "0 0 0"; return; }
	compile & cl=$!
	curl -s -o "$TMPD/long$1.pb.gz" --max-time 60 "http://127.0.0.1:$port/debug/pprof/profile?seconds=10" &
	local cu=$! p=0 r
	while kill -0 $cu 2>/dev/null; do r=$(rss); [ "$r" -gt $p ] && p=$r; sleep 0.2; done
	kill $cl; wait $cl 2>/dev/null; cl=
	r=$(curl -s "http://127.0.0.1:$port/metrics" | awk '$1 == "pmiprof_daemon_symbol_reloads_total" { print $2 }')
	kill -TERM $dp; wait $dp; dp=
	echo "$p ${r:-0} $(head -c 2 "$TMPD/long$1.pb.gz" | od -An -tx1 | tr -d ' ')"
}
read -r pbig rbig gbig <<<"$(long_run 1T)"
read -r psmall rsmall gsmall <<<"$(long_run 32M)"
[ "$gsmall" = 1f8b ] && [ "$rsmall" -ge 2 ] && [ "$rsmall" -gt "$rbig" ] \
	&& ok "a 10 s profile under --max-memory 32M: symbols dropped $rsmall times (1T: $rbig), profile answered (peak RSS $((psmall / 1024)) MiB, 1T: $((pbig / 1024)) MiB: one segment's symbols)" \
	|| not_ok "--max-memory drops symbols at segment boundaries" "32M: $rsmall reloads, gzip $gsmall, peak $psmall kB; 1T: $rbig reloads, peak $pbig kB"
done_testing
