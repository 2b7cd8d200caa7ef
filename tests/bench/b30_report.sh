#!/usr/bin/env bash
# Flat-profile speed and memory: pmiprof report on pmiprof's trace versus
# perf report --stdio --sort sym on perf's recording of the same workload
# (threads2: two busy threads, no call chains), both >= 1.3 M samples, and
# again both >= 13 M samples (BIG_SAMPLES; BIG=0 skips it); per-window CSV
# (report --windows --format csv) versus perf script -F ip,sym,period over
# the same 1.3 M-sample recordings; the small-trace floor (report of a
# 0.2 s recording).  All measured interleaved in the same run (median of
# RUNS runs each, with per-run ratios).
#
# The pmiprof recorder samples more slowly than perf on these VMs; when
# one recording has fewer than MIN_SAMPLES samples, whole recordings of
# the same workload are concatenated chunk by chunk (the format allows it:
# each chunk decodes on its own) until there are enough.  perf.data cannot
# be concatenated: perf records long enough instead.
#   RUNS=5 MIN_SAMPLES=1300000 BIG_SAMPLES=13000000 SECS=8 tests/bench/b30_report.sh
set -u
top=${PMIPROF_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PMIPROF_BUILD:-$top/build}
PMIPROF=$build/pmiprof
WL=$build/workloads/threads2
RUNS=${RUNS:-5}
MIN_SAMPLES=${MIN_SAMPLES:-1300000}
BIG=${BIG:-1}
BIG_SAMPLES=${BIG_SAMPLES:-13000000}
SECS=${SECS:-8}
T=$(mktemp -d /tmp/pmiprof-b30.XXXXXX)
trap 'rm -rf "$T"' EXIT

for need in "$PMIPROF" "$WL"; do
	[ -x "$need" ] || { echo "b30_report: $need not built (make)"; exit 0; }
done
command -v perf >/dev/null || { echo "b30_report: skipped: perf not installed (linux-perf)"; exit 0; }
[ -x /usr/bin/time ] || { echo "b30_report: skipped: /usr/bin/time missing (package time)"; exit 0; }
perf stat -e cpu-clock -x, true >/dev/null 2>&1 || { echo "b30_report: skipped: perf_event_open not usable"; exit 0; }

samples_of_pmiprof() { "$PMIPROF" report -i "$1" --format json --limit 1 2>/dev/null | sed -n 's/.*"samples": \([0-9]*\), "samples_shown".*/\1/p'; }
# exact: the sum of the per-symbol sample counts (the "# Samples: 2M" line is rounded)
samples_of_perf() { perf report -i "$1" --stdio --sort sym -n 2>/dev/null |
	awk '$1 ~ /%$/ && $2 ~ /^[0-9]+$/ { n += $2 } END { printf "%d\n", n }'; }

# --- recordings: default chunks (deflate, level 1) and stored chunks (-z 0,
# like perf.data, which perf record writes uncompressed unless given -z)
record_pmiprof() { # level out [min_samples]
	"$PMIPROF" record -q -z "$1" -F 50000 -o "$T/one.data" -- "$WL" "$SECS" >/dev/null 2>"$T/rec.err" ||
		{ echo "b30_report: pmiprof record failed: $(tail -1 "$T/rec.err")"; exit 0; }
	one=$(samples_of_pmiprof "$T/one.data")
	[ "${one:-0}" -gt 0 ] || { echo "b30_report: no samples recorded"; exit 0; }
	copies=$(( (${3:-$MIN_SAMPLES} + one - 1) / one ))
	hsize=$(od -An -tu4 -j12 -N4 "$T/one.data" | tr -d ' ')
	{
		cat "$T/one.data"
		for _ in $(seq 2 "$copies"); do tail -c +$((32 + hsize + 1)) "$T/one.data"; done
	} >"$2"
}
record_pmiprof 1 "$T/pmiprof.data"
psamples=$(samples_of_pmiprof "$T/pmiprof.data")
record_pmiprof 0 "$T/pmiprof0.data"
zsamples=$(samples_of_pmiprof "$T/pmiprof0.data")
"$PMIPROF" record -q -o "$T/small.data" -- "$WL" 0.2 >/dev/null 2>&1

record_perf() { # out min_samples max_secs -> fsamples, psecs
	psecs=$SECS
	while :; do
		perf record -q -e cpu-clock -F 50000 -o "$1" -- "$WL" "$psecs" >/dev/null 2>"$T/perf.err" ||
			{ echo "b30_report: perf record failed: $(tail -1 "$T/perf.err")"; exit 0; }
		fsamples=$(samples_of_perf "$1")
		[ "${fsamples:-0}" -ge "$2" ] || [ "$psecs" -ge "$3" ] && break
		psecs=$(( psecs * 2 ))
	done
}
record_perf "$T/perf.data" "$MIN_SAMPLES" 64
if [ "$BIG" = 1 ]; then
	record_pmiprof 1 "$T/big.data" "$BIG_SAMPLES"
	bsamples=$(samples_of_pmiprof "$T/big.data")
	fs=$fsamples ps=$psecs
	# perf needs one long recording (at most 128 s: on a slow VM it holds
	# fewer than BIG_SAMPLES; the ratio compares samples per second)
	bs=$(( psecs * 8 )); [ "$bs" -gt 128 ] && bs=128
	SECS=$bs record_perf "$T/perfbig.data" "$BIG_SAMPLES" 128
	bfsamples=$fsamples bpsecs=$psecs
	fsamples=$fs psecs=$ps
fi

# --- interleaved timing: wall, user+sys, peak RSS
# timed: prefix out cmd...  -> $T/prefix.$i holds "wall_s user_s sys_s maxrss_kb", wall
# from nanosecond clock reads (time's %e has 10 ms steps, too coarse here)
timed() {
	local pre=$1 out=$2 t0 t1; shift 2
	# Truncating the previous run's output (150 MB of CSV) inside the timed
	# window cost 30-50 ms that belong to neither tool: remove it first.
	rm -f "$out"
	t0=$(date +%s%N)
	/usr/bin/time -f "%U %S %M" -o "$T/$pre.t" "$@" >"$out" 2>/dev/null
	t1=$(date +%s%N)
	echo "$(( (t1 - t0) / 1000 ))e-6 $(cat "$T/$pre.t")" >"$T/$pre.$i"
}
for i in $(seq 1 "$RUNS"); do
	timed p "$T/p.out" "$PMIPROF" report -i "$T/pmiprof.data"
	timed z "$T/z.out" "$PMIPROF" report -i "$T/pmiprof0.data"
	timed f "$T/f.out" perf report -i "$T/perf.data" --stdio --sort sym
	timed pw "$T/pw.out" "$PMIPROF" report -i "$T/pmiprof.data" --windows --format csv
	timed fw "$T/fw.out" perf script -i "$T/perf.data" -F ip,sym,period
	timed s "$T/s.out" "$PMIPROF" report -i "$T/small.data"
	if [ "$BIG" = 1 ]; then
		timed bp "$T/bp.out" "$PMIPROF" report -i "$T/big.data"
		timed bf "$T/bf.out" perf report -i "$T/perfbig.data" --stdio --sort sym
	fi
done
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
stat_of() { # prefix column -> median
	for i in $(seq 1 "$RUNS"); do awk -v c="$2" '{ print $c }' "$T/$1.$i"; done | median
}
cpu_of() { for i in $(seq 1 "$RUNS"); do awk '{ print $2 + $3 }' "$T/$1.$i"; done | median; }
pw=$(stat_of p 1) pc=$(cpu_of p) pm=$(stat_of p 4)
zw=$(stat_of z 1) zc=$(cpu_of z) zm=$(stat_of z 4)
fw=$(stat_of f 1) fc=$(cpu_of f) fm=$(stat_of f 4)

ptop=$(awk '$1 ~ /^[0-9]+$/ && NF >= 8 { print $2, $(NF-1); exit }' "$T/p.out")
ftop=$(awk '$1 ~ /%$/ { print $1, $NF; exit }' "$T/f.out")

echo "workload: threads2 (2 busy threads), cpu-clock at 50 kHz, no call chains; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "pmiprof traces: recordings of ${one} samples concatenated to >= $MIN_SAMPLES; perf: one ${psecs} s recording"
printf '%-40s %10s %8s %8s %12s %10s\n' "tool (median of $RUNS runs)" samples wall_s cpu_s samples/s peak_RSS_KB
awk -v n="$psamples" -v w="$pw" -v c="$pc" -v m="$pm" 'BEGIN { printf "%-40s %10d %8.3f %8.3f %12.0f %10d\n", "pmiprof report (default: zstd+summaries)", n, w, c, n / w, m }'
awk -v n="$zsamples" -v w="$zw" -v c="$zc" -v m="$zm" 'BEGIN { printf "%-40s %10d %8.3f %8.3f %12.0f %10d\n", "pmiprof report (record -z 0: stored)", n, w, c, n / w, m }'
awk -v n="$fsamples" -v w="$fw" -v c="$fc" -v m="$fm" 'BEGIN { printf "%-40s %10d %8.3f %8.3f %12.0f %10d\n", "perf report --stdio --sort sym", n, w, c, n / w, m }'
awk -v pn="$psamples" -v pw="$pw" -v pc="$pc" -v pm="$pm" -v zn="$zsamples" -v zw="$zw" -v zc="$zc" -v fn="$fsamples" -v fw="$fw" -v fc="$fc" -v fm="$fm" 'BEGIN {
	printf "ratio samples/s (wall) pmiprof/perf: %.2fx   (per cpu second: %.2fx)   goal >= 10x\n", (pn / pw) / (fn / fw), (pn / pc) / (fn / fc)
	printf "ratio samples/s (wall) pmiprof -z 0/perf: %.2fx   (per cpu second: %.2fx)\n", (zn / zw) / (fn / fw), (zn / zc) / (fn / fc)
	printf "ratio peak RSS pmiprof/perf: %.2f   goal <= 0.5\n", pm / fm
}'
# per-run ratios (runs are interleaved): median and range
ratios() { # prefix samples [perf_prefix perf_samples] -> "median (range min .. max)" of
	# (samples/wall) / perf's, per run, and every run's ratio
	local fp=${3:-f} fn=${4:-$fsamples} each
	each=$(for i in $(seq 1 "$RUNS"); do
		awk -v n="$2" -v fn="$fn" -v fw="$(awk '{ print $1 }' "$T/$fp.$i")" '{ printf "%.2f\n", (n / $1) / (fn / fw) }' "$T/$1.$i"
	done)
	echo "$each" | sort -g | awk -v runs="$(echo $each)" '{ v[NR] = $1 } END { printf "%.2fx (range %.2fx .. %.2fx over %d runs; in run order: %s)\n", v[int((NR + 1) / 2)], v[1], v[NR], NR, runs }'
}
echo "per-run ratio samples/s (wall) pmiprof/perf: $(ratios p "$psamples")   goal >= 10x"
echo "per-run ratio samples/s (wall) pmiprof -z 0/perf: $(ratios z "$zsamples")"
echo "per-run ratio peak RSS pmiprof/perf: $(for i in $(seq 1 "$RUNS"); do awk -v f="$(awk '{ print $4 }' "$T/f.$i")" '{ printf "%.2f ", $4 / f }' "$T/p.$i"; done)  goal <= 0.5"
pws=$(( $(wc -l <"$T/pw.out") - 1 ))
fws=$(wc -l <"$T/fw.out")
echo
printf '%-40s %10s %8s %8s %12s %10s\n' "per-window rows (median of $RUNS runs)" rows wall_s cpu_s rows/s peak_RSS_KB
awk -v n="$pws" -v w="$(stat_of pw 1)" -v c="$(cpu_of pw)" -v m="$(stat_of pw 4)" 'BEGIN { printf "%-40s %10d %8.3f %8.3f %12.0f %10d\n", "pmiprof report --windows --format csv", n, w, c, n / w, m }'
awk -v n="$fws" -v w="$(stat_of fw 1)" -v c="$(cpu_of fw)" -v m="$(stat_of fw 4)" 'BEGIN { printf "%-40s %10d %8.3f %8.3f %12.0f %10d\n", "perf script -F ip,sym,period", n, w, c, n / w, m }'
echo "per-run ratio rows/s (wall) pmiprof --windows csv / perf script: $(ratios pw "$pws" fw "$fws")   goal >= 5x"
echo
echo "small-trace floor: pmiprof report of a 0.2 s recording ($(samples_of_pmiprof "$T/small.data") samples): median wall $(stat_of s 1 | awk '{ printf "%.4f", $1 }') s (runs: $(for i in $(seq 1 "$RUNS"); do awk '{ printf "%.4f ", $1 }' "$T/s.$i"; done))  goal <= 0.015 s"
if [ "$BIG" = 1 ]; then
	echo
	echo "large: pmiprof trace of $bsamples samples (recordings concatenated), perf: one ${bpsecs} s recording of $bfsamples samples"
	printf '%-40s %10s %8s %8s %12s %10s\n' "tool (median of $RUNS runs)" samples wall_s cpu_s samples/s peak_RSS_KB
	awk -v n="$bsamples" -v w="$(stat_of bp 1)" -v c="$(cpu_of bp)" -v m="$(stat_of bp 4)" 'BEGIN { printf "%-40s %10d %8.3f %8.3f %12.0f %10d\n", "pmiprof report (default)", n, w, c, n / w, m }'
	awk -v n="$bfsamples" -v w="$(stat_of bf 1)" -v c="$(cpu_of bf)" -v m="$(stat_of bf 4)" 'BEGIN { printf "%-40s %10d %8.3f %8.3f %12.0f %10d\n", "perf report --stdio --sort sym", n, w, c, n / w, m }'
	echo "per-run ratio samples/s (wall) pmiprof/perf, large: $(ratios bp "$bsamples" bf "$bfsamples")   goal >= 20x"
	echo "per-run ratio peak RSS pmiprof/perf, large: $(for i in $(seq 1 "$RUNS"); do awk -v f="$(awk '{ print $4 }' "$T/bf.$i")" '{ printf "%.2f ", $4 / f }' "$T/bp.$i"; done)  goal <= 0.5"
fi
echo "load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "top row: pmiprof: ${ptop:-?}   perf: ${ftop:-?}"
