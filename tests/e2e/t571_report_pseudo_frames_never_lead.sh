#!/usr/bin/env bash
# Pseudo-frames ([truncated], [unknown]) are where a walk stopped, not where
# time went: --children and --tree show them after every function, never as
# the top answer.  callgraph_nofp's fp stacks end in [truncated] in about 2/3
# of the samples (more than any function's share), so ranked by share it
# would lead both views.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/callgraph_nofp" ] || skip_all "workload callgraph_nofp not built"
"$PMIPROF" record -q -g -o "$TMPD/t.data" -- "$WORKLOADS/callgraph_nofp" >/dev/null 2>"$TMPD/err" \
	|| { not_ok "record -g callgraph_nofp" "$(cat "$TMPD/err")"; done_testing; }
rep() { "$PMIPROF" report -q -i "$TMPD/t.data" --comm callgraph_nofp "$@" 2>>"$TMPD/err"; }
pseudo='^\[(truncated|unknown|kernel)\]$'

rep --children --format csv >"$TMPD/ch.csv"
tr=$(awk -F, '$3 == "[truncated]" { print $5 }' "$TMPD/ch.csv")
top=$(awk -F, 'NR == 2 { print $3 " " $5 }' "$TMPD/ch.csv")
awk -v t="${tr:-0}" 'BEGIN { exit !(t > 50) }' || not_ok "[truncated] in most stacks (the case this test is about)" "${tr:-none}"
# the row number of the first pseudo-frame and of the last function
order=$(awk -F, -v re="$pseudo" 'NR > 1 { if ($3 ~ re) { if (!p) p = NR } else f = NR } END { print p + 0, f + 0 }' "$TMPD/ch.csv")
set -- $order
[ "$1" -gt "$2" ] && ! echo "$top" | grep -q '^\[' \
	&& ok "--children: the first row is $top %, [truncated] ($tr %) after every function (rows $1 > $2)" \
	|| not_ok "--children pseudo-frames last" "first $top; first pseudo row $1, last function row $2"
rep --children | awk '/^children/ { getline; print; exit }' | grep -q '\[truncated\]' \
	&& not_ok "--children table: first row not [truncated]" "$(rep --children | grep -A2 '^children')" \
	|| ok "--children table: first row is a function"

rep --tree --format csv >"$TMPD/tree.csv"
order=$(awk -F, -v re="$pseudo" 'NR > 1 && $1 == 0 { if ($6 ~ re) { if (!p) p = NR } else f = NR } END { print p + 0, f + 0 }' "$TMPD/tree.csv")
set -- $order
first=$(awk -F, 'NR > 1 && $1 == 0 { print $6; exit }' "$TMPD/tree.csv")
[ "$1" -gt "$2" ] && [ "$2" -gt 0 ] && [ "$first" = main ] \
	&& ok "--tree: rooted at main first, the [truncated] root after every function's" \
	|| not_ok "--tree pseudo roots last" "first root $first; first pseudo root row $1, last function root $2"
done_testing
