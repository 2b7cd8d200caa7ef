#!/usr/bin/env bash
# pmiprof plot and code regions too narrow to see as shading: a region's
# bands are shaded behind the time series only where they are at least
# 0.4 % of the time axis wide; when some are narrower (the workload's
# "light" calls, 1 unit between 3-unit "heavy" ones) a "code regions"
# strip on the same time axis draws every band of every region as a mark,
# a row per region named on its axis.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v gnuplot >/dev/null || skip_all "gnuplot not installed (make deps)"
"$PMIPROF" record -q -o "$TMPD/r.data" -- "$WORKLOADS/regions" shares 100 >/dev/null 2>"$TMPD/err" ||
	{ not_ok "record regions" "$(cat "$TMPD/err")"; done_testing; }
"$PMIPROF" plot -q -i "$TMPD/r.data" -o "$TMPD/r.png" --keep-script >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && [ -s "$TMPD/r.png" ] && ok "plot writes the PNG" || not_ok "plot (rc $rc)" "$(cat "$TMPD/err")"
gp=$TMPD/r.gp
# full-height shading rectangles: none narrower than 0.4 % of the axis
thin=$(awk '/^set xrange \[0:/ && !x { s = $3; gsub(/[\[\]]/, "", s); split(s, q, ":"); x = q[2] }
	/^set object [0-9]+ rect from .* graph 1 fc/ { b = $6 + 0; e = $10 + 0
		if (e - b < 0.004 * x) n++ }
	END { print n + 0 }' "$gp")
[ "$thin" = 0 ] && ok "no shading band narrower than 0.4 % of the time axis" ||
	not_ok "no thin shading bands" "$thin thinner than 0.4 %" "$(grep -m3 'graph 1 fc' "$gp")"
if grep -q '^set ylabel "code regions"' "$gp"; then
	grep -q '^set ytics ("heavy" 1, "light" 2)' "$gp" && ok "region strip: a row per region, named" ||
		not_ok "region strip rows" "$(grep -A2 'code regions' "$gp")"
	m=$(awk '/^set ylabel "code regions"/ { on = 1 } on && /^set object .* rect from .*, [0-9.]+ to .*, [0-9.]+ fc/ { n++ }
		on && /^plot/ { exit } END { print n + 0 }' "$gp")
	[ "$m" -gt 2 ] && ok "region strip: $m band marks" || not_ok "region strip marks" "$m"
else
	not_ok "narrow 'light' bands: a code regions strip" "$(grep '^set object' "$gp" | head -5)"
fi
[ -z "$(grep -v '^pmiprof' "$TMPD/err")" ] && ok "stderr: pmiprof's own lines only" || not_ok "stderr" "$(cat "$TMPD/err")"
done_testing
