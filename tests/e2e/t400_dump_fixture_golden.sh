#!/usr/bin/env bash
# pmiprof dump of the frozen fixture trace matches its committed golden output
# byte for byte (--raw: absolute times, numeric flags, chunk numbers), prints
# every header field, honours --header-only, reads standard input with -i -,
# and shows times relative to the recording start without --raw.
. "$(dirname "$0")/../lib.sh"
fx=tests/fixtures/v1-basic.pmiprof
golden=tests/fixtures/v1-basic.dump

"$PMIPROF" dump --raw -i "$fx" >"$TMPD/out" 2>"$TMPD/err"; rc=$?
if [ $rc -eq 0 ] && diff -u "$golden" "$TMPD/out" >"$TMPD/diff" && [ ! -s "$TMPD/err" ]; then
	ok "dump --raw of the fixture equals $golden"
else
	not_ok "dump --raw of the fixture equals $golden" "rc=$rc" "$(head -40 "$TMPD/diff")" \
		"$(cat "$TMPD/err")"
fi

missing=
for f in version flags hostname kernel "cpu vendor" cpu "cpu model name" nr_cpus pmu events \
	trigger sampling clock cmdline recorder note; do
	grep -q "^$f: " "$TMPD/out" || missing="$missing '$f'"
done
[ -z "$missing" ] && ok "every header field is printed" || not_ok "every header field is printed" \
	"missing:$missing"

n=$(grep -c ' sample ' "$TMPD/out")
[ "$n" -eq 60 ] && ok "one line per sample (60)" || not_ok "one line per sample (60)" "got $n"
grep -q ' sample .* instructions=1000000 cycles=1500000 cache-misses=100 branch-misses=0$' \
	"$TMPD/out" && ok "counts are named after their events" \
	|| not_ok "counts are named after their events"
grep -q '^# stats: chunks ok 4 bad 0; records 68 (unknown types skipped 1);.* finished yes$' \
	"$TMPD/out" && ok "stats line counts chunks, records and the skipped unknown type" \
	|| not_ok "stats line counts chunks, records and the skipped unknown type" \
	"$(tail -1 "$TMPD/out")"

grep -q '^# lost records: 1; ring-full 7$' "$TMPD/out" \
	&& ok "losses announced by lost records are summed by reason" \
	|| not_ok "losses announced by lost records are summed by reason" "$(tail -1 "$TMPD/out")"

"$PMIPROF" dump --header-only -i "$fx" >"$TMPD/hdr"; rc=$?
[ $rc -eq 0 ] && ! grep -q ' sample \|^# stats\|^# lost' "$TMPD/hdr" && grep -q '^events: *4$' "$TMPD/hdr" \
	&& ok "--header-only prints the header and no records" \
	|| not_ok "--header-only prints the header and no records" "rc=$rc"

"$PMIPROF" dump --raw -i - <"$fx" | tail -n +2 >"$TMPD/stdin"
tail -n +2 "$golden" | cmp -s - "$TMPD/stdin" && ok "-i - reads the trace from standard input" \
	|| not_ok "-i - reads the trace from standard input"

"$PMIPROF" dump -i "$fx" >"$TMPD/rel"
grep -q '^ *0\.000000000 sample .*flags=0x21(user,first)' "$TMPD/rel" \
	&& grep -q '^ *-0\.001000000 comm .*flags=0x1(exec) comm="workload"' "$TMPD/rel" \
	&& ok "default output: seconds since start, named flags" \
	|| not_ok "default output: seconds since start, named flags" "$(sed -n 20,26p "$TMPD/rel")"
done_testing
