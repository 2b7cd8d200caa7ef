#!/usr/bin/env bash
# -p attached to a process whose worker thread, already running at the
# attach, later dlopen()s a library and spins in it: the worker's MMAP must
# be recorded (side-band of every thread, not only of the main one), so the
# report puts the library function on top (>= 80 %), not [unknown].  Both
# the per-task path and the kernel < 6.12 fallback
# (PMIPROF_FORCE_NO_INHERIT_READ=1).
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/thread_dlopen" ] && [ -f "$WORKLOADS/libpmwork.so" ] || skip_all "workload thread_dlopen not built"

# run MODE ENV...: attach to a waiting thread_dlopen, let its worker start.
run() {
	local mode=$1 wp rp i; shift
	"$WORKLOADS/thread_dlopen" 1.0 >"$TMPD/$mode.wl" & wp=$!
	for i in $(seq 50); do grep -q waiting "$TMPD/$mode.wl" && break; sleep 0.1; done
	env "$@" "$PMIPROF" record -o "$TMPD/$mode.data" -p $wp 2>"$TMPD/$mode.err" & rp=$!
	for i in $(seq 100); do grep -q 'recording with' "$TMPD/$mode.err" && break; sleep 0.1; done
	sleep 0.2
	kill -USR1 $wp
	wait $wp; wait $rp; rc=$?
	[ $rc -eq 0 ] && ok "$mode: -p recording ends with the target" \
		|| not_ok "$mode: -p recording" "rc=$rc" "$(cat "$TMPD/$mode.err")"
	"$PMIPROF" report -i "$TMPD/$mode.data" --format csv >"$TMPD/$mode.csv" 2>"$TMPD/$mode.rerr"
	# the share of user-space windows: a loaded VM puts up to a fifth of them
	# in the kernel's interrupt paths (pvm_irq_enable)
	top=$(awk -F, 'NR > 1 && $2 ~ /^[0-9.]+$/ && $4 != "[kernel.kallsyms]" { if (!name) { name = $3; n = $1 } u += $1 }
		END { if (u) printf "%s,%.2f\n", name, 100 * n / u }' "$TMPD/$mode.csv")
	pct=${top#*,}
	[ "${top%%,*}" = pmwork_lib_spin ] && awk -v p="$pct" 'BEGIN { exit !(p >= 80) }' \
		&& ok "$mode: library function of the worker thread on top ($pct % of user-space windows)" \
		|| not_ok "$mode: library function of the worker thread on top (>= 80 % of user-space windows)" "$(head -5 "$TMPD/$mode.csv")"
	grep -q " mmap .*libpmwork.so" <("$PMIPROF" dump -i "$TMPD/$mode.data" 2>&1) \
		&& ok "$mode: MMAP of the library dlopen()ed by the worker" || not_ok "$mode: MMAP of the library"
}
run per-task PMIPROF_X=1
if PMIPROF_FORCE_NO_INHERIT_READ=1 "$PMIPROF" record -q -o "$TMPD/probe.data" -- true 2>"$TMPD/probe.err"; then
	run fallback PMIPROF_FORCE_NO_INHERIT_READ=1
else
	skip "fallback: side-band of every thread" "per-CPU events not usable: $(head -1 "$TMPD/probe.err")"
fi
done_testing
