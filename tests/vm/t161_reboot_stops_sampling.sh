#!/usr/bin/env bash
# A reboot (and kexec, which runs the same reboot notifier chain through
# kernel_restart_prepare()) with a recording running: the module's reboot
# notifier stops sampling on every CPU before the machine goes down, so no
# next kernel inherits enabled counters and an NMI-mode LVTPC (issue 9,
# item 6).  The guest reboots for real (`reboot -f`, QEMU -no-reboot ends
# the run); the check is on its kernel console.
. "$(dirname "$0")/lib.sh"
vm_require module
vm_static hot_function "$PMIPROF_TOP/tests/vm/hot_function.c" || skip_all "cannot build a static program (libc.a missing?)"
console=$TMPD/console.log

PMIPROF_VM_CONSOLE=$console vm_run --timeout 300 --insmod pmu=emul --add "$TMPD/hot_function" -- sh -c '
	pmiprof record --backend module -o /tmp/a.data -- hot_function 240 2>/tmp/rec.err &
	vm-wait-for 200 /tmp/rec.err "recording with" || echo "record-not-started"
	sleep 1
	grep -c . /proc/interrupts >/dev/null
	echo "PMIPROF-VM-EXIT 0" >/dev/ttyS3
	reboot -f'
[ $VM_RC -eq 0 ] && ok "guest rebooted with a recording running" ||
	not_ok "guest rebooted with a recording running" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
grep -q 'pmiprof: ready' "$console" && ok "module loaded (console)" ||
	not_ok "module loaded (console)" "$(tail -n 30 "$console")"
if grep -q 'pmiprof: reboot: sampling stopped on every CPU' "$console"; then
	ok "reboot notifier stopped sampling before the restart"
else
	not_ok "reboot notifier stopped sampling before the restart" "$(tail -n 30 "$console")"
fi
# the notifier's line comes before the kernel's own "reboot: Restarting system"
n_stop=$(grep -n 'pmiprof: reboot: sampling stopped' "$console" | head -n 1 | cut -d: -f1)
n_rst=$(grep -n 'reboot: Restarting system' "$console" | head -n 1 | cut -d: -f1)
[ -n "$n_stop" ] && [ -n "$n_rst" ] && [ "$n_stop" -lt "$n_rst" ] &&
	ok "stopped before 'reboot: Restarting system'" ||
	not_ok "stopped before 'reboot: Restarting system'" "lines '$n_stop' '$n_rst'" "$(tail -n 20 "$console")"
vm_dmesg_clean "$console" "console has no WARN, BUG, oops or unknown NMI"
done_testing
