#!/usr/bin/env bash
# pmiprof top refuses bad input with one specific message and a non-zero
# exit, before (usage: 2) or at the start of (1) recording: -d, --decay,
# --by, --format, -n/--format without --batch, -o, --call-graph dwarf, the screen without a
# terminal, an unknown --sort key (the valid ones listed), an unknown
# event (the closest suggested), a -p that does not exist, a user without the
# right to record (the fixes and --from named).
. "$(dirname "$0")/../lib.sh"
t() {	# t EXPECTED_RC "regex of the message" ARGS...
	local want=$1 re=$2 rc; shift 2
	"$PMIPROF" top "$@" </dev/null >"$TMPD/out" 2>"$TMPD/err"; rc=$?
	if [ $rc -eq "$want" ] && grep -Eq -- "$re" "$TMPD/err"; then ok "top $* -> $rc: $re"
	else not_ok "top $* -> $want: $re" "rc $rc: $(cat "$TMPD/err")"; fi
}
t 2 "invalid -d '0': valid is 0.1..3600 seconds" -d 0 --batch
t 2 "invalid -d 'x'" --batch -d x
t 2 "option '-d' needs an argument" --batch -d
t 2 "invalid --decay: valid is -d .. 63 x -d" --batch -d 2 --decay 1
t 2 "unknown --by 'pids' \(valid: process, thread, function, dso, cgroup\)" --batch --by pids
t 2 "unknown --format 'xml' \(valid: table, csv, json\)" --batch --format xml
t 2 "-n is for --batch" -n 3
t 2 "--format is for --batch" --format csv
t 2 "-o: top writes no trace" --batch -o "$TMPD/x.data"
t 2 "--call-graph dwarf is for 'pmiprof record' and the daemon: top takes -g" --batch --call-graph dwarf
t 2 "the screen needs a terminal on stdin and stdout: use --batch" -a
t 2 "unknown event 'instrucions'; did you mean 'instructions'" --batch -e instrucions
t 2 "invalid -n '0'" --batch -n 0
if [ "$(id -u)" -eq 0 ] && have_perf_sw; then
	t 2 "unknown --sort 'nosuch' \(valid for these events: samples, name, cpu-clock" \
		--batch -n 1 -e cpu-clock --sort nosuch
	t 1 "-p 999999: no such process" --batch -p 999999
	# a user with no right to record is told of --from besides the usual fixes
	if command -v setpriv >/dev/null && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 1 ]; then
		setpriv --reuid=nobody --regid=nogroup --clear-groups "$PMIPROF" top --batch -n 1 -d 1 \
			</dev/null >/dev/null 2>"$TMPD/err"; rc=$?
		[ $rc -eq 1 ] && grep -q "not permitted to open .* or watch a running daemon: pmiprof top --from http://HOST:PORT" \
			"$TMPD/err" && ok "no right to record: the message names --from" ||
			not_ok "no permission names --from" "rc $rc: $(cat "$TMPD/err")"
	else
		skip "no permission names --from" "no setpriv, or perf_event_paranoid lets anyone record"
	fi
else
	skip "--sort checked against the recorded events" "needs root and perf events"
	skip "-p of no process" "needs root and perf events"
fi
done_testing
