#!/usr/bin/env bash
# record -o /dev/stdout into a pipe whose reader goes away (| head -c 3000)
# takes the full-disk path (t107): one error naming the broken pipe and what
# was written, the workload stopped long before its end, exit 1, and what
# the reader kept is a readable (cut) trace.  Not a silent death by SIGPIPE
# with the workload left running.  A pipe read to its end gives a whole trace
# and exit 0; the workload itself still gets SIGPIPE's default action.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/shares" ] || skip_all "workloads not built"
secs=29.75	# an argument no other test uses: pgrep finds our workload only

t0=$(date +%s)
"$PMIPROF" record -o /dev/stdout -- "$WORKLOADS/shares" $secs 2>"$TMPD/err" | head -c 3000 >"$TMPD/h.data"
rc=${PIPESTATUS[0]}
t1=$(date +%s)
sleep 0.5
left=$(pgrep -f "shares $secs")
[ -n "$left" ] && kill -KILL $left
[ "$rc" -eq 1 ] && ok "record exits 1 when the output pipe closes" || not_ok "record exits 1 when the output pipe closes" "rc=$rc (141 = killed by SIGPIPE)" "$(cat "$TMPD/err")"
[ "$(grep -c 'error: writing /dev/stdout: Broken pipe (its reader closed it) after [0-9]* samples in [0-9]* complete chunks (.*); stopping the workload' "$TMPD/err")" -eq 1 ] &&
	ok "one error: broken pipe, what was written, workload stopped" || not_ok "one error: broken pipe" "$(cat "$TMPD/err")"
[ -z "$left" ] && [ $((t1 - t0)) -lt 20 ] && ok "the workload was stopped ($((t1 - t0)) s of ${secs%.*}), none left running" ||
	not_ok "the workload was stopped" "$((t1 - t0)) s; still running: ${left:-none}"
"$PMIPROF" report -i "$TMPD/h.data" >"$TMPD/rep" 2>"$TMPD/rerr"; rrc=$?
[ "$(stat -c %s "$TMPD/h.data")" -eq 3000 ] && [ $rrc -eq 0 ] && grep -q 'the trace was cut short' "$TMPD/rerr" &&
	ok "the 3000 bytes the reader kept are a readable cut trace" || not_ok "the kept bytes are a readable trace" "rc=$rrc" "$(cat "$TMPD/rerr")"

# a pipe read to its end: the whole trace, exit 0 (the workload's own stdout elsewhere)
"$PMIPROF" record -q -o /dev/stdout -- sh -c "exec '$WORKLOADS/shares' 1 >/dev/null" 2>"$TMPD/err2" | cat >"$TMPD/p.data"
rc=${PIPESTATUS[0]}
"$PMIPROF" report -i "$TMPD/p.data" >"$TMPD/rep2" 2>"$TMPD/rerr2"; rrc=$?
[ "$rc" -eq 0 ] && [ $rrc -eq 0 ] && ! grep -qE 'damaged|cut short|did not finish|bad magic' "$TMPD/rerr2" && grep -q work_a "$TMPD/rep2" &&
	ok "a pipe read to its end: exit 0, a whole trace" || not_ok "a pipe read to its end" "rc=$rc/$rrc" "$(cat "$TMPD/err2" "$TMPD/rerr2")"

# the workload's SIGPIPE is its own: yes | head under record ends at once
timeout 20 "$PMIPROF" record -q -o "$TMPD/y.data" -- sh -c 'yes | head -c 1000 >/dev/null; echo done' >"$TMPD/y.out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q done "$TMPD/y.out" && ok "the workload keeps SIGPIPE's default action (yes | head ends)" ||
	not_ok "the workload keeps SIGPIPE's default" "rc=$rc (124 = yes never stopped)" "$(cat "$TMPD/y.out")"
done_testing
