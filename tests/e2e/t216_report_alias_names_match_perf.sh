#!/usr/bin/env bash
# Names as perf names them: a workload in libc's random() (glibc's local
# __random with its weak alias random) and qsort(), recorded by pmiprof
# record while perf record -a -F 10000 (cpu-clock) samples the whole machine
# in the same run (two runs one after the other differ by more than 2 points
# on this memory-bound workload when the machine's load changes between
# them); every function above 5 % in either report has the same name in the
# other, its share within 2 points (perf report --comm random_sort
# --percentage relative).
. "$(dirname "$0")/../lib.sh"
TAB=$(printf '\t')	# names may hold spaces ("[unknown] 0x780")
have_perf_sw || skip_all "perf_event_open not usable here"
command -v perf >/dev/null || skip_all "perf not installed (linux-perf)"
[ -x "$WORKLOADS/random_sort" ] || skip_all "workload random_sort not built"
perf record -q -a -e cpu-clock -F 10000 -o "$TMPD/perf.data" -- sleep 6 >/dev/null 2>"$TMPD/perr" &
perf_pid=$!
sleep 1	# perf is recording before the workload starts
"$PMIPROF" record -q -F 10000 -o "$TMPD/t.data" -- "$WORKLOADS/random_sort" 2 >/dev/null 2>"$TMPD/err" \
	&& ok "pmiprof record alongside perf record -a" || not_ok "pmiprof record" "$(cat "$TMPD/err")"
wait "$perf_pid" || skip_all "perf record -a failed: $(head -1 "$TMPD/perr")"
# "pct comm dso [.] sym" rows; a name may appear once per DSO: summed
perf report -i "$TMPD/perf.data" --comm random_sort --percentage relative --stdio \
	--sort comm,dso,sym 2>/dev/null |
	awk '$1 ~ /%$/ { p = $1; sub(/%/, "", p); s[$NF] += p } END { for (n in s) print n "\t" s[n] }' \
	| sort -t"$TAB" -k2 -gr >"$TMPD/perf.all"
awk -F'\t' '$2 + 0 > 5' "$TMPD/perf.all" >"$TMPD/perf.top"
"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/p.csv" 2>/dev/null
# symbol -> summed share (a name may appear once per DSO)
awk -F, 'NR > 1 { s[$3] += $2 } END { for (f in s) print f "\t" s[f] }' "$TMPD/p.csv" >"$TMPD/ours.all"
n=$(wc -l <"$TMPD/perf.top")
[ "$n" -ge 3 ] && ok "perf report has $n function(s) above 5%" \
	|| not_ok "perf report has 3 functions above 5%" "$(cat "$TMPD/perf.top")"
grep -q "^__random$TAB" "$TMPD/perf.top" || skip "perf names random() __random" "perf shows: $(head -5 "$TMPD/perf.top" | tr '\n' ' ') (no libc6-dbg?)"
share() { awk -F'\t' -v f="$1" '$1 == f { print $2 }' "$2"; }
while IFS=$TAB read -r fn pct; do
	ours=$(share "$fn" "$TMPD/ours.all")
	awk -v a="${ours:-}" -v b="$pct" 'BEGIN { exit !(a != "" && a - b <= 2 && b - a <= 2) }' \
		&& ok "perf's $fn: pmiprof ${ours}% vs perf ${pct}% within 2 points" \
		|| not_ok "perf's $fn: pmiprof ${ours:-missing}% vs perf ${pct}% within 2 points" \
			"pmiprof's top: $(sort -t"$TAB" -k2 -gr "$TMPD/ours.all" | head -6 | tr '\n' ' ')"
done <"$TMPD/perf.top"
while IFS=$TAB read -r fn pct; do
	theirs=$(share "$fn" "$TMPD/perf.all")
	[ -n "$theirs" ] && ok "pmiprof's $fn (${pct}%) is named so by perf too" \
		|| not_ok "pmiprof's $fn (${pct}%) is named so by perf too" \
			"perf's top: $(head -6 "$TMPD/perf.all" | tr '\n' ' ')"
done < <(awk -F'\t' '$2 + 0 > 5' "$TMPD/ours.all")
done_testing
