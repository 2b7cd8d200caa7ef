#!/usr/bin/env bash
# pmu=emul emul_clock=icount under tests/vm/run --icount: a static binary's
# window count x N (its windows, report --comm) matches the instruction
# count valgrind --tool=callgrind measures for the same binary on the host,
# within 2 %.
#
# Accounting: callgrind counts the user instructions from the first one of
# the static binary to exit (the loop's 600 M plus ~40 k of libc start-up).
# The guest's windows count user + kernel instructions of the task while
# it is current: exec after the comm change, page faults, 250 Hz ticks,
# and the PMI's own interrupt entry and handler (~2-3 k instructions per
# window, counted into the next window); about +0.5 % at N = 1,000,000.
# The first and last window straddle the start and the exit (+-1 window
# each, 0.17 %).  The workload is one asm loop with one write(2) at the end,
# so nothing else differs between the two runs.
. "$(dirname "$0")/lib.sh"
vm_require module
command -v valgrind >/dev/null || skip_all "valgrind not installed on the host (make deps)"
vm_static icount_work "$PMIPROF_TOP/tests/vm/icount_work.c" -pthread ||
	skip_all "cannot build a static program (libc.a missing?)"

UNITS=150	# 600 M instructions
PERIOD=1000000

valgrind --tool=callgrind --callgrind-out-file="$TMPD/cg.out" "$TMPD/icount_work" loop $UNITS \
	>"$TMPD/cg.stdout" 2>"$TMPD/cg.err"
cg=$(sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$TMPD/cg.err")
[ -n "$cg" ] && ok "callgrind counts the binary's instructions on the host ($cg)" ||
	not_ok "callgrind counts the binary's instructions on the host" "$(tail -n 5 "$TMPD/cg.err")"

vm_run --icount --timeout 600 --insmod 'pmu=emul emul_clock=icount' --add "$TMPD/icount_work" -- sh -c "
	pmiprof record --backend module -e instructions -c $PERIOD -o /export/t.data -- icount_work loop $UNITS \
		>/export/work.out 2>/export/record.err
	echo record=\$?
	pmiprof report -i /export/t.data --comm icount_work >/export/report.txt 2>&1
	echo report=\$?
	dmesg > /export/dmesg.txt"
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
[ "$(sed -n 's/^record=//p' "$VM_STDOUT")" = 0 ] && ok "record --backend module exits 0" ||
	not_ok "record --backend module exits 0" "$(cat "$VM_OUT/record.err" 2>/dev/null)"
cmp -s "$VM_OUT/work.out" "$TMPD/cg.stdout" && ok "the guest computed what the host did" ||
	not_ok "the guest computed what the host did" "$(cat "$VM_OUT/work.out" "$TMPD/cg.stdout")"

n=$(sed -n 's/.* \([0-9]*\) shown after filters.*/\1/p' "$VM_OUT/report.txt" | head -n 1)
if [ -n "$n" ] && [ -n "$cg" ]; then
	diff=$(awk -v n="$n" -v p=$PERIOD -v c="$cg" 'BEGIN { printf "%+.2f", 100 * (n * p - c) / c }')
	echo "# windows $n x $PERIOD = $((n * PERIOD)) instructions; callgrind $cg; difference $diff %"
	awk -v d="$diff" 'BEGIN { exit !(d >= -2 && d <= 2) }' &&
		ok "window count x N matches callgrind within 2 % ($diff %)" ||
		not_ok "window count x N matches callgrind within 2 % ($diff %)" "$(head -n 20 "$VM_OUT/report.txt")"
else
	not_ok "window count x N matches callgrind within 2 %" "$(head -n 20 "$VM_OUT/report.txt" 2>/dev/null)"
fi
vm_dmesg_clean "$VM_OUT/dmesg.txt"
done_testing
