#!/usr/bin/env bash
# Trace 1.4 chunk summaries on a real recording: the recorder writes a
# SUMMARY after its sample chunks, and report (which takes them instead of
# decoding, where every filter can be answered from them) prints exactly
# what --no-summaries (decode every sample) prints, unfiltered and with each
# filter; a damaged summary is warned about and its chunk decoded, with the
# same profile.  The recording is concatenated 3 times (chunks decode on
# their own) so the parallel pass, which takes summaries, runs.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/threads2" ] || skip_all "workload threads2 not built"
"$PMIPROF" record -q -F 10000 -o "$TMPD/one.data" -- "$WORKLOADS/threads2" 6 >/dev/null 2>"$TMPD/err" \
	&& ok "pmiprof record" || not_ok "pmiprof record" "$(cat "$TMPD/err")"
hs=$(od -An -tu4 -j12 -N4 "$TMPD/one.data" | tr -d ' ')
{ cat "$TMPD/one.data"; tail -c +$((32 + hs + 1)) "$TMPD/one.data"; tail -c +$((32 + hs + 1)) "$TMPD/one.data"; } >"$TMPD/t.data"

# chunk types in file order, and the offset of the 2nd SUMMARY
chunks() { python3 - "$1" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
off = 32 + struct.unpack_from('<I', b, 12)[0]
while off + 32 <= len(b):
    magic, typ, flags, seq, nr, us, cs = struct.unpack_from('<IHHIIII', b, off)
    print(typ, off, cs)
    off += 32 + cs
PY
}
chunks "$TMPD/t.data" >"$TMPD/chunks"
nsum=$(awk '$1 == 2' "$TMPD/chunks" | wc -l)
nrec=$(awk '$1 == 1' "$TMPD/chunks" | wc -l)
# A chunk holding a side-band record (mmap, comm, fork, exit, lost ...) gets
# no summary: a recording losing samples in every chunk has none to test.
if [ "$nsum" -eq 0 ] && "$PMIPROF" dump --raw -i "$TMPD/one.data" | grep -q ' lost '; then
	skip "recorder writes SUMMARY chunks" "none: every chunk holds side-band records (samples were lost: loaded machine?)"
	done_testing
	exit 0
fi
[ "$nsum" -ge 3 ] && ok "recorder wrote $nsum SUMMARY chunks for $nrec RECORDS chunks" \
	|| not_ok "recorder writes SUMMARY chunks" "$(cat "$TMPD/chunks")"
awk 'prev == 2 && $1 == 2 { bad = 1 } { prev = $1 } END { exit bad }' "$TMPD/chunks" \
	&& ok "each SUMMARY follows a RECORDS chunk" || not_ok "each SUMMARY follows a RECORDS chunk" "$(cat "$TMPD/chunks")"

samples=$("$PMIPROF" dump --raw -i "$TMPD/t.data" | grep -c ' sample ')
pid=$("$PMIPROF" dump -i "$TMPD/one.data" | awk '/ sample /{ sub("pid=", "", $4); print $4; exit }')
tid=$("$PMIPROF" dump -i "$TMPD/one.data" | awk -v p="tid=$pid" '/ sample / && $5 != p { sub("tid=", "", $5); print $5; exit }')
dur=$("$PMIPROF" report -i "$TMPD/one.data" --format json | python3 -c 'import json,sys; m=json.load(sys.stdin)["meta"]; print(m.get("duration_s", 2))' 2>/dev/null)
mid=$(awk -v d="${dur:-2}" 'BEGIN { printf "%.3f", d / 2 }')
same() { # description, report args...
	local what=$1; shift
	"$PMIPROF" report -i "$TMPD/t.data" "$@" >"$TMPD/s.out" 2>"$TMPD/s.err"
	"$PMIPROF" report -i "$TMPD/t.data" --no-summaries "$@" >"$TMPD/n.out" 2>"$TMPD/n.err"
	if [ -s "$TMPD/s.out" ] && cmp -s "$TMPD/s.out" "$TMPD/n.out" && cmp -s "$TMPD/s.err" "$TMPD/n.err"; then
		ok "$what: same as decoding every sample ($(grep -c . "$TMPD/s.out") lines)"
	else
		not_ok "$what: same as decoding every sample" "$(diff "$TMPD/s.out" "$TMPD/n.out" | head -5; diff "$TMPD/s.err" "$TMPD/n.err" | head -3)"
	fi
}
same "unfiltered"
same "--format csv" --format csv
same "--by dso" --by dso
same "--pid $pid" --pid "$pid"
same "--tid $tid" --tid "$tid"
same "--comm threads2" --comm threads2
same "--dso threads2" --dso threads2
same "--symbol busy_one" --symbol busy_one
same "--time 0,$mid (chunks inside, outside and across the bound)" --time "0,$mid"
same "--time $mid, " --time "$mid,"
same "--time --comm --format json" --time "0.2,$mid" --comm threads2 --format json
grep -q " $samples samples (windows)" <("$PMIPROF" report -i "$TMPD/t.data") \
	&& ok "sample count is the trace's ($samples)" || not_ok "sample count is the trace's ($samples)" "$("$PMIPROF" report -i "$TMPD/t.data" | grep windows)"

# a damaged summary (payload byte flipped): warned about, chunk decoded, same profile
soff=$(awk '$1 == 2 && ++n == 2 { print $2 }' "$TMPD/chunks")
cp "$TMPD/t.data" "$TMPD/bad.data"
printf '\xff' | dd of="$TMPD/bad.data" bs=1 seek=$((soff + 32 + 6)) conv=notrunc 2>/dev/null
"$PMIPROF" report -i "$TMPD/bad.data" >"$TMPD/b.out" 2>"$TMPD/b.err"
"$PMIPROF" report -i "$TMPD/t.data" --no-summaries >"$TMPD/n.out" 2>/dev/null
grep -q 'summary is damaged; those chunks were decoded' "$TMPD/b.err" \
	&& ok "damaged summary is warned about" || not_ok "damaged summary is warned about" "$(cat "$TMPD/b.err")"
sed 's/bad\.data/t.data/' "$TMPD/b.out" | cmp -s - "$TMPD/n.out" \
	&& ok "profile with a damaged summary equals the decoded one" \
	|| not_ok "profile with a damaged summary equals the decoded one" "$(sed 's/bad\.data/t.data/' "$TMPD/b.out" | diff - "$TMPD/n.out" | head -5)"
done_testing
