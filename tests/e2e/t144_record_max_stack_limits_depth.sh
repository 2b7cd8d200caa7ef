#!/usr/bin/env bash
# --max-stack N bounds the frames of every recorded stack (the kernel's
# sample_max_stack), and is written to the header; without it the same
# workload has deeper stacks.  Above kernel.perf_event_max_stack it is refused.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
trap 'rm -rf "$TMPD"' EXIT
maxnr() { "$PMIPROF" dump -i "$1" | awk '/ stack +id=/ { for (i = 1; i <= NF; i++) if ($i ~ /^nr=/) { n = substr($i, 4) + 0; if (n > m) m = n } } END { print m + 0 }'; }
"$PMIPROF" record -g -o "$TMPD/a.data" -- "$WORKLOADS/callgraph" 2>/dev/null
"$PMIPROF" record -g --max-stack 2 -o "$TMPD/b.data" -- "$WORKLOADS/callgraph" 2>/dev/null
a=$(maxnr "$TMPD/a.data"); b=$(maxnr "$TMPD/b.data")
[ "$a" -gt 2 ] && ok "default: stacks deeper than 2 frames (max $a)" || not_ok "default: stacks deeper than 2" "max $a"
[ "$b" -ge 1 ] && [ "$b" -le 2 ] && ok "--max-stack 2: at most 2 frames (max $b)" || not_ok "--max-stack 2: at most 2 frames" "max $b"
"$PMIPROF" dump -H -i "$TMPD/b.data" | grep -q '^call graph: *fp max-stack 2 ' && ok "header records max-stack 2" ||
	not_ok "header records max-stack 2" "$("$PMIPROF" dump -H -i "$TMPD/b.data" | grep 'call graph')"
kmax=$(cat /proc/sys/kernel/perf_event_max_stack 2>/dev/null)
if [ -n "$kmax" ] && [ "$kmax" -lt 1024 ]; then
	"$PMIPROF" record -g --max-stack $((kmax + 1)) -o "$TMPD/c.data" -- true >"$TMPD/out" 2>&1; rc=$?
	[ $rc -ne 0 ] && grep -q "exceeds kernel.perf_event_max_stack ($kmax)" "$TMPD/out" &&
		ok "--max-stack above kernel.perf_event_max_stack refused" || not_ok "--max-stack above the kernel's refused" "rc=$rc $(cat "$TMPD/out")"
else
	skip "--max-stack above kernel.perf_event_max_stack refused" "kernel.perf_event_max_stack unreadable or >= 1024"
fi
done_testing
