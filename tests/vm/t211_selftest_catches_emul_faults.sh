#!/usr/bin/env bash
# The self-test catches what it claims: with the emulated PMU broken on
# purpose (pmiprof.ko emul_fault=, pmu=emul emul_clock=icount), the check
# of the broken property fails and doctor --selftest exits 1:
#   emul_fault=skid           module.skid (PMIs 200 k instructions late)
#   emul_fault=drop_pmi       module.windows_x_period (the 5th PMI unhandled)
#   emul_fault=leave_enabled  module.released_at_stop (STOP leaves counting:
#                             the next START is refused, EBUSY)
. "$(dirname "$0")/lib.sh"
vm_require module
command -v python3 >/dev/null || skip_all "python3 not installed (make deps)"

for fc in ${T211_FAULTS:-skid:module.skid drop_pmi:module.windows_x_period leave_enabled:module.released_at_stop}; do
	fault=${fc%%:*} check=${fc#*:}
	vm_run --icount --timeout 900 --insmod "pmu=emul emul_clock=icount emul_fault=$fault" -- sh -c '
		pmiprof doctor --selftest --backend module --format json -o /export/st.json 2>/export/st.err
		echo "selftest=$?"'
	[ $VM_RC -eq 0 ] || { not_ok "emul_fault=$fault: guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"; continue; }
	v=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(c["verdict"] + ":" + c["measured"] for c in d["checks"] if c["name"] == sys.argv[2]))' \
		"$VM_OUT/st.json" "$check" 2>/dev/null)
	echo "# emul_fault=$fault: $check -> $v"
	case $v in
	fail:*) ok "emul_fault=$fault: $check fails ($v)" ;;
	*) not_ok "emul_fault=$fault: $check fails" "$v" "$(cat "$VM_OUT/st.json" 2>/dev/null)" ;;
	esac
	[ "$(sed -n 's/^selftest=//p' "$VM_STDOUT")" = 1 ] && ok "emul_fault=$fault: doctor --selftest exits 1" ||
		not_ok "emul_fault=$fault: doctor --selftest exits 1" "$(cat "$VM_STDOUT")"
done
done_testing
