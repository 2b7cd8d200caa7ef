#!/usr/bin/env bash
# pmiprof daemon (docs/daemon.md), at its default rate and options unless
# said otherwise, against perf where perf has an equivalent, in one run:
#  1. /metrics latency with LIVE (1,000) processes that each run now and then
#     (tests/bench/daemon_procs.c: distinct names, so as many series; -F 10000
#     so that every one is sampled within a minute), with
#     the default --top-comms and with --top-comms 1000 (every series
#     named): curl's total time over SCRAPES scrapes 0.2 s apart on one
#     kept-alive connection, as Prometheus scrapes (median and max), and on
#     a new connection each (median: the connection and the server's thread
#     for it cost as much as the answer); the daemon's own
#     pmiprof_daemon_last_scrape_duration_seconds (wall) and _cpu_seconds
#     (its CPU time: the rest is waiting for a lock or a CPU); /healthz on a
#     new connection, the HTTP floor of the same moment.  Goal <= 5 ms.
#  2. /debug/pprof/profile?seconds=2 of the whole machine while shares runs:
#     from the end of its 2 s (the request's arrival, curl's time_pretransfer,
#     + 2 s) to the last byte (time_total), median and range of PPROF_TRIES
#     scrapes.  Goal <= 50 ms.
#  3. Overhead on a CPU-bound workload (shares -n SHARES_ROUNDS, one thread):
#     ROUNDS alternating runs with nothing, then for each of RATES the daemon
#     and `perf record -a -g -e cpu-clock -F RATE` (the perf equivalent:
#     system-wide, same rate, fp stacks; "default" = the daemon without -F,
#     perf at its 99 Hz); the workload's own wall and CPU time, median and
#     min..max, ratio to no profiler.  Goal: daemon <= 1 % of wall time at
#     its default rate.
#  4. Idle: the daemon's and perf record -a -F 99's own CPU over IDLE_S seconds
#     with nothing started here (the machine's load is printed: other
#     work on it is what the daemon records).  Goal <= 1 % of one core.
#  5. RSS of the daemon at the end of 1 and of 4.
#
#   LIVE=1000 SCRAPES=20 PPROF_TRIES=7 ROUNDS=7 SHARES_ROUNDS=1500 IDLE_S=30 \
#   RATES="default 10000" tests/bench/b80_daemon.sh
#   SECTIONS="1 4" tests/bench/b80_daemon.sh   (a subset)
set -u
: "${PMIPROF_BUILD:=$(cd "$(dirname "$0")/../.." && pwd)/build}"
P=$PMIPROF_BUILD/pmiprof
WL=$PMIPROF_BUILD/workloads
LIVE=${LIVE:-1000}
SCRAPES=${SCRAPES:-20}
PPROF_TRIES=${PPROF_TRIES:-7}
ROUNDS=${ROUNDS:-7}
SHARES_ROUNDS=${SHARES_ROUNDS:-1500}
IDLE_S=${IDLE_S:-30}
RATES=${RATES:-default 10000}
tmp=$(mktemp -d /tmp/pmiprof-b80.XXXXXX)
dp=
lp=
cleanup() {
	[ -n "$lp" ] && kill -TERM "$lp" 2>/dev/null && wait "$lp" 2>/dev/null
	[ -n "$dp" ] && kill -TERM "$dp" 2>/dev/null && wait "$dp" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
[ "$(id -u)" -eq 0 ] || { echo "system-wide recording needs root: skipped"; exit 0; }
[ -x "$P" ] && [ -x "$WL/shares" ] || { echo "build first (make): $P missing"; exit 0; }
command -v curl >/dev/null || { echo "curl not installed: skipped"; exit 0; }
perf stat -e cpu-clock -x, true >/dev/null 2>&1 || { echo "perf events not usable here: skipped"; exit 0; }
cc -O2 -o "$tmp/daemon_procs" "$(dirname "$0")/daemon_procs.c" || { echo "cannot compile daemon_procs.c: skipped"; exit 0; }

median() { sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print 0 }'; }
range() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s..%s\n", lo, hi }'; }
loadavg() { echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"; }
# CPU seconds (user + system) of a process so far
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/$1/stat" 2>/dev/null; }
rss_mb() { awk '/^VmRSS/ { printf "%.1f\n", $2 / 1024 }' "/proc/$1/status" 2>/dev/null; }
want() { [ -z "${SECTIONS:-}" ] || [[ " $SECTIONS " == *" $1 "* ]]; }
self_s() { sed -n 's/.* in \([0-9.]*\) s.*/\1/p' "$1"; }
selfcpu_s() { sed -n 's/.*(cpu \([0-9.]*\) s).*/\1/p' "$1"; }

start_daemon() {	# options...
	"$P" daemon --dir "$tmp/segs" --listen 127.0.0.1:0 "$@" 2>"$tmp/dlog" &
	dp=$!
	for _ in $(seq 100); do grep -q 'serving http' "$tmp/dlog" && break; sleep 0.1; done
	port=$(grep -o 'http://127.0.0.1:[0-9]*' "$tmp/dlog" | sed 's/.*://')
	[ -n "$port" ] || { echo "daemon did not start: $(cat "$tmp/dlog")"; exit 0; }
	U=http://127.0.0.1:$port
}
stop_daemon() { kill -TERM "$dp"; wait "$dp" 2>/dev/null; dp=; rm -rf "$tmp/segs"; }

echo "# $(loadavg)"
if want 1; then
echo
echo "## 1. /metrics with $LIVE live processes (goal <= 5 ms)"
printf '%-17s %6s %10s %10s %10s %10s %10s %10s %7s\n' "daemon" "series" "kept_med" "kept_max" "new_med" "healthz" "own_med" "own_cpu" "rss_MiB"
printf '%-17s %6s %10s %10s %10s %10s %10s %10s %7s\n' "" "" "ms" "ms" "ms" "new ms" "ms" "ms" ""
for top in 20 1000; do
	# -F 10000: at the default 99 Hz a process running 0.2 ms every 2 s
	# takes minutes to be sampled; the cost measured is per series
	start_daemon --top-comms $top -F 10000
	"$tmp/daemon_procs" live "$LIVE" 200 2000 >"$tmp/live.out" &
	lp=$!
	# every process runs 0.2 ms every 2 s: wait until most have been sampled
	for _ in $(seq 60); do
		n=$(curl -s "$U/metrics" | awk '$1 == "pmiprof_daemon_series" { print $2 }')
		[ "${n:-0}" -ge $((LIVE * 9 / 10)) ] && break
		sleep 1
	done
	: >"$tmp/new"; : >"$tmp/hz"
	for _ in $(seq "$SCRAPES"); do
		curl -s -o /dev/null -w '%{time_total}\n' "$U/healthz" | awk '{ print $1 * 1000 }' >>"$tmp/hz"
		curl -s -o /dev/null -w '%{time_total}\n' "$U/metrics" | awk '{ print $1 * 1000 }' >>"$tmp/new"
		sleep 0.1
	done
	# one connection, a scrape every 0.2 s (curl --rate), each answer kept
	args=()
	for i in $(seq "$SCRAPES"); do args+=(-o "$tmp/m.$i" "$U/metrics"); done
	curl -s --rate 5/s -w '%{time_total} %{num_connects}\n' "${args[@]}" >"$tmp/kept"
	conns=$(awk '{ c += $2 } END { print c }' "$tmp/kept")
	awk '{ print $1 * 1000 }' "$tmp/kept" >"$tmp/curl"
	cat "$tmp"/m.* | awk '$1 == "pmiprof_daemon_last_scrape_duration_seconds" { print $2 * 1000 }' >"$tmp/own"
	cat "$tmp"/m.* | awk '$1 == "pmiprof_daemon_last_scrape_cpu_seconds" { print $2 * 1000 }' >"$tmp/owncpu"
	series=$(awk '$1 == "pmiprof_daemon_series" { print $2 }' "$tmp/m.$SCRAPES")
	printf '%-17s %6s %10.2f %10.2f %10.2f %10.2f %10.3f %10.3f %7s\n' "--top-comms $top" "$series" \
		"$(median <"$tmp/curl")" "$(sort -g "$tmp/curl" | tail -1)" "$(median <"$tmp/new")" \
		"$(median <"$tmp/hz")" "$(median <"$tmp/own")" "$(median <"$tmp/owncpu")" "$(rss_mb "$dp")"
	[ "$conns" = 1 ] || echo "# the kept-alive run opened $conns connections, not 1"
	rm -f "$tmp"/m.*
	kill -TERM "$lp"; wait "$lp" 2>/dev/null; lp=
	stop_daemon
done
echo "# $(loadavg)"

fi
if want 2; then
echo
echo "## 2. /debug/pprof/profile?seconds=2: answer after the 2 s (goal <= 50 ms)"
start_daemon
: >"$tmp/pp"
for _ in $(seq "$PPROF_TRIES"); do
	"$WL/shares" 3 >/dev/null &
	wp=$!
	t=$(curl -s -o "$tmp/p.pb.gz" -w '%{time_pretransfer} %{time_total}' --max-time 60 "$U/debug/pprof/profile?seconds=2")
	wait "$wp"
	echo "$t" | awk '{ printf "%.1f\n", ($2 - $1 - 2) * 1000 }' >>"$tmp/pp"
done
printf '%-28s %12s %14s %8s\n' "" "median_ms" "range_ms" "bytes"
printf '%-28s %12.1f %14s %8s\n' "end of its 2 s to last byte" "$(median <"$tmp/pp")" "$(range <"$tmp/pp")" "$(stat -c %s "$tmp/p.pb.gz")"
stop_daemon
echo "# $(loadavg)"

fi
if want 3; then
echo
echo "## 3. Overhead on shares -n $SHARES_ROUNDS, $ROUNDS alternating rounds, at each of -F $RATES (goal: daemon <= 1 % at its default)"
# modes: none, then per rate the daemon and perf record -a -g at the same -F
# ("default": the daemon without -F, perf at the daemon's default 99 Hz)
modes=none
for r in $RATES; do modes="$modes daemon@$r perf@$r"; done
for m in $modes; do : >"$tmp/$m.w"; : >"$tmp/$m.c"; done
for _ in $(seq "$ROUNDS"); do
	for mode in $modes; do
		r=${mode#*@}
		f=$r
		[ "$r" = default ] && f=99
		case $mode in
		daemon@default) start_daemon ;;
		daemon@*) start_daemon -F "$f" ;;
		perf@*)	perf record -q -a -g -e cpu-clock -F "$f" -o "$tmp/perf.data" 2>"$tmp/plog" &
			pp=$!
			sleep 1 ;;
		esac
		"$WL/shares" -n "$SHARES_ROUNDS" >"$tmp/out" 2>&1
		self_s "$tmp/out" >>"$tmp/$mode.w"
		selfcpu_s "$tmp/out" >>"$tmp/$mode.c"
		case $mode in
		daemon@*) stop_daemon ;;
		perf@*)	kill -INT "$pp"; wait "$pp" 2>/dev/null; rm -f "$tmp/perf.data" ;;
		esac
	done
done
base_w=$(median <"$tmp/none.w"); base_c=$(median <"$tmp/none.c")
printf '%-34s %10s %16s %10s %10s %10s\n' "" "wall_s" "range_s" "ratio" "cpu_s" "ratio"
for mode in $modes; do
	w=$(median <"$tmp/$mode.w"); c=$(median <"$tmp/$mode.c")
	r=${mode#*@}
	case $mode in
	none) label=none ;;
	daemon@default) label="pmiprof daemon (default, 99 Hz)" ;;
	daemon@*) label="pmiprof daemon -F $r" ;;
	perf@default) label="perf record -a -g -F 99" ;;
	perf@*) label="perf record -a -g -F $r" ;;
	esac
	printf '%-34s %10.3f %16s %10.4f %10.3f %10.4f\n' "$label" "$w" "$(range <"$tmp/$mode.w")" \
		"$(echo "$w $base_w" | awk '{ print $1 / $2 }')" "$c" "$(echo "$c $base_c" | awk '{ print $1 / $2 }')"
done
echo "# $(loadavg)"

fi
if want 4; then
echo
echo "## 4. Own CPU with nothing started here, $IDLE_S s (goal: daemon <= 1 % of a core)"
printf '%-28s %10s %14s %10s\n' "" "cpu_s" "pct_of_core" "rss_MiB"
start_daemon
sleep 2
c0=$(cpu_s "$dp"); t0=$(date +%s.%N)
sleep "$IDLE_S"
c1=$(cpu_s "$dp"); t1=$(date +%s.%N)
dcpu=$(echo "$c0 $c1" | awk '{ print $2 - $1 }')
dpct=$(echo "$dcpu $t0 $t1" | awk '{ print 100 * $1 / ($3 - $2) }')
printf '%-28s %10.2f %14.2f %10s\n' "pmiprof daemon (99 Hz)" "$dcpu" "$dpct" "$(rss_mb "$dp")"
stop_daemon
perf record -q -a -g -e cpu-clock -F 99 -o "$tmp/perf.data" 2>"$tmp/plog" &
pp=$!
sleep 2
c0=$(cpu_s "$pp"); t0=$(date +%s.%N)
sleep "$IDLE_S"
c1=$(cpu_s "$pp"); t1=$(date +%s.%N)
pcpu=$(echo "$c0 $c1" | awk '{ print $2 - $1 }')
ppct=$(echo "$pcpu $t0 $t1" | awk '{ print 100 * $1 / ($3 - $2) }')
printf '%-28s %10.2f %14.2f %10s\n' "perf record -a -g -F 99" "$pcpu" "$ppct" "$(rss_mb "$pp")"
kill -INT "$pp"; wait "$pp" 2>/dev/null
printf '%-28s %10s %14.2f\n' "ratio daemon / perf" "" "$(echo "$dpct $ppct" | awk '{ print ($2 > 0) ? $1 / $2 : 0 }')"
echo "# $(loadavg)"
fi
