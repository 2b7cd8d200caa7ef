#!/usr/bin/env bash
# On a machine without /dev/pmiprof (this one: its kernel cannot load
# modules): record --backend module fails with exit 1 and one message that
# says how to load the module, writes no trace, and starts no workload;
# --backend auto quietly uses perf.
. "$(dirname "$0")/../lib.sh"
[ -x "$PMIPROF" ] || skip_all "pmiprof not built"
[ -e /dev/pmiprof ] && skip_all "/dev/pmiprof exists here (covered by tests/vm)"

cd "$TMPD" || exit 1
out=$("$PMIPROF" record --backend module -o m.data -- sh -c 'echo ran > ran.txt' 2>&1)
rc=$?
[ $rc -eq 1 ] && ok "--backend module without the device exits 1" || not_ok "--backend module without the device exits 1" "status $rc" "$out"
case "$out" in *"/dev/pmiprof"*insmod*) ok "the message says how to load the module" ;;
*) not_ok "the message says how to load the module" "$out" ;; esac
[ "$(printf '%s\n' "$out" | grep -c 'error')" -eq 1 ] && ok "exactly one error line" || not_ok "exactly one error line" "$out"
[ ! -e m.data ] && ok "no trace written" || not_ok "no trace written"
[ ! -e ran.txt ] && ok "the workload did not run" || not_ok "the workload did not run"

if have_perf_sw; then
	out=$("$PMIPROF" record --backend auto -o a.data -- true 2>&1)
	rc=$?
	[ $rc -eq 0 ] && ok "--backend auto records" || not_ok "--backend auto records" "$out"
	case "$out" in *"perf backend"*) ok "--backend auto says it uses perf" ;; *) not_ok "--backend auto says it uses perf" "$out" ;; esac
	case "$out" in *"module backend not usable"*) not_ok "no module complaint when the device is simply absent" "$out" ;;
	*) ok "no module complaint when the device is simply absent" ;; esac
else
	skip "--backend auto records" "perf_event_open refused here"
	skip "--backend auto says it uses perf" "perf_event_open refused here"
	skip "no module complaint when the device is simply absent" "perf_event_open refused here"
fi

done_testing
