#!/usr/bin/env bash
# pmiprof doctor on this machine: one OK/WARN/FAIL line per check, values
# that match /proc, a PMU verdict that matches what perf itself can open, the
# backend record would pick, exit 0 when record can work, 2 on usage errors.
. "$(dirname "$0")/../lib.sh"

[ -x "$PMIPROF" ] || skip_all "pmiprof not built"

out=$("$PMIPROF" doctor 2>&1)
rc=$?
if [ $rc -eq 0 ]; then ok "doctor exits 0 where software perf events work"
elif have_perf_sw; then not_ok "doctor exits 0 where software perf events work" "$out"
else skip "doctor exit status" "perf_event_open refused here"
fi

bad=$(printf '%s\n' "$out" | sed -n '3,$p' | grep -v '^$' | grep -Ev '^  (OK  |WARN|FAIL)  ' |
      grep -Ev '^ {8,}.*fix: ' | grep -Ev '^record (can|cannot) work: ')
if [ -z "$bad" ]; then ok "every check line is OK/WARN/FAIL (+ fix:)"; else not_ok "every check line is OK/WARN/FAIL (+ fix:)" "$bad"; fi

missing=
for item in kernel privileges paranoid 'sw events' 'hw PMU' hypervisor 'nmi watchdog' module record; do
	printf '%s\n' "$out" | grep -Eq "^  (OK  |WARN|FAIL)  $item " || missing="$missing [$item]"
done
if [ -z "$missing" ]; then ok "all checks reported"; else not_ok "all checks reported" "missing:$missing" "$out"; fi

p=$(cat /proc/sys/kernel/perf_event_paranoid)
if printf '%s\n' "$out" | grep -E '^  .{4}  paranoid ' | grep -q -- " $p[ :(]"; then
	ok "paranoid value matches /proc ($p)"
else
	not_ok "paranoid value matches /proc ($p)" "$out"
fi

wd=$(cat /proc/sys/kernel/nmi_watchdog 2>/dev/null || echo none)
wline=$(printf '%s\n' "$out" | grep -E '^  .{4}  nmi watchdog ')
case "$wd" in
0) case "$wline" in *" off"*) ok "nmi watchdog off reported" ;; *) not_ok "nmi watchdog off reported" "$wline" ;; esac ;;
1) case "$wline" in *" on"*) ok "nmi watchdog on reported" ;; *) not_ok "nmi watchdog on reported" "$wline" ;; esac ;;
*) skip "nmi watchdog state" "no /proc/sys/kernel/nmi_watchdog" ;;
esac

hline=$(printf '%s\n' "$out" | grep -E '^  .{4}  hw PMU ')
rline=$(printf '%s\n' "$out" | grep -E '^  .{4}  record ')
if have_perf_hw; then
	case "$hline$rline" in
	"  OK    hw PMU"*instructions*) ok "hardware PMU found, record triggers on instructions" ;;
	*) not_ok "hardware PMU found, record triggers on instructions" "$hline" "$rline" ;;
	esac
else
	case "$hline" in "  WARN  hw PMU"*) ok "missing hardware PMU is a WARN" ;; *) not_ok "missing hardware PMU is a WARN" "$hline" ;; esac
	if [ -e /dev/pmiprof ]; then
		skip "perf backend falls back to cpu-clock" "/dev/pmiprof present"
	else
		case "$rline" in *"perf backend"*cpu-clock*time-based*) ok "perf backend falls back to cpu-clock, time-based" ;;
		*) not_ok "perf backend falls back to cpu-clock, time-based" "$rline" ;; esac
	fi
fi

o=$("$PMIPROF" doctor --device /nonexistent/pmiprof 2>&1)
m=$(printf '%s\n' "$o" | grep -A1 -E '^  .{4}  module ')
case "$m" in
*WARN*"/nonexistent/pmiprof absent"*fix:*insmod*) ok "absent device: WARN naming it, fix says insmod" ;;
*) not_ok "absent device: WARN naming it, fix says insmod" "$m" ;;
esac
rl=$(printf '%s\n' "$o" | grep -E '^  .{4}  record ')
case "$rl" in *"perf backend (no /dev/pmiprof)"*) ok "without the device record uses perf" ;;
*) not_ok "without the device record uses perf" "$rl" ;; esac

o=$("$PMIPROF" doctor --device /dev/null 2>&1)
case "$(printf '%s\n' "$o" | grep -E '^  .{4}  module ')" in
*WARN*GET_INFO*) ok "a device that is not pmiprof's fails GET_INFO with a WARN" ;;
*) not_ok "a device that is not pmiprof's fails GET_INFO with a WARN" "$o" ;;
esac

q=$("$PMIPROF" doctor -q 2>&1)
if printf '%s\n' "$q" | grep -q '^  OK  '; then not_ok "-q hides OK lines" "$q"; else ok "-q hides OK lines"; fi
printf '%s\n' "$q" | grep -q '^record can' && ok "-q still prints the verdict" || not_ok "-q still prints the verdict" "$q"

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	u=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$PMIPROF" doctor 2>&1)
	urc=$?
	case "$(printf '%s\n' "$u" | grep -E '^  .{4}  privileges ')" in
	*"uid 65534, CAP_PERFMON no, CAP_SYS_ADMIN no"*) ok "unprivileged run sees no capabilities" ;;
	*) not_ok "unprivileged run sees no capabilities" "$u" ;;
	esac
	if [ "$p" -le 2 ]; then
		[ $urc -eq 0 ] && ok "unprivileged run can record at paranoid $p" || not_ok "unprivileged run can record at paranoid $p" "$u"
	else
		[ $urc -eq 1 ] && ok "unprivileged run fails at paranoid $p" || not_ok "unprivileged run fails at paranoid $p" "$u"
	fi
else
	skip "unprivileged doctor run" "needs root and setpriv"
	skip "unprivileged exit status" "needs root and setpriv"
fi

"$PMIPROF" doctor --no-such-option >/dev/null 2>&1
[ $? -eq 2 ] && ok "unknown option exits 2" || not_ok "unknown option exits 2"
"$PMIPROF" doctor extra >/dev/null 2>&1
[ $? -eq 2 ] && ok "stray argument exits 2" || not_ok "stray argument exits 2"
h=$("$PMIPROF" doctor --help 2>&1)
case "$h" in *SYNOPSIS*OPTIONS*"EXIT STATUS"*) ok "--help prints the manual" ;; *) not_ok "--help prints the manual" "$h" ;; esac

done_testing
