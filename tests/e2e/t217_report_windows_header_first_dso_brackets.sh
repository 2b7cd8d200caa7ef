#!/usr/bin/env bash
# report --windows: the trace's description comes before the rows, and the
# counts never describe less than they claim: with --limit the footer says
# reading stopped there (no "duration, N samples" for a partial read), and
# without it the counts after the rows are the whole trace's.  Pseudo DSOs
# keep their own brackets: [kernel.kallsyms], not [[kernel.kallsyms]].
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/random_sort" ] || skip_all "workload random_sort not built"
"$PMIPROF" record -q -F 10000 -o "$TMPD/t.data" -- "$WORKLOADS/random_sort" 0.5 >/dev/null 2>"$TMPD/err" \
	&& ok "pmiprof record" || not_ok "pmiprof record" "$(cat "$TMPD/err")"
total=$("$PMIPROF" report -i "$TMPD/t.data" --format json 2>/dev/null |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["meta"]["samples"])')
[ "${total:-0}" -gt 5 ] && ok "trace has $total samples" || not_ok "trace has more than 5 samples" "$total"

"$PMIPROF" report -i "$TMPD/t.data" --windows --limit 5 >"$TMPD/lim" 2>"$TMPD/err" \
	&& ok "--windows --limit 5 runs" || not_ok "--windows --limit 5 runs" "$(cat "$TMPD/err")"
first_row=$(grep -n '^ *[0-9]' "$TMPD/lim" | head -1 | cut -d: -f1)
desc=$(grep -n '^# pmiprof report of' "$TMPD/lim" | head -1 | cut -d: -f1)
[ -n "$desc" ] && [ -n "$first_row" ] && [ "$desc" -lt "$first_row" ] \
	&& ok "trace description (line $desc) comes before the rows (line $first_row)" \
	|| not_ok "trace description comes before the rows" "$(head -20 "$TMPD/lim")"
grep -q '^# trigger: ' <(head -n "${first_row:-1}" "$TMPD/lim") \
	&& ok "trigger and events are described before the rows" \
	|| not_ok "trigger and events are described before the rows" "$(head -20 "$TMPD/lim")"
rows=$(grep -c '^ *[0-9]' "$TMPD/lim")
[ "$rows" -eq 5 ] && ok "5 rows" || not_ok "5 rows" "$rows"
# No sample count that is not the trace's: a partial read is said to be one.
bad=$(grep -E '[0-9]+ samples \(windows\)' "$TMPD/lim" | grep -vE " $total samples \(windows\)")
[ -z "$bad" ] && ok "no partial count presented as the trace's" \
	|| not_ok "no partial count presented as the trace's (trace has $total)" "$bad"
tail -3 "$TMPD/lim" | tr '\n' ' ' | grep -q '5 window(s) shown (--limit 5): reading stopped.*not counted' \
	&& ok "footer says --limit stopped the reading" \
	|| not_ok "footer says --limit stopped the reading" "$(tail -3 "$TMPD/lim")"

"$PMIPROF" report -i "$TMPD/t.data" --windows >"$TMPD/all" 2>"$TMPD/err" \
	&& ok "--windows runs" || not_ok "--windows runs" "$(cat "$TMPD/err")"
first_row=$(grep -n '^ *[0-9]' "$TMPD/all" | head -1 | cut -d: -f1)
counts=$(grep -n ' samples (windows)' "$TMPD/all" | head -1 | cut -d: -f1)
[ -n "$counts" ] && [ "$counts" -gt "$first_row" ] && grep -q " $total samples (windows), $total shown" "$TMPD/all" \
	&& ok "whole-trace counts ($total samples) follow the rows" \
	|| not_ok "whole-trace counts ($total samples) follow the rows" "$(grep '^#' "$TMPD/all" | tail -4)"

grep -q '\[\[' "$TMPD/all" && not_ok "no doubled brackets in the DSO column" "$(grep -m3 '\[\[' "$TMPD/all")" \
	|| ok "no doubled brackets in the DSO column"
if grep -q 'kernel.kallsyms' "$TMPD/all"; then
	grep -qE '^ *[0-9].* [^ ]+ \[kernel\.kallsyms\]' "$TMPD/all" \
		&& ok "kernel rows name [kernel.kallsyms]" \
		|| not_ok "kernel rows name [kernel.kallsyms]" "$(grep -m3 kallsyms "$TMPD/all")"
else
	skip "kernel rows name [kernel.kallsyms]" "no kernel sample in this trace (kernel IPs not recorded?)"
fi
done_testing
