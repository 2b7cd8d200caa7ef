#!/usr/bin/env bash
# pmiprof plot: histogram tick labels in engineering notation (5.61k, not
# 5.61e+03), never rotated, far enough apart not to touch; the zero bin a
# narrow box of its own; count/rate panels never get a negative y axis; a
# metric that is 0 in every window gets no panel (the title names it);
# gnuplot's own warnings never reach the terminal, but when gnuplot fails
# its message is shown.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v gnuplot >/dev/null || skip_all "gnuplot not installed (make deps)"
"$PMIPROF" record -q -o "$TMPD/s.data" -- "$WORKLOADS/shares" 0.5 >/dev/null 2>"$TMPD/err" ||
	{ not_ok "record shares" "$(cat "$TMPD/err")"; done_testing; }
"$PMIPROF" plot -i "$TMPD/s.data" -o "$TMPD/s.png" --keep-script >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && [ -s "$TMPD/s.png" ] && ok "plot shares" || not_ok "plot shares (rc $rc)" "$(cat "$TMPD/err")"
gp=$TMPD/s.gp
# the histograms' xtics lines: set xtics nomirror font ",8" ("0" -0.6, "5.61k" 0.5, ...)
grep '^set xtics .*(' "$gp" >"$TMPD/xt"
[ -s "$TMPD/xt" ] && ! grep -q 'rotate' "$TMPD/xt" && ok "histogram tick labels not rotated" ||
	not_ok "histogram tick labels not rotated" "$(cat "$TMPD/xt")"
bad=$(sed -e 's/^[^(]*(//' -e 's/)$//' "$TMPD/xt" | tr ',' '\n' | sed 's/^ *"\([^"]*\)".*/\1/' |
	grep -Ev '^-?[0-9]+(\.[0-9]+)?[kMGTPEmun]?$' | head -3)
[ -z "$bad" ] && ok "histogram tick labels in engineering notation" ||
	not_ok "histogram tick labels in engineering notation" "$bad" "$(cat "$TMPD/xt")"
# no two labels closer than their half widths (about 6 px a character at font 8) + 6 px
awk -v W=1200 '
	/^set origin/ { next }
	/^set size [0-9.]+, / { split($3, q, ","); fr = q[1] }
	/^set xrange \[/ { gsub(/[\[\]:]/, " ", $3); split($3, r, " "); lo = r[1]; hi = r[2] }
	/^set xtics .*\(/ {
		px = (W * fr - 104) / (hi - lo); n = 0
		s = $0; sub(/^[^(]*\(/, "", s); sub(/\)$/, "", s)
		m = split(s, it, ", ")
		for (i = 1; i <= m; i++) { split(it[i], f, "\" "); lab = substr(f[1], 2); x = f[2] + 0
			if (i > 1 && (x - px0) * px < (length(lab) + length(lab0)) * 3 + 6)
				printf "\"%s\" and \"%s\" %.0f px apart\n", lab0, lab, (x - px0) * px
			lab0 = lab; px0 = x }
	}' "$gp" >"$TMPD/crowd"
[ ! -s "$TMPD/crowd" ] && ok "histogram tick labels not crowded" ||
	not_ok "histogram tick labels not crowded" "$(cat "$TMPD/crowd")"
grep -q 'with boxes' "$gp" && grep -q '? 0.3 : 0.9) with boxes' "$gp" &&
	ok "the zero bin is a narrow box (0.3 of a bin)" || not_ok "zero bin narrow" "$(grep 'with boxes' "$gp" | head -2)"
# every time-series panel: y from 0
awk '/^set yrange/ { y = $3 } /^plot .*series.dat" using 1:[0-9]+ with lines/ { if (y != "[0:*]") bad++ ; n++ }
	END { exit !(n > 0 && !bad) }' "$gp" && ok "series panels: yrange [0:*] (no negative axis for counts)" ||
	not_ok "series panels from 0" "$(grep -E '^set yrange|^plot' "$gp" | head)"
[ -z "$(grep -v '^pmiprof' "$TMPD/err")" ] && ok "nothing but pmiprof's own lines on stderr" ||
	not_ok "stderr only pmiprof's" "$(cat "$TMPD/err")"

# a metric that is 0 in every window: the spin after start-up faults no page
"$PMIPROF" record -q -o "$TMPD/m.data" -- "$WORKLOADS/migrate_spin" 1.2 >/dev/null 2>"$TMPD/err" ||
	{ not_ok "record migrate_spin" "$(cat "$TMPD/err")"; done_testing; }
"$PMIPROF" plot -i "$TMPD/m.data" --time 0.5,1.0 -o "$TMPD/m.png" --keep-script >/dev/null 2>"$TMPD/err"; rc=$?
if grep -q '^# metric page-faults-rate, all' "$TMPD/m.hist.dat" 2>/dev/null ||
	awk '/^# metric page-faults-rate/ { on = 1; next } /^# metric/ { on = 0 } on && /^[0-9]/ && $4 + 0 > 0 && $2 + 0 > 0 { nz = 1 } END { exit nz }' "$TMPD/m.hist.dat"; then
	! grep -q 'title "page-faults-rate"' "$TMPD/m.gp" && grep -Eq '"[a-z, -]*page-faults-rate[a-z, -]*: 0 in every window' "$TMPD/m.gp" &&
		ok "an all-zero metric: no panel, named in the title" ||
		not_ok "all-zero metric panel" "$(grep -n 'page-faults' "$TMPD/m.gp")"
else
	skip "an all-zero metric" "page faults in the steady part of this run"
fi
[ $rc -eq 0 ] && [ -z "$(grep -v '^pmiprof' "$TMPD/err")" ] && ok "no gnuplot warning on the terminal (rc $rc)" ||
	not_ok "no gnuplot warning on the terminal (rc $rc)" "$(cat "$TMPD/err")"

# gnuplot failing: its message is shown, under pmiprof's
mkdir -p "$TMPD/bin"
printf '#!/bin/sh\necho "line 7: boom: no such terminal" >&2\nexit 1\n' >"$TMPD/bin/gnuplot"
chmod +x "$TMPD/bin/gnuplot"
PATH="$TMPD/bin:$PATH" "$PMIPROF" plot -i "$TMPD/s.data" -o "$TMPD/f.png" >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'gnuplot failed' "$TMPD/err" && grep -q 'gnuplot: line 7: boom' "$TMPD/err" &&
	ok "gnuplot failing: exit 1 with gnuplot's own message" || not_ok "gnuplot failing (rc $rc)" "$(cat "$TMPD/err")"
# a command line with a newline (python3 -c '...', sh -c) goes into the title
# as one line: it ended gnuplot's string and failed the plot
"$PMIPROF" record -q -o "$TMPD/nl.data" -- sh -c "$WORKLOADS/shares 0.3
true" >/dev/null 2>&1
"$PMIPROF" plot -q -i "$TMPD/nl.data" -o "$TMPD/nl.png" 2>"$TMPD/nl.err"; rc=$?
[ $rc -eq 0 ] && [ -s "$TMPD/nl.png" ] && ok "a command line with a newline plots (title on one line)" ||
	not_ok "command line with a newline" "rc=$rc" "$(cat "$TMPD/nl.err")"
done_testing
