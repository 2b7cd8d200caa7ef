#!/usr/bin/env bash
# Call stacks end to end on a workload of known structure: shares calls
# round_once, which calls the leaves work_a/b/c 5:3:2 (leaves set up no
# frame).  `record -g` then `report --children` gives inclusive shares within
# 2 points of construction, INCLUDING round_once, the caller of the leaves,
# which the fp leaf fix-up restores: with --no-leaf-fixup (perf's view) it
# all but vanishes.  Also: >= 97 % of stacks reach a root, --callers, the
# tree, the --windows stack column, filters, JSON, and a trace without
# stacks saying so.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/shares" ] || skip_all "workload shares not built"
"$PMIPROF" record -q -g -F 10000 -o "$TMPD/t.data" -- "$WORKLOADS/shares" 2 >/dev/null 2>"$TMPD/err" \
	|| { not_ok "record -g shares" "$(cat "$TMPD/err")"; done_testing; }
ok "record -g shares"
"$PMIPROF" report -i "$TMPD/t.data" --children --comm shares --format csv >"$TMPD/c.csv" 2>"$TMPD/err" \
	&& ok "report --children --format csv" || not_ok "report --children --format csv" "$(cat "$TMPD/err")"
head -1 "$TMPD/c.csv" | grep -q '^samples,percent,symbol,dso,children,self,children_samples,' \
	&& ok "CSV columns children,self after samples,percent,symbol,dso" \
	|| not_ok "CSV columns children,self after samples,percent,symbol,dso" "$(head -1 "$TMPD/c.csv")"
# column 5 = children %, 6 = self %
children() { awk -F, -v f="$1" '$3 == f { s += $5 } END { if (s != "") print s }' "$2"; }
near() { awk -v a="${1:-}" -v b="$2" 'BEGIN { exit !(a != "" && a - b <= 2 && b - a <= 2) }'; }
for want in main:100 round_once:100 work_a:50 work_b:30 work_c:20; do
	fn=${want%%:*} exp=${want#*:}
	got=$(children "$fn" "$TMPD/c.csv")
	near "$got" "$exp" && ok "$fn children ${got}% within 2 points of $exp%" \
		|| not_ok "$fn children ${got:-missing}% within 2 points of $exp%" "$(head -8 "$TMPD/c.csv")"
done
# The fix-up's effect: the leaves' caller is missing from plain fp chains.
"$PMIPROF" report -i "$TMPD/t.data" --children --comm shares --format csv --no-leaf-fixup \
	>"$TMPD/nofix.csv" 2>"$TMPD/err" || not_ok "report --no-leaf-fixup" "$(cat "$TMPD/err")"
got=$(children round_once "$TMPD/nofix.csv")
awk -v a="${got:-0}" 'BEGIN { exit !(a < 10) }' \
	&& ok "without the leaf fix-up round_once drops to ${got:-0}% (caller of the leaves missing)" \
	|| not_ok "without the leaf fix-up round_once drops below 10%" "got ${got}%"
got=$(children main "$TMPD/nofix.csv")
near "$got" 100 && ok "main is still ${got}% without the fix-up" || not_ok "main ~100% without the fix-up" "got $got"
"$PMIPROF" report -i "$TMPD/t.data" --children --comm shares >"$TMPD/table" 2>&1
pct=$(sed -n 's/.* \([0-9.]*\)% of those reached a root.*/\1/p' "$TMPD/table")
awk -v p="${pct:-0}" 'BEGIN { exit !(p >= 97) }' && ok "$pct% of stacks reached a root (>= 97%)" \
	|| not_ok ">= 97% of stacks reached a root" "$(grep -A1 'call stacks' "$TMPD/table")"
fix=$(sed -n 's/.*; \([0-9]*\) leaf caller(s) restored.*/\1/p' "$TMPD/table" | head -1)
[ "${fix:-0}" -gt 0 ] && ok "header counts $fix leaf fix-ups" || not_ok "header counts leaf fix-ups" "$(grep -A2 'call stacks' "$TMPD/table")"
grep -q '^# call graph: fp, max-stack 127' "$TMPD/table" && ok "header names the call graph" \
	|| not_ok "header names the call graph" "$(head -12 "$TMPD/table")"
# --callers: work_a is called from round_once (fix-up), from main without it
"$PMIPROF" report -i "$TMPD/t.data" --callers work_a --format csv >"$TMPD/callers.csv" 2>&1
awk -F, '$1 == "caller" && $5 == "round_once" && $4 > 98 { f = 1 } END { exit !f }' "$TMPD/callers.csv" \
	&& ok "--callers work_a: round_once > 98%" || not_ok "--callers work_a: round_once > 98%" "$(cat "$TMPD/callers.csv")"
"$PMIPROF" report -i "$TMPD/t.data" --callers work_a --format csv --no-leaf-fixup >"$TMPD/callers2.csv" 2>&1
awk -F, '$1 == "caller" && $5 == "main" && $4 > 90 { f = 1 } END { exit !f }' "$TMPD/callers2.csv" \
	&& ok "--callers work_a --no-leaf-fixup: main (the caller's caller)" \
	|| not_ok "--callers work_a --no-leaf-fixup: main" "$(cat "$TMPD/callers2.csv")"
# the tree: main -> round_once -> work_a/b/c with their shares
"$PMIPROF" report -i "$TMPD/t.data" --tree --comm shares --format csv >"$TMPD/tree.csv" 2>&1
for want in "round_once;work_a:50" "round_once;work_b:30" "round_once;work_c:20"; do
	path=${want%%:*} exp=${want#*:}
	got=$(awk -F, -v p="$path" 'index($NF, "main;" p) && $NF ~ (p "$") { print $2; exit }' "$TMPD/tree.csv")
	near "$got" "$exp" && ok "tree path ...main;$path ${got}% within 2 of $exp%" \
		|| not_ok "tree path ...main;$path within 2 of $exp%" "got '${got}'" "$(head -12 "$TMPD/tree.csv")"
done
"$PMIPROF" report -i "$TMPD/t.data" --tree --comm shares >"$TMPD/tree.txt" 2>&1
grep -qE '^ +[0-9.]+%  +.*`- work_c \[shares\]  \(self [0-9.]+%\)$' "$TMPD/tree.txt" \
	&& ok "text tree draws work_c as round_once's last child with its self share" \
	|| not_ok "text tree draws work_c" "$(grep -v '^#' "$TMPD/tree.txt" | head -12)"
# filters apply: the first half second has about a quarter of the samples
"$PMIPROF" report -i "$TMPD/t.data" --children --comm shares --time 0,0.5 --format csv >"$TMPD/half.csv" 2>&1
a=$(awk -F, '$3 == "main" { print $7 }' "$TMPD/c.csv"); b=$(awk -F, '$3 == "main" { print $7 }' "$TMPD/half.csv")
awk -v a="${a:-0}" -v b="${b:-0}" 'BEGIN { exit !(b > 0 && b < a * 0.5) }' \
	&& ok "--time keeps $b of main's $a samples" || not_ok "--time filters stack views" "$a vs $b"
# windows: the folded stack column
"$PMIPROF" report -i "$TMPD/t.data" --windows --format csv --comm shares >"$TMPD/w.csv" 2>&1
head -1 "$TMPD/w.csv" | grep -q ',throttled,after_loss,stack$' && ok "--windows CSV ends with a stack column" \
	|| not_ok "--windows CSV ends with a stack column" "$(head -1 "$TMPD/w.csv")"
grep -q ';main;round_once;work_b$' "$TMPD/w.csv" && ok "windows stack column: ...;main;round_once;work_b" \
	|| not_ok "windows stack column has main;round_once;work_b" "$(sed -n 2,4p "$TMPD/w.csv")"
# kernel-mode samples (timer interrupts in a leaf) get the fix-up after their exact user ip
kin=$(grep -c ';work_[abc];[^;]*_\[k\]' "$TMPD/w.csv"); kmiss=$(grep ';work_[abc];[^;]*_\[k\]' "$TMPD/w.csv" | grep -vc ';round_once;work_')
if [ "${kin:-0}" -eq 0 ]; then
	skip "no kernel-mode sample interrupted a leaf in this run"
else
	[ "${kmiss:-1}" -eq 0 ] && ok "kernel-mode samples in leaves keep round_once ($kin of $kin)" \
		|| not_ok "kernel-mode samples in leaves keep round_once" "$kmiss of $kin miss it"
fi
"$PMIPROF" report -i "$TMPD/t.data" --children --format json --limit 5 >"$TMPD/c.json" 2>"$TMPD/c.err"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["view"] == "children" and d["meta"]["stacks"]["samples"] > 0 and d["rows"][0]["children"] >= d["rows"][-1]["children"]' "$TMPD/c.json" \
	&& ok "--children JSON parses, sorted by children" || not_ok "--children JSON parses" "$(head -c 600 "$TMPD/c.json")"
# a trace without stacks
"$PMIPROF" record -q -o "$TMPD/flat.data" -- "$WORKLOADS/shares" 0.2 >/dev/null 2>&1
"$PMIPROF" report -i "$TMPD/flat.data" --children >"$TMPD/out" 2>"$TMPD/err"; rc=$?
[ $rc -eq 1 ] && grep -q "has no call stacks.*record -g" "$TMPD/err" \
	&& ok "no stacks: exit 1 and 'record with pmiprof record -g'" || not_ok "no stacks message" "rc $rc: $(cat "$TMPD/err")"
done_testing
