#!/usr/bin/env bash
# annotate and per-line speed on ONE perf.data (perf record -F 50000 of
# random_sort, about SAMPLES samples): pmiprof annotate -i perf.data of
# the N hottest functions versus perf annotate --stdio of the same
# functions (perf runs objdump per function), and pmiprof report
# --sort srcline versus perf report --stdio --sort srcline (perf runs
# addr2line).  Same file for both tools, interleaved, median of RUNS runs,
# with per-run ratios.
#   RUNS=3 SECS=12 N=20 tests/bench/b32_annotate.sh
set -u
top=${PMIPROF_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PMIPROF_BUILD:-$top/build}
PMIPROF=$build/pmiprof
WL=$build/workloads/random_sort
RUNS=${RUNS:-3}
SECS=${SECS:-12}
N=${N:-20}
T=$(mktemp -d /tmp/pmiprof-b32.XXXXXX)
trap 'rm -rf "$T"' EXIT

[ -x "$PMIPROF" ] && [ -x "$WL" ] || { echo "b32_annotate: not built (make)"; exit 0; }
command -v perf >/dev/null || { echo "b32_annotate: skipped: perf not installed (linux-perf)"; exit 0; }
[ -x /usr/bin/time ] || { echo "b32_annotate: skipped: /usr/bin/time missing (package time)"; exit 0; }
perf stat -e cpu-clock -x, true >/dev/null 2>&1 || { echo "b32_annotate: skipped: perf_event_open not usable"; exit 0; }

perf record -q --buildid-mmap -e cpu-clock -F 50000 -o "$T/perf.data" -- "$WL" "$SECS" >/dev/null 2>"$T/rec.err" ||
	{ echo "b32_annotate: perf record failed: $(tail -1 "$T/rec.err")"; exit 0; }
samples=$("$PMIPROF" report -i "$T/perf.data" --format json --limit 1 2>/dev/null |
	sed -n 's/.*"samples": \([0-9]*\), "samples_shown".*/\1/p')
# the N hottest user-space functions, as perf names them
perf report -i "$T/perf.data" --stdio --sort sym -n 2>/dev/null |
	awk '$1 ~ /%$/ && $3 == "[.]" { print $4 }' | head -n "$N" >"$T/syms"
nsym=$(wc -l <"$T/syms")
syms=$(paste -sd' ' "$T/syms")
echo "perf.data: ${samples:-?} samples of random_sort ${SECS} s; $nsym hottest user functions: $syms"

measure() { # tag command...
	local tag=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$T/$tag.time" "$@" >"$T/$tag.out" 2>/dev/null
	cat "$T/$tag.time"
}
for i in $(seq 1 "$RUNS"); do
	# shellcheck disable=SC2086
	measure pa "$PMIPROF" annotate -i "$T/perf.data" -q $syms >"$T/pa.$i"
	perf_syms=()
	while read -r s; do perf_syms+=(-s "$s"); done <"$T/syms"
	: >"$T/fa.out.all"
	start=$(date +%s.%N)
	for s in "${perf_syms[@]}"; do [ "$s" = -s ] && continue
		perf annotate -i "$T/perf.data" --stdio -s "$s" >>"$T/fa.out.all" 2>/dev/null
	done
	end=$(date +%s.%N)
	awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f 0 0 0\n", b - a }' >"$T/fa.$i"
	measure ps "$PMIPROF" report -i "$T/perf.data" -q --sort srcline >"$T/ps.$i"
	measure fs perf report -i "$T/perf.data" --stdio --sort srcline >"$T/fs.$i"
done
med() { for i in $(seq 1 "$RUNS"); do awk '{ print $1 }' "$T/$1.$i"; done | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratios() { for i in $(seq 1 "$RUNS"); do awk -v p="$(awk '{ print $1 }' "$T/$1.$i")" '{ printf "%.1fx ", $1 / (p > 0 ? p : 0.001) }' "$T/$2.$i"; done; }
printf '%-52s %10s\n' "tool (median wall s of $RUNS runs, same perf.data)" wall_s
printf '%-52s %10s\n' "pmiprof annotate -i perf.data ($nsym functions)" "$(med pa)"
printf '%-52s %10s\n' "perf annotate --stdio -s F (each of $nsym functions)" "$(med fa)"
printf '%-52s %10s\n' "pmiprof report --sort srcline" "$(med ps)"
printf '%-52s %10s\n' "perf report --stdio --sort srcline" "$(med fs)"
echo "per-run ratio wall perf annotate / pmiprof annotate: $(ratios pa fa)  goal >= 20x"
echo "per-run ratio wall perf report --sort srcline / pmiprof: $(ratios ps fs)  goal >= 50x"
echo "load average during the run: $(cut -d' ' -f1-3 /proc/loadavg)"
