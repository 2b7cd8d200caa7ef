#!/usr/bin/env bash
# annotate under exact emulation: pmu=emul emul_clock=icount under
# tests/vm/run --icount, where the emulated instructions counter is the
# guest's retired-instruction count.  The annotate workload
# (tests/workloads/annotate_lines.c, built static) is recorded in the guest
# with -e instructions -c N and annotated there (--by line, its own DWARF);
# each source line's windows x N must equal callgrind_annotate's Ir for that
# line, measured on the host for the same binary and arguments, within 1 %
# for the lines holding >= 5 % (LINE_A 75 %, LINE_H 25 %: the inlined
# helper's line inside work()).
#
# Accounting: a window closes every N instructions of the task; its sample
# is the instruction where the N-th retired, so windows x N count a line's
# instructions to +-N at each end of a stretch (80 rounds: 160 stretches,
# +-0.5 window each on average).  Kernel instructions while the task is
# current (ticks, the PMI's own entry and handler, ~2-3 k per window) fall
# in whichever window is open: at N = 100,000 that is +1 to +4 % per line
# (measured), at N = 1,000,000 a tenth of it, which is why N is 10^6 here.
# Measured: LINE_A +0.06 %, LINE_H +0.37 % (421 of 419.4 windows); at 40 rounds LINE_H was
# off by +1.09 % once (212 of 209.7): too few windows for 1 %.
. "$(dirname "$0")/lib.sh"
vm_require module
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
	skip_all "valgrind / callgrind_annotate not installed on the host (make deps)"
vm_static annotate_lines "$PMIPROF_TOP/tests/workloads/annotate_lines.c" ||
	skip_all "cannot build a static program (libc.a missing?)"
ROUNDS=80	# ~1.68 G instructions: LINE_H ~420 windows, so +-1 window is 0.24 %
PERIOD=1000000

valgrind --tool=callgrind --callgrind-out-file="$TMPD/cg.out" "$TMPD/annotate_lines" -n $ROUNDS \
	>"$TMPD/cg.stdout" 2>"$TMPD/cg.err"
callgrind_annotate --auto=yes "$TMPD/cg.out" "$PMIPROF_TOP/tests/workloads/annotate_lines.c" \
	>"$TMPD/cga.txt" 2>&1
cg_a=$(grep 'LINE_A \*/$' "$TMPD/cga.txt" | awk '{ gsub(",", "", $1); print $1; exit }')
cg_h=$(grep 'LINE_H \*/$' "$TMPD/cga.txt" | awk '{ gsub(",", "", $1); print $1; exit }')
[ -n "$cg_a" ] && [ -n "$cg_h" ] && ok "callgrind_annotate gives LINE_A $cg_a and LINE_H $cg_h Ir on the host" ||
	not_ok "callgrind_annotate per-line Ir" "$(tail -n 20 "$TMPD/cga.txt")"
la=$(grep -n 'LINE_A' "$PMIPROF_TOP/tests/workloads/annotate_lines.c" | tail -1 | cut -d: -f1)
lh=$(grep -n 'LINE_H' "$PMIPROF_TOP/tests/workloads/annotate_lines.c" | tail -1 | cut -d: -f1)

vm_run --icount --timeout 900 --insmod 'pmu=emul emul_clock=icount' --add "$TMPD/annotate_lines" -- sh -c "
	pmiprof record --backend module -e instructions -c $PERIOD -o /export/t.data -- annotate_lines -n $ROUNDS \
		>/export/work.out 2>/export/record.err
	echo record=\$?
	pmiprof annotate -q -i /export/t.data work --by line --no-source -f csv >/export/lines.csv 2>/export/annotate.err
	echo annotate=\$?
	dmesg > /export/dmesg.txt"
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
[ "$(sed -n 's/^record=//p' "$VM_STDOUT")" = 0 ] && ok "record --backend module -e instructions exits 0" ||
	not_ok "record exits 0" "$(cat "$VM_OUT/record.err" 2>/dev/null)"
[ "$(sed -n 's/^annotate=//p' "$VM_STDOUT")" = 0 ] && ok "annotate --by line in the guest exits 0" ||
	not_ok "annotate exits 0" "$(cat "$VM_OUT/annotate.err" 2>/dev/null)"
cmp -s "$VM_OUT/work.out" "$TMPD/cg.stdout" && ok "the guest computed what the host did" ||
	not_ok "the guest computed what the host did" "$(cat "$VM_OUT/work.out" "$TMPD/cg.stdout")"
for pair in "LINE_A:$la:$cg_a" "LINE_H:$lh:$cg_h"; do
	name=${pair%%:*} rest=${pair#*:}
	line=${rest%%:*} cg=${rest#*:}
	w=$(awk -F, -v l="$line" 'NR > 1 && $4 == l { n += $6 } END { print n + 0 }' "$VM_OUT/lines.csv" 2>/dev/null)
	if [ "${w:-0}" -gt 0 ] && [ -n "$cg" ]; then
		d=$(awk -v w="$w" -v p=$PERIOD -v c="$cg" 'BEGIN { printf "%+.3f", 100 * (w * p - c) / c }')
		echo "# $name (line $line): $w windows x $PERIOD = $((w * PERIOD)); callgrind $cg Ir; difference $d %"
		awk -v d="$d" 'BEGIN { exit !(d >= -1 && d <= 1) }' &&
			ok "$name: windows x N = callgrind_annotate's Ir within 1 % ($d %)" ||
			not_ok "$name: windows x N = callgrind's Ir within 1 % ($d %)" "$(cat "$VM_OUT/lines.csv")"
	else
		not_ok "$name has windows in annotate's lines" "$(cat "$VM_OUT/lines.csv" "$VM_OUT/annotate.err" 2>/dev/null)"
	fi
done
vm_dmesg_clean "$VM_OUT/dmesg.txt"
done_testing
