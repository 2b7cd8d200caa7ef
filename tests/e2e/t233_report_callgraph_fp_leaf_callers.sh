#!/usr/bin/env bash
# record -g on the callgraph workload (tests/workloads/callgraph.c: main ->
# caller_a/caller_b -> leaf_shared 2:1, main -> leaf_heavy, main -> sort_work
# -> libc qsort -> cmp_u64; the leaves set up no frame).  The leaves' self
# shares are flat-profile facts; by construction caller_a holds 2/3 of
# leaf_shared and caller_b 1/3, leaf_shared : leaf_heavy = 3 : 2, and every
# sample outside qsort reaches main.  The callers of the leaves exist only
# through the leaf fix-up: with --no-leaf-fixup (perf's -g view) caller_a and
# caller_b vanish and leaf_shared's caller is main.  (qsort's samples do not
# reach main in fp mode: libc has no frame pointers; t234 unwinds them.)
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/callgraph" ] || skip_all "workload callgraph not built"
rep() { "$PMIPROF" report -i "$TMPD/t.data" --comm callgraph "$@" 2>>"$TMPD/err"; }
col() { awk -F, -v f="$1" -v c="$3" '$3 == f { s += $c } END { printf "%.4f\n", s + 0 }' "$2"; }
near() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a - b <= 2 && b - a <= 2) }'; }
# cpu-clock windows are time: on a shared VM a busy moment (steal time) during
# one phase skews the time split, not the code.  Up to 3 recordings, each
# miss printed; the stack checks below use the last one.
for try in 1 2 3; do
	"$PMIPROF" record -q -g -F 10000 -o "$TMPD/t.data" -- "$WORKLOADS/callgraph" 2 >/dev/null 2>"$TMPD/err" \
		|| { not_ok "record -g callgraph" "$(cat "$TMPD/err")"; done_testing; }
	rep --children --format csv >"$TMPD/fix.csv"
	# children: kernel-mode samples inside a leaf count for it too (a busy
	# machine has many: interrupts), and for its caller through the fix-up
	L=$(col leaf_shared "$TMPD/fix.csv" 5) H=$(col leaf_heavy "$TMPD/fix.csv" 5)
	rep --callers leaf_shared --format csv >"$TMPD/callers.csv"
	a=$(awk -F, '$5 == "caller_a" { print $4 }' "$TMPD/callers.csv") b=$(awk -F, '$5 == "caller_b" { print $4 }' "$TMPD/callers.csv")
	near "${a:-0}" 66.67 && break
	echo "# try $try: leaf_shared $L%, leaf_heavy $H%, caller_a ${a:-0}% of leaf_shared (time split skewed)"
done
ok "record -g callgraph"
rep --children --format csv --no-leaf-fixup >"$TMPD/nofix.csv"
awk -v l="$L" -v h="$H" 'BEGIN { exit !(l > 30 && h > 20) }' && ok "leaves' shares: leaf_shared $L%, leaf_heavy $H%" \
	|| not_ok "leaves' shares" "leaf_shared $L, leaf_heavy $H" "$(head -10 "$TMPD/fix.csv")"
# 3:2 in instructions (valgrind counts them exactly); cpu-clock windows are
# time, and on this shared VM the two leaves' time split drifts with the load
# (1.28 to 1.52 seen, same loop code), so only a sanity bound here: the exact
# checks are the 2:1 split of one leaf between its callers, which no load biases.
awk -v a="$L" -v b="$H" 'BEGIN { exit !(b > 0 && a / b > 1.15 && a / b < 1.85) }' \
	&& ok "leaf_shared $L% : leaf_heavy $H% near 3:2 (time-based, loose)" || not_ok "leaf_shared : leaf_heavy near 3:2" "$L vs $H"
for want in caller_a:2/3 caller_b:1/3; do
	fn=${want%%:*} frac=${want#*:}
	exp=$(awk -v l="$L" -v f="$frac" 'BEGIN { split(f, q, "/"); print l * q[1] / q[2] }')
	got=$(col "$fn" "$TMPD/fix.csv" 5)
	near "$got" "$exp" && ok "$fn children $got% within 2 points of $frac of leaf_shared ($exp%)" \
		|| not_ok "$fn children within 2 points of $exp%" "got $got" "$(head -10 "$TMPD/fix.csv")"
	got=$(col "$fn" "$TMPD/nofix.csv" 5)
	awk -v a="$got" 'BEGIN { exit !(a < 2) }' && ok "without the leaf fix-up $fn is $got% (missing)" \
		|| not_ok "without the leaf fix-up $fn is missing" "got $got%"
done
got=$(col leaf_heavy "$TMPD/fix.csv" 6)
awk -v c="$H" -v s="$got" 'BEGIN { exit !(s > 0 && s <= c) }' && ok "leaf_heavy self $got% within its children $H% (the rest: kernel-mode samples in it)" \
	|| not_ok "leaf_heavy self within children" "$got vs $H"
M=$(col main "$TMPD/fix.csv" 5) exp=$(awk -v l="$L" -v h="$H" 'BEGIN { print l + h }')
awk -v m="$M" -v e="$exp" 'BEGIN { exit !(m >= e - 2) }' && ok "main children $M% covers both leaves ($exp%)" \
	|| not_ok "main children covers both leaves" "$M vs $exp"
near "${a:-0}" 66.67 && near "${b:-0}" 33.33 && ok "--callers leaf_shared: caller_a $a%, caller_b $b% (2:1)" \
	|| not_ok "--callers leaf_shared 2:1" "$(cat "$TMPD/callers.csv")"
rep --callers leaf_shared --format csv --no-leaf-fixup >"$TMPD/callers2.csv"
awk -F, '$5 == "main" && $4 > 95 { f = 1 } END { exit !f }' "$TMPD/callers2.csv" \
	&& ok "--no-leaf-fixup: leaf_shared seems called by main" || not_ok "--no-leaf-fixup: main calls leaf_shared" "$(cat "$TMPD/callers2.csv")"
[ -s "$TMPD/err" ] && grep -v warning "$TMPD/err" | grep -q . && not_ok "reports without errors" "$(cat "$TMPD/err")"
# A static executable has no .eh_frame_hdr (gcc links static without
# --eh-frame-hdr): the fix-up reads .eh_frame through libdw all the same.
if ! command -v gcc >/dev/null || ! gcc -O1 -g -fno-inline $(sed -n 's|^// CFLAGS: ||p' "$(dirname "$0")/../workloads/callgraph.c") \
	-static -no-pie -o "$TMPD/cg_static" "$(dirname "$0")/../workloads/callgraph.c" 2>/dev/null; then
	skip "no static callgraph build (gcc or static libc missing)"
elif ! "$PMIPROF" record -q -g -F 10000 -o "$TMPD/s.data" -- "$TMPD/cg_static" 2 >/dev/null 2>&1; then
	not_ok "record -g of a static executable"
else
	"$PMIPROF" report -i "$TMPD/s.data" --comm cg_static --children --format csv >"$TMPD/s.csv" 2>/dev/null
	# the fix-up's presence, not the time split (checked above): without it 0 %
	got=$(col caller_a "$TMPD/s.csv" 5) ls=$(col leaf_shared "$TMPD/s.csv" 5)
	exp=$(awk -v l="$ls" 'BEGIN { print l * 2 / 3 }')
	awk -v g="$got" -v e="$exp" 'BEGIN { exit !(g > e * 0.8 && g < e * 1.2) }' \
		&& ok "static executable: caller_a children $got% near 2/3 of leaf_shared ($exp%), restored by the fix-up" \
		|| not_ok "static executable: leaf fix-up restores caller_a" "got $got, want $exp" "$(head -8 "$TMPD/s.csv")"
fi
done_testing
