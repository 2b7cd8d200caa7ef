#!/usr/bin/env bash
# The module backend takes -g and --call-graph (pmiprof.ko 1.2 walks stacks
# in its PMI handler; tests/vm/t180-t182 record with it): they are no longer
# refused up front.  Without the module loaded, --backend module -g fails with
# the one message about the missing module, never about call stacks, and
# writes no trace.
. "$(dirname "$0")/../lib.sh"
trap 'rm -rf "$TMPD"' EXIT
[ -e /dev/pmiprof ] && skip_all "pmiprof.ko is loaded here (the VM tests cover recording with it)"
for cg in "-g" "--call-graph=dwarf"; do
	"$PMIPROF" record --backend module $cg -o "$TMPD/t.data" -- true >"$TMPD/out" 2>&1; rc=$?
	if [ $rc -eq 1 ] && grep -q 'pmiprof module is not loaded' "$TMPD/out" &&
		! grep -q 'call stacks' "$TMPD/out" && [ "$(wc -l <"$TMPD/out")" -eq 1 ] && [ ! -e "$TMPD/t.data" ]; then
		ok "module backend with $cg only asks for the module"
	else
		not_ok "module backend with $cg only asks for the module" "rc=$rc: $(cat "$TMPD/out")"
	fi
done
done_testing
