#!/usr/bin/env bash
# Without a hardware PMU the perf backend falls back to cpu-clock windows.
# -c and -F given by the user are honoured there or refused, never dropped:
# -c N is a cpu-clock period of N ns (said so when recording, in the trace
# header and in the report's header with its unit); a -c below perf's 10 us
# hrtimer floor is refused with the reason; -F HZ is kept, and the header says
# the window length it means.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
have_perf_hw && skip_all "a hardware PMU is present: the no-PMU fallback is not taken"
wl=$WORKLOADS/callgraph
json_meta() { "$PMIPROF" report -i "$1" --format json --limit 1 | python3 -c '
import json, sys
m = json.load(sys.stdin)["meta"]
print(m["period"], m["freq_hz"])'; }

"$PMIPROF" record -c 1000000 -o "$TMPD/c.pmi" -- "$wl" > /dev/null 2> "$TMPD/c.err"; rc=$?
[ $rc -eq 0 ] && ok "-c 1000000: records" || not_ok "-c records" "rc=$rc" "$(cat "$TMPD/c.err")"
grep -q 'cpu-clock every 1000000 ns (-c 1000000 taken as nanoseconds)' "$TMPD/c.err" &&
	ok "-c: the notice says the period is taken as ns" || not_ok "-c notice" "$(cat "$TMPD/c.err")"
grep -q 'trigger cpu-clock every 1000000 ns' "$TMPD/c.err" && ok "-c: the summary says 'every 1000000 ns'" ||
	not_ok "-c summary" "$(cat "$TMPD/c.err")"
m=$(json_meta "$TMPD/c.pmi")
[ "$m" = "1000000 0" ] && ok "-c: the trace header holds period 1000000, no frequency" ||
	not_ok "-c header" "period freq: $m"
"$PMIPROF" report -i "$TMPD/c.pmi" > "$TMPD/c.rep" 2>&1
grep -q '^# trigger: cpu-clock every 1000000 ns (1 ms);' "$TMPD/c.rep" &&
	ok "-c: the report header says the period with its unit" || not_ok "-c report header" "$(head -5 "$TMPD/c.rep")"
# The windows are 1 ms long: samples x 1 ms is about the workload's cpu-clock sum.
"$PMIPROF" report -i "$TMPD/c.pmi" --format csv --by comm > "$TMPD/c.csv"
read -r n sum <<< "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "cpu-clock") c = i; next }
	{ n += $1; s += $c } END { print n, s }' "$TMPD/c.csv")"
awk -v n="$n" -v s="$sum" 'BEGIN { r = s / (n * 1e6); exit !(n > 20 && r > 0.8 && r < 1.25) }' &&
	ok "-c: windows of 1 ms ($n samples, cpu-clock sum $sum ns)" ||
	not_ok "-c windows 1 ms" "samples $n, cpu-clock sum $sum"

"$PMIPROF" record -c 5000 -o "$TMPD/short.pmi" -- "$wl" > /dev/null 2> "$TMPD/short.err"; rc=$?
[ $rc -ne 0 ] && grep -q -- '-c 5000 cannot be honoured: there is no hardware PMU.*at least 10000 ns' "$TMPD/short.err" &&
	ok "-c 5000: refused with the reason" || not_ok "-c 5000 refused" "rc=$rc" "$(cat "$TMPD/short.err")"

"$PMIPROF" record -F 2000 -o "$TMPD/f.pmi" -- "$wl" > /dev/null 2> "$TMPD/f.err"; rc=$?
[ $rc -eq 0 ] && grep -q 'cpu-clock at 2000 Hz (-F)' "$TMPD/f.err" && ok "-F 2000: kept and said" ||
	not_ok "-F notice" "rc=$rc" "$(cat "$TMPD/f.err")"
m=$(json_meta "$TMPD/f.pmi")
[ "$m" = "0 2000" ] && ok "-F: the trace header holds 2000 Hz" || not_ok "-F header" "period freq: $m"
"$PMIPROF" report -i "$TMPD/f.pmi" 2>&1 | grep -q '^# trigger: cpu-clock at 2000 Hz (a window every 500 us);' &&
	ok "-F: the report header gives the window length" ||
	not_ok "-F report header" "$("$PMIPROF" report -i "$TMPD/f.pmi" 2>&1 | head -4)"
done_testing
