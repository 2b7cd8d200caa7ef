#!/usr/bin/env bash
# Accuracy of the flat profile: the shares workload calls the same loop 5, 3
# and 2 times per round (work_a/b/c), so pmiprof report must show them at
# 50/30/20 % of the samples, within 2 points, each in the shares binary.
# The shares are those of the program's own samples (--dso shares): kernel
# entry/exit samples vary with the machine's load, not with the report.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/shares" ] || skip_all "workload shares not built"
"$PMIPROF" record -q -F 10000 -o "$TMPD/t.data" -- "$WORKLOADS/shares" 2 >/dev/null 2>"$TMPD/err" \
	&& ok "record shares" || not_ok "record shares" "$(cat "$TMPD/err")"
"$PMIPROF" report -i "$TMPD/t.data" --dso shares --format csv >"$TMPD/p.csv" 2>"$TMPD/err" \
	&& ok "report exits 0" || not_ok "report exits 0" "$(cat "$TMPD/err")"
"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/all.csv" 2>/dev/null
# Of the user-space samples: on a loaded VM the host's interrupt re-enable
# (pvm_irq_enable, [kernel.kallsyms]) took 13 % of the samples in one run.
awk -F, 'NR > 1 && $4 != "[kernel.kallsyms]" { u += $2 } $3 ~ /^work_[abc]$/ { s += $2 }
	END { exit !(u > 0 && s / u > 0.9) }' "$TMPD/all.csv" \
	&& ok "work_a/b/c hold over 90% of the user-space samples" ||
	not_ok "work_a/b/c hold over 90% of the user-space samples" "$(head -6 "$TMPD/all.csv")"
share() { awk -F, -v f="$1" '$3 == f && $4 == "shares" { print $2 }' "$TMPD/p.csv"; }
within() { awk -v v="$1" -v w="$2" 'BEGIN { exit !(v != "" && v - w <= 2 && w - v <= 2) }'; }
for fw in work_a:50 work_b:30 work_c:20; do
	f=${fw%:*} want=${fw#*:} got=$(share "${fw%:*}")
	within "$got" "$want" && ok "$f: $got% of samples = $want +- 2" \
		|| not_ok "$f: ${got:-missing}% of samples = $want +- 2" "$(head -5 "$TMPD/p.csv")"
done
done_testing
