#!/usr/bin/env bash
# b60_regions: what an empty code region costs (begin + end, nothing
# between), pmiprof's marker API in each of its modes next to PAPI's
# high-level regions and LIKWID's markers, in the same run.  Each figure is
# the best of 5 rounds of N pairs, ns per pair, timed by the program itself.
# On this VM there is no hardware PMU: pmiprof reads task-clock with read()
# (a system call at begin and at end) in auto/outer mode, at 1 call in N in
# sampled mode; the clock mode reads no counter.  Times come from rdtsc
# where the clocksource is tsc (clock-vdso: the vDSO clock instead).
set -u
cd "$(dirname "$0")/../.." || exit 2
build=${PMIPROF_BUILD:-$PWD/build}
n=${B60_PAIRS:-200000}
tmp=$(mktemp -d /tmp/pmiprof-b60.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
src=tests/bench/region_bench.c
cc -O2 -o "$tmp/none" $src || { echo "skipped: cannot compile $src"; exit 0; }
cc -O2 -Iinclude -DUSE_PMIPROF -o "$tmp/pm" $src "$build/libpmiprof-region.a" -lpthread &&
cc -O2 -Iinclude -DUSE_PMIPROF_MACRO -o "$tmp/pmm" $src "$build/libpmiprof-region.a" -lpthread ||
	{ echo "skipped: $build/libpmiprof-region.a missing (make)"; exit 0; }
have_papi=0; have_likwid=0
[ -f /usr/include/papi.h ] && cc -O2 -DUSE_PAPI -o "$tmp/papi" $src -lpapi 2>/dev/null && have_papi=1
[ -f /usr/include/likwid-marker.h ] && cc -O2 -DUSE_LIKWID -o "$tmp/likwid" $src -llikwid 2>/dev/null && have_likwid=1
ns() { sed -n 's/^ns_per_pair \([0-9.]*\).*/\1/p' | head -1; }
row() { printf '  %-44s %10s  %s\n' "$1" "${2:-n/a}" "$3"; }

echo "empty begin/end pair, ns (best of 5 x $n pairs); tsc/clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
row "api / mode" "ns/pair" "what one pair does"
row "loop floor (no call)" "$("$tmp/none" $n | ns)" ""
row "pmiprof, not under pmiprof (function)" "$("$tmp/pm" $n | ns)" "call + one test of a global flag, per call"
row "pmiprof, not under pmiprof (macro)" "$("$tmp/pmm" $n | ns)" "one inline test of the flag, no call"
for mode in auto outer sampled sampled:4096 clock clock-vdso; do
	env=
	[ $mode = clock-vdso ] && { mode=clock; env=PMIPROF_REGIONS_NO_TSC=1; }
	out=$(env $env "$build/pmiprof" stat --regions --region-read $mode -e task-clock -- "$tmp/pm" $n 2>"$tmp/stat.$mode")
	path=$(sed -n 's/^   task-clock  *read with \(.*\)$/\1/p' "$tmp/stat.$mode" | head -1)
	case $mode$env in
	auto) what="task-clock: ${path:-?}; 2 x rdtsc + ring write" ;;
	outer) what="as auto: every region here is outermost" ;;
	sampled) what="2 x rdtsc + ring write; read() x 2 at 1 call in 256" ;;
	sampled:4096) what="2 x rdtsc + ring write; read() x 2 at 1 call in 4096" ;;
	clock) what="2 x rdtsc + ring write (wall-ns only)" ;;
	*) what="2 x vDSO clock_gettime + ring write (TSC not used)"; mode="clock, PMIPROF_REGIONS_NO_TSC" ;;
	esac
	row "stat --regions --region-read $mode" "$(printf '%s\n' "$out" | ns)" "$what"
done
# 4000 pairs a round, 0.2 s apart: the 16384-record ring never fills, so
# no round is timed dropping markers (a dropped BEGIN costs no clock read)
out=$("$build/pmiprof" record -q -o "$tmp/rec.pmi" -- "$tmp/pm" 4000 gap 2>"$tmp/rec.err")
lost=$("$build/pmiprof" report -i "$tmp/rec.pmi" --by region 2>&1 | grep -o 'markers, lost [0-9]*' | head -1)
row "record (markers), 4000 pairs/round" "$(printf '%s\n' "$out" | ns)" "2 x (rdtsc -> ns + ring write), no counter (no rdpmc); ${lost:-markers lost ?}"
cost=$(sed -n 's/.*empty-region cost subtracted.*: task-clock \([0-9]*\),.*/\1/p' "$tmp/stat.auto")
echo "  (pmiprof's own empty-region figure, auto mode: task-clock ${cost:-?} ns between the two reads; it is subtracted from every call)"
if [ $have_papi = 1 ]; then
	for ev in PAPI_TOT_INS perf::TASK-CLOCK; do
		out=$(cd "$tmp" && PAPI_EVENTS=$ev PAPI_OUTPUT_DIRECTORY=$tmp/papi.$ev "$tmp/papi" $n 2>"$tmp/papi.err")
		counted=$(ls "$tmp/papi.$ev"/papi_hl_output/*.json 2>/dev/null | head -1)
		row "PAPI_hl_region_begin/end, PAPI_EVENTS=$ev" "$(printf '%s\n' "$out" | ns)" \
			"$([ -n "$counted" ] && echo "counted (PAPI_read of an event set, per call)" || echo "did not count here: $(grep -m1 -i 'warn\|error' "$tmp/papi.err" | cut -c1-60)")"
	done
else
	row "PAPI high-level regions" "" "skipped: libpapi-dev not installed"
fi
if [ $have_likwid = 1 ]; then
	row "LIKWID_MARKER_START/STOP (no likwid-perfctr)" "$("$tmp/likwid" $n 2>/dev/null | ns)" "marker API inactive: returns at once"
	if command -v likwid-perfctr >/dev/null; then
		out=$(likwid-perfctr -C 0 -g INSTR_RETIRED_ANY:FIXC0 -m "$tmp/likwid" $n 2>&1)
		v=$(printf '%s\n' "$out" | ns)
		row "likwid-perfctr -m (markers active)" "$v" \
			"$([ -n "$v" ] && echo "counts: per call reads of the MSRs/perf fds" || echo "cannot count here: $(printf '%s\n' "$out" | grep -m1 -i 'error\|not\|fail' | cut -c1-60)")"
	fi
else
	row "LIKWID markers" "" "skipped: likwid not installed"
fi
