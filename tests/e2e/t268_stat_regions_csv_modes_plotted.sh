#!/usr/bin/env bash
# stat --regions -o FILE keeps every mode of a per-call distribution: the
# csv's 'modes' column (after the issue's ten columns, ';'-separated) lists
# both peaks of the bimodal snippet (1 or 4 units, alternately), and the
# plot of that file draws a point for each of them, not only the highest.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v gnuplot >/dev/null || skip_all "gnuplot not installed"
wl=$WORKLOADS/regions
"$PMIPROF" stat -q --regions -e task-clock -o "$TMPD/b.csv" -- "$wl" bimodal 2000; rc=$?
head -1 "$TMPD/b.csv" | grep -qx 'region,calls,event,sum,mean,min,median,mode,p99,max,modes' &&
	ok "csv header: the issue's columns first, then modes" || not_ok "header" "$(head -1 "$TMPD/b.csv")"
modes=$(awk -F, '$1 == "bimodal" && $3 == "task-clock" { print $11 }' "$TMPD/b.csv")
if [ $rc -eq 0 ] && awk -v m="$modes" 'BEGIN { n = split(m, a, ";"); if (n != 2) exit 1
	lo = a[1] < a[2] ? a[1] : a[2]; hi = a[1] < a[2] ? a[2] : a[1]
	exit !(lo > 0 && hi / lo > 3.6 && hi / lo < 4.4) }'; then
	ok "modes column of the bimodal snippet: two values ~4x apart ($modes)"
else
	not_ok "modes column" "rc=$rc" "$(cat "$TMPD/b.csv")"
fi
"$PMIPROF" plot -q -i "$TMPD/b.csv" -o "$TMPD/p.svg" --keep-script 2>"$TMPD/err"; rc=$?
# the data row of the bimodal task-clock candle: columns 8.. are the modes
row=$(awk '/^# task-clock/ { f = 1; next } /^# / { f = 0 } f && /bimodal/' "$TMPD/p.regions.dat")
n=$(printf '%s\n' "$row" | awk '{ k = 0; for (i = NF - 3; i <= NF; i++) if ($i != "NaN") k++; print k }')
[ $rc -eq 0 ] && [ "$n" = 2 ] && grep -q 'using 1:9 with points' "$TMPD/p.gp" &&
	ok "plot: both modes drawn as points ($row)" || not_ok "plot modes" "rc=$rc n=$n" "$row" "$(cat "$TMPD/err")"
done_testing
