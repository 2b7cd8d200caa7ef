#!/usr/bin/env bash
# pmiprof diff: a plain summary comes first (run time, samples and every
# common event's run total A -> B, then the functions that changed most,
# significant ones first, each with its verdict and p, then how many
# changed); with time-based windows the window-aligned view is hidden and
# the table says why; two traces that close windows differently
# (cpu-clock at 10 kHz against task-clock every 50 us) get a warning naming
# both definitions, and their per-window values are not compared.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
rec() { "$PMIPROF" record -q -o "$1" "${@:2}" >/dev/null 2>>"$TMPD/rerr"; }
rec "$TMPD/a.data" -F 10000 -- "$WORKLOADS/shares" -n 150 &&
	rec "$TMPD/b.data" -F 10000 -- "$WORKLOADS/shares" --slow work_b -n 150 &&
	rec "$TMPD/c.data" -e task-clock -c 50000 -- "$WORKLOADS/shares" -n 150 ||
	{ not_ok "record" "$(cat "$TMPD/rerr")"; done_testing; }
"$PMIPROF" diff -q "$TMPD/a.data" "$TMPD/b.data" --dso shares >"$TMPD/ab" 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && ok "diff A B" || not_ok "diff A B (rc $rc)" "$(cat "$TMPD/err")"
head -1 "$TMPD/ab" | grep -qx '# summary: B against A (baseline)' && ok "the summary comes first" ||
	not_ok "the summary comes first" "$(head -3 "$TMPD/ab")"
# order: summary lines, then the run lines, then the table
awk '/^# summary:/ { s = NR } /^#   run: [0-9.]+ s -> [0-9.]+ s / { r = NR } /^#   total task-clock: .* ms -> .* ms \(/ { t = NR }
	/^#   biggest changes/ { b = NR } /^#     work_b \[shares\]: .*significant \(cost/ && !w { w = NR }
	/^#     / && !first { first = $2 } /function\(s\) changed significantly/ { c = NR }
	/^# A \(baseline\)/ { a = NR } /^ +A +B +delta / { h = NR }
	END { exit !(s == 1 && s < r && r < t && t < b && b < w && w < c && c < a && a < h && first == "work_b") }' "$TMPD/ab" &&
	ok "summary: run time, totals, biggest changes (work_b first, significant in cost), the count; then the table" ||
	not_ok "summary lines present and ordered" "$(sed -n '1,/^# A (baseline)/p' "$TMPD/ab")"
[ "$(grep -Ec '^#     work_[abc] \[shares\]: .*(within the noise|significant \()' "$TMPD/ab")" = 3 ] &&
	ok "every change listed with its verdict" || not_ok "verdicts" "$(grep '^#     ' "$TMPD/ab")"
if grep -q 'time-based' "$TMPD/ab"; then
	grep -q '^# window-aligned view: hidden: time-based windows (no hardware PMU)' "$TMPD/ab" &&
		! grep -q 'closing function: the same in' "$TMPD/ab" &&
		ok "time-based windows: the window-aligned view hidden, and why" ||
		not_ok "aligned view hidden with time-based windows" "$(grep -A3 'window-aligned' "$TMPD/ab")"
else
	skip "aligned view hidden" "hardware PMU windows"
fi
grep -q 'define windows differently' "$TMPD/err" && not_ok "no window warning for the same definitions" "$(cat "$TMPD/err")" ||
	ok "same window definitions: no warning"

"$PMIPROF" diff -q "$TMPD/a.data" "$TMPD/c.data" >"$TMPD/ac" 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && grep -q 'define windows differently (A: cpu-clock at 10000 Hz; B: task-clock every 50000 ns)' "$TMPD/err" &&
	ok "different window definitions: a warning naming both" ||
	not_ok "window definitions warning (rc $rc)" "$(cat "$TMPD/err")"
sed -n '/^# events and metrics per window: not compared/,+2p' "$TMPD/ac" | tr '\n' ' ' | sed 's/ #  */ /g' |
	grep -q 'A closes windows as cpu-clock at 10000 Hz, B as task-clock every 50000 ns' &&
	! grep -q '\[whole run\]' "$TMPD/ac" && ok "the table leaves the per-window values out, and says why" ||
	not_ok "per-window values left out" "$(sed -n '/events and metrics/,$p' "$TMPD/ac" | head -5)"
grep -q '^#   total task-clock: ' "$TMPD/ac" && ok "the summary still compares the run totals" ||
	not_ok "totals in the summary" "$(head -8 "$TMPD/ac")"
"$PMIPROF" diff -q "$TMPD/a.data" "$TMPD/c.data" -f json 2>/dev/null |
	python3 -c 'import json, sys; m = json.load(sys.stdin)["meta"]; sys.exit(not (m["windows_comparable"] is False and m["window_definition_b"] == "task-clock every 50000 ns"))' &&
	ok "json: windows_comparable false, the definitions" || not_ok "json window definitions"
done_testing
