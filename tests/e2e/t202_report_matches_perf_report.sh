#!/usr/bin/env bash
# Cross-check with perf on the same run: pmiprof record -F 10000 (no PMU
# here: cpu-clock windows at 10 kHz) runs perf record -e cpu-clock -F 10000,
# which runs the workload, so both sample the same execution of it; every
# function above 5 % in perf report --stdio --sort sym is within 2 points in
# pmiprof report --comm shares (percentages of the workload's samples).
# (The other nesting, perf outside, makes perf 6.1's report abort at
# util/build-id.c:1010 on pmiprof's own ring-buffer mappings.)
# Two separate runs differed by more than that on a loaded 2-core machine
# (49.96 vs 47.57 %); in one run only the two samplers' noise differs
# (~0.4 points at 20000 samples).  Up to 3 tries, each miss printed.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v perf >/dev/null || skip_all "perf not installed (linux-perf)"
[ -x "$WORKLOADS/shares" ] || skip_all "workload shares not built"

# One run under both; fills perf.top ("fn pct" above 5 %) and p.csv.
one_run() {
	rm -f "$TMPD/perf.data" "$TMPD/t.data"
	# -B -N: no build-id pass at the end of perf record (perf 6.1 aborts there
	# now and then on this machine: assertion at util/build-id.c:1010), and
	# the shared ~/.debug cache left alone; symbols come from the binaries.
	"$PMIPROF" record -q -F 10000 -o "$TMPD/t.data" -- \
		perf record -B -N -q -e cpu-clock -F 10000 -o "$TMPD/perf.data" -- "$WORKLOADS/shares" 2 \
		>/dev/null 2>"$TMPD/err" || return 2
	perf report -i "$TMPD/perf.data" --stdio --sort sym 2>/dev/null |
		awk '$1 ~ /%$/ { p = $1; sub(/%/, "", p); if (p + 0 > 5) print $NF, p }' >"$TMPD/perf.top"
	"$PMIPROF" report -q -i "$TMPD/t.data" --comm shares --format csv >"$TMPD/p.csv" 2>/dev/null
	[ -s "$TMPD/perf.top" ] || return 2
	compare > "$TMPD/cmp"
}

# "fn ours perf" per function; fails when one is more than 2 points apart.
compare() {
	local fn pct ours bad=0
	while read -r fn pct; do
		ours=$(awk -F, -v f="$fn" '$3 == f { s += $2 } END { if (s != "") print s }' "$TMPD/p.csv")
		echo "$fn ${ours:-missing} $pct"
		awk -v a="${ours:-}" -v b="$pct" 'BEGIN { exit !(a != "" && a - b <= 2 && b - a <= 2) }' || bad=1
	done <"$TMPD/perf.top"
	return $bad
}

tries=0
until one_run; rc=$?; [ $rc -eq 0 ]; do
	tries=$((tries + 1))
	[ $rc -eq 2 ] && { echo "# try $tries: recording failed: $(head -2 "$TMPD/err" | tr '\n' ' ')"; }
	[ $rc -eq 1 ] && echo "# try $tries missed (fn pmiprof% perf%): $(tr '\n' ';' < "$TMPD/cmp")"
	[ $tries -lt 3 ] || break
done
[ $rc -eq 2 ] && skip_all "perf record under pmiprof record failed 3 times: $(head -2 "$TMPD/err" | tr '\n' ' ')"
ok "perf record under pmiprof record (same run; $tries earlier tries)"
n=$(wc -l <"$TMPD/perf.top")
[ "$n" -ge 1 ] && ok "perf report has $n function(s) above 5%" || not_ok "perf report has functions above 5%" "$(cat "$TMPD/perf.top")"
while read -r fn ours pct; do
	awk -v a="$ours" -v b="$pct" 'BEGIN { exit !(a != "missing" && a - b <= 2 && b - a <= 2) }' \
		&& ok "$fn: pmiprof ${ours}% vs perf ${pct}% within 2 points (same run)" \
		|| not_ok "$fn: pmiprof ${ours}% vs perf ${pct}% within 2 points (same run)"
done <"$TMPD/cmp"
done_testing
