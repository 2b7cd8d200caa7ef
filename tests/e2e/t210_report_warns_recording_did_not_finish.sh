#!/usr/bin/env bash
# A recorder killed with SIGKILL leaves a trace without its FINISH record:
# the report reads it but says, on stderr and in the header (text and JSON),
# that the recording did not finish, instead of looking complete.  A
# recording that finished says nothing of the kind.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open of software events not permitted here"
"$PMIPROF" record -q -o "$TMPD/k.data" -- "$WORKLOADS/shares" 3 >/dev/null 2>&1 &
rec=$!
sleep 1.5
child=$(pgrep -P $rec | head -1)
kill -9 $rec
wait $rec 2>/dev/null
[ -n "$child" ] && kill -9 "$child" 2>/dev/null

"$PMIPROF" report -i "$TMPD/k.data" >"$TMPD/out" 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && grep -q ' samples (windows)' "$TMPD/out" && ok "report reads the trace of a killed recorder (exit 0)" \
	|| not_ok "report reads the trace of a killed recorder" "rc=$rc" "$(cat "$TMPD/err")"
grep -q 'warning: .*the recording did not finish' "$TMPD/err" && ok "stderr warns that the recording did not finish" \
	|| not_ok "stderr warns that the recording did not finish" "$(cat "$TMPD/err")"
grep -q '^# WARNING: the recording did not finish' "$TMPD/out" && ok "the header says the recording did not finish" \
	|| not_ok "the header says the recording did not finish" "$(head -12 "$TMPD/out")"
"$PMIPROF" report -i "$TMPD/k.data" --format json 2>/dev/null >"$TMPD/json"
python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["meta"]; sys.exit(0 if m["finished"] is False else 1)' "$TMPD/json" \
	&& ok "JSON meta: finished false" || not_ok "JSON meta: finished false" "$(head -c 1500 "$TMPD/json")"
"$PMIPROF" report -i "$TMPD/k.data" --format csv >/dev/null 2>"$TMPD/cerr"
grep -q 'did not finish' "$TMPD/cerr" && ok "CSV (no header): the warning is on stderr" \
	|| not_ok "CSV: the warning is on stderr" "$(cat "$TMPD/cerr")"

"$PMIPROF" record -q -o "$TMPD/d.data" -- "$WORKLOADS/shares" 0.3 >/dev/null 2>&1
"$PMIPROF" report -i "$TMPD/d.data" >"$TMPD/dout" 2>"$TMPD/derr"; rc=$?
[ $rc -eq 0 ] && ! grep -qi 'did not finish\|interrupted\|stopped on an error' "$TMPD/dout" "$TMPD/derr" \
	&& ok "a finished recording: no such warning" || not_ok "a finished recording: no such warning" "rc=$rc" "$(cat "$TMPD/derr")"
"$PMIPROF" report -i "$TMPD/d.data" --format json 2>/dev/null >"$TMPD/djson"
python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["meta"]; sys.exit(0 if m["finished"] is True and m["interrupted"] is False else 1)' "$TMPD/djson" \
	&& ok "JSON meta of a finished recording: finished true" || not_ok "JSON meta of a finished recording" "$(head -c 1500 "$TMPD/djson")"
done_testing
