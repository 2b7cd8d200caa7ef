#!/usr/bin/env bash
# -p takes processes and records each once: "-p P,P" and "-p P,TID" (TID a
# thread of P, which stands for its whole process, as with perf -p) give the
# same sample rate as "-p P" (within 30 %: a loaded machine varies; doubled
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

# rate NAME TARGETS: samples per second of a 1.5 s recording (stopped by SIGINT)
rate() {
	timeout -s INT 1.5 "$PMIPROF" record -o "$TMPD/$1.data" -p "$2" 2>"$TMPD/$1.err"
	sed -n 's/.*recorded \([0-9]*\) samples .* in \([0-9.]*\) s .*/\1 \2/p' "$TMPD/$1.err" \
		| awk '$2 > 0 { printf "%.0f\n", $1 / $2 }'
}
base=$(rate one "$wp")
[ -n "$base" ] && [ "$base" -gt 100 ] && ok "-p P: $base samples/s" || not_ok "-p P records" "$(cat "$TMPD/one.err")"
base=${base:-0}
near() { awk -v r="$1" -v b="$base" 'BEGIN { exit !(r != "" && b > 0 && r <= b * 1.3 && r >= b * 0.7) }'; }
for c in "P,P:$wp,$wp" "P,TID:$wp,$tid" "TID,P:$tid,$wp" "TID:$tid"; do
	name=${c%%:*} r=$(rate "x$name" "${c#*:}")
	near "$r" && ok "-p $name: $r samples/s, within 30 % of -p P ($base)" \
		|| not_ok "-p $name: ${r:-no} samples/s, within 30 % of -p P ($base)" "$(cat "$TMPD/x$name.err")"
done
grep -q "notice: -p $tid is a thread of process $wp" "$TMPD/xP,TID.err" \
	&& ok "says a thread id stands for its process" || not_ok "says a thread id stands for its process" "$(cat "$TMPD/xP,TID.err")"
n=$("$PMIPROF" dump -i "$TMPD/xTID.data" 2>/dev/null | grep -c " sample .*pid=$wp .*tid=$tid ")
[ "$n" -gt 100 ] && ok "-p TID records the process's spinning thread ($n samples)" || not_ok "-p TID records the thread" "$n"
done_testing
