#!/usr/bin/env bash
# Stack exports: seconds and samples/s of `report --format folded`,
# `report --format pprof` and `flamegraph` on one `record -g` trace of
# threads2, next to `perf script | stackcollapse`-free perf equivalents:
# `perf script` (the text the folded tools start from) on perf's -g
# recording of the same workload; pprof bytes per window.  Median of RUNS.
#   RUNS=3 SECS=4 tests/bench/b62_stack_exports.sh
set -u
top=${PMIPROF_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PMIPROF_BUILD:-$top/build}
PMIPROF=$build/pmiprof
WL=$build/workloads/threads2
RUNS=${RUNS:-3}
SECS=${SECS:-4}
T=$(mktemp -d /tmp/pmiprof-b62.XXXXXX)
trap 'rm -rf "$T"' EXIT

for need in "$PMIPROF" "$WL"; do
	[ -x "$need" ] || { echo "b62_stack_exports: $need not built (make)"; exit 0; }
done
perf stat -e cpu-clock -x, true >/dev/null 2>&1 || { echo "b62_stack_exports: skipped: perf_event_open not usable"; exit 0; }
"$PMIPROF" record -q -g -o "$T/g.data" -- "$WL" "$SECS" >/dev/null 2>"$T/err" ||
	{ echo "b62_stack_exports: record -g failed: $(tail -1 "$T/err")"; exit 0; }
n=$("$PMIPROF" report -q -i "$T/g.data" --format folded 2>/dev/null | awk '{ s += $NF } END { print s + 0 }')

now() { date +%s.%N; }
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
time_of() { # command...: median seconds of RUNS runs
	for _ in $(seq "$RUNS"); do
		t0=$(now); "$@" >/dev/null 2>&1; t1=$(now)
		echo "$t1 - $t0" | bc -l
	done | median
}
row() { printf '%-34s %8.3f s %12.0f samples/s\n' "$1" "$2" "$(echo "$n / $2" | bc -l)"; }

echo "trace: $n samples with fp stacks ($(stat -c %s "$T/g.data") bytes)"
row "report --format folded" "$(time_of "$PMIPROF" report -q -i "$T/g.data" --format folded)"
row "report --format pprof" "$(time_of "$PMIPROF" report -q -i "$T/g.data" --format pprof -o "$T/p.pb.gz")"
row "flamegraph" "$(time_of "$PMIPROF" flamegraph -q -i "$T/g.data" -o "$T/f.svg")"
"$PMIPROF" report -q -i "$T/g.data" --format pprof -o "$T/p.pb.gz" 2>/dev/null
echo "pprof: $(stat -c %s "$T/p.pb.gz") bytes, $(( $(stat -c %s "$T/p.pb.gz") / (n > 0 ? n : 1) )) bytes/window; svg $(stat -c %s "$T/f.svg") bytes"
if command -v perf >/dev/null && perf record -q -g -o "$T/perf.data" -- "$WL" "$SECS" >/dev/null 2>&1; then
	pn=$(perf script -i "$T/perf.data" -F ip 2>/dev/null | grep -c '^$')
	pt=$(time_of perf script -i "$T/perf.data")
	printf '%-34s %8.3f s %12.0f samples/s (%d samples)\n' "perf script (perf -g, same workload)" \
		"$pt" "$(echo "$pn / $pt" | bc -l)" "$pn"
else
	echo "perf script: skipped (perf record -g failed)"
fi
