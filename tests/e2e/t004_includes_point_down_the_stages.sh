#!/usr/bin/env bash
# The layout rule (docs/architecture.md): each #include in lib/, report/ and
# daemon/ reaches the file's own stage or one below it, and no include
# circle exists; the checker itself catches an upward include and a circle
# planted in a copy of the tree.  The data-flow picture stays true: it names
# every source file of report/ and daemon/, and every stage folder has a
# README saying what it takes in and gives out.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null || skip_all "python3 not installed"
chk=$PMIPROF_TOP/tests/tools/include_layers.py
if out=$(python3 "$chk" "$PMIPROF_TOP" 2>&1); then
	ok "every include points down the stages ($(echo "$out" | tail -n 1))"
else
	not_ok "includes point down the stages" "$out"
fi
cp -r "$PMIPROF_TOP/lib" "$PMIPROF_TOP/report" "$PMIPROF_TOP/daemon" "$TMPD/"
echo '#include "output/format.h"' >>"$TMPD/report/input/maps.h"
out=$(python3 "$chk" "$TMPD" 2>&1)
case "$out" in
*'report/input/maps.h: includes "output/format.h"'*) ok "an input file including an output header is reported" ;;
*) not_ok "upward include reported" "$out" ;;
esac
rm -rf "$TMPD/lib" "$TMPD/report" "$TMPD/daemon"
cp -r "$PMIPROF_TOP/lib" "$PMIPROF_TOP/report" "$PMIPROF_TOP/daemon" "$TMPD/"
echo '#include "trace_codec.h"' >>"$TMPD/lib/varint.h"
out=$(python3 "$chk" "$TMPD" 2>&1)
case "$out" in
*'include circle: '*varint*trace_codec*|*'include circle: '*trace_codec*varint*) ok "an include circle inside lib/ is reported" ;;
*) not_ok "circle reported" "$out" ;;
esac
missing=
for f in $(cd "$PMIPROF_TOP" && ls report/*.c report/*/*.c daemon/*.c daemon/*/*.c); do
	grep -q "$(basename "$f")" "$PMIPROF_TOP/docs/architecture.md" || missing="$missing $f"
done
[ -z "$missing" ] && ok "docs/architecture.md names every source file of report/ and daemon/" ||
	not_ok "architecture.md names every file" "missing:$missing"
missing=
for d in "$PMIPROF_TOP"/report/*/ "$PMIPROF_TOP"/daemon/*/; do
	[ -f "$d/README.md" ] || missing="$missing $d"
done
[ -z "$missing" ] && ok "every stage folder has a README.md" || not_ok "stage READMEs" "missing:$missing"
done_testing
