#!/usr/bin/env bash
# --call-graph dwarf end to end: random_sort's cmp is called back by libc's
# qsort (msort_with_tmp, built without frame pointers).  Unwound offline
# from the stack copies (report/stacks/unwind.c), >= 97 % of all stacks and of cmp's
# samples reach main; --callers cmp names libc's msort_with_tmp; --children
# counts msort_with_tmp's recursion once (<= 100 %, <= qsort's share).
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/random_sort" ] || skip_all "workload random_sort not built"
"$PMIPROF" record -q --call-graph dwarf -F 5000 -o "$TMPD/t.data" -- "$WORKLOADS/random_sort" 1 >/dev/null 2>"$TMPD/err" \
	|| { not_ok "record --call-graph dwarf" "$(cat "$TMPD/err")"; done_testing; }
ok "record --call-graph dwarf random_sort"
"$PMIPROF" report -i "$TMPD/t.data" --children --comm random_sort >"$TMPD/table" 2>"$TMPD/err" \
	|| not_ok "report --children" "$(cat "$TMPD/err")"
grep -q '^# call graph: dwarf (8192 bytes of user stack)' "$TMPD/table" && ok "header: dwarf, 8192 bytes" \
	|| not_ok "header: dwarf" "$(grep 'call graph' "$TMPD/table")"
pct=$(sed -n 's/.* \([0-9.]*\)% of those reached a root.*/\1/p' "$TMPD/table")
awk -v p="${pct:-0}" 'BEGIN { exit !(p >= 97) }' && ok "$pct% of dwarf stacks reached a root (>= 97%)" \
	|| not_ok ">= 97% of dwarf stacks reached a root" "$(grep -A2 'call stacks' "$TMPD/table")"
"$PMIPROF" report -i "$TMPD/t.data" --windows --format csv --comm random_sort >"$TMPD/w.csv" 2>&1
# cmp's windows: the stack is the last column, symbol the 7th
read -r n m < <(awk -F, 'NR > 1 && $7 == "cmp" { n++; if ($NF ~ /;main;/) m++ } END { print n + 0, m + 0 }' "$TMPD/w.csv")
awk -v n="$n" -v m="$m" 'BEGIN { exit !(n >= 20 && m >= 0.97 * n) }' \
	&& ok "$m of cmp's $n samples reach main through qsort (>= 97%)" \
	|| not_ok "cmp's samples reach main" "$m of $n" "$(awk -F, '$7 == "cmp"' "$TMPD/w.csv" | head -3)"
"$PMIPROF" report -i "$TMPD/t.data" --callers cmp --format csv >"$TMPD/callers.csv" 2>&1
awk -F, '$1 == "caller" && $5 ~ /^msort_with_tmp/ && $6 == "libc.so.6" && $4 > 90 { f = 1 } END { exit !f }' "$TMPD/callers.csv" \
	&& ok "--callers cmp: libc's msort_with_tmp" || not_ok "--callers cmp: msort_with_tmp" "$(cat "$TMPD/callers.csv")"
"$PMIPROF" report -i "$TMPD/t.data" --children --comm random_sort --format csv >"$TMPD/c.csv" 2>&1
ms=$(awk -F, '$3 ~ /^msort_with_tmp/ { print $5; exit }' "$TMPD/c.csv")
qs=$(awk -F, '$3 ~ /qsort/ && $5 > m { m = $5 } END { print m + 0 }' "$TMPD/c.csv")
awk -v a="${ms:-0}" -v b="${qs:-0}" 'BEGIN { exit !(a > 5 && a <= b + 0.01 && a <= 100) }' \
	&& ok "recursive msort_with_tmp ${ms}% counted once, within qsort's ${qs}%" \
	|| not_ok "msort_with_tmp counted once" "msort ${ms}, qsort ${qs}"
done_testing
