#!/usr/bin/env bash
# The default output is pmiprof.data in the current directory; an existing
# trace is kept as FILE.old (perf's convention); an unwritable output fails
# before the workload starts.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
cd "$TMPD" || exit 1
"$PMIPROF" record -q -- "$WORKLOADS/shares" 0.05 >/dev/null 2>&1
[ -s pmiprof.data ] && ok "default output pmiprof.data" || not_ok "default output pmiprof.data"
sum1=$(cksum <pmiprof.data)
"$PMIPROF" record -q -- "$WORKLOADS/shares" 0.05 >/dev/null 2>&1
[ -s pmiprof.data.old ] && [ "$(cksum <pmiprof.data.old)" = "$sum1" ] && ok "previous trace kept as pmiprof.data.old" || not_ok "previous trace rotated"
"$PMIPROF" dump -i pmiprof.data >/dev/null 2>&1 && ok "new trace readable" || not_ok "new trace readable"
"$PMIPROF" record -q -o "$TMPD/no/such/dir/t.data" -- sh -c "touch '$TMPD/ran'" 2>"$TMPD/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'cannot create' "$TMPD/err" && ok "unwritable output: error, exit 1" || not_ok "unwritable output" "rc=$rc" "$(cat "$TMPD/err")"
[ -e "$TMPD/ran" ] && not_ok "workload not started when the output fails" || ok "workload not started when the output fails"
done_testing
