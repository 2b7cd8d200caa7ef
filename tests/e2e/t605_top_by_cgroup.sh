#!/usr/bin/env bash
# pmiprof top --by cgroup: rows by the cgroup (/proc/PID/cgroup, lib/
# proc_cgroup.c, the daemon's cgroup label's reader) of each sample's
# process.  Two copies of a busy workload, one moved into a cgroup v2
# directory of the test's making, one left in the test's own cgroup: with
# -p of both, --batch gives exactly those two cgroups in each refresh; when
# the second moves into the test's cgroup while top runs, a later refresh
# has that cgroup alone; on the screen (tmux), Enter on a cgroup shows its
# process; --by cgroup with --from is refused.
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (perf events on other processes, a cgroup)"
have_perf_sw || skip_all "perf_event_open not usable here"
mnt=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
[ -n "$mnt" ] && mkdir "$mnt/pmiprof-t605-$$" 2>/dev/null || skip_all "no cgroup v2 directory can be made here"
CG=$mnt/pmiprof-t605-$$
cgpath=/pmiprof-t605-$$
sock=$TMPD/tmux.sock
p1=; p2=
trap 'tmux -S "$sock" kill-server 2>/dev/null; [ -n "$p1" ] && kill -9 $p1 2>/dev/null;
      [ -n "$p2" ] && kill -9 $p2 2>/dev/null; sleep 0.2; rmdir "$CG" 2>/dev/null; rm -rf "$TMPD"' EXIT
own=$(sed -n 's/^0:://p' /proc/self/cgroup)

"$PMIPROF" top --from http://127.0.0.1:1 --by cgroup --batch </dev/null >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- "--by cgroup reads this machine's /proc/PID/cgroup: not with --from" "$TMPD/err" &&
	ok "--by cgroup with --from: refused (2)" || not_ok "--by cgroup --from" "rc $rc: $(cat "$TMPD/err")"

cp "$WORKLOADS/shares" "$TMPD/t605in"
cp "$WORKLOADS/shares" "$TMPD/t605own"
sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" 60' sh "$CG" "$TMPD/t605in" >/dev/null &
p1=$!
"$TMPD/t605own" 60 >/dev/null &
p2=$!
sleep 0.5
[ "$(sed -n 's/^0:://p' /proc/$p1/cgroup)" = "$cgpath" ] || not_ok "workload in $cgpath" "$(cat /proc/$p1/cgroup)"

"$PMIPROF" top -p "$p1,$p2" -e cpu-clock -F 1000 --by cgroup --batch -n 2 -d 2 --format csv \
	>"$TMPD/cg.csv" 2>"$TMPD/cg.err"; rc=$?
[ $rc -eq 0 ] && ok "--by cgroup --batch: exit 0" || not_ok "top --by cgroup" "rc $rc: $(cat "$TMPD/cg.err")"
# rows: TABLE NAME PERCENT per line
rows() {
	python3 - "$1" <<'PY'
import csv, sys
tables = [t for t in open(sys.argv[1]).read().split('\n\n') if t.strip()]
for i, t in enumerate(tables):
    for r in csv.DictReader(t.splitlines()):
        print(i + 1, r['by'], r['name'], r['percent'])
PY
}
rows "$TMPD/cg.csv" >"$TMPD/cg.rows"
sed 's/^/# /' "$TMPD/cg.rows"
# two busy copies: each cgroup holds a share of the CPU the two get (10..90 % on a loaded machine)
n=$(awk -v a="$cgpath" -v b="$own" '$2 == "cgroup" && ($3 == a || $3 == b) && $4 >= 10 && $4 <= 90' "$TMPD/cg.rows" | wc -l)
[ "$n" -eq 4 ] && [ "$(wc -l <"$TMPD/cg.rows")" -eq 4 ] &&
	ok "two refreshes, each exactly $cgpath and $own (the two processes' cgroups)" ||
	not_ok "--by cgroup rows" "$(cat "$TMPD/cg.csv" "$TMPD/cg.err")"

# a process that moves shows in its new cgroup from the next refresh on (read once per refresh)
"$PMIPROF" top -p "$p1,$p2" -e cpu-clock -F 1000 --by cgroup --batch -n 4 -d 1 --format csv \
	>"$TMPD/mv.csv" 2>"$TMPD/mv.err" &
tp=$!
sleep 1.5
echo "$p2" >"$CG/cgroup.procs"
wait $tp
rows "$TMPD/mv.csv" >"$TMPD/mv.rows"
sed 's/^/# moved: /' "$TMPD/mv.rows"
first=$(awk '$1 == 1' "$TMPD/mv.rows" | wc -l)
last=$(awk '$1 == 4' "$TMPD/mv.rows")
[ "$first" -eq 2 ] && [ "$(echo "$last" | awk '{ printf "%s %.0f\n", $3, $4 }')" = "$cgpath 100" ] &&
	ok "$p2 moved into $cgpath: refresh 1 two cgroups, refresh 4 only $cgpath (100 %)" ||
	not_ok "a moved process" "$(cat "$TMPD/mv.csv" "$TMPD/mv.err")"

# the screen: Enter on a cgroup shows its processes
if command -v tmux >/dev/null; then
	tm() { tmux -S "$sock" "$@"; }
	screen() { tm capture-pane -p -t top; }
	wait_for() {
		local i
		for ((i = 0; i < ${2:-10} * 5; i++)); do
			screen | grep -Eq -- "$1" && return 0
			sleep 0.2
		done
		return 1
	}
	tm new-session -d -s top -x 120 -y 30 \
		"'$PMIPROF' top -p $p1 -e cpu-clock -F 1000 -d 1 --by cgroup; echo \"top exited \$?\"; sleep 60"
	wait_for " $cgpath\$" 10 && screen | grep -q 'CGROUP' && ok "screen: the cgroup row" ||
		not_ok "screen: the cgroup row" "$(screen)"
	tm send-keys -t top Enter
	wait_for "^processes of cgroup $cgpath" 5 && wait_for "^ *$p1 .* t605in\$" 5 &&
		ok "Enter on the cgroup: its process" || not_ok "Enter on a cgroup" "$(screen)"
	tm send-keys -t top q
	wait_for '^top exited 0' 5 && ok "q: exit 0" || not_ok "q" "$(screen)"
else
	skip "the screen's cgroup zoom" "tmux not installed (tests/deps.sh)"
fi
done_testing
