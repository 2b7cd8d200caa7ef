#!/usr/bin/env bash
# A SIGINT reaches the workload exactly once, however it was sent:
#  - to the recorder's whole process group (kill -INT -- -PGID, recorder
#    under setsid): the workload is in a group of its own, the recorder
#    forwards once;
#  - to the recorder alone (kill -INT PID): forwarded once;
#  - Ctrl-C on a terminal (a pty; the line discipline signals the foreground
#    group, ssi_code SI_KERNEL): the workload shares the group and gets it
#    from the terminal; the recorder does not forward it again.
# Same for stat.  The workload (sigcount) counts SIGINTs and prints the count.
# Two SIGINTs that reach the workload before it took the first merge into one
# (standard signals do not queue), so a double delivery shows only when the
# second comes late enough; every case runs twice to make that likely.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v setsid >/dev/null || skip_all "setsid not installed"

wait_file() { local i; for i in $(seq 100); do [ -e "$1" ] && return 0; sleep 0.1; done; return 1; }

# $1 = record|stat, $2 = group|recorder, $3 = round
run_setsid() {
	local cmd=$1 how=$2 out=$TMPD/$1-$2-$3 rp pid rc
	local extra=(); [ "$cmd" = record ] && extra=(-o "$out.data")
	rm -f "$out.ready"
	setsid -w sh -c 'echo $$ >"$0"; exec "$@"' "$out.pid" \
		"$PMIPROF" "$cmd" -q "${extra[@]}" -- "$WORKLOADS/sigcount" 1.5 "$out.ready" >"$out.out" 2>"$out.err" &
	rp=$!
	if ! wait_file "$out.ready"; then
		not_ok "$cmd: SIGINT to the $how: workload started" "$(cat "$out.err")"; kill $rp; return
	fi
	pid=$(cat "$out.pid")
	if [ $how = group ]; then kill -INT -- -"$pid"; else kill -INT "$pid"; fi
	wait $rp; rc=$?
	grep -q '^sigint 1$' "$out.out" && [ $rc -eq 0 ] \
		&& ok "$cmd: SIGINT to the $how reaches the workload once ($3)" \
		|| not_ok "$cmd: SIGINT to the $how reaches the workload once ($3)" "rc=$rc" "$(cat "$out.out" "$out.err")"
}

for round in 1 2; do
	for cmd in record stat; do
		run_setsid $cmd group $round
		run_setsid $cmd recorder $round
	done
done
"$PMIPROF" dump -i "$TMPD/record-group-1.data" >"$TMPD/dump" 2>&1
grep -q 'finish .*interrupted' "$TMPD/dump" && ok "FINISH says the recording was interrupted" || not_ok "FINISH interrupted" "$(grep finish "$TMPD/dump")"

# Ctrl-C on a terminal: python's pty makes the recorder a session leader
# with the pty as controlling terminal, in its foreground group.
if ! command -v python3 >/dev/null; then
	skip "Ctrl-C on a terminal" "python3 not installed"
	done_testing
fi
for round in 1 2; do for cmd in record stat; do
	out=$TMPD/$cmd-tty-$round
	extra=""; [ $cmd = record ] && extra="-o $out.data"
	python3 - "$out.ready" "$PMIPROF" $cmd -q $extra -- "$WORKLOADS/sigcount" 1.5 "$out.ready" >"$out.out" 2>&1 <<'PY'
import os, pty, sys, time
ready, argv = sys.argv[1], sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    os.execv(argv[0], argv)
for _ in range(100):
    if os.path.exists(ready):
        break
    time.sleep(0.1)
os.write(fd, b"\x03")		# Ctrl-C (ISIG is on in a fresh pty)
out = b""
while True:
    try:
        b = os.read(fd, 4096)
    except OSError:
        break
    if not b:
        break
    out += b
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.stdout.write("exit %d\n" % os.waitstatus_to_exitcode(status))
PY
	# the pty echoes ^C and ends lines with \r\n
	tr -d '\r' <"$out.out" | grep -q 'sigint 1$' && grep -q '^exit 0' "$out.out" \
		&& ok "$cmd: Ctrl-C on the terminal reaches the workload once ($round)" \
		|| not_ok "$cmd: Ctrl-C on the terminal reaches the workload once ($round)" "$(cat "$out.out")"
done; done
done_testing
