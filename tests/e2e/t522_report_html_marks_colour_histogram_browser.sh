#!/usr/bin/env bash
# report --html in chromium (report/output/html/check_marks.js): entries of
# the phases-and-regions list, clicked as a person would, select whole
# buckets covering the phase stretch or region band, and the flat table
# and the flame graph then equal `report --time A,B` of that selection
# (phases3 for phases, `regions shares` for regions); the histogram's
# counts for the selection and the whole run equal the windows the CLI's
# --windows lists there (per-window statistics' rule: not throttled, not
# after a loss, with a value); the flame graph's "Colour by" a metric
# changes the frames' fills and shows a legend with the metric and its
# unit, and DSO gives the DSO colours back; every heading of the table
# sorts it both ways (clicked, or Enter on it); "Zoom to selection" sets every
# chart's time axis to the selection, the pan button moves it by a quarter
# of its width, "Whole run" shows the run again.  No console error.  A
# full-page screenshot of the phases page (a phase stretch selected, the
# flame graph coloured by a metric, the timeline zoomed and panned) is kept
# at build/t522_phases_page.png.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
require_chromium
trap 'rm -rf "$TMPD"' EXIT
here=$(dirname "$0")
cmp_py=$here/html_compare.py
shot=$(dirname "$PMIPROF")/t522_phases_page.png
drive() {	# trace -> $TMPD/NAME.json
	"$PMIPROF" report --html -i "$TMPD/$1.data" -o "$TMPD/$1.html" 2>"$TMPD/err" ||
		{ not_ok "report --html of $1" "$(cat "$TMPD/err")"; return 1; }
	NODE_PATH=$nm CHROMIUM=$chromium timeout 180 node "$here/../../report/output/html/check_marks.js" \
		"$TMPD/$1.html" 2 "$([ "$1" = ph ] && echo "$shot")" >"$TMPD/$1.json" 2>"$TMPD/err" ||
		{ not_ok "chromium drives the $1 page" "$(tail -5 "$TMPD/err")"; return 1; }
	"$PMIPROF" report -q -i "$TMPD/$1.data" --windows --format csv >"$TMPD/$1.windows.csv" 2>/dev/null
}
# per clicked entry: its selection against the CLI (table, flame total, histogram counts)
check_marks() {	# name kind
	local name=$1 kind=$2 n i
	n=$(python3 -c "import json; d = json.load(open('$TMPD/$name.json')); print(sum(m['kind'] == '$kind' for m in d['marks']))")
	[ "$n" -gt 0 ] || { not_ok "the $name page lists $kind entries" "$(head -c 600 "$TMPD/$name.json")"; return; }
	for i in $(seq 0 $((n - 1))); do
		python3 - "$TMPD/$name.json" "$kind" "$i" "$TMPD/one.json" <<'PY' >"$TMPD/mark"
import json, sys
d = json.load(open(sys.argv[1]))
m = [x for x in d['marks'] if x['kind'] == sys.argv[2]][int(sys.argv[3])]
json.dump({'range': m}, open(sys.argv[4], 'w'))
covers = m['time'][0] <= m['begin_ns'] and m['time'][1] + 1 >= m['end_ns']
print(m['time'][0], m['time'][1], int(covers), m['total'], m['flame_total'],
      m['hist']['n_whole'], m['hist']['n_sel'], int(sum(m['hist']['whole']) == m['hist']['n_whole'] and sum(m['hist']['sel']) == m['hist']['n_sel']),
      m['label'])
PY
		read -r from to covers total ftotal hw hs sums label <"$TMPD/mark"
		[ "$covers" = 1 ] && ok "$name: '$label' selects --time ${from}ns,${to}ns, covering the entry" ||
			not_ok "$name: '$label' selection covers its entry" "$(cat "$TMPD/mark")"
		"$PMIPROF" report -q -i "$TMPD/$name.data" --time "${from}ns,${to}ns" --format csv >"$TMPD/cli.raw"
		python3 "$cmp_py" cli "$TMPD/cli.raw" >"$TMPD/cli.csv"
		python3 "$cmp_py" browser "$TMPD/one.json" >"$TMPD/page.csv"
		cli_total=$(awk -F, 'NR > 1 { n += $1 } END { print n + 0 }' "$TMPD/cli.raw")
		if [ -s "$TMPD/cli.csv" ] && cmp -s "$TMPD/page.csv" "$TMPD/cli.csv" && [ "$total" = "$cli_total" ] &&
			{ [ "$ftotal" = None ] || [ "$ftotal" = "$cli_total" ]; }; then
			ok "$name: '$label': table ($(wc -l <"$TMPD/cli.csv") functions) and flame total ($ftotal) = report --time"
		else
			not_ok "$name: '$label' equals report --time" "total $total flame $ftotal cli $cli_total; $(diff "$TMPD/page.csv" "$TMPD/cli.csv" | head -6)"
		fi
		read -r cw cs < <(awk -F, -v a="$from" -v b="$to" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["throttled"] == 0 && $c["after_loss"] == 0 && $c["task-clock"] > 0 { w++; if ($c["time_ns"] >= a && $c["time_ns"] <= b) s++ }
			END { print w + 0, s + 0 }' "$TMPD/$name.windows.csv")
		[ "$sums" = 1 ] && [ "$hw" = "$cw" ] && [ "$hs" = "$cs" ] &&
			ok "$name: '$label': histogram of $hs windows in the selection, $hw in the run, as --windows lists" ||
			not_ok "$name: '$label' histogram counts" "page $hs/$hw (bins sum ok: $sums), CLI $cs/$cw"
	done
}

"$PMIPROF" record -q -g -o "$TMPD/ph.data" -- "$WORKLOADS/phases3" >/dev/null 2>"$TMPD/err" ||
	not_ok "record phases3" "$(cat "$TMPD/err")"
"$PMIPROF" record -q -g -o "$TMPD/rg.data" -- "$WORKLOADS/regions" shares 300 >/dev/null 2>"$TMPD/err" ||
	not_ok "record regions" "$(cat "$TMPD/err")"
if drive ph; then
	check "no console error on the phases page" [ "$(python3 -c "import json; print(len(json.load(open('$TMPD/ph.json'))['errors']))")" = 0 ]
	check_marks ph phase
	python3 - "$TMPD/ph.json" >"$TMPD/colour" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))['colour']
m = c.get('metric')
print(int(m is not None and m['fills'] != c['dso']['fills'] and m['by'] in m['legend'] and '(' in m['legend'] and ')' in m['legend']),
      int(c.get('back', {}).get('fills') == c['dso']['fills'] and 'DSO' in c['dso']['legend']),
      (m or {}).get('by'), len(c['dso']['fills']), len((m or {}).get('fills', [])))
PY
	read -r changed back by nd nm_ <"$TMPD/colour"
	[ "$changed" = 1 ] && ok "Colour by $by: other fills ($nm_ colours, $nd by DSO) and a legend naming it with its unit" ||
		not_ok "Colour by a metric" "$(python3 -c "import json; print(json.load(open('$TMPD/ph.json'))['colour'])" | head -c 800)"
	[ "$back" = 1 ] && ok "Colour by DSO again: the DSO colours and legend" || not_ok "Colour by DSO again" "$(cat "$TMPD/colour")"
	python3 - "$TMPD/ph.json" >"$TMPD/tl" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))['timeline']
a, b = t['sel'][0] / 1e9, (t['sel'][1] + 1) / 1e9
near = lambda x, y: abs(x - y) < 1e-6 * max(1, abs(y))
zoom = all(near(lo, a) and near(hi, b) for lo, hi in t['zoomed'])
pan = all(near(lo, a + (b - a) / 4) and near(hi, b + (b - a) / 4) for lo, hi in t['panned'])
reset = all(near(lo, 0) and hi > b for lo, hi in t['reset'])
print(int(zoom), int(pan), int(reset), len(t['zoomed']), '%.3f-%.3f s' % (a, b))
PY
	read -r zoom pan reset ncharts range <"$TMPD/tl"
	[ "$zoom" = 1 ] && ok "Zoom to selection: the $ncharts charts' time axes show $range" || not_ok "Zoom to selection" "$(cat "$TMPD/tl")"
	[ "$pan" = 1 ] && ok "Pan right: every axis moved by a quarter of its width" || not_ok "Pan right" "$(cat "$TMPD/tl")"
	[ "$reset" = 1 ] && ok "Whole run: the axes from 0 past the selection again" || not_ok "Whole run" "$(cat "$TMPD/tl")"
	python3 - "$TMPD/ph.json" >"$TMPD/sort" <<'PY'
import json, sys
bad, n = [], 0
for s in json.load(open(sys.argv[1]))['sort']:
    if s['aria'] not in ('ascending', 'descending'):
        bad.append(s['heading'] + ': aria-sort ' + str(s['aria']))
        continue
    key = (lambda c: c) if s['name'] else (lambda c: float(c.replace(',', '').split(' ')[0]) if c.replace(',', '').split(' ')[0].replace('.', '', 1).replace('-', '', 1).isdigit() else float('-inf'))
    v = [key(c) for c in s['cells']]
    want = sorted(v, reverse=s['aria'] == 'descending')
    n += 1
    if v != want:
        bad.append(s['heading'] + ' ' + s['aria'] + ': ' + ' '.join(s['cells'][:6]))
print(len(bad) == 0 and n > 0, n, '; '.join(bad)[:400])
PY
	read -r sorted nsorts why <"$TMPD/sort"
	[ "$sorted" = True ] && ok "every heading sorts the table both ways, by click and by Enter ($nsorts sorts, aria-sort set)" ||
		not_ok "sorting by every column" "$(cat "$TMPD/sort")"
	check "screenshot kept at $shot" [ -s "$shot" ]
fi
if drive rg; then
	check "no console error on the regions page" [ "$(python3 -c "import json; print(len(json.load(open('$TMPD/rg.json'))['errors']))")" = 0 ]
	check_marks rg region
fi
done_testing
