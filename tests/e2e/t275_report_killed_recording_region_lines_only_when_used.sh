#!/usr/bin/env bash
# A recording killed before its end keeps the header's "regions" flag (the
# recorder clears it at a clean end when no region was used): the report
# prints its "code regions: ..." lines only when the trace holds regions,
# markers or marker losses, never "code regions: 0 ... marker ring full"
# for a workload that used none.  A killed recording that used regions
# still shows them.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/shares" ] && [ -x "$WORKLOADS/regions" ] || skip_all "workloads not built"

# killed rec out name cmd...: record cmd, SIGKILL the recorder after $KILL_AFTER s
# (the recorder writes and syncs its chunks every second: 3 s leaves at least
# two on disk on a loaded machine, where 1.5 s sometimes left none with markers)
KILL_AFTER=3
killed() {
	local out=$1 name=$2 rp wp n; shift 2
	"$PMIPROF" record -q -o "$out" -- "$@" >/dev/null 2>&1 & rp=$!
	for n in $(seq 100); do wp=$(pgrep -P $rp -x "$name") && break; sleep 0.1; done
	sleep $KILL_AFTER
	kill -KILL $rp; wait $rp 2>/dev/null
	[ -n "$wp" ] && kill -KILL "$wp" 2>/dev/null
	for n in $(seq 50); do [ -n "$wp" ] && kill -0 "$wp" 2>/dev/null || break; sleep 0.1; done
}
killed "$TMPD/s.data" shares "$WORKLOADS/shares" 8
"$PMIPROF" dump -i "$TMPD/s.data" --header-only | grep -q '^flags: .*regions' &&
	echo "# the killed trace's header still says regions" || echo "# the killed trace's header has no regions flag"
"$PMIPROF" report -i "$TMPD/s.data" >"$TMPD/s.out" 2>"$TMPD/s.err"; rc=$?
[ $rc -eq 0 ] && grep -q work_a "$TMPD/s.out" && grep -q 'did not finish' "$TMPD/s.err" &&
	! grep -qi '^# .*region' "$TMPD/s.out" &&
	ok "killed recording without regions: no region line in the report" ||
	not_ok "killed recording without regions: no region line" "rc=$rc" "$(grep -i "^# .*region" "$TMPD/s.out")"

killed "$TMPD/r.data" regions "$WORKLOADS/regions" loop 8
"$PMIPROF" report -i "$TMPD/r.data" >"$TMPD/r.out" 2>/dev/null; rc=$?
[ $rc -eq 0 ] && grep -Eq '^# code regions: [1-9][0-9]*, [1-9][0-9]* markers' "$TMPD/r.out" &&
	ok "killed recording with regions: its region line stays" ||
	not_ok "killed recording with regions: its region line stays" "rc=$rc" "$(grep -i region "$TMPD/r.out")"
# The parallel flat profile (the default on 2+ CPUs) reads the region records
# too: its region lines equal the one-thread pass's (it printed none).
PMIPROF_JOBS=1 "$PMIPROF" report -i "$TMPD/r.data" >"$TMPD/r1.out" 2>/dev/null
[ "$(grep '^# code regions' "$TMPD/r.out")" = "$(grep '^# code regions' "$TMPD/r1.out")" ] &&
	ok "parallel and one-thread reports give the same region lines" ||
	not_ok "parallel region lines" "$(grep '^# code regions' "$TMPD/r.out" "$TMPD/r1.out")"
done_testing
