#!/usr/bin/env bash
# pmiprof phases --html [-o FILE]: report --html's page with the phases
# found with phases' own options: the page's phase stretches are the runs
# of `phases --format csv`'s intervals (same start, end and phase), for the
# defaults and for --max-k 2 (at most 2 phases, as the CSV); the flat
# profile data is report --html's (the same page); --html with --format or
# --bbv, and -o without --html, are usage errors.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
trap 'rm -rf "$TMPD"' EXIT
"$PMIPROF" record -q -o "$TMPD/ph.data" -- "$WORKLOADS/phases3" >/dev/null 2>"$TMPD/err" ||
	{ not_ok "record phases3" "$(cat "$TMPD/err")"; done_testing; }
# the page's runs as "start_ns end_ns phase" lines (phases numbered from 1)
page_runs() {
	python3 - "$1" <<'PY'
import json, re, sys
s = open(sys.argv[1]).read()
d = json.loads(re.search(r'<script id="pmiprof-data" type="application/json">(.*?)</script>', s, re.S).group(1))
for b, e, p in d['phases'].get('runs', []):
    print(b, e, p + 1)
PY
}
# the CSV's intervals merged into runs of one phase, in ns
csv_runs() {
	awk -F, 'NR > 1 { b = sprintf("%.0f", $2 * 1e9); e = sprintf("%.0f", $3 * 1e9)
		if (n && $4 == ph) { end = e; next }
		if (n) print start, end, ph
		start = b; end = e; ph = $4; n++ }
		END { if (n) print start, end, ph }' "$1"
}
close_runs() {	# page-runs csv-runs: same phases, starts and ends within 1 us (the CSV prints 9 decimals)
	paste -d' ' "$1" "$2" | awk 'NF != 6 || $3 != $6 { bad = 1 }
		{ d1 = $1 - $4; d2 = $2 - $5; if (d1 < -1000 || d1 > 1000 || d2 < -1000 || d2 > 1000) bad = 1 }
		END { exit bad || NR == 0 }' && [ "$(wc -l <"$1")" = "$(wc -l <"$2")" ]
}
if ! "$PMIPROF" phases -q -i "$TMPD/ph.data" --html -o "$TMPD/probe.html" 2>"$TMPD/err"; then
	grep -q 'make deps' "$TMPD/err" && skip_all "built without the npm libraries: $(head -1 "$TMPD/err")"
fi
for opts in "" "--max-k 2"; do
	# shellcheck disable=SC2086
	"$PMIPROF" phases -q -i "$TMPD/ph.data" $opts --html -o "$TMPD/p.html" 2>"$TMPD/err" ||
		{ not_ok "phases --html $opts" "$(cat "$TMPD/err")"; continue; }
	# shellcheck disable=SC2086
	"$PMIPROF" phases -q -i "$TMPD/ph.data" $opts --format csv >"$TMPD/p.csv" 2>/dev/null
	page_runs "$TMPD/p.html" >"$TMPD/page.runs"
	csv_runs "$TMPD/p.csv" >"$TMPD/csv.runs"
	k=$(awk '{ print $3 }' "$TMPD/page.runs" | sort -u | wc -l)
	close_runs "$TMPD/page.runs" "$TMPD/csv.runs" &&
		ok "phases ${opts:-(defaults)} --html: $(wc -l <"$TMPD/page.runs") stretches of $k phase(s) = phases --format csv's runs" ||
		not_ok "phases ${opts:-(defaults)} --html stretches" "$(diff "$TMPD/page.runs" "$TMPD/csv.runs" | head -6)"
	[ -n "$opts" ] && { [ "$k" -le 2 ] && ok "--max-k 2: $k phase(s) on the page" || not_ok "--max-k 2 on the page" "$k"; }
done
grep -q '"fn":' "$TMPD/p.html" && grep -q 'id="flamegraph"' "$TMPD/p.html" &&
	ok "the page is report --html's (flat profile data, flame graph)" || not_ok "the page is report's"
"$PMIPROF" phases -i "$TMPD/ph.data" --html --format csv >/dev/null 2>"$TMPD/err"
[ $? -eq 2 ] && grep -q 'takes no --format' "$TMPD/err" && ok "--html with --format: usage error" || not_ok "--html --format refused" "$(cat "$TMPD/err")"
"$PMIPROF" phases -i "$TMPD/ph.data" -o "$TMPD/x" >/dev/null 2>"$TMPD/err"
[ $? -eq 2 ] && grep -q -- '-o is for the --html page' "$TMPD/err" && ok "-o without --html: usage error" || not_ok "-o without --html refused" "$(cat "$TMPD/err")"
done_testing
