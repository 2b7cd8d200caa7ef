#!/usr/bin/env bash
# The kernel < 6.12 path (forced with PMIPROF_FORCE_NO_INHERIT_READ=1): per-CPU
# groups filtered to the workload's processes, said at run time, marked
# NO_INHERIT_READ with a note in the header that also says the event columns
# count the whole CPU during each window; threads and children are still
# covered and nothing of other processes is kept.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
PMIPROF_FORCE_NO_INHERIT_READ=1 "$PMIPROF" record -o "$TMPD/t.data" -- sh -c "'$WORKLOADS/threads2' 0.5; '$WORKLOADS/shares' 0.3" >/dev/null 2>"$TMPD/err"; rc=$?
if [ $rc -ne 0 ] && grep -q 'not permitted' "$TMPD/err"; then skip_all "per-CPU events not permitted here"; fi
[ $rc -eq 0 ] && ok "record in forced < 6.12 mode" || not_ok "record in forced < 6.12 mode" "$(cat "$TMPD/err")"
grep -q 'notice: .*per-CPU groups' "$TMPD/err" && ok "says so at run time" || not_ok "says so at run time" "$(cat "$TMPD/err")"
"$PMIPROF" dump -i "$TMPD/t.data" >"$TMPD/dump" 2>&1
grep -q '^flags:.*no-inherit-read' "$TMPD/dump" && ok "header flag NO_INHERIT_READ" || not_ok "header flag NO_INHERIT_READ" "$(grep ^flags "$TMPD/dump")"
grep -q '^note:.*per-CPU groups' "$TMPD/dump" && ok "header note explains" || not_ok "header note explains"
grep -q '^note:.*event columns count everything that ran on the CPU during each window, not only the workload' "$TMPD/dump" \
	&& ok "header note says the event columns are CPU-wide" || not_ok "header note says the event columns are CPU-wide" "$(grep ^note "$TMPD/dump")"
pids=$(awk '$2=="fork" || $2=="comm" { for (i = 3; i <= NF; i++) if ($i ~ /^pid=/) print $i }' "$TMPD/dump" | sort -u)
bad=$(grep ' sample ' "$TMPD/dump" | grep -o ' pid=[0-9]*' | sort -u | sed 's/^ //' | grep -vxF "$pids" | head -3)
[ -z "$bad" ] && ok "only the workload's processes sampled" || not_ok "only the workload's processes sampled" "$bad"
np=$(grep ' sample ' "$TMPD/dump" | grep -o ' pid=[0-9]*' | sort -u | wc -l)
[ "$np" -ge 3 ] && ok "children followed ($np processes)" || not_ok "children followed" "$np"
ntid=$(grep ' sample ' "$TMPD/dump" | grep -o 'tid=[0-9]*' | sort -u | wc -l)
[ "$ntid" -ge 4 ] && ok "threads followed ($ntid threads)" || not_ok "threads followed" "$ntid"
done_testing
