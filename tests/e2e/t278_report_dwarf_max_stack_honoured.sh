#!/usr/bin/env bash
# record --call-graph dwarf --max-stack N: the report's stacks have at most N
# frames (a kernel-mode leaf and the kernel frames count, as in fp stacks and
# perf), deeper ones end in [truncated]; the dwarf user frames were unwound
# to any depth before.  Checked against the same workload without the limit
# (stacks reach 5+ frames: cmp_u64 <- msort <- qsort <- sort_work <- main).
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/callgraph_nofp" ] && [ -x "$WORKLOADS/callgraph" ] || skip_all "workloads not built"

# depth FILE: "max-depth samples-over-3 truncated-samples" of the folded stacks
depth() {
	"$PMIPROF" report -q -i "$1" --format folded 2>/dev/null | awk '
		{ st = $0; sub(/ [0-9]+$/, "", st)	# a frame may hold spaces: "_start [prog]"
		  n = split(st, a, ";"); t = a[1] == "[truncated]"; if (t) n--
		  if (n > m) m = n; if (n > 3) over += $NF; if (t) tr += $NF }
		END { print m + 0, over + 0, tr + 0 }'
}
rec() { "$PMIPROF" record -q -F 4000 -o "$1" "${@:2}" >/dev/null 2>"$TMPD/err" ||
	{ not_ok "record ${*:2}" "$(cat "$TMPD/err")"; done_testing; }; }

rec "$TMPD/d3.data" --call-graph dwarf --max-stack 3 -- "$WORKLOADS/callgraph_nofp" 1
rec "$TMPD/d.data" --call-graph dwarf -- "$WORKLOADS/callgraph_nofp" 1
read -r m3 over3 tr3 <<<"$(depth "$TMPD/d3.data")"
read -r m over tr <<<"$(depth "$TMPD/d.data")"
echo "# dwarf --max-stack 3: depth $m3, $tr3 truncated; dwarf: depth $m"
[ "$m" -ge 5 ] && ok "dwarf without a limit: stacks of $m frames" || not_ok "dwarf without a limit reaches 5 frames" "depth $m"
[ "$m3" -eq 3 ] && [ "$over3" -eq 0 ] && ok "dwarf --max-stack 3: at most 3 frames per stack" ||
	not_ok "dwarf --max-stack 3: at most 3 frames" "depth $m3, $over3 samples deeper" \
	"$("$PMIPROF" report -q -i "$TMPD/d3.data" --format folded 2>/dev/null | awk '{ st = $0; sub(/ [0-9]+$/, "", st); if (split(st, a, ";") > 4) print }' | head -3)"
[ "$tr3" -gt 0 ] && "$PMIPROF" report -q -i "$TMPD/d3.data" --format folded 2>/dev/null | grep -q '^\[truncated\];__GI___qsort_r;msort_with_tmp[^;]*;cmp_u64 ' &&
	ok "dwarf --max-stack 3: cut stacks end in [truncated] ($tr3 samples)" || not_ok "cut stacks end in [truncated]" "$tr3"
done_testing
