#!/usr/bin/env bash
# pmiprof on top of pmiprof.ko in the guest, where things go wrong: the
# module absent (--backend module says what to load), events the module does
# not have, periods below its minimum, -F with overflow sampling, the device
# held by another process (EBUSY, and rmmod refused while it is open), a
# recording interrupted with SIGINT (trace finished, device reusable, module
# unloadable); and pmiprof doctor's verdicts without the module, with
# pmu=emul and with pmu=none, and for an unprivileged user at Debian's
# perf_event_paranoid=3.
. "$(dirname "$0")/lib.sh"
vm_require module
vm_static hot_function "$PMIPROF_TOP/tests/vm/hot_function.c" || skip_all "cannot build a static program (libc.a missing?)"
setpriv=$(command -v setpriv || true)
adds=(--add "$TMPD/hot_function")
[ -n "$setpriv" ] && adds+=(--add "$setpriv:/usr/bin/setpriv")

vm_run --timeout 400 "${adds[@]}" -- sh -c '
	pmiprof doctor >/export/doctor-nomod.txt 2>&1; echo "doctor_nomod=$?"
	pmiprof record --backend module -o /tmp/a.data -- true 2>/export/nomod.err; echo "nomod=$?"
	insmod /lib/modules/pmiprof.ko pmu=emul || echo insmod-failed
	pmiprof doctor >/export/doctor-emul.txt 2>&1; echo "doctor_emul=$?"
	pmiprof record --backend module -e page-faults -o /tmp/a.data -- true 2>/export/badev.err; echo "badev=$?"
	pmiprof record --backend module -c 5 -o /tmp/a.data -- true 2>/export/lowperiod.err; echo "lowperiod=$?"
	pmiprof record --backend module -F 1000 -o /tmp/a.data -- true 2>/export/freq.err; echo "freq=$?"
	( exec 3</dev/pmiprof
	  pmiprof record --backend module -o /tmp/a.data -- true 2>/export/busy.err; echo "busy=$?"
	  rmmod pmiprof 2>/export/rmmod_busy.err; echo "rmmod_busy=$?" )
	pmiprof record --backend module -o /export/intr.data -- hot_function 200 2>/export/intr.err &
	rec=$!
	vm-wait-for 180 /export/intr.err "recording with" || echo "intr-not-started"
	sleep 2
	kill -INT $rec
	wait $rec; echo "intr=$?"
	pmiprof dump -i /export/intr.data >/export/intr.dump 2>&1
	pmiprof record -q --backend module -o /tmp/b.data -- true 2>/export/after.err; echo "after=$?"
	rmmod pmiprof; echo "rmmod=$?"
	insmod /lib/modules/pmiprof.ko pmu=none || echo insmod-failed
	pmiprof doctor >/export/doctor-none.txt 2>&1; echo "doctor_none=$?"
	if [ -x /usr/bin/setpriv ] && [ ! -L /usr/bin/setpriv ]; then
		cat /proc/sys/kernel/perf_event_paranoid >/export/paranoid.txt
		/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
			pmiprof doctor >/export/doctor-user.txt 2>&1; echo "doctor_user=$?"
	fi
	rmmod pmiprof; echo "rmmod_none=$?"
	dmesg > /export/dmesg.txt'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
st() { sed -n "s/^$1=//p" "$VM_STDOUT"; }
has() { grep -q -- "$2" "$VM_OUT/$1" 2>/dev/null; }

[ "$(st nomod)" = 1 ] && has nomod.err "insmod" && ok "--backend module without the module: exit 1, says insmod" ||
	not_ok "--backend module without the module: exit 1, says insmod" "status $(st nomod)" "$(cat "$VM_OUT/nomod.err")"
[ "$(st badev)" = 1 ] && has badev.err "page-faults" && has badev.err "backend perf" &&
	ok "event the module lacks: exit 1, names it and the way out" ||
	not_ok "event the module lacks: exit 1, names it and the way out" "$(cat "$VM_OUT/badev.err")"
[ "$(st lowperiod)" = 1 ] && has lowperiod.err "period 5" && ok "period below the module minimum: exit 1, says the range" ||
	not_ok "period below the module minimum: exit 1, says the range" "$(cat "$VM_OUT/lowperiod.err")"
[ "$(st freq)" = 1 ] && has freq.err "-c" && ok "-F with overflow sampling: exit 1, suggests -c" ||
	not_ok "-F with overflow sampling: exit 1, suggests -c" "$(cat "$VM_OUT/freq.err")"
[ "$(st busy)" = 1 ] && has busy.err "busy" && ok "device held by another process: exit 1, says busy" ||
	not_ok "device held by another process: exit 1, says busy" "$(cat "$VM_OUT/busy.err")"
[ -n "$(st rmmod_busy)" ] && [ "$(st rmmod_busy)" != 0 ] && ok "rmmod refused while the device is open" ||
	not_ok "rmmod refused while the device is open" "status $(st rmmod_busy)"
i=$(st intr)
[ "$i" = 130 ] || [ "$i" = 0 ] && ok "SIGINT ends the recording (status $i)" || not_ok "SIGINT ends the recording" "status $i" "$(cat "$VM_OUT/intr.err")"
grep -q 'finished yes' "$VM_OUT/intr.dump" && [ "$(grep -c ' sample ' "$VM_OUT/intr.dump")" -gt 10 ] &&
	ok "interrupted trace is complete and has samples" || not_ok "interrupted trace is complete and has samples" "$(tail -n 3 "$VM_OUT/intr.dump")"
[ "$(st after)" = 0 ] && ok "device reusable after an interrupted recording" || not_ok "device reusable after an interrupted recording" "$(cat "$VM_OUT/after.err")"
[ "$(st rmmod)" = 0 ] && ok "rmmod after all of it" || not_ok "rmmod after all of it"
[ "$(st rmmod_none)" = 0 ] && ok "rmmod of pmu=none" || not_ok "rmmod of pmu=none"

dline() { grep -E "^  .{4}  $2 " "$VM_OUT/$1" 2>/dev/null; }
[ "$(st doctor_nomod)" = 0 ] && dline doctor-nomod.txt module | grep -q "WARN" && dline doctor-nomod.txt record | grep -q "perf backend" &&
	ok "doctor without module: module WARN, record uses perf, exit 0" ||
	not_ok "doctor without module: module WARN, record uses perf, exit 0" "$(cat "$VM_OUT/doctor-nomod.txt")"
dline doctor-nomod.txt hypervisor | grep -q "QEMU TCG" && ok "doctor names the hypervisor (QEMU TCG)" ||
	not_ok "doctor names the hypervisor (QEMU TCG)" "$(dline doctor-nomod.txt hypervisor)"
# The guest boots the kernel the module was built for: 6.1 on a machine with
# Debian 12's headers, 6.12 where those are installed too.
gk=$(modinfo -F vermagic "$(vm_module_path)" 2>/dev/null | awk '{ print $1 }')
case "$gk" in
6.1[2-9]*|6.[2-9][0-9]*|[7-9].*)
	dline doctor-nomod.txt kernel | grep -q "OK" && ok "doctor: $gk guest kernel has PERF_SAMPLE_READ+inherit" ||
		not_ok "doctor: $gk guest kernel OK" "$(dline doctor-nomod.txt kernel)" ;;
*)
	dline doctor-nomod.txt kernel | grep -q "WARN.*6.12" && ok "doctor: $gk guest kernel lacks PERF_SAMPLE_READ+inherit" ||
		not_ok "doctor: $gk guest kernel lacks PERF_SAMPLE_READ+inherit" "$(dline doctor-nomod.txt kernel)" ;;
esac
[ "$(st doctor_emul)" = 0 ] && dline doctor-emul.txt module | grep -q "OK.*ABI 1\." && dline doctor-emul.txt module | grep -q "WARN.*EMULATED" &&
	dline doctor-emul.txt record | grep -q "module backend: PMI" &&
	ok "doctor with pmu=emul: GET_INFO shown, EMULATED warned, record uses module PMI" ||
	not_ok "doctor with pmu=emul: GET_INFO shown, EMULATED warned, record uses module PMI" "$(cat "$VM_OUT/doctor-emul.txt")"
[ "$(st doctor_none)" = 0 ] && dline doctor-none.txt record | grep -q "module backend: timer" &&
	ok "doctor with pmu=none: record uses module timer sampling" ||
	not_ok "doctor with pmu=none: record uses module timer sampling" "$(cat "$VM_OUT/doctor-none.txt")"
if [ -s "$VM_OUT/doctor-user.txt" ]; then
	p=$(cat "$VM_OUT/paranoid.txt")
	if [ "$p" -ge 3 ]; then
		[ "$(st doctor_user)" = 1 ] && dline doctor-user.txt paranoid | grep -q FAIL && grep -q "record cannot work" "$VM_OUT/doctor-user.txt" &&
			ok "doctor as nobody at paranoid $p: FAIL with a fix, exit 1" ||
			not_ok "doctor as nobody at paranoid $p: FAIL with a fix, exit 1" "$(cat "$VM_OUT/doctor-user.txt")"
	else
		skip "doctor as nobody at paranoid 3" "guest paranoid is $p"
	fi
else
	skip "doctor as nobody" "setpriv not available"
fi
vm_dmesg_clean "$VM_OUT/dmesg.txt"

done_testing
