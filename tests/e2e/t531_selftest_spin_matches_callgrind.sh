#!/usr/bin/env bash
# The self-test's built-in spin loop executes exactly 4 instructions per
# iteration: valgrind --tool=callgrind, collecting inside st_spin() only,
# counts what doctor --selftest --backend perf ran through it (without a
# PMU: perf.no_pmu_fallback's 2.5 M iterations; with one: perf.instructions
# and perf.branches, 25 M each; then perf.windows_x_period's 50 M in 50
# calls, once per try: up to 3 when a try misses its tolerance, as under
# valgrind's slowdown it may) within 0.001 % (the function's prologue and
# epilogue, a handful of instructions per call, are all that may differ).
. "$(dirname "$0")/../lib.sh"

[ -x "$PMIPROF" ] || skip_all "pmiprof not built"
command -v valgrind >/dev/null || skip_all "valgrind not installed (make deps)"
have_perf_sw || have_perf_hw || skip_all "perf_event_open refused here"

if have_perf_hw; then expected=$((2 * 25000000 * 4)); else expected=$((2500000 * 4)); fi
valgrind --tool=callgrind --toggle-collect=st_spin --callgrind-out-file="$TMPD/cg.out" \
	"$PMIPROF" doctor --selftest --backend perf >"$TMPD/out" 2>"$TMPD/cg.err"
cg=$(sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$TMPD/cg.err")
tries=$(grep -o 'tries (windows x period / counted): [0-9/, ]*' "$TMPD/out" | tr -cd ',' | wc -c)
expected=$((expected + (tries + 1) * 50000000 * 4))
echo "# perf.windows_x_period ran $((tries + 1)) time(s)"
echo "# callgrind inside st_spin: ${cg:-none}; by construction: $expected"
[ -n "$cg" ] && awk -v c="$cg" -v e="$expected" 'BEGIN { d = c - e; if (d < 0) d = -d; exit !(d <= e * 0.00001) }' &&
	ok "st_spin's instructions match callgrind within 0.001 % ($cg vs $expected)" ||
	not_ok "st_spin's instructions match callgrind" "${cg:-none} vs $expected" "$(tail -n 5 "$TMPD/cg.err")"
done_testing
