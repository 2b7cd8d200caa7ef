#!/usr/bin/env bash
# Per-task stress (pmu=emul, 2 vCPUs): thousands of short-lived threads,
# forks and grandchildren followed; each exiting task's open window comes
# out PARTIAL (under the period); kill -9 of the recorder mid-recording
# frees every state at the device's last close; pmu=none timer mode
# per-task too.  Every state allocated is freed (per session and at
# unload), no ring loss, no WARN/BUG/oops.
. "$(dirname "$0")/lib.sh"
vm_require module
vm_static task_churn "$PMIPROF_TOP/tests/vm/task_churn.c" -pthread ||
	skip_all "cannot build a static program (libc.a missing?)"

vm_run --timeout 900 --add "$TMPD/task_churn" -- sh -c '
	insmod /lib/modules/pmiprof.ko pmu=emul || echo insmod-failed
	pmiprof record --backend module -c 100000 -o /export/c.data -- task_churn 2000 1000 20000 \
		>/export/churn.out 2>/export/record.err
	echo "record=$?"
	pmiprof dump -i /export/c.data >/export/dump.txt 2>&1
	pmiprof record --backend module -o /export/k.data -- task_churn spin 60 2>/export/record-k.err &
	rec=$!
	vm-wait-for 240 /export/record-k.err "recording with" || echo "record-k-not-started"
	sleep 2
	kill -9 $rec; wait $rec; echo "killed=$?"
	sleep 1
	pkill -9 task_churn
	dmesg > /export/dmesg-kill.txt
	rmmod pmiprof; echo "rmmod=$?"
	insmod /lib/modules/pmiprof.ko pmu=none || echo insmod-none-failed
	pmiprof record --backend module -e cpu-clock -c 200000 -o /export/t.data -- task_churn 200 100 200000 \
		>/dev/null 2>/export/record-t.err
	echo "record_timer=$?"
	pmiprof dump -i /export/t.data >/export/dump-t.txt 2>&1
	rmmod pmiprof; echo "rmmod_none=$?"
	dmesg > /export/dmesg.txt'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
[ "$(sed -n 's/^record=//p' "$VM_STDOUT")" = 0 ] && grep -q 'churn done' "$VM_OUT/churn.out" &&
	ok "churn recorded per-task (2000 threads, 1000 forks + grandchildren)" ||
	not_ok "churn recorded per-task" "$(cat "$VM_OUT/record.err" 2>/dev/null)"
line=$(grep -o 'per-task: [0-9]* tasks followed.*' "$VM_OUT/dmesg.txt" | head -n 1)
echo "# $line"
followed=$(printf '%s' "$line" | sed -n 's/per-task: \([0-9]*\) tasks followed.*/\1/p')
[ "${followed:-0}" -ge 4001 ] && ok "every thread, child and grandchild followed ($followed)" ||
	not_ok "every thread, child and grandchild followed" "$line"
printf '%s' "$line" | grep -q '0 not followed' && ok "no task left unfollowed for want of memory" ||
	not_ok "no task left unfollowed for want of memory" "$line"
exited=$(printf '%s' "$line" | sed -n 's/.*(\([0-9]*\) exited.*/\1/p')
[ -n "$exited" ] && [ "$exited" = "$followed" ] && ok "every followed task's exit seen ($exited)" ||
	not_ok "every followed task's exit seen" "$line"
n_all=0
for f in dmesg-kill.txt dmesg.txt; do
	while read -r a fr; do
		n_all=$((n_all + 1))
		[ "$a" = "$fr" ] || not_ok "$f: allocated = freed" "$a vs $fr"
	done < <(sed -n 's/.*per-task: .*states allocated \([0-9]*\) freed \([0-9]*\)$/\1 \2/p' "$VM_OUT/$f")
done
[ $n_all -ge 3 ] && ok "allocated = freed at every STOP, the killed recorder's included ($n_all sessions)" ||
	not_ok "per-task summary at every STOP" "$n_all"
d=$VM_OUT/dump.txt
grep -q '^# lost records: 0$' "$d" && ok "no window lost" || not_ok "no window lost" "$(grep lost "$d" | head -n 3)"
npart=$(grep -c ' sample .*partial' "$d")
over=$(awk '/ sample .*partial/ { for (i = 1; i <= NF; i++) if ($i ~ /^instructions=/ && substr($i, 14) + 0 >= 100000) n++ } END { print n + 0 }' "$d")
[ "$npart" -ge 1000 ] && [ "$over" = 0 ] && ok "exiting tasks' open windows are PARTIAL records under the period ($npart)" ||
	not_ok "exiting tasks' open windows are PARTIAL records under the period" "$npart partial, $over >= period"
dup=$(awk '/ sample .*partial/ { for (i = 1; i <= NF; i++) if ($i ~ /^tid=/) print $i }' "$d" | sort | uniq -d | head -n 3)
[ -z "$dup" ] && ok "at most one PARTIAL window per task" || not_ok "at most one PARTIAL window per task" "$dup"
grep -q 'states allocated' "$VM_OUT/dmesg-kill.txt" && ok "kill -9 of the recorder: the session stopped at the last close" ||
	not_ok "kill -9 of the recorder: the session stopped at the last close" "$(grep pmiprof "$VM_OUT/dmesg-kill.txt" | tail -n 5)"
[ "$(sed -n 's/^rmmod=//p' "$VM_STDOUT")" = 0 ] && ok "rmmod after the killed recorder" || not_ok "rmmod after the killed recorder"
[ "$(sed -n 's/^record_timer=//p' "$VM_STDOUT")" = 0 ] && grep -q ' sample .*time-based' "$VM_OUT/dump-t.txt" &&
	ok "pmu=none: per-task timer windows recorded" ||
	not_ok "pmu=none: per-task timer windows recorded" "$(cat "$VM_OUT/record-t.err" 2>/dev/null)"
tb=$(awk '/ sample / && !/partial/ { for (i = 1; i <= NF; i++) if ($i ~ /^cpu-clock=/) print substr($i, 11) }' "$VM_OUT/dump-t.txt" | sort -u)
[ "$tb" = 200000 ] && ok "per-task timer windows are 200000 ns of the task's CPU time" ||
	not_ok "per-task timer windows are 200000 ns of the task's CPU time" "$(printf '%s\n' "$tb" | head -n 3)"
nu=$(grep -c 'unload: per-task states allocated' "$VM_OUT/dmesg.txt")
ne=$(grep -c 'unload: per-task states allocated \([0-9]*\), freed \1$' "$VM_OUT/dmesg.txt")
[ "$nu" = 2 ] && [ "$ne" = 2 ] &&
	ok "unload: allocated = freed over the module's life (both loads)" ||
	not_ok "unload: allocated = freed over the module's life" "$(grep 'unload: per-task' "$VM_OUT/dmesg.txt")"
vm_dmesg_clean "$VM_OUT/dmesg.txt"
done_testing
