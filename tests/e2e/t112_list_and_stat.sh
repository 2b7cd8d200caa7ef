#!/usr/bin/env bash
# pmiprof list shows the events usable here (software ones always; hardware
# ones only with a PMU, or with --all marked [not supported]); pmiprof stat
# counts a command's events, marks unsupported ones, passes the exit status.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
"$PMIPROF" list >"$TMPD/list" 2>&1; rc=$?
[ $rc -eq 0 ] && ok "list exits 0" || not_ok "list exits 0"
for e in cpu-clock task-clock page-faults context-switches; do
	grep -q "^  $e" "$TMPD/list" && ok "list shows $e" || not_ok "list shows $e"
done
if have_perf_hw; then
	grep -q '^  instructions' "$TMPD/list" && ok "list shows instructions (PMU present)" || not_ok "list shows instructions"
else
	grep -q '^  instructions' "$TMPD/list" && not_ok "no PMU: instructions not listed as usable" || ok "no PMU: instructions not listed as usable"
	"$PMIPROF" list --all >"$TMPD/all" 2>&1
	grep -q '^  instructions.*\[not supported\]' "$TMPD/all" && ok "list --all marks instructions [not supported]" || not_ok "list --all marks unsupported"
fi
"$PMIPROF" list clock | grep -c '^  ' | grep -qx 2 && ok "list PATTERN filters" || not_ok "list PATTERN filters" "$("$PMIPROF" list clock)"
LIBPFM_FORCE_PMU=skl "$PMIPROF" list --all --pfm BR_MISP_RETIRED >"$TMPD/pfm" 2>&1
grep -q 'skl::BR_MISP_RETIRED' "$TMPD/pfm" && ok "libpfm4 events listed (LIBPFM_FORCE_PMU=skl)" || not_ok "libpfm4 events listed" "$(head -5 "$TMPD/pfm")"

"$PMIPROF" stat -- "$WORKLOADS/crasher" 0.2 exit:3 >/dev/null 2>"$TMPD/stat"; rc=$?
[ $rc -eq 3 ] && ok "stat passes the exit status" || not_ok "stat passes the exit status" "rc=$rc"
tc=$(awk '$2=="msec" && $3=="task-clock" { print int($1) }' "$TMPD/stat")
[ "${tc:-0}" -ge 10 ] && ok "stat counts task-clock ($tc ms)" || not_ok "stat task-clock" "$(cat "$TMPD/stat")"
grep -q 'seconds time elapsed' "$TMPD/stat" && ok "stat prints elapsed time" || not_ok "stat prints elapsed time"
if ! have_perf_hw; then
	grep -q '<not supported>.*instructions' "$TMPD/stat" && ok "stat marks instructions <not supported>" || not_ok "stat marks unsupported" "$(cat "$TMPD/stat")"
fi
# Fixed work in two threads: CPU time does not depend on machine load, so
# the inherited count must match perf stat's for the same run.
"$PMIPROF" stat -x, -e task-clock,page-faults -- "$WORKLOADS/threads2" -n 3000 >/dev/null 2>"$TMPD/csv"
grep -Eq '^[0-9]+,task-clock,[0-9.]+$' "$TMPD/csv" && grep -Eq '^[0-9]+,page-faults,' "$TMPD/csv" && ok "stat -x, CSV lines" || not_ok "stat -x, CSV" "$(cat "$TMPD/csv")"
ours=$(awk -F, '$2=="task-clock" { print $1 }' "$TMPD/csv")
ref=$(perf stat -x, -e task-clock -- "$WORKLOADS/threads2" -n 3000 2>&1 >/dev/null | awk -F, '$3 ~ /task-clock/ { print $1 * 1e6 }')
perl -e 'exit($ARGV[1] > 0 && abs($ARGV[0] - $ARGV[1]) <= 0.25 * $ARGV[1] ? 0 : 1)' "${ours:-0}" "${ref:-0}" \
	&& ok "stat follows threads: task-clock matches perf stat +-25% ($ours vs $ref ns)" || not_ok "stat follows threads" "$ours vs $ref"
"$PMIPROF" stat -e nosuchevent -- true 2>"$TMPD/err"; rc=$?
[ $rc -eq 2 ] && grep -q 'unknown event' "$TMPD/err" && ok "stat: unknown event is a usage error" || not_ok "stat unknown event" "$rc"
# -p: every existing thread counted, stops by itself when the target exits
"$WORKLOADS/threads2" 0.6 >/dev/null & tp=$!
sleep 0.1
timeout 10 "$PMIPROF" stat -x, -e task-clock -p $tp 2>"$TMPD/p.csv"; rc=$?
wait $tp
[ $rc -eq 0 ] && ok "stat -p ends when the target exits" || not_ok "stat -p ends when the target exits" "rc=$rc"
tc=$(awk -F, '$2=="task-clock" { print int($1 / 1e6) }' "$TMPD/p.csv")
el=$(awk -F, '$2=="task-clock" { print 1 }' "$TMPD/p.csv")
[ "${el:-0}" -eq 1 ] && [ "${tc:-0}" -gt 0 ] && ok "stat -p counts the running threads ($tc ms)" || not_ok "stat -p counts" "$(cat "$TMPD/p.csv")"
# libpfm4 is loaded when an event is named, not at every start (a report never needs it)
"$PMIPROF" record -q -o "$TMPD/pf.data" -- true >/dev/null 2>&1
LD_DEBUG=libs "$PMIPROF" report -i "$TMPD/pf.data" >/dev/null 2>"$TMPD/ld.report"
LD_DEBUG=libs "$PMIPROF" list >/dev/null 2>"$TMPD/ld.list"
! grep -q 'libpfm' "$TMPD/ld.report" && grep -q 'calling init: .*libpfm' "$TMPD/ld.list" &&
	ok "libpfm4 loaded by list (dlopen), not by report" ||
	not_ok "libpfm4 loaded by list (dlopen), not by report" "$(grep -c libpfm "$TMPD/ld.report") in report, $(grep -c libpfm "$TMPD/ld.list") in list"
done_testing
