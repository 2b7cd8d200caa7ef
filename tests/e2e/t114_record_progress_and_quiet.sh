#!/usr/bin/env bash
# Progress goes to a terminal only (elapsed, samples, size, lost), -q makes
# record silent on success, and without a terminal there is no progress line.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
"$PMIPROF" record -q -o "$TMPD/q.data" -- "$WORKLOADS/shares" 0.2 >/dev/null 2>"$TMPD/err"
[ ! -s "$TMPD/err" ] && ok "-q: nothing on stderr" || not_ok "-q: nothing on stderr" "$(cat "$TMPD/err")"
"$PMIPROF" record -o "$TMPD/n.data" -- "$WORKLOADS/shares" 0.6 >/dev/null 2>"$TMPD/err"
grep -q $'\r' "$TMPD/err" && not_ok "no progress line when stderr is not a TTY" || ok "no progress line when stderr is not a TTY"
if command -v script >/dev/null; then
	script -qec "'$PMIPROF' record -o '$TMPD/t.data' -- '$WORKLOADS/shares' 1.2 >/dev/null" "$TMPD/tty" >/dev/null 2>&1
	n=$(tr '\r' '\n' <"$TMPD/tty" | grep -c 'recording [0-9.]* s, [0-9]* samples, .*, [0-9]* lost')
	[ "$n" -ge 2 ] && ok "progress line on a TTY ($n updates)" || not_ok "progress line on a TTY" "$(tr '\r' '\n' <"$TMPD/tty" | head)"
	[ "$n" -le 8 ] && ok "progress at most 4 times a second" || not_ok "progress at most 4 times a second" "$n updates in 1.2 s"
else
	skip "progress line on a TTY" "script(1) not installed"
fi
done_testing
