#!/usr/bin/env bash
# A frame's identity is (function, DSO) in every stack view: twin_dso's main
# calls twin_spin() of the executable and twin_spin() of libtwin.so (twice
# the work), so folded stacks, the flame graph, pprof, the HTML page's frames
# and --tree must show two frames under main, each with its DSO, about 1:2;
# merged by name they would be one twin_spin with all the samples.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/twin_dso" ] && [ -f "$WORKLOADS/libtwin.so" ] || skip_all "workload twin_dso not built"
"$PMIPROF" record -q -g -o "$TMPD/t.data" -- "$WORKLOADS/twin_dso" 300 >/dev/null 2>"$TMPD/err" \
	|| { not_ok "record -g twin_dso" "$(cat "$TMPD/err")"; done_testing; }
rep() { "$PMIPROF" report -q -i "$TMPD/t.data" --comm twin_dso "$@" 2>>"$TMPD/err"; }

# samples of the folded lines through main;FRAME (FRAME exactly, then ';' or the count)
through() { awk -v f="$1" '{ c = $NF; $NF = ""; sub(/ $/, ""); n = split($0, fr, ";")
	for (i = 2; i <= n; i++) if (fr[i - 1] == "main" && fr[i] == f) { s += c; break } }
	END { print s + 0 }' "$2"; }
ratio_ok() { awk -v e="$1" -v l="$2" 'BEGIN { exit !(e > 0 && l > 0 && l / (e + l) > 0.55 && l / (e + l) < 0.78) }'; }

rep --format folded >"$TMPD/f.txt"
e=$(through "twin_spin [twin_dso]" "$TMPD/f.txt") l=$(through "twin_spin [libtwin.so]" "$TMPD/f.txt")
plain=$(through "twin_spin" "$TMPD/f.txt")
ratio_ok "$e" "$l" && [ "$plain" = 0 ] \
	&& ok "folded: main;twin_spin [twin_dso] $e and main;twin_spin [libtwin.so] $l samples, no bare twin_spin" \
	|| not_ok "folded keeps the two twin_spin apart" "exe $e lib $l bare $plain: $(sort -k2nr "$TMPD/f.txt" | head -4)"
# a name only one DSO has stays bare
grep -q ';main;' "$TMPD/f.txt" && ! grep -q 'main \[' "$TMPD/f.txt" \
	&& ok "folded: main (one DSO's) is not qualified" || not_ok "folded main bare" "$(head -3 "$TMPD/f.txt")"

"$PMIPROF" flamegraph -q -i "$TMPD/t.data" --comm twin_dso -o "$TMPD/f.svg" 2>>"$TMPD/err"
# frames "name<TAB>width" from <g ... data-w=N ...><title>name
awk 'match($0, /data-w="[0-9]+" data-d="[0-9]+"><title>[^<\n]*/) {
	s = substr($0, RSTART, RLENGTH); split(s, p, "\""); n = s; sub(/.*<title>/, "", n); print n "\t" p[2] }' \
	"$TMPD/f.svg" >"$TMPD/frames"
fe=$(awk -F'\t' '$1 == "twin_spin [twin_dso]" { s += $2 } END { print s + 0 }' "$TMPD/frames")
fl=$(awk -F'\t' '$1 == "twin_spin [libtwin.so]" { s += $2 } END { print s + 0 }' "$TMPD/frames")
[ "$fe" = "$(rep --format folded | awk '/;main;twin_spin \[twin_dso\]/ { s += $NF } END { print s + 0 }')" ] \
	&& ratio_ok "$fe" "$fl" && ok "flame graph: two twin_spin frames, $fe and $fl samples wide" \
	|| not_ok "flame graph twin_spin frames" "exe $fe lib $fl: $(grep twin "$TMPD/frames")"

rep --tree --format csv >"$TMPD/tree.csv"
te=$(awk -F, '$6 == "twin_spin" && $7 == "twin_dso" { print $4 }' "$TMPD/tree.csv" | head -1)
tl=$(awk -F, '$6 == "twin_spin" && $7 == "libtwin.so" { print $4 }' "$TMPD/tree.csv" | head -1)
ratio_ok "${te:-0}" "${tl:-0}" && ok "--tree: twin_spin [twin_dso] $te and [libtwin.so] $tl samples" \
	|| not_ok "--tree twin_spin rows" "$(grep twin "$TMPD/tree.csv")"

rep --format pprof -o "$TMPD/p.pb.gz"
if command -v go >/dev/null; then
	timeout 300 go tool pprof -top -nodecount=10 "$TMPD/p.pb.gz" >"$TMPD/top" 2>&1
	pe=$(awk '$NF == "[twin_dso]" && $(NF-1) == "twin_spin" { print $4 }' "$TMPD/top")
	pl=$(awk '$NF == "[libtwin.so]" && $(NF-1) == "twin_spin" { print $4 }' "$TMPD/top")
	[ "$pe" = "$e" ] && ratio_ok "${pe:-0}" "${pl:-0}" \
		&& ok "go tool pprof -top: twin_spin [twin_dso] $pe cum, twin_spin [libtwin.so] $pl" \
		|| not_ok "pprof functions by DSO" "$(cat "$TMPD/top")"
else
	skip "go tool pprof" "go not installed"
fi

if rep --html -o "$TMPD/p.html" && [ -s "$TMPD/p.html" ]; then
	# the page's stack frames: "frames":[[name,dso],...] (its "syms" are by symbol id)
	grep -o '"frames":\[\[.*\]\]' "$TMPD/p.html" | sed 's/\]\].*/]]/' >"$TMPD/frames.json"
	grep -q '\["twin_spin \[twin_dso\]","twin_dso"\]' "$TMPD/frames.json" &&
		grep -q '\["twin_spin \[libtwin.so\]","libtwin.so"\]' "$TMPD/frames.json" &&
		! grep -q '\["twin_spin","' "$TMPD/frames.json" \
		&& ok "HTML page: the stacks' frames are twin_spin [twin_dso] and twin_spin [libtwin.so]" \
		|| not_ok "HTML page frames" "$(grep -o '"frames":\[.\{0,300\}' "$TMPD/p.html")"
else
	skip "HTML page frames" "report --html unavailable here: $(tail -1 "$TMPD/err")"
fi
grep -v '^warning' "$TMPD/err" | grep -q . && not_ok "reports without errors" "$(cat "$TMPD/err")"
done_testing
