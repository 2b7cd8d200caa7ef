#!/usr/bin/env bash
# diff leads with the absolute change: pie_libcall 400 rounds against 200 does
# half the work in every function, so each function's samples halve while its
# share and relative cost stay (x1.0).  The table's first columns are A's and
# B's samples, their difference and the difference in ms; the summary says
# "N -> M samples (delta, ms)" before shares and ratios, and calls the ratio a
# relative cost; per-window event blocks of time-based traces (a tick's
# period and noise) are left out, saying why.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/pie_libcall" ] || skip_all "workload pie_libcall not built"
"$PMIPROF" record -q -o "$TMPD/a.data" -- "$WORKLOADS/pie_libcall" 400 >/dev/null 2>"$TMPD/err" &&
	"$PMIPROF" record -q -o "$TMPD/b.data" -- "$WORKLOADS/pie_libcall" 200 >/dev/null 2>>"$TMPD/err" \
	|| { not_ok "record pie_libcall 400 and 200" "$(cat "$TMPD/err")"; done_testing; }
"$PMIPROF" diff -q "$TMPD/a.data" "$TMPD/b.data" --comm pie_libcall >"$TMPD/d.txt" 2>>"$TMPD/err"
"$PMIPROF" diff -q "$TMPD/a.data" "$TMPD/b.data" --comm pie_libcall -f csv >"$TMPD/d.csv" 2>>"$TMPD/err"
read -r sa sb ca cb <<<"$(awk -F, '$1 == "pmwork_lib_spin" { print $3, $4, $18, $19 }' "$TMPD/d.csv")"
awk -v a="${sa:-0}" -v b="${sb:-0}" 'BEGIN { exit !(a > 0 && b / a > 0.35 && b / a < 0.65) }' \
	|| not_ok "pmwork_lib_spin's samples about halve (the case this test is about)" "$sa -> $sb"

# table row: A B delta delta-ms A% B% points cost sig symbol [dso]
row=$(grep -E ' pmwork_lib_spin \[libpmwork.so\]$' "$TMPD/d.txt")
set -- $row
want_ms=$(awk -v sa="$sa" -v sb="$sb" -v ca="$ca" -v cb="$cb" 'BEGIN { printf "%+.1f", (sb * cb - sa * ca) / 1e6 }')
grep -Eq '^ +A +B +delta +delta-ms +A% +B% +points +cost +sig +symbol \[dso\]$' "$TMPD/d.txt" &&
	[ "$1" = "$sa" ] && [ "$2" = "$sb" ] && [ "$3" = "$(printf '%+d' $((sb - sa)))" ] &&
	awk -v g="$4" -v w="$want_ms" 'BEGIN { exit !(g - w < 0.15 && w - g < 0.15) }' \
	&& ok "table: pmwork_lib_spin $1 -> $2 samples ($3, $4 ms) in its first columns" \
	|| not_ok "table leads with samples and ms" "row '$row', csv $sa $sb, want $want_ms ms"
first=$(awk '/^ +A +B +delta/ { getline; print $NF " " $(NF-1); exit }' "$TMPD/d.txt")
[ "$first" = "[libpmwork.so] pmwork_lib_spin" ] && ok "the biggest absolute change is the first row" \
	|| not_ok "first row by absolute change" "$first"

grep -Eq "^#     pmwork_lib_spin \[libpmwork.so\]: $sa -> $sb samples \($(printf "%+d" $((sb - sa))), [-+][0-9.]+ ms\), within the noise" "$TMPD/d.txt" &&
	grep -Eq '^#       share [0-9.]+% -> [0-9.]+% \([-+][0-9.]+ points\), relative cost x(0\.9|1\.0|1\.1)' "$TMPD/d.txt" \
	&& ok "summary: '$sa -> $sb samples' first, then share and relative cost (about x1)" \
	|| not_ok "summary leads with the absolute change" "$(grep -A1 '^#     pmwork' "$TMPD/d.txt")"
if grep -q 'time-based windows' "$TMPD/d.txt"; then
	grep -q '^# events and metrics per window: not shown: time-based windows' "$TMPD/d.txt" &&
		! grep -q '\[whole run\]' "$TMPD/d.txt" \
		&& ok "time-based windows: per-window event block left out, saying why" \
		|| not_ok "per-window block of time-based traces" "$(grep -A3 'per window' "$TMPD/d.txt")"
else
	skip "per-window block of time-based traces" "the traces have hardware-event windows"
fi
grep -v '^warning' "$TMPD/err" | grep -q . && not_ok "diff without errors" "$(cat "$TMPD/err")"
done_testing
