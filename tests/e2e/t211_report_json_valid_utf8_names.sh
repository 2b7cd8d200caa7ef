#!/usr/bin/env bash
# Names from the traced system may hold any byte: a program whose file name
# (so its comm and DSO path) holds byte 0xff and a control character gives
# JSON that parses, with U+FFFD for the byte that is not UTF-8.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open of software events not permitted here"
command -v python3 >/dev/null || skip_all "python3 is needed to parse the JSON"
bad="$TMPD/sh$(printf '\377\001')ares"
cp "$WORKLOADS/shares" "$bad" || skip_all "cannot create a file name with byte 0xff here"
"$PMIPROF" record -q -o "$TMPD/u.data" -- "$bad" 0.3 >/dev/null 2>"$TMPD/rerr" \
	|| { not_ok "record the workload with a 0xff name" "$(cat "$TMPD/rerr")"; done_testing; }
# Parses stdin as JSON (strict: bytes that are not UTF-8 fail) and looks for
# "sh" U+FFFD U+0001 "ares" in its string values.
parse='
import json, sys
def strings(v):
    if isinstance(v, str): yield v
    elif isinstance(v, dict):
        for k, x in v.items(): yield k; yield from strings(x)
    elif isinstance(v, list):
        for x in v: yield from strings(x)
d = json.loads(sys.stdin.buffer.read().decode("utf-8", "strict"))
sys.exit(0 if any("sh\ufffd\x01ares" in s for s in strings(d)) else 1)'
for args in "--by comm" "--by dso" "--by symbol" "--windows --limit 50"; do
	"$PMIPROF" report -i "$TMPD/u.data" $args --format json 2>/dev/null >"$TMPD/j"
	python3 -c "$parse" <"$TMPD/j" 2>"$TMPD/perr" \
		&& ok "report $args --format json parses, 0xff shown as U+FFFD" \
		|| not_ok "report $args --format json parses, 0xff shown as U+FFFD" "$(cat "$TMPD/perr")" "$(head -c 600 "$TMPD/j" | od -c | head -20)"
done
done_testing
