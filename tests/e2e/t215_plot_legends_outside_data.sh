#!/usr/bin/env bash
# plot: no legend over the data.  In the gnuplot script every plot that has
# titled series draws its key outside the graph (right of the time panels,
# under the histograms), and the top-functions strip has no key at all:
# each function's share is in its axis label.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v gnuplot >/dev/null || skip_all "gnuplot not installed"
[ -x "$WORKLOADS/random_sort" ] || skip_all "workload random_sort not built"
"$PMIPROF" record -q -F 10000 -o "$TMPD/t.data" -- "$WORKLOADS/random_sort" 0.5 >/dev/null 2>"$TMPD/err" \
	&& ok "pmiprof record" || not_ok "pmiprof record" "$(cat "$TMPD/err")"
"$PMIPROF" plot -i "$TMPD/t.data" -o "$TMPD/p.png" --keep-script >/dev/null 2>"$TMPD/err" \
	&& ok "plot runs" || not_ok "plot runs" "$(cat "$TMPD/err")"
# For each plot command with a titled series: the key in force then.
awk '/^set key/ { key = $0 } /^unset key/ { key = "" }
	/^plot / { n++; if ($0 ~ /[" ]title "/ && key !~ /outside/) { print n ": " key; bad++ } }
	END { exit bad > 0 || n == 0 }' "$TMPD/p.gp" >"$TMPD/bad" \
	&& ok "every key is outside the graph" || not_ok "every key is outside the graph" "$(cat "$TMPD/bad")"
strip=$(grep -A1 '^set ytics (' "$TMPD/p.gp" | grep '^plot ')
[ -n "$strip" ] && ! grep -q ' title ' <<<"$strip" \
	&& ok "the function strip has no key" || not_ok "the function strip has no key" "$strip"
grep -qE '^set ytics \(".+ [0-9.]+%%" 1' "$TMPD/p.gp" \
	&& ok "the strip's labels give each function's share" \
	|| not_ok "the strip's labels give each function's share" "$(grep '^set ytics (' "$TMPD/p.gp")"
done_testing
