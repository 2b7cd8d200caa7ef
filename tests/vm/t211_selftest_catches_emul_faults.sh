#!/usr/bin/env bash
# The self-test catches what it claims: with the emulated PMU broken on
# purpose (pmiprof.ko emul_fault=, pmu=emul emul_clock=icount), the checks
# of the broken property fail and doctor --selftest exits 1.  One guest
# boot; the module is reloaded with each fault in turn:
#   skid           module.skid (each PMI 5000 instructions late: a mean
#                  of ~5450 against the bound of 2000; intact ~450)
#   drop_pmi       module.windows_x_period (the 5th PMI unhandled)
#   task_leak      module.per_task_competitor (what ran while a followed
#                  task was out counts for it when it comes back)
#   no_throttle    module.throttle (each PMI re-arms one period: the
#                  throttle counts but the rate is not capped)
#   leave_enabled  module.released_at_stop and module.start_stop_cycles
#                  (STOP leaves counting: the next START is refused, EBUSY)
# t210 shows each of these checks passing on the intact emulation.
. "$(dirname "$0")/lib.sh"
vm_require module
command -v python3 >/dev/null || skip_all "python3 not installed (make deps)"

faults=${T211_FAULTS:-skid:module.skid drop_pmi:module.windows_x_period \
task_leak:module.per_task_competitor no_throttle:module.throttle \
leave_enabled:module.released_at_stop,module.start_stop_cycles}
names=$(for fc in $faults; do printf '%s ' "${fc%%:*}"; done)
vm_run --icount --timeout 900 -- sh -c '
	for f in '"$names"'; do
		rmmod pmiprof 2>/dev/null
		insmod /lib/modules/pmiprof.ko pmu=emul emul_clock=icount emul_fault=$f ||
			{ echo "selftest_$f=insmod"; continue; }
		pmiprof doctor --selftest --backend module --format json -o /export/st_$f.json 2>/export/st_$f.err
		echo "selftest_$f=$?"
	done'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"

for fc in $faults; do
	fault=${fc%%:*}
	for check in $(echo "${fc#*:}" | tr , ' '); do
		v=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(c["verdict"] + ": " + c["measured"] + " (expected " + c["expected"] + ")"
	for c in d["checks"] if c["name"] == sys.argv[2]))' "$VM_OUT/st_$fault.json" "$check" 2>/dev/null)
		echo "# emul_fault=$fault: $check -> $v"
		case $v in
		fail:*) ok "emul_fault=$fault: $check fails" ;;
		*) not_ok "emul_fault=$fault: $check fails" "${v:-no verdict}" \
			"$(cat "$VM_OUT/st_$fault.err" "$VM_OUT/st_$fault.json" 2>/dev/null)" ;;
		esac
	done
	[ "$(sed -n "s/^selftest_$fault=//p" "$VM_STDOUT")" = 1 ] && ok "emul_fault=$fault: doctor --selftest exits 1" ||
		not_ok "emul_fault=$fault: doctor --selftest exits 1" "$(cat "$VM_STDOUT")"
done
done_testing
