#!/usr/bin/env bash
# Bad -g/--call-graph/--max-stack values are refused before anything runs,
# with perf's messages, exit status 2; stat has no -g.
. "$(dirname "$0")/../lib.sh"
trap 'rm -rf "$TMPD"' EXIT
refuse() {	# expected message, then arguments
	local want=$1; shift
	"$PMIPROF" record "$@" -o "$TMPD/t.data" -- true >"$TMPD/out" 2>&1; rc=$?
	if [ $rc -eq 2 ] && grep -qF "$want" "$TMPD/out" && [ ! -e "$TMPD/t.data" ]; then
		ok "refused: $*"
	else
		not_ok "refused: $*" "rc=$rc: $(cat "$TMPD/out")"
	fi
}
refuse "callchain: Incorrect stack dump size (max 65528): 0" --call-graph dwarf,0
refuse "callchain: Incorrect stack dump size (max 65528): 65529" --call-graph dwarf,65529
refuse "callchain: Incorrect stack dump size (max 65528): 8k" --call-graph dwarf,8k
refuse "callchain: Unknown --call-graph option value: frame" --call-graph frame
refuse "callchain: Unknown --call-graph option value: dwarf,8192,1" --call-graph dwarf,8192,1
refuse "callchain: lbr is not supported by pmiprof" --call-graph lbr
refuse "callchain: Incorrect max stack (1..1024): 0" --call-graph fp,0
refuse "invalid --max-stack '0': valid is 1..1024" -g --max-stack 0
refuse "invalid --max-stack '5000': valid is 1..1024" -g --max-stack 5000
"$PMIPROF" stat -g -- true >"$TMPD/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "unknown option '-g'" "$TMPD/out" && ok "stat refuses -g" ||
	not_ok "stat refuses -g" "rc=$rc: $(cat "$TMPD/out")"
if have_perf_sw; then
	"$PMIPROF" record --call-graph no -o "$TMPD/n.data" -- true 2>/dev/null &&
		! "$PMIPROF" dump -H -i "$TMPD/n.data" | grep -q '^call graph' && ok "--call-graph no records no stacks" ||
		not_ok "--call-graph no records no stacks"
	"$PMIPROF" record --call-graph dwarf,65528 -o "$TMPD/m.data" -- true 2>"$TMPD/err" &&
		"$PMIPROF" dump -H -i "$TMPD/m.data" | grep -q 'dump-size 65528' && ok "dwarf,65528 (the maximum) accepted" ||
		not_ok "dwarf,65528 accepted" "$(cat "$TMPD/err")"
else
	skip "--call-graph no records no stacks" "perf_event_open not usable here"
	skip "dwarf,65528 accepted" "perf_event_open not usable here"
fi
done_testing
