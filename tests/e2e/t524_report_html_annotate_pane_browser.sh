#!/usr/bin/env bash
# report --html's annotate pane in chromium (report/output/html/check_annotate.js):
# a range selected, the function's row of the flat table clicked as a person
# would, the pane shows its source lines and instructions with the numbers
# of `pmiprof annotate --time A,B` for that range (every line's and every
# instruction's samples and event sums, the same rows in the same order),
# the hottest line and instruction marked; a click on the function's frame
# in the flame graph (after choosing another function) shows it again.  No
# console error.  The screenshot is kept at build/t524_annotate_pane.png.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
require_chromium
trap 'rm -rf "$TMPD"' EXIT
here=$(dirname "$0")
shot=$(dirname "$PMIPROF")/t524_annotate_pane.png
"$PMIPROF" record -q -g -o "$TMPD/t.data" -- "$WORKLOADS/annotate_lines" -n 150 >/dev/null 2>"$TMPD/err" ||
	{ not_ok "record -g annotate_lines" "$(cat "$TMPD/err")"; done_testing; }
"$PMIPROF" report --html -i "$TMPD/t.data" -o "$TMPD/r.html" 2>"$TMPD/err" &&
	ok "report --html" || { not_ok "report --html" "$(cat "$TMPD/err")"; done_testing; }
NODE_PATH=$nm CHROMIUM=$chromium timeout 180 node "$here/../../report/output/html/check_annotate.js" \
	"$TMPD/r.html" work 0.3 1.2 "$shot" >"$TMPD/b.json" 2>"$TMPD/err" ||
	{ not_ok "chromium drives the annotate pane" "$(tail -5 "$TMPD/err")"; done_testing; }
j() { python3 -c "import json,sys; d=json.load(open('$TMPD/b.json')); print($1)"; }
[ "$(j "len(d['errors'])")" = 0 ] && ok "no console error" || not_ok "console errors" "$(j "d['errors'][:3]")"
[ "$(j "int(d['clicked_row'] and d['row']['function'] == 'work')")" = 1 ] &&
	ok "clicking work's row of the table shows work" || not_ok "row click" "$(j "d['row']['function']")"
ft=$(j "'%d,%d' % tuple(d['time'])")
"$PMIPROF" annotate -q -i "$TMPD/t.data" work --time "${ft%,*}ns,${ft#*,}ns" --by line -f csv >"$TMPD/lines.csv"
"$PMIPROF" annotate -q -i "$TMPD/t.data" work --time "${ft%,*}ns,${ft#*,}ns" -f csv >"$TMPD/insns.csv"
python3 - "$TMPD/b.json" "$TMPD/lines.csv" "$TMPD/insns.csv" <<'PY' >"$TMPD/cmp"
import csv, json, sys
d = json.load(open(sys.argv[1]))
r = d['row']
lines = list(csv.DictReader(open(sys.argv[2])))
insns = list(csv.DictReader(open(sys.argv[3])))
evs = [k for k in insns[0].keys() if k not in ('function', 'dso', 'address', 'offset', 'samples', 'percent', 'source_file', 'source_line', 'inline', 'instruction') and not k.endswith(('_ci95_low', '_ci95_high'))]
evs = evs[:len(r['insns'][0]['counts'])]
cli_l = sorted((int(x['source_line']), int(x['samples']), tuple(int(x[e]) for e in evs)) for x in lines)
page_l = sorted((x['line'], x['samples'], tuple(x['counts'])) for x in r['lines'])
cli_i = [(x['address'], int(x['samples']), tuple(int(x[e]) for e in evs)) for x in insns]
page_i = [(x['address'], x['samples'], tuple(x['counts'])) for x in r['insns']]
tot = sum(int(x['samples']) for x in insns)
print(int(cli_l == page_l), int(cli_i == page_i), r['total'], tot, len(page_i), r['hot_rows'], len(r['line_cells']), len(r['insn_cells']))
if cli_l != page_l: print('#', cli_l, page_l)
if cli_i != page_i: print('#', [x for x in zip(cli_i, page_i) if x[0] != x[1]][:3])
PY
read -r same_l same_i ptot ctot ni hot nlc nic < <(grep -v '^#' "$TMPD/cmp")
grep '^#' "$TMPD/cmp"
[ "$same_l" = 1 ] && [ "$ptot" = "$ctot" ] && [ "$ptot" -gt 0 ] &&
	ok "--time ${ft%,*}ns,${ft#*,}ns: every line's samples and events equal annotate --by line's ($ptot samples)" ||
	not_ok "lines equal the CLI's" "$ptot vs $ctot"
[ "$same_i" = 1 ] && ok "every one of the $ni instructions equals annotate's" || not_ok "instructions equal the CLI's"
[ "$hot" = 2 ] && ok "the hottest line and instruction are marked" || not_ok "hot rows" "$hot"
[ "$nic" = "$ni" ] && [ "$nlc" -ge 2 ] && ok "the tables show $nlc lines and $nic instructions" || not_ok "table rows" "$nlc $nic"
[ "$(j "int(d['frame'].get('clicked', False) and d['frame']['after']['function'] == 'work')")" = 1 ] &&
	ok "clicking work's frame in the flame graph shows work" || not_ok "frame click" "$(j "d['frame']")"
size=$(stat -c %s "$TMPD/r.html")
echo "# page: $size bytes"
done_testing
