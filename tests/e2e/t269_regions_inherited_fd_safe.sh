#!/usr/bin/env bash
# PMIPROF_REGIONS_FD is inherited by every descendant of the workload, also
# by programs pmiprof did not start itself: a grandchild exec'd after a
# fork is measured like the workload (own slots, exact calls); one that
# starts after pmiprof stat/record has exited writes into rings nobody
# drains and runs to its end (its ring fills: drops, no crash, no hang); and a process
# whose descriptor of that number is something else (closed, /dev/null, a
# pipe, a large regular file) ignores it without writing to it.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
wl=$WORKLOADS/regions

# a grandchild (sh -> subshell -> exec) under stat: both threads' calls
"$PMIPROF" stat --regions --format csv -e task-clock -- sh -c "(exec '$wl' shares 50) & wait" \
	>/dev/null 2>"$TMPD/g"; rc=$?
h=$(awk -F, '$1 == "heavy" && $3 == "task-clock" { print $2 }' "$TMPD/g")
[ $rc -eq 0 ] && [ "$h" = 100 ] && ok "grandchild exec'd after fork: its regions counted exactly (100)" ||
	not_ok "grandchild under stat" "rc=$rc" "$(cat "$TMPD/g")"

# grandchildren that outlive the pmiprof command that exported the fd
for cmd in "stat --regions" "record -q -o $TMPD/r.pmi"; do
	out=$TMPD/orphan.${cmd%% *}
	rm -f "$out"
	# shellcheck disable=SC2086
	"$PMIPROF" $cmd -- sh -c "(sleep 0.5; '$wl' loop 2 >'$out' 2>&1; echo rc=\$? >>'$out') </dev/null >/dev/null 2>&1 &" \
		>/dev/null 2>"$TMPD/err"; rc=$?
	for _ in $(seq 150); do grep -q '^rc=' "$out" 2>/dev/null && break; sleep 0.1; done
	grep -q '^regions: done' "$out" && grep -qx 'rc=0' "$out" && [ $rc -eq 0 ] &&
		ok "${cmd%% *}: a grandchild starting after pmiprof exited runs to its end" ||
		not_ok "orphan grandchild after ${cmd%% *}" "rc=$rc" "$(cat "$out" 2>&1)" "$(cat "$TMPD/err")"
done

# the variable names a descriptor that is not pmiprof's memory
truncate -s 1G "$TMPD/big"
run_with() { # label, then the redirections as a string
	PMIPROF_REGIONS_FD=$2 bash -c "exec '$wl' misuse $3" >"$TMPD/o" 2>&1; rc=$?
	[ $rc -eq 0 ] && grep -q 'misuse survived' "$TMPD/o" && ok "fd $2 $1: ignored, workload runs" ||
		not_ok "fd $1" "rc=$rc" "$(cat "$TMPD/o")"
}
run_with "closed" 97 ""
run_with "is /dev/null" 7 "7<>/dev/null"
run_with "is /dev/zero" 0 "</dev/zero"
run_with "is a 1 GiB regular file, read-write" 8 "8<>'$TMPD/big'"
[ "$(du -k "$TMPD/big" | cut -f1)" = 0 ] && ok "the regular file was not written (still sparse, 0 blocks)" ||
	not_ok "big file written" "$(du -k "$TMPD/big")"
run_with "is junk" "x12" ""
done_testing
