#!/usr/bin/env bash
# Cross-check with perf: the same workload recorded by perf record -F 10000
# (cpu-clock) and by pmiprof record; every function above 5 % in
# perf report --stdio --sort sym is within 2 points in pmiprof report.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v perf >/dev/null || skip_all "perf not installed (linux-perf)"
[ -x "$WORKLOADS/shares" ] || skip_all "workload shares not built"
perf record -q -e cpu-clock -F 10000 -o "$TMPD/perf.data" -- "$WORKLOADS/shares" 2 >/dev/null 2>"$TMPD/perr" \
	|| skip_all "perf record failed: $(head -1 "$TMPD/perr")"
"$PMIPROF" record -q -F 10000 -o "$TMPD/t.data" -- "$WORKLOADS/shares" 2 >/dev/null 2>"$TMPD/err" \
	&& ok "pmiprof record" || not_ok "pmiprof record" "$(cat "$TMPD/err")"
perf report -i "$TMPD/perf.data" --stdio --sort sym 2>/dev/null |
	awk '$1 ~ /%$/ { p = $1; sub(/%/, "", p); if (p + 0 > 5) print $NF, p }' >"$TMPD/perf.top"
"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/p.csv" 2>/dev/null
n=$(wc -l <"$TMPD/perf.top")
[ "$n" -ge 1 ] && ok "perf report has $n function(s) above 5%" || not_ok "perf report has functions above 5%" "$(cat "$TMPD/perf.top")"
while read -r fn pct; do
	ours=$(awk -F, -v f="$fn" '$3 == f { s += $2 } END { if (s != "") print s }' "$TMPD/p.csv")
	awk -v a="${ours:-}" -v b="$pct" 'BEGIN { exit !(a != "" && a - b <= 2 && b - a <= 2) }' \
		&& ok "$fn: pmiprof ${ours}% vs perf ${pct}% within 2 points" \
		|| not_ok "$fn: pmiprof ${ours:-missing}% vs perf ${pct}% within 2 points"
done <"$TMPD/perf.top"
done_testing
