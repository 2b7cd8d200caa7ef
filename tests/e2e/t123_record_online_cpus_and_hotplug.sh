#!/usr/bin/env bash
# CPUs come from /sys/devices/system/cpu/online, not from a count:
#  - with the list overridden (PMIPROF_SYSFS_CPU_ONLINE), groups are opened
#    on exactly the listed CPUs: every sample on them, header nr_cpus = count;
#  - with a CPU really offline (root, if the kernel lets us; restored on
#    exit), recording works instead of failing on the offline CPU, and the
#    header counts the online CPUs;
#  - a CPU that comes online during a recording is reported at the end as
#    not counted (per-task), or recorded from then on (-a).
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
ncpu=$(getconf _NPROCESSORS_ONLN)
[ "$ncpu" -ge 2 ] || skip_all "needs 2 online CPUs"
dumpf() { "$PMIPROF" dump -i "$1" 2>/dev/null; }
cpus_of() { dumpf "$1" | grep ' sample ' | grep -o ' cpu=[0-9]*' | sort -u | sed 's/ cpu=//' | tr '\n' ' '; }

# 1. Override: only CPU 1 (then only CPU 0), per-task, fallback and -a.  The
# workload runs one spinner pinned on each of CPUs 0 and 1, so both CPUs have
# work to sample whatever else loads the machine; the shell forking them is
# pinned on the listed CPU, as the fallback learns its children from FORK
# records, which only the listed CPU's side-band event sees.
command -v taskset >/dev/null || skip_all "taskset not installed"
for one in 1 0; do
	echo "$one" >"$TMPD/online"
	wl=(taskset -c $one sh -c "taskset -c 0 '$WORKLOADS/shares' 0.4 & taskset -c 1 '$WORKLOADS/shares' 0.4; wait")
	for mode in per-task fallback system-wide; do
		env=() args=(-- "${wl[@]}")
		[ $mode = fallback ] && env=(PMIPROF_FORCE_NO_INHERIT_READ=1)
		[ $mode = system-wide ] && args=(-a -- "${wl[@]}")
		f="$TMPD/o$one$mode.data"
		env "${env[@]}" PMIPROF_SYSFS_CPU_ONLINE="$TMPD/online" "$PMIPROF" record -q -o "$f" "${args[@]}" >/dev/null 2>"$TMPD/err" \
			|| { not_ok "online=$one $mode: record" "$(cat "$TMPD/err")"; continue; }
		got=$(cpus_of "$f") n=$(dumpf "$f" | sed -n 's/^nr_cpus: *//p')
		[ "$got" = "$one " ] && [ "$n" = 1 ] && ok "online=$one $mode: samples only on CPU $one, header nr_cpus 1" \
			|| not_ok "online=$one $mode: samples only on CPU $one, header nr_cpus 1" "cpus: $got nr_cpus: $n"
	done
done
echo "0-x" >"$TMPD/online"
PMIPROF_SYSFS_CPU_ONLINE="$TMPD/online" "$PMIPROF" record -q -o "$TMPD/bad.data" -- true 2>"$TMPD/err"
[ $? -eq 1 ] && grep -q 'cannot list the online CPUs' "$TMPD/err" && ok "a malformed online list is an error naming it" \
	|| not_ok "a malformed online list is an error naming it" "$(cat "$TMPD/err")"

# 2./3. Real hotplug: CPU 1 offline, then back online mid-recording.
c=/sys/devices/system/cpu/cpu1/online
if [ "$(id -u)" -ne 0 ] || [ ! -w $c ]; then
	skip "offline CPU: record works" "not root or CPU 1 cannot be taken offline ($c)"
	done_testing
fi
trap 'echo 1 >'$c' 2>/dev/null; rm -rf "$TMPD"' EXIT
if ! echo 0 >$c 2>/dev/null; then
	skip "offline CPU: record works" "the kernel refused to take CPU 1 offline"
	done_testing
fi
for mode in per-task fallback system-wide; do
	env=() args=(--)
	[ $mode = fallback ] && env=(PMIPROF_FORCE_NO_INHERIT_READ=1)
	[ $mode = system-wide ] && args=(-a --)
	env "${env[@]}" "$PMIPROF" record -o "$TMPD/off.data" "${args[@]}" "$WORKLOADS/shares" 0.3 >/dev/null 2>"$TMPD/err"; rc=$?
	n=$(dumpf "$TMPD/off.data" | sed -n 's/^nr_cpus: *//p')
	[ $rc -eq 0 ] && [ "$n" = $((ncpu - 1)) ] && ok "CPU 1 offline, $mode: record works, header nr_cpus $n" \
		|| not_ok "CPU 1 offline, $mode: record works, header nr_cpus $((ncpu - 1))" "rc=$rc nr_cpus=$n" "$(cat "$TMPD/err")"
done
for mode in per-task system-wide; do
	echo 0 >$c 2>/dev/null
	args=(--); [ $mode = system-wide ] && args=(-a --)
	"$PMIPROF" record -o "$TMPD/h$mode.data" "${args[@]}" "$WORKLOADS/threads2" 3 >/dev/null 2>"$TMPD/h$mode.err" & rp=$!
	sleep 1; echo 1 >$c; wait $rp; rc=$?
	if [ $mode = per-task ]; then
		[ $rc -eq 0 ] && grep -q 'CPU 1 came online during the recording and was not counted' "$TMPD/h$mode.err" \
			&& ok "per-task: a CPU coming online is reported as not counted" \
			|| not_ok "per-task: a CPU coming online is reported as not counted" "rc=$rc" "$(cat "$TMPD/h$mode.err")"
	else
		[ $rc -eq 0 ] && grep -q 'CPU 1 came online: recording it from now on' "$TMPD/h$mode.err" \
			&& [[ " $(cpus_of "$TMPD/h$mode.data")" == *" 1 "* ]] \
			&& ok "-a: a CPU coming online is recorded from then on" \
			|| not_ok "-a: a CPU coming online is recorded from then on" "rc=$rc cpus: $(cpus_of "$TMPD/h$mode.data")" "$(cat "$TMPD/h$mode.err")"
	fi
done
done_testing
