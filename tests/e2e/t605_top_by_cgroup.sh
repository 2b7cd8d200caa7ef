#!/usr/bin/env bash
# pmiprof top --by cgroup: rows by the cgroup (/proc/PID/cgroup, lib/
# proc_cgroup.c, the daemon's cgroup label's reader) of each sample's
# process.  Two copies of a busy workload, one moved into a cgroup v2
# directory of the test's making, one left in the test's own cgroup: with
# -p of both, --batch gives exactly those two cgroups, each with the
# samples --by process gives its process in the same seconds (within 5
# points); on the screen (tmux), Enter on a cgroup shows its processes
# and only them; --by cgroup with --from is refused.
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
	>"$TMPD/cg.csv" 2>"$TMPD/cg.err" &
tp=$!
"$PMIPROF" top -p "$p1,$p2" -e cpu-clock -F 1000 --by process --batch -n 2 -d 2 --format csv \
	>"$TMPD/pr.csv" 2>"$TMPD/pr.err"; prc=$?
wait $tp; crc=$?
[ $crc -eq 0 ] && [ $prc -eq 0 ] && ok "--by cgroup and --by process: exit 0" ||
	not_ok "top exits" "cgroup rc $crc: $(cat "$TMPD/cg.err"); process rc $prc: $(cat "$TMPD/pr.err")"
python3 - "$TMPD/cg.csv" "$TMPD/pr.csv" "$cgpath" "$own" "$p1" "$p2" <<'PY' >"$TMPD/res"
import csv, sys
cgf, prf, cg, own, p1, p2 = sys.argv[1:]
def tables(f):
    return [list(csv.DictReader(t.splitlines())) for t in open(f).read().split('\n\n') if t.strip()]
cgt, prt = tables(cgf), tables(prf)
ok = len(cgt) == 2 and len(prt) == 2
for c, p in zip(cgt, prt):
    names = sorted(r['name'] for r in c)
    byname = {r['name']: float(r['percent']) for r in c}
    bypid = {r['key']: float(r['percent']) for r in p}
    print('# cgroups %s; processes %s' % (byname, bypid))
    ok = ok and names == sorted([cg, own]) and all(r['by'] == 'cgroup' for r in c)
    ok = ok and abs(byname.get(cg, -99) - bypid.get(p1, 0)) <= 5 and abs(byname.get(own, -99) - bypid.get(p2, 0)) <= 5
print('ok' if ok else 'bad')
PY
grep '^#' "$TMPD/res"
[ "$(tail -1 "$TMPD/res")" = ok ] && ok "two refreshes: exactly $cgpath and $own, each at its process's share within 5 points" ||
	not_ok "--by cgroup rows" "$(cat "$TMPD/cg.csv" "$TMPD/pr.csv")"

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
