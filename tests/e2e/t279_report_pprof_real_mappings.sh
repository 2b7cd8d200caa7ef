#!/usr/bin/env bash
# report --format pprof writes the recorded mmaps as Mappings: memory_start,
# memory_limit and file_offset of the MMAP record (not the span of the
# sampled addresses with offset 0), one Mapping per load address when two
# processes map the same binary at different places (ASLR), and every
# Location's address inside its Mapping, so that tools that map addresses
# back to the file (Parca, Pyroscope, pprof -disasm) get the right offsets.
# The profile is decoded here as written (go tool pprof merges mappings of
# the same file and size on reading) and shown by go tool pprof -raw.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/shares" ] || skip_all "workload shares not built"
command -v python3 >/dev/null || skip_all "python3 not installed"
w=$WORKLOADS/shares
"$PMIPROF" record -q -g -o "$TMPD/t.data" -- sh -c "'$w' 0.3; '$w' 0.3" >/dev/null 2>"$TMPD/err" ||
	{ not_ok "record -g" "$(cat "$TMPD/err")"; done_testing; }
"$PMIPROF" report -q -i "$TMPD/t.data" --format pprof -o "$TMPD/p.pb.gz" 2>"$TMPD/err" ||
	{ not_ok "report --format pprof" "$(cat "$TMPD/err")"; done_testing; }

# the recorded executable mmaps of shares and libc: "start limit offset path"
"$PMIPROF" dump -i "$TMPD/t.data" | python3 -c '
import re, sys
for line in sys.stdin:
    if " mmap " not in line: continue
    v = dict(re.findall(r"(\w+)=(\S+)", line))
    p = v.get("path", "").strip("\"")
    if p.endswith("/shares") or p.endswith("libc.so.6"):
        s = int(v["start"], 16)
        print("0x%x 0x%x 0x%x %s" % (s, s + int(v["len"], 16), int(v["pgoff"], 16), p))
' | sort -u >"$TMPD/mmaps"

# the profile as written: mappings "start limit offset file" and locations
# "addr start limit file" (of their mapping)
python3 - "$TMPD/p.pb.gz" >"$TMPD/decoded" <<'PY'
import gzip, sys
def fields(b):
    i = 0
    while i < len(b):
        k, i = varint(b, i); f, wt = k >> 3, k & 7
        if wt == 0: v, i = varint(b, i); yield f, v
        elif wt == 2:
            n, i = varint(b, i); yield f, b[i:i + n]; i += n
        else: raise SystemExit("wire type %d" % wt)
def varint(b, i):
    s = v = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v, i
data = gzip.open(sys.argv[1]).read()
strs, maps, locs = [], {}, []
for f, v in fields(data):
    if f == 6: strs.append(v.decode())
for f, v in fields(data):
    if f == 3:
        m = dict(fields(v)); maps[m.get(1, 0)] = (m.get(2, 0), m.get(3, 0), m.get(4, 0), strs[m.get(5, 0)])
    elif f == 4:
        l = dict((k, x) for k, x in fields(v) if k != 4); locs.append((l.get(3, 0), l.get(2, 0)))
for i, (s, e, o, n) in sorted(maps.items()):
    print("map 0x%x 0x%x 0x%x %s" % (s, e, o, n))
for a, m in locs:
    if m in maps:
        s, e, o, n = maps[m]; print("loc 0x%x 0x%x 0x%x %s" % (a, s, e, n))
PY
[ -s "$TMPD/decoded" ] || { not_ok "decode the profile" "$(head -3 "$TMPD/decoded")"; done_testing; }
awk '$1 == "map" && $5 ~ /(\/shares|libc\.so\.6)$/ { print $2, $3, $4, $5 }' "$TMPD/decoded" | sort -u >"$TMPD/pmaps"
nsh=$(grep -c '/shares$' "$TMPD/mmaps")
[ "$nsh" -ge 2 ] && echo "# $nsh recorded mmaps of shares (two processes)"
grep -q '/shares$' "$TMPD/pmaps" && grep -q 'libc.so.6$' "$TMPD/pmaps" &&
	[ -z "$(comm -23 "$TMPD/pmaps" "$TMPD/mmaps")" ] &&
	ok "every shares and libc Mapping is a recorded mmap (start, limit, file offset)" ||
	not_ok "Mappings are the recorded mmaps" "in the profile:" "$(cat "$TMPD/pmaps")" "recorded:" "$(cat "$TMPD/mmaps")"
# every process's shares mmap that has samples is there (ASLR: two load addresses)
[ "$(grep -c '/shares$' "$TMPD/pmaps")" -eq "$nsh" ] && [ "$nsh" -ge 2 ] &&
	ok "one shares Mapping per load address ($nsh)" ||
	not_ok "one shares Mapping per load address" "$(grep /shares "$TMPD/pmaps")" "recorded: $(grep /shares "$TMPD/mmaps")"
grep '/shares$' "$TMPD/pmaps" | awk '$3 == "0x0" { bad = 1 } END { exit bad }' && ok "the text's file offset is written (not 0)" ||
	not_ok "file offsets" "$(cat "$TMPD/pmaps")"
out=$(python3 -c '
import sys
for l in open(sys.argv[1]):
    f = l.split()
    if f[0] == "loc" and not f[4].startswith("[") and not int(f[2], 16) <= int(f[1], 16) < int(f[3], 16):
        print(l.strip())
' "$TMPD/decoded" | head -3)
nloc=$(awk '$1 == "loc" && $5 !~ /^\[/' "$TMPD/decoded" | wc -l)
[ -z "$out" ] && [ "$nloc" -gt 0 ] && ok "all $nloc user Locations lie inside their Mapping" || not_ok "Locations inside their Mapping" "$out"

# go tool pprof -raw shows the recorded mmap of the program (its first mapping)
if command -v go >/dev/null && go version >/dev/null 2>&1; then
	go tool pprof -raw "$TMPD/p.pb.gz" >"$TMPD/raw" 2>"$TMPD/rerr"
	line=$(sed -n '/^Mappings/{n;p}' "$TMPD/raw")
	read -r s e o p <<<"$(grep -m1 '/shares$' "$TMPD/mmaps")"
	want=$(grep '/shares$' "$TMPD/mmaps" | awk '{ printf "1: %s/%s/%s %s \n", $1, $2, $3, $4 }')
	printf '%s\n' "$want" | grep -qF "${line%% [0-9a-f]* \[*}" && [[ $line == 1:\ *"$o $p "* ]] &&
		ok "go tool pprof -raw: the first Mapping is a recorded mmap of shares ($line)" ||
		not_ok "go tool pprof -raw shows the recorded mmap" "$line" "recorded: $want" "$(head -3 "$TMPD/rerr")"
else
	skip "go tool pprof -raw shows the recorded mmap" "go not installed (golang-go)"
fi
done_testing
