#!/usr/bin/env bash
# report as perf users type it: --stdio (the default), --no-children (the
# flat profile), --sort with perf's keys, several at once (sym, dso,
# dso,sym, comm, pid, overhead, srcline) mapped onto --by and the order,
# --header-only, and --percent-limit honoured by the flat profile; an
# unknown key is a usage error that lists the accepted ones.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
trap 'rm -rf "$TMPD"' EXIT
"$PMIPROF" record -q -g -o "$TMPD/t.data" -- "$WORKLOADS/callgraph" >/dev/null 2>"$TMPD/err" \
	|| { not_ok "record callgraph" "$(cat "$TMPD/err")"; done_testing; }
rep() { "$PMIPROF" report -q -i "$TMPD/t.data" "$@"; }
same() {	# same() NAME "perf options" "pmiprof options"
	if rep $2 >"$TMPD/a" 2>"$TMPD/ea" && rep $3 >"$TMPD/b" 2>"$TMPD/eb" && cmp -s "$TMPD/a" "$TMPD/b" \
		&& [ "$(grep -vc '^#' "$TMPD/a")" -gt 1 ]; then
		ok "$1: '$2' = '$3'"
	else
		not_ok "$1: '$2' = '$3'" "$(cat "$TMPD/ea" "$TMPD/eb"; diff "$TMPD/a" "$TMPD/b" | head -4)"
	fi
}
same "--stdio is the default" "--stdio" ""
same "--no-children is the flat profile" "--no-children" ""
same "--no-children cancels --children" "--children --no-children" ""
same "--sort sym" "--sort sym" "--by symbol"
same "--sort dso" "--sort dso" "--by dso"
same "--sort dso,sym: the symbol rows" "--sort dso,sym" "--by symbol"
same "--sort comm" "--sort comm" "--by comm"
same "--sort pid" "--sort pid" "--by pid"
same "--sort overhead" "--sort overhead" "--sort samples"
same "--sort dso,overhead" "--sort dso,overhead" "--by dso --sort samples"
same "--sort srcline" "--sort srcline" "--srcline"
same "--children --sort sym" "--children --sort sym" "--children"
for k in bogus comm,dso samples,name; do
	rep --sort $k >/dev/null 2>"$TMPD/err"; rc=$?
	[ $rc -eq 2 ] && grep -q "sym" "$TMPD/err" && grep -q "dso" "$TMPD/err" \
		&& ok "--sort $k: usage error listing the accepted keys" \
		|| not_ok "--sort $k: usage error" "rc=$rc $(cat "$TMPD/err")"
done
# --header-only: the header lines of the table, no rows
rep --header-only >"$TMPD/h" 2>"$TMPD/err"; rc=$?
rep >"$TMPD/full"
[ $rc -eq 0 ] && [ -s "$TMPD/h" ] && ! grep -qv '^#' "$TMPD/h" && head -n "$(wc -l <"$TMPD/h")" "$TMPD/full" | cmp -s - "$TMPD/h" \
	&& ok "--header-only: $(wc -l <"$TMPD/h") header lines, no rows" || not_ok "--header-only" "rc=$rc $(cat "$TMPD/err" "$TMPD/h" | head -5)"
# --percent-limit in the flat profile: only rows at or above P% of samples
all=$(rep --format csv | awk -F, 'NR > 1' | wc -l)
rep --format csv --percent-limit 5 >"$TMPD/p.csv" 2>"$TMPD/err"
kept=$(awk -F, 'NR > 1' "$TMPD/p.csv" | wc -l)
low=$(awk -F, 'NR > 1 && $2 < 5' "$TMPD/p.csv" | wc -l)
[ "$kept" -ge 1 ] && [ "$kept" -lt "$all" ] && [ "$low" -eq 0 ] \
	&& ok "--percent-limit 5: $kept of $all rows, none under 5%" \
	|| not_ok "--percent-limit in the flat profile" "$kept of $all rows, $low under 5%; $(cat "$TMPD/err")"
rep --percent-limit 5 | grep -q 'under 5% of the samples not shown' \
	&& ok "table says how many rows --percent-limit hid" || not_ok "table says what --percent-limit hid"
done_testing
