#!/usr/bin/env bash
# --region-read sampled:N reads the counters at about 1 call in N (chosen at
# random per thread) and times every call: calls stay exact, the event row
# covers the sampled calls and its sum is estimated as mean x calls, so the
# 3:1 construction still shows (task-clock, within 0.5: a sample of ~200).
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
wl=$WORKLOADS/regions
"$PMIPROF" stat --regions --region-read sampled:4 -e task-clock -- "$wl" shares 400 2>"$TMPD/t"; rc=$?
grep -q 'counters read at 1 call in 4 per thread' "$TMPD/t" && ok "the printout states the sampling" ||
	not_ok "sampling stated" "$(cat "$TMPD/t")"
hc=$(awk '/^  region heavy:/ { print $3 }' "$TMPD/t")
sc=$(awk '/^  region heavy:/ { f = 1 } f && $1 == "task-clock" { sub(/.*\(/, ""); print $1; exit }' "$TMPD/t")
[ $rc -eq 0 ] && [ "$hc" = 800 ] && [ "${sc:-0}" -ge 120 ] && [ "${sc:-0}" -le 300 ] &&
	ok "heavy: 800 calls, $sc of them with counters (~1 in 4)" || not_ok "sampled counts" "rc=$rc hc=$hc sc=$sc" "$(cat "$TMPD/t")"
"$PMIPROF" stat --regions --region-read sampled:4 --format csv -e task-clock -- "$wl" shares 400 2>"$TMPD/c" >/dev/null
r=$(awk -F, '$3 == "task-clock" { s[$1] = $4 } END { if (s["light"] > 0) printf "%.3f", s["heavy"] / s["light"] }' "$TMPD/c")
awk -v r="${r:-0}" 'BEGIN { exit !(r > 2.5 && r < 3.5) }' && ok "estimated sums heavy/light $r (3 by construction)" ||
	not_ok "sampled ratio" "$r" "$(cat "$TMPD/c")"
"$PMIPROF" stat --regions --region-read sampled:3 -- true 2>"$TMPD/e"; rc=$?
[ $rc -eq 2 ] && grep -q 'power of two' "$TMPD/e" && ok "sampled:3: usage error" || not_ok "sampled:3" "rc=$rc $(cat "$TMPD/e")"
done_testing
