#!/usr/bin/env bash
# pmiprof dump on damaged traces keeps going and shows the loss (CRC error
# naming chunk and offset, a cut file, garbage between chunks), and on files
# that are not readable traces prints one clear message and exits 1.
. "$(dirname "$0")/../lib.sh"
fx=tests/fixtures/v1-basic.pmiprof
hsize=$(od -An -tu4 -j12 -N4 "$fx" | tr -d ' ')
c0=$((32 + hsize))                              # chunk 0 offset
cs0=$(od -An -tu4 -j$((c0 + 20)) -N4 "$fx" | tr -d ' ')
c1=$((c0 + 32 + cs0))                           # chunk 1 offset
nr1=$(od -An -tu4 -j$((c1 + 12)) -N4 "$fx" | tr -d ' ')

# flip one payload byte of chunk 1
cp "$fx" "$TMPD/flip.pmiprof"
printf '\x55' | dd of="$TMPD/flip.pmiprof" bs=1 seek=$((c1 + 40)) conv=notrunc status=none
"$PMIPROF" dump --raw -i "$TMPD/flip.pmiprof" >"$TMPD/out" 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && grep -q "flip.pmiprof: offset $c1: chunk 1: payload CRC mismatch (stored [0-9a-f]*, computed [0-9a-f]*); $nr1 records lost" "$TMPD/err" \
	&& ok "flipped byte: CRC error names chunk 1 and its offset $c1" \
	|| not_ok "flipped byte: CRC error names chunk 1 and its offset $c1" "rc=$rc" "$(cat "$TMPD/err")"
grep -q "lost .*cpu=none reason=4(unreadable) count=$nr1$" "$TMPD/out" \
	&& grep -q '^# stats: chunks ok 3 bad 1;.*records lost in bad chunks '"$nr1"';.*finished yes$' "$TMPD/out" \
	&& ok "flipped byte: the loss is a lost record and in the stats; later chunks still read" \
	|| not_ok "flipped byte: the loss is a lost record and in the stats; later chunks still read" \
	"$(grep -E 'lost|stats' "$TMPD/out")"

# (chunk 1 also held the recorder's ring-full LOST record: it is gone with it)
grep -q "^# lost records: 1; unreadable $nr1\$" "$TMPD/out" \
	&& ok "flipped byte: the loss summary counts the unreadable chunk's records" \
	|| not_ok "flipped byte: the loss summary counts the unreadable chunk's records" \
	"$(tail -1 "$TMPD/out")"

# cut in the middle of chunk 1
head -c $((c1 + 40)) "$fx" >"$TMPD/cut.pmiprof"
"$PMIPROF" dump --raw -i "$TMPD/cut.pmiprof" >"$TMPD/out" 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && grep -q "offset $c1: chunk 1: file ends inside the chunk (8 of [0-9]* payload bytes): the trace was cut short; $nr1 records lost" "$TMPD/err" \
	&& grep -q 'truncated yes; finished no$' "$TMPD/out" \
	&& ok "cut file: read up to the last complete chunk, cut reported" \
	|| not_ok "cut file: read up to the last complete chunk, cut reported" "rc=$rc" \
	"$(cat "$TMPD/err")" "$(tail -1 "$TMPD/out")"

# garbage inserted between chunk 0 and chunk 1
{ head -c "$c1" "$fx"; printf 'garbage-garbage-CHNK-garbage'; tail -c +$((c1 + 1)) "$fx"; } \
	>"$TMPD/junk.pmiprof"
"$PMIPROF" dump --raw -i "$TMPD/junk.pmiprof" >"$TMPD/out" 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && grep -q "offset $c1: damaged chunk header (bad magic); skipped 28 bytes to the next chunk at offset $((c1 + 28))" "$TMPD/err" \
	&& grep -q '^# stats: chunks ok 4 bad 1; records 68 ' "$TMPD/out" \
	&& ok "garbage between chunks: skipped by resync, no record lost" \
	|| not_ok "garbage between chunks: skipped by resync, no record lost" "rc=$rc" \
	"$(cat "$TMPD/err")" "$(tail -1 "$TMPD/out")"

# not a trace at all: one message, exit 1
expect_fail() {
	local name=$1 file=$2 msg=$3 rc lines
	"$PMIPROF" dump -i "$file" >"$TMPD/out" 2>"$TMPD/err"; rc=$?
	lines=$(wc -l <"$TMPD/err")
	if [ $rc -eq 1 ] && [ "$lines" -eq 1 ] && grep -qF -- "$msg" "$TMPD/err" && [ ! -s "$TMPD/out" ]; then
		ok "$name: exit 1, one message"
	else
		not_ok "$name: exit 1, one message" "rc=$rc" "$(cat "$TMPD/err")"
	fi
}
expect_fail "missing file" "$TMPD/nope.data" "pmiprof: error: $TMPD/nope.data: cannot read: No such file or directory"
# a directory is read as a daemon's segments (docs/daemon.md): without any, one clear message
expect_fail "directory" "$TMPD" "no trace segments"
expect_fail "bad magic" tests/fixtures/bad-magic.pmiprof 'offset 0: not a pmiprof trace (magic "GARBAGE!", expected "PMIPROF1")'
expect_fail "big-endian" tests/fixtures/big-endian.pmiprof "big-endian pmiprof trace: unsupported"
expect_fail "version 99" tests/fixtures/version-99.pmiprof "offset 8: unsupported trace version 99.0 (this pmiprof reads version 1.x)"
expect_fail "truncated header" tests/fixtures/truncated-header.pmiprof "file ends inside the header section"
expect_fail "empty file" tests/fixtures/empty.pmiprof "offset 0: empty file, not a pmiprof trace"
# perf's own files are read (docs/perf-data.md); a cut one says where it ends
if command -v perf >/dev/null && perf record --buildid-mmap -N -q -o "$TMPD/perf.data" -e cpu-clock true >/dev/null 2>&1; then
	"$PMIPROF" dump -i "$TMPD/perf.data" >"$TMPD/out" 2>"$TMPD/err" && grep -q " comm " "$TMPD/out" \
		&& ok "perf.data: dumped" || not_ok "perf.data: dumped" "$(cat "$TMPD/err")"
	head -c 60 "$TMPD/perf.data" >"$TMPD/cut.data"
	expect_fail "perf.data cut inside its header" "$TMPD/cut.data" "offset 60: file ends inside the perf.data header (60 of 104 bytes)"
else
	skip "perf.data: dumped" "perf record not usable here"
	skip "perf.data cut inside its header: exit 1, one message" "perf record not usable here"
fi
(cd "$TMPD" && "$PMIPROF" dump >/dev/null 2>"$TMPD/err"); rc=$?
[ $rc -eq 1 ] && grep -q "pmiprof.data: cannot read" "$TMPD/err" \
	&& ok "default input is pmiprof.data" || not_ok "default input is pmiprof.data" "$(cat "$TMPD/err")"
"$PMIPROF" dump -i >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 2 ] && grep -q "option '-i' needs an argument" "$TMPD/err" \
	&& ok "-i without a file: usage error, exit 2" || not_ok "-i without a file: usage error, exit 2" "rc=$rc"
"$PMIPROF" dump extra-arg >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "stray argument: exit 2" || not_ok "stray argument: exit 2" "rc=$rc"
done_testing
