#!/usr/bin/env bash
# The self-test's workloads, run alone (pmiprof doctor --workload), against
# valgrind's simulators, with the tolerance each uses and why:
#   spin ITERS: callgrind --branch-sim=yes collecting inside st_spin() only:
#     Ir = 4 x ITERS and Bc (conditional branches) = ITERS within 0.001 %
#     (the function's prologue and its zero test: a handful per call).
#   walk BYTES STEPS over 4 x a simulated 8 MiB LLC: cachegrind
#     --cache-sim=yes, DLmr (last-level read misses) inside st_walk_run():
#     every step after the warm-up cycle misses (each line comes back only
#     after all 4 x LLC others: LRU evicted it), so two runs of S and 3 S
#     steps differ by exactly 2 S misses (0.1 % allowed), and the S run's
#     misses are S plus at most one warm-up cycle.  The hardware check
#     perf.llc_misses allows 80-130 %: real LLCs are not LRU (adaptive
#     insertion keeps a few lines), page walks add misses.
. "$(dirname "$0")/../lib.sh"

[ -x "$PMIPROF" ] || skip_all "pmiprof not built"
command -v valgrind >/dev/null || skip_all "valgrind not installed (make deps)"
command -v python3 >/dev/null || skip_all "python3 not installed (make deps)"

within() { awk -v c="$1" -v e="$2" -v p="$3" 'BEGIN { d = c - e; if (d < 0) d = -d; exit !(c != "" && d <= e * p / 100) }'; }

iters=10000000
valgrind --tool=callgrind --branch-sim=yes --toggle-collect=st_spin --callgrind-out-file="$TMPD/cg.out" \
	"$PMIPROF" doctor --workload spin $iters >"$TMPD/spin.out" 2>"$TMPD/cg.err"
read -r ir bc _ < <(sed -n 's/^==[0-9]*== Collected : \([0-9 ]*\)$/\1/p' "$TMPD/cg.err")
echo "# callgrind inside st_spin: Ir ${ir:-none}, Bc ${bc:-none} for $iters iterations"
within "$ir" $((4 * iters)) 0.001 && ok "spin: instructions = 4 x iterations within 0.001 % ($ir)" ||
	not_ok "spin: instructions = 4 x iterations" "${ir:-none} vs $((4 * iters))" "$(tail -n 8 "$TMPD/cg.err")"
within "$bc" $iters 0.001 && ok "spin: conditional branches = iterations within 0.001 % ($bc)" ||
	not_ok "spin: conditional branches = iterations" "${bc:-none} vs $iters" "$(tail -n 8 "$TMPD/cg.err")"
grep -q "^spin: $iters iterations: $((4 * iters)) instructions, $iters conditional branches" "$TMPD/spin.out" &&
	ok "spin: --workload prints its counts by construction" || not_ok "spin: --workload prints its counts" "$(cat "$TMPD/spin.out")"

llc=$((8 * 1024 * 1024))
bytes=$((4 * llc))
lines=$((bytes / 64))
dlmr() {	# DLmr of st_walk_run in a cachegrind output file
	python3 -c 'import sys
ev, fn, tot = None, None, 0
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith("events:"):
        ev = line.split()[1:]
    elif line.startswith("fn="):
        fn = line[3:]
    elif fn == "st_walk_run" and line[:1].isdigit():
        v = line.split()[1:]
        tot += int(v[ev.index("DLmr")]) if len(v) > ev.index("DLmr") else 0
print(tot)' "$1"
}
for steps in $lines $((3 * lines)); do
	valgrind --tool=cachegrind --cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=$llc,16,64 \
		--cachegrind-out-file="$TMPD/cachegrind.$steps" \
		"$PMIPROF" doctor --workload walk $bytes $steps >"$TMPD/walk.out" 2>"$TMPD/cachegrind.err" ||
		not_ok "walk $steps: cachegrind ran" "$(tail -n 8 "$TMPD/cachegrind.err")"
done
m1=$(dlmr "$TMPD/cachegrind.$lines" 2>/dev/null)
m3=$(dlmr "$TMPD/cachegrind.$((3 * lines))" 2>/dev/null)
echo "# cachegrind DLmr in st_walk_run: ${m1:-none} for 1 warm-up + $lines steps, ${m3:-none} for 1 + $((3 * lines)); $lines lines"
[ -n "$m1" ] && [ -n "$m3" ] && within $((m3 - m1)) $((2 * lines)) 0.1 &&
	ok "walk: each step after the warm-up misses the LLC: $((m3 - m1)) more misses for $((2 * lines)) more steps" ||
	not_ok "walk: each step after the warm-up misses the LLC" "${m1:-none}, ${m3:-none} for $lines, $((3 * lines)) steps"
[ -n "$m1" ] && [ "$m1" -ge $((lines * 999 / 1000)) ] && [ "$m1" -le $((2 * lines)) ] &&
	ok "walk: $lines steps after the warm-up: $m1 misses (steps + at most one warm-up cycle)" ||
	not_ok "walk: steps + at most one warm-up cycle" "${m1:-none} for $lines"
done_testing
