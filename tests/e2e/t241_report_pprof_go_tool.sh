#!/usr/bin/env bash
# report --format pprof: a gzip'd profile.proto that go tool pprof reads:
# -top's flat and cum equal pmiprof's self and children samples per
# function, -traces has one sample per window, -raw the sample types (every
# event) and the window labels, and pprof's own encoder round-trips it.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/shares" ] || skip_all "workload shares not built"
command -v go >/dev/null && go version >/dev/null 2>&1 || skip_all "go not installed (golang-go)"
"$PMIPROF" record -q -g -o "$TMPD/g.data" -- "$WORKLOADS/shares" 0.5 >/dev/null 2>"$TMPD/err" \
	|| { not_ok "record -g" "$(cat "$TMPD/err")"; done_testing; }

"$PMIPROF" report -q -i "$TMPD/g.data" --format pprof -o "$TMPD/p.pb.gz" 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && [ "$(head -c 2 "$TMPD/p.pb.gz" | od -An -tx1 | tr -d ' \n')" = 1f8b ] \
	&& ok "pprof exits 0 and writes gzip" || not_ok "pprof exits 0 (rc $rc)" "$(cat "$TMPD/err")"
go tool pprof -top -nodecount=100000 -sample_index=samples "$TMPD/p.pb.gz" >"$TMPD/top" 2>"$TMPD/err" \
	&& ok "go tool pprof -top reads it" || not_ok "go tool pprof -top" "$(cat "$TMPD/err")"
grep -q '^File: shares' "$TMPD/top" && ok "the program's mapping is pprof's main binary" \
	|| not_ok "main binary" "$(head -3 "$TMPD/top")"

# pmiprof's own figures: self samples and children samples per user-space function.
"$PMIPROF" report -q -i "$TMPD/g.data" --children --format csv >"$TMPD/ch.csv" 2>"$TMPD/err"
col() { head -1 "$TMPD/ch.csv" | tr ',' '\n' | grep -n -x "$1" | cut -d: -f1; }
cs=$(col children_samples)
# pprof's -top merges functions of one name (ld.so's and the program's _start): so do we.
awk -F, -v cs="$cs" 'NR > 1 && $4 !~ /^\[/ && $3 !~ /^\[/ { s[$3] += $1; c[$3] += $cs }
     END { for (k in s) print k, s[k], c[k] }' "$TMPD/ch.csv" | sort >"$TMPD/mine"
total=$(sed -n 's/.*of \([0-9]*\) total.*/\1/p' "$TMPD/top")
# -top rows: flat flat% sum% cum cum% name
awk 'f && NF >= 6 { name = $6; for (i = 7; i <= NF; i++) name = name " " $i; print name, $1, $4 }
     /flat%/ { f = 1 }' "$TMPD/top" | sort >"$TMPD/theirs"
join "$TMPD/mine" "$TMPD/theirs" >"$TMPD/joined"
n=$(wc -l <"$TMPD/joined")
diffs=$(awk '$2 != $4 || $3 != $5' "$TMPD/joined" | head -5)
[ "$n" -ge 4 ] && [ -z "$diffs" ] && ok "flat and cum equal pmiprof's self and children samples ($n functions)" \
	|| not_ok "flat/cum vs report --children" "n=$n; name self children flat cum: $diffs"
grep -q '^main ' "$TMPD/joined" && ok "main is among them" || not_ok "main compared" "$(cat "$TMPD/joined")"
samples=$(awk -F, 'NR > 1 { s += $1 } END { print s }' "$TMPD/ch.csv")
[ "$total" = "$samples" ] && ok "pprof's total is the samples ($total)" || not_ok "total" "pprof $total, pmiprof $samples"

go tool pprof -traces -sample_index=samples "$TMPD/p.pb.gz" >"$TMPD/traces" 2>"$TMPD/err"
nt=$(grep -c '^-----------+' "$TMPD/traces")
nw=$(grep -c 'window:' "$TMPD/traces")
[ $((nt - 1)) -eq "$samples" ] && [ "$nw" -eq "$samples" ] \
	&& ok "-traces: one sample per window, each with its window label" \
	|| not_ok "-traces" "separators $nt, labels $nw, samples $samples"
go tool pprof -raw "$TMPD/p.pb.gz" >"$TMPD/raw" 2>"$TMPD/err"
grep -q 'samples/count[^ ]* cpu-clock/nanoseconds task-clock/nanoseconds page-faults/count' "$TMPD/raw" \
	&& grep -q '^PeriodType: cpu-clock nanoseconds' "$TMPD/raw" && grep -q '^Period: 100000$' "$TMPD/raw" \
	&& grep -q 'window:\[0 index\]' "$TMPD/raw" \
	&& ok "-raw: sample types, period type, window labels" || not_ok "-raw" "$(head -12 "$TMPD/raw")"
grep -A20 '^Mappings' "$TMPD/raw" | grep 'workloads/shares' | grep -q ' [0-9a-f]\{40\} ' \
	&& ok "mappings carry file names and build-ids" || not_ok "mapping build-id" "$(grep -A5 '^Mappings' "$TMPD/raw")"

go tool pprof -proto -output "$TMPD/rt.pb.gz" "$TMPD/p.pb.gz" >/dev/null 2>"$TMPD/err" \
	&& go tool pprof -top -sample_index=samples "$TMPD/rt.pb.gz" 2>/dev/null | grep -q "of $total total" \
	&& ok "round trip through pprof's own encoder keeps the total" || not_ok "-proto round trip" "$(cat "$TMPD/err")"

bytes=$(stat -c %s "$TMPD/p.pb.gz"); tbytes=$(stat -c %s "$TMPD/g.data")
echo "# pprof: $bytes bytes for $samples windows ($((bytes / samples)) B/window; trace $tbytes bytes)"
# one Sample per window must stay cheap: a few bytes each after gzip (the
# trace itself packs a window into ~6-8 bytes, so it is no yardstick)
[ "$bytes" -le $((16 * samples + 16384)) ] && ok "pprof file stays small: $((bytes / samples)) B/window" \
	|| not_ok "pprof size" "$bytes bytes for $samples windows"

"$PMIPROF" report -q -i "$TMPD/g.data" --format pprof --value task-clock -o "$TMPD/v.pb.gz" 2>/dev/null
go tool pprof -top "$TMPD/v.pb.gz" 2>/dev/null | grep -q '^Type: task-clock' \
	&& ok "--value EVENT: pprof's default sample type" || not_ok "--value default type"
"$PMIPROF" report -i "$TMPD/g.data" --format pprof >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- '-o FILE' "$TMPD/err" && ok "pprof without -o: exit 2" || not_ok "pprof without -o (rc $rc)"
"$PMIPROF" report -i "$TMPD/g.data" --format pprof -o /nonexistent/x.pb.gz >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'nonexistent/x.pb.gz: No such file' "$TMPD/err" && ok "unwritable output: exit 1 naming it" \
	|| not_ok "unwritable output (rc $rc)" "$(cat "$TMPD/err")"
done_testing
