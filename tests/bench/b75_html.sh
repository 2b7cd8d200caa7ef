#!/usr/bin/env bash
# report --html on a real recording of >= MIN_WINDOWS windows: `record -g
# -F 10000` of one loop per CPU running the callgraph and phases3 workloads
# back to back for as long as that many windows take (about 100 CPU-seconds
# for 1 M; twice that in wall time on a VM where sampling at 10 kHz doubles
# run times), so the windows span real time with changing functions, as a
# long recording does.  (Concatenating copies of one short recording, as
# this bench once did, stacks every copy on the same 0.6 s: a 282 kB page
# that says nothing about a long run.)  The time to write the page, its
# size (goal <= 5 MB for 1 M windows), and its load time in headless
# chromium at 1280x800 (report/output/html/check_page.js: first paint and
# the page's own "ready" mark, after the timeline, table and flame graph
# are drawn; goal <= 1 s to first paint).  Median of RUNS.
#   RUNS=3 MIN_WINDOWS=1000000 tests/bench/b75_html.sh
set -u
top=${PMIPROF_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PMIPROF_BUILD:-$top/build}
PMIPROF=$build/pmiprof
WL=$build/workloads/phases3
RUNS=${RUNS:-3}
MIN_WINDOWS=${MIN_WINDOWS:-1000000}
NM=$top/report/output/html/node_modules
T=$(mktemp -d /tmp/pmiprof-b75.XXXXXX)
trap 'rm -rf "$T"' EXIT
for need in "$PMIPROF" "$WL" /usr/bin/chromium; do
	[ -x "$need" ] || { echo "b75_html: skipped: $need missing (make, make deps)"; exit 0; }
done
[ -d "$NM/puppeteer-core" ] || { echo "b75_html: skipped: no puppeteer-core (make deps)"; exit 0; }
perf stat -e cpu-clock -x, true >/dev/null 2>&1 || { echo "b75_html: skipped: perf_event_open not usable"; exit 0; }
samples_of() { "$PMIPROF" report -i "$1" --format json --limit 1 2>/dev/null | sed -n 's/.*"samples": \([0-9]*\), "samples_shown".*/\1/p'; }
ncpu=$(nproc)
secs=$(( (MIN_WINDOWS + 6000 * ncpu - 1) / (6000 * ncpu) ))	# about 6,500 windows per CPU-second here
echo "b75_html: recording $ncpu loop(s) of callgraph + phases3 for $secs s at 10 kHz ($(cut -d' ' -f1-3 /proc/loadavg))"
"$PMIPROF" record -q -g -F 10000 -o "$T/big.data" -- sh -c '
	end=$(( $(date +%s) + $1 )); i=0
	while [ $i -lt $2 ]; do
		( while [ "$(date +%s)" -lt $end ]; do "$3/callgraph"; "$3/phases3"; done ) >/dev/null &
		i=$((i + 1))
	done
	wait' sh "$secs" "$ncpu" "$build/workloads" 2>"$T/rec.err" ||
	{ echo "b75_html: record failed: $(tail -1 "$T/rec.err")"; exit 0; }
windows=$(samples_of "$T/big.data")
[ "${windows:-0}" -gt 0 ] || { echo "b75_html: no samples recorded"; exit 0; }
for i in $(seq "$RUNS"); do
	/usr/bin/time -f '%e %M' -o "$T/t" "$PMIPROF" report -q --html -i "$T/big.data" -o "$T/r.html" 2>/dev/null &&
		cat "$T/t" >>"$T/write.times"
	NODE_PATH=$NM timeout 300 node "$top/report/output/html/check_page.js" "$T/r.html" >"$T/load.json" 2>/dev/null &&
		python3 -c "import json; d=json.load(open('$T/load.json')); print(d['paint']['entries'].get('first-paint', -1), d['paint']['ready_ms'], d['wall_ms'], len(d['errors']))" >>"$T/load.times"
done
med() { sort -n -k"$2" "$T/$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'; }
echo "b75_html: $windows windows over $secs s ($(stat -c %s "$T/big.data") bytes of trace), median of $RUNS; $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-40s %12s\n' "write page: wall s" "$(med write.times 1)" "write page: max RSS KiB" "$(med write.times 2)" \
	"page size bytes (goal <= 5242880)" "$(stat -c %s "$T/r.html")" \
	"chromium first paint ms (goal <= 1000)" "$(med load.times 1)" \
	"chromium page ready ms" "$(med load.times 2)" "chromium load wall ms (incl. start)" "$(med load.times 3)" \
	"console errors" "$(med load.times 4)"
