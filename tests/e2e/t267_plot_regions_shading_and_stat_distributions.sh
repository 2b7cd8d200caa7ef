#!/usr/bin/env bash
# pmiprof plot and code regions.  Of a recorded trace with regions: the
# PNG and SVG are written and the time axis carries one translucent band
# colour per region (gnuplot rectangles in the kept script, the region
# names in the SVG's key).  Of 'stat --regions -o FILE' (the region table
# in csv): a per-region distribution plot, one candlestick per region,
# named with its call count.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v gnuplot >/dev/null || skip_all "gnuplot not installed (make deps)"
wl=$WORKLOADS/regions
d=$TMPD/r.data
"$PMIPROF" record -q -o "$d" -- "$wl" shares 100 2>/dev/null
"$PMIPROF" plot -q -i "$d" -o "$TMPD/r.png" --keep-script 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && [ "$(head -c 4 "$TMPD/r.png" | tail -c 3)" = PNG ] && ok "PNG written" || not_ok "png" "rc=$rc" "$(cat "$TMPD/err")"
n=$(grep -c '^set object [0-9]* rect from .* fs transparent solid' "$TMPD/r.gp")
c=$(grep '^set object' "$TMPD/r.gp" | grep -o 'fc rgb "#[0-9a-f]*"' | sort -u | wc -l)
[ "$n" -gt 0 ] && [ "$c" = 2 ] && ok "region bands behind the series: $n rectangles in 2 colours" || not_ok "shading" "n=$n colours=$c"
# The key names each region with a band wide enough to shade (0.4 % of the
# time axis), in that band's colour, and no other.  Which regions those are
# depends on the run: on a loaded machine the axis stretches while a light
# span (~75 us) does not, and every band of "light" can stay narrow (left to
# the region strip), so the key is checked against the bands drawn.
shaded=$(grep '^set object [0-9]* rect from .* fs transparent solid 0.18 ' "$TMPD/r.gp" |
	grep -o 'fc rgb "#[0-9a-f]*"' | sort -u)
keyed=$(grep -o 'keyentry with boxes fc rgb "#[0-9a-f]*" fs transparent solid 0.35 title "[^"]*"' "$TMPD/r.gp" |
	sed 's/ fs .* title / /')
names=$(printf '%s\n' "$keyed" | sed -n 's/.* "\([^"]*\)"$/\1/p' | sort | paste -sd, -)
[ -n "$shaded" ] && [ "$(printf '%s\n' "$keyed" | grep -o 'fc rgb "#[0-9a-f]*"' | sort -u)" = "$shaded" ] &&
	case $names in heavy | light | heavy,light) true ;; *) false ;; esac &&
	ok "the key names the shaded regions in their colours ($names)" ||
	not_ok "the key names the shaded regions" "shaded: $shaded" "$(grep keyentry "$TMPD/r.gp")"
"$PMIPROF" plot -q -i "$d" -o "$TMPD/r.svg" 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && grep -q '>heavy<' "$TMPD/r.svg" && grep -q '>light<' "$TMPD/r.svg" &&
	ok "SVG written with the region names" || not_ok "svg" "rc=$rc" "$(cat "$TMPD/err")"

"$PMIPROF" stat -q --regions -e task-clock -o "$TMPD/s.csv" -- "$wl" shares 100; rc=$?
[ $rc -eq 0 ] && head -1 "$TMPD/s.csv" | grep -qx 'region,calls,event,sum,mean,min,median,mode,p99,max,modes' &&
	grep -q '^heavy,200,task-clock,' "$TMPD/s.csv" && ok "stat --regions -o FILE writes the csv table" ||
	not_ok "stat -o" "rc=$rc" "$(cat "$TMPD/s.csv")"
"$PMIPROF" stat -q -o "$TMPD/x.csv" -- true 2>"$TMPD/err"; rc=$?
[ $rc -eq 2 ] && grep -q 'goes with --regions' "$TMPD/err" && ok "stat -o without --regions: usage error" || not_ok "stat -o usage" "rc=$rc"
"$PMIPROF" plot -i "$TMPD/s.csv" -o "$TMPD/s.svg" 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && grep -q 'heavy (200 calls)' "$TMPD/s.svg" && grep -q 'light (200 calls)' "$TMPD/s.svg" &&
	grep -q '>task-clock<' "$TMPD/s.svg" && grep -q '>wall-ns<' "$TMPD/s.svg" &&
	ok "plot of the stat csv: a distribution per region and event" || not_ok "stat plot" "rc=$rc" "$(cat "$TMPD/err")"
"$PMIPROF" plot -i "$TMPD/s.csv" -o "$TMPD/s.png" 2>/dev/null && [ -s "$TMPD/s.png" ] && ok "stat csv plot as PNG" || not_ok "stat png"
done_testing
