#!/usr/bin/env bash
# pmiprof daemon soak in compressed time: 1 s segments at RATE (-F 10000,
# a hundred times the daemon's default; fp stacks) with --retain RETAIN, CHURN (10,000) short-lived
# processes coming and going over DURATION seconds (default 600; DURATION=60
# for a short run) under NAMES command names, a scrape of /metrics every
# second.  Every SAMPLE_S seconds: RSS, open fds, segments and bytes in the
# directory.  Checks, printed as "check ok" / "check FAILED" lines:
#   - RSS and fd count steady: the last quarter's maximum within 25 % (RSS)
#     and 8 fds of the second quarter's maximum; RSS <= 64 MiB at the end
#   - the directory under its --retain size plus one segment, every sample
#   - kill -9 half-way, then a restart on the same directory: the killed
#     run's open segment stays readable, the new run records on
#   - bad requests half-way: unknown path 404; seconds 0, -1, 1e9, text 400;
#     a 10 kB query string 4xx on the profile, a bounded answer on /metrics; 8 concurrent scrapes all 200; a client that
#     connects and sends nothing does not hold up /healthz (<= 5 s on
#     a loaded machine)
#   - after SIGTERM every segment in the directory reads (pmiprof dump)
#
#   DURATION=600 CHURN=10000 NAMES=500 RETAIN=32M RATE=10000 SAMPLE_S=10 tests/bench/b85_daemon_soak.sh
set -u
: "${PMIPROF_BUILD:=$(cd "$(dirname "$0")/../.." && pwd)/build}"
P=$PMIPROF_BUILD/pmiprof
DURATION=${DURATION:-600}
CHURN=${CHURN:-10000}
NAMES=${NAMES:-500}
RETAIN=${RETAIN:-32M}
RATE=${RATE:-10000}
SAMPLE_S=${SAMPLE_S:-10}
tmp=$(mktemp -d /tmp/pmiprof-b85.XXXXXX)
dp=
cp_=
sp=
cleanup() {
	for p in $sp $cp_ $dp; do kill -TERM "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
[ "$(id -u)" -eq 0 ] || { echo "system-wide recording needs root: skipped"; exit 0; }
[ -x "$P" ] || { echo "build first (make): $P missing"; exit 0; }
command -v curl >/dev/null || { echo "curl not installed: skipped"; exit 0; }
cc -O2 -o "$tmp/daemon_procs" "$(dirname "$0")/daemon_procs.c" || { echo "cannot compile daemon_procs.c: skipped"; exit 0; }

D=$tmp/segs
failed=0
check() {	# condition-status name details
	if [ "$1" -eq 0 ]; then echo "check ok: $2"; else echo "check FAILED: $2 ($3)"; failed=1; fi
}
loadavg() { echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"; }
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
retain_bytes=$(echo "$RETAIN" | awk '{ n = $1 + 0; u = substr($1, length($1)); m = (u == "K") ? 1024 : (u == "M") ? 1048576 : (u == "G") ? 1073741824 : 1; print n * m }')

start_daemon() {
	"$P" daemon --dir "$D" --segment 1 --retain "$RETAIN" -F "$RATE" --listen 127.0.0.1:0 2>>"$tmp/dlog" &
	dp=$!
	for _ in $(seq 100); do [ "$(grep -c 'serving http' "$tmp/dlog")" -ge "$1" ] && break; sleep 0.1; done
	port=$(grep -o 'http://127.0.0.1:[0-9]*' "$tmp/dlog" | tail -1 | sed 's/.*://')
	U=http://127.0.0.1:$port
}
code() { curl -s -o /dev/null -w '%{http_code}' --max-time 20 "$@"; }

bad_requests() {
	local c ok=0 total=0 s long k good t0 t1 pids
	c=$(code "$U/nope"); total=$((total + 1)); [ "$c" = 404 ] && ok=$((ok + 1)) || echo "  unknown path: $c"
	for s in 0 -1 1e9 text; do
		c=$(code "$U/debug/pprof/profile?seconds=$s"); total=$((total + 1))
		[ "$c" = 400 ] && ok=$((ok + 1)) || echo "  seconds=$s: $c"
	done
	long=$(head -c 10240 /dev/zero | tr '\0' a)
	# /metrics ignores query arguments (as exporters do): a bounded answer; the profile refuses
	c=$(code "$U/debug/pprof/profile?seconds=1&comm=$long"); total=$((total + 1))
	case $c in 4*) ok=$((ok + 1)) ;; *) echo "  10 kB query (profile): $c" ;; esac
	c=$(code "$U/metrics?$long"); total=$((total + 1))
	case $c in 200|4*) ok=$((ok + 1)) ;; *) echo "  10 kB query (/metrics): $c" ;; esac
	pids=
	for k in $(seq 8); do curl -s -o /dev/null -w '%{http_code}\n' --max-time 30 "$U/metrics" >"$tmp/cc$k" & pids="$pids $!"; done
	# shellcheck disable=SC2086
	wait $pids
	good=$(cat "$tmp"/cc* | grep -c '^200$')
	total=$((total + 1)); [ "$good" -eq 8 ] && ok=$((ok + 1)) || echo "  concurrent scrapes: $good of 8"
	exec 7<>"/dev/tcp/127.0.0.1/$port"
	t0=$(date +%s%N); c=$(code "$U/healthz"); t1=$(date +%s%N)
	exec 7>&-
	total=$((total + 1)); [ "$c" = 200 ] && [ $(((t1 - t0) / 1000000)) -le 5000 ] && ok=$((ok + 1)) || echo "  idle client: /healthz $c in $(((t1 - t0) / 1000000)) ms"
	check $((ok != total)) "bad requests answered right ($ok of $total)" "see above"
}

echo "# $(loadavg)"
echo "# $DURATION s, $CHURN short-lived processes under $NAMES names, 1 s segments, -F $RATE, --retain $RETAIN"
start_daemon 1
rate=$(( (CHURN + DURATION - 1) / DURATION ))
"$tmp/daemon_procs" churn "$CHURN" "$rate" "$NAMES" >"$tmp/churn.out" &
cp_=$!
( while :; do curl -s -o /dev/null --max-time 5 "$U/metrics"; sleep 1; done ) &
sp=$!
printf '%8s %10s %6s %10s %12s %10s\n' "t_s" "rss_MiB" "fds" "segments" "dir_MiB" "scrape_ms"
: >"$tmp/samples"
over=0
t=0
killed=0
while [ $t -lt "$DURATION" ]; do
	sleep "$SAMPLE_S"
	t=$((t + SAMPLE_S))
	if [ $killed -eq 0 ] && [ $t -ge $((DURATION / 2)) ]; then
		bad_requests
		kill -0 "$dp" 2>/dev/null; check $? "daemon alive after the bad requests" ""
		kill -9 "$dp"; wait "$dp" 2>/dev/null
		open=$(ls "$D"/*.open 2>/dev/null | head -1)
		"$P" dump -i "$open" >/dev/null 2>&1; check $? "kill -9: the open segment reads ($(basename "${open:-none}"))" "pmiprof dump failed"
		start_daemon 2
		kill "$sp" 2>/dev/null; wait "$sp" 2>/dev/null
		( while :; do curl -s -o /dev/null --max-time 5 "$U/metrics"; sleep 1; done ) &
		sp=$!
		sleep 3
		[ -n "$open" ] && [ -e "${open%.open}.unfinished" ]
		check $? "the restarted daemon closed the killed run's segment as .unfinished" "$(ls "$D" | tail -3)"
		# segments written in the last 2 s (1 s segments are renamed all the time: no stat of one name)
		recent=$(find "$D" -name 'seg-*' -newermt '-2 seconds' | wc -l)
		kill -0 "$dp" 2>/dev/null && [ "$recent" -ge 1 ]
		check $? "restart after kill -9 records on ($recent segment(s) written in the last 2 s)" "$(tail -3 "$tmp/dlog")"
		killed=1
		echo "# restarted: $(loadavg)"
		: >"$tmp/samples"	# steadiness is judged on the restarted daemon
		continue
	fi
	rss=$(rss_kb "$dp"); nfd=$(fds "$dp")
	segs=$(ls "$D" | grep -c '^seg-')
	bytes=$(du -sb "$D" | cut -f1)
	sc=$(curl -s --max-time 5 "$U/metrics" | awk '$1 == "pmiprof_daemon_last_scrape_duration_seconds" { print $2 * 1000 }')
	printf '%8d %10.1f %6d %10d %12.1f %10s\n' "$t" "$(echo "$rss" | awk '{ print $1 / 1024 }')" "$nfd" "$segs" \
		"$(echo "$bytes" | awk '{ print $1 / 1048576 }')" "${sc:-?}"
	echo "$rss $nfd" >>"$tmp/samples"
	# the open segment (a second of data) and a closed one waiting for retention may add to it
	biggest=$(find "$D" -name 'seg-*' -printf '%s\n' | sort -n | tail -1)
	[ "$bytes" -le $((retain_bytes + 3 * ${biggest:-0} + 65536)) ] || over=$((over + 1))
done
kill "$sp" 2>/dev/null; wait "$sp" 2>/dev/null; sp=
wait "$cp_" 2>/dev/null; cp_=
cat "$tmp/churn.out"
check $((over != 0)) "directory under --retain $RETAIN plus the open segment at every sample" "$over samples over"
n=$(wc -l <"$tmp/samples")
if [ "$n" -ge 4 ]; then
	q=$((n / 4))
	read -r r2 f2 < <(sed -n "$((q + 1)),$((2 * q))p" "$tmp/samples" | awk '$1 > r { r = $1 } $2 > f { f = $2 } END { print r, f }')
	read -r r4 f4 < <(tail -n "$q" "$tmp/samples" | awk '$1 > r { r = $1 } $2 > f { f = $2 } END { print r, f }')
	[ "$r4" -le $((r2 + r2 / 4)) ]; check $? "RSS steady: last quarter max $((r4 / 1024)) MiB, second quarter max $((r2 / 1024)) MiB" "grew"
	[ "$f4" -le $((f2 + 8)) ]; check $? "fds steady: last quarter max $f4, second quarter max $f2" "grew"
else
	echo "(too short a run to judge steadiness: $n samples after the restart)"
fi
rss=$(rss_kb "$dp")
[ "$rss" -le $((64 * 1024)) ]; check $? "RSS at the end $((rss / 1024)) MiB <= 64 MiB" "too big"
kill -TERM "$dp"; wait "$dp"; rc=$?; dp=
check $rc "SIGTERM: exit 0" "rc $rc"
bad=0; total=0
for f in "$D"/seg-*; do
	total=$((total + 1))
	"$P" dump -i "$f" >/dev/null 2>&1 || { bad=$((bad + 1)); echo "  unreadable: $f"; }
done
check $((bad != 0)) "every segment left reads ($total, one of them the killed run's .open)" "$bad unreadable"
echo "# $(loadavg)"
[ $failed -eq 0 ] && echo "soak: every check ok" || echo "soak: some checks FAILED"
