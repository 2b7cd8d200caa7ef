#!/usr/bin/env bash
# --hist of a mostly-zero metric (page faults per window: most windows have
# none) shows where the windows are: a bin holding exactly the zero windows,
# the other bins over the non-zero values only; the same bins in the text,
# the CSV form (one line per bin), JSON and plot's histogram data.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/random_sort" ] || skip_all "workload random_sort not built"
# 16 fresh pages per round: faults in some windows, none in most.
"$PMIPROF" record -q -F 10000 -o "$TMPD/t.data" -- "$WORKLOADS/random_sort" 1 16 >/dev/null 2>"$TMPD/err" \
	&& ok "pmiprof record" || not_ok "pmiprof record" "$(cat "$TMPD/err")"
# Zero and non-zero windows, from the windows themselves (those left out of statistics excluded).
"$PMIPROF" report -i "$TMPD/t.data" --windows --format csv >"$TMPD/w.csv" 2>/dev/null
read -r zeros nonzero < <(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "page-faults") c = i;
		if ($i == "throttled") th = i; if ($i == "after_loss") al = i }; next }
	$th == 0 && $al == 0 { if ($c == 0) z++; else nz++ } END { print z + 0, nz + 0 }' "$TMPD/w.csv")
n=$((zeros + nonzero))
[ "$nonzero" -gt 0 ] && [ $((zeros * 2)) -gt "$n" ] \
	&& ok "page faults in some windows ($nonzero), none in most ($zeros)" \
	|| skip_all "page-fault windows not mostly zero here ($zeros zero, $nonzero not)"

"$PMIPROF" report -i "$TMPD/t.data" --hist --hist-metric page-faults --format csv >"$TMPD/h.csv" 2>"$TMPD/err" \
	&& ok "--hist --format csv runs" || not_ok "--hist --format csv runs" "$(cat "$TMPD/err")"
[ "$(head -1 "$TMPD/h.csv")" = "metric,rows,name,bin,kind,lo,hi,clipped,windows,fraction" ] \
	&& ok "--hist has a CSV form: one line per bin" \
	|| not_ok "--hist has a CSV form: one line per bin" "$(head -3 "$TMPD/h.csv")"
awk -F, -v z="$zeros" '$1 == "page-faults" && $2 == "all" && $4 == 0 { found = 1; exit !($5 == "zero" && $9 == z) }
	END { if (!found) exit 1 }' "$TMPD/h.csv" \
	&& ok "CSV: bin 0 holds exactly the $zeros zero windows" \
	|| not_ok "CSV: bin 0 holds exactly the $zeros zero windows" "$(grep ',all,' "$TMPD/h.csv" | head -4)"
awk -F, -v nz="$nonzero" '$2 == "all" && $4 > 0 { s += $9; if ($6 < 1) bad = 1 } END { exit !(s == nz && !bad) }' "$TMPD/h.csv" \
	&& ok "CSV: the other bins cover the $nonzero non-zero windows, from 1 up" \
	|| not_ok "CSV: the other bins cover the $nonzero non-zero windows, from 1 up" "$(grep ',all,' "$TMPD/h.csv")"
nb=$(awk -F, '$2 == "all" && $4 > 0 && $9 > 0' "$TMPD/h.csv" | wc -l)
[ "$nb" -ge 3 ] && ok "the non-zero windows spread over $nb bins" \
	|| not_ok "the non-zero windows spread over 3 bins or more" "$(grep ',all,' "$TMPD/h.csv")"

"$PMIPROF" report -i "$TMPD/t.data" --hist --hist-metric page-faults --format json >"$TMPD/h.json" 2>/dev/null
python3 - "$TMPD/h.json" "$zeros" <<'PY' && ok "JSON: zero_bin, edges and bins agree" || not_ok "JSON: zero_bin, edges and bins agree"
import json, sys
h = json.load(open(sys.argv[1]))["histograms"][0]["all"]
z = int(sys.argv[2])
ok = h["zero_bin"] and h["bins"][0] == z and h["zeros"] == z and len(h["edges"]) == len(h["bins"]) + 1 \
	and h["edges"][1] >= 1 and "nonzero" in h
if not ok:
	print("# " + json.dumps(h)[:400])
sys.exit(0 if ok else 1)
PY

"$PMIPROF" report -i "$TMPD/t.data" --hist --hist-metric page-faults >"$TMPD/h.txt" 2>/dev/null
grep -qE "^ +0 +\|#+\| +$zeros " "$TMPD/h.txt" && grep -q '^# bins: a bin of zeros' "$TMPD/h.txt" \
	&& ok "text: a zero bin of $zeros windows, and how the bins were chosen" \
	|| not_ok "text: a zero bin of $zeros windows, and how the bins were chosen" "$(grep -A4 'distribution' "$TMPD/h.txt")"

if command -v gnuplot >/dev/null; then
	"$PMIPROF" plot -i "$TMPD/t.data" --metric page-faults -o "$TMPD/p.png" --keep-script >/dev/null 2>"$TMPD/err" \
		&& ok "plot runs" || not_ok "plot runs" "$(cat "$TMPD/err")"
	awk -v z="$zeros" '!/^#/ && NF { exit !($1 == 0 && $2 == 0 && $3 == 0) }' "$TMPD/p.hist.dat" \
		&& awk -v z="$zeros" -v n="$n" '!/^#/ && NF { d = $4 - z / n; exit !(d < 1e-4 && d > -1e-4) }' "$TMPD/p.hist.dat" \
		&& ok "plot: the same zero bin" || not_ok "plot: the same zero bin" "$(head -4 "$TMPD/p.hist.dat")"
else
	skip "plot: the same zero bin" "gnuplot not installed"
fi
done_testing
