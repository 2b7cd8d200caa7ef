#!/usr/bin/env bash
# pmiprof daemon's default rate is a service's, not a recording's: with no
# -c/-F the no-PMU fallback samples cpu-clock at 99 Hz per CPU (record's
# 10 kHz doubles a CPU-bound program's run time on this VM), said at start;
# over about 3 s of a busy CPU the windows counted are about 99 per second
# per CPU, never record's hundred times more.  -F and the config's freq still
# win, and record keeps its own 10 kHz.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "system-wide recording needs root or CAP_PERFMON"
command -v curl >/dev/null || skip_all "curl not installed"
have_perf_hw && skip_all "a hardware PMU: the default trigger is instructions every 51200000 (not checked here)"
dp=
trap '[ -n "$dp" ] && kill -9 $dp 2>/dev/null; rm -rf "$TMPD"' EXIT

start_daemon() {	# extra options...
	daemon_start "$TMPD/log" --dir "$TMPD/segs" --segment 60 --listen 127.0.0.1:0 "$@"
	[ -n "$port" ] || { not_ok "daemon started" "$(cat "$TMPD/log")"; done_testing; }
}
stop_daemon() { kill -TERM "$dp"; wait "$dp" 2>/dev/null; dp=; rm -rf "$TMPD/segs"; }
# windows counted for the shares workload over its run, per second of its CPU time
rate_of_shares() {
	local t0 t1 w
	"$WORKLOADS/shares" 3 >"$TMPD/out" 2>&1
	sleep 0.3
	curl -s "http://127.0.0.1:$port/metrics" >"$TMPD/m"
	w=$(awk '/^pmiprof_windows_total\{comm="shares"/ { s += $2 } END { print s + 0 }' "$TMPD/m")
	t1=$(sed -n 's/.*(cpu \([0-9.]*\) s).*/\1/p' "$TMPD/out")
	echo "$w $t1" | awk '{ printf "%.0f\n", ($2 > 0) ? $1 / $2 : 0 }'
}

# label, the rate the start line names, the windows per CPU second allowed, daemon options
rate_case() {
	local label=$1 hz=$2 lo=$3 hi=$4 r
	shift 4
	start_daemon "$@"
	grep -q "trigger cpu-clock at $hz Hz" "$TMPD/log" && ok "$label: cpu-clock at $hz Hz, said at start" \
		|| not_ok "$label: rate said" "$(head -3 "$TMPD/log")"
	r=$(rate_of_shares)
	echo "# $label: $r windows per CPU second of shares ($(cut -d' ' -f1-3 /proc/loadavg))"
	[ "$r" -ge "$lo" ] && [ "$r" -le "$hi" ] && ok "$label: about $hz windows per CPU second ($r)" \
		|| not_ok "$label: windows per CPU second" "$r, expected $lo..$hi"
	stop_daemon
}
rate_case default 99 50 200
rate_case "-F 1000 wins over the default" 1000 500 2000 -F 1000

printf 'freq = 300\n' >"$TMPD/conf"
start_daemon --config "$TMPD/conf"
grep -q 'trigger cpu-clock at 300 Hz' "$TMPD/log" && ok "the config's freq wins over the default" \
	|| not_ok "config freq said" "$(head -3 "$TMPD/log")"
stop_daemon

"$PMIPROF" record -o "$TMPD/r.data" -- true 2>"$TMPD/rlog"
grep -q 'cpu-clock at 10000 Hz' "$TMPD/rlog" && ok "record keeps its 10 kHz" || not_ok "record's rate" "$(cat "$TMPD/rlog")"
done_testing
