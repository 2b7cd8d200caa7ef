#!/usr/bin/env bash
# pmiprof plot: writes a PNG (and SVG) with gnuplot, keeps the script and
# data with --keep-script, labels time-based windows, and without gnuplot
# says which package to install.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/shares" ] || skip_all "workload shares not built"
"$PMIPROF" record -q -o "$TMPD/t.data" -- "$WORKLOADS/shares" 0.5 >/dev/null 2>"$TMPD/err" \
	|| { not_ok "record" "$(cat "$TMPD/err")"; done_testing; }
if command -v gnuplot >/dev/null; then
	"$PMIPROF" plot -q -i "$TMPD/t.data" -o "$TMPD/p.png" 2>"$TMPD/err"; rc=$?
	[ $rc -eq 0 ] && ok "plot exits 0" || not_ok "plot exits 0 (rc $rc)" "$(cat "$TMPD/err")"
	[ "$(head -c 8 "$TMPD/p.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] \
		&& ok "PNG written" || not_ok "PNG written"
	"$PMIPROF" plot -q -i "$TMPD/t.data" -o "$TMPD/p.svg" --keep-script 2>"$TMPD/err"
	grep -q '<svg' "$TMPD/p.svg" 2>/dev/null && ok "SVG written" || not_ok "SVG written" "$(cat "$TMPD/err")"
	grep -q 'time-based windows' "$TMPD/p.svg" && ok "SVG labels the time-based windows" || not_ok "SVG labels time-based windows"
	grep -q 'work_a' "$TMPD/p.svg" && ok "SVG marks the top functions" || not_ok "SVG marks the top functions"
	[ -s "$TMPD/p.gp" ] && [ -s "$TMPD/p.series.dat" ] && [ -s "$TMPD/p.hist.dat" ] \
		&& ok "--keep-script leaves p.gp, p.series.dat, p.hist.dat" || not_ok "--keep-script files" "$(ls "$TMPD")"
	rm -f "$TMPD/p.svg"
	(cd "$TMPD" && gnuplot p.gp) 2>"$TMPD/err" && [ -s "$TMPD/p.svg" ] && ok "the kept script reruns" \
		|| not_ok "the kept script reruns" "$(cat "$TMPD/err")"
	"$PMIPROF" plot -q -i "$TMPD/t.data" -o "$TMPD/m.png" --metric ipc >/dev/null 2>"$TMPD/err"; rc=$?
	[ $rc -eq 2 ] && grep -q 'instructions and cycles' "$TMPD/err" && ok "--metric ipc without those events: usage error" \
		|| not_ok "--metric ipc on a time-based trace (rc $rc)" "$(cat "$TMPD/err")"
else
	skip "plot writes a PNG" "gnuplot not installed"
fi
mkdir -p "$TMPD/nogp"
PATH="$TMPD/nogp" "$PMIPROF" plot -i "$TMPD/t.data" -o "$TMPD/x.png" 2>"$TMPD/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'gnuplot-nox' "$TMPD/err" && ok "without gnuplot: exit 1 naming gnuplot-nox" \
	|| not_ok "without gnuplot: exit 1 naming gnuplot-nox (rc $rc)" "$(cat "$TMPD/err")"
"$PMIPROF" plot -i "$TMPD/t.data" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "plot without -o: exit 2" || not_ok "plot without -o: exit 2 (rc $rc)"
done_testing
