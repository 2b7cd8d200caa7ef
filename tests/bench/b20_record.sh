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
# Call stacks (callgraph workload, CG_SCALE): `pmiprof record -g` against
#   `perf record -g -e cpu-clock`, and `--call-graph dwarf` against perf's
#   `--call-graph dwarf`, both tools at the same rate; pmiprof once with the
#   four counters per sample and once with cpu-clock alone (perf's single
#   value).  Bytes per sample of the file and the workload's wall-time
#   slowdown (median of ROUNDS and its min..max range) with their ratios to
#   perf's in the same run.  The load average is printed before and after:
#   wall times on a shared machine are only as good as it.
#
#   ROUNDS=5 SHARES_ROUNDS=1200 THREAD_UNITS=100000 CG_SCALE=2 tests/bench/b20_record.sh
#   CASES="callgraph-fp callgraph-dwarf" tests/bench/b20_record.sh   (a subset)
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
range() { sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s..%s\n", lo, hi }'; }
want() { [ -z "${CASES:-}" ] || [[ " $CASES " == *" $1 "* ]]; }
loadavg() { echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"; }
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

# The callgraph workload prints nothing: time it from inside the recorded
# command, so recorder start-up and post-processing stay out of its wall time.
cat >"$tmp/timed" <<'EOS'
#!/usr/bin/env bash
TIMEFORMAT='%R %U %S'
t=$( { time "$@" >/dev/null 2>&1; } 2>&1 )
set -- $t
awk -v r="$1" -v u="$2" -v s="$3" 'BEGIN { printf "timed: in %.3f s (cpu %.3f s)\n", r, u + s }'
EOS
chmod +x "$tmp/timed"

# name, perf call-graph option, pmiprof call-graph option, workload command...
run_cg_case() {
	local name=$1 popt=$2 mopt=$3 d=$tmp/$1 r t
	shift 3
	mkdir -p "$d"
	for r in $(seq 1 "$ROUNDS"); do
		"$tmp/timed" "$@" >"$d/out"; self_ms "$d/out" >>"$d/plain"
		perf record $popt -e cpu-clock -F $RATE -o "$d/perf.data" -- "$tmp/timed" "$@" >"$d/out" 2>"$d/perf.err"
		self_ms "$d/out" >>"$d/perf"
		stat -c %s "$d/perf.data" >>"$d/perf.bytes"
		perf report -i "$d/perf.data" --stats 2>/dev/null >"$d/perf.stats"
		awk '/SAMPLE events:/ { print $3; exit }' "$d/perf.stats" >>"$d/perf.samples"
		awk '/LOST(_SAMPLES)? events:/ { s += $3 } END { print s + 0 }' "$d/perf.stats" >>"$d/perf.lost"
		for t in pm4 pm1; do
			local ev=$EV
			[ $t = pm1 ] && ev=cpu-clock
			"$P" record $mopt -e "$ev" -F $RATE -o "$d/$t.data" -- "$tmp/timed" "$@" >"$d/out" 2>"$d/$t.err"
			self_ms "$d/out" >>"$d/$t"
			sed -n 's/.*recorded \([0-9]*\) samples.*/\1/p' "$d/$t.err" >>"$d/$t.samples"
			sed -n 's/.*samples (\([0-9]*\) lost,.*/\1/p' "$d/$t.err" >>"$d/$t.lost"
			stat -c %s "$d/$t.data" >>"$d/$t.bytes"
		done
	done
	local p pr
	p=$(median <"$d/plain"); pr=$(range <"$d/plain")
	echo
	echo "case $name: $* ($ROUNDS rounds: medians, min..max)"
	echo "  perf record $popt -e cpu-clock -F $RATE; pmiprof record $mopt -F $RATE"
	printf '%-26s %8s %13s %9s %8s %5s %10s %9s %11s\n' tool wall_ms range slowdown samples lost bytes B/sample "B/s vs perf"
	printf '%-26s %8d %13s %9s %8s %5s %10s %9s %11s\n' plain "$p" "$pr" - - - - - -
	local pbps
	pbps=$(awk -v by="$(median <"$d/perf.bytes")" -v s="$(median <"$d/perf.samples")" 'BEGIN { if (s > 0) printf "%.1f", by / s; else print 0 }')
	for t in perf pm4 pm1; do
		local label="perf record (cpu-clock)"
		[ $t = pm4 ] && label="pmiprof record (4 counters)"
		[ $t = pm1 ] && label="pmiprof record (cpu-clock)"
		awk -v l="$label" -v w="$(median <"$d/$t")" -v rg="$(range <"$d/$t")" -v p="$p" \
		    -v s="$(median <"$d/$t.samples")" -v lo="$(median <"$d/$t.lost")" \
		    -v by="$(median <"$d/$t.bytes")" -v pb="$pbps" 'BEGIN {
			bps = 0; if (s > 0) bps = by / s
			rel = "-"; if (pb > 0) rel = sprintf("%.2fx", bps / pb)
			printf "%-26s %8d %13s %8.1f%% %8d %5d %10d %9.1f %11s\n", l, w, rg, 100 * (w - p) / p, s, lo, by, bps, rel }'
	done
	awk -v p="$p" -v a="$(median <"$d/perf")" -v b="$(median <"$d/pm4")" -v c="$(median <"$d/pm1")" 'BEGIN {
		r = "n/a (perf added no measurable time)"; r1 = r
		if (a - p > 0) { r = sprintf("%.2f", (b - p) / (a - p)); r1 = sprintf("%.2f", (c - p) / (a - p)) }
		printf "ratio of wall slowdowns pmiprof/perf: %s (4 counters), %s (cpu-clock)\n", r, r1 }'
}

loadavg
echo "trigger: cpu-clock at $RATE Hz; task-clock, page-faults, context-switches read per sample"
want single && run_case single "{$EV}:S" "$EV" "$WL/shares" -n "${SHARES_ROUNDS:-1200}"
want threads && run_case threads cpu-clock "$EV" "$WL/threads2" -n "${THREAD_UNITS:-100000}"
want threads-1ev && run_case threads-1ev cpu-clock cpu-clock "$WL/threads2" -n "${THREAD_UNITS:-100000}"
want callgraph-fp && run_cg_case callgraph-fp -g -g "$WL/callgraph" "${CG_SCALE:-2}"
want callgraph-dwarf && run_cg_case callgraph-dwarf "--call-graph dwarf" "--call-graph dwarf" "$WL/callgraph" "${CG_SCALE:-2}"
echo
loadavg
