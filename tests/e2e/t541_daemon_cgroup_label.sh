#!/usr/bin/env bash
# pmiprof daemon's /metrics: comm series also carry a cgroup label, read
# from /proc/PID/cgroup when the process is first seen.  A workload run in a
# cgroup of the test's own making (a cgroup v2 directory; a systemd-run
# --scope unit when systemd runs) shows under that cgroup; one left in the
# test's own cgroup shows under that one; with --top-comms 2 at most two
# (comm, cgroup) pairs are named and the rest is comm="other",cgroup="other".
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "system-wide recording needs root or CAP_PERFMON"
command -v curl >/dev/null || skip_all "curl not installed"
dp=
CG=
trap '[ -n "$dp" ] && kill -9 $dp 2>/dev/null; [ -n "$CG" ] && rmdir "$CG" 2>/dev/null; rm -rf "$TMPD"' EXIT

start_daemon() {	# extra options...
	daemon_start "$TMPD/log" --dir "$TMPD/segs$#" --segment 2 --listen 127.0.0.1:0 -F 1000 "$@"
	[ -n "$port" ] || { not_ok "daemon started" "$(cat "$TMPD/log")"; done_testing; }
}
windows() {	# metrics-file comm cgroup
	awk -v want="pmiprof_windows_total{comm=\"$2\",cgroup=\"$3\"}" '$1 == want {print $2}' "$1"
}

own=$(sed -n 's/^0:://p' /proc/self/cgroup)
[ -n "$own" ] || own=$(sed -n '1s/^[^:]*:[^:]*://p' /proc/self/cgroup)
# a cgroup of our own: the cgroup v2 hierarchy's mount point, a new directory in it
mnt=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
if [ -n "$mnt" ] && mkdir "$mnt/pmiprof-t541-$$" 2>/dev/null; then
	CG=$mnt/pmiprof-t541-$$
	cgpath=/pmiprof-t541-$$
	how="cgroup v2 directory $cgpath"
fi

# --top-comms 1000: on a machine busy with other programs (a build, other tests)
# the workloads are not among the default K most active pairs, and would be
# summed into "other" as they should
start_daemon --top-comms 1000
cp "$WORKLOADS/shares" "$TMPD/t541in"
cp "$WORKLOADS/shares" "$TMPD/t541own"
if [ -n "$CG" ]; then
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" 1.5' sh "$CG" "$TMPD/t541in" >/dev/null &
	p1=$!
fi
"$TMPD/t541own" 1.5 >/dev/null
[ -n "$CG" ] && wait $p1
# the windows reach /metrics at the next drain: ask until both series are there (a loaded
# machine stretches it), at most 30 s
for _ in $(seq 1 60); do
	curl -s "http://127.0.0.1:$port/metrics" >"$TMPD/m"
	[ -n "$(windows "$TMPD/m" t541own "$own")" ] &&
		{ [ -z "$CG" ] || [ -n "$(windows "$TMPD/m" t541in "$cgpath")" ]; } && break
	sleep 0.5
done
if [ -n "$CG" ]; then
	v=$(windows "$TMPD/m" t541in "$cgpath")
	[ -n "$v" ] && [ "$v" -gt 20 ] && ok "a workload in a $how: cgroup=\"$cgpath\" ($v windows)" \
		|| not_ok "workload in its cgroup" "$(grep 'windows_total{comm="t541in"' "$TMPD/m")"
else
	skip "a workload in a cgroup of the test's making" "no writable cgroup v2 hierarchy"
fi
v=$(windows "$TMPD/m" t541own "$own")
[ -n "$v" ] && [ "$v" -gt 20 ] && ok "a workload in the test's own cgroup: cgroup=\"$own\" ($v windows)" \
	|| not_ok "workload in the test's cgroup" "own $own: $(grep 'windows_total{comm="t541own"' "$TMPD/m")"
promtool check metrics <"$TMPD/m" >"$TMPD/lint" 2>&1 && ok "promtool check metrics accepts the labels" || not_ok "promtool" "$(head -5 "$TMPD/lint")"
grep -q '^pmiprof_daemon_cgroup_reads_total [1-9]' "$TMPD/m" && ok "cgroup reads counted" || not_ok "cgroup reads counted"

# systemd-run --scope: the unit's cgroup (only where systemd is PID 1)
if [ "$(ps -p 1 -o comm= 2>/dev/null)" = systemd ] && command -v systemd-run >/dev/null; then
	unit=pmiprof-t541-$$.scope
	cp "$WORKLOADS/shares" "$TMPD/t541unit"
	systemd-run --quiet --scope --unit="$unit" "$TMPD/t541unit" 1.5 >/dev/null 2>&1
	sleep 2.5
	curl -s "http://127.0.0.1:$port/metrics" >"$TMPD/m"
	grep -q "^pmiprof_windows_total{comm=\"t541unit\",cgroup=\"[^\"]*/$unit\"}" "$TMPD/m" \
		&& ok "systemd-run --scope: the unit's cgroup" || not_ok "systemd-run scope" "$(grep t541unit "$TMPD/m")"
else
	skip "systemd-run --scope: the unit's cgroup" "systemd is not PID 1 here"
fi
kill -TERM $dp; wait $dp; dp=

# bounded cardinality: the two busiest (comm, cgroup) pairs by name, the rest as other
start_daemon --top-comms 2
sleep 2
curl -s "http://127.0.0.1:$port/metrics" >"$TMPD/m2"
n=$(grep -c '^pmiprof_windows_total{' "$TMPD/m2")
grep -q '^pmiprof_windows_total{comm="other",cgroup="other"}' "$TMPD/m2" && [ "$n" -le 3 ] \
	&& ok "--top-comms 2: $((n - 1)) named pair(s) and comm=\"other\",cgroup=\"other\"" || not_ok "top-comms 2" "$(grep '^pmiprof_windows_total' "$TMPD/m2")"
kill -TERM $dp; wait $dp; dp=
done_testing
