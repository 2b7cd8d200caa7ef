#!/usr/bin/env bash
# Without privileges (run as nobody): a CPU-wide recording (-a) is refused
# with a message naming kernel.perf_event_paranoid's current value and the
# fixes (root, CAP_PERFMON, the sysctl value); a per-task recording falls back
# to user space only and says so when kernel mode is not permitted, with a
# notice only: no "error:" line for the refusal the retry got around.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "needs root to switch to an unprivileged user"
command -v setpriv >/dev/null || skip_all "setpriv not installed"
par=$(cat /proc/sys/kernel/perf_event_paranoid)
[ "$par" -ge 1 ] || skip_all "kernel.perf_event_paranoid=$par allows everything"
chmod 755 "$TMPD"; mkdir -m 777 "$TMPD/out"
asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all -- "$@"; }
asnobody true 2>/dev/null || skip_all "cannot run as nobody here"
asnobody test -x "$PMIPROF" || skip_all "build directory not accessible to nobody"
asnobody "$PMIPROF" record -o "$TMPD/out/a.data" -a -- true >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 1 ] && ok "-a unprivileged: exit 1" || not_ok "-a unprivileged: exit 1" "rc=$rc" "$(cat "$TMPD/err")"
grep -q "kernel.perf_event_paranoid is $par" "$TMPD/err" && ok "message names perf_event_paranoid=$par" || not_ok "message names the sysctl value" "$(cat "$TMPD/err")"
grep -q 'CAP_PERFMON' "$TMPD/err" && grep -q "sysctl kernel.perf_event_paranoid=0" "$TMPD/err" \
	&& ok "message names CAP_PERFMON and the sysctl value needed" || not_ok "message names the fixes" "$(cat "$TMPD/err")"
[ -e "$TMPD/out/a.data" ] && not_ok "no trace left behind" || ok "no trace left behind"
if [ "$par" -ge 2 ]; then
	asnobody "$PMIPROF" record -o "$TMPD/out/u.data" -- "$WORKLOADS/shares" 0.2 >/dev/null 2>"$TMPD/err"; rc=$?
	[ $rc -eq 0 ] && ok "per-task unprivileged recording works" || not_ok "per-task unprivileged recording" "rc=$rc" "$(cat "$TMPD/err")"
	grep -q 'user space only' "$TMPD/err" && ok "says kernel mode is excluded" || not_ok "says kernel mode is excluded" "$(cat "$TMPD/err")"
	grep -q 'error:' "$TMPD/err" && not_ok "no error line when the user-only retry succeeds" "$(cat "$TMPD/err")" \
		|| ok "no error line when the user-only retry succeeds"
	# -p: the same retry, on a process of the same (unprivileged) user
	# (setpriv itself, not the asnobody function: $! must be the target, not a root subshell)
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all -- "$WORKLOADS/shares" 3 >/dev/null & sp=$!
	sleep 0.2
	asnobody timeout --preserve-status -s INT 0.7 "$PMIPROF" record -o "$TMPD/out/p.data" -p $sp >/dev/null 2>"$TMPD/err"; rc=$?
	kill $sp 2>/dev/null; wait $sp 2>/dev/null
	[ $rc -eq 0 ] && grep -q 'user space only' "$TMPD/err" && ! grep -q 'error:' "$TMPD/err" \
		&& ok "-p unprivileged: user space only, no error line" \
		|| not_ok "-p unprivileged: user space only, no error line" "rc=$rc" "$(cat "$TMPD/err")"
	"$PMIPROF" dump -i "$TMPD/out/u.data" 2>&1 | grep -q ' sample .*flags=[^ ]*kernel' \
		&& not_ok "no kernel-mode samples" || ok "no kernel-mode samples"
fi
done_testing
