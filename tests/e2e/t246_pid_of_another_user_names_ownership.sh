#!/usr/bin/env bash
# record -p / stat -p on a process of another user, run by an unprivileged
# user: the kernel refuses perf_event_open through its ptrace access check
# (ownership), not because of kernel.perf_event_paranoid; the error names the
# owner and the real cause.  The target runs as nobody (65534), the recorder
# as uid 54321 (setpriv, so the test needs root); the same recorder on a
# process of its own user still works (control).
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "needs root to start processes as two other users (setpriv)"
command -v setpriv > /dev/null || skip_all "setpriv (util-linux) not installed"
as() { local u=$1; shift; setpriv --reuid="$u" --regid="$u" --clear-groups "$@"; }
chmod 755 "$TMPD"
mkdir "$TMPD/out" && chmod 777 "$TMPD/out"
# An unprivileged user may open events on its own processes here at all?
as 54321 "$PMIPROF" stat -q -e task-clock -- true 2> "$TMPD/probe" ||
	skip_all "unprivileged perf_event_open refused here ($(cat "$TMPD/probe"))"
# setpriv execs sleep, so $! is the sleeping process (a shell function would add a subshell)
setpriv --reuid=65534 --regid=65534 --clear-groups sleep 30 & tp=$!
setpriv --reuid=54321 --regid=54321 --clear-groups sleep 30 & own=$!
sleep 0.3
as 54321 "$PMIPROF" record -q -o "$TMPD/out/r.data" -p $tp 2> "$TMPD/rec"; rc=$?
[ $rc -eq 1 ] && ok "record -p on nobody's process: exit 1" || not_ok "record rc" "rc=$rc" "$(cat "$TMPD/rec")"
grep -q "^pmiprof: error: -p $tp: not permitted: process $tp (sleep) belongs to user 65534 (nobody) and pmiprof runs as user 54321.*ptrace access check" "$TMPD/rec" &&
	ok "record: the error names the owner and the ptrace access check" || not_ok "record message" "$(cat "$TMPD/rec")"
! grep -q 'perf_event_paranoid is' "$TMPD/rec" && ok "record: perf_event_paranoid not blamed" ||
	not_ok "record blames paranoid" "$(cat "$TMPD/rec")"
as 54321 "$PMIPROF" stat -e task-clock -p $tp 2> "$TMPD/stat"; rc=$?
[ $rc -eq 1 ] && grep -q "^pmiprof: error: -p $tp: not permitted: process $tp (sleep) belongs to user 65534 (nobody)" "$TMPD/stat" &&
	ok "stat -p: exit 1 naming the owner" || not_ok "stat message" "rc=$rc" "$(cat "$TMPD/stat")"
! grep -q 'Permission denied' "$TMPD/stat" && ok "stat: no bare errno text" || not_ok "stat errno" "$(cat "$TMPD/stat")"
# Control: the same unprivileged user on its own process records.
as 54321 timeout -s INT 1 "$PMIPROF" record -q -o "$TMPD/out/own.data" -p $own 2> "$TMPD/own"; rc=$?
[ -s "$TMPD/out/own.data" ] && ! grep -q 'error' "$TMPD/own" && ok "control: own process recorded (rc $rc)" ||
	not_ok "control" "rc=$rc" "$(cat "$TMPD/own")"
kill $tp $own 2>/dev/null
wait 2>/dev/null
done_testing
