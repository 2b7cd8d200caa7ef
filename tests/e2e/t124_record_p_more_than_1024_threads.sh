#!/usr/bin/env bash
# -p opens every thread of the target, however many: a process with 1100
# threads whose last-created thread spins has that thread sampled (a fixed
# table of 1024 thread ids once left it out, silently), on the per-task
# path and in the fallback.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/many_threads" ] || skip_all "workload many_threads not built"
# per-task: 1100 threads x CPUs x 4 events descriptors
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
need=$((1100 * $(getconf _NPROCESSORS_ONLN) * 4 + 64))
[ "$(ulimit -n)" -ge $need ] || skip_all "needs 'ulimit -n' >= $need"
for mode in per-task fallback; do
	env=(); [ $mode = fallback ] && env=(PMIPROF_FORCE_NO_INHERIT_READ=1)
	"$WORKLOADS/many_threads" 1100 4 >"$TMPD/$mode.wl" & wp=$!
	for i in $(seq 100); do grep -q ready "$TMPD/$mode.wl" && break; sleep 0.1; done
	tid=$(awk '/ready/ { print $2 }' "$TMPD/$mode.wl")
	nt=$(ls /proc/$wp/task 2>/dev/null | wc -l)
	# until the process exits (its spinner ends it after 4 s)
	env "${env[@]}" "$PMIPROF" record -o "$TMPD/$mode.data" -p $wp >/dev/null 2>"$TMPD/$mode.err"; rc=$?
	wait $wp 2>/dev/null
	[ $rc -eq 0 ] && ok "$mode: -p on $nt threads records" || not_ok "$mode: -p on $nt threads records" "rc=$rc" "$(cat "$TMPD/$mode.err")"
	n=$("$PMIPROF" dump -i "$TMPD/$mode.data" 2>/dev/null | grep -c " sample .*tid=$tid ")
	[ -n "$tid" ] && [ "$n" -ge 100 ] && ok "$mode: the last of $nt threads is sampled ($n samples)" \
		|| not_ok "$mode: the last of $nt threads is sampled" "tid=$tid samples=$n"
done
done_testing
