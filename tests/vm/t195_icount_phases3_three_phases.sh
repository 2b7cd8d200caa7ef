#!/usr/bin/env bash
# pmiprof phases in the guest, pmu=emul emul_clock=icount under
# tests/vm/run --icount (event-based windows: emulated instructions):
# phases3 -n (A B A C A as fixed work) gives 3 phases; with the clusters
# mapped to the workload's own phase timestamps (guest CLOCK_MONOTONIC, the
# trace's clock) by majority, >= 95% of the intervals inside one phase carry
# its label; the CSV has the documented columns; report --phase K's top
# function is the phase's.  The run is cut to the workload's phases with
# --time (its set-up is a behaviour of its own).
. "$(dirname "$0")/lib.sh"
vm_require module
vm_static phases3 "$PMIPROF_TOP/tests/workloads/phases3.c" ||
	skip_all "cannot build a static program (libc.a missing?)"

# ~220 M instructions: ~430 windows of 512,000, intervals of 8 windows.
vm_run --icount --timeout 900 --insmod 'pmu=emul emul_clock=icount' --add "$TMPD/phases3" -- sh -c '
	pmiprof record --backend module -o /export/t.data -- phases3 -n 10 60 8 2>/export/truth
	echo "record=$?"
	s=$(pmiprof dump -i /export/t.data | sed -n "s/^clock: .* start \([0-9]*\) .*/\1/p")
	awk -v s="$s" "\$1 == \"phase\" { printf \"%s %.9f %.9f\\n\", \$2, (\$3 - s) / 1e9, (\$4 - s) / 1e9 }" \
		/export/truth >/export/segs
	t=$(awk "NR == 1 { b = \$2 } { e = \$3 } END { print b \",\" e }" /export/segs)
	pmiprof phases -i /export/t.data --comm phases3 --time "$t" --interval 8 -f csv >/export/phases.csv 2>/export/phases.err
	echo "phases=$?"
	pmiprof phases -i /export/t.data --comm phases3 --time "$t" --interval 8 >/export/phases.txt 2>&1
	for k in 1 2 3; do
		pmiprof report -i /export/t.data --comm phases3 --time "$t" --phase $k --phase-interval 8 \
			-f csv >/export/phase$k.csv 2>/dev/null
	done
	dmesg > /export/dmesg.txt'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
[ "$(sed -n 's/^record=//p' "$VM_STDOUT")" = 0 ] && [ "$(sed -n 's/^phases=//p' "$VM_STDOUT")" = 0 ] &&
	ok "record --backend module and phases exit 0" ||
	not_ok "record and phases exit 0" "$(cat "$VM_OUT/phases.err" 2>/dev/null)" "$(cat "$VM_OUT/truth" 2>/dev/null)"
csv=$VM_OUT/phases.csv
head -1 "$csv" 2>/dev/null | grep -qx 'interval,start_s,end_s,phase' && ok "csv columns interval,start_s,end_s,phase" ||
	not_ok "csv columns" "$(head -3 "$csv" 2>/dev/null)"
k=$(awk -F, 'NR > 1 { p[$4] = 1 } END { print length(p) }' "$csv" 2>/dev/null)
[ "$k" = 3 ] && ok "3 phases found" || not_ok "3 phases" "found ${k:-none}" "$(cat "$VM_OUT/phases.txt" 2>/dev/null)"
awk 'FNR == NR { l[NR] = $1; b[NR] = $2; e[NR] = $3; n = NR; next }
	FNR > 1 { split($0, f, ","); t = ""
		for (i = 1; i <= n; i++) if (f[2] >= b[i] && f[3] <= e[i]) t = l[i]
		if (t == "") { straddle++; next }
		cnt[f[4] " " t]++; lab[FNR] = f[4]; tru[FNR] = t; m++ }
	END { for (c in cnt) { split(c, q, " "); if (cnt[c] > best[q[1]]) { best[q[1]] = cnt[c]; map[q[1]] = q[2] } }
		for (i in lab) if (map[lab[i]] == tru[i]) good++
		for (p in map) { if (seen[map[p]]++) dup = 1; printf "phase %s = %s\n", p, map[p] > "/dev/stderr" }
		printf "%d %d %d %d\n", good, m, straddle, dup }' "$VM_OUT/segs" "$csv" >"$TMPD/res" 2>"$TMPD/map"
read -r good m straddle dup <"$TMPD/res"
awk -v g="${good:-0}" -v m="${m:-0}" 'BEGIN { exit !(m >= 20 && g >= 0.95 * m) }' && [ "${dup:-1}" = 0 ] &&
	ok "labels: $good of $m intervals inside one phase agree with the construction ($straddle straddle)" ||
	not_ok "labels vs construction" "good=$good of $m, straddling $straddle, dup=$dup" "$(cat "$TMPD/map")" \
		"$(cat "$VM_OUT/segs" 2>/dev/null)" "$(cat "$csv" 2>/dev/null)"
for p in 1 2 3; do
	t=$(sed -n "s/^phase $p = //p" "$TMPD/map")
	case $t in A) want=phase_alu ;; B) want=phase_chase ;; C) want=phase_float ;; *) want=? ;; esac
	top=$(awk -F, 'NR == 2 { print $3 }' "$VM_OUT/phase$p.csv" 2>/dev/null)
	[ "$top" = "$want" ] && ok "report --phase $p ($t): top function $top" ||
		not_ok "report --phase $p" "top '$top', want '$want' (phase $t)"
done
vm_dmesg_clean "$VM_OUT/dmesg.txt"
done_testing
