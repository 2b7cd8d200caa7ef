#!/usr/bin/env bash
# The durability promise of docs/record.md: the trace is fdatasync()ed at
# least once a second while recording and once more at close, so a power
# loss costs at most about a second of windows.  Checked with strace.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v strace >/dev/null || skip_all "strace not installed"
secs=3
strace -f -qq -e trace=fdatasync,exit_group -o "$TMPD/strace" \
	"$PMIPROF" record -q -o "$TMPD/t.data" -- "$WORKLOADS/crasher" $secs exit:0 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && ok "record under strace succeeds" || not_ok "record under strace" "rc=$rc" "$(cat "$TMPD/err")"
rpid=$(head -1 "$TMPD/strace" | awk '{print $1}')
syncs=$(grep -c "^$rpid  *fdatasync(.*= 0" "$TMPD/strace")
# one per elapsed second (the first at 1 s) plus the one at close
[ "$syncs" -ge $secs ] && ok "$syncs fdatasync calls for a $secs s recording (>= 1/s + close)" \
	|| not_ok "fdatasync at least once a second and at close" "calls: $syncs" "$(cat "$TMPD/strace")"
# The close one comes after the workload exited.
wl_exit=$(grep -n 'exit_group' "$TMPD/strace" | grep -v "^[0-9]*:$rpid " | head -1 | cut -d: -f1)
last_sync=$(grep -n "^$rpid  *fdatasync" "$TMPD/strace" | tail -1 | cut -d: -f1)
[ -n "$wl_exit" ] && [ -n "$last_sync" ] && [ "$last_sync" -gt "$wl_exit" ] \
	&& ok "the trace is synced once more after the workload exits" \
	|| not_ok "fdatasync at close" "workload exit at line ${wl_exit:-?}, last sync at ${last_sync:-?}" "$(cat "$TMPD/strace")"
"$PMIPROF" dump -i "$TMPD/t.data" >"$TMPD/dump" 2>&1
grep -q 'finished yes' "$TMPD/dump" && ok "trace complete" || not_ok "trace complete" "$(tail -2 "$TMPD/dump")"
done_testing
