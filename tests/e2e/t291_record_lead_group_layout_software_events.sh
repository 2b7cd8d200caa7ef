#!/usr/bin/env bash
# The PERF_METRICS group layout (a non-sampling leader, counting members,
# the trigger sampling as a member with PERF_SAMPLE_READ|PERF_FORMAT_GROUP)
# run for real with software events: PMIPROF_TEST_LEAD_GROUP=2 makes the
# first two events a lead group as slots + metrics are on Ice Lake.  Per
# task, -a and the kernel < 6.12 fallback: samples arrive, every window's
# counts land in their own columns (task-clock ~ cpu-clock per window,
# page-faults small), the trigger is the first event outside the group, and
# the leader's side-band symbolizes the workload.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open with software events not available"
WL=$WORKLOADS/phases3
# columns of each sample: task-clock page-faults cpu-clock
counts() { "$PMIPROF" dump -i "$1" | awk '$2 == "sample" {
	for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	print v["task-clock"], v["page-faults"], v["cpu-clock"] }'; }
check_trace() {	# name file
	local name=$1 f=$2 n med faults
	n=$(counts "$f" | wc -l)
	[ "$n" -ge 100 ] && ok "$name: $n windows" || not_ok "$name: windows" "n=$n"
	"$PMIPROF" dump -i "$f" | grep -q '^trigger: *event 2 "cpu-clock"' &&
		ok "$name: trigger cpu-clock, the first event outside the lead group" ||
		not_ok "$name: trigger" "$("$PMIPROF" dump -i "$f" | grep '^trigger')"
	# task-clock and cpu-clock both time the workload's CPU in a window
	med=$(counts "$f" | awk '$3 > 0 { print $1 / $3 }' | sort -g | awk '{ a[NR] = $1 }
		END { print a[int((NR + 1) / 2)] }')
	awk -v m="$med" 'BEGIN { exit !(m > 0.8 && m < 1.25) }' &&
		ok "$name: task-clock / cpu-clock per window, median $med" ||
		not_ok "$name: task-clock / cpu-clock per window" "median $med"
	faults=$(counts "$f" | awk '{ s += $2; if ($2 > m) m = $2 } END { print s + 0, m + 0 }')
	set -- $faults
	[ "$1" -gt 0 ] && [ "$2" -lt 100000 ] && ok "$name: page-faults in their column (sum $1, max $2)" ||
		not_ok "$name: page-faults column" "sum/max $faults"
	"$PMIPROF" report -i "$f" 2>/dev/null | grep -q 'phase_alu .*phases3' &&
		ok "$name: samples symbolized (side-band from the leader)" ||
		not_ok "$name: symbolized" "$("$PMIPROF" report -i "$f" 2>&1 | head -20)"
}
rec() {	# file, extra args...
	local f=$1; shift
	PMIPROF_TEST_LEAD_GROUP=2 "$PMIPROF" record -q --backend perf -o "$f" \
		-e task-clock,page-faults,cpu-clock -c 1000000 "$@" >/dev/null 2>"$f.err"
}
rec "$TMPD/task.data" -- "$WL" && ok "per-task: record exits 0" || not_ok "per-task record" "$(cat "$TMPD/task.data.err")"
check_trace per-task "$TMPD/task.data"
PMIPROF_FORCE_NO_INHERIT_READ=1 rec "$TMPD/fb.data" -- "$WL" &&
	ok "fallback: record exits 0" || not_ok "fallback record" "$(cat "$TMPD/fb.data.err")"
check_trace fallback "$TMPD/fb.data"
if rec "$TMPD/sys.data" -a -- "$WL"; then
	ok "-a: record exits 0"
	check_trace -a "$TMPD/sys.data"
else
	grep -q 'not permitted' "$TMPD/sys.data.err" && skip "-a" "not permitted here" ||
		not_ok "-a record" "$(cat "$TMPD/sys.data.err")"
fi
# The same events in the ordinary layout (cpu-clock:T leads): the same figures.
"$PMIPROF" record -q --backend perf -o "$TMPD/plain.data" -e task-clock,page-faults,cpu-clock:T \
	-c 1000000 -- "$WL" >/dev/null 2>&1
a=$(counts "$TMPD/task.data" | awk '{ t += $1; c += $3 } END { printf "%.3f", t / c }')
b=$(counts "$TMPD/plain.data" | awk '{ t += $1; c += $3 } END { printf "%.3f", t / c }')
awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 0.1) }' &&
	ok "total task-clock / cpu-clock as in the ordinary layout ($a vs $b)" ||
	not_ok "lead-group totals match the ordinary layout" "$a vs $b"
done_testing
