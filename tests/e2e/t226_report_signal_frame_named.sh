#!/usr/bin/env bash
# Signal frames are not call sites (issue 21): a handler returns to the
# signal trampoline __restore_rt, a size-0 symbol whose unwind entry
# starts one byte early; looked up at return address - 1 it fell outside
# every symbol ([unknown] [libc.so.6], with a false "install its debug
# info" warning).  perf names it __restore_rt, and so must we, with fp
# (-g) and dwarf (--call-graph dwarf) stacks.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/sighandler" ] || skip_all "workload sighandler not built"
libc=$(ldd "$WORKLOADS/sighandler" | awk '/libc\.so/ { print $3 }')
bid=$(readelf -n "$libc" 2>/dev/null | awk '/Build ID/ { print $3 }')
# __restore_rt is a local symbol: in .symtab, which Debian ships in libc6-dbg.
[ -n "$bid" ] && [ -f "/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" ] || skip_all "libc's debug file is not installed (libc6-dbg)"
for cg in -g "--call-graph dwarf"; do
	# shellcheck disable=SC2086
	"$PMIPROF" record -q $cg -o "$TMPD/t.data" -- "$WORKLOADS/sighandler" 0.5 >/dev/null 2>"$TMPD/err" ||
		{ not_ok "record $cg" "$(cat "$TMPD/err")"; continue; }
	"$PMIPROF" report -i "$TMPD/t.data" --callers in_handler --percent-limit 0 >"$TMPD/c.txt" 2>"$TMPD/err"
	grep -q '__restore_rt' "$TMPD/c.txt" && ok "$cg: in_handler's caller is __restore_rt" ||
		not_ok "$cg: in_handler's caller is __restore_rt" "$(sed -n '/^#/!p' "$TMPD/c.txt" | head -12)"
	grep -q '\[unknown\].*libc' "$TMPD/c.txt" && not_ok "$cg: no [unknown] libc caller" "$(grep unknown "$TMPD/c.txt")" ||
		ok "$cg: no [unknown] libc caller"
	# (The report-wide "outside every symbol" warning is not checked: a stray
	# sample elsewhere in libc, e.g. a PLT stub, raised it in 1 of 2 fresh-clone
	# runs; the caller check above is the signal frame's.)
done
done_testing
