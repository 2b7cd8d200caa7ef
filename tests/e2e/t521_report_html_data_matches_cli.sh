#!/usr/bin/env bash
# report --html without a browser: the page is one file with no network
# reference, and the data it embeds, summed over a range of buckets as the
# page sums it (html_compare.py), gives per function the same samples and
# event sums as `report --time A,B` for the range's bounds, for two ranges
# and the whole run.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
trap 'rm -rf "$TMPD"' EXIT
checks() { check "$1" bash -c "$2"; }
cmp_py=$(dirname "$0")/html_compare.py
"$PMIPROF" record -g -o "$TMPD/t.data" -- "$WORKLOADS/callgraph" 2>"$TMPD/err" ||
	not_ok "record -g runs" "$(cat "$TMPD/err")"
if ! "$PMIPROF" report --html -i "$TMPD/t.data" -o "$TMPD/r.html" 2>"$TMPD/err"; then
	grep -q 'make deps' "$TMPD/err" && skip_all "built without the npm libraries: $(cat "$TMPD/err")"
	not_ok "report --html writes the page" "$(cat "$TMPD/err")"
	done_testing
fi
ok "report --html writes the page"
checks "no network reference in the page" \
	"! grep -Eo '(src|href)=\"https?:[^\"]*' '$TMPD/r.html' | head -1 | grep -q ."
# Ranges as shares of the run, which lasts 0.8-2.5 s depending on the machine.
all=$(python3 "$cmp_py" data "$TMPD/r.html" 0 1000)
end_s=$(awk -v e="${all#*,}" 'BEGIN { printf "%.3f", e / 1e9 }')
r1=$(awk -v e="$end_s" 'BEGIN { printf "%.3f %.3f", e * 0.15, e * 0.55 }')
r2=$(awk -v e="$end_s" 'BEGIN { printf "%.3f %.3f", e * 0.6, e * 0.95 }')
for range in "$r1" "$r2" "0 1000"; do
	set -- $range
	ft=$(python3 "$cmp_py" data "$TMPD/r.html" "$1" "$2")
	python3 "$cmp_py" sum "$TMPD/r.html" "$1" "$2" >"$TMPD/page.csv"
	"$PMIPROF" report -q -i "$TMPD/t.data" --time "${ft%,*}ns,${ft#*,}ns" --format csv >"$TMPD/cli.raw"
	python3 "$cmp_py" cli "$TMPD/cli.raw" >"$TMPD/cli.csv"
	if [ -s "$TMPD/cli.csv" ] && cmp -s "$TMPD/page.csv" "$TMPD/cli.csv"; then
		ok "range $1-$2 s (--time ${ft%,*}ns,${ft#*,}ns): $(wc -l <"$TMPD/cli.csv") functions equal the CLI's"
	else
		not_ok "range $1-$2 s equals the CLI's" "$(diff "$TMPD/page.csv" "$TMPD/cli.csv" | head -8)"
	fi
done
done_testing
