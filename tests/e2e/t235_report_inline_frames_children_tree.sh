#!/usr/bin/env bash
# report --inline on call stacks: each frame expands into its inline chain.
# tests/workloads/inline_chain.c: main -> path_a -> [inl_outer -> inl_mid ->
# inl_inner] 2 units, main -> path_b -> [inl_mid -> inl_inner] 1 unit, the
# bracketed functions always_inline, all the time in inl_inner's loop.  By
# construction, with --inline: inl_inner and inl_mid hold (almost) every
# sample, inl_outer exactly path_a's, inl_outer : path_b = 2 : 1, and the
# tree nests path_a -> inl_outer -> inl_mid -> inl_inner.  Without --inline
# there is no inl_* row and path_a, path_b are the leaves.  Recorded with
# record -g (fp) and --call-graph dwarf (frames of the dwarf unwinder expand
# the same way).
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/inline_chain" ] || skip_all "workload inline_chain not built"
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { exit !(a - b <= t && b - a <= t) }'; }
# column c (5 children, 6 self) of symbol f in a --children CSV
col() { awk -F, -v f="$1" -v c="$3" '$3 == f { s += $c } END { printf "%.4f\n", s + 0 }' "$2"; }
for cg in fp dwarf; do
	"$PMIPROF" record -q --call-graph $cg -F 4000 -o "$TMPD/$cg.data" -- "$WORKLOADS/inline_chain" 2 \
		>/dev/null 2>"$TMPD/err" || { not_ok "record --call-graph $cg" "$(cat "$TMPD/err")"; continue; }
	ok "record --call-graph $cg inline_chain"
	rep() { "$PMIPROF" report -q -i "$TMPD/$cg.data" --comm inline_chain "$@" 2>>"$TMPD/err"; }
	rep --children --inline --format csv >"$TMPD/inl.csv"
	rep --children --format csv >"$TMPD/plain.csv"
	I=$(col inl_inner "$TMPD/inl.csv" 5) IS=$(col inl_inner "$TMPD/inl.csv" 6)
	M=$(col inl_mid "$TMPD/inl.csv" 5) O=$(col inl_outer "$TMPD/inl.csv" 5)
	A=$(col path_a "$TMPD/inl.csv" 5) B=$(col path_b "$TMPD/inl.csv" 5)
	awk -v i="$I" -v s="$IS" -v m="$M" 'BEGIN { exit !(i > 95 && s > 90 && m > 95) }' \
		&& ok "$cg: inl_inner children $I% (self $IS%), inl_mid $M%: the inlined frames hold the samples" \
		|| not_ok "$cg: inlined frames inl_inner/inl_mid near 100%" "$(head -8 "$TMPD/inl.csv")"
	near "$O" "$A" 0.5 && ok "$cg: inl_outer $O% = path_a $A% (only path_a inlines it)" \
		|| not_ok "$cg: inl_outer = path_a" "$O vs $A"
	exp=$(awk -v m="$M" 'BEGIN { print m * 2 / 3 }')
	near "$O" "$exp" 5 && ok "$cg: inl_outer $O% within 5 points of 2/3 of inl_mid ($exp%)" \
		|| not_ok "$cg: inl_outer 2/3 of inl_mid" "$O vs $exp"
	exp=$(awk -v m="$M" 'BEGIN { print m / 3 }')
	near "$B" "$exp" 5 && ok "$cg: path_b $B% within 5 points of 1/3 ($exp%)" || not_ok "$cg: path_b 1/3" "$B vs $exp"
	# Without --inline: the physical frames only, path_a and path_b the leaves.
	grep -q ',inl_' "$TMPD/plain.csv" && not_ok "$cg: no inl_* row without --inline" "$(grep ',inl_' "$TMPD/plain.csv")" \
		|| ok "$cg: no inl_* row without --inline"
	# path_a's children also hold the windows that closed in the kernel
	# (interrupts, page faults) under path_a: a few points on a loaded VM.
	PA=$(col path_a "$TMPD/plain.csv" 6)
	K=$(awk -F, '$4 == "[kernel.kallsyms]" { s += $6 } END { printf "%.4f\n", s + 0 }' "$TMPD/plain.csv")
	awk -v pa="$PA" -v a="$A" -v k="$K" 'BEGIN { exit !(pa <= a + 0.01 && pa >= a - k - 1) }' \
		&& ok "$cg: without --inline path_a is the leaf: self $PA% = its children with --inline $A% less kernel windows (at most $K%)" \
		|| not_ok "$cg: path_a self without --inline" "$PA vs $A (kernel leaves $K%)"
	# The tree: path_a -> inl_outer -> inl_mid -> inl_inner, path_b -> inl_mid -> inl_inner.
	rep --tree --inline --format csv --percent-limit 1 >"$TMPD/tree.csv"
	pa=$(awk -F, '$8 ~ /;main;path_a;inl_outer;inl_mid;inl_inner$/ { s += $2 } END { print s + 0 }' "$TMPD/tree.csv")
	pb=$(awk -F, '$8 ~ /;main;path_b;inl_mid;inl_inner$/ { s += $2 } END { print s + 0 }' "$TMPD/tree.csv")
	awk -v a="$pa" -v b="$pb" 'BEGIN { exit !(a > 55 && b > 25) }' \
		&& ok "$cg: --tree nests main;path_a;inl_outer;inl_mid;inl_inner ($pa%) and main;path_b;inl_mid;inl_inner ($pb%)" \
		|| not_ok "$cg: --tree inline nesting" "$(cat "$TMPD/tree.csv")"
	grep -q 'path_b;inl_outer\|path_a;inl_mid\|inl_inner;inl_' "$TMPD/tree.csv" \
		&& not_ok "$cg: no path in the wrong order" "$(grep 'path_b;inl_outer\|path_a;inl_mid\|inl_inner;inl_' "$TMPD/tree.csv")" \
		|| ok "$cg: no inline path in the wrong order"
	rep --callers inl_mid --inline --format csv >"$TMPD/callers.csv"
	o=$(awk -F, '$5 == "inl_outer" { print $4 }' "$TMPD/callers.csv") b=$(awk -F, '$5 == "path_b" { print $4 }' "$TMPD/callers.csv")
	near "${o:-0}" 66.67 5 && near "${b:-0}" 33.33 5 && ok "$cg: --callers inl_mid: inl_outer $o%, path_b $b% (2:1)" \
		|| not_ok "$cg: --callers inl_mid 2:1" "$(cat "$TMPD/callers.csv")"
done
[ -s "$TMPD/err" ] && grep -v warning "$TMPD/err" | grep -q . && not_ok "reports without errors" "$(cat "$TMPD/err")"
done_testing
