#!/usr/bin/env bash
# Stripped binaries: with a separate debug file (found through its
# .gnu_debuglink) the functions are still named; without it, the samples
# are [unknown] in that DSO with a note, and the report still succeeds.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/shares" ] || skip_all "workload shares not built"
command -v objcopy >/dev/null && command -v strip >/dev/null || skip_all "binutils (objcopy, strip) not installed"
bin=$TMPD/shares_stripped
cp "$WORKLOADS/shares" "$bin"
objcopy --only-keep-debug "$bin" "$bin.debug" && strip --strip-all "$bin" &&
	objcopy --add-gnu-debuglink="$bin.debug" "$bin" || skip_all "could not split the debug info"
nm "$bin" 2>&1 | grep -q 'work_a' && not_ok "strip removed .symtab" || ok "strip removed .symtab"
"$PMIPROF" record -q -o "$TMPD/t.data" -- "$bin" 0.5 >/dev/null 2>"$TMPD/err" \
	|| { not_ok "record" "$(cat "$TMPD/err")"; done_testing; }
"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/p.csv" 2>"$TMPD/err"
grep -q '^[0-9]*,[0-9.]*,work_a,shares_stripped,' "$TMPD/p.csv" && ok "work_a named from the separate debug file" \
	|| not_ok "work_a named from the separate debug file" "$(head -5 "$TMPD/p.csv")" "$(cat "$TMPD/err")"
rm -f "$bin.debug"
"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/q.csv" 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && ok "without debug info: exit 0" || not_ok "without debug info: exit 0 (rc $rc)" "$(cat "$TMPD/err")"
grep -q '^[0-9]*,[0-9.]*,\[unknown\],shares_stripped,' "$TMPD/q.csv" && ok "without debug info: [unknown] in shares_stripped" \
	|| not_ok "without debug info: [unknown] in shares_stripped" "$(head -5 "$TMPD/q.csv")"
grep -q 'shares_stripped: ' "$TMPD/err" && ok "without debug info: a note names the DSO" || not_ok "note" "$(cat "$TMPD/err")"
done_testing
