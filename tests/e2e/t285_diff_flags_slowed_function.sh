#!/usr/bin/env bash
# pmiprof diff on a known regression: A = shares (work_a/b/c called 5/3/2
# times a round, the same loop), B = shares --slow work_b (work_b's loop
# twice as long), the same number of rounds.  Doubling work_b moves every
# share (5/3/2 of 10 -> 5/6/2 of 13), so the share test flags all three;
# the cost test (each function against the functions whose cost did not
# change) must flag work_b alone.  20 repetitions: work_b flagged in all,
# another function of the program flagged in at most 1, and two runs of A
# flag nothing in at most 1 of 20 (the tests are at alpha 0.05 family-wise).
# The program's own functions only (--dso shares): how often the kernel's
# preemption paths run depends on the machine's load, a real difference
# between two runs that diff rightly flags.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/shares" ] || skip_all "workload shares not built"
REPS=20 ROUNDS=150
rec() { "$PMIPROF" record -q -F 10000 -o "$1" -- "$WORKLOADS/shares" "${@:2}" -n $ROUNDS >/dev/null 2>>"$TMPD/err"; }
flagged() { awk -F, 'NR > 1 && $16 == 1 { printf "%s ", $1 }' "$1"; }
detect=0 extra=0 fp=0 div_b=0 div_same=0 failed=0 details=
for i in $(seq $REPS); do
	if ! rec "$TMPD/a.data" || ! rec "$TMPD/a2.data" || ! rec "$TMPD/b.data" --slow work_b; then
		failed=$((failed + 1))
		continue
	fi
	"$PMIPROF" diff -q "$TMPD/a.data" "$TMPD/b.data" --dso shares -f csv >"$TMPD/b.csv" 2>>"$TMPD/err"
	"$PMIPROF" diff -q "$TMPD/a.data" "$TMPD/a2.data" --dso shares -f csv >"$TMPD/s.csv" 2>>"$TMPD/err"
	fb=$(flagged "$TMPD/b.csv") fs=$(flagged "$TMPD/s.csv")
	case " $fb" in *" work_b "*) detect=$((detect + 1)) ;; esac
	[ -n "$(echo "$fb" | tr ' ' '\n' | grep -v '^work_b$' | grep .)" ] && extra=$((extra + 1))
	[ -n "$fs" ] && fp=$((fp + 1))
	[ "$fb $fs" != "work_b  " ] && details="$details rep $i: B flags [$fb] same flags [$fs];"
	"$PMIPROF" diff -q "$TMPD/a.data" "$TMPD/b.data" --dso shares -f json >"$TMPD/b.json" 2>>"$TMPD/err"
	"$PMIPROF" diff -q "$TMPD/a.data" "$TMPD/a2.data" --dso shares -f json >"$TMPD/s.json" 2>>"$TMPD/err"
	grep -q '"distance_diverged_from": [0-9]' "$TMPD/b.json" && div_b=$((div_b + 1))
	grep -q '"distance_diverged_from": [0-9]' "$TMPD/s.json" && div_same=$((div_same + 1))
done
echo "# $REPS repetitions: work_b flagged $detect, another function flagged $extra, identical runs flagged $fp; aligned distance diverged: B $div_b, identical $div_same; load: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -n "$details" ] && echo "#$details"
[ $failed -eq 0 ] && ok "recorded $REPS x 3 runs" || not_ok "recorded $REPS x 3 runs" "$failed failed" "$(tail -5 "$TMPD/err")"
[ $detect -eq $REPS ] && ok "cost test flags work_b in $detect of $REPS" \
	|| not_ok "cost test flags work_b in $detect of $REPS" "$details"
[ $extra -le 1 ] && ok "another function flagged in $extra of $REPS (<= 1)" \
	|| not_ok "another function flagged in $extra of $REPS (<= 1)" "$details"
[ $fp -le 1 ] && ok "identical runs flag a function in $fp of $REPS (<= 1)" \
	|| not_ok "identical runs flag a function in $fp of $REPS (<= 1)" "$details"
# The last repetition, in detail.
share_sig() { awk -F, -v f="$2" '$1 == f { print $11 }' "$1"; }
[ "$(share_sig "$TMPD/b.csv" work_a)$(share_sig "$TMPD/b.csv" work_b)" = 11 ] \
	&& ok "the share test flags work_a too (its share fell from 50 to 38 %)" \
	|| not_ok "the share test flags work_a too (its share fell from 50 to 38 %)" "$(cat "$TMPD/b.csv")"
awk -F, '$1 == "work_b" { exit !($12 > 1.7 && $12 < 2.3) }' "$TMPD/b.csv" \
	&& ok "work_b's cost ratio is about 2" || not_ok "work_b's cost ratio is about 2" "$(cat "$TMPD/b.csv")"
python3 -m json.tool "$TMPD/b.json" >/dev/null 2>&1 && grep -q '"compared": true' "$TMPD/b.json" \
	&& ok "JSON parses; windows aligned (same trigger, period and binary)" \
	|| not_ok "JSON parses; windows aligned (same trigger, period and binary)" "$(head -c 2000 "$TMPD/b.json")"
[ $div_b -ge $((REPS - 1)) ] && ok "aligned closing-function mix of B diverges in $div_b of $REPS" \
	|| not_ok "aligned closing-function mix of B diverges in $div_b of $REPS"
[ $div_same -le 1 ] && ok "identical runs' mix diverges in $div_same of $REPS (<= 1)" \
	|| not_ok "identical runs' mix diverges in $div_same of $REPS (<= 1)"
"$PMIPROF" diff -q "$TMPD/a.data" "$TMPD/b.data" --dso shares >"$TMPD/b.txt" 2>&1
grep -Eq '^ .* CS? +work_b \[shares\]$' "$TMPD/b.txt" && ! grep -Eq ' CS? +work_[ac] ' "$TMPD/b.txt" \
	&& ok "table marks work_b alone C (cost changed)" \
	|| not_ok "table marks work_b alone C (cost changed)" "$(cat "$TMPD/b.txt")"
"$PMIPROF" diff -q "$TMPD/a.data" "$TMPD/b.data" --windows -f csv >"$TMPD/w.csv" 2>>"$TMPD/err"
"$PMIPROF" diff -q "$TMPD/a.data" "$TMPD/b.data" -f json >"$TMPD/all.json" 2>>"$TMPD/err"
na=$(grep -o '"windows_a": [0-9]*' "$TMPD/all.json" | grep -o '[0-9]*$')
nb=$(grep -o '"windows_b": [0-9]*' "$TMPD/all.json" | grep -o '[0-9]*$')
rows=$(($(wc -l <"$TMPD/w.csv") - 1))
[ -n "$na" ] && [ "$rows" -eq $((na < nb ? na : nb)) ] && ok "--windows: one row per aligned window ($rows)" \
	|| not_ok "--windows: one row per aligned window ($rows)" "A $na B $nb windows"
"$PMIPROF" diff -q "$TMPD/a.data" "$TMPD/b.data" --windows --limit 50 >"$TMPD/wt.txt" 2>>"$TMPD/err"
cat "$TMPD/wt.txt" >>"$TMPD/b.txt"
"$PMIPROF" diff -q "$TMPD/a.data" "$TMPD/b.data" >>"$TMPD/b.txt" 2>>"$TMPD/err"
grep -q 'kernel.kallsyms' "$TMPD/b.txt" && ! grep -q '\[\[' "$TMPD/b.txt" \
	&& ok "a bracketed DSO is not bracketed twice ([kernel.kallsyms])" \
	|| not_ok "a bracketed DSO is not bracketed twice" "$(grep -m3 -e '\[\[' -e kallsyms "$TMPD/b.txt")"
if command -v gnuplot >/dev/null; then
	"$PMIPROF" diff -q "$TMPD/a.data" "$TMPD/b.data" --plot "$TMPD/d.png" >/dev/null 2>"$TMPD/perr" \
		&& [ "$(head -c 4 "$TMPD/d.png" | tail -c 3)" = PNG ] \
		&& ok "--plot writes a PNG" || not_ok "--plot writes a PNG" "$(cat "$TMPD/perr")"
else
	skip "--plot writes a PNG" "gnuplot not installed"
fi
"$PMIPROF" diff "$TMPD/a.data" >/dev/null 2>&1; [ $? -eq 2 ] && ok "one trace: usage error (2)" || not_ok "one trace: usage error (2)"
"$PMIPROF" diff "$TMPD/a.data" "$TMPD/nope.data" >/dev/null 2>"$TMPD/e2"; [ $? -eq 1 ] && grep -q nope.data "$TMPD/e2" \
	&& ok "missing trace: error naming it" || not_ok "missing trace: error naming it" "$(cat "$TMPD/e2")"
done_testing
