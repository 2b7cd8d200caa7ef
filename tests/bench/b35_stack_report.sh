#!/usr/bin/env bash
# Call-stack report speed: pmiprof's stack views against perf's equivalents
# on recordings of the same workload (random_sort: libc qsort recursion and
# random()), measured interleaved in the same run, RUNS runs each:
#   dwarf: `record --call-graph dwarf` vs `perf record --call-graph dwarf`
#   fp:    `record -g`                  vs `perf record -g`
# and on each pair of recordings
#   report --children          vs perf report --children --stdio   (goals: dwarf >= 10x, fp >= 5x)
#   report --tree              vs perf report -G --stdio           (caller tree)
#   report --format folded     vs perf script -F comm,ip,sym        (the text stackcollapse reads)
# Samples, seconds (wall and user+sys), samples/s, and the ratio of
# samples/s pmiprof/perf per run (runs interleaved: median, range and each
# run's in run order).
#
# Both tools' traces hold about as many samples, >= MIN_SAMPLES, so fixed
# start-up costs weigh alike: perf records longer until it has MIN_SAMPLES
# (perf.data cannot be concatenated); pmiprof's recording is concatenated
# chunk by chunk (each chunk decodes on its own, STACK ids are chunk-local)
# until it has at least as many samples as perf's.
#   RUNS=5 MIN_SAMPLES=100000 SECS=12 tests/bench/b35_stack_report.sh
set -u
top=${PMIPROF_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PMIPROF_BUILD:-$top/build}
PMIPROF=$build/pmiprof
WL=$build/workloads/random_sort
RUNS=${RUNS:-5}
MIN_SAMPLES=${MIN_SAMPLES:-100000}
SECS=${SECS:-12}
RATE=${RATE:-10000}
T=$(mktemp -d /tmp/pmiprof-b35.XXXXXX)
trap 'rm -rf "$T"' EXIT

for need in "$PMIPROF" "$WL"; do
	[ -x "$need" ] || { echo "b35_stack_report: $need not built (make)"; exit 0; }
done
command -v perf >/dev/null || { echo "b35_stack_report: skipped: perf not installed (linux-perf)"; exit 0; }
[ -x /usr/bin/time ] || { echo "b35_stack_report: skipped: /usr/bin/time missing (package time)"; exit 0; }
perf stat -e cpu-clock -x, true >/dev/null 2>&1 || { echo "b35_stack_report: skipped: perf_event_open not usable"; exit 0; }

samples_of_pmiprof() { "$PMIPROF" report -i "$1" --format json --limit 1 2>/dev/null | sed -n 's/.*"samples": \([0-9]*\), "samples_shown".*/\1/p'; }
samples_of_perf() { perf report -i "$1" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }'; }

# record_pmiprof MODE-OPTION OUT WANT: one recording, concatenated to >= WANT samples
record_pmiprof() {
	local one copies hsize
	"$PMIPROF" record -q $1 -e cpu-clock -F "$RATE" -o "$T/one.data" -- "$WL" "$SECS" >/dev/null 2>"$T/rec.err" ||
		{ echo "b35_stack_report: pmiprof record $1 failed: $(tail -1 "$T/rec.err")"; exit 0; }
	one=$(samples_of_pmiprof "$T/one.data")
	[ "${one:-0}" -gt 0 ] || { echo "b35_stack_report: no samples recorded ($1)"; exit 0; }
	copies=$(( ($3 + one - 1) / one ))
	hsize=$(od -An -tu4 -j12 -N4 "$T/one.data" | tr -d ' ')
	{
		cat "$T/one.data"
		for _ in $(seq 2 "$copies"); do tail -c +$((32 + hsize + 1)) "$T/one.data"; done
	} >"$2"
	rm -f "$T/one.data"
}
record_perf() { # MODE-OPTION OUT: doubling the time until >= MIN_SAMPLES (at most 64 s)
	local secs=$SECS
	while :; do
		perf record -q $1 -e cpu-clock -F "$RATE" -o "$2" -- "$WL" "$secs" >/dev/null 2>"$T/perf.err" ||
			{ echo "b35_stack_report: perf record $1 failed: $(tail -1 "$T/perf.err")"; exit 0; }
		[ "$(samples_of_perf "$2")" -ge "$MIN_SAMPLES" ] || [ "$secs" -ge 64 ] && break
		secs=$(( secs * 2 ))
	done
}
record_perf "--call-graph dwarf" "$T/fd.data"
record_perf "-g" "$T/fg.data"
fdn=$(samples_of_perf "$T/fd.data") fgn=$(samples_of_perf "$T/fg.data")
# as many samples as perf's (start-up costs then weigh the same)
record_pmiprof "--call-graph dwarf" "$T/pd.data" "$(( fdn > MIN_SAMPLES ? fdn : MIN_SAMPLES ))"
record_pmiprof "-g" "$T/pg.data" "$(( fgn > MIN_SAMPLES ? fgn : MIN_SAMPLES ))"
pdn=$(samples_of_pmiprof "$T/pd.data") pgn=$(samples_of_pmiprof "$T/pg.data")

# timed NAME cmd...: $T/NAME.$i = "wall_s cpu_s" (wall from nanosecond clock reads)
timed() {
	local name=$1 t0 t1; shift
	t0=$(date +%s%N)
	/usr/bin/time -f "%U %S" -o "$T/$name.t" "$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	awk -v w=$(( (t1 - t0) / 1000 )) '{ printf "%.6f %.2f\n", w / 1e6, $1 + $2 }' "$T/$name.t" >"$T/$name.$i"
}
echo "workload: random_sort $SECS s, cpu-clock at $RATE Hz; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 "$RUNS"); do
	for m in d g; do
		timed "p${m}_children" "$PMIPROF" report -q -i "$T/p$m.data" --children
		timed "f${m}_children" perf report -i "$T/f$m.data" --children --stdio
		timed "p${m}_tree" "$PMIPROF" report -q -i "$T/p$m.data" --tree
		timed "f${m}_tree" perf report -i "$T/f$m.data" -G --stdio
		timed "p${m}_folded" "$PMIPROF" report -q -i "$T/p$m.data" --format folded
		timed "f${m}_folded" perf script -i "$T/f$m.data" -F comm,ip,sym
	done
done

col() { for i in $(seq 1 "$RUNS"); do awk -v c="$2" '{ print $c }' "$T/$1.$i"; done; } # name column
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# per-run ratios of samples/s (wall) pmiprof/perf: "median (range lo .. hi) [each run, in order]"
ratios() { # pname pn fname fn
	local each
	each=$(for i in $(seq 1 "$RUNS"); do
		paste "$T/$1.$i" "$T/$3.$i" | awk -v pn="$2" -v fn="$4" '{ printf "%.2f\n", (pn / $1) / (fn / $3) }'
	done)
	echo "$each" | sort -g | awk '{ v[NR] = $1 } END { printf "%.2fx (%.2fx .. %.2fx)", v[int((NR + 1) / 2)], v[1], v[NR] }'
	printf ' [%s]' "$(echo $each)"
}
row() { # label name samples
	local w c
	w=$(col "$2" 1 | median) c=$(col "$2" 2 | median)
	awk -v l="$1" -v n="$3" -v w="$w" -v c="$c" 'BEGIN {
		printf "%-46s %8d %8.3f %8.2f %11.0f %11.0f\n", l, n, w, c, n / w, (c > 0 ? n / c : 0) }'
}
ratio_line() { # label pname pn fname fn goal
	local cr
	cr=$(awk -v pn="$3" -v fn="$5" -v pc="$(col "$2" 2 | median)" -v fc="$(col "$4" 2 | median)" \
		'BEGIN { if (pc > 0 && fc > 0) printf "%.2fx", (pn / pc) / (fn / fc); else print "n/a" }')
	printf '  ratio %-38s %s wall per run, %s per cpu second%s\n' "$1" "$(ratios "$2" "$3" "$4" "$5")" "$cr" "${6:+   goal >= $6}"
}
echo "pmiprof traces: dwarf $(stat -c %s "$T/pd.data") bytes, fp $(stat -c %s "$T/pg.data") bytes (concatenated to >= perf's samples);" \
	"perf.data: dwarf $(stat -c %s "$T/fd.data"), fp $(stat -c %s "$T/fg.data") bytes"
printf '%-46s %8s %8s %8s %11s %11s\n' "command (median of $RUNS runs)" samples wall_s cpu_s samples/s "samples/cpu_s"
for m in d g; do
	mode=dwarf pn=$pdn fn=$fdn goal=10x
	[ $m = g ] && mode=fp pn=$pgn fn=$fgn goal=5x
	echo "-- $mode"
	row "pmiprof report --children" "p${m}_children" "$pn"
	row "perf report --children --stdio" "f${m}_children" "$fn"
	row "pmiprof report --tree" "p${m}_tree" "$pn"
	row "perf report -G --stdio" "f${m}_tree" "$fn"
	row "pmiprof report --format folded" "p${m}_folded" "$pn"
	row "perf script -F comm,ip,sym" "f${m}_folded" "$fn"
	ratio_line "$mode --children pmiprof/perf:" "p${m}_children" "$pn" "f${m}_children" "$fn" "$goal"
	ratio_line "$mode --tree / -G:" "p${m}_tree" "$pn" "f${m}_tree" "$fn" ""
	ratio_line "$mode folded / perf script:" "p${m}_folded" "$pn" "f${m}_folded" "$fn" ""
done
echo "load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
