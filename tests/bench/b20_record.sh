#!/usr/bin/env bash
# Recording overhead of pmiprof record against perf record, same run, same
# workload, same trigger, rate and counters per sample: cpu-clock at 10 kHz
# as group leader with task-clock, page-faults and context-switches read at
# every sample ('{...}:S' in perf).  Workloads do fixed work and report
# their own wall and CPU time, so "slowdown" is what profiling cost the
# workload; "cpu_slow" is the same for its CPU time, which machine load from
# other processes disturbs far less than wall time;
# "cmd_ms" is the whole command, what `time perf record -- CMD` shows (the
# issue's "perf record turned a 2.0 s run into 3.1 s"), including the profiler's start-up and
# post-processing; "own_cpu_ms" is the CPU time of the profiler process
# itself (perf stat --no-inherit), not of the workload.  ROUNDS interleaved rounds (plain, perf, pmiprof); medians.
#
# Case 1: shares -n N, one thread: perf and pmiprof record exactly the same.
# Case 2: threads2 -n N, two busy threads: perf < 6.12 tools cannot combine
#   group reads (:S) with inherit, so perf samples cpu-clock alone there
#   (fewer values per sample than pmiprof: the comparison favours perf).
# Case 3: the same two threads, both tools sampling cpu-clock alone.
#
#   ROUNDS=5 SHARES_ROUNDS=1200 THREAD_UNITS=100000 tests/bench/b20_record.sh
set -u
: "${PMIPROF_BUILD:=$(cd "$(dirname "$0")/../.." && pwd)/build}"
P=$PMIPROF_BUILD/pmiprof
WL=$PMIPROF_BUILD/workloads
ROUNDS=${ROUNDS:-5}
EV=cpu-clock,task-clock,page-faults,context-switches
RATE=10000
tmp=$(mktemp -d /tmp/pmiprof-b20.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
command -v perf >/dev/null || { echo "perf not installed: skipped"; exit 0; }
[ -x "$P" ] && [ -x "$WL/shares" ] || { echo "build first (make): $P missing"; exit 0; }
perf stat -e cpu-clock -x, true >/dev/null 2>&1 || { echo "perf events not usable here: skipped"; exit 0; }

now() { date +%s%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print 0 }'; }
# the workload's own "in X s (cpu Y s)" line: wall and CPU time in ms
self_ms() { sed -n 's/.* in \([0-9.]*\) s.*/\1/p' "$1" | awk '{ printf "%d\n", $1 * 1000 }'; }
cpu_ms() { sed -n 's/.*(cpu \([0-9.]*\) s).*/\1/p' "$1" | awk '{ printf "%d\n", $1 * 1000 }'; }

run_case() {	# name, perf event spec, pmiprof events, workload command...
	local name=$1 pev=$2 mev=$3 d=$tmp/$1 r t0 t1
	shift 3
	mkdir -p "$d"
	for r in $(seq 1 "$ROUNDS"); do
		t0=$(now); "$@" >"$d/out"; t1=$(now)
		self_ms "$d/out" >>"$d/plain"; cpu_ms "$d/out" >>"$d/plain.wcpu"; echo $(((t1 - t0) / 1000000)) >>"$d/plain.cmd"

		t0=$(now)
		perf stat --no-inherit -e task-clock -x, -o "$d/perf.cpu" -- \
			perf record -e "$pev" -F $RATE -o "$d/perf.data" -- "$@" >"$d/out" 2>"$d/perf.err"
		t1=$(now)
		self_ms "$d/out" >>"$d/perf"; cpu_ms "$d/out" >>"$d/perf.wcpu"; echo $(((t1 - t0) / 1000000)) >>"$d/perf.cmd"
		awk -F, '/task-clock/ { printf "%d\n", $1 }' "$d/perf.cpu" >>"$d/perf.own"
		stat -c %s "$d/perf.data" >>"$d/perf.bytes"
		# perf's own "(N samples)" counts every group member; the stats count windows
		perf report -i "$d/perf.data" --stats 2>/dev/null >"$d/perf.stats"
		awk '/SAMPLE events:/ { print $3; exit }' "$d/perf.stats" >>"$d/perf.samples"
		awk '/LOST(_SAMPLES)? events:/ { s += $3 } END { print s + 0 }' "$d/perf.stats" >>"$d/perf.lost"

		t0=$(now)
		perf stat --no-inherit -e task-clock -x, -o "$d/pm.cpu" -- \
			"$P" record -e "$mev" -F $RATE -o "$d/pm.data" -- "$@" >"$d/out" 2>"$d/pm.err"
		t1=$(now)
		self_ms "$d/out" >>"$d/pm"; cpu_ms "$d/out" >>"$d/pm.wcpu"; echo $(((t1 - t0) / 1000000)) >>"$d/pm.cmd"
		awk -F, '/task-clock/ { printf "%d\n", $1 }' "$d/pm.cpu" >>"$d/pm.own"
		sed -n 's/.*recorded \([0-9]*\) samples.*/\1/p' "$d/pm.err" >>"$d/pm.samples"
		sed -n 's/.*samples (\([0-9]*\) lost,.*/\1/p' "$d/pm.err" >>"$d/pm.lost"
		stat -c %s "$d/pm.data" >>"$d/pm.bytes"
	done
	local p a b
	p=$(median <"$d/plain"); a=$(median <"$d/perf"); b=$(median <"$d/pm")
	echo
	echo "case $name: $* ($ROUNDS rounds, medians)"
	echo "  perf -e '$pev', pmiprof -e '$mev', both -F $RATE"
	local pc
	pc=$(median <"$d/plain.wcpu")
	printf '%-15s %8s %8s %8s %8s %7s %8s %8s %5s %9s %8s\n' tool wall_ms slowdown wl_cpu cpu_slow cmd_ms own_cpu samples lost bytes B/sample
	printf '%-15s %8d %8s %8d %8s %7d %8s %8s %5s %9s %8s\n' plain "$p" - "$pc" - "$(median <"$d/plain.cmd")" - - - - -
	for t in perf pm; do
		local w=$a label="perf record"
		[ $t = pm ] && w=$b label="pmiprof record"
		awk -v l="$label" -v w="$w" -v p="$p" -v pc="$pc" -v wc="$(median <"$d/$t.wcpu")" -v c="$(median <"$d/$t.cmd")" -v own="$(median <"$d/$t.own")" -v s="$(median <"$d/$t.samples")" \
		    -v lo="$(median <"$d/$t.lost")" -v by="$(median <"$d/$t.bytes")" 'BEGIN {
			bps = 0; if (s > 0) bps = by / s
			cs = 0; if (pc > 0) cs = 100 * (wc - pc) / pc
			printf "%-15s %8d %7.1f%% %8d %7.1f%% %7d %8d %8d %5d %9d %8.1f\n", l, w, 100 * (w - p) / p, wc, cs, c, own, s, lo, by, bps }'
	done
	awk -v p="$p" -v a="$a" -v b="$b" -v pc="$pc" -v ac="$(median <"$d/perf.wcpu")" -v bc="$(median <"$d/pm.wcpu")" \
	    -v cp="$(median <"$d/plain.cmd")" -v ca="$(median <"$d/perf.cmd")" -v cb="$(median <"$d/pm.cmd")" 'BEGIN {
		r = "n/a (perf added no measurable time)"
		if (a - p > 0) r = sprintf("%.2f", (b - p) / (a - p))
		rc = "n/a"
		if (ac - pc > 0) rc = sprintf("%.2f", (bc - pc) / (ac - pc))
		rm = "n/a"
		if (ca - cp > 0) rm = sprintf("%.2f", (cb - cp) / (ca - cp))
		printf "ratio of slowdowns pmiprof/perf: workload wall %s, workload cpu %s, whole command %s (goal <= 0.50)\n", r, rc, rm }'
}

echo "trigger: cpu-clock at $RATE Hz; task-clock, page-faults, context-switches read per sample"
run_case single "{$EV}:S" "$EV" "$WL/shares" -n "${SHARES_ROUNDS:-1200}"
run_case threads cpu-clock "$EV" "$WL/threads2" -n "${THREAD_UNITS:-100000}"
run_case threads-1ev cpu-clock cpu-clock "$WL/threads2" -n "${THREAD_UNITS:-100000}"
