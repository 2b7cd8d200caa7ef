#!/usr/bin/env bash
# Reporting where the recorded binary is not at its recorded path (another
# machine): plain report shows its samples as [unknown] with a note naming
# --symfs/--archive; --symfs DIR (DIR + recorded path), 'pmiprof archive'
# read with --archive (gzip and plain tar), the archive extracted into
# ~/.pmiprof/debug, and --buildid-dir all give the functions back, by
# build-id.  A damaged archive or a missing --symfs directory is an error.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/threads2" ] || skip_all "workload threads2 not built"
mkdir -p "$TMPD/bin" "$TMPD/home"
export HOME=$TMPD/home XDG_CACHE_HOME=$TMPD/cache
unset PMIPROF_BUILDID_DIR	# its default, ~/.pmiprof/debug, is under test
cp "$WORKLOADS/threads2" "$TMPD/bin/threads2"
"$PMIPROF" record -q --no-buildid-cache -o "$TMPD/t.data" -- "$TMPD/bin/threads2" 0.5 >/dev/null 2>"$TMPD/err" ||
	{ not_ok "record" "$(cat "$TMPD/err")"; done_testing; }
"$PMIPROF" dump -i "$TMPD/t.data" | grep -q " mmap .*build-id=[0-9a-f]\{40\} path=\"$TMPD/bin/threads2\"" &&
	ok "the MMAP of the workload carries its build-id" || not_ok "the MMAP of the workload carries its build-id"
"$PMIPROF" archive -i "$TMPD/t.data" -o "$TMPD/a.tar.gz" 2>"$TMPD/arch.err"; rc=$?
[ $rc -eq 0 ] && grep -q 'archived [1-9][0-9]* ELF file' "$TMPD/arch.err" && ok "archive writes a tar.gz" ||
	not_ok "archive writes a tar.gz (rc $rc)" "$(cat "$TMPD/arch.err")"
bid=$("$PMIPROF" dump -i "$TMPD/t.data" | sed -n "s|.* mmap .*build-id=\([0-9a-f]*\) path=\"$TMPD/bin/threads2\".*|\1|p" | head -1)
tar tzf "$TMPD/a.tar.gz" | grep -qx ".build-id/${bid:0:2}/${bid:2}" && tar tzf "$TMPD/a.tar.gz" | grep -qx pmiprof-archive.txt &&
	ok "the archive holds the binary by build-id and a manifest" || not_ok "the archive holds the binary by build-id" "$(tar tzf "$TMPD/a.tar.gz")"
"$PMIPROF" archive -i "$TMPD/t.data" -o "$TMPD/a.tar" -q 2>/dev/null && tar tf "$TMPD/a.tar" >/dev/null 2>&1 &&
	ok "-o X.tar writes a plain tar" || not_ok "-o X.tar writes a plain tar"

# The binary leaves its recorded path, as on another machine.
mkdir -p "$TMPD/root$TMPD/bin"
mv "$TMPD/bin/threads2" "$TMPD/root$TMPD/bin/threads2"
# The two functions of threads2 with the most samples (rows come sorted by
# samples), in name order: an odd [unknown] sample in it must not count.
top_fn() { awk -F, 'NR > 1 && $4 == "threads2" { print $3 }' "$1" | head -2 | sort | tr '\n' ' '; }
"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/plain.csv" 2>"$TMPD/plain.err"
awk -F, 'NR > 1 && $4 == "threads2" { print $3 }' "$TMPD/plain.csv" | grep -q . &&
	! awk -F, 'NR > 1 && $4 == "threads2" { print $3 }' "$TMPD/plain.csv" | grep -qv '^\[unknown\] 0x[0-9a-f]*$' &&
	ok "binary gone: its samples are [unknown] 0xOFFSET rows" ||
	not_ok "binary gone: its samples are [unknown] 0xOFFSET rows" "$(head -4 "$TMPD/plain.csv")"
grep -q "threads2: cannot read .*--symfs, --archive" "$TMPD/plain.err" && ok "binary gone: the note names --symfs and --archive" ||
	not_ok "binary gone: the note names --symfs and --archive" "$(cat "$TMPD/plain.err")"
want="busy_one busy_two "
"$PMIPROF" report -i "$TMPD/t.data" --format csv --symfs "$TMPD/root" >"$TMPD/symfs.csv" 2>"$TMPD/err"
[ "$(top_fn "$TMPD/symfs.csv")" = "$want" ] && ok "--symfs DIR finds DIR + the recorded path" ||
	not_ok "--symfs DIR finds DIR + the recorded path" "$(head -4 "$TMPD/symfs.csv")" "$(cat "$TMPD/err")"
mv "$TMPD/root$TMPD/bin/threads2" "$TMPD/gone"
for a in a.tar.gz a.tar; do
	"$PMIPROF" report -i "$TMPD/t.data" --format csv --archive "$TMPD/$a" >"$TMPD/arch.csv" 2>"$TMPD/err"
	[ "$(top_fn "$TMPD/arch.csv")" = "$want" ] && ok "--archive $a finds the binary by build-id" ||
		not_ok "--archive $a finds the binary by build-id" "$(head -4 "$TMPD/arch.csv")" "$(cat "$TMPD/err")"
done
mkdir -p "$TMPD/tmp"
TMPDIR=$TMPD/tmp "$PMIPROF" report -i "$TMPD/t.data" --archive "$TMPD/a.tar" >/dev/null 2>&1
[ -z "$(ls -A "$TMPD/tmp")" ] && ok "--archive leaves no extracted directory behind" ||
	not_ok "--archive leaves no extracted directory behind" "$(ls -la "$TMPD/tmp")"
mkdir -p "$HOME/.pmiprof/debug" "$TMPD/cache-dir"
tar xzf "$TMPD/a.tar.gz" -C "$HOME/.pmiprof/debug"
"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/home.csv" 2>"$TMPD/err"
[ "$(top_fn "$TMPD/home.csv")" = "$want" ] && ok "an archive extracted into ~/.pmiprof/debug is found without options" ||
	not_ok "an archive extracted into ~/.pmiprof/debug is found without options" "$(head -4 "$TMPD/home.csv")" "$(cat "$TMPD/err")"
mv "$HOME/.pmiprof/debug" "$TMPD/cache-dir/d"
"$PMIPROF" report -i "$TMPD/t.data" --format csv --buildid-dir "$TMPD/cache-dir/d" >"$TMPD/bdir.csv" 2>"$TMPD/err"
[ "$(top_fn "$TMPD/bdir.csv")" = "$want" ] && ok "--buildid-dir DIR" ||
	not_ok "--buildid-dir DIR" "$(head -4 "$TMPD/bdir.csv")" "$(cat "$TMPD/err")"

head -c 3000 "$TMPD/t.data" >"$TMPD/notar"
"$PMIPROF" report -i "$TMPD/t.data" --archive "$TMPD/notar" >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 1 ] && grep -q -- '--archive .*notar: not a tar' "$TMPD/err" && ok "a file that is no tar: exit 1, one message" ||
	not_ok "a file that is no tar: exit 1, one message (rc $rc)" "$(cat "$TMPD/err")"
"$PMIPROF" report -i "$TMPD/t.data" --symfs "$TMPD/nonexistent" >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 1 ] && grep -q -- '--symfs .*nonexistent: not a directory' "$TMPD/err" && ok "--symfs of no directory: exit 1" ||
	not_ok "--symfs of no directory: exit 1 (rc $rc)" "$(cat "$TMPD/err")"
"$PMIPROF" report --help | grep -q -- '--symfs DIR' && "$PMIPROF" help archive | grep -q 'pmiprof archive' &&
	ok "--help names --symfs; 'help archive' works" || not_ok "--help names --symfs; 'help archive' works"
done_testing
