#!/usr/bin/env bash
# pmiprof daemon under systemd: Type=notify readiness through libsystemd's
# sd_notify -- READY=1 arrives on $NOTIFY_SOCKET only once a segment is open
# and /healthz answers, STOPPING=1 at SIGTERM; the installed unit
# (make install DESTDIR=) passes systemd-analyze verify.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "system-wide recording needs root or CAP_PERFMON"
dp=; lp=
trap '[ -n "$dp" ] && kill -9 $dp 2>/dev/null; [ -n "$lp" ] && kill $lp 2>/dev/null; rm -rf "$TMPD"' EXIT

# a listener in place of systemd: prints each datagram, with what it saw on receipt
cat >"$TMPD/listen.py" <<'EOP'
import os, socket, sys, urllib.request
path, d, portfile = sys.argv[1], sys.argv[2], sys.argv[3]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
s.settimeout(30)
print("bound", flush=True)
while True:
    try:
        msg = s.recv(4096).decode()
    except socket.timeout:
        print("timeout", flush=True)
        break
    opened = any(n.endswith(".pmiprof.open") for n in os.listdir(d))
    health = "-"
    if "READY=1" in msg:
        import time
        for _ in range(100):
            port = open(portfile).read().strip() if os.path.exists(portfile) else ""
            if port:
                break
            time.sleep(0.1)
        health = urllib.request.urlopen("http://127.0.0.1:%s/healthz" % port, timeout=5).read().decode().strip()
    print("msg %r open=%s healthz=%s" % (msg, opened, health), flush=True)
    if "STOPPING=1" in msg:
        break
EOP
D=$TMPD/segs
mkdir -p "$D"
python3 "$TMPD/listen.py" "$TMPD/notify" "$D" "$TMPD/port" >"$TMPD/msgs" 2>&1 &
lp=$!
for _ in $(seq 50); do grep -q bound "$TMPD/msgs" && break; sleep 0.1; done
# the port is known only from the log: the listener reads it when READY comes
NOTIFY_SOCKET=$TMPD/notify "$PMIPROF" daemon --dir "$D" --segment 5 --listen 127.0.0.1:0 -F 1000 2>"$TMPD/log" &
dp=$!
for _ in $(seq 50); do grep -q 'serving http' "$TMPD/log" && break; sleep 0.1; done
grep -o 'http://127.0.0.1:[0-9]*' "$TMPD/log" | sed 's/.*://' >"$TMPD/port"
sleep 2
kill -TERM $dp; wait $dp; rc=$?; dp=
wait $lp; lp=
[ $rc -eq 0 ] && ok "daemon exit 0" || not_ok "daemon exit 0" "rc $rc"
grep -q "READY=1.*open=True healthz=ok" "$TMPD/msgs" && ok "READY=1 once a segment is open and /healthz answers" || not_ok "READY=1" "$(cat "$TMPD/msgs")"
grep -q "STOPPING=1" "$TMPD/msgs" && ok "STOPPING=1 at SIGTERM" || not_ok "STOPPING=1" "$(cat "$TMPD/msgs")"
[ "$(grep -c READY=1 "$TMPD/msgs")" -eq 1 ] && ok "READY=1 sent once" || not_ok "READY=1 once" "$(cat "$TMPD/msgs")"

command -v systemd-analyze >/dev/null || { skip "systemd-analyze verify" "systemd-analyze not installed"; done_testing; }
make -s install DESTDIR="$TMPD/root" PREFIX=/usr >"$TMPD/inst" 2>&1 || { not_ok "make install" "$(tail -5 "$TMPD/inst")"; done_testing; }
u=$TMPD/root/usr/lib/systemd/system/pmiprof.service
[ -f "$u" ] && grep -q '^ExecStart=/usr/bin/pmiprof daemon' "$u" && ok "make install puts pmiprof.service with its ExecStart" || not_ok "unit installed" "$(ls -R "$TMPD/root" | head)"
grep -q '^LimitNOFILE=[0-9]' "$u" && grep -q '^UMask=0027' "$u" && ok "the unit sets LimitNOFILE and UMask" || not_ok "LimitNOFILE, UMask" "$(grep -E 'Limit|UMask' "$u")"
[ -f "$TMPD/root/usr/share/doc/pmiprof/web-config.example.yml" ] && ok "an example --web.config.file is installed" || not_ok "example web config installed"
# verify against the binary just built (the installed path is not on this machine)
sed "s|^ExecStart=/usr/bin/pmiprof|ExecStart=$PMIPROF|" "$u" >"$TMPD/pmiprof.service"
# no man page of pmiprof installed here: --man=no
SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no "$TMPD/pmiprof.service" >"$TMPD/verify" 2>&1; rc=$?
[ $rc -eq 0 ] && ! grep -qi 'unknown\|invalid\|failed' "$TMPD/verify" && ok "systemd-analyze verify pmiprof.service" || not_ok "systemd-analyze verify" "rc $rc: $(head -5 "$TMPD/verify")"
done_testing
