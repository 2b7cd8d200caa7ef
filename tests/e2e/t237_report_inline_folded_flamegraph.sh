#!/usr/bin/env bash
# --inline in the folded form and flame graphs: on tests/workloads/inline_chain.c
# (see t235) the folded stacks run main;path_a;inl_outer;inl_mid;inl_inner and
# main;path_b;inl_mid;inl_inner, the samples through each inlined function
# equal report --children --inline's children samples, the flame graph has a
# frame per inlined function as wide as those samples, one level above its
# caller; without --inline the folded stacks end in path_a / path_b.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/inline_chain" ] || skip_all "workload inline_chain not built"
"$PMIPROF" record -q -g -F 4000 -o "$TMPD/t.data" -- "$WORKLOADS/inline_chain" 2 >/dev/null 2>"$TMPD/err" \
	|| { not_ok "record -g inline_chain" "$(cat "$TMPD/err")"; done_testing; }
ok "record -g inline_chain"
rep() { "$PMIPROF" report -q -i "$TMPD/t.data" --comm inline_chain "$@" 2>>"$TMPD/err"; }
rep --format folded --inline >"$TMPD/inl.folded"
rep --format folded >"$TMPD/plain.folded"
rep --children --inline --format csv >"$TMPD/ch.csv"
# samples of folded lines whose stack has the frame sequence re (an awk regex)
through() { awk -v re="$1" '{ c = $NF; $NF = ""; if ((";" $0) ~ re) s += c } END { print s + 0 }' "$2"; }
a=$(through ';main;path_a;inl_outer;inl_mid;inl_inner( |;)' "$TMPD/inl.folded")
b=$(through ';main;path_b;inl_mid;inl_inner( |;)' "$TMPD/inl.folded")
total=$(awk '{ s += $NF } END { print s + 0 }' "$TMPD/inl.folded")
awk -v a="$a" -v b="$b" -v t="$total" 'BEGIN { exit !(a > 0.55 * t && b > 0.25 * t) }' \
	&& ok "folded: main;path_a;inl_outer;inl_mid;inl_inner $a and main;path_b;inl_mid;inl_inner $b of $total" \
	|| not_ok "folded inline stacks" "$(sort -k2 -n -r "$TMPD/inl.folded" | head -5)"
for fn in inl_outer inl_mid inl_inner; do
	got=$(through ";$fn( |;)" "$TMPD/inl.folded")
	want=$(awk -F, -v f="$fn" '$3 == f { print $7 }' "$TMPD/ch.csv")
	[ "$got" = "$want" ] && ok "folded: $got samples through $fn = its children samples" \
		|| not_ok "folded samples through $fn" "$got vs $want"
done
grep -q 'inl_' "$TMPD/plain.folded" && not_ok "without --inline no inl_* frame" "$(grep inl_ "$TMPD/plain.folded" | head -3)" \
	|| ok "without --inline no inl_* frame"
# path_a is the innermost user frame (kernel-mode samples go on into _[k] frames)
pa=$(through ';main;path_a( |;[^;]*_\\[k\\])' "$TMPD/plain.folded")
[ "$pa" -gt 0 ] && [ "$pa" -ge "$a" ] && ok "without --inline path_a is the leaf ($pa samples)" \
	|| not_ok "without --inline path_a leaf" "$pa vs $a"

"$PMIPROF" flamegraph -q -i "$TMPD/t.data" --comm inline_chain --inline -o "$TMPD/f.svg" 2>>"$TMPD/err" \
	&& ok "flamegraph --inline" || not_ok "flamegraph --inline" "$(cat "$TMPD/err")"
# frames: "name depth width" from <g ... data-w= data-d=><title>name
awk 'match($0, /data-w="[0-9]+" data-d="[0-9]+"><title>[^<\n]*/) {
	s = substr($0, RSTART, RLENGTH); split(s, p, "\""); n = s; sub(/.*<title>/, "", n); print n, p[4], p[2] }' \
	"$TMPD/f.svg" >"$TMPD/frames"
for fn in inl_outer inl_mid; do
	w=$(awk -v f="$fn" '$1 == f { s += $3 } END { print s + 0 }' "$TMPD/frames")
	want=$(awk -F, -v f="$fn" '$3 == f { print $7 }' "$TMPD/ch.csv")
	[ "$w" = "$want" ] && ok "flame graph: $fn frames $w samples wide = its children samples" \
		|| not_ok "flame graph $fn width" "$w vs $want: $(head -20 "$TMPD/frames")"
done
da=$(awk '$1 == "path_a" { print $2; exit }' "$TMPD/frames") do=$(awk '$1 == "inl_outer" { print $2; exit }' "$TMPD/frames")
[ -n "$da" ] && [ "$do" = $((da + 1)) ] && ok "flame graph: inl_outer sits on path_a (depth $do)" \
	|| not_ok "flame graph inl_outer above path_a" "path_a $da, inl_outer $do"
[ -s "$TMPD/err" ] && grep -v warning "$TMPD/err" | grep -q . && not_ok "reports without errors" "$(cat "$TMPD/err")"
done_testing
