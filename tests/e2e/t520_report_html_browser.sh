#!/usr/bin/env bash
# report --html in a real browser (Debian's chromium driven by puppeteer-core,
# report/output/html/check_page.js) at 1280x800: the page loads from disk with no
# console error; a range brushed programmatically gives the flat profile
# table (every function's samples and event sums) and the flame graph's
# total of `report --time` for that range; a search typed into the box
# highlights frames and counts the matched samples; a click on a frame zooms
# it to the full width; Tab reaches the controls and the sortable headings.
# The screenshot is kept at build/t520_report_html.png.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
require_chromium
trap 'rm -rf "$TMPD"' EXIT
checks() { check "$1" bash -c "$2"; }
here=$(dirname "$0")
cmp_py=$here/html_compare.py
"$PMIPROF" record -g -o "$TMPD/t.data" -- "$WORKLOADS/callgraph" 2>"$TMPD/err" ||
	not_ok "record -g runs" "$(cat "$TMPD/err")"
"$PMIPROF" report --html -i "$TMPD/t.data" -o "$TMPD/r.html" 2>"$TMPD/err" ||
	{ not_ok "report --html" "$(cat "$TMPD/err")"; done_testing; }
shot=$(dirname "$PMIPROF")/t520_report_html.png
NODE_PATH=$nm CHROMIUM=$chromium timeout 180 node "$here/../../report/output/html/check_page.js" \
	"$TMPD/r.html" 0.4 1.6 "$shot" >"$TMPD/b.json" 2>"$TMPD/err" ||
	{ not_ok "chromium loads the page" "$(tail -5 "$TMPD/err")"; done_testing; }
j() { python3 -c "import json,sys; d=json.load(open('$TMPD/b.json')); print($1)"; }
checks "no console error (errors: $(j "d['errors'][:3]"))" "[ \"$(j "len(d['errors'])")\" = 0 ]"
ft=$(j "'%d,%d' % tuple(d['range']['time'])")
"$PMIPROF" report -q -i "$TMPD/t.data" --time "${ft%,*}ns,${ft#*,}ns" --format csv >"$TMPD/cli.raw"
python3 "$cmp_py" cli "$TMPD/cli.raw" >"$TMPD/cli.csv"
python3 "$cmp_py" browser "$TMPD/b.json" >"$TMPD/page.csv"
if [ -s "$TMPD/cli.csv" ] && cmp -s "$TMPD/page.csv" "$TMPD/cli.csv"; then
	ok "brushed range --time ${ft%,*}ns,${ft#*,}ns: the table's $(wc -l <"$TMPD/cli.csv") functions equal the CLI's"
else
	not_ok "the table equals the CLI's" "$(diff "$TMPD/page.csv" "$TMPD/cli.csv" | head -8)"
fi
cli_total=$(awk -F, 'NR > 1 { n += $1 } END { print n + 0 }' "$TMPD/cli.raw")
checks "the flame graph's total ($(j "d['range']['flame_total']")) = the CLI's samples ($cli_total)" \
	"[ \"$(j "d['range']['flame_total']")\" = '$cli_total' ] && [ \"$(j "d['range']['total']")\" = '$cli_total' ]"
checks "search '$(j "d['search']['term']")' highlights frames and matches samples ($(j "d['search']['text']"))" \
	"[ \"$(j "int(d['search']['highlighted'] > 0 and d['search']['matched'] > 0)")\" = 1 ]"
checks "a click zooms a frame to the full width ($(j "d['zoom']"))" \
	"[ \"$(j "int(d['zoom']['clicked'] and d['zoom']['width_before'] < d['zoom']['svg_width'] - 2 and d['zoom']['width_after'] >= d['zoom']['svg_width'] - 2)")\" = 1 ]"
checks "Tab reaches the selection controls and the table headings ($(j "d['tab_order']"))" \
	"[ \"$(j "int('zoom-sel' in d['tab_order'] or 'metric' in d['tab_order'] or 'TH' in d['tab_order'])")\" = 1 ]"
checks "screenshot kept at $shot" "[ -s '$shot' ]"
done_testing
