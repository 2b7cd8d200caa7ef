#!/usr/bin/env bash
# b50_timer_mode: what time-based sampling costs the workload, pmiprof.ko timer
# mode (pmu=none: per-CPU hard-irq hrtimer, ring write, irq_work wake-up) next
# to perf's cpu-clock sampling, both system-wide at the same rate, in the same
# QEMU TCG guest boot.  The work is tests/vm/hot_function for a fixed wall
# time, so the score is rounds completed (higher is better).  The runs are
# interleaved in a rotating order and repeated; medians are printed.
# TCG EMULATION: every figure is from an emulated CPU on a shared host, so
# only the ratios within this run mean something, not the absolute numbers.
set -u
cd "$(dirname "$0")/../.." || exit 2
build=${PMIPROF_BUILD:-$PWD/build}
ko=$build/kernel/pmiprof.ko
reps=${B50_REPS:-6}
secs=${B50_SECONDS:-2}
hz=${B50_HZ:-1000}

if ! command -v qemu-system-x86_64 >/dev/null; then
	echo "skipped: qemu-system-x86_64 not installed"; exit 0
fi
if [ ! -f "$ko" ]; then
	echo "skipped: $ko not built (make module O=$build)"; exit 0
fi
perf=$(command -v perf || true)
if [ -z "$perf" ] || ! file -L "$perf" | grep -q ELF; then
	echo "skipped: perf (an ELF binary, Debian linux-perf) not found"; exit 0
fi
tmp=$(mktemp -d /tmp/pmiprof-b50.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cc -static -O2 -Iinclude -o "$tmp/kclient_abi" tests/vm/kclient_abi.c &&
cc -static -O1 -g -fno-omit-frame-pointer -fno-inline -o "$tmp/hot_function" tests/vm/hot_function.c ||
	{ echo "skipped: static build of the guest tools failed"; exit 0; }
ns=$((1000000000 / hz))

# Each repetition runs the three in a rotated order, so neither profiler
# always follows the same neighbour.
out=$(PMIPROF_BUILD=$build tests/vm/run --timeout 900 --add "$tmp/kclient_abi" \
	--add "$tmp/hot_function" --add "$perf:/usr/bin/perf" --insmod 'pmu=none' -- sh -c "
	run_base() { echo base \$(hot_function $secs | sed 's/[^0-9]//g'); }
	run_pm() {
		kclient_abi record -m timer -t $ns -- hot_function $secs > /tmp/k.txt
		echo pmiprof \$(sed -n 's/^hot_function: \([0-9]*\) rounds/\1/p' /tmp/k.txt) \
			\$(sed -n 's/^stats samples \([0-9]*\) lost \([0-9]*\).*/\1 \2/p' /tmp/k.txt)
		sed -n 's/^hist /hist /p' /tmp/k.txt
	}
	run_perf() {
		perf record -q -e cpu-clock -F $hz -a -o /tmp/p.data -- hot_function $secs > /tmp/p.txt 2>&1
		echo perf \$(sed -n 's/^hot_function: \([0-9]*\) rounds/\1/p' /tmp/p.txt) \
			\$(perf report -i /tmp/p.data --stats 2>/dev/null | sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' | head -1) \
			\$(stat -c %s /tmp/p.data)
	}
	for i in \$(seq $reps); do
		case \$((i % 3)) in
		1) run_base; run_pm; run_perf ;;
		2) run_pm; run_perf; run_base ;;
		0) run_perf; run_base; run_pm ;;
		esac
	done" 2>&1)
if ! printf '%s\n' "$out" | grep -q '^pmiprof [0-9]'; then
	echo "guest run failed:"; printf '%s\n' "$out" | tail -8 | sed 's/^/  | /'
	exit 0
fi

median() { sort -n | awk '{a[NR] = $1} END { if (NR) print a[int((NR + 1) / 2)]; else print 0 }'; }
base=$(printf '%s\n' "$out" | awk '$1 == "base" {print $2}' | median)
pm=$(printf '%s\n' "$out" | awk '$1 == "pmiprof" {print $2}' | median)
pf=$(printf '%s\n' "$out" | awk '$1 == "perf" {print $2}' | median)
pm_samples=$(printf '%s\n' "$out" | awk '$1 == "pmiprof" {print $3}' | median)
pm_lost=$(printf '%s\n' "$out" | awk '$1 == "pmiprof" {s += $4} END {print s + 0}')
pf_samples=$(printf '%s\n' "$out" | awk '$1 == "perf" {print $3}' | median)
pf_bytes=$(printf '%s\n' "$out" | awk '$1 == "perf" {print $4}' | median)

echo "system-wide time-based sampling at $hz Hz per CPU, hot_function for $secs s, median of $reps"
echo "(TCG EMULATION: ratios within this run only; rounds = work done, higher is better)"
printf '  %-26s %8s %10s %10s\n' "profiler" "rounds" "vs none" "samples"
printf '  %-26s %8s %10s %10s\n' "none" "$base" "1.00" "-"
awk -v b="$base" -v r="$pm" -v s="$pm_samples" 'BEGIN { printf "  %-26s %8d %10.2f %10d\n", "pmiprof.ko timer (none)", r, b ? r / b : 0, s }'
awk -v b="$base" -v r="$pf" -v s="$pf_samples" 'BEGIN { printf "  %-26s %8d %10.2f %10s\n", "perf record -e cpu-clock", r, b ? r / b : 0, s ? s : "?" }'
awk -v a="$pm" -v b="$pf" 'BEGIN { printf "  pmiprof/perf work ratio: %.2f (1.00 = same overhead; > 1: pmiprof cheaper)\n", b ? a / b : 0 }'
echo "  pmiprof records dropped (ring full), all runs: $pm_lost"
[ -n "$pf_bytes" ] && [ "${pf_samples:-0}" -gt 0 ] 2>/dev/null &&
	awk -v b="$pf_bytes" -v s="$pf_samples" 'BEGIN { printf "  perf.data: %.0f bytes per sample (pmiprof ring: 112 bytes per record)\n", b / s }'
printf '%s\n' "$out" | awk '$1 == "hist" { for (i = 2; i <= NF; i++) h[i - 1] += $i; n = NF - 1 }
	END {
		t = 0; for (i = 1; i <= n; i++) t += h[i]
		if (!t) exit
		printf "  pmiprof timer tick handler time (guest, TCG), %d ticks:\n", t
		c = 0
		for (i = 1; i <= n; i++) {
			c += h[i]; if (!h[i]) continue
			lo = i == 1 ? 0 : 128 * 2 ^ (i - 2); hi = 128 * 2 ^ (i - 1)
			r = i == n ? sprintf(">= %d ns", lo) : sprintf("%d-%d ns", lo, hi)
			printf "    %-16s %7d %6.1f%% cumul %6.1f%%\n", r, h[i], 100 * h[i] / t, 100 * c / t
		}
	}'
