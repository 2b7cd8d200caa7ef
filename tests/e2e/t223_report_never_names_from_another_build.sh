#!/usr/bin/env bash
# A name is printed only when it is known (issue 21).  libc's samples
# reported with --symfs EMPTYDIR (libc not there, its debug file found by
# build-id under /usr/lib/debug) get the very names the plain report gives:
# the debug file's program headers do not give the file offsets, the
# recorded mapping does.  A --symfs whose file at the recorded path is
# another program (another build-id), or the recorded file replaced by
# another, gives [unknown] 0xOFFSET rows, never that program's names, and
# one warning line for the reason, however many files have it.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/shares" ] && [ -x "$WORKLOADS/threads2" ] || skip_all "workloads not built"
libc=$(ldd "$WORKLOADS/shares" | awk '/libc\.so/ { print $3 }')
bid=$(readelf -n "$libc" 2>/dev/null | awk '/Build ID/ { print $3 }')
[ -n "$bid" ] && [ -f "/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" ] || skip_all "libc's debug file is not installed (libc6-dbg)"

# Part 1: libc through its debug file alone, placed by the recorded mapping.
"$PMIPROF" record -q --no-buildid-cache -o "$TMPD/sort.data" -- bash -c 'seq 1 150000 | sed "s/^/line /" | sort -R >/dev/null' \
	2>"$TMPD/err" || { not_ok "record sort" "$(cat "$TMPD/err")"; done_testing; }
mkdir -p "$TMPD/empty"
libc_rows() { awk -F, 'NR > 1 && $4 == "libc.so.6" { print $3 "," $1 }' "$1" | sort; }
"$PMIPROF" report -i "$TMPD/sort.data" --format csv >"$TMPD/plain.csv" 2>/dev/null
"$PMIPROF" report -i "$TMPD/sort.data" --format csv --symfs "$TMPD/empty" >"$TMPD/symfs.csv" 2>"$TMPD/symfs.err"
n=$(libc_rows "$TMPD/plain.csv" | grep -vc '^\[unknown\]')
[ "$n" -ge 3 ] && ok "plain report: $n named libc rows" || not_ok "plain report: named libc rows ($n)" "$(head "$TMPD/plain.csv")"
if [ "$(libc_rows "$TMPD/plain.csv")" = "$(libc_rows "$TMPD/symfs.csv")" ]; then
	ok "--symfs EMPTYDIR: libc's rows (names, samples) are the plain report's"
else
	not_ok "--symfs EMPTYDIR: libc's rows (names, samples) are the plain report's" \
		"$(diff <(libc_rows "$TMPD/plain.csv") <(libc_rows "$TMPD/symfs.csv") | head -20)"
fi
grep -q 'libc' "$TMPD/symfs.err" && not_ok "no warning about libc" "$(cat "$TMPD/symfs.err")" || ok "no warning about libc"
# sort, sed, seq, bash are not in the empty symfs: one line for the reason, with a count.
n=$(grep -c 'no file of the recorded build' "$TMPD/symfs.err")
[ "$n" -eq 1 ] && grep -q '[0-9] files (.*sort' "$TMPD/symfs.err" && ok "the missing files: one warning line with a count" ||
	not_ok "the missing files: one warning line with a count ($n)" "$(cat "$TMPD/symfs.err")"
awk -F, 'NR > 1 && $4 == "sort" { print $3 }' "$TMPD/symfs.csv" | grep -qv '^\[unknown\] 0x[0-9a-f]*$' &&
	not_ok "the missing sort: [unknown] 0xOFFSET rows only" "$(grep ',sort,' "$TMPD/symfs.csv" | head)" ||
	ok "the missing sort: [unknown] 0xOFFSET rows only"

# Part 2: our workload, with another program where it was.
mkdir -p "$TMPD/bin"
cp "$WORKLOADS/shares" "$TMPD/bin/shares"
"$PMIPROF" record -q --no-buildid-cache -o "$TMPD/t.data" -- "$TMPD/bin/shares" 0.4 >/dev/null 2>"$TMPD/err" ||
	{ not_ok "record shares" "$(cat "$TMPD/err")"; done_testing; }
mkdir -p "$TMPD/root$TMPD/bin"
cp "$WORKLOADS/threads2" "$TMPD/root$TMPD/bin/shares"
theirs=$(nm --defined-only "$WORKLOADS/threads2" | awk '$2 ~ /[tTwW]/ { print $3 }' | sort -u)
shares_rows() { awk -F, 'NR > 1 && $4 == "shares" { print $3 }' "$1"; }
check_other() {	# $1 name, $2 csv, $3 err
	local bad
	bad=$(shares_rows "$2" | grep -v '^\[unknown\] 0x[0-9a-f]*$')
	[ -z "$bad" ] && [ -n "$(shares_rows "$2")" ] && ok "$1: [unknown] 0xOFFSET rows only" ||
		not_ok "$1: [unknown] 0xOFFSET rows only" "$bad" "$(head -5 "$2")"
	bad=$(shares_rows "$2" | grep -Fxf <(echo "$theirs"))
	[ -z "$bad" ] && ok "$1: no name of the other program" || not_ok "$1: no name of the other program" "$bad"
	[ "$(grep -c 'another build-id' "$3")" -eq 1 ] && ok "$1: one warning names the other build-id" ||
		not_ok "$1: one warning names the other build-id" "$(cat "$3")"
}
"$PMIPROF" report -i "$TMPD/t.data" --format csv --symfs "$TMPD/root" >"$TMPD/o.csv" 2>"$TMPD/o.err"
check_other "--symfs with another program at the path" "$TMPD/o.csv" "$TMPD/o.err"
cp "$WORKLOADS/threads2" "$TMPD/bin/shares"
"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/r.csv" 2>"$TMPD/r.err"
check_other "the recorded file replaced by another program" "$TMPD/r.csv" "$TMPD/r.err"
# The recorded file back: named again (the check is of the build, not of the path).
cp "$WORKLOADS/shares" "$TMPD/bin/shares"
"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/b.csv" 2>/dev/null
shares_rows "$TMPD/b.csv" | grep -qx work_a && ok "the recorded build back: work_a named" ||
	not_ok "the recorded build back: work_a named" "$(head -5 "$TMPD/b.csv")"
done_testing
