#!/usr/bin/env bash
# Names that outlive an upgrade (issue 39): record saves every executable
# file its trace maps into the build-id cache ($PMIPROF_BUILDID_DIR, else
# ~/.pmiprof/debug; DIR/.build-id/xx/rest), and report looks there first.
# A program rebuilt at the same path (another build-id) keeps the old
# trace's names; without the cache (--no-buildid-cache) the old trace's
# rows of that program are [unknown] 0xOFFSET.  The cache keeps to its size
# limit (oldest first), and a cache that cannot be written is a warning,
# never a failed recording.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v cc >/dev/null || skip_all "no C compiler"

d=$TMPD/prog
mkdir -p "$d"
cat >"$d/p.c" <<'C'
#include <stdlib.h>
volatile unsigned long sink;
__attribute__((noinline)) void cached_alpha(long n) { for (long i = 0; i < n; i++) sink += i * V; }
__attribute__((noinline)) void cached_beta(long n) { for (long i = 0; i < n; i++) sink ^= i + V; }
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000;
	for (int k = 0; k < 4; k++) { cached_alpha(n); cached_beta(n); }
	return 0;
}
C
build() { cc -O1 -g -fno-inline -DV="$1" -Wl,--build-id -o "$d/app" "$d/p.c"; }
bid_of() { readelf -n "$1" 2>/dev/null | awk '/Build ID/ { print $3 }'; }
app_rows() { awk -F, 'NR > 1 && $4 == "app" { print $3 }' "$1"; }
cache_bytes() { find "$1/.build-id" -type f -printf '%s\n' 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
build 1 || skip_all "cc failed"
b1=$(bid_of "$d/app")
[ -n "$b1" ] || skip_all "no build-id note"

# 1. The default: the recorded files go into the cache.
C1=$TMPD/c1
PMIPROF_BUILDID_DIR=$C1 "$PMIPROF" record -o "$TMPD/old.data" -- "$d/app" >/dev/null 2>"$TMPD/rec.err" ||
	{ not_ok "record" "$(cat "$TMPD/rec.err")"; done_testing; }
cmp -s "$d/app" "$C1/.build-id/${b1:0:2}/${b1:2}" && ok "record puts the program in \$PMIPROF_BUILDID_DIR/.build-id/${b1:0:2}/${b1:2}" ||
	not_ok "record puts the program in the cache by build-id" "$(ls -R "$C1" 2>&1 | head -20)" "$(cat "$TMPD/rec.err")"
libc=$(ldd "$d/app" | awk '/libc\.so/ { print $3 }')
lb=$(bid_of "$libc")
[ -z "$lb" ] || { [ -f "$C1/.build-id/${lb:0:2}/${lb:2}" ] && ok "and libc, by its build-id" || not_ok "and libc, by its build-id" "$(ls -R "$C1" | head)"; }
grep -q "build-id cache $C1: [0-9]* mapped file(s) and [0-9]* debug file(s) added" "$TMPD/rec.err" && ok "one notice says what was added" ||
	not_ok "one notice says what was added" "$(cat "$TMPD/rec.err")"
n1=$(find "$C1" -type f | wc -l)
PMIPROF_BUILDID_DIR=$C1 "$PMIPROF" record -o "$TMPD/again.data" -- "$d/app" 1000 >/dev/null 2>"$TMPD/rec2.err"
[ "$(find "$C1" -type f | wc -l)" -eq "$n1" ] && ! grep -q 'added' "$TMPD/rec2.err" && ok "files already there are not added again" ||
	not_ok "files already there are not added again" "$(cat "$TMPD/rec2.err")"

# 2. --no-buildid-cache writes nothing.
PMIPROF_BUILDID_DIR=$TMPD/c2 "$PMIPROF" record -q --no-buildid-cache -o "$TMPD/nocache.data" -- "$d/app" >/dev/null 2>"$TMPD/err" ||
	{ not_ok "record --no-buildid-cache" "$(cat "$TMPD/err")"; done_testing; }
[ ! -e "$TMPD/c2" ] && ok "--no-buildid-cache writes nothing" || not_ok "--no-buildid-cache writes nothing" "$(ls -R "$TMPD/c2")"

# 3. The program rebuilt at the same path: another build-id.
build 2
b2=$(bid_of "$d/app")
[ -n "$b2" ] && [ "$b2" != "$b1" ] && ok "rebuilt: build-id $b1 -> $b2" || not_ok "rebuilt with another build-id" "$b1 $b2"

PMIPROF_BUILDID_DIR=$C1 "$PMIPROF" report -i "$TMPD/old.data" --format csv >"$TMPD/cached.csv" 2>"$TMPD/cached.err"
rows=$(app_rows "$TMPD/cached.csv")
if echo "$rows" | grep -qx cached_alpha && echo "$rows" | grep -qx cached_beta && ! echo "$rows" | grep -q unknown; then
	ok "the old trace after the rebuild: cached_alpha, cached_beta named from the cache, no [unknown] row"
else
	not_ok "the old trace after the rebuild: names from the cache" "$rows" "$(cat "$TMPD/cached.err")"
fi
grep -q 'another build-id' "$TMPD/cached.err" && not_ok "no build-id warning with the cache" "$(cat "$TMPD/cached.err")" ||
	ok "no build-id warning with the cache"
# The old behaviour: a trace recorded with --no-buildid-cache.
PMIPROF_BUILDID_DIR=$TMPD/c2 "$PMIPROF" report -i "$TMPD/nocache.data" --format csv >"$TMPD/nc.csv" 2>"$TMPD/nc.err"
bad=$(app_rows "$TMPD/nc.csv" | grep -v '^\[unknown\] 0x[0-9a-f]*$')
[ -n "$(app_rows "$TMPD/nc.csv")" ] && [ -z "$bad" ] && grep -q 'another build-id' "$TMPD/nc.err" &&
	ok "recorded with --no-buildid-cache: $(app_rows "$TMPD/nc.csv" | wc -l) [unknown] 0xOFFSET rows, the build-id warning" ||
	not_ok "recorded with --no-buildid-cache: [unknown] rows" "$bad" "$(cat "$TMPD/nc.err")"
# report honours $PMIPROF_BUILDID_DIR: the same old trace with another (empty) cache.
mkdir -p "$TMPD/empty"
PMIPROF_BUILDID_DIR=$TMPD/empty "$PMIPROF" report -i "$TMPD/old.data" --format csv >"$TMPD/e.csv" 2>/dev/null
app_rows "$TMPD/e.csv" | grep -q '^cached_' && not_ok "report reads \$PMIPROF_BUILDID_DIR (another one: no names)" "$(app_rows "$TMPD/e.csv")" ||
	ok "report reads \$PMIPROF_BUILDID_DIR (another one: no names)"

# 4. The size limit: oldest first.
C3=$TMPD/c3
PMIPROF_BUILDID_DIR=$C3 "$PMIPROF" record -q -o "$TMPD/v2.data" -- "$d/app" 1000 >/dev/null 2>&1
t2=$(cache_bytes "$C3")
sleep 0.05
build 3
b3=$(bid_of "$d/app")
s3=$(stat -c %s "$d/app")
limit=$((t2 + s3 - 1))
PMIPROF_BUILDID_DIR=$C3 PMIPROF_BUILDID_CACHE_SIZE=$limit "$PMIPROF" record -o "$TMPD/v3.data" -- "$d/app" 1000 >/dev/null 2>"$TMPD/lim.err" ||
	not_ok "record under a limit" "$(cat "$TMPD/lim.err")"
t3=$(cache_bytes "$C3")
[ "$t3" -le "$limit" ] && [ -f "$C3/.build-id/${b3:0:2}/${b3:2}" ] && grep -q 'oldest evicted' "$TMPD/lim.err" &&
	ok "PMIPROF_BUILDID_CACHE_SIZE=$limit: $t3 bytes after adding the new build (was $t2), the new build kept" ||
	not_ok "the cache keeps to its limit" "limit $limit total $t3" "$(cat "$TMPD/lim.err")" "$(ls -lR "$C3")"
PMIPROF_BUILDID_DIR=$C3 "$PMIPROF" record -q --buildid-cache-size 1K -o "$TMPD/v4.data" -- "$d/app" 1000 >/dev/null 2>&1
t4=$(cache_bytes "$C3")
[ "$t4" -le 1024 ] && ok "--buildid-cache-size 1K: $t4 bytes left" || not_ok "--buildid-cache-size 1K" "$t4"
"$PMIPROF" record -q --buildid-cache-size 12X -- true >/dev/null 2>"$TMPD/err"
[ $? -eq 2 ] && grep -q 'buildid-cache-size' "$TMPD/err" && ok "a bad size is a usage error" || not_ok "a bad size is a usage error" "$(cat "$TMPD/err")"

# 5. A cache that cannot be written: a warning, the recording stands.
: >"$TMPD/afile"
PMIPROF_BUILDID_DIR=$TMPD/afile/cache "$PMIPROF" record -o "$TMPD/w.data" -- "$d/app" 1000 >/dev/null 2>"$TMPD/w.err"
rc=$?
[ $rc -eq 0 ] && grep -q 'warning.*build-id cache.*not saved' "$TMPD/w.err" && "$PMIPROF" report -i "$TMPD/w.data" >/dev/null 2>&1 &&
	ok "an unwritable cache: exit 0, one warning, the trace reports" ||
	not_ok "an unwritable cache: exit 0, one warning" "rc $rc" "$(cat "$TMPD/w.err")"
done_testing
