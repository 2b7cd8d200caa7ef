#!/usr/bin/env bash
# Debug info wherever Debian, Fedora and Ubuntu put it (issue 21): variants
# of the shares workload, built here with objcopy/strip/xz, each recorded
# and reported, must give the unstripped build's names (work_a/b/c, the
# three hot functions): a stripped binary with its debug file found by
# .gnu_debuglink (next to it, in .debug/, under /usr/lib/debug/PATH) or by
# build-id (/usr/lib/debug/.build-id/xx/rest.debug as -dbgsym packages
# install it, or a --buildid-dir), and MiniDebugInfo (.gnu_debugdata, an
# xz-compressed .symtab, as Fedora ships), the same under --symfs and
# from an archive.  A debuglink whose file has
# another CRC (a build-id-less binary) is not used.  Without any debug
# info, stripped code gets one "[unknown] 0xADDR" row per function (the
# unwind table's entries): the three rows are at the three functions'
# addresses, and --by dso still totals them.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/shares" ] || skip_all "workload shares not built"
command -v objcopy >/dev/null && command -v strip >/dev/null && command -v xz >/dev/null ||
	skip_all "binutils (objcopy, strip) or xz not installed"
SYSDBG=/usr/lib/debug
trap 'rm -rf "$TMPD" "$SYSDBG$TMPD"; [ -n "${bidfile:-}" ] && rm -f "$bidfile"' EXIT
ref=$(nm "$WORKLOADS/shares" | awk '$3 ~ /^work_[abc]$/ { print $3 }' | sort | tr '\n' ' ')
[ "$ref" = "work_a work_b work_c " ] || skip_all "shares has no work_a/b/c symbols"
bid=$(readelf -n "$WORKLOADS/shares" | awk '/Build ID/ { print $3 }')

# The three functions with the most samples in DSO $2 of trace $1, by name.
top3() { "$PMIPROF" report -i "$1" --format csv "${@:3}" 2>"$TMPD/err" |
	awk -F, -v d="$2" 'NR > 1 && $4 == d { print $3 }' | head -3 | sort | tr '\n' ' '; }
run() {	# $1 variant dir holding "shares": record it (more: record options)
	"$PMIPROF" record -q "${@:2}" -o "$1/t.data" -- "$1/shares" 0.3 >/dev/null 2>"$TMPD/rec.err" ||
		not_ok "record $1" "$(cat "$TMPD/rec.err")"
}
# Every variant is the same build (one build-id), so each records into a
# build-id cache of its own (record fills it, report searches it first): the
# report is then served the cached copy, and its entry must be complete
# (rest.debug) for the names to come from the variant's debug file.
variant() {	# $1 name: a fresh dir with a stripped copy and its debug file $d/shares.debug
	d=$TMPD/$1; mkdir -p "$d"; cp "$WORKLOADS/shares" "$d/shares"
	export PMIPROF_BUILDID_DIR=$d/bcache
	objcopy --only-keep-debug "$d/shares" "$d/shares.debug" && strip --strip-all "$d/shares"
}
expect_names() {	# $1 test name, $2 dir, more: report options
	local got; got=$(top3 "$2/t.data" shares "${@:3}")
	[ "$got" = "$ref" ] && ok "$1: the unstripped build's names" || not_ok "$1: the unstripped build's names" "got: $got" "$(cat "$TMPD/err")"
}

variant plain; nm "$d/shares" 2>&1 | grep -q work_a && not_ok "strip removed .symtab" || ok "strip removed .symtab"
addrs=$(nm "$WORKLOADS/shares" | awk '$3 ~ /^work_[abc]$/ { sub(/^0+/, "", $1); print "[unknown] 0x" $1 }' | sort | tr '\n' ' ')
mv "$d/shares.debug" "$TMPD/elsewhere.debug"; run "$d"
got=$(top3 "$d/t.data" shares)
[ "$got" = "$addrs" ] && ok "no debug info: one [unknown] row per function, at its address" ||
	not_ok "no debug info: one [unknown] row per function, at its address" "want: $addrs" "got: $got"
grep 'addresses outside every symbol' "$TMPD/err" | grep -q 'shares' && ok "no debug info: a note names the DSO" || not_ok "note" "$(cat "$TMPD/err")"
sum=$("$PMIPROF" report -i "$d/t.data" --format csv 2>/dev/null | awk -F, 'NR > 1 && $4 == "shares" { s += $1 } END { print s }')
dso=$("$PMIPROF" report -i "$d/t.data" --format csv --by dso 2>/dev/null | awk -F, 'NR > 1 && $3 ~ /shares$/ { print $1 }')
[ -n "$sum" ] && [ "$sum" = "$dso" ] && ok "--by dso totals the [unknown] rows ($dso)" || not_ok "--by dso totals the [unknown] rows" "rows $sum, dso $dso"

variant link; objcopy --add-gnu-debuglink="$d/shares.debug" "$d/shares"; run "$d"
expect_names ".gnu_debuglink, same directory" "$d"
cached=$d/bcache/.build-id/${bid:0:2}/${bid:2}
[ -f "$cached" ] && cmp -s "$cached.debug" "$d/shares.debug" &&
	ok "the cache holds the debuglink's debug file as rest.debug" ||
	not_ok "the cache holds the debuglink's debug file as rest.debug" "$(ls -l "$d/bcache/.build-id/${bid:0:2}" 2>&1)"
# The lookup behind the cache: the debug file next to the original path.
PMIPROF_BUILDID_DIR=$d/nocache "$PMIPROF" record -q --no-buildid-cache -o "$d/nc.data" -- "$d/shares" 0.3 >/dev/null 2>"$TMPD/rec.err" ||
	not_ok "record --no-buildid-cache" "$(cat "$TMPD/rec.err")"
got=$(PMIPROF_BUILDID_DIR=$d/nocache top3 "$d/nc.data" shares)
[ "$got" = "$ref" ] && ok ".gnu_debuglink, same directory, --no-buildid-cache (no cache)" ||
	not_ok ".gnu_debuglink, same directory, --no-buildid-cache (no cache)" "got: $got" "$(cat "$TMPD/err")"
[ ! -e "$d/nocache" ] && ok "--no-buildid-cache wrote no cache" || not_ok "--no-buildid-cache wrote no cache"
# Served from the cache: the names outlive the debug file at its place.
rm "$d/shares.debug"
expect_names ".gnu_debuglink: from the cache, the debug file next to the binary gone" "$d"
variant dotdebug; objcopy --add-gnu-debuglink="$d/shares.debug" "$d/shares"
mkdir -p "$d/.debug"; mv "$d/shares.debug" "$d/.debug/"; run "$d"
expect_names ".gnu_debuglink, in .debug/" "$d"
variant sysdbg; objcopy --add-gnu-debuglink="$d/shares.debug" "$d/shares"
if mkdir -p "$SYSDBG$d" 2>/dev/null && mv "$d/shares.debug" "$SYSDBG$d/"; then
	run "$d"; expect_names ".gnu_debuglink, under /usr/lib/debug/PATH" "$d"
else
	skip ".gnu_debuglink, under /usr/lib/debug/PATH" "cannot write $SYSDBG (not root)"
fi
variant bidcache; mkdir -p "$d/cache/.build-id/${bid:0:2}"; mv "$d/shares.debug" "$d/cache/.build-id/${bid:0:2}/${bid:2}.debug"; run "$d"
expect_names "build-id, --buildid-dir" "$d" --buildid-dir "$d/cache"
variant sysbid
if [ ! -e "$SYSDBG/.build-id/${bid:0:2}/${bid:2}.debug" ] && mkdir -p "$SYSDBG/.build-id/${bid:0:2}" 2>/dev/null; then
	bidfile=$SYSDBG/.build-id/${bid:0:2}/${bid:2}.debug
	mv "$d/shares.debug" "$bidfile"; run "$d"
	expect_names "build-id, /usr/lib/debug/.build-id (Debian's -dbgsym)" "$d"
	rm -f "$bidfile"
else
	skip "build-id, /usr/lib/debug/.build-id" "cannot write there (not root) or taken"
fi

# --symfs and archive follow the same rules: the stripped binary and its
# build-id debug file under SYMFS (its /usr/lib/debug), or packed by
# `archive`, reported after both left their places.
variant symfs; run "$d"
mkdir -p "$d/root$d" "$d/root/usr/lib/debug/.build-id/${bid:0:2}"
mv "$d/shares" "$d/root$d/shares"; mv "$d/shares.debug" "$d/root/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug"
expect_names "--symfs: the binary and SYMFS/usr/lib/debug/.build-id" "$d" --symfs "$d/root"
rm "$d/root$d/shares"
expect_names "--symfs: SYMFS/usr/lib/debug/.build-id alone (placed by the recorded mapping)" "$d" --symfs "$d/root"
variant arch; mkdir -p "$d/.debug"; objcopy --add-gnu-debuglink="$d/shares.debug" "$d/shares"; mv "$d/shares.debug" "$d/.debug/"
run "$d"
"$PMIPROF" archive -q -i "$d/t.data" -o "$d/a.tar" 2>"$TMPD/err" || not_ok "archive" "$(cat "$TMPD/err")"
tar tf "$d/a.tar" | grep -qx ".build-id/${bid:0:2}/${bid:2}.debug" && ok "archive packs the debuglink's debug file by build-id" ||
	not_ok "archive packs the debuglink's debug file by build-id" "$(tar tf "$d/a.tar")"
rm -rf "$d/shares" "$d/.debug"
expect_names "--archive, the binary and its debug file gone" "$d" --archive "$d/a.tar"

# MiniDebugInfo, Fedora's recipe (find-debuginfo's add_minidebug).
variant mini
nm -D "$WORKLOADS/shares" --format=posix --defined-only | awk '{ print $1 }' | sort >"$d/dynsyms"
nm "$WORKLOADS/shares" --format=posix --defined-only | awk '$2 ~ /^[Tt]$/ { print $1 }' | sort >"$d/funcsyms"
comm -13 "$d/dynsyms" "$d/funcsyms" >"$d/keep"
objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols="$d/keep" "$d/shares.debug" "$d/mini" &&
	xz "$d/mini" && objcopy --add-section .gnu_debugdata="$d/mini.xz" "$d/shares" && rm "$d/shares.debug" ||
	not_ok "build the MiniDebugInfo variant"
readelf -SW "$d/shares" | grep -q gnu_debugdata && ok "the MiniDebugInfo variant has .gnu_debugdata" || not_ok "the MiniDebugInfo variant has .gnu_debugdata"
run "$d"; expect_names "MiniDebugInfo (.gnu_debugdata)" "$d"

# CRC: build-id-less builds, the debuglink's file is of another build.
if command -v cc >/dev/null; then
	d=$TMPD/crc; mkdir -p "$d"; export PMIPROF_BUILDID_DIR=$d/bcache
	cc -O1 -g -fno-omit-frame-pointer -fno-inline -Wl,--build-id=none -o "$d/shares" tests/workloads/shares.c &&
	cc -O0 -g -fno-omit-frame-pointer -fno-inline -Wl,--build-id=none -o "$d/other" tests/workloads/shares.c &&
	objcopy --only-keep-debug "$d/shares" "$d/shares.debug" && strip --strip-all "$d/shares" &&
	objcopy --add-gnu-debuglink="$d/shares.debug" "$d/shares" || not_ok "build the build-id-less variants"
	run "$d"; expect_names ".gnu_debuglink without build-id (CRC matches)" "$d"
	objcopy --only-keep-debug "$d/other" "$d/shares.debug"
	got=$(top3 "$d/t.data" shares)
	case "$got" in *work_*) not_ok "a debuglink file of another CRC is not used" "got: $got" ;;
	*) ok "a debuglink file of another CRC is not used" ;; esac
else
	skip ".gnu_debuglink CRC" "no C compiler"
fi
done_testing
