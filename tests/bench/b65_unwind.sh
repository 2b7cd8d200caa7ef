#!/usr/bin/env bash
# Unwinding benchmark (make bench): samples/s of report/stacks/unwind.c on 8 KiB
# dwarf-mode stacks with warm caches (tests/bench/unwind_bench.c), with the
# compiled-rule fast path and with libunwind alone (PMIPROF_UNWIND=libunwind),
# next to the rate perf report achieves on a --call-graph dwarf,8192 recording
# made in this run.  Goal (issue #8): >= 10x perf report's rate.
# Prints a table; never fails on numbers.
set -u
cd "$(dirname "$0")/../.." || exit 2
build=${PMIPROF_BUILD:-${O:-$PWD/build}}
out=$build/bench
mkdir -p "$out" || exit 2
tmp=$(mktemp -d /tmp/pmiprof-b65.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=${B60_SAMPLES:-200000}

# Linked like a unit test: the report's objects from the build, no main().
cc=${CC:-cc}
pkgs="libdw libelf zlib libdeflate libunwind-generic"
if ! $cc -O2 -g -std=c11 -D_GNU_SOURCE -Iinclude -Ilib -Ireport -Idaemon -Itests/unit $(pkg-config --cflags $pkgs) \
	tests/bench/unwind_bench.c tests/unit/unwind_self.c $(find "$build"/report "$build"/daemon -name "*.o") \
	"$build/libpmiprof.a" -ldl $(pkg-config --libs $pkgs) -lm -lpthread -lstdc++ \
	-o "$out/unwind_bench" 2>"$tmp/build.log"; then
	echo "b65: cannot build tests/bench/unwind_bench.c (make first)"
	head -5 "$tmp/build.log"
	exit 1
fi

# best_of MODE N: best samples/s of 3 runs (MODE: fast or libunwind).
best_of() {
	local mode=$1 runs=$2 b=0 i env=
	[ "$mode" = libunwind ] && env=libunwind
	for i in 1 2 3; do
		set -- $(PMIPROF_UNWIND=$env "$out/unwind_bench" "$runs" 8192) || exit 1
		frames=$2 share=$3 fast_share=$4
		b=$(echo "$1 $b" | awk '{print ($1 > $2) ? $1 : $2}')
	done
	echo "$b $frames $share $fast_share"
}
set -- $(best_of fast "$n")
best=$1 frames=$2 share=$3 fast_share=$4
set -- $(best_of libunwind $((n / 10)))
lu_best=$1

# perf report on a dwarf recording of a workload: samples / wall seconds.
perf_rate=
wl=$build/workloads/random_sort
if command -v perf >/dev/null && [ -x "$wl" ] &&
	perf record -q -e cpu-clock -F 2000 --call-graph dwarf,8192 -o "$tmp/perf.data" \
		-- "$wl" >/dev/null 2>&1; then
	ns=$(perf report -i "$tmp/perf.data" --stdio --header-only 2>/dev/null |
		sed -n 's/.*sample_freq.*//; s/^# Samples: *\([0-9]*\).*/\1/p' | head -1)
	[ -n "$ns" ] || ns=$(perf script -i "$tmp/perf.data" -F ip 2>/dev/null | grep -c .)
	t0=$(date +%s%N)
	perf report -i "$tmp/perf.data" --stdio -g caller >/dev/null 2>&1
	t1=$(date +%s%N)
	[ "${ns:-0}" -gt 0 ] && perf_rate=$(awk -v n="$ns" -v t=$((t1 - t0)) \
		'BEGIN { printf "%.0f", n * 1e9 / t }')
fi

vs() {
	[ -n "$perf_rate" ] && awk -v a="$1" -v b="$perf_rate" 'BEGIN { printf "%.1fx", a / b }' || echo -
}
printf '%-50s %14s %10s\n' "unwinding 8 KiB dwarf stacks, warm caches" "samples/s" "vs perf"
printf '%-50s %14s %10s\n' "pmiprof unwind_user, compiled rules (best of 3)" "$best" "$(vs "$best")"
printf '%-50s %14s %10s\n' "pmiprof unwind_user, PMIPROF_UNWIND=libunwind" "$lu_best" "$(vs "$lu_best")"
printf '%-50s %14s %10s\n' "perf report -g (whole report, $(basename "$wl"))" "${perf_rate:-n/a}" "1.0x"
echo "($frames frames a sample; complete chains: $share; frames from compiled rules: $fast_share;"
echo " perf's rate includes its symbolization)"
