#!/usr/bin/env bash
# --call-graph dwarf on callgraph_nofp (-O2 -fomit-frame-pointer): unwound
# offline, >= 97 % of all stacks and of the samples in the qsort callback
# cmp_u64 reach main, and every inclusive share is within 2 points of
# construction: with S = sort_work's share (calibrated, measured), caller_a =
# leaf_heavy = 2/5 (100 - S), caller_b = 1/5, leaf_shared = 3/5, main 100 %.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/callgraph_nofp" ] || skip_all "workload callgraph_nofp not built"
col() { awk -F, -v f="$1" '$3 == f { s += $5 } END { printf "%.4f\n", s + 0 }' "$TMPD/c.csv"; }
near() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a - b <= 2 && b - a <= 2) }'; }
WANT="main:5/5:1 caller_a:2/5:0 caller_b:1/5:0 leaf_heavy:2/5:0 leaf_shared:3/5:0"
# every inclusive share near its construction: 0, else the misses in $miss
shares_ok() {
	local want fn frac all exp got
	miss=
	for want in $WANT; do
		IFS=: read -r fn frac all <<<"$want"
		exp=$(awk -v s="$S" -v f="$frac" -v a="$all" 'BEGIN { split(f, q, "/"); print a ? 100 : (100 - s) * q[1] / q[2] }')
		got=$(col "$fn")
		near "$got" "$exp" || miss="$miss $fn $got% (want $exp%)"
	done
	[ -z "$miss" ]
}
# Time-based windows on a shared 2-core machine: a busy moment shifts a
# share by a point or two (interrupt windows land under whatever runs), so
# up to 3 recordings, each miss printed.
for try in 1 2 3; do
	"$PMIPROF" record -q --call-graph dwarf -F 4000 -o "$TMPD/t.data" -- "$WORKLOADS/callgraph_nofp" 2 >/dev/null 2>"$TMPD/err" \
		|| { not_ok "record --call-graph dwarf callgraph_nofp" "$(cat "$TMPD/err")"; done_testing; }
	"$PMIPROF" report -i "$TMPD/t.data" --comm callgraph_nofp --children --format csv >"$TMPD/c.csv" 2>"$TMPD/err" \
		|| not_ok "report --children" "$(cat "$TMPD/err")"
	S=$(col sort_work)
	shares_ok && break
	echo "# try $try missed:$miss"
done
ok "record --call-graph dwarf callgraph_nofp"
"$PMIPROF" report -i "$TMPD/t.data" --comm callgraph_nofp --children >"$TMPD/table" 2>&1
pct=$(sed -n 's/.* \([0-9.]*\)% of those reached a root.*/\1/p' "$TMPD/table")
awk -v p="${pct:-0}" 'BEGIN { exit !(p >= 97) }' && ok "$pct% of stacks reached a root (>= 97%)" \
	|| not_ok ">= 97% of stacks reached a root" "$(grep -A2 'call stacks' "$TMPD/table")"
awk -v s="$S" 'BEGIN { exit !(s > 3 && s < 40) }' && ok "sort_work takes $S%" || not_ok "sort_work share plausible" "$S"
for want in $WANT; do
	IFS=: read -r fn frac all <<<"$want"
	exp=$(awk -v s="$S" -v f="$frac" -v a="$all" 'BEGIN { split(f, q, "/"); print a ? 100 : (100 - s) * q[1] / q[2] }')
	got=$(col "$fn")
	near "$got" "$exp" && ok "$fn children $got% within 2 points of $exp%" \
		|| not_ok "$fn children within 2 points of $exp%" "got $got" "$(head -14 "$TMPD/c.csv" | cut -d, -f3-6)"
done
"$PMIPROF" report -i "$TMPD/t.data" --windows --format csv --comm callgraph_nofp >"$TMPD/w.csv" 2>&1
read -r n m < <(awk -F, 'NR > 1 && $7 == "cmp_u64" { n++; if ($NF ~ /;main;sort_work;/) m++ } END { print n + 0, m + 0 }' "$TMPD/w.csv")
awk -v n="$n" -v m="$m" 'BEGIN { exit !(n >= 10 && m >= 0.97 * n) }' \
	&& ok "$m of cmp_u64's $n samples reach main;sort_work through qsort" \
	|| not_ok "cmp_u64's samples reach main through qsort" "$m of $n" "$(awk -F, '$7 == "cmp_u64"' "$TMPD/w.csv" | head -3)"
done_testing
