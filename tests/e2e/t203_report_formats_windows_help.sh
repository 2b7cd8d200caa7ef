#!/usr/bin/env bash
# Output formats on a real trace: the table fits 100 columns and its header
# states the trigger, events, backend, time-based windows and losses; CSV
# starts samples,percent,symbol,dso; JSON parses; --windows has one row per
# sample; --hist draws distributions; --srcline names source lines.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/shares" ] || skip_all "workload shares not built"
"$PMIPROF" record -q -o "$TMPD/t.data" -- "$WORKLOADS/shares" 0.5 >/dev/null 2>"$TMPD/err" \
	|| { not_ok "record shares" "$(cat "$TMPD/err")"; done_testing; }
# (not a terminal: no width limit unless --width, as perf; t243 checks the default)
"$PMIPROF" report -i "$TMPD/t.data" --width 100 >"$TMPD/table" 2>"$TMPD/err" && ok "table report exits 0" \
	|| not_ok "table report exits 0" "$(cat "$TMPD/err")"
w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMPD/table")
[ "$w" -le 100 ] && ok "--width 100: table is at most 100 columns ($w)" || not_ok "table is at most 100 columns ($w)"
for want in "# trigger: cpu-clock" "events: cpu-clock, task-clock" "# backend: perf" \
	"TIME-BASED WINDOWS" "# attribution: each window's counts go to the function" " lost 0"; do
	grep -qF -- "$want" "$TMPD/table" && ok "header states '$want'" || not_ok "header states '$want'" "$(head -9 "$TMPD/table")"
done
grep -qE '^ +[0-9]+ +[0-9.]+ +[0-9.]+ .* work_a +shares$' "$TMPD/table" && ok "work_a row with its DSO" \
	|| not_ok "work_a row with its DSO" "$(sed -n 9,14p "$TMPD/table")"
"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/csv" 2>/dev/null
head -1 "$TMPD/csv" | grep -q '^samples,percent,symbol,dso,cpu-clock,task-clock,page-faults,context-switches' \
	&& ok "csv header" || not_ok "csv header" "$(head -1 "$TMPD/csv")"
"$PMIPROF" report -i "$TMPD/t.data" --format json >"$TMPD/json" 2>/dev/null
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); assert d["meta"]["time_based"] and d["rows"][0]["samples"] > 0' \
		"$TMPD/json" 2>"$TMPD/err" && ok "json parses, meta.time_based, rows" || not_ok "json parses" "$(cat "$TMPD/err")"
else
	skip "json parses" "python3 not installed"
fi
samples=$(awk '/samples \(windows\)/ { for (i = 1; i <= NF; i++) if ($(i+1) == "samples") { print $i; exit } }' "$TMPD/table")
"$PMIPROF" report -i "$TMPD/t.data" --windows --format csv >"$TMPD/win" 2>/dev/null
rows=$(($(wc -l <"$TMPD/win") - 1))
[ "$rows" -gt 0 ] && [ "$rows" = "$samples" ] && ok "--windows: one row per window ($rows)" \
	|| not_ok "--windows: one row per window" "rows $rows, samples ${samples:-?}"
head -1 "$TMPD/win" | grep -q '^index,time_ns,cpu,pid,tid,comm,symbol,dso,cpu-clock' && ok "--windows csv header" \
	|| not_ok "--windows csv header" "$(head -1 "$TMPD/win")"
"$PMIPROF" report -i "$TMPD/t.data" --windows --limit 5 >"$TMPD/wt" 2>/dev/null
grep -q '5 window(s) shown' "$TMPD/wt" && ok "--windows table with --limit" || not_ok "--windows --limit" "$(cat "$TMPD/wt")"
"$PMIPROF" report -i "$TMPD/t.data" --hist >"$TMPD/hist" 2>/dev/null
grep -q '# distribution of per-window page-faults' "$TMPD/hist" && grep -q '|#' "$TMPD/hist" \
	&& ok "--hist draws per-window distributions" || not_ok "--hist" "$(tail -30 "$TMPD/hist")"
"$PMIPROF" report -i "$TMPD/t.data" --srcline --symbol work_a --format csv >"$TMPD/src" 2>/dev/null
grep -q 'work_a,shares,.*shares\.c:[0-9]' "$TMPD/src" && ok "--srcline names shares.c lines" \
	|| not_ok "--srcline" "$(head -3 "$TMPD/src")"
"$PMIPROF" report --help | grep -q 'attribution\|Attribution' && ok "report --help is the manual" || not_ok "report --help"
"$PMIPROF" help plot | grep -q 'gnuplot-nox' && ok "help plot names the package" || not_ok "help plot"
done_testing
