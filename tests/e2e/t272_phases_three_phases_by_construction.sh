#!/usr/bin/env bash
# pmiprof phases on phases3 (A B A C A: an ALU loop, a pointer chase and
# branchy floating point, each in its own function), recorded here with
# time-based cpu-clock windows: 3 phases; with the clusters mapped to the
# workload's own phase timestamps by majority, >= 95% of the intervals that
# lie inside one phase carry its label; the CSV has exactly the columns
# interval,start_s,end_s,phase; --bbv writes one SimPoint line per interval
# whose counts add up to its windows; report --phase K's top function is the
# phase's function; plot --phases colours the time axis with 3 phases,
# named in the key by their top function ("phase 2: phase_chase 97%").
# The run is cut to the workload's phases (--time): its
# start-up (16 MiB set up) and exit are behaviours of their own.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
wl=$WORKLOADS/phases3
"$PMIPROF" record -q -F 4000 -o "$TMPD/p.data" -- "$wl" 900 900 900 >/dev/null 2>"$TMPD/truth" ||
	{ not_ok "record phases3" "$(cat "$TMPD/truth")"; done_testing; }
start=$("$PMIPROF" dump -i "$TMPD/p.data" 2>/dev/null | sed -n 's/^clock: .* start \([0-9]*\) .*/\1/p')
# ground truth in seconds since the start of the recording: "A 0.123 0.456"
awk -v s="${start:-0}" '$1 == "phase" { printf "%s %.9f %.9f\n", $2, ($3 - s) / 1e9, ($4 - s) / 1e9 }' \
	"$TMPD/truth" >"$TMPD/segs"
[ "$(wc -l <"$TMPD/segs")" = 5 ] && [ "${start:-0}" != 0 ] || {
	not_ok "phases3 ground truth" "start=$start" "$(cat "$TMPD/truth")"; done_testing; }
from=$(awk 'NR == 1 { print $2 }' "$TMPD/segs")
to=$(awk 'END { print $3 }' "$TMPD/segs")
win=$("$PMIPROF" report -i "$TMPD/p.data" --time "$from,$to" --format json --limit 1 2>/dev/null |
	sed -n 's/.*"samples_shown": \([0-9]*\).*/\1/p')
# about 60 intervals whatever CPU time this (shared) machine gave the run
iv=$(( ${win:-0} / 60 )); [ "$iv" -lt 10 ] && iv=10
[ "${win:-0}" -ge 600 ] || skip_all "only ${win:-0} windows in the phases: machine too loaded"
P() { "$PMIPROF" phases -i "$TMPD/p.data" --time "$from,$to" --interval "$iv" "$@"; }

P --format csv >"$TMPD/csv" 2>"$TMPD/err" --bbv "$TMPD/p.bb"; rc=$?
head -1 "$TMPD/csv" | grep -qx 'interval,start_s,end_s,phase' &&
	awk -F, 'NR > 1 && !($1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9]$/ &&
		$3 ~ /^[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9]$/ &&
		$4 ~ /^[1-9][0-9]*$/ && $1 == NR - 2 && $2 + 0 <= $3 + 0) { bad = 1 } END { exit bad || NR < 2 }' "$TMPD/csv" &&
	[ $rc -eq 0 ] && ok "csv: columns interval,start_s,end_s,phase, one row per interval in order" ||
	not_ok "csv format" "rc=$rc" "$(head -5 "$TMPD/csv")" "$(cat "$TMPD/err")"
k=$(awk -F, 'NR > 1 { p[$4] = 1 } END { print length(p) }' "$TMPD/csv")
[ "$k" = 3 ] && ok "3 phases found" || not_ok "3 phases" "found $k" "$(P 2>&1)"

# labels against the construction: intervals inside one segment, majority map
awk 'FNR == NR { l[NR] = $1; b[NR] = $2; e[NR] = $3; n = NR; next }
	FNR > 1 { split($0, f, ","); t = ""
		for (i = 1; i <= n; i++) if (f[2] >= b[i] && f[3] <= e[i]) t = l[i]
		if (t == "") { straddle++; next }
		cnt[f[4] " " t]++; tot[f[4]]++; lab[FNR] = f[4]; tru[FNR] = t; m++ }
	END { for (c in cnt) { split(c, q, " "); if (cnt[c] > best[q[1]]) { best[q[1]] = cnt[c]; map[q[1]] = q[2] } }
		for (i in lab) if (map[lab[i]] == tru[i]) good++
		for (p in map) { if (seen[map[p]]++) dup = 1; printf "phase %s = %s\n", p, map[p] > "/dev/stderr" }
		printf "%d %d %d %d\n", good, m, straddle, dup }' "$TMPD/segs" "$TMPD/csv" >"$TMPD/res" 2>"$TMPD/map"
read -r good m straddle dup <"$TMPD/res"
awk -v g="${good:-0}" -v m="${m:-0}" 'BEGIN { exit !(m >= 20 && g >= 0.95 * m) }' && [ "${dup:-1}" = 0 ] &&
	ok "labels: $good of $m intervals inside one phase agree with the construction ($straddle straddle a boundary)" ||
	not_ok "labels vs construction" "good=$good of $m, straddling $straddle, dup=$dup" "$(cat "$TMPD/map")" \
		"$(cat "$TMPD/segs")" "$(cat "$TMPD/csv")"

# --bbv: SimPoint's format, one line per interval, counts = the interval's windows
P --format json >"$TMPD/json" 2>/dev/null
python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); print("\n".join(str(i["windows"]) for i in d["intervals"]))' \
	"$TMPD/json" >"$TMPD/wins" 2>"$TMPD/jerr" || not_ok "json parses" "$(cat "$TMPD/jerr")"
awk 'FNR == NR { w[FNR] = $1; n = FNR; next }
	{ if ($0 !~ /^T(:[1-9][0-9]*:[0-9]+)( :[1-9][0-9]*:[0-9]+)*$/) bad = "line " FNR ": " $0
	  s = 0; m = split(substr($0, 2), f, " ")
	  for (i = 1; i <= m; i++) { split(f[i], q, ":"); s += q[3]; if (q[2] <= prev && i > 1) bad = "ids not ascending"; prev = q[2] }
	  if (s != w[FNR]) bad = "line " FNR " counts " s " != windows " w[FNR] }
	END { if (FNR != n) bad = bad " lines " FNR " != intervals " n; print bad }' "$TMPD/wins" "$TMPD/p.bb" >"$TMPD/bberr"
[ -s "$TMPD/p.bb" ] && [ -z "$(tr -d '\n' <"$TMPD/bberr")" ] &&
	ok "--bbv: $(wc -l <"$TMPD/p.bb") lines T:id:count ..., counts = the intervals' windows" ||
	not_ok "--bbv" "$(cat "$TMPD/bberr")" "$(head -3 "$TMPD/p.bb")"

# report --phase K: the top function is the phase's function
for p in 1 2 3; do
	t=$(sed -n "s/^phase $p = //p" "$TMPD/map")
	case $t in A) want=phase_alu ;; B) want=phase_chase ;; C) want=phase_float ;; *) want=? ;; esac
	top=$("$PMIPROF" report -i "$TMPD/p.data" --time "$from,$to" --phase $p --phase-interval "$iv" \
		--format csv 2>/dev/null | awk -F, 'NR == 2 { print $3 }')
	[ "$top" = "$want" ] && ok "report --phase $p ($t): top function $top" ||
		not_ok "report --phase $p" "top '$top', want '$want' (phase $t)"
done
"$PMIPROF" report -i "$TMPD/p.data" --phase 9 --phase-interval "$iv" --time "$from,$to" >/dev/null 2>"$TMPD/e9"; rc=$?
[ $rc -eq 1 ] && grep -q 'no phase 9 (3 phase(s) found' "$TMPD/e9" && ok "report --phase 9: error names the 3 phases" ||
	not_ok "--phase 9" "rc=$rc $(cat "$TMPD/e9")"
P >"$TMPD/table" 2>&1
grep -q '^# k = 3 by BIC' "$TMPD/table" && grep -Eq '^ +[123] +[0-9.]+% .*' "$TMPD/table" &&
	grep -q 'top: phase_chase' "$TMPD/table" && ok "table: k by BIC, a row and top functions per phase" ||
	not_ok "table" "$(cat "$TMPD/table")"
# plot --phases: the time axis coloured by phase, a key entry per phase
if command -v gnuplot >/dev/null; then
	# the same intervals as the phases checks above (the default follows the windows, fewer on
	# a loaded machine: 4 phases at load 6 with the default, 3 with the same --interval)
	"$PMIPROF" plot -i "$TMPD/p.data" -o "$TMPD/p.png" --phases --phase-interval "$iv" --keep-script --time "$from,$to" \
		>/dev/null 2>"$TMPD/perr"; rc=$?
	n=$(grep -o 'keyentry with boxes fc rgb "[^"]*" fs solid 0.9 title "phase [0-9]: [^"]*"' "$TMPD/p.gp" 2>/dev/null | wc -l)
	named=$(grep -o 'title "phase [0-9]: [^"]*"' "$TMPD/p.gp" 2>/dev/null | grep -c 'phase\\\\_\(alu\|chase\|float\)')
	c=$(grep 'graph 0.04 fc rgb' "$TMPD/p.gp" 2>/dev/null | sed 's/.*fc rgb "\([^"]*\)".*/\1/' | sort -u | wc -l)
	[ $rc -eq 0 ] && [ -s "$TMPD/p.png" ] && [ "$n" = 3 ] && [ "$c" = 3 ] && [ "$named" = 3 ] &&
		ok "plot --phases: 3 phase colours along the time axis, 3 key entries named by their top function" ||
		not_ok "plot --phases" "rc=$rc keys=$n colours=$c named=$named" "$(cat "$TMPD/perr")" \
			"$(grep -o 'title "phase [^"]*"' "$TMPD/p.gp")"
else
	skip "plot --phases" "gnuplot not installed (make deps)"
fi
"$PMIPROF" report -i "$TMPD/p.data" --phase 1 --windows >/dev/null 2>"$TMPD/ue"; rc=$?
[ $rc -eq 2 ] && grep -q -- '--phase goes with the flat profile' "$TMPD/ue" && ok "report --phase --windows: usage error" ||
	not_ok "--phase --windows" "rc=$rc $(cat "$TMPD/ue")"
# few intervals: k is capped at a third of them, and the table says so
iv9=$(( ${win:-0} / 9 ))
"$PMIPROF" phases -i "$TMPD/p.data" --time "$from,$to" --interval "$iv9" >"$TMPD/few" 2>&1
k9=$(sed -n 's/^# k = \([0-9]*\) by BIC.*/\1/p' "$TMPD/few")
[ -n "$k9" ] && [ "$k9" -le 3 ] && grep -q '^# k at most [1-3]: only [0-9]* interval(s) clustered' "$TMPD/few" &&
	ok "few intervals: k capped at a third of them ($k9), the table says so" ||
	not_ok "few intervals: k capped at a third of them" "$(head -20 "$TMPD/few")"
done_testing
