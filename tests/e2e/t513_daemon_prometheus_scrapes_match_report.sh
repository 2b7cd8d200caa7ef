#!/usr/bin/env bash
# A real Prometheus (Debian's package, own config and temp storage, scrape
# interval 1 s) scrapes pmiprof daemon while the shares workload runs; the
# totals Prometheus holds for comm="$W" are the numbers `pmiprof report
# -i DIR --comm $W` gives for the same samples (windows exactly, the
# cpu-clock sum exactly), and histogram_quantile over the time-based
# window histogram returns a value.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "system-wide recording needs root or CAP_PERFMON"
command -v prometheus >/dev/null || skip_all "prometheus not installed (make deps)"
command -v curl >/dev/null || skip_all "curl not installed"
dp=; pp=
trap '[ -n "$dp" ] && kill -9 $dp 2>/dev/null; [ -n "$pp" ] && kill -9 $pp 2>/dev/null; rm -rf "$TMPD"' EXIT

D=$TMPD/segs
daemon_start "$TMPD/log" --dir "$D" --segment 2 --listen 127.0.0.1:0 --top-comms 1000 -F 1000
[ -n "$port" ] || { not_ok "daemon serving" "$(cat "$TMPD/log")"; done_testing; }
pport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$TMPD/prometheus.yml" <<EOC
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: pmiprof
    scrape_interval: 1s
    scrape_timeout: 1s
    static_configs:
      - targets: ['127.0.0.1:$port']
EOC
prometheus --config.file="$TMPD/prometheus.yml" --storage.tsdb.path="$TMPD/tsdb" \
	--web.listen-address="127.0.0.1:$pport" >"$TMPD/prom.log" 2>&1 &
pp=$!
P=http://127.0.0.1:$pport
q() { curl -s --max-time 10 "$P/api/v1/query" --data-urlencode "query=$1" |
	python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")'; }
# a scrape may time out (1 s) on a loaded machine: wait for one that worked
for _ in $(seq 300); do [ "$(q 'max_over_time(up{job="pmiprof"}[1m])' 2>/dev/null)" = 1 ] && break; sleep 0.2; done
[ "$(q 'max_over_time(up{job="pmiprof"}[1m])')" = 1 ] && ok "Prometheus scrapes the daemon (up == 1)" || { not_ok "Prometheus scrapes the daemon" "$(curl -s "$P/api/v1/targets" | grep -o '"lastError":"[^"]*"'; tail -3 "$TMPD/prom.log")"; done_testing; }

# a command name of its own: other shares runs on this machine are not ours
W=t513work
cp "$WORKLOADS/shares" "$TMPD/$W"
ws=$(date +%s)
"$TMPD/$W" 3 >/dev/null
# the last samples: on disk within a second, then a scrape, then in the TSDB;
# on a loaded machine some scrapes time out: wait until the value holds still
# for 3 s with a successful scrape in that time
sleep 3
prev=; same=0
for _ in $(seq 60); do
	v=$(q "sum(pmiprof_windows_total{comm=\"$W\"})")
	[ -n "$v" ] && [ "$v" = "$prev" ] && [ "$(q 'max_over_time(up{job="pmiprof"}[3s])')" = 1 ] && same=$((same + 1)) || same=0
	[ $same -ge 3 ] && break
	prev=$v
	sleep 1
done
pw=$(q "sum(pmiprof_windows_total{comm=\"$W\"})")
pc=$(q "sum(pmiprof_events_total{comm=\"$W\",event=\"cpu-clock\"})")
# a range that covers the workload however long the wait above took on a loaded machine
win=$(( $(date +%s) - ws + 5 ))s
hq=$(q "histogram_quantile(0.99, sum by (le) (rate(pmiprof_window_cpu_seconds_bucket{comm=\"$W\"}[$win])))")
h50=$(q "histogram_quantile(0.5, sum by (le) (increase(pmiprof_window_cpu_seconds_bucket{comm=\"$W\"}[$win])))")
kill -TERM $dp; wait $dp; dp=
"$PMIPROF" report -q -i "$D" --comm $W --format csv >"$TMPD/csv" 2>"$TMPD/rerr"
"$PMIPROF" report -q -i "$D" --comm $W >"$TMPD/rep" 2>&1
rw=$(grep -o '[0-9]* shown after filters' "$TMPD/rep" | grep -o '^[0-9]*')
# csv: the cpu-clock column summed over every row
rc=$(python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = rows[0]
col = next(i for i, n in enumerate(h) if n in ("cpu-clock", "cpu-clk"))
print(sum(int(float(r[col])) for r in rows[1:] if len(r) > col and r[col]))' "$TMPD/csv" 2>"$TMPD/pyerr")
[ -n "$rw" ] && [ "$rw" -gt 500 ] && [ "$pw" = "$rw" ] && ok "Prometheus windows{comm=$W} = report --comm $W ($pw)" \
	|| not_ok "windows match" "prometheus $pw, report $rw"
[ -n "$rc" ] && [ "$pc" = "$rc" ] && ok "Prometheus events{cpu-clock,$W} = report's cpu-clock sum ($pc)" \
	|| not_ok "cpu-clock sum matches" "prometheus $pc, report $rc $(head -c 300 "$TMPD/pyerr") $(head -2 "$TMPD/csv")"
python3 -c 'import sys; v = float(sys.argv[1]); sys.exit(not (0 < v <= 1))' "$hq" 2>/dev/null \
	&& ok "histogram_quantile(0.99, rate(pmiprof_window_cpu_seconds_bucket[30s])) = $hq s" || not_ok "histogram_quantile p99" "$hq"
# -F 1000: windows of about 1 ms of CPU
python3 -c 'import sys; v = float(sys.argv[1]); sys.exit(not (0.0001 <= v <= 0.01))' "$h50" 2>/dev/null \
	&& ok "median window of $W: $h50 s (-F 1000)" || not_ok "median window" "$h50"
kill $pp; wait $pp 2>/dev/null; pp=
done_testing
