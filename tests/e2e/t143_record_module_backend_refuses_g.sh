#!/usr/bin/env bash
# The module backend has no stack walk yet: --backend module with -g or
# --call-graph fails with one clear message naming the way out (whether or
# not pmiprof.ko is loaded), and no trace is written.
. "$(dirname "$0")/../lib.sh"
trap 'rm -rf "$TMPD"' EXIT
for cg in "-g" "--call-graph=dwarf"; do
	"$PMIPROF" record --backend module $cg -o "$TMPD/t.data" -- true >"$TMPD/out" 2>&1; rc=$?
	if [ $rc -eq 1 ] && grep -q 'call stacks (-g/--call-graph) are not supported by the module backend yet.*--backend perf' "$TMPD/out" &&
		[ "$(wc -l <"$TMPD/out")" -eq 1 ] && [ ! -e "$TMPD/t.data" ]; then
		ok "module backend refuses $cg"
	else
		not_ok "module backend refuses $cg" "rc=$rc: $(cat "$TMPD/out")"
	fi
done
done_testing
