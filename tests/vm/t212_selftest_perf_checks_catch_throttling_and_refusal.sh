#!/usr/bin/env bash
# The perf backend's self-test checks fail when their property breaks, in a
# guest (no module, no PMU: task-clock windows):
#   intact                               perf.windows_x_period passes (in
#     a TCG guest on a loaded host the vCPU thread is preempted for ms and
#     task-clock ticks are lost: then a skip with the figures; t530 shows
#     the pass on the host)
#   perf_event_max_sample_rate=1000      perf.windows_x_period fails: the
#     kernel throttles the 2000 windows/s sampling (4 samples per 4 ms
#     tick at HZ 250), so windows x period falls short of the counted
#     total, and by far more than the intact run's (same-run comparison)
#   as nobody at perf_event_paranoid 3   perf.no_pmu_fallback fails: no
#     event can be opened, record could not sample at all
. "$(dirname "$0")/lib.sh"
vm_require
command -v python3 >/dev/null || skip_all "python3 not installed (make deps)"
vm_static as_nobody "$PMIPROF_TOP/tests/vm/as_nobody.c" || skip_all "cannot build a static program (libc.a missing?)"

vm_run --timeout 600 --add "$TMPD/as_nobody" -- sh -c '
	pmiprof doctor --selftest --backend perf --format json -o /export/intact.json 2>/export/intact.err
	echo "intact=$?"
	rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
	echo 1000 >/proc/sys/kernel/perf_event_max_sample_rate
	echo "rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)"
	pmiprof doctor --selftest --backend perf --format json -o /export/throttled.json 2>/export/throttled.err
	echo "throttled=$?"
	echo "$rate" >/proc/sys/kernel/perf_event_max_sample_rate
	echo 3 >/proc/sys/kernel/perf_event_paranoid
	as_nobody pmiprof doctor --selftest --backend perf --format json >/export/user.json 2>/export/user.err
	echo "user=$?"'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
st() { sed -n "s/^$1=//p" "$VM_STDOUT"; }
check() {	# verdict: measured (expected) of check $2 in $VM_OUT/$1
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(c["verdict"] + ": " + c["measured"] + " (expected " + c["expected"] + ") " + c.get("note", c.get("reason", ""))
	for c in d["checks"] if c["name"] == sys.argv[2]))' "$VM_OUT/$1" "$2" 2>/dev/null
}
ratio() {	# windows x period / counted of the last try, in percent
	check "$1" perf.windows_x_period | sed -n 's/.* = \([0-9]*\), counted \([0-9]*\) .*/\1 \2/p' |
		awk '$2 > 0 { printf "%d\n", 100 * $1 / $2 }'
}
v=$(check intact.json perf.windows_x_period)
r_intact=$(ratio intact.json)
echo "# intact: perf.windows_x_period -> $v"
case $v in
pass:*) ok "intact: perf.windows_x_period passes" ;;
fail:*) skip "intact: perf.windows_x_period passes" "TCG guest lost task-clock ticks (${r_intact}% of the count in windows; host load $(cut -d' ' -f1-3 /proc/loadavg))" ;;
*) not_ok "intact: perf.windows_x_period passes" "${v:-none}" "$(cat "$VM_OUT/intact.err")" ;;
esac
if [ "$(st rate)" = 1000 ]; then
	v=$(check throttled.json perf.windows_x_period)
	echo "# perf_event_max_sample_rate=1000: perf.windows_x_period -> $v"
	case $v in fail:*) ok "max_sample_rate 1000: perf.windows_x_period fails" ;;
	*) not_ok "max_sample_rate 1000: perf.windows_x_period fails" "${v:-none}" "$(cat "$VM_OUT/throttled.err")" ;; esac
	r_thr=$(ratio throttled.json)
	[ -n "$r_thr" ] && [ -n "$r_intact" ] && [ $((2 * r_thr)) -lt "$r_intact" ] &&
		ok "max_sample_rate 1000: windows cover ${r_thr}% of the count, under half the intact run's ${r_intact}%" ||
		not_ok "max_sample_rate 1000: windows cover under half the intact run's share" "${r_thr:-none}% vs ${r_intact:-none}%"
	[ "$(st throttled)" = 1 ] && ok "max_sample_rate 1000: doctor --selftest exits 1" ||
		not_ok "max_sample_rate 1000: doctor --selftest exits 1" "$(cat "$VM_STDOUT")"
else
	skip "max_sample_rate 1000: perf.windows_x_period fails" "the guest refused the sysctl ($(st rate))"
fi
if [ "$(st user)" != 127 ]; then
	v=$(check user.json perf.no_pmu_fallback)
	echo "# nobody at paranoid 3: perf.no_pmu_fallback -> $v"
	case $v in fail:*) ok "nobody at paranoid 3: perf.no_pmu_fallback fails" ;;
	*) not_ok "nobody at paranoid 3: perf.no_pmu_fallback fails" "${v:-none}" "$(cat "$VM_OUT/user.err")" ;; esac
	[ "$(st user)" = 1 ] && ok "nobody at paranoid 3: doctor --selftest exits 1" ||
		not_ok "nobody at paranoid 3: doctor --selftest exits 1" "$(st user)"
else
	not_ok "nobody at paranoid 3: perf.no_pmu_fallback fails" "as_nobody could not run it: $(cat "$VM_OUT/user.err")"
fi
done_testing
