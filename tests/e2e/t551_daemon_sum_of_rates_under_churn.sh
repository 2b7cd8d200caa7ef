#!/usr/bin/env bash
# Hand-overs of names do not count windows twice, in a real Prometheus
# (Debian's, 1 s scrapes): while --top-comms goes 1 -> 3 -> 1 ... by SIGHUP
# every 2 s (each lowering demotes the least active named pairs, each
# raising names unnamed ones) with three busy programs and whatever else
# runs here, the windows Prometheus holds, summed over every series of
# pmiprof_windows_total, grow as pmiprof_daemon_samples_recorded_total
# grows: within 2 %, from the TSDB's raw samples (a series gone counts
# nothing more, one that went back counts from 0: increase()'s rules,
# without its extrapolation at a series' ends) and by Prometheus's own
# sum(rate()) over the whole stretch (within 5 %: it extrapolates the
# ends of short series).  Before, a demoted pair's total was added to
# "other" in one step and the sum of rates was 1.2-4x the recorded rate.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "system-wide recording needs root or CAP_PERFMON"
command -v prometheus >/dev/null || skip_all "prometheus not installed (make deps)"
command -v curl >/dev/null || skip_all "curl not installed"
dp=; pp=; wl=
trap '[ -n "$dp" ] && kill -9 $dp 2>/dev/null; [ -n "$pp" ] && kill -9 $pp 2>/dev/null; [ -n "$wl" ] && kill $wl 2>/dev/null; rm -rf "$TMPD"' EXIT

D=$TMPD/segs
C=$TMPD/pmiprof.conf
echo "top-comms = 3" >"$C"
daemon_start "$TMPD/log" --config "$C" --dir "$D" --segment 5 --listen 127.0.0.1:0 -F 199
[ -n "$port" ] || { not_ok "daemon serving" "$(cat "$TMPD/log")"; done_testing; }
pport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$TMPD/prometheus.yml" <<EOC
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: pmiprof
    scrape_interval: 1s
    scrape_timeout: 900ms
    static_configs:
      - targets: ['127.0.0.1:$port']
EOC
prometheus --config.file="$TMPD/prometheus.yml" --storage.tsdb.path="$TMPD/tsdb" \
	--web.listen-address="127.0.0.1:$pport" >"$TMPD/prom.log" 2>&1 &
pp=$!
P=http://127.0.0.1:$pport
q() { curl -s --max-time 10 "$P/api/v1/query" --data-urlencode "query=$1" --data-urlencode "time=${2:-$(date +%s.%N)}"; }
q1() { q "$@" | python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")'; }
for _ in $(seq 300); do [ "$(q1 'max_over_time(up{job="pmiprof"}[1m])' 2>/dev/null)" = 1 ] && break; sleep 0.2; done
[ "$(q1 'max_over_time(up{job="pmiprof"}[1m])')" = 1 ] && ok "Prometheus scrapes the daemon" \
	|| { not_ok "Prometheus scrapes the daemon" "$(tail -3 "$TMPD/prom.log")"; done_testing; }

for w in t551a t551b t551c; do cp "$WORKLOADS/shares" "$TMPD/$w"; done
( "$TMPD/t551a" 30 & "$TMPD/t551b" 30 & "$TMPD/t551c" 30 & wait ) >/dev/null &
wl=$!
sleep 3
t0=$(date +%s.%N)
for i in $(seq 8); do
	echo "top-comms = $([ $((i % 2)) = 1 ] && echo 1 || echo 3)" >"$C"
	kill -HUP $dp
	sleep 2
done
sleep 2
t1=$(date +%s.%N)
sleep 2	# the last scrapes of the stretch into the TSDB
kill $wl 2>/dev/null; wait $wl 2>/dev/null; wl=
span=$(python3 -c "import math, sys; print(math.ceil($t1 - $t0))")
# raw samples of every series in the stretch, and the recorded total's
q "pmiprof_windows_total[${span}s]" "$t1" >"$TMPD/win.json"
q "pmiprof_daemon_samples_recorded_total[${span}s]" "$t1" >"$TMPD/rec.json"
read -r wsum rsum nser <<<"$(python3 - "$TMPD/win.json" "$TMPD/rec.json" <<'PY'
import json, sys
def inc(vals):
    s = 0.0
    for a, b in zip(vals, vals[1:]):
        s += b - a if b >= a else b
    return s
w = json.load(open(sys.argv[1]))["data"]["result"]
r = json.load(open(sys.argv[2]))["data"]["result"]
ws = sum(inc([float(v) for _, v in x["values"]]) for x in w)
rs = inc([float(v) for _, v in r[0]["values"]]) if r else 0
print(ws, rs, len(w))
PY
)"
ho=$(q1 "increase(pmiprof_daemon_evictions_total{table=\"named\"}[${span}s])" "$t1")
python3 -c 'import sys; sys.exit(not float(sys.argv[1]) >= 4)' "${ho:-0}" \
	&& ok "names changed hands during the stretch (about $ho hand-overs, $nser series)" \
	|| not_ok "hand-overs" "$ho"
python3 -c '
import sys
w, r = float(sys.argv[1]), float(sys.argv[2])
sys.exit(not (r > 300 and abs(w - r) <= 0.02 * r))' "$wsum" "$rsum" \
	&& ok "sum of the series' increases = samples recorded within 2 % ($wsum vs $rsum)" \
	|| not_ok "sum of increases against samples recorded" "windows $wsum, recorded $rsum"
sr=$(q1 "sum(rate(pmiprof_windows_total[${span}s]))" "$t1")
rr=$(q1 "rate(pmiprof_daemon_samples_recorded_total[${span}s])" "$t1")
python3 -c '
import sys
w, r = float(sys.argv[1]), float(sys.argv[2])
sys.exit(not (r > 0 and abs(w - r) <= 0.05 * r))' "${sr:-0}" "${rr:-0}" \
	&& ok "Prometheus: sum(rate(pmiprof_windows_total)) = rate(samples recorded) within 5 % ($sr vs $rr /s)" \
	|| not_ok "sum(rate()) against the recorded rate" "$sr vs $rr"
kill -TERM $dp; wait $dp; dp=
done_testing
