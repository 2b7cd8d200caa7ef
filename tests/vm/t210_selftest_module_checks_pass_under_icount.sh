#!/usr/bin/env bash
# pmiprof doctor --selftest --backend module in a guest with pmu=emul
# emul_clock=icount (tests/vm/run --icount): every module check passes,
# except module.pmi_interrupts, which skips with its reason (emulated PMIs
# come from an hrtimer, not the PMI vector).  The JSON is well-formed and
# names the emulated module.
. "$(dirname "$0")/lib.sh"
vm_require module
command -v python3 >/dev/null || skip_all "python3 not installed (make deps)"

vm_run --icount --timeout 900 --insmod 'pmu=emul emul_clock=icount' -- sh -c '
	pmiprof doctor --selftest --backend module --format json -o /export/st.json 2>/export/st.err
	echo "selftest=$?"
	dmesg > /export/dmesg.txt'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
[ "$(sed -n 's/^selftest=//p' "$VM_STDOUT")" = 0 ] && ok "doctor --selftest exits 0" ||
	not_ok "doctor --selftest exits 0" "$(cat "$VM_OUT/st.err" "$VM_OUT/st.json" 2>/dev/null)"
python3 -m json.tool "$VM_OUT/st.json" >/dev/null 2>&1 && ok "the JSON is well-formed" ||
	not_ok "the JSON is well-formed" "$(head -c 2000 "$VM_OUT/st.json")"
sed 's/^/#   /' "$VM_OUT/st.json"
verdict() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(c["verdict"] for c in d["checks"] if c["name"] == sys.argv[2]))' "$VM_OUT/st.json" "$1" 2>/dev/null
}
for c in module.device module.windows_x_period module.skid module.per_task_competitor \
	module.throttle module.start_stop_cycles module.released_at_stop; do
	[ "$(verdict "$c")" = pass ] && ok "$c passes under icount" ||
		not_ok "$c passes under icount" "$(grep -A4 "\"$c\"" "$VM_OUT/st.json")"
done
[ "$(verdict module.pmi_interrupts)" = skip ] && grep -q 'hrtimer' "$VM_OUT/st.json" &&
	ok "module.pmi_interrupts skips with its reason (emulated)" ||
	not_ok "module.pmi_interrupts skips with its reason (emulated)"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
m = d["machine"]["module"]
sys.exit(0 if m and m["emulated"] and m["icount"] else 1)' "$VM_OUT/st.json" 2>/dev/null &&
	ok "machine.module says emulated, icount" || not_ok "machine.module says emulated, icount"
vm_dmesg_clean "$VM_OUT/dmesg.txt"
done_testing
