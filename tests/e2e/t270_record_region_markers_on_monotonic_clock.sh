#!/usr/bin/env bash
# Marker times under pmiprof record are CLOCK_MONOTONIC ns, comparable with
# the samples', also when the library times with the TSC (clocksource tsc):
# each BEGIN lies between the workload's clock_gettime just before and just
# after pmiprof_region_begin, each END likewise, within 2 us (the documented
# conversion error is well under that; the margin is for a loaded machine),
# over a run of ~1.5 s spanning many re-anchors.  Then the same with the
# vDSO clock (PMIPROF_REGIONS_NO_TSC), the reference.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
wl=$WORKLOADS/regions_clock
check() { # label
	"$PMIPROF" record -q -o "$TMPD/r.pmi" -- "$wl" 500 >"$TMPD/wl" 2>"$TMPD/err" || {
		not_ok "$1: record" "$(cat "$TMPD/err")"; return; }
	"$PMIPROF" dump -i "$TMPD/r.pmi" >"$TMPD/dump" 2>&1
	start=$(sed -n 's/^clock: .* start \([0-9]*\) .*/\1/p' "$TMPD/dump")
	awk -v start="${start:-0}" '
		FNR == NR { b0[NR] = $1; b1[NR] = $2; e0[NR] = $3; e1[NR] = $4; n = NR; next }
		$2 == "region" && ($3 == "begin" || $3 == "end") {
			t = start + $1 * 1e9
			if ($3 == "begin") { i = ++nb; lo = b0[i]; hi = b1[i] } else { i = ++ne; lo = e0[i]; hi = e1[i] }
			d = t < lo ? lo - t : (t > hi ? t - hi : 0)
			if (d > worst) worst = d
		}
		END { printf "%d %d %d %.0f\n", n, nb, ne, worst }' "$TMPD/wl" "$TMPD/dump" >"$TMPD/res"
	read -r n nb ne worst <"$TMPD/res"
	[ "${start:-0}" != 0 ] && [ "$n" = 500 ] && [ "$nb" = 500 ] && [ "$ne" = 500 ] && [ "$worst" -le 2000 ] &&
		ok "$1: 500 BEGIN and 500 END markers inside their clock_gettime brackets (worst outside: $worst ns)" ||
		not_ok "$1: markers vs CLOCK_MONOTONIC" "start=$start calls=$n begins=$nb ends=$ne worst=$worst ns"
}
if grep -qx tsc /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null; then
	check "TSC timestamps"
else
	skip "TSC timestamps" "clocksource is not tsc: the library uses the vDSO clock"
fi
PMIPROF_REGIONS_NO_TSC=1 check "vDSO timestamps"
done_testing
