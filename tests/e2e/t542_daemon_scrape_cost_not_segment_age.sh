#!/usr/bin/env bash
# /metrics is kept live (a tap on the segment writer), so a scrape costs the
# same whatever the open segment holds: with a 60 s segment at -F 10000
# (record's default, a hundred times the daemon's), the daemon's own scrape time after 10 s of recording stays small
# (the least of three scrapes under 40 ms; decoding the open segment at each
# scrape took 0.18 s at 10 s on this machine) and does not grow with the
# segment's age.  The least of three: one slow scrape on a loaded machine
# says nothing.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "system-wide recording needs root or CAP_PERFMON"
command -v curl >/dev/null || skip_all "curl not installed"
dp=
trap '[ -n "$dp" ] && kill -9 $dp 2>/dev/null; rm -rf "$TMPD"' EXIT

daemon_start "$TMPD/log" --dir "$TMPD/segs" --listen 127.0.0.1:0 -F 10000
[ -n "$port" ] || { not_ok "daemon started" "$(cat "$TMPD/log")"; done_testing; }
"$WORKLOADS/shares" 10 >/dev/null &
wp=$!
least() {	# the least own scrape time of three, in ms (each scrape reports the one before it)
	local i
	for i in 1 2 3 4; do
		curl -s "http://127.0.0.1:$port/metrics" | awk '$1 == "pmiprof_daemon_last_scrape_duration_seconds" { print $2 * 1000 }'
		sleep 0.2
	done | tail -3 | sort -g | head -1
}
sleep 1
early=$(least)
sleep 8
late=$(least)
w=$(curl -s "http://127.0.0.1:$port/metrics" | awk '/^pmiprof_windows_total/ { s += $2 } END { print s + 0 }')
wait $wp
echo "# own scrape time: ${early} ms after ~1 s, ${late} ms after ~10 s ($w windows counted)"
[ "$w" -gt 20000 ] && ok "10 s at 10 kHz counted ($w windows)" || not_ok "windows counted" "$w"
awk -v l="$late" 'BEGIN { exit !(l < 40) }' && ok "scrape after 10 s of segment: ${late} ms (< 40 ms)" || not_ok "scrape after 10 s" "${late} ms"
awk -v e="$early" -v l="$late" 'BEGIN { exit !(l < 5 * e + 10) }' && ok "scrape time does not grow with the segment ($early -> $late ms)" || not_ok "scrape grows" "$early -> $late ms"
ls "$TMPD/segs" | grep -q '\.open$' && [ "$(ls "$TMPD/segs" | grep -c '\.pmiprof$')" -eq 0 ] && ok "still one open segment (60 s)" || not_ok "one open segment" "$(ls "$TMPD/segs")"
kill -TERM $dp; wait $dp; dp=
done_testing
