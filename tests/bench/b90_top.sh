#!/usr/bin/env bash
# pmiprof top's overhead against perf top's, same run, same workload, same
# trigger and rate: a CPU-bound workload (shares -n N, fixed work of about
# DURATION seconds, one thread) watched by
#   - pmiprof top -p PID --batch at its defaults (-d 2; cpu-clock at 250 Hz
#     without a PMU, instructions every 5,120,000 with one), tables to /dev/null
#   - pmiprof top -p PID on its screen (tmux, 120x40), when tmux is there
#   - perf top --stdio -p PID -d 2 with the same trigger and rate (stdin a
#     pipe that stays open: at EOF perf top's key loop spins)
# and by nothing.  Per round (ROUNDS, interleaved): the workload's own wall
# time ("slowdown" = watched / plain - 1) and CPU time ("cpu_slow", what the
# samples cost it: the kernel's sampling work is charged to the task it
# interrupts; other programs' load disturbs it far less than wall time),
# and the watcher's CPU time (/proc/PID/task/*/schedstat, every thread, in
# ns, read every 0.2 s while the workload runs: top -p ends with it) as %
# of one core, over the whole watch ("cpu_%core") and after a WARM-second
# start ("steady_%core": symbol tables read, screen up).  Medians, with the pmiprof/perf ratio of the
# same run.  The goal (issue 34): top at its defaults <= 2 % of a core and
# <= 2 % of the workload's wall time.
#
#   ROUNDS=3 DURATION=20 WARM=4 tests/bench/b90_top.sh
set -u
: "${PMIPROF_BUILD:=$(cd "$(dirname "$0")/../.." && pwd)/build}"
P=$PMIPROF_BUILD/pmiprof
WL=$PMIPROF_BUILD/workloads
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-20}
WARM=${WARM:-4}
tmp=$(mktemp -d /tmp/pmiprof-b90.XXXXXX)
sock=$tmp/tmux.sock
wl=; wp=; feeder=
cleanup() {
	for p in $wp $wl $feeder; do kill "$p" 2>/dev/null; done
	tmux -S "$sock" kill-server 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
command -v perf >/dev/null || { echo "perf not installed: skipped"; exit 0; }
[ -x "$P" ] && [ -x "$WL/shares" ] || { echo "build first (make): $P missing"; exit 0; }
[ "$(id -u)" -eq 0 ] || perf stat -e cpu-clock -p $$ -x, sleep 0.1 >/dev/null 2>&1 ||
	{ echo "perf events on another process not usable here: skipped"; exit 0; }

loadavg() { echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"; }
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print 0 }'; }
# CPU time of every thread of process $1 so far, ns
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%d\n", s }'; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
wall_ms() { sed -n 's/.* in \([0-9.]*\) s.*/\1/p' "$1" | awk '{ printf "%d\n", $1 * 1000 }'; }
wcpu_ms() { sed -n 's/.*(cpu \([0-9.]*\) s).*/\1/p' "$1" | awk '{ printf "%d\n", $1 * 1000 }'; }

# pmiprof top's default trigger here, and perf top's options for the same
"$WL/shares" 3 >/dev/null &
wl=$!
"$P" top -p "$wl" --batch -n 1 -d 1 >"$tmp/probe" 2>&1
wait "$wl"; wl=
if grep -q 'windows are time-based' "$tmp/probe"; then
	hz=$(sed -n 's/.*cpu-clock at \([0-9]*\) Hz.*/\1/p' "$tmp/probe" | head -1)
	perf_ev=(-e cpu-clock -F "${hz:-250}")
	trig="cpu-clock at ${hz:-250} Hz (no hardware PMU)"
else
	perf_ev=(-e instructions -c 5120000)
	trig="instructions every 5,120,000"
fi
# N rounds of shares for about DURATION seconds
rps=$("$WL/shares" 1 | sed -n 's/shares: \([0-9]*\) rounds in \([0-9.]*\) s.*/\1 \2/p' | awk '{ print $1 / $2 }')
N=$(awk -v r="$rps" -v d="$DURATION" 'BEGIN { printf "%d\n", r * d }')
echo "# $(loadavg)"
echo "# shares -n $N (about $DURATION s of one CPU), trigger $trig, $ROUNDS rounds, steady after ${WARM} s"

# watch NAME: the workload under the watcher started by start_NAME; appends
# wall, cpu and steady figures to $tmp/NAME.*
watch() {
	local name=$1 t0 ta tb ka kb k
	"$WL/shares" -n "$N" >"$tmp/out" &
	wl=$!
	t0=$(now_ms)
	"start_$name"
	sleep "$WARM"
	ta=$(now_ms); ka=$(cpu_ns "$wp")
	# top -p ends with its target, and its /proc with it: the last reading before
	kb=$ka; tb=$ta
	while kill -0 "$wl" 2>/dev/null && kill -0 "$wp" 2>/dev/null; do
		k=$(cpu_ns "$wp"); [ "$k" -gt 0 ] && { kb=$k; tb=$(now_ms); }
		sleep 0.2
	done
	wait "$wl"; wl=
	stop_watcher
	wall_ms "$tmp/out" >>"$tmp/$name.wall"
	wcpu_ms "$tmp/out" >>"$tmp/$name.wcpu"
	# ns of CPU over ms of watching, as % of one core
	awk -v k="$kb" -v t="$((tb - t0))" 'BEGIN { printf "%.3f\n", 100 * k / 1e6 / t }' >>"$tmp/$name.cpu"
	awk -v k="$((kb - ka))" -v t="$((tb - ta))" 'BEGIN { printf "%.3f\n", (t > 0) ? 100 * k / 1e6 / t : 0 }' >>"$tmp/$name.steady"
}
start_pm_batch() {
	"$P" top -p "$wl" --batch >/dev/null 2>"$tmp/pm.err" &
	wp=$!
}
start_pm_screen() {
	tmux -S "$sock" new-session -d -s top -x 120 -y 40 "exec '$P' top -p $wl"
	wp=$(tmux -S "$sock" list-panes -t top -F '#{pane_pid}')
}
start_perf_top() {
	mkfifo "$tmp/in"
	sleep 100000 >"$tmp/in" &
	feeder=$!
	perf top --stdio -p "$wl" "${perf_ev[@]}" -d 2 <"$tmp/in" >/dev/null 2>"$tmp/perf.err" &
	wp=$!
}
stop_watcher() {
	kill -INT "$wp" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$wp" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$wp" 2>/dev/null
	wait "$wp" 2>/dev/null
	wp=
	tmux -S "$sock" kill-server 2>/dev/null
	[ -n "$feeder" ] && { kill "$feeder" 2>/dev/null; wait "$feeder" 2>/dev/null; feeder=; rm -f "$tmp/in"; }
}

cases="pm_batch perf_top"
command -v tmux >/dev/null && cases="pm_batch pm_screen perf_top"
for r in $(seq 1 "$ROUNDS"); do
	"$WL/shares" -n "$N" >"$tmp/out"
	wall_ms "$tmp/out" >>"$tmp/plain.wall"
	wcpu_ms "$tmp/out" >>"$tmp/plain.wcpu"
	for c in $cases; do watch "$c"; done
done

base=$(median <"$tmp/plain.wall")
wbase=$(median <"$tmp/plain.wcpu")
printf '%-34s %8s %9s %8s %9s %10s %13s\n' "watcher" "wall_ms" "slowdown" "cpu_ms" "cpu_slow" "cpu_%core" "steady_%core"
printf '%-34s %8d %9s %8d %9s %10s %13s\n' "none" "$base" "-" "$wbase" "-" "-" "-"
declare -A slow wslow cpu steady
for c in $cases; do
	w=$(median <"$tmp/$c.wall")
	wc_=$(median <"$tmp/$c.wcpu")
	slow[$c]=$(awk -v w="$w" -v b="$base" 'BEGIN { printf "%.2f", (b > 0) ? 100 * (w / b - 1) : 0 }')
	wslow[$c]=$(awk -v w="$wc_" -v b="$wbase" 'BEGIN { printf "%.2f", (b > 0) ? 100 * (w / b - 1) : 0 }')
	cpu[$c]=$(median <"$tmp/$c.cpu")
	steady[$c]=$(median <"$tmp/$c.steady")
	case $c in
	pm_batch) label="pmiprof top --batch (defaults)" ;;
	pm_screen) label="pmiprof top, screen (tmux)" ;;
	perf_top) label="perf top --stdio (same rate)" ;;
	esac
	printf '%-34s %8d %8s%% %8d %8s%% %10s %13s\n' "$label" "$w" "${slow[$c]}" "$wc_" "${wslow[$c]}" \
		"${cpu[$c]}" "${steady[$c]}"
done
for c in $cases; do
	[ "$c" = perf_top ] && continue
	awk -v a="${cpu[$c]}" -v b="${cpu[perf_top]}" -v sa="${steady[$c]}" -v sb="${steady[perf_top]}" \
		-v wa="${wslow[$c]}" -v wb="${wslow[perf_top]}" -v n="$c" \
		'BEGIN { printf "ratio %s / perf top: cpu %.2f, steady cpu %.2f; workload cpu_slow %s %% vs %s %%\n", n,
			(b > 0) ? a / b : 0, (sb > 0) ? sa / sb : 0, wa, wb }'
done
awk -v c="${cpu[pm_batch]}" -v s="${wslow[pm_batch]}" -v w="${slow[pm_batch]}" 'BEGIN {
	printf "goal (top at its defaults <= 2 %% of a core, <= 2 %% of the workload): cpu %.2f %% of a core: %s; workload cpu_slow %.2f %%: %s (wall %.2f %%: machine load disturbs it)\n",
		c, (c <= 2) ? "met" : "NOT met", s, (s <= 2) ? "met" : "NOT met", w }'
echo "# $(loadavg)"
