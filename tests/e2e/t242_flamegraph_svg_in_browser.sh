#!/usr/bin/env bash
# pmiprof flamegraph: a well-formed self-contained SVG whose frames a real
# browser draws (headless chromium screenshot: the pixels of the work_a frame
# are there), whose script searches (?s=: highlight and matched share equal
# to the folded counts) and zooms (?zoom=: the frame spans the width, the
# others hide); DSO colours without instructions/cycles; bad input refused.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/shares" ] || skip_all "workload shares not built"
"$PMIPROF" record -q -g -o "$TMPD/g.data" -- "$WORKLOADS/shares" 0.5 >/dev/null 2>"$TMPD/err" \
	|| { not_ok "record -g" "$(cat "$TMPD/err")"; done_testing; }
SVG=$TMPD/f.svg
"$PMIPROF" flamegraph -q -i "$TMPD/g.data" -o "$SVG" --title 'shares <&> "test"' 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && [ -s "$SVG" ] && ok "flamegraph exits 0 and writes the SVG" \
	|| not_ok "flamegraph (rc $rc)" "$(cat "$TMPD/err")"
python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$SVG" 2>"$TMPD/err" \
	&& ok "SVG is well-formed XML" || not_ok "SVG well-formed" "$(cat "$TMPD/err")"
grep -q 'shares &lt;&amp;&gt; &quot;test&quot;' "$SVG" && ok "title escaped" || not_ok "title escaped"
grep -q 'colour: DSO' "$SVG" && ok "no instructions/cycles: colour by DSO with a legend" || not_ok "DSO legend"
grep -q '<title>work_a$' "$SVG" && grep -q '<title>main$' "$SVG" && ok "frames work_a and main with tooltips" \
	|| not_ok "work_a/main frames"
! grep -q 'http://\|https://[^w]' <(grep -v 'xmlns=' "$SVG") && ok "self-contained (no external references)" \
	|| not_ok "external references"

"$PMIPROF" flamegraph -i "$TMPD/g.data" -o "$TMPD/c.svg" --color-by ipc >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 2 ] && grep -q 'instructions' "$TMPD/err" && ok "--color-by ipc without those events: exit 2" \
	|| not_ok "--color-by ipc on a time-based trace (rc $rc)" "$(cat "$TMPD/err")"
"$PMIPROF" record -q -o "$TMPD/flat.data" -- "$WORKLOADS/shares" 0.2 >/dev/null 2>&1
"$PMIPROF" flamegraph -i "$TMPD/flat.data" -o "$TMPD/n.svg" 2>"$TMPD/err"; rc=$?
[ $rc -eq 1 ] && [ ! -e "$TMPD/n.svg" ] && grep -q 'no call stacks' "$TMPD/err" \
	&& ok "trace without stacks: exit 1, no file" || not_ok "no stacks (rc $rc)" "$(cat "$TMPD/err")"

CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
	skip "browser draws the frames" "chromium not installed"
	done_testing
fi
chrome() { timeout 120 "$CHROME" --headless --disable-gpu --no-sandbox --user-data-dir="$TMPD/prof" "$@" 2>>"$TMPD/chrome.err"; }
chrome --screenshot="$TMPD/shot.png" --window-size=1200,900 "file://$SVG" >/dev/null
# frame NAME FILE [ATTR]: the ATTR (default fill) of the rect of NAME's first frame, or
# "hidden" when the frame is not displayed.
frame() {
	python3 - "$@" <<'PY'
import re, sys
name, text = sys.argv[1], open(sys.argv[2]).read()
attr = sys.argv[3] if len(sys.argv) > 3 else 'fill'
m = re.search(r'<g class="f[^"]*"([^>]*)><title>' + re.escape(name) + r'\n[^<]*</title><rect([^>]*)>', text)
if m and 'display: none' in m.group(1):
    print('hidden')
elif m:
    a = re.search(attr + r'="([^"]*)"', m.group(2))
    print(a.group(1) if a else '')
PY
}
fill=$(frame work_a "$SVG" | sed 's/rgb(\(.*\))/\1/')
px=$(python3 - "$TMPD/shot.png" "$fill" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
want = tuple(int(x) for x in sys.argv[2].split(','))
pos, idat = 8, b''
while pos < len(data):
    n, typ = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if typ == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
    elif typ == b'IDAT':
        idat += body
    pos += 12 + n
bpp = {2: 3, 6: 4}[ctype]
raw, stride, prev, count = zlib.decompress(idat), w * bpp, bytearray(w * bpp), 0
for y in range(h):
    f, row = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = row[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: row[i] = (row[i] + a) & 255
        elif f == 2: row[i] = (row[i] + b) & 255
        elif f == 3: row[i] = (row[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    count += sum(1 for x in range(0, stride, bpp) if tuple(row[x:x + 3]) == want)
    prev = row
print(count)
PY
)
# work_a is ~half of 1180 px wide and 15 px high: thousands of its pixels.
[ -n "$px" ] && [ "$px" -gt 2000 ] && ok "chromium draws the work_a frame ($px px of rgb($fill))" \
	|| not_ok "work_a frame drawn" "pixels ${px:-none} of rgb($fill); $(tail -3 "$TMPD/chrome.err")"

# Search: ?s=REGEX highlights the matches and shows their share of the total.
chrome --dump-dom "file://$SVG?s=^work_" >"$TMPD/dom" 2>/dev/null
got=$(sed -n 's/.*id="matched"[^>]*>Matched: \([0-9.]*\)%<.*/\1/p' "$TMPD/dom")
"$PMIPROF" report -q -i "$TMPD/g.data" --format folded >"$TMPD/f.txt"
want=$(awk '{ t += $NF } /(^|;)work_[^;]*( |;)/ { m += $NF } END { printf "%.1f\n", 100 * m / t }' "$TMPD/f.txt")
hl=0
for f in work_a work_b work_c; do [ "$(frame $f "$TMPD/dom")" = "rgb(230,0,230)" ] && hl=$((hl + 1)); done
[ -n "$got" ] && [ "$got" = "$want" ] && [ "$hl" -ge 3 ] && ok "search: matched $got% as the folded counts say, $hl frames highlighted" \
	|| not_ok "search" "page ${got:-none}%, folded $want%, highlighted $hl; $(grep -c data-ready "$TMPD/dom") ready"

# Zoom: ?zoom=ID (the id of work_b's frame) stretches it, hides work_a.
id=$(grep -o '<g class="f" id="f[0-9]*"[^>]*><title>work_b$' "$SVG" | sed 's/.*id="f\([0-9]*\)".*/\1/' | head -1)
chrome --dump-dom "file://$SVG?zoom=$id" >"$TMPD/zdom" 2>/dev/null
wb=$(frame work_b "$TMPD/zdom" width)
wa=$(frame work_a "$TMPD/zdom")
[ "${wb%.*}" = 1180 ] && [ "$wa" = hidden ] && ok "zoom: work_b spans the width, work_a hidden" \
	|| not_ok "zoom" "work_b width ${wb:-none}, work_a ${wa:-none} (id $id)"
grep -q 'id="unzoom"[^>]*style=""\|id="unzoom" class="btn" x="10" y="24">' "$TMPD/zdom" \
	&& ok "zoom shows Reset Zoom" || not_ok "Reset Zoom shown" "$(grep -o '<text id="unzoom"[^>]*>' "$TMPD/zdom")"
done_testing
