#!/usr/bin/env bash
# -p takes processes and records each once: "-p P,P" and "-p P,TID" (TID a
# thread of P, which stands for its whole process, as with perf -p) give the
# same samples per CPU-second of the target as "-p P" (within 20 %; doubled
# targets give +100 %), and a thread id alone records its process until the
# process exits.  The target: one thread spinning (thread_dlopen's worker)
# while the main thread sleeps.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/thread_dlopen" ] || skip_all "workload thread_dlopen not built"
"$WORKLOADS/thread_dlopen" 60 >"$TMPD/wl" & wp=$!
trap 'kill $wp 2>/dev/null; rm -rf "$TMPD"' EXIT
for i in $(seq 50); do grep -q waiting "$TMPD/wl" && break; sleep 0.1; done
tid=$(ls /proc/$wp/task | grep -vx $wp | head -1)
[ -n "$tid" ] || skip_all "no worker thread found"
kill -USR1 $wp
sleep 0.3

# rate NAME TARGETS: samples per second of the spinner's CPU time (schedstat,
# ns) in a 1.5 s recording stopped by SIGINT: a loaded machine gives the
# spinner less CPU, but each CPU-second of it is still ~10000 samples once.
oncpu() { awk '{ print $1 }' /proc/$wp/task/$tid/schedstat; }
rate() {
	local t0 t1
	t0=$(oncpu)
	timeout -s INT 1.5 "$PMIPROF" record -o "$TMPD/$1.data" -p "$2" 2>"$TMPD/$1.err"
	t1=$(oncpu)
	sed -n 's/.*recorded \([0-9]*\) samples .*/\1/p' "$TMPD/$1.err" \
		| awk -v ns=$((t1 - t0)) 'ns > 0 { printf "%.0f\n", $1 / (ns / 1e9) }'
}
base=$(rate one "$wp")
[ -n "$base" ] && [ "$base" -gt 100 ] && ok "-p P: $base samples per CPU-second" || not_ok "-p P records" "$(cat "$TMPD/one.err")"
base=${base:-0}
near() { awk -v r="$1" -v b="$base" 'BEGIN { exit !(r != "" && b > 0 && r <= b * 1.2 && r >= b * 0.8) }'; }
for c in "P,P:$wp,$wp" "P,TID:$wp,$tid" "TID,P:$tid,$wp" "TID:$tid"; do
	name=${c%%:*} r=$(rate "x$name" "${c#*:}")
	near "$r" && ok "-p $name: $r samples per CPU-second, within 20 % of -p P ($base)" \
		|| not_ok "-p $name: ${r:-no} samples per CPU-second, within 20 % of -p P ($base)" "$(cat "$TMPD/x$name.err")"
done
grep -q "notice: -p $tid is a thread of process $wp" "$TMPD/xP,TID.err" \
	&& ok "says a thread id stands for its process" || not_ok "says a thread id stands for its process" "$(cat "$TMPD/xP,TID.err")"
grep -q 'all target processes exited' "$TMPD/xTID.err" \
	&& not_ok "-p TID does not stop while the process runs" "$(cat "$TMPD/xTID.err")" \
	|| ok "-p TID does not stop while the process runs"
n=$("$PMIPROF" dump -i "$TMPD/xTID.data" 2>/dev/null | grep -c " sample .*pid=$wp .*tid=$tid ")
[ "$n" -gt 100 ] && ok "-p TID records the process's spinning thread ($n samples)" || not_ok "-p TID records the thread" "$n"
done_testing
