#!/usr/bin/env bash
# Trace format benchmark (make bench): write and read throughput and bytes
# per sample of the trace library on a realistic stream, per compression
# setting; then bytes per sample of a real recording next to perf.data for
# the same workload, events and period, and text-dump speed next to
# 'perf script', all measured in this run.  Prints tables; never fails on
# numbers.  Goals (issues #10, #12): write >= 20 M samples/s at the default
# setting, read >= 40 M samples/s on one core, <= 6 bytes/sample on real
# 4-counter recordings.
set -u
cd "$(dirname "$0")/../.." || exit 2
build=${PMIPROF_BUILD:-${O:-$PWD/build}}
out=$build/bench
mkdir -p "$out" || exit 2
tmp=$(mktemp -d /tmp/pmiprof-b10.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=${B10_SAMPLES:-2000000}
reps=${B10_REPS:-5}

# The trace library alone, built from source so this runs whatever state the
# rest of the tree is in.
cc=${CC:-cc}
if ! $cc -O2 -g -std=c11 -D_GNU_SOURCE -Iinclude -Ilib -Itests/unit tests/bench/trace_bench.c \
	tests/unit/trace_gen.c lib/util.c lib/trace_writer.c lib/trace_reader.c \
	lib/trace_codec.c lib/trace_header.c lib/trace_names.c -lz -ldeflate -lzstd -o "$out/trace_bench"; then
	echo "b10: cannot build tests/bench/trace_bench.c"
	exit 1
fi

zlib_version() {
	dpkg-query -W -f='zlib ${Version}' zlib1g 2>/dev/null || echo "zlib"
}

# median and range of $reps values, one a line: "median (min-max)"
med_range() {
	sort -n | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.1f (%.1f-%.1f)", m, v[1], v[NR] }'
}

# $reps runs: write and read rates as median (range), the host's speed moves them
measure() {
	local level=$1 strategy=$2 codec=$3 nosum=$4 i line ws="" rs="" b=0
	for i in $(seq "$reps"); do
		line=$("$out/trace_bench" "$n" "$tmp/t.data" "$level" "$strategy" "$codec" "$nosum") || return 1
		set -- $line
		ws="$ws$1
"
		rs="$rs$2
"
		b=$3
	done
	echo "$(printf '%s' "$ws" | med_range)|$(printf '%s' "$rs" | med_range)|$b"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores; other jobs make rates noisy)"
echo "trace library, $n samples of the realistic stream (4 counters, 8 hot ips, jittered"
echo "time) handed over in batches of 64 as the module backend does; rates per CPU-second"
echo "(user+system) of one thread, median (range) of $reps runs; file on"
echo "$(df -P "$tmp" | awk 'NR==2 {print $1}'); $(zlib_version)"
printf '%-34s %18s %18s %13s\n' "setting" "write Msamp/s" "read Msamp/s" "bytes/sample"
# level strategy codec(0 zstd, 2 deflate) no_summary label
for cfg in "1 0 0 0 zstd level 1 (default)" "1 0 0 1 zstd level 1, no summaries" \
	   "3 0 0 0 zstd level 3" "1 1 2 0 deflate 1 huffman-only" \
	   "1 2 2 0 deflate 1 lz77" "0 0 0 0 stored (level 0)" "0 0 0 1 stored, no summaries"; do
	set -- $cfg
	level=$1 strategy=$2 codec=$3 nosum=$4
	shift 4
	label="$*"
	res=$(measure "$level" "$strategy" "$codec" "$nosum") || { echo "$label: failed"; continue; }
	IFS='|' read -r wr rr bs <<<"$res"
	printf '%-34s %18s %18s %13s\n' "$label" "$wr" "$rr" "$bs"
done
printf '%-34s %18s %18s %13s\n' "goal" ">= 20" ">= 40" "<= 6 (real)"

# Instruction counts do not depend on other jobs: callgrind, per sample,
# collecting only inside the writer calls, then only inside the reader calls.
icount() {	# level strategy function...
	local level=$1 strategy=$2 f args=()
	shift 2
	for f in "$@"; do args+=(--toggle-collect="$f"); done
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "${args[@]}" \
		"$out/trace_bench" 1000000 "$tmp/cg.data" "$level" "$strategy" 2>&1 >/dev/null |
		awk '/Collected :/ { printf "%.0f", $NF / 1000000 }'
}
if command -v valgrind >/dev/null; then
	echo
	echo "instructions per sample (valgrind callgrind, 1 M samples, 37 chunks: the first ones, small"
echo "and judging every stream, weigh little; independent of load)"
	printf '%-34s %14s %14s\n' "setting" "write" "read"
	for cfg in "1 0 zstd level 1 (default)" "0 0 stored (level 0)"; do
		set -- $cfg
		level=$1 strategy=$2
		shift 2
		printf '%-34s %14s %14s\n' "$*" \
			"$(icount "$level" "$strategy" trace_writer_open trace_write_samples trace_writer_close)" \
			"$(icount "$level" "$strategy" trace_reader_open trace_reader_next trace_reader_close)"
	done
fi

# The size goal is on real recordings: tests/workloads with the default events.
if ! $cc -O2 -g -std=c11 -D_GNU_SOURCE -Iinclude -Ilib tests/bench/trace_recode.c lib/util.c \
	lib/trace_writer.c lib/trace_reader.c lib/trace_codec.c lib/trace_header.c \
	lib/trace_names.c -lz -ldeflate -lzstd -o "$out/trace_recode"; then
	echo "b10: cannot build tests/bench/trace_recode.c"
fi

echo
echo "real recordings, default events, 3 s each (whole file: header and side-band included);"
echo "the same samples rewritten with RECORDS3 chunks (not columnar, 1.4 before RECORDS4) and"
echo "RECORDS2 chunks (no thread contexts either)"
printf '%-34s %10s %10s %13s %13s %13s\n' "workload" "samples" "bytes" "bytes/sample" "RECORDS3 B/s" \
	"RECORDS2 B/s"
for wl in shares threads2 random_sort; do
	[ -x "$build/workloads/$wl" ] && [ -x "$build/pmiprof" ] || continue
	if ! "$build/pmiprof" record -q -e cpu-clock,task-clock,page-faults,context-switches \
		-F 10000 -o "$tmp/$wl.data" -- "$build/workloads/$wl" 3 \
		>/dev/null 2>&1; then
		printf '%-34s %10s\n' "$wl" "record failed"
		continue
	fi
	b=$(stat -c %s "$tmp/$wl.data")
	k=$("$build/pmiprof" dump --raw -i "$tmp/$wl.data" 2>/dev/null | grep -c ' sample ')
	r2=n/a r3=n/a
	if [ -x "$out/trace_recode" ]; then
		r3=$("$out/trace_recode" "$tmp/$wl.data" "$tmp/$wl.r3" 1 1 records3 2>/dev/null |
			awk '{ print $3 }')
		r2=$("$out/trace_recode" "$tmp/$wl.data" "$tmp/$wl.r2" 1 1 records2 2>/dev/null |
			awk '{ print $3 }')
	fi
	printf '%-34s %10s %10s %13s %13s %13s\n' "$wl" "$k" "$b" \
		"$(awk -v b="$b" -v n="$k" 'BEGIN { printf "%.2f", n ? b / n : 0 }')" "${r3:-n/a}" \
		"${r2:-n/a}"
done
printf '%-34s %10s %10s %13s\n' "goal (issue 12)" "" "" "<= 6"

echo
echo "real recording: pmiprof record vs perf record, same workload, events and period"
events=cpu-clock,task-clock,page-faults,context-switches
period=100000
wl=(awk 'BEGIN { for (i = 0; i < 3e7; i++) s += i }')
if ! command -v perf >/dev/null || ! perf record -q -o "$tmp/probe.data" -e cpu-clock true \
	>/dev/null 2>&1; then
	echo "perf record unavailable here: no comparison (run as root with linux-perf)"
	exit 0
fi
pm=n/a pm_n=0 pm_b=0
if [ -x "$build/pmiprof" ] && "$build/pmiprof" record -q -e "$events" -c "$period" \
	-o "$tmp/pm.data" -- "${wl[@]}" >/dev/null 2>&1; then
	pm_b=$(stat -c %s "$tmp/pm.data")
	pm_n=$("$build/pmiprof" dump --raw -i "$tmp/pm.data" 2>/dev/null | grep -c ' sample ')
fi
perf record -q -e "{$events}:S" -c "$period" -o "$tmp/perf.data" -- "${wl[@]}" \
	>/dev/null 2>&1
pf_b=$(stat -c %s "$tmp/perf.data" 2>/dev/null || echo 0)
pf_n=$(perf script -i "$tmp/perf.data" -F ip 2>/dev/null | wc -l)
printf '%-34s %10s %10s %13s\n' "tool" "samples" "bytes" "bytes/sample"
if [ "$pm_n" -gt 0 ]; then
	pm=$(awk -v b="$pm_b" -v n="$pm_n" 'BEGIN { printf "%.1f", b / n }')
	printf '%-34s %10s %10s %13s\n' "pmiprof (whole file)" "$pm_n" "$pm_b" "$pm"
else
	printf '%-34s %10s\n' "pmiprof" "record failed"
fi
pf=n/a
if [ "$pf_n" -gt 0 ]; then
	pf=$(awk -v b="$pf_b" -v n="$pf_n" 'BEGIN { printf "%.1f", b / n }')
	printf '%-34s %10s %10s %13s\n' "perf.data (group :S, whole file)" "$pf_n" "$pf_b" "$pf"
fi
if [ "$pm" != n/a ] && [ "$pf" != n/a ]; then
	echo "ratio perf.data / pmiprof bytes per sample: $(awk -v a="$pf" -v b="$pm" \
		'BEGIN { printf "%.1fx", a / b }')"
fi

# Text dump speed: both print every sample as a line of text.
secs() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}
if [ "$pm_n" -gt 0 ] && [ "$pf_n" -gt 0 ]; then
	t_pm=$(secs "$build/pmiprof" dump -i "$tmp/pm.data")
	t_pf=$(secs perf script -i "$tmp/perf.data")
	echo
	printf '%-34s %10s %14s\n' "text dump of the recording" "seconds" "samples/s"
	printf '%-34s %10s %14s\n' "pmiprof dump" "$t_pm" \
		"$(awk -v n="$pm_n" -v t="$t_pm" 'BEGIN { printf "%.0f", (t > 0) ? n / t : 0 }')"
	printf '%-34s %10s %14s\n' "perf script" "$t_pf" \
		"$(awk -v n="$pf_n" -v t="$t_pf" 'BEGIN { printf "%.0f", (t > 0) ? n / t : 0 }')"
	echo "ratio perf script / pmiprof dump time per sample: $(awk -v a="$t_pf" -v b="$t_pm" \
		-v na="$pf_n" -v nb="$pm_n" 'BEGIN { printf "%.1fx", (a / na) / (b / nb) }')"
fi
