#!/usr/bin/env bash
# -p on Debian's 6.1 kernel (the real kernel < 6.12 fallback): a worker
# thread that already runs at the attach later dlopen()s a library and spins
# in it.  Its MMAP must be recorded (side-band opened on every thread, not
# only the main one), so the library function is on top, not [unknown]; and
# the header note says event columns count the whole CPU in this mode.
. "$(dirname "$0")/lib.sh"
vm_require
k61=$(vm_kernel_pre612) || skip_all "no guest kernel older than 6.12 in /boot (linux-image-amd64 of Debian 12 is 6.1)"
vm_run --timeout 400 --kernel "$k61" -- sh -c '
	uname -r > /export/uname.txt
	thread_dlopen 1.5 >/tmp/wl.out & wp=$!
	i=0; while [ $i -lt 100 ] && ! grep -q waiting /tmp/wl.out; do sleep 0.1; i=$((i+1)); done
	pmiprof record -o /export/p.data -p $wp 2>/export/p.err & rp=$!
	i=0; while [ $i -lt 200 ] && ! grep -q "recording with" /export/p.err; do sleep 0.1; i=$((i+1)); done
	sleep 0.3; kill -USR1 $wp; wait $wp; wait $rp; echo "record=$?"
	pmiprof report -i /export/p.data --format csv >/export/p.csv 2>/export/report.err
	pmiprof dump -i /export/p.data >/export/p.dump 2>&1'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
kv=$(awk -F. '{ print $1 * 1000 + $2 }' "$VM_OUT/uname.txt" 2>/dev/null)
[ "${kv:-0}" -ge 6012 ] && skip_all "guest kernel $(cat "$VM_OUT/uname.txt") has inherit + PERF_SAMPLE_READ"
[ "$(sed -n 's/^record=//p' "$VM_STDOUT")" = 0 ] && ok "-p recording ends with the target" ||
	not_ok "-p recording ends with the target" "$(cat "$VM_OUT/p.err" 2>/dev/null)"
grep -q 'notice: kernel 6\.1 rejects PERF_SAMPLE_READ' "$VM_OUT/p.err" && ok "fallback taken on kernel $(cat "$VM_OUT/uname.txt")" ||
	not_ok "fallback taken" "$(cat "$VM_OUT/p.err")"
grep -q ' mmap .*libpmwork.so' "$VM_OUT/p.dump" && ok "MMAP of the library dlopen()ed by the worker" ||
	not_ok "MMAP of the library dlopen()ed by the worker" "$(grep ' mmap ' "$VM_OUT/p.dump" | tail -3)"
top=$(awk -F, 'NR > 1 && $2 ~ /^[0-9.]+$/ { print $3 "," $2; exit }' "$VM_OUT/p.csv")
pct=${top#*,}
[ "${top%%,*}" = pmwork_lib_spin ] && awk -v p="$pct" 'BEGIN { exit !(p >= 80) }' &&
	ok "library function of the worker thread on top ($pct %)" ||
	not_ok "library function of the worker thread on top (>= 80 %)" "$(head -4 "$VM_OUT/p.csv")"
grep '^note:' "$VM_OUT/p.dump" | grep -q 'event columns count everything that ran on the CPU' &&
	ok "header note: event columns count the whole CPU" || not_ok "header note: event columns count the whole CPU" "$(grep '^note:' "$VM_OUT/p.dump")"
done_testing
