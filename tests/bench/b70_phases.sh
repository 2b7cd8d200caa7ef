#!/usr/bin/env bash
# Phase detection speed: pmiprof phases (default intervals, k = 1..10, and
# with --bbv) on a trace of >= MIN_WINDOWS windows, against the goal of
# 2 s for 1 M windows; beside it the same trace's flat profile and a plain
# per-window pass (report --windows --format csv > /dev/null), the pass
# phases makes.  The trace is one recording of phases3 (A B A C A)
# concatenated chunk by chunk until it has enough windows (each chunk
# decodes on its own; b30_report.sh does the same).  Median of RUNS runs.
#   RUNS=5 MIN_WINDOWS=1000000 tests/bench/b70_phases.sh
set -u
top=${PMIPROF_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PMIPROF_BUILD:-$top/build}
PMIPROF=$build/pmiprof
WL=$build/workloads/phases3
RUNS=${RUNS:-5}
MIN_WINDOWS=${MIN_WINDOWS:-1000000}
T=$(mktemp -d /tmp/pmiprof-b70.XXXXXX)
trap 'rm -rf "$T"' EXIT

for need in "$PMIPROF" "$WL"; do
	[ -x "$need" ] || { echo "b70_phases: $need not built (make)"; exit 0; }
done
[ -x /usr/bin/time ] || { echo "b70_phases: skipped: /usr/bin/time missing (package time)"; exit 0; }
command -v perf >/dev/null && perf stat -e cpu-clock -x, true >/dev/null 2>&1 ||
	{ echo "b70_phases: skipped: perf_event_open not usable"; exit 0; }

samples_of() { "$PMIPROF" report -i "$1" --format json --limit 1 2>/dev/null | sed -n 's/.*"samples": \([0-9]*\), "samples_shown".*/\1/p'; }
"$PMIPROF" record -q -F 10000 -o "$T/one.data" -- "$WL" 500 500 500 >/dev/null 2>"$T/rec.err" ||
	{ echo "b70_phases: record failed: $(tail -1 "$T/rec.err")"; exit 0; }
one=$(samples_of "$T/one.data")
[ "${one:-0}" -gt 0 ] || { echo "b70_phases: no samples recorded"; exit 0; }
copies=$(( (MIN_WINDOWS + one - 1) / one ))
hsize=$(od -An -tu4 -j12 -N4 "$T/one.data" | tr -d ' ')
{
	cat "$T/one.data"
	for _ in $(seq 2 "$copies"); do tail -c +$((32 + hsize + 1)) "$T/one.data"; done
} >"$T/big.data"
windows=$(samples_of "$T/big.data")

timed() { # name cmd...: wall seconds and max RSS (KiB) per run into $T/name.times
	local name=$1 i; shift
	for i in $(seq "$RUNS"); do
		/usr/bin/time -f '%e %M' -o "$T/t" "$@" >/dev/null 2>&1 || { echo "b70_phases: $name failed"; exit 1; }
		cat "$T/t" >>"$T/$name.times"
	done
}
median() { sort -n -k"$2" "$T/$1.times" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'; }
for _ in 1; do
	timed phases "$PMIPROF" phases -i "$T/big.data"
	timed bbv "$PMIPROF" phases -i "$T/big.data" --bbv "$T/big.bb" --format json
	timed pass "$PMIPROF" report -i "$T/big.data" --windows --format csv
	timed flat "$PMIPROF" report -i "$T/big.data"
done
intervals=$("$PMIPROF" phases -i "$T/big.data" --format csv 2>/dev/null | tail -n +2 | wc -l)
k=$("$PMIPROF" phases -i "$T/big.data" --format csv 2>/dev/null | awk -F, 'NR > 1 { p[$4] = 1 } END { print length(p) }')

echo "b70_phases: $windows windows ($copies copies of a phases3 recording), $intervals intervals, k = $k; median of $RUNS"
printf '%-52s %9s %10s %12s\n' "command" "wall_s" "maxrss_kb" "windows/s"
for n in phases bbv pass flat; do
	case $n in
	phases) label="pmiprof phases" ;;
	bbv) label="pmiprof phases --bbv FILE --format json" ;;
	pass) label="pmiprof report --windows --format csv (the pass)" ;;
	flat) label="pmiprof report (flat profile, parallel)" ;;
	esac
	w=$(median $n 1); m=$(median $n 2)
	awk -v l="$label" -v w="$w" -v m="$m" -v n="$windows" 'BEGIN { printf "%-52s %9.3f %10d %12.0f\n", l, w, m, (w > 0 ? n / w : 0) }'
done
w=$(median phases 1)
awk -v w="$w" -v n="$windows" 'BEGIN { s = w * 1e6 / n; printf "phases: %.3f s per 1 M windows   goal < 2 s: %s\n", s, s < 2 ? "met" : "NOT met" }'
echo "machine: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
