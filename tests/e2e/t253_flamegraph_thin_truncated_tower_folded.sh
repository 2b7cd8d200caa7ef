#!/usr/bin/env bash
# pmiprof flamegraph with a thin, deep tower: a second of the shares
# workload, then a short bash recursion (100 levels of bash's own C
# recursion, cut at the maximum stack depth: [truncated]) that gets a
# percent or so of the samples.  The picture stays as tall as the frames
# of at least 1 % of the samples plus a few rows; the tower above is one
# "[+N frames]" frame, not a second picture's height of slivers.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
"$PMIPROF" record -q --call-graph dwarf -o "$TMPD/f.data" -- bash -c "$WORKLOADS/shares 1
	f() { if [ \$1 -gt 0 ]; then f \$((\$1 - 1)); else i=0; while [ \$i -lt 300 ]; do i=\$((i + 1)); done; fi; }
	f 100" >/dev/null 2>"$TMPD/err" || { not_ok "record" "$(cat "$TMPD/err")"; done_testing; }
"$PMIPROF" flamegraph -q -i "$TMPD/f.data" -o "$TMPD/f.svg" 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && [ -s "$TMPD/f.svg" ] && ok "flamegraph writes the SVG" || not_ok "flamegraph (rc $rc)" "$(cat "$TMPD/err")"
# rows of the frames of >= 1 % of the total, the deepest frame drawn, the SVG height
read -r wide deepest height total <<<"$(python3 - "$TMPD/f.svg" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
T = int(re.search(r'var T = (\d+)', s).group(1))
fr = [(int(w), int(d)) for w, d in re.findall(r'<g class="f" id="[fz]\d+" data-x="\d+" data-w="(\d+)" data-d="(\d+)"', s)]
h = int(re.search(r'<svg[^>]* height="(\d+)"', s).group(1))
print(max(d for w, d in fr if w >= 0.01 * T), max(d for w, d in fr), h, T)
PY
)"
if ! grep -q '<title>\[truncated\]' "$TMPD/f.svg"; then
	skip "a thin tower folded" "no [truncated] stack in this run (bash unwound to its root)"
else
	[ "$deepest" -le $((wide + 7)) ] && [ "$height" -le $((84 + (wide + 8) * 16 + 34)) ] &&
		ok "height $height px: frames of >= 1 % reach row $wide, nothing drawn above row $((wide + 7))" ||
		not_ok "thin tower folded" "wide rows $wide, deepest drawn $deepest, height $height, total $total"
fi
if [ "$deepest" -gt "$wide" ] && grep -q '>\[+[0-9]* frames\]' "$TMPD/f.svg" ||
	grep -q '<title>\[+[0-9]* frames\] folded' "$TMPD/f.svg"; then
	ok "the fold is one frame '[+N frames]' naming the tower's deepest leaf"
else
	not_ok "fold frame" "$(grep -o '\[+[0-9]* frames\][^<]*' "$TMPD/f.svg" | head -3)"
fi
command -v xmllint >/dev/null && { xmllint --noout "$TMPD/f.svg" 2>"$TMPD/x" && ok "SVG well-formed" ||
	not_ok "SVG well-formed" "$(head -3 "$TMPD/x")"; }
done_testing
