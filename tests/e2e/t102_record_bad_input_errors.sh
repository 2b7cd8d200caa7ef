#!/usr/bin/env bash
# Bad input to record fails before anything starts, with a specific message:
# missing or non-executable command, nonexistent pid, bad periods and
# frequencies (with the valid range), unknown events (with suggestions).
. "$(dirname "$0")/../lib.sh"
expect() {	# name, expected rc, regexp, args...
	local name=$1 erc=$2 re=$3; shift 3
	"$PMIPROF" record -o "$TMPD/x.data" "$@" >/dev/null 2>"$TMPD/err"; local rc=$?
	if [ $rc -eq "$erc" ] && grep -Eq "$re" "$TMPD/err"; then ok "$name"
	else not_ok "$name" "rc=$rc (want $erc)" "$(cat "$TMPD/err")"; fi
}
expect "command not found" 1 "cannot run 'no-such-cmd-xyz': command not found" -- no-such-cmd-xyz
[ -e "$TMPD/x.data" ] && not_ok "no trace for a missing command" || ok "no trace for a missing command"
printf '#!/bin/sh\n' >"$TMPD/noexec"; chmod 644 "$TMPD/noexec"
if [ "$(id -u)" -eq 0 ]; then
	# root may execute anything with an x bit; a file without any is still refused
	expect "not executable" 1 "not executable|Permission denied" -- "$TMPD/noexec"
else
	expect "not executable" 1 "not executable|Permission denied" -- "$TMPD/noexec"
fi
expect "directory as command" 1 "cannot run" -- /tmp
pid=999999; while kill -0 $pid 2>/dev/null; do pid=$((pid - 1)); done
expect "-p with nonexistent pid" 1 "no such process" -p $pid
expect "-p with garbage" 2 "invalid pid list" -p 12x
expect "period 0" 2 "invalid period '0': valid is 1\.\." -c 0 -- true
expect "negative period" 2 "invalid period '-5': valid is 1\.\." -c -5 -- true
expect "period above the counter limit" 2 "valid is 1\.\.|valid is" -e instructions -c 999999999999999 -- true
expect "clock period below 10 us" 2 "valid is 10000\.\." -e cpu-clock -c 500 -- true
expect "frequency 0" 2 "invalid frequency '0'" -F 0 -- true
expect "frequency above max_sample_rate" 2 "valid is 1\.\.[0-9]+ \(kernel.perf_event_max_sample_rate\)" -F 900000000 -- true
expect "-c and -F together" 2 "mutually exclusive" -c 1000 -F 100 -- true
expect "unknown event with suggestion" 2 "unknown event 'instrucions'; did you mean 'instructions'" -e instrucions -- true
expect "unknown event, page-fault" 2 "did you mean 'page-faults'" -e cpu-clock,page-fault -- true
expect "bad modifier" 2 "unknown modifier" -e cpu-clock:q -- true
expect "two triggers" 2 "only one event can be the trigger" -e cpu-clock:T,task-clock:T -- true
expect "nothing to record" 2 "nothing to record"
expect "unknown backend" 2 "unknown backend 'foo'" --backend foo -- true
expect "unknown option" 2 "unknown option" --frob -- true
if have_perf_sw && ! have_perf_hw; then
	# explicit hardware events are never silently replaced
	expect "explicit hardware event without a PMU" 1 "event 'cycles' is not supported on this machine; no hardware PMU\\? try -e cpu-clock" -e cycles,instructions -- true
	expect "explicit raw event without a PMU" 1 "event 'r00c0' is not supported" -e r00c0 -- true
fi
if [ -e /dev/pmiprof ]; then skip "module backend without device" "/dev/pmiprof exists"
else expect "module backend without device" 1 "module" --backend module -- true; fi
done_testing
