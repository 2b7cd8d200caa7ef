#!/usr/bin/env bash
# report -i DIR reads a daemon's directory of segments as one trace: the
# same samples as its segments read one by one (all, and per --comm), in
# time order; --since/--until cut it by wall-clock time (RFC 3339 and
# relative to now); bad times are usage errors; an empty directory, or a
# range without segments, is a clear error; dump reads DIR too.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "system-wide recording needs root or CAP_PERFMON"
# a daemon left running by a failed check must not outlive the test
dp=
trap '[ -n "$dp" ] && kill -9 $dp 2>/dev/null; rm -rf "$TMPD"' EXIT

samples() { grep -o '[0-9]* samples (windows), [0-9]* shown' "$1" | awk '{print $4}'; }

mkdir -p "$TMPD/empty"
"$PMIPROF" report -i "$TMPD/empty" >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -ne 0 ] && grep -q 'no trace segments' "$TMPD/err" && ok "empty directory: clear error" || not_ok "empty directory" "rc $rc: $(cat "$TMPD/err")"

D=$TMPD/segs
"$PMIPROF" daemon --dir "$D" --segment 1 --no-listen -F 1000 2>"$TMPD/log" &
dp=$!
# recording starts when the daemon says so (seconds on a loaded machine, not a fixed 0.3 s)
for _ in $(seq 1 300); do grep -q 'recording every CPU' "$TMPD/log" && break; sleep 0.1; done
sleep 0.2
"$WORKLOADS/shares" 3.2 >/dev/null
sleep 0.3
kill -TERM $dp; wait $dp || { not_ok "daemon ran" "$(cat "$TMPD/log")"; done_testing; }

"$PMIPROF" report -i "$D" >"$TMPD/all" 2>"$TMPD/allerr"; rc=$?
[ $rc -eq 0 ] && ok "report -i DIR" || not_ok "report -i DIR" "rc $rc: $(cat "$TMPD/allerr")"
sum=0; sumc=0
for f in "$D"/seg-*.pmiprof; do
	"$PMIPROF" report -q -i "$f" >"$TMPD/one" 2>/dev/null
	sum=$((sum + $(samples "$TMPD/one")))
	"$PMIPROF" report -q -i "$f" --comm shares >"$TMPD/one" 2>/dev/null
	sumc=$((sumc + $(samples "$TMPD/one")))
done
all=$(samples "$TMPD/all")
[ "$all" -eq "$sum" ] && ok "DIR holds every segment's samples ($all)" || not_ok "DIR = sum of segments" "$all vs $sum"
"$PMIPROF" report -q -i "$D" --comm shares >"$TMPD/c" 2>/dev/null
c=$(samples "$TMPD/c")
# shares runs 3.2 s of wall time; at load 4 on 2 CPUs it gets a fraction of it: a few hundred
# samples at -F 1000 are plenty for the equality, which is what is checked
[ "$c" -eq "$sumc" ] && [ "$c" -gt 100 ] && ok "DIR --comm shares = sum over segments ($c)" || not_ok "DIR --comm" "$c vs $sumc"
grep -q 'work_a' "$TMPD/c" && ok "DIR symbolizes the workload" || not_ok "DIR symbolizes" "$(head -20 "$TMPD/c")"
"$PMIPROF" dump -r -i "$D" >"$TMPD/dump" 2>&1 && ok "dump -i DIR" || not_ok "dump -i DIR" "$(tail -3 "$TMPD/dump")"
# chunks renumbered: sequence numbers strictly increase over the whole directory
awk '$1 ~ /^[0-9]+$/ && NF > 2 {print $1}' "$TMPD/dump" | uniq >"$TMPD/seqs"
nseq=$(wc -l <"$TMPD/seqs")
sort -n -c "$TMPD/seqs" 2>/dev/null && [ "$nseq" -ge "$(ls "$D" | wc -l)" ] && [ "$(sort -u "$TMPD/seqs" | wc -l)" -eq "$nseq" ] \
	&& ok "chunk numbers increase across segments ($nseq chunks)" || not_ok "chunk numbers increase across segments" "$(tr '\n' ' ' <"$TMPD/seqs")"
nf=$(grep -c ' finish ' "$TMPD/dump")
ns=$(ls "$D"/seg-*.pmiprof | wc -l)
[ "$nf" -eq "$ns" ] && ok "one FINISH per segment ($nf)" || not_ok "one FINISH per segment" "$nf vs $ns"

# --since/--until: from the 2nd segment's start to the 4th's = the 2nd and 3rd segments
t2=$(ls "$D" | sed -n 2p | sed 's/seg-\(....\)\(..\)\(..\)T\(..\)\(..\)\(..\)\.\([0-9]*\)Z.*/\1-\2-\3T\4:\5:\6.\7Z/')
t4=$(ls "$D" | sed -n 4p | sed 's/seg-\(....\)\(..\)\(..\)T\(..\)\(..\)\(..\)\.\([0-9]*\)Z.*/\1-\2-\3T\4:\5:\6.\7Z/')
"$PMIPROF" report -q -i "$D" --since "$t2" --until "$t4" >"$TMPD/r" 2>"$TMPD/rerr"; rc=$?
r=$(samples "$TMPD/r")
e=0
for k in 2 3; do
	"$PMIPROF" report -q -i "$D/$(ls "$D" | sed -n ${k}p)" >"$TMPD/one" 2>/dev/null
	e=$((e + $(samples "$TMPD/one")))
done
# samples of a few ms at each end may sit in the neighbouring segment's file
d=$((r > e ? r - e : e - r))
[ $rc -eq 0 ] && [ "$d" -le $((e / 50 + 20)) ] && ok "--since $t2 --until $t4: $r samples, segments 2-3 hold $e" \
	|| not_ok "--since/--until RFC 3339" "rc $rc, $r vs $e: $(cat "$TMPD/rerr")"
"$PMIPROF" report -q -i "$D" --since=-10m >"$TMPD/rel" 2>&1
[ "$(samples "$TMPD/rel")" -eq "$all" ] && ok "--since -10m covers the whole run" || not_ok "--since -10m" "$(samples "$TMPD/rel") vs $all"
"$PMIPROF" report -q -i "$D" --until 2001-01-01T00:00:00Z >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -ne 0 ] && grep -q 'no trace segments in the --since/--until range' "$TMPD/err" && ok "a range before the first segment: clear error" \
	|| not_ok "range before the first segment" "rc $rc: $(cat "$TMPD/err")"
# the same bounds on one trace file work as wall-clock time filters
f1=$(ls "$D"/seg-*.pmiprof | sed -n 2p)
"$PMIPROF" report -q -i "$f1" --since "$t4" >"$TMPD/f1" 2>&1
[ "$(samples "$TMPD/f1")" -le 20 ] && ok "--since after a file's end keeps (almost) nothing of it" || not_ok "--since on a file" "$(samples "$TMPD/f1")"
for bad in "yesterday" "2026-11-28" "2026-11-28T10:00:00" "-10x" "--5m"; do
	"$PMIPROF" report -q -i "$D" --since="$bad" >/dev/null 2>"$TMPD/err"; rc=$?
	[ $rc -eq 2 ] && grep -q 'RFC 3339' "$TMPD/err" && ok "bad --since '$bad': usage error" || not_ok "bad --since '$bad'" "rc $rc: $(cat "$TMPD/err")"
done
"$PMIPROF" report -q -i "$D" --since 2026-11-28T10:00:00+01:00 --until now >/dev/null 2>&1 && ok "RFC 3339 with an offset, and 'now'" || not_ok "RFC 3339 with offset"
done_testing
