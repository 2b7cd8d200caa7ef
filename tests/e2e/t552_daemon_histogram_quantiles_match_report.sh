#!/usr/bin/env bash
# histogram_quantile() is right at the default rate: a real Prometheus
# (Debian's, 1 s scrapes) scrapes the daemon (defaults: cpu-clock at 99 Hz,
# no PMU here) while a program of its own name runs; the p50 and p99 of
# its pmiprof_window_cpu_seconds from Prometheus are within 5 % of the same
# quantiles of `report -i DIR --comm W --windows` (every window's
# task-clock, as recorded).  The buckets are chosen around the period: with
# the fixed ones (10 ms, then 100 ms) p99 of windows that all hold about
# 10.1 ms came out at 99 ms.  Also: the bucket bounds are ascending, with
# one of them within 1 % of the period.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "system-wide recording needs root or CAP_PERFMON"
command -v prometheus >/dev/null || skip_all "prometheus not installed (make deps)"
command -v curl >/dev/null || skip_all "curl not installed"
perf stat -e instructions -x, true 2>&1 | grep -q 'not supported' || skip_all "a hardware PMU: windows are event-based (IPC), not time-based (t213 covers those in the VM)"
dp=; pp=
trap '[ -n "$dp" ] && kill -9 $dp 2>/dev/null; [ -n "$pp" ] && kill -9 $pp 2>/dev/null; rm -rf "$TMPD"' EXIT

D=$TMPD/segs
daemon_start "$TMPD/log" --dir "$D" --segment 5 --listen 127.0.0.1:0 --top-comms 1000
[ -n "$port" ] || { not_ok "daemon serving" "$(cat "$TMPD/log")"; done_testing; }
grep -q 'at 99 Hz' "$TMPD/log" && ok "the default rate: cpu-clock at 99 Hz" || not_ok "default rate" "$(head -3 "$TMPD/log")"
curl -s "http://127.0.0.1:$port/metrics" | grep -o 'pmiprof_window_cpu_seconds_bucket{comm="other",cgroup="other",le="[^"]*"' |
	sed 's/.*le="//; s/"$//' >"$TMPD/le"
python3 -c '
import sys
b = [float(x) for x in open(sys.argv[1]) if x.strip() != "+Inf"]
sys.exit(not (len(b) >= 15 and b == sorted(b) and len(set(b)) == len(b) and any(abs(x - 1 / 99) <= 0.01 / 99 for x in b)))' "$TMPD/le" \
	&& ok "bucket bounds ascending, $(wc -l <"$TMPD/le") of them, one at the period (1/99 s)" \
	|| not_ok "bucket bounds" "$(tr '\n' ' ' <"$TMPD/le")"
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
q() { curl -s --max-time 10 "$P/api/v1/query" --data-urlencode "query=$1" |
	python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")'; }
for _ in $(seq 300); do [ "$(q 'max_over_time(up{job="pmiprof"}[1m])' 2>/dev/null)" = 1 ] && break; sleep 0.2; done
[ "$(q 'max_over_time(up{job="pmiprof"}[1m])')" = 1 ] && ok "Prometheus scrapes the daemon" \
	|| { not_ok "Prometheus scrapes the daemon" "$(tail -3 "$TMPD/prom.log")"; done_testing; }

W=t552work
cp "$WORKLOADS/shares" "$TMPD/$W"
ws=$(date +%s)
"$TMPD/$W" 8 >/dev/null
sleep 3
win=$(( $(date +%s) - ws + 5 ))s
p50=$(q "histogram_quantile(0.5, sum by (le) (increase(pmiprof_window_cpu_seconds_bucket{comm=\"$W\"}[$win])))")
p99=$(q "histogram_quantile(0.99, sum by (le) (increase(pmiprof_window_cpu_seconds_bucket{comm=\"$W\"}[$win])))")
kill -TERM $dp; wait $dp; dp=
"$PMIPROF" report -q -i "$D" --comm $W --windows --format csv >"$TMPD/csv" 2>"$TMPD/rerr"
read -r r50 r99 n <<<"$(python3 - "$TMPD/csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
# the histogram holds task-clock (the clock report prefers), without the windows
# after a loss or throttled, as report's statistics
v = sorted(int(r.get("task-clock") or r["cpu-clock"]) / 1e9 for r in rows
           if r.get("throttled", "0") == "0" and r.get("after_loss", "0") == "0")
def q(p):
    return v[min(len(v) - 1, int(p * len(v)))] if v else 0
print(q(0.5), q(0.99), len(v))
PY
)"
for p in 50 99; do
	eval "pv=\$p$p rv=\$r$p"
	python3 -c '
import sys
p, r = float(sys.argv[1]), float(sys.argv[2])
sys.exit(not (r > 0 and abs(p - r) <= 0.05 * r))' "$pv" "$rv" 2>/dev/null \
		&& ok "p$p: Prometheus $pv s, report --windows $rv s (within 5 %, $n windows)" \
		|| not_ok "p$p from Prometheus against report --windows" "prometheus $pv, report $rv ($n windows)"
done
done_testing
