#!/usr/bin/env bash
# pmiprof top --from http://HOST:PORT reads a running `pmiprof daemon`
# (its /debug/pprof/profile of each -d seconds) instead of recording: on
# tests/workloads/shares (work_a/b/c 50/30/20 by construction; a copy under
# a name of its own, as the daemon sees every copy on the machine), while top
# records the same process itself at the same time, both give three
# tables whose work_a/b/c shares are 50/30/20 within 5 points (refreshes of
# 400 samples or more) and whose sums agree within 3; --by process names the workload's pid and
# command; --format json parses.  Errors, each with its message: a URL that
# is not http://, a malformed one, a refused connection, a server that is
# not a pmiprof daemon (HTTP 404, an answer that is no pprof, another
# program's pprof), -d not whole seconds, a recording option with --from,
# -p of two processes.  -p PID with --from: the daemon's &pid= filter, the
# rows are the workload's; on the screen (tmux) Enter on work_a shows its
# line, from the profile's line numbers, as direct mode does.
. "$(dirname "$0")/../lib.sh"
t() {	# t EXPECTED_RC "regex of the message" ARGS...
	local want=$1 re=$2 rc; shift 2
	"$PMIPROF" top "$@" </dev/null >"$TMPD/out" 2>"$TMPD/err"; rc=$?
	if [ $rc -eq "$want" ] && grep -Eq -- "$re" "$TMPD/err"; then ok "top $* -> $rc: $re"
	else not_ok "top $* -> $want: $re" "rc $rc: $(cat "$TMPD/err")"; fi
}
dp=; wl=; hp=
trap '[ -n "$dp" ] && kill -9 $dp 2>/dev/null; [ -n "$wl" ] && kill -9 $wl 2>/dev/null;
      [ -n "$hp" ] && kill $hp 2>/dev/null; tmux -S "$TMPD/tmux.sock" kill-server 2>/dev/null;
      rm -rf "$TMPD"' EXIT

# errors that need no daemon
t 2 "--from 'ftp://x': expected http://HOST:PORT" --from ftp://x --batch
t 2 "with --from, -d is whole seconds, 1..600" --from http://127.0.0.1:1 --batch -d 1.5
t 2 "--from reads what the daemon records: '-e' is for recording here" \
	--from http://127.0.0.1:1 --batch -e cpu-clock
t 2 "with --from, -p takes one process id \('1,2'\)" --from http://127.0.0.1:1 --batch -p 1,2
t 2 "--from http://\[::1: URL using bad/illegal format" --from "http://[::1" --batch -n 1 -d 1
free=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
t 1 "--from http://127.0.0.1:$free: connection refused: no daemon listens there" \
	--from "http://127.0.0.1:$free" --batch -n 1 -d 1
# a web server that is not a pmiprof daemon: 404, then files that are no pmiprof profile
mkdir -p "$TMPD/www/debug/pprof"
python3 -m http.server --bind 127.0.0.1 --directory "$TMPD/www" 0 >"$TMPD/www.log" 2>&1 &
hp=$!
for _ in $(seq 100); do
	hport=$(grep -o 'port [0-9]*' "$TMPD/www.log" | head -1 | cut -d' ' -f2)
	[ -n "$hport" ] && break
	sleep 0.1
done
t 1 "HTTP 404: <!DOCTYPE HTML> \(is it a pmiprof daemon\?\)" --from "http://127.0.0.1:$hport" --batch -n 1 -d 1
echo "<html>hello</html>" >"$TMPD/www/debug/pprof/profile"
t 1 "the answer is not a pmiprof daemon's profile \(not a pprof profile\)" \
	--from "http://127.0.0.1:$hport/" --batch -n 1 -d 1
# a valid pprof of another program: string table [""] and one sample type, no pmiprof comment
python3 -c 'import gzip, sys; sys.stdout.buffer.write(gzip.compress(bytes([0x32, 0, 0x32, 1, 0x78, 0x0a, 4, 8, 1, 0x10, 1])))' \
	>"$TMPD/www/debug/pprof/profile"
t 1 "the answer is not a pmiprof daemon's profile \(another program's pprof\)" \
	--from "http://127.0.0.1:$hport" --batch -n 1 -d 1
kill $hp; wait $hp 2>/dev/null; hp=

[ "$(id -u)" -eq 0 ] || { skip "--from a daemon" "needs root (the daemon records every CPU)"; done_testing; }
have_perf_sw || { skip "--from a daemon" "perf_event_open not usable here"; done_testing; }
daemon_start "$TMPD/log" --dir "$TMPD/d" --segment 2 --listen 127.0.0.1:0 -F 1000 -e cpu-clock
[ -n "$port" ] || { not_ok "daemon serving" "$(cat "$TMPD/log")"; done_testing; }
# a name of its own: the daemon sees every process, other copies of shares among them
W=t604work
cp "$WORKLOADS/shares" "$TMPD/$W"
"$TMPD/$W" 40 >/dev/null &
wl=$!
sleep 1

# the same 6 seconds, from the daemon and recorded by top itself
"$PMIPROF" top --from "http://127.0.0.1:$port" --by function --batch -n 3 -d 2 --format csv \
	>"$TMPD/from.csv" 2>"$TMPD/from.err" &
fp=$!
"$PMIPROF" top -p "$wl" -e cpu-clock -F 1000 --by function --batch -n 3 -d 2 --format csv \
	>"$TMPD/direct.csv" 2>"$TMPD/direct.err"; drc=$?
wait $fp; frc=$?
[ $frc -eq 0 ] && ok "top --from --batch -n 3 exits 0" || not_ok "top --from" "rc $frc: $(cat "$TMPD/from.err")"
[ $drc -eq 0 ] || not_ok "direct top" "rc $drc: $(cat "$TMPD/direct.err")"

# shares NAME.csv: per table, work_a/b/c as % of the three (the daemon sees every process)
shares() {
	python3 - "$1" "$W" <<'PY'
import csv, sys
tables = [t for t in open(sys.argv[1]).read().split('\n\n') if t.strip()]
print(len(tables))
tot = {}
for t in tables:
    rows = list(csv.DictReader(t.splitlines()))
    s = {r['name']: int(r['samples']) for r in rows if r['detail'] == sys.argv[2]}
    n = sum(s.get(f, 0) for f in ('work_a', 'work_b', 'work_c'))
    print(' '.join('%.2f' % (100.0 * s.get(f, 0) / max(n, 1)) for f in ('work_a', 'work_b', 'work_c')), n)
    for f in ('work_a', 'work_b', 'work_c'):
        tot[f] = tot.get(f, 0) + s.get(f, 0)
n = sum(tot.values())
print(' '.join('%.2f' % (100.0 * tot[f] / max(n, 1)) for f in ('work_a', 'work_b', 'work_c')), n)
PY
}
shares "$TMPD/from.csv" >"$TMPD/from.sh"
shares "$TMPD/direct.csv" >"$TMPD/direct.sh"
{ read -r nf; for i in 1 2 3; do read -r fa[$i] fb[$i] fc[$i] fn[$i]; done; read -r fta ftb ftc ftn; } <"$TMPD/from.sh"
{ read -r nd; for i in 1 2 3; do read -r da[$i] db[$i] dc[$i] dn[$i]; done; read -r dta dtb dtc dtn; } <"$TMPD/direct.sh"
[ "$nf" = 3 ] && ok "--from: three CSV tables" || not_ok "--from: three tables" "$(cat "$TMPD/from.csv")"
for i in 1 2 3; do
	echo "# refresh $i: --from ${fa[$i]}/${fb[$i]}/${fc[$i]} of ${fn[$i]}; direct ${da[$i]}/${db[$i]}/${dc[$i]} of ${dn[$i]}"
	# a 50 % share of n samples is known to +-100/sqrt(n) points (95 %): 5 points needs 400
	if [ "${fn[$i]}" -lt 400 ]; then
		skip "--from refresh $i: 50/30/20 within 5 points" "${fn[$i]} samples (the daemon's profile dropped some: a loaded machine)"
		continue
	fi
	perl -e 'exit(abs($ARGV[0]-50) <= 5 && abs($ARGV[1]-30) <= 5 && abs($ARGV[2]-20) <= 5 ? 0 : 1)' \
		"${fa[$i]}" "${fb[$i]}" "${fc[$i]}" && ok "--from refresh $i: 50/30/20 within 5 points" ||
		not_ok "--from refresh $i: 50/30/20 within 5 points" "${fa[$i]} ${fb[$i]} ${fc[$i]}"
done
echo "# the 3 refreshes: --from $fta/$ftb/$ftc of $ftn; direct $dta/$dtb/$dtc of $dtn"
perl -e 'exit(abs($ARGV[0]-$ARGV[3]) <= 3 && abs($ARGV[1]-$ARGV[4]) <= 3 && abs($ARGV[2]-$ARGV[5]) <= 3 ? 0 : 1)' \
	"$fta" "$ftb" "$ftc" "$dta" "$dtb" "$dtc" && [ "$ftn" -ge 400 ] &&
	ok "the same 6 s: --from's rows = direct mode's within 3 points" ||
	not_ok "--from = direct" "from $fta/$ftb/$ftc of $ftn, direct $dta/$dtb/$dtc of $dtn"
"$PMIPROF" top --from "http://127.0.0.1:$port" --batch -n 1 -d 1 >"$TMPD/proc.txt" 2>"$TMPD/err"
grep -Eq "^ +$wl +[0-9]+ +[0-9.]+ .* $W$" "$TMPD/proc.txt" &&
	grep -q "backend http://127.0.0.1:$port, by process" "$TMPD/proc.txt" &&
	ok "--from --by process: the workload's pid and command, the daemon named" ||
	not_ok "--from --by process" "$(cat "$TMPD/proc.txt" "$TMPD/err")"
# -p PID: the daemon's &pid= filter, the workload's functions only
"$PMIPROF" top --from "http://127.0.0.1:$port" -p "$wl" --by function --batch -n 1 -d 2 --format csv \
	>"$TMPD/pid.csv" 2>"$TMPD/err"
python3 - "$TMPD/pid.csv" <<'PY' >"$TMPD/pid.res"
import csv, sys
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if l.strip()))
n = sum(int(r['samples']) for r in rows)
w = sum(int(r['samples']) for r in rows if r['name'] in ('work_a', 'work_b', 'work_c') and r['detail'] == 't604work')
print(n, w)
PY
read -r pn pw <"$TMPD/pid.res"
[ "${pn:-0}" -gt 0 ] && [ $((pw * 100)) -ge $((pn * 95)) ] &&
	ok "--from -p: $pw of $pn samples in the workload's work_a/b/c" ||
	not_ok "--from -p" "$(cat "$TMPD/pid.csv" "$TMPD/err")"
"$PMIPROF" top --from "http://127.0.0.1:$port" --batch -n 1 -d 1 --format json \
	>"$TMPD/from.json" 2>"$TMPD/err"
python3 - "$TMPD/from.json" "$wl" <<'PY' && ok "--from --format json: the workload's row" || not_ok "--from --format json" "$(cat "$TMPD/from.json" "$TMPD/err")"
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(objs) == 1 and objs[0]['by'] == 'process'
rows = [r for r in objs[0]['rows'] if r['key'] == int(sys.argv[2])]
assert rows and rows[0]['name'] == 't604work' and 'cpu-clock' in rows[0]['rates']
PY

# the screen: Enter on work_a shows its lines from the profile's line numbers, as direct mode
# (work_a is one loop: shares.c:38)
if command -v tmux >/dev/null; then
	sock=$TMPD/tmux.sock
	tm() { tmux -S "$sock" "$@"; }
	screen() { tm capture-pane -p -t top; }
	tm new-session -d -s top -x 130 -y 30 \
		"'$PMIPROF' top --from http://127.0.0.1:$port -p $wl -d 1 --by function; echo \"top exited \$?\"; sleep 60"
	for _ in $(seq 50); do screen | grep -q ' work_a ' && break; sleep 0.2; done
	sleep 1.5	# work_a first: the rows of a refresh or two
	screen | grep -A1 ' FUNCTION ' | grep -q ' work_a ' && tm send-keys -t top Enter
	for _ in $(seq 50); do screen | grep -q ' shares\.c:' && break; sleep 0.2; done
	screen | grep -Eq "^lines of work_a: [0-9]+ samples$" && screen | grep -q ' LINE ' &&
		screen | grep -Eq '^ +(9[5-9]\.[0-9]|100\.0) .* shares\.c:38$' &&
		ok "--from screen: Enter on work_a shows its line shares.c:38 (the profile's line numbers)" ||
		not_ok "--from lines" "$(screen)"
	tm send-keys -t top q
	for _ in $(seq 25); do screen | grep -q '^top exited 0' && break; sleep 0.2; done
	screen | grep -q '^top exited 0' && ok "--from screen: q exits 0" || not_ok "--from q" "$(screen)"
	tm kill-server
else
	skip "--from screen: callers" "tmux not installed (tests/deps.sh)"
fi
done_testing
