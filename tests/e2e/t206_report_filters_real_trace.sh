#!/usr/bin/env bash
# Filters on a real trace: --symbol, --dso, --pid, --comm, --window and
# --time select the windows they name, and the header counts what is shown.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/shares" ] || skip_all "workload shares not built"
"$PMIPROF" record -q -o "$TMPD/t.data" -- "$WORKLOADS/shares" 0.5 >/dev/null 2>"$TMPD/err" \
	|| { not_ok "record" "$(cat "$TMPD/err")"; done_testing; }
"$PMIPROF" report -i "$TMPD/t.data" --symbol work_b --format csv >"$TMPD/b" 2>/dev/null
[ "$(tail -n +2 "$TMPD/b" | cut -d, -f3 | sort -u)" = work_b ] && grep -q '^[0-9]*,100.0000,work_b' "$TMPD/b" \
	&& ok "--symbol work_b: only work_b, 100%" || not_ok "--symbol work_b" "$(cat "$TMPD/b")"
"$PMIPROF" report -i "$TMPD/t.data" --dso '[kernel*' --format csv >"$TMPD/k" 2>/dev/null
[ "$(tail -n +2 "$TMPD/k" | cut -d, -f4 | sort -u)" = "[kernel.kallsyms]" ] || [ "$(wc -l <"$TMPD/k")" -eq 1 ] \
	&& ok "--dso glob selects the kernel" || not_ok "--dso glob" "$(head "$TMPD/k")"
"$PMIPROF" report -i "$TMPD/t.data" --window 0-99 --windows --format csv >"$TMPD/w" 2>/dev/null
[ "$(($(wc -l <"$TMPD/w") - 1))" -eq 100 ] && [ "$(sed -n 2p "$TMPD/w" | cut -d, -f1)" = 0 ] \
	&& ok "--window 0-99: windows 0..99" || not_ok "--window 0-99" "$(head -3 "$TMPD/w")"
"$PMIPROF" report -i "$TMPD/t.data" --time 0.1,0.2 --windows --format csv >"$TMPD/tw" 2>/dev/null
awk -F, 'NR > 1 && ($2 < 100000000 || $2 > 200000000) { bad++ } NR > 1 { n++ } END { exit !(n > 0 && !bad) }' "$TMPD/tw" \
	&& ok "--time 0.1,0.2: windows between 100 and 200 ms" || not_ok "--time 0.1,0.2" "$(head -3 "$TMPD/tw")"
pid=$(sed -n 2p "$TMPD/w" | cut -d, -f4)
"$PMIPROF" report -i "$TMPD/t.data" --pid "$pid" >"$TMPD/p" 2>/dev/null
"$PMIPROF" report -i "$TMPD/t.data" --pid 1 >"$TMPD/p1" 2>/dev/null
grep -q 'work_a' "$TMPD/p" && grep -q 'no samples to show' "$TMPD/p1" && ok "--pid selects the process" \
	|| not_ok "--pid" "$(head -12 "$TMPD/p1")"
"$PMIPROF" report -i "$TMPD/t.data" --comm shares --by comm --format csv >"$TMPD/c" 2>/dev/null
grep -q '^[0-9]*,100.0000,shares' "$TMPD/c" && ok "--comm shares --by comm" || not_ok "--comm" "$(cat "$TMPD/c")"
done_testing
