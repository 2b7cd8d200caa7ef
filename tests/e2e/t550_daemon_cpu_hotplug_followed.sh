#!/usr/bin/env bash
# CPU hotplug on a real machine (root, /sys/devices/system/cpu/cpuN/online
# writable): the daemon follows a CPU that goes offline and comes back.
# While it is offline, /metrics says 1 CPU online and 1 recorded and the
# lost time grows; once it is back, both gauges say 2, /healthz is 200, a
# program exec'd pinned to that CPU is recorded under its own name (its
# COMM came from the CPU's new events), and the trace holds a LOST
# cpu-offline record whose duration matches the time offline.  Before the
# daemon reopened the CPU's events, that program had no sample at all.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "system-wide recording and CPU hotplug need root"
command -v curl >/dev/null || skip_all "curl not installed"
command -v taskset >/dev/null || skip_all "taskset not installed"
# the highest online CPU but CPU 0 (which cannot go offline on x86)
CPU=$(tr ',' '\n' </sys/devices/system/cpu/online | sed 's/.*-//' | sort -n | tail -1)
[ "${CPU:-0}" -gt 0 ] || skip_all "only one CPU online"
ON=/sys/devices/system/cpu/cpu$CPU/online
[ -w "$ON" ] || skip_all "$ON is not writable here (a container?): tests/vm covers none yet"
dp=
# whatever happens, the CPU goes back online
trap 'echo 1 >"$ON" 2>/dev/null; [ -n "$dp" ] && kill -9 $dp 2>/dev/null; rm -rf "$TMPD"' EXIT

D=$TMPD/segs
daemon_start "$TMPD/log" --dir "$D" --segment 2 --listen 127.0.0.1:0 -F 199 --top-comms 1000
[ -n "$port" ] || { not_ok "daemon serving" "$(cat "$TMPD/log")"; done_testing; }
U=http://127.0.0.1:$port
metric() { curl -s --max-time 10 "$U/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
# a value v of metric m within t tenths of a second, else what it was
wait_metric() {
	local m=$1 want=$2 i v
	for i in $(seq "${3:-50}"); do
		v=$(metric "$m")
		[ "$v" = "$want" ] && { echo "$v"; return 0; }
		sleep 0.1
	done
	echo "$v"; return 1
}
v=$(wait_metric pmiprof_daemon_cpus_recorded 2 20) && ok "all CPUs recorded at start (cpus_recorded $v)" \
	|| not_ok "cpus_recorded at start" "$v"

echo 0 >"$ON" || { not_ok "CPU $CPU offline" "write failed"; done_testing; }
t_off=$(date +%s.%N)
v=$(wait_metric pmiprof_daemon_cpus_online 1) && ok "offline: cpus_online 1" || not_ok "cpus_online while offline" "$v"
[ "$(metric pmiprof_daemon_cpus_recorded)" = 1 ] && ok "offline: cpus_recorded 1 (the online one)" \
	|| not_ok "cpus_recorded while offline" "$(metric pmiprof_daemon_cpus_recorded)"
sleep 3
u1=$(metric pmiprof_daemon_cpu_unrecorded_seconds_total)
python3 -c 'import sys; sys.exit(not 2.0 <= float(sys.argv[1]) <= 10)' "${u1:-0}" \
	&& ok "offline: unrecorded seconds grow while it is offline ($u1 s after 3 s)" \
	|| not_ok "unrecorded seconds while offline" "$u1"
echo 1 >"$ON"
t_on=$(date +%s.%N)
v=$(wait_metric pmiprof_daemon_cpus_recorded 2 50) && ok "back: cpus_recorded 2" \
	|| not_ok "cpus_recorded after the CPU came back" "$v $(tail -5 "$TMPD/log")"
code=$(curl -s -o /dev/null -w '%{http_code}' "$U/healthz")
[ "$code" = 200 ] && ok "back: /healthz 200" || not_ok "/healthz once the CPU is back" "$code"
grep -q "CPU $CPU went offline" "$TMPD/log" && grep -q "CPU $CPU is online again" "$TMPD/log" \
	&& ok "the log says when it went and came back" || not_ok "log lines" "$(tail -5 "$TMPD/log")"

# a program of its own name, exec'd on that CPU only, after it came back
W=t550work
cp "$WORKLOADS/shares" "$TMPD/$W"
taskset -c "$CPU" "$TMPD/$W" 2 >/dev/null
sleep 1.5
mw=$(curl -s "$U/metrics" | awk -v w="$W" 'index($0, "pmiprof_windows_total{comm=\"" w "\"") == 1 { s += $2 } END { print s + 0 }')
u2=$(metric pmiprof_daemon_cpu_unrecorded_seconds_total)
kill -TERM $dp; wait $dp; dp=
[ "${mw:-0}" -gt 100 ] && ok "a program on CPU $CPU after it came back is in /metrics under its name ($mw windows)" \
	|| not_ok "windows of $W on CPU $CPU" "$mw"
"$PMIPROF" report -q -i "$D" --comm $W >"$TMPD/rep" 2>&1
rw=$(grep -o '[0-9]* shown after filters' "$TMPD/rep" | grep -o '^[0-9]*')
[ "${rw:-0}" -gt 100 ] && ok "report -i DIR --comm $W: $rw samples" || not_ok "report of $W" "$(head -5 "$TMPD/rep")"
for f in "$D"/seg-*; do "$PMIPROF" dump -i "$f"; done >"$TMPD/dump" 2>/dev/null
lost=$(grep -i 'lost' "$TMPD/dump" | grep -c 'cpu-offline')
dur=$(grep -i 'lost' "$TMPD/dump" | grep 'cpu-offline' | head -1)
[ "$lost" -ge 1 ] && ok "the trace has a LOST cpu-offline record ($dur)" || not_ok "LOST cpu-offline in the trace" "$(grep -i lost "$TMPD/dump" | head -5)"
python3 -c '
import sys
u, off, on = map(float, sys.argv[1:4])
sys.exit(not (abs(u - (on - off)) <= 1.0))' "${u2:-0}" "$t_off" "$t_on" \
	&& ok "unrecorded seconds ($u2) = the time offline within 1 s" \
	|| not_ok "unrecorded seconds against the time offline" "$u2 vs $t_off..$t_on"
"$PMIPROF" report -i "$D" >/dev/null 2>"$TMPD/rerr"
grep -q "went offline and was not recorded" "$TMPD/rerr" && ok "report -i DIR warns of the CPU offline" \
	|| not_ok "report's warning" "$(head -5 "$TMPD/rerr")"
done_testing
