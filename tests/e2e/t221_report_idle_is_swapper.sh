#!/usr/bin/env bash
# System-wide recording of a mostly idle machine: the idle task's samples
# (pid 0, tid 0, no COMM record) are reported under the comm "swapper", as
# perf does, every one of them, with kernel symbols; none is [unknown].
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
"$PMIPROF" record -q -a -o "$TMPD/t.data" -- sleep 1 >/dev/null 2>"$TMPD/err"; rc=$?
if [ $rc -ne 0 ] && grep -q 'not permitted' "$TMPD/err"; then skip_all "system-wide not permitted (needs root or CAP_PERFMON)"; fi
[ $rc -eq 0 ] && ok "record -a -- sleep 1" || not_ok "record -a -- sleep 1" "$(cat "$TMPD/err")"
idle=$("$PMIPROF" dump -i "$TMPD/t.data" | grep ' sample ' | grep -c ' pid=0 tid=0 ')
[ "$idle" -gt 0 ] || skip_all "no idle-task samples recorded (machine too busy?)"
"$PMIPROF" report -q -i "$TMPD/t.data" --by comm --format csv >"$TMPD/comm.csv" 2>"$TMPD/rerr"
got=$(awk -F, '$3 == "swapper" { print $1 }' "$TMPD/comm.csv")
[ "${got:-0}" -eq "$idle" ] && ok "swapper has all $idle idle-task samples" ||
	not_ok "swapper has all $idle idle-task samples" "got '${got:-}'" "$(head -5 "$TMPD/comm.csv")"
"$PMIPROF" report -q -i "$TMPD/t.data" --pid 0 --by comm --format csv >"$TMPD/pid0.csv" 2>&1
grep -q '^[^,]*,[^,]*,\[unknown\],' "$TMPD/pid0.csv" && not_ok "no pid 0 sample under [unknown]" "$(cat "$TMPD/pid0.csv")" ||
	ok "no pid 0 sample under [unknown]"
"$PMIPROF" report -q -i "$TMPD/t.data" --comm swapper --format csv >"$TMPD/sym.csv" 2>&1
if "$PMIPROF" dump -i "$TMPD/t.data" | grep -q '^flags:.*kernel'; then
	unk=$(awk -F, 'NR > 1 && $3 == "[unknown]" { s += $2 } END { print s + 0 }' "$TMPD/sym.csv")
	kern=$(awk -F, 'NR > 1 && $4 == "[kernel.kallsyms]" { s += $2 } END { print s + 0 }' "$TMPD/sym.csv")
	awk -v k="$kern" 'BEGIN { exit !(k >= 99) }' && ok "swapper's symbols are kernel functions (${kern}%, unknown ${unk}%)" ||
		not_ok "swapper's symbols are kernel functions" "$(head -5 "$TMPD/sym.csv")"
else
	skip "swapper's symbols are kernel functions" "kernel IPs not recorded (unprivileged)"
fi
done_testing
