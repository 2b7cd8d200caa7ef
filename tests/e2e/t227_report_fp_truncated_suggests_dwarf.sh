#!/usr/bin/env bash
# fp stacks that mostly end in [truncated] (code without frame pointers)
# say so once and suggest --call-graph dwarf (issue 21); stacks that
# mostly reach a root, and dwarf stacks, do not.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/callgraph_nofp" ] && [ -x "$WORKLOADS/callgraph" ] || skip_all "callgraph workloads not built"
warns() { "$PMIPROF" report -i "$1" --tree >/dev/null 2>"$TMPD/err"; grep -c 'end in \[truncated\].*--call-graph dwarf' "$TMPD/err"; }
"$PMIPROF" record -q -g -o "$TMPD/nofp.data" -- "$WORKLOADS/callgraph_nofp" >/dev/null 2>&1 || { not_ok "record"; done_testing; }
[ "$(warns "$TMPD/nofp.data")" -eq 1 ] && ok "fp stacks of code without frame pointers: one line suggests --call-graph dwarf" ||
	not_ok "fp stacks of code without frame pointers: one line suggests --call-graph dwarf" "$(cat "$TMPD/err")"
"$PMIPROF" record -q -g -o "$TMPD/fp.data" -- "$WORKLOADS/callgraph" >/dev/null 2>&1 || not_ok "record"
[ "$(warns "$TMPD/fp.data")" -eq 0 ] && ok "fp stacks that reach their roots: no such line" || not_ok "fp stacks that reach their roots: no such line" "$(cat "$TMPD/err")"
"$PMIPROF" record -q --call-graph dwarf -o "$TMPD/dw.data" -- "$WORKLOADS/callgraph_nofp" >/dev/null 2>&1 || not_ok "record"
[ "$(warns "$TMPD/dw.data")" -eq 0 ] && ok "dwarf stacks: no such line" || not_ok "dwarf stacks: no such line" "$(cat "$TMPD/err")"
done_testing
